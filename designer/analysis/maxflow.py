"""Max-flow between halves of the NIC ports: the contracted plane networks and Dinic's algorithm.

The endpoints are the NIC ports (one per server per rail per plane); a split puts half of them in
``A`` and the rest in ``B``, the same way in every plane, and the bisection bandwidth is the maximum
flow from ``A`` to ``B`` (= the minimum cut, by max-flow/min-cut). Splits, each a worst case for a
different part of the fabric:

* ``pods``: the first half of the servers in scalable-unit order, which cuts at a pod boundary when
  the pods are even (``scalable units`` in a 2-tier fabric, which has one pod): all traffic crosses
  the top tier;
* ``rails``: the lower half of the rails against the upper half: every flow leaves its rail;
* ``random``: a seeded shuffle of the endpoints, mixing both sides on every leaf.

Planes are separate fabrics (servers do not forward), so a split "by plane" (plane 0 against
plane 1) has no backend path by design; instead every split is computed a plane at a time and the
bisection is the sum over planes. Each plane's graph is contracted without changing any cut: the
servers are taken out (a NIC link is in series with its endpoint, so a leaf gets an edge from the
source with the capacity of its ``A`` links and one to the sink with its ``B`` links), and the
parallel links between two switches become one edge of summed capacity. What remains (about 2.5k
nodes and 50k edges per plane at 32k GPUs) is solved exactly with Dinic's algorithm, in units of one
link (the tests confirm it against networkx on the uncontracted graph; when the tiers run different speeds, the
unit is their greatest common divisor and a link weighs its speed in units); a 1:1 fabric gives exactly
``N * s / 2`` for every split. Each plane's network is built once; a split only sets the capacities of
the leaves' source and sink arcs in a copy, and a failure zeroes the arcs of what is down, so the
single failures are solved on the same networks (about 0.1 s per max-flow at 32k GPUs). A plane wired as an
earlier one, its arcs and capacities the same, has that plane's max-flow, which is not solved again.

Single failures (:func:`failures`): the busiest spine, super-spine and leaf (the one with the most links, first
in device order on a tie) and the first leaf-spine link. The failed plane is solved again without it for the
structured splits only (pods or scalable units, and rails; the random split mixes both halves on every leaf
and is never the worst one for a single failure); what is left is the smallest of those bisections. A failure
is solved from the intact max-flow of its split (:meth:`PlaneNetwork.without`): the flow through what is down
is taken back along paths of the flow, then Dinic's algorithm adds what the rest carries, so only the few
hundred links of the failure move, not the whole bisection (the tests confirm it against solving afresh). The
failure-impact check reads the result; only numbers leave this module, never a network.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from designer.analysis.facts import Facts
from designer.backend.wiring import LEAF_SPINE, NONE, SERVER_LEAF, Fabric, Link

SEED = 4791
"""Seeds every random choice the analysis makes (the random split, sampled leaf pairs)."""
SOURCE, SINK = -1, -2

STRUCTURED = ("pods", "scalable units", "rails")
"""The splits a single failure is measured against."""

Split = Callable[[int, int], bool]
"""``(server number, rail) -> True`` when that NIC port is in half ``A``."""


class Failure(NamedTuple):
    """One thing down: a switch (``device``) or a link (``link``), in ``plane``."""

    kind: str
    plane: int
    subject: str
    device: int = NONE
    link: Link | None = None


@dataclass(frozen=True)
class Bisection:
    """Max-flow per split and plane, in links of ``link_speed`` (:func:`flow_unit`); ``full`` is half the NIC ports'
    (``N / 2`` summed over planes); ``failed`` each single failure with the bisection left with it down (all
    planes)."""

    link_speed: int
    full: int
    flows: dict[str, tuple[int, ...]]
    failed: tuple[tuple[Failure, int], ...] = ()

    def total(self, split: str) -> int:
        return sum(self.flows[split])

    @property
    def worst(self) -> str:
        return min(self.flows, key=lambda split: (self.total(split), list(self.flows).index(split)))

    def tbps(self, links: int) -> float:
        return links * self.link_speed / 1000

    def fraction(self, links: int) -> float:
        return links / self.full if self.full else 1.0


def splits(fabric: Fabric) -> dict[str, Split]:
    """The halves the bisection is measured between, by name."""
    plan = fabric.plan
    servers, rails = plan.servers, plan.rails
    half = servers * rails // 2
    order = list(range(servers * rails))
    random.Random(SEED).shuffle(order)
    shuffled = bytearray(servers * rails)
    for endpoint in order[:half]:
        shuffled[endpoint] = 1
    return {
        "pods" if plan.pods > 1 else "scalable units": lambda server, rail: server * rails + rail < half,
        "rails": lambda server, rail: rail * servers + server < half,
        "random": lambda server, rail: bool(shuffled[server * rails + rail]),
    }


class PlaneNetwork:
    """One plane's contracted graph (module docstring) as a residual network, built once: every split and
    every failure solves a copy of its capacities. Arc ``i`` and its reverse ``i ^ 1``; node 0 is the
    source and node 1 the sink; each leaf has a source arc and a sink arc whose capacity the split sets."""

    def __init__(self, fabric: Fabric, links: Iterable[Link]):
        switch_count, rails = fabric.switch_count, fabric.plan.rails
        unit = flow_unit(fabric)
        weights = [speed // unit for speed in fabric.plan.link_speeds]
        self.nic_weight = weights[SERVER_LEAF]
        pairs: Counter[tuple[int, int]] = Counter()
        self.pair_weight: dict[tuple[int, int], int] = {}
        """Units of one link between each pair of switches."""
        self.nics: list[tuple[int, int, int]] = []
        for tier, upper, _, lower, port in links:
            if tier == SERVER_LEAF:
                self.nics.append((upper, lower - switch_count, port % rails))
            else:
                pairs[upper, lower] += weights[tier]
                self.pair_weight[upper, lower] = weights[tier]
        self.ids: dict[int, int] = {SOURCE: 0, SINK: 1}
        self.head: list[int] = []
        self.cap: list[int] = []
        self.arcs: list[list[int]] = [[], []]
        self.pair_arc = {pair: self._edge(*pair, links, links) for pair, links in pairs.items()}
        leaves = sorted({leaf for leaf, _, _ in self.nics})
        self.source_arc = {leaf: self._edge(SOURCE, leaf, 0, 0) for leaf in leaves}
        self.sink_arc = {leaf: self._edge(leaf, SINK, 0, 0) for leaf in leaves}

    def _node(self, device: int) -> int:
        node = self.ids.get(device)
        if node is None:
            node = self.ids[device] = len(self.arcs)
            self.arcs.append([])
        return node

    def _edge(self, a: int, b: int, forward: int, backward: int) -> int:
        """Add ``a -> b`` and its reverse; returns the forward arc."""
        u, v = self._node(a), self._node(b)
        arc = len(self.head)
        self.arcs[u].append(arc)
        self.head.append(v)
        self.cap.append(forward)
        self.arcs[v].append(arc + 1)
        self.head.append(u)
        self.cap.append(backward)
        return arc

    def split(self, in_a: Split) -> list[int]:
        """The network's capacities with the leaves' source and sink arcs set for the split ``in_a``: each NIC port
        in ``A`` adds its weight to its leaf's source arc, each in ``B`` to its sink arc."""
        cap = self.cap.copy()
        for arc, count in Counter(
            self.source_arc[leaf] if in_a(server, rail) else self.sink_arc[leaf] for leaf, server, rail in self.nics
        ).items():
            cap[arc] += count * self.nic_weight
        return cap

    def solve(self, split: list[int]) -> Solved:
        """The max-flow in links from the ``A`` NIC ports to the ``B`` ones over the capacities ``split`` (of
        :meth:`split`, left as they are), with the residual capacities it leaves."""
        residual = split.copy()
        return Solved(_Dinic(self.head, self.arcs, residual).run(), residual)

    def without(
        self,
        split: list[int],
        solved: Solved,
        dead_devices: Iterable[int] = (),
        dead_links: Iterable[tuple[int, int]] = (),
    ) -> int:
        """The max-flow of ``split`` without the dead switches and links (a dead link is one ``(upper, lower)``
        link of a possibly parallel bundle), from its intact max-flow ``solved``: the flow through what is down is
        taken back along paths of the flow (from the source and to the sink), then Dinic's algorithm adds what the
        rest of the network can carry. Only the flow through the failure is moved, not the whole bisection."""
        flow = _Flow(self, split, solved.residual.copy())
        for device in dead_devices:
            node = self.ids.get(device)
            for arc in self.arcs[node] if node is not None else ():
                flow.reduce(arc, 0, 0)
        for pair in dead_links:
            arc, weight = self.pair_arc[pair], self.pair_weight[pair]
            flow.reduce(arc, split[arc] - weight, split[arc ^ 1] - weight)
        return solved.value - flow.taken + _Dinic(self.head, self.arcs, flow.cap).run()


class Solved(NamedTuple):
    """A max-flow (in links) and the residual capacities of the network it leaves."""

    value: int
    residual: list[int]


class _Flow:
    """A flow of a :class:`PlaneNetwork` as its residual capacities ``cap`` over the capacities ``split`` (a copy,
    lowered by :meth:`reduce`): arc ``a`` carries ``split[a] - cap[a]`` (negative: that much the other way)."""

    def __init__(self, network: PlaneNetwork, split: list[int], cap: list[int]):
        self.head, self.arcs, self.split, self.cap = network.head, network.arcs, split.copy(), cap
        self.taken = 0
        """The flow taken back from the source to the sink, in links."""

    def reduce(self, arc: int, forward: int, backward: int) -> None:
        """Lower the capacities of ``arc`` and its reverse to ``forward`` and ``backward``, first taking back the
        flow either carries beyond its new capacity."""
        split, cap = self.split, self.cap
        for one, limit in ((arc, forward), (arc ^ 1, backward)):
            while split[one] - cap[one] > limit:
                self._take_back(one, split[one] - cap[one] - limit)
        cap[arc] += forward - split[arc]
        cap[arc ^ 1] += backward - split[arc ^ 1]
        split[arc], split[arc ^ 1] = forward, backward

    def _take_back(self, arc: int, most: int) -> None:
        """Take back up to ``most`` of the flow through ``arc`` along one path of the flow from the source, through
        the arc, to the sink."""
        path = [*self._walk(self.head[arc ^ 1], 0, backward=True), arc, *self._walk(self.head[arc], 1)]
        taken = min(most, *(self.split[one] - self.cap[one] for one in path))
        self._cancel(path, taken)
        self.taken += taken

    def _walk(self, start: int, end: int, backward: bool = False) -> list[int]:
        """Arcs carrying flow from ``start`` to ``end`` (``backward``: from ``end`` to ``start``, walked from
        ``start``). The flow is conserved, so every node on the way has such an arc; a cycle of the flow met on the
        way is cancelled (the flow's value does not change) and the walk goes on from where it closed."""
        head, arcs, split, cap = self.head, self.arcs, self.split, self.cap
        path: list[int] = []
        seen = {start: 0}
        node = start
        while node != end:
            step = next(one for arc in arcs[node] if split[one := arc ^ 1 if backward else arc] - cap[one] > 0)
            node = head[step ^ 1] if backward else head[step]
            path.append(step)
            if node in seen:
                cycle = path[seen[node] :]
                self._cancel(cycle, min(split[one] - cap[one] for one in cycle))
                del path[seen[node] :]
                seen = {key: at for key, at in seen.items() if at <= len(path)}
                continue
            seen[node] = len(path)
        return path

    def _cancel(self, arcs: list[int], amount: int) -> None:
        for arc in arcs:
            self.cap[arc] += amount
            self.cap[arc ^ 1] -= amount


class _Dinic:
    """Dinic's max-flow from node 0 to node 1 over ``cap`` (changed in place): plain int lists, about ten
    times faster than networkx's preflow-push on these shallow layered graphs."""

    def __init__(self, head: list[int], arcs: list[list[int]], cap: list[int]):
        self.head, self.arcs, self.cap = head, arcs, cap
        self.level: list[int] = []
        self.cursor: list[int] = []

    def run(self) -> int:
        total = 0
        while self.layer():
            total += self.push(0, sum(self.cap[arc] for arc in self.arcs[0]))
        return total

    def layer(self) -> bool:
        """Breadth-first levels from the source over arcs with capacity left; False once the sink is cut off."""
        level = [-1] * len(self.arcs)
        level[0] = 0
        queue = [0]
        for node in queue:
            for arc in self.arcs[node]:
                if self.cap[arc] and level[self.head[arc]] < 0:
                    level[self.head[arc]] = level[node] + 1
                    queue.append(self.head[arc])
        self.level, self.cursor = level, [0] * len(self.arcs)
        return level[1] >= 0

    def push(self, node: int, limit: int) -> int:
        """Send up to ``limit`` from ``node`` to the sink along the levels; returns what was sent."""
        if node == 1:
            return limit
        sent = 0
        arcs, cap, head, level, cursor = self.arcs[node], self.cap, self.head, self.level, self.cursor
        deeper, here, count = self.level[node] + 1, cursor[node], len(arcs)
        while here < count:
            arc = arcs[here]
            if cap[arc] and level[head[arc]] == deeper:
                pushed = self.push(head[arc], min(limit - sent, cap[arc]))
                if pushed:
                    cap[arc] -= pushed
                    cap[arc ^ 1] += pushed
                    sent += pushed
                    if sent == limit:
                        cursor[node] = here
                        return sent
            here += 1
        cursor[node] = here
        return sent


def bisection(fabric: Fabric, facts: Facts) -> Bisection:
    """The max-flow of every split in every plane, and of the structured splits with each single failure."""
    networks = tuple(PlaneNetwork(fabric, links) for links in facts.plane_links)
    capacities = {name: [network.split(in_a) for network in networks] for name, in_a in splits(fabric).items()}
    solved = {name: solve_planes(networks, planes) for name, planes in capacities.items()}
    flows = {name: tuple(plane.value for plane in planes) for name, planes in solved.items()}
    failed = []
    for failure in failures(fabric, facts):
        dead_devices = [failure.device] if failure.device != NONE else []
        dead_links = [(failure.link[1], failure.link[3])] if failure.link else []
        network, plane = networks[failure.plane], failure.plane
        failed.append(
            (
                failure,
                min(
                    sum(flows[name])
                    - flows[name][plane]
                    + network.without(planes[plane], solved[name][plane], dead_devices, dead_links)
                    for name, planes in capacities.items()
                    if name in STRUCTURED
                ),
            )
        )
    plan, unit = fabric.plan, flow_unit(fabric)
    full = plan.planes * (plan.servers * plan.rails // 2) * (plan.link_speed // unit)
    return Bisection(unit, full, flows, tuple(failed))


def solve_planes(networks: tuple[PlaneNetwork, ...], capacities: list[list[int]]) -> list[Solved]:
    """Each plane's max-flow over its capacities (of :meth:`PlaneNetwork.split`). A plane wired as an earlier one
    (the same arcs, each with the same capacity: the planes of a fabric usually are) has that plane's max-flow,
    which is taken as it is; its residual capacities are only ever read through a copy."""
    solved: list[Solved] = []
    for network, split in zip(networks, capacities, strict=True):
        twin = next(
            (
                done
                for earlier, earlier_split, done in zip(networks, capacities, solved, strict=False)  # those before
                if earlier_split == split and earlier.head == network.head and earlier.arcs == network.arcs
            ),
            None,
        )
        solved.append(twin or network.solve(split))
    return solved


def flow_unit(fabric: Fabric) -> int:
    """The Gb/s max-flows are counted in: the greatest common divisor of the tiers' link speeds (the NIC speed when
    every link runs it)."""
    return math.gcd(*fabric.plan.link_speeds)


def failures(fabric: Fabric, facts: Facts) -> Iterator[Failure]:
    """Each single failure the fabric has: its busiest spine, super-spine and leaf, and a leaf-spine link."""
    devices, links_of = fabric.devices, facts.links_of
    for role in ("spine", "super_spine", "leaf"):
        members = [index for index, device in enumerate(fabric.switches()) if device.role == role]
        if members:
            dead = max(members, key=lambda index: (links_of[index], -index))
            yield Failure(role.replace("_", "-"), devices[dead].plane, devices[dead].name, device=dead)
    link = next((link for link in fabric.links if link[0] == LEAF_SPINE), None)
    if link is not None:
        _, upper, upper_port, lower, lower_port = link
        yield Failure(
            "link",
            devices[upper].plane,
            f"{devices[lower].name}:{devices[lower].port_name(lower_port)} - "
            f"{devices[upper].name}:{devices[upper].port_name(upper_port)}",
            link=link,
        )

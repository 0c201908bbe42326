"""bisection-bandwidth: max-flow between the worst-case halves of the NIC ports, against ``N * s / 2``.

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
link (the tests confirm it against networkx on the uncontracted graph); a 1:1 fabric gives exactly
``N * s / 2`` for every split.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from designer.fabric import SERVER_LEAF, Fabric, Link
from designer.findings import Finding

if TYPE_CHECKING:
    from designer.design import Design

ID = "bisection-bandwidth"
DESCRIPTION = "max-flow between worst-case halves (pods, rails, random) equals full bisection N * s / 2"
SEVERITY = "error"
SEED = 4791
SOURCE, SINK = -1, -2

Split = Callable[[int, int], bool]
"""``(server number, rail) -> True`` when that NIC port is in half ``A``."""


@dataclass(frozen=True)
class Bisection:
    """Max-flow per split and plane, in links; ``full`` is half the NIC ports (``N / 2`` summed over planes)."""

    link_speed: int
    full: int
    flows: dict[str, tuple[int, ...]]

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


def plane_links(fabric: Fabric, links: Iterable[Link] | None = None) -> list[list[Link]]:
    """The links of each plane (a link belongs to the plane of its upper end, always a switch)."""
    devices = fabric.devices
    planes: list[list[Link]] = [[] for _ in range(fabric.plan.planes)]
    for link in fabric.links if links is None else links:
        planes[devices[link[1]].plane].append(link)
    return planes


def max_flows(fabric: Fabric, links: Iterable[Link], halves: dict[str, Split]) -> dict[str, int]:
    """Max-flow in links from the ``A`` NIC ports to the ``B`` ones over ``links`` (one plane), for each
    split of ``halves``, on the contracted graph described in the module docstring."""
    switch_count, rails = fabric.switch_count, fabric.plan.rails
    core: Counter[tuple[int, int]] = Counter()
    nics: list[tuple[int, int, int]] = []
    for tier, upper, _, lower, port in links:
        if tier == SERVER_LEAF:
            nics.append((upper, lower - switch_count, port % rails))
        else:
            core[upper, lower] += 1
    flows = {}
    for name, in_a in halves.items():
        ends: Counter[tuple[int, int]] = Counter()
        for leaf, server, rail in nics:
            ends[(SOURCE, leaf) if in_a(server, rail) else (leaf, SINK)] += 1
        flows[name] = dinic([*ends.items(), *core.items()])
    return flows


def dinic(edges: list[tuple[tuple[int, int], int]]) -> int:
    """Dinic's max-flow from ``SOURCE`` to ``SINK``. Switch-to-switch edges carry their capacity both ways
    (links are full duplex); edges from the source and into the sink one way. Plain int lists: about ten
    times faster than networkx's preflow-push on these shallow layered graphs."""
    network = _Residual(edges)
    total = 0
    while network.layer():
        total += network.push(0, sum(network.cap[arc] for arc in network.arcs[0]))
    return total


class _Residual:
    """The residual network: arc ``i`` and its reverse ``i ^ 1``; node 0 is the source, node 1 the sink."""

    def __init__(self, edges: list[tuple[tuple[int, int], int]]):
        ids: dict[int, int] = {SOURCE: 0, SINK: 1}
        head: list[int] = []
        cap: list[int] = []
        arcs: list[list[int]] = [[], []]
        for (a, b), links in edges:
            u = ids.get(a)
            if u is None:
                u = ids[a] = len(arcs)
                arcs.append([])
            v = ids.get(b)
            if v is None:
                v = ids[b] = len(arcs)
                arcs.append([])
            arcs[u].append(len(head))
            head.append(v)
            cap.append(links)
            arcs[v].append(len(head))
            head.append(u)
            cap.append(0 if a == SOURCE or b == SINK else links)
        self.head, self.cap, self.arcs = head, cap, arcs
        self.level: list[int] = []
        self.cursor: list[int] = []

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
        while cursor[node] < len(arcs):
            arc = arcs[cursor[node]]
            if cap[arc] and level[head[arc]] == level[node] + 1:
                pushed = self.push(head[arc], min(limit - sent, cap[arc]))
                if pushed:
                    cap[arc] -= pushed
                    cap[arc ^ 1] += pushed
                    sent += pushed
                    if sent == limit:
                        return sent
            cursor[node] += 1
        return sent


def bisection(fabric: Fabric) -> Bisection:
    """The max-flow of every split in every plane. The last fabric's result is kept (by identity), so the
    failure-impact check reads it instead of solving the same flows again."""
    if _last and _last[0][0] is fabric:
        return _last[0][1]
    halves = splits(fabric)
    per_plane = [max_flows(fabric, links, halves) for links in plane_links(fabric)]
    flows = {name: tuple(plane[name] for plane in per_plane) for name in halves}
    plan = fabric.plan
    result = Bisection(plan.link_speed, plan.planes * (plan.servers * plan.rails // 2), flows)
    _last[:] = [(fabric, result)]
    return result


_last: list[tuple[Fabric, Bisection]] = []


def check(design: Design) -> Iterable[Finding]:
    result = bisection(design.fabric)
    worst = result.total(result.worst)
    fraction = result.fraction(worst)
    allowed = design.intent.checks.oversubscription
    evidence = {
        "bisection_tbps": result.tbps(worst),
        "full_tbps": result.tbps(result.full),
        "fraction": round(fraction, 6),
        "worst_split": result.worst,
        "splits_tbps": {name: result.tbps(result.total(name)) for name in result.flows},
    }
    text = (f"{result.tbps(worst):,.1f} Tb/s of {result.tbps(result.full):,.1f} Tb/s full bisection "
            f"({fraction:.2%}), worst split by {result.worst}; "
            + ", ".join(f"{name} {result.tbps(result.total(name)):,.1f}" for name in result.flows))
    if worst >= result.full:
        yield Finding(ID, "info", text, "fabric", evidence=evidence)
    elif fraction * allowed >= 1 - 1e-9:
        yield Finding(ID, "warning", f"{text}; within checks.oversubscription {allowed:g}:1", "fabric",
                      evidence=evidence)
    else:
        yield Finding(ID, "error", f"{text}; a non-blocking fabric gives the full bisection", "fabric",
                      evidence=evidence)

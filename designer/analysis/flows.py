"""A job's RoCEv2 flows on the wired fabric and their ECMP hashing, switch by switch.

* **Connections.** For every rail (NIC index: NIC ``i`` of every server of the job is one rail), every edge of
  the collective's pattern (:func:`designer.analysis.collectives.pattern`) connects the NIC of one server to the
  same NIC of another. Each connection opens ``channels x qps_per_connection`` queue pairs (QPs), one flow each.
* **5-tuple.** Source and destination are the two NICs' addresses, UDP to port 4791 (RoCEv2). The NIC derives
  the UDP source port from the QP numbers as Linux does (``include/rdma/ib_verbs.h``:
  ``rdma_calc_flow_label`` folds ``lqpn x rqpn`` to a 20-bit flow label, ``rdma_flow_label_to_udp_sport`` XORs
  its top 6 bits into the low 14 and sets ``0xC000``; ``rdma_get_udp_sport`` uses it when the address has no
  flow label). QP numbers are modelled as each NIC counting up from a seeded 24-bit base in connection order,
  so every seed is another run of the same job.
* **Routing.** Up-down on the Clos: from the source leaf a flow climbs until it reaches a switch above its
  destination, then descends. At every switch its ECMP group is every link toward the destination (a leaf's or
  spine's uplinks whose upper end still reaches it; the parallel links down to the next switch), so a failed
  switch leaves the groups the way BGP would. A *pick* chooses the member: :class:`UniformHash` (independent,
  uniform, seeded) or :class:`SwitchHash` (CRC-32 of the 5-tuple with a seed per switch, as switch ASICs do).

CRC is affine over GF(2): two seeds change the hash of one 5-tuple by a constant XOR, so with power-of-two groups
a switch's choice for a flow follows the choice of the switch before it (hash polarization), which the uniform
hash does not have; comparing the two shows what it costs.

**Spreading.** Adaptive routing, cluster load balancing and packet spraying move traffic at flowlet or packet
granularity, not flow by flow: :func:`even_spread` splits each flow evenly over every member of each group it meets
(the same groups), so the busiest link carries about the average load of its tier.

A lab that measures real ECMP (the kernel's multipath hash on the same flows) calls
:func:`designer.analysis.workload.job` and :func:`flow_set`, :meth:`FlowSet.five_tuples` for the 5-tuples to send,
and :meth:`Router.route` with a pick computing the kernel's choice from those 5-tuples and ``trace=True`` for every
flow's links.
"""

from __future__ import annotations

import random
import struct
import zlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from designer.backend.allocate import Allocation
from designer.backend.wiring import SERVER_LEAF, SPINE_SUPER, Fabric

ROCE_PORT = 4791
UDP = 17
QPN_MASK = 0xFFFFFF
FLOW_LABEL_MASK = 0xFFFFF
ROCE_SPORT_MIN = 0xC000

Pick = Callable[[Sequence[int], Sequence[int], Sequence[int]], list[int]]
"""``pick(flows, switches, widths)``: for each flow (its position in the routed :class:`FlowSet`), at ``switch``,
the member ``0 <= m < width`` of that switch's ECMP group it takes."""
FiveTuple = tuple[int, int, int, int, int]
"""Source address, destination address (IPv4 as integers), protocol, source port, destination port."""
_TUPLE = struct.Struct(">IIBHH")


def flow_label(lqpn: int, rqpn: int) -> int:
    """Linux ``rdma_calc_flow_label``: the product of the QP numbers folded to 20 bits."""
    label = lqpn * rqpn
    label ^= label >> 20
    label ^= label >> 40
    return label & FLOW_LABEL_MASK


def udp_sport(lqpn: int, rqpn: int) -> int:
    """Linux ``rdma_get_udp_sport`` without a flow label: the RoCEv2 UDP source port of a QP pair."""
    label = flow_label(lqpn, rqpn)
    return ((label & 0x3FFF) ^ (label >> 14)) | ROCE_SPORT_MIN


@dataclass(frozen=True)
class Topology:
    """What routing needs from the wired fabric, indexed once: NIC links, uplinks and parallel links."""

    fabric: Fabric
    nics: int
    """NIC ports per server, all planes."""
    nic_link: tuple[int, ...]
    """The link of NIC ``server * nics + port``."""
    up: dict[int, tuple[int, ...]]
    """A switch's uplinks in port order: its ECMP group toward everything above it."""
    down: dict[tuple[int, int], tuple[int, ...]]
    """``(upper, lower) ->`` their parallel links in the lower switch's port order."""
    pod_spine: dict[tuple[int, int], int]
    """``(super-spine, pod) ->`` the spine of that pod below it."""

    def leaf(self, nic: int) -> int:
        """The leaf NIC ``nic`` is cabled to."""
        return self.fabric.links[self.nic_link[nic]][1]


def topology(fabric: Fabric) -> Topology:
    """Index the fabric's links for routing (the shared facts count links; routing needs which link is which)."""
    devices, links = fabric.devices, fabric.links
    servers = len(devices) - fabric.switch_count
    nics = devices[fabric.switch_count].ports if servers else 0
    nic_link = [0] * (servers * nics)
    up: dict[int, list[int]] = {}
    down: dict[tuple[int, int], list[int]] = {}
    pod_spine: dict[tuple[int, int], int] = {}
    for number, (tier, upper, _, lower, port) in enumerate(links):
        if tier == SERVER_LEAF:
            nic_link[(lower - fabric.switch_count) * nics + port] = number
            continue
        up.setdefault(lower, []).append(number)
        down.setdefault((upper, lower), []).append(number)
        if tier == SPINE_SUPER:
            pod_spine[upper, devices[lower].pod] = lower

    def ordered(group: list[int]) -> tuple[int, ...]:
        return tuple(sorted(group, key=lambda link: links[link][4]))

    return Topology(
        fabric,
        nics,
        tuple(nic_link),
        {device: ordered(group) for device, group in up.items()},
        {pair: ordered(group) for pair, group in down.items()},
        pod_spine,
    )


def place(servers: int, servers_per_su: int, count: int, placement: str, name: str) -> list[int]:
    """The job's servers in rank order: ``packed`` fills SU by SU, ``scattered`` takes one server per SU in turn,
    ``random`` a shuffle seeded by the job's name."""
    if placement == "packed":
        return list(range(count))
    if placement == "scattered":
        order = [
            su * servers_per_su + slot for slot in range(servers_per_su) for su in range(-(-servers // servers_per_su))
        ]
        return [server for server in order if server < servers][:count]
    order = list(range(servers))
    random.Random(f"placement:{name}").shuffle(order)
    return order[:count]


@dataclass(frozen=True)
class Connections:
    """Every connection of a job, rail by rail: source and destination NIC numbers, and how many connections each
    NIC had opened before this one (its QPs are numbered after theirs)."""

    src: tuple[int, ...]
    dst: tuple[int, ...]
    src_rank: tuple[int, ...]
    dst_rank: tuple[int, ...]


def job_connections(order: Sequence[int], edges: Sequence[tuple[int, int]], nics: int) -> Connections:
    """The connections of ``edges`` (pairs of positions in ``order``) on every rail. A NIC serves one rail, so each
    rail's connections are the first rail's, server for server, and so are the counts of connections each NIC had
    opened before."""
    sources, targets = [order[a] for a, _ in edges], [order[b] for _, b in edges]
    src_rank, dst_rank = [], []
    opened: Counter[int] = Counter()
    for s, d in zip(sources, targets, strict=True):
        src_rank.append(opened[s])
        dst_rank.append(opened[d])
        opened[s] += 1
        opened[d] += 1
    return Connections(
        tuple(server * nics + rail for rail in range(nics) for server in sources),
        tuple(server * nics + rail for rail in range(nics) for server in targets),
        tuple(src_rank) * nics,
        tuple(dst_rank) * nics,
    )


@dataclass(frozen=True)
class FlowSet:
    """Flows that leave their leaf (the others only cross their two NIC links): one per QP of each connection."""

    src: tuple[int, ...]
    """Source NIC number of each flow."""
    dst: tuple[int, ...]
    src_qp: tuple[int, ...]
    """Index of the flow's QP among those its source NIC opened (its QP number is the NIC's base plus this)."""
    dst_qp: tuple[int, ...]
    src_leaf: tuple[int, ...]
    dst_leaf: tuple[int, ...]
    addresses: dict[int, int] = field(compare=False)
    """IPv4 address of every NIC the flows use, as an integer."""

    def five_tuples(self, seed: int) -> list[FiveTuple]:
        """Every flow's 5-tuple in the run ``seed`` (which sets each NIC's first QP number)."""
        addresses = self.addresses
        return [
            (addresses[s], addresses[d], UDP, sport, ROCE_PORT)
            for s, d, sport in zip(self.src, self.dst, self.sports(seed), strict=True)
        ]

    def keys(self, seed: int) -> list[bytes]:
        """Every flow's 5-tuple in the run ``seed`` as the bytes a switch hashes (:func:`tuple_bytes`)."""
        addresses, pack = self.addresses, _TUPLE.pack
        return [
            pack(addresses[s], addresses[d], UDP, sport, ROCE_PORT)
            for s, d, sport in zip(self.src, self.dst, self.sports(seed), strict=True)
        ]

    def sports(self, seed: int) -> list[int]:
        """Every flow's UDP source port in the run ``seed``: :func:`udp_sport` of its two QP numbers, inlined."""
        base = {nic: qpn_base(nic, seed) for nic in self.addresses}
        local = [(base[nic] + qp) & QPN_MASK for nic, qp in zip(self.src, self.src_qp, strict=True)]
        remote = [(base[nic] + qp) & QPN_MASK for nic, qp in zip(self.dst, self.dst_qp, strict=True)]
        labels = [
            ((folded := (product := a * b) ^ (product >> 20)) ^ (folded >> 40)) & FLOW_LABEL_MASK
            for a, b in zip(local, remote, strict=True)
        ]
        return [((label & 0x3FFF) ^ (label >> 14)) | ROCE_SPORT_MIN for label in labels]


def qpn_base(nic: int, seed: int) -> int:
    """The first QP number NIC ``nic`` hands out in run ``seed``."""
    return zlib.crc32(nic.to_bytes(4, "big"), seed) & QPN_MASK


def flow_set(topology: Topology, allocation: Allocation | None, connections: Connections, qps: int) -> FlowSet:
    """The flows of the connections whose two NICs sit on different leaves, ``qps`` per connection (channels
    times QPs per connection), with the QP index each end gives them. Without an ``allocation`` (an InfiniBand
    fabric, which has no addresses) a NIC's server link number stands in for its address."""
    if allocation is None:
        return routed_flows(topology, lambda nic: topology.nic_link[nic], connections, qps)
    return routed_flows(topology, lambda nic: allocation.link_addresses(topology.nic_link[nic])[1], connections, qps)


def routed_flows(topology: Topology, address: Callable[[int], int], connections: Connections, qps: int) -> FlowSet:
    """:func:`flow_set` with each NIC's IPv4 address (an integer) from ``address``: a lab reads them from the
    built ``design.json`` instead of an :class:`~designer.backend.allocate.Allocation`."""
    leaf = topology.leaf
    routed = [
        number for number, (s, d) in enumerate(zip(connections.src, connections.dst, strict=True)) if leaf(s) != leaf(d)
    ]
    src = [connections.src[c] for c in routed for _ in range(qps)]
    dst = [connections.dst[c] for c in routed for _ in range(qps)]
    src_qp = [connections.src_rank[c] * qps + j for c in routed for j in range(qps)]
    dst_qp = [connections.dst_rank[c] * qps + j for c in routed for j in range(qps)]
    nics = sorted(set(src) | set(dst))
    addresses = {nic: address(nic) for nic in nics}
    leaves = {nic: leaf(nic) for nic in nics}
    return FlowSet(
        tuple(src),
        tuple(dst),
        tuple(src_qp),
        tuple(dst_qp),
        tuple(leaves[nic] for nic in src),
        tuple(leaves[nic] for nic in dst),
        addresses,
    )


class UniformHash:
    """Each flow takes each member of each group with equal probability, independently: ideal hashing (seeded)."""

    def __init__(self, seed: int):
        self._draw = random.Random(f"uniform:{seed}").random

    def __call__(self, flows: Sequence[int], switches: Sequence[int], widths: Sequence[int]) -> list[int]:
        draw = self._draw
        return [int(draw() * width) for width in widths]


def tuple_bytes(five: FiveTuple) -> bytes:
    """A 5-tuple as a switch hashes it: addresses, protocol and ports in network byte order (13 bytes)."""
    return _TUPLE.pack(*five)


class SwitchHash:
    """A switch ASIC's ECMP hash: CRC-32 over the 5-tuple bytes (:func:`tuple_bytes`) started from a seed of the
    switch's own (``crc32(switch, seed)``, so no two switches polarize), modulo the group's width."""

    def __init__(self, keys: Sequence[bytes], seed: int):
        self._keys = keys
        self._seed = seed
        self._salt: dict[int, int] = {}

    def __call__(self, flows: Sequence[int], switches: Sequence[int], widths: Sequence[int]) -> list[int]:
        salt, keys, crc = self._salt, self._keys, zlib.crc32
        for switch in set(switches).difference(salt):
            salt[switch] = crc(switch.to_bytes(4, "big"), self._seed)
        return [
            crc(keys[flow], salt[switch]) % width for flow, switch, width in zip(flows, switches, widths, strict=True)
        ]


@dataclass(frozen=True)
class Routing:
    """Where a set of flows went: flows per link and direction (``2 * link`` up, ``2 * link + 1`` down), flows
    with no way to their destination, (when traced) every flow's links in order, and the flows that passed each
    watched switch."""

    loads: Counter[int]
    lost: int
    paths: list[list[int]] | None = None
    crossed: dict[int, list[int]] = field(default_factory=dict)


Group = tuple[tuple[int, ...], tuple[int, ...], int]
"""An ECMP group: its member links, the switch each leads to, and 0 when it goes up (1 down)."""


class Router:
    """Routes flows up-down over the ECMP groups of a fabric with some switches down (``dead``); remembers each
    group it worked out, so later runs over the same flows only hash."""

    def __init__(self, topology: Topology, dead: frozenset[int] = frozenset()):
        self.topology = topology
        self.dead = dead
        self._devices = len(topology.fabric.devices)
        self._groups: dict[int, Group] = {}
        self._pods: dict[tuple[int, int], Group] = {}

    def group(self, switch: int, leaf: int) -> Group:
        """The ECMP group of ``switch`` toward ``leaf``."""
        key = switch * self._devices + leaf
        found = self._groups.get(key)
        if found is None:
            found = self._groups[key] = self._group(switch, leaf)
        return found

    def _group(self, switch: int, leaf: int) -> Group:
        top = self.topology
        if switch not in self.dead and (switch, leaf) in top.down:
            members = top.down[switch, leaf]
            return members, (leaf,) * len(members), 1
        return self._toward_pod(switch, top.fabric.devices[leaf].pod)

    def _toward_pod(self, switch: int, pod: int) -> Group:
        """The group of ``switch`` toward a leaf of ``pod`` it has no link to: the same for every leaf of that pod,
        since each spine of a pod has links to every leaf of its pod (``ecmp-balance`` checks it)."""
        key = (switch, pod)
        if (known := self._pods.get(key)) is not None:
            return known
        top = self.topology
        device = top.fabric.devices[switch]
        found: Group
        if switch in self.dead:
            found = ((), (), 0)
        elif device.role == "super_spine":
            spine = top.pod_spine.get((switch, pod))
            members = () if spine is None or spine in self.dead else top.down[switch, spine]
            found = (members, (spine,) * len(members) if spine is not None else (), 1)
        elif device.role == "leaf" and device.pod == pod:
            found = self._up(switch, lambda spine: spine not in self.dead)
        else:
            found = self._up(switch, lambda upper: bool(self._toward_pod(upper, pod)[0]))
        self._pods[key] = found
        return found

    def _up(self, switch: int, leads: Callable[[int], bool]) -> Group:
        """The uplinks of ``switch`` whose upper end ``leads`` on to the destination."""
        links = self.topology.fabric.links
        members = tuple(link for link in self.topology.up.get(switch, ()) if leads(links[link][1]))
        return members, tuple(links[link][1] for link in members), 0

    def route(
        self,
        sources: Sequence[int],
        targets: Sequence[int],
        pick: Pick,
        trace: bool = False,
        watch: frozenset[int] = frozenset(),
    ) -> Routing:
        """Send flow ``i`` from leaf ``sources[i]`` to leaf ``targets[i]``, one switch layer at a time, noting the
        flows that pass each switch of ``watch``."""
        devices, groups, fill = self._devices, self._groups, self._fill
        at = list(sources)
        paths: list[list[int]] | None = [[] for _ in at] if trace else None
        crossed: dict[int, list[int]] = {switch: [] for switch in watch}
        loads: Counter[int] = Counter()
        lost = 0
        moving = [flow for flow, (source, target) in enumerate(zip(sources, targets, strict=True)) if source != target]
        while moving:
            here = [groups.get(key) or fill(key) for key in [at[flow] * devices + targets[flow] for flow in moving]]
            widths = [len(group[0]) for group in here]
            if 0 in widths:
                lost += widths.count(0)
                moving = [flow for flow, width in zip(moving, widths, strict=True) if width]
                here = [group for group in here if group[0]]
                widths = [width for width in widths if width]
                if not moving:
                    break
            # a group of one link leaves no choice (a 3-tier spine's link down to a leaf): nothing to hash
            chosen = pick(moving, [at[flow] for flow in moving], widths) if max(widths) > 1 else [0] * len(widths)
            taken = [group[0][member] for group, member in zip(here, chosen, strict=True)]
            loads.update([link + link + group[2] for link, group in zip(taken, here, strict=True)])
            for flow, group, member in zip(moving, here, chosen, strict=True):
                at[flow] = group[1][member]
            if paths is not None:
                for flow, link in zip(moving, taken, strict=True):
                    paths[flow].append(link)
            if watch:
                for flow in moving:
                    if at[flow] in watch:
                        crossed[at[flow]].append(flow)
            moving = [flow for flow in moving if at[flow] != targets[flow]]
        return Routing(loads, lost, paths, crossed)

    def _fill(self, key: int) -> Group:
        switch, leaf = divmod(key, self._devices)
        return self.group(switch, leaf)


def resilient(
    healthy: Router, routing: Routing, failed: Router, sources: Sequence[int], targets: Sequence[int], pick: Pick
) -> Routing:
    """The flows ``healthy`` routed as ``routing`` (watching the switches ``failed`` has down), once those switches
    fail under resilient hashing, as switches with resilient ECMP do: a flow whose path avoided them keeps it, and
    only the flows that crossed one are hashed again over the surviving paths (routed from their leaf by
    ``failed``). So no surviving link loses a flow that avoided the failed switches. ``pick`` must choose by flow
    and switch alone, as a switch hash does, so that the moved flows' old paths are found again."""
    moved = sorted({flow for switch in failed.dead for flow in routing.crossed[switch]})
    if not moved:
        return Routing(routing.loads, routing.lost)

    def moved_pick(flows: Sequence[int], switches: Sequence[int], widths: Sequence[int]) -> list[int]:
        return pick([moved[flow] for flow in flows], switches, widths)

    moved_sources, moved_targets = [sources[flow] for flow in moved], [targets[flow] for flow in moved]
    rerouted = failed.route(moved_sources, moved_targets, moved_pick)
    loads = routing.loads.copy()
    loads.subtract(healthy.route(moved_sources, moved_targets, moved_pick).loads)
    loads.update(rerouted.loads)
    return Routing(+loads, routing.lost + rerouted.lost)


CLIMB = 4
"""Group hops a flow takes before it reaches a switch above its leaf: up to the super-spines and down to a spine."""


def even_spread(
    router: Router, sources: Sequence[int], targets: Sequence[int], weight: float = 1.0
) -> tuple[dict[int, float], float]:
    """``weight`` flows from leaf ``sources[i]`` to leaf ``targets[i]`` for every ``i``, each split evenly over
    every member of each ECMP group on its way: the flows per link and direction (keys as :attr:`Routing.loads`),
    and the flows with no way.

    While a flow climbs, its groups depend only on the pod and plane of its destination (:meth:`Router.group`), so
    the climb is spread once per switch and destination block, and each flow then goes down from the switches it
    arrives at above its leaf (those with links down to it) in the shares :func:`_arrivals` works out."""
    devices = router.topology.fabric.devices
    pairs: dict[tuple[int, int], float] = {}
    for source, target in zip(sources, targets, strict=True):
        if source != target:
            pairs[source, target] = pairs.get((source, target), 0.0) + weight
    # a leaf of each destination block (pod and plane): what the climbing groups are asked for
    leaf_of = {(devices[target].pod, devices[target].plane): target for _, target in sorted(pairs, reverse=True)}
    memo: dict[tuple[int, int], dict[int, float]] = {}
    climbing: dict[tuple[int, int], float] = {}
    descending: dict[tuple[int, int], float] = {}
    for (source, target), flows in pairs.items():
        leaf = leaf_of[devices[target].pod, devices[target].plane]
        climbing[source, leaf] = climbing.get((source, leaf), 0.0) + flows
        for above, share in _arrivals(router, source, leaf, memo).items():
            descending[above, target] = descending.get((above, target), 0.0) + flows * share
    loads: dict[int, float] = {}
    lost = _climb(router, climbing, loads)
    return loads, _descend(router, descending, loads, lost)


def _climb(router: Router, climbing: dict[tuple[int, int], float], loads: dict[int, float]) -> float:
    """Spread the ``climbing`` flows (by the switch they are at and their destination block's leaf) evenly over each
    ECMP group on their way up into ``loads``, until each reaches a switch with links down to its leaf; the flows
    with no way (or a way back up, to another plane)."""
    top, dead = router.topology, router.dead
    lost = 0.0
    for _ in range(CLIMB):
        after: dict[tuple[int, int], float] = {}
        for (switch, leaf), flows in climbing.items():
            if switch not in dead and (switch, leaf) in top.down:
                continue
            members, hops, down = router.group(switch, leaf)
            if not members:
                lost += flows
                continue
            share = flows / len(members)
            for link, hop in zip(members, hops, strict=True):
                loads[link + link + down] = loads.get(link + link + down, 0.0) + share
                after[hop, leaf] = after.get((hop, leaf), 0.0) + share
        climbing = after
    return lost + sum(climbing.values())  # still climbing: a way that leads back up (to another plane), never down


def _descend(router: Router, descending: dict[tuple[int, int], float], loads: dict[int, float], lost: float) -> float:
    """Spread the ``descending`` flows (by the switch they arrive at above their leaf and the leaf) evenly over each
    ECMP group down into ``loads``; ``lost`` and the flows with no way down."""
    for (switch, target), flows in descending.items():
        members, _, down = router.group(switch, target)
        if not members:
            lost += flows
            continue
        share = flows / len(members)
        for link in members:
            loads[link + link + down] = loads.get(link + link + down, 0.0) + share
    return lost


def _arrivals(
    router: Router, switch: int, leaf: int, memo: dict[tuple[int, int], dict[int, float]]
) -> dict[int, float]:
    """Where one flow climbing from ``switch`` toward the block of ``leaf`` (its pod and plane) arrives, split
    evenly at every group: the switches with links down to that block's leaves and the share each receives (the
    shares of flows with no way are missing)."""
    found = memo.get((switch, leaf))
    if found is None:
        if switch not in router.dead and (switch, leaf) in router.topology.down:
            found = {switch: 1.0}
        else:
            found = memo[switch, leaf] = {}  # a way back to a switch on the way arrives nowhere
            _, hops, _ = router.group(switch, leaf)
            for hop in hops:
                for above, share in _arrivals(router, hop, leaf, memo).items():
                    found[above] = found.get(above, 0.0) + share / len(hops)
        memo[switch, leaf] = found
    return found

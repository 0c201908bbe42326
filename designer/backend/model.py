"""The vendor-neutral device model: what each switch's configuration says, whatever its network OS.

``device_configs(intent, plan, fabric, allocation)`` turns the wired, addressed backend into one
:class:`DeviceConfig` per switch (fabric device order): its interfaces with both /31 ends, its eBGP
sessions and the lossless QoS profile. Every decision lives here; templates only lay the values out in an OS's syntax.
:func:`switch_configs` does the work from a network's own :class:`SwitchSettings`, :class:`Wiring` and
:class:`Addressing`, so the networks beside the backend (:mod:`designer.networks.model`) get their switches from it
too: their border and storage leaves are leaves (:func:`tier`), a leaf peers with the servers that run BGP
(:attr:`Addressing.server_asns`), and a network that is not lossless runs no RoCE QoS (``DeviceConfig.roce_qos``).

* Every fabric link is one eBGP single-hop session between the two /31 ends (``routing.underlay: numbered``) or,
  unnumbered, between the two ports themselves: each end names its interface as the neighbor, the session runs
  over IPv6 link-local addresses and carries IPv4 routes with IPv6 next hops (RFC 8950), and switch-to-switch
  interfaces have no address (their ``address`` and a neighbor's ``address`` are empty). Servers speak no BGP,
  so a leaf's server ports are addressed interfaces whose /31 subnets the leaf advertises, with its
  loopback. Every other switch advertises its loopback only.
* ``maximum_paths`` is the device's ECMP width: the larger of its uplink count (all equal-cost towards
  the rest of the fabric) and the most parallel links it has down to one switch (equal-cost towards
  that switch's prefixes).
* AS-path loop prevention keeps routing valley-free with the RFC 7938 numbering: a route a leaf
  learns from one spine carries the spines' shared ASN, so the other spines of that plane (2 tiers)
  or pod (3 tiers) refuse it when the leaf passes it on; a route that crosses a super-spine carries
  the super-spines' shared ASN, so no other super-spine takes it back. Paths through different
  spines differ in ASNs under the ``unique`` scheme, hence ``bgp bestpath as-path multipath-relax``.
* One :class:`Qos` object is shared by every switch (the fabric runs one link speed), so both ends
  of every link carry the same lossless priority, DSCP map and PFC settings by construction.
* Load balancing (:func:`balancing`) is the intent's: its mode (ECMP hashing, adaptive, cluster or spray) over the
  hash fields of its ``hash``, with a seed per tier (its position from the servers up: 1, 2, 3, inside every
  target's seed range) or per switch (a hash of the switch's name, so growth never changes an existing switch's seed).
* PFC headroom is per port (:func:`headroom`): it depends on the switch, the port speed and the cable. A
  switch whose vendor publishes a headroom lookup (``switch_facts`` in the catalog) takes the vendor's
  value for the next tabulated cable length at or above the port's cable; any other switch, or a cable
  longer than the lookup covers, the first-order estimate. The lookup is the SONiC SKU's when it has its own
  (the catalog's SKU for the switch's port layout, or the one ``target_options.sonic.hwsku`` names).

Per-interface and per-neighbor records are named tuples of plain strings and ints (a named tuple is made
several times faster than a frozen dataclass): a 131,072-GPU fabric has about 650,000 interfaces and 260,000
neighbors.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter
from typing import NamedTuple

from designer.backend.allocate import Allocation
from designer.backend.port_names import port_speeds, serdes_lanes, switch_namer
from designer.backend.sizing import Plan
from designer.backend.wiring import SERVER_LEAF, Device, Fabric, Link
from designer.catalog import Catalog, SonicSku, SwitchFacts
from designer.intent import Intent
from designer.intent.configs import BalancingSpec, QosSpec
from designer.intent.routing_section import RoutingSpec
from designer.intent.switch_spec import SWITCH_TIERS

HASH_FIELDS = {
    "five-tuple": ("source-ip", "destination-ip", "ip-protocol", "source-port", "destination-port"),
}
"""The header fields each ``load_balancing.hash`` choice feeds the ECMP hash, in the designer's own words (each
OS's view spells them); the UDP source port is the entropy RoCEv2 gives each queue pair."""
CORE = "core"
"""The peer device of a border leaf's core uplinks: the data-centre core, which designer does not configure."""
LAYER4_FIELDS = frozenset({"source-port", "destination-port"})
TIER_SEEDS = {"leaf": 1, "spine": 2, "super_spine": 3}
"""The seed of each tier under ``seeds: per-tier``: its position from the servers up."""
PEER_GROUPS = {
    "server": "SERVERS",
    "leaf": "LEAVES",
    "spine": "SPINES",
    "super_spine": "SUPER-SPINES",
    "core": "CORE",
}
"""The peer group of a session, by the peer's role: one per role and direction on every switch (servers only where
they run BGP, in a network dual-homed with ``bgp``; the data-centre core only on a border leaf peering with it)."""
GROUP_ROLES = {group: role for role, group in PEER_GROUPS.items()}
ROLES_UP = ("server", *SWITCH_TIERS, "core")
"""The roles from the servers up: a session towards a later role is an uplink."""
TIERS_OF_ROLES = {"border_leaf": "leaf", "storage_leaf": "leaf"}
"""The tier of each role that is not a tier of its own: a network's border and storage leaves are leaves."""
FABRIC_POOLS = "FABRIC-POOLS"
"""The prefix list of everything a fabric session may carry: the loopback pool and the server pool."""
LEAF_OWN = "LEAF-OWN"
"""The prefix list of a leaf's own loopback and server block: all a leaf exports."""
FROM_ABOVE = "FROM-ABOVE"
"""The community list of the routes a spine learned from a super-spine (:data:`FROM_ABOVE_COMMUNITY`)."""
FROM_ABOVE_COMMUNITY = "65534:1"
"""The standard community (RFC 1997: a private ASN, then a value) a spine sets on every route a super-spine sends
it, so that it never sends one back up. It means nothing outside the spine that sets it."""
HOSTS = "HOSTS"
"""The prefix list of what a server running BGP may announce to its leaf: loopbacks of the network's pool."""
FROM_HOSTS = "FROM-HOSTS"
"""The community list of the routes a leaf learned from its servers (:data:`FROM_HOSTS_COMMUNITY`)."""
FROM_HOSTS_COMMUNITY = "65534:2"
"""The community a leaf sets on every route its servers send it, so that it passes those (the servers' loopbacks)
up beside its own prefixes and nothing else. Like :data:`FROM_ABOVE_COMMUNITY`, it means nothing elsewhere."""
NETWORK_POOLS = "NETWORK-POOLS"
"""The prefix list of what a border leaf announces to the data-centre core: the network's pools, exactly."""
DEFAULT_ROUTE = "DEFAULT-ROUTE"
"""The prefix list of what a border leaf takes from the data-centre core: the default route only."""
PFC_WATCHDOG_ACTION = "drop"
"""A queue stuck in PFC pause longer than the detection time drops its packets until restored."""


@dataclass(frozen=True, slots=True)
class Headroom:
    """The buffer one lossless priority group of a port reserves for PFC, in bytes: ``xoff`` holds what still
    arrives after the port sends pause, ``xon`` the level at which it resumes, ``size`` the reservation.
    ``cable_m`` is the cable length it is sized for; ``vendor`` says whether the values are the switch vendor's
    (its lookup at that length) or the first-order estimate."""

    speed_gbps: int
    cable_m: int
    size: int
    xon: int
    xoff: int
    vendor: bool


class Interface(NamedTuple):
    """One addressed logical port: a /31 towards a switch (``fabric``) or a server NIC (``server``), with the
    PFC headroom its cable needs."""

    name: str
    description: str
    address: str
    peer_device: str
    peer_interface: str
    peer_address: str
    speed_gbps: int
    mtu: int
    role: str
    port: int
    lane: int
    breakout: int
    lanes: int
    first_lane: int
    headroom: Headroom
    """Sized for the port's cable whether or not the switch runs the lossless profile (``roce_qos``)."""
    peer_os_port_names: Mapping[str, str]
    """The peer's port as each target names it (``nicN`` for a server's); shared by the ports alike."""

    @property
    def ip(self) -> str:
        """The interface's own address without the prefix length."""
        return self.address.partition("/")[0]

    def peer_os_port_name(self, target: str) -> str:
        """The name ``target`` gives the peer's port."""
        return self.peer_os_port_names[target]


class Neighbor(NamedTuple):
    """One eBGP session, seen from this device: the peer's address (empty: unnumbered, the session is named by
    ``interface``) and ASN, over ``interface`` towards the peer's ``peer_interface``."""

    address: str
    remote_asn: int
    peer_device: str
    interface: str
    description: str
    local_address: str
    peer_group: str
    peer_interface: str

    @property
    def near(self) -> str:
        """This end of the session: the local address, or the interface when unnumbered."""
        return self.local_address or self.interface

    @property
    def far(self) -> str:
        """The peer's end of the session: its address, or its interface when unnumbered."""
        return self.address or self.peer_interface


class PrefixRule(NamedTuple):
    """A permitted prefix and every longer one inside it up to ``longest`` bits."""

    prefix: str
    longest: int

    @property
    def le(self) -> int | None:
        """The ``le`` bound prefix lists write, or None when only the prefix itself is permitted."""
        return self.longest if self.longest > prefix_length(self.prefix) else None


@dataclass(frozen=True)
class PrefixList:
    """A named list of permitted prefixes; anything else is denied."""

    name: str
    rules: tuple[PrefixRule, ...]


class RouteMapEntry(NamedTuple):
    """One entry of a route map, in order: a route it matches is permitted or denied, and evaluation stops. It
    matches a route in ``prefix_list`` or carrying a community of ``community_list`` (whichever is named); a
    permitted route gets ``set_community`` when one is given."""

    permit: bool
    prefix_list: str | None
    community_list: str | None
    set_community: str | None


@dataclass(frozen=True)
class RouteMap:
    """A named route map: its entries in order; a route no entry matches is denied."""

    name: str
    entries: tuple[RouteMapEntry, ...]


@dataclass(frozen=True)
class PeerGroup:
    """The sessions towards one role: their shared import and export route maps."""

    name: str
    peer_role: str
    import_map: str
    export_map: str
    unnumbered: bool = False
    """Its sessions run over the links' IPv6 link-local addresses and carry IPv4 routes with IPv6 next hops (RFC 8950):
    the switches' sessions of an unnumbered underlay; a server's session always runs over its /31."""
    bfd: bool = True
    """BFD runs on its sessions where the routing asks for it (``routing.bfd``): every session between switches,
    never a server's (the server's FRR configuration runs no BFD)."""


@dataclass(frozen=True)
class RoutePolicy:
    """Every filter a switch's sessions apply (:func:`route_policy`)."""

    prefix_lists: tuple[PrefixList, ...]
    community_lists: tuple[tuple[str, str], ...]
    """(name, community) of each community list; each matches the routes that carry its community."""
    route_maps: tuple[RouteMap, ...]


@dataclass(frozen=True)
class Bfd:
    """BFD on every session: transmit and receive interval, and misses before the session drops."""

    interval_ms: int
    multiplier: int


@dataclass(frozen=True)
class Bgp:
    """The device's BGP process."""

    asn: int
    router_id: str
    neighbors: tuple[Neighbor, ...]
    maximum_paths: int
    networks: tuple[str, ...]
    multipath_relax: bool
    bfd: Bfd | None
    keepalive: int
    hold: int
    unnumbered: bool = False
    """Sessions run over the links' IPv6 link-local addresses, each neighbor named by its interface (RFC 8950)."""
    aggregates: tuple[str, ...] = ()
    """Prefixes announced summary-only in place of the networks they cover (a leaf's server block)."""
    announced: tuple[str, ...] = ()
    """What the device announces to its peers: the aggregates and the networks no aggregate covers."""
    peer_groups: tuple[PeerGroup, ...] = ()
    policy: RoutePolicy = RoutePolicy((), (), ())
    pool_aggregates: tuple[str, ...] = ()
    """The network's pools, aggregated without suppressing what they cover: what a border leaf announces to the
    data-centre core (:data:`NETWORK_POOLS`)."""


@dataclass(frozen=True, slots=True)
class QueuePolicy:
    """How one egress queue is served: strict priority (optionally capped) or a DWRR share, and its marking."""

    index: int
    strict: bool
    weight: int
    rate_percent: int | None
    ecn: bool
    lossless: bool


@dataclass(frozen=True)
class Qos:
    """The whole RoCEv2 lossless profile as every OS needs it. A priority is its own traffic class and queue."""

    profile: str
    dscp_to_tc: tuple[int, ...]
    roce_dscp: int
    lossless_priority: int
    pfc_priorities: tuple[int, ...]
    cnp_dscp: int
    cnp_priority: int
    cnp_rate_percent: int | None
    dwrr_weights: tuple[tuple[int, int], ...]
    ecn: bool
    ecn_unit: str
    ecn_min: int
    ecn_max: int
    ecn_min_bytes: int
    ecn_max_bytes: int
    ecn_probability: int
    pfc_watchdog: bool
    pfc_watchdog_detection_ms: int
    pfc_watchdog_restoration_ms: int
    pfc_watchdog_action: str
    mtu: int

    @cached_property
    def queues(self) -> tuple[QueuePolicy, ...]:
        """The queues in use, in index order: other traffic and RoCE share DWRR, CNP goes strict."""
        dwrr = [
            QueuePolicy(
                queue, False, weight, None, self.ecn and queue == self.lossless_priority, queue in self.pfc_priorities
            )
            for queue, weight in self.dwrr_weights
        ]
        strict = QueuePolicy(self.cnp_priority, True, 0, self.cnp_rate_percent, False, False)
        return tuple(sorted([*dwrr, strict], key=lambda queue: queue.index))

    @cached_property
    def priority_queues(self) -> tuple[int, ...]:
        """The egress queue of each of the 8 priorities: RoCE and CNP their own, every other one queue 0."""
        return tuple(
            priority if priority in (self.lossless_priority, self.cnp_priority) else 0 for priority in range(8)
        )

    @cached_property
    def tc_dscps(self) -> tuple[tuple[int, tuple[int, ...]], ...]:
        """Each used traffic class with the DSCP values that map to it, in class order."""
        return tuple(
            (tc, tuple(dscp for dscp, mapped in enumerate(self.dscp_to_tc) if mapped == tc))
            for tc in sorted(set(self.dscp_to_tc))
        )


@dataclass(frozen=True)
class LoadBalancing:
    """How one switch spreads flows over its equal-cost paths: ``mode`` (``ecmp``, ``adaptive``, ``cluster`` or
    ``spray``: the intent's ``load_balancing.mode``), the intent's
    ``hash`` choice and its ``fields``, and the hash ``seed``."""

    mode: str
    hash: str
    fields: tuple[str, ...]
    seed: int
    hash_line_unknown: tuple[str, ...] = ()
    """The targets whose hash-field line for this switch's platform no source gives, which write none (catalog
    ``switches.<model>.hash_line_unknown``): the platform hashes as it does by default."""

    @property
    def layer4(self) -> bool:
        """Whether the hash reads both layer-4 ports (a RoCE flow's UDP source port is its entropy)."""
        return set(self.fields) >= LAYER4_FIELDS


@dataclass(frozen=True)
class DeviceConfig:
    """Everything one switch's configuration says. ``port_names`` names every logical port, cabled or not, as the
    fabric does (``swpN``, ``swpNsL``), and ``os_port_names`` as each target of the catalog does
    (:mod:`designer.backend.port_names`), in the same order; ``facts`` are the vendor's facts about the switch model,
    when the catalog has them, and ``sku`` the SONiC SKU the switch runs, when the vendor ships one for its port
    layout."""

    hostname: str
    role: str
    plane: int
    pod: int
    model: str
    asn: int
    router_id: str
    loopback: str
    mtu: int
    physical_ports: int
    port_speed_gbps: int
    breakout: int
    """Logical ports per physical port facing down."""
    uplink_breakout: int
    """Logical ports per physical port facing up (the same as ``breakout`` unless the uplinks run another speed)."""
    first_uplink_cage: int
    """The first physical port (from 1) broken out at ``uplink_breakout``; past the last one when none is."""
    serdes_lanes: int
    interfaces: tuple[Interface, ...]
    bgp: Bgp
    qos: Qos
    port_names: tuple[str, ...]
    os_port_names: dict[str, tuple[str, ...]]
    facts: SwitchFacts | None
    load_balancing: LoadBalancing
    sku: SonicSku | None = None
    roce_qos: bool = True
    """Whether the switch runs ``qos``, the RoCE lossless profile (PFC, ECN, queues): every backend switch and a
    lossless network's; a network beside the backend that is not lossless runs none (its ``qos`` unused)."""

    def os_port_name(self, target: str, interface: Interface) -> str:
        """The name ``target`` gives the port of ``interface``."""
        return self.os_port_names[target][self.logical_port(interface.port, interface.lane)]

    def unnumbered_ports(self, target: str) -> dict[str, str]:
        """The name ``target`` gives each interface, by the designer's name, for the neighbors of an unnumbered
        underlay (each is a port); empty when numbered (neighbors are addresses)."""
        if not self.bgp.unnumbered:
            return {}
        return {interface.name: self.os_port_name(target, interface) for interface in self.interfaces}

    def logical_port(self, cage: int, lane: int) -> int:
        """The index among ``port_names`` of link ``lane`` of physical port ``cage`` (from 1): the cages facing down
        first, then those from ``first_uplink_cage`` on, each broken out its own way."""
        if cage < self.first_uplink_cage:
            return (cage - 1) * self.breakout + lane
        return (
            (self.first_uplink_cage - 1) * self.breakout + (cage - self.first_uplink_cage) * self.uplink_breakout + lane
        )


def headroom(
    spec: QosSpec, speed: int, cable_m: int, facts: SwitchFacts | None, sku: SonicSku | None = None
) -> Headroom:
    """The PFC headroom of one lossless port of ``speed`` Gb/s on a ``cable_m`` metre cable.

    With the vendor's lookup for that speed (the ``sku``'s own, else the switch's): its row for the shortest
    tabulated length at least ``cable_m``
    (never a shorter one). Otherwise first order (DOMAIN.md section 4): ``xoff`` is the data in flight while
    a pause travels the cable and the peer reacts, both ways, plus one maximum frame each way; ``xon`` two
    maximum frames.
    """
    lookup = sku.headroom if sku and sku.headroom else facts.headroom if facts else {}
    rows = lookup.get(speed, {})
    length = min((length for length in rows if length >= cable_m), default=None)
    if length is not None:
        size, xon, xoff = rows[length]
        return Headroom(speed, length, size, xon, xoff, True)
    xoff = round(2 * (cable_m * 5 + spec.pfc_response_ns) * speed / 8) + 2 * spec.mtu
    return Headroom(speed, cable_m, xoff + 2 * spec.mtu, 2 * spec.mtu, xoff, False)


def seed_range(hardware: Catalog) -> tuple[int, int]:
    """The seeds every target that takes a seed per switch accepts (the catalog's ``seed_range``, intersected)."""
    ranges = [
        target.load_balancing.seed_range
        for target in hardware.targets.values()
        if "per-switch" in target.load_balancing.seeds and target.load_balancing.seed_range
    ]
    return max(low for low, _ in ranges), min(high for _, high in ranges)


def switch_seed(name: str, hardware: Catalog) -> int:
    """The seed of switch ``name`` under ``seeds: per-switch``: its name's SHA-256 folded into
    :func:`seed_range`, so a switch keeps its seed however the fabric around it grows."""
    low, high = seed_range(hardware)
    return low + int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") % (high - low + 1)


def tier(role: str) -> str:
    """The tier of a switch of ``role``: ``leaf``, ``spine`` or ``super_spine`` (:data:`TIERS_OF_ROLES`)."""
    return TIERS_OF_ROLES.get(role, role)


def balancing(spec: BalancingSpec, device: Device, hardware: Catalog, targets: Sequence[str]) -> LoadBalancing:
    """The load balancing of one switch, from the intent's ``load_balancing`` section; ``hardware`` tells which of
    ``targets`` have no cited hash line for its model."""
    seed = switch_seed(device.name, hardware) if spec.seeds == "per-switch" else TIER_SEEDS[tier(device.role)]
    known = hardware.switches.get(device.model)
    unknown = tuple(target for target in known.hash_line_unknown if target in targets) if known else ()
    return LoadBalancing(spec.mode, spec.hash, HASH_FIELDS[spec.hash], seed, unknown)


def route_policy(
    role: str,
    peer_roles: Sequence[str],
    pools: tuple[PrefixRule, ...],
    own: tuple[PrefixRule, ...],
    unnumbered: bool = False,
) -> tuple[tuple[PeerGroup, ...], RoutePolicy]:
    """The peer groups of a switch of ``role`` with sessions towards ``peer_roles`` (between switches
    ``unnumbered`` or not), and the filters they apply.

    Every group imports ``pools`` only. A leaf exports ``own`` (its loopback and server block) only. A spine marks
    every route from a super-spine with :data:`FROM_ABOVE_COMMUNITY` and exports up nothing so marked; every other
    export carries the pools. A leaf with servers running BGP takes from them the loopbacks of the pools' first
    prefix only (:data:`HOSTS`), marks them with :data:`FROM_HOSTS_COMMUNITY` and exports them up beside ``own``.
    A border leaf peering with the data-centre core takes the default route from it (:data:`DEFAULT_ROUTE`) and
    announces it the pools themselves (:data:`NETWORK_POOLS`), nothing longer."""
    groups, maps = [], []
    hosts = "server" in peer_roles
    for peer_role in sorted(set(peer_roles), key=ROLES_UP.index):
        name = PEER_GROUPS[peer_role]
        if peer_role == "core":
            groups.append(PeerGroup(name, peer_role, f"{name}-IN", f"{name}-OUT", False, False))
            maps.append(RouteMap(f"{name}-IN", (RouteMapEntry(True, DEFAULT_ROUTE, None, None),)))
            maps.append(RouteMap(f"{name}-OUT", (RouteMapEntry(True, NETWORK_POOLS, None, None),)))
            continue
        up = ROLES_UP.index(peer_role) > ROLES_UP.index(role)
        transit = up and role != "leaf"
        switch = peer_role != "server"
        groups.append(PeerGroup(name, peer_role, f"{name}-IN", f"{name}-OUT", unnumbered and switch, switch))
        imported = (
            RouteMapEntry(True, HOSTS, None, FROM_HOSTS_COMMUNITY)
            if peer_role == "server"
            else RouteMapEntry(True, FABRIC_POOLS, None, FROM_ABOVE_COMMUNITY if transit else None)
        )
        maps.append(RouteMap(f"{name}-IN", (imported,)))
        exported = RouteMapEntry(True, LEAF_OWN if up and role == "leaf" else FABRIC_POOLS, None, None)
        refused = (RouteMapEntry(False, None, FROM_ABOVE, None),) if transit else ()
        relayed = (RouteMapEntry(True, None, FROM_HOSTS, None),) if hosts and up else ()
        maps.append(RouteMap(f"{name}-OUT", (*refused, exported, *relayed)))
    prefix_lists = (
        PrefixList(FABRIC_POOLS, pools),
        *((PrefixList(HOSTS, pools[:1]),) if hosts else ()),
        *((PrefixList(LEAF_OWN, own),) if role == "leaf" else ()),
        *(
            (
                PrefixList(NETWORK_POOLS, tuple(PrefixRule(rule.prefix, prefix_length(rule.prefix)) for rule in pools)),
                PrefixList(DEFAULT_ROUTE, (PrefixRule("0.0.0.0/0", 0),)),
            )
            if "core" in peer_roles
            else ()
        ),
    )
    used = {entry.community_list for route_map in maps for entry in route_map.entries}
    communities = tuple(
        (name, community)
        for name, community in ((FROM_ABOVE, FROM_ABOVE_COMMUNITY), (FROM_HOSTS, FROM_HOSTS_COMMUNITY))
        if name in used
    )
    return tuple(groups), RoutePolicy(prefix_lists, communities, tuple(maps))


def prefix_length(prefix: str) -> int:
    """The length of ``prefix`` (``a.b.c.d/n``)."""
    return int(prefix.rpartition("/")[2])


def build_qos(spec: QosSpec) -> Qos:
    """The lossless profile every switch shares (PFC headroom is per port: :func:`headroom`)."""
    dscp_to_tc = tuple(
        spec.roce_priority if dscp == spec.roce_dscp else spec.cnp_priority if dscp == spec.cnp_dscp else 0
        for dscp in range(64)
    )
    return Qos(
        profile=spec.profile,
        dscp_to_tc=dscp_to_tc,
        roce_dscp=spec.roce_dscp,
        lossless_priority=spec.roce_priority,
        pfc_priorities=(spec.roce_priority,),
        cnp_dscp=spec.cnp_dscp,
        cnp_priority=spec.cnp_priority,
        cnp_rate_percent=spec.cnp_rate_percent,
        dwrr_weights=((0, 100 - spec.roce_bandwidth_percent), (spec.roce_priority, spec.roce_bandwidth_percent)),
        ecn=spec.ecn,
        ecn_unit=spec.ecn_unit,
        ecn_min=spec.ecn_min,
        ecn_max=spec.ecn_max,
        ecn_min_bytes=spec.ecn_min_bytes,
        ecn_max_bytes=spec.ecn_max_bytes,
        ecn_probability=spec.ecn_probability,
        pfc_watchdog=spec.pfc_watchdog,
        pfc_watchdog_detection_ms=spec.pfc_watchdog_detection_ms,
        pfc_watchdog_restoration_ms=spec.pfc_watchdog_restoration_ms,
        pfc_watchdog_action=PFC_WATCHDOG_ACTION,
        mtu=spec.mtu,
    )


@dataclass(frozen=True)
class SwitchSettings:
    """What the switch configurations of one network take from its spec: the RoCE profile and whether its switches
    run it, its routing and load balancing, the SONiC SKU asked for, the catalog and the targets that name its
    ports, the port speed of each role's switches and the speed of each link (by tier and upper device)."""

    qos: QosSpec
    """The cluster's RoCE profile (and MTU), which also sizes every port's headroom."""
    lossless: bool
    routing: RoutingSpec
    load_balancing: BalancingSpec
    hwsku: str | None
    catalog: Catalog
    targets: tuple[str, ...]
    port_speeds: Mapping[str, int]
    link_speed: Callable[[int, Device], int]


@dataclass(frozen=True)
class Wiring:
    """The devices (switches first) and links of one network, with every device's logical port names."""

    devices: Sequence[Device]
    links: Sequence[Link]
    switch_count: int
    port_names: Sequence[tuple[str, ...]]


@dataclass(frozen=True)
class Addressing:
    """Every address and ASN of one network as the switch configurations read them: both ends of every link, every
    switch's loopback and ASN, the pools, each leaf's server block (by device index) and the ASN of every server
    that runs BGP with its leaves (by device index; none in the backend) and the core uplinks peering with the
    data-centre core."""

    upper_ips: Sequence[str]
    lower_ips: Sequence[str]
    loopbacks: Sequence[str]
    asns: Sequence[int]
    loopback_pool: str
    server_pool: str
    server_subnet: Callable[[int], str]
    server_asns: Mapping[int, int]
    core_peers: Mapping[int, Sequence[CorePeer]] = field(default_factory=dict)
    """The data-centre core's sessions of each border leaf peering with it (by device index): none elsewhere."""


class CorePeer(NamedTuple):
    """One core uplink of a border leaf: its port (from 0), both ends of its /31 and the core's ASN."""

    port: int
    address: str
    peer_address: str
    peer_asn: int
    peer_interface: str
    speed_gbps: int
    cable_m: int


def backend_settings(intent: Intent, plan: Plan) -> SwitchSettings:
    """The backend's :class:`SwitchSettings`: lossless, every tier's links at the plan's speeds."""
    speeds = plan.link_speeds
    return SwitchSettings(
        intent.qos,
        True,
        intent.routing,
        intent.load_balancing,
        intent.target_options.sonic.hwsku,
        intent.catalog,
        tuple(intent.catalog.targets),
        port_speeds(intent),
        lambda link_tier, _upper: speeds[link_tier],
    )


class _Ports:
    """Port names (the fabric's, :meth:`Fabric.port_names`) and lane positions of one port layout, computed once and
    shared by every device: for each logical port its name and its place as an :class:`Interface` holds it (cage
    from 1, lane in the cage, the cage's breakout, SerDes lanes per logical port, first SerDes lane)."""

    def __init__(self, device: Device, port_speed: int, names: tuple[str, ...]) -> None:
        self.breakout, self.uplink_breakout = device.breakout, device.uplink_breakout
        self.serdes = serdes_lanes(port_speed, max(device.breakout, device.uplink_breakout))
        self.physical = device.physical_ports
        mixed = device.uplink_breakout != device.breakout and device.downlinks < device.ports
        self.first_uplink_cage = device.place(device.downlinks)[0] + 1 if mixed else self.physical + 1
        self.names = names
        places = []
        for port in range(device.ports):
            cage, lane, breakout = device.place(port)
            lanes = self.serdes // breakout
            places.append((names[port], (cage + 1, lane, breakout, lanes, lane * lanes)))
        self.places = tuple(places)


def device_configs(
    intent: Intent, plan: Plan, fabric: Fabric, allocation: Allocation, cable_dm: Sequence[int] | None = None
) -> list[DeviceConfig]:
    """One configuration model per backend switch, in fabric device order. ``cable_dm`` is every link's cable length
    in decimetres (the physical plan's); without it every port's headroom is sized for the profile's
    ``cable_length_m``."""
    addressing = Addressing(
        allocation.upper_ips,
        allocation.lower_ips,
        allocation.loopback_ips,
        allocation.asns,
        allocation.loopback_pool.cidr,
        allocation.server_p2p.cidr,
        allocation.server_subnet,
        {},
    )
    wiring = Wiring(fabric.devices, fabric.links, fabric.switch_count, fabric.port_names())
    return switch_configs(backend_settings(intent, plan), wiring, addressing, cable_dm)


class _PortTables:
    """What the switches of one network share, made once per port layout, model or SKU: each switch's port layout
    (:class:`_Ports`), SONiC SKU, ports' names by target and table of PFC headrooms by speed and cable length."""

    def __init__(self, settings: SwitchSettings, wiring: Wiring) -> None:
        self.settings = settings
        self.switches = switches = wiring.devices[: wiring.switch_count]
        self.facts = settings.catalog.switch_facts
        self._skus: dict[tuple[str, int, int], SonicSku | None] = {}
        layouts: dict[tuple[str, int, int], _Ports] = {}
        for index, device in enumerate(switches):
            key = (device.role, device.ports, device.breakout)
            if key not in layouts:
                layouts[key] = _Ports(device, settings.port_speeds[device.role], wiring.port_names[index])
        self.ports = [layouts[device.role, device.ports, device.breakout] for device in switches]
        os_layout = switch_namer(settings.catalog, settings.port_speeds, settings.targets)
        self.os_names = [os_layout(device) for device in switches]
        layout_ports: dict[int, tuple[dict[str, str], ...]] = {}
        for by_target in self.os_names:  # each port's names by target, made once per layout (its switches share them)
            if id(by_target) not in layout_ports:
                layout_ports[id(by_target)] = tuple(
                    dict(zip(by_target, port, strict=True)) for port in zip(*by_target.values(), strict=True)
                )
        self.port_os_names = [layout_ports[id(by_target)] for by_target in self.os_names]
        rooms: dict[tuple[str, str], dict[tuple[int, int], Headroom]] = {}
        self.room_tables = [
            rooms.setdefault((device.model, runs.hwsku if (runs := self.sku(device)) else ""), {})
            for device in switches
        ]

    def sku(self, device: Device) -> SonicSku | None:
        """The SONiC SKU of the device's port layout; none runs ports broken out two ways."""
        key = (device.model, device.ports, device.breakout)
        if key not in self._skus:
            known = self.facts.get(device.model)
            self._skus[key] = (
                known.sonic.sku(
                    device.ports // device.breakout,
                    device.breakout,
                    self.settings.port_speeds[device.role] // device.breakout,
                    self.settings.hwsku,
                )
                if known and device.uplink_breakout == device.breakout
                else None
            )
        return self._skus[key]

    def sized(self, index: int, link_speed: int, cable_m: int) -> Headroom:
        """The headroom of a ``link_speed`` port of switch ``index`` on a ``cable_m`` metre cable (made once per
        switch model, SKU, speed and length: every switch of a model shares one table)."""
        device = self.switches[index]
        room = self.room_tables[index][link_speed, cable_m] = headroom(
            self.settings.qos, link_speed, cable_m, self.facts.get(device.model), self.sku(device)
        )
        return room


_Row = tuple[int, Interface, Neighbor | None]
"""One port of a switch: its number, its interface and the session over it (none: a server's port without BGP)."""


def switch_configs(
    settings: SwitchSettings, wiring: Wiring, addressing: Addressing, cable_dm: Sequence[int] | None = None
) -> list[DeviceConfig]:
    """One configuration model per switch of a network, in device order, from its settings, wiring and addresses;
    ``cable_dm`` as :func:`device_configs` reads it: each switch's ports and sessions towards its servers, the
    switches around it and the data-centre core, then its BGP from them."""
    tables = _PortTables(settings, wiring)
    qos = build_qos(settings.qos)
    cables = (
        [max(1, -(-length // 10)) for length in cable_dm]
        if cable_dm is not None
        else [settings.qos.cable_length_m] * len(wiring.links)
    )
    servers = _server_ports(tables, wiring, addressing, cables, qos.mtu)
    fabric, uplinks, downlinks = _fabric_ports(tables, wiring, addressing, cables, qos.mtu)
    core = _core_ports(tables, addressing, qos.mtu)
    by_port = itemgetter(0)
    bgp = _router_bgp(settings.routing, addressing)
    configs = []
    for index, device in enumerate(tables.switches):
        rows = sorted((*servers[index], *fabric[index], *core[index]), key=by_port)
        device_ports = tables.ports[index]
        configs.append(
            DeviceConfig(
                hostname=device.name,
                role=tier(device.role),
                plane=device.plane,
                pod=device.pod,
                model=device.model,
                asn=addressing.asns[index],
                router_id=addressing.loopbacks[index],
                loopback=f"{addressing.loopbacks[index]}/32",
                mtu=qos.mtu,
                physical_ports=device_ports.physical,
                port_speed_gbps=settings.port_speeds[device.role],
                breakout=device_ports.breakout,
                uplink_breakout=device_ports.uplink_breakout,
                first_uplink_cage=device_ports.first_uplink_cage,
                serdes_lanes=device_ports.serdes,
                interfaces=tuple(row[1] for row in rows),
                bgp=bgp(index, device, rows, max(1, uplinks[index] + len(core[index]), downlinks[index])),
                qos=qos,
                port_names=device_ports.names,
                os_port_names=tables.os_names[index],
                facts=tables.facts.get(device.model),
                load_balancing=balancing(settings.load_balancing, device, settings.catalog, settings.targets),
                sku=tables.sku(device),
                roce_qos=settings.lossless,
            )
        )
    return configs


def _server_ports(
    tables: _PortTables, wiring: Wiring, addressing: Addressing, cables: Sequence[int], mtu: int
) -> list[list[_Row]]:
    """Each switch's ports towards servers: an addressed /31 each, with a session where the server runs BGP."""
    devices, names, targets = wiring.devices, wiring.port_names, tables.settings.targets
    upper_ips, lower_ips, server_asns = addressing.upper_ips, addressing.lower_ips, addressing.server_asns
    link_speed, ports, room_tables, sized = tables.settings.link_speed, tables.ports, tables.room_tables, tables.sized
    server_port_names: dict[str, dict[str, str]] = {}
    rows: list[list[_Row]] = [[] for _ in range(wiring.switch_count)]
    for number, (link_tier, upper, upper_port, lower, lower_port) in enumerate(wiring.links):
        if link_tier != SERVER_LEAF:
            continue
        upper_ip, lower_ip = upper_ips[number], lower_ips[number]
        lower_device = devices[lower]
        cable_m, speed = cables[number], link_speed(link_tier, devices[upper])
        lower_name = names[lower][lower_port]
        upper_name, upper_place = ports[upper].places[upper_port]
        description = f"{lower_device.name} {lower_name}"
        down = Interface(
            upper_name,
            description,
            upper_ip + "/31",
            lower_device.name,
            lower_name,
            lower_ip,
            speed,
            mtu,
            "server",
            *upper_place,
            room_tables[upper].get((speed, cable_m)) or sized(upper, speed, cable_m),
            server_port_names.get(lower_name)
            or server_port_names.setdefault(lower_name, dict.fromkeys(targets, lower_name)),
        )
        asn = server_asns.get(lower)
        peer = (
            Neighbor(
                lower_ip, asn, lower_device.name, upper_name, description, upper_ip, PEER_GROUPS["server"], lower_name
            )
            if asn is not None
            else None
        )
        rows[upper].append((upper_port, down, peer))
    return rows


def _fabric_ports(
    tables: _PortTables, wiring: Wiring, addressing: Addressing, cables: Sequence[int], mtu: int
) -> tuple[list[list[_Row]], list[int], list[int]]:
    """Each switch's ports towards other switches, both ends of every link (addressed, or unnumbered) with the
    session over it; and each switch's count of uplinks and most parallel links down to one switch."""
    devices, names, asns = wiring.devices, wiring.port_names, addressing.asns
    upper_ips, lower_ips, port_os_names = addressing.upper_ips, addressing.lower_ips, tables.port_os_names
    link_speed, ports, room_tables, sized = tables.settings.link_speed, tables.ports, tables.room_tables, tables.sized
    groups = [PEER_GROUPS[tier(device.role)] for device in tables.switches]
    numbered = tables.settings.routing.underlay != "unnumbered"
    rows: list[list[_Row]] = [[] for _ in range(wiring.switch_count)]
    uplinks = [0] * wiring.switch_count
    downlinks: list[Counter[int]] = [Counter() for _ in range(wiring.switch_count)]
    for number, (link_tier, upper, upper_port, lower, lower_port) in enumerate(wiring.links):
        if link_tier == SERVER_LEAF:
            continue
        upper_ip, lower_ip = (upper_ips[number], lower_ips[number]) if numbered else ("", "")
        upper_device, lower_device = devices[upper], devices[lower]
        cable_m, speed = cables[number], link_speed(link_tier, upper_device)
        lower_name = names[lower][lower_port]
        upper_name, upper_place = ports[upper].places[upper_port]
        down = Interface(
            upper_name,
            f"{lower_device.name} {lower_name}",
            upper_ip + "/31" if numbered else "",
            lower_device.name,
            lower_name,
            lower_ip,
            speed,
            mtu,
            "fabric",
            *upper_place,
            room_tables[upper].get((speed, cable_m)) or sized(upper, speed, cable_m),
            port_os_names[lower][lower_port],
        )
        up = Interface(
            lower_name,
            f"{upper_device.name} {upper_name}",
            lower_ip + "/31" if numbered else "",
            upper_device.name,
            upper_name,
            upper_ip,
            speed,
            mtu,
            "fabric",
            *ports[lower].places[lower_port][1],
            room_tables[lower].get((speed, cable_m)) or sized(lower, speed, cable_m),
            port_os_names[upper][upper_port],
        )
        towards = Neighbor(
            lower_ip, asns[lower], lower_device.name, upper_name, down.description, upper_ip, groups[lower], lower_name
        )
        rows[upper].append((upper_port, down, towards))
        back = Neighbor(
            upper_ip, asns[upper], upper_device.name, lower_name, up.description, lower_ip, groups[upper], upper_name
        )
        rows[lower].append((lower_port, up, back))
        uplinks[lower] += 1
        downlinks[upper][lower] += 1
    return rows, uplinks, [max(counts.values(), default=0) for counts in downlinks]


def _core_ports(tables: _PortTables, addressing: Addressing, mtu: int) -> list[list[_Row]]:
    """Each border leaf's uplinks to the data-centre core, with their sessions (none on other switches)."""
    rows: list[list[_Row]] = [[] for _ in tables.switches]
    targets = tables.settings.targets
    for index, peers in addressing.core_peers.items():
        for uplink in peers:
            name, place = tables.ports[index].places[uplink.port]
            description = f"{CORE} {uplink.peer_interface}"
            interface = Interface(
                name,
                description,
                uplink.address + "/31",
                CORE,
                uplink.peer_interface,
                uplink.peer_address,
                uplink.speed_gbps,
                mtu,
                "core",
                *place,
                tables.sized(index, uplink.speed_gbps, uplink.cable_m),
                dict.fromkeys(targets, uplink.peer_interface),
            )
            session = Neighbor(
                uplink.peer_address,
                uplink.peer_asn,
                CORE,
                name,
                description,
                uplink.address,
                PEER_GROUPS["core"],
                uplink.peer_interface,
            )
            rows[index].append((uplink.port, interface, session))
    return rows


def _router_bgp(routing: RoutingSpec, addressing: Addressing) -> Callable[[int, Device, Sequence[_Row], int], Bgp]:
    """The BGP of a switch from its index, device, ports (sorted) and ECMP width: its sessions, what it announces
    and the filters of its peer groups (a spine's or super-spine's made once for the switches with the same peers)."""
    bfd = Bfd(routing.bfd.interval_ms, routing.bfd.multiplier) if routing.bfd.enabled else None
    timers = routing.timers
    aggregate = routing.server_subnets == "aggregate"
    unnumbered = routing.underlay == "unnumbered"
    pools = (PrefixRule(addressing.loopback_pool, 32), PrefixRule(addressing.server_pool, 31))
    policies: dict[tuple[str, tuple[str, ...]], tuple[tuple[PeerGroup, ...], RoutePolicy]] = {}

    def bgp(index: int, device: Device, rows: Sequence[_Row], maximum_paths: int) -> Bgp:
        """The BGP of switch ``index``."""
        loopback = addressing.loopbacks[index]
        servers = tuple(row[1].address for row in rows if row[1].role == "server")
        aggregates = (addressing.server_subnet(index),) if servers and aggregate else ()
        neighbors = tuple(row[2] for row in rows if row[2] is not None)
        peer_roles = tuple(sorted({GROUP_ROLES[neighbor.peer_group] for neighbor in neighbors}))
        role = tier(device.role)
        if role == "leaf":
            own = (PrefixRule(f"{loopback}/32", 32), PrefixRule(addressing.server_subnet(index), 31))
            groups, policy = route_policy(role, peer_roles, pools, own, unnumbered)
        else:
            groups, policy = policies.get((role, peer_roles)) or policies.setdefault(
                (role, peer_roles), route_policy(role, peer_roles, pools, (), unnumbered)
            )
        return Bgp(
            addressing.asns[index],
            loopback,
            neighbors,
            maximum_paths,
            (f"{loopback}/32", *servers),
            True,
            bfd,
            timers.keepalive,
            timers.hold,
            unnumbered,
            aggregates,
            (f"{loopback}/32", *aggregates) if aggregates else (f"{loopback}/32", *servers),
            groups,
            policy,
            (addressing.loopback_pool, addressing.server_pool) if "core" in peer_roles else (),
        )

    return bgp

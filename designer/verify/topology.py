"""The lab to build from a built design, and what a converged fabric must show in it.

The input is the build's own files (``design.json`` and ``configs/frr/<hostname>.conf``), from an
output folder or rendered in memory from an intent, so ``verify`` proves exactly what ``build`` wrote. With the
frontend in the design, its switches and BGP servers join the lab with their built files
(:mod:`designer.verify.frontend`).

Expected ECMP widths are counted on the lab's wiring: BGP on an RFC 7938 fabric installs, for every
destination leaf, one next hop per link that starts a shortest valley-free path (up, then down). That
count follows the failures injected (a failed router and its links are left out) and the slice. On a
healthy lab a leaf's width equals the plan's leaf uplinks (spines x parallel links); the tests hold the
two to each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from ipaddress import IPv4Network
from typing import Any

from designer.errors import InputError, PrerequisiteError, Problem
from designer.intent.switch_spec import SWITCH_TIERS
from designer.readback.built import DESIGN_FILE, parse_design
from designer.targets import config_files, config_path
from designer.verify import frontend
from designer.verify.hostconfig import parse_router_sysctl

PLURAL = {"leaf": "leaves", "spine": "spines", "super_spine": "super-spines"}
ROUTER_MIB = 20
"""Memory (PSS) of one zebra + bgpd pair with an almost empty table, measured on FRR 8.4."""
PEER_MIB = 0.75
"""Memory per BGP peer (bgpd's per-peer state and buffers), fitted on FRR 8.4 with :data:`PATH_KIB` on the
144-router benchmark lab (16 spines x 128 leaves): 5.9 GiB used with 272 prefixes, 8.8-9.5 GiB with 2,192."""
PATH_KIB = 0.25
"""Memory per BGP path held, received or advertised (fitted with :data:`PEER_MIB`)."""


@dataclass(frozen=True, slots=True)
class Router:
    """One switch of the lab: where it sits in the design and what it announces."""

    name: str
    role: str
    tier: int
    plane: int
    pod: int
    su: int
    asn: int
    loopback: str
    announces: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Wire:
    """One switch-to-switch link of the lab: both ends as (router index, port, address); the addresses are None on
    an unnumbered underlay (the session runs over the ports' IPv6 link-local addresses)."""

    upper: int
    upper_port: str
    upper_address: str | None
    lower: int
    lower_port: str
    lower_address: str | None


@dataclass(frozen=True, slots=True)
class Session:
    """A BGP session the design asks for, seen from ``router``: ``peer_address`` is how bgpd names the neighbor,
    its address or, unnumbered, ``router``'s own port."""

    router: int
    port: str
    peer: int
    peer_address: str
    peer_asn: int


@dataclass(frozen=True, slots=True)
class HostNic:
    """A sampled server NIC that gets a real namespace end (``--traffic``): its veth is ``name`` in the server's
    namespace and the leaf's ``leaf_port``."""

    server: str
    port: str
    """The design's port name (``nicN``; a plane link of a multiplane NIC port: ``nicNsP``)."""
    name: str
    """The NIC's OS name in the server (design.json's ``nics``)."""
    link: str
    """The veth of this link in the server's namespace: ``name``, or where one interface joins its NIC port's plane
    links (hwplb) the plane link's port name, each plane link a veth of its own holding the interface's address."""
    number: int
    """The NIC's number in the workload model: server index (among the design's servers) x NICs + N."""
    address: str
    leaf: int
    leaf_port: str
    leaf_address: str


@dataclass(frozen=True)
class Topology:
    """The routers, wires and server subnets of the lab, with its FRR configs and the design's sizing."""

    name: str
    tiers: int
    sizing: dict[str, Any]
    routers: list[Router]
    wires: list[Wire]
    server_ports: list[list[tuple[str, str]]]
    """Per router: (port, leaf-side address/31) of every server link, announced by the leaf."""
    configs: list[str]
    outside: dict[str, str]
    """Peers configured in the lab whose router is left out of a slice: address (unnumbered: ``<router> <port>``,
    the lab router and its port) -> peer name."""
    servers: dict[str, str]
    """Server NIC addresses (the odd end of server links): address -> server name."""
    coverage: str
    sysctls: list[tuple[tuple[str, int], ...] | None] = field(default_factory=list)
    """Per router: the checked settings of its kernel settings file (``configs/sysctl/<hostname>.conf``), or None
    when the build has none."""
    pools: tuple[str, ...] = ()
    """The design's address pools (design.json's summary and networks), those that read as IPv4 networks."""
    lab_lines: list[tuple[str, ...]] = field(default_factory=list)
    """Per router: lab-only configuration pushed before its own file (a frontend server's port addresses)."""

    def sessions(self) -> list[Session]:
        """Both ends of every wire, in wire order."""
        result = []
        for wire in self.wires:
            for router, port, peer, address in (
                (wire.upper, wire.upper_port, wire.lower, wire.lower_address),
                (wire.lower, wire.lower_port, wire.upper, wire.upper_address),
            ):
                result.append(Session(router, port, peer, address or port, self.routers[peer].asn))
        return result

    def prefixes(self, router: int) -> list[str]:
        """What ``router`` announces, as the design says: its loopback and, for a leaf, its server subnets
        (their aggregate, or every /31)."""
        return list(self.routers[router].announces)

    def leaves(self) -> list[int]:
        return [index for index, router in enumerate(self.routers) if router.role == "leaf"]

    def frontend(self, role: str) -> list[int]:
        """The frontend's routers of a design role (``server``, ``leaf``, ``border_leaf``, ``spine``)."""
        return [index for index, router in enumerate(self.routers) if router.role == frontend.ROLE_PREFIX + role]

    def neighbors(self) -> tuple[list[list[int]], list[list[int]]]:
        """Per router, the router at the far end of each of its up links and of each of its down links."""
        up: list[list[int]] = [[] for _ in self.routers]
        down: list[list[int]] = [[] for _ in self.routers]
        for wire in self.wires:
            up[wire.lower].append(wire.upper)
            down[wire.upper].append(wire.lower)
        return up, down

    def design_width(self) -> int:
        """A leaf's ECMP width by the plan: one next hop per uplink (spines x parallel links per spine)."""
        return int(self.sizing["spines_per_pod"] * self.sizing["leaf_spine_parallel_links"])

    def arp_entries(self) -> int:
        """Neighbor entries the lab needs in the kernel's global ARP table: both ends of every wire."""
        return 2 * len(self.wires)

    def memory_mib(self) -> int:
        """Estimated memory of the lab's routers: a base per router, a share per BGP peer, and the paths:
        every router advertises every prefix of the lab to each peer, and a router with uplinks also receives
        every prefix from each of them (the top tier keeps little of what it receives: the rest loops back to
        its own ASN). O(links), so it is cheap to refuse."""
        prefixes = sum(len(router.announces) for router in self.routers)
        peers, uplinks = [0] * len(self.routers), [0] * len(self.routers)
        for wire in self.wires:
            peers[wire.upper] += 1
            peers[wire.lower] += 1
            uplinks[wire.lower] += 1
        paths = sum(prefixes * (count + up) for count, up in zip(peers, uplinks, strict=True))
        return round(ROUTER_MIB * len(self.routers) + PEER_MIB * sum(peers) + paths * PATH_KIB / 1024)


def topology(files: Mapping[str, bytes], whole: bool = True, where: str = DESIGN_FILE) -> Topology:
    """The lab for a built design: every switch (``whole``) or a representative slice of plane 0.

    ``design.json`` and the FRR configs are checked before anything is derived from them (names, ports,
    addresses and ASNs: see :mod:`designer.readback.built`); ``where`` names the design.json in error messages."""
    if DESIGN_FILE not in files:
        raise PrerequisiteError(
            "no design.json: point 'designer verify' at an intent file or at a folder written by 'designer build'"
        )
    data = parse_design(where, files[DESIGN_FILE])
    summary = data["summary"]
    tiers = summary["tiers"]
    sizing = summary["sizing"]
    switches = [device for device in data["devices"] if device["role"] in SWITCH_TIERS]
    keep = [device for device in switches if whole or _in_slice(device, tiers, sizing)]
    front = frontend.devices(data, whole)
    hosts = [row["name"] for row in front if row["role"] == "server"]
    named_switches = [device["name"] for device in keep] + [row["name"] for row in front if row["role"] != "server"]
    _require_configs(files, named_switches, hosts)
    routers = _routers(keep, front)
    wires, server_ports, outside, servers = _wiring(data, routers, len(keep))
    hosted = set(hosts)
    configs = _configs(
        files,
        [
            frontend.host_config(router.name) if router.name in hosted else config_path("frr", router.name)
            for router in routers
        ],
    )
    coverage = _coverage(routers[: len(keep)], len(switches), tiers, whole)
    if front:
        coverage += f"; frontend: {len(front) - len(hosts)} switches and {len(hosts)} servers running BGP"
    return Topology(
        data["name"],
        tiers,
        sizing,
        routers,
        wires,
        server_ports,
        configs,
        outside,
        servers,
        coverage,
        _sysctls(files, routers),
        _pools(summary.get("pools"), data.get("networks")),
        _lab_lines(routers, wires),
    )


def _require_configs(files: Mapping[str, bytes], switches: list[str], hosts: list[str]) -> None:
    """:class:`PrerequisiteError` unless ``files`` hold the FRR config of every switch of ``switches`` and the BGP
    configuration of every frontend server of ``hosts``."""
    if missing := [name for name in switches if config_path("frr", name) not in files]:
        raise PrerequisiteError(
            f"no FRR config for {len(missing)} switch(es), e.g. {config_path('frr', missing[0])}; build the "
            "design with frr among its targets (intent key targets) and run 'designer verify' again"
        )
    if absent := [name for name in hosts if frontend.host_config(name) not in files]:
        raise PrerequisiteError(
            f"no BGP configuration for {len(absent)} frontend server(s), e.g. {frontend.host_config(absent[0])}; "
            "build the design with its server files (outputs.servers) and run 'designer verify' again"
        )


def _routers(keep: list[dict[str, Any]], front: list[dict[str, Any]]) -> list[Router]:
    """The lab's routers: the backend's switches ``keep``, then the frontend's switches and BGP servers ``front``."""
    return [
        *(
            Router(
                device["name"],
                device["role"],
                SWITCH_TIERS.index(device["role"]),
                device["plane"],
                device.get("pod", -1),
                device.get("su", -1),
                device["asn"],
                device["loopback"],
                tuple(device["announces"]),
            )
            for device in keep
        ),
        *(
            Router(
                row["name"],
                frontend.ROLE_PREFIX + row["role"],
                frontend.LEVELS[row["role"]],
                -1,
                -1,
                row.get("group", -1),
                row["asn"],
                row["loopback"],
                tuple(row["announces"]),
            )
            for row in front
        ),
    ]


def _wiring(
    data: dict[str, Any], routers: list[Router], backend: int
) -> tuple[list[Wire], list[list[tuple[str, str]]], dict[str, str], dict[str, str]]:
    """The links between the lab's routers (the first ``backend`` are the backend's), each router's server ports
    (port, address), and the far end's name of each link that leaves the lab and of each server port, by the far
    end's address."""
    index = {router.name: number for number, router in enumerate(routers[:backend])}
    front_index = {router.name: backend + number for number, router in enumerate(routers[backend:])}
    wires: list[Wire] = []
    server_ports: list[list[tuple[str, str]]] = [[] for _ in routers]
    outside: dict[str, str] = {}
    servers: dict[str, str] = {}
    for rows, named in ((data["links"], index), (frontend.links(data), front_index)):
        for link in rows:
            (a_name, a_port, a_address), (z_name, z_port, z_address) = link["a"], link["z"]
            a, z = named.get(a_name), named.get(z_name)
            if link["tier"] == "server_leaf" and z is None:
                if a is not None:
                    server_ports[a].append((a_port, a_address))
                    servers[z_address] = z_name
            elif a is not None and z is not None:
                wires.append(Wire(a, a_port, a_address, z, z_port, z_address))
            elif a is not None:
                outside[z_address or f"{a_name} {a_port}"] = z_name
            elif z is not None:
                outside[a_address or f"{z_name} {z_port}"] = a_name
    return wires, server_ports, outside, servers


def _lab_lines(routers: list[Router], wires: list[Wire]) -> list[tuple[str, ...]]:
    """Each router's lines the lab adds to its configuration: a frontend server's address on each of its links."""
    lab_lines: list[tuple[str, ...]] = [() for _ in routers]
    for wire in wires:
        if routers[wire.lower].role == frontend.ROLE_PREFIX + "server":
            lab_lines[wire.lower] += (f"interface {wire.lower_port}", f"ip address {wire.lower_address}/31", "exit")
    return lab_lines


def _pools(pools: object, networks: object) -> tuple[str, ...]:
    """The CIDR of every pool in design.json's summary and its networks that reads as an IPv4 network; anything else
    is left out."""
    cidrs = [pool.get("cidr") for pool in pools.values() if isinstance(pool, dict)] if isinstance(pools, dict) else []
    for network in networks.values() if isinstance(networks, dict) else ():
        held = network.get("pools") if isinstance(network, dict) else None
        cidrs += list(held.values()) if isinstance(held, dict) else [network.get("pool")]
    readable = []
    for cidr in cidrs:
        try:
            readable.append(str(IPv4Network(cidr)))
        except (ValueError, TypeError):
            continue
    return tuple(readable)


def _sysctls(files: Mapping[str, bytes], routers: list[Router]) -> list[tuple[tuple[str, int], ...] | None]:
    """Each router's kernel settings file, checked (:func:`~designer.verify.hostconfig.parse_router_sysctl`)."""
    paths = [config_files("frr", router.name)[1][0] for router in routers]
    return [parse_router_sysctl(path, files[path]) if path in files else None for path in paths]


def _configs(files: Mapping[str, bytes], paths: list[str]) -> list[str]:
    """Each FRR configuration at ``paths`` as text; every one that is not UTF-8 is an input error."""
    configs, problems = [], []
    for path in paths:
        try:
            configs.append(files[path].decode())
        except UnicodeDecodeError as error:
            line = files[path][: error.start].count(b"\n") + 1
            problems.append(Problem((path,), f"line {line}: not UTF-8 text (byte 0x{files[path][error.start]:02x})"))
    if problems:
        raise InputError(problems, about="the FRR configs")
    return configs


def _in_slice(device: dict[str, Any], tiers: int, sizing: dict[str, Any]) -> bool:
    """Plane 0 only. 3 tiers: pod 0 whole with its spines, every super-spine (pod 0's spines reach every
    group), and the first scalable unit of pod 1 (one leaf per rail) with pod 1's spines. 2 tiers: every
    spine, scalable unit 0 whole and scalable unit 1 (one leaf per rail)."""
    if device["plane"] != 0:
        return False
    role = device["role"]
    if tiers == 2:
        return role == "spine" or bool(device["su"] <= 1)
    if role == "super_spine":
        return True
    if role == "spine":
        return bool(device["pod"] <= 1)
    return bool(device["pod"] == 0 or device["su"] == sizing["scalable_units_per_pod"])


def _coverage(routers: list[Router], total: int, tiers: int, whole: bool) -> str:
    counts = {role: sum(router.role == role for router in routers) for role in SWITCH_TIERS}
    held = ", ".join(
        f"{count} {PLURAL[role] if count != 1 else role.replace('_', '-')}" for role, count in counts.items() if count
    )
    if whole:
        return f"whole fabric: {len(routers)} switches ({held})"
    pods = sorted({router.pod for router in routers if router.role == "leaf"})
    first = [router for router in routers if router.role == "leaf" and router.pod == pods[0]]
    if tiers == 2:
        sus = sorted({router.su for router in routers if router.role == "leaf"})
        what = f"scalable unit(s) {', '.join(map(str, sus))} of plane 0 with every spine"
    else:
        what = f"pod {pods[0]} of plane 0 complete ({len(first)} leaves) with its spines and every super-spine" + (
            f", plus one leaf per rail of pod {pods[1]} with that pod's spines" if len(pods) > 1 else ""
        )
    return f"slice: {what}; {len(routers)} of {total} switches ({held})"


def expected_routes(lab: Topology, failed: frozenset[int] = frozenset()) -> dict[int, dict[str, int]]:
    """Per running router, every prefix BGP must install with its number of next hops, and nothing else: every
    other switch's announced prefixes (a leaf's loopback and server subnets, another switch's loopback).

    Routers in ``failed`` are down with all their links. A destination without a valley-free path from a
    router is left out (the route policy keeps a route from taking a valley), and so is one that shares the
    router's ASN (AS-path loop detection refuses it: another spine of the pod under the rfc7938 scheme).
    """
    up, down = lab.neighbors()
    routes: dict[int, dict[str, int]] = {router: {} for router in range(len(lab.routers)) if router not in failed}
    for destination, announcer in enumerate(lab.routers):
        if destination in failed:
            continue
        distance, width = paths_to(lab, destination, failed, up, down)
        prefixes = lab.prefixes(destination)
        for router, table in routes.items():
            if (
                router != destination
                and distance[router] is not None
                and width[router]
                and lab.routers[router].asn != announcer.asn
            ):
                table.update(dict.fromkeys(prefixes, width[router]))
    return routes


def paths_to(
    lab: Topology, destination: int, failed: frozenset[int], up: list[list[int]], down: list[list[int]]
) -> tuple[list[int | None], list[int]]:
    """Hop count of the shortest valley-free path from every router to ``destination`` and its ECMP width."""
    count = len(lab.routers)
    below = {destination: 0}
    frontier = [destination]
    while frontier:
        following = []
        for router in frontier:
            for upper in up[router]:
                if upper not in failed and upper not in below:
                    below[upper] = below[router] + 1
                    following.append(upper)
        frontier = following
    distance = [below.get(router) for router in range(count)]
    for router in sorted(range(count), key=lambda number: -lab.routers[number].tier):
        if router in failed or distance[router] is not None:
            continue
        reachable = [hops for upper in up[router] if upper not in failed and (hops := distance[upper]) is not None]
        distance[router] = 1 + min(reachable) if reachable else None
    width = [0] * count
    for router in range(count):
        hops = distance[router]
        if router in failed or router == destination or hops is None:
            continue
        if router in below:
            width[router] = sum(1 for lower in down[router] if lower not in failed and below.get(lower) == hops - 1)
        else:
            width[router] = sum(1 for upper in up[router] if upper not in failed and distance[upper] == hops - 1)
    return distance, width

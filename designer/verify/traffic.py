"""``designer verify --traffic``: real server namespaces, RoCEv2-shaped flows and the kernel's ECMP hash.

* **Hosts.** The servers of two scalable units (with 3 tiers: of two pods), the first and last of each, get a
  namespace; each of their NICs is a veth named with its OS name, cabled to its leaf's port, and configured from
  the server's generated ``netplan.yaml`` (or ``<nic>.nmconnection`` keyfiles) and ``sysctl.conf`` (checked by
  :mod:`~designer.verify.hostconfig`, applied as ``ip`` argument vectors and writes under the namespace's
  ``/proc/sys``). Proven: every sampled NIC
  reaches every other sampled NIC of its rail, its route leaves through its own NIC to its own leaf, and a NIC
  does not answer ARP for another NIC's address. A multiplane NIC port's plane links (``nic0s0``, ``nic0s1``) are
  NICs of their own: with swplb each is an interface of the host files; with hwplb they are veths named after the
  plane links, each holding the rail's one interface's address, with its routes over both (multipath) and each
  flow sent out of its own plane link (``SO_BINDTODEVICE``).
* **Flows.** The model's flows (:mod:`designer.analysis.flows`) between the sampled NICs: every server of one unit
  to every server of the other, both ways, on every rail, :data:`QPS` queue pairs per connection, UDP to port 4791
  from the source port Linux derives from the QP numbers. One datagram per flow, sent from its bound source port
  in the source server's namespace; an HTB class on every lab port counts RoCEv2 packets and nothing else.
* **Hashing.** Each router's ``fib_multipath_hash_policy`` and ``fib_multipath_hash_seed`` (kernel 6.11+) are
  set per experiment: the design's own (each router's generated ``configs/sysctl/<hostname>.conf``, written as
  it is), layer 3 only, one seed on every router, and a seed per tier.
* **Model.** The same flows routed by the workload model's :class:`~designer.analysis.flows.Router` with the
  uniform hash over :data:`MODEL_RUNS` runs. Per-tier totals must equal the measured ones exactly (conservation);
  the measured spread over each class of ECMP groups (Pearson's X² against an even split) must not exceed the
  model's :data:`LEVEL` quantile. The kernel's hash is SipHash keyed by the seed: it is compared by distribution,
  not bit for bit.
"""

from __future__ import annotations

import ipaddress
import json
import shutil
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from designer.analysis.flows import (
    Connections,
    FlowSet,
    Router,
    UniformHash,
    job_connections,
    routed_flows,
)
from designer.analysis.flows import Topology as ModelTopology
from designer.analysis.flows import topology as model_topology
from designer.analysis.workload import percentile
from designer.backend.wiring import LINK_TIERS, Device, Fabric
from designer.errors import InputError, PrerequisiteError, Problem
from designer.intent.nic_names import nic_name_problem
from designer.verify.hostconfig import HostConfig, parse_host, sysctl_path
from designer.verify.lab import Lab, gather, in_namespace, ip, seeds_supported, set_sysctls
from designer.verify.probe import ping, route_via
from designer.verify.report import Check, Experiment, check
from designer.verify.topology import HostNic, Topology

QPS = 16
"""Queue pairs per connection (NCCL_IB_QPS_PER_CONNECTION): flows between two NICs."""
MAX_FLOWS = 4096
"""Flows one experiment sends at most; fewer QPs per connection when the sample has more connections."""
MODEL_RUNS = 1000
LEVEL = 0.999
"""The measured X² of a group class passes when at most the model's quantile at this level (a false alarm in
one experiment of a thousand when the kernel hashes as evenly as the model)."""
RUN_SEED = 0
"""The workload model's run whose QP numbers (and so UDP source ports) the flows use."""
SEEDS = {"equal seeds": lambda tier, router: 0x5EED, "seed per tier": lambda tier, router: 0x5EED + 1 + tier}
SEND = (
    "import json, socket, sys\n"
    "for source, sport, destination, dport, device in json.loads(sys.argv[1]):\n"
    "    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:\n"
    "        udp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
    "        udp.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE, device.encode())\n"
    "        udp.bind((source, sport))\n"
    "        udp.sendto(b'RoCEv2 flow probe', (destination, dport))\n"
)
"""Run in a server's namespace: one UDP datagram per flow, from its bound source address and port, out of its NIC's
link (a plane link of its own when one interface joins the planes: its address is the same on each)."""
ARP_PROBE = (
    "import json, socket, struct, sys, time\n"
    "answers = []\nfor interface, sender, target in json.loads(sys.argv[1]):\n"
    "    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0806)) as raw:\n"
    "        raw.bind((interface, 0x0806))\n"
    "        mac = raw.getsockname()[4]\n"
    "        raw.send(b'\\xff' * 6 + mac + struct.pack('!HHHBBH', 0x0806, 1, 0x0800, 6, 4, 1) + mac\n"
    "                 + socket.inet_aton(sender) + bytes(6) + socket.inet_aton(target))\n"
    "        raw.settimeout(0.05)\n"
    "        deadline, answered = time.monotonic() + 0.5, False\n"
    "        while not answered and time.monotonic() < deadline:\n"
    "            try:\n"
    "                frame = raw.recv(128)\n"
    "            except TimeoutError:\n"
    "                continue\n"
    "            answered = frame[12:14] == b'\\x08\\x06' and frame[20:22] == b'\\x00\\x02' \\\n"
    "                and frame[28:32] == socket.inet_aton(target)\n"
    "    answers.append(answered)\n"
    "print(json.dumps(answers))\n"
)
"""Run in a leaf's namespace: an ARP who-has for ``target`` out of ``interface``; whether anyone answered."""


# ---- the sample and its host files ----------------------------------------------------------------------------


def sample(data: Mapping[str, Any], lab: Topology) -> list[HostNic]:
    """The NICs of the first and last server of two scalable units of the lab (with 3 tiers, in two pods when the
    lab has two), whose leaves are in the lab. ``data`` is the checked design.json."""
    index = {router.name: number for number, router in enumerate(lab.routers) if router.role == "leaf"}
    units = sorted({(lab.routers[leaf].pod, lab.routers[leaf].su) for leaf in index.values()})
    if not units:
        return []
    first = units[0]
    others = [unit for unit in units if unit[0] != first[0]] if lab.tiers == 3 else []
    chosen = {first, (others or units)[-1]}
    servers = [device for device in data["devices"] if device["role"] == "server"]
    picked: dict[str, int] = {}
    for unit in sorted(chosen):
        members = [
            number for number, device in enumerate(servers) if (device.get("pod", 0), device.get("su", -1)) == unit
        ]
        picked.update({servers[number]["name"]: number for number in dict.fromkeys(members[:1] + members[-1:])})
    ports: dict[str, int] = Counter(link["z"][0] for link in data["links"] if link["tier"] == "server_leaf")
    planes, rails = data["summary"]["planes"], data["summary"]["rails"]
    names = {name: nic_names(servers[number], ports[name], planes) for name, number in picked.items()}
    nics = []
    for link in data["links"]:
        (leaf, leaf_port, leaf_address), (server, port, address) = link["a"], link["z"]
        if link["tier"] == "server_leaf" and server in picked and leaf in index:
            number = nic_number(port, rails)
            joined = len(names[server]) < ports[server]  # hwplb: one interface per rail joins its plane links
            name = names[server][number % rails if joined else number]
            nics.append(
                HostNic(
                    server,
                    port,
                    name,
                    port if joined else name,
                    picked[server] * ports[server] + number,
                    address,
                    index[leaf],
                    leaf_port,
                    leaf_address,
                )
            )
    return nics


def nic_names(device: Mapping[str, Any], count: int, planes: int = 1) -> tuple[str, ...]:
    """The OS name of each interface of a server device's ``count`` NIC links: design.json's ``nics`` when it has
    them (checked: NIC names as the intent takes them, :mod:`designer.intent.nic_names`, no two alike, one per link or,
    with ``planes`` planes joined behind one interface per rail (hwplb), one per rail), else the port names."""
    names = device.get("nics")
    if names is None:
        return tuple(f"nic{number}" for number in range(count))
    wrong = [problem for name in names if (problem := nic_name_problem(name))] if isinstance(names, list) else []
    counts = {count, count // planes} if planes > 1 and count % planes == 0 else {count}
    if wrong or not (isinstance(names, list) and len(names) in counts and len(set(names)) == len(names)):
        one_per = "one per link" + (f" or one per rail ({count // planes})" if len(counts) > 1 else "")
        raise InputError(
            [
                Problem(
                    ("devices", device["name"], "nics"),
                    wrong[0]
                    if wrong
                    else (f"{repr(names)[:80]} is not a list of {count} different NIC names, {one_per}"),
                )
            ],
            about="design.json",
        )
    return tuple(names)


def nic_number(port: str, rails: int) -> int:
    """The number of a server link among its server's, from its port name: ``nicN`` is N; the plane link ``nicRsP``
    of a multiplane NIC port is P x ``rails`` + R (plane 0's rails first, as the fabric numbers them)."""
    rail, _, plane = port[3:].partition("s")
    return int(plane or 0) * rails + int(rail)


def host_files(server: str, names: Iterable[str]) -> list[str]:
    """The host files a sampled server may have: its netplan file, a keyfile per NIC (``names``, each once) and its
    sysctls."""
    return [
        f"servers/{server}/netplan.yaml",
        *(f"servers/{server}/{name}.nmconnection" for name in dict.fromkeys(names)),
        f"servers/{server}/sysctl.conf",
    ]


def host_configs(files: Mapping[str, bytes], nics: Sequence[HostNic]) -> dict[str, HostConfig]:
    """Every sampled server's host files, checked: its netplan file or (format nmconnection) one keyfile per NIC,
    and its sysctl file. A server without them, or with both address formats, is a missing prerequisite."""
    servers: dict[str, dict[str, None]] = {}
    for nic in nics:
        servers.setdefault(nic.server, {})[nic.name] = None  # once, whatever its plane links (hwplb)
    chosen: dict[str, list[str]] = {}
    for server, names in servers.items():
        netplan, *keyfiles, sysctl = host_files(server, names)
        have = [path in files for path in keyfiles]
        if netplan in files and any(have):
            raise PrerequisiteError(
                f"servers/{server} holds both netplan.yaml and NetworkManager keyfiles; a build "
                "writes one format: build the design into an empty folder and run again"
            )
        chosen[server] = [netplan, sysctl] if netplan in files or not any(have) else [*keyfiles, sysctl]
    missing = [path for paths in chosen.values() for path in paths if path not in files]
    if missing:
        raise PrerequisiteError(
            f"--traffic needs the server host files, e.g. {missing[0]} is missing: build the "
            "design with host files (intent outputs: {servers: true}, the default) and run again"
        )
    return {
        server: parse_host({path: files[path] for path in chosen[server]}, tuple(servers[server])) for server in servers
    }


# ---- hosts in the lab -----------------------------------------------------------------------------------------


def configure_hosts(running: Lab, configs: Mapping[str, HostConfig]) -> list[str]:
    """Apply each server's checked settings in its namespace; one problem per sampled NIC its netplan leaves out.
    An interface joining its NIC port's plane links (hwplb) is set on each plane link: its address, MTU and
    sysctls on each, its routes as multipath routes over them (the kernel's hash standing for the NIC's own balancing
    of the planes; a socket bound to a plane link takes that plane), its rules once."""
    problems = []
    for server, config in configs.items():
        namespace = running.servers[server]
        links: dict[str, list[str]] = {}
        for sampled in running.hosts:
            if sampled.server == server:
                links.setdefault(sampled.name, []).append(sampled.link)
        set_sysctls(namespace, [(path, value) for key, value in config.sysctls for path in _on_links(key, links)])
        configured = {nic.name for nic in config.nics}
        problems += [
            f"{sampled.server} {sampled.port} ({sampled.name}): not in its host files"
            for sampled in running.hosts
            if sampled.server == server and sampled.name not in configured
        ]
        for nic in config.nics:
            devices = links.get(nic.name, [nic.name])
            for device in devices:
                if nic.mtu is not None:
                    ip(namespace, "link", "set", "dev", device, "mtu", str(nic.mtu))
                ip(namespace, "address", "add", f"{nic.address}/{nic.prefix}", "dev", device)
                ip(namespace, "link", "set", "dev", device, "up")
            for route in nic.routes:
                hops = (
                    [("via", route.via)]
                    if devices == [nic.name]
                    else [("nexthop", "via", route.via, "dev", device) for device in devices]
                )
                ip(
                    namespace,
                    "route",
                    "add",
                    route.to,
                    "table",
                    str(route.table),
                    *(word for hop in hops for word in hop),
                )
            for source, table, priority in nic.rules:
                ip(
                    namespace,
                    "rule",
                    "add",
                    "from",
                    source,
                    "table",
                    str(table),
                    *(("priority", str(priority)) if priority is not None else ()),
                )
    return problems


def _on_links(key: str, links: Mapping[str, Sequence[str]]) -> list[tuple[str, ...]]:
    """The files below ``/proc/sys`` of the sysctl ``key`` in the lab: an interface's own setting goes to each of the
    veths that stand for it (its plane links with hwplb), any other key to its one file."""
    path = sysctl_path(key)
    if path[:3] == ("net", "ipv4", "conf") and len(path) == 5 and path[3] in links:
        return [(*path[:3], link, path[4]) for link in links[path[3]]]
    return [path]


def rails(nics: Sequence[HostNic]) -> dict[str, list[HostNic]]:
    """The sampled NICs by port: NIC ``i`` of every server is on rail ``i`` (of its plane)."""
    grouped: dict[str, list[HostNic]] = {}
    for nic in nics:
        grouped.setdefault(nic.port, []).append(nic)
    return grouped


def host_checks(running: Lab, phase: str) -> list[Check]:
    """Every sampled NIC reaches every other of its rail, routed out of its own NIC to its own leaf; no NIC
    answers ARP for another NIC of its server (and each answers for its own address)."""
    lab = running.topology
    pairs = [(a, b) for group in rails(running.hosts).values() for a in group for b in group if a.server != b.server]
    namespaces = running.servers

    def probe(pair: tuple[HostNic, HostNic]) -> list[str]:
        a, b = pair
        where = f"{a.server} {a.link} ({a.address}) -> {b.server} {b.link} ({b.address})"
        gateway, device = route_via(namespaces[a.server], a.address, b.address, a.link)
        found = []
        if (gateway, device) != (a.leaf_address, a.link):
            found.append(
                f"{where}: routed via {gateway or 'nothing'} on {device or '-'}, expected its leaf "
                f"{lab.routers[a.leaf].name} ({a.leaf_address}) on {a.link}"
            )
        if not ping(namespaces[a.server], a.address, b.address):
            found.append(f"{where}: no reply")
        return found

    results = gather(pairs, probe)
    routed = [line for lines in results for line in lines if "routed via" in line]
    lost = [line for lines in results for line in lines if line.endswith("no reply")]
    checks = [
        check(
            phase,
            "server NICs reach their rail",
            f"{len(pairs) - len(lost)} of {len(pairs)} NIC pairs of "
            f"{len(rails(running.hosts))} rails answer ping from the NIC's own address",
            lost,
        ),
        check(
            phase,
            "server first hop",
            f"{len(pairs) - len(routed)} of {len(pairs)} NIC pairs routed out of the source NIC to its own leaf",
            routed,
        ),
    ]
    return [*checks, _arp_check(running, phase)]


def _arp_check(running: Lab, phase: str) -> Check:
    """From each sampled NIC's leaf port: ARP for the NIC's own address (answered) and for each other NIC of the
    same server (never answered: arp_ignore)."""
    probes: dict[int, list[tuple[str, str, str, str]]] = {}
    by_server: dict[str, list[HostNic]] = {}
    for nic in running.hosts:
        by_server.setdefault(nic.server, []).append(nic)
    for nic in running.hosts:
        for other in by_server[nic.server]:
            if other.address == nic.address and other is not nic:
                continue  # another plane link of the same interface (hwplb): the same address, asked once
            probes.setdefault(nic.leaf, []).append(
                (
                    nic.leaf_port,
                    nic.leaf_address,
                    other.address,
                    f"{nic.server} {other.name}" if other is not nic else "",
                )
            )
    leaves = sorted(probes)
    answers = gather(
        leaves,
        lambda leaf: json.loads(
            in_namespace(running.namespaces[leaf], ARP_PROBE, [list(probe[:3]) for probe in probes[leaf]])
        ),
    )
    problems, foreign = [], 0
    for leaf, replies in zip(leaves, answers, strict=True):
        for (port, _, target, owner), answered in zip(probes[leaf], replies, strict=True):
            port_name = f"{running.topology.routers[leaf].name} {port}"
            foreign += bool(owner)
            if owner and answered:
                problems.append(f"{port_name}: ARP for {target} ({owner}) was answered by the NIC on this port")
            elif not owner and not answered:
                problems.append(f"{port_name}: ARP for its own NIC's address {target} got no answer")
    return check(
        phase,
        "ARP only for a NIC's own address",
        f"{foreign} ARP requests for another NIC's address unanswered, {len(running.hosts)} NICs answer for their own",
        problems,
    )


# ---- flows and the model --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Model:
    """The workload model's view of the lab: the fabric from design.json and the sampled flows on it."""

    top: ModelTopology
    flows: FlowSet
    link_names: list[str]
    """Per design link: both ends, for the report."""
    tiers: list[int]
    """Per design link: its tier (index in :data:`designer.backend.wiring.LINK_TIERS`)."""
    link_index: dict[tuple[str, str], int]
    """(upper device, upper port) -> the design link's number."""


def model(data: Mapping[str, Any], nics: Sequence[HostNic], qps: int | None = None) -> Model:
    """The design as the workload model sees it and the flows of the sample (every server of one unit to every
    server of the other, both ways, every rail)."""
    devices, names = _devices(data)
    links, rails = [], data["summary"]["rails"]
    for link in data["links"]:
        tier = LINK_TIERS.index(link["tier"])
        (a, a_port, _), (z, z_port, _) = link["a"], link["z"]
        links.append((tier, names[a], _port_number(a_port, rails), names[z], _port_number(z_port, rails)))
    switches = sum(device.role != "server" for device in devices)
    fabric = Fabric(None, devices, links, switches, sum(link[0] == 0 for link in links))  # type: ignore[arg-type]
    top = model_topology(fabric)  # routing reads devices and links only, never the plan
    servers = sorted({nic.number // top.nics for nic in nics})
    unit = {server: (devices[switches + server].pod, devices[switches + server].su) for server in servers}
    edges = [(i, j) for i, a in enumerate(servers) for j, b in enumerate(servers) if unit[a] != unit[b]]
    connections = job_connections(servers, edges, top.nics)
    sampled = {nic.number for nic in nics}
    keep = [
        number
        for number, (s, d) in enumerate(zip(connections.src, connections.dst, strict=True))
        if s in sampled and d in sampled
    ]
    connections = Connections(
        *(
            tuple(column[number] for number in keep)
            for column in (connections.src, connections.dst, connections.src_rank, connections.dst_rank)
        )
    )
    qps = qps or max(1, min(QPS, MAX_FLOWS // max(1, len(keep))))
    address = {nic.number: int(ipaddress.IPv4Address(nic.address)) for nic in nics}
    flows = routed_flows(top, address.__getitem__, connections, qps)
    link_names = [f"{link['a'][0]} {link['a'][1]} - {link['z'][0]} {link['z'][1]}" for link in data["links"]]
    index = {(link["a"][0], link["a"][1]): number for number, link in enumerate(data["links"])}
    return Model(top, flows, link_names, [link[0] for link in links], index)


def _devices(data: Mapping[str, Any]) -> tuple[list[Device], dict[str, int]]:
    """design.json's devices as the fabric's (switches first) and their numbers by name."""
    rows = sorted(data["devices"], key=lambda row: row["role"] == "server")
    ports = Counter(link["z"][0] for link in data["links"] if link["tier"] == "server_leaf")
    devices = [
        Device(
            row["name"],
            row["role"],
            row.get("plane", -1),
            row.get("pod", -1),
            row.get("su", -1),
            row.get("rail", -1),
            row.get("group", -1),
            row.get("index", -1),
            row["model"],
            ports[row["name"]],
            1,
            ports[row["name"]],
            1,
        )
        for row in rows
    ]
    return devices, {device.name: number for number, device in enumerate(devices)}


def _port_number(port: str, rails: int) -> int:
    """A sortable number of ``swpN``, ``swpNsL``, ``nicN`` or ``nicRsP`` (the model orders parallel links by port; a
    server's are its NIC numbers, :func:`nic_number`)."""
    if port.startswith("nic"):
        return nic_number(port, rails)
    base, _, lane = port[3:].partition("s")
    return int(base) * 100 + int(lane or 0)


@dataclass
class Measured:
    """RoCEv2 packets (one per flow) per design link and direction (``2 * link`` up, ``2 * link + 1`` down), and
    per sampled NIC sent and received."""

    links: Counter[int] = field(default_factory=Counter)
    sent: Counter[str] = field(default_factory=Counter)
    received: Counter[str] = field(default_factory=Counter)


def send(running: Lab, flows: FlowSet, link_index: Mapping[tuple[str, str], int]) -> Measured:
    """Send one datagram per flow from its source NIC's namespace; the packets counted on every port meanwhile."""
    by_number = {nic.number: nic for nic in running.hosts}
    batches: dict[str, list[list[object]]] = {}
    for src, dst, sport in zip(flows.src, flows.dst, flows.sports(RUN_SEED), strict=True):
        a, b = by_number[src], by_number[dst]
        batches.setdefault(a.server, []).append([a.address, sport, b.address, 4791, a.link])
    before = running.roce_packets()
    gather(list(batches.items()), lambda item: in_namespace(running.servers[item[0]], SEND, item[1]))
    after = running.roce_packets()
    return _measured(running, {end: after[end] - before[end] for end in after}, link_index)


def _measured(
    running: Lab, delta: Mapping[tuple[str, str], int], link_index: Mapping[tuple[str, str], int]
) -> Measured:
    lab, spaces = running.topology, running.namespaces
    result = Measured()
    for wire in lab.wires:
        link = link_index[lab.routers[wire.upper].name, wire.upper_port]
        result.links[2 * link + 1] += delta[spaces[wire.upper], wire.upper_port]
        result.links[2 * link] += delta[spaces[wire.lower], wire.lower_port]
    for nic in running.hosts:
        result.sent[nic.server + " " + nic.link] = delta[running.servers[nic.server], nic.link]
        result.received[nic.server + " " + nic.link] = delta[spaces[nic.leaf], nic.leaf_port]
    return result


@dataclass(frozen=True)
class Spread:
    """Pearson's X² of a class of ECMP groups against an even split, measured and in the model's runs."""

    name: str
    measured: float
    model: tuple[float, ...]

    def limit(self) -> float:
        return percentile(self.model, LEVEL)

    @property
    def even(self) -> bool:
        return self.measured <= self.limit() + 1e-9


def group_classes(top: ModelTopology) -> dict[str, list[tuple[tuple[int, ...], int]]]:
    """ECMP groups of the model by class: (member links, direction) with at least two members."""
    devices = top.fabric.devices
    classes: dict[str, list[tuple[tuple[int, ...], int]]] = {}
    for switch, links in sorted(top.up.items()):
        if len(links) > 1:
            classes.setdefault(f"{devices[switch].role.replace('_', '-')} uplinks", []).append((links, 0))
    for (upper, _), links in sorted(top.down.items()):
        if len(links) > 1:
            classes.setdefault(f"{devices[upper].role.replace('_', '-')} parallel downlinks", []).append((links, 1))
    return classes


def chi_square(loads: Mapping[int, int], groups: Sequence[tuple[tuple[int, ...], int]]) -> float:
    """Pearson's X² of flows per member against an even split, summed over groups that carried flows."""
    total = 0.0
    for links, direction in groups:
        counts = [loads.get(2 * link + direction, 0) for link in links]
        flows = sum(counts)
        if flows:
            expected = flows / len(links)
            total += sum((count - expected) ** 2 for count in counts) / expected
    return total


def compare(top: ModelTopology, flows: FlowSet, measured: Measured) -> tuple[list[str], list[Spread]]:
    """Conservation (per tier and direction, the measured totals equal the model's exactly) and each group
    class's spread against the model's runs with the uniform hash."""
    router = Router(top)
    runs = [router.route(flows.src_leaf, flows.dst_leaf, UniformHash(seed)).loads for seed in range(MODEL_RUNS)]
    tier_of = [link[0] for link in top.fabric.links]
    problems = []
    for tier in (1, 2):
        for direction, word in ((0, "up"), (1, "down")):
            want = sum(count for key, count in runs[0].items() if key % 2 == direction and tier_of[key // 2] == tier)
            have = sum(
                count for key, count in measured.links.items() if key % 2 == direction and tier_of[key // 2] == tier
            )
            if want != have:
                problems.append(f"{LINK_TIERS[tier]} {word}: {have} packets measured, the model routes {want} flows")
    spreads = [
        Spread(name, chi_square(measured.links, groups), tuple(chi_square(run, groups) for run in runs))
        for name, groups in group_classes(top).items()
    ]
    return problems, [spread for spread in spreads if any(spread.model) or spread.measured]


# ---- experiments ----------------------------------------------------------------------------------------------


def set_hashing(running: Lab, policy: int, seed: Callable[[int, int], int] | None) -> None:
    """Every router's multipath hash policy and (``seed`` by tier and router, kernel 6.11+) its seed."""
    for router, namespace in enumerate(running.namespaces):
        settings = [(("net", "ipv4", "fib_multipath_hash_policy"), policy)]
        if seed is not None:
            settings.append(
                (("net", "ipv4", "fib_multipath_hash_seed"), seed(running.topology.routers[router].tier, router))
            )
        set_sysctls(namespace, settings)


def design_hashing(lab: Topology) -> int | str:
    """The one hash policy the routers' own kernel settings files set (``configs/sysctl/<hostname>.conf``), or
    why the design-hashing experiment cannot run (a router without the file, or files that disagree: the model
    compares one hash for the whole fabric)."""
    missing = [router.name for router, settings in zip(lab.routers, lab.sysctls, strict=True) if settings is None]
    if missing or not lab.sysctls:
        return (
            f"traffic with the design's hashing: no configs/sysctl/{(missing or ['<hostname>'])[0]}.conf "
            f"({len(missing)} router(s) without one); build with frr among the targets"
        )
    policies = {dict(settings or ()).get("net.ipv4.fib_multipath_hash_policy", 0) for settings in lab.sysctls}
    if len(policies) > 1:
        return (
            f"traffic with the design's hashing: the routers' sysctl files set different hash policies "
            f"({', '.join(map(str, sorted(policies)))}); the model compares one hash for the whole fabric"
        )
    return policies.pop()


def modes_not_run(data: Mapping[str, Any]) -> list[str]:
    """What the lab cannot prove of the design's load balancing (``design.json``): every mode but per-flow ECMP
    hashing, one line each."""
    modes = {row["load_balancing"]["mode"] for row in data["devices"] if "load_balancing" in row}
    return [
        f"traffic: load balancing {mode} is not run here: Linux has no adaptive routing or cluster load balancing "
        "and the lab's hosts do not spray packets, so these experiments prove per-flow ECMP hashing only (the model "
        "of mode ecmp); designer analyze shows both the hashed and the spread figures"
        for mode in sorted(modes - {"ecmp"})
    ]


def experiments(running: Lab, measure_model: Model) -> tuple[list[Check], list[Experiment], list[str]]:
    """Run every experiment; their checks, per-link results and what was not covered (with the reason)."""
    lab = running.topology
    checks: list[Check] = []
    results: list[Experiment] = []
    plan, skipped = _hashing_plan(running)
    flows = measure_model.flows
    top = measure_model.top
    for name, policy, apply in plan:
        apply()
        measured = send(running, flows, measure_model.link_index)
        problems, spreads = compare(top, flows, measured)
        delivered = _delivery(running, flows, measured)
        results.append(_experiment(name, policy, measure_model, measured, spreads))
        checks.append(
            check(
                f"traffic: {name}",
                "every flow delivered",
                f"{len(flows.src)} flows sent, each counted leaving its NIC and arriving at its destination NIC's port",
                delivered,
            )
        )
        checks.append(
            check(
                f"traffic: {name}",
                "conservation",
                "packets per tier and direction equal the model's flows exactly",
                problems,
            )
        )
        spread_checks, not_run = _spread_checks(lab, name, spreads)
        checks += spread_checks
        skipped += not_run
    checks.append(_layer3(running, measure_model))
    return checks, results, skipped


def _hashing_plan(running: Lab) -> tuple[list[tuple[str, int, Callable[[], object]]], list[str]]:
    """The experiments to run, each a name, its policy and what sets the lab's hashing for it (the design's
    hashing, then the seed rules where the kernel takes seeds, else the layer-4 hash alone), and those that cannot
    run (with the reason)."""
    skipped: list[str] = []
    seeds = seeds_supported()
    plan: list[tuple[str, int, Callable[[], object]]] = []
    design = design_hashing(running.topology)
    if isinstance(design, str):
        skipped.append(design)
    elif seeds:
        plan.append(("design hashing", design, running.apply_kernel))
    if seeds:
        plan += [(name, 1, partial(set_hashing, running, 1, rule)) for name, rule in SEEDS.items()]
    else:
        skipped.append(
            "per-router hash seeds: this kernel has no net.ipv4.fib_multipath_hash_seed (Linux 6.11+); "
            "the design's seeds, the seed experiments and polarization were not run"
        )
        plan.append(("layer-4 hash", 1, lambda: set_hashing(running, 1, None)))
    return plan, skipped


def _spread_checks(lab: Topology, name: str, spreads: list[Spread]) -> tuple[list[Check], list[str]]:
    """The checks of one experiment's spread over the ECMP groups: polarization under a seed rule, and (but with
    equal seeds) the match with the model; and what could not be checked (with the reason)."""
    checks: list[Check] = []
    skipped: list[str] = []
    if name in SEEDS and lab.tiers == 2:
        skipped += two_tier_polarization(lab, name, spreads)
    elif name in SEEDS:
        polarization = _polarization(name, spreads, polarized=name == "equal seeds")
        if polarization is None:
            skipped.append(f"polarization ({name}): the sampled flows crossed no group of spine uplinks")
        else:
            checks.append(polarization)
    if name != "equal seeds":
        uneven = [
            f"{spread.name}: X² {spread.measured:.1f} above the model's {LEVEL:.1%} quantile {spread.limit():.1f}"
            for spread in spreads
            if not spread.even
        ]
        checks.append(
            check(
                f"traffic: {name}",
                "matches the model",
                "; ".join(
                    f"{spread.name} X² {spread.measured:.1f} (model median {percentile(spread.model, 0.5):.1f}, "
                    f"{LEVEL:.1%} {spread.limit():.1f})"
                    for spread in spreads
                )
                or "no ECMP group with two members",
                uneven,
            )
        )
    return checks, skipped


def _polarization(name: str, spreads: list[Spread], polarized: bool) -> Check | None:
    """With 3 tiers, the spines' uplinks: skewed beyond the model when every router has the same seed, within it
    when each tier has its own (None when the flows met no group of spine uplinks)."""
    second = next((spread for spread in spreads if spread.name == "spine uplinks"), None)
    phase = f"traffic: {name}"
    if second is None:
        return None
    summary = f"spine uplinks X² {second.measured:.1f}, the model's {LEVEL:.1%} quantile {second.limit():.1f}: " + (
        "polarized" if not second.even else "as even as independent hashing"
    )
    wrong = second.even if polarized else not second.even
    expected = "polarized (equal seeds repeat the leaf's choice)" if polarized else "even (independent per tier)"
    return check(
        phase, "polarization" if polarized else "no polarization", summary, [f"expected {expected}"] if wrong else []
    )


def two_tier_polarization(lab: Topology, name: str, spreads: list[Spread]) -> list[str]:
    """What a 2-tier lab says about polarization, for the report's not-covered list (nothing for the seed-per-tier
    experiment with parallel links: its "matches the model" check holds the second decision to the model).

    A flow meets a second hash decision only at a spine with parallel links to the destination leaf. With equal
    seeds both decisions hash the same value, split into different ranges (the leaf's over spines x parallel
    links, the spine's over its parallel links), so whether the spine's choice is skewed depends on the order the
    kernel lists the leaf's next hops, not on the design: measured and shown, not asserted."""
    parallel = lab.sizing["leaf_spine_parallel_links"]
    if parallel < 2:
        return (
            []
            if name != "equal seeds"
            else [
                "polarization, 2 tiers: does not arise here: with one link from each spine to each leaf a flow meets "
                "one hash decision (its leaf's uplink) and no later router repeats it; the seed experiments hold the "
                "leaves' uplinks to the model (seed per tier) and count delivery and conservation (both)"
            ]
        )
    if name != "equal seeds":
        return []
    second = next((spread for spread in spreads if spread.name == "spine parallel downlinks"), None)
    measured = (
        "the sampled flows met no spine with parallel links to their leaf"
        if second is None
        else f"spine parallel downlinks X² {second.measured:.1f} against the model's {LEVEL:.1%} quantile "
        f"{second.limit():.1f} ({'skewed' if not second.even else 'as even as independent hashing'})"
    )
    return [
        f"polarization, 2 tiers, equal seeds: not asserted. The only second hash decision is a spine's among its "
        f"{parallel} parallel links to the destination leaf; with one seed on both tiers it hashes the value the "
        f"leaf hashed, so whether it skews depends on the order the kernel lists the leaf's next hops, not on the "
        f"design. Measured: {measured}. With a seed per tier the same class is held to the model ('matches the "
        "model'); the leaves' uplinks, the first decision, cannot polarize"
    ]


def _layer3(running: Lab, measure_model: Model) -> Check:
    """Layer-3-only hashing (policy 0): all the flows of one NIC pair take one path; the layer-4 hash spreads them."""
    flows = measure_model.flows
    if not flows.src:
        return check("traffic: layer-3 only", "one path per NIC pair", "no flows", ["the sample has no flows"])
    pair = (flows.src[0], flows.dst[0])
    chosen = [number for number, key in enumerate(zip(flows.src, flows.dst, strict=True)) if key == pair]

    def kept(column: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(column[number] for number in chosen)

    single = replace(
        flows,
        src=kept(flows.src),
        dst=kept(flows.dst),
        src_qp=kept(flows.src_qp),
        dst_qp=kept(flows.dst_qp),
        src_leaf=kept(flows.src_leaf),
        dst_leaf=kept(flows.dst_leaf),
    )
    paths = {}
    for policy in (0, 1):
        set_hashing(running, policy, None)
        measured = send(running, single, measure_model.link_index)
        paths[policy] = sorted(key for key, count in measured.links.items() if count)
    by_number = {nic.number: nic for nic in running.hosts}
    a, b = by_number[pair[0]], by_number[pair[1]]
    hops = len({measure_model.tiers[key // 2] * 2 + key % 2 for key in paths[0]})
    problems = []
    if len(paths[0]) != hops:
        problems.append(f"layer 3 only: the {len(chosen)} flows used {len(paths[0])} links over {hops} hops")
    if len(paths[1]) <= hops:
        problems.append(f"layer 4: the {len(chosen)} flows still took one path")
    route = ", ".join(measure_model.link_names[key // 2] for key in paths[0])
    return check(
        "traffic: layer-3 only",
        "one path per NIC pair",
        f"{len(chosen)} flows {a.server} {a.link} -> "
        f"{b.server} {b.link}: one path with policy 0 ({route}); {len(paths[1])} links with policy 1",
        problems,
    )


def _delivery(running: Lab, flows: FlowSet, measured: Measured) -> list[str]:
    by_number = {nic.number: nic for nic in running.hosts}
    sent = Counter(by_number[src].server + " " + by_number[src].link for src in flows.src)
    received = Counter(by_number[dst].server + " " + by_number[dst].link for dst in flows.dst)
    problems = [
        f"{nic}: {measured.sent[nic]} sent, {count} flows"
        for nic, count in sorted(sent.items())
        if measured.sent[nic] != count
    ]
    problems += [
        f"{nic}: {measured.received[nic]} arrived, {count} flows"
        for nic, count in sorted(received.items())
        if measured.received[nic] != count
    ]
    return problems


def _experiment(name: str, policy: int, measure_model: Model, measured: Measured, spreads: list[Spread]) -> Experiment:
    return Experiment(
        name,
        policy,
        len(measure_model.flows.src),
        {
            f"{measure_model.link_names[key // 2]} {'up' if key % 2 == 0 else 'down'}": count
            for key, count in sorted(measured.links.items())
            if count
        },
        {spread.name: round(spread.measured, 2) for spread in spreads},
        {spread.name: round(spread.limit(), 2) for spread in spreads},
    )


def prerequisites() -> None:
    """``tc`` (iproute2) counts the packets."""
    if shutil.which("tc") is None:
        raise PrerequisiteError("designer verify --traffic needs tc (iproute2): apt-get install -y iproute2")

"""Read the running lab: BGP sessions from bgpd, installed routes from the kernel, ping and traceroute.

Each reader returns plain data; the comparisons with what the design expects return one line per
problem, naming the router, port and peer, so a report can say exactly which session or route is wrong.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from designer.verify.lab import WORKERS, gather
from designer.verify.topology import Session, Topology

QUERY_SECONDS = 30


@dataclass(frozen=True, slots=True)
class Peer:
    """One neighbor as bgpd reports it."""

    state: str
    remote_asn: int


def ask(vtysh: Sequence[str], command: str) -> str:
    """What a router's daemons answer ``command``, asked with its ``vtysh`` command line."""
    return subprocess.run(
        [*vtysh, "-c", command], capture_output=True, text=True, check=False, timeout=QUERY_SECONDS
    ).stdout


def bgp_peers(vtysh: Sequence[str]) -> dict[str, Peer]:
    """``show bgp summary json`` of a router, asked with its ``vtysh`` command line: address -> peer."""
    return parse_bgp_summary(ask(vtysh, "show bgp summary json"))


def parse_bgp_summary(text: str) -> dict[str, Peer]:
    """Peers of FRR's ``show bgp summary json`` (IPv4 unicast); empty when bgpd said nothing readable."""
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    peers = data.get("ipv4Unicast", {}).get("peers", {})
    return {address: Peer(peer.get("state", "?"), int(peer.get("remoteAs", 0))) for address, peer in peers.items()}


def advertised(vtysh: Sequence[str], peer: str) -> set[str]:
    """The prefixes a router sends ``peer`` after its export policy (FRR's ``advertised-routes``)."""
    return parse_advertised(ask(vtysh, f"show bgp ipv4 unicast neighbors {peer} advertised-routes json"))


def parse_advertised(text: str) -> set[str]:
    """The prefixes of FRR's ``show bgp ... advertised-routes json``; empty when bgpd said nothing readable."""
    try:
        data = json.loads(text or "{}")
    except json.JSONDecodeError:
        return set()
    return set(data.get("advertisedRoutes", {}))


def kernel_routes(namespace: str) -> dict[str, int]:
    """BGP routes installed in the kernel of ``namespace``: prefix -> number of next hops."""
    result = subprocess.run(
        ["ip", "-n", namespace, "-j", "route", "show", "proto", "bgp"],
        capture_output=True,
        text=True,
        check=False,
        timeout=QUERY_SECONDS,
    )
    return parse_routes(result.stdout)


def parse_routes(text: str) -> dict[str, int]:
    """iproute2's ``ip -j route``: prefix (a host route gets ``/32``) -> number of next hops."""
    routes = {}
    for route in json.loads(text or "[]"):
        destination = route["dst"] if "/" in route["dst"] else f"{route['dst']}/32"
        routes[destination] = len(route["nexthops"]) if "nexthops" in route else 1
    return routes


def ping(namespace: str, source: str, destination: str) -> bool:
    """One loopback-to-loopback ping, up to 3 tries."""
    result = subprocess.run(
        [
            "ip",
            "netns",
            "exec",
            namespace,
            "ping",
            "-n",
            "-q",
            "-c",
            "3",
            "-i",
            "0.2",
            "-W",
            "1",
            "-I",
            source,
            destination,
        ],
        capture_output=True,
        check=False,
        timeout=QUERY_SECONDS,
    )
    return result.returncode == 0


def route_via(namespace: str, source: str, destination: str, device: str | None = None) -> tuple[str, str]:
    """The gateway and interface ``namespace`` routes ``destination`` through when sending from ``source`` (its
    policy rules applied), by a socket bound to ``device`` when given: ``ip route get``; empty strings when there is
    no route."""
    result = subprocess.run(
        [
            "ip",
            "-n",
            namespace,
            "-j",
            "route",
            "get",
            destination,
            "from",
            source,
            *(("oif", device) if device else ()),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=QUERY_SECONDS,
    )
    return parse_route_get(result.stdout)


def parse_route_get(text: str) -> tuple[str, str]:
    """(gateway, device) of iproute2's ``ip -j route get``; empty strings for what it does not say."""
    try:
        routes = json.loads(text or "[]")
    except json.JSONDecodeError:
        return "", ""
    route = routes[0] if routes else {}
    return str(route.get("gateway", "")), str(route.get("dev", ""))


def traceroute(namespace: str, source: str, destination: str, max_hops: int) -> list[str]:
    """The address answering at each hop (``*`` for none), up to ``destination``."""
    result = subprocess.run(
        [
            "ip",
            "netns",
            "exec",
            namespace,
            "traceroute",
            "-n",
            "-q",
            "1",
            "-w",
            "1",
            "-m",
            str(max_hops),
            "-s",
            source,
            destination,
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=QUERY_SECONDS,
    )
    return parse_traceroute(result.stdout)


def parse_traceroute(text: str) -> list[str]:
    """The address of each hop of ``traceroute -n -q 1`` (``*`` where none answered); the header line skipped."""
    hops = []
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 2 and fields[0].isdigit():
            hops.append(fields[1])
    return hops


def session_problems(
    lab: Topology, sessions: list[Session], peers: dict[int, dict[str, Peer]], failed: frozenset[int]
) -> tuple[int, list[tuple[int, str]]]:
    """Compare bgpd's view with the design: sessions up with the designed ASN, or down next to a failed router.

    Returns how many session ends are as expected and (router, line) for each one that is not; ``peers``
    holds every router that is running (not in ``failed``).
    """
    good, problems = 0, []
    routers = lab.routers
    for session in sessions:
        if session.router in failed:
            continue
        name, peer_name = routers[session.router].name, routers[session.peer].name
        where = f"{name} {session.port} -> {peer_name} ({session.peer_address}, AS {session.peer_asn})"
        seen = peers[session.router].get(session.peer_address)
        problem = ""
        if seen is None:
            problem = f"{where}: no such neighbor in {name}'s BGP configuration"
        elif seen.remote_asn != session.peer_asn:
            problem = (
                f"{where}: configured with remote-as {seen.remote_asn}, the design says {session.peer_asn}; "
                f"state {seen.state}"
            )
        elif session.peer in failed and seen.state == "Established":
            problem = f"{where}: still Established though {peer_name} is down"
        elif session.peer not in failed and seen.state != "Established":
            problem = f"{where}: {seen.state}, expected Established"
        if problem:
            problems.append((session.router, problem))
        else:
            good += 1
    return good, problems


def extra_peers(
    lab: Topology, sessions: list[Session], peers: dict[int, dict[str, Peer]]
) -> tuple[list[str], list[str]]:
    """Neighbors configured beyond the lab's wires: (not covered because the lab leaves them out, unexpected)."""
    expected = {(session.router, session.peer_address) for session in sessions}
    not_covered, unexpected = [], []
    for router, table in sorted(peers.items()):
        name = lab.routers[router].name
        for address in sorted(table):
            if (router, address) in expected:
                continue
            beyond = lab.outside.get(address) or lab.outside.get(f"{name} {address}")
            if beyond:
                not_covered.append(f"{name} -> {beyond} ({address}): peer outside the slice")
            elif address in lab.servers:
                not_covered.append(
                    f"{name} -> {lab.servers[address]} ({address}): BGP with a server is not "
                    "emulated (servers are bridges in the leaf's namespace)"
                )
            else:
                unexpected.append(f"{name} -> {address}: neighbor not in the design's cabling")
    return not_covered, unexpected


def route_problems(
    lab: Topology, expected: dict[int, dict[str, int]], installed: dict[int, dict[str, int]]
) -> tuple[int, list[tuple[int, str]]]:
    """Every expected prefix installed with exactly the expected number of next hops, and no other BGP route than
    the router's own (an aggregate it announces is a discard route in its own kernel): how many routers are
    complete, and (router, line) for each prefix that is not right. A router not read yet has no routes."""
    complete, problems = 0, []
    for router, table in expected.items():
        name = lab.routers[router].name
        have = installed.get(router, {})
        own = lab.prefixes(router)
        wrong = [
            (
                router,
                f"{name}: {prefix} "
                + (
                    f"has {have[prefix]} next hops, expected {width}"
                    if prefix in have
                    else f"missing, expected {width} next hops"
                ),
            )
            for prefix, width in table.items()
            if have.get(prefix) != width
        ] + [
            (router, f"{name}: {prefix} installed with {have[prefix]} next hops, the design has no such route")
            for prefix in sorted(have)
            if prefix not in table and prefix not in own
        ]
        complete += not wrong
        problems += wrong
    return complete, problems


def read_routes(
    namespaces: list[str],
    pending: list[int],
    expected: dict[int, dict[str, int]],
    installed: dict[int, dict[str, int]],
    everything: bool,
) -> None:
    """Read the kernel routes of ``pending`` routers into ``installed``, a few at a time; unless ``everything``,
    stop after the first few that include a router not right yet (while a lab converges, that keeps the reads
    to a handful per poll instead of one per router)."""
    for first in range(0, len(pending), WORKERS):
        chunk = pending[first : first + WORKERS]
        installed.update(zip(chunk, gather([namespaces[router] for router in chunk], kernel_routes), strict=True))
        if not everything and any(
            any(installed[router].get(prefix) != width for prefix, width in expected[router].items())
            for router in chunk
        ):
            return

"""Run a verification: build the lab, converge, assert, inject failures, restore, tear down, report."""

from __future__ import annotations

import os
import sys
import time
from collections import Counter
from ipaddress import ip_network
from pathlib import Path
from typing import Any, NamedTuple

from designer.errors import PrerequisiteError
from designer.readback.built import DESIGN_FILE, Manifest, parse_design, read_inside, read_manifest, read_regular
from designer.targets import config_files
from designer.verify import alerting, cabling, frontend
from designer.verify.cabling import Lldp, audit_lab, cabling_check, lab_cables
from designer.verify.hostconfig import HostConfig
from designer.verify.lab import (
    Lab,
    Progress,
    available_mib,
    check_prerequisites,
    gather,
    seeds_supported,
    sweep_orphans,
)
from designer.verify.probe import (
    Peer,
    advertised,
    bgp_peers,
    extra_peers,
    kernel_routes,
    ping,
    read_routes,
    route_problems,
    session_problems,
    traceroute,
)
from designer.verify.report import VerifyReport, check
from designer.verify.topology import Session, Topology, expected_routes, paths_to, topology
from designer.verify.traffic import (
    Model,
    configure_hosts,
    experiments,
    host_checks,
    host_configs,
    host_files,
    model,
    modes_not_run,
    sample,
)
from designer.verify.traffic import prerequisites as traffic_prerequisites

POLL_SECONDS = 0.5
FOREIGN_PREFIXES = ("198.51.100.0/24", "203.0.113.0/24", "192.0.2.0/24")
"""RFC 5737's documentation networks: the first outside the design's pools is the prefix a leaf is made to leak."""
LEAK_MAP = "VERIFY-LEAK"
"""The lab-only prefix list and route map that let the leaf send the foreign prefix beside its own, in place of its
own export policy (never anything it learned: the leaf stays no transit)."""
SETTLE_SECONDS = 2.0
"""How long the spines get to take or refuse the leaked prefix once the leaf has sent it."""
MEMORY_SHARE = 0.8
"""The lab may use at most this share of the memory available when it starts."""


def read_output(target: Path, traffic: bool = False, whole: bool = True, monitoring: bool = False) -> dict[str, bytes]:
    """The files of an output folder that a lab needs, each one with the sha256 its ``manifest.json`` records (an
    edited file is an input error, as in ``designer check``). Only regular files are read (a link or a FIFO is an
    input error): ``design.json``, checked here where its path is known, the FRR files of every switch it names
    (its frr.conf and its kernel settings, ``configs/sysctl/<hostname>.conf``), the frontend's switches' frr.conf
    and its servers' BGP (``servers/<server>/frr.conf``) the lab runs and, with ``traffic``, the host files of the
    servers the lab samples; with ``monitoring``, the monitoring files."""
    if not os.path.lexists(target / DESIGN_FILE):
        return {}
    manifest = read_manifest(target)
    files = {DESIGN_FILE: read_regular(target / DESIGN_FILE)}
    manifest.check(files)
    design = parse_design(str(target / DESIGN_FILE), files[DESIGN_FILE])
    files.update(
        _read_listed(
            target,
            manifest,
            [
                relative
                for device in design["devices"]
                if device["role"] != "server"
                for relative, _ in config_files("frr", device["name"])
            ]
            + [
                relative
                for row in frontend.devices(design, whole)
                for relative in (
                    [frontend.host_config(row["name"])]
                    if row["role"] == "server"
                    else [path for path, _ in config_files("frr", row["name"])]
                )
            ],
        )
    )
    if monitoring:
        files.update(
            _read_listed(target, manifest, sorted(path for path in manifest.hashes if path.startswith("monitoring/")))
        )
    if traffic:
        servers: dict[str, list[str]] = {}
        for nic in sample(design, topology(files, whole)):
            servers.setdefault(nic.server, []).append(nic.name)
        files.update(
            _read_listed(
                target,
                manifest,
                [path for server, names in sorted(servers.items()) for path in host_files(server, names)],
            )
        )
    return files


def _read_listed(target: Path, manifest: Manifest, relatives: list[str]) -> dict[str, bytes]:
    """Each of ``relatives`` that exists below ``target``, read without following links, once all have the sha256
    ``manifest`` records."""
    files = {
        relative: read_inside(target, tuple(relative.split("/")))
        for relative in relatives
        if os.path.lexists(target / relative)
    }
    manifest.check(files)
    return files


def stderr_progress() -> Progress:
    """Progress lines on stderr, with the seconds since the start."""
    start = time.monotonic()

    def show(message: str) -> None:
        print(f"[{time.monotonic() - start:6.1f}s] {message}", file=sys.stderr, flush=True)

    return show


def default_timeout(lab: Topology) -> float:
    """Seconds a phase may take to converge: generous for FRR on two cores, bounded by the lab's size."""
    return 60.0 + 1.0 * len(lab.routers)


def verify(
    files: dict[str, bytes],
    whole: bool = True,
    failures: bool = True,
    timeout: float | None = None,
    progress: Progress | None = None,
    traffic: bool = False,
    monitoring: bool = False,
) -> VerifyReport:
    """Verify the build in ``files`` in a lab of real FRR routers; the report says what passed and failed. With
    ``traffic``, sampled servers get namespaces of their own and RoCEv2 flows prove hosts and hashing
    (:mod:`designer.verify.traffic`); with ``monitoring``, the design's alert rules run in a real Prometheus over
    the routers' exporters (:mod:`designer.verify.alerting`)."""
    progress = progress or stderr_progress()
    lab = topology(files, whole)
    check_prerequisites()
    if monitoring:
        alerting.prerequisites(files)
    hosts, configs, flow_model = [], {}, None
    design = parse_design(DESIGN_FILE, files[DESIGN_FILE])
    if traffic:
        traffic_prerequisites()
        hosts = sample(design, lab)
        configs = host_configs(files, hosts)
        flow_model = model(design, hosts)
    needed = _memory_needed(lab, whole)
    report = VerifyReport(lab.name, lab.coverage, len(lab.routers), len(lab.wires), needed, lab.design_width())
    sweep_orphans(progress)
    limit = timeout or default_timeout(lab)
    lldp: Lldp | None = None
    with Lab(lab, progress, hosts) as running:
        if cabling.installed():
            lldp = Lldp(running)
            lldp.start()
        else:
            report.not_covered.append(f"cabling: lldpd is not installed ({cabling.INSTALL})")
        _load_configs(running, report, configs if traffic else None)
        _kernel_settings(running, report)
        healthy = _phase(running, report, "healthy", frozenset(), limit)
        report.measured_mib = running.memory_mib()
        if lldp:
            cables = lab_cables(running, design)
            progress(f"cabling: {len(cables)} cables as lldpd reports them in {len(lldp.spaces)} namespaces")
            report.checks.append(cabling_check(lab.name, audit_lab(lldp, cables, limit)))
        if traffic and flow_model is not None:
            _traffic(running, report, design, flow_model, healthy)
        if healthy:
            _foreign_prefix(running, report, limit)
        if failures:
            _inject_failures(running, report, healthy, limit)
        if monitoring:
            _monitoring(running, report, files, healthy, limit)
    if lldp:
        lldp.reap()
    progress("verification " + ("passed" if report.passed else "FAILED"))
    return report


def _monitoring(running: Lab, report: VerifyReport, files: dict[str, bytes], healthy: bool, limit: float) -> None:
    """The design's alert rules in a real Prometheus over the routers' exporters, the first failure target down and
    back (:func:`designer.verify.alerting.watch_alerts`); skipped unless the healthy fabric converged."""
    if not healthy:
        report.not_covered.append("monitoring: skipped because the healthy fabric did not converge")
        return
    lab = running.topology
    target = failure_targets(lab)[0]
    running.progress(f"monitoring: the design's rules in Prometheus, {lab.routers[target].name} down and back")
    report.checks.extend(alerting.watch_alerts(running, files, target, limit))


def _memory_needed(lab: Topology, whole: bool) -> int:
    """The MiB the lab needs; :class:`PrerequisiteError` when that is more than the machine may give it."""
    needed, available = lab.memory_mib(), available_mib()
    if needed > MEMORY_SHARE * available:
        hint = "" if not whole else "; use --slice to verify a representative part of the fabric"
        raise PrerequisiteError(
            f"the lab of {lab.coverage} needs about {needed:,} MiB but only {available:,} MiB "
            f"are available (at most {MEMORY_SHARE:.0%} may be used){hint}"
        )
    return needed


def _load_configs(running: Lab, report: VerifyReport, servers: dict[str, HostConfig] | None) -> None:
    """Configure the sampled servers from their host files (``servers``; None: no traffic), then load every
    router's frr.conf, recording both checks."""
    lab = running.topology
    if servers is not None:
        nics = len(running.hosts)
        running.progress(f"configuring {len(servers)} servers ({nics} NICs) from their host files")
        report.checks.append(
            check(
                "healthy",
                "server host files applied",
                f"{nics} NICs of {len(servers)} servers",
                configure_hosts(running, servers),
            )
        )
        running.count_roce()
    refused = running.load_configs()
    report.checks.append(
        check(
            "healthy",
            "configs loaded",
            f"{len(lab.routers) - len(refused)} of {len(lab.routers)} routers took their frr.conf",
            refused,
        )
    )


def _traffic(running: Lab, report: VerifyReport, design: dict[str, Any], flow_model: Model, healthy: bool) -> None:
    """The servers' checks and the RoCEv2 experiments, on a fabric that converged."""
    if not healthy:
        report.not_covered.append("traffic: skipped because the healthy fabric did not converge")
        return
    running.progress(f"traffic: {len(running.hosts)} server NICs; {len(flow_model.flows.src)} flows per experiment")
    report.checks += host_checks(running, "healthy")
    checks, experiments_run, skipped = experiments(running, flow_model)
    report.checks += checks
    report.traffic += experiments_run
    report.not_covered += skipped + modes_not_run(design)


def _inject_failures(running: Lab, report: VerifyReport, healthy: bool, limit: float) -> None:
    """Take each failure target's links down, then back up, each a phase of its own; skipped unless the healthy
    fabric converged."""
    if not healthy:
        report.not_covered.append("failure injection: skipped because the healthy fabric did not converge")
        return
    lab = running.topology
    for target in failure_targets(lab):
        name = lab.routers[target].name
        running.progress(f"failure: all {sum(target in (w.upper, w.lower) for w in lab.wires)} links of {name} down")
        running.set_links(target, up=False)
        _phase(running, report, f"{name} down", frozenset({target}), limit)
        running.set_links(target, up=True)
        _phase(running, report, f"{name} restored", frozenset(), limit)


def _kernel_settings(running: Lab, report: VerifyReport) -> None:
    """Every router's own ``configs/sysctl/<hostname>.conf`` written in its namespace and read back; what could
    not be applied is listed as not covered."""
    lab = running.topology
    missing = [router.name for router, settings in zip(lab.routers, lab.sysctls, strict=True) if settings is None]
    if missing:
        report.not_covered.append(
            f"kernel settings: {len(missing)} router(s) have no configs/sysctl file, e.g. "
            f"{missing[0]}; they hash with the kernel's defaults"
        )
    if not seeds_supported():
        report.not_covered.append(
            f"kernel settings: this kernel ({os.uname().release}) has no "
            "net.ipv4.fib_multipath_hash_seed (Linux 6.11+); the files' seeds were not applied"
        )
    applied = len(lab.routers) - len(missing)
    if applied:
        running.apply_kernel()
        report.checks.append(
            check(
                "healthy",
                "kernel settings loaded",
                f"{applied} of {len(lab.routers)} routers "
                "run their configs/sysctl file: every value read back from /proc/sys in the "
                "router's namespace equals the file's",
                running.kernel_problems(),
            )
        )


def foreign_prefix(lab: Topology) -> str:
    """A prefix outside every pool of the design (and every address of the lab)."""
    taken = [ip_network(prefix) for prefix in lab.pools]
    taken += [ip_network(prefix) for router in lab.routers for prefix in (*router.announces, f"{router.loopback}/32")]
    return next(prefix for prefix in FOREIGN_PREFIXES if not any(ip_network(prefix).overlaps(other) for other in taken))


def _foreign_prefix(running: Lab, report: VerifyReport, limit: float) -> None:
    """Make the first leaf announce a prefix outside the design's pools past its own export policy (a lab-only
    route map in place of it, on every session, that adds the prefix to the leaf's own), wait until it has sent
    the prefix to each spine, then check that no other router installed it: the spines' import policy refused
    it. The leak stays for the phases after, so their routing tables prove it stays refused while spines and
    super-spines fail."""
    lab, progress = running.topology, running.progress
    leaf = lab.leaves()[0]
    name, prefix = lab.routers[leaf].name, foreign_prefix(lab)
    peers = [session.peer_address for session in lab.sessions() if session.router == leaf]
    progress(f"route policy: {name} announces {prefix}, outside the design's pools, on its {len(peers)} sessions")
    refused = running.configure(
        leaf,
        [
            *(
                f"ip prefix-list {LEAK_MAP} seq {number * 10} permit {leaked}"
                for number, leaked in enumerate((prefix, *lab.prefixes(leaf)), 1)
            ),
            f"route-map {LEAK_MAP} permit 10",
            f"match ip address prefix-list {LEAK_MAP}",
            "exit",
            f"router bgp {lab.routers[leaf].asn}",
            "no bgp network import-check",
            "address-family ipv4 unicast",
            f"network {prefix}",
            *(f"neighbor {peer} route-map {LEAK_MAP} out" for peer in peers),
        ],
    )
    start, unsent = time.monotonic(), peers
    while not refused and unsent and time.monotonic() - start < limit:
        time.sleep(POLL_SECONDS)
        unsent = [peer for peer in peers if prefix not in advertised(running.vtysh(leaf), peer)]
    time.sleep(SETTLE_SECONDS)
    holders = [
        lab.routers[router].name
        for router, routes in enumerate(gather(running.namespaces, kernel_routes))
        if router != leaf and prefix in routes
    ]
    problems = [f"{name}: the leak was not configured: {refused}"] if refused else []
    problems += [f"{name} never sent {prefix} to {peer}" for peer in unsent]
    problems += [f"{holder} installed {prefix}, which its import policy should refuse" for holder in holders]
    report.checks.append(
        check(
            "healthy",
            "foreign prefix refused",
            f"{name} sent {prefix} (outside the pools) on {len(peers) - len(unsent)} of its {len(peers)} sessions "
            f"to spines; {len(holders)} routers installed it",
            problems,
        )
    )


def failure_targets(lab: Topology) -> list[int]:
    """The routers failed one at a time: the lab's first spine and, with 3 tiers, its first super-spine; with the
    frontend in the lab, its first leaf (one of a dual-homed pair)."""
    targets = []
    for role in ("spine", "super_spine"):
        first = next((index for index, router in enumerate(lab.routers) if router.role == role), None)
        if first is not None:
            targets.append(first)
    return targets + lab.frontend("leaf")[:1]


def sample_pairs(lab: Topology) -> list[tuple[int, int]]:
    """Leaf pairs for ping and traceroute: the first leaf to the last leaf of its pod and to a leaf of the next
    (planes are separate fabrics, so both in the first leaf's plane)."""
    source = lab.leaves()[0]
    plane, pod = lab.routers[source].plane, lab.routers[source].pod
    leaves = [leaf for leaf in lab.leaves() if lab.routers[leaf].plane == plane]
    pairs = [(source, next(leaf for leaf in reversed(leaves) if lab.routers[leaf].pod == pod))]
    pairs += [(source, leaf) for leaf in leaves if lab.routers[leaf].pod != pod][:1]
    return [(a, b) for a, b in pairs if a != b]


class _Converged(NamedTuple):
    """What a phase's wait for convergence read last: the sessions and routes the design expects, what bgpd and the
    kernel showed, what is not right yet (session issues None: bgpd never read), and whether it converged."""

    sessions: list[Session]
    expected: dict[int, dict[str, int]]
    peers: dict[int, dict[str, Peer]]
    complete: int
    route_issues: list[tuple[int, str]]
    good: int
    session_issues: list[tuple[int, str]] | None
    counted: int
    """The session ends of the running routers."""
    seconds: float | None
    """When every table and session was first right (None: never, or not confirmed by the round after)."""


def _phase(running: Lab, report: VerifyReport, phase: str, failed: frozenset[int], limit: float) -> bool:
    """Wait (bounded) until sessions and routes are as the design says for this phase, then record the checks."""
    lab = running.topology
    state = _converge(running, phase, failed, limit)
    report.converged_seconds[phase] = state.seconds
    report.checks.append(
        check(
            phase,
            "bgp sessions",
            _session_summary(lab, state.sessions, failed, state.good, state.counted),
            [problem for _, problem in state.session_issues or []],
        )
    )
    report.checks.append(
        check(
            phase,
            "kernel routes",
            _route_summary(lab, state.expected, failed, state.complete),
            [problem for _, problem in state.route_issues],
        )
    )
    if not failed and phase == "healthy":
        not_covered, unexpected = extra_peers(lab, state.sessions, state.peers)
        report.not_covered.extend(not_covered)
        report.checks.append(
            check(
                phase,
                "neighbors match the cabling",
                f"{len(unexpected)} BGP neighbors configured beyond the design's links",
                unexpected,
            )
        )
    _reachability(running, report, phase, failed)
    if lab.frontend("server"):
        _frontend_reachability(running, report, phase, failed)
    return state.seconds is not None


def _converge(running: Lab, phase: str, failed: frozenset[int], limit: float) -> _Converged:
    """Read the kernel's routes and bgpd's sessions, round after round for at most ``limit`` seconds, until both are
    as the design says for the phase (``failed``: the routers down) and one more round confirms it."""
    lab, progress = running.topology, running.progress
    sessions = lab.sessions()
    expected = expected_routes(lab, failed)
    live = [router for router in range(len(lab.routers)) if router not in failed]
    counted = sum(session.router not in failed for session in sessions)
    peers: dict[int, dict[str, Peer]] = {}
    installed: dict[int, dict[str, int]] = {}
    route_pending, session_pending = live, live
    session_issues: list[tuple[int, str]] | None = None
    good = 0
    start = time.monotonic()
    rounds, converged, confirmed = 0, None, False
    while True:
        # Kernel routes are read without disturbing FRR, and only up to the first routers not right yet; bgpd,
        # which answers slowly while it converges, is read once every routing table is right (or time is up).
        # Once all are right, one more round reads every router to confirm.
        rounds += 1
        out_of_time = time.monotonic() - start >= limit or rounds >= limit / POLL_SECONDS + 1
        if out_of_time:
            # the last round reads every router: one that was right earlier may have taken a route since
            route_pending, session_pending = live, live
        read_routes(running.namespaces, route_pending, expected, installed, out_of_time or converged is not None)
        complete, route_issues = route_problems(lab, expected, installed)
        if not route_issues or out_of_time:
            peers.update(
                zip(
                    session_pending,
                    gather([running.vtysh(router) for router in session_pending], bgp_peers),
                    strict=True,
                )
            )
            good, session_issues = session_problems(lab, sessions, peers, failed)
        elapsed = time.monotonic() - start
        progress(
            f"{phase}: {complete}/{len(live)} routing tables complete, "
            + (f"{good}/{counted} session ends as designed" if session_issues is not None else "BGP read once they are")
            + f" ({elapsed:.1f} s)"
        )
        if route_issues or session_issues is None or session_issues:
            converged = None
            route_pending = sorted({router for router, _ in route_issues})
            if session_issues is not None:
                session_pending = sorted({router for router, _ in session_issues})
        elif converged is None:
            converged, route_pending, session_pending = elapsed, live, live
        else:
            confirmed = True
            break
        if out_of_time:
            break
        time.sleep(POLL_SECONDS)
    seconds = converged if confirmed else None
    return _Converged(sessions, expected, peers, complete, route_issues, good, session_issues, counted, seconds)


def frontend_sources(lab: Topology, failed: frozenset[int] = frozenset()) -> list[int]:
    """Where the frontend's servers are reached from: its border leaves (toward the core), or its first spine when
    it declares none."""
    return [router for router in lab.frontend("border_leaf") or lab.frontend("spine")[:1] if router not in failed]


def _frontend_reachability(running: Lab, report: VerifyReport, phase: str, failed: frozenset[int]) -> None:
    """Ping every frontend server's loopback (what it announces over both its links) from each source's loopback."""
    lab = running.topology
    sources = frontend_sources(lab, failed)
    pairs = [(source, server) for source in sources for server in lab.frontend("server") if server not in failed]
    answered = gather(
        pairs,
        lambda pair: ping(running.namespaces[pair[0]], lab.routers[pair[0]].loopback, lab.routers[pair[1]].loopback),
    )
    problems = [
        f"{lab.routers[source].name} ({lab.routers[source].loopback}) -> {lab.routers[server].name} "
        f"({lab.routers[server].loopback}): no reply"
        for (source, server), answer in zip(pairs, answered, strict=True)
        if not answer
    ]
    names = ", ".join(lab.routers[source].name for source in sources) or "nowhere"
    report.checks.append(
        check(
            phase,
            "frontend servers reachable",
            f"{len(pairs) - len(problems)} of {len(pairs)} pings from {names} to every frontend server's loopback "
            "answered",
            problems if sources else ["no border leaf or spine of the frontend is up to ping from"],
        )
    )


def _session_summary(lab: Topology, sessions: list[Session], failed: frozenset[int], good: int, counted: int) -> str:
    if not failed:
        return (
            f"{good} of {counted} session ends Established with the designed peer ASNs ({counted // 2} "
            "sessions, seen from both routers)"
        )
    names = ", ".join(lab.routers[router].name for router in sorted(failed))
    towards = sum(session.peer in failed and session.router not in failed for session in sessions)
    return f"{good} of {counted} session ends as designed: {towards} towards {names} down, the others Established"


def _route_summary(lab: Topology, expected: dict[int, dict[str, int]], failed: frozenset[int], complete: int) -> str:
    leaves = [router for router in lab.leaves() if router not in failed]
    text = (
        f"{complete} of {len(expected)} routers hold every other leaf's loopback and server subnets and the "
        "switch loopbacks a valley-free path leads to, with the expected ECMP width, and no other BGP route"
    )
    if not failed:
        towards_leaves = {prefix for leaf in lab.leaves() for prefix in lab.prefixes(leaf)}
        widths = sorted(
            {width for leaf in leaves for prefix, width in expected[leaf].items() if prefix in towards_leaves}
        )
        return f"{text}; leaf widths {'/'.join(map(str, widths))}"
    healthy = expected_routes(lab)
    shrink = Counter(
        (healthy[router][prefix], width)
        for router, table in expected.items()
        for prefix, width in table.items()
        if healthy[router].get(prefix) != width
    )
    changes = ", ".join(f"{before} -> {after} on {count} routes" for (before, after), count in sorted(shrink.items()))
    return f"{text}; ECMP shrinks {changes or 'nowhere'}"


def _reachability(running: Lab, report: VerifyReport, phase: str, failed: frozenset[int]) -> None:
    """Ping and traceroute between sampled leaf loopbacks; the hop count is the shortest path's."""
    lab = running.topology
    up, down = lab.neighbors()
    pings, traces = [], []
    pairs = sample_pairs(lab)
    for source, target in pairs:
        a, b = lab.routers[source], lab.routers[target]
        where = f"{a.name} ({a.loopback}) -> {b.name} ({b.loopback})"
        if not ping(running.namespaces[source], a.loopback, b.loopback):
            pings.append(f"{where}: no reply")
        hops_expected = paths_to(lab, target, failed, up, down)[0][source]
        hops = traceroute(running.namespaces[source], a.loopback, b.loopback, (hops_expected or 4) + 2)
        if not hops or hops[-1] != b.loopback or len(hops) != hops_expected:
            traces.append(
                f"{where}: {len(hops)} hops ({' '.join(hops)}), expected {hops_expected} ending at {b.loopback}"
            )
    report.checks.append(
        check(phase, "ping", f"{len(pairs) - len(pings)} of {len(pairs)} sampled leaf loopback pairs answer", pings)
    )
    report.checks.append(
        check(
            phase,
            "traceroute",
            f"{len(pairs) - len(traces)} of {len(pairs)} sampled paths have the expected hop count",
            traces,
        )
    )

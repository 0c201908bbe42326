"""``designer verify`` of an InfiniBand design: the fabric it describes simulated by ibsim, brought up by the real
OpenSM with the build's ``opensm.conf`` and ``partitions.conf``, and read back with infiniband-diags.

Healthy: the subnet up and routed by ``ftree`` (OpenSM's log, opensm/osm_ucast_mgr.c), every HCA with a LID
(``ibnetdiscover``), every leaf's linear forwarding table (``dump_fts``) sending the other leaves' HCAs out of its
uplinks evenly, as the Ethernet ECMP check asks. Then the root GUID file written from the simulated discovery (as
``designer audit --sm-files`` writes it), the first top switch removed, a new sweep still by ``ftree`` and every HCA
pair routed hop by hop through the tables. Each plane is a subnet of its own, run by its own subnet manager: plane 0
is verified, sliced when it is beyond ibsim's limits (:data:`MAX_SWITCHES`, :data:`MAX_PORTS`), and the report says
what was left out.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from designer.backend.wiring import Device
from designer.errors import PrerequisiteError
from designer.infiniband.ibnetdiscover import DesignNames, named, parse
from designer.infiniband.sm_files import ROOTS, TOP, sm_files
from designer.readback.built import read_manifest, read_regular
from designer.verify.ibsim import first_hca, net_file
from designer.verify.report import Check, VerifyReport, check

TOOLS = ("ibsim", "ibsim-run", "opensm", "ibnetdiscover", "dump_fts")
INSTALL = (
    "install Debian's ibsim-utils, opensm and infiniband-diags (apt-get install ibsim-utils opensm infiniband-diags)"
)
MAX_SWITCHES, MAX_PORTS = 256, 13_312
"""The most switches and ports ibsim simulates in one fabric (ibsim/sim.h, MAXNETSWITCHES and MAXNETPORTS)."""
COMMAND_SECONDS = 300
Peers = dict[tuple[int, int], tuple[int, int]]
"""Each cable end (node GUID, port) to the end at its other side."""
Tables = dict[int, dict[int, int]]
"""Each switch's linear forwarding table by node GUID: destination LID to output port."""


FILES = ("configs/opensm/opensm.conf", "configs/opensm/partitions.conf")
"""The build's files the subnet manager runs with."""


def read_subnet_files(folder: Path) -> dict[str, bytes]:
    """The subnet manager's files of the build in ``folder``, each as its manifest records it."""
    files = {relative: read_regular(folder / relative) for relative in FILES}
    read_manifest(folder).check(files)
    return files


def sliced(devices: Sequence[Device], design: DesignNames, limits: tuple[int, int]) -> tuple[DesignNames, list[str]]:
    """The part of the design ibsim runs within ``limits`` (switches, ports) and what it leaves out, in words: plane
    0 (each plane is a subnet of its own), whole if it fits; else pod 0 without the super-spines (a fat tree of its
    own, its spines the roots), with as many of its first scalable units as fit, every spine of the pod kept."""
    planes = max(device.plane for device in devices) + 1
    others = "plane 1" if planes == 2 else f"planes 1 to {planes - 1}"
    left = [f"{others}: the same fabric as plane 0, each a subnet of its own"] if planes > 1 else []
    whole = {device.name for device in devices if device.role == "server" or device.plane == 0}
    part = _kept(design, whole)
    if _fits(part, limits):
        return part, left
    sus = sorted({device.su for device in devices if device.role == "leaf" and device.plane == 0 and device.pod == 0})
    pods = max(device.pod for device in devices) + 1
    for count in range(len(sus), 0, -1):
        keep = {
            device.name
            for device in devices
            if (device.role == "server" and device.su < count)
            or (device.plane == 0 and device.pod == 0 and device.role == "spine")
            or (device.plane == 0 and device.role == "leaf" and device.su < count)
        }
        part = _kept(design, keep)
        if _fits(part, limits):
            beyond = [f"pods 1 to {pods - 1} and the super-spines" if pods > 1 else ""]
            beyond += [f"scalable units {count} to {len(sus) - 1}" if count < len(sus) else ""]
            what = " and ".join(filter(None, beyond))
            return part, [*left, f"{what}: beyond ibsim's {limits[0]} switches and {limits[1]:,} ports"]
    raise PrerequisiteError(
        f"not even one scalable unit of one plane fits ibsim's {limits[0]} switches and {limits[1]:,} ports"
    )


def _kept(design: DesignNames, keep: set[str]) -> DesignNames:
    return replace(
        design,
        roles={name: role for name, role in design.roles.items() if name in keep},
        ports={name: ports for name, ports in design.ports.items() if name in keep},
        vendor_ports={name: ports for name, ports in design.vendor_ports.items() if name in keep},
        peers={end: peer for end, peer in design.peers.items() if end[0] in keep and peer[0] in keep},
    )


def _fits(design: DesignNames, limits: tuple[int, int]) -> bool:
    switches = [name for name, role in design.roles.items() if role != "server"]
    return (
        len(switches) <= limits[0]
        and sum(map(len, (design.ports[name] for name in switches))) + _hcas(design) <= limits[1]
    )


def _hcas(design: DesignNames) -> int:
    """The HCAs cabled in ``design``: each server end of a cable."""
    return sum(design.roles[device] == "server" for device, _ in design.peers)


def verify_subnet(
    name: str,
    design: DesignNames,
    devices: Sequence[Device],
    files: dict[str, bytes],
    limits: tuple[int, int] = (MAX_SWITCHES, MAX_PORTS),
) -> VerifyReport:
    """Verify the InfiniBand design ``name`` (``design``'s names, its fabric's ``devices``, its built ``files``)
    under ibsim and OpenSM, as much of it as fits ``limits`` (:func:`sliced`); raises :class:`PrerequisiteError`
    when a tool is missing."""
    if missing := [tool for tool in TOOLS if shutil.which(tool) is None]:
        raise PrerequisiteError(f"designer verify of an InfiniBand design needs {', '.join(missing)}: {INSTALL}")
    plane, left = sliced(devices, design, limits)
    switches = sum(role != "server" for role in plane.roles.values())
    hcas = _hcas(plane)
    report = VerifyReport(
        name,
        f"{'the whole fabric' if not left else 'a slice'}: {switches} switches, {hcas:,} HCAs",
        switches,
        len(plane.peers) // 2,
        0,
        0,
        lab="InfiniBand under ibsim, routed by OpenSM with configs/opensm/opensm.conf and partitions.conf",
        not_covered=left,
    )
    with tempfile.TemporaryDirectory(prefix="designer-ib-") as work, simulated(plane, Path(work)) as (env, console):
        folder = Path(work)
        for relative in FILES:
            (folder / Path(relative).name).write_bytes(files[relative])
        conf = folder / "opensm.conf"
        started = time.monotonic()
        routed = sweep(env, conf, folder / "partitions.conf", folder / "healthy.log")
        report.converged_seconds["healthy"] = time.monotonic() - started
        report.checks.append(check("healthy", "subnet up", f"routed by {routed or 'no engine'}", _ftree(routed)))
        peers, lids, tables = forwarding(env)
        unnamed = hcas - len(lids)
        problems = [f"{unnamed} of {hcas} HCAs have no LID"] if unnamed else []
        report.checks.append(check("healthy", "every HCA has a LID", f"{len(lids):,} HCAs", problems))
        report.checks.append(balance(peers, lids, tables))
        roots = sm_files(named(parse("ibnetdiscover", run(env, "ibnetdiscover")), plane), plane)[ROOTS]
        (folder / ROOTS).write_text(roots)
        with_roots = folder / "with-roots.conf"
        with_roots.write_text(f"{conf.read_text()}root_guid_file {folder / ROOTS}\n")
        top = next(role for role in TOP if role in plane.roles.values())
        gone = min(device for device, role in plane.roles.items() if role == top)
        console(f'Unlink "{gone}"')
        phase = f"{gone} down"
        started = time.monotonic()
        routed = sweep(env, with_roots, folder / "partitions.conf", folder / "failed.log")
        report.converged_seconds[phase] = time.monotonic() - started
        report.checks.append(check(phase, "re-sweep with the root GUID file", f"routed by {routed}", _ftree(routed)))
        peers, lids, tables = forwarding(env)
        problems = unreached(peers, lids, tables)
        pairs = len(lids) * (len(lids) - 1)
        report.checks.append(check(phase, "every HCA pair routed", f"{pairs:,} pairs", problems))
    return report


def _ftree(routed: str) -> list[str]:
    return [] if routed == "ftree" else [f"OpenSM routed with {routed or 'no engine'}, not ftree"]


@contextmanager
def simulated(design: DesignNames, folder: Path) -> Iterator[tuple[dict[str, str], Callable[[str], None]]]:
    """ibsim running the net file of ``design`` (written into ``folder``): the environment under which
    ``ibsim-run`` reaches it, and a function typing one command at its console."""
    (folder / "net").write_text(net_file(design))
    env = dict(
        os.environ,
        IBSIM_SOCKNAME=f"designer-{os.getpid()}-{time.monotonic_ns()}",
        SIM_HOST=first_hca(design),
        OSM_CACHE_DIR=str(folder),
    )
    simulator = subprocess.Popen(
        ["ibsim", "-s", str(folder / "net")],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )

    def console(command: str) -> None:
        assert simulator.stdin is not None
        simulator.stdin.write(f"{command}\n")
        simulator.stdin.flush()
        time.sleep(0.5)

    try:
        for _ in range(600):  # until the simulator answers
            done = subprocess.run(["ibsim-run", "ibnetdiscover"], capture_output=True, env=env, timeout=60)
            if done.returncode == 0:
                break
            time.sleep(0.1)
        yield env, console
    finally:
        simulator.terminate()
        simulator.wait(10)


def run(env: dict[str, str], *command: str) -> str:
    """What ``command`` prints under ``ibsim-run``; a failure is a problem of the machine, not of the design."""
    done = subprocess.run(["ibsim-run", *command], capture_output=True, text=True, env=env, timeout=COMMAND_SECONDS)
    if done.returncode != 0:
        raise PrerequisiteError(f"{' '.join(command)} failed under ibsim: {done.stderr.strip()[-500:]}")
    return done.stdout


def sweep(env: dict[str, str], conf: Path, partitions: Path, log: Path) -> str:
    """One sweep of OpenSM (``opensm -o``) with ``conf`` and ``partitions`` (``-P``: opensm.conf names the file by
    its installed path); the routing engine that configured every switch, empty when none did or the subnet did
    not come up."""
    run(env, "opensm", "-F", str(conf), "-P", str(partitions), "-o", "-f", str(log))
    text = log.read_text()
    engines = re.findall(r"-> osm_ucast_mgr_process: (\S+) tables configured on all switches", text)
    return engines[-1] if engines and "SUBNET UP" in text else ""


def forwarding(env: dict[str, str]) -> tuple[Peers, dict[int, int], Tables]:
    """The fabric as OpenSM set it up, read back from the switches: each cable end's peer over the cables
    ``ibnetdiscover`` finds, each HCA's LID by node GUID, and each switch's forwarding table (``dump_fts``)."""
    text = run(env, "ibnetdiscover")
    discovery = parse("ibnetdiscover", text)
    lids = {
        int(guid, 16): int(lid)
        for guid, lid in re.findall(r'^Ca\s+\d+ "H-([0-9a-f]+)".*\n\[1\].*# lid (\d+) lmc', text, re.M)
    }
    tables: Tables = {}
    for table in run(env, "dump_fts").split("Unicast")[1:]:
        guid = re.search(r"guid (0x[0-9a-f]+)", table)
        if guid:
            tables[int(guid.group(1), 16)] = {
                int(lid, 16): int(port) for lid, port in re.findall(r"^0x([0-9a-f]+) (\d+) :", table, re.M)
            }
    peers = {end: peer for pair in discovery.cables for end, peer in (pair, pair[::-1])}
    return peers, lids, tables


def uplink_spread(peers: Peers, lids: dict[int, int], tables: Tables) -> dict[int, Counter[int]]:
    """Each leaf's (a switch with HCAs) destinations that are not its own HCAs, counted by the port its table sends
    them out of."""
    below: dict[int, set[int]] = {}
    for (node, _), (peer, _) in peers.items():
        if node in lids and peer in tables:
            below.setdefault(peer, set()).add(node)
    return {
        leaf: Counter(tables[leaf].get(lid, 0) for hca, lid in lids.items() if hca not in own)
        for leaf, own in below.items()
    }


def balance(peers: Peers, lids: dict[int, int], tables: Tables) -> Check:
    """The check that every leaf sends the other leaves' HCAs out of all its uplinks, as many out of each (one more
    at most where they do not divide evenly)."""
    problems = []
    spread = uplink_spread(peers, lids, tables)
    for leaf, counts in sorted(spread.items()):
        uplinks = {port for (node, port), (peer, _) in peers.items() if node == leaf and peer not in lids}
        if set(counts) != uplinks:
            problems.append(
                f"leaf 0x{leaf:016x} sends remote HCAs out of ports {sorted(counts)}, not {sorted(uplinks)}"
            )
        elif max(counts.values()) - min(counts.values()) > 1:
            problems.append(
                f"leaf 0x{leaf:016x} sends {min(counts.values())} to {max(counts.values())} HCAs per uplink"
            )
    return check("healthy", "leaf forwarding tables balanced over the uplinks", f"{len(spread)} leaves", problems)


def unreached(peers: Peers, lids: dict[int, int], tables: Tables) -> list[str]:
    """Every HCA pair whose destination is not reached by following the forwarding tables hop by hop."""
    problems = []
    for source in lids:
        for target, lid in lids.items():
            node, hops = peers.get((source, 1), (0, 0))[0], 0
            while node in tables and hops < 8:
                node, hops = peers.get((node, tables[node].get(lid, 0)), (0, 0))[0], hops + 1
            if node != target and source != target:
                problems.append(f"LID {lid} (HCA 0x{target:016x}) is not reached from HCA 0x{source:016x}")
    return problems

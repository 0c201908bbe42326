"""``designer audit --sm-files`` on a discovery of the whole fabric: reading ``ibnetdiscover`` output, naming every
switch by where it sits and every cable in the design's names, comparing them with the design's cables and writing
OpenSM's root GUID file and node-name map. Target: a 131,072-GPU discovery in at most 10 s.

The discovery is the built design's own fabric in ``ibnetdiscover``'s format (a record per node, each switch with the
same node description, as unmanaged switches report; GUIDs numbered in design order): ibsim, which writes the real
thing, holds at most 256 switches. Each run is a fresh process (the installed ``designer`` compiled to bytecode, as
in bench_build.py); ``--write`` replaces the table between the bench_sm_files markers in benchmarks/README.md.

    python benchmarks/bench_sm_files.py [--runs 3] [--sizes 1024 32768 131072] [--write]
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench_reads import measure
from common import INTENT, arguments, compile_designer, each_size, publish, seconds_and_cpu, storage

from designer.backend.wiring import natural
from designer.infiniband.ibnetdiscover import DesignNames
from designer.infiniband.sm_files import design_names

SIZES = (1024, 32768, 131072)


def discovery(design: DesignNames) -> str:
    """``ibnetdiscover`` output of ``design``'s fabric: switch GUIDs from 0x100, HCAs' node GUIDs from 0x10000000."""
    switches = sorted((name for name, role in design.roles.items() if role != "server"), key=natural)
    servers = sorted((name for name, role in design.roles.items() if role == "server"), key=natural)
    guids = {name: 0x100 + number for number, name in enumerate(switches)}
    hcas = {
        (server, f"nic{index}"): 0x10000000 + 2 * (number * len(design.rdma_devices) + index)
        for number, server in enumerate(servers)
        for index in range(len(design.rdma_devices))
    }

    def peer(end: tuple[str, str]) -> str:
        if end in hcas:
            return f'"H-{hcas[end]:016x}"[1]'
        return f'"S-{guids[end[0]]:016x}"[{list(design.ports[end[0]]).index(end[1]) + 1}]'

    lines = ["#", "# Topology file: the design's fabric, as ibnetdiscover prints it", "#", ""]
    for switch in switches:
        lines.append(f'Switch\t{len(design.ports[switch])} "S-{guids[switch]:016x}"\t\t# "MF0;switch:MQM9790/U1"')
        lines.extend(
            f"[{number}]\t{peer(design.peers[switch, name])}"
            for number, name in enumerate(design.ports[switch], 1)
            if (switch, name) in design.peers
        )
        lines.append("")
    for (server, nic), guid in hcas.items():
        device = design.rdma_devices[int(nic.removeprefix("nic"))]
        lines += [
            f'Ca\t1 "H-{guid:016x}"\t\t# "{server} {device}"',
            f"[1]({guid + 1:x}) \t{peer(design.peers[server, nic])}",
            "",
        ]
    return "\n".join(lines)


def bench(gpus: int, runs: int, work: Path) -> dict[str, Any]:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus))
    output, found, target = work / f"out-{gpus}", work / f"ibnetdiscover-{gpus}.txt", work / f"sm-{gpus}"
    designer = [sys.executable, "-m", "designer.cli"]
    subprocess.run([*designer, "build", str(intent), "-o", str(output)], check=True, capture_output=True)
    design = design_names(output)
    found.write_text(discovery(design))
    timings = [measure([*designer, "audit", str(output), str(found), "--sm-files", str(target)]) for _ in range(runs)]
    shutil.rmtree(output)
    return {
        "gpus": gpus,
        "switches": sum(role != "server" for role in design.roles.values()),
        "cables": len(design.peers) // 2,
        "discovery_mib": found.stat().st_size / (1 << 20),
        "seconds": statistics.median(timing["seconds"] for timing in timings),
        "cpu_seconds": statistics.median(timing["cpu_seconds"] for timing in timings),
        "peak_mib": max(timing["peak_mib"] for timing in timings),
    }


def table(rows: list[dict[str, Any]], runs: int) -> str:
    head = (
        f"Median of {runs} runs, each a fresh process, on {platform.machine()} with Python "
        f"{platform.python_version()} and {os.cpu_count()} CPUs, writing to {storage()}.\n\n"
        "| GPUs | switches | cables | discovery (MiB) | audit --sm-files (s) | CPU (s) | peak memory (MiB) |\n"
        "|---:|---:|---:|---:|---:|---:|---:|"
    )
    body = [
        f"| {row['gpus']:,} | {row['switches']:,} | {row['cables']:,} | {row['discovery_mib']:.1f} | "
        f"{row['seconds']:.2f} | {row['cpu_seconds']:.2f} | {row['peak_mib']:.0f} |"
        for row in rows
    ]
    return "\n".join([head, *body])


def main() -> None:
    args = arguments(__doc__ or "", SIZES)
    compile_designer()
    publish(table(each_size(bench, args, seconds_and_cpu), args.runs), "bench_sm_files", args.write)


if __name__ == "__main__":
    main()

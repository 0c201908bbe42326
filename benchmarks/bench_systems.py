"""Time `designer build` of GB300 NVL72 designs of 1,820 systems (131,040 GPUs) against the 131,072-GPU DGX H100
build of bench_build.py, per link: a rack-scale design must cost no more time per link than a server design.

Two GB300 designs, both on 64 x 800G SN5600 switches in 3 tiers, the trays' 4 x 800G ConnectX-8 ports cabled to
leaves:

* NVIDIA's Spectrum-X reference: each ConnectX-8 port split into 2 planes of 400G with the NIC balancing them
  (``multiplane: {planes: 2, mode: hwplb}``, the mode Spectrum-X RA 2.3 recommends), the switches run as
  128 x 400G like the DGX build's, so it has as many servers, files and switch ports per link;
* each port at 800G in one of 2 fabric planes (``fabric.planes: 2``): 64-port switches, so twice the switches
  and the trays per link of the DGX build, and each one's fixed cost twice per link.

Each run is a fresh process (``bench_build.measure``) and the designs take turns (one build of each per round, so
that all meet the same machine state); the table reports medians of ``--runs`` runs, wall and CPU (the build and
its workers), and the ratios of time per link. ``--systems`` sets the size (the DGX build has as many GPUs,
rounded up to a multiple of 1,024). ``--write`` replaces the table in benchmarks/README.md between its
bench_systems markers. Run it on a memory file system (``TMPDIR=/dev/shm``), as the build table: on this
machine's ext4 disk, creating files right after deleting many costs several times more system time, which falls on
the design with more files.

    TMPDIR=/dev/shm python benchmarks/bench_systems.py [--runs 1] [--systems 1820] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from bench_build import measure
from common import INTENT, compile_designer, publish, storage

GB300_MULTIPLANE = """\
name: bench-gb300-multiplane
compute: {{system: gb300-nvl72, systems: {systems}, multiplane: {{planes: 2, mode: hwplb}}}}
fabric:
  leaf: {{model: nvidia-sn5600}}
addressing: {{fabric_p2p: 10.0.0.0/12, server_p2p: 10.16.0.0/12, loopbacks: 10.255.0.0/16}}
"""
"""GB300 NVL72 racks whose ConnectX-8 ports each serve 2 planes of 400G (hwplb): ``{systems}`` sets the size."""
GB300_800G = """\
name: bench-gb300-800g
compute: {{system: gb300-nvl72, systems: {systems}}}
fabric:
  planes: 2
  leaf: {{model: nvidia-sn5600}}
addressing: {{fabric_p2p: 10.0.0.0/12, server_p2p: 10.16.0.0/12, loopbacks: 10.255.0.0/16}}
"""
"""GB300 NVL72 racks whose ConnectX-8 ports run at 800G, half the rails in each of 2 fabric planes."""
SYSTEM_GPUS = 72
SYSTEMS = 1820
"""The size of the target: 1,820 racks, 32,760 trays, 131,040 GPUs."""


def designs(systems: int) -> dict[str, str]:
    """Each design's name and intent text at ``systems`` GB300 systems, the DGX build first (as many GPUs, rounded
    up to a multiple of 1,024: 131,072 at the target's size)."""
    gpus = -(-systems * SYSTEM_GPUS // 1024) * 1024
    return {
        f"DGX H100, {gpus:,} GPUs": INTENT.format(gpus=gpus),
        f"GB300 NVL72 x {systems:,}, ConnectX-8 in 2 planes of 400G (hwplb)": GB300_MULTIPLANE.format(systems=systems),
        f"GB300 NVL72 x {systems:,}, 800G ports in 2 fabric planes": GB300_800G.format(systems=systems),
    }


def bench(designs: dict[str, str], runs: int, work: Path) -> dict[str, dict[str, Any]]:
    """Per design (name: intent text): median build time and CPU and peak memory over ``runs`` fresh builds, the
    designs taking turns, and its GPUs and links."""
    plans: dict[str, dict[str, Any]] = {}
    for name, text in designs.items():
        intent = work / f"{len(plans)}.yaml"
        intent.write_text(text)
        plans[name] = {"intent": intent, **json.loads(measure(["plan", str(intent), "--format", "json"])["stdout"])}
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in designs}
    for _ in range(runs):
        for name, plan in plans.items():
            target = work / "out"
            samples[name].append(measure(["build", str(plan["intent"]), "-o", str(target)]))
            shutil.rmtree(target)
    return {
        name: {
            "gpus": plan["gpus"],
            "links": sum(plan["links"].values()),
            "seconds": statistics.median(sample["seconds"] for sample in samples[name]),
            "cpu": statistics.median(sample["cpu"] for sample in samples[name]),
            "peak_mib": max(sample["peak_mib"] for sample in samples[name]),
        }
        for name, plan in plans.items()
    }


def table(rows: dict[str, dict[str, Any]], runs: int) -> str:
    """The Markdown table: per design its links, build time and CPU, time per link and the ratios to the first
    design."""
    first = next(iter(rows.values()))
    per_link, cpu_per_link = first["seconds"] / first["links"], first["cpu"] / first["links"]
    lines = [
        f"Median of {runs} run{'s' if runs != 1 else ''}, each a fresh `designer build` process, the designs in "
        f"turns, on {platform.machine()} with Python {platform.python_version()} and {os.cpu_count()} CPUs, writing "
        f"to {storage()}; CPU is user and system time of the build and its workers.",
        "",
        "| design | GPUs | links | build (s) | us per link | per link / DGX | build CPU (s) | CPU per link / DGX "
        "| peak memory (MiB) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in rows.items():
        own = row["seconds"] / row["links"]
        lines.append(
            f"| {name} | {row['gpus']:,} | {row['links']:,} | {row['seconds']:.2f} | {own * 1e6:.1f} | "
            f"{own / per_link:.2f}x | {row['cpu']:.2f} | {row['cpu'] / row['links'] / cpu_per_link:.2f}x | "
            f"{row['peak_mib']:,.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--systems", type=int, default=SYSTEMS, help="GB300 NVL72 systems (default: %(default)s)")
    parser.add_argument("--write", action="store_true", help="replace the table in benchmarks/README.md")
    args = parser.parse_args()
    compile_designer()
    with tempfile.TemporaryDirectory() as folder:
        rows = bench(designs(args.systems), args.runs, Path(folder))
    publish(table(rows, args.runs), "bench_systems", args.write)


if __name__ == "__main__":
    main()

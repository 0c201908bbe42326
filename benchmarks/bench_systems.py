"""Time `designer build` of a GB300 NVL72 design of 1,820 systems (131,040 GPUs) against the 131,072-GPU DGX H100
build of bench_build.py, per link: a rack-scale design must cost no more time per link than a server design.

The GB300 trays carry 4 x 800G ConnectX-8 each; 64 x 800G SN5600 switches hold 65,536 NIC ports per plane in 3
tiers, so the 131,040 ports run as 2 planes of 2 rails. Each run is a fresh process (``bench_build.measure``) and
the two designs take turns (one build of each per round, so that both meet the same machine state); the table
reports medians of ``--runs`` runs, wall and CPU (the build and its workers), and the ratios of time per link.
``--write`` replaces the table in benchmarks/README.md between its bench_systems markers. Run it on a memory file
system (``TMPDIR=/dev/shm``), as the build table: on this machine's ext4 disk, creating files right after deleting
many costs several times more system time, which falls on the design with more files.

    TMPDIR=/dev/shm python benchmarks/bench_systems.py [--runs 1] [--write]
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

GB300 = """\
name: bench-gb300
compute: {system: gb300-nvl72, systems: 1820}
fabric:
  planes: 2
  leaf: {model: nvidia-sn5600}
addressing: {fabric_p2p: 10.0.0.0/12, server_p2p: 10.16.0.0/12, loopbacks: 10.255.0.0/16}
"""
"""1,820 GB300 NVL72 racks: 32,760 trays, 131,040 GPUs and as many 800G NIC ports in 2 planes."""
DESIGNS = {"DGX H100, 131,072 GPUs": INTENT.format(gpus=131072), "GB300 NVL72 x 1,820, 131,040 GPUs": GB300}


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
    parser.add_argument("--write", action="store_true", help="replace the table in benchmarks/README.md")
    args = parser.parse_args()
    compile_designer()
    with tempfile.TemporaryDirectory() as folder:
        rows = bench(DESIGNS, args.runs, Path(folder))
    publish(table(rows, args.runs), "bench_systems", args.write)


if __name__ == "__main__":
    main()

"""Time `designer explore` per candidate against a `designer plan` process of the same intent, and a 32,768-GPU
exploration of 50 candidates.

The intent is bench_build's (DGX H100, 64 x 800G switches as 128 x 400G, 3 tiers from 8k GPUs) with one packed
ring AllReduce of every GPU. Per size, ``designer plan`` runs ``--runs`` times, each a fresh process, and
``designer explore`` once over :data:`SPACE` (8 candidates); a candidate's cost is the exploration's wall time over
its candidates, and the table gives its ratio to the median plan. ``--fifty`` times one exploration of
:data:`FIFTY` (50 candidates) at 32,768 GPUs instead: wall time, CPU (workers included) and peak memory. ``--write``
replaces the table in benchmarks/README.md between its bench_explore (or bench_explore_fifty) markers.

    python benchmarks/bench_explore.py [--runs 3] [--sizes 1024 32768] [--write]
    python benchmarks/bench_explore.py --fifty [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
from pathlib import Path

from bench_build import measure as run_designer
from common import INTENT, arguments, each_size, publish

WORKLOAD = "workloads:\n  - {name: ring, bytes: 700GB}\n"
SIZES = (1024, 32768)
SPACE = ("fabric.leaf.model=generic-64x800g,nvidia-sn5600,arista-7060x6-64pe,generic-64x400g", "fabric.planes=1,2")
"""8 candidates, every one of them buildable at 1k and 32k GPUs."""
MODELS = "generic-64x800g,nvidia-sn5600,arista-7060x6-64pe,generic-144x800g,generic-64x400g"
FIFTY = (f"fabric.leaf.model={MODELS}", f"fabric.spine.model={MODELS}", "fabric.planes=1,2")
"""5 leaf models x 5 spine models x 2 plane counts: 50 candidates."""


def explore(intent: Path, space: tuple[str, ...]) -> dict:
    """One fresh ``designer explore --format json`` process over ``space``: wall time, CPU, peak memory and what it
    tried and kept."""
    options = [part for vary in space for part in ("--vary", vary)]
    sample = run_designer(["explore", str(intent), *options, "--format", "json"])
    report = json.loads(sample["stdout"])
    return {**sample, "tried": report["tried"], "kept": len(report["candidates"])}


def bench(gpus: int, runs: int, work: Path) -> dict:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus) + WORKLOAD)
    plan = statistics.median(run_designer(["plan", str(intent), "--format", "json"])["seconds"] for _ in range(runs))
    explored = explore(intent, SPACE)
    per_candidate = explored["seconds"] / explored["tried"]
    return {
        "gpus": gpus,
        "plan": plan,
        "explore": explored["seconds"],
        "tried": explored["tried"],
        "kept": explored["kept"],
        "per_candidate": per_candidate,
        "ratio": per_candidate / plan,
        "peak_mib": explored["peak_mib"],
    }


def table(rows: list[dict], runs: int) -> str:
    lines = [
        f"Plan: median of {runs} runs, each a fresh process; explore: one process over {rows[0]['tried']} candidates "
        f"(`{' '.join(f'--vary {vary}' for vary in SPACE)}`); on {platform.machine()} with Python "
        f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        "| GPUs | plan (s) | explore (s) | candidates (kept) | per candidate (s) | per candidate / plan | "
        "explore peak (MiB) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {row['gpus']:,} | {row['plan']:.2f} | {row['explore']:.1f} | {row['tried']} ({row['kept']}) | "
        f"{row['per_candidate']:.2f} | {row['ratio']:.2f} | {row['peak_mib']:.0f} |"
        for row in rows
    ]
    return "\n".join(lines)


def fifty(_gpus: int, _runs: int, work: Path) -> dict:
    intent = work / "bench-32768.yaml"
    intent.write_text(INTENT.format(gpus=32768) + WORKLOAD)
    return explore(intent, FIFTY)


def fifty_table(row: dict) -> str:
    return "\n".join(
        [
            f"One `designer explore` process at 32,768 GPUs over {row['tried']} candidates (5 leaf models x 5 spine "
            f"models x 1 or 2 planes), on {platform.machine()} with Python {platform.python_version()}, load average "
            f"{os.getloadavg()[0]:.1f} at the end; CPU is user and system time of the command and its workers.",
            "",
            "| candidates | kept | wall (s) | CPU (s) | peak memory (MiB) |",
            "|---:|---:|---:|---:|---:|",
            f"| {row['tried']} | {row['kept']} | {row['seconds']:.1f} | {row['cpu']:.1f} | {row['peak_mib']:.0f} |",
        ]
    )


def main() -> None:
    def extra(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--fifty", action="store_true", help="time one 50-candidate exploration at 32,768 GPUs")

    args = arguments(__doc__, SIZES, extra)
    if args.fifty:
        args.sizes = [32768]
        (row,) = each_size(fifty, args, lambda row: f"{row['tried']} candidates in {row['seconds']:.1f}s")
        publish(fifty_table(row), "bench_explore_fifty", args.write)
        return
    rows = each_size(
        bench, args, lambda row: f"plan {row['plan']:.2f}s, explore {row['per_candidate']:.2f}s per candidate"
    )
    publish(table(rows, args.runs), "bench_explore", args.write)


if __name__ == "__main__":
    main()

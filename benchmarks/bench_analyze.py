"""Time `designer analyze` on one ring AllReduce of every GPU, at 1k to 131k GPUs.

The intent is bench_build's (DGX H100, 64 x 800G switches as 128 x 400G, 3 tiers from 8k GPUs) with one
workload of every GPU: 700 GB, ring, 2 channels, 1 QP per connection, packed (SU by SU, so only the ring's
edges between scalable units leave their leaf) and, up to ``--scattered-up-to`` GPUs, scattered (one server per
SU in turn: every flow leaves its leaf and is hashed at every switch, so the time grows with flows x runs).
Each run is a fresh process (imports, sizing, wiring and addressing included, 32 runs per hash); the table
reports the median of ``--runs`` runs. ``--write`` replaces the table in benchmarks/README.md between its
bench_analyze markers.

With ``--worst-case`` it times ``designer plan`` instead on the costliest workloads an intent may hold
(:data:`WORST_CASES`), between the bench_budget markers.

    python benchmarks/bench_analyze.py [--runs 3] [--sizes 1024 8192] [--scattered-up-to 8192] [--write]
    python benchmarks/bench_analyze.py --worst-case --sizes 131072 --runs 1 [--write]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
from pathlib import Path

from bench_build import SIZES
from bench_build import measure as run_designer
from common import INTENT, arguments, each_size, publish

WORKLOAD = "workloads:\n  - {{name: ring, bytes: 700GB, placement: {placement}}}\n"
SCATTERED_UP_TO = 8192
WORST_CASES = {
    "16 x 1,024 GPUs": "".join(
        f"  - {{name: job{number}, gpus: 1024, placement: {'scattered' if number < 8 else 'random'}, bytes: 10GB}}\n"
        for number in range(16)
    ),
    "7,232 + 15 x 64 GPUs": "  - {name: job0, gpus: 7232, placement: scattered, bytes: 10GB}\n"
    + "".join(
        f"  - {{name: job{number}, gpus: 64, placement: {'scattered' if number % 2 else 'random'}, bytes: 10GB}}\n"
        for number in range(1, 16)
    ),
}
"""The most workloads an intent holds (16), rings of 2 channels x 1 QP spread over the fabric. 16 of 1,024 GPUs: 32,768
flows leave their leaves, 16 runs spend the whole run budget. One of 7,232 GPUs (14,464 such flows) and 15 of 64 (128
each): 16,384 in all, 32 runs spend the run budget and the small jobs' QP searches their shares of the search
budget."""


def measure(intent: Path) -> dict:
    """One fresh process running ``designer analyze --format json``: wall time, peak RSS and the flow counts."""
    sample = run_designer(["analyze", str(intent), "--format", "json"])
    ecmp = json.loads(sample["stdout"])["workloads"][0]["ecmp"]
    return {**sample, "flows": ecmp["flows"], "routed": ecmp["routed_flows"]}


def bench(gpus: int, runs: int, work: Path, scattered_up_to: int) -> dict:
    row: dict = {"gpus": gpus}
    for placement in ("packed", "scattered"):
        if placement == "scattered" and gpus > scattered_up_to:
            continue
        intent = work / f"bench-{gpus}-{placement}.yaml"
        intent.write_text(INTENT.format(gpus=gpus) + WORKLOAD.format(placement=placement))
        samples = [measure(intent) for _ in range(runs)]
        row[placement] = {
            "seconds": statistics.median(s["seconds"] for s in samples),
            "cpu": statistics.median(s["cpu"] for s in samples),
            "peak_mib": statistics.median(s["peak_mib"] for s in samples),
            "flows": samples[0]["flows"],
            "routed": samples[0]["routed"],
        }
    return row


def table(rows: list[dict], runs: int) -> str:
    lines = [
        f"Median of {runs} runs, each a fresh process (imports, sizing, wiring and addressing included; 32 runs "
        f"per hash), on {platform.machine()} with Python {platform.python_version()}; CPU is user and system time of "
        "the command and its workers, which a busy machine stretches less than the wall time.",
        "",
        "| GPUs | flows | packed: hashed flows | packed (s) | packed CPU (s) | packed peak (MiB) | "
        "scattered: hashed flows | scattered (s) | scattered CPU (s) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        packed, scattered = row["packed"], row.get("scattered")
        lines.append(
            f"| {row['gpus']:,} | {packed['flows']:,} | {packed['routed']:,} | {packed['seconds']:.2f} | "
            f"{packed['cpu']:.2f} | {packed['peak_mib']:.0f} | "
            + (
                f"{scattered['routed']:,} | {scattered['seconds']:.2f} | {scattered['cpu']:.2f} |"
                if scattered
                else "- | - | - |"
            )
        )
    return "\n".join(lines)


def worst_case(gpus: int, runs: int, work: Path) -> dict:
    """``designer plan --format json`` on each of :data:`WORST_CASES`: median wall time, CPU and peak memory."""
    row: dict = {"gpus": gpus, "runs": runs, "cases": {}}
    for number, (case, workloads) in enumerate(WORST_CASES.items()):
        intent = work / f"worst-{gpus}-{number}.yaml"
        intent.write_text(INTENT.format(gpus=gpus) + "workloads:\n" + workloads)
        samples = [run_designer(["plan", str(intent), "--format", "json"]) for _ in range(runs)]
        row["cases"][case] = {
            "seconds": statistics.median(s["seconds"] for s in samples),
            "cpu": statistics.median(s["cpu"] for s in samples),
            "peak_mib": statistics.median(s["peak_mib"] for s in samples),
        }
    return row


def worst_case_table(rows: list[dict]) -> str:
    lines = [
        f"Median of {rows[0]['runs']} runs of `designer plan --format json`, each a fresh process, on "
        f"{platform.machine()} with Python {platform.python_version()}; CPU is user and system time of the "
        "command and its workers.",
        "",
        "| GPUs | workloads | plan (s) | plan CPU (s) | peak memory (MiB) |",
        "|---:|---|---:|---:|---:|",
    ]
    lines += [
        f"| {row['gpus']:,} | {case} | {result['seconds']:.1f} | {result['cpu']:.1f} | {result['peak_mib']:.0f} |"
        for row in rows
        for case, result in row["cases"].items()
    ]
    return "\n".join(lines)


def main() -> None:
    def extra(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--scattered-up-to",
            type=int,
            default=SCATTERED_UP_TO,
            metavar="GPUS",
            help=f"time the scattered job only up to this many GPUs (default {SCATTERED_UP_TO:,})",
        )
        parser.add_argument(
            "--worst-case", action="store_true", help="time plan on the costliest workloads an intent may hold instead"
        )

    args = arguments(__doc__, SIZES, extra)
    if args.worst_case:
        rows = each_size(
            worst_case,
            args,
            lambda row: ", ".join(f"{case}: plan {result['seconds']:.1f}s" for case, result in row["cases"].items()),
        )
        publish(worst_case_table(rows), "bench_budget", args.write)
        return
    rows = each_size(
        lambda gpus, runs, work: bench(gpus, runs, work, args.scattered_up_to),
        args,
        lambda row: (
            f"packed {row['packed']['seconds']:.2f}s"
            + (f", scattered {row['scattered']['seconds']:.2f}s" if "scattered" in row else "")
        ),
    )
    publish(table(rows, args.runs), "bench_analyze", args.write)


if __name__ == "__main__":
    main()

"""Time `designer analyze` on one ring AllReduce of every GPU, at 1k to 131k GPUs.

The intent is bench_build's (DGX H100, 64 x 800G switches as 128 x 400G, 3 tiers from 8k GPUs) with one
workload of every GPU: 700 GB, ring, 2 channels, 1 QP per connection, packed (SU by SU, so only the ring's
edges between scalable units leave their leaf) and, up to ``--scattered-up-to`` GPUs, scattered (one server per
SU in turn: every flow leaves its leaf and is hashed at every switch, so the time grows with flows x runs).
Each run is a fresh process (imports, sizing, wiring and addressing included, 32 runs per hash); the table
reports the median of ``--runs`` runs. ``--write`` replaces the table in benchmarks/README.md between its
bench_analyze markers.

    python benchmarks/bench_analyze.py [--runs 3] [--sizes 1024 8192] [--scattered-up-to 8192] [--write]
"""

from __future__ import annotations

import json
import platform
import statistics
from pathlib import Path

from bench_build import SIZES
from bench_build import measure as run_designer
from common import INTENT, arguments, each_size, publish

WORKLOAD = "workloads:\n  - {{name: ring, bytes: 700GB, placement: {placement}}}\n"
SCATTERED_UP_TO = 8192


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
        row[placement] = {"seconds": statistics.median(s["seconds"] for s in samples),
                          "peak_mib": statistics.median(s["peak_mib"] for s in samples),
                          "flows": samples[0]["flows"], "routed": samples[0]["routed"]}
    return row


def table(rows: list[dict], runs: int) -> str:
    lines = [f"Median of {runs} runs, each a fresh process (imports, sizing, wiring and addressing included; 32 runs "
             f"per hash), on {platform.machine()} with Python {platform.python_version()}.", "",
             "| GPUs | flows | packed: hashed flows | packed (s) | packed peak (MiB) | scattered: hashed flows | "
             "scattered (s) |", "|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        packed, scattered = row["packed"], row.get("scattered")
        lines.append(f"| {row['gpus']:,} | {packed['flows']:,} | {packed['routed']:,} | {packed['seconds']:.2f} | "
                     f"{packed['peak_mib']:.0f} | "
                     + (f"{scattered['routed']:,} | {scattered['seconds']:.2f} |" if scattered else "- | - |"))
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES, lambda parser: parser.add_argument(
        "--scattered-up-to", type=int, default=SCATTERED_UP_TO, metavar="GPUS",
        help=f"time the scattered job only up to this many GPUs (default {SCATTERED_UP_TO:,})"))
    rows = each_size(lambda gpus, runs, work: bench(gpus, runs, work, args.scattered_up_to), args,
                     lambda row: f"packed {row['packed']['seconds']:.2f}s"
                                 + (f", scattered {row['scattered']['seconds']:.2f}s" if "scattered" in row else ""))
    publish(table(rows, args.runs), "bench_analyze", args.write)


if __name__ == "__main__":
    main()

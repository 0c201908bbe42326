"""Time `designer validate-configs` (SONiC YANG and vtysh -C) over built outputs at 1k, 8k and 32k GPUs.

The intent is bench_build's (64 x 800G switches run as 128 x 400G) with ``targets: [sonic, frr]``, the
two OSes that have an offline parser. Each run is a fresh process; the table reports the median of
``--runs`` runs, the time per switch and the ratio to the smallest row. ``--write`` replaces the table in
benchmarks/README.md between its bench_validate markers.

    python benchmarks/bench_validate.py [--runs 3] [--sizes 1024 8192] [--write]
"""

from __future__ import annotations

import os
import platform
import statistics
from pathlib import Path

from bench_build import measure
from common import INTENT, arguments, each_size, publish

SIZES = (1024, 8192, 32768)


def bench(gpus: int, runs: int, work: Path) -> dict[str, float]:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus) + "targets: [sonic, frr]\n")
    output = work / f"out-{gpus}"
    measure(["build", str(intent), "-o", str(output)])
    samples = [measure(["validate-configs", str(output)]) for _ in range(runs)]
    return {
        "gpus": gpus,
        "switches": len(list((output / "configs" / "sonic").glob("*.json"))),
        "seconds": statistics.median(sample["seconds"] for sample in samples),
        "peak_mib": statistics.median(sample["peak_mib"] for sample in samples),
    }


def table(rows: list[dict[str, float]], runs: int) -> str:
    base = rows[0]
    lines = [
        f"Median of {runs} runs, each a fresh process (imports and model loading included), on "
        f"{os.cpu_count()} CPUs ({platform.machine()}, Python {platform.python_version()}); every switch "
        "has one config_db.json and one frr.conf. Ratios against the smallest row.",
        "",
        "| GPUs | switches | validate-configs (s) | ms per switch | time / smallest | main process peak (MiB) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['gpus']:,} | {row['switches']:,} | {row['seconds']:.1f} | "
            f"{1000 * row['seconds'] / row['switches']:.0f} | {row['seconds'] / base['seconds']:.1f}x | "
            f"{row['peak_mib']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES)
    rows = each_size(bench, args, lambda row: f"{row['switches']:,} switches in {row['seconds']:.1f}s")
    publish(table(rows, args.runs), "bench_validate", args.write)


if __name__ == "__main__":
    main()

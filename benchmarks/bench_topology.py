"""Time topology.svg at 1k to 131k GPUs: the picture is drawn from the plan's counts, so its time and size stay flat.

The intent is bench_build's (DGX H100, 64 x 800G switches as 128 x 400G). Each run is a fresh process that sizes
the fabric, then times ``topology_svg`` alone; the table reports the median of ``--runs`` runs, the picture's
bytes and the ratio to the 1k-GPU row. ``--write`` replaces the table in benchmarks/README.md between its
bench_topology markers.

    python benchmarks/bench_topology.py [--runs 3] [--sizes 1024 8192] [--write]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench_build import SIZES
from common import arguments, each_size, fresh_process, fresh_runs, medians, publish

RUN = """\
import json, sys, time
from designer.intent import parse_intent
from designer.outputs.topology_svg import topology_svg
from designer.backend.sizing import size
intent = parse_intent(sys.argv[1])
plan = size(intent)
start = time.perf_counter()
picture = topology_svg(intent.name, plan)
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "bytes": len(picture.encode()), "tiers": plan.tiers}))
"""


def table(rows: list[dict[str, Any]], runs: int) -> str:
    base = rows[0]
    lines = [
        f"{fresh_runs(runs)}; the picture alone (sizing is not timed); ratios against the {base['gpus']:,}-GPU row. "
        "Target: under 2 s at 131,072 GPUs.",
        "",
        "| GPUs | tiers | topology.svg (ms) | / smallest | bytes |",
        "|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['gpus']:,} | {row['tiers']} | {row['seconds'] * 1000:.2f} | "
            f"{row['seconds'] / base['seconds']:.1f}x | {row['bytes']:,} |"
        )
    return "\n".join(lines)


def row(gpus: int, runs: int, _work: Path) -> dict[str, Any]:
    """The median of ``runs`` fresh processes at ``gpus`` GPUs."""
    return {**medians([fresh_process(RUN, gpus) for _ in range(runs)], ("seconds",)), "gpus": gpus}


def main() -> None:
    args = arguments(__doc__, SIZES)
    rows = each_size(row, args, lambda done: f"{done['seconds'] * 1000:.2f} ms")
    publish(table(rows, args.runs), "bench_topology", args.write)


if __name__ == "__main__":
    main()

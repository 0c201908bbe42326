"""Time the physical plan (placement, cable lengths, media, power, bill of materials) at 1k to 131k GPUs.

The intent is bench_build's (DGX H100, 64 x 800G switches as 128 x 400G). Each run is a fresh process
that sizes and wires the fabric, then times ``plan_physical`` alone; the table reports the median
of ``--runs`` runs, the time per link and the ratio to the 1k-GPU row. ``--write`` replaces the
table in benchmarks/README.md between its bench_physical markers.

    python benchmarks/bench_physical.py [--runs 3] [--sizes 1024 8192] [--write]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench_build import SIZES
from common import arguments, each_size, fresh_process, fresh_runs, medians, publish

RUN = """\
import json, resource, sys, time
from designer.backend.wiring import wire
from designer.intent import parse_intent
from designer.backend.physical import plan_physical
from designer.networks.cluster import top_kept
from designer.backend.sizing import size
intent = parse_intent(sys.argv[1])
plan = size(intent)
fabric = wire(intent, plan)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
physical = plan_physical(intent, plan, fabric, top_kept(intent))
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "links": len(fabric.links), "racks": len(physical.racks),
                  "peak_growth_mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024}))
"""


def table(rows: list[dict[str, Any]], runs: int) -> str:
    base = rows[0]
    lines = [
        f"{fresh_runs(runs)}; the stage alone (sizing and wiring are not timed); ratios against the "
        f"{base['gpus']:,}-GPU row.",
        "",
        "| GPUs | links | racks | physical plan (s) | per link (us) | / smallest | peak growth (MiB) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['gpus']:,} | {row['links']:,} | {row['racks']:,} | {row['seconds']:.2f} | "
            f"{row['seconds'] / row['links'] * 1e6:.1f} | {row['seconds'] / base['seconds']:.1f}x | "
            f"{row['peak_growth_mib']:.0f} |"
        )
    return "\n".join(lines)


def row(gpus: int, runs: int, _work: Path) -> dict[str, Any]:
    """The median of ``runs`` fresh processes at ``gpus`` GPUs."""
    samples = [fresh_process(RUN, gpus) for _ in range(runs)]
    return {**medians(samples, ("seconds", "peak_growth_mib")), "gpus": gpus}


def main() -> None:
    args = arguments(__doc__, SIZES)
    rows = each_size(row, args, lambda done: f"{done['seconds']:.2f}s")
    publish(table(rows, args.runs), "bench_physical", args.write)


if __name__ == "__main__":
    main()

"""Time the checks (``designer check``) at 1k to 131k GPUs, each check on its own.

The intent is bench_build's (DGX H100, 64 x 800G switches as 128 x 400G). Each run is a fresh process
that builds the design, then times the shared facts (link counts and every max-flow of the bisection) and
every registered check once more on it; the table reports the median of
``--runs`` runs. ``--write`` replaces the table in benchmarks/README.md between its bench_checks markers.

    python benchmarks/bench_checks.py [--runs 3] [--sizes 1024 8192] [--write]
"""

from __future__ import annotations

import statistics
import sys

from bench_build import SIZES
from common import arguments, fresh_process, fresh_runs, publish

SHOWN = ("facts", "bisection-bandwidth", "failure-impact", "ecmp-balance", "sessions", "addressing")

RUN = """\
import json, sys, time
from designer.analysis.facts import facts
from designer.analysis.maxflow import bisection
from designer.checks import CHECKS
from designer.pipeline import design
from designer.intent import parse_intent
built = design(parse_intent(sys.argv[1]))
start = time.perf_counter()
bisection(built.fabric, facts(built.fabric))
seconds = {"facts": time.perf_counter() - start}
for module in CHECKS:
    start = time.perf_counter()
    list(module.check(built))
    seconds[module.ID] = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "switches": built.fabric.switch_count, "links": len(built.fabric.links)}))
"""


def table(rows: list[dict], runs: int) -> str:
    lines = [
        f"{fresh_runs(runs)}; seconds on an already built design: the shared facts (link counts and "
        "the bisection's max-flows, 3 splits per plane), then each check (failure impact solves 2 splits for each "
        "of 4 failures).",
        "",
        "| GPUs | switches | links | facts and checks | " + " | ".join(SHOWN) + " | others |",
        "|---:|---:|---:|---:|" + "---:|" * (len(SHOWN) + 1),
    ]
    for row in rows:
        seconds = row["seconds"]
        total = sum(seconds.values())
        others = total - sum(seconds[check] for check in SHOWN)
        lines.append(
            f"| {row['gpus']:,} | {row['switches']:,} | {row['links']:,} | {total:.2f} | "
            + " | ".join(f"{seconds[check]:.2f}" for check in SHOWN)
            + f" | {others:.2f} |"
        )
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES)
    rows = []
    for gpus in args.sizes:
        samples = [fresh_process(RUN, gpus) for _ in range(args.runs)]
        checks = samples[0]["seconds"]
        rows.append(
            {
                "gpus": gpus,
                "switches": samples[0]["switches"],
                "links": samples[0]["links"],
                "seconds": {
                    check: statistics.median(sample["seconds"][check] for sample in samples) for check in checks
                },
            }
        )
        print(f"{gpus:,} GPUs: {sum(rows[-1]['seconds'].values()):.2f}s", file=sys.stderr)
    publish(table(rows, args.runs), "bench_checks", args.write)


if __name__ == "__main__":
    main()

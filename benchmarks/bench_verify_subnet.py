"""Time ``designer verify`` of an InfiniBand design: one scalable unit of 32 DGX H100 (256 HCAs, 8 leaves, 4
spines) and the 4-SU NDR SuperPOD-shaped intent (1,024 HCAs), under ibsim and OpenSM. Target: the SU in at most
60 s on these 2 cores.

Each run is a fresh ``designer verify --format json`` process on the intent (the design built in memory, then the
fabric simulated, swept twice and read back); the table shows the median wall time and the time of each sweep.
``--write`` replaces the table in benchmarks/README.md between its bench_verify_subnet markers.

    python benchmarks/bench_verify_subnet.py [--runs 3] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import tempfile
from pathlib import Path

from bench_verify import run
from common import HERE, publish

SU = """\
name: bench-ib-su
compute: {servers: 32, server: dgx-h100}
fabric:
  technology: infiniband
  leaf: {model: nvidia-qm9790}
"""
SUPERPOD = HERE.parent / "intents" / "superpod-ndr.yaml"


def table(rows: list[list[dict]]) -> str:
    lines = [
        f"Median of {len(rows[0])} runs, each a fresh process, on {platform.machine()} ({os.cpu_count()} cores), "
        f"Python {platform.python_version()}, Debian's ibsim-utils and opensm; a sweep runs from OpenSM's start to "
        "its exit (`opensm -o`).",
        "",
        "| design | covered | healthy sweep (s) | sweep with a spine down (s) | wall (s) | result |",
        "|---|---|---:|---:|---:|---|",
    ]
    for runs in rows:
        first = runs[0]
        healthy, failed = (
            statistics.median(list(run["converged_seconds"].values())[index] for run in runs) for index in (0, 1)
        )
        wall = statistics.median(run["wall_s"] for run in runs)
        result = "pass" if all(run["checks"] and all(c["passed"] for c in run["checks"]) for run in runs) else "FAIL"
        lines.append(
            f"| {first['name']} | {first['coverage']} | {healthy:.1f} | {failed:.1f} | {wall:.1f} | {result} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per design; the table shows their median")
    parser.add_argument("--write", action="store_true", help="update the table in benchmarks/README.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        su = Path(work) / "bench-ib-su.yaml"
        su.write_text(SU)
        rows = [[run(intent) for _ in range(args.runs)] for intent in (su, SUPERPOD)]
    publish(table(rows), "bench_verify_subnet", args.write)


if __name__ == "__main__":
    main()

"""Time ``designer verify`` on the shipped 4 x 2 lab and on the largest 2-tier lab that fits (16 spines x 128 leaves).

Each lab runs once in a fresh ``designer verify --format json`` process (root and FRR needed); the table
reports the wall time, the time each phase took to converge, the memory estimate and the FRR daemons'
resident memory once converged. ``--write`` replaces the table in benchmarks/README.md between its
bench_verify markers. It takes the whole machine for a few minutes: run it when nothing else does.

    sudo python benchmarks/bench_verify.py [--labs small large] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import HERE, publish

SMALL = HERE.parent / "tests" / "intents" / "verify-2tier.yaml"
LARGE = """\
# 256 servers with 8 rails on 32 x 400G leaves and 128 x 400G spines: 128 leaves, 16 spines, 2,048 sessions.
name: bench-verify-16x128
compute: {servers: 256, gpus_per_server: 8, nics_per_server: 8, nic_speed: 400G, server_power_kw: 10.2}
fabric:
  tiers: 2
  leaf: {ports: 32, speed: 400G}
  spine: {ports: 128, speed: 400G}
targets: [frr]
"""


def run(intent: Path) -> dict:
    """One verification in a fresh process; its report plus the wall time."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "designer.cli", "verify", str(intent), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if result.returncode not in (0, 1):
        raise SystemExit(f"designer verify {intent} exited {result.returncode}:\n{result.stderr}")
    report = json.loads(result.stdout)
    report["wall_s"] = seconds
    return report


def table(rows: list[dict]) -> str:
    phases = {"healthy": "converge", "down": "spine down", "restored": "spine back"}
    lines = [
        f"One run each on {platform.machine()} ({os.cpu_count()} cores), FRR 8.4, Python "
        f"{platform.python_version()}; times to converge run from the configs being loaded (healthy) or the "
        "links changing (failure, restore) to the first poll where every router was right (then confirmed "
        "by reading every router again). While 144 routers converge on two cores a poll takes seconds, so "
        "those times are upper bounds.",
        "",
        "| lab | routers | sessions | "
        + " | ".join(f"{name} (s)" for name in phases.values())
        + " | wall (s) | memory estimated / used (MiB) | result |",
        "|---|---:|---:|" + "---:|" * len(phases) + "---:|---:|---|",
    ]
    for row in rows:
        seconds = row["converged_seconds"]
        cells = []
        for key in phases:
            value = next((value for phase, value in seconds.items() if phase == key or phase.endswith(f" {key}")), None)
            cells.append("-" if value is None else f"{value:.1f}")
        lines.append(
            f"| {row['name']} | {row['routers']} | {row['sessions']:,} | {' | '.join(cells)} | "
            f"{row['wall_s']:.0f} | {row['memory_mib']:,} / {row['measured_mib'] or 0:,} | "
            f"{'pass' if row['passed'] else 'FAIL'} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labs", nargs="+", choices=("small", "large"), default=["small", "large"])
    parser.add_argument("--write", action="store_true", help="update the table in benchmarks/README.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        large = Path(work) / "bench-verify-16x128.yaml"
        large.write_text(LARGE)
        rows = [run(SMALL if lab == "small" else large) for lab in args.labs]
    publish(table(rows), "bench_verify", args.write)


if __name__ == "__main__":
    main()

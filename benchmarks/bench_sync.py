"""Time ``designer sync nautobot`` of the 1,024-GPU cluster (intents/cluster.yaml: 192 devices, 2,048 cables, 4,160
addresses) into a real Nautobot: the first sync, and a second one that finds nothing to change.

Each sync is a fresh ``designer sync`` process. Without ``--url`` the script starts its own Nautobot
(tests/nautobot_lab.py: PostgreSQL, Redis and Nautobot with the BGP Models app, migrated first: minutes; root);
``--write`` replaces the table in benchmarks/README.md between its bench_sync markers. Targets: at most 300 s
the first time, at most 60 s when nothing changed.

    sudo python benchmarks/bench_sync.py [--url URL --token TOKEN] [--write]
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import HERE, publish

sys.path.insert(0, str(HERE.parent))
from tests.nautobot_lab import start_lab

INTENT = HERE.parent / "intents" / "cluster.yaml"


def timed(command: list[str]) -> tuple[float, str]:
    """Wall time of ``command`` and its last output line; a failure stops the benchmark."""
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode:
        raise SystemExit(f"{' '.join(command[:4])} failed:\n{result.stdout}\n{result.stderr}")
    return elapsed, result.stdout.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a Nautobot to sync into (default: start one)")
    parser.add_argument("--token", help="its API token")
    parser.add_argument("--write", action="store_true", help="update the table in benchmarks/README.md")
    args = parser.parse_args()
    lab = None if args.url else start_lab()
    url, token = (args.url, args.token) if args.url else (lab.url, lab.token)
    designer = str(Path(sys.executable).parent / "designer")
    try:
        with tempfile.TemporaryDirectory() as folder:
            output = Path(folder) / "cluster-a"
            subprocess.run([designer, "build", str(INTENT), "-o", str(output)], check=True, capture_output=True)
            command = [designer, "sync", "nautobot", str(output), "--url", url, "--token", token]
            first, _ = timed(command)
            again, said = timed(command)
    finally:
        if lab:
            lab.stop()
    table = (
        f"One run each on {platform.machine()} ({len(__import__('os').sched_getaffinity(0))} cores), Python "
        f"{platform.python_version()}, Nautobot 3.2.7 with nautobot-bgp-models 3.2.0 on PostgreSQL and Redis on "
        "the same machine; each sync a fresh `designer sync` process (reading the folder and rebuilding its "
        "switch models included).\n\n"
        "| design | devices | cables | addresses | first sync (s) | unchanged (s) | second sync said |\n"
        "|---|---:|---:|---:|---:|---:|---|\n"
        f"| cluster-a (1,024 GPUs) | 192 | 2,048 | 4,160 | {first:.1f} | {again:.1f} | {said} |"
    )
    publish(table, "bench_sync", args.write)


if __name__ == "__main__":
    main()

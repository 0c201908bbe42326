"""Time ``designer sync nautobot`` of the 1,024-GPU cluster (intents/cluster.yaml: 192 devices, 2,048 cables, 4,160
addresses) into a real Nautobot: the first sync, and a second one that finds nothing to change.

Each sync is a fresh ``designer sync`` process. Without ``--url`` the script starts its own Nautobot
(tests/nautobot_lab.py: PostgreSQL, Redis and Nautobot with the BGP Models app, from its migrated database; root);
``--write`` replaces the table in benchmarks/README.md between its bench_sync markers. Targets: at most 300 s
the first time, at most 60 s when nothing changed. Beside each wall time the table gives the CPU seconds of the
``designer`` process and of the Nautobot server's processes (``--server-pid`` for a Nautobot of your own) and the
machine's load averages, so that a run on a shared machine can be read.

    sudo python benchmarks/bench_sync.py [--url URL --token TOKEN [--server-pid PID]] [--workers N] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from common import HERE, publish

sys.path.insert(0, str(HERE.parent))
from tests.nautobot_lab import NautobotLab, start_lab

INTENT = HERE.parent / "intents" / "cluster.yaml"
TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Run:
    """One timed sync: wall seconds, CPU seconds of designer and of the server, load before and after, its last
    output line."""

    wall: float
    client_cpu: float
    server_cpu: float
    load: str
    said: str


def tree_cpu(pid: int | None) -> float:
    """CPU seconds (user and system) used so far by process ``pid`` and every process below it (0 without one)."""
    if pid is None:
        return 0.0
    parents: dict[int, int] = {}
    times: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue  # ended meanwhile
        process = int(stat.parent.name)
        parents[process], times[process] = int(fields[1]), int(fields[11]) + int(fields[12])
    tree, grew = {pid}, True
    while grew:
        below = {process for process, parent in parents.items() if parent in tree} - tree
        tree |= below
        grew = bool(below)
    return sum(times.get(process, 0) for process in tree) / TICKS


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def timed(command: list[str], server: int | None) -> Run:
    """One run of ``command``; a failure stops the benchmark."""
    before_load, before_server = load(), tree_cpu(server)
    before_client = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after_client = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode:
        raise SystemExit(f"{' '.join(command[:4])} failed:\n{result.stdout}\n{result.stderr}")
    client = (after_client.ru_utime + after_client.ru_stime) - (before_client.ru_utime + before_client.ru_stime)
    return Run(
        wall, client, tree_cpu(server) - before_server, f"{before_load} / {load()}", result.stdout.splitlines()[-1]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a Nautobot to sync into (default: start one)")
    parser.add_argument("--token", help="its API token")
    parser.add_argument("--server-pid", type=int, help="the process of that Nautobot's web server, for its CPU time")
    parser.add_argument("--workers", type=int, default=0, help="serve the started Nautobot with N uWSGI processes")
    parser.add_argument("--write", action="store_true", help="update the table in benchmarks/README.md")
    args = parser.parse_args()
    lab: NautobotLab | None = None
    if args.url:
        url, token, server = args.url, args.token, args.server_pid
    else:
        lab = start_lab(args.workers)
        url, token, server = lab.url, lab.token, lab.processes[-1].pid
    designer = str(Path(sys.executable).parent / "designer")
    try:
        with tempfile.TemporaryDirectory() as folder:
            output = Path(folder) / "cluster-a"
            subprocess.run([designer, "build", str(INTENT), "-o", str(output)], check=True, capture_output=True)
            command = [designer, "sync", "nautobot", str(output), "--url", url, "--token", token]
            runs = [timed(command, server), timed(command, server)]
    finally:
        if lab:
            lab.stop()
    served = (
        f"`nautobot-server start` (uWSGI, {args.workers} processes)"
        if args.workers
        else "`nautobot-server runserver --noreload --nothreading` (one process)"
    )
    table = (
        f"One run each on {platform.machine()} ({len(os.sched_getaffinity(0))} cores), Python "
        f"{platform.python_version()}, Nautobot 3.2.7 with nautobot-bgp-models 3.2.0 served by "
        f"{served if lab else 'the server at --url'}, on PostgreSQL and Redis on the same machine; each sync a "
        "fresh `designer sync` process (reading the folder and rebuilding its switch models included). CPU "
        "seconds are those the process used during the sync; load is the 1, 5 and 15-minute load averages "
        "before / after it.\n\n"
        "| design | sync | wall (s) | designer CPU (s) | Nautobot CPU (s) | load before / after | said |\n"
        "|---|---|---:|---:|---:|---|---|\n"
        + "\n".join(
            f"| cluster-a (1,024 GPUs: 192 devices, 2,048 cables, 4,160 addresses) | {name} | {run.wall:.1f} | "
            f"{run.client_cpu:.1f} | {run.server_cpu:.1f} | {run.load} | {run.said} |"
            for name, run in zip(("first", "unchanged"), runs, strict=True)
        )
    )
    publish(table, "bench_sync", args.write)


if __name__ == "__main__":
    main()

"""Time `designer explore` per candidate against a `designer plan` process of the same intent, a 32,768-GPU
exploration of 50 candidates, and the memory of a 131,072-GPU exploration.

The intent is bench_build's (DGX H100, 64 x 800G switches as 128 x 400G, 3 tiers from 8k GPUs) with one packed
ring AllReduce of every GPU. Per size, ``designer plan`` runs ``--runs`` times, each a fresh process, and
``designer explore`` once over :data:`SPACE` (8 candidates); a candidate's cost is the exploration's wall time over
its candidates, and the table gives its ratio to the median plan. ``--fifty`` times one exploration of
:data:`FIFTY` (50 candidates) at 32,768 GPUs instead: wall time, CPU (workers included) and peak memory;
``--memory`` one of :data:`MEMORY` (4 candidates) at 131,072 GPUs. Peak memory is given two ways: the largest
process's resident set, and the most the command and its workers held together (their proportional set sizes
summed, shared pages counted once, sampled every 0.2 s). ``--write`` replaces the table in benchmarks/README.md
between its bench_explore (bench_explore_fifty, bench_explore_memory) markers.

    python benchmarks/bench_explore.py [--runs 3] [--sizes 1024 32768] [--write]
    python benchmarks/bench_explore.py --fifty [--write]
    python benchmarks/bench_explore.py --memory [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import threading
from pathlib import Path

from bench_build import measure as run_designer
from common import INTENT, arguments, each_size, publish

WORKLOAD = "workloads:\n  - {name: ring, bytes: 700GB}\n"
SIZES = (1024, 32768)
SPACE = ("fabric.leaf.model=generic-64x800g,nvidia-sn5600,arista-7060x6-64pe,generic-64x400g", "fabric.planes=1,2")
"""8 candidates, every one of them buildable at 1k and 32k GPUs."""
MODELS = "generic-64x800g,nvidia-sn5600,arista-7060x6-64pe,generic-144x800g,generic-64x400g"
FIFTY = (f"fabric.leaf.model={MODELS}", f"fabric.spine.model={MODELS}", "fabric.planes=1,2")
"""5 leaf models x 5 spine models x 2 plane counts: 50 candidates."""
MEMORY = ("fabric.leaf.model=generic-64x800g,nvidia-sn5600", "facility.media=copper,optics")
"""2 leaf models x both media at 131,072 GPUs: 4 candidates, each worker holding a design and its other media."""
SAMPLE_S = 0.2


class TreeMemory:
    """While in use, the most memory the processes this one starts hold together: every 0.2 s, the proportional set
    sizes (``Pss`` of /proc/PID/smaps_rollup: a page shared by n processes counts 1/n in each) of each child and the
    processes below it, summed (Linux)."""

    def __init__(self) -> None:
        self.peak_kib = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._done.set()
        self._thread.join()

    @property
    def peak_mib(self) -> float:
        return self.peak_kib / 1024

    def _watch(self) -> None:
        while not self._done.wait(SAMPLE_S):
            self.peak_kib = max(self.peak_kib, sum(_pss_kib(pid) for pid in _below(os.getpid())))


def _below(pid: int) -> list[int]:
    """Every process below ``pid`` (its children, theirs, ...), as /proc lists them now."""
    found, waiting = [], [pid]
    while waiting:
        try:
            children = [
                int(child)
                for task in Path(f"/proc/{waiting.pop()}/task").iterdir()
                for child in (task / "children").read_text().split()
            ]
        except OSError:  # it ended meanwhile
            continue
        found += children
        waiting += children
    return found


def _pss_kib(pid: int) -> int:
    try:
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")), 0)


def explore(intent: Path, space: tuple[str, ...]) -> dict:
    """One fresh ``designer explore --format json`` process over ``space``: wall time, CPU, peak memory (the largest
    process's, and its workers' and its own together) and what it tried and kept."""
    options = [part for vary in space for part in ("--vary", vary)]
    with TreeMemory() as memory:
        sample = run_designer(["explore", str(intent), *options, "--format", "json"])
    report = json.loads(sample["stdout"])
    return {**sample, "tree_mib": memory.peak_mib, "tried": report["tried"], "kept": len(report["candidates"])}


def bench(gpus: int, runs: int, work: Path) -> dict:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus) + WORKLOAD)
    plans = [run_designer(["plan", str(intent), "--format", "json"]) for _ in range(runs)]
    plan = statistics.median(sample["seconds"] for sample in plans)
    plan_cpu = statistics.median(sample["cpu"] for sample in plans)
    explored = explore(intent, SPACE)
    per_candidate = explored["seconds"] / explored["tried"]
    cpu_per_candidate = explored["cpu"] / explored["tried"]
    return {
        "gpus": gpus,
        "plan": plan,
        "plan_cpu": plan_cpu,
        "explore": explored["seconds"],
        "cpu_per_candidate": cpu_per_candidate,
        "cpu_ratio": cpu_per_candidate / plan_cpu,
        "tried": explored["tried"],
        "kept": explored["kept"],
        "per_candidate": per_candidate,
        "ratio": per_candidate / plan,
        "peak_mib": explored["peak_mib"],
        "tree_mib": explored["tree_mib"],
    }


def table(rows: list[dict], runs: int) -> str:
    lines = [
        f"Plan: median of {runs} runs, each a fresh process; explore: one process over {rows[0]['tried']} candidates "
        f"(`{' '.join(f'--vary {vary}' for vary in SPACE)}`); on {platform.machine()} with Python "
        f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        "| GPUs | plan (s) | plan CPU (s) | explore (s) | candidates (kept) | per candidate (s) | "
        "per candidate / plan | CPU per candidate (s) | CPU per candidate / plan CPU | "
        "explore peak, largest process (MiB) | explore peak, all processes (MiB) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {row['gpus']:,} | {row['plan']:.2f} | {row['plan_cpu']:.2f} | {row['explore']:.1f} | "
        f"{row['tried']} ({row['kept']}) | {row['per_candidate']:.2f} | {row['ratio']:.2f} | "
        f"{row['cpu_per_candidate']:.2f} | {row['cpu_ratio']:.2f} | {row['peak_mib']:.0f} | {row['tree_mib']:.0f} |"
        for row in rows
    ]
    return "\n".join(lines)


def fifty(_gpus: int, _runs: int, work: Path) -> dict:
    intent = work / "bench-32768.yaml"
    intent.write_text(INTENT.format(gpus=32768) + WORKLOAD)
    return explore(intent, FIFTY)


def fifty_table(row: dict) -> str:
    return one_run_table(row, "32,768 GPUs", "5 leaf models x 5 spine models x 1 or 2 planes")


def memory(_gpus: int, _runs: int, work: Path) -> dict:
    intent = work / "bench-131072.yaml"
    intent.write_text(INTENT.format(gpus=131072) + WORKLOAD)
    return explore(intent, MEMORY)


def one_run_table(row: dict, size: str, space: str) -> str:
    return "\n".join(
        [
            f"One `designer explore` process at {size} over {row['tried']} candidates ({space}), on "
            f"{platform.machine()} with Python {platform.python_version()}, load average {os.getloadavg()[0]:.1f} at "
            "the end; CPU is user and system time of the command and its workers.",
            "",
            "| candidates | kept | wall (s) | CPU (s) | peak memory, largest process (MiB) | peak memory, all "
            "processes (MiB) |",
            "|---:|---:|---:|---:|---:|---:|",
            f"| {row['tried']} | {row['kept']} | {row['seconds']:.1f} | {row['cpu']:.1f} | {row['peak_mib']:.0f} | "
            f"{row['tree_mib']:.0f} |",
        ]
    )


def main() -> None:
    def extra(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--fifty", action="store_true", help="time one 50-candidate exploration at 32,768 GPUs")
        parser.add_argument("--memory", action="store_true", help="one 4-candidate exploration at 131,072 GPUs")

    args = arguments(__doc__, SIZES, extra)

    def said(row: dict) -> str:
        return f"{row['tried']} candidates in {row['seconds']:.1f}s, {row['tree_mib']:.0f} MiB at most"

    if args.fifty:
        args.sizes = [32768]
        (row,) = each_size(fifty, args, said)
        publish(fifty_table(row), "bench_explore_fifty", args.write)
        return
    if args.memory:
        args.sizes = [131072]
        (row,) = each_size(memory, args, said)
        space = "2 leaf models x copper or optics"
        publish(one_run_table(row, "131,072 GPUs", space), "bench_explore_memory", args.write)
        return
    rows = each_size(
        bench, args, lambda row: f"plan {row['plan']:.2f}s, explore {row['per_candidate']:.2f}s per candidate"
    )
    publish(table(rows, args.runs), "bench_explore", args.write)


if __name__ == "__main__":
    main()

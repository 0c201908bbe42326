"""Time `designer plan` and `designer build` at 1k, 8k, 32k and 131k GPUs (a build into a new folder, a rebuild
of the same intent over the previous build, and `build --check` of that folder), and each stage of the build.

Each run is a fresh process (so peak memory is that run's own) running the ``designer`` command compiled to
bytecode, as an installed wheel would (:func:`common.compile_designer`, once before the runs), timed from its start
to its exit; the table reports the median of
``--runs`` runs and the ratio to the 1k-GPU run. The stage table splits the largest size's build by the
stage lines the command prints on stderr (among them the servers' host settings and the rendering and writing
of their files, ``servers/<server>/``, four or more files per server), and puts beside it the floor of writing the
same bytes (the output size over this disk's write speed, measured with one big file). ``--write`` replaces the tables
in benchmarks/README.md between their bench_build and bench_stages markers.

    python benchmarks/bench_build.py [--runs 3] [--sizes 1024 8192] [--write]
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from common import INTENT, arguments, compile_designer, each_size, publish, storage

from designer.outputs.folder import write_files

SIZES = (1024, 8192, 32768, 131072)


STAGE = "stage "
RUN = textwrap.dedent(f"""\
    import json, sys, time
    import designer.cli
    # each stage as the command reports it, on the clock the benchmark started (CLOCK_MONOTONIC is system-wide)
    designer.cli._progress = lambda intent: lambda stage: print("{STAGE}" + json.dumps([time.perf_counter(), stage]),
                                                                file=sys.stderr, flush=True)
    designer.cli.console()
""")


def measure(args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """One fresh process running the ``designer`` command as installed (it ends without freeing what it built), in
    the environment ``env`` (default: this one's): its wall time from start to exit, its CPU (its workers'
    included) and peak memory (the largest of those processes), the start time of each stage it reports, and what
    it printed on stdout."""
    start = time.perf_counter()
    with (
        tempfile.TemporaryFile("w+") as printed,
        subprocess.Popen(
            [sys.executable, "-c", RUN, *args], stdout=printed, stderr=subprocess.PIPE, text=True, env=env
        ) as command,
    ):
        assert command.stderr is not None
        lines = command.stderr.read().splitlines()
        _, status, usage = os.wait4(command.pid, 0)
        seconds = time.perf_counter() - start
        command.returncode = os.waitstatus_to_exitcode(status)
        printed.seek(0)
        stdout = printed.read()
    if command.returncode != 0:
        raise SystemExit(f"designer {' '.join(args)} failed:\n" + "\n".join(lines))
    stages = [json.loads(line.removeprefix(STAGE)) for line in lines if line.startswith(STAGE)]
    return {
        "seconds": seconds,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mib": usage.ru_maxrss / 1024,
        "stages": [(at - start, stage) for at, stage in stages],
        "stdout": stdout,
    }


def stage_seconds(sample: dict[str, Any]) -> dict[str, float]:
    """How long each part of one run took: imports and loading up to the first stage, then each stage up to the
    next (the last one up to the end of the run). Stages are named without their counts."""
    stages = [
        (0.0, "imports, loading and sizing the intent"),
        *((at, re.sub(r" [\d,]+(?= )", "", stage).split(" of ")[0]) for at, stage in sample["stages"]),
    ]
    ends = [start for start, _ in stages[1:]] + [sample["seconds"]]
    return {name: end - start for (start, name), end in zip(stages, ends, strict=True)}


def write_speed(folder: Path, mib: int = 512) -> float:
    """This disk's write speed in MiB/s: one file of ``mib`` MiB written in 4 MiB blocks and synced."""
    block = b"\0" * (4 << 20)
    path = folder / "write-speed"
    start = time.perf_counter()
    with path.open("wb") as file:
        for _ in range(mib // 4):
            file.write(block)
        file.flush()
        os.fsync(file.fileno())
    seconds = time.perf_counter() - start
    path.unlink()
    return mib / seconds


def files_floor(built: Path, work: Path) -> float:
    """Seconds to write every file of the build in ``built`` again into a fresh folder in ``work``, in one process,
    with nothing rendered: the files are read into memory first, then written by the build's own writer (three
    system calls a file). What this disk and kernel charge for the build's files alone."""
    files = [(str(path.relative_to(built)), path.read_bytes()) for path in sorted(built.rglob("*")) if path.is_file()]
    target = work / "floor"
    start = time.perf_counter()
    write_files(files, target)
    seconds = time.perf_counter() - start
    shutil.rmtree(target)
    return seconds


def bench(gpus: int, runs: int, work: Path) -> dict[str, Any]:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus))
    plan = [measure(["plan", str(intent), "--format", "json"]) for _ in range(runs)]
    outputs = [work / f"out-{gpus}-{run}" for run in range(runs)]
    build = [measure(["build", str(intent), "-o", str(output)]) for output in outputs]  # each into a new folder
    for output in outputs[1:]:
        shutil.rmtree(output)
    rebuild = [measure(["build", str(intent), "-o", str(outputs[0])]) for _ in range(runs)]  # over the last build
    check = [measure(["build", "--check", str(intent), "-o", str(outputs[0])]) for _ in range(runs)]
    files = [p for p in outputs[0].rglob("*") if p.is_file()]
    stages = [stage_seconds(sample) for sample in build]
    return {
        "gpus": gpus,
        "stages": {name: statistics.median(run[name] for run in stages) for name in stages[0]},
        "write_mib_s": write_speed(work),
        "files_floor_s": files_floor(outputs[0], work),
        "plan_s": statistics.median(s["seconds"] for s in plan),
        "build_s": statistics.median(s["seconds"] for s in build),
        "rebuild_s": statistics.median(s["seconds"] for s in rebuild),
        "check_s": statistics.median(s["seconds"] for s in check),
        "check_peak_mib": statistics.median(s["peak_mib"] for s in check),
        "plan_cpu_s": statistics.median(s["cpu"] for s in plan),
        "build_cpu_s": statistics.median(s["cpu"] for s in build),
        "build_peak_mib": statistics.median(s["peak_mib"] for s in build),
        "files": len(files),
        "output_mib": sum(p.stat().st_size for p in files) / 2**20,
    }


def table(rows: list[dict[str, Any]], runs: int) -> str:
    base = rows[0]
    lines = [
        f"Median of {runs} runs, each a fresh process (imports included), on {platform.machine()} with "
        f"Python {platform.python_version()} and {os.cpu_count()} CPUs, writing to {storage()}; CPU is user "
        f"and system time of the "
        f"command and its workers; peak memory is the largest of those processes; a build writes a new "
        f"folder, a rebuild the same intent over its previous build (checked, replaced, the old one "
        f"removed), `build --check` compares a build's files with that folder (the CI gate); ratios against "
        f"the {base['gpus']:,}-GPU row.",
        "",
        "| GPUs | plan (s) | plan CPU (s) | build (s) | build CPU (s) | rebuild (s) | check (s) "
        "| check peak (MiB) | build / smallest | peak memory (MiB) | files | outputs (MiB) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['gpus']:,} | {row['plan_s']:.2f} | {row['plan_cpu_s']:.2f} | {row['build_s']:.2f} | "
            f"{row['build_cpu_s']:.2f} | {row['rebuild_s']:.2f} | {row['check_s']:.2f} | "
            f"{row['check_peak_mib']:.0f} | {row['build_s'] / base['build_s']:.1f}x | "
            f"{row['build_peak_mib']:.0f} | {row['files']:,} | {row['output_mib']:.1f} |"
        )
    return "\n".join(lines)


def stage_table(row: dict[str, Any], runs: int) -> str:
    """The largest build stage by stage, with the floor of writing its bytes on this disk."""
    floor = row["output_mib"] / row["write_mib_s"]
    lines = [
        f"{row['gpus']:,} GPUs, median of {runs} runs: seconds from the start of each stage to the next, as "
        f"the command reports them. Writing {row['output_mib']:,.0f} MiB at this "
        f"disk's {row['write_mib_s']:,.0f} MiB/s takes {floor:.1f} s; writing the same {row['files']:,} files "
        f"again in one process, nothing rendered, took {row['files_floor_s']:.1f} s: the floors of any build "
        "of this size.",
        "",
        "| stage | seconds | share of the build |",
        "|---|---:|---:|",
    ]
    lines += [f"| {name} | {seconds:.2f} | {seconds / row['build_s']:.0%} |" for name, seconds in row["stages"].items()]
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES)
    compile_designer()
    rows = each_size(
        bench,
        args,
        lambda row: (
            f"plan {row['plan_s']:.2f}s, build {row['build_s']:.2f}s, "
            f"rebuild {row['rebuild_s']:.2f}s, check {row['check_s']:.2f}s"
        ),
    )
    publish(table(rows, args.runs), "bench_build", args.write)
    publish(stage_table(rows[-1], args.runs), "bench_stages", args.write)


if __name__ == "__main__":
    main()

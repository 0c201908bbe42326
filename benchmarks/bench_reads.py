"""Peak memory of the commands that read a built folder back: ``designer check OUTPUT``, ``designer diff`` of a folder
against itself and the read-and-check path of ``designer verify OUTPUT`` (``read_output`` and the lab's topology,
everything before a lab starts), against the size of the folder, with the largest file of each kind beside its
cap (:data:`designer.files.CAPS`). Target: every peak under twice the folder's size.

Each command is a fresh process (the installed ``designer`` compiled to bytecode, as in bench_build.py); its peak
resident memory comes from ``wait4``. ``--write`` replaces the table between the bench_reads markers in
benchmarks/README.md.

    python benchmarks/bench_reads.py [--runs 1] [--sizes 1024 131072] [--write]
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import INTENT, arguments, compile_designer, each_size, publish, storage

from designer.files import CAPS, MiB, output_cap

SIZES = (1024, 32768, 131072)
VERIFY_READ = (
    "import sys\nfrom pathlib import Path\nfrom designer.verify.run import read_output\n"
    "from designer.verify.topology import topology\n"
    "topology(read_output(Path(sys.argv[1])), True)\n"
)
"""What ``designer verify OUTPUT`` does before it asks for root and memory: read and check the folder, make the lab's
topology."""


def measure(argv: list[str]) -> dict[str, float]:
    """Seconds, CPU seconds (user and system) and peak resident MiB of one fresh process running ``argv``; it must
    exit 0."""
    start = time.perf_counter()
    with subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) as process:
        assert process.stderr is not None
        complaint = process.stderr.read()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"{' '.join(argv)} failed:\n{complaint.decode(errors='replace')}")
    return {
        "seconds": time.perf_counter() - start,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "peak_mib": usage.ru_maxrss / 1024,
    }


def bench(gpus: int, runs: int, work: Path) -> dict[str, Any]:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus))
    output = work / f"out-{gpus}"
    designer = [sys.executable, "-m", "designer.cli"]
    subprocess.run([*designer, "build", str(intent), "-o", str(output)], check=True, capture_output=True)
    commands = {
        "check": [*designer, "check", str(output)],
        "diff": [*designer, "diff", str(output), str(output)],
        "verify": [sys.executable, "-c", VERIFY_READ, str(output)],
    }
    samples = {name: [measure(argv) for _ in range(runs)] for name, argv in commands.items()}
    sizes = {str(path.relative_to(output)): path.stat().st_size for path in output.rglob("*") if path.is_file()}
    largest = {
        cap.kind: max((size for path, size in sizes.items() if output_cap(Path(path).parts) == cap), default=0)
        for cap in CAPS
    }
    shutil.rmtree(output)
    row: dict[str, Any] = {
        "gpus": gpus,
        "files": len(sizes),
        "folder_mib": sum(sizes.values()) / MiB,
        "largest": largest,
    }
    for name, runs_of in samples.items():
        row[f"{name}_s"] = statistics.median(sample["seconds"] for sample in runs_of)
        row[f"{name}_mib"] = statistics.median(sample["peak_mib"] for sample in runs_of)
    return row


def table(rows: list[dict[str, Any]], runs: int) -> str:
    lines = [
        f"Median of {runs} runs, each a fresh process, on {platform.machine()} with Python "
        f"{platform.python_version()} and {os.cpu_count()} CPUs, the folder on {storage()}; peak is the "
        "process's largest resident memory; diff compares the folder with itself; verify is its read and "
        "check path (no lab).",
        "",
        "| GPUs | files | folder (MiB) | check (s) | check peak (MiB) | diff (s) | diff peak (MiB) | verify (s) "
        "| verify peak (MiB) | largest peak / folder |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        peak = max(row[f"{name}_mib"] for name in ("check", "diff", "verify"))
        lines.append(
            f"| {row['gpus']:,} | {row['files']:,} | {row['folder_mib']:,.0f} | {row['check_s']:.1f} | "
            f"{row['check_mib']:,.0f} | {row['diff_s']:.1f} | {row['diff_mib']:,.0f} | "
            f"{row['verify_s']:.1f} | {row['verify_mib']:,.0f} | {peak / row['folder_mib']:.2f}x |"
        )
    largest = rows[-1]["largest"]
    lines += [
        "",
        f"The largest file of each kind at {rows[-1]['gpus']:,} GPUs, and the cap designer reads:",
        "",
        "| kind | largest (KiB) | cap (MiB) |",
        "|---|---:|---:|",
    ]
    lines += [
        f"| {cap.kind} | {largest[cap.kind] / 1024:,.1f} | {cap.limit // MiB:,} |" for cap in CAPS if largest[cap.kind]
    ]
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES)
    compile_designer()
    rows = each_size(
        bench,
        args,
        lambda row: (
            f"check {row['check_mib']:,.0f} MiB, diff {row['diff_mib']:,.0f} MiB, "
            f"verify {row['verify_mib']:,.0f} MiB of {row['folder_mib']:,.0f} MiB"
        ),
    )
    publish(table(rows, args.runs), "bench_reads", args.write)


if __name__ == "__main__":
    main()

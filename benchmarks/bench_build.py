"""Time `designer plan` and `designer build` at 1k, 8k, 32k and 131k GPUs.

Each run is a fresh process (so peak memory is that run's own); the table reports the median of
``--runs`` runs and the ratio to the 1k-GPU run. ``--write`` replaces the table in
benchmarks/README.md between its bench_build markers.

    python benchmarks/bench_build.py [--runs 3] [--sizes 1024 8192] [--write]
"""

from __future__ import annotations

import json
import platform
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

from common import INTENT, arguments, each_size, publish

SIZES = (1024, 8192, 32768, 131072)


RUN = textwrap.dedent("""\
    import json, resource, sys, time
    start = time.perf_counter()
    import designer
    from designer.cli import main
    code = main(sys.argv[1:])
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": elapsed, "peak_mib": peak, "code": code}), file=sys.stderr)
""")


def measure(args: list[str]) -> dict[str, float]:
    """One fresh process running the CLI; its wall time (imports included) and peak RSS."""
    result = subprocess.run([sys.executable, "-c", RUN, *args], capture_output=True, text=True, check=False)
    sample = json.loads(result.stderr.strip().splitlines()[-1])
    if sample["code"] != 0:
        raise SystemExit(f"designer {' '.join(args)} failed:\n{result.stderr}")
    return sample


def bench(gpus: int, runs: int, work: Path) -> dict[str, float]:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus))
    plan = [measure(["plan", str(intent), "--format", "json"]) for _ in range(runs)]
    build = [measure(["build", str(intent), "-o", str(work / f"out-{gpus}")]) for _ in range(runs)]
    files = [p for p in (work / f"out-{gpus}").rglob("*") if p.is_file()]
    return {
        "gpus": gpus,
        "plan_s": statistics.median(s["seconds"] for s in plan),
        "build_s": statistics.median(s["seconds"] for s in build),
        "build_peak_mib": statistics.median(s["peak_mib"] for s in build),
        "files": len(files),
        "output_mib": sum(p.stat().st_size for p in files) / 2**20,
    }


def table(rows: list[dict[str, float]], runs: int) -> str:
    base = rows[0]
    lines = [f"Median of {runs} runs, each a fresh process (imports included), on {platform.machine()} with "
             f"Python {platform.python_version()}; ratios against the {base['gpus']:,}-GPU row.", "",
             "| GPUs | plan (s) | build (s) | build / smallest | peak memory (MiB) | files | outputs (MiB) |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['gpus']:,} | {row['plan_s']:.2f} | {row['build_s']:.2f} | "
                     f"{row['build_s'] / base['build_s']:.1f}x | {row['build_peak_mib']:.0f} | {row['files']:,} | "
                     f"{row['output_mib']:.1f} |")
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES)
    rows = each_size(bench, args, lambda row: f"plan {row['plan_s']:.2f}s, build {row['build_s']:.2f}s")
    publish(table(rows, args.runs), "bench_build", args.write)


if __name__ == "__main__":
    main()

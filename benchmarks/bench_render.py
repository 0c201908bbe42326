"""Time the device model and the rendering of every switch's configuration, per OS, at 32k and 131k GPUs.

Each size runs in a fresh process: the design is built once (not timed), then the device model
(``device_configs``) and each OS's rendering (``render_configs`` for that OS alone, templates compiled
inside the timing) are timed ``--runs`` times; the table reports medians, the time per switch and the
ratio to the smallest size. ``--write`` replaces the table in benchmarks/README.md between its
bench_render markers.

    python benchmarks/bench_render.py [--runs 3] [--sizes 32768 131072] [--write]
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from common import INTENT, arguments, publish

SIZES = (32768, 131072)


RUN = textwrap.dedent("""\
    import json, statistics, sys, time
    from designer.pipeline import build
    from designer.backend.model import device_configs
    from designer.render import TARGETS, render_configs
    intent, runs = sys.argv[1], int(sys.argv[2])
    design = build(intent)

    def timed(work):
        samples = []
        for _ in range(runs):
            start = time.perf_counter()
            result = work()
            samples.append(time.perf_counter() - start)
            del result
        return statistics.median(samples)

    row = {"switches": len(design.configs), "interfaces": sum(len(d.interfaces) for d in design.configs),
           "model_s": timed(lambda: device_configs(design.intent, design.plan, design.fabric,
                                                               design.allocation))}
    for os in sorted(TARGETS):
        row[os + "_s"] = timed(lambda: render_configs(design.configs, [os]))
        row[os + "_mib"] = sum(map(len, render_configs(design.configs, [os]).values())) / 2**20
    print(json.dumps(row))
""")


def bench(gpus: int, runs: int, work: Path) -> dict[str, float]:
    """One fresh process: build the design, then time the model and each OS's rendering."""
    intent = work / f"bench-render-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus))
    result = subprocess.run(
        [sys.executable, "-c", RUN, str(intent), str(runs)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise SystemExit(f"rendering {gpus} GPUs failed:\n{result.stderr}")
    return {"gpus": gpus, **json.loads(result.stdout.strip().splitlines()[-1])}


def table(rows: list[dict[str, float]], runs: int) -> str:
    oses = sorted(key.removesuffix("_s") for key in rows[0] if key.endswith("_s") and key != "model_s")
    base = rows[0]
    lines = [
        f"Median of {runs} runs per size, each size in a fresh process, on {platform.machine()} with Python "
        f"{platform.python_version()}, one process; ratios against the {base['gpus']:,}-GPU row.",
        "",
        "| GPUs | switches | interfaces | model (s) | "
        + " | ".join(f"{os} (s)" for os in oses)
        + " | ms per switch ("
        + ", ".join(oses)
        + ") | ratio | outputs (MiB) |",
        "|---:|---:|---:|---:|" + "---:|" * len(oses) + "---|---:|---|",
    ]
    for row in rows:
        total = sum(row[f"{os}_s"] for os in oses)
        ratio = total / sum(base[f"{os}_s"] for os in oses)
        lines.append(
            f"| {row['gpus']:,} | {row['switches']:,} | {row['interfaces']:,} | {row['model_s']:.2f} | "
            + " | ".join(f"{row[f'{os}_s']:.2f}" for os in oses)
            + " | "
            + ", ".join(f"{1000 * row[f'{os}_s'] / row['switches']:.2f}" for os in oses)
            + f" | {ratio:.1f}x | "
            + ", ".join(f"{row[f'{os}_mib']:.0f}" for os in oses)
            + " |"
        )
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES)
    with tempfile.TemporaryDirectory() as folder:
        rows = [bench(gpus, args.runs, Path(folder)) for gpus in args.sizes]
    publish(table(rows, args.runs), "bench_render", args.write)


if __name__ == "__main__":
    main()

"""Time `designer build` of the same cluster with every link at the NIC speed and with 800G uplinks, and against a
baseline source tree (the commit before the speed per tier, for "no slower than today").

The cluster is :data:`common.INTENT` (DGX H100, 400G NICs, 64 x 800G switches run as 128 x 400G); its 800G-uplink
variant runs the leaves as 64 x 400G down and 32 x 800G up (``uplink_speed: 800G``, the spines following), which
makes fewer, faster fabric links. ``--baseline DIR`` also times the first intent with the designer package of
``DIR`` (a source tree, for example ``git archive <commit> | tar -x -C DIR``) on the same machine state, runs taken
in turns. Each run is a fresh process building into a new folder, removed after it; the table shows medians.

    python benchmarks/bench_uplinks.py [--runs 3] [--sizes 131072] [--baseline DIR] [--write]
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench_build import measure
from common import INTENT, arguments, compile_designer, each_size, publish, storage

SIZES = (131072,)
UPLINKS = INTENT.replace("{{model: generic-64x800g}}", "{{model: generic-64x800g, uplink_speed: 800G}}")
"""The same cluster with 800G uplinks."""


def variants(baseline: Path | None) -> list[tuple[str, str, dict[str, str] | None]]:
    """(label, intent, environment) of every variant timed: this tree at one speed and with 800G uplinks, and the
    baseline tree at one speed when there is one."""
    rows = [("400G everywhere", INTENT, None), ("400G down, 800G up", UPLINKS, None)]
    if baseline is not None:
        environment = {**os.environ, "PYTHONPATH": str(baseline)}
        rows.append(("400G everywhere, baseline", INTENT, environment))
    return rows


def bench(gpus: int, runs: int, work: Path, baseline: Path | None) -> dict[str, Any]:
    """Every variant's build at ``gpus`` GPUs, ``runs`` times in turns."""
    chosen = variants(baseline)
    samples: dict[str, list[dict[str, Any]]] = {label: [] for label, _, _ in chosen}
    links: dict[str, int] = {}
    for run in range(runs):
        for number, (label, text, environment) in enumerate(chosen):
            intent = work / f"variant-{number}-{gpus}.yaml"
            intent.write_text(text.format(gpus=gpus))
            output = work / f"out-{number}-{run}"
            samples[label].append(measure(["build", str(intent), "-o", str(output)], environment))
            links[label] = _links(samples[label][-1]["stdout"])
            shutil.rmtree(output)
    return {"gpus": gpus, "samples": samples, "links": links}


def _links(printed: str) -> int:
    """The links a build reports (the sum of its ``... links: N`` lines)."""
    return sum(
        int(line.split("links: ")[1].split()[0].replace(",", "")) for line in printed.splitlines() if " links: " in line
    )


def table(rows: list[dict[str, Any]], runs: int, baseline: Path | None) -> str:
    """One row per size: each variant's links, build time, CPU and peak memory (medians), and this tree's build
    against the baseline's (wall time and CPU)."""
    lines = [
        f"Median of {runs} runs in turns, each a fresh process building into a new folder, on "
        f"{os.uname().machine} with Python {sys.version.split()[0]} and {os.cpu_count()} CPUs, writing to "
        f"{storage()}"
        + (f"; the baseline is the designer of {baseline.name}" if baseline else "")
        + "; each variant: links, build time, its CPU and peak memory.",
        "",
        "| GPUs | 400G everywhere | 400G down, 800G up | 400G everywhere, baseline | build / baseline "
        "| CPU / baseline |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        cells, medians = [], {}
        for label, _, _ in variants(baseline):
            samples = row["samples"][label]
            medians[label] = [statistics.median(sample[key] for sample in samples) for key in ("seconds", "cpu")]
            peak = statistics.median(sample["peak_mib"] for sample in samples)
            seconds, cpu = medians[label]
            cells.append(f"{row['links'][label]:,} links: {seconds:.2f} s, {cpu:.2f} s CPU, {peak:.0f} MiB")
        if baseline is None:
            cells += ["-", "-", "-"]
        else:
            ours, theirs = medians["400G everywhere"], medians["400G everywhere, baseline"]
            cells += [f"{ours[0] / theirs[0]:.2f}x", f"{ours[1] / theirs[1]:.2f}x"]
        lines.append(f"| {row['gpus']:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES, lambda parser: parser.add_argument("--baseline", type=Path, default=None))
    compile_designer()
    if args.baseline is not None:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(args.baseline / "designer")], check=True)
    rows = each_size(
        lambda gpus, runs, work: bench(gpus, runs, work, args.baseline),
        args,
        lambda row: ", ".join(
            f"{label} {statistics.median(sample['seconds'] for sample in samples):.2f} s"
            for label, samples in row["samples"].items()
        ),
    )
    publish(table(rows, args.runs, args.baseline), "bench_uplinks", args.write)


if __name__ == "__main__":
    main()

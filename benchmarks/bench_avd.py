"""designer's EOS build against Arista's own renderer (pyavd) for the same fabric, side by side in one run.

The intent is bench_build's (64 x 800G switches run as 128 x 400G) with ``targets: [eos]``; 4,096 GPUs give
96 switches (64 leaves, 32 spines). Each run of each side is a fresh process, so imports count on both:

* designer: ``designer build INTENT -o DIR`` (sizing, wiring, addresses, the checks, every review file and one
  EOS file per switch).
* pyavd: a driver process that reads the AVD structured config of every switch (``eos_cli_config_gen``'s input,
  built before the clock starts by ``designer/verify/avd.py`` from the same design), validates it with
  ``pyavd.validate_structured_config`` and renders it with ``pyavd.get_device_config``, writing one ``.cfg`` per
  switch. This is ``eos_cli_config_gen`` only: pyavd's ``eos_designs`` (fabric variables to structured config)
  is not run, because the rail-optimized fabric has no AVD inventory to run it from. Leaving that step out makes
  the pyavd side faster than a real AVD pipeline, so the ratio is a lower bound.

Runs alternate between the two sides; the table reports medians and their ratio. ``--write`` replaces the table
in benchmarks/README.md between its bench_avd markers.

    python benchmarks/bench_avd.py [--runs 5] [--sizes 4096] [--write]
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench_build import measure
from common import INTENT, arguments, each_size, publish

from designer.pipeline import build
from designer.verify import avd

SIZES = (4096,)
DRIVER = """\
import json, sys
from pathlib import Path
import pyavd
configs, out = json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2])
out.mkdir()
for config in configs:
    result = pyavd.validate_structured_config(config)
    if result.validation_result.violations or result.validated_data is None:
        raise SystemExit(f"{config['hostname']}: not valid AVD input")
    (out / f"{config['hostname']}.cfg").write_text(pyavd.get_device_config(result.validated_data))
"""
"""The pyavd side: validate and render every structured config in the file, one .cfg per switch."""


def pyavd_run(configs: Path, out: Path) -> float:
    """Wall seconds of one fresh pyavd process rendering every structured config in ``configs`` into ``out``."""
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", DRIVER, str(configs), str(out)], capture_output=True, text=True,
                            check=False)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"the pyavd driver failed:\n{result.stderr}")
    return seconds


def bench(gpus: int, runs: int, work: Path) -> dict[str, Any]:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus) + "targets: [eos]\n")
    configs = work / f"structured-{gpus}.json"
    switches = build(intent).configs
    configs.write_text(json.dumps([avd.structured_config(device) for device in switches]))
    ours, arista = [], []
    for run in range(runs):
        ours.append(measure(["build", str(intent), "-o", str(work / f"out-{gpus}-{run}")])["seconds"])
        arista.append(pyavd_run(configs, work / f"avd-{gpus}-{run}"))
    rendered = len(list((work / f"avd-{gpus}-0").glob("*.cfg")))
    built = len(list((work / f"out-{gpus}-0" / "configs" / "eos").glob("*.cfg")))
    if rendered != built or built != len(switches):
        raise SystemExit(f"{len(switches)} switches, but designer wrote {built} EOS files and pyavd {rendered}")
    return {"gpus": gpus, "switches": len(switches), "designer": statistics.median(ours),
            "pyavd": statistics.median(arista)}


def table(rows: list[dict[str, Any]], runs: int) -> str:
    lines = [f"Median of {runs} runs per side, alternating, each a fresh process (imports included), on "
             f"{os.cpu_count()} CPUs ({platform.machine()}, Python {platform.python_version()}).", "",
             "| GPUs | switches | designer build, EOS only (s) | pyavd validate + render (s) | pyavd / designer |",
             "|---:|---:|---:|---:|---:|"]
    for row in rows:
        lines.append(f"| {row['gpus']:,} | {row['switches']:,} | {row['designer']:.2f} | {row['pyavd']:.2f} | "
                     f"{row['pyavd'] / row['designer']:.1f}x |")
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES)
    rows = each_size(bench, args, lambda row: f"{row['switches']:,} switches: designer {row['designer']:.2f}s, "
                                              f"pyavd {row['pyavd']:.2f}s")
    publish(table(rows, args.runs), "bench_avd", args.write)


if __name__ == "__main__":
    main()

"""designer's EOS build against Arista's AVD pipeline (pyavd's eos_designs and eos_cli_config_gen) for the same
fabric, side by side in one run.

The intent is bench_build's (64 x 800G switches run as 128 x 400G) with ``targets: [eos]``; 4,096 GPUs give
96 switches (64 leaves, 32 spines, 2 parallel links from each leaf to each spine, 64 server /31s per leaf).
Each run of each side is a fresh process, so imports count on both; designer's package is compiled to bytecode
first, as an installed wheel ships it (pyavd's already is).

* designer: ``designer build INTENT -o DIR`` (sizing, wiring, addresses, the checks, every review file and one
  EOS file per switch).
* pyavd: a driver process that reads an AVD inventory of the same fabric (``designer export avd``'s inputs,
  :func:`designer.export.avd.inputs`, written before the clock starts from the same design: ``l3leaf`` and
  ``spine`` nodes, an eBGP IPv4 underlay and no overlay, each leaf's uplinks as
  ``uplink_switches``/``uplink_interfaces``/``uplink_switch_interfaces`` numbered from the design's point-to-point
  pool, its server ports as ``l3_interfaces``, the same ASNs, loopbacks, MTU, speeds and QoS) and runs AVD's whole
  pipeline: ``validate_inputs`` for every switch, ``get_avd_facts``, ``get_device_structured_config`` for every switch
  (eos_designs), then ``validate_structured_config`` and ``get_device_config`` (eos_cli_config_gen), writing one
  ``.cfg`` per switch. Each switch's inputs hold the fabric-wide settings and its own node only (AVD reads a peer's
  settings from the peer's facts): the least input pyavd can be given. An Ansible inventory whose group variables
  list every node gives each switch all of them to validate, which is slower.

After the runs, each switch's pyavd configuration must have the same routed interfaces (names, addresses, MTU,
speed, QoS profile), the same BGP neighbors (addresses and remote ASNs) and the same local ASN as designer's EOS
file, or the benchmark fails: both sides built the same fabric. Runs alternate between the two sides, each side's
process timed from its start to its exit; the table reports the medians of each side and the median of the ratios
of each designer run to the pyavd run after it (pairs keep the ratio meaningful when the machine's speed
drifts). ``--write`` replaces the table in benchmarks/README.md between its bench_avd markers.

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
from common import INTENT, arguments, compile_designer, each_size, publish, storage

from designer.export.avd import inputs as avd_inputs
from designer.pipeline import build
from designer.verify.pyavd_eos import fabric_differences

SIZES = (4096,)
DRIVER = """\
import json, sys, time
from pathlib import Path
import pyavd
inputs, out = json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2])
out.mkdir()
seconds, start = {}, time.perf_counter()
def lap(name):
    global start
    now = time.perf_counter()
    seconds[name] = seconds.get(name, 0.0) + now - start
    start = now
def refuse(hostname, schema, result):
    found = result.validation_result
    problems = [*found.violations, *found.deprecations, *found.ignored_eos_config_keys]
    if problems or result.validated_data is None:
        raise SystemExit(f"{hostname}: not valid {schema}: "
                         + "; ".join(f"{'.'.join(map(str, item.path))}: {item.message}" for item in problems))
    return result.validated_data
validated = {hostname: refuse(hostname, "AVD design input", pyavd.validate_inputs(variables))
             for hostname, variables in inputs.items()}
lap("validate_inputs")
facts = pyavd.get_avd_facts(validated)
lap("get_avd_facts")
for hostname, variables in validated.items():
    structured = pyavd.get_device_structured_config(hostname, variables, facts)._as_dict()
    lap("get_device_structured_config")
    config = refuse(hostname, "structured config", pyavd.validate_structured_config(structured))
    lap("validate_structured_config")
    (out / f"{hostname}.cfg").write_text(pyavd.get_device_config(config))
    lap("get_device_config")
print(json.dumps(seconds))
"""
"""The pyavd side: AVD's pipeline over every switch of the inventory, one .cfg per switch, and the seconds
each of its steps took (on stdout, as JSON)."""


def pyavd_run(inputs: Path, out: Path) -> dict[str, float]:
    """One fresh pyavd process running AVD's pipeline over the inventory in ``inputs`` into ``out``: its wall
    seconds (``total``) and the seconds of each pyavd step."""
    start = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-c", DRIVER, str(inputs), str(out)], capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"the pyavd driver failed:\n{result.stderr}")
    return {**json.loads(result.stdout), "total": seconds}


def bench(gpus: int, runs: int, work: Path) -> dict[str, Any]:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus) + "targets: [eos]\n")
    inputs = work / f"inventory-{gpus}.json"
    design = build(intent)
    inputs.write_text(json.dumps(avd_inputs(design)))
    ours, arista = [], []
    for run in range(runs):
        ours.append(measure(["build", str(intent), "-o", str(work / f"out-{gpus}-{run}")])["seconds"])
        arista.append(pyavd_run(inputs, work / f"avd-{gpus}-{run}"))
    found = fabric_differences(work / f"out-{gpus}-0" / "configs" / "eos", work / f"avd-{gpus}-0")
    if found:
        raise SystemExit("pyavd did not build the same fabric:\n" + "\n".join(found))
    steps = {step: statistics.median(run[step] for run in arista) for step in arista[0]}
    return {
        "gpus": gpus,
        "switches": len(design.configs),
        "designer": statistics.median(ours),
        "pyavd": steps.pop("total"),
        "steps": steps,
        "ratio": statistics.median(run["total"] / seconds for seconds, run in zip(ours, arista, strict=True)),
    }


def table(rows: list[dict[str, Any]], runs: int) -> str:
    lines = [
        f"Median of {runs} runs per side, alternating, each a fresh process (imports included, designer "
        f"compiled to bytecode), on {os.cpu_count()} CPUs ({platform.machine()}, Python "
        f"{platform.python_version()}), both sides writing to {storage()}; the ratio is the median of the "
        f"runs' ratios, each run against the pyavd run right after it. pyavd's steps: eos_designs is "
        f"validate_inputs, get_avd_facts and get_device_structured_config; eos_cli_config_gen is "
        f"validate_structured_config and get_device_config.",
        "",
        "| GPUs | switches | designer build, EOS only (s) | pyavd eos_designs (s) | pyavd eos_cli_config_gen (s) "
        "| pyavd in all (s) | pyavd / designer |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        steps = row["steps"]
        designs = steps["validate_inputs"] + steps["get_avd_facts"] + steps["get_device_structured_config"]
        renders = steps["validate_structured_config"] + steps["get_device_config"]
        lines.append(
            f"| {row['gpus']:,} | {row['switches']:,} | {row['designer']:.2f} | {designs:.2f} | "
            f"{renders:.2f} | {row['pyavd']:.2f} | {row['ratio']:.1f}x |"
        )
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, SIZES)
    compile_designer()
    rows = each_size(
        bench,
        args,
        lambda row: f"{row['switches']:,} switches: designer {row['designer']:.2f}s, pyavd {row['pyavd']:.2f}s",
    )
    publish(table(rows, args.runs), "bench_avd", args.write)


if __name__ == "__main__":
    main()

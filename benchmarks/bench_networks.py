"""Time ``designer build`` of bench_build's intent alone and with the frontend, storage and out-of-band networks
beside its backend, at the sizes asked (default 131k GPUs), each a fresh process writing to a temporary folder.

The networks: a dual-homed 2 x 200G frontend at 3:1 and a 2 x 200G storage network at 1:1 on 64 x 400G leaves and
576 x 400G chassis spines (two tiers hold 131k GPUs' racks only with spines that large), 64 storage servers, and
an SN2201 in every rack. Target: the four networks in at most 1.5x the backend-only build and 1.5 GiB.

    python benchmarks/bench_networks.py [--runs 1] [--sizes 131072] [--write]
"""

from __future__ import annotations

import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import INTENT, arguments, compile_designer, each_size, publish, storage

FACILITY = "facility: {rack_power_kw: 36}\n"
"""Both intents: three servers a rack leave room for the top-of-rack and management switches."""
NETWORKS = """\
networks:
  frontend: {nics_per_server: 2, nic_speed: 200G, dual_homing: bgp, oversubscription: "3:1",
             leaf: {model: generic-64x400g}, spine: {model: generic-576x400g-chassis}}
  storage: {nics_per_server: 2, nic_speed: 200G, oversubscription: 1,
            leaf: {model: generic-64x400g}, spine: {model: generic-576x400g-chassis},
            storage_nodes: {count: 64, nics_per_server: 2, nic_speed: 400G}}
  oob: {spine: {model: generic-576x400g-chassis}}
management: {ntp: [192.0.2.123], syslog: [192.0.2.14], dns: [192.0.2.53]}
"""


def build_once(intent: Path, out: Path) -> tuple[float, float]:
    """One ``designer build`` in a fresh process: its wall time and the peak memory of it and its workers (MiB)."""
    command = [str(Path(sys.executable).parent / "designer"), "build", str(intent), "-o", str(out)]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    elapsed = time.perf_counter() - start
    shutil.rmtree(out)
    return elapsed, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def bench(gpus: int, runs: int, work: Path) -> dict[str, float]:
    row: dict[str, float] = {"gpus": gpus}
    for kind, extra in (("backend", ""), ("networks", NETWORKS)):
        intent = work / f"{kind}-{gpus}.yaml"
        intent.write_text(INTENT.format(gpus=gpus) + FACILITY + extra)
        samples = [build_once(intent, work / f"out-{kind}") for _ in range(runs)]
        row[f"{kind}_s"] = statistics.median(seconds for seconds, _ in samples)
        row[f"{kind}_mib"] = max(peak for _, peak in samples)
    return row


def table(rows: list[dict[str, float]], runs: int) -> str:
    lines = [
        f"Median of {runs} run(s), each `designer build` in a fresh process, on {platform.machine()} with Python "
        f"{platform.python_version()}, writing to {storage()}; peak memory is the largest process's so far (the "
        "backend-only build runs first, so the networks column is the larger of the two).",
        "",
        "| GPUs | backend only (s) | four networks (s) | ratio | backend peak (MiB) | four networks peak (MiB) |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['gpus']:,} | {row['backend_s']:.1f} | {row['networks_s']:.1f} | "
            f"{row['networks_s'] / row['backend_s']:.2f}x | {row['backend_mib']:.0f} | {row['networks_mib']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__, [131_072])
    compile_designer()
    rows = each_size(bench, args, lambda row: f"{row['backend_s']:.1f}s alone, {row['networks_s']:.1f}s with networks")
    publish(table(rows, args.runs), "bench_networks", args.write)


if __name__ == "__main__":
    main()

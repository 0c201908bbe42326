"""``designer audit`` on LLDP reports of the whole fabric: the folder's intent read and checked, the device models
made for their port names (one table per port layout), every report read and each cable compared with the design's.
Target: a 131,072-GPU fabric's reports (5,120 switches, 16,384 servers) audited in at most 60 s.

The reports are generated from the build's design.json as the devices print them when cabled as designed: every
switch EOS's ``show lldp neighbors | json`` in EOS port names, every server lldpd's ``lldpcli -f json0 show
neighbors`` in its NICs' Linux names (the shapes of tests/vendor/lldp/). Each run is a fresh process (the installed
``designer`` compiled to bytecode, as in bench_build.py); ``--write`` replaces the table between the bench_audit
markers in benchmarks/README.md.

    python benchmarks/bench_audit.py [--runs 3] [--sizes 1024 32768 131072] [--write]
"""

from __future__ import annotations

import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench_reads import measure
from common import INTENT, arguments, compile_designer, each_size, publish, seconds_and_cpu, storage

SIZES = (1024, 32768, 131072)


def lldpd_neighbor(port: str, peer: str, peer_port: str) -> dict[str, Any]:
    """One neighbour as ``lldpcli -f json0`` prints it, the peer's port by its interface name."""
    return {
        "name": port,
        "via": "LLDP",
        "chassis": [{"id": [{"type": "mac", "value": "02:00:00:00:00:02"}], "name": [{"value": peer}]}],
        "port": [{"id": [{"type": "ifname", "value": peer_port}], "descr": [{"value": peer_port}]}],
    }


def write_reports(design: dict[str, Any], folder: Path) -> list[Path]:
    """One report per device of ``design`` (design.json) cabled as designed, written into ``folder``."""
    nics = {row["name"]: row["nics"] for row in design["devices"] if row["role"] == "server"}
    switches: dict[str, list[dict[str, Any]]] = {}
    servers: dict[str, list[dict[str, Any]]] = {}

    def shown(device: str, port: str, eos: str) -> str:
        return nics[device][int(port.removeprefix("nic"))] if device in nics else eos

    for row in design["links"]:
        (a, a_port, _), (z, z_port, _), (a_eos, z_eos) = row["a"], row["z"], row["os_ports"]["eos"]
        for (device, port, name), (peer, peer_port, peer_name) in (
            ((a, a_port, a_eos), (z, z_port, z_eos)),
            ((z, z_port, z_eos), (a, a_port, a_eos)),
        ):
            seen = shown(peer, peer_port, peer_name)
            if device in nics:
                servers.setdefault(device, []).append(lldpd_neighbor(shown(device, port, name), peer, seen))
            else:
                neighbors = switches.setdefault(device, [])
                neighbors.append({"port": name, "neighborDevice": peer, "neighborPort": seen, "ttl": 120})
    folder.mkdir()
    paths = []
    for device, neighbors in switches.items():
        paths.append(folder / f"{device}.json")
        paths[-1].write_text(json.dumps({"lldpNeighbors": neighbors}))
    for device, interfaces in servers.items():
        paths.append(folder / f"{device}.json")
        paths[-1].write_text(json.dumps({"lldp": [{"interface": interfaces}]}))
    return paths


def bench(gpus: int, runs: int, work: Path) -> dict[str, Any]:
    intent = work / f"bench-{gpus}.yaml"
    intent.write_text(INTENT.format(gpus=gpus).replace("fabric:\n", "targets: [eos]\nfabric:\n", 1))
    output, found = work / f"out-{gpus}", work / f"lldp-{gpus}"
    designer = [sys.executable, "-m", "designer.cli"]
    subprocess.run([*designer, "build", str(intent), "-o", str(output)], check=True, capture_output=True)
    design = json.loads((output / "design.json").read_text())
    files = write_reports(design, found)
    timings = [measure([*designer, "audit", str(output), *map(str, files)]) for _ in range(runs)]
    shutil.rmtree(output)
    shutil.rmtree(found)
    return {
        "gpus": gpus,
        "switches": sum(row["role"] != "server" for row in design["devices"]),
        "reports": len(files),
        "cables": len(design["links"]),
        "seconds": statistics.median(timing["seconds"] for timing in timings),
        "cpu_seconds": statistics.median(timing["cpu_seconds"] for timing in timings),
        "peak_mib": max(timing["peak_mib"] for timing in timings),
    }


def table(rows: list[dict[str, Any]], runs: int) -> str:
    lines = [
        f"Median of {runs} runs, each a fresh process, on {platform.machine()} with Python "
        f"{platform.python_version()} and {os.cpu_count()} CPUs, reading from {storage()}.",
        "",
        "| GPUs | switches | reports | cables | audit (s) | CPU (s) | peak memory (MiB) |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {row['gpus']:,} | {row['switches']:,} | {row['reports']:,} | {row['cables']:,} | {row['seconds']:.2f} | "
        f"{row['cpu_seconds']:.2f} | {row['peak_mib']:.0f} |"
        for row in rows
    ]
    return "\n".join(lines)


def main() -> None:
    args = arguments(__doc__ or "", SIZES)
    compile_designer()
    publish(table(each_size(bench, args, seconds_and_cpu), args.runs), "bench_audit", args.write)


if __name__ == "__main__":
    main()

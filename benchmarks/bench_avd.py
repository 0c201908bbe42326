"""designer's EOS build against Arista's AVD pipeline (pyavd's eos_designs and eos_cli_config_gen) for the same
fabric, side by side in one run.

The intent is bench_build's (64 x 800G switches run as 128 x 400G) with ``targets: [eos]``; 4,096 GPUs give
96 switches (64 leaves, 32 spines, 2 parallel links from each leaf to each spine, 64 server /31s per leaf).
Each run of each side is a fresh process, so imports count on both; designer's package is compiled to bytecode
first, as an installed wheel ships it (pyavd's already is).

* designer: ``designer build INTENT -o DIR`` (sizing, wiring, addresses, the checks, every review file and one
  EOS file per switch).
* pyavd: a driver process that reads an AVD inventory of the same fabric (:func:`inventory`, written before the
  clock starts from the same design: ``l3leaf`` and ``spine`` nodes, an eBGP IPv4 underlay and no overlay,
  each leaf's uplinks as ``uplink_switches``/``uplink_interfaces``/``uplink_switch_interfaces`` numbered from
  the design's point-to-point pool, its server ports as ``l3_interfaces``, the same ASNs, loopbacks, MTU,
  speeds and QoS) and runs AVD's whole pipeline: ``validate_inputs`` for every switch, ``get_avd_facts``,
  ``get_device_structured_config`` for every switch (eos_designs), then ``validate_structured_config`` and
  ``get_device_config`` (eos_cli_config_gen), writing one ``.cfg`` per switch. Each switch's inputs hold the
  fabric-wide settings and its own node only (AVD reads a peer's settings from the peer's facts): the least
  input pyavd can be given. An Ansible inventory whose group variables list every node gives each switch all
  of them to validate, which is slower.

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
import re
import statistics
import subprocess
import sys
import time
from ipaddress import ip_interface
from pathlib import Path
from typing import Any

from bench_build import measure
from common import INTENT, arguments, compile_designer, each_size, publish, storage

from designer.allocate import Pool
from designer.design import Design
from designer.model import DeviceConfig
from designer.pipeline import build
from designer.render import eos
from designer.verify import avd

SIZES = (4096,)
NODE_TYPES = {"leaf": "l3leaf", "spine": "spine"}
"""AVD's node type key for each role designer builds in a 2-tier fabric."""
PASSED_THROUGH = ("qos", "qos_profiles", "priority_flow_control", "eos_cli", "router_bfd")
"""Parts of a switch's structured config that eos_designs has no model for (RoCE QoS, the ECMP hash, BFD
timers): each node carries them as its ``structured_config``, AVD's way to add configuration to a node."""
BGP_PASSED_THROUGH = ("timers", "maximum_paths", "bgp_defaults", "aggregate_addresses")
"""BGP settings that differ between leaves and spines, where eos_designs has only fabric-wide keys."""
INTERFACE_SETTINGS = ("ip", "mtu", "speed", "service-profile")
"""The settings of a routed interface the comparison reads (``ip`` is ``ip address``), in this order."""
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


def inventory(design: Design) -> dict[str, dict[str, Any]]:
    """The design as AVD inputs, by hostname: what ``pyavd.validate_inputs`` takes for each switch.

    Leaves are numbered so that AVD's uplink addressing (``uplink_ipv4_pool`` at offset
    ``(id - 1) x max_uplink_switches x max_parallel_uplinks + uplink index``, the leaf on the odd address)
    gives every link the design's own /31; the comparison after the run proves it did."""
    configs = design.configs
    names = {
        (device.hostname, interface.name): device.os_port_name("eos", interface)
        for device in configs
        for interface in device.interfaces
    }
    pool = design.allocation.fabric_p2p
    first_view = eos.view(configs[0])
    fabric = {
        "fabric_name": design.intent.name,
        "underlay_routing_protocol": "ebgp",
        "overlay_routing_protocol": "none",
        "p2p_uplinks_mtu": first_view["mtu"],
        "p2p_uplinks_qos_profile": first_view["qos_profile"],
        "bgp_peer_groups": {"ipv4_underlay_peers": {"maximum_routes": 0, "bfd": configs[0].bgp.bfd is not None}},
    }
    spine_ids = {
        device.hostname: number
        for number, device in enumerate((device for device in configs if device.role == "spine"), 1)
    }
    inputs = {}
    for device in configs:
        if device.role not in NODE_TYPES:
            raise SystemExit(f"{device.hostname}: AVD's l3leaf/spine inventory has no place for a {device.role}")
        structured = avd.structured_config(device)
        bgp = structured["router_bgp"]
        node: dict[str, Any] = {
            "name": device.hostname,
            "bgp_as": str(device.asn),
            "loopback_ipv4_address": device.router_id,
            "loopback_ipv4_pool": design.allocation.loopback_pool.cidr,
            "structured_config": {
                **{key: structured[key] for key in PASSED_THROUGH if key in structured},
                "router_bgp": {key: bgp[key] for key in BGP_PASSED_THROUGH if bgp.get(key)},
            },
        }
        if device.role == "leaf":
            node |= _leaf(device, names, pool)
        else:
            node["id"] = spine_ids[device.hostname]
        key = NODE_TYPES[device.role]
        inputs[device.hostname] = {**fabric, "type": key, key: {"nodes": [node]}}
    return inputs


def _leaf(device: DeviceConfig, names: dict[tuple[str, str], str], pool: Pool) -> dict[str, Any]:
    """A leaf's AVD node settings: its id, its uplinks in address order and its server ports."""
    view = eos.view(device)
    speeds = {interface.name: speed for _, speed, interface in view["interfaces"]}
    uplinks = sorted(
        (interface for interface in device.interfaces if interface.role == "fabric"),
        key=lambda interface: ip_interface(interface.address),
    )
    spines = len({interface.peer_device for interface in uplinks})
    first_link = (int(ip_interface(uplinks[0].address).network.network_address) - pool.first) // 2
    return {
        "id": first_link // len(uplinks) + 1,
        "vtep": False,
        "uplink_ipv4_pool": pool.cidr,
        "uplink_switches": [interface.peer_device for interface in uplinks],
        "uplink_interfaces": [names[device.hostname, interface.name] for interface in uplinks],
        "uplink_switch_interfaces": [names[interface.peer_device, interface.peer_interface] for interface in uplinks],
        "max_uplink_switches": spines,
        "max_parallel_uplinks": len(uplinks) // spines,
        "uplink_interface_speed": speeds[uplinks[0].name],
        "l3_interfaces": [
            {
                "name": name,
                "description": interface.description,
                "ip_address": interface.address,
                "speed": speed,
                "qos_profile": view["qos_profile"],
                "structured_config": {"mtu": view["mtu"]},
            }
            for name, speed, interface in view["interfaces"]
            if interface.role == "server"
        ],
    }


def fabric_of(text: str) -> dict[str, Any]:
    """What makes a switch's EOS configuration part of a fabric: its BGP ASN, every routed interface (name:
    address, MTU, speed and QoS service profile) and every BGP neighbor (address: remote ASN). Descriptions,
    order, peer groups and other defaults are left out."""
    routed: dict[str, dict[str, str]] = {}
    neighbors: dict[str, str] = {}
    asn = None
    for _, parents, line in avd.contexts(text):
        words = line.split()
        if (
            parents
            and parents[0].startswith("interface ")
            and words[0] in INTERFACE_SETTINGS
            and (words[0] != "ip" or words[1] == "address")
        ):
            routed.setdefault(parents[0].removeprefix("interface "), {})[words[0]] = words[-1]
        elif parents and parents[0].startswith("router bgp "):
            asn = parents[0].split()[2]
            if len(parents) == 1 and (match := re.fullmatch(r"neighbor (\S+) remote-as (\S+)", line)):
                neighbors[match[1]] = match[2]
    return {
        "asn": asn,
        "neighbors": neighbors,
        "routed": {
            name: {key: settings[key] for key in INTERFACE_SETTINGS if key in settings}
            for name, settings in routed.items()
            if "ip" in settings
        },
    }


def differences(ours: Path, arista: Path) -> list[str]:
    """Each switch whose configuration in ``arista`` (pyavd's) is not the same part of the same fabric as its
    file in ``ours`` (designer's ``configs/eos``), with what differs; a switch only one side wrote is one too."""
    found = []
    for name in sorted({path.name for path in ours.glob("*.cfg")} | {path.name for path in arista.glob("*.cfg")}):
        if not (ours / name).is_file() or not (arista / name).is_file():
            found.append(f"{name}: only {'pyavd' if (arista / name).is_file() else 'designer'} wrote it")
            continue
        mine, theirs = fabric_of((ours / name).read_text()), fabric_of((arista / name).read_text())
        found += [
            f"{name}: {part}: designer {_only(mine[part], theirs[part])}, pyavd {_only(theirs[part], mine[part])}"
            for part in mine
            if mine[part] != theirs[part]
        ]
    return found


def _only(these: Any, those: Any) -> Any:
    """What ``these`` has that ``those`` lacks (dictionaries: the differing entries)."""
    if isinstance(these, dict):
        return {key: value for key, value in these.items() if those.get(key) != value}
    return these


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
    inputs.write_text(json.dumps(inventory(design)))
    ours, arista = [], []
    for run in range(runs):
        ours.append(measure(["build", str(intent), "-o", str(work / f"out-{gpus}-{run}")])["seconds"])
        arista.append(pyavd_run(inputs, work / f"avd-{gpus}-{run}"))
    found = differences(work / f"out-{gpus}-0" / "configs" / "eos", work / f"avd-{gpus}-0")
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

"""A built design as Arista AVD ``eos_designs`` inputs: an Ansible inventory, the fabric's group variables and one
host variables file per switch, which AVD's own pipeline (pyavd) turns into the same fabric as designer's EOS files.

Layout (stable; every file YAML):

* ``inventory.yml``: ``all > <fabric name> > SPINES, L3LEAFS``, one host per switch.
* ``group_vars/<fabric name>.yml``: the fabric-wide settings: eBGP underlay without overlay, the uplinks' MTU
  and QoS profile, the underlay peer group (BFD when the design runs it).
* ``host_vars/<switch>.yml``: ``type`` (``spine`` or ``l3leaf``) and the switch as the one node of that type:
  its ASN, loopback and, for a leaf, its ``id``, uplinks (switches, interfaces on both ends and their speeds) and
  server ports as ``l3_interfaces``. AVD numbers uplink /31s from ``uplink_ipv4_pool`` at offset
  ``(id - 1) x max_uplink_switches x max_parallel_uplinks + uplink``, so each leaf's ``id`` is chosen to give
  every link the design's own /31. What eos_designs has no model for (the RoCE QoS, PFC, the ECMP hash, BFD timers,
  per-role BGP settings) rides in the node's ``structured_config``, AVD's way to add configuration to a node.
* ``manifest.json``: the design's name and every file's sha256.

AVD's inventory has leaf and spine nodes only: a 3-tier design is refused.
"""

from __future__ import annotations

import hashlib
import json
from ipaddress import ip_interface
from pathlib import Path
from typing import Any

import yaml

from designer import __version__
from designer.backend.model import DeviceConfig, Interface
from designer.design import Design
from designer.errors import InputError, PrerequisiteError, Problem
from designer.outputs.folder import INTENT_FILE, claim
from designer.readback.built import folder_intent
from designer.render import eos
from designer.verify import pyavd_eos

NODE_TYPES = {"leaf": "l3leaf", "spine": "spine"}
"""AVD's node type key for each role designer builds in a 2-tier fabric."""
GROUPS = {"spine": "SPINES", "l3leaf": "L3LEAFS"}
"""The inventory group of each node type, as AVD's examples name them."""
PASSED_THROUGH = ("qos", "qos_profiles", "priority_flow_control", "eos_cli", "router_bfd")
"""Parts of a switch's structured config that eos_designs has no model for (RoCE QoS, the ECMP hash, BFD
timers): each node carries them as its ``structured_config``."""
BGP_PASSED_THROUGH = ("timers", "maximum_paths", "bgp_defaults", "aggregate_addresses")
"""BGP settings that differ between leaves and spines, where eos_designs has only fabric-wide keys."""


def fabric_settings(design: Design) -> dict[str, Any]:
    """The fabric-wide eos_designs settings (the fabric group's variables)."""
    first = design.configs[0]
    view = eos.view(first, limits=design.intent.catalog.targets["eos"])
    return {
        "fabric_name": design.intent.name,
        "underlay_routing_protocol": "ebgp",
        "overlay_routing_protocol": "none",
        "p2p_uplinks_mtu": view["mtu"],
        "p2p_uplinks_qos_profile": view["qos_profile"],
        "bgp_peer_groups": {"ipv4_underlay_peers": {"maximum_routes": 0, "bfd": first.bgp.bfd is not None}},
    }


def nodes(design: Design) -> dict[str, dict[str, Any]]:
    """Each switch's host variables: its node type and itself as the one node of that type."""
    configs = design.configs
    others = sorted({device.role for device in configs} - set(NODE_TYPES))
    if others:
        raise InputError(
            [
                Problem(
                    ("fabric", "tiers"),
                    f"AVD's eos_designs inventory has leaf and spine nodes only, and this design has "
                    f"{', '.join(role.replace('_', '-') + 's' for role in others)}: export a 2-tier design",
                )
            ],
            design.intent.source,
        )
    if design.intent.routing.underlay == "unnumbered":
        raise InputError(
            [
                Problem(
                    ("routing", "underlay"),
                    "the AVD export places each leaf's uplinks by their /31s (eos_designs' uplink_ipv4_pool and node "
                    "id), and an unnumbered design has none; export a numbered design (the EOS files of this one are "
                    "proven against pyavd's underlay_rfc5549 rendering by validate-configs)",
                )
            ],
            design.intent.source,
        )
    spine_ids = {
        device.hostname: number
        for number, device in enumerate((device for device in configs if device.role == "spine"), 1)
    }
    by_name = {device.hostname: device for device in configs}
    assert design.allocation is not None  # an Ethernet design: built_design() refuses any other
    loopbacks = design.allocation.loopback_pool.cidr
    hosts = {}
    for device in configs:
        structured = pyavd_eos.structured_config(device, design.intent.catalog.targets["eos"])
        bgp = structured["router_bgp"]
        node: dict[str, Any] = {
            "name": device.hostname,
            "bgp_as": str(device.asn),
            "loopback_ipv4_address": device.router_id,
            "loopback_ipv4_pool": loopbacks,
            "structured_config": {
                **{key: structured[key] for key in PASSED_THROUGH if key in structured},
                "router_bgp": {key: bgp[key] for key in BGP_PASSED_THROUGH if bgp.get(key)},
            },
        }
        if device.role == "leaf":
            node |= _leaf(device, by_name, design)
        else:
            node["id"] = spine_ids[device.hostname]
        key = NODE_TYPES[device.role]
        hosts[device.hostname] = {"type": key, key: {"nodes": [node]}}
    return hosts


def _speed(view: dict[str, Any], name: str) -> str:
    """EOS's speed of the interface named ``name`` in a device's EOS ``view`` (``400g-4``)."""
    speed: str = next(speed for _, speed, _, interface in view["interfaces"] if interface.name == name)
    return speed


def _peer_interface(by_name: dict[str, DeviceConfig], link: Interface) -> Interface:
    """The interface at the far end of ``link``."""
    return next(item for item in by_name[link.peer_device].interfaces if item.name == link.peer_interface)


def _leaf(device: DeviceConfig, by_name: dict[str, DeviceConfig], design: Design) -> dict[str, Any]:
    """A leaf's AVD node settings: its id, its uplinks in address order and its server ports."""
    assert design.allocation is not None  # an Ethernet design: built_design() refuses any other
    pool = design.allocation.fabric_p2p
    view = eos.view(device, limits=design.intent.catalog.targets["eos"])
    uplinks = sorted(
        (interface for interface in device.interfaces if interface.role == "fabric"),
        key=lambda interface: ip_interface(interface.address),
    )
    spines = len({interface.peer_device for interface in uplinks})
    first_link = (int(ip_interface(uplinks[0].address).network.network_address) - pool.first) // 2
    peer = by_name[uplinks[0].peer_device]
    return {
        "id": first_link // len(uplinks) + 1,
        "vtep": False,
        "uplink_ipv4_pool": pool.cidr,
        "uplink_switches": [interface.peer_device for interface in uplinks],
        "uplink_interfaces": [device.os_port_name("eos", interface) for interface in uplinks],
        "uplink_switch_interfaces": [
            by_name[link.peer_device].os_port_name("eos", _peer_interface(by_name, link)) for link in uplinks
        ],
        "max_uplink_switches": spines,
        "max_parallel_uplinks": len(uplinks) // spines,
        "uplink_interface_speed": _speed(view, uplinks[0].name),
        "uplink_switch_interface_speed": _speed(
            eos.view(peer, limits=design.intent.catalog.targets["eos"]), uplinks[0].peer_interface
        ),
        "l3_interfaces": [
            {
                "name": name,
                "description": description,
                "ip_address": interface.address,
                "speed": speed,
                "qos_profile": view["qos_profile"],
                "structured_config": {"mtu": view["mtu"]},
            }
            for name, speed, description, interface in view["interfaces"]
            if interface.role == "server"
        ],
    }


def inputs(design: Design) -> dict[str, dict[str, Any]]:
    """What ``pyavd.validate_inputs`` takes for each switch: the fabric's settings and the switch's own node."""
    fabric = fabric_settings(design)
    return {hostname: {**fabric, **host} for hostname, host in nodes(design).items()}


def _yaml(value: Any) -> bytes:
    return yaml.safe_dump(value, sort_keys=False, default_flow_style=False, width=120).encode()


def export_files(design: Design) -> dict[str, bytes]:
    """Every file of the export, by path below the export folder (without the manifest)."""
    hosts = nodes(design)
    fabric = design.intent.name
    groups: dict[str, dict[str, Any]] = {group: {"hosts": {}} for group in GROUPS.values()}
    for hostname, host in hosts.items():
        groups[GROUPS[host["type"]]]["hosts"][hostname] = None
    files = {
        "inventory.yml": _yaml({"all": {"children": {fabric: {"children": groups}}}}),
        f"group_vars/{fabric}.yml": _yaml(fabric_settings(design)),
    }
    files.update({f"host_vars/{hostname}.yml": _yaml(host) for hostname, host in hosts.items()})
    return files


def built_design(folder: Path) -> Design:
    """The design of a built folder, rebuilt from its own ``intent.yaml`` (and site catalog) after checking them
    against its manifest."""
    from designer.pipeline import design

    intent = folder_intent(folder)
    if intent is None:
        raise PrerequisiteError(
            f"{folder} has no {INTENT_FILE} (an older designer built it); rebuild it with 'designer build INTENT'"
        )
    if intent.technology != "ethernet":
        raise PrerequisiteError(
            f"{folder} is an {intent.technology} design: AVD and ANTA take Ethernet fabrics of EOS switches; its "
            "subnet manager's files are in configs/opensm/"
        )
    return design(intent, hosts=False)


def write_export(design: Design, target: Path, kind: str, files: dict[str, bytes], source: Path) -> int:
    """Replace ``target`` (new, empty or an earlier export of the same ``kind``, never the ``source`` folder it is
    made from) with the ``kind`` export's ``files`` and its manifest; the number of files."""
    record = {
        "name": design.intent.name,
        "tool": "designer",
        "version": __version__,
        "export": kind,
        "intent_sha256": design.intent.sha256,
        "files": {path: hashlib.sha256(data).hexdigest() for path, data in sorted(files.items())},
    }
    written = {**files, "manifest.json": (json.dumps(record, indent=2) + "\n").encode()}
    with claim(target, f"export {kind}", [source]) as folder:
        folder.write(written)
    return len(written)

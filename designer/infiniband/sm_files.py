"""The subnet manager's files that only a discovered fabric can give: they are keyed by GUIDs, which exist only on
the hardware, so a build never writes them.

* ``root_guids.conf``: the node GUIDs of the switches at the top of the design (its spines, or super-spines in
  three tiers), one a line, for OpenSM's ``root_guid_file``. With it ``routing_engine ftree`` keeps routing the fat
  tree after a cable or switch fails; without it ftree needs a pure fat tree to find the roots itself and falls
  back to min-hop when one fails (OpenSM's manual, "Fat-tree Routing Algorithm").
* ``node-name-map``: ``0x<guid> "<name>"`` for every switch and HCA the design names, for OpenSM's
  ``node_name_map_name`` and the diagnostics' ``--node-name-map`` (``ibnetdiscover``, ``iblinkinfo``,
  ``ibtracert``), so their output speaks the design's names.

Both are read by OpenSM's ``parse_node_map`` (complib/cl_nodenamemap.c), which skips ``#`` comments;
``manifest.json`` beside them marks the folder as designer's, so a second run replaces it and nothing else.
``designer audit OUTPUT DISCOVERY --sm-files DIR`` writes them (:mod:`designer.audit.run`).
:func:`design_names` reads what a built folder calls things (devices, cables, the switches' logical port names and
the servers' RDMA devices, from its intent) for :func:`designer.infiniband.ibnetdiscover.named`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from operator import itemgetter
from pathlib import Path

from designer import __version__
from designer.backend.port_names import os_port_names
from designer.backend.sizing import size
from designer.backend.wiring import Fabric, natural, wire
from designer.errors import InputError, Problem
from designer.infiniband.ibnetdiscover import DesignNames, Named
from designer.intent import Intent
from designer.outputs.folder import SM_FILES, write
from designer.readback.built import folder_intent

ROOTS, NAME_MAP = "root_guids.conf", "node-name-map"
TOP = ("super_spine", "spine")
"""The roles that can be a fat tree's top, highest first: the top is the highest the design has."""


def sm_files(found: Named, design: DesignNames) -> dict[str, str]:
    """The root GUID file and the node-name map of the discovery ``found``, named after ``design``."""
    roles = set(design.roles.values())
    top = next((role for role in TOP if role in roles), "leaf")
    nodes = sorted(_named_nodes(found, design), key=itemgetter(0))  # stable: a name found twice, in the order found
    roots = [(guid, name) for _key, guid, name in nodes if design.roles.get(name) == top]
    return {
        ROOTS: "".join(
            [
                f"# The {len(roots)} {top.replace('_', '-')} switches at the top of the fat tree, by node GUID as "
                "discovered: OpenSM's root_guid_file for routing_engine ftree.\n",
                *(f"0x{guid:016x}  # {name}\n" for guid, name in roots),
            ]
        ),
        NAME_MAP: "".join(
            [
                "# Node GUID to the design's name: OpenSM's node_name_map_name and the diagnostics' --node-name-map.\n",
                *(f'0x{guid:016x} "{name}"\n' for _key, guid, name in nodes),
            ]
        ),
    }


def _named_nodes(found: Named, design: DesignNames) -> list[tuple[tuple[object, ...], int, str]]:
    """Every node ``found`` names as ``(natural key, guid, name)``, the switches first, in the order found: an
    HCA is ``<host> <rdma device>``, whose key joins its host's and its device's (the space between them ends the
    host's last part, so the key is that of the whole name), each computed once."""
    nodes = [(natural(name), guid, name) for guid, name in found.switches.items()]
    devices = [natural(f" {device}") for device in design.rdma_devices]
    hosts: dict[str, tuple[object, ...]] = {}
    for guid, (host, index) in found.hcas.items():
        own = hosts.get(host) or hosts.setdefault(host, natural(host))
        device = devices[index]
        nodes.append(((*own[:-1], f"{own[-1]}{device[0]}", *device[1:]), guid, f"{host} {design.rdma_devices[index]}"))
    return nodes


def design_names(folder: Path) -> DesignNames:
    """The names of the design built in ``folder``, from its intent (checked against the manifest): the fabric it
    wires is the one the build wrote, so design.json need not be read."""
    intent = folder_intent(folder)
    if intent is None:
        missing = Problem(("intent.yaml",), "is missing; rebuild the folder with 'designer build INTENT'")
        raise InputError([missing], about=str(folder))
    return names_of(intent)


def names_of(intent: Intent, fabric: Fabric | None = None) -> DesignNames:
    """The names of the design of ``intent`` (its ``fabric``, wired here when not given): nothing is allocated or
    modelled. The switches' ports as their vendor names them are those the fabric's subnet manager's names give
    (:func:`designer.backend.port_names.os_port_names`), when it has one."""
    fabric = fabric or wire(intent, size(intent))
    ports = fabric.port_names()
    vendor = os_port_names(intent, fabric)[intent.subnet_managers[0]] if intent.subnet_managers else []
    device_names = [device.name for device in fabric.devices]
    peers: dict[tuple[str, str], tuple[str, str]] = {}
    for _tier, upper, upper_port, lower, lower_port in fabric.links:
        a = (device_names[upper], ports[upper][upper_port])
        z = (device_names[lower], ports[lower][lower_port])
        peers[a], peers[z] = z, a
    return DesignNames(
        {device.name: device.role for device in fabric.devices},
        {device.name: names for device, names in zip(fabric.devices, ports, strict=True)},
        peers,
        intent.hosts.rdma_devices,
        {device.name: names for device, names in zip(fabric.switches(), vendor, strict=False)},
        intent.name,
    )


def write_sm_files(found: Named, design: DesignNames, where: str, folder: Path, target: Path) -> dict[str, str]:
    """Write the subnet manager's files of the discovery ``found`` (read from ``where``, named after ``design``,
    built in ``folder``) into ``target`` (new, empty, or written here before) and return them. Raises
    :class:`InputError` when the discovery names none of the design's top switches."""
    files = sm_files(found, design)
    if files[ROOTS].count("\n") == 1:
        raise InputError(
            [
                Problem(
                    (where,),
                    "names none of the design's top switches (they are known by the HCAs and leaves below them); "
                    f"give ibnetdiscover output of the fabric built from {folder}",
                )
            ],
            about=where,
        )
    data = {name: text.encode() for name, text in files.items()}
    write({**data, "manifest.json": _manifest(data)}, target, SM_FILES, [folder])
    return files


def _manifest(files: Mapping[str, bytes]) -> bytes:
    hashes = {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())}
    record = {"tool": "designer", "version": __version__, "output": SM_FILES, "files": hashes}
    return (json.dumps(record, indent=2) + "\n").encode()

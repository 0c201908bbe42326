"""An audit of a built folder against discovery files: the design's cables, the devices' names, the reports.

LLDP files are read in each OS's port names (:mod:`designer.audit.names`); an ``ibnetdiscover`` file is named by
:func:`designer.infiniband.ibnetdiscover.named` (HCAs by node description, switches by where they sit), so its cables
arrive in the design's own names (an InfiniBand switch's ports in its vendor's, as cabling.csv gives them) and are
compared with the design's cables from the folder's intent as one more name family, ``ibnetdiscover``. With
``sm_target`` the same discovery also gives OpenSM's GUID-keyed files (:mod:`designer.infiniband.sm_files`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from designer.audit.compare import Audit, Link, audit, link
from designer.audit.inputs import reports
from designer.audit.names import FAMILIES, PortNames, port_names
from designer.audit.readers import Cable
from designer.errors import InputError, Problem
from designer.infiniband.ibnetdiscover import DesignNames, Named, named, parse
from designer.infiniband.sm_files import design_names, write_sm_files
from designer.readback.built import read_built_design

FABRIC = "ibnetdiscover"
"""The name family of an ``ibnetdiscover`` file's cables: the design's own port names."""


def designed_links(design: dict[str, Any]) -> list[Link]:
    """Every cable of a checked design.json, as two ``(device, port)`` ends."""
    return [link((row["a"][0], row["a"][1]), (row["z"][0], row["z"][1])) for row in design["links"]]


def fabric_reports(found: Named) -> dict[str, tuple[str, list[Cable]]]:
    """A named discovery as reports: every switch and server it named, each cable under an end the design names
    (its upper end first); a cable between two ends it cannot name stays under the first, whose GUID the audit
    shows outside the design."""
    devices = [*found.switches.values(), *(host for host, _ in found.hcas.values())]
    cables: dict[str, tuple[str, list[Cable]]] = {device: (FABRIC, []) for device in devices}
    for cable in found.cables:
        device, port, peer, peer_port = cable
        if device.startswith("0x") and not peer.startswith("0x"):
            device, cable = peer, (peer, peer_port, device, port)
        if (reported := cables.get(device)) is None:
            reported = cables[device] = (FABRIC, [])
        reported[1].append(cable)
    return cables


def fabric_links(design: DesignNames) -> list[Link]:
    """Every cable of the design, its switch ends in their vendor's port names as a named discovery gives them."""
    return [link(design.reported(end), design.reported(peer)) for end, peer in design.peers.items() if end < peer]


def fabric_port_names(design: DesignNames) -> PortNames:
    """Port names for a named discovery: every device's ports under their own names (a switch's its vendor's) in
    the ``ibnetdiscover`` family, the LLDP families empty."""
    layouts: dict[int, dict[str, str]] = {}  # devices of one port layout share their names' table
    own = {}
    for device, ports in design.ports.items():
        names = design.vendor_ports.get(device, ports)
        own[device] = layouts.get(id(names)) or layouts.setdefault(id(names), {port: port for port in names})
    return PortNames({**{family: {} for family in FAMILIES}, FABRIC: own}, {})


def audit_output(folder: Path, files: Sequence[Path], sm_target: Path | None = None) -> tuple[str, Audit]:
    """The design's name and the audit of ``files`` (one LLDP file per device, or one ``ibnetdiscover`` file)
    against ``folder``; with ``sm_target``, the subnet manager's files from the ``ibnetdiscover`` file written
    there first. design.json is read for LLDP files only: a discovery's cables are compared with the design's
    from the folder's intent (checked against the manifest)."""

    @cache
    def design() -> dict[str, Any]:
        return read_built_design(folder)

    @cache
    def devices() -> set[str]:
        return {row["name"] for row in design()["devices"]}

    found = reports(files, devices)
    if found.fabric is None:
        if sm_target is not None:
            raise InputError(
                [
                    Problem(
                        ("--sm-files",),
                        "needs ibnetdiscover output of an InfiniBand fabric ('ibnetdiscover > FILE'), "
                        "not LLDP files; drop --sm-files to audit these",
                    )
                ],
                about="the command line",
            )
        return design()["name"], audit(designed_links(design()), found.devices, port_names(folder, design()["devices"]))
    where, text = found.fabric
    names = design_names(folder)
    discovered = named(parse(where, text), names)
    if sm_target is not None:
        write_sm_files(discovered, names, where, folder, sm_target)
    return names.name, audit(fabric_links(names), fabric_reports(discovered), fabric_port_names(names))

"""The port names each device reports over LLDP, mapped to the design's (``swpN``, ``swpNsL``, ``nicN``).

A switch reports its own OS's names: EOS ``Ethernet{port}`` or ``Ethernet{port}/{lane}``; under lldpd (SONiC,
Cumulus Linux, the FRR lab) the kernel's interface names, SONiC's ``Ethernet{first lane}`` or Cumulus's ``swpN``
and ``swpNsL`` (the design's own), and a SONiC peer's description (which opens with the design's name). A server
reports its backend NICs' Linux names (``nics`` in design.json, in port order; with hwplb its plane PFs',
``plane_nics``). :func:`switch_port_names` is the one
place that reads the switches' OS names, from the device models, each OS's under the name family of its record
(:attr:`designer.targets.Target.discovery`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from designer.intent.nic_names import server_interfaces
from designer.targets import TARGETS, per_switch

FAMILIES = tuple(sorted({target.discovery for target in TARGETS.values()}))
"""The name families a discovery format reports (:attr:`designer.audit.readers.Format.names`)."""


def switch_port_names(folder: Path) -> dict[str, dict[str, dict[str, str]]]:
    """Each family's names of every logical port of every switch, by switch, mapping the reported name to the
    design's, from the device models of the folder's intent (their ``os_port_names``, each OS's under its record's
    family). One table per port layout, shared by the switches of that layout (their models share its names)."""
    from designer.pipeline import device_models
    from designer.readback.built import folder_intent

    tables: dict[str, dict[str, dict[str, str]]] = {family: {} for family in FAMILIES}
    layouts: dict[tuple[int, int], dict[str, dict[str, str]]] = {}
    intent = folder_intent(folder)
    for device in device_models(intent) if intent else ():
        layout = (id(device.os_port_names), id(device.port_names))
        if layout not in layouts:
            layouts[layout] = layout_tables(device.os_port_names, device.port_names)
        for family, names in layouts[layout].items():
            tables[family][device.hostname] = names
    return tables


def layout_tables(os_port_names: Mapping[str, Sequence[str]], port_names: Sequence[str]) -> dict[str, dict[str, str]]:
    """Each family's names of one port layout's logical ports (``os_port_names`` by OS, ``port_names`` the
    design's, in the same order), mapping the reported name to the design's."""
    tables: dict[str, dict[str, str]] = {family: {} for family in FAMILIES}
    for name in per_switch(tuple(TARGETS)):  # the network OSes: a subnet manager names no port
        tables[TARGETS[name].discovery] |= dict(zip(os_port_names[name], port_names, strict=True))
    return tables


@dataclass(frozen=True)
class PortNames:
    """Reported port names to the design's, per family and device (switches) or per device (servers)."""

    switches: Mapping[str, Mapping[str, Mapping[str, str]]]
    servers: Mapping[str, Mapping[str, str]]

    def table(self, family: str, device: str) -> Mapping[str, str]:
        """``device``'s reported port names in ``family``'s names (a server's whatever the family), mapped to the
        design's; empty for a device the family does not name."""
        return self.servers[device] if device in self.servers else self.switches[family].get(device, {})

    def design_port(self, family: str, device: str, reported: str) -> str | None:
        """The design's name of the port ``device`` reports as ``reported`` in ``family``'s names, or None. A
        description (a SONiC peer's) is known by its first word."""
        return design_port(self.table(family, device), reported)

    def reported_name(self, family: str, device: str, design_port: str) -> str | None:
        """The name ``device`` reports in ``family``'s names for the design's ``design_port`` (the first it has)."""
        names = self.table(family, device)
        return next((name for name, port in names.items() if port == design_port and name != port), None)


def design_port(table: Mapping[str, str], reported: str) -> str | None:
    """The design's name of the port reported as ``reported`` in one device's ``table``, or None; a description (a
    SONiC peer's) is known by its first word."""
    return table.get(reported) or table.get(reported.partition(" ")[0])


def server_ports(folder: Path) -> dict[str, tuple[str, ...]]:
    """Each server's ports in the design's names, in port order, from the fabric of the folder's intent: ``nicN``,
    or on a multiplane NIC one port per plane link, ``nic{port}s{plane}``."""
    from designer.backend.sizing import size
    from designer.backend.wiring import wire
    from designer.readback.built import folder_intent

    intent = folder_intent(folder)
    if intent is None:
        return {}
    fabric = wire(intent, size(intent))
    first = fabric.switch_count
    return dict(zip((device.name for device in fabric.devices[first:]), fabric.port_names()[first:], strict=True))


def port_names(folder: Path, devices: Sequence[dict[str, Any]]) -> PortNames:
    """The names of the design built in ``folder`` (``devices``: its design.json rows). A server's Linux names
    are its ports' in port order when it has one a port: its row's ``nics`` (a multiplane swplb server has one per
    plane link), or with hwplb its ``plane_nics``, one per plane PF."""
    ports = server_ports(folder)
    servers = {}
    for row in devices:
        if row["role"] != "server":
            continue
        nics = server_interfaces(row)
        own = ports.get(row["name"]) or tuple(f"nic{number}" for number in range(len(nics)))
        servers[row["name"]] = {
            **{port: port for port in own},
            **(dict(zip(nics, own, strict=True)) if len(nics) == len(own) else {}),
        }
    return PortNames(switch_port_names(folder), servers)

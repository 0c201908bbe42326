"""The review tables of the wiring: ``cabling.csv``, ``addressing.csv`` and ``asn.csv``, and the CSV writer."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from itertools import chain, islice
from typing import Any

from designer.backend.port_names import naming_targets, os_port_names, port_columns
from designer.backend.wiring import LINK_TIERS, SERVER_LEAF, Device
from designer.design import Design

UNNUMBERED = "unnumbered (IPv6 link-local)"
"""What addressing.csv says for each end of a switch-to-switch link of an unnumbered underlay."""
CHUNK_ROWS = 4096
"""Rows a CSV table is made of at a time: a few MiB of text, whatever the table's length."""


def port_layouts(design: Design) -> tuple[list[str], list[list[tuple[str, ...]]]]:
    """The suffixes of a table's port columns (:func:`designer.backend.port_names.port_columns`) and, per column, every
    device's port names: one target's names alone, or the canonical names and then each target's."""
    canonical = design.fabric.port_names()
    by_os = os_port_names(design.intent, design.fabric)
    columns = port_columns(naming_targets(design.intent))
    return [suffix for suffix, _ in columns], [canonical if target is None else by_os[target] for _, target in columns]


def cabling_rows(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per link: both ends, speed, tier, estimated length and medium (see designer.backend.physical.cables), its
    cable ID (:func:`cable_id`), both ends' rack and unit, and both ends' cage (:func:`cage_names`). Ports are named
    as the design's one target names them; with several, the canonical name and then each OS's."""
    devices, speeds, physical = design.fabric.devices, design.plan.link_speeds, design.physical
    suffixes, layouts = port_layouts(design)
    faceplate = design.fabric.port_names(Device.faceplate_name)
    rack_names = [rack.name for rack in physical.racks]
    device_rack, device_unit = physical.device_rack, physical.device_unit
    header = [
        "tier",
        "plane",
        "a_device",
        *(f"a_port{suffix}" for suffix in suffixes),
        "z_device",
        *(f"z_port{suffix}" for suffix in suffixes),
        "speed_gbps",
        "length_m",
        "medium",
        "cable_id",
        "a_rack",
        "a_unit",
        "z_rack",
        "z_unit",
        "a_cage",
        "z_cage",
    ]
    media = physical.medium_names()
    lengths = {length: f"{length / 10:.1f}" for length in set(physical.link_length_dm)}  # few lengths repeat
    nic_ports = design.fabric.port_names(Device.nic_port_name)
    cages = cage_names(design)
    rows = (
        [
            LINK_TIERS[tier],
            devices[upper].plane,
            devices[upper].name,
            *(names[upper][upper_port] for names in layouts),
            devices[lower].name,
            *(names[lower][lower_port] for names in layouts),
            speeds[tier],
            lengths[length],
            media[medium],
            cable_id(devices[lower].name, nic_ports[lower][lower_port])
            if tier == SERVER_LEAF and devices[lower].uplink_breakout > 1
            else cable_id(devices[upper].name, faceplate[upper][upper_port]),
            rack_names[device_rack[upper]],
            device_unit[upper],
            rack_names[device_rack[lower]],
            device_unit[lower],
            cages[upper][upper_port],
            cages[lower][lower_port],
        ]
        for (tier, upper, upper_port, lower, lower_port), length, medium in zip(
            design.fabric.links, physical.link_length_dm, physical.link_medium, strict=True
        )
    )
    return header, rows


def cage_names(design: Design) -> list[tuple[str, ...]]:
    """Every device's ports by the cage (and half) they leave the box through, by device index: a switch's as its
    front panel numbers them (``3``, ``3.1``: :meth:`Device.faceplate_name`), a server's as the catalog names its
    cages (``OSFP4P2``: the second half of cage OSFP4), or the port's own name where the catalog names none."""
    server = design.intent.server
    panel = design.fabric.port_names(Device.faceplate_name)
    servers: dict[tuple[str, ...], tuple[str, ...]] = {}  # every server of a design has the same ports
    for device, names in zip(design.fabric.devices, panel, strict=True):
        if device.role == "server" and names not in servers:
            servers[names] = server.cage_names(names)
    return [
        servers[names] if device.role == "server" else names
        for device, names in zip(design.fabric.devices, panel, strict=True)
    ]


def cable_id(upper_device: str, upper_port: str) -> str:
    """A cable's ID: its upper end's device and port as the front panel numbers it (``p0-su0-r0-leaf/3.1``, see
    :meth:`Device.faceplate_name`), whatever the OS; for the plane links of a multiplane NIC port, that port's
    (``sys0-tray0/nic1``): one cable, a splitter or the fibers of one twin-port module, on every plane. A port
    holds one cable and names stay put when the fabric grows inside its envelope, so the ID does too, and the label
    on a cable already patched stays true."""
    return f"{upper_device}/{upper_port}"


def addressing_rows(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per addressed interface: loopbacks first, then both ends of every link, with the ports named as in
    ``cabling.csv``; with an unnumbered underlay a switch-to-switch end's address is :data:`UNNUMBERED`. Only a
    design with addresses has the table (not InfiniBand)."""
    fabric, allocation = design.fabric, design.allocation
    assert allocation is not None  # the build writes addressing.csv for an allocated fabric only
    devices = fabric.devices
    suffixes, layouts = port_layouts(design)
    header = [
        "device",
        *(f"interface{suffix}" for suffix in suffixes),
        "address",
        "peer_device",
        *(f"peer_interface{suffix}" for suffix in suffixes),
        "peer_address",
        "use",
    ]
    blank = [""] * len(layouts)

    def rows() -> Iterable[list[Any]]:
        for device, loopback in zip(fabric.switches(), allocation.loopback_ips, strict=True):
            yield [device.name, *(["lo"] * len(layouts)), f"{loopback}/32", "", *blank, "", "loopback"]
        upper_ips, lower_ips = allocation.upper_ips, allocation.lower_ips
        unnumbered = design.intent.routing.underlay == "unnumbered"
        for number, (tier, upper, upper_port, lower, lower_port) in enumerate(fabric.links):
            use, up_ip, low_ip = LINK_TIERS[tier], upper_ips[number], lower_ips[number]
            up_name, up_ports = devices[upper].name, [names[upper][upper_port] for names in layouts]
            low_name, low_ports = devices[lower].name, [names[lower][lower_port] for names in layouts]
            if unnumbered and tier != SERVER_LEAF:
                yield [up_name, *up_ports, UNNUMBERED, low_name, *low_ports, UNNUMBERED, use]
                yield [low_name, *low_ports, UNNUMBERED, up_name, *up_ports, UNNUMBERED, use]
                continue
            yield [up_name, *up_ports, f"{up_ip}/31", low_name, *low_ports, low_ip, use]
            yield [low_name, *low_ports, f"{low_ip}/31", up_name, *up_ports, up_ip, use]

    return header, rows()


def asn_rows(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per switch: its ASN and where it sits (a design with ASNs only: not InfiniBand)."""
    assert design.allocation is not None  # the build writes asn.csv for an allocated fabric only
    header = ["device", "role", "plane", "pod", "asn"]
    rows = (
        [device.name, device.role, device.plane, device.pod if device.pod >= 0 else "", asn]
        for device, asn in zip(design.fabric.switches(), design.allocation.asns, strict=True)
    )
    return header, rows


def csv_bytes(header: list[str], rows: Iterable[list[Any]]) -> bytes:
    """The table as the csv module writes it (minimal quoting, ``\n`` line ends), made :data:`CHUNK_ROWS` rows at a
    time. A chunk whose rows all have the header's width (two or more), with no None and no delimiter, quote or
    line break in a value, is its values joined by commas, which is the csv module's own output for it: one look
    at the chunk's text tells. Any other chunk goes through the csv module's writer, its text cells neutralised
    (:func:`_neutral`) and a cell holding a carriage return quoted too (the writer quotes only what holds ``\n``)."""
    width = len(header)
    rows = iter(rows)
    chunks = []
    for chunk in chain(([header],), iter(lambda: list(islice(rows, CHUNK_ROWS)), [])):
        text = "\n".join([",".join(map(str, row)) for row in chunk])
        if (
            width < 2
            or set(map(len, chunk)) != {width}
            or text.count(",") != (width - 1) * len(chunk)
            or text.count("\n") != len(chunk) - 1
            or '"' in text
            or "\r" in text
            or "None" in text
            or text[:1] in FORMULA_STARTS
            or any(start in text for start in "=+@\t")  # one scan each: names have no such character
            or ",-" in text  # names have dashes inside, so only a dash opening a cell counts
            or "\n-" in text
        ):
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            for row in chunk:
                cells = [_neutral(cell) if isinstance(cell, str) else cell for cell in row]
                if any(isinstance(cell, str) and "\r" in cell for cell in cells):
                    buffer.write(",".join(_quoted(cell) for cell in cells) + "\n")
                else:
                    writer.writerow(cells)
            text = buffer.getvalue()[:-1]
        chunks.append(text)
    return ("\n".join(chunks) + "\n").encode()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet reads a cell starting with as a formula (OWASP, CSV injection)."""


def _neutral(cell: str) -> str:
    """A text cell a spreadsheet shows as text: one starting as a formula does gets a leading apostrophe."""
    return f"'{cell}" if cell[:1] in FORMULA_STARTS else cell


def _quoted(cell: object) -> str:
    """One cell as the csv module quotes it, quoted also when it holds a carriage return."""
    text = "" if cell is None else str(cell)
    return f'"{text.replace(chr(34), chr(34) * 2)}"' if any(char in text for char in ',"\n\r') else text

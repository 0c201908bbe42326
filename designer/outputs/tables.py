"""The review tables of the wiring: ``cabling.csv``, ``addressing.csv`` and ``asn.csv``, and the CSV writer."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from typing import Any

from designer.allocate import ip
from designer.design import Design
from designer.fabric import TIERS


def cabling_rows(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per link: both ends, speed, tier, estimated length and medium (see designer.physical.cables)."""
    devices, speed, physical = design.fabric.devices, design.plan.link_speed, design.physical
    header = ["tier", "plane", "a_device", "a_port", "z_device", "z_port", "speed_gbps", "length_m", "medium"]
    rows = ([TIERS[tier], devices[upper].plane, devices[upper].name, devices[upper].port_name(upper_port),
             devices[lower].name, devices[lower].port_name(lower_port), speed,
             f"{physical.link_length_dm[number] / 10:.1f}", physical.medium_name(number)]
            for number, (tier, upper, upper_port, lower, lower_port) in enumerate(design.fabric.links))
    return header, rows


def addressing_rows(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per addressed interface: loopbacks first, then both ends of every link."""
    fabric, allocation = design.fabric, design.allocation
    devices = fabric.devices
    header = ["device", "interface", "address", "peer_device", "peer_interface", "peer_address", "use"]

    def rows() -> Iterable[list[Any]]:
        for index, device in enumerate(fabric.switches()):
            yield [device.name, "lo", f"{ip(allocation.loopbacks[index])}/32", "", "", "", "loopback"]
        for number, (tier, upper, upper_port, lower, lower_port) in enumerate(fabric.links):
            even, odd = allocation.link_addresses(number)
            use = TIERS[tier]
            up_name, up_port = devices[upper].name, devices[upper].port_name(upper_port)
            low_name, low_port = devices[lower].name, devices[lower].port_name(lower_port)
            yield [up_name, up_port, f"{ip(even)}/31", low_name, low_port, ip(odd), use]
            yield [low_name, low_port, f"{ip(odd)}/31", up_name, up_port, ip(even), use]

    return header, rows()


def asn_rows(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per switch: its ASN and where it sits."""
    header = ["device", "role", "plane", "pod", "asn"]
    rows = ([device.name, device.role, device.plane, device.pod if device.pod >= 0 else "", asn]
            for device, asn in zip(design.fabric.switches(), design.allocation.asns, strict=True))
    return header, rows


def csv_bytes(header: list[str], rows: Iterable[list[Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode()

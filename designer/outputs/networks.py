"""The networks beside the backend in the review tables: a ``network`` column in front of ``cabling.csv`` with every
cable of every network, their racks and devices in ``racks.csv``, their parts in ``bom.csv``, their addresses in
``network-addressing.csv`` and the management addresses as ``oob.csv``, a table a DHCP server or ZTP loads.

None of this is written when no network beside the backend is declared: the backend's tables stay as they are."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from designer.allocate import ip
from designer.fabric import TIERS
from designer.networks.cluster import ClusterNetworks
from designer.outputs.tables import cable_id

PORT = re.compile(r"swp(\d+)(?:s(\d+))?")


def faceplate(port: str) -> str:
    """A switch port as the front panel numbers it (``swp3s1`` is ``3.1``); a server port as named."""
    match = PORT.fullmatch(port)
    if not match:
        return port
    return match.group(1) if match.group(2) is None else f"{match.group(1)}.{match.group(2)}"


def cabling_with_networks(
    networks: ClusterNetworks, cabling: tuple[list[str], Iterable[list[Any]]]
) -> tuple[list[str], Iterator[list[Any]]]:
    """``cabling.csv``'s header and rows with a ``network`` column first, the backend's cables, then every cable of
    the other networks (their ports named as designer names them, in the first port column)."""
    header, rows = cabling
    ports = sum(name.startswith("a_port") for name in header)

    def others() -> Iterator[list[Any]]:
        blank = [""] * (ports - 1)
        for cable in networks.physical.cables:
            yield [
                cable.network,
                cable.tier,
                "",
                cable.a_device,
                cable.a_port,
                *blank,
                cable.z_device,
                cable.z_port,
                *blank,
                cable.speed_gbps,
                f"{cable.length_dm / 10:.1f}",
                cable.medium,
                cable_id(cable.a_device, faceplate(cable.a_port)),
                cable.a_rack,
                cable.a_unit,
                cable.z_rack,
                cable.z_unit,
            ]

    return ["network", *header], chain((["backend", *row] for row in rows), others())


def racks_with_networks(
    networks: ClusterNetworks, racks: tuple[list[str], Iterable[list[Any]]], budget: float
) -> tuple[list[str], Iterator[list[Any]]]:
    """``racks.csv`` with what the networks add: a backend rack's draw and devices grow by its top-of-rack leaves
    and management switches; the networks' own racks follow."""
    header, rows = racks
    physical = networks.physical
    column = {name: number for number, name in enumerate(header)}

    def devices(rack: str, members: Iterable[tuple[str, int]] = ()) -> list[tuple[str, int]]:
        return [*members, *physical.added_devices.get(rack, ())]

    def grown() -> Iterator[list[Any]]:
        for row in rows:
            rack, extra = row[column["rack"]], devices(row[column["rack"]])
            if extra:
                row = list(row)
                row[column["kw"]] = f"{float(row[column['kw']]) + physical.added_kw.get(rack, 0):.3f}"
                row[column["device_count"]] = int(row[column["device_count"]]) + len(extra)
                row[column["devices"]] += "".join(f" {name}@{unit}" for name, unit in extra)
            yield row
        for rack in physical.racks:
            members = devices(rack.name, rack.members)
            yield [
                rack.name,
                rack.row,
                rack.position,
                rack.role,
                "",
                f"{rack.kw + physical.added_kw.get(rack.name, 0):.3f}",
                f"{budget:g}",
                len(members),
                " ".join(f"{name}@{unit}" for name, unit in members),
            ]

    return header, grown()


def bom_with_networks(
    networks: ClusterNetworks, bom: tuple[list[str], Iterable[list[Any]]]
) -> tuple[list[str], Iterator[list[Any]]]:
    """``bom.csv`` with a ``network`` column: the backend's lines, then what the other networks add."""
    header, rows = bom
    added = (
        ["networks", line.category, line.item, "" if line.length_m is None else f"{line.length_m:g}", line.count]
        for line in networks.physical.bom
    )
    return ["network", *header], chain((["backend", *row] for row in rows), added)


def oob_rows(networks: ClusterNetworks) -> tuple[list[str], Iterator[list[Any]]]:
    """``oob.csv``: one management address per device and port, with its subnet's gateway and where it plugs in
    (the management switches and OOB spines themselves first), for a DHCP server or ZTP to load."""
    header = ["device", "port", "address", "prefix_length", "gateway", "switch", "switch_port", "rack"]
    oob = networks.physical.oob

    def rows() -> Iterator[list[Any]]:
        if oob is None:
            return
        managers = len(oob.switches) - oob.spines
        length = 33 - oob.block.bit_length()
        for number, name in enumerate(oob.switches):
            if number < managers:
                yield [name, "vlan", ip(oob.gateways[number]), length, "", "", "", name.rsplit("-mgmt", 1)[0]]
            else:
                yield [name, "lo", ip(oob.gateways[number]), 32, "", "", "", ""]
        for access in oob.access:
            switch = oob.switches[access.switch]
            yield [
                access.managed.device,
                access.managed.port,
                ip(access.address),
                length,
                ip(oob.gateways[access.switch]),
                switch,
                f"swp{access.port + 1}",
                switch.rsplit("-mgmt", 1)[0],
            ]

    return header, rows()


def addressing_rows(networks: ClusterNetworks) -> tuple[list[str], Iterator[list[Any]]]:
    """``network-addressing.csv``: every switch's loopback and ASN and both ends of every link of the leaf-spine
    networks beside the backend, and their pools."""
    header = ["network", "device", "interface", "address", "peer_device", "peer_interface", "peer_address", "use"]

    def rows() -> Iterator[list[Any]]:
        for network, pool in networks.pools():
            yield [network, "", "", pool.cidr, "", "", "", f"pool {pool.name}"]
        for data in networks.data:
            fabric, allocation = data.fabric, data.allocation
            devices, name = fabric.devices, data.spec.name
            for device, loopback, asn in zip(fabric.switches(), allocation.loopbacks, allocation.asns, strict=True):
                yield [name, device.name, "lo", f"{ip(loopback)}/32", "", "", "", f"loopback asn {asn}"]
            for (tier, upper, up_port, lower, low_port), even in zip(fabric.links, allocation.evens, strict=True):
                up, low = devices[upper], devices[lower]
                up_if, low_if = fabric.port_name(up, up_port), fabric.port_name(low, low_port)
                yield [name, up.name, up_if, f"{ip(even)}/31", low.name, low_if, ip(even + 1), TIERS[tier]]
                yield [name, low.name, low_if, f"{ip(even + 1)}/31", up.name, up_if, ip(even), TIERS[tier]]

    return header, rows()

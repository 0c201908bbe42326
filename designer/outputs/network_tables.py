"""The networks beside the backend in the review tables: a ``network`` column in front of ``cabling.csv`` with every
cable of every network, their racks and devices in ``racks.csv``, their parts in ``bom.csv``, their addresses in
``network-addressing.csv``, the management addresses as ``oob.csv``, a table a DHCP server or ZTP loads, and their
devices, links and pools in ``design.json``.

None of this is written when no network beside the backend is declared: the backend's tables stay as they are."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from designer.backend.allocate import ip
from designer.backend.physical import Physical
from designer.backend.wiring import LINK_TIERS
from designer.intent.facility import Facility
from designer.networks.cluster import ClusterNetworks, DataNetwork
from designer.networks.hosts import host_asn_and_loopback
from designer.networks.physical import CORE, CORE_TIER, Cable
from designer.networks.wiring import ordinal
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
        panel: dict[str, str] = {}  # each port name's faceplate number: a network has few distinct port names
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
                cable_id(
                    cable.a_device, panel.get(cable.a_port) or panel.setdefault(cable.a_port, faceplate(cable.a_port))
                ),
                cable.a_rack,
                cable.a_unit,
                cable.z_rack,
                cable.z_unit,
                panel.get(cable.a_port) or panel.setdefault(cable.a_port, faceplate(cable.a_port)),
                panel.get(cable.z_port) or panel.setdefault(cable.z_port, faceplate(cable.z_port)),
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
                yield [name, "vlan", ip(oob.gateways[number]), length, "", "", "", oob.racks[number]]
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
                oob.racks[access.switch],
            ]

    return header, rows()


def addressing_rows(networks: ClusterNetworks) -> tuple[list[str], Iterator[list[Any]]]:
    """``network-addressing.csv``: every switch's loopback and ASN and both ends of every link of the leaf-spine
    networks beside the backend, their pools, and both ends of every management switch's uplink to the OOB
    spines."""
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
                yield [name, up.name, up_if, f"{ip(even)}/31", low.name, low_if, ip(even + 1), LINK_TIERS[tier]]
                yield [name, low.name, low_if, f"{ip(even + 1)}/31", up.name, up_if, ip(even), LINK_TIERS[tier]]
            for number, port, even in data.core_uplinks():
                border = fabric.devices[number]
                border_if, core_if = fabric.port_name(border, port), f"uplink{port}"
                yield [name, border.name, border_if, f"{ip(even + 1)}/31", CORE, core_if, ip(even), CORE_TIER]
                yield [name, CORE, core_if, f"{ip(even)}/31", border.name, border_if, ip(even + 1), CORE_TIER]
        oob = networks.physical.oob
        if oob is None:
            return
        uplinks = (cable for cable in networks.physical.cables if cable.tier == "oob_uplink")
        for cable, even in zip(uplinks, oob.uplink_evens, strict=True):
            spine, spine_if, switch, switch_if = cable.a_device, cable.a_port, cable.z_device, cable.z_port
            yield ["oob", spine, spine_if, f"{ip(even)}/31", switch, switch_if, ip(even + 1), cable.tier]
            yield ["oob", switch, switch_if, f"{ip(even + 1)}/31", spine, spine_if, ip(even), cable.tier]

    return header, rows()


def announced(network: DataNetwork, switch: int) -> list[str]:
    """What a switch of a leaf-spine network announces: its loopback and, for a leaf with servers or storage servers
    cabled, its aligned server block (every /31 of its server ports inside it)."""
    fabric, allocation = network.fabric, network.allocation
    device = fabric.devices[switch]
    prefixes = [f"{ip(allocation.loopbacks[switch])}/32"]
    if device.role in ("leaf", "storage_leaf"):
        pool = next(pool for pool in allocation.pools if pool.name == "server_p2p")
        first = pool.first + ordinal(fabric.plan, device) * allocation.server_block
        prefixes.append(f"{ip(first)}/{33 - allocation.server_block.bit_length()}")
    return prefixes


def networks_summary(networks: ClusterNetworks) -> dict[str, Any]:
    """design.json's ``networks``: each network's counts, its design choices and its pools."""
    summary: dict[str, Any] = {}
    for network in networks.data:
        spec, plan = network.spec, network.fabric.plan
        summary[spec.name] = {
            "leaves": plan.leaves - plan.border_leaves,
            "border_leaves": plan.border_leaves,
            "spines": plan.spines,
            "servers": plan.servers,
            "storage_nodes": plan.storage_nodes,
            "oversubscription": spec.oversubscription,
            "dual_homing": spec.dual_homing,
            "leaf_asn_start": network.allocation.leaf_asn_start,
            "pools": {pool.name: pool.cidr for pool in network.allocation.pools},
            **({"core": {"asn": spec.core_asn}} if spec.core_asn is not None else {}),
        }
    oob = networks.physical.oob
    if oob is not None:
        summary["oob"] = {"switches": len(oob.switches) - oob.spines, "spines": oob.spines, "pool": oob.pool.cidr}
    return summary


def network_device_rows(networks: ClusterNetworks) -> Iterator[dict[str, Any]]:
    """design.json's ``network_devices``: every switch of every network beside the backend with its rack and unit
    (a leaf-spine network's with its ASN, loopback and what it announces), the GPU servers' BGP where a network is
    dual-homed with ``bgp``, the storage servers, and the management switches and OOB spines with their address."""
    places = {name: (rack.name, unit) for rack in networks.physical.racks for name, unit in rack.members}
    places.update(
        {name: (rack, unit) for rack, members in networks.physical.added_devices.items() for name, unit in members}
    )
    places.update({name: (rack, unit) for name, rack, unit in networks.physical.brought})

    def placed(name: str) -> dict[str, Any]:
        rack, unit = places[name]
        return {"rack": rack, "unit": unit}

    for network in networks.data:
        fabric, allocation, name = network.fabric, network.allocation, network.spec.name
        for number, device in enumerate(fabric.switches()):
            yield {
                "network": name,
                "name": device.name,
                "role": device.role,
                "model": device.model,
                **({"group": device.su} if device.su >= 0 else {}),
                "index": device.index,
                "asn": allocation.asns[number],
                "loopback": ip(allocation.loopbacks[number]),
                "announces": announced(network, number),
                **placed(device.name),
            }
        for device in fabric.devices[fabric.switch_count :]:
            if device.role == "storage":
                yield {"network": name, "name": device.name, "role": "storage", **placed(device.name)}
            elif network.spec.dual_homing == "bgp":
                asn, loopback = host_asn_and_loopback(network, device)
                yield {
                    "network": name,
                    "name": device.name,
                    "role": "server",
                    "group": device.su,
                    "index": device.index,
                    "asn": asn,
                    "loopback": loopback,
                    "announces": [f"{loopback}/32"],
                }
    oob = networks.physical.oob
    if oob is not None:
        managers = len(oob.switches) - oob.spines
        for number, name in enumerate(oob.switches):
            yield {
                "network": "oob",
                "name": name,
                "role": "management" if number < managers else "oob_spine",
                "address": ip(oob.gateways[number]),
                **placed(name),
            }


def network_link_rows(networks: ClusterNetworks) -> Iterator[dict[str, Any]]:
    """design.json's ``network_links``: every cable of every network beside the backend in cabling.csv's order,
    both ends ``[device, port, address]`` (a leaf-spine network's /31, the upper end even; on a core uplink the
    border leaf's odd end and the core's even one, null when the frontend has no ``core``; on a management switch's
    uplink the OOB spine's even end; null on a management access cable, whose addresses are in oob.csv), its
    subnet, speed, length and medium."""
    evens = {network.spec.name: iter(network.allocation.evens) for network in networks.data}
    cores = {network.spec.name: iter([even for *_, even in network.core_uplinks()]) for network in networks.data}
    oob = networks.physical.oob
    if oob is not None:
        evens["oob"] = iter(oob.uplink_evens)
    for cable in networks.physical.cables:
        if cable.network in evens and cable.tier not in (CORE_TIER, "access"):
            even = next(evens[cable.network])
            yield _link_row(cable, ip(even), ip(even + 1), f"{ip(even)}/31")
        elif cable.tier == CORE_TIER and (core_end := next(cores[cable.network], None)) is not None:
            yield _link_row(cable, ip(core_end + 1), ip(core_end), f"{ip(core_end)}/31")
        else:
            yield _link_row(cable, None, None, None)


def _link_row(cable: Cable, upper: str | None, lower: str | None, subnet: str | None) -> dict[str, Any]:
    return {
        "network": cable.network,
        "tier": cable.tier,
        "a": [cable.a_device, cable.a_port, upper],
        "z": [cable.z_device, cable.z_port, lower],
        "subnet": subnet,
        "speed_gbps": cable.speed_gbps,
        "length_m": cable.length_dm / 10,
        "medium": cable.medium,
    }


def power_section(networks: ClusterNetworks, physical: Physical, facility: Facility) -> str:
    """``power.md``'s part for the networks beside the backend: each network's draw, the cluster's total with them,
    and every rack they add to or stand in, with its draw against the budget."""
    added = networks.physical
    backend = physical.power_kw(facility.pue)["total"]
    rows = [(power.network, power.switches, power.switch_kw, power.servers, power.server_kw) for power in added.power]
    extra = sum(switch_kw + server_kw for _, _, switch_kw, _, server_kw in rows)
    standing = {rack.name: rack for rack in physical.racks}
    in_compute = any(standing[name].role == "compute" for name in added.added_kw if name in standing)
    lines = [
        "",
        "## The networks beside the backend",
        "",
        "Their switches at their power with optics (management switches without: their ports are copper), storage "
        "servers at their declared power; "
        + (
            "top-of-rack and management switches stand in the compute racks above."
            if in_compute
            else "they add nothing to the compute racks: their own switches stand in network racks."
        ),
        "",
        "| network | switches | switch kW | storage servers | server kW | total kW | facility kW |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| backend | | | | | {backend:,.1f} | {backend * facility.pue:,.1f} |",
        *(
            f"| {name} | {switches} | {switch_kw:,.1f} | {servers} | {server_kw:,.1f} | {switch_kw + server_kw:,.1f} | "
            f"{(switch_kw + server_kw) * facility.pue:,.1f} |"
            for name, switches, switch_kw, servers, server_kw in rows
        ),
        f"| cluster | | | | | {backend + extra:,.1f} | {(backend + extra) * facility.pue:,.1f} |",
        "",
        "### Racks with the networks",
        "",
        "| rack | role | devices added | backend kW | added kW | total kW | budget use |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for rack in physical.racks:
        if rack.name in added.added_kw:
            lines.append(
                _rack_power(
                    rack.name,
                    rack.role,
                    len(added.added_devices.get(rack.name, ())),
                    rack.kw,
                    added.added_kw[rack.name],
                    facility,
                )
            )
    for new in added.racks:
        if new.name not in standing:
            count = len(new.members) + len(added.added_devices.get(new.name, ()))
            lines.append(
                _rack_power(new.name, new.role, count, 0.0, new.kw + added.added_kw.get(new.name, 0), facility)
            )
    return "\n".join(lines) + "\n"


def _rack_power(name: str, role: str, devices: int, backend_kw: float, added_kw: float, facility: Facility) -> str:
    total = backend_kw + added_kw
    return (
        f"| {name} | {role} | {devices} | {backend_kw:,.2f} | {added_kw:,.2f} | {total:,.2f} | "
        f"{total / facility.rack_power_kw:.1%} |"
    )

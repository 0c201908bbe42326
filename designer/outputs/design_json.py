"""``design.json``: the whole design for scripts, one device, link or rack per line so that diffs stay readable; the
networks beside the backend, when declared, in ``networks``, ``network_devices`` and ``network_links``."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from json.encoder import encode_basestring_ascii as quote
from typing import Any

from designer import __version__
from designer.backend.model import DeviceConfig
from designer.backend.physical import part_of
from designer.backend.port_names import os_port_names
from designer.backend.wiring import LINK_TIERS, SERVER_LEAF
from designer.checks import formats as checks_format
from designer.design import Design
from designer.outputs.network_tables import network_device_rows, network_link_rows, networks_summary
from designer.outputs.summary import summary
from designer.outputs.workload_report import detail

SEPARATORS = (", ", ": ")
"""How a row of design.json separates items and keys from values: one compact object per line."""


def design_json(design: Design) -> bytes:
    """The whole design for scripts, one device or link per line so that diffs stay readable. A switch of a fabric
    without addresses (InfiniBand) has no loopback, ASN, announcements, load balancing or device model, and its links
    no addresses or subnet: the subnet manager gives every port a LID and routes it."""
    fabric, allocation = design.fabric, design.allocation
    devices = fabric.devices
    nics = list(design.intent.hosts.nics)  # a server's NIC names as its OS knows them, in port order (nic<i>)
    plane_nics = {"plane_nics": list(planes)} if (planes := design.intent.hosts.plane_nics) else {}  # hwplb's PFs
    device_rows = []
    for index, device in enumerate(devices):
        row: dict[str, Any] = {"name": device.name, "role": device.role, "model": device.model}
        row.update(
            {
                key: value
                for key in ("plane", "pod", "su", "rail", "group", "index")
                if (value := getattr(device, key)) >= 0
            }
        )
        if index < fabric.switch_count and allocation is not None:
            balancing = design.configs[index].load_balancing
            row.update(
                loopback=allocation.loopback_ips[index],
                asn=allocation.asns[index],
                announces=list(design.configs[index].bgp.announced),
                load_balancing={"mode": balancing.mode, "hash": balancing.hash, "seed": balancing.seed},
                config=device_model(design.configs[index]),
            )
        elif index >= fabric.switch_count:
            row.update(nics=nics, **plane_nics)
        row.update(
            rack=design.physical.racks[design.physical.device_rack[index]].name, unit=design.physical.device_unit[index]
        )
        device_rows.append(row)
    head = {
        "name": design.intent.name,
        "tool_version": __version__,
        "intent_sha256": design.intent.sha256,
        **(
            {"site_catalogs": [{"file": name, "sha256": sha256} for name, sha256 in design.intent.catalogs.files]}
            if design.intent.catalogs.files
            else {}
        ),
        "summary": summary(design),
        **({"qos": dataclasses.asdict(design.configs[0].qos)} if design.configs else {}),
        **({"networks": networks_summary(design.networks)} if design.networks else {}),
    }
    encode = json.JSONEncoder(separators=SEPARATORS).encode
    tables: dict[str, Callable[[], list[str]]] = {
        "findings": lambda: list(map(encode, checks_format.rows(design.findings))),
        "devices": lambda: list(map(encode, device_rows)),
        "links": lambda: _link_rows(design),
        "racks": lambda: list(map(encode, rack_rows(design))),
    }
    if design.networks:
        networks = design.networks
        tables["network_devices"] = lambda: list(map(encode, network_device_rows(networks)))
        tables["network_links"] = lambda: list(map(encode, network_link_rows(networks)))
    if design.workloads:
        tables["workloads"] = lambda: [encode(detail(result)) for result in design.workloads]
    return _json_document(head, tables)


def _link_rows(design: Design) -> list[str]:
    """Each link's line of design.json: tier, both ends (device, canonical port, address: null on a switch-to-switch
    link of an unnumbered underlay, and so is its subnet; no address and no subnet without an allocation), subnet,
    length, medium and ``os_ports`` (each target's names of both ends' ports, a then z), as the JSON encoder writes
    such an object, with every name quoted once instead of once per link end."""
    fabric, allocation, physical = design.fabric, design.allocation, design.physical
    devices = [quote(device.name) for device in fabric.devices]
    ports = _quoted(fabric.port_names())
    by_os = [(quote(target), _quoted(names)) for target, names in os_port_names(design.intent, fabric).items()]
    tiers = [quote(tier) for tier in LINK_TIERS]
    media = list(map(quote, physical.medium_names()))
    lengths = {length: repr(length / 10) for length in set(physical.link_length_dm)}  # few lengths repeat
    length_of, medium_of = physical.link_length_dm, physical.link_medium
    upper_ips, lower_ips = (allocation.upper_ips, allocation.lower_ips) if allocation is not None else ([], [])
    unnumbered = design.intent.routing.underlay == "unnumbered"
    rows = []
    for number, (tier, upper, upper_port, lower, lower_port) in enumerate(fabric.links):
        if allocation is None:
            upper_ip = lower_ip = subnet = ""
        elif unnumbered and tier != SERVER_LEAF:
            upper_ip, lower_ip, subnet = ", null", ", null", ' "subnet": null,'
        else:
            upper_ip, lower_ip = f', "{upper_ips[number]}"', f', "{lower_ips[number]}"'
            subnet = f' "subnet": "{upper_ips[number]}/31",'
        os_ports = ", ".join(
            f"{target}: [{names[upper][upper_port]}, {names[lower][lower_port]}]" for target, names in by_os
        )
        rows.append(
            f'{{"tier": {tiers[tier]}, "a": [{devices[upper]}, {ports[upper][upper_port]}{upper_ip}], '
            f'"z": [{devices[lower]}, {ports[lower][lower_port]}{lower_ip}],{subnet} '
            f'"length_m": {lengths[length_of[number]]}, "medium": {media[medium_of[number]]}, '
            f'"os_ports": {{{os_ports}}}}}'
        )
    return rows


def device_model(config: DeviceConfig) -> dict[str, Any]:
    """A switch's device model (:class:`~designer.backend.model.DeviceConfig`) for design.json, as other tools start
    from it, without what design.json holds elsewhere: its interfaces and BGP sessions are its ends of the links (a
    port's name per OS in ``os_ports``), the QoS profile every switch shares is the top-level ``qos``. A port's PFC
    headroom is the first ``headroom`` row (``[cable_m, size, xon, xoff, vendor]``, bytes) whose ``cable_m`` is at
    least its link's ``length_m`` rounded up to a whole metre."""
    bgp = config.bgp
    rooms = {interface.headroom.cable_m: interface.headroom for interface in config.interfaces}
    return {
        "mtu": config.mtu,
        "physical_ports": config.physical_ports,
        "port_speed_gbps": config.port_speed_gbps,
        "breakout": config.breakout,
        "serdes_lanes": config.serdes_lanes,
        "sonic_sku": config.sku.hwsku if config.sku else None,
        "bgp": {
            "router_id": bgp.router_id,
            "maximum_paths": bgp.maximum_paths,
            "networks": list(bgp.networks),
            "aggregates": list(bgp.aggregates),
            "multipath_relax": bgp.multipath_relax,
            "bfd": dataclasses.asdict(bgp.bfd) if bgp.bfd else None,
            "keepalive": bgp.keepalive,
            "hold": bgp.hold,
        },
        "headroom": [[cable, room.size, room.xon, room.xoff, room.vendor] for cable, room in sorted(rooms.items())],
    }


def _quoted(names: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """Every device's port names as JSON strings, each layout shared by its devices quoted once."""
    layouts = {id(layout): tuple(map(quote, layout)) for layout in {id(layout): layout for layout in names}.values()}
    return [layouts[id(layout)] for layout in names]


def rack_rows(design: Design) -> list[dict[str, Any]]:
    """Every rack for design.json: where it stands, role, SU (-1 central), draw in kW and devices (units: devices);
    a rack-scale system's rack also its ``parts`` beside the trays, each with its kind, lowest unit and height (both
    0 where the catalog gives no rack layout)."""
    devices = design.fabric.devices
    rows = []
    for rack in design.physical.racks:
        row = {
            "name": rack.name,
            "row": rack.row,
            "position": rack.position,
            "role": rack.role,
            "su": rack.su,
            "kw": rack.kw,
            "devices": [devices[index].name for index in rack.devices],
        }
        if rack.parts:
            row["parts"] = [
                {"name": name, "part": part_of(name), "unit": unit, "units": units} for name, unit, units in rack.parts
            ]
        rows.append(row)
    return rows


def _json_document(head: dict[str, Any], tables: dict[str, Callable[[], list[str]]]) -> bytes:
    """Pretty JSON for ``head``, then each table as a list with one compact object (encoded already) per line. The
    tables' rows are made one table at a time and kept only as the table's encoded text (design.json is the
    largest file of a build)."""
    parts = [
        f"  {json.dumps(key)}: {json.dumps(value, indent=2).replace(chr(10), chr(10) + '  ')}".encode()
        for key, value in head.items()
    ]
    for key, made in tables.items():
        rows = made()
        parts.append(
            f"  {json.dumps(key)}: [\n    ".encode() + ",\n    ".join(rows).encode() + b"\n  ]"
            if rows
            else f"  {json.dumps(key)}: []".encode()
        )
        del rows
    return b"{\n" + b",\n".join(parts) + b"\n}\n"

"""``design.json``: the whole design for scripts, one device, link or rack per line so that diffs stay readable."""

from __future__ import annotations

import json
from typing import Any

from designer import __version__
from designer.allocate import ip
from designer.checks import formats as checks_format
from designer.design import Design
from designer.fabric import TIERS
from designer.outputs.summary import summary
from designer.outputs.workloads import detail


def design_json(design: Design) -> str:
    """The whole design for scripts, one device or link per line so that diffs stay readable."""
    fabric, allocation = design.fabric, design.allocation
    devices = fabric.devices
    nics = list(design.intent.hosts.nics)  # a server's NIC names as its OS knows them, in port order (nic<i>)
    device_rows = []
    for index, device in enumerate(devices):
        row: dict[str, Any] = {"name": device.name, "role": device.role, "model": device.model}
        row.update({key: value for key in ("plane", "pod", "su", "rail", "group", "index")
                    if (value := getattr(device, key)) >= 0})
        if index < fabric.switch_count:
            balancing = design.configs[index].load_balancing
            row.update(loopback=ip(allocation.loopbacks[index]), asn=allocation.asns[index],
                       announces=list(design.configs[index].bgp.announced),
                       load_balancing={"mode": balancing.mode, "hash": balancing.hash, "seed": balancing.seed})
        else:
            row.update(nics=nics)
        row.update(rack=design.physical.racks[design.physical.device_rack[index]].name,
                   unit=design.physical.device_unit[index])
        device_rows.append(row)
    names, lengths, medium = fabric.port_names(), design.physical.link_length_dm, design.physical.medium_name
    link_rows = []
    for number, (tier, upper, upper_port, lower, lower_port) in enumerate(fabric.links):
        even, odd = allocation.link_addresses(number)
        upper_ip = ip(even)
        link_rows.append({
            "tier": TIERS[tier],
            "a": [devices[upper].name, names[upper][upper_port], upper_ip],
            "z": [devices[lower].name, names[lower][lower_port], ip(odd)],
            "subnet": f"{upper_ip}/31",
            "length_m": lengths[number] / 10,
            "medium": medium(number),
        })
    head = {"name": design.intent.name, "tool_version": __version__, "intent_sha256": design.intent.sha256,
            "summary": summary(design)}
    tables = {"findings": checks_format.rows(design.findings), "devices": device_rows, "links": link_rows,
              "racks": rack_rows(design)}
    if design.workloads:
        tables["workloads"] = [detail(result) for result in design.workloads]
    return _json_document(head, tables)


def rack_rows(design: Design) -> list[dict[str, Any]]:
    """Every rack for design.json: where it stands, role, SU (-1 central), draw in kW and devices (units: devices)."""
    devices = design.fabric.devices
    return [{"name": rack.name, "row": rack.row, "position": rack.position, "role": rack.role, "su": rack.su,
             "kw": rack.kw, "devices": [devices[index].name for index in rack.devices]}
            for rack in design.physical.racks]


def _json_document(head: dict[str, Any], tables: dict[str, list[dict[str, Any]]]) -> str:
    """Pretty JSON for ``head``, then each table as a list with one compact object per line."""
    parts = [f"  {json.dumps(key)}: {json.dumps(value, indent=2).replace(chr(10), chr(10) + '  ')}"
             for key, value in head.items()]
    encode = json.JSONEncoder(separators=(", ", ": ")).encode  # one encoder for every row
    for key, rows in tables.items():
        body = ",\n    ".join(map(encode, rows))
        parts.append(f"  {json.dumps(key)}: [\n    {body}\n  ]" if rows else f"  {json.dumps(key)}: []")
    return "{\n" + ",\n".join(parts) + "\n}\n"

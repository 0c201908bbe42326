"""The physical plan as review files: ``racks.csv``, ``power.md`` and ``bom.csv``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from designer.backend.physical import COMPUTE, Physical, Rack, over_budget, too_hot_for_air
from designer.backend.wiring import Device
from designer.catalog import PART, SYSTEM_PARTS, SystemModel
from designer.intent.facility import Facility
from designer.outputs.markdown import markdown_inline


def racks_rows(physical: Physical, devices: list[Device], budget: float) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per rack: where it stands, its role and SU, its draw and ``budget``, its devices (``name@unit``): a
    rack-scale system's compute trays, then its NVLink switch trays, power shelves and management switches (a bare
    name where the catalog gives no rack layout)."""
    header = ["rack", "row", "position", "role", "su", "kw", "budget_kw", "device_count", "devices"]
    rows = (
        [
            rack.name,
            rack.row,
            rack.position,
            rack.role,
            _su(rack),
            f"{rack.kw:.3f}",
            f"{budget:g}",
            len(rack.devices) + len(rack.parts),
            " ".join(
                [
                    *(f"{devices[index].name}@{physical.device_unit[index]}" for index in rack.devices),
                    *(f"{name}@{unit}" if unit else name for name, unit, _ in rack.parts),
                ]
            ),
        ]
        for rack in physical.racks
    )
    return header, rows


def bom_rows(physical: Physical) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per item to order: switches by model, servers, transceivers by type, cables by type and length."""
    header = ["category", "item", "length_m", "count"]
    rows = (
        [line.category, line.item, "" if line.length_m is None else f"{line.length_m:g}", line.count]
        for line in physical.bom
    )
    return header, rows


def power_markdown(name: str, physical: Physical, facility: Facility, system: SystemModel | None = None) -> str:
    """Power per rack, row, scalable unit and in total, with PUE; racks over budget or too hot for air flagged;
    ``system`` is the rack-scale system each compute rack holds (None: servers)."""
    racks = physical.racks
    flags: dict[str, list[str]] = {rack.name: [] for rack in racks}
    for rack in over_budget(racks, facility):
        flags[rack.name].append(f"over the {facility.rack_power_kw:g} kW budget")
    for rack in too_hot_for_air(racks, facility):
        flags[rack.name].append(f"above the {facility.air_limit_kw:g} kW air-cooling limit")
    lines = [*_power_totals(name, physical, facility, system), "## Flags", ""]
    flagged = [f"- {name}: {'; '.join(reasons)}" for name, reasons in flags.items() if reasons]
    lines += flagged or ["None: every rack is within its budget and cooling."]
    lines += [
        "",
        "## By scalable unit",
        "",
        "| SU | compute racks | network racks | compute kW | network kW | total kW | facility kW |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += _grouped(racks, lambda rack: rack.su, facility.pue, _su)
    lines += [
        "",
        "## By row",
        "",
        "| row | compute racks | network racks | compute kW | network kW | total kW | facility kW |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += _grouped(racks, lambda rack: rack.row, facility.pue, lambda rack: str(rack.row))
    lines += [
        "",
        "## By rack",
        "",
        "| rack | row | position | role | SU | devices | kW | budget use | facility kW | flags |",
        "|---|---:|---:|---|---|---:|---:|---:|---:|---|",
    ]
    lines += [
        f"| {rack.name} | {rack.row} | {rack.position} | {rack.role} | {_su(rack)} | {len(rack.devices)} | "
        f"{rack.kw:,.2f} | {rack.kw / facility.rack_power_kw:.1%} | {rack.kw * facility.pue:,.2f} | "
        f"{'; '.join(flags[rack.name])} |"
        for rack in racks
    ]
    return "\n".join(lines) + "\n"


def _power_totals(name: str, physical: Physical, facility: Facility, system: SystemModel | None) -> list[str]:
    """The title, what the racks hold and how their power is counted, the totals and a system's rack layout."""
    total = physical.power_kw(facility.pue)
    return [
        f"# Power: {name}",
        "",
        f"Racks of {facility.rack_units}U with a {facility.rack_power_kw:g} kW budget, {facility.cooling}-cooled"
        + (f" (limit {facility.air_limit_kw:g} kW)" if facility.cooling == "air" else "")
        + f"; PUE {facility.pue:g}. "
        + (
            f"One {system.name} per compute rack: {system.trays} compute trays, {system.nvlink_switch_trays} NVLink "
            f"switch trays, {system.power_shelves} power shelves and {system.management_switches} management "
            f"switches, at the system's maximum power ({system.power_kw:g} kW: "
            f"{markdown_inline(system.power_source)}), shared "
            "evenly by its trays"
            if system
            else f"{physical.servers_per_rack} servers per compute rack. Servers at their maximum power"
        )
        + "; switches at their power without optics plus the optics and active cables chosen for their ports.",
        "",
        "| | kW |",
        "|---|---:|",
        f"| compute (servers) | {total['compute']:,.1f} |",
        f"| network (switches and their optics) | {total['network']:,.1f} |",
        f"| IT total | {total['total']:,.1f} |",
        f"| facility (IT x PUE {facility.pue:g}) | {total['facility']:,.1f} |",
        "",
        *(_system_rack_lines(system, facility.rack_units) if system else []),
    ]


def _system_rack_lines(system: SystemModel, top: int) -> list[str]:
    """The section of power.md that shows what every system rack holds, unit by unit from the top."""
    lines = [f"## Each {system.name} rack, from the top", ""]
    if not system.rack_layout:
        return [
            *lines,
            f"The catalog gives no rack layout for {system.name}: its {system.trays} compute trays stack from U1, "
            "its other parts are listed in racks.csv without a unit.",
            "",
        ]
    lines += ["| units | parts | names in racks.csv (after sys<s>-) |", "|---|---|---|"]
    numbered = dict.fromkeys(SYSTEM_PARTS, 0)
    for part, count, units in system.rack_layout:
        words, name = PART[part].words, PART[part].short
        first = numbered[part]
        numbered[part] += count
        lowest = top - count * units + 1
        names = f"{name}{first}" + (f" to {name}{first + count - 1}" if count > 1 else "")
        lines.append(f"| U{top}{f'-U{lowest}' if lowest < top else ''} | {count} {words} of {units}U | {names} |")
        top = lowest - 1
    return [*lines, "", f"Layout: {markdown_inline(system.rack_layout_source)}.", ""]


def _su(rack: Rack) -> str:
    return str(rack.su) if rack.su >= 0 else "central"


def _grouped(racks: list[Rack], key: Callable[[Rack], int], pue: float, label: Callable[[Rack], str]) -> list[str]:
    """One table line per group of racks (by key, central racks last), with counts and kW by role."""
    groups: dict[int, list[Rack]] = {}
    for rack in racks:
        groups.setdefault(key(rack), []).append(rack)
    lines = []
    for value in sorted(groups, key=lambda value: (value < 0, value)):
        members = groups[value]
        compute = [rack for rack in members if rack.role == COMPUTE]
        network = [rack for rack in members if rack.role != COMPUTE]
        compute_kw, network_kw = sum(rack.kw for rack in compute), sum(rack.kw for rack in network)
        lines.append(
            f"| {label(members[0])} | {len(compute)} | {len(network)} | {compute_kw:,.1f} | "
            f"{network_kw:,.1f} | {compute_kw + network_kw:,.1f} | {(compute_kw + network_kw) * pue:,.1f} |"
        )
    return lines

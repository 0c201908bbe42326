"""An SVG a planner reads at a glance: the floor plan of the rows and an elevation of two racks.

The floor plan draws one line per row, one cell per rack position: racks filled by their draw as a
share of the rack budget, network racks outlined and marked ``N`` (leaf racks) or ``C`` (central
spine racks), empty positions faint; the racks of the networks beside the backend outlined in violet (``X``
their switches, ``S`` storage servers) and a violet corner on every rack they add switches to. No cable is drawn,
so it stays readable at 32k GPUs and more.
Beside it, the elevation of the first compute rack and the first network rack, unit by unit (a rack-scale system's
NVLink switch trays, power shelves and management switches too, where the catalog gives its rack layout). A server's
face shows its backend cages as the catalog names them (a DGX H100's OSFP1 to OSFP4), each with its halves (P1, P2)
where a cage carries several links, and what each half carries in its tooltip; a server without named cages shows
one cage per physical NIC port.
"""

from __future__ import annotations

from html import escape

from designer.backend.physical import COMPUTE, NETWORK, Physical, Rack
from designer.backend.physical.placement import device_units
from designer.backend.wiring import Device
from designer.intent import Intent
from designer.networks.physical import NetworkRack, NetworksPhysical

CELL_W, CELL_H, ROW_GAP = 22, 28, 10
LEFT, TOP = 70, 112
UNIT_PX = 11
ELEVATION_W = 210
SHADES = ((0.25, "#fff7bc"), (0.5, "#fec44f"), (0.75, "#fe9929"), (1.0, "#d95f0e"))
"""Fill by share of the rack budget (up to and including the bound); above the budget: OVER."""
OVER = "#b10026"
NETWORK_STROKE = "#08306b"
PART_FILL = "#e5e5e5"
"""Fill of a rack-scale system's parts beside its compute trays (NVLink switch trays, power shelves, management
switches) in the elevation."""
OTHER_STROKE = "#54278f"
"""Racks and marks of the networks beside the backend."""
CAGE_FILL, CAGE_STROKE = "#ffffff", "#08519c"
"""A server cage's face on the elevation."""


def shade(kw: float, budget_kw: float) -> str:
    """Fill colour of a rack drawing ``kw`` against a ``budget_kw`` budget."""
    share = kw / budget_kw
    return next((colour for bound, colour in SHADES if share <= bound + 1e-9), OVER)


def floorplan_svg(
    intent: Intent, devices: list[Device], physical: Physical, networks: NetworksPhysical | None = None
) -> str:
    """The floor plan and two rack elevations as one SVG document; with ``networks`` (what the networks beside the
    backend add), their racks too, and a corner mark on every rack they add switches to."""
    facility = intent.facility
    per_row = physical.row.racks
    floor_w = LEFT + per_row * CELL_W + 130
    row_h = CELL_H + ROW_GAP
    added = networks.racks if networks else ()
    rows = max([physical.rows, *(rack.row + 1 for rack in added)])
    floor_h = TOP + rows * row_h
    elevation_h = TOP + facility.rack_units * UNIT_PX + 60
    width, height = floor_w + 2 * ELEVATION_W + 20, max(floor_h, elevation_h) + 20
    power = physical.power_kw(facility.pue)
    counts = physical.rack_counts()
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="22" font-size="16" font-weight="bold">{escape(intent.name)}: floor plan</text>',
        f'<text x="10" y="40">{counts["compute"]:,} compute and {counts["network"]:,} network racks in '
        f"{counts['rows']:,} rows of {per_row}; {power['total']:,.1f} kW IT, {power['facility']:,.1f} kW with "
        f"PUE {facility.pue:g}; budget {facility.rack_power_kw:g} kW per rack, {facility.cooling}-cooled</text>",
    ]
    parts += _legend(facility.rack_power_kw)
    if networks:
        parts += _networks_legend(networks)
    step = 1 if per_row <= 24 else 4
    parts += [
        f'<text x="{LEFT + position * CELL_W + CELL_W / 2:g}" y="{TOP - 6}" text-anchor="middle" font-size="9" '
        f'fill="#666666">{position}</text>'
        for position in range(0, per_row, step)
    ]
    parts += _floor_rows(intent, physical, networks, rows)
    x = floor_w
    for role in (COMPUTE, NETWORK):
        shown = next((rack for rack in physical.racks if rack.role == role), None)
        if shown is not None:
            parts += _elevation(intent, devices, physical, shown, x, TOP)
            x += ELEVATION_W
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _floor_rows(intent: Intent, physical: Physical, networks: NetworksPhysical | None, rows: int) -> list[str]:
    """Every row of the floor plan: its name, its empty positions, its racks (the networks' too, with a corner mark
    on every rack they add switches to) and what stands in it."""
    facility, per_row = intent.facility, physical.row.racks
    row_h = CELL_H + ROW_GAP
    added = networks.racks if networks else ()
    lines: list[str] = []
    by_row: dict[int, list[Rack]] = {}
    for rack in physical.racks:
        by_row.setdefault(rack.row, []).append(rack)
    added_by_row: dict[int, list[NetworkRack]] = {}
    for new in added:
        added_by_row.setdefault(new.row, []).append(new)
    marked = set(networks.added_devices) if networks else set()
    for row in range(rows):
        y = TOP + row * row_h
        racks = by_row.get(row, [])
        lines.append(f'<text x="{LEFT - 8}" y="{y + CELL_H / 2 + 4:g}" text-anchor="end">row {row}</text>')
        taken = {rack.position for rack in racks} | {new.position for new in added_by_row.get(row, [])}
        lines += [
            f'<rect x="{LEFT + position * CELL_W + 1}" y="{y}" width="{CELL_W - 2}" height="{CELL_H}" '
            'fill="none" stroke="#dddddd"/>'
            for position in range(per_row)
            if position not in taken
        ]
        lines += [_rack_cell(rack, LEFT + rack.position * CELL_W, y, facility.rack_power_kw) for rack in racks]
        if networks:
            lines += [
                _added_cell(new, networks, LEFT + new.position * CELL_W, y, facility.rack_power_kw)
                for new in added_by_row.get(row, [])
            ]
            lines += [_corner(LEFT + rack.position * CELL_W, y) for rack in racks if rack.name in marked]
        sus = sorted({rack.su for rack in racks})
        label = "central network" if sus == [-1] else "SU " + ", ".join(str(su) for su in sus if su >= 0)
        if not racks and added_by_row.get(row):
            label = "other networks"
        lines.append(f'<text x="{LEFT + per_row * CELL_W + 8}" y="{y + CELL_H / 2 + 4:g}">{escape(label)}</text>')
    return lines


def _legend(budget_kw: float) -> list[str]:
    parts = ['<text x="10" y="64">rack draw vs budget:</text>']
    x, low = 130, 0.0
    for bound, colour in SHADES:
        parts.append(f'<rect x="{x}" y="54" width="14" height="12" fill="{colour}" stroke="#666666"/>')
        parts.append(f'<text x="{x + 18}" y="64">{low * budget_kw:.1f}-{bound * budget_kw:.1f} kW</text>')
        x, low = x + 110, bound
    parts.append(f'<rect x="{x}" y="54" width="14" height="12" fill="{OVER}" stroke="#666666"/>')
    parts.append(f'<text x="{x + 18}" y="64">over budget</text>')
    parts.append(
        f'<rect x="{x + 110}" y="54" width="14" height="12" fill="#ffffff" stroke="{NETWORK_STROKE}" stroke-width="2"/>'
    )
    parts.append(f'<text x="{x + 128}" y="64">N leaf racks, C central spine racks</text>')
    return parts


def _networks_legend(networks: NetworksPhysical) -> list[str]:
    """What the marks of the networks beside the backend mean."""
    racks = len(networks.racks)
    return [
        f'<rect x="10" y="76" width="14" height="12" fill="#ffffff" stroke="{OTHER_STROKE}" stroke-width="2"/>',
        f'<text x="28" y="86">X racks of the other networks\' switches, S of storage servers ({racks} racks); '
        f'<tspan fill="{OTHER_STROKE}">&#9698;</tspan> top-of-rack or management switches added '
        f"({len(networks.added_devices)} racks)</text>",
    ]


def _added_cell(rack: NetworkRack, networks: NetworksPhysical, x: int, y: int, budget_kw: float) -> str:
    """A rack the networks beside the backend add: its draw, ``S`` for storage servers, else ``X``."""
    kw = rack.kw + networks.added_kw.get(rack.name, 0)
    count = len(rack.members) + len(networks.added_devices.get(rack.name, ()))
    title = f"{rack.name}: {rack.role} (other networks), {count} devices, {kw:,.2f} kW"
    return (
        f'<g><title>{escape(title)}</title><rect x="{x + 1}" y="{y}" width="{CELL_W - 2}" height="{CELL_H}" '
        f'fill="{shade(kw, budget_kw)}" stroke="{OTHER_STROKE}" stroke-width="2"/>'
        f'<text x="{x + CELL_W / 2:g}" y="{y + CELL_H / 2 + 4:g}" text-anchor="middle" font-weight="bold" '
        f'fill="{OTHER_STROKE}">{"S" if rack.role == "storage" else "X"}</text></g>'
    )


def _corner(x: int, y: int) -> str:
    """The mark of a backend rack the networks add switches to: its top right corner filled."""
    right = x + CELL_W - 1
    return f'<path d="M{right - 8} {y} L{right} {y} L{right} {y + 8} Z" fill="{OTHER_STROKE}"/>'


def _rack_cell(rack: Rack, x: int, y: int, budget_kw: float) -> str:
    title = (
        f"{rack.name}: {rack.role}, {'SU ' + str(rack.su) if rack.su >= 0 else 'central'}, "
        f"{len(rack.devices)} devices, {rack.kw:,.2f} kW"
    )
    stroke = f'stroke="{NETWORK_STROKE}" stroke-width="2"' if rack.role == NETWORK else 'stroke="#888888"'
    cell = (
        f'<g><title>{escape(title)}</title><rect x="{x + 1}" y="{y}" width="{CELL_W - 2}" height="{CELL_H}" '
        f'fill="{shade(rack.kw, budget_kw)}" {stroke}/>'
    )
    if rack.role == NETWORK:
        mark = "N" if rack.su >= 0 else "C"
        cell += (
            f'<text x="{x + CELL_W / 2:g}" y="{y + CELL_H / 2 + 4:g}" text-anchor="middle" font-weight="bold" '
            f'fill="{NETWORK_STROKE}">{mark}</text>'
        )
    return cell + "</g>"


def _elevation(intent: Intent, devices: list[Device], physical: Physical, rack: Rack, x: int, y: int) -> list[str]:
    """One rack drawn unit by unit, top unit at the top, each device labelled with its name."""
    units = intent.facility.rack_units
    body_x, body_w = x + 34, ELEVATION_W - 60
    parts = [
        f'<text x="{x}" y="{y - 24}" font-weight="bold">{escape(rack.role)} rack {escape(rack.name)}</text>',
        f'<text x="{x}" y="{y - 10}">{len(rack.devices)} devices'
        + (f" and {len(rack.parts)} system parts" if rack.parts else "")
        + f", {rack.kw:,.2f} kW</text>",
        f'<rect x="{body_x}" y="{y}" width="{body_w}" height="{units * UNIT_PX}" fill="#f4f4f4" stroke="#333333"/>',
    ]
    for unit in range(1, units + 1, 4):
        parts.append(
            f'<text x="{body_x - 4}" y="{y + (units - unit + 1) * UNIT_PX - 2}" text-anchor="end" '
            f'font-size="9" fill="#666666">U{unit}</text>'
        )
    shown = [
        (
            devices[index].name,
            physical.device_unit[index],
            device_units(intent, devices[index]),
            "#c6dbef" if devices[index].role == "server" else "#9ecae1",
        )
        for index in rack.devices
    ]
    shown += [(name, bottom, height, PART_FILL) for name, bottom, height in rack.parts if bottom]
    for name, bottom, height, fill in shown:
        top_y = y + (units - (bottom + height - 1)) * UNIT_PX
        parts.append(
            f'<rect x="{body_x + 2}" y="{top_y + 1}" width="{body_w - 4}" height="{height * UNIT_PX - 2}" '
            f'fill="{fill}" stroke="#3182bd"/>'
        )
        parts.append(
            f'<text x="{body_x + body_w / 2:g}" y="{top_y + height * UNIT_PX / 2 + 4:g}" '
            f'text-anchor="middle" font-size="{9 if height < 2 else 10}">{escape(name)}</text>'
        )
    for index in rack.devices:
        device = devices[index]
        if device.role == "server":
            bottom_y = y + (units - physical.device_unit[index] + 1) * UNIT_PX - 1
            roomy = device_units(intent, device) >= 2
            parts += _cage_face(server_cages(intent, device), body_x + 4, bottom_y, body_w - 8, roomy)
    return parts


def server_cages(intent: Intent, device: Device) -> list[tuple[str, list[tuple[str, str]]]]:
    """A server's backend cages on its face, in panel order: each cage's name and its halves (``P1``, ``P2``... where
    it carries several links, else one unnamed half), each with the design's name of the port it carries."""
    spec = intent.server
    cages: dict[int, tuple[str, dict[int, str]]] = {}
    for port, (cage, half, _) in enumerate(spec.cage_places()):
        name = spec.cages[cage][0] if spec.cages else device.nic_port_name(port)
        cages.setdefault(cage, (name, {}))[1][half] = device.port_name(port)
    return [
        (name, [(f"P{half + 1}" if len(halves) > 1 else "", halves[half]) for half in sorted(halves)])
        for _, (name, halves) in sorted(cages.items())
    ]


def _cage_face(
    cages: list[tuple[str, list[tuple[str, str]]]], x: int, bottom: int, width: int, roomy: bool
) -> list[str]:
    """A row of cages along the bottom of a server's face, each split into its halves; with room (``roomy``: a server
    of two units or more, and cages wide enough), each cage's name above it and its halves' names in them."""
    if not cages:
        return []
    step, height = width / len(cages), UNIT_PX - 2
    labelled = roomy and step >= 16
    parts = []
    for number, (name, halves) in enumerate(cages):
        left = x + number * step
        half_w = (step - 2) / len(halves)
        parts.append(f'<g class="cage" data-cage="{escape(name)}">')
        for place, (half, port) in enumerate(halves):
            half_x = left + 1 + place * half_w
            parts.append(
                f'<rect x="{half_x:g}" y="{bottom - height:g}" width="{half_w:g}" height="{height:g}" '
                f'fill="{CAGE_FILL}" stroke="{CAGE_STROKE}"><title>{escape(name + half)}: {escape(port)}</title></rect>'
            )
            if labelled and half:
                parts.append(
                    f'<text x="{half_x + half_w / 2:g}" y="{bottom - 2:g}" text-anchor="middle" font-size="6">'
                    f"{escape(half)}</text>"
                )
        if labelled:
            parts.append(
                f'<text x="{left + step / 2:g}" y="{bottom - height - 2:g}" text-anchor="middle" font-size="6">'
                f"{escape(name)}</text>"
            )
        parts.append("</g>")
    return parts

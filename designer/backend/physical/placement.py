"""Place every server and switch: a rack, a unit in it, and the rack's row and position.

The hall is planned for the growth envelope (:attr:`Plan.max_servers`): every scalable unit, spine and
super-spine of the envelope has its rack and unit whether it is built yet or not, so adding scalable
units never moves a rack or changes an existing cable's length. Racks with nothing built are left out.

* Compute racks hold ``min(rack_power_kw // server kW, rack_units // server units)`` servers, at
  least one (a server above the budget gets a rack of its own, which the power check then fails),
  stacked from the bottom by slot. A scalable unit (SU) never shares a compute rack with another, and
  has the racks of a full SU.
* Network racks take switches in fabric order, stacked from the top, while both the rack units and
  the power budget allow; a switch counts at its catalog power with optics (``power_w_optics``), the
  planning figure, because its real optics are only known once the cables are chosen. With an out-of-band
  network declared, the top of every network rack is kept for its management switches (:class:`TopKept`):
  their units stay free and their draw counts against the budget.
* An SU is one block of racks: half its compute racks, its leaf racks (every plane and rail of the
  SU: rail-optimized cabling runs from every server to every leaf), then the other half. With rack-style cabling
  (``fabric.style: rack``) an SU is its racks, each holding its servers from the bottom and its own switches at
  the top (below what the top keeps), as many servers as the rack's budget leaves beside them.
* Rack-scale systems: a system is one rack holding all its trays, never split. A block is the fewest whole
  systems that fill whole scalable units (:attr:`Plan.systems_per_block`) with the leaves of those units; the
  rack's power and cooling are the system's (the intent may give more). Where the catalog gives the system's rack
  layout, tray ``t`` stands at the unit of the layout's ``t``-th compute tray from the top
  (:meth:`SystemModel.units`); without one the trays stack from the bottom.
* Blocks follow one another along a serpentine through rows of ``racks_per_row`` (left to right,
  then right to left on the next row, so a wrap stays short). Left open by the intent, the row length is
  chosen (:func:`row_length`): the one up to ``max_racks_per_row`` whose longest run is shortest. A block that fits
  in a row but not in what is left of the current one starts the next row; a block wider than a row follows on
  directly and wraps.
* Spines and super-spines go in central network racks: rows of their own, each centered, between
  two SU rows as near the middle of the hall as a boundary that no SU crosses allows. With 3 tiers,
  spine ``j`` of every pod stands next to the super-spines of group ``j`` it connects to.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from designer.backend.sizing import Plan, rack_servers
from designer.backend.wiring import Device, Fabric
from designer.intent import Intent
from designer.intent.facility import Facility
from designer.intent.switch_spec import SWITCH_TIERS

COMPUTE, NETWORK = "compute", "network"


class RackPlan(NamedTuple):
    """A rack before power is known: where it stands and what it holds (device indices, unit order)."""

    row: int
    position: int
    role: str
    su: int
    devices: tuple[int, ...]


class TopKept(NamedTuple):
    """What the top of every rack keeps for the switches of the networks beside the backend: in a network rack, rack
    units and their draw in watts for the out-of-band network's management switches; in a compute rack, room for
    those and the networks' top-of-rack leaves, as the servers it holds (0: as many as its budget and units allow)."""

    units: int = 0
    watts: float = 0.0
    servers_per_rack: int = 0


class RowLength(NamedTuple):
    """The length of the hall's rows in racks: ``given`` by the intent (or a site catalog), else chosen, with the
    widest scalable unit's racks (``block``), the most it was chosen among (``limit``) and the longest run between a
    rack and another it is cabled to, estimated at that length in metres along the trays (no slack, no rises)."""

    racks: int
    given: bool
    block: int = 0
    limit: int = 0
    estimated_m: float = 0.0


class Layout(NamedTuple):
    """Every rack, and each device's rack index and lowest unit (1-based); the rows' length in racks and why."""

    racks: list[RackPlan]
    device_rack: list[int]
    device_unit: list[int]
    servers_per_rack: int
    rows: int
    row: RowLength


def servers_per_rack(intent: Intent) -> int:
    """Servers a compute rack holds within its power budget and rack units (at least one), before what the networks
    beside the backend add to its top (:class:`TopKept`); with rack-style cabling, beside its own switches."""
    if intent.system:
        return intent.system.trays
    if intent.choices.style == "rack":
        return rack_servers(intent)
    facility, server = intent.facility, intent.server
    by_power = math.floor(round(facility.rack_power_kw / server.power_kw, 9))
    return max(1, min(by_power, facility.rack_units // server.rack_units))


def device_units(intent: Intent, device: Device) -> int:
    """Rack units a server or switch takes."""
    if device.role == "server":
        return intent.server.rack_units
    return intent.switch(device.role).rack_units


Member = tuple[object, ...]
"""A device's place in the envelope, built or not: ``("server", su, slot)``, ``("leaf", plane, su, rail)``,
``("spine", plane, pod, index)`` or ``("super_spine", plane, group, index)``."""
Slot = tuple[str, int, tuple[Member, ...]]
"""A rack's content before it has a place: role, SU (-1 for central racks) and its members."""


def member(device: Device) -> Member:
    """The device's coordinates in the envelope: what its rack and unit follow from."""
    if device.role == "server":
        return ("server", device.su, device.index)
    if device.role == "leaf":
        return ("leaf", device.plane, device.su, device.index)
    if device.role == "spine":
        return ("spine", device.plane, device.pod, device.index)
    return ("super_spine", device.plane, device.group, device.index)


def place(intent: Intent, plan: Plan, fabric: Fabric, kept: TopKept) -> Layout:
    """Lay out the racks and rows of the envelope's hall and give every built device its rack and unit, below what
    the top of each network rack keeps (``kept``); racks with nothing built yet are left out."""
    facility, devices = intent.facility, fabric.devices
    per_rack = plan.rack_servers or kept.servers_per_rack or servers_per_rack(intent)
    heights = {role: intent.switch(role).rack_units for role in SWITCH_TIERS}
    heights["server"] = intent.server.rack_units
    draws = {role: intent.switch(role).power_w_optics for role in SWITCH_TIERS}

    blocks = (
        _system_blocks(plan, facility, heights, draws, kept)
        if plan.servers_per_system > 1
        else _server_blocks(plan, facility, heights, draws, kept, per_rack)
    )
    core_racks = [(NETWORK, -1, rack) for rack in _pack(facility, heights, draws, kept, _core(plan))]
    length = row_length(facility, blocks, core_racks)

    system = intent.system
    trays = system.units(facility.rack_units).get("compute_tray", ()) if system else ()
    tray_units = [lowest for lowest, _ in trays]
    built = {member(device): index for index, device in enumerate(devices)}
    racks: list[RackPlan] = []
    device_rack = [0] * len(devices)
    device_unit = [0] * len(devices)
    rows = _rows(blocks, core_racks, length.racks)
    for row, content in enumerate(rows):
        for position, (role, su, members) in content:
            present = tuple(built[key] for key in members if key in built)
            if not present:
                continue
            rack = len(racks)
            racks.append(RackPlan(row, position, role, su, present))
            unit, top = 1, facility.rack_units - kept.units + 1
            for number, key in enumerate(members):
                height = heights[str(key[0])]
                switch = role == NETWORK or key[0] == "leaf"  # a rack's own switches stand at its top
                if switch:
                    top -= height
                index = built.get(key)
                if index is not None:
                    device_unit[index] = top if switch else tray_units[number] if tray_units else unit
                    device_rack[index] = rack
                if not switch:
                    unit += height
    return Layout(racks, device_rack, device_unit, per_rack, len(rows), length)


def _server_blocks(
    plan: Plan, facility: Facility, heights: dict[str, int], draws: dict[str, int], kept: TopKept, per_rack: int
) -> list[list[Slot]]:
    """One block of racks per scalable unit of the envelope: half its compute racks, its leaf racks, the rest; with
    rack-style cabling, its racks, each holding its servers and, at the top, its own switches."""
    blocks: list[list[Slot]] = []
    if plan.rack_style:
        racks = plan.servers_per_su // plan.rack_servers
        for su in range(plan.envelope_sus):
            blocks.append(
                [
                    (
                        COMPUTE,
                        su,
                        tuple(("server", su, rack * plan.rack_servers + slot) for slot in range(plan.rack_servers))
                        + tuple(("leaf", 0, su, rack * plan.per_rack + side) for side in range(plan.per_rack)),
                    )
                    for rack in range(racks)
                ]
            )
        return blocks
    for su in range(plan.envelope_sus):
        compute: list[Slot] = [
            (
                COMPUTE,
                su,
                tuple(("server", su, slot) for slot in range(first, min(first + per_rack, plan.servers_per_su))),
            )
            for first in range(0, plan.servers_per_su, per_rack)
        ]
        leaves: list[Member] = [
            ("leaf", plane, su, place) for plane in range(plan.planes) for place in range(plan.leaves_per_su)
        ]
        blocks.append(_block(compute, leaves, su, facility, heights, draws, kept))
    return blocks


def _system_blocks(
    plan: Plan, facility: Facility, heights: dict[str, int], draws: dict[str, int], kept: TopKept
) -> list[list[Slot]]:
    """One block of racks per block of whole systems (:attr:`Plan.systems_per_block`) of the envelope: half its
    systems, a rack each holding every tray, the leaf racks of its scalable units, then the other systems."""
    trays = plan.servers_per_system
    systems = plan.max_servers // trays
    blocks: list[list[Slot]] = []
    for unit in range(-(-systems // plan.systems_per_block)):
        first = unit * plan.systems_per_block
        compute: list[Slot] = [
            (COMPUTE, unit, tuple(_tray(plan, system * trays + tray) for tray in range(trays)))
            for system in range(first, min(first + plan.systems_per_block, systems))
        ]
        groups = range(unit * plan.sus_per_block, min((unit + 1) * plan.sus_per_block, plan.envelope_sus))
        leaves: list[Member] = [
            ("leaf", plane, su, rail) for su in groups for plane in range(plan.planes) for rail in range(plan.rails)
        ]
        blocks.append(_block(compute, leaves, unit, facility, heights, draws, kept))
    return blocks


def _block(
    compute: list[Slot],
    leaves: list[Member],
    su: int,
    facility: Facility,
    heights: dict[str, int],
    draws: dict[str, int],
    kept: TopKept,
) -> list[Slot]:
    """Half the compute racks, the leaf racks, then the other half."""
    network: list[Slot] = [(NETWORK, su, rack) for rack in _pack(facility, heights, draws, kept, leaves)]
    half = len(compute) // 2
    return compute[:half] + network + compute[half:]


def _tray(plan: Plan, number: int) -> Member:
    """The envelope coordinates of server (tray) ``number``: its scalable unit of leaves and its slot there."""
    return ("server", number // plan.servers_per_su, number % plan.servers_per_su)


def _core(plan: Plan) -> list[Member]:
    """Every spine and super-spine of the envelope in central-rack order: per plane and super-spine group ``j``,
    spine ``j`` of every pod then the group's super-spines, so the links between them stay short (2 tiers: the
    spines in order)."""
    members: list[Member] = []
    for plane in range(plan.planes):
        for index in range(plan.spines_per_pod):
            members += [("spine", plane, pod, index) for pod in range(plan.envelope_pods)]
            if plan.tiers == 3:
                members += [("super_spine", plane, index, number) for number in range(plan.supers_per_group)]
    return members


def _pack(
    facility: Facility, heights: dict[str, int], draws: dict[str, int], kept: TopKept, members: list[Member]
) -> list[tuple[Member, ...]]:
    """Switches into network racks, in order, while rack units and the budget (at ``power_w_optics``) allow beside
    what the top keeps."""
    racks: list[list[Member]] = []
    units, watts = float(kept.units), kept.watts
    for key in members:
        role = str(key[0])
        height, draw = heights[role], draws[role]
        if not racks or units + height > facility.rack_units or watts + draw > facility.rack_power_kw * 1000:
            racks.append([])
            units, watts = float(kept.units), kept.watts
        racks[-1].append(key)
        units += height
        watts += draw
    return [tuple(rack) for rack in racks]


def row_length(facility: Facility, blocks: list[list[Slot]], core: list[Slot]) -> RowLength:
    """The intent's row length, or, left open, the one from 1 to ``facility.max_racks_per_row`` racks whose longest
    run (:func:`_longest_run`) is shortest, the shorter row on a tie, among the lengths that keep every scalable
    unit in rows of its own (it fits in a row, or fills whole rows: no row holds the tail of one and the head of
    the next) where any does. It reads only the envelope's racks, so growing inside the envelope keeps it."""
    block = max((len(racks) for racks in blocks), default=0)
    if facility.racks_per_row is not None:
        return RowLength(facility.racks_per_row, True, block)
    limit = facility.max_racks_per_row
    lengths = range(1, limit + 1)
    own = [racks for racks in lengths if all(len(unit) <= racks or len(unit) % racks == 0 for unit in blocks)]
    runs = [(_longest_run(_rows(blocks, core, racks), facility), racks) for racks in own or lengths]
    longest, racks = min(runs)
    return RowLength(racks, False, block, limit, round(longest, 1))


def _longest_run(rows: list[list[tuple[int, Slot]]], facility: Facility) -> float:
    """The longest run along the trays, in metres, between a compute rack and a leaf rack of its scalable unit, and
    between a leaf rack and a central rack (every leaf reaches spines in them), with the racks in ``rows``."""
    compute: dict[int, list[tuple[float, float]]] = {}
    leaves: dict[int, list[tuple[float, float]]] = {}
    central: list[tuple[float, float]] = []
    for row, content in enumerate(rows):
        for position, (role, su, members) in content:
            point = ((position + 0.5) * facility.rack_width_m, row * facility.row_pitch_m)
            if su < 0:
                central.append(point)
                continue
            if role == COMPUTE:
                compute.setdefault(su, []).append(point)
            if role == NETWORK or any(key[0] == "leaf" for key in members):
                leaves.setdefault(su, []).append(point)
    longest = 0.0
    for su, racks in leaves.items():
        longest = max(longest, _farthest(racks, compute.get(su, [])), _farthest(racks, central))
    return longest


def _farthest(these: list[tuple[float, float]], those: list[tuple[float, float]]) -> float:
    """The longest distance along the rows plus across them between a point of ``these`` and one of ``those``
    (0 when either is empty): the largest spread of ``x + y`` or ``x - y`` between the two sets."""
    if not these or not those:
        return 0.0
    spread = 0.0
    for sign in (1, -1):
        mine = [x + sign * y for x, y in these]
        theirs = [x + sign * y for x, y in those]
        spread = max(spread, max(mine) - min(theirs), max(theirs) - min(mine))
    return spread


def _rows(blocks: list[list[Slot]], core: list[Slot], width: int) -> list[list[tuple[int, Slot]]]:
    """SU blocks along a serpentine of rows, central rows (centered) at the clean boundary nearest the middle."""
    su_rows: list[list[tuple[int, Slot]]] = [[]]
    clean = {0}
    for block in blocks:
        if len(su_rows[-1]) == width or (su_rows[-1] and len(block) <= width < len(su_rows[-1]) + len(block)):
            su_rows.append([])
        if not su_rows[-1]:
            clean.add(len(su_rows) - 1)
        for rack in block:
            if len(su_rows[-1]) == width:
                su_rows.append([])
            taken = len(su_rows[-1])
            su_rows[-1].append((taken if len(su_rows) % 2 else width - 1 - taken, rack))
    core_rows = [
        [((width - len(chunk)) // 2 + offset, rack) for offset, rack in enumerate(chunk)]
        for chunk in (core[start : start + width] for start in range(0, len(core), width))
    ]
    clean.add(len(su_rows))
    middle = min(clean, key=lambda boundary: (abs(2 * boundary - len(su_rows)), boundary))
    return su_rows[:middle] + core_rows + su_rows[middle:]

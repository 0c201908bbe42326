"""The physical plan: racks, positions, power, cable lengths, media and the bill of materials.

Placement rules are in :mod:`designer.backend.physical.placement`, cable lengths, media and optics in
:mod:`designer.backend.physical.cables`. The stage reads the intent, plan and fabric and edits none of them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from typing import NamedTuple

from designer.backend.physical.cables import NO_LENGTH, BomKey, Runs, lay_cables, lengths
from designer.backend.physical.placement import COMPUTE, NETWORK, Layout, RackPlan, RowLength, TopKept, place
from designer.backend.sizing import Plan
from designer.backend.wiring import Fabric
from designer.catalog import BESIDE_TRAYS, MediumModel
from designer.intent import Intent
from designer.intent.facility import Facility
from designer.intent.switch_spec import SWITCH_TIERS

__all__ = [
    "COMPUTE",
    "NETWORK",
    "BomLine",
    "Physical",
    "Rack",
    "RowLength",
    "TopKept",
    "cable_lengths",
    "over_budget",
    "plan_physical",
    "too_hot_for_air",
]

CATEGORIES = ("system", "switch", "server", "nic", "transceiver", "cable")


class Rack(NamedTuple):
    """One rack: where it stands, what it holds (device indices, unit order) and what it draws."""

    name: str
    row: int
    position: int
    role: str
    su: int
    devices: tuple[int, ...]
    kw: float
    parts: tuple[tuple[str, int, int], ...] = ()
    """A rack-scale system's parts beside its compute trays (NVLink switch trays, power shelves, management
    switches): name, lowest unit and height, both 0 where the catalog gives no rack layout."""


def part_of(name: str) -> str:
    """The kind of a system's part beside its trays (:data:`designer.catalog.BESIDE_TRAYS`) from its name
    (``sys0-nvswitch3``)."""
    short = name.rsplit("-", 1)[1].rstrip("0123456789")
    return next(part.kind for part in BESIDE_TRAYS if part.short == short)


class BomLine(NamedTuple):
    """One line to order: ``length_m`` is None for anything that is not a cable."""

    category: str
    item: str
    length_m: float | None
    count: int  # type: ignore[assignment]  # a field, as NamedTuple allows; tuple.count is not used here


@dataclass(frozen=True)
class Physical:
    """Where everything stands, what it draws, how every link is cabled and what to order."""

    racks: list[Rack]
    rows: int
    servers_per_rack: int
    device_rack: list[int]
    device_unit: list[int]
    link_length_dm: list[int]
    link_medium: list[int]
    media: tuple[MediumModel, ...]
    reach_dm: tuple[tuple[int, ...], ...]
    """Per tier (:data:`~designer.backend.wiring.LINK_TIERS`), each medium's reach at that tier's link speed."""
    switch_w: list[float]
    bom: list[BomLine]
    shared_ports: dict[int, tuple[int, int]]
    """The first link through each broken-out physical port, with the port's lanes: with the lengths and media,
    what a plan of the same links, layout and media takes from this one (:func:`plan_physical`'s ``like``)."""
    row: RowLength
    """The rows' length in racks, given or chosen (:func:`designer.backend.physical.placement.row_length`)."""

    def unreachable(self) -> list[int]:
        """Links longer than every medium's reach."""
        return [link for link, medium in enumerate(self.link_medium) if medium == len(self.media)]

    def medium_names(self) -> list[str]:
        """The name of each medium a link can have, by its index in ``link_medium``: the media in order, then
        ``none`` (the index of a link no medium reaches)."""
        return [*(medium.name for medium in self.media), "none"]

    def medium_name(self, link: int) -> str:
        """The medium of link ``link``, or ``none`` when no medium reaches that far."""
        return self.medium_names()[self.link_medium[link]]

    def power_kw(self, pue: float) -> dict[str, float]:
        """IT power of the compute and network racks, their total, and the facility draw with ``pue``."""
        compute = sum(rack.kw for rack in self.racks if rack.role == COMPUTE)
        network = sum(rack.kw for rack in self.racks if rack.role == NETWORK)
        total = compute + network
        return {
            "compute": round(compute, 3),
            "network": round(network, 3),
            "total": round(total, 3),
            "facility": round(total * pue, 3),
        }

    def rack_counts(self) -> dict[str, int]:
        """Racks by role, their total and the rows they stand in."""
        compute = sum(1 for rack in self.racks if rack.role == COMPUTE)
        return {"compute": compute, "network": len(self.racks) - compute, "total": len(self.racks), "rows": self.rows}


def over_budget(racks: list[Rack], facility: Facility) -> list[Rack]:
    """Racks drawing more than the facility's per-rack power budget."""
    return [rack for rack in racks if rack.kw > facility.rack_power_kw]


def too_hot_for_air(racks: list[Rack], facility: Facility) -> list[Rack]:
    """Air-cooled racks drawing more than the air-cooling limit (none when the hall is liquid-cooled)."""
    return [rack for rack in racks if facility.cooling == "air" and rack.kw > facility.air_limit_kw]


def cable_lengths(intent: Intent, plan: Plan, fabric: Fabric, kept: TopKept) -> list[int]:
    """Every link's cable length in decimetres, as :func:`plan_physical` estimates it (placement and lengths only,
    for a stage that needs the lengths before the rest of the plan)."""
    return lengths(intent, fabric, place(intent, plan, fabric, kept))


def _parts(
    intent: Intent, plan: Plan, fabric: Fabric, rack: RackPlan, spots: dict[str, tuple[tuple[int, int], ...]]
) -> tuple[tuple[str, int, int], ...]:
    """What a compute rack of a rack-scale system holds beside its trays, each ``sys<s>-<short><k>`` for the system
    of its first tray, with each one's lowest unit and height from ``spots`` (:meth:`SystemModel.units`; 0 where the
    catalog gives no rack layout); nothing for any other rack."""
    system = intent.system
    if system is None or rack.role != COMPUTE:
        return ()
    first = fabric.devices[rack.devices[0]]
    number = (first.su * plan.servers_per_su + first.index) // plan.servers_per_system
    return tuple(
        (f"sys{number}-{part.short}{k}", *(spots[part.kind][k] if part.kind in spots else (0, 0)))
        for part in BESIDE_TRAYS
        for k in range(getattr(system, part.count))
    )


def _system_lines(intent: Intent, servers: int) -> Counter[BomKey]:
    """What the rack-scale systems add to the bill of materials beyond their trays (the servers): the systems and,
    in them, NVLink switch trays, power shelves, management switches and the trays' north-south NICs."""
    system = intent.system
    lines: Counter[BomKey] = Counter()
    if system is None:
        return lines
    systems = servers // system.trays
    lines["system", f"{system.name} rack", NO_LENGTH] = systems
    for part in BESIDE_TRAYS:
        each = getattr(system, part.count)
        if each:
            lines["system", f"{system.name} {part.item}", NO_LENGTH] = systems * each
    if system.north_south_nics:
        lines["nic", f"{system.north_south_nic} (north-south)", NO_LENGTH] = servers * system.north_south_nics
    return lines


def plan_physical(
    intent: Intent, plan: Plan, fabric: Fabric, kept: TopKept, like: tuple[Intent, Physical] | None = None
) -> Physical:
    """Place every device (below what the top of each network rack keeps, ``kept``), estimate every cable, pick
    media, add up power and the bill of materials. ``like``:
    another intent and its physical plan of a fabric wired as this one (:func:`designer.explore.alike.wired_alike`);
    when the devices stand where they stand there, as tall, in the same facility but for its ``media``, each link's
    length is taken from it, and so is its medium when the media are the same too (they read nothing else)."""
    layout = place(intent, plan, fabric, kept)
    runs = _same_runs(intent, layout, *like) if like else None
    cabling = lay_cables(intent, fabric, layout, runs)
    watts = cabling.switch_w + [intent.server.power_kw * 1000] * plan.servers
    digits = max(2, len(str(layout.rows - 1)))
    spots = intent.system.units(intent.facility.rack_units) if intent.system else {}
    racks = [
        Rack(
            f"r{rack.row:0{digits}d}-{rack.position:02d}",
            rack.row,
            rack.position,
            rack.role,
            rack.su,
            rack.devices,
            round(sum(watts[index] for index in rack.devices) / 1000, 3),
            _parts(intent, plan, fabric, rack, spots),
        )
        for rack in layout.racks
    ]
    counts: Counter[BomKey] = Counter(cabling.bom)
    for device in fabric.devices:
        counts["server" if device.role == "server" else "switch", device.model, NO_LENGTH] += 1
    counts.update(_system_lines(intent, plan.servers))
    bom = [
        BomLine(category, item, None if length == NO_LENGTH else length / 10, count)
        for (category, item, length), count in sorted(
            counts.items(), key=lambda line: (CATEGORIES.index(line[0][0]), line[0])
        )
    ]
    return Physical(
        racks,
        layout.rows,
        layout.servers_per_rack,
        layout.device_rack,
        layout.device_unit,
        cabling.length_dm,
        cabling.medium,
        cabling.media,
        cabling.reach_dm,
        cabling.switch_w,
        bom,
        cabling.shared,
        layout.row,
    )


def _same_runs(intent: Intent, layout: Layout, other: Intent, physical: Physical) -> Runs | None:
    """The lengths of ``physical`` (the plan of ``other``, wired alike) when ``layout`` gives the same runs: the
    same facility but for its media and the same device heights, each device in the same rack and unit and each
    rack in the same place; with the same media also their media and shared ports; else None."""
    if (
        replace(intent.facility, media="", reach_m=(), reach_by_speed=())
        != replace(other.facility, media="", reach_m=(), reach_by_speed=())
        or _heights(intent) != _heights(other)
        or layout.device_rack != physical.device_rack
        or layout.device_unit != physical.device_unit
        or [(rack.row, rack.position) for rack in layout.racks] != [(row.row, row.position) for row in physical.racks]
    ):
        return None
    same_media = intent.facility == other.facility and (
        tuple(intent.catalog.media[name] for name, _ in intent.facility.reach_m) == physical.media
    )
    return Runs(physical.link_length_dm, (physical.link_medium, physical.shared_ports) if same_media else None)


def _heights(intent: Intent) -> tuple[int, ...]:
    """The rack units of a server and of a switch of each tier."""
    return (intent.server.rack_units, *(intent.switch(role).rack_units for role in SWITCH_TIERS))

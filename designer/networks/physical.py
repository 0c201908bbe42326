"""Place the switches and storage servers of the networks beside the backend, cable them and the out-of-band network,
and count what they add to the racks, power and bill of materials. The backend's physical plan is an input and
is never edited: what the networks add is listed beside it.

* Top of rack: every rack keeps its top units for its management switches (:func:`management_space`; the
  backend's network racks keep them too, as the backend's placement is told), then a compute rack, network by
  network, the leaves of every leaf group that starts in it; the units are reserved by structure (the most groups
  of a network that can start in one rack, times its leaves per group), so a group built later takes its own units
  and moves none. A rack whose servers reach into those units is listed as crowded.
* Beside rack-scale systems: a system's rack is full (its parts hold every unit and its budget), so every network's
  server leaves stand in network racks of their own from the first rack after the backend's hall, each network's
  racks reserved for its envelope's leaf groups, whole groups to a rack as the units and power allow; the trays'
  NICs are cabled to them across the racks.
* Networks row: the border leaves, spines and storage servers' leaves of every network, then the storage servers,
  stand in network racks of a row after the backend's hall (``rN-MM`` as the backend names racks; after the
  reserved leaf racks beside rack-scale systems), stacked from below the management switches down while the units
  and the power budget allow; the OOB spines follow in a rack of their own.
* Management ports: every server's BMCs (and host port when declared) slot by slot, the managed parts of the rack,
  then the reserved top-of-rack leaves; in a network rack, every switch in unit order. A rack-scale system's rack
  cables its parts' management ports as its catalog entry lists them (``management_ports``: each compute tray's,
  then each NVLink switch tray's and power shelf's) through the system's own management switches, which take no
  units, power or order line beyond the system's; the parts stand at their layout's units.
* Core uplinks: each border leaf's declared uplinks to the data-centre core leave its first core-facing ports for
  ``core`` (``uplink0``...), run to the end of its row; the core's own ports are the core team's.
* Cable lengths follow the backend's rule (:mod:`designer.backend.physical.cables`): within a rack the vertical
  distance, between racks up to the tray, along it and down, plus the slack; the medium is the first whose reach at the
  link speed covers it. Management access cables are 1000BASE-T copper (``cat6``, 100 m).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from designer.backend.allocate import Pool
from designer.backend.physical import BomLine, Rack, TopKept, part_of
from designer.backend.physical.cables import UNIT_M, decimetres, module_name, ordered_length
from designer.backend.wiring import LINK_TIERS, Device
from designer.catalog import Catalog, SystemModel
from designer.intent.facility import Facility
from designer.intent.networks_section import DataNetworkSpec, OobSpec
from designer.networks.oob import MANAGEMENT_PORT, Managed, OobDesign, RackPorts, design_oob
from designer.networks.wiring import NetworkFabric

CORE, CORE_TIER = "core", "core_uplink"
"""The far end of a border leaf's uplinks: the data-centre core, not a device designer designs. Its cable runs up to
the tray, along the border leaf's row to its end (where the core's patch panel stands) and down to the top unit."""
ACCESS_MEDIUM, ACCESS_REACH_M = "cat6", 100.0
"""The management access cables: 1000BASE-T over twisted pair, 100 m (IEEE 802.3ab)."""


@dataclass(frozen=True)
class Place:
    """Where a device stands: its rack's name, row and position, its lowest unit and its height in units."""

    rack: str
    row: int
    position: int
    unit: int
    height: int


@dataclass(frozen=True)
class Cable:
    """One cable of a network beside the backend, as cabling.csv lists it."""

    network: str
    tier: str
    a_device: str
    a_port: str
    z_device: str
    z_port: str
    speed_gbps: int
    length_dm: int
    medium: str
    a_rack: str
    a_unit: int
    z_rack: str
    z_unit: int


@dataclass(frozen=True)
class NetworkRack:
    """A rack the networks add: where it stands, its role, what it holds (device names, top down) and its draw."""

    name: str
    row: int
    position: int
    role: str
    members: tuple[tuple[str, int], ...]
    """Every device in it with its lowest unit."""
    kw: float


@dataclass(frozen=True)
class NetworkPower:
    """What one network beside the backend draws: its switches (with their optics) and its storage servers."""

    network: str
    switches: int
    switch_kw: float
    servers: int
    server_kw: float


@dataclass(frozen=True)
class NetworksPhysical:
    """What the networks add to the hall: racks, the draw added to the backend's racks, every cable, the out-of-band
    network, the bill of materials, the racks too full for their top-of-rack switches and any devices sharing units."""

    racks: tuple[NetworkRack, ...]
    added_kw: dict[str, float]
    added_devices: dict[str, tuple[tuple[str, int], ...]]
    """The devices the networks add to racks beyond their members (top-of-rack leaves, management switches) and
    their lowest units, by rack."""
    cables: tuple[Cable, ...]
    oob: OobDesign | None
    bom: tuple[BomLine, ...]
    crowded: tuple[str, ...]
    power: tuple[NetworkPower, ...] = ()
    """Each network's draw, in the order they are designed (the out-of-band network last)."""
    brought: tuple[tuple[str, str, int], ...] = ()
    """The management switches of rack-scale systems the out-of-band network uses as they stand: name, rack and
    lowest unit (they are the systems' parts, neither added devices nor members)."""
    sharing_units: tuple[tuple[str, str, str], ...] = ()
    """Devices standing in the same units: rack, the lower device and the one reaching into it."""


@dataclass(frozen=True)
class Hall:
    """The backend's hall as the networks read it: its racks, rows and their length in racks, every device's name,
    rack and unit and height, the servers' index offset, and the facility and catalog."""

    racks: Sequence[Rack]
    rows: int
    racks_per_row: int
    devices: Sequence[Device]
    device_rack: Sequence[int]
    device_unit: Sequence[int]
    device_height: Sequence[int]
    servers_per_rack: int
    server_height: int
    facility: Facility
    catalog: Catalog
    system: SystemModel | None = None
    """The rack-scale system every compute rack holds (None: servers)."""

    def brings_switches(self, rack: Rack) -> bool:
        """Whether ``rack`` holds a rack-scale system with management switches of its own."""
        return self.system is not None and self.system.management_switches > 0 and rack.role == "compute"


def plan_networks_physical(
    hall: Hall,
    networks: Sequence[tuple[DataNetworkSpec, NetworkFabric]],
    oob: OobSpec | None,
    taken: Sequence[Pool],
) -> NetworksPhysical:
    """Place, cable and count every network beside the backend in ``hall``; the management pool clear of
    ``taken``: the servers' top-of-rack leaves, the other switches and storage nodes in network racks, the
    out-of-band network, then where every other device stands, the cables, the BOM and the power."""
    kept = management_space(
        oob,
        hall.servers_per_rack,
        sum(fabric.plan.leaves_per_rack(hall.servers_per_rack) for _, fabric in networks),
        hall.system,
    )
    places: dict[str, Place] = {}
    added: dict[str, float] = defaultdict(float)
    crowded: set[str] = set()
    leaf_racks, first_free = _leaf_racks(hall, networks, kept, places)
    tor_positions = _top_of_rack_leaves(hall, networks, kept, places, added, crowded)
    new_racks = [*leaf_racks, *_pack(_row_members(networks), first_free, hall, kept, places)]
    rack_ports = _rack_ports(hall, oob, tor_positions, new_racks)
    oob_design = None
    if oob is not None:
        oob_design, spine_rack = _place_oob(hall, oob, rack_ports, new_racks, first_free, kept, taken, places, added)
        new_racks = [*new_racks, *spine_rack]  # the OOB spines are managed through their loopbacks
    _place_the_hall(hall, oob is not None, places)
    standing = {device.name for device in hall.devices} | {name for rack in new_racks for name, _ in rack.members}
    standing |= {name for rack in hall.racks for name, _, _ in rack.parts}
    brought = frozenset(name for rack in rack_ports for name in rack.switches)
    added_devices: dict[str, list[tuple[str, int]]] = {}
    for name, place in places.items():
        if name not in standing:
            added_devices.setdefault(place.rack, []).append((name, place.unit))
    cables = _cables(hall, networks, oob_design, oob, places)
    bom = _bom(networks, oob_design, oob, cables, hall.catalog, len(brought))
    return NetworksPhysical(
        tuple(new_racks),
        {name: round(kw, 3) for name, kw in sorted(added.items())},
        {
            rack: tuple(sorted(devices, key=lambda device: -device[1]))
            for rack, devices in sorted(added_devices.items())
        },
        tuple(cables),
        oob_design,
        bom,
        tuple(sorted(crowded)),
        _power(networks, oob_design, oob, len(brought)),
        tuple((name, places[name].rack, places[name].unit) for name in sorted(brought)),
        _sharing_units(hall, places, added_devices, crowded),
    )


def _top_of_rack_leaves(
    hall: Hall,
    networks: Sequence[tuple[DataNetworkSpec, NetworkFabric]],
    kept: TopKept,
    places: dict[str, Place],
    added: dict[str, float],
    crowded: set[str],
) -> dict[str, list[Managed | None]]:
    """In a servers' hall, every network's leaves at the top of their servers' racks below what ``kept`` keeps,
    each network's below the previous one's, into ``places`` (with their power ``added`` to the rack, and the rack
    ``crowded`` where they reach down into its servers); returns each rack's leaves in management port order (every
    network's slots reserved, None where none stands)."""
    names = {device.name: index for index, device in enumerate(hall.devices)}
    reserved = 0
    tor_positions: dict[str, list[Managed | None]] = {}
    for spec, fabric in networks if hall.system is None else ():
        plan = fabric.plan
        per_rack = plan.leaves_per_rack(hall.servers_per_rack)
        servers = _server_names(fabric)
        for device in fabric.switches():
            if device.role != "leaf":
                continue
            first = servers[device.su * plan.servers_per_group]
            rack = hall.racks[hall.device_rack[names[first]]]
            local = (device.su * plan.servers_per_group % hall.servers_per_rack) // plan.servers_per_group
            offset = reserved + local * plan.leaves_per_group + device.index
            unit = hall.facility.rack_units - kept.units - (offset + 1) * spec.leaf.rack_units + 1
            places[device.name] = Place(rack.name, rack.row, rack.position, unit, spec.leaf.rack_units)
            added[rack.name] += spec.leaf.power_w_optics / 1000
            if unit <= hall.servers_per_rack * hall.server_height:
                crowded.add(rack.name)
            slots = tor_positions.setdefault(rack.name, [])
            slots.extend([None] * (reserved + per_rack - len(slots)))
            slots[offset] = Managed(device.name, MANAGEMENT_PORT)
        reserved += per_rack
    for rack_positions in tor_positions.values():
        rack_positions.extend([None] * (reserved - len(rack_positions)))
    return tor_positions


def _row_members(networks: Sequence[tuple[DataNetworkSpec, NetworkFabric]]) -> list[tuple[str, int, float, bool]]:
    """What stands in the networks' racks: every switch but the servers' leaves, then the storage nodes; each with
    its units, kW and whether it is a storage node."""
    row_members: list[tuple[str, int, float, bool]] = []
    for spec, fabric in networks:
        for device in fabric.switches():
            if device.role != "leaf":
                model = spec.spine if device.role == "spine" else spec.leaf
                row_members.append((device.name, model.rack_units, model.power_w_optics / 1000, False))
    for spec, fabric in networks:
        nodes = spec.storage_nodes
        for device in fabric.devices[fabric.switch_count :]:
            if device.role == "storage" and nodes:
                row_members.append((device.name, nodes.rack_units, nodes.power_kw, True))
    return row_members


def _place_oob(
    hall: Hall,
    oob: OobSpec,
    rack_ports: list[RackPorts],
    new_racks: list[NetworkRack],
    first_free: int,
    kept: TopKept,
    taken: Sequence[Pool],
    places: dict[str, Place],
    added: dict[str, float],
) -> tuple[OobDesign, list[NetworkRack]]:
    """The out-of-band network for the racks' management ports: its access switches at the top of every rack that
    does not bring its own (their power ``added``) and its spines in a network rack after the others, into
    ``places``; the design and the spines' rack."""
    width, facility = hall.racks_per_row, hall.facility
    last_row = max((rack.row for rack in new_racks), default=hall.rows - 1)
    oob_design = design_oob(oob, rack_ports, (last_row + 2) * width, taken)
    for name in [
        *(rack.name for rack in hall.racks if not hall.brings_switches(rack)),
        *(r.name for r in new_racks),
    ]:
        added[name] += oob_design.switches_per_rack * oob.switch.power_w / 1000
    spine_rack = _pack(
        [
            (name, oob.spine.rack_units, oob.spine.power_w_optics / 1000, False)
            for name in oob_design.switches[-oob_design.spines :]
        ],
        max([first_free, *(rack.row * width + rack.position + 1 for rack in new_racks)]),
        hall,
        kept,
        places,
    )
    every: list[Rack | NetworkRack] = [rack for rack in hall.racks if not hall.brings_switches(rack)]
    for placed in [*every, *new_racks]:
        height = oob.switch.rack_units
        for local in range(oob_design.switches_per_rack):
            unit = facility.rack_units - (local + 1) * height + 1
            places[f"{placed.name}-mgmt{local}"] = Place(placed.name, placed.row, placed.position, unit, height)
    return oob_design, spine_rack


def _place_the_hall(hall: Hall, managed: bool, places: dict[str, Place]) -> None:
    """Every device of the backend's hall where it stands, into ``places`` (a network's own places kept); with an
    out-of-band network (``managed``), the racks' managed parts too."""
    for number, device in enumerate(hall.devices):
        rack = hall.racks[hall.device_rack[number]]
        places.setdefault(
            device.name,
            Place(rack.name, rack.row, rack.position, hall.device_unit[number], hall.device_height[number]),
        )
    if managed:
        for rack in hall.racks:
            for name, unit, height in rack.parts:
                places[name] = Place(rack.name, rack.row, rack.position, unit, height)


def _sharing_units(
    hall: Hall, places: dict[str, Place], added: dict[str, list[tuple[str, int]]], crowded: set[str]
) -> tuple[tuple[str, str, str], ...]:
    """Every pair of devices standing in the same units of a rack the networks add devices to (rack, lower device,
    the one above reaching into it), but in the racks already listed as crowded."""
    occupants: dict[str, list[str]] = {rack: [name for name, _ in devices] for rack, devices in added.items()}
    for backend in hall.racks:
        if backend.name in occupants:
            occupants[backend.name] += [hall.devices[index].name for index in backend.devices]
            occupants[backend.name] += [name for name, _, _ in backend.parts if name in places]
    sharing = []
    for rack, names in sorted(occupants.items()):
        if rack in crowded:
            continue
        standing = sorted((places[name].unit, name) for name in names if places[name].height)
        for (low, lower), (high, upper) in pairwise(standing):
            if high < low + places[lower].height:
                sharing.append((rack, lower, upper))
    return tuple(sharing)


def _power(
    networks: Sequence[tuple[DataNetworkSpec, NetworkFabric]],
    oob_design: OobDesign | None,
    oob: OobSpec | None,
    brought: int,
) -> tuple[NetworkPower, ...]:
    """Each network's switches and storage servers with their draw, as the racks count it: not the ``brought``
    management switches of rack-scale systems, whose draw is the system's."""
    power = []
    for spec, fabric in networks:
        watts = sum(
            (spec.spine if device.role == "spine" else spec.leaf).power_w_optics for device in fabric.switches()
        )
        nodes = spec.storage_nodes
        count = nodes.count if nodes else 0
        power.append(
            NetworkPower(
                spec.name,
                fabric.switch_count,
                round(watts / 1000, 3),
                count,
                round(count * nodes.power_kw, 3) if nodes else 0.0,
            )
        )
    if oob_design is not None and oob is not None:
        managers = len(oob_design.switches) - oob_design.spines - brought
        watts = managers * oob.switch.power_w + oob_design.spines * oob.spine.power_w_optics
        power.append(NetworkPower("oob", managers + oob_design.spines, round(watts / 1000, 3), 0, 0.0))
    return tuple(power)


def _server_names(fabric: NetworkFabric) -> list[str]:
    """The GPU servers of a network, in the backend's order."""
    return [device.name for device in fabric.devices[fabric.switch_count :] if device.role == "server"]


def management_space(
    oob: OobSpec | None, servers_per_rack: int, leaves_per_rack: int, system: SystemModel | None
) -> TopKept:
    """What the top of a rack keeps for management switches: enough for a compute rack's management ports (its
    servers' and managed parts', and its ``leaves_per_rack`` top-of-rack leaves of every network); in a hall of
    rack-scale systems that bring their own, one switch for a network rack's switches. Nothing without ``oob``."""
    if oob is None:
        return TopKept()
    if system is not None and system.management_switches:
        switches = 1  # the compute racks bring their own; a network rack's switches fill one
    else:
        ports = servers_per_rack * (oob.bmcs_per_server + oob.host_management) + oob.managed_per_rack
        switches = max(1, math.ceil((ports + leaves_per_rack) / oob.switch.ports))
    return TopKept(switches * oob.switch.rack_units, switches * oob.switch.power_w)


def _leaf_racks(
    hall: Hall, networks: Sequence[tuple[DataNetworkSpec, NetworkFabric]], top: TopKept, places: dict[str, Place]
) -> tuple[list[NetworkRack], int]:
    """Beside rack-scale systems (whose racks are full), the GPU servers' leaves of every network in network racks
    of their own from the first rack after the backend's hall, below what the ``top`` keeps: each network's
    racks reserved for the leaf groups of its envelope, as many whole groups to a rack as its units and power
    allow, group ``g`` in the network's rack ``g // per_rack``; returns the racks built and the first rack slot
    (row times racks per row plus position) after every reservation. Servers' halls: no racks, the first slot."""
    facility = hall.facility
    slot = hall.rows * hall.racks_per_row
    if hall.system is None:
        return [], slot
    racks: list[NetworkRack] = []
    for spec, fabric in networks:
        plan, leaf = fabric.plan, spec.leaf
        fit_units = (facility.rack_units - top.units) // (plan.leaves_per_group * leaf.rack_units)
        fit_power = int((facility.rack_power_kw * 1000 - top.watts) // (plan.leaves_per_group * leaf.power_w_optics))
        per_rack = max(1, min(fit_units, fit_power))
        members: dict[int, list[str]] = defaultdict(list)
        for device in fabric.switches():
            if device.role != "leaf":
                continue
            rack_slot = slot + device.su // per_rack
            row, position = divmod(rack_slot, hall.racks_per_row)
            offset = (device.su % per_rack) * plan.leaves_per_group + device.index
            unit = facility.rack_units - top.units - (offset + 1) * leaf.rack_units + 1
            places[device.name] = Place(_rack_name(row, position), row, position, unit, leaf.rack_units)
            members[rack_slot].append(device.name)
        for rack_slot, names in sorted(members.items()):
            row, position = divmod(rack_slot, hall.racks_per_row)
            stacked = tuple(sorted(((name, places[name].unit) for name in names), key=lambda member: -member[1]))
            kw = round(len(names) * leaf.power_w_optics / 1000, 3)
            racks.append(NetworkRack(_rack_name(row, position), row, position, "network", stacked, kw))
        slot += math.ceil(plan.envelope_groups / per_rack)
    return racks, slot


def _pack(
    members: Sequence[tuple[str, int, float, bool]],
    slot: int,
    hall: Hall,
    top: TopKept,
    places: dict[str, Place],
) -> list[NetworkRack]:
    """Stack ``members`` (name, units, kW, storage server) into new racks of ``hall`` from the rack slot ``slot``
    (row times racks per row plus position) on, below what the ``top`` keeps, while the units and power allow; storage
    servers in racks of their own."""
    racks: list[NetworkRack] = []
    facility, width = hall.facility, hall.racks_per_row
    row, position = divmod(slot, width)
    current: list[str] = []
    unit, kw, storage = facility.rack_units - top.units + 1, 0.0, False
    budget = facility.rack_power_kw - top.watts / 1000

    def close() -> None:
        nonlocal position, row, current, unit, kw
        if current:
            role = "storage" if storage else "network"
            name = _rack_name(row, position)
            members = tuple((member, places[member].unit) for member in current)
            racks.append(NetworkRack(name, row, position, role, members, round(kw, 3)))
            position += 1
            if position == width:
                row, position = row + 1, 0
        current, unit, kw = [], facility.rack_units - top.units + 1, 0.0

    for name, height, draw, is_storage in members:
        if current and (unit - height < 1 or kw + draw > budget or is_storage != storage):
            close()
        storage = is_storage
        unit -= height
        kw += draw
        current.append(name)
        places[name] = Place(_rack_name(row, position), row, position, unit, height)
    close()
    return racks


def _rack_name(row: int, position: int) -> str:
    return f"r{row:02d}-{position:02d}"


def _rack_ports(
    hall: Hall,
    oob: OobSpec | None,
    tor_positions: dict[str, list[Managed | None]],
    new_racks: Sequence[NetworkRack],
) -> list[RackPorts]:
    """Every rack's management port positions (see the module notes), racks numbered by where they stand."""
    if oob is None:
        return []
    width = hall.racks_per_row
    reserved = max((len(positions) for positions in tor_positions.values()), default=0)
    result = []
    for rack in hall.racks:
        positions: list[Managed | None] = []
        if hall.system is not None and hall.brings_switches(rack):
            positions = _system_positions(hall.system, oob, rack, [hall.devices[index].name for index in rack.devices])
            positions.extend(tor_positions.get(rack.name, [None] * reserved))
            switches = tuple(name for name, _, _ in rack.parts if part_of(name) == "management_switch")
            result.append(RackPorts(rack.name, rack.row * width + rack.position, tuple(positions), switches))
            continue
        if rack.role == "compute":
            servers = [hall.devices[index].name for index in rack.devices]
            for slot in range(hall.servers_per_rack):
                name = servers[slot] if slot < len(servers) else None
                positions.extend(
                    Managed(name, f"bmc{bmc}" if oob.bmcs_per_server > 1 else "bmc") if name else None
                    for bmc in range(oob.bmcs_per_server)
                )
                if oob.host_management:
                    positions.append(Managed(name, "mgmt") if name else None)
            positions.extend(Managed(f"{rack.name}-pdu{part}", "mgmt") for part in range(oob.managed_per_rack))
            positions.extend(tor_positions.get(rack.name, [None] * reserved))
        else:
            positions.extend(Managed(hall.devices[index].name, MANAGEMENT_PORT) for index in rack.devices)
        result.append(RackPorts(rack.name, rack.row * width + rack.position, tuple(positions)))
    for new in new_racks:
        result.append(
            RackPorts(
                new.name,
                new.row * width + new.position,
                tuple(Managed(name, "bmc" if new.role == "storage" else MANAGEMENT_PORT) for name, _ in new.members),
            )
        )
    return result


def _system_positions(system: SystemModel, oob: OobSpec, rack: Rack, trays: Sequence[str]) -> list[Managed | None]:
    """The management ports of a rack-scale system's rack: each compute tray's in tray order (with its host
    management port when declared), then each of its other parts' in their order, then the managed parts the
    intent declares per rack."""
    ports = (*system.management_ports_of("compute_tray"), *((MANAGEMENT_PORT,) if oob.host_management else ()))
    positions: list[Managed | None] = [
        Managed(trays[slot], port) if slot < len(trays) else None for slot in range(system.trays) for port in ports
    ]
    positions.extend(
        Managed(name, port) for name, _, _ in rack.parts for port in system.management_ports_of(part_of(name))
    )
    positions.extend(Managed(f"{rack.name}-pdu{part}", "mgmt") for part in range(oob.managed_per_rack))
    return positions


def _run_dm(a: Place, b: Place, facility: Facility) -> int:
    """A cable's length between two places, in decimetres (the backend's rule, see the module notes)."""
    za, zb = (a.unit - 1 + a.height / 2) * UNIT_M, (b.unit - 1 + b.height / 2) * UNIT_M
    if a.rack == b.rack:
        run = abs(za - zb)
    else:
        run = 2 * facility.rack_units * UNIT_M - za - zb
        run += abs(a.position - b.position) * facility.rack_width_m + abs(a.row - b.row) * facility.row_pitch_m
    return decimetres(run + facility.slack_m)


def _medium(length_dm: int, speed: int, facility: Facility) -> str:
    """The first medium whose reach at ``speed`` covers ``length_dm``, else ``none``."""
    return next((name for name, reach in facility.reach_at(speed) if length_dm <= reach * 10), "none")


_CableMaker = Callable[..., Cable]
"""A cable between two devices and ports (:func:`_cable_maker`)."""


def _cables(
    hall: Hall,
    networks: Sequence[tuple[DataNetworkSpec, NetworkFabric]],
    oob_design: OobDesign | None,
    oob: OobSpec | None,
    places: dict[str, Place],
) -> list[Cable]:
    """Every cable of the networks beside the backend: each network's links and its border leaves' core uplinks,
    then the out-of-band network's access cables and uplinks."""
    cable = _cable_maker(hall.facility, places)
    cables = []
    for spec, fabric in networks:
        devices = fabric.devices
        for tier, upper, upper_port, lower, lower_port in fabric.links:
            up, low = devices[upper], devices[lower]
            speed = spec.leaf.speed if LINK_TIERS[tier] == "leaf_spine" else _server_speed(spec, low)
            ends = (up.name, fabric.port_name(up, upper_port)), (low.name, fabric.port_name(low, lower_port))
            cables.append(cable(spec.name, LINK_TIERS[tier], *ends, speed))
        cables += _core_cables(hall, spec, fabric, places)
    if oob_design is not None and oob is not None:
        for access in oob_design.access:
            access_switch = oob_design.switches[access.switch]
            ends = (access_switch, f"swp{access.port + 1}"), (access.managed.device, access.managed.port)
            cables.append(
                cable("oob", "access", *ends, 1, ACCESS_MEDIUM, near=access_switch)
            )  # a PDU: in the switch's rack
        first_uplink = oob.switch.ports + 1
        speed, breakout = oob.switch.uplink_speed, oob.spine.breakout(oob.switch.uplink_speed)
        for spine, spine_port, switch, uplink in oob_design.uplinks:
            spine_if = f"swp{spine_port // breakout + 1}" + (f"s{spine_port % breakout}" if breakout > 1 else "")
            ends = (oob_design.switches[spine], spine_if), (oob_design.switches[switch], f"swp{first_uplink + uplink}")
            cables.append(cable("oob", "oob_uplink", *ends, speed))
    return cables


def _cable_maker(facility: Facility, places: dict[str, Place]) -> _CableMaker:
    """What makes each cable from where its ends stand in ``places``, each (length, speed)'s medium found once (a
    hall has few distinct lengths)."""
    reaching: dict[tuple[int, int], str] = {}

    def cable(
        network: str, tier: str, a: tuple[str, str], z: tuple[str, str], speed: int, medium: str = "", near: str = ""
    ) -> Cable:
        """A cable between the devices and ports ``a`` and ``z`` (the upper end first), its length from where they
        stand (``z`` where ``near`` stands when it has no place of its own) and the first medium that reaches
        (unless given)."""
        at, to = places[a[0]], places.get(z[0]) or places[near]
        length = _run_dm(at, to, facility)
        medium = medium if length <= ACCESS_REACH_M * 10 or not medium else "none"
        if not medium:
            medium = reaching.get((length, speed)) or reaching.setdefault(
                (length, speed), _medium(length, speed, facility)
            )
        return Cable(network, tier, *a, *z, speed, length, medium, at.rack, at.unit, to.rack, to.unit)

    return cable


def _core_cables(hall: Hall, spec: DataNetworkSpec, fabric: NetworkFabric, places: dict[str, Place]) -> list[Cable]:
    """The uplinks of the network's border leaves to the data-centre core, at the end of their row."""
    facility = hall.facility
    cables = []
    for border in fabric.switches():
        if border.role == "border_leaf":
            at = places[border.name]
            core = Place(CORE, at.row, hall.racks_per_row, facility.rack_units, 1)
            length = _run_dm(at, core, facility)
            cables += [
                Cable(
                    spec.name,
                    CORE_TIER,
                    border.name,
                    border.port_name(uplink),
                    CORE,
                    f"uplink{uplink}",
                    spec.core_uplink_speed,
                    length,
                    _medium(length, spec.core_uplink_speed, facility),
                    at.rack,
                    at.unit,
                    CORE,
                    0,
                )
                for uplink in range(spec.core_uplinks)
            ]
    return cables


def _server_speed(spec: DataNetworkSpec, device: Device) -> int:
    return spec.storage_nodes.nic_speed if device.role == "storage" and spec.storage_nodes else spec.nic_speed


def _bom(
    networks: Sequence[tuple[DataNetworkSpec, NetworkFabric]],
    oob_design: OobDesign | None,
    oob: OobSpec | None,
    cables: Sequence[Cable],
    hardware: Catalog,
    brought: int,
) -> tuple[BomLine, ...]:
    """What the networks add to order: switches (not the ``brought`` management switches of rack-scale systems,
    which come with them), storage servers, an optic at each end of every optical cable (one per link, at its speed)
    and the cables by medium and ordered length."""
    counts: Counter[tuple[str, str, float | None]] = Counter()
    for spec, fabric in networks:
        for device in fabric.switches():
            counts["switch", (spec.spine if device.role == "spine" else spec.leaf).model, None] += 1
        if spec.storage_nodes:
            counts["server", "storage server", None] += spec.storage_nodes.count
    if oob_design is not None and oob is not None:
        if added := len(oob_design.switches) - oob_design.spines - brought:
            counts["switch", oob.switch.name, None] += added
        counts["switch", oob.spine.model, None] += oob_design.spines
    for cable in cables:
        medium = hardware.media.get(cable.medium)
        if medium is not None and medium.optical:
            counts["transceiver", module_name(medium, cable.speed_gbps, 1, cable.speed_gbps), None] += 2
        counts["cable", f"{cable.medium} {cable.speed_gbps}G", ordered_length(cable.length_dm, hardware) / 10] += 1
    order = ("switch", "server", "transceiver", "cable")
    return tuple(
        BomLine(category, item, length, count)
        for (category, item, length), count in sorted(
            counts.items(), key=lambda line: (order.index(line[0][0]), line[0][1], line[0][2] or 0)
        )
    )

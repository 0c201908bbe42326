"""Cable runs: each link's estimated length, the medium that reaches it, and the optics and cables to order.

* Length, rounded up to 0.1 m: inside one rack, the vertical distance between the middles of the two
  devices; between racks, up from each device to the top of its rack, then along the overhead tray,
  ``|dx|`` between rack centres plus ``|dy|`` between rows (no diagonals); plus ``facility.slack_m``.
* Medium: links that share a physical port (the lanes of a broken-out port, and through them every
  link joined to those lanes) must use one medium, so each such group takes the first medium, in
  catalog order, whose reach at the link speed covers the group's longest run (a physical port runs one
  speed, so a group does too), among the optical media only under ``facility.media: optics``. A group
  longer than every reach gets no medium; the cable-reach check fails it.
* Optics: one module in every physical port of an optical link, sized to the port (a twin-port
  800G module carries two 400G links); one fiber per link.
* Copper: one cable per cable assembly, keyed by the end with the larger breakout: a straight cable,
  or a splitter when that port's lanes reach several ports at the other end. Active copper draws
  power at every end.
* A server's physical ports are its cages (catalog ``cages``): a twin-port cage carries two NIC ports (the DGX
  H100's OSFP cages, each half to another rail), and a multiplane NIC port (``compute.multiplane``) is one cage
  whose halves are its plane links, each to a leaf of another plane. A cage of several links takes one twin-port
  (or quad) module with a fiber per link, or one copper splitter keyed by the cage. Copper cannot join a cage
  fanning out to several leaves with a leaf port fanning out to several cages (no cable has two split ends), so
  such links take optics only. A module in a server's cage is named with the form the catalog gives its cages
  (``cage_module``: a DGX takes flat-top ones; a switch's are finned, the default, not named).
* A switch draws its power without optics (``power_w``) plus the modules and active-cable ends in its
  ports. A server's catalog power is its maximum, its own NIC modules included, so nothing is added.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from functools import cache, partial
from typing import Any, NamedTuple

from designer.backend.physical.placement import Layout, device_units
from designer.backend.wiring import Device, Fabric, Link
from designer.catalog import Catalog, MediumModel
from designer.intent import Intent

UNIT_M = 0.04445
"""Height of one rack unit in metres (EIA-310)."""
PORT_SPACE = 1 << 12
"""Physical port numbers are below this: ``device * PORT_SPACE + port`` names a physical port."""
NO_LENGTH = -1
"""Length of a BOM line that is not a cable."""

BomKey = tuple[str, str, int]
"""(category, item, ordered length in decimetres or NO_LENGTH)."""


class Cabling(NamedTuple):
    """Per link: length in decimetres and medium (index into ``media``; ``len(media)`` is none); per tier the
    media's reach at its link speed. Per switch: its draw in watts. Transceivers and cables counted by BOM key."""

    length_dm: list[int]
    medium: list[int]
    media: tuple[MediumModel, ...]
    reach_dm: tuple[tuple[int, ...], ...]
    switch_w: list[float]
    bom: Counter[BomKey]
    shared: dict[int, tuple[int, int]]
    """The first link through each broken-out physical port, with the port's lanes (:func:`choose_media`)."""


class Runs(NamedTuple):
    """What :func:`lay_cables` takes from another cabling of the same links and layout: each link's length, and
    with the same media each link's medium and the shared physical ports (None: chosen anew)."""

    length_dm: list[int]
    media: tuple[list[int], dict[int, tuple[int, int]]] | None


def decimetres(metres: float) -> int:
    """``metres`` rounded up to whole decimetres (float noise below a micrometre ignored)."""
    return math.ceil(round(metres * 10, 5))


def medium_for(length_dm: int, reach_dm: tuple[int, ...]) -> int:
    """Index of the first medium whose reach covers ``length_dm``; ``len(reach_dm)`` when none does."""
    return bisect_left(reach_dm, length_dm)


def ordered_length(length_dm: int, hardware: Catalog) -> int:
    """The shortest orderable cable length (decimetres) covering ``length_dm``, from the lengths of ``hardware``
    (the intent's catalog); beyond the list, whole metres."""
    lengths = _orderable_dm(hardware.cable_lengths_m)
    index = bisect_left(lengths, length_dm)
    return lengths[index] if index < len(lengths) else math.ceil(length_dm / 10) * 10


@cache
def _orderable_dm(lengths_m: tuple[float, ...]) -> tuple[int, ...]:
    return tuple(round(metres * 10) for metres in lengths_m)


def lengths(intent: Intent, fabric: Fabric, layout: Layout) -> list[int]:
    """Estimated length of every link in decimetres (see the module notes)."""
    facility = intent.facility
    places = [layout.racks[rack] for rack in layout.device_rack]
    x = [(rack.position + 0.5) * facility.rack_width_m for rack in places]
    y = [rack.row * facility.row_pitch_m for rack in places]
    z = [
        (unit - 1 + device_units(intent, device) / 2) * UNIT_M
        for unit, device in zip(layout.device_unit, fabric.devices, strict=True)
    ]
    top = 2 * facility.rack_units * UNIT_M
    rack_of, slack = layout.device_rack, facility.slack_m
    result = []
    rounded: dict[float, int] = {}
    """Decimetres of each run met so far: racks repeat, and so do their runs."""
    for _, upper, _, lower, _ in fabric.links:
        if rack_of[upper] == rack_of[lower]:
            run = abs(z[upper] - z[lower])
        else:
            run = top - z[upper] - z[lower] + abs(x[upper] - x[lower]) + abs(y[upper] - y[lower])
        length = rounded.get(run)
        if length is None:
            length = rounded[run] = decimetres(run + slack)
        result.append(length)
    return result


PortLanes = tuple[list[int], list[int], list[int], list[tuple[int, ...]]]
"""Per device: the lanes of its ports facing down, of those facing up, their offset (:func:`_uplink_offset`) and a
server's cage of each port (empty for a switch): a link's upper end is a down port, its lower end an up port."""


def lay_cables(intent: Intent, fabric: Fabric, layout: Layout, runs: Runs | None = None) -> Cabling:
    """Lengths, media, switch power and the transceiver and cable counts of every link; ``runs``: what another
    cabling of the same links and layout gives, taken as it is."""
    speeds = fabric.plan.link_speeds
    media = tuple(intent.catalog.media[name] for name, _ in intent.facility.reach_m)
    reach_dm = tuple(
        tuple(math.floor(round(reach * 10, 5)) for _, reach in intent.facility.reach_at(speed)) for speed in speeds
    )
    length_dm = runs.length_dm if runs else lengths(intent, fabric, layout)
    lanes = _port_lanes(intent, fabric)
    medium, shared = (
        runs.media
        if runs and runs.media
        else choose_media(fabric.links, lanes, length_dm, reach_dm, tuple(m.optical for m in media))
    )
    plugs = _Plugs(intent, fabric)
    for (chosen, length), count in Counter(zip(medium, length_dm, strict=True)).items():  # by medium and length, in C
        if chosen == len(media):
            plugs.bom["cable", "none: longer than every medium", ordered_length(length, intent.catalog)] += count
        elif media[chosen].optical:
            plugs.bom["cable", f"{media[chosen].label} fiber", ordered_length(length, intent.catalog)] += count
    assemblies = _single_modules_and_assemblies(plugs, fabric, lanes, medium, length_dm, media)
    for key, (first, port_lanes) in sorted(shared.items()):
        group_medium = medium[first]
        if group_medium < len(media) and media[group_medium].optical:
            plugs.plug(key // PORT_SPACE, media[group_medium], port_lanes, speeds[fabric.links[first][0]])
    copper: Counter[tuple[str, int, int, int, int, int]] = Counter()
    for key, (run, model, far, near_lanes, far_lanes, speed) in sorted(assemblies.items()):
        copper[model.label, near_lanes, len(far), far_lanes, speed, run] += 1
        plugs.plug(key // PORT_SPACE, model, near_lanes, speed)
        for port in sorted(far):
            plugs.plug(port // PORT_SPACE, model, far_lanes, speed)
    for (label, near_lanes, ends, far_lanes, speed, run), count in copper.items():  # each kind named once
        item = f"{label} {near_lanes * speed}G" + (f" to {ends} x {far_lanes * speed}G" if ends > 1 else "")
        plugs.bom["cable", item, ordered_length(run, intent.catalog)] += count
    return Cabling(length_dm, medium, media, reach_dm, plugs.switch_w, plugs.bom, shared)


def _port_lanes(intent: Intent, fabric: Fabric) -> PortLanes:
    """Every device's :data:`PortLanes`."""
    devices = fabric.devices
    breakout = [device.breakout for device in devices]
    cage_links = intent.server.cage_links
    up_breakout = [cage_links if device.role == "server" else device.uplink_breakout for device in devices]
    """Lanes of each device's ports facing up: a link's lower end (a server's: the links of one of its cages)."""
    up_offset = [_uplink_offset(device) for device in devices]
    server_cages = tuple(cage for cage, _, _ in intent.server.cage_places())
    """The cage of each of a server's ports (:meth:`ServerSpec.cage_places`), one tuple for every server."""
    up_cages = [server_cages if device.role == "server" else () for device in devices]
    return breakout, up_breakout, up_offset, up_cages


class _Plugs:
    """The switches' power and the bill of materials, as modules and active-cable ends are plugged in."""

    def __init__(self, intent: Intent, fabric: Fabric) -> None:
        self.switch_w = [float(intent.switch(device.role).power_w) for device in fabric.switches()]
        self.switch_count = fabric.switch_count
        self.bom: Counter[BomKey] = Counter()
        self.server_form = intent.server.cage_module
        self._modules: dict[tuple[str, int, int, str], BomKey] = {}

    def module(self, model: MediumModel, lanes: int, speed: int, form: str = "") -> BomKey:
        """The bill's line of an optical module of ``lanes`` links of ``speed`` (``form``: a server cage's)."""
        key = self._modules.get((model.name, lanes, speed, form))
        if key is None:
            name = module_name(model, lanes * speed, lanes, speed)
            key = self._modules[model.name, lanes, speed, form] = (
                "transceiver",
                f"{name}, {form}" if form else name,
                NO_LENGTH,
            )
        return key

    def plug(self, device: int, model: MediumModel, lanes: int, speed: int) -> None:
        """One module or active-cable end in a physical port of ``lanes`` links of ``speed``."""
        if device < self.switch_count:
            self.switch_w[device] += model.power_w.get(lanes * speed, 0.0)
        if model.optical:
            self.bom[self.module(model, lanes, speed, "" if device < self.switch_count else self.server_form)] += 1


def _single_modules_and_assemblies(
    plugs: _Plugs,
    fabric: Fabric,
    lanes: PortLanes,
    medium: list[int],
    length_dm: list[int],
    media: tuple[MediumModel, ...],
) -> dict[int, list[Any]]:
    """Every link's modules in unbroken ports (their power added to their switch at once, their count to the bill
    once all are counted), and its copper assemblies by the physical port that keys them: longest run, medium,
    far ports, lanes of the keyed port and of a far one, and the link speed."""
    breakout, up_breakout, up_offset, up_cages = lanes
    speeds, switch_count, server_form, switch_w = (
        fabric.plan.link_speeds,
        plugs.switch_count,
        plugs.server_form,
        plugs.switch_w,
    )
    single_w = [[model.power_w.get(speed, 0.0) for model in media] for speed in speeds]
    singles: Counter[tuple[int, int, str]] = Counter()
    """Modules of one link by medium and tier."""
    assemblies: dict[int, list[Any]] = {}
    for number, (tier, upper, upper_port, lower, lower_port) in enumerate(fabric.links):
        chosen = medium[number]
        if chosen == len(media):
            continue
        model = media[chosen]
        upper_lanes, lower_lanes = breakout[upper], up_breakout[lower]
        if model.optical:
            for device, device_lanes in ((upper, upper_lanes), (lower, lower_lanes)):
                if device_lanes == 1:
                    if device < switch_count:
                        singles[chosen, tier, ""] += 1
                        switch_w[device] += single_w[tier][chosen]
                    else:
                        singles[chosen, tier, server_form] += 1
            continue
        upper_key = upper * PORT_SPACE + upper_port // upper_lanes
        lower_key = lower * PORT_SPACE + _lower_port(lower_port, lower_lanes, up_offset[lower], up_cages[lower])
        if upper_lanes >= lower_lanes and not (up_cages[lower] and lower_lanes > 1):
            key, far, near_lanes, far_lanes = upper_key, lower_key, upper_lanes, lower_lanes
        else:
            key, far, near_lanes, far_lanes = lower_key, upper_key, lower_lanes, upper_lanes
        assembly = assemblies.get(key)
        if assembly is None:
            assemblies[key] = [length_dm[number], model, {far}, near_lanes, far_lanes, speeds[tier]]
        else:
            assembly[0] = max(assembly[0], length_dm[number])
            assembly[2].add(far)
    for (chosen, tier, form), count in sorted(singles.items()):
        plugs.bom[plugs.module(media[chosen], 1, speeds[tier], form)] += count
    return assemblies


def _uplink_offset(device: Device) -> int:
    """What to add to one of the device's uplink ports before dividing by its ``uplink_breakout`` to get its
    physical port (0 when the uplinks break out as the downlinks do, and for servers; see :meth:`Device.place`)."""
    if device.uplink_breakout == device.breakout or device.role == "server":
        return 0
    return -(-device.downlinks // device.breakout) * device.uplink_breakout - device.downlinks


def _lower_port(port: int, lanes: int, offset: int, cages: tuple[int, ...]) -> int:
    """The physical port of a link's lower end ``port``: a server's cage (``cages``, by port), else the switch's
    up-facing port of ``lanes`` lanes (``offset``: :func:`_uplink_offset`)."""
    return cages[port] if cages else (port + offset) // lanes


def choose_media(
    links: list[Link],
    lanes: PortLanes,
    length_dm: list[int],
    reach_dm: tuple[tuple[int, ...], ...],
    optical: tuple[bool, ...] = (),
) -> tuple[list[int], dict[int, tuple[int, int]]]:
    """Each link's medium, the same for every link joined to it through a shared physical port, chosen for the
    longest run among them at the reach of its tier's speed; and the first link through each shared (broken-out)
    physical port with that port's lanes. ``lanes`` is every device's :data:`PortLanes`. A group where a server
    cage of several links meets a broken-out leaf port takes the first medium ``optical`` says is optical (copper
    has no cable split at both ends)."""
    groups, shared, split_both = _link_groups(links, lanes)
    longest = length_dm[:]
    for group, length in zip(groups, length_dm, strict=True):
        if length > longest[group]:
            longest[group] = length
    if len(set(reach_dm)) == 1:  # one reach for every tier: one lookup per link, in C
        media = list(map(partial(medium_for, reach_dm=reach_dm[0]), map(longest.__getitem__, groups)))
    else:
        media = [medium_for(longest[group], reach_dm[link[0]]) for group, link in zip(groups, links, strict=True)]
    optics_only = {groups[number] for number in split_both}
    if optics_only:
        optical_at: dict[tuple[int, int], int] = {}
        """The optical medium by run length and tier: a few kinds of run for every such link."""
        for number, group in enumerate(groups):
            if group in optics_only:
                run = longest[group], links[number][0]
                chosen = optical_at.get(run)
                if chosen is None:
                    chosen = optical_at[run] = _optical_for(run[0], reach_dm[run[1]], optical)
                media[number] = chosen
    return media, shared


def _link_groups(links: list[Link], lanes: PortLanes) -> tuple[list[int], dict[int, tuple[int, int]], list[int]]:
    """The links joined through shared physical ports: each link's group (its first link), the first link through
    each shared port with that port's lanes, and the links from a server cage of several links to a broken-out leaf
    port."""
    down_lanes, up_lanes, up_offset, up_cages = lanes
    parent = list(range(len(links)))
    split_both: list[int] = []

    def root(link: int) -> int:
        while parent[link] != link:
            parent[link] = parent[parent[link]]
            link = parent[link]
        return link

    shared: dict[int, tuple[int, int]] = {}
    for number, (_, upper, upper_port, lower, lower_port) in enumerate(links):
        count = down_lanes[upper]
        if count > 1:  # the upper end comes first: this link is still alone, its own root
            first = shared.setdefault(upper * PORT_SPACE + upper_port // count, (number, count))[0]
            if first != number:
                parent[number] = root(first)
        count = up_lanes[lower]
        if count > 1:
            key = lower * PORT_SPACE + _lower_port(lower_port, count, up_offset[lower], up_cages[lower])
            if up_cages[lower] and down_lanes[upper] > 1:
                split_both.append(number)
            first = shared.setdefault(key, (number, count))[0]
            if first != number:  # a port seen before: join this link's group to the first link's
                first, mine = root(first), root(number)
                parent[max(first, mine)] = min(first, mine)
    groups = parent  # every link's parent is an earlier link or itself: one pass in order finds every root
    for number in range(len(groups)):
        groups[number] = groups[groups[number]]
    return groups, shared, split_both


def _optical_for(length_dm: int, reach_dm: tuple[int, ...], optical: tuple[bool, ...]) -> int:
    """Index of the first optical medium whose reach covers ``length_dm``; ``len(reach_dm)`` when none does."""
    return next((index for index, reach in enumerate(reach_dm) if optical[index] and reach >= length_dm), len(reach_dm))


def module_name(model: MediumModel, port_speed: int, lanes: int, link_speed: int) -> str:
    """A transceiver as ordered: its port speed, medium and how many links it carries."""
    name = f"{port_speed}G {model.name} module"
    if lanes == 2:
        return f"{name}, twin-port 2 x {link_speed}G"
    return f"{name}, {lanes} x {link_speed}G" if lanes > 1 else name

"""Size a non-blocking rail-optimized Clos: pure arithmetic from the intent to a :class:`Plan`.

The structure is sized for the growth envelope (``intent.max_servers``, ``compute.servers`` without
``growth``); only what exists now (``compute.servers``) is counted as built, so growing inside the
envelope adds leaves, pods and super-spines and re-patches nothing.

Notation follows DOMAIN.md section 2. Server links run at the NIC speed ``s``, leaf-spine links at the leaves'
``uplink_speed`` and spine-super-spine links at the spines' (each by default the speed of the links below), so a
switch of ``P`` ports at ``S`` running links of ``l`` has the logical radix ``k = P * S / l``. A tier whose
uplinks run faster or slower than its downlinks splits its physical ports in half instead, each half broken
out to its own speed: 1:1 in bandwidth (a 64 x 800G leaf with 400G NICs: 64 x 400G down, 32 x 800G up). Each
plane is sized alone (planes are identical, separate fabrics).

* Leaf: ``k_leaf / 2`` ports down to servers (one per server of its scalable unit, SU), as much bandwidth
  up. An SU is ``k_leaf / 2`` servers and one leaf per rail; a partial SU is built whole.
* 2 tiers: every leaf reaches every spine with ``m = up / S`` parallel links. ``S`` is the smallest
  count that both divides the leaf's uplinks (equal ECMP weight on every spine) and gives the
  spines enough ports. It fits while the leaves number at most ``k_spine``.
* 3 tiers: a pod has one spine per leaf uplink (one link each) and as many whole SUs as a spine's
  ``k_spine / 2`` downlinks take; each spine sends as many links up as it has down (1:1). Spine ``j``
  of every pod joins super-spine group ``j``; a group has the smallest count ``G`` that divides the
  spine's uplinks and gives the super-spines enough ports. A partial pod gets all its spines and
  their uplinks, so the fabric grows by adding leaves only. It fits while pods number at most
  ``k_super``. While only pod 0 of a larger envelope is built there are no super-spines (the spines'
  up-ports are reserved); every super-spine of the envelope comes with the second pod.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from designer.errors import InputError, Path, Problem
from designer.intent import Intent
from designer.intent.fields import MAX_BREAKOUT, SPEEDS, ratio_text
from designer.intent.switch_spec import uplinks_for

MIN_SPINES = 4
"""Fewer spines per plane than this risks PFC storms when one fails (DOMAIN.md section 2)."""
MAX_LINKS = 1_048_576
"""Logical links of the whole fabric (server links included) the designer builds: 2.7 times the 393,216 of a
131,072-GPU fabric; memory and time grow with them (about 2 GB to build that one)."""
MAX_SWITCHES = 32_768
"""Switches of the whole fabric: 3.2 times the 10,240 of a 131,072-GPU fabric of 64 x 400G switches in 8 planes."""


@dataclass(frozen=True)
class Plan:
    """Counts of everything per plane, plus what a reviewer must be warned about."""

    tiers: int
    planes: int
    rails: int
    servers: int
    gpus_per_server: int
    link_speed: int
    """Gb/s of the server links (the NIC speed)."""
    leaf_spine_speed: int
    spine_super_speed: int
    leaf_radix: int
    """Logical ports of a leaf: its downlinks and uplinks."""
    spine_radix: int
    """Logical ports of a spine: all down with 2 tiers, its downlinks and uplinks with 3."""
    super_radix: int
    leaf_downlinks: int
    leaf_uplinks: int
    spine_downlinks: int
    servers_per_su: int
    """Servers (trays) of one scalable unit, designer's one meaning of it: a leaf group, one leaf per rail and plane,
    a leaf's downlinks (a vendor's scalable unit may count otherwise: :attr:`SystemModel.vendor_su`)."""
    sus: int
    """Scalable units (leaf groups) per plane built."""
    sus_per_pod: int
    pods: int
    spines_per_pod: int
    leaf_spine_parallel: int
    spine_uplinks: int
    supers_per_group: int
    spine_super_parallel: int
    warnings: tuple[str, ...]
    max_servers: int
    """The envelope: the servers the fabric is planned for; every structural count above comes from it."""
    envelope_sus: int
    """Scalable units per plane in the envelope."""
    envelope_pods: int
    """Pods per plane in the envelope (1 with 2 tiers)."""
    super_tier: bool
    """The super-spines are built: 3 tiers with a second pod built, or an envelope of one pod. A 3-tier envelope
    with only pod 0 built has no super-spines yet, its spines' up-ports reserved."""
    servers_per_system: int = 1
    """Servers (compute trays) of one rack-scale system; 1 for servers."""
    leaves_per_su: int = 0
    """Leaves of one scalable unit per plane: one per rail, or with rack-style cabling the switches of its racks."""
    rack_servers: int = 0
    """With rack-style cabling (``fabric.style: rack``), the servers of one rack, whose every backend NIC goes to
    the rack's own switches; 0 with rails."""
    per_rack: int = 1
    """With rack-style cabling, the switches of each rack (``fabric.leaf.per_rack``)."""

    @property
    def rack_style(self) -> bool:
        """Every backend NIC of a rack's servers goes to that rack's own switches, not to a leaf per rail."""
        return self.rack_servers > 0

    @property
    def sus_per_block(self) -> int:
        """Scalable units (leaf groups of ``servers_per_su`` servers, one leaf per rail and plane each) of one block
        of whole systems: the fewest systems whose trays fill whole scalable units, lcm(trays, downlinks) trays, so
        each rail has lcm / downlinks leaves in a block (1 for servers)."""
        return self.servers_per_system // math.gcd(self.servers_per_system, self.servers_per_su)

    @property
    def systems_per_block(self) -> int:
        """Whole systems of one block (servers of one scalable unit for servers)."""
        return self.sus_per_block * self.servers_per_su // self.servers_per_system

    @property
    def gpus(self) -> int:
        return self.servers * self.gpus_per_server

    @property
    def link_speeds(self) -> tuple[int, int, int]:
        """Gb/s of each tier's links, in :data:`~designer.backend.wiring.LINK_TIERS` order."""
        return self.link_speed, self.leaf_spine_speed, self.spine_super_speed

    @property
    def leaves_per_plane(self) -> int:
        return self.sus * self.leaves_per_su

    @property
    def leaves_per_pod(self) -> int:
        return self.sus_per_pod * self.leaves_per_su

    @property
    def spines_per_plane(self) -> int:
        return self.pods * self.spines_per_pod

    @property
    def groups(self) -> int:
        """Super-spine groups per plane built: one per spine position in a pod (3 tiers only)."""
        return self.spines_per_pod if self.super_tier else 0

    @property
    def top_role(self) -> str:
        """The role of the highest tier built: nothing above it, so it has no uplinks."""
        return "super_spine" if self.super_tier else "spine"

    @property
    def envelope_leaves_per_plane(self) -> int:
        return self.envelope_sus * self.leaves_per_su

    @property
    def envelope_spines_per_plane(self) -> int:
        return self.envelope_pods * self.spines_per_pod

    @property
    def envelope_supers_per_plane(self) -> int:
        return self.spines_per_pod * self.supers_per_group if self.tiers == 3 else 0

    def envelope_switch_counts(self) -> dict[str, int]:
        """Switch counts per role, all planes, once the envelope is built."""
        return {
            "leaf": self.planes * self.envelope_leaves_per_plane,
            "spine": self.planes * self.envelope_spines_per_plane,
            "super_spine": self.planes * self.envelope_supers_per_plane,
        }

    def envelope_link_counts(self) -> dict[str, int]:
        """Logical links per tier, all planes, once the envelope is built."""
        return {
            "server_leaf": self.planes * self.max_servers * self.rails,
            "leaf_spine": self.planes * self.envelope_leaves_per_plane * self.leaf_uplinks,
            "spine_super_spine": self.planes * self.envelope_spines_per_plane * self.spine_uplinks,
        }

    def cabling_limit(self) -> tuple[int, str]:
        """The most servers this cabling holds (every existing cable staying where it is) and what limits it:
        the spines' ports (2 tiers) or the super-spines' ports (3 tiers)."""
        if self.tiers == 2:
            sus = (self.spine_downlinks // self.leaf_spine_parallel) // self.leaves_per_su
            return sus * self.servers_per_su, (
                f"{self.spine_radix}-port spines, {self.leaf_spine_parallel} link(s) to each leaf"
            )
        pods = self.super_radix // self.spine_super_parallel
        return pods * self.sus_per_pod * self.servers_per_su, (
            f"{self.super_radix}-port super-spines, {self.spine_super_parallel} link(s) to each pod's spine"
        )

    @property
    def supers_per_plane(self) -> int:
        return self.groups * self.supers_per_group

    @property
    def ecmp_width(self) -> int:
        """The widest ECMP group of any switch: a leaf's or spine's uplinks, or the most parallel links down to
        one switch (what BGP ``maximum-paths`` must reach)."""
        return max(self.leaf_uplinks, self.spine_uplinks, self.leaf_spine_parallel, self.spine_super_parallel)

    @property
    def nic_ports_per_plane(self) -> int:
        return self.servers * self.rails

    def switch_counts(self) -> dict[str, int]:
        """Switch counts per role, all planes."""
        return {
            "leaf": self.planes * self.leaves_per_plane,
            "spine": self.planes * self.spines_per_plane,
            "super_spine": self.planes * self.supers_per_plane,
        }

    def link_counts(self) -> dict[str, int]:
        """Logical links per tier, all planes (one /31 each)."""
        return {
            "server_leaf": self.planes * self.nic_ports_per_plane,
            "leaf_spine": self.planes * self.leaves_per_plane * self.leaf_uplinks,
            "spine_super_spine": self.planes * self.spines_per_plane * self.spine_uplinks if self.super_tier else 0,
        }

    def built_tapers(self) -> dict[str, float]:
        """Down:up bandwidth of a full switch of each tier below the top: a leaf's server links against its uplinks,
        a 3-tier spine's links from its pod's leaves against its uplinks."""
        tapers = {"leaf": self.leaf_downlinks * self.link_speed / (self.leaf_uplinks * self.leaf_spine_speed)}
        if self.tiers == 3:
            down = self.sus_per_pod * self.leaves_per_su * self.leaf_spine_parallel * self.leaf_spine_speed
            tapers["spine"] = down / (self.spine_uplinks * self.spine_super_speed)
        return tapers

    def bandwidth_tbps(self) -> dict[str, float]:
        """One-direction bandwidth per tier, all planes, in Tb/s."""
        return {
            tier: count * speed / 1000
            for (tier, count), speed in zip(self.link_counts().items(), self.link_speeds, strict=True)
        }


class _AboveTheLeaves(NamedTuple):
    """The counts of the tiers above the leaves, named as :class:`Plan` names them: the spines' ports, the pods (built
    and in the envelope), the spines per pod or plane and their parallel links, the super-spines' groups and whether
    they are built."""

    spine_downlinks: int
    spine_radix: int
    sus_per_pod: int
    pods: int
    envelope_pods: int
    spines_per_pod: int
    leaf_spine_parallel: int
    spine_uplinks: int = 0
    supers_per_group: int = 0
    spine_super_parallel: int = 0
    super_tier: bool = False


def size(intent: Intent) -> Plan:
    """Choose tiers and count every switch and link of the fabric the intent describes.

    The structure (tiers, spines, pods, super-spine groups, parallel links) comes from the envelope,
    ``intent.max_servers``, and the architect's choices (``intent.choices``); the counts built now from
    ``intent.servers``.
    """
    speed, up_speed, super_speed = intent.link_speeds
    problems: list[Problem] = []  # every choice that cannot build, each replaced by the formulas' value meanwhile
    leaves = _leaf_ports(intent, problems)
    servers_per_su, uplinks = leaves.servers_per_su, leaves.uplinks
    sus = math.ceil(intent.servers / servers_per_su)
    envelope_sus = math.ceil(intent.max_servers / servers_per_su)
    tiers = _tiers(intent, envelope_sus * leaves.per_su, leaves, problems)
    problems += taper_problems(intent, tiers)
    if tiers == 2:
        above = _two_tiers(intent, envelope_sus, envelope_sus * leaves.per_su, uplinks, problems)
    else:
        above = _three_tiers(intent, sus, envelope_sus, leaves, problems)
    plan = Plan(
        tiers=tiers,
        planes=intent.planes,
        rails=intent.rails,
        servers=intent.servers,
        gpus_per_server=intent.server.gpus,
        link_speed=speed,
        leaf_spine_speed=up_speed,
        spine_super_speed=super_speed,
        leaf_radix=leaves.downlinks + uplinks,
        leaf_downlinks=leaves.downlinks,
        leaf_uplinks=uplinks,
        super_radix=intent.super_spine.radix(super_speed),
        servers_per_su=servers_per_su,
        sus=sus,
        warnings=_warnings(intent, tiers, sus, servers_per_su, above),
        max_servers=intent.max_servers,
        envelope_sus=envelope_sus,
        servers_per_system=intent.servers_per_system,
        leaves_per_su=leaves.per_su,
        rack_servers=leaves.rack_servers,
        per_rack=intent.choices.per_rack if leaves.rack_servers else 1,
        **above._asdict(),
    )
    problems += [*_bound_problems(plan, _count_field(intent)), *target_problems(intent, plan)]
    if problems:
        raise InputError(problems, intent.source)
    return plan


def declared_bisection(intent: Intent, plan: Plan) -> float:
    """The fraction of full bisection the declared tapers leave between halves that cross every tier built: each
    tier's uplinks carry its downlinks' bandwidth over its taper, so the tapers multiply (an under-subscribed leaf
    lifts what its spines may taper), at most 1."""
    crossed = ("leaf", "spine") if plan.super_tier and plan.tiers == 3 else ("leaf",)
    fraction = 1.0
    for role in crossed:
        fraction /= intent.choices.taper(role) or 1
    return min(1.0, fraction)


def leaf_up_room(intent: Intent, servers_per_su: int) -> int:
    """The most uplinks a leaf serving ``servers_per_su`` servers can have, at its uplink speed: every logical port
    left at one speed, every physical port left over from the server ports' at two."""
    speed, up_speed, _ = intent.link_speeds
    leaf = intent.leaf
    if speed == up_speed:
        return leaf.radix(speed) - servers_per_su
    server_cages = math.ceil(servers_per_su / leaf.breakout(speed))
    return (leaf.ports - server_cages) * leaf.breakout(up_speed)


class _Leaves(NamedTuple):
    """The leaves' counts, named as :class:`Plan` names them: the servers of a scalable unit, each leaf's downlinks
    and uplinks, the leaves of a unit per plane, and with rack-style cabling the servers of one rack (else 0)."""

    servers_per_su: int
    downlinks: int
    uplinks: int
    per_su: int
    rack_servers: int = 0


def _leaf_ports(intent: Intent, problems: list[Problem]) -> _Leaves:
    """The servers of a scalable unit and each leaf's ports: the formulas' (as many ports down as the leaf splits
    off, as much bandwidth up) or the intent's choices; a choice that does not fit the leaf is added to ``problems``
    and the formulas' value taken in its place."""
    speed, up_speed, _ = intent.link_speeds
    choices = intent.choices
    taper = choices.taper("leaf")
    capacity, full = intent.leaf.split(speed, up_speed, taper or 1)
    rack_servers = _rack_servers(intent, capacity, problems) if choices.style == "rack" else None
    if rack_servers:
        servers_per_su = choices.servers_per_su or rack_servers
        if servers_per_su % rack_servers:
            below = servers_per_su - servers_per_su % rack_servers
            problems.append(
                Problem(
                    ("fabric", "servers_per_su"),
                    f"with style: rack a scalable unit is whole racks of {rack_servers} servers; use "
                    + (f"{below} or " if below else "")
                    + f"{below + rack_servers}",
                )
            )
            servers_per_su = below or rack_servers
        downlinks = rack_servers * intent.rails // choices.per_rack
        per_su = servers_per_su // rack_servers * choices.per_rack
        used = min(rack_servers, intent.max_servers) * intent.rails // choices.per_rack
    else:
        if choices.style != "rack" and ("fabric", "leaf", "per_rack") in intent.source.lines:
            problems.append(
                Problem(
                    ("fabric", "leaf", "per_rack"),
                    "per_rack counts a rack's switches with style: rack; remove it, or add style: rack to fabric",
                )
            )
        servers_per_su, rack_servers = choices.servers_per_su or capacity, 0
        if servers_per_su > capacity:
            tapered = f" tapered {ratio_text(taper)}" if taper is not None else ""
            beside = " beside the uplinks they need" if taper is not None else ""
            steeper = ""
            if taper is not None:
                room = leaf_up_room(intent, servers_per_su)
                steeper = (
                    f", a taper of {ratio_text(servers_per_su * speed / (room * up_speed))} or steeper" if room else ""
                )
            problems.append(
                Problem(
                    ("fabric", "servers_per_su"),
                    f"a {intent.leaf.model} leaf{tapered} has {capacity} downlinks at {speed}G{beside}, so a "
                    f"scalable unit holds at most {capacity} {_units(intent)}; use servers_per_su from 1 to "
                    f"{capacity}{steeper}, or larger leaves",
                )
            )
            servers_per_su = capacity
        downlinks, per_su, used = servers_per_su, intent.rails, min(servers_per_su, intent.max_servers)
    leaves = _Leaves(servers_per_su, downlinks, full, per_su, rack_servers)
    if taper is not None:
        return leaves._replace(uplinks=uplinks_for(downlinks, speed, up_speed, taper))
    if choices.leaf_uplinks == "full":
        return leaves
    if choices.leaf_uplinks == "matched":
        return leaves._replace(uplinks=-(-used * speed // up_speed))
    uplinks, room = int(choices.leaf_uplinks), leaf_up_room(intent, downlinks)
    if uplinks > room:
        problems.append(
            Problem(
                ("fabric", "leaf", "uplinks"),
                f"a {intent.leaf.model} leaf of {downlinks} downlinks has room for at most "
                f"{room} uplinks at {up_speed}G; use 1 to {room}, full or matched",
            )
        )
        return leaves
    return leaves._replace(uplinks=uplinks)


def rack_servers(intent: Intent) -> int:
    """With rack-style cabling, the servers of one rack (:func:`_rack_servers`)."""
    speed, up_speed, _ = intent.link_speeds
    problems: list[Problem] = []
    fits = _rack_servers(intent, intent.leaf.split(speed, up_speed, intent.choices.taper("leaf") or 1)[0], problems)
    if fits is None:
        raise InputError(problems, intent.source)
    return fits


def _rack_servers(intent: Intent, capacity: int, problems: list[Problem]) -> int | None:
    """With rack-style cabling, the servers of one rack: as many as its power budget and rack units hold beside its
    ``fabric.leaf.per_rack`` switches (at their power with optics), and whose NICs the switches' ``capacity``
    downlinks take; None, with the reason added to ``problems``, where the style cannot be built or not one server
    fits beside the switches."""
    choices, facility, server, leaf = intent.choices, intent.facility, intent.server, intent.leaf
    per_rack = choices.per_rack
    found = len(problems)
    if intent.technology != "ethernet":
        problems.append(
            Problem(
                ("fabric", "style"),
                "style: rack is written for Ethernet backends (their racks' switches route); use style: rail with "
                f"{intent.technology}",
            )
        )
    elif intent.planes > 1 or intent.system or intent.server.multiplane:
        problems.append(
            Problem(
                ("fabric", "style"),
                "style: rack cabling is for one plane of servers (each rack's switches take every backend NIC); "
                "use style: rail for planes, multiplane NICs or rack-scale systems",
            )
        )
    elif intent.networks.data_networks:
        names = ", ".join(spec.name for spec in intent.networks.data_networks)
        problems.append(
            Problem(
                ("fabric", "style"),
                f"style: rack puts each rack's switches at its top, where the networks beside the backend ({names}) "
                "put their top-of-rack leaves, and designer does not plan both in one rack yet; use style: rail, "
                "or design those networks apart",
            )
        )
    elif intent.rails % per_rack:
        problems.append(
            Problem(
                ("fabric", "leaf", "per_rack"),
                f"{intent.rails} NICs per server do not split evenly over {per_rack} switches; use per_rack: 1",
            )
        )
    if len(problems) > found:
        return None
    fits = _servers_beside(intent, capacity, per_rack)
    if fits < 1:
        one = per_rack == 2 and _servers_beside(intent, capacity, 1) >= 1
        problems.append(
            Problem(
                ("fabric", "leaf", "per_rack"),
                f"a rack of {facility.rack_units} U and {facility.rack_power_kw:g} kW holds no "
                f"{server.model} ({server.rack_units} U, {server.power_kw:g} kW) beside {per_rack} {leaf.model} "
                f"({leaf.rack_units} U, {leaf.power_w_optics / 1000:g} kW with optics) whose "
                f"{capacity} downlinks take {intent.rails} NICs a server; use "
                + ("per_rack: 1, " if one else "")
                + "a larger facility.rack_power_kw or rack_units, or a larger leaf",
            )
        )
        return None
    return fits


def _servers_beside(intent: Intent, capacity: int, switches: int) -> int:
    """The servers a rack holds beside ``switches`` leaves (at their power with optics) within its power budget and
    rack units, and whose NICs the leaves' ``capacity`` downlinks take."""
    facility, server, leaf = intent.facility, intent.server, intent.leaf
    by_power = math.floor(round((facility.rack_power_kw - switches * leaf.power_w_optics / 1000) / server.power_kw, 9))
    by_units = (facility.rack_units - switches * leaf.rack_units) // server.rack_units
    return min(by_power, by_units, capacity * switches // intent.rails)


def taper_problems(intent: Intent, tiers: int) -> list[Problem]:
    """What the declared tapers ask that the fabric cannot be: a taper on the top tier or on a tier it lacks, or a
    leaf taper beside an uplink count."""
    choices, problems = intent.choices, []
    if choices.taper("super_spine") is not None:
        problems.append(
            Problem(
                ("fabric", "oversubscription", "super_spine"),
                "the super-spines are the top tier and send nothing up, so they have no taper; remove it (a taper "
                "of the spines, the tier below, sets what reaches them)",
            )
        )
    if choices.taper("spine") is not None and tiers == 2:
        problems.append(
            Problem(
                ("fabric", "oversubscription", "spine"),
                "the fabric has 2 tiers, so its spines are the top tier and send nothing up; remove the spine taper, "
                "or use tiers: 3",
            )
        )
    if choices.taper("leaf") is not None and ("fabric", "leaf", "uplinks") in intent.source.lines:
        problems.append(
            Problem(
                ("fabric", "leaf", "uplinks"),
                "fabric.oversubscription.leaf sets each leaf's uplinks already; give one of the two",
            )
        )
    return problems


def _units(intent: Intent) -> str:
    """What a scalable unit holds: servers, or a rack-scale system's compute trays."""
    return "trays" if intent.system else "servers"


def _tiers(intent: Intent, leaves: int, unit: _Leaves, problems: list[Problem]) -> int:
    """The tiers of the fabric of ``leaves`` leaves per plane (the envelope's): the intent's, or 2 where the spines
    hold them all under ``auto``; an error (with ``problems`` found before it) where 2 tiers cannot hold them; added to
    ``problems`` where ``auto`` gives 2 and the intent sets the spines' uplink speed or super-spines."""
    spine_radix = intent.spine.radix(intent.link_speeds[1])
    field = _count_field(intent)
    tiers = (2 if leaves <= spine_radix else 3) if intent.tiers == "auto" else int(intent.tiers)
    if tiers == 2 and leaves > spine_radix:
        most = (spine_radix // unit.per_su) * unit.servers_per_su
        raise InputError(
            [
                *problems,
                Problem(
                    ("fabric", "tiers") if field[0] == "compute" else field,
                    (
                        f"2 tiers hold at most {spine_radix} leaves per plane ({most} servers, "
                        f"{most * intent.rails:,} NIC ports per plane) with {spine_radix}-port spines; "
                        f"{_needs(intent)} {leaves} "
                        "leaves. Use tiers: 3 or auto, larger spines, or more planes"
                    ),
                ),
            ],
            intent.source,
        )
    spine_speed_field = ("fabric", "spine", "uplink_speed")
    if tiers == 2 and intent.tiers == "auto" and spine_speed_field in intent.source.lines:
        problems.append(
            Problem(
                spine_speed_field,
                f"tiers: auto gives 2 tiers here ({leaves} leaves per plane fit {spine_radix}-port spines), so "
                "the spines are the top tier and have no uplinks; remove uplink_speed there, or use tiers: 3",
            )
        )
    if tiers == 2 and intent.choices.super_spine_count is not None:
        problems.append(
            Problem(
                ("fabric", "super_spine", "count"),
                f"the fabric has 2 tiers ({leaves} leaves per plane fit the spines), so it has no super-spines; "
                "remove super_spine.count, or use tiers: 3",
            )
        )
    return tiers


def _two_tiers(
    intent: Intent, envelope_sus: int, leaves: int, uplinks: int, problems: list[Problem]
) -> _AboveTheLeaves:
    """The spines of a 2-tier fabric of ``leaves`` leaves per plane in the envelope: the intent's count, or the
    fewest that take each leaf's uplinks evenly and have the ports for every leaf."""
    spine_radix = intent.spine.radix(intent.link_speeds[1])
    fewest = math.ceil(leaves * uplinks / spine_radix)
    spines = _chosen(
        intent.choices.spine_count,
        ("fabric", "spine", "count"),
        uplinks,
        fewest,
        (f"each leaf's {uplinks} uplinks", f"the ports of {spine_radix}-port spines for {leaves} leaves"),
        intent,
        problems,
    )
    return _AboveTheLeaves(spine_radix, spine_radix, envelope_sus, 1, 1, spines, uplinks // spines)


def _chosen(
    count: int | None,
    field: Path,
    uplinks: int,
    fewest: int,
    why: tuple[str, str],
    intent: Intent,
    problems: list[Problem],
    groups: int = 1,
) -> int:
    """A count of switches above, per group of them: the intent's (``count`` at ``field``, the groups' together),
    which must divide the ``uplinks`` of each switch below and be at least ``fewest`` to have the ports; else the
    smallest such divisor (the ECMP divisor rule). ``why``: what spreads and what the ports are for, for the problem
    a count that does neither adds to ``problems`` (the divisor rule's count then taken; with none, an error)."""
    if count is None:
        return ecmp_divisor(uplinks, fewest)
    valid = [divisor for divisor in range(max(1, fewest), uplinks + 1) if uplinks % divisor == 0]
    if count % groups == 0 and count // groups in valid:
        return count // groups
    spread, room = why
    wrong = f"do not spread {spread} evenly" if count % groups or uplinks % (count // groups) else f"lack {room}"
    listed = ", ".join(str(groups * divisor) for divisor in valid[:12]) or "none; use more uplinks or larger switches"
    noun = f"{str(field[1]).replace('_', '-')}s"  # spines, super-spines
    problems.append(Problem(field, f"{count} {noun} {wrong}; counts that do: {listed}"))
    if not valid:
        raise InputError(problems, intent.source)
    return valid[0]


def _three_tiers(
    intent: Intent, sus: int, envelope_sus: int, unit: _Leaves, problems: list[Problem]
) -> _AboveTheLeaves:
    """The spines and super-spines of a 3-tier fabric: the intent's count of spines a pod, or one per leaf uplink,
    each leaf's uplinks spread evenly over them; as many scalable units a pod as the spines' downlinks hold;
    super-spine groups (one per spine of a pod) sized for the envelope's pods; an error where a spine holds no
    scalable unit, its uplinks do not divide evenly or the super-spines cannot hold the pods (with ``problems``
    found before it), a chosen count that does not build added to ``problems``."""
    _, up_speed, super_speed = intent.link_speeds
    super_radix = intent.super_spine.radix(super_speed)
    per_su, uplinks, servers_per_su = unit.per_su, unit.uplinks, unit.servers_per_su
    taper = intent.choices.taper("spine")
    spine_downlinks, spine_up_ports = intent.spine.split(up_speed, super_speed, taper or 1)
    spine_radix = spine_downlinks + spine_up_ports
    spines = _chosen(
        intent.choices.spine_count,
        ("fabric", "spine", "count"),
        uplinks,
        uplinks if intent.choices.spine_count is None else math.ceil(per_su * uplinks / spine_downlinks),
        (f"each leaf's {uplinks} uplinks", f"the downlinks of {spine_radix}-port spines for a scalable unit"),
        intent,
        problems,
    )
    parallel = uplinks // spines
    sus_per_pod = spine_downlinks // (per_su * parallel)
    if sus_per_pod == 0:
        raise InputError(
            [
                *problems,
                Problem(
                    ("fabric", "spine"),
                    (
                        f"a {spine_radix}-port spine has {spine_downlinks} downlinks, fewer than the "
                        f"{per_su * parallel} links of one scalable unit ({per_su} leaves, {parallel} link(s) from "
                        "each); use larger spines or more spines per pod"
                    ),
                ),
            ],
            intent.source,
        )
    pods = math.ceil(sus / sus_per_pod)
    envelope_pods = math.ceil(envelope_sus / sus_per_pod)
    spine_uplinks, left = divmod(sus_per_pod * per_su * parallel * up_speed, super_speed)
    if taper is not None:
        spine_uplinks, left = uplinks_for(sus_per_pod * per_su * parallel, up_speed, super_speed, taper), 0
    if left:
        raise InputError([*problems, _spine_split_problem(intent, sus_per_pod * per_su * parallel)], intent.source)
    if envelope_pods > super_radix:
        most = super_radix * sus_per_pod * servers_per_su
        raise InputError(
            [
                *problems,
                Problem(
                    _count_field(intent),
                    (
                        f"3 tiers hold at most {super_radix} pods ({most:,} servers) with {super_radix}-port "
                        f"super-spines; {_needs(intent)} {envelope_pods:,} pods. Use larger switches or more planes"
                    ),
                ),
            ],
            intent.source,
        )
    supers_per_group = _super_spines_per_group(intent, spines, spine_uplinks, envelope_pods, super_radix, problems)
    return _AboveTheLeaves(
        spine_downlinks,
        spine_radix,
        sus_per_pod,
        pods,
        envelope_pods,
        spines,
        parallel,
        spine_uplinks,
        supers_per_group,
        spine_uplinks // supers_per_group,
        pods > 1 or envelope_pods == 1,
    )


def _super_spines_per_group(
    intent: Intent, groups: int, spine_uplinks: int, pods: int, super_radix: int, problems: list[Problem]
) -> int:
    """The super-spines of each of the ``groups`` groups (one per spine of a pod): the intent's count of a plane's
    super-spines shared evenly among the groups, or the fewest that take each spine's uplinks evenly and have the
    ports for the envelope's ``pods``."""
    return _chosen(
        intent.choices.super_spine_count,
        ("fabric", "super_spine", "count"),
        spine_uplinks,
        math.ceil(pods * spine_uplinks / super_radix),
        (
            f"each spine's {spine_uplinks} uplinks over {groups} groups (one per spine of a pod)",
            f"the ports of {super_radix}-port super-spines for {pods} pods",
        ),
        intent,
        problems,
        groups,
    )


def _warnings(intent: Intent, tiers: int, sus: int, servers_per_su: int, above: _AboveTheLeaves) -> tuple[str, ...]:
    """The warnings of a sized fabric: a pod or scalable unit built in full but part-filled, too few spines."""
    warnings = []
    if tiers == 3 and sus % above.sus_per_pod:
        built = "spines and their uplinks are" if above.super_tier else "spines are"
        warnings.append(
            f"pod {above.pods - 1} holds {sus % above.sus_per_pod} of {above.sus_per_pod} scalable units; its "
            f"{built} built in full so it can grow by leaves alone"
        )
    if intent.servers % servers_per_su:
        what = "trays" if intent.system else "servers"
        warnings.append(
            f"scalable unit {sus - 1} (a leaf group: one leaf per rail and plane, serving {servers_per_su} {what}) "
            f"is part-filled with {intent.servers % servers_per_su} {what}; its leaves and uplinks are built in full"
        )
    if above.spines_per_pod < MIN_SPINES:
        warnings.append(
            f"only {above.spines_per_pod} spine{'s' if above.spines_per_pod != 1 else ''} per "
            f"{'plane' if tiers == 2 else 'pod'}; at least {MIN_SPINES} keep a spine failure "
            "from concentrating traffic (PFC storm risk)"
        )
    return tuple(warnings)


def target_problems(intent: Intent, plan: Plan) -> list[Problem]:
    """Targets whose BGP cannot take the plan's widest ECMP group (FRR 8.4: 256 paths, NVUE: 128; a site catalog
    may give its platforms' own limits)."""
    problems = []
    for target in sorted(intent.targets):
        limit = intent.catalog.targets[target].max_ecmp_paths
        if limit is not None and plan.ecmp_width > limit:
            problems.append(
                Problem(
                    ("targets",),
                    (
                        f"{target} takes at most {limit} equal-cost BGP paths, but the design spreads over "
                        f"{plan.ecmp_width} (a switch's uplinks or parallel links to one switch); fewer paths would "
                        f"leave links idle, so drop {target} from targets or use switches with fewer uplinks"
                    ),
                )
            )
    return problems


def _bound_problems(plan: Plan, field: tuple[str, str]) -> list[Problem]:
    """The fabric's size against ``MAX_LINKS`` and ``MAX_SWITCHES``, from the counts alone (nothing is built)."""
    units = f"{plan.sus:,} scalable unit{'s' if plan.sus > 1 else ''} of {plan.servers_per_su:,} servers"
    pods = (
        f" in {plan.pods:,} pod{'s' if plan.pods > 1 else ''} of {plan.spines_per_pod:,} spines"
        if plan.tiers == 3
        else ""
    )
    built = (
        f"it builds {units}{pods} ({plan.planes} plane{'s' if plan.planes > 1 else ''}, {plan.tiers} tiers, "
        f"{plan.leaf_radix:,}-port leaves); use fewer servers or fewer NIC ports per server (a partial unit or "
        "pod is built whole, so switches with fewer logical ports build less for a small cluster)"
    )
    counts = (
        ("links", sum(plan.link_counts().values()), MAX_LINKS),
        ("switches", sum(plan.switch_counts().values()), MAX_SWITCHES),
    )
    return [
        Problem(field, f"this fabric needs {count:,} {what}, above the limit of {limit:,} {what} per design: {built}")
        for what, count, limit in counts
        if count > limit
    ]


def _spine_split_problem(intent: Intent, downlinks: int) -> Problem:
    """The spines' ``uplink_speed`` cannot carry exactly the bandwidth of the ``downlinks`` a pod's spine uses."""
    down, up = intent.link_speeds[1:]
    spine, super_spine = intent.spine, intent.super_spine
    valid = [
        f"{speed}G"
        for speed in SPEEDS
        if downlinks * down % speed == 0
        and downlinks * down // speed <= intent.spine.split(down, speed)[1]
        and all(spec.speed % speed == 0 and spec.speed // speed <= MAX_BREAKOUT for spec in (spine, super_spine))
    ]
    field = ("fabric", "spine", "uplink_speed")
    return Problem(
        field if field in intent.source.lines else ("fabric", "leaf", "uplink_speed"),
        f"a pod's spine uses {downlinks} x {down}G downlinks ({downlinks * down:,}G), which no whole number of {up}G "
        f"uplinks matches, so it would not be 1:1 in bandwidth; a spine uplink speed that keeps 1:1: "
        f"{', '.join(valid) or 'none, use other switches'}",
    )


def ecmp_divisor(uplinks: int, at_least: int) -> int:
    """The smallest divisor of ``uplinks`` that is at least ``at_least`` (ECMP divisor rule)."""
    return next(count for count in range(max(1, at_least), uplinks + 1) if uplinks % count == 0)


def _count_field(intent: Intent) -> tuple[str, str]:
    """The field the user sized the cluster with: the envelope (``growth.max_servers`` or ``growth.max_gpus``)
    when there is one, else ``compute.gpus`` or ``compute.servers``."""
    for field in (("growth", "max_gpus"), ("growth", "max_servers"), ("compute", "gpus")):
        if field in intent.source.lines:
            return field
    return ("compute", "servers")


def _needs(intent: Intent) -> str:
    """How the error names what the intent asks for: the envelope, or the fabric built now."""
    if intent.max_servers > intent.servers:
        return f"the envelope of {intent.max_servers:,} servers needs"
    return "this intent needs"


def tier_reasons(intent: Intent, plan: Plan) -> dict[str, str]:
    """Per switch tier built, one line saying why it has the count it has: the formula, or the choice that set it."""
    choices = intent.choices
    speed, up_speed, _ = intent.link_speeds
    capacity, full = intent.leaf.split(speed, up_speed)
    stripe = (
        f"fabric.servers_per_su: {plan.servers_per_su}"
        if choices.servers_per_su
        else f"a leaf's {capacity} downlinks at {speed}G"
    )
    uplinks = {
        "full": f"{full} uplinks (full: as much bandwidth up as a whole scalable unit's down)",
        "matched": f"{plan.leaf_uplinks} uplinks (matched: as much bandwidth up as the envelope's servers use down)",
    }.get(str(choices.leaf_uplinks), f"{plan.leaf_uplinks} uplinks (fabric.leaf.uplinks)")
    if choices.taper("leaf") is not None:
        uplinks = (
            f"{plan.leaf_uplinks} uplinks (fabric.oversubscription.leaf: {ratio_text(choices.taper('leaf') or 1)})"
        )
    if plan.rack_style:
        stripe = f"racks of {plan.rack_servers} servers" + (
            f", fabric.servers_per_su: {plan.servers_per_su}" if choices.servers_per_su else ""
        )
        where = f"{plan.per_rack} in each rack (style: rack), {plan.leaves_per_su} a scalable unit"
    else:
        where = "one per rail and plane in each scalable unit"
    reasons = {
        "leaf": f"{where}: {plan.sus:,} built of {plan.servers_per_su} {_units(intent)} each ({stripe})",
    }
    links = f"{plan.leaf_spine_parallel} link(s) from each leaf's {uplinks}"
    if plan.tiers == 2:
        reasons["spine"] = (
            f"fabric.spine.count: {plan.spines_per_pod} per plane, {links}"
            if choices.spine_count
            else f"the fewest per plane that take each leaf's uplinks evenly and have the ports for the envelope's "
            f"{plan.envelope_leaves_per_plane:,} leaves: {links}"
        )
        return reasons
    per_pod = f"fabric.spine.count: {plan.spines_per_pod}" if choices.spine_count else "one per leaf uplink"
    reasons["spine"] = (
        f"{plan.spines_per_pod} per pod ({per_pod}) in each of {plan.pods:,} pods, {links}; a pod holds "
        f"{plan.sus_per_pod} scalable units, as many as a spine's {plan.spine_downlinks} downlinks take"
        + (
            f" (fabric.oversubscription.spine: {ratio_text(choices.taper('spine') or 1)}, {plan.spine_uplinks} uplinks)"
            if choices.taper("spine") is not None
            else ""
        )
    )
    if plan.super_tier:
        reasons["super_spine"] = f"{plan.groups} groups (one per spine of a pod) of {plan.supers_per_group}: " + (
            f"fabric.super_spine.count: {plan.supers_per_plane} per plane"
            if choices.super_spine_count
            else f"the fewest that take each spine's {plan.spine_uplinks} uplinks evenly and have the ports for "
            f"the envelope's {plan.envelope_pods:,} pods"
        )
    return reasons

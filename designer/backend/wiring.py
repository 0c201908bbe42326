"""Wire the planned fabric: every device with its name, every link with both ends.

Naming (stable across runs, documented in docs/sizing.md):

* leaf ``p{plane}-su{su}-r{rail}-leaf``, or with rack-style cabling ``p{plane}-su{su}-rack{k}-leaf`` for the switch
  of rack ``k`` of the unit (``...-leaf0`` and ``...-leaf1`` with two a rack, NICs ``0`` to ``R/2 - 1`` of its
  servers on the first, the rest on the second; a server's NICs at consecutive ports from ``slot in rack x NICs``);
  spine ``p{plane}-spine{i}`` (2 tiers) or ``p{plane}-pod{pod}-spine{i}`` (3 tiers, and pod 0 of a 3-tier envelope
  before its second pod, when no super-spine is built yet); super-spine ``p{plane}-g{group}-ss{i}``; server
  ``su{su}-srv{i}``, or ``sys{s}-tray{t}`` for tray ``t`` of rack-scale system ``s``. Indices start at 0; scalable
  units (SUs) are numbered across pods.
* Switch ports ``swp{N}`` counted from 1, or ``swp{N}s{L}`` for lane ``L`` of a broken-out port.
  A leaf's first half of logical ports faces servers, the second half faces spines; a 3-tier
  spine's first half faces leaves, the second half super-spines. When a tier's uplinks run another
  speed than its downlinks the halves are of physical ports, each broken out to its own speed (a 64 x
  800G leaf with 400G NICs: ``swp1s0``-``swp32s1`` down, ``swp33``-``swp64`` up). Server ports are ``nic{i}``,
  NIC ``i`` in plane ``i // rails``, rail ``i % rails``; when one NIC port serves several planes
  (``compute.multiplane``) its plane links are ``nic{rail}s{plane}``, the server's port ``i`` still in plane
  ``i // rails``.
* Uplinks are striped over the switches above (:class:`Stripes`): leaf uplink ``u`` goes to spine
  ``u % S`` (in chunks of the lanes of one broken-out port where the parallel links allow), so that
  when the envelope doubles the spines (or super-spines), half of the cables stay where they are.

Links are plain tuples ``(tier, upper device, upper port, lower device, lower port)`` with integer
indices, ordered by tier then plane (server links leaf by leaf, a leaf's servers in slot order):
cheap at 400k links. The upper end takes the even address.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, NamedTuple, TypeVar

from designer.backend.sizing import Plan
from designer.intent import Intent, SwitchSpec

if TYPE_CHECKING:
    import networkx as nx

LINK_TIERS = ("server_leaf", "leaf_spine", "spine_super_spine")
SERVER_LEAF, LEAF_SPINE, SPINE_SUPER = range(3)
NONE = -1


class Device(NamedTuple):
    """A switch or server; fields that do not apply to its role are -1."""

    name: str
    role: str
    plane: int
    pod: int
    su: int
    rail: int
    group: int
    index: int  # type: ignore[assignment]  # a field, as NamedTuple allows; tuple.index is not used here
    model: str
    ports: int
    breakout: int
    """Logical links per physical port facing down (every port when the uplinks run the same speed)."""
    downlinks: int
    """Logical ports facing down; the uplinks follow them."""
    uplink_breakout: int
    """Logical links per physical port facing up (a server's: the planes one NIC port serves)."""

    def place(self, port: int) -> tuple[int, int, int]:
        """(physical port from 0, lane in it, its breakout) of logical port ``port`` (0-based); a multiplane
        server's port ``i`` is lane ``i // rails`` (its plane) of NIC port ``i % rails``."""
        if self.role == "server":
            rails = self.ports // self.uplink_breakout
            return port % rails, port // rails, self.uplink_breakout
        if port < self.downlinks or self.uplink_breakout == self.breakout:
            return port // self.breakout, port % self.breakout, self.breakout
        cage, lane = divmod(port - self.downlinks, self.uplink_breakout)
        return -(-self.downlinks // self.breakout) + cage, lane, self.uplink_breakout

    @property
    def physical_ports(self) -> int:
        """Physical ports the logical ones take."""
        return self.place(self.ports - 1)[0] + 1 if self.ports else 0

    def port_name(self, port: int) -> str:
        """The name of logical port ``port`` (0-based) on this device."""
        if self.role == "server" and self.uplink_breakout == 1:
            return f"nic{port}"
        cage, lane, breakout = self.place(port)
        if self.role == "server":
            return f"nic{cage}s{lane}"
        if breakout == 1:
            return f"swp{cage + 1}"
        return f"swp{cage + 1}s{lane}"

    def faceplate_name(self, port: int) -> str:
        """Logical port ``port`` as the front panel numbers it, whatever the OS: the cage from 1 (``3``), and with a
        breakout the lane in it (``3.1``), as in :meth:`port_name`."""
        if self.role == "server":
            return self.port_name(port)
        cage, lane, breakout = self.place(port)
        return f"{cage + 1}" if breakout == 1 else f"{cage + 1}.{lane}"

    def nic_port_name(self, port: int) -> str:
        """The physical NIC port of a server's port ``port``: ``nic{i}``, the port itself unless it is one plane
        link of a multiplane NIC port."""
        return f"nic{self.place(port)[0]}"


Link = tuple[int, int, int, int, int]
PortValue = TypeVar("PortValue")
"""What :meth:`Fabric.per_port` gives of each port: a name, a physical port number."""
PlanOf = TypeVar("PlanOf")
"""What a wiring was sized from: the backend's :class:`~designer.backend.sizing.Plan` or a network's."""


_DIGITS = re.compile(r"(\d+)")
"""A name's runs of digits, kept by ``split`` between the text around them."""


def natural(name: str) -> tuple[object, ...]:
    """Sort key of device and port names that orders ``su2`` before ``su10`` and ``swp3s0`` before ``swp3s1``."""
    return tuple([int(part) if part.isdigit() else part for part in _DIGITS.split(name)])


@dataclass(frozen=True)
class Wiring(Generic[PlanOf]):
    """A wired network of ``plan``: devices (switches first, then servers) and links, the ``server_link_count``
    links down to servers first."""

    plan: PlanOf
    devices: list[Device]
    links: list[Link]
    switch_count: int
    server_link_count: int

    def switches(self) -> list[Device]:
        return self.devices[: self.switch_count]


@dataclass(frozen=True)
class Fabric(Wiring[Plan]):
    """The wired backend fabric, its links ordered by tier."""

    def port_names(self, name: Callable[[Device, int], str] = Device.port_name) -> list[tuple[str, ...]]:
        """Every device's logical port names (``name``: :meth:`Device.port_name` unless told), by device index;
        devices that share a port layout share one tuple, so naming the ends of every link costs an index, not a
        format."""
        return self.per_port(name)

    def per_port(self, value: Callable[[Device, int], PortValue]) -> list[tuple[PortValue, ...]]:
        """``value`` of every logical port of every device, by device index; made once per port layout, which
        devices alike share."""
        layouts: dict[tuple[bool, int, int, int, int], tuple[PortValue, ...]] = {}
        values = []
        for device in self.devices:
            key = (device.role == "server", device.ports, device.breakout, device.downlinks, device.uplink_breakout)
            if key not in layouts:
                layouts[key] = tuple(value(device, port) for port in range(device.ports))
            values.append(layouts[key])
        return values

    def graph(self) -> nx.MultiGraph[int]:
        """The fabric as a networkx multigraph: one edge per link, capacity in Gb/s, for analysis."""
        import networkx as nx  # only analyses that want a graph library pay for importing it

        graph: nx.MultiGraph[int] = nx.MultiGraph()
        for index, device in enumerate(self.devices):
            graph.add_node(index, name=device.name, role=device.role, plane=device.plane)
        speeds = self.plan.link_speeds
        graph.add_edges_from(
            (upper, lower, {"tier": tier, "capacity": speeds[tier]}) for tier, upper, _, lower, _ in self.links
        )
        return graph


class Stripes(NamedTuple):
    """How the uplinks of a switch spread over the ``uppers`` switches above it, ``parallel`` links to each.

    Uplinks go in chunks of ``gcd(parallel, breakout)`` (the lanes of one broken-out port stay together where
    they can), chunk ``h`` to upper switch ``h % uppers`` in round ``h // uppers``. On the upper switch, round
    ``r`` of lower switch ``n`` (its index below that switch) lands at ``(r * most + n) * chunk + lane``, where
    ``most = radix // parallel`` is the most lower switches it takes. When the uppers double (the envelope
    grows), every even round keeps its switch and port: half the cables stay, the fewest possible.
    """

    parallel: int
    breakout: int
    uppers: int
    radix: int

    def place(self, uplink: int, lower: int) -> tuple[int, int]:
        """(upper switch, upper port) of uplink ``uplink`` of lower switch number ``lower``."""
        chunk = math.gcd(self.parallel, self.breakout)
        piece, lane = divmod(uplink, chunk)
        round_, upper = divmod(piece, self.uppers)
        return upper, (round_ * (self.radix // self.parallel) + lower) * chunk + lane


def server_name(plan: Plan, number: int) -> str:
    """Server ``number``'s name: ``su{su}-srv{slot}``, or for the compute trays of rack-scale systems
    ``sys{system}-tray{tray}`` (a system's trays may sit in two scalable units of leaves)."""
    if plan.servers_per_system > 1:
        return f"sys{number // plan.servers_per_system}-tray{number % plan.servers_per_system}"
    return f"su{number // plan.servers_per_su}-srv{number % plan.servers_per_su}"


def wire(intent: Intent, plan: Plan) -> Fabric:
    """Create every device and link of the plan, rail-aligned and deterministic: each plane's leaves, spines and
    super-spines, then the servers; the servers' links, then the leaves' uplinks, then the spines'."""
    devices: list[Device] = []
    leaves: dict[tuple[int, int, int], int] = {}
    spines: dict[tuple[int, int, int], int] = {}
    supers: dict[tuple[int, int, int], int] = {}
    for plane in range(plan.planes):
        for tier, indices in ((_leaves, leaves), (_spines, spines), (_super_spines, supers)):
            for key, device in tier(intent, plan, plane):
                indices[key] = len(devices)
                devices.append(device)
    switch_count = len(devices)
    devices += _servers(intent, plan)
    links = _server_links(plan, leaves, switch_count)
    server_link_count = len(links)
    links += _leaf_spine_links(intent, plan, leaves, spines)
    links += _spine_super_links(intent, plan, spines, supers)
    return Fabric(plan, devices, links, switch_count, server_link_count)


def _leaves(intent: Intent, plan: Plan, plane: int) -> Iterator[tuple[tuple[int, int, int], Device]]:
    """The leaves of ``plane``, each by its (plane, scalable unit, place in the unit: its rail, or with rack-style
    cabling its rack's switch)."""
    ports = plan.leaf_radix, plan.leaf_downlinks, plan.link_speed, plan.leaf_spine_speed
    for su in range(plan.sus):
        pod = su // plan.sus_per_pod
        for place in range(plan.leaves_per_su):
            if plan.rack_style:
                rack, side = divmod(place, plan.per_rack)
                name = f"p{plane}-su{su}-rack{rack}-leaf" + (f"{side}" if plan.per_rack > 1 else "")
                at = (plane, pod, su, NONE, NONE, place)
            else:
                name, at = f"p{plane}-su{su}-r{place}-leaf", (plane, pod, su, place, NONE, place)
            yield (plane, su, place), _switch(intent.leaf, name, "leaf", at, ports)


def _spines(intent: Intent, plan: Plan, plane: int) -> Iterator[tuple[tuple[int, int, int], Device]]:
    """The spines of ``plane``, each by its (plane, pod, index in the pod)."""
    ports = plan.spine_radix, plan.spine_downlinks, plan.leaf_spine_speed, plan.spine_super_speed
    for pod in range(plan.pods):
        for index in range(plan.spines_per_pod):
            at = (plane, pod, NONE, NONE, index if plan.tiers == 3 else NONE, index)
            name = f"p{plane}-spine{index}" if plan.tiers == 2 else f"p{plane}-pod{pod}-spine{index}"
            yield (plane, pod, index), _switch(intent.spine, name, "spine", at, ports)


def _super_spines(intent: Intent, plan: Plan, plane: int) -> Iterator[tuple[tuple[int, int, int], Device]]:
    """The super-spines of ``plane``, each by its (plane, group, index in the group)."""
    ports = plan.super_radix, plan.super_radix, plan.spine_super_speed, plan.spine_super_speed
    for group in range(plan.groups):
        for index in range(plan.supers_per_group):
            at = (plane, NONE, NONE, NONE, group, index)
            name = f"p{plane}-g{group}-ss{index}"
            yield (plane, group, index), _switch(intent.super_spine, name, "super_spine", at, ports)


def _switch(
    spec: SwitchSpec, name: str, role: str, at: tuple[int, int, int, int, int, int], ports: tuple[int, int, int, int]
) -> Device:
    """A switch of ``spec``: its name, role and place ``at`` (plane, pod, scalable unit, rail, group, index), and its
    ``ports``: how many logical ports, how many of them face down, and the speeds of those facing down and up."""
    logical, downlinks, down, up = ports
    return Device(name, role, *at, spec.model, logical, spec.breakout(down), downlinks, spec.breakout(up))


def _servers(intent: Intent, plan: Plan) -> list[Device]:
    """Every server, in number order."""
    return [
        Device(
            server_name(plan, number),
            "server",
            NONE,
            (number // plan.servers_per_su) // plan.sus_per_pod,
            number // plan.servers_per_su,
            NONE,
            NONE,
            number % plan.servers_per_su,
            intent.server.model,
            intent.server.nics,
            1,
            intent.server.nics,
            intent.server.ports_per_nic_port,
        )
        for number in range(plan.servers)
    ]


def _server_links(plan: Plan, leaves: dict[tuple[int, int, int], int], first_server: int) -> list[Link]:
    """Every server's link to each leaf of its scalable unit (the servers' devices from ``first_server`` on), leaf
    by leaf in port order."""
    links: list[Link] = []
    servers = range(first_server, first_server + plan.servers)
    if not plan.rack_style:
        for (plane, su, rail), leaf in leaves.items():
            first = su * plan.servers_per_su
            for slot, server in enumerate(servers[first : first + plan.servers_per_su]):
                links.append((SERVER_LEAF, leaf, slot, server, plane * plan.rails + rail))
        return links
    share = plan.rails // plan.per_rack
    for (_, su, place), leaf in leaves.items():
        rack, side = divmod(place, plan.per_rack)
        first = su * plan.servers_per_su + rack * plan.rack_servers
        for slot, server in enumerate(servers[first : first + plan.rack_servers]):
            for lane in range(share):
                links.append((SERVER_LEAF, leaf, slot * share + lane, server, side * share + lane))
    return links


def _leaf_spine_links(
    intent: Intent, plan: Plan, leaves: dict[tuple[int, int, int], int], spines: dict[tuple[int, int, int], int]
) -> list[Link]:
    """Every leaf's uplinks, striped over the spines of its pod."""
    links: list[Link] = []
    stripes = Stripes(
        plan.leaf_spine_parallel, intent.leaf.breakout(plan.leaf_spine_speed), plan.spines_per_pod, plan.spine_downlinks
    )
    for plane in range(plan.planes):
        for su in range(plan.sus):
            pod, local_su = divmod(su, plan.sus_per_pod)
            for place in range(plan.leaves_per_su):
                leaf = leaves[plane, su, place]
                for uplink in range(plan.leaf_uplinks):
                    spine, port = stripes.place(uplink, local_su * plan.leaves_per_su + place)
                    links.append((LEAF_SPINE, spines[plane, pod, spine], port, leaf, plan.leaf_downlinks + uplink))
    return links


def _spine_super_links(
    intent: Intent, plan: Plan, spines: dict[tuple[int, int, int], int], supers: dict[tuple[int, int, int], int]
) -> list[Link]:
    """Every spine's uplinks, striped over the super-spines of its group."""
    links: list[Link] = []
    stripes = Stripes(
        plan.spine_super_parallel,
        intent.spine.breakout(plan.spine_super_speed),
        plan.supers_per_group,
        plan.super_radix,
    )
    for plane in range(plan.planes):
        for pod in range(plan.pods):
            for group in range(plan.groups):
                spine = spines[plane, pod, group]
                for uplink in range(plan.spine_uplinks):
                    index, port = stripes.place(uplink, pod)
                    links.append((SPINE_SUPER, supers[plane, group, index], port, spine, plan.spine_downlinks + uplink))
    return links

"""Wire one sized leaf-spine network beside the backend: every device with its name, every link with both ends.

Naming, from structure only (``fe``, ``st`` or ``ib`` first, :data:`~designer.networks.sizing.PREFIXES`):

* border leaf ``fe-border{b}``; leaf ``fe-g{group}-leaf{i}`` (``i`` of the group's leaves, a top-of-rack pair when
  dual-homed); a storage servers' leaf ``st-sg{group}-leaf{i}``; spine ``fe-spine{j}``; storage server
  ``storage{n}``. GPU servers keep the backend's names. Indices start at 0.
* Leaf ports as the backend's (``swpN``, ``swpNsL`` broken out): the server-facing ports first, slot by slot (a
  server's NIC ports on that leaf side by side), then the spine uplinks, whole. A server's NIC port ``i * q + k`` is
  its ``k``-th on leaf ``i`` of its group (``q`` ports on each).
* Every leaf has a structural number: border leaves first, then the server groups of the envelope, then the storage
  groups; its uplinks are striped over the spines by that number (:class:`~designer.backend.wiring.Stripes`), so a leaf
  group added inside the envelope takes spine ports no existing cable uses.

Links are the backend's tuples ``(tier, upper device, upper port, lower device, lower port)``, server links first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from designer.backend.wiring import LEAF_SPINE, NONE, SERVER_LEAF, Device, Link, Stripes, Wiring
from designer.intent.networks_section import DataNetworkSpec
from designer.networks.sizing import NetworkPlan


@dataclass(frozen=True)
class NetworkFabric(Wiring[NetworkPlan]):
    """One wired network beside the backend: its servers are GPU and storage servers."""

    def port_name(self, device: Device, port: int) -> str:
        """A port's name: a switch's as the backend names it, a server's NIC port in this network ``fe0``, ``st1``
        (the network's prefix and the port's number)."""
        if device.role in ("server", "storage"):
            return f"{self.plan.prefix}{port}"
        return device.port_name(port)

    def server_links(self, number: int) -> range:
        """The links of the GPU server ``number`` (in the backend's order), its NIC ports in order: the server links
        come server by server, the GPU servers' first, each with its ports on every leaf of its group."""
        per_server = self.plan.leaves_per_group * self.plan.nics_per_leaf
        return range(number * per_server, (number + 1) * per_server)


def ordinal(plan: NetworkPlan, device: Device) -> int:
    """A switch's structural number: a leaf's among its network's leaves of the envelope, a spine's index."""
    if device.role in ("border_leaf", "spine"):
        return device.index
    group = device.su + (plan.envelope_groups if device.role == "storage_leaf" else 0)
    return plan.border_leaves + group * plan.leaves_per_group + device.index


def server_number(plan: NetworkPlan, device: Device) -> int:
    """A GPU server's structural number in the network's envelope: its group's first slot plus its slot."""
    return device.su * plan.servers_per_group + device.index


def wire_network(spec: DataNetworkSpec, plan: NetworkPlan, server_names: Sequence[str]) -> NetworkFabric:
    """Every device and link of ``plan``; ``server_names`` are the GPU servers built now, in the backend's order:
    the leaves and spines, then the servers and storage nodes with their links, then the leaves' uplinks."""
    devices = [*_leaves(spec, plan), *_spines(spec, plan)]
    switch_count = len(devices)
    per_group = plan.leaves_per_group
    server_leaves = plan.border_leaves
    storage_leaves = server_leaves + plan.groups * per_group
    links: list[Link] = []
    _attach(
        devices, links, per_group, server_leaves, server_names, "server", plan.servers_per_group, spec.nics_per_server
    )
    if nodes := spec.storage_nodes:
        names = [f"storage{number}" for number in range(plan.storage_nodes)]
        _attach(devices, links, per_group, storage_leaves, names, "storage", plan.storage_per_group, nodes.nics)
    server_link_count = len(links)
    stripes = Stripes(plan.leaf_spine_parallel, 1, plan.spines, plan.spine_radix)
    first_spine = switch_count - plan.spines
    for lower_switch in range(first_spine):
        number, downlinks = ordinal(plan, devices[lower_switch]), devices[lower_switch].downlinks
        for uplink in range(plan.leaf_uplinks):
            spine, port = stripes.place(uplink, number)
            links.append((LEAF_SPINE, first_spine + spine, port, lower_switch, downlinks + uplink))
    return NetworkFabric(plan, devices, links, switch_count, server_link_count)


def _leaves(spec: DataNetworkSpec, plan: NetworkPlan) -> list[Device]:
    """The border leaves, then each group's server leaves, then each storage group's leaves."""
    nodes = spec.storage_nodes
    return [
        *(
            _leaf(
                spec,
                plan,
                f"{plan.prefix}-border{border}",
                "border_leaf",
                NONE,
                border,
                plan.core_uplink_speed,
                plan.core_downlinks,
            )
            for border in range(plan.border_leaves)
        ),
        *(
            _leaf(
                spec,
                plan,
                f"{plan.prefix}-g{group}-leaf{index}",
                "leaf",
                group,
                index,
                plan.nic_speed,
                plan.leaf_downlinks,
            )
            for group in range(plan.groups)
            for index in range(plan.leaves_per_group)
        ),
        *(
            _leaf(
                spec,
                plan,
                f"{plan.prefix}-sg{group}-leaf{index}",
                "storage_leaf",
                group,
                index,
                nodes.nic_speed if nodes else plan.nic_speed,
                plan.storage_downlinks,
            )
            for group in range(plan.storage_groups)
            for index in range(plan.leaves_per_group)
        ),
    ]


def _leaf(
    spec: DataNetworkSpec,
    plan: NetworkPlan,
    name: str,
    role: str,
    group: int,
    index: int,
    link_speed: int,
    downlinks: int,
) -> Device:
    """One leaf of ``role``: ``downlinks`` ports of ``link_speed`` facing down (none: a border leaf without
    downlinks), the plan's uplinks."""
    return Device(
        name,
        role,
        NONE,
        NONE,
        group,
        NONE,
        NONE,
        index,
        spec.leaf.model,
        downlinks + plan.leaf_uplinks,
        spec.leaf.breakout(link_speed) if downlinks else 1,
        downlinks,
        1,
    )


def _spines(spec: DataNetworkSpec, plan: NetworkPlan) -> list[Device]:
    """The network's spines."""
    return [
        Device(
            f"{plan.prefix}-spine{index}",
            "spine",
            NONE,
            NONE,
            NONE,
            NONE,
            NONE,
            index,
            spec.spine.model,
            plan.spine_radix,
            spec.spine.breakout(plan.uplink_speed),
            plan.spine_radix,
            spec.spine.breakout(plan.uplink_speed),
        )
        for index in range(plan.spines)
    ]


def _attach(
    devices: list[Device],
    links: list[Link],
    per_group: int,
    first_leaf: int,
    names: Sequence[str],
    role: str,
    per_leaf_group: int,
    nics: int,
) -> None:
    """Servers ``names`` of ``role`` added to ``devices`` in groups of ``per_leaf_group``, each server's ``nics``
    ports split over its group's ``per_group`` leaves (the groups' leaves from ``first_leaf`` on), slot by slot, into
    ``links``."""
    per_leaf = nics // per_group
    for number, name in enumerate(names):
        group, slot = divmod(number, per_leaf_group)
        lower = len(devices)
        devices.append(Device(name, role, NONE, NONE, group, NONE, NONE, slot, role, nics, 1, nics, 1))
        links.extend(
            (
                SERVER_LEAF,
                first_leaf + group * per_group + index,
                slot * per_leaf + port,
                lower,
                index * per_leaf + port,
            )
            for index in range(per_group)
            for port in range(per_leaf)
        )

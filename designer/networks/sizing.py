"""Size one rack-local leaf-spine network beside the backend (frontend, storage, in-band): pure arithmetic from
its own spec and the cluster's counts to a :class:`NetworkPlan`.

* Leaf: of its ``P`` physical ports of ``S`` Gb/s, ``ceil(P / (r + 1))`` face the spines, whole, and the rest face
  servers, broken out to the NIC speed: the leaf's downlink to uplink bandwidth is at most the declared ratio
  ``r`` (1 is non-blocking). A server's NIC ports split evenly over the ``leaves_per_rack`` leaves of its group.
* Leaf group: the leaves (a top-of-rack pair when dual-homed) of as many whole compute racks as their downlinks
  hold, at least one rack; one rack whose servers need more ports than a leaf has gets groups of what a leaf takes.
  Storage servers get leaf groups of their own, after every group of the envelope.
* Border leaves (frontend): the leaf's hardware; their server-facing ports face the data-centre core instead.
* Spines: every leaf reaches every spine with ``m`` parallel links; the spine count is the smallest that divides
  the leaf's uplinks (equal ECMP weight) and gives the spines enough ports for every leaf of the envelope, so
  growing inside it adds leaf groups only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from designer.backend.sizing import ecmp_divisor
from designer.errors import InputError, Problem
from designer.intent.networks_section import DataNetworkSpec

PREFIXES = {"frontend": "fe", "storage": "st", "inband": "ib"}
"""The first part of every device name of a network."""


@dataclass(frozen=True)
class NetworkPlan:
    """Counts of one network's switches and links: the structure from the envelope, the groups built now."""

    name: str
    prefix: str
    nic_speed: int
    uplink_speed: int
    """Gb/s of the leaf-spine links: the leaf's port speed."""
    leaf_down_ports: int
    """Physical leaf ports facing servers (or the core, on a border leaf)."""
    leaf_downlinks: int
    """Logical leaf ports facing servers: the down ports broken out to the NIC speed."""
    leaf_uplinks: int
    leaves_per_group: int
    nics_per_leaf: int
    """A server's NIC ports on each leaf of its group."""
    servers_per_group: int
    groups: int
    """Leaf groups of GPU servers built now."""
    envelope_groups: int
    """Leaf groups of GPU servers in the envelope: the storage groups and the structure follow them."""
    servers: int
    storage_nodes: int
    storage_nics_per_leaf: int
    storage_downlinks: int
    """Logical leaf ports facing storage servers (the down ports broken out to their NIC speed)."""
    storage_per_group: int
    storage_groups: int
    border_leaves: int
    core_uplinks: int
    core_downlinks: int
    """Logical border leaf ports facing the core (the down ports broken out to the core uplink speed)."""
    core_uplink_speed: int
    spines: int
    spine_radix: int
    leaf_spine_parallel: int
    ratio: float
    """The leaves' downlink to uplink bandwidth as sized (at most the declared oversubscription)."""

    @property
    def envelope_leaves(self) -> int:
        """Leaves of the envelope: border leaves, every server group's and the storage groups'."""
        return self.border_leaves + (self.envelope_groups + self.storage_groups) * self.leaves_per_group

    @property
    def leaves(self) -> int:
        """Leaves built now."""
        return self.border_leaves + (self.groups + self.storage_groups) * self.leaves_per_group

    def leaves_per_rack(self, servers_per_rack: int) -> int:
        """Top-of-rack leaves of a compute rack of ``servers_per_rack`` servers: its groups' leaves."""
        return self.leaves_per_group * max(1, math.ceil(servers_per_rack / self.servers_per_group))


def size_network(spec: DataNetworkSpec, servers: int, max_servers: int, servers_per_rack: int) -> NetworkPlan:
    """Size ``spec`` for ``servers`` GPU servers built now of ``max_servers`` in the envelope, ``servers_per_rack``
    to a compute rack; :class:`InputError` when the leaves or spines cannot hold it."""
    leaf = spec.leaf
    up = math.ceil(leaf.ports / (spec.oversubscription + 1))
    down = leaf.ports - up
    per_leaf = spec.nics_per_server // spec.leaves_per_rack
    downlinks = down * leaf.breakout(spec.nic_speed)
    fits = downlinks // per_leaf
    core_downlinks = down * leaf.breakout(spec.core_uplink_speed) if spec.border_leaves else 0
    if problems := _leaf_problems(spec, down, up, fits, core_downlinks):
        raise InputError(problems)
    group = (fits // servers_per_rack) * servers_per_rack or fits
    nodes = spec.storage_nodes
    storage_per_leaf = nodes.nics // spec.leaves_per_rack if nodes else 0
    storage_downlinks = down * leaf.breakout(nodes.nic_speed) if nodes else 0
    storage_per_group = storage_downlinks // storage_per_leaf if nodes else 0
    storage_groups = math.ceil(nodes.count / storage_per_group) if nodes else 0
    envelope_groups = math.ceil(max_servers / group)
    leaves = spec.border_leaves + (envelope_groups + storage_groups) * spec.leaves_per_rack
    spine_radix = _spine_radix(spec, leaves)
    spines = ecmp_divisor(up, max(min(2, up), math.ceil(leaves * up / spine_radix)))
    return NetworkPlan(
        name=spec.name,
        prefix=PREFIXES[spec.name],
        nic_speed=spec.nic_speed,
        uplink_speed=leaf.speed,
        leaf_down_ports=down,
        leaf_downlinks=downlinks,
        leaf_uplinks=up,
        leaves_per_group=spec.leaves_per_rack,
        nics_per_leaf=per_leaf,
        servers_per_group=group,
        groups=math.ceil(servers / group),
        envelope_groups=envelope_groups,
        servers=servers,
        storage_nodes=nodes.count if nodes else 0,
        storage_nics_per_leaf=storage_per_leaf,
        storage_downlinks=storage_downlinks,
        storage_per_group=storage_per_group,
        storage_groups=storage_groups,
        border_leaves=spec.border_leaves,
        core_uplinks=spec.core_uplinks,
        core_downlinks=core_downlinks,
        core_uplink_speed=spec.core_uplink_speed,
        spines=spines,
        spine_radix=spine_radix,
        leaf_spine_parallel=up // spines,
        ratio=down / up,
    )


def _leaf_problems(spec: DataNetworkSpec, down: int, up: int, fits: int, core_downlinks: int) -> list[Problem]:
    """What a leaf split ``down``:``up`` cannot hold: a server's NIC ports (``fits`` servers to a leaf), a storage
    node's split evenly over its leaves, the border leaves' core uplinks (``core_downlinks`` links beside the
    spines')."""
    path = ("networks", spec.name)
    per_leaf = spec.nics_per_server // spec.leaves_per_rack
    problems = []
    if fits == 0 or up == 0:
        problems.append(
            Problem(
                (*path, "oversubscription"),
                f"a {spec.leaf.model} leaf split {down}:{up} has no room for a server's {per_leaf} NIC ports; use a "
                "lower oversubscription or a leaf with more ports",
            )
        )
    nodes = spec.storage_nodes
    if nodes and nodes.nics % spec.leaves_per_rack:
        problems.append(
            Problem(
                (*path, "storage_nodes", "nics_per_server"),
                f"{nodes.nics} NIC ports per storage server cannot split evenly over {spec.leaves_per_rack} leaves; "
                f"use a multiple of {spec.leaves_per_rack}",
            )
        )
    if spec.core_uplinks > core_downlinks and spec.border_leaves:
        problems.append(
            Problem(
                (*path, "core_uplinks"),
                f"a border leaf has {down} ports beside its {up} spine uplinks, {core_downlinks} links of "
                f"{spec.core_uplink_speed}G; use at most {core_downlinks} core uplinks",
            )
        )
    return problems


def _spine_radix(spec: DataNetworkSpec, leaves: int) -> int:
    """The spine's ports at the leaves' uplink speed; :class:`InputError` when its ports cannot run that speed or
    are fewer than the envelope's ``leaves``."""
    path, speed = ("networks", spec.name), spec.leaf.speed
    spine_radix = spec.spine.radix(speed) if spec.spine.speed % speed == 0 else 0
    if spine_radix == 0:
        raise InputError(
            [
                Problem(
                    (*path, "spine"),
                    f"{spec.spine.model} ports ({spec.spine.speed}G) cannot run the leaves' {speed}G uplinks; use a "
                    f"spine whose ports run {speed}G",
                )
            ]
        )
    if leaves > spine_radix:
        raise InputError(
            [
                Problem(
                    path,
                    f"{leaves} leaves of the envelope need more than the {spine_radix} ports of a {spec.spine.model} "
                    "spine (two tiers, every leaf to every spine); use spines with more ports, a higher "
                    "oversubscription or fewer NIC ports per server",
                )
            ]
        )
    return spine_radix

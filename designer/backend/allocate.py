"""Allocate addresses and ASNs from each switch's and link's structural coordinates, never from a running count.

Strides come from the envelope (:attr:`Plan.max_servers`), so growing inside it only adds: no existing
loopback, ASN or /31 moves. With ``P`` planes, ``R`` leaves per SU (one per rail, or with rack-style cabling
the switches of its racks), ``L`` leaves, ``S`` spines and ``X`` super-spines per plane in the envelope, ``U``
leaf uplinks and ``V`` spine uplinks:

* Ordinals: leaf (plane, SU, i: its rail, or its place among the unit's rack switches) ``plane*L + SU*R + i``; spine
  (plane, pod, i) ``plane*S + pod*spines_per_pod + i``; super-spine (plane, group, i) ``plane*X +
  group*supers_per_group + i``.
* Loopbacks: leaf ``loopbacks + ordinal``; spine ``loopbacks + P*L + ordinal``; super-spine
  ``loopbacks + P*L + P*S + ordinal``.
* Server /31s: leaf ordinal ``n`` owns the aligned block ``server_p2p + n*block`` (``block`` the power of
  two holding a /31 per server port of a full leaf); port ``s`` is the /31 at ``block start + 2s``, the
  leaf the even end, the NIC the odd one. With hwplb multiplane (one address per rail, the NIC balancing the
  planes) every plane's leaf takes the block of the plane-0 leaf of its SU and rail: the same /31 in every plane,
  each plane a separate fabric.
* Switch /31s: leaf-spine uplink ``u`` of leaf ``n`` at ``fabric_p2p + 2*(n*U + u)``; spine-super-spine
  uplink ``v`` of spine ``m`` in its own sub-range after every envelope leaf-spine link,
  ``fabric_p2p + 2*P*L*U + 2*(m*V + v)``. The upper end takes the even address (RFC 3021).
* ASNs (RFC 7938): leaf ``leaf_asn_start + ordinal``; with ``rfc7938`` the spines of a pod share
  ``spine_asn_start + plane*pods + pod`` and the super-spines of a plane ``super_spine_asn_start + plane``;
  with ``unique`` every spine and super-spine has ``start + ordinal``. Unless pinned, spines start at
  ``leaf_asn_start + 1,000,000`` and super-spines at ``leaf_asn_start + 2,000,000``.
* Pools left out of the intent are laid out for the envelope (:func:`default_pools`).

An InfiniBand fabric gets no allocation at all: its subnet manager gives every port a LID and routes it, so it has
no addresses, ASNs or pools (:func:`allocate` returns None, :func:`address_problems` finds nothing).
"""

from __future__ import annotations

import math
import socket
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from netaddr import IPNetwork

from designer.backend.sizing import Plan
from designer.backend.wiring import LEAF_SPINE, SERVER_LEAF, Device, Fabric
from designer.errors import InputError, Problem
from designer.intent import Intent
from designer.intent.fields import private_asns
from designer.intent.routing_section import RoutingSpec

SPINE_ASN_OFFSET = 1_000_000
"""Default ``spine_asn_start``: this far above ``leaf_asn_start``, whatever the fabric's size."""
SUPER_SPINE_ASN_OFFSET = 2_000_000
"""Default ``super_spine_asn_start``: this far above ``leaf_asn_start``."""
DEFAULT_OFFSET = {"leaf": 0, "spine": SPINE_ASN_OFFSET, "super_spine": SUPER_SPINE_ASN_OFFSET}
POOLS = ("fabric_p2p", "server_p2p", "loopbacks")
DEFAULT_PREFIX = {"fabric_p2p": 15, "server_p2p": 15, "loopbacks": 20}
"""The smallest prefix a default pool gets (10.0.0.0/15, 10.2.0.0/15, 10.255.0.0/20 for a small fabric)."""
DEFAULT_SPACE = IPNetwork("10.0.0.0/8")
PRIVATE_RANGES = (IPNetwork("10.0.0.0/8"), IPNetwork("172.16.0.0/12"), IPNetwork("192.168.0.0/16"))
"""RFC 1918 space, where a pool too small is offered a free prefix of the size it needs."""
LOOPBACK_HOME = int(IPNetwork("10.255.0.0/32").first)
"""A default loopback pool is the block of its size holding 10.255.0.0, when that block is free."""
OCTETS = tuple(str(octet) for octet in range(256))


@dataclass(frozen=True)
class Pool:
    """An IPv4 pool as integers: its first address and its size; ``used`` now, ``planned`` for the envelope."""

    name: str
    cidr: str
    first: int
    size: int
    used: int
    planned: int = 0
    given: bool = True
    """Written in the intent (else laid out by :func:`default_pools`)."""

    def utilisation(self) -> float:
        return self.used / self.size


@dataclass(frozen=True)
class Numbering:
    """The envelope's strides: how a switch's coordinates become its ordinal, and where each sub-range starts."""

    planes: int
    leaves_per_su: int
    """Leaves of a scalable unit per plane: one per rail, or its racks' switches (rack-style cabling)."""
    leaves: int
    """Leaves per plane in the envelope (``L``)."""
    spines: int
    """Spines per plane in the envelope (``S``)."""
    supers: int
    """Super-spines per plane in the envelope (``X``)."""
    spines_per_pod: int
    supers_per_group: int
    pods: int
    """Pods per plane in the envelope."""
    leaf_uplinks: int
    spine_uplinks: int
    server_block: int
    address_planes: int
    """Planes whose leaves have server /31s of their own: every plane, or 1 when the planes share them (hwplb)."""

    @classmethod
    def of(cls, plan: Plan, address_planes: int | None = None) -> Numbering:
        block = 1 << math.ceil(math.log2(2 * plan.leaf_downlinks))
        return cls(
            plan.planes,
            plan.leaves_per_su,
            plan.envelope_leaves_per_plane,
            plan.envelope_spines_per_plane,
            plan.envelope_supers_per_plane,
            plan.spines_per_pod,
            plan.supers_per_group,
            plan.envelope_pods,
            plan.leaf_uplinks,
            plan.spine_uplinks,
            block,
            plan.planes if address_planes is None else address_planes,
        )

    def ordinal(self, device: Device) -> int:
        """The switch's number among the envelope's switches of its role, from its coordinates."""
        if device.role == "leaf":
            return device.plane * self.leaves + device.su * self.leaves_per_su + device.index
        if device.role == "spine":
            return device.plane * self.spines + device.pod * self.spines_per_pod + device.index
        return device.plane * self.supers + device.group * self.supers_per_group + device.index

    def server_block_ordinal(self, device: Device) -> int:
        """The leaf's number among the envelope's server /31 blocks: its ordinal, or with shared planes that of
        the plane-0 leaf of its SU and rail."""
        return (device.plane % self.address_planes) * self.leaves + device.su * self.leaves_per_su + device.index

    def loopback_offset(self, device: Device) -> int:
        """Offset of the switch's loopback in the loopback pool: leaves, then spines, then super-spines."""
        base = {
            "leaf": 0,
            "spine": self.planes * self.leaves,
            "super_spine": self.planes * (self.leaves + self.spines),
        }[device.role]
        return base + self.ordinal(device)

    @property
    def spine_super_base(self) -> int:
        """Offset of the spine-super-spine sub-range in ``fabric_p2p``: after every envelope leaf-spine /31."""
        return 2 * self.planes * self.leaves * self.leaf_uplinks

    def needed(self) -> dict[str, int]:
        """Addresses each pool needs for the envelope."""
        return {
            "fabric_p2p": self.spine_super_base + 2 * self.planes * self.spines * self.spine_uplinks,
            "server_p2p": self.address_planes * self.leaves * self.server_block,
            "loopbacks": self.planes * (self.leaves + self.spines + self.supers),
        }


@dataclass(frozen=True)
class Allocation:
    """Every address and ASN of the fabric, by device and link index."""

    server_p2p: Pool
    fabric_p2p: Pool
    loopback_pool: Pool
    numbering: Numbering
    server_blocks: dict[int, int]
    """First address of each leaf's server block, by leaf device index."""
    evens: list[int]
    """The upper-end (even) address of every link, in link order."""
    loopbacks: list[int]
    asns: list[int]
    asn_starts: dict[str, int]
    """Where each role's ASNs start (``leaf``, ``spine``, ``super_spine``)."""

    @property
    def server_block(self) -> int:
        return self.numbering.server_block

    @cached_property
    def upper_ips(self) -> list[str]:
        """The upper end's address of every link as text, in link order (formatted once per design: the device
        models, the host settings, design.json and the tables all read it)."""
        return ips(self.evens)

    @cached_property
    def lower_ips(self) -> list[str]:
        """The lower end's address of every link as text, in link order."""
        return ips(even + 1 for even in self.evens)

    @cached_property
    def loopback_ips(self) -> list[str]:
        """Every switch's loopback address as text, in device order."""
        return ips(self.loopbacks)

    def link_addresses(self, link: int) -> tuple[int, int]:
        """The (upper, lower) addresses of link ``link``, as integers; they share one /31."""
        even = self.evens[link]
        return even, even + 1

    def server_subnet(self, leaf: int) -> str:
        """The prefix holding every server /31 of leaf device ``leaf``."""
        return f"{ip(self.server_blocks[leaf])}/{32 - self.server_block.bit_length() + 1}"

    def pools(self) -> list[Pool]:
        return [self.fabric_p2p, self.server_p2p, self.loopback_pool]


def ip(address: int) -> str:
    """Dotted-quad text of an integer IPv4 address."""
    return socket.inet_ntoa(struct.pack("!I", address))


def ips(addresses: Iterable[int]) -> list[str]:
    """:func:`ip` of each of ``addresses``, with the first three octets of each /24 formatted once (a fabric's
    addresses are dense: this is several times faster than formatting each one)."""
    heads: dict[int, str] = {}
    octets = OCTETS
    texts = []
    for address in addresses:
        head = heads.get(address >> 8)
        if head is None:
            head = heads[address >> 8] = ip(address).rpartition(".")[0] + "."
        texts.append(head + octets[address & 255])
    return texts


def allocate(intent: Intent, fabric: Fabric) -> Allocation | None:
    """Allocate every /31, loopback and ASN, or raise :class:`InputError` naming the pool or range at fault; None
    for a fabric its subnet manager addresses (InfiniBand)."""
    if not addressed(intent):
        return None
    problems: list[Problem] = []
    plan = fabric.plan
    numbering = Numbering.of(plan, address_planes(intent))
    switches = fabric.switches()
    ordinals = [numbering.ordinal(device) for device in switches]
    leaves = [index for index, device in enumerate(switches) if device.role == "leaf"]
    links = fabric.links
    used = {
        "server_p2p": numbering.server_block * len(leaves) * numbering.address_planes // plan.planes,
        "fabric_p2p": 2 * (len(links) - fabric.server_link_count),
        "loopbacks": fabric.switch_count,
    }
    pools = _pools(intent, plan, numbering, used, problems)
    starts = _asn_starts(intent.routing, numbering, problems)
    if problems:
        raise InputError(problems, intent.source)
    asns = _asns(intent.routing, numbering, switches, ordinals, starts)
    server, fabric_pool, loopback = pools["server_p2p"], pools["fabric_p2p"], pools["loopbacks"]
    blocks = {
        leaf: server.first + numbering.server_block_ordinal(switches[leaf]) * numbering.server_block for leaf in leaves
    }
    downlinks, spine_down = plan.leaf_downlinks, plan.spine_downlinks
    leaf_base, spine_base = fabric_pool.first, fabric_pool.first + numbering.spine_super_base
    up, spine_up = numbering.leaf_uplinks, numbering.spine_uplinks
    evens = []
    for tier, upper, upper_port, lower, lower_port in links:
        if tier == SERVER_LEAF:
            evens.append(blocks[upper] + 2 * upper_port)
        elif tier == LEAF_SPINE:
            evens.append(leaf_base + 2 * (ordinals[lower] * up + lower_port - downlinks))
        else:
            evens.append(spine_base + 2 * (ordinals[lower] * spine_up + lower_port - spine_down))
    loopbacks = [loopback.first + numbering.loopback_offset(device) for device in switches]
    return Allocation(server, fabric_pool, loopback, numbering, blocks, evens, loopbacks, asns, starts)


def address_planes(intent: Intent) -> int:
    """Planes whose server links have /31s of their own: every plane, but one with hwplb multiplane, where a NIC
    port has one address in all its planes (NVIDIA Network Operator, "Hardware Multiplane Spectrum-X Quick Start":
    one address pool per rail)."""
    multiplane = intent.server.multiplane
    return 1 if multiplane and multiplane.mode == "hwplb" else intent.planes


def addressed(intent: Intent) -> bool:
    """Whether the fabric of ``intent`` is routed over IP addresses and ASNs (Ethernet), rather than by a subnet
    manager that gives every port a LID (InfiniBand)."""
    return intent.technology == "ethernet"


WHAT = {
    "fabric_p2p": "switch-to-switch /31s",
    "server_p2p": "leaf-to-NIC /31s (a block of {block} addresses per leaf)",
    "loopbacks": "switch loopbacks",
}


def address_problems(intent: Intent, plan: Plan) -> list[Problem]:
    """The pools too small for the envelope of ``plan`` and the ASN ranges that leave the private ranges or
    overlap, from the counts alone (before anything is wired); none for a fabric without addresses."""
    if not addressed(intent):
        return []
    problems: list[Problem] = []
    numbering = Numbering.of(plan, address_planes(intent))
    _pools(intent, plan, numbering, dict.fromkeys(POOLS, 0), problems)
    _asn_starts(intent.routing, numbering, problems)
    return problems


def _pools(
    intent: Intent, plan: Plan, numbering: Numbering, used: dict[str, int], problems: list[Problem]
) -> dict[str, Pool]:
    """The intent's pools, checked against the envelope, and the default layout of those it leaves out."""
    needed = numbering.needed()
    given = {name: IPNetwork(cidr) for name in POOLS if (cidr := getattr(intent.addressing, name)) is not None}
    envelope = f" (the envelope of {plan.max_servers:,} servers)" if plan.max_servers > plan.servers else ""
    short = {name for name, network in given.items() if needed[name] > network.size}
    taken = [network for name, network in given.items() if name not in short]
    for name in sorted(short, key=POOLS.index):
        network = given[name]
        prefix = 32 - max(0, math.ceil(math.log2(needed[name])))
        what = WHAT[name].format(block=numbering.server_block)
        free = _free_prefix(network, prefix, taken)
        example = f", for example {free} (aligned and clear of the other pools)" if free else ""
        taken.extend([free] if free else [])
        problems.append(
            Problem(
                ("addressing", name),
                (
                    f"{network.cidr} holds {network.size:,} addresses but the {what}{envelope} need {needed[name]:,}; "
                    f"use a /{prefix} or larger{example}"
                ),
            )
        )
    laid_out = default_pools(needed, {name: (int(net.first), net.size) for name, net in given.items()})
    missing = [name for name in POOLS if name not in given and name not in laid_out]
    for name in missing:
        problems.append(
            Problem(
                ("addressing",),
                (
                    f"no free block of 10.0.0.0/8 holds a default {name} of {needed[name]:,} addresses beside the "
                    f"pools given; give addressing.{name}"
                ),
            )
        )
    pools = {}
    for name in POOLS:
        if name in given:
            network = given[name]
            pools[name] = Pool(name, str(network.cidr), int(network.first), network.size, used[name], needed[name])
        elif name in laid_out:
            first, size = laid_out[name]
            pools[name] = Pool(
                name, f"{ip(first)}/{33 - size.bit_length()}", first, size, used[name], needed[name], given=False
            )
    return pools


def default_pools(needed: dict[str, int], given: dict[str, tuple[int, int]]) -> dict[str, tuple[int, int]]:
    """(first, size) of each pool not in ``given``: the smallest power-of-two block, no smaller than the default
    prefix, that holds what the envelope needs; loopbacks in the block holding 10.255.0.0 when it is free, else
    (and the others always) the lowest free aligned block of 10.0.0.0/8, in the order fabric_p2p, server_p2p,
    loopbacks."""
    taken = list(given.values())
    placed: dict[str, tuple[int, int]] = {}
    space_first, space_size = int(DEFAULT_SPACE.first), DEFAULT_SPACE.size
    for name in POOLS:
        if name in given:
            continue
        size = max(1 << (32 - DEFAULT_PREFIX[name]), 1 << max(0, math.ceil(math.log2(max(1, needed[name])))))
        candidates: Sequence[int] = range(space_first, space_first + space_size, size)
        if name == "loopbacks":
            candidates = [LOOPBACK_HOME - LOOPBACK_HOME % size, *candidates]
        for first in candidates:
            if first + size <= space_first + space_size and not any(
                first < other + other_size and other < first + size for other, other_size in taken
            ):
                placed[name] = (first, size)
                taken.append((first, size))
                break
    return placed


def _free_prefix(near: IPNetwork, prefix: int, taken: list[IPNetwork]) -> IPNetwork | None:
    """The first aligned /``prefix`` from ``near`` on (wrapping around) within the private range holding it, else
    in the first private range with room, that overlaps none of ``taken``."""
    size = 1 << (32 - prefix)
    for private in sorted(PRIVATE_RANGES, key=lambda private: near not in private):
        start = near.first - near.first % size if near in private else private.first
        for first, last in ((start, private.last), (private.first, start - 1)):
            while first + size - 1 <= last:
                clash = [other.last for other in taken if first <= other.last and other.first < first + size]
                if not clash:
                    return IPNetwork(f"{ip(first)}/{prefix}")
                first = max(clash) + 1 + (-(max(clash) + 1)) % size
    return None


def _asn_starts(routing: RoutingSpec, numbering: Numbering, problems: list[Problem]) -> dict[str, int]:
    """Where each role's ASNs start (pinned in the intent, else at a fixed offset above the leaves'), with the
    problems of the ranges the envelope needs from there."""
    shared = routing.asn_scheme == "rfc7938"
    leaf = routing.leaf_asn_start
    pinned = {"leaf": leaf, "spine": routing.spine_asn_start, "super_spine": routing.super_spine_asn_start}
    starts = {role: leaf + DEFAULT_OFFSET[role] if start is None else start for role, start in pinned.items()}
    counts = {
        "leaf": numbering.planes * numbering.leaves,
        "spine": numbering.planes * (numbering.pods if shared else numbering.spines),
        "super_spine": numbering.planes * (min(1, numbering.supers) if shared else numbering.supers),
    }
    ranges = {role: (starts[role], starts[role] + counts[role] - 1) for role in starts if counts[role]}
    problems.extend(_asn_range_problems(routing, ranges))
    return starts


def _asns(
    routing: RoutingSpec, numbering: Numbering, switches: list[Device], ordinals: list[int], starts: dict[str, int]
) -> list[int]:
    """One ASN per switch in device order, from its coordinates."""
    shared = routing.asn_scheme == "rfc7938"
    asns = []
    for device, ordinal in zip(switches, ordinals, strict=True):
        if shared and device.role == "spine":
            asns.append(starts["spine"] + device.plane * numbering.pods + device.pod)
        elif shared and device.role == "super_spine":
            asns.append(starts["super_spine"] + device.plane)
        else:
            asns.append(starts[device.role] + ordinal)
    return asns


def _asn_range_problems(routing: RoutingSpec, ranges: dict[str, tuple[int, int]]) -> list[Problem]:
    """Ranges that leave the private ASNs (unless their start was written outside them: the intent's own rules
    report that) or overlap another role's."""
    problems = []
    for role, (first, last) in ranges.items():
        field = ("routing", f"{role}_asn_start")
        given_outside = getattr(routing, field[1]) is not None and not private_asns(first)
        if not given_outside and not private_asns(first, last):
            problems.append(
                Problem(
                    field,
                    (
                        f"the {last - first + 1:,} {role.replace('_', '-')} ASNs {first}-{last} leave the private ASN "
                        "ranges 64512-65534 (2-byte, 1,023 ASNs) and 4200000000-4294967294 (4-byte); start them in "
                        f"the 4-byte range, e.g. {4_200_000_000 + DEFAULT_OFFSET[role]}"
                    ),
                )
            )
    roles = list(ranges)
    for index, role in enumerate(roles):
        for other in roles[:index]:
            (first, last), (other_first, other_last) = ranges[role], ranges[other]
            if first <= other_last and other_first <= last:
                problems.append(
                    Problem(
                        ("routing", f"{role}_asn_start"),
                        (
                            f"{role.replace('_', '-')} ASNs {first}-{last} overlap the {other.replace('_', '-')} ASNs "
                            f"{other_first}-{other_last}; a leaf sharing a spine's ASN turns its sessions into iBGP"
                        ),
                    )
                )
    return problems

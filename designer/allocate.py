"""Allocate addresses and ASNs, deterministically, in link and device order.

* Switch link ``i`` gets the /31 at ``fabric_p2p + 2i``: the upper-tier end takes the even address,
  the lower end the odd one (RFC 3021).
* Leaf ``j`` (in wiring order) owns the aligned block ``server_p2p + j * block`` of ``server_p2p``,
  ``block`` being the power of two that holds a /31 for every server slot of a full scalable unit;
  the server in slot ``s`` gets the /31 at ``block start + 2s``, the leaf the even end, the NIC the
  odd one. A leaf's server subnets so form one prefix it can announce as a whole, and a partial
  scalable unit keeps its addresses when it fills up.
* Switch ``i`` gets the loopback /32 at ``loopbacks + i``.
* ASNs (RFC 7938): with ``rfc7938`` every leaf has its own ASN, the spines of a pod share one and
  the super-spines of a plane share one; with ``unique`` every switch has its own. Spines and
  super-spines follow the leaves unless the intent pins where their ASNs start.
"""

from __future__ import annotations

import math
import socket
import struct
from dataclasses import dataclass

from netaddr import IPNetwork

from designer.errors import InputError, Problem
from designer.fabric import Device, Fabric
from designer.intent import Intent
from designer.intent.schema import RoutingDoc, private_asns
from designer.sizing import Plan

PRIVATE_RANGES = (IPNetwork("10.0.0.0/8"), IPNetwork("172.16.0.0/12"), IPNetwork("192.168.0.0/16"))
"""RFC 1918 space, where a pool too small is offered a free prefix of the size it needs."""


@dataclass(frozen=True)
class Pool:
    """An IPv4 pool as integers: its first address and its size."""

    name: str
    cidr: str
    first: int
    size: int
    used: int

    def utilisation(self) -> float:
        return self.used / self.size


@dataclass(frozen=True)
class Allocation:
    """Every address and ASN of the fabric. Link addresses are computed, not stored."""

    server_p2p: Pool
    fabric_p2p: Pool
    loopback_pool: Pool
    server_block: int
    server_blocks: dict[int, int]
    """First address of each leaf's server block, by leaf device index."""
    server_evens: list[int]
    """The leaf-side (even) address of every server link, in link order."""
    loopbacks: list[int]
    asns: list[int]

    def link_addresses(self, link: int) -> tuple[int, int]:
        """The (upper, lower) addresses of link ``link``, as integers; they share one /31."""
        if link < len(self.server_evens):
            even = self.server_evens[link]
        else:
            even = self.fabric_p2p.first + 2 * (link - len(self.server_evens))
        return even, even + 1

    def server_subnet(self, leaf: int) -> str:
        """The prefix holding every server /31 of leaf device ``leaf``."""
        return f"{ip(self.server_blocks[leaf])}/{32 - self.server_block.bit_length() + 1}"

    def pools(self) -> list[Pool]:
        return [self.fabric_p2p, self.server_p2p, self.loopback_pool]


def ip(address: int) -> str:
    """Dotted-quad text of an integer IPv4 address."""
    return socket.inet_ntoa(struct.pack("!I", address))


def allocate(intent: Intent, fabric: Fabric) -> Allocation:
    """Allocate every /31, loopback and ASN, or raise :class:`InputError` naming the pool or range at fault."""
    problems = address_problems(intent, fabric.plan)
    if problems:
        raise InputError(problems, intent.source)
    needs = _needs(fabric.plan)
    server_pool, fabric_pool, loopback_pool = (_pool(name, cidr, needs[name][0]) for name, cidr in _pools(intent))
    leaves = [index for index, device in enumerate(fabric.switches()) if device.role == "leaf"]
    block = _server_block(fabric.plan)
    blocks = {leaf: server_pool.first + ordinal * block for ordinal, leaf in enumerate(leaves)}
    evens = [blocks[leaf] + 2 * slot for _, leaf, slot, _, _ in fabric.links[: fabric.server_link_count]]
    return Allocation(server_pool, fabric_pool, loopback_pool, block, blocks, evens,
                      [loopback_pool.first + index for index in range(fabric.switch_count)], _asns(intent, fabric))


def address_problems(intent: Intent, plan: Plan) -> list[Problem]:
    """The pools too small for what ``plan`` needs and the ASN ranges that leave the private ranges or
    overlap, from the counts alone (before anything is wired)."""
    needs = _needs(plan)
    pools = _pools(intent)
    short = {name for name, cidr in pools if needs[name][0] > IPNetwork(cidr).size}
    taken = [IPNetwork(cidr) for name, cidr in pools if name not in short]
    problems = []
    for name, cidr in pools:
        if name in short:
            needed, what = needs[name]
            prefix = 32 - math.ceil(math.log2(needed))
            free = _free_prefix(IPNetwork(cidr), prefix, taken)
            example = f", for example {free} (aligned and clear of the other pools)" if free else ""
            problems.append(Problem(("addressing", name), (
                f"{cidr} holds {IPNetwork(cidr).size:,} addresses but the {what} need {needed:,}; use a /{prefix} "
                f"or larger{example}")))
            taken.extend([free] if free else [])
    switches = plan.switch_counts()
    shared = intent.routing.asn_scheme == "rfc7938"
    keys = {"leaf": switches["leaf"],
            "spine": plan.planes * plan.pods if shared and switches["spine"] else switches["spine"],
            "super_spine": plan.planes if shared and switches["super_spine"] else switches["super_spine"]}
    problems.extend(_asn_range_problems(intent.routing, _asn_ranges(intent.routing, keys)))
    return problems


def _pools(intent: Intent) -> list[tuple[str, str]]:
    """The pools in allocation order: server links, switch links, loopbacks."""
    addressing = intent.addressing
    return [("server_p2p", addressing.server_p2p), ("fabric_p2p", addressing.fabric_p2p),
            ("loopbacks", addressing.loopbacks)]


def _server_block(plan: Plan) -> int:
    """Addresses of each leaf's server block: a power of two with a /31 per server slot of a full SU."""
    return 1 << math.ceil(math.log2(2 * plan.servers_per_su))


def _needs(plan: Plan) -> dict[str, tuple[int, str]]:
    """Addresses each pool must hold for ``plan``, and what they are for."""
    block = _server_block(plan)
    links = plan.link_counts()
    return {
        "server_p2p": (block * plan.switch_counts()["leaf"],
                       f"leaf-to-NIC /31s (a block of {block} addresses per leaf)"),
        "fabric_p2p": (2 * (links["leaf_spine"] + links["spine_super_spine"]), "switch-to-switch /31s"),
        "loopbacks": (sum(plan.switch_counts().values()), "switch loopbacks"),
    }


def _pool(name: str, cidr: str, used: int) -> Pool:
    network = IPNetwork(cidr)
    return Pool(name, cidr, int(network.first), network.size, used)


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


def _asns(intent: Intent, fabric: Fabric) -> list[int]:
    """One ASN per switch, in device order, following the intent's scheme."""
    shared = intent.routing.asn_scheme == "rfc7938"
    device_keys = [(device.role, _asn_key(index, device, shared)) for index, device in enumerate(fabric.switches())]
    keys = {role: list(dict.fromkeys(key for owner, key in device_keys if owner == role))
            for role in ("leaf", "spine", "super_spine")}
    starts = {role: first for role, (first, _) in _asn_ranges(intent.routing,
                                                               {role: len(keys[role]) for role in keys}).items()}
    numbers = {(role, key): starts[role] + offset for role, role_keys in keys.items()
               for offset, key in enumerate(role_keys)}
    return [numbers[device_key] for device_key in device_keys]


def _asn_ranges(routing: RoutingDoc, counts: dict[str, int]) -> dict[str, tuple[int, int]]:
    """First and last ASN of each role with switches; spines and super-spines follow the tier below unless
    pinned."""
    starts = {"leaf": routing.leaf_asn_start}
    starts["spine"] = routing.spine_asn_start or starts["leaf"] + counts["leaf"]
    starts["super_spine"] = routing.super_spine_asn_start or starts["spine"] + counts["spine"]
    return {role: (starts[role], starts[role] + counts[role] - 1) for role in starts if counts[role]}


def _asn_key(index: int, device: Device, shared: bool) -> tuple[int, ...]:
    """Switches with the same key share an ASN: a pod's spines, a plane's super-spines (rfc7938)."""
    if shared and device.role == "spine":
        return (device.plane, device.pod)
    if shared and device.role == "super_spine":
        return (device.plane,)
    return (index,)


def _asn_range_problems(routing: RoutingDoc, ranges: dict[str, tuple[int, int]]) -> list[Problem]:
    """Ranges that leave the private ASN ranges or overlap; a start the intent gives outside them is the
    intent's own problem, reported when it is loaded."""
    problems = []
    for role, (first, last) in ranges.items():
        field = ("routing", f"{role}_asn_start")
        given_outside = getattr(routing, field[1]) is not None and not private_asns(first)
        if not given_outside and not private_asns(first, last):
            problems.append(Problem(field, (
                f"the {last - first + 1:,} {role.replace('_', '-')} ASNs {first}-{last} leave the private ASN "
                "ranges 64512-65534 (2-byte, 1,023 ASNs) and 4200000000-4294967294 (4-byte); start them in "
                "the 4-byte range, e.g. 4200000000")))
    roles = list(ranges)
    for index, role in enumerate(roles):
        for other in roles[:index]:
            (first, last), (other_first, other_last) = ranges[role], ranges[other]
            if first <= other_last and other_first <= last:
                problems.append(Problem(("routing", f"{role}_asn_start"), (
                    f"{role.replace('_', '-')} ASNs {first}-{last} overlap the {other.replace('_', '-')} ASNs "
                    f"{other_first}-{other_last}; a leaf sharing a spine's ASN turns its sessions into iBGP")))
    return problems

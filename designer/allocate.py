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
from designer.intent.schema import private_asns


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
    problems: list[Problem] = []
    leaves = [index for index, device in enumerate(fabric.switches()) if device.role == "leaf"]
    block = 1 << math.ceil(math.log2(2 * fabric.plan.servers_per_su))
    fabric_links = len(fabric.links) - fabric.server_link_count
    server_pool = _pool("server_p2p", intent.addressing.server_p2p, block * len(leaves),
                        f"leaf-to-NIC /31s (a block of {block} addresses per leaf)", problems)
    fabric_pool = _pool("fabric_p2p", intent.addressing.fabric_p2p, 2 * fabric_links,
                        "switch-to-switch /31s", problems)
    loopback_pool = _pool("loopbacks", intent.addressing.loopbacks, fabric.switch_count, "switch loopbacks",
                          problems)
    asns = _asns(intent, fabric, problems)
    if problems:
        raise InputError(problems, intent.source)
    blocks = {leaf: server_pool.first + ordinal * block for ordinal, leaf in enumerate(leaves)}
    evens = [blocks[leaf] + 2 * slot for _, leaf, slot, _, _ in fabric.links[: fabric.server_link_count]]
    return Allocation(server_pool, fabric_pool, loopback_pool, block, blocks, evens,
                      [loopback_pool.first + index for index in range(fabric.switch_count)], asns)


def _pool(name: str, cidr: str, needed: int, what: str, problems: list[Problem]) -> Pool:
    network = IPNetwork(cidr)
    if needed > network.size:
        prefix = 32 - max(0, math.ceil(math.log2(needed)))
        problems.append(Problem(("addressing", name), (
            f"{cidr} holds {network.size:,} addresses but the {what} need {needed:,}; use a /{prefix} "
            "or larger")))
    return Pool(name, cidr, int(network.first), network.size, needed)


def _asns(intent: Intent, fabric: Fabric, problems: list[Problem]) -> list[int]:
    """One ASN per switch, in device order, following the intent's scheme."""
    routing = intent.routing
    shared = routing.asn_scheme == "rfc7938"
    device_keys = [(device.role, _asn_key(index, device, shared)) for index, device in enumerate(fabric.switches())]
    keys = {role: list(dict.fromkeys(key for owner, key in device_keys if owner == role))
            for role in ("leaf", "spine", "super_spine")}
    starts = {"leaf": routing.leaf_asn_start}
    starts["spine"] = routing.spine_asn_start or starts["leaf"] + len(keys["leaf"])
    starts["super_spine"] = routing.super_spine_asn_start or starts["spine"] + len(keys["spine"])
    ranges = {role: (starts[role], starts[role] + len(keys[role]) - 1) for role in keys if keys[role]}
    problems.extend(_asn_range_problems(ranges))
    numbers = {(role, key): starts[role] + offset for role, role_keys in keys.items()
               for offset, key in enumerate(role_keys)}
    return [numbers[device_key] for device_key in device_keys]


def _asn_key(index: int, device: Device, shared: bool) -> tuple[int, ...]:
    """Switches with the same key share an ASN: a pod's spines, a plane's super-spines (rfc7938)."""
    if shared and device.role == "spine":
        return (device.plane, device.pod)
    if shared and device.role == "super_spine":
        return (device.plane,)
    return (index,)


def _asn_range_problems(ranges: dict[str, tuple[int, int]]) -> list[Problem]:
    problems = []
    for role, (first, last) in ranges.items():
        field = ("routing", f"{role}_asn_start")
        if not private_asns(first, last):
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

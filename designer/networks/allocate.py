"""Allocate one leaf-spine network's addresses and ASNs from structural numbers, beside the backend's.

With ``L`` leaves in the network's envelope (border leaves, then every server group's, then the storage groups',
each leaf's number as in :mod:`designer.networks.wiring`), ``U`` uplinks per leaf and ``S`` spines:

* Server /31s: leaf ``n`` owns the aligned block ``server_p2p + n*block`` (``block`` the power of two holding a /31
  per downlink of the leaf); downlink ``p`` is the /31 at ``block start + 2p``, the leaf the even end.
* Leaf-spine /31s: uplink ``u`` of leaf ``n`` at ``fabric_p2p + 2*(n*U + u)``, the spine the even end.
* Core uplink /31s (a frontend with ``core``): uplink ``u`` of border leaf ``n`` takes the /31 at ``block start +
  2u`` of the border leaf's own server block (sized for its core-facing ports), the core the even end (the upper
  end, as a spine's), the border leaf the odd one.
* Loopbacks: leaf ``loopbacks + n``, spine ``j`` at ``loopbacks + L + j``; with dual-homing (BGP from the host)
  GPU server ``k`` of the envelope at ``loopbacks + L + S + k``, the address it announces over both links.
* ASNs (RFC 7938): leaf ``leaf_asn_start + n``; the spines share ``leaf_asn_start + 1,000,000``; a dual-homed GPU
  server ``k`` has ``leaf_asn_start + 1,500,000 + k`` (below the next network's default range). Unless the intent
  pins it, a network's ``leaf_asn_start`` lies above every backend range: the backend's ``leaf_asn_start`` plus
  3, 5 or 7 million for the frontend, storage and in-band networks.
* Pools the intent leaves out take the lowest free aligned blocks of 10.0.0.0/8 beside every pool laid out before
  (the backend's, then the networks' in order), as large as the envelope needs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from netaddr import IPNetwork

from designer.backend.allocate import POOLS, Pool, default_pools, ip
from designer.backend.wiring import SERVER_LEAF
from designer.errors import InputError, Problem
from designer.intent.fields import private_asns
from designer.intent.networks_section import DataNetworkSpec
from designer.networks.wiring import NetworkFabric, ordinal

SPINE_ASN_OFFSET = 1_000_000
SERVER_ASN_OFFSET = 1_500_000
NETWORK_ASN_OFFSET = {"frontend": 3_000_000, "storage": 5_000_000, "inband": 7_000_000}
"""Where a network's default leaf ASNs start above the backend's ``leaf_asn_start``: past its super-spines'."""


@dataclass(frozen=True)
class NetworkAllocation:
    """Every address and ASN of one network, by device and link index."""

    pools: tuple[Pool, ...]
    """fabric_p2p, server_p2p, loopbacks."""
    server_block: int
    evens: list[int]
    """The upper-end (even) address of every link, in link order."""
    loopbacks: list[int]
    """Every switch's loopback, in device order."""
    asns: list[int]
    """Every switch's ASN, in device order."""
    leaf_asn_start: int
    server_loopbacks: int
    """Where the GPU servers' loopbacks start (a dual-homed network's: each server's at this plus its number)."""
    server_blocks: list[int]
    """The first address of every switch's server block, in device order (a spine's is unused)."""

    def host_asn(self, number: int) -> int:
        """The ASN of GPU server ``number`` (:func:`~designer.networks.wiring.server_number`) where it runs BGP."""
        return self.leaf_asn_start + SERVER_ASN_OFFSET + number

    def core_uplink(self, switch: int, uplink: int) -> int:
        """The core's (even) end of core uplink ``uplink`` of switch ``switch`` (a border leaf); the leaf's is the
        next address."""
        return self.server_blocks[switch] + 2 * uplink

    def asn_span(self, max_servers: int) -> tuple[int, int]:
        """The first and last ASN the network's envelope may use: its leaves', spines' and servers'."""
        return self.leaf_asn_start, self.leaf_asn_start + SERVER_ASN_OFFSET + max_servers

    def server_subnet(self, switch: int) -> str:
        """The prefix holding every server /31 of switch ``switch`` (a leaf)."""
        return f"{ip(self.server_blocks[switch])}/{33 - self.server_block.bit_length()}"


def needed(fabric: NetworkFabric, max_servers: int) -> tuple[dict[str, int], int]:
    """Addresses each pool of the network needs for its envelope of ``max_servers`` GPU servers, and the server block
    of one leaf."""
    plan = fabric.plan
    widest = max(plan.leaf_downlinks, plan.storage_downlinks, plan.core_downlinks, 1)
    block = 1 << math.ceil(math.log2(2 * widest))
    leaves = plan.envelope_leaves
    return {
        "fabric_p2p": 2 * leaves * plan.leaf_uplinks,
        "server_p2p": leaves * block,
        "loopbacks": leaves + plan.spines + (max_servers if plan.leaves_per_group > 1 else 0),
    }, block


def allocate_network(
    spec: DataNetworkSpec, fabric: NetworkFabric, taken: Sequence[Pool], backend_leaf_asn: int, max_servers: int
) -> NetworkAllocation:
    """Every /31, loopback and ASN of the network; its default pools clear of ``taken`` (every pool laid out before
    it). :class:`InputError` names a pool too small or an ASN range out of the private ones."""
    need, block = needed(fabric, max_servers)
    pools, problems = _pools(spec, need, taken)
    leaf_start = spec.leaf_asn_start or backend_leaf_asn + NETWORK_ASN_OFFSET[spec.name]
    last = leaf_start + SERVER_ASN_OFFSET + max_servers
    if not private_asns(leaf_start, last):
        problems.append(
            Problem(
                ("networks", spec.name, "leaf_asn_start"),
                f"its ASNs {leaf_start}-{last} leave the private ranges; start them at 4200000000 or above, at most "
                f"{4_294_967_294 - SERVER_ASN_OFFSET - max_servers}",
            )
        )
    if problems:
        raise InputError(problems)
    fabric_pool, server_pool, loopback_pool = pools
    switches = fabric.switches()
    plan = fabric.plan
    ordinals = [ordinal(plan, device) for device in switches]
    server_blocks = [server_pool.first + number * block for number in ordinals]
    evens = []
    for tier, upper, upper_port, lower, lower_port in fabric.links:
        if tier == SERVER_LEAF:
            evens.append(server_blocks[upper] + 2 * upper_port)
        else:
            uplink = lower_port - switches[lower].downlinks
            evens.append(fabric_pool.first + 2 * (ordinals[lower] * plan.leaf_uplinks + uplink))
    loopbacks = [
        loopback_pool.first + number + (plan.envelope_leaves if device.role == "spine" else 0)
        for device, number in zip(switches, ordinals, strict=True)
    ]
    asns = [
        leaf_start + (SPINE_ASN_OFFSET if device.role == "spine" else number)
        for device, number in zip(switches, ordinals, strict=True)
    ]
    used = {
        "fabric_p2p": 2 * (len(fabric.links) - fabric.server_link_count),
        "server_p2p": block * sum(device.role != "spine" for device in switches),
        "loopbacks": len(switches),
    }
    return NetworkAllocation(
        tuple(Pool(**{**vars(pool), "used": used[pool.name]}) for pool in pools),
        block,
        evens,
        loopbacks,
        asns,
        leaf_start,
        loopback_pool.first + plan.envelope_leaves + plan.spines,
        server_blocks,
    )


def _pools(spec: DataNetworkSpec, need: dict[str, int], taken: Sequence[Pool]) -> tuple[list[Pool], list[Problem]]:
    """The network's pools in :data:`POOLS` order, each the one given or laid out clear of the given and ``taken``
    ones, sized for the envelope's ``need``; and the problems of a given pool too small or a default that finds no
    free block."""
    path = ("networks", spec.name)
    given = {name: IPNetwork(cidr) for name in POOLS if (cidr := getattr(spec.pools, name)) is not None}
    problems = [
        Problem(
            (*path, "addressing", name),
            f"{network} holds {network.size:,} addresses but the network's envelope needs {need[name]:,}; use a "
            f"/{32 - math.ceil(math.log2(need[name]))} or larger",
        )
        for name, network in given.items()
        if need[name] > network.size
    ]
    blocks = {name: (int(network.first), network.size) for name, network in given.items()}
    blocks.update({f"taken {index}": (pool.first, pool.size) for index, pool in enumerate(taken)})
    laid_out = default_pools(need, blocks)
    pools = []
    for name in POOLS:
        first, size = (int(given[name].first), given[name].size) if name in given else laid_out.get(name, (0, 0))
        if not size:
            problems.append(
                Problem((*path, "addressing"), f"no free block of 10.0.0.0/8 holds its {name}; give addressing.{name}")
            )
        pools.append(Pool(name, f"{ip(first)}/{33 - size.bit_length()}", first, size, 0, need[name], name in given))
    return pools, problems


def overlapping(pools: Sequence[tuple[str, Pool]]) -> list[tuple[str, Pool, str, Pool]]:
    """Every two pools, each with its network's name, that share an address: none in a sound design."""
    return [
        (network, pool, other_network, other)
        for index, (network, pool) in enumerate(pools)
        for other_network, other in pools[:index]
        if pool.first < other.first + other.size and other.first < pool.first + pool.size
    ]

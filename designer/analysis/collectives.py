"""Collectives in closed form: how many bytes a job's NICs move, the ideal time, algorithm and bus bandwidth.

Definitions are nccl-tests' (``doc/PERFORMANCE.md``, NVIDIA/nccl-tests ``a0b82b2``): ``bytes`` is the per-rank
buffer (for AllGather the gathered output), ``algbw = bytes / time`` and ``busbw = algbw x factor`` with
``2(n-1)/n`` for AllReduce and ``(n-1)/n`` for AllGather, ReduceScatter and AllToAll (``n`` ranks = GPUs).
GB/s are 10^9 bytes per second.

The ideal time is hierarchical, the way NCCL runs a job on a rail-optimized fabric: inside an NVLink domain (a
server, or a whole rack-scale system such as an NVL72: every "server" below is one domain, with all its GPUs and
NICs) the GPUs reduce-scatter and all-gather over NVLink; across domains each NIC (one rail) runs its own ring (or
double binary tree) carrying ``1/nics`` of the data, all rails in parallel, and PXN moves AllToAll data to the NIC of
the destination's rail over NVLink first, so no byte changes rail in the fabric. With ``N`` servers of ``g``
GPUs, each NIC sends per collective

* AllReduce ring: ``2(N-1)/N x bytes / nics``; AllGather, ReduceScatter: ``(N-1)/N x bytes / nics``;
* AllToAll: ``g x bytes / N / nics`` to each of the other ``N-1`` servers;
* AllReduce tree: half the data on each of NCCL's two trees, up (reduce) and down (broadcast) every edge;

at the NIC's line rate times :data:`NIC_EFFICIENCY` (a 400G NIC moves 46-48 GB/s in nccl-tests; 96% is the top
of that). NVLink moves ``2(g-1)/g x bytes`` per GPU for AllReduce, ``(g-1)/g x bytes`` otherwise, pipelined with
the network: the slower of the two sets the bandwidth term. Then the latency of NCCL's own tuning model is
added (``src/graph/tuning.cc`` of NVIDIA/nccl ``5067397c`` = 2.30.7, Simple protocol, the one NCCL picks for
the large buffers of a training step):

* ring: ``base + (steps - netSteps) x nvlinkLat + netSteps x netLat`` with ``steps = 2(n-1)`` and
  ``netSteps = 2(N-1)`` for AllReduce (``n-1`` and ``N-1`` otherwise), x1.4 for a multi-node AllReduce;
* tree (AllReduce): ``base + 2((g-1) x nvlinkLat + log2(N) x netLat)``.

AllToAll has no entry in NCCL's model (it is point-to-point); it takes the ring's AllGather latency.
"""

from __future__ import annotations

from dataclasses import dataclass

COLLECTIVES = ("allreduce", "allgather", "reducescatter", "alltoall")
NIC_EFFICIENCY = 0.96
"""Share of a NIC's line rate a collective reaches (48 GB/s of a 400G NIC, as nccl-tests reports on H100)."""
NVLINK_EFFICIENCY = 0.8
"""Share of the NVLink bandwidth a ring reaches inside a server (about 360 GB/s busbw on 8 H100)."""
TREE_BANDWIDTH = 0.92
"""NCCL's tuning model gives a tree AllReduce 92% of the ring's bus bandwidth (``busBw * 0.92``)."""

# NCCL 2.30.7 src/graph/tuning.cc, Simple protocol, microseconds (tests/vendor/nccl/tuning-constants.json).
BASE_LATENCY_US = {"ring": 8.4, "tree": 8.4}
NVLINK_LATENCY_US = {"ring": 3.4, "tree": 4.0}
NET_LATENCY_US = {"ring": 14.0, "tree": 14.0}
NET_OVERHEAD_US = 1.0 * 3
"""Per inter-node ring step: 1 us on x86 (Intel) and other CPUs, x3 for the Simple protocol."""
RING_ALLREDUCE_PLATEAU = 1.4
"""Multi-node ring Simple AllReduce latency factor from compute capability 8.0 on (1.9 before)."""


def busbw_factor(collective: str, ranks: int) -> float:
    """nccl-tests' bus bandwidth factor: busbw = algbw x this."""
    if ranks < 2:
        return 0.0
    return 2 * (ranks - 1) / ranks if collective == "allreduce" else (ranks - 1) / ranks


@dataclass(frozen=True)
class Ideal:
    """One collective on an ideal fabric: every NIC at its effective rate, no flow colliding with another."""

    algorithm: str
    """``ring`` or ``tree`` (``auto`` resolved to the faster one, as NCCL's tuner does)."""
    network_s: float
    """Time the busiest NIC needs to send its bytes at the effective rate."""
    nvlink_s: float
    latency_s: float
    time_s: float
    algbw_gbyte_s: float
    busbw_gbyte_s: float


def nic_gbyte_s(nic_speed_gbps: int) -> float:
    """What one NIC moves in a collective, GB/s."""
    return nic_speed_gbps / 8 * NIC_EFFICIENCY


def nvlink_gbyte_s(line_gbyte_s: float) -> float:
    """What one GPU moves over NVLink in a collective, GB/s, from its NVLink bandwidth per direction (the catalog's
    ``nvlink_gbyte_s`` of the server or system)."""
    return line_gbyte_s * NVLINK_EFFICIENCY


def nic_bytes(collective: str, algorithm: str, size: int, servers: int, gpus_per_server: int, nics: int) -> float:
    """Bytes the busiest NIC sends (and receives) in one collective of ``size`` bytes."""
    if servers < 2:
        return 0.0
    if collective == "allreduce" and algorithm == "tree":
        return max(tree_sends(servers)) * size / 2 / nics
    if collective == "allreduce":
        return 2 * (servers - 1) / servers * size / nics
    if collective == "alltoall":
        return gpus_per_server * size * (servers - 1) / servers / nics
    return (servers - 1) / servers * size / nics


def ideal(
    collective: str,
    algorithm: str,
    size: int,
    servers: int,
    gpus_per_server: int,
    nics: int,
    nic_speed_gbps: int,
    nvlink_line_gbyte_s: float,
) -> Ideal:
    """The ideal time of one collective; ``algorithm`` ``auto`` takes the faster of ring and tree (AllReduce)."""
    if algorithm == "auto":
        options = [
            ideal(collective, name, size, servers, gpus_per_server, nics, nic_speed_gbps, nvlink_line_gbyte_s)
            for name in (("ring", "tree") if collective == "allreduce" else ("ring",))
        ]
        return min(options, key=lambda option: option.time_s)
    ranks = servers * gpus_per_server
    rate = nic_gbyte_s(nic_speed_gbps) * (TREE_BANDWIDTH if algorithm == "tree" else 1)
    network = nic_bytes(collective, algorithm, size, servers, gpus_per_server, nics) / (rate * 1e9)
    inside = (2 if collective == "allreduce" else 1) * (gpus_per_server - 1) / gpus_per_server
    nvlink = inside * size / (nvlink_gbyte_s(nvlink_line_gbyte_s) * 1e9)
    latency = latency_us(collective, algorithm, servers, gpus_per_server) / 1e6
    time = max(network, nvlink) + latency
    algbw = size / time / 1e9
    return Ideal(algorithm, network, nvlink, latency, time, algbw, algbw * busbw_factor(collective, ranks))


def latency_us(collective: str, algorithm: str, servers: int, gpus_per_server: int) -> float:
    """NCCL's latency of one collective (Simple protocol), microseconds."""
    ranks = servers * gpus_per_server
    if algorithm == "tree":
        return BASE_LATENCY_US["tree"] + 2 * (
            (gpus_per_server - 1) * NVLINK_LATENCY_US["tree"] + (servers.bit_length() - 1) * NET_LATENCY_US["tree"]
        )
    twice = 2 if collective == "allreduce" else 1
    steps, net_steps = twice * (ranks - 1), twice * (servers - 1)
    intra = max(NVLINK_LATENCY_US["ring"], NET_OVERHEAD_US) if servers > 1 else NVLINK_LATENCY_US["ring"]
    latency = BASE_LATENCY_US["ring"] + (steps - net_steps) * intra + net_steps * NET_LATENCY_US["ring"]
    return latency * (RING_ALLREDUCE_PLATEAU if collective == "allreduce" and servers > 1 else 1)


def ring_edges(servers: int) -> list[tuple[int, int]]:
    """A ring over positions ``0..servers-1``: each sends to the next, the last to the first."""
    return [(k, (k + 1) % servers) for k in range(servers)] if servers > 1 else []


def tree_parent(rank: int, ranks: int) -> int:
    """The parent of ``rank`` in NCCL's binary tree over ``ranks`` nodes (``src/graph/trees.cc``), -1 for the root.

    The parent clears the lowest set bit of the rank and sets the next one up, or only clears it when that
    would leave the tree."""
    if rank == 0:
        return -1
    bit = rank & -rank
    parent = (rank ^ bit) | (bit << 1)
    return parent if parent < ranks else rank ^ bit


def tree_edges(servers: int) -> list[tuple[int, int]]:
    """Child-to-parent edges of NCCL's two trees (the second mirrors the first for an even count of nodes and
    shifts it by one for an odd count), first tree first."""
    first = [(rank, tree_parent(rank, servers)) for rank in range(1, servers)]
    if servers % 2:
        second = [((child + 1) % servers, (parent + 1) % servers) for child, parent in first]
    else:
        second = [(servers - 1 - child, servers - 1 - parent) for child, parent in first]
    return first + second


def tree_sends(servers: int) -> list[int]:
    """Half-buffers each node sends over both trees: one to its parent and one to each child, per tree."""
    sends = [0] * servers
    for child, parent in tree_edges(servers):
        sends[child] += 1
        sends[parent] += 1
    return sends


def pattern(collective: str, algorithm: str, servers: int) -> list[tuple[int, int]]:
    """Which job position sends to which, once per rail and channel: ring edges, both directions of every tree
    edge, or every ordered pair (AllToAll)."""
    if collective == "alltoall":
        return [(a, b) for a in range(servers) for b in range(servers) if a != b]
    if collective == "allreduce" and algorithm == "tree":
        return [edge for child, parent in tree_edges(servers) for edge in ((child, parent), (parent, child))]
    return ring_edges(servers)


def per_connection_bytes(
    collective: str, algorithm: str, size: int, servers: int, gpus_per_server: int, nics: int
) -> float:
    """Bytes one connection of :func:`pattern` carries in one collective (all its channels and QPs together)."""
    if servers < 2:
        return 0.0
    if collective == "allreduce" and algorithm == "tree":
        return size / 2 / nics
    if collective == "alltoall":
        return gpus_per_server * size / servers / nics
    return nic_bytes(collective, algorithm, size, servers, gpus_per_server, nics)

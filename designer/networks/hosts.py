"""Every GPU server's side of the networks beside the backend: its ports in each network with their /31s, the
routes it needs and, where the network is dual-homed with ``bgp``, the BGP it runs from the host (routing on the
host: a session to each leaf of its pair, announcing its own loopback, ECMP over both links).

A server's port ``k`` in a network is named ``fe<k>``, ``st<k>`` or ``ib<k>`` (the network's prefix). Without BGP
routes go via each port's leaf, metric ``100 + k``: the frontend's default route, the storage and in-band
networks' server /31 pool (the storage servers' addresses among them).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from designer.backend.allocate import ip
from designer.backend.wiring import Device
from designer.networks.cluster import ClusterNetworks, DataNetwork
from designer.networks.wiring import server_number

HOST_MAXIMUM_PATHS = 8
"""Equal-cost paths the host's BGP installs: at least one per leaf of its group."""


@dataclass(frozen=True)
class HostPort:
    """One port of a server in a network: its name, /31 address, the leaf's address, where it plugs in and the
    prefixes routed via its leaf with their metric (each port its own, so two ports may route one prefix)."""

    network: str
    name: str
    address: str
    gateway: str
    leaf: str
    leaf_port: str
    routes: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True)
class HostNeighbor:
    """A BGP session of the host: the leaf's address and ASN, and the leaf's name."""

    address: str
    remote_asn: int
    description: str


@dataclass(frozen=True)
class HostBgp:
    """The host's BGP in a dual-homed network: its ASN, loopback (the router ID and the prefix it announces) and a
    session to each leaf."""

    network: str
    asn: int
    loopback: str
    neighbors: tuple[HostNeighbor, ...]
    maximum_paths: int = HOST_MAXIMUM_PATHS


@dataclass(frozen=True)
class NetworkHost:
    """One GPU server's ports and BGP in every network beside the backend."""

    hostname: str
    ports: tuple[HostPort, ...]
    bgp: HostBgp | None


def host_asn_and_loopback(network: DataNetwork, server: Device) -> tuple[int, str]:
    """A GPU server's ASN and loopback in a network dual-homed with ``bgp``, from its number among the servers of
    the envelope (its group's first server number plus its slot)."""
    number = server_number(network.fabric.plan, server)
    allocation = network.allocation
    return allocation.host_asn(number), ip(allocation.server_loopbacks + number)


def network_hosts(networks: ClusterNetworks, first: int = 0, step: int = 1) -> Iterator[NetworkHost]:
    """Every ``step``-th GPU server's side of the networks from the ``first``, in the backend's server order (a
    rendering worker makes only its own servers'): each server's links are found by its number
    (:meth:`~designer.networks.wiring.NetworkFabric.server_links`), not by walking every link."""
    if not networks.data:
        return
    for number in range(first, networks.data[0].fabric.plan.servers, step):
        ports: list[HostPort] = []
        bgp: HostBgp | None = None
        for data in networks.data:
            fabric, allocation, spec = data.fabric, data.allocation, data.spec
            devices = fabric.devices
            server = devices[fabric.switch_count + number]
            neighbors: list[HostNeighbor] = []
            for link in fabric.server_links(number):
                _, leaf, leaf_port, _, port = fabric.links[link]
                even = allocation.evens[link]
                if spec.dual_homing == "bgp":
                    neighbors.append(HostNeighbor(ip(even), allocation.asns[leaf], devices[leaf].name))
                    routed: tuple[tuple[str, int], ...] = ()
                elif spec.name == "frontend":
                    routed = (("0.0.0.0/0", 100 + port),)
                else:
                    routed = tuple((pool.cidr, 100 + port) for pool in allocation.pools if pool.name == "server_p2p")
                ports.append(
                    HostPort(
                        spec.name,
                        fabric.port_name(server, port),
                        f"{ip(even + 1)}/31",
                        ip(even),
                        devices[leaf].name,
                        devices[leaf].port_name(leaf_port),
                        routed,
                    )
                )
            if neighbors:
                asn, loopback = host_asn_and_loopback(data, server)
                bgp = HostBgp(spec.name, asn, loopback, tuple(neighbors))
        yield NetworkHost(server.name, tuple(ports), bgp)

"""Model the switches of the leaf-spine networks beside the backend with the backend's device model
(:func:`designer.backend.model.switch_configs`), each network from its own spec, wiring and addresses.

* Each network's switches take the backend's routing (``routing``: numbered /31s or unnumbered, BFD, timers, how
  server subnets are announced) and its hash fields and seeds, but plain ECMP hashing: adaptive, cluster and spray
  load balancing are the backend's RoCE traffic's. Their ports run their own switches' speeds, their addresses
  and ASNs are the network's (:mod:`designer.networks.allocate`).
* A leaf of a network dual-homed with ``bgp`` peers with each GPU server on each of its links, the server's ASN
  as the server's own FRR configuration has it (:mod:`designer.networks.hosts`); storage servers do not run BGP.
  A spine reaches such a server's loopback through every link to every leaf of its group at one AS-path length, so
  its ECMP width is at least the group's leaves times its links to each (the backend's rule counts only its links
  down to one switch).
* A lossless network (``storage.lossless``) runs the backend's RoCE QoS on its switches, every port's headroom
  sized for its cable; any other runs none.
* A frontend with ``core`` has each border leaf peer with the data-centre core on every core uplink, the leaf the
  odd end of the uplink's /31 (:mod:`designer.networks.allocate`); it takes the default route and announces the
  network's pools.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from designer.backend.allocate import ip, ips
from designer.backend.model import Addressing, CorePeer, DeviceConfig, SwitchSettings, Wiring, switch_configs
from designer.backend.wiring import Device
from designer.intent.networks_section import DataNetworkSpec
from designer.networks.cluster import ClusterNetworks, DataNetwork
from designer.networks.wiring import server_number

LEAF_ROLES = ("leaf", "border_leaf", "storage_leaf")
"""Every role of a network's leaves; their ports run the leaf's speed."""


def network_switch_configs(networks: ClusterNetworks, backend: SwitchSettings) -> list[DeviceConfig]:
    """Every switch model of every leaf-spine network, network by network in device order; ``backend`` is the
    backend's :class:`SwitchSettings`, whose routing, QoS profile, catalog and targets they share."""
    configs = []
    for network in networks.data:
        cable_dm = [cable.length_dm for cable in networks.physical.cables if cable.network == network.spec.name]
        configs.extend(data_network_configs(network, backend, cable_dm))
    return configs


def data_network_configs(network: DataNetwork, backend: SwitchSettings, cable_dm: Sequence[int]) -> list[DeviceConfig]:
    """The switch models of one network, in device order; ``cable_dm`` is every link's cable length in link order."""
    fabric = network.fabric
    names = [tuple(fabric.port_name(device, port) for port in range(device.ports)) for device in fabric.devices]
    addressing = _addressing(network, cable_dm)
    wiring = Wiring(fabric.devices, fabric.links, fabric.switch_count, names)
    configs = switch_configs(_settings(network.spec, backend), wiring, addressing, cable_dm)
    if not addressing.server_asns:
        return configs
    paths = fabric.plan.leaves_per_group * fabric.plan.leaf_spine_parallel
    return [
        dataclasses.replace(
            config, bgp=dataclasses.replace(config.bgp, maximum_paths=max(config.bgp.maximum_paths, paths))
        )
        if config.role == "spine"
        else config
        for config in configs
    ]


def _settings(spec: DataNetworkSpec, backend: SwitchSettings) -> SwitchSettings:
    """The network's :class:`SwitchSettings`: the backend's, lossless or not as the network says, ECMP hashing, no
    SONiC SKU asked for, its leaves' and spines' port speeds."""
    speeds = {**dict.fromkeys(LEAF_ROLES, spec.leaf.speed), "spine": spec.spine.speed}

    def link_speed(_tier: int, upper: Device) -> int:
        """A link's speed: the upper switch's port speed over the lanes of its port (a broken-out server port)."""
        return speeds[upper.role] // upper.breakout

    return dataclasses.replace(
        backend,
        lossless=spec.lossless,
        load_balancing=dataclasses.replace(backend.load_balancing, mode="ecmp"),
        hwsku=None,
        port_speeds=speeds,
        link_speed=link_speed,
    )


def _addressing(network: DataNetwork, cable_dm: Sequence[int]) -> Addressing:
    """The network's :class:`Addressing`: its /31s, loopbacks, ASNs and pools, the ASNs of the servers that run BGP
    (dual-homed with ``bgp``) and the border leaves' core sessions (their cables after the links' in ``cable_dm``)."""
    spec, fabric, allocation = network.spec, network.fabric, network.allocation
    server_asns = (
        {
            index: allocation.host_asn(server_number(fabric.plan, device))
            for index, device in enumerate(fabric.devices)
            if device.role == "server"
        }
        if spec.dual_homing == "bgp"
        else {}
    )
    core_cables = iter(cable_dm[len(fabric.links) :])
    core_peers: dict[int, list[CorePeer]] = {}
    for number, port, even in network.core_uplinks():
        core_peers.setdefault(number, []).append(
            CorePeer(
                port,
                ip(even + 1),
                ip(even),
                spec.core_asn or 0,
                f"uplink{port}",
                spec.core_uplink_speed,
                max(1, -(-next(core_cables) // 10)),
            )
        )
    pools = {pool.name: pool.cidr for pool in allocation.pools}
    return Addressing(
        ips(allocation.evens),
        ips(even + 1 for even in allocation.evens),
        ips(allocation.loopbacks),
        allocation.asns,
        pools["loopbacks"],
        pools["server_p2p"],
        allocation.server_subnet,
        server_asns,
        core_peers,
    )

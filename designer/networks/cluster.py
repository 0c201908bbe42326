"""Run the networks beside the backend through their stages, each from its own spec: size, wire and allocate every
leaf-spine network (its pools beside those laid out before it), then place and cable them all with the
out-of-band network in the backend's hall."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from designer.backend.allocate import Pool
from designer.backend.physical import TopKept
from designer.backend.physical.placement import servers_per_rack
from designer.errors import InputError, Problem
from designer.intent import Intent
from designer.intent.facility import Facility
from designer.intent.networks_section import DataNetworkSpec, Networks
from designer.networks.allocate import NETWORK_ASN_OFFSET, NetworkAllocation, allocate_network
from designer.networks.physical import Hall, NetworksPhysical, management_space, plan_networks_physical
from designer.networks.sizing import size_network
from designer.networks.wiring import NetworkFabric, wire_network


@dataclass(frozen=True)
class DataNetwork:
    """One leaf-spine network beside the backend through its stages."""

    spec: DataNetworkSpec
    fabric: NetworkFabric
    allocation: NetworkAllocation

    def core_uplinks(self) -> Iterator[tuple[int, int, int]]:
        """Every core uplink of the border leaves that peers with the data-centre core (a frontend with ``core``), in
        cabling order: the border leaf's device index, its port (the uplink's number) and the core's even end of the
        /31."""
        if self.spec.core_asn is None:
            return
        for number, device in enumerate(self.fabric.switches()):
            if device.role == "border_leaf":
                for uplink in range(self.spec.core_uplinks):
                    yield number, uplink, self.allocation.core_uplink(number, uplink)


@dataclass(frozen=True)
class ClusterNetworks:
    """Every declared network beside the backend, and what they add to the hall."""

    data: tuple[DataNetwork, ...]
    physical: NetworksPhysical

    def pools(self) -> list[tuple[str, Pool]]:
        """Every pool of the networks, with its network's name."""
        pools = [(network.spec.name, pool) for network in self.data for pool in network.allocation.pools]
        oob = self.physical.oob
        return [*pools, *((("oob", oob.pool),) if oob else ())]


def network_problems(networks: Networks, servers: int, max_servers: int, servers_per_rack: int) -> list[Problem]:
    """The problems of sizing each declared network (its leaves and spines against the envelope), from the counts
    alone."""
    problems: list[Problem] = []
    for spec in networks.data_networks:
        try:
            size_network(spec, servers, max_servers, servers_per_rack)
        except InputError as error:
            problems.extend(error.problems)
    return problems


def top_kept(intent: Intent) -> TopKept:
    """What the top of every rack keeps for the networks' switches, from the counts alone: in the backend's network
    racks, the out-of-band network's management switches (nothing without one); in a compute rack, the top-of-rack
    leaves of every network and the management switches beside its servers, so it holds fewer servers than its
    power budget and units allow when they would take it over either. Beside rack-scale systems (whose racks are
    their own) and without networks, as many as those allow."""
    networks, servers, max_servers, system = intent.networks, intent.servers, intent.max_servers, intent.system
    fits, server = servers_per_rack(intent), (intent.server.power_kw, intent.server.rack_units)
    if not networks.declared or system is not None:
        held = fits
    else:
        held = next(
            (
                count
                for count in range(fits, 0, -1)
                if (fit := _rack_fit(networks, servers, max_servers, count, server)) is None
                or fit.holds(intent.facility)
            ),
            1,
        )
    if networks.oob is None:
        return TopKept(servers_per_rack=held)
    kept = management_space(networks.oob, held, _rack_leaves(networks, servers, max_servers, held)[0], system)
    return kept._replace(servers_per_rack=held)


def rack_problems(intent: Intent) -> list[Problem]:
    """A problem when not even one server fits in a compute rack beside the networks' top-of-rack leaves and
    management switches (:func:`top_kept`): the plan would put a rack over its budget or units, so it is refused
    now, with the budget or height that would hold it."""
    networks, facility = intent.networks, intent.facility
    if not networks.declared or intent.system is not None:
        return []
    server = (intent.server.power_kw, intent.server.rack_units)
    fit = _rack_fit(networks, intent.servers, intent.max_servers, 1, server)
    if fit is None or fit.holds(facility):
        return []
    if round(fit.kw, 6) > facility.rack_power_kw:
        return [
            Problem(
                ("facility", "rack_power_kw"),
                f"a compute rack of one {intent.server.power_kw:g} kW server with the networks' {fit.leaves} "
                f"top-of-rack leaves and their management switches draws {fit.kw:,.2f} kW, over its "
                f"{facility.rack_power_kw:g} kW budget; give a rack_power_kw of at least "
                f"{math.ceil(fit.kw * 10) / 10:g} (or fewer leaves a rack)",
            )
        ]
    return [
        Problem(
            ("facility", "rack_units"),
            f"a compute rack of one {server[1]}U server with the networks' top-of-rack leaves and management "
            f"switches needs {fit.units}U, more than its {facility.rack_units}U; give rack_units of at least "
            f"{fit.units}",
        )
    ]


class RackFit(NamedTuple):
    """A compute rack of servers with the networks' top-of-rack leaves and management switches: the leaves, and
    what all of it draws (kW) and takes (rack units)."""

    leaves: int
    kw: float
    units: int

    def holds(self, facility: Facility) -> bool:
        """Whether the rack's power budget and units hold it."""
        return round(self.kw, 6) <= facility.rack_power_kw and self.units <= facility.rack_units


def _rack_fit(
    networks: Networks, servers: int, max_servers: int, per_rack: int, server: tuple[float, int]
) -> RackFit | None:
    """A compute rack of ``per_rack`` servers (``server``: kW and rack units) with what the networks add to it; None
    when a network cannot be sized (its own error)."""
    try:
        leaves, units, watts = _rack_leaves(networks, servers, max_servers, per_rack)
    except InputError:
        return None
    top = management_space(networks.oob, per_rack, leaves, None)
    kw, height = server
    return RackFit(leaves, per_rack * kw + (watts + top.watts) / 1000, per_rack * height + units + top.units)


def _rack_leaves(networks: Networks, servers: int, max_servers: int, per_rack: int) -> tuple[int, int, float]:
    """The top-of-rack leaves of every network in a compute rack of ``per_rack`` servers: their count, rack units
    and watts (with optics)."""
    count = units = 0
    watts = 0.0
    for spec in networks.data_networks:
        leaves = size_network(spec, servers, max_servers, per_rack).leaves_per_rack(per_rack)
        count += leaves
        units += leaves * spec.leaf.rack_units
        watts += leaves * spec.leaf.power_w_optics
    return count, units, watts


def design_networks(
    networks: Networks,
    hall: Hall,
    server_names: Sequence[str],
    max_servers: int,
    backend_pools: Sequence[Pool],
    backend_leaf_asn: int,
) -> ClusterNetworks:
    """Every declared network of ``networks`` for the ``server_names`` built now of ``max_servers`` planned, beside
    the backend's pools and in its hall; :class:`InputError` names a network that cannot be built."""
    taken = list(backend_pools)
    data = []
    for spec in networks.data_networks:
        plan = size_network(spec, len(server_names), max_servers, hall.servers_per_rack)
        fabric = wire_network(spec, plan, server_names)
        allocation = allocate_network(spec, fabric, taken, backend_leaf_asn, max_servers)
        taken.extend(allocation.pools)
        data.append(DataNetwork(spec, fabric, allocation))
    _check_core_asns(data, backend_leaf_asn, max_servers)
    physical = plan_networks_physical(hall, [(network.spec, network.fabric) for network in data], networks.oob, taken)
    return ClusterNetworks(tuple(data), physical)


def _check_core_asns(data: Sequence[DataNetwork], backend_leaf_asn: int, max_servers: int) -> None:
    """:class:`InputError` when a network's core ASN lies in a range of the design's own: the backend's (its
    leaves' start up to where the networks' default ranges begin) or any network's envelope."""
    spans = [
        ("the backend's", backend_leaf_asn, backend_leaf_asn + min(NETWORK_ASN_OFFSET.values()) - 1),
        *((f"the {network.spec.name} network's", *network.allocation.asn_span(max_servers)) for network in data),
    ]
    problems = [
        Problem(
            ("networks", network.spec.name, "core", "asn"),
            f"{asn} lies in {owner} ASNs {first}-{last}; give the core's own ASN, outside every range of the design",
        )
        for network in data
        if (asn := network.spec.core_asn) is not None
        for owner, first, last in spans
        if first <= asn <= last
    ]
    if problems:
        raise InputError(problems)

"""networks: the networks beside the backend hold what their intent declares, each on its own.

Per network: every pool disjoint from every other network's (and the backend's); the leaves within the declared
oversubscription; no switch port cabled twice or beyond its ports; with dual-homing, every server still reaching
a leaf with any one leaf down (the failure impact of one leaf); every cable reaching with a medium. For the hall:
no rack over its power budget with the switches the networks add, and no top-of-rack switch in units a server
takes. Run only when a network beside the backend is declared (the backend's checks do not change).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from designer.backend.allocate import Pool
from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding
from designer.networks.allocate import overlapping

if TYPE_CHECKING:
    from designer.networks.cluster import DataNetwork
    from designer.networks.physical import NetworksPhysical

ID = "networks"
DESCRIPTION = "the frontend, storage, in-band and out-of-band networks hold what the intent declares"
SEVERITY = "error"


def check(design: Built) -> Iterable[Finding]:
    networks = design.networks
    if networks is None:
        return []
    backend = design.allocation.pools() if design.allocation is not None else []  # InfiniBand: no pools
    pools = [("backend", pool) for pool in backend] + networks.pools()
    problems: list[tuple[str, str]] = [
        (network, f"{network} pool {pool.cidr} ({pool.name}) overlaps {other_network} pool {other.cidr}")
        for network, pool, other_network, other in overlapping(pools)
    ]
    problems.extend((network, message) for network, pool in pools if (message := _short(network, pool)))
    for data in networks.data:
        problems += _wiring_problems(data)
    problems += _hall_problems(design, networks.physical)
    if problems:
        return capped(ID, SEVERITY, problems)
    return [
        Finding(
            ID,
            "info",
            f"{', '.join(networks_named(design))}: pools disjoint, ratios as declared, every port cabled once, "
            "every cable in reach, every rack within budget"
            + (", every dual-homed server reachable with any one leaf down" if _dual(design) else ""),
            evidence={"networks": networks_named(design), "cables": len(networks.physical.cables)},
        )
    ]


def _wiring_problems(data: DataNetwork) -> list[tuple[str, str]]:
    """A network's leaves run above their declared oversubscription, a port cabled twice or that does not exist,
    a dual-homed server that one leaf down cuts off."""
    fabric, spec, name = data.fabric, data.spec, data.spec.name
    problems = []
    if fabric.plan.ratio > spec.oversubscription:
        problems.append((name, f"leaves run {fabric.plan.ratio:g}:1, above the declared {spec.oversubscription:g}:1"))
    ends = Counter(end for _, upper, up, lower, down in fabric.links for end in ((upper, up), (lower, down)))
    problems.extend(
        (name, f"{fabric.devices[device].name} port {port} is cabled {count} times")
        for (device, port), count in ends.items()
        if count > 1
    )
    problems.extend(
        (name, f"{fabric.devices[device].name} has no port {port}")
        for device, port in ends
        if port >= fabric.devices[device].ports
    )
    if spec.dual_homing != "none":
        leaves: dict[int, set[int]] = {}
        for _, upper, _, lower, _ in fabric.links[: fabric.server_link_count]:
            leaves.setdefault(lower, set()).add(upper)
        problems.extend(
            (name, f"{fabric.devices[server].name} loses the {name} network with {fabric.devices[leaf].name} down")
            for server, reached in leaves.items()
            if len(reached) < 2
            for leaf in reached
        )
    return problems


def _hall_problems(design: Built, physical: NetworksPhysical) -> list[tuple[str, str]]:
    """The networks' cables beyond every medium's reach, the racks their switches take over budget, the racks whose
    top-of-rack switches need the servers' units, and devices sharing units."""
    problems = [
        (
            cable.network,
            f"{cable.a_device} {cable.a_port} to {cable.z_device}: {cable.length_dm / 10:g} m, beyond "
            "every medium's reach",
        )
        for cable in physical.cables
        if cable.medium == "none"
    ]
    budget = design.intent.facility.rack_power_kw
    draws = {rack.name: rack.kw for rack in design.physical.racks} | {rack.name: rack.kw for rack in physical.racks}
    problems.extend(
        (
            "hall",
            f"rack {rack} draws {draws[rack] + added:,.2f} kW with the networks' switches, over its {budget:g} kW "
            "budget (facility.rack_power_kw)",
        )
        for rack, added in physical.added_kw.items()
        if draws.get(rack, 0) + added > budget
    )
    problems.extend(
        (
            "hall",
            f"rack {rack}: its top-of-rack switches need units its servers take; give the compute racks fewer "
            "servers (facility.rack_power_kw) or the networks fewer leaves per rack",
        )
        for rack in physical.crowded
    )
    problems.extend(
        ("hall", f"rack {rack}: {upper} stands in units {lower} takes; a design error, please report it")
        for rack, lower, upper in physical.sharing_units
    )
    return problems


def networks_named(design: Built) -> list[str]:
    """The declared networks beside the backend."""
    return list(design.intent.networks.declared)


def _dual(design: Built) -> bool:
    """Whether any network is dual-homed."""
    return any(spec.dual_homing != "none" for spec in design.intent.networks.data_networks)


def _short(network: str, pool: Pool) -> str | None:
    """A network's pool too small for its envelope (the backend's are its own checks')."""
    if network != "backend" and pool.planned > pool.size:
        return f"{network} pool {pool.cidr} holds {pool.size:,} addresses, the envelope needs {pool.planned:,}"
    return None

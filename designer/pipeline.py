"""The whole way through: intent, plan, fabric, allocation, facts, then the physical plan and the bisection
max-flows beside the device models, workloads and host settings, then the checks.

This is the Python API (``designer.build(path)``); the command line is a thin layer over it. Each stage
takes explicit inputs and returns a new value; none edits another's result.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NamedTuple

from designer.analysis.facts import Facts, facts
from designer.analysis.maxflow import Bisection, bisection
from designer.analysis.workload import SEEDS, WorkloadResult, analyze, queue_pairs
from designer.backend.allocate import Allocation, address_problems, addressed, allocate
from designer.backend.hosts import HostConfig, host_configs
from designer.backend.model import DeviceConfig, backend_settings, device_configs
from designer.backend.physical import Physical, TopKept, cable_lengths, plan_physical
from designer.backend.physical.costs import TierCost, tier_costs
from designer.backend.physical.placement import device_units
from designer.backend.sizing import Plan, size
from designer.backend.wiring import Fabric, wire
from designer.checks import OF_THE_FABRIC, applicable, ordered
from designer.checks import networks as networks_check
from designer.checks import run as run_checks
from designer.design import Built, Design, Progress, Wired, quiet
from designer.errors import InputError
from designer.findings import Finding
from designer.intent import Intent
from designer.networks.cluster import ClusterNetworks, design_networks, top_kept
from designer.networks.management import SwitchManagement, switch_management
from designer.networks.model import network_switch_configs
from designer.networks.physical import Hall
from designer.validation import validated_intent
from designer.workers import Background

Modelled = Callable[[tuple[DeviceConfig, ...], tuple[HostConfig, ...], SwitchManagement, ClusterNetworks | None], None]
"""Told the switches' device models (the backend's, then those of the networks beside it), the servers' host
settings, the switches' management side and the networks beside the backend once all are made (a build renders
them from then on)."""


@dataclass(frozen=True)
class Known:
    """What a caller already has of the stages after the wiring, taken as it is rather than made again (None: made):
    the fabric's facts and max-flows, the findings of the checks of the fabric (:data:`OF_THE_FABRIC`), the device
    models and the workloads; and another intent with its physical plan of a fabric wired as this one, whose cables'
    lengths (and media) the physical plan takes where its devices stand alike
    (:func:`~designer.backend.physical.plan_physical`'s ``like``)."""

    facts: Facts | None = None
    bisection: Bisection | None = None
    fabric_findings: list[Finding] | None = None
    configs: tuple[DeviceConfig, ...] | None = None
    workloads: tuple[WorkloadResult, ...] | None = None
    like: tuple[Intent, Physical] | None = None


def build(path: str | Path, progress: Progress | None = None) -> Design:
    """Load the intent at ``path`` and run every stage in memory. Raises :class:`InputError` on bad input."""
    return design(validated_intent(path), progress)


def design(
    intent: Intent,
    progress: Progress | None = None,
    seeds: int = SEEDS,
    modelled: Modelled | None = None,
    hosts: bool = True,
    processes: int | None = None,
    workload_detail: bool = True,
) -> Design:
    """Run the stages after loading on an already validated intent, telling ``progress`` as each one starts
    from wiring on (sizing is arithmetic: an intent too big to size gets its errors and nothing else); the
    workloads are analyzed over ``seeds`` runs. ``modelled`` gets the switches' device models, the servers'
    host settings, the switches' management side and the networks beside the backend as soon as all are made,
    before the checks (a build starts rendering them while the checks run): with networks beside the backend, they
    wait for the physical plan and the networks (their switches and servers are rendered with the backend's, and an
    out-of-band network sets the management addresses). Without ``hosts`` the servers' host settings are left out
    (empty): only the server files read them, so ``plan`` and ``check`` skip them. ``processes``: how many to share
    the work among (default: one per core); with one, every stage runs here, one after another (``designer explore``
    runs candidates side by side instead). Without ``workload_detail`` the workloads get only the numbers of the
    intent's mode on the healthy fabric (:func:`~designer.analysis.workload.analyze`'s ``only_the_mode``; the
    workload check's warnings may then name no QP count): what explore reports, the same as a whole analysis gives."""
    say = progress or quiet
    return design_wired(
        intent, first_stages(intent, say), Known(), say, seeds, modelled, hosts, processes, workload_detail
    )


def design_wired(
    intent: Intent,
    wiring: tuple[Plan, Fabric, Allocation | None],
    known: Known,
    say: Progress,
    seeds: int,
    modelled: Modelled | None,
    hosts: bool,
    processes: int | None,
    workload_detail: bool,
) -> Design:
    """The stages after the wiring (:func:`first_stages`' plan, fabric and allocation), as :func:`design` runs them
    with the same options, each taken from ``known`` where it holds it.

    Once the fabric is wired and counted, two forked workers (with more than one core) make the physical plan, and
    solve the bisection max-flows and run the checks of the fabric itself (:data:`OF_THE_FABRIC`: what neither the
    device models nor the host settings read), while this process models the switches from the same cable lengths
    and sets up the servers: three processes share the cores, so whichever part is longest does not leave a core
    idle. Only the physical plan, a few numbers and the findings come back. The other checks run last."""
    plan, fabric, allocation = wiring
    shared = facts(fabric) if known.facts is None else known.facts
    kept = top_kept(intent)

    def beside_the_models(worker: int, _count: int) -> dict[str, Any]:
        if worker == 0:
            return {"placed": _placed(intent, plan, fabric, kept, known.like)}
        bisected = bisection(fabric, shared) if known.bisection is None else known.bisection
        if known.fabric_findings is not None:
            return {"bisection": bisected, "findings": known.fabric_findings}
        wired = Wired(intent, plan, fabric, allocation, shared, bisected)
        return {"bisection": bisected, "findings": run_checks(wired, 1, applicable(intent.technology, OF_THE_FABRIC))}

    say("placing racks, power and cables, solving the bisection max-flows and checking the fabric")
    processes = processes or os.cpu_count() or 1
    alone = processes == 1
    # alone, the physical plan comes first and the models read its lengths; beside them, the lengths are estimated
    # here again, as the plan is made in a worker
    made = _placed(intent, plan, fabric, kept, known.like) if alone else None
    with Background([1] if alone else [0, 1], 2, beside_the_models, fork=not alone) as beside:
        cable_dm = made.physical.link_length_dm if made else cable_lengths(intent, plan, fabric, kept)
        configs = known.configs if known.configs is not None else ()
        if allocation is not None and known.configs is None:
            say(f"modelling {fabric.switch_count:,} switches")
            configs = tuple(device_configs(intent, plan, fabric, allocation, cable_dm))
        analyzed = (
            known.workloads
            if known.workloads is not None
            else _analyzed(intent, fabric, allocation, seeds, say, workload_detail)
        )
        servers: tuple[HostConfig, ...] = ()
        if hosts:
            say(f"setting up the backend NICs of {intent.servers:,} servers")
            servers = host_configs(intent, fabric, allocation, queue_pairs(analyzed))
        if modelled and not intent.networks.declared:
            modelled(configs, servers, switch_management(intent.networks.management, None), None)
        say("waiting for the racks, cables, max-flows and the checks of the fabric")
        placed = beside.results()
    wired = Wired(intent, plan, fabric, allocation, shared, placed["bisection"])
    return _finished(
        wired, made or placed["placed"], configs, analyzed, servers, placed["findings"], processes, say, modelled
    )


def _finished(
    wired: Wired,
    placed: Placed,
    configs: tuple[DeviceConfig, ...],
    analyzed: tuple[WorkloadResult, ...],
    servers: tuple[HostConfig, ...],
    found: list[Finding],
    processes: int,
    say: Progress,
    modelled: Modelled | None = None,
) -> Design:
    """The networks beside the backend (when declared), the switches' management side (given to ``modelled`` here,
    with the networks and every switch's device model, when networks are declared) and the checks not run yet,
    shared among ``processes``: the design, with ``found`` (the findings of the checks of the fabric) and theirs;
    ``placed``: the physical plan and what each tier builds, with and without the growth envelope."""
    intent, physical = wired.intent, placed.physical
    networks = _networks(intent, wired.fabric, wired.allocation, physical, say) if intent.networks.declared else None
    network_configs = tuple(network_switch_configs(networks, backend_settings(intent, wired.plan))) if networks else ()
    management = switch_management(intent.networks.management, networks.physical.oob if networks else None)
    if modelled and networks is not None:
        modelled((*configs, *network_configs), servers, management, networks)
    built = Built(
        **vars(wired),
        physical=physical,
        configs=configs,
        workloads=analyzed,
        hosts=servers,
        networks=networks,
        network_configs=network_configs,
        management=management,
        tier_costs=placed.tier_costs,
        without_growth=placed.without_growth,
    )
    others = [module for module in applicable(intent.technology) if module not in OF_THE_FABRIC]
    say(f"running {len(others)} more checks")
    if networks:
        others.append(networks_check)
    return Design(**vars(built), findings=tuple(ordered([*found, *run_checks(built, processes, others)])))


class Placed(NamedTuple):
    """The physical plan and what each switch tier builds by it, and would build for today's servers alone."""

    physical: Physical
    tier_costs: tuple[TierCost, ...]
    without_growth: tuple[TierCost, ...] | None


def _placed(intent: Intent, plan: Plan, fabric: Fabric, kept: TopKept, like: tuple[Intent, Physical] | None) -> Placed:
    """The physical plan (:func:`~designer.backend.physical.plan_physical`) and the tiers' costs, which read it."""
    physical = plan_physical(intent, plan, fabric, kept, like)
    return Placed(physical, tier_costs(intent, fabric, physical), without_growth(intent))


def without_growth(intent: Intent) -> tuple[TierCost, ...] | None:
    """What each switch tier would build for the intent's servers alone, its growth envelope left out: the same
    sizing, wiring and physical plan for an envelope of today's servers (None: the intent plans no growth)."""
    if intent.max_servers == intent.servers:
        return None
    today = replace(intent, max_servers=intent.servers)
    plan = size(today)
    fabric = wire(today, plan)
    return tier_costs(today, fabric, plan_physical(today, plan, fabric, top_kept(today)))


def management_of_switches(intent: Intent) -> SwitchManagement:
    """Only the stages the management side of the switches reads (with an out-of-band network: the fabric, its
    physical plan and the networks beside it): what ``designer validate-configs`` compares the EOS files with."""
    if intent.networks.oob is None:
        return switch_management(intent.networks.management, None)
    plan, fabric, allocation = first_stages(intent, quiet)
    networks = _networks(intent, fabric, allocation, plan_physical(intent, plan, fabric, top_kept(intent)), quiet)
    return switch_management(intent.networks.management, networks.physical.oob)


def device_models(intent: Intent) -> tuple[DeviceConfig, ...]:
    """Only the stages the switch configurations read (size, wire, allocate, cable lengths; with networks beside
    the backend, their physical plan), then the device models of every network's switches: what ``designer
    validate-configs`` compares the EOS files with; none on a fabric without addresses
    (InfiniBand: its switches take what the subnet manager sets)."""
    plan, fabric, allocation = first_stages(intent, quiet)
    if allocation is None:
        return ()
    configs = tuple(
        device_configs(intent, plan, fabric, allocation, cable_lengths(intent, plan, fabric, top_kept(intent)))
    )
    if not intent.networks.declared:
        return configs
    networks = _networks(intent, fabric, allocation, plan_physical(intent, plan, fabric, top_kept(intent)), quiet)
    return (*configs, *network_switch_configs(networks, backend_settings(intent, plan)))


def workloads(intent: Intent, progress: Progress | None = None, seeds: int = SEEDS) -> tuple[WorkloadResult, ...]:
    """Only the stages the workload analysis reads (size, wire, allocate), then the analysis over ``seeds`` runs:
    what ``designer analyze`` prints."""
    say = progress or quiet
    _, fabric, allocation = first_stages(intent, say)
    return _analyzed(intent, fabric, allocation, seeds, say)


def first_stages(intent: Intent, say: Progress) -> tuple[Plan, Fabric, Allocation | None]:
    """Size, wire and allocate (an InfiniBand fabric: nothing to allocate): errors found on the way are tied to the
    intent file; the rules that need the sized fabric's counts run before anything is wired."""
    try:
        plan = size(intent)
        if problems := address_problems(intent, plan):
            raise InputError(problems)
        say(f"wiring {sum(plan.link_counts().values()):,} links")
        fabric = wire(intent, plan)
        if addressed(intent):
            say("allocating addresses and ASNs")
        allocation = allocate(intent, fabric)
    except InputError as error:
        raise error.located(intent.source) from None
    return plan, fabric, allocation


def _networks(
    intent: Intent, fabric: Fabric, allocation: Allocation | None, physical: Physical, say: Progress
) -> ClusterNetworks:
    """The networks beside the backend, each from its own spec, placed in the backend's hall; their errors tied to
    the intent file."""
    say(
        f"designing the {', '.join(intent.networks.declared)} network{'s' if len(intent.networks.declared) > 1 else ''}"
    )
    hall = Hall(
        physical.racks,
        physical.rows,
        physical.row.racks,
        fabric.devices,
        physical.device_rack,
        physical.device_unit,
        [device_units(intent, device) for device in fabric.devices],
        physical.servers_per_rack,
        intent.server.rack_units,
        intent.facility,
        intent.catalog,
        intent.system,
    )
    servers = [device.name for device in fabric.devices[fabric.switch_count :]]
    try:
        return design_networks(
            intent.networks,
            hall,
            servers,
            intent.max_servers,
            allocation.pools() if allocation is not None else [],
            intent.routing.leaf_asn_start,
        )
    except InputError as error:
        raise error.located(intent.source) from None


def _analyzed(
    intent: Intent, fabric: Fabric, allocation: Allocation | None, seeds: int, say: Progress, detail: bool = True
) -> tuple[WorkloadResult, ...]:
    if intent.workloads:
        count = len(intent.workloads)
        say(f"analyzing {count} workload{'s' if count != 1 else ''} over at most {seeds} runs per hash")
    return analyze(intent, fabric, allocation, seeds, only_the_mode=not detail)

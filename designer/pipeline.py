"""The whole way through: intent, plan, fabric, allocation, facts, then the physical plan and the bisection
max-flows beside the device models, workloads and host settings, then the checks.

This is the Python API (``designer.build(path)``); the command line is a thin layer over it. Each stage
takes explicit inputs and returns a new value; none edits another's result.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from designer.allocate import Allocation, address_problems, allocate
from designer.analysis.facts import facts
from designer.analysis.maxflow import bisection
from designer.analysis.workload import SEEDS, WorkloadResult, analyze
from designer.checks import OF_THE_FABRIC, applicable, ordered
from designer.checks import networks as networks_check
from designer.checks import run as run_checks
from designer.design import Built, Design, Progress, Wired, quiet
from designer.errors import InputError, Problem
from designer.fabric import Fabric, wire
from designer.hosts import HostConfig, host_configs
from designer.intent import Intent, SiteCatalogs, read_intent
from designer.model import DeviceConfig, device_configs
from designer.networks.cluster import ClusterNetworks, design_networks, network_problems
from designer.networks.management import SwitchManagement, switch_management
from designer.networks.physical import Hall
from designer.physical import Physical, cable_lengths, plan_physical
from designer.physical.placement import device_units, servers_per_rack
from designer.sizing import Plan, size
from designer.workers import Background

Modelled = Callable[[tuple[DeviceConfig, ...], tuple[HostConfig, ...], SwitchManagement], None]
"""Told the switches' device models, the servers' host settings and the switches' management side once all are
made (a build renders them from then on)."""


def build(path: str | Path, progress: Progress | None = None) -> Design:
    """Load the intent at ``path`` and run every stage in memory. Raises :class:`InputError` on bad input."""
    return design(validated_intent(path), progress)


def validated_intent(path: str | Path, raw: bytes | None = None, catalogs: SiteCatalogs | None = None) -> Intent:
    """The intent at ``path`` (or its bytes ``raw``, read already), or :class:`InputError` with every problem: those
    of the file and, when its fabric can be sized, those of the sized fabric (limits, pool sizes, ASN ranges, what
    the targets can express). ``catalogs``: the site catalogs already read (a built folder's), instead of the files
    the intent names."""
    loaded = read_intent(path, raw, catalogs)
    if loaded.problems or loaded.intent is None:
        later = _sized_problems(loaded.intent) if loaded.intent else []
        raise InputError(
            [*loaded.problems, *(problem for problem in later if loaded.intact(problem.path))], loaded.source
        )
    if problems := _sized_problems(loaded.intent):
        raise InputError(problems, loaded.source)
    return loaded.intent


def design(
    intent: Intent,
    progress: Progress | None = None,
    seeds: int = SEEDS,
    modelled: Modelled | None = None,
    hosts: bool = True,
) -> Design:
    """Run the stages after loading on an already validated intent, telling ``progress`` as each one starts
    from wiring on (sizing is arithmetic: an intent too big to size gets its errors and nothing else); the
    workloads are analyzed over ``seeds`` runs. ``modelled`` gets the switches' device models, the servers'
    host settings and the switches' management side as soon as all are made, before the checks (a build starts
    rendering them while the checks run): with an out-of-band network, the management addresses wait for the
    physical plan and the networks.
    Without ``hosts`` the servers' host settings are left out (empty): only the server files read them, so
    ``plan`` and ``check`` skip them.

    Once the fabric is wired and counted, two forked workers (with more than one core) make the physical plan, and
    solve the bisection max-flows and run the checks of the fabric itself (:data:`OF_THE_FABRIC`: what neither the
    device models nor the host settings read), while this process models the switches from the same cable lengths
    and sets up the servers: three processes share the cores, so whichever part is longest does not leave a core
    idle. Only the physical plan, a few numbers and the findings come back. The other checks run last."""
    say = progress or quiet
    plan, fabric, allocation = _wired(intent, say)
    shared = facts(fabric)
    fabric_checks = applicable(intent.technology, OF_THE_FABRIC)

    def beside_the_models(worker: int, _count: int) -> dict[str, Any]:
        if worker == 0:
            return {"physical": plan_physical(intent, plan, fabric)}
        wired = Wired(intent, plan, fabric, allocation, shared, bisection(fabric, shared))
        return {"bisection": wired.bisection, "findings": run_checks(wired, 1, fabric_checks)}

    say("placing racks, power and cables, solving the bisection max-flows and checking the fabric")
    with Background([0, 1], 2, beside_the_models, fork=(os.cpu_count() or 1) > 1) as beside:
        cable_dm = cable_lengths(intent, plan, fabric)
        say(f"modelling {fabric.switch_count:,} switches")
        configs = tuple(device_configs(intent, plan, fabric, allocation, cable_dm))
        analyzed = _analyzed(intent, fabric, allocation, seeds, say)
        servers: tuple[HostConfig, ...] = ()
        if hosts:
            say(f"setting up the backend NICs of {intent.servers:,} servers")
            servers = host_configs(intent, fabric, allocation, analyzed)
        if modelled and intent.networks.oob is None:
            modelled(configs, servers, switch_management(intent.networks.management, None))
        say("waiting for the racks, cables, max-flows and the checks of the fabric")
        placed = beside.results()
    networks = _networks(intent, fabric, allocation, placed["physical"], say) if intent.networks.declared else None
    management = switch_management(intent.networks.management, networks.physical.oob if networks else None)
    if modelled and intent.networks.oob is not None:
        modelled(configs, servers, management)
    built = Built(
        intent,
        plan,
        fabric,
        allocation,
        shared,
        placed["bisection"],
        placed["physical"],
        configs,
        analyzed,
        servers,
        networks,
        management,
    )
    others = [module for module in applicable(intent.technology) if module not in OF_THE_FABRIC]
    say(f"running {len(others)} more checks")
    if networks:
        others.append(networks_check)
    return Design(**vars(built), findings=tuple(ordered([*placed["findings"], *run_checks(built, checks=others)])))


def management_of_switches(intent: Intent) -> SwitchManagement:
    """Only the stages the management side of the switches reads (with an out-of-band network: the fabric, its
    physical plan and the networks beside it): what ``designer validate-configs`` compares the EOS files with."""
    if intent.networks.oob is None:
        return switch_management(intent.networks.management, None)
    plan, fabric, allocation = _wired(intent, quiet)
    networks = _networks(intent, fabric, allocation, plan_physical(intent, plan, fabric), quiet)
    return switch_management(intent.networks.management, networks.physical.oob)


def device_models(intent: Intent) -> tuple[DeviceConfig, ...]:
    """Only the stages the switch configurations read (size, wire, allocate, cable lengths), then the device
    models: what ``designer validate-configs`` compares the EOS files with."""
    plan, fabric, allocation = _wired(intent, quiet)
    return tuple(device_configs(intent, plan, fabric, allocation, cable_lengths(intent, plan, fabric)))


def workloads(intent: Intent, progress: Progress | None = None, seeds: int = SEEDS) -> tuple[WorkloadResult, ...]:
    """Only the stages the workload analysis reads (size, wire, allocate), then the analysis over ``seeds`` runs:
    what ``designer analyze`` prints."""
    say = progress or quiet
    _, fabric, allocation = _wired(intent, say)
    return _analyzed(intent, fabric, allocation, seeds, say)


def _wired(intent: Intent, say: Progress) -> tuple[Plan, Fabric, Allocation]:
    """Size, wire and allocate: errors found on the way are tied to the intent file; the rules that need the
    sized fabric's counts run before anything is wired."""
    try:
        plan = size(intent)
        if problems := address_problems(intent, plan):
            raise InputError(problems)
        say(f"wiring {sum(plan.link_counts().values()):,} links")
        fabric = wire(intent, plan)
        say("allocating addresses and ASNs")
        allocation = allocate(intent, fabric)
    except InputError as error:
        raise error.located(intent.source) from None
    return plan, fabric, allocation


def _networks(
    intent: Intent, fabric: Fabric, allocation: Allocation, physical: Physical, say: Progress
) -> ClusterNetworks:
    """The networks beside the backend, each from its own spec, placed in the backend's hall; their errors tied to
    the intent file."""
    say(
        f"designing the {', '.join(intent.networks.declared)} network{'s' if len(intent.networks.declared) > 1 else ''}"
    )
    hall = Hall(
        physical.racks,
        physical.rows,
        fabric.devices,
        physical.device_rack,
        physical.device_unit,
        [device_units(intent, device) for device in fabric.devices],
        physical.servers_per_rack,
        intent.server.rack_units,
        intent.facility,
        intent.catalog,
    )
    servers = [device.name for device in fabric.devices[fabric.switch_count :]]
    try:
        return design_networks(
            intent.networks, hall, servers, intent.max_servers, allocation.pools(), intent.routing.leaf_asn_start
        )
    except InputError as error:
        raise error.located(intent.source) from None


def _analyzed(
    intent: Intent, fabric: Fabric, allocation: Allocation, seeds: int, say: Progress
) -> tuple[WorkloadResult, ...]:
    if intent.workloads:
        count = len(intent.workloads)
        say(f"analyzing {count} workload{'s' if count != 1 else ''} over at most {seeds} runs per hash")
    return analyze(intent, fabric, allocation, seeds)


def _sized_problems(intent: Intent) -> list[Problem]:
    """The input rules that need the sized fabric (its limits, the pool sizes, the ASN ranges), checked on the
    counts before anything is wired."""
    try:
        plan = size(intent)
    except InputError as error:
        return list(error.problems)
    networks = network_problems(intent.networks, intent.servers, intent.max_servers, servers_per_rack(intent))
    return [*address_problems(intent, plan), *networks]

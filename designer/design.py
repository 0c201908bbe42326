"""The whole way through: intent, then plan, fabric and allocation, as one :class:`Design`.

This is the Python API (``designer.build(path)``); the command line is a thin layer over it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from designer.allocate import Allocation, address_problems, allocate
from designer.checks import run as run_checks
from designer.errors import InputError, Problem
from designer.fabric import Fabric, wire
from designer.findings import Finding
from designer.intent import Intent, read_intent
from designer.model import DeviceConfig, device_configs
from designer.physical import Physical, plan_physical
from designer.sizing import Plan, size


@dataclass(frozen=True)
class Design:
    """Everything the stages produced for one intent; read-only for every later stage."""

    intent: Intent
    plan: Plan
    fabric: Fabric
    allocation: Allocation
    physical: Physical
    """Racks, positions, power, cable lengths and media, and the bill of materials."""
    devices: list[DeviceConfig] = field(default_factory=list)
    """One vendor-neutral configuration model per switch, in fabric device order."""
    findings: tuple[Finding, ...] = ()
    """What the checks (:mod:`designer.checks`) found in everything above: errors, warnings, evidence."""


def build(path: str | Path) -> Design:
    """Load the intent at ``path`` and run every stage in memory. Raises :class:`InputError` on bad input,
    listing every problem: those of the file and, when its fabric can be sized, those of the sized fabric."""
    loaded = read_intent(path)
    if loaded.problems or loaded.intent is None:
        later = _sized_problems(loaded.intent) if loaded.intent else []
        raise InputError([*loaded.problems, *(problem for problem in later if loaded.intact(problem.path))],
                         loaded.source)
    return design(loaded.intent)


def design(intent: Intent) -> Design:
    """Run the stages after loading on an already validated intent."""
    if problems := _sized_problems(intent):
        raise InputError(problems, intent.source)
    try:
        plan = size(intent)
        fabric = wire(intent, plan)
        allocation = allocate(intent, fabric)
    except InputError as error:
        raise error.located(intent.source) from None
    staged = Design(intent, plan, fabric, allocation, plan_physical(intent, plan, fabric))
    modeled = replace(staged, devices=device_configs(staged))
    return replace(modeled, findings=tuple(run_checks(modeled)))


def _sized_problems(intent: Intent) -> list[Problem]:
    """The input rules that need the sized fabric (its limits, the pool sizes, the ASN ranges), checked on the
    counts before anything is wired."""
    try:
        plan = size(intent)
    except InputError as error:
        return list(error.problems)
    return address_problems(intent, plan)

"""The whole way through: intent, then plan, fabric and allocation, as one :class:`Design`.

This is the Python API (``designer.build(path)``); the command line is a thin layer over it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from designer.allocate import Allocation, allocate
from designer.checks import CHECKS
from designer.checks import run as run_checks
from designer.errors import InputError
from designer.fabric import Fabric, wire
from designer.findings import Finding
from designer.intent import Intent, load_intent
from designer.model import DeviceConfig, device_configs
from designer.physical import Physical, plan_physical
from designer.sizing import Plan, size

Progress = Callable[[str], None]
"""Told what each stage is about to do (``"wiring 393,216 links"``); the command line prints it on stderr."""


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


def build(path: str | Path, progress: Progress | None = None) -> Design:
    """Load the intent at ``path`` and run every stage in memory. Raises :class:`InputError` on bad input."""
    return design(load_intent(path), progress)


def design(intent: Intent, progress: Progress | None = None) -> Design:
    """Run the stages after loading on an already validated intent, telling ``progress`` as each one starts
    from wiring on (sizing is arithmetic: an intent too big to size gets its errors and nothing else)."""
    say = progress or quiet
    try:
        plan = size(intent)
        say(f"wiring {sum(plan.links().values()):,} links")
        fabric = wire(intent, plan)
        say("allocating addresses and ASNs")
        allocation = allocate(intent, fabric)
    except InputError as error:
        raise error.located(intent.source) from None
    say("placing racks, power and cables")
    staged = Design(intent, plan, fabric, allocation, plan_physical(intent, plan, fabric))
    say(f"modelling {fabric.switch_count:,} switches")
    modeled = replace(staged, devices=device_configs(staged))
    say(f"running {len(CHECKS)} checks")
    return replace(modeled, findings=tuple(run_checks(modeled)))


def quiet(stage: str) -> None:
    """The progress of a caller that wants none."""

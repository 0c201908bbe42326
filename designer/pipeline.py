"""The whole way through: intent, plan, fabric, allocation, physical plan, device models, facts, checks.

This is the Python API (``designer.build(path)``); the command line is a thin layer over it. Each stage
takes explicit inputs and returns a new value; none edits another's result.
"""

from __future__ import annotations

from pathlib import Path

from designer.allocate import allocate
from designer.analysis.facts import facts
from designer.checks import run as run_checks
from designer.design import Built, Design
from designer.errors import InputError
from designer.fabric import wire
from designer.intent import Intent, load_intent
from designer.model import device_configs
from designer.physical import plan_physical
from designer.sizing import size


def build(path: str | Path) -> Design:
    """Load the intent at ``path`` and run every stage in memory. Raises :class:`InputError` on bad input."""
    return design(load_intent(path))


def design(intent: Intent) -> Design:
    """Run the stages after loading on an already validated intent."""
    try:
        plan = size(intent)
        fabric = wire(intent, plan)
        allocation = allocate(intent, fabric)
    except InputError as error:
        raise error.located(intent.source) from None
    built = Built(intent, plan, fabric, allocation, plan_physical(intent, plan, fabric),
                  tuple(device_configs(intent, plan, fabric, allocation)), facts(fabric))
    return Design(**vars(built), findings=tuple(run_checks(built)))

"""Each network OS's view of a device model, found from its record (:mod:`designer.targets`).

A view (``designer.render.<os>``) turns a :class:`~designer.backend.model.DeviceConfig` into the template's variables;
every decision (names, units, limits) is made there, and templates only lay the values out. What an OS can
express (ECMP width, MTU, watchdog times) is data: the catalog's ``targets``, which intent validation reads too.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

from designer.targets import TARGETS, config_files, config_path

View = Callable[..., dict[str, Any]]
"""A device model (and the target's options from the intent, as keyword arguments) to template variables."""


def view_of(target: str) -> View:
    """The view of ``target`` for one rendering: its module's ``View`` made anew (a view that remembers what it made
    for the devices before, as SONiC's port layouts), else its ``view`` function."""
    module = import_module(f"designer.render.{TARGETS[target].view}")
    made: Callable[[], View] | None = getattr(module, "View", None)
    return made() if made is not None else module.view


def shared_blocks() -> dict[str, tuple[str, ...]]:
    """Every shipped template that is a shared block, with the variables it reads: the ``SHARED_BLOCKS`` of each
    target's view module. Such a template reads those variables alone (no ``device``), so its text is the same for
    every switch whose view gives them the same values, and a build renders it once per distinct value."""
    blocks: dict[str, tuple[str, ...]] = {}
    for view in sorted({target.view for target in TARGETS.values()}):
        blocks.update(getattr(import_module(f"designer.render.{view}"), "SHARED_BLOCKS", {}))
    return blocks


__all__ = ["TARGETS", "View", "config_files", "config_path", "shared_blocks", "view_of"]

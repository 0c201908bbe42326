"""The network OSes the designer renders: each one's entry template, file extension and view of a device model.

A view (``designer.render.<os>``) turns a :class:`~designer.model.DeviceConfig` into the template's variables;
every decision (names, units, limits) is made there, and templates only lay the values out. What an OS can
express (ECMP width, MTU, watchdog times) is data: the catalog's ``targets``, which intent validation reads too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from designer.render import eos, linux, nvue, sonic

View = Callable[..., dict[str, Any]]
"""A device model (and the target's options from the intent, as keyword arguments) to template variables."""


@dataclass(frozen=True)
class Companion:
    """A second file per device that an OS needs beside its configuration: ``configs/<folder>/<hostname>.<ext>``
    from ``template``, with the same view."""

    folder: str
    template: str
    extension: str


@dataclass(frozen=True)
class Target:
    """How one network OS is rendered: entry template, file extension, the view that makes the template variables
    of each device, and the companion files beside it (what the OS can express is data: the catalog's ``targets``)."""

    template: str
    extension: str
    views: Callable[[], View]
    """Makes the view of one rendering: a view may remember what it made for the devices before (SONiC's port
    layouts, and its ``config_db_json``, which remembers the previous switch's tables)."""
    companions: tuple[Companion, ...] = ()


TARGETS: dict[str, Target] = {
    "frr": Target("frr/frr.conf.j2", "conf", lambda: linux.view,
                  (Companion("sysctl", "frr/sysctl.conf.j2", "conf"),)),
    "eos": Target("eos/eos.cfg.j2", "cfg", lambda: eos.view),
    "nvue": Target("nvue/startup.yaml.j2", "yaml", lambda: nvue.view),
    "sonic": Target("sonic/config_db.json.j2", "json", sonic.View),
}
"""Every network OS the designer renders, by the name an intent's ``targets`` uses."""


def config_path(target: str, hostname: str) -> str:
    """Where a device's configuration goes in the outputs: ``configs/<os>/<hostname>.<ext>``."""
    return f"configs/{target}/{hostname}.{TARGETS[target].extension}"


def config_files(target: str, hostname: str) -> list[tuple[str, str]]:
    """Every file of a device for ``target``, as (output path, template): its configuration, then its companions
    (the FRR router's kernel settings: ``configs/sysctl/<hostname>.conf``, a sysctl.d file)."""
    entry = TARGETS[target]
    return [(config_path(target, hostname), entry.template),
            *((f"configs/{companion.folder}/{hostname}.{companion.extension}", companion.template)
              for companion in entry.companions)]

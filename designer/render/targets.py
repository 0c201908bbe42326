"""The network OSes the designer renders: each one's entry template, file extension and view of a device model.

A view (``designer.render.<os>``) turns a :class:`~designer.model.DeviceConfig` into the template's variables;
every decision (names, units, limits) is made there, and templates only lay the values out. What an OS can
express (ECMP width, MTU, watchdog times) is data: the catalog's ``targets``, which intent validation reads too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from designer.model import DeviceConfig
from designer.render import eos, nvue, sonic

View = Callable[..., dict[str, Any]]
"""A device model (and the target's options from the intent, as keyword arguments) to template variables."""


def device_only(device: DeviceConfig) -> dict[str, Any]:
    """The view of an OS whose templates read the device model as it is (FRR)."""
    return {"device": device}


@dataclass(frozen=True)
class Target:
    """How one network OS is rendered: entry template, file extension and template variables per device (what the
    OS can express is data: the catalog's ``targets``)."""

    template: str
    extension: str
    view: View = device_only


TARGETS: dict[str, Target] = {
    "frr": Target("frr/frr.conf.j2", "conf"),
    "eos": Target("eos/eos.cfg.j2", "cfg", eos.view),
    "nvue": Target("nvue/startup.yaml.j2", "yaml", nvue.view),
    "sonic": Target("sonic/config_db.json.j2", "json", sonic.view),
}
"""Every network OS the designer renders, by the name an intent's ``targets`` uses."""


def config_path(target: str, hostname: str) -> str:
    """Where a device's configuration goes in the outputs: ``configs/<os>/<hostname>.<ext>``."""
    return f"configs/{target}/{hostname}.{TARGETS[target].extension}"

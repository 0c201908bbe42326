"""Render every switch's configuration for each target network OS with Jinja2 templates.

* One entry per OS in :data:`TARGETS`: its entry template, the file extension, and a function that
  turns a :class:`~designer.model.DeviceConfig` into the template's variables. Every decision (names,
  units, limits) is made in that Python function; templates only lay the values out.
* One Jinja2 environment per build; each OS's templates are compiled once per build, not per device.
* User overrides: a folder of templates (``templates/`` beside the intent, or ``--templates DIR``) is
  searched first, file by file, before the shipped ``templates/``. Such a build renders in Jinja's
  sandbox. Every build uses ``StrictUndefined``, so a misspelt variable is an error naming the
  template and its line (:class:`TemplateError`, exit code 2), never an empty string in a config.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from designer.catalog import catalog
from designer.errors import PrerequisiteError
from designer.model import DeviceConfig, Interface
from designer.resources import shipped_templates
from designer.sonic import config_db, config_db_json

SHIPPED_TEMPLATES = shipped_templates()
"""The templates that come with the designer (repository root ``templates/``, package data when installed)."""
NVUE_WATCHDOG_ROBUSTNESS = 2
"""NVUE detects a PFC storm after this many polls; the poll interval is the detection time divided by it."""
EOS_QOS_PROFILE = "ROCE"
"""The EOS ``qos profile`` (trust, PFC, queues, ECN) every fabric and server port applies as its service profile."""
EOS_DSCPS_PER_LINE = 8
"""DSCP values per ``qos map dscp`` line; all 64 are mapped so no DSCP keeps EOS's default class."""

Context = Callable[[DeviceConfig], dict[str, Any]]


def _device(device: DeviceConfig) -> dict[str, Any]:
    return {"device": device}


def eos_interface_name(interface: Interface) -> str:
    """``Ethernet{port}`` or, on a broken-out port, ``Ethernet{port}/{first lane from 1}`` (EOS numbering)."""
    if interface.breakout == 1:
        return f"Ethernet{interface.port}"
    return f"Ethernet{interface.port}/{interface.first_lane + 1}"


def _size(size: int, kilo: str, plain: str) -> str:
    """A byte count in whole KB (1,024 bytes) when exact, else in bytes."""
    return f"{size // 1024}{kilo}" if size % 1024 == 0 else f"{size}{plain}"


def _eos(device: DeviceConfig) -> dict[str, Any]:
    qos = device.qos
    return {
        "device": device,
        "interfaces": [(eos_interface_name(interface), interface) for interface in device.interfaces],
        "dscp_map": [(dscps[start:start + EOS_DSCPS_PER_LINE], tc) for tc, dscps in qos.tc_dscps
                     for start in range(0, len(dscps), EOS_DSCPS_PER_LINE)],
        "mtu": min(device.mtu, catalog().targets["eos"].max_mtu),
        "qos_profile": EOS_QOS_PROFILE,
        "ecn_min": _size(qos.ecn_min_bytes, " kbytes", " bytes"),
        "ecn_max": _size(qos.ecn_max_bytes, " kbytes", " bytes"),
        "watchdog_timeout": f"{qos.pfc_watchdog_detection_ms / 1000:g}",
        "watchdog_recovery": f"{qos.pfc_watchdog_restoration_ms / 1000:g}",
        # EOS wants the poll at most half the shorter of the two times.
        "watchdog_polling": f"{min(qos.pfc_watchdog_detection_ms, qos.pfc_watchdog_restoration_ms) / 2000:g}",
    }


def _nvue(device: DeviceConfig) -> dict[str, Any]:
    qos = device.qos
    return {
        "device": device,
        "ecn_min": _size(qos.ecn_min_bytes, "KB", "B"),
        "ecn_max": _size(qos.ecn_max_bytes, "KB", "B"),
        "watchdog_polling_ms": qos.pfc_watchdog_detection_ms // NVUE_WATCHDOG_ROBUSTNESS,
        "watchdog_robustness": NVUE_WATCHDOG_ROBUSTNESS,
    }


def _sonic(device: DeviceConfig) -> dict[str, Any]:
    return {"tables": config_db(device), "config_db_json": config_db_json}


@dataclass(frozen=True)
class Target:
    """How one network OS is rendered: entry template, file extension and template variables per device (what the
    OS can express is data: the catalog's ``targets``)."""

    template: str
    extension: str
    context: Context = _device


TARGETS: dict[str, Target] = {
    "frr": Target("frr/frr.conf.j2", "conf"),
    "eos": Target("eos/eos.cfg.j2", "cfg", _eos),
    "nvue": Target("nvue/startup.yaml.j2", "yaml", _nvue),
    "sonic": Target("sonic/config_db.json.j2", "json", _sonic),
}
"""Every network OS the designer renders, by the name an intent's ``targets`` uses."""


class TemplateError(Exception):
    """A template cannot be compiled or rendered; the message names the template file, its line and the fault."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}\nA template failed; nothing was written.")
        self.where = where


class Renderer:
    """One build's Jinja2 environment: user templates first, then the shipped ones, each compiled once."""

    def __init__(self, user_templates: Path | None = None):
        if not SHIPPED_TEMPLATES.is_dir():
            raise PrerequisiteError(f"the shipped templates are not at {SHIPPED_TEMPLATES}; install designer from "
                                    "its repository with 'pip install -e .' so that templates/ stays beside it")
        folders = [SHIPPED_TEMPLATES]
        if user_templates is not None and user_templates.resolve() != SHIPPED_TEMPLATES:
            folders.insert(0, user_templates)
        self.folders = folders
        environment = SandboxedEnvironment if len(folders) > 1 else jinja2.Environment
        self.environment = environment(
            loader=jinja2.FileSystemLoader([str(folder) for folder in folders]), undefined=jinja2.StrictUndefined,
            autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, auto_reload=False)
        self.templates: dict[str, jinja2.Template] = {}

    def template(self, target: str) -> jinja2.Template:
        """The compiled entry template of ``target`` (compiled on first use, then reused)."""
        if target not in self.templates:
            name = TARGETS[target].template
            try:
                self.templates[target] = self.environment.get_template(name)
            except jinja2.TemplateSyntaxError as error:
                raise TemplateError(f"{error.filename or error.name}:{error.lineno}", error.message or "") from None
            except jinja2.TemplateNotFound as error:
                raise TemplateError(name, f"template {error.name} not found in "
                                            f"{', '.join(map(str, self.folders))}") from None
        return self.templates[target]

    def render(self, target: str, device: DeviceConfig) -> str:
        """One device's configuration text for ``target``."""
        template = self.template(target)
        try:
            return template.render(TARGETS[target].context(device))
        except (jinja2.TemplateError, TypeError, ValueError, AttributeError) as error:
            raise TemplateError(self._where(template), f"{type(error).__name__}: {error} "
                                                       f"(rendering {device.hostname})") from None

    def _where(self, template: jinja2.Template) -> str:
        """``file:line`` of the innermost template frame of the exception being handled."""
        where = template.filename or template.name or "template"
        folders = [str(folder.resolve()) for folder in self.folders]
        traceback = sys.exc_info()[2]
        while traceback is not None:
            filename = traceback.tb_frame.f_code.co_filename
            if any(str(Path(filename).resolve()).startswith(folder) for folder in folders):
                where = f"{filename}:{traceback.tb_lineno}"
            traceback = traceback.tb_next
        return where


def config_path(target: str, hostname: str) -> str:
    """Where a device's configuration goes in the outputs: ``configs/<os>/<hostname>.<ext>``."""
    return f"configs/{target}/{hostname}.{TARGETS[target].extension}"


def render_configs(devices: Iterable[DeviceConfig], targets: Iterable[str],
                   user_templates: Path | None = None) -> dict[str, bytes]:
    """Every device's configuration for every target, by output path."""
    renderer = Renderer(user_templates)
    files: dict[str, bytes] = {}
    for target in sorted(targets):
        renderer.template(target)
        for device in devices:
            files[config_path(target, device.hostname)] = renderer.render(target, device).encode()
    return files


def user_templates_for(intent_file: str, explicit: Path | None) -> Path | None:
    """The user's template folder: ``explicit`` if given, else ``templates/`` beside the intent file if both exist
    (an intent given as text has no folder)."""
    if explicit is not None:
        return explicit
    if not Path(intent_file).is_file():
        return None
    beside = Path(intent_file).parent / "templates"
    return beside if beside.is_dir() else None

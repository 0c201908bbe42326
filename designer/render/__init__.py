"""Render every switch's configuration for each target network OS with Jinja2 templates.

``targets`` names each OS's entry template, file extension and view (one module per OS: ``linux`` for FRR and
its kernel settings, ``eos``, ``nvue``, ``sonic``) and companion files (FRR's sysctl.d file); ``environment``
holds the template search path (user overrides first), the sandbox and the bounds of a rendering.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from designer.backend.model import DeviceConfig
from designer.errors import TemplateError
from designer.render.environment import Renderer, user_templates_for
from designer.render.views import TARGETS, config_files, config_path, view_of
from designer.targets import per_switch

__all__ = [
    "TARGETS",
    "Renderer",
    "TemplateError",
    "config_files",
    "config_path",
    "render_configs",
    "rendered",
    "rendered_fabric",
    "user_templates_for",
]


def render_configs(
    devices: Iterable[DeviceConfig],
    targets: Iterable[str],
    user_templates: Path | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, bytes]:
    """Every device's configuration for every network OS of ``targets`` (a subnet manager has none), by output
    path; ``options`` are the intent's ``target_options`` (per target, its view's keyword arguments)."""
    return dict(rendered(devices, targets, Renderer(user_templates, options)))


def rendered(
    devices: Iterable[DeviceConfig], targets: Iterable[str], renderer: Renderer
) -> Iterator[tuple[str, bytes]]:
    """What :func:`render_configs` returns, one (output path, bytes) at a time, so that a writer holds one file."""
    devices = list(devices)
    for target in sorted(per_switch(tuple(targets))):
        renderer.template(target)
        for device in devices:
            for path, template in config_files(target, device.hostname, device.bgp.unnumbered):
                yield path, renderer.render(target, device, template).encode()


def rendered_fabric(
    targets: Iterable[str], fabric: Mapping[str, Any], renderer: Renderer
) -> Iterator[tuple[str, bytes]]:
    """The files of each of ``targets`` that configures the fabric as a whole (a subnet manager), by output path:
    its view is given ``fabric`` (its shape: ``tiers``, ``planes``) and the target's options from the intent."""
    for target in sorted(targets):
        variables = view_of(target)(**fabric, **renderer.options.get(target, {}))
        for path, template in TARGETS[target].fabric_files:
            yield path, renderer.render_template(template, variables, target).encode()

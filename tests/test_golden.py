"""Golden files: the device model and the rendered configuration of representative switches, per OS, and the
files of the first server in both addressing formats (``servers/``), for a small 2-tier and 3-tier intent. A model
change shows in ``model/``, a template change only in the OS folders.

After an intended change to a template or the device model, regenerate them with
``python -m pytest tests/test_golden.py --update-golden`` and review the diff like any other change.
"""

from __future__ import annotations

import dataclasses
import json
from functools import cache

import pytest

from designer.model import DeviceConfig
from designer.pipeline import build
from designer.render import TARGETS, config_path, render_configs
from designer.render.hosts import render_hosts
from tests.conftest import ROOT, check_golden

GOLDEN = ROOT / "tests" / "golden"
INTENTS = ("small-2tier", "small-3tier")


def representatives(intent: str) -> tuple[list[DeviceConfig], dict[str, bytes]]:
    """The first switch of each role (leaf, spine, super-spine) and every OS's rendering of it."""
    design = build(ROOT / "tests" / "intents" / f"{intent}.yaml")
    first: dict[str, DeviceConfig] = {}
    for device in design.configs:
        first.setdefault(device.role, device)
    devices = list(first.values())
    return devices, render_configs(devices, TARGETS)


@pytest.mark.parametrize("intent", INTENTS)
@pytest.mark.parametrize("os", sorted(TARGETS))
def test_rendered_configs_match_the_golden_files(intent: str, os: str, update_golden: bool) -> None:
    devices, files = representatives(intent)
    for device in devices:
        relative = config_path(os, device.hostname)
        check_golden(GOLDEN / intent / relative.removeprefix("configs/"), files[relative].decode(), update_golden)


def model_json(device: DeviceConfig) -> str:
    """The device model as JSON: every field of the switch, its interfaces, BGP and QoS."""
    return json.dumps(dataclasses.asdict(device), indent=1) + "\n"


@pytest.mark.parametrize("intent", INTENTS)
def test_device_model_matches_the_golden_files(intent: str, update_golden: bool) -> None:
    devices, _ = representatives(intent)
    for device in devices:
        check_golden(GOLDEN / intent / "model" / f"{device.hostname}.json", model_json(device), update_golden)


@cache
def server_files(intent: str) -> dict[str, bytes]:
    """The first server's files, with its NICs written as netplan and as NetworkManager keyfiles."""
    host = build(ROOT / "tests" / "intents" / f"{intent}.yaml").hosts[0]
    return {**render_hosts([dataclasses.replace(host, format="nmconnection")]), **render_hosts([host])}


@pytest.mark.parametrize("intent", INTENTS)
def test_server_files_match_the_golden_files(intent: str, update_golden: bool) -> None:
    for relative, data in server_files(intent).items():
        check_golden(GOLDEN / intent / relative, data.decode(), update_golden)


@pytest.mark.parametrize("intent", INTENTS)
def test_no_stale_golden_files(intent: str) -> None:
    devices, files = representatives(intent)
    expected = {relative.removeprefix("configs/") for relative in files}
    expected |= {f"model/{device.hostname}.json" for device in devices}
    expected |= set(server_files(intent))
    on_disk = {str(path.relative_to(GOLDEN / intent)) for path in (GOLDEN / intent).rglob("*") if path.is_file()}
    assert on_disk == expected, "remove golden files no test produces any more"

"""Golden files: the device model and the rendered configuration of representative switches, per OS, and the
files of the first server in both addressing formats (``servers/``), for a small 2-tier and 3-tier intent. A model
change shows in ``model/``, a template change only in the OS folders. An EOS-only design's cable plan and addresses
(``small-eos/``) name every port as EOS does. ``small-unnumbered`` is small-3tier with a BGP-unnumbered underlay
(SONiC's own FRR file in ``sonic-frr/``).

After an intended change to a template or the device model, regenerate them with
``python -m pytest tests/test_golden.py --update-golden`` and review the diff like any other change.
"""

from __future__ import annotations

import dataclasses
import json
from functools import cache

import pytest

from designer.backend.model import DeviceConfig
from designer.intent import parse_intent
from designer.outputs.tables import addressing_rows, cabling_rows, csv_bytes
from designer.pipeline import build, design
from designer.render import TARGETS, config_files, render_configs
from designer.render.servers import render_hosts
from designer.targets import NAMES, per_switch
from tests.conftest import ROOT, check_golden

GOLDEN = ROOT / "tests" / "golden"
INTENTS = ("small-2tier", "small-3tier", "small-800g-uplinks", "small-unnumbered")


@cache
def representatives(intent: str) -> tuple[list[DeviceConfig], dict[str, bytes]]:
    """The first switch of each role (leaf, spine, super-spine) and every OS's rendering of it, made once per intent
    (tests only read them)."""
    design = build(ROOT / "tests" / "intents" / f"{intent}.yaml")
    first: dict[str, DeviceConfig] = {}
    for device in design.configs:
        first.setdefault(device.role, device)
    devices = list(first.values())
    return devices, render_configs(devices, TARGETS)


@pytest.mark.parametrize("intent", INTENTS)
@pytest.mark.parametrize("os", sorted(per_switch(NAMES)))
def test_rendered_configs_match_the_golden_files(intent: str, os: str, update_golden: bool) -> None:
    devices, files = representatives(intent)
    for device in devices:
        for relative, _ in config_files(os, device.hostname, device.bgp.unnumbered):
            check_golden(GOLDEN / intent / relative.removeprefix("configs/"), files[relative].decode(), update_golden)


def model_json(device: DeviceConfig) -> str:
    """The device model as JSON: every field of the switch, its interfaces, BGP and QoS."""
    return json.dumps(plain(device), indent=1) + "\n"


def plain(value: object) -> object:
    """``value`` as JSON data: a dataclass or named tuple (an interface, a neighbor) as an object of its fields."""
    if dataclasses.is_dataclass(value):
        return {field.name: plain(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {name: plain(field) for name, field in value._asdict().items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


@pytest.mark.parametrize("intent", INTENTS)
def test_device_model_matches_the_golden_files(intent: str, update_golden: bool) -> None:
    devices, _ = representatives(intent)
    for device in devices:
        check_golden(GOLDEN / intent / "model" / f"{device.hostname}.json", model_json(device), update_golden)


@cache
def server_files(intent: str) -> dict[str, bytes]:
    """The first server's files, with its NICs written as netplan and as NetworkManager keyfiles."""
    path = ROOT / "tests" / "intents" / f"{intent}.yaml"
    keyfiles = design(parse_intent(path.read_text() + "hosts: {format: nmconnection}\n", path.name))
    return {**render_hosts(keyfiles.hosts[:1]), **render_hosts(build(path).hosts[:1])}


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


EOS_ONLY = "small-eos"


@pytest.mark.parametrize("table", ["cabling", "addressing"])
def test_an_eos_only_design_names_its_ports_as_eos(table: str, update_golden: bool) -> None:
    design = build(ROOT / "tests" / "intents" / f"{EOS_ONLY}.yaml")
    header, rows = {"cabling": cabling_rows, "addressing": addressing_rows}[table](design)
    text = csv_bytes(header, rows).decode()
    assert "swp" not in text and "Ethernet1/5," in text
    check_golden(GOLDEN / EOS_ONLY / f"{table}.csv", text, update_golden)
    devices, files = representatives(EOS_ONLY)
    for device in devices:
        relative = config_files("eos", device.hostname)[0][0]
        check_golden(GOLDEN / EOS_ONLY / relative.removeprefix("configs/"), files[relative].decode(), update_golden)

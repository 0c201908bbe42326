"""The recipes of docs/contributing.md, each proved by adding a toy one and building with it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from designer.findings import Finding
from designer.intent import parse_intent
from designer.pipeline import design
from tests.conftest import ROOT

INTENT = "name: toy\ncompute: {servers: 8, server: dgx-h100}\nfabric: {leaf: {model: generic-64x400g}}\n"
TOY_CARD = """\
# A toy OS: FRR's view, one template of its own.
label: Toy OS
technology: ethernet
template: toy/toy.conf.j2
extension: conf
view: linux
capabilities:
  {max_ecmp_paths: 64, max_mtu: 9216, min_pfc_watchdog_ms: null,
   port_names: {whole: "port{cage}", broken_out: "port{cage}.{subport}"},
   load_balancing: {modes: [ecmp], hashes: [five-tuple], seeds: [per-tier], seed_range: null},
   underlays: [numbered]}
"""
TOY_TEMPLATE = """\
hostname {{ device.hostname }}
{% for name in device.os_port_names["toy"] %}
port {{ name }}
{% endfor %}
"""
WITH_THE_TOY_CARD = """\
import sys
from pathlib import Path

import pytest

from designer import targets

targets.TARGETS["toy"] = targets.card(Path(sys.argv[1]))
targets.NAMES = tuple(targets.TARGETS)
from designer.cli import main

sys.exit(main(sys.argv[2:]))
"""
"""The command line with one more card among the shipped ones, as a new file in designer/targets/ and its name in
``CARDS`` make it (the intent's schema reads the cards when it is imported)."""


TOY_HARDWARE = """\
# A toy switch and a toy rack-scale system, in designer/catalog.yaml's format.
switches:
  toy-64x800g: {ports: 64, speed: 800, rack_units: 2, power_w: 1100, power_w_optics: 2800}
systems:
  toy-nvl36:
    {trays: 9, tray_gpus: 4, tray_nics: 4, nic: nvidia-cx7, nic_speed: 400, planes: 1, north_south_nics: 1,
     north_south_nic: nvidia-bluefield3, tray_rack_units: 1, nvlink_switch_trays: 9, power_shelves: 4,
     management_switches: 1, power_kw: 66.0, management_switch: nvidia-sn2201,
     management_ports: {compute_tray: [bmc], nvlink_switch_tray: [bmc], power_shelf: [mgmt]},
     power_source: "a toy half rack", cooling: liquid, nvlink_gbyte_s: 900,
     rack_layout: [[management_switch, 1, 1], [power_shelf, 2, 1], [compute_tray, 5, 1], [nvlink_switch_tray, 9, 1],
                   [compute_tray, 4, 1], [power_shelf, 2, 1]],
     rack_layout_source: "a toy layout"}
"""


def _files(folder: Path) -> dict[str, bytes]:
    return {path.relative_to(folder).as_posix(): path.read_bytes() for path in folder.rglob("*") if path.is_file()}


def _designer(tmp_path: Path, *args: str, card: bool = True) -> subprocess.CompletedProcess[str]:
    """``designer ARGS`` in a process of its own (with the toy card when ``card``)."""
    shipped = "import sys\nfrom designer.cli import main\n\nsys.exit(main(sys.argv[1:]))\n"
    command = [sys.executable, "-c", *((WITH_THE_TOY_CARD, str(tmp_path / "toy.yaml")) if card else (shipped,))]
    return subprocess.run([*command, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False)


def test_a_new_os_card_builds_with_its_template_and_changes_no_existing_design(tmp_path: Path) -> None:
    """docs/contributing.md, "A new network OS": a card (``default`` left out: false), a template under
    templates/<os>/. An intent that names it gets its files, with its port names; an intent without ``targets``
    keeps the shipped defaults, byte for byte."""
    (tmp_path / "toy.yaml").write_text(TOY_CARD)
    (tmp_path / "templates" / "toy").mkdir(parents=True)
    (tmp_path / "templates" / "toy" / "toy.conf.j2").write_text(TOY_TEMPLATE)
    (tmp_path / "default.yaml").write_text(INTENT)
    (tmp_path / "named.yaml").write_text(INTENT + "targets: [frr, toy]\n")
    templates = ("--templates", str(tmp_path / "templates"))

    named = _designer(tmp_path, "build", "named.yaml", "-o", "named", *templates)
    assert named.returncode == 0, named.stderr
    toy = _files(tmp_path / "named" / "configs" / "toy")
    assert sorted(toy) == sorted(_files(tmp_path / "named" / "configs" / "frr"))  # a file per switch
    leaf = toy["p0-su0-r0-leaf.conf"].decode()
    assert leaf.startswith("hostname p0-su0-r0-leaf\nport port1\nport port2\n"), leaf[:200]

    with_card = _designer(tmp_path, "build", "default.yaml", "-o", "with-card", *templates)
    without = _designer(tmp_path, "build", "default.yaml", "-o", "without", *templates, card=False)
    assert with_card.returncode == without.returncode == 0, with_card.stderr + without.stderr
    assert _files(tmp_path / "with-card") == _files(tmp_path / "without")
    assert not (tmp_path / "with-card" / "configs" / "toy").exists()


def test_every_shipped_card_is_in_the_cards_order_and_a_card_takes_only_known_fields(tmp_path: Path) -> None:
    """Each designer/targets/<name>.yaml is named in ``CARDS`` (a card left out would never load); a network OS's
    card gives what its configuration can express (the catalog's ``targets`` entry), a subnet manager's gives its
    port names instead; a field no record has is refused, naming it."""
    from designer.targets import CARDS, TARGETS, card

    folder = ROOT / "designer" / "targets"
    assert sorted(path.stem for path in folder.glob("*.yaml")) == sorted(CARDS)
    for name, target in TARGETS.items():
        assert bool(target.capabilities) == bool(target.template) != bool(target.port_names), name
    (tmp_path / "toy.yaml").write_text(TOY_CARD + "colour: blue\n")
    with pytest.raises(TypeError, match="colour"):
        card(tmp_path / "toy.yaml")


def test_a_new_switch_and_rack_scale_system_build_from_their_catalog_entries(tmp_path: Path) -> None:
    """docs/contributing.md, "A new switch" and "A new rack-scale system": an entry in designer/catalog.yaml's
    format (here a site catalog, which takes the same entries) is all a design needs: the leaves are the toy
    switch, every system is a rack of the toy's layout, and the bill of materials counts its parts."""
    (tmp_path / "hardware.yaml").write_text(TOY_HARDWARE)
    intent = tmp_path / "toy.yaml"
    intent.write_text(
        "name: toy\ncatalog: hardware.yaml\ncompute: {system: toy-nvl36, systems: 4}\n"
        "fabric: {leaf: {model: toy-64x800g}}\n"
    )
    built = design(parse_intent(intent.read_text(), str(intent)), processes=1, seeds=2)
    assert {config.model for config in built.configs if config.role == "leaf"} == {"toy-64x800g"}
    assert built.intent.servers == 36 and built.plan.gpus == 144
    assert not [finding for finding in built.findings if finding.severity == "error"]
    bom = {line.item: line.count for line in built.physical.bom}
    assert bom["toy-nvl36 NVLink switch tray"] == 36 and bom["toy-nvl36 power shelf"] == 16
    assert bom["toy-nvl36 rack"] == 4 and bom["toy-64x800g"] == 6
    compute = [rack for rack in built.physical.racks if rack.role == "compute"]
    assert len(compute) == 4 and {len(rack.devices) for rack in compute} == {9}  # the trays of one system a rack
    assert {len(rack.parts) for rack in compute} == {9 + 4 + 1}  # its NVLink switch trays, shelves and switch


def _toy_check() -> ModuleType:
    """A check as docs/contributing.md's recipe makes one: ``ID``, ``DESCRIPTION``, ``SEVERITY`` and ``check``."""
    module = ModuleType("designer.checks.toy_leaf_count")
    module.ID = "toy-leaf-count"  # type: ignore[attr-defined]
    module.DESCRIPTION = "at most 4 leaves"  # type: ignore[attr-defined]
    module.SEVERITY = "error"  # type: ignore[attr-defined]

    def check(built: Any) -> Iterator[Finding]:
        leaves = [config.hostname for config in built.configs if config.role == "leaf"]
        if len(leaves) > 4:
            yield Finding(
                "toy-leaf-count", "error", f"{len(leaves)} leaves, more than 4", leaves[0], {"leaves": len(leaves)}
            )

    module.check = check  # type: ignore[attr-defined]
    return module


def test_a_new_check_runs_beside_the_shipped_ones_and_every_report_carries_it() -> None:
    """docs/contributing.md, "A new check": a module of that shape, in the registry's order, runs in the checks'
    workers and appears in designer check's text, JSON and JUnit and in the counts, failing the gate when it finds
    an error."""
    from designer.checks import CHECKS, counts, formats, run, status

    toy = _toy_check()
    registry = (*CHECKS, toy)
    built = design(parse_intent(INTENT, "toy.yaml"), processes=1, seeds=2)
    findings = run(built, workers=2, checks=registry)
    assert [finding.message for finding in findings if finding.check == "toy-leaf-count"] == ["8 leaves, more than 4"]
    assert status(findings, registry)["toy-leaf-count"] == "failed"
    shipped = [finding for finding in findings if finding.check != "toy-leaf-count"]
    assert shipped == list(built.findings)  # the shipped checks find what the build found
    assert counts(findings, registry)["failed"] == counts(shipped, CHECKS)["failed"] + 1
    assert "toy-leaf-count" in formats.text(findings, "toy", registry)
    assert '"toy-leaf-count"' in formats.json_report(findings, "toy", registry)
    assert 'name="toy-leaf-count"' in formats.junit(findings, "toy", registry)

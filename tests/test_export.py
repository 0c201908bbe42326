"""designer export avd: the written AVD inventory, group and host variables, read back as Ansible would merge them
and run through Arista's own pipeline (pyavd, Apache-2.0, Arista Networks: validate_inputs, get_avd_facts,
get_device_structured_config, validate_structured_config, get_device_config), give every switch the routed
interfaces, BGP neighbors and ASN of designer's EOS file; a 3-tier design and a folder that is not an export are
refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.verify.pyavd_eos import fabric_differences
from tests.conftest import ROOT
from tests.prerequisites import ANTA, PYAVD, needs
from tests.test_intent_errors import run_cli

NEED_PYAVD = "designer export avd is proven with Arista's pyavd: pip install pyavd (or pip install '.[test]')"


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """small-2tier built (leaves of 800G cages run as 2 x 400G, spines of 400G ports: the two ends of an uplink have
    different EOS speeds) and exported."""
    work = tmp_path_factory.mktemp("export")
    built, export = work / "small-2tier", work / "avd"
    assert run_cli("build", str(ROOT / "tests" / "intents" / "small-2tier.yaml"), "-o", str(built))[0] == 0
    code, out, err = run_cli("export", "avd", str(built), "-o", str(export))
    assert (code, err) == (0, ""), err
    assert out == f"wrote 9 files to {export} (Arista AVD eos_designs inputs)\n"
    return built, export


def merged_inputs(folder: Path) -> dict[str, dict[str, Any]]:
    """Each host's variables as Ansible gives them to AVD: the fabric group's, then the host's own."""
    inventory = yaml.safe_load((folder / "inventory.yml").read_text())
    ((fabric, tree),) = inventory["all"]["children"].items()
    settings = yaml.safe_load((folder / "group_vars" / f"{fabric}.yml").read_text())
    return {
        hostname: {**settings, **yaml.safe_load((folder / "host_vars" / f"{hostname}.yml").read_text())}
        for group in tree["children"].values()
        for hostname in group["hosts"]
    }


def test_the_export_is_laid_out_as_documented(exported: tuple[Path, Path]) -> None:
    _, export = exported
    assert sorted(str(path.relative_to(export)) for path in export.rglob("*") if path.is_file()) == [
        "group_vars/small-2tier.yml",
        "host_vars/p0-spine0.yml",
        "host_vars/p0-spine1.yml",
        "host_vars/p0-su0-r0-leaf.yml",
        "host_vars/p0-su0-r1-leaf.yml",
        "host_vars/p0-su1-r0-leaf.yml",
        "host_vars/p0-su1-r1-leaf.yml",
        "inventory.yml",
        "manifest.json",
    ]
    groups = yaml.safe_load((export / "inventory.yml").read_text())["all"]["children"]["small-2tier"]["children"]
    assert {group: sorted(hosts["hosts"]) for group, hosts in groups.items()} == {
        "SPINES": ["p0-spine0", "p0-spine1"],
        "L3LEAFS": ["p0-su0-r0-leaf", "p0-su0-r1-leaf", "p0-su1-r0-leaf", "p0-su1-r1-leaf"],
    }
    leaf = merged_inputs(export)["p0-su0-r0-leaf"]["l3leaf"]["nodes"][0]
    assert (leaf["uplink_interface_speed"], leaf["uplink_switch_interface_speed"]) == ("400g-4", "400g-8")
    manifest = json.loads((export / "manifest.json").read_text())
    assert (manifest["tool"], manifest["export"], len(manifest["files"])) == ("designer", "avd", 8)


@needs(PYAVD)
def test_aristas_pipeline_builds_designers_fabric_from_the_export(exported: tuple[Path, Path], tmp_path: Path) -> None:
    import pyavd

    built, export = exported
    inputs = merged_inputs(export)
    validated = {}
    for hostname, variables in inputs.items():
        result = pyavd.validate_inputs(variables)
        problems = [*result.validation_result.violations, *result.validation_result.deprecations]
        assert not problems and result.validated_data is not None, (hostname, problems)
        validated[hostname] = result.validated_data
    facts = pyavd.get_avd_facts(validated)
    arista = tmp_path / "avd"
    arista.mkdir()
    for hostname, variables in validated.items():
        structured = pyavd.get_device_structured_config(hostname, variables, facts)._as_dict()
        checked = pyavd.validate_structured_config(structured)
        assert not checked.validation_result.violations, (hostname, checked.validation_result.violations)
        (arista / f"{hostname}.cfg").write_text(pyavd.get_device_config(checked.validated_data))
    assert fabric_differences(built / "configs" / "eos", arista) == []


def test_an_unnumbered_design_is_refused_with_the_reason(tmp_path: Path) -> None:
    intent = tmp_path / "unnumbered.yaml"
    intent.write_text(
        (ROOT / "tests" / "intents" / "small-2tier.yaml")
        .read_text()
        .replace("routing:\n", "routing:\n  underlay: unnumbered\n")
    )
    built = tmp_path / "built"
    assert run_cli("build", str(intent), "-o", str(built))[0] == 0
    code, out, err = run_cli("export", "avd", str(built), "-o", str(tmp_path / "avd"))
    assert (code, out) == (2, "")
    assert "routing.underlay: the AVD export places each leaf's uplinks by their /31s" in err
    assert not (tmp_path / "avd").exists()


def test_a_three_tier_design_and_a_foreign_folder_are_refused(exported: tuple[Path, Path], tmp_path: Path) -> None:
    built = tmp_path / "small-3tier"
    assert run_cli("build", str(ROOT / "tests" / "intents" / "small-3tier.yaml"), "-o", str(built))[0] == 0
    code, out, err = run_cli("export", "avd", str(built), "-o", str(tmp_path / "avd"))
    assert (code, out) == (2, "")
    assert "fabric.tiers: AVD's eos_designs inventory has leaf and spine nodes only, and this design has " in err
    assert not (tmp_path / "avd").exists()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    code, _, err = run_cli("export", "avd", str(exported[0]), "-o", str(foreign))
    assert code == 2 and "refusing to replace" in err
    assert (foreign / "notes.txt").read_text() == "mine"


@needs(PYAVD, ANTA)
def test_the_anta_catalog_made_by_pyavd_loads_in_anta_and_expects_the_designed_cables(
    exported: tuple[Path, Path], tmp_path: Path
) -> None:
    """``designer export anta``: pyavd's catalog and the inventory load with the real ``anta`` package (AntaCatalog,
    AntaInventory), every switch gets its tests by its tag, and the LLDP neighbours ANTA will expect are the design's
    fabric cables under the EOS names of designer's configurations (tests/test_audit.py reads the same names)."""
    from anta.catalog import AntaCatalog
    from anta.inventory import AntaInventory

    from tests.test_audit import designed_peers, eos_names

    built, _ = exported
    target = tmp_path / "anta"
    code, out, err = run_cli("export", "anta", str(built), "-o", str(target))
    assert (code, out, err) == (0, f"wrote 3 files to {target} (an ANTA catalog)\n", "")
    catalog = AntaCatalog.parse(target / "catalog.yml")
    catalog.build_indexes()
    inventory = AntaInventory.parse(target / "inventory.yml", username="admin", password="admin")
    switches = sorted(path.stem for path in (built / "configs" / "eos").glob("*.cfg"))
    assert sorted(inventory) == switches
    for switch in switches:
        names = {test.test.__name__ for test in catalog.get_tests_by_tags({switch})}
        assert {"VerifyLLDPNeighbors", "VerifyBGPPeerSession", "VerifyReachability"} <= names, switch
    peers, eos = designed_peers(built), eos_names(built)
    expected = {
        (device, eos[(device, port)], peer, eos[(peer, peer_port)])
        for (device, port), (peer, peer_port) in peers.items()
        if (device, port) in eos and (peer, peer_port) in eos
    }
    found = {
        (next(iter(test.inputs.filters.tags)), neighbor.port, neighbor.neighbor_device, neighbor.neighbor_port)
        for test in catalog.tests
        if test.test.__name__ == "VerifyLLDPNeighbors"
        for neighbor in test.inputs.neighbors
    }
    assert found == expected and len(found) == 32

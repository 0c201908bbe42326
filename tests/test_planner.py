"""The planner's plans hold: what it places, wires and configures passes its own checks and its own lab.

``tests/intents/planner-nets.yaml`` is a four-network design as a new user writes it (16 DGX H100 at 10.2 kW in
41 kW racks, with a frontend and a storage network whose top-of-rack leaves and the management switches stand in
every compute rack): the placement keeps each compute rack within its budget with them, and each frontend spine's
ECMP width covers every link to both leaves of a dual-homed server's pair (FRR installs one next hop per link:
the lab's kernel routes check counts them). A grid of such intents (sizes, targets, each network on and off, each
dual-homing mode, rack budgets) builds with no check failed; a sample of it converges in ``designer verify``.

A hall whose row length the intent leaves open gets the length whose longest run is shortest, each scalable unit in
a row of its own, and keeps it as the fabric grows inside its plan.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from benchmarks.planner_grid import failed_checks, grid, write
from designer.backend.physical import RowLength
from designer.backend.wiring import LINK_TIERS
from designer.design import Design
from designer.outputs.build import design_files
from designer.outputs.summary import summary_markdown
from designer.pipeline import build
from designer.verify.report import text
from designer.verify.run import verify
from tests.conftest import ROOT
from tests.helpers import build_text
from tests.prerequisites import FRR_LAB, needs
from tests.test_intent_errors import run_cli
from tests.test_verify_frontend import spine_widths

NETS = ROOT / "tests" / "intents" / "planner-nets.yaml"


@cache
def nets_design() -> Design:
    return build(NETS)


@cache
def nets() -> dict[str, bytes]:
    return design_files(nets_design())


def test_the_four_network_design_passes_its_own_checks() -> None:
    built = nets_design()
    assert [finding.message for finding in built.findings if finding.severity == "error"] == []
    budget = built.intent.facility.rack_power_kw
    added = built.networks.physical.added_kw if built.networks else {}
    racks = [rack for rack in built.physical.racks if rack.role == "compute"]
    assert racks and all(rack.kw + added.get(rack.name, 0) <= budget for rack in racks)
    # 4 DGX H100 (40.8 kW) fill the 41 kW budget alone: the networks' leaves and management switch take one's room
    assert built.physical.servers_per_rack == 3
    summary = nets()["summary.md"].decode()
    assert "A compute rack holds 3 servers where its 41 kW budget and 48 units would hold 4" in summary


@needs(FRR_LAB)
def test_the_four_network_design_converges_in_the_lab_with_every_path_installed() -> None:
    report = verify(nets(), progress=lambda _: None)
    assert report.passed, text(report)
    routes = next(check for check in report.checks if check.name == "kernel routes")
    assert "ECMP shrinks" not in routes.summary  # the healthy fabric: every frontend spine holds 16 paths


def test_a_frontend_spine_installs_a_path_over_every_link_to_a_dual_homed_servers_leaves() -> None:
    widths = spine_widths(json.loads(nets()["design.json"]), nets())
    # 3:1 leaves of 64 ports send 16 uplinks to 2 spines: 8 links from each leaf of the pair, 16 paths
    assert widths and all(paths == links == 16 for paths, links in widths.values()), widths


SAMPLE = grid()[::11]
"""Every eleventh intent of the grid: each size, target set, dual-homing mode, network and budget at least once
(``benchmarks/planner_grid.py`` builds the whole grid)."""


@pytest.mark.parametrize("intent", SAMPLE, ids=lambda intent: intent["name"])
def test_every_plan_of_the_grid_passes_its_own_checks(intent: dict, tmp_path: Path) -> None:
    assert failed_checks(write(tmp_path, intent)) == []


def test_the_sample_covers_every_value_of_the_grid() -> None:
    for key in ("compute", "targets", "facility"):
        assert {json.dumps(intent[key]) for intent in SAMPLE} == {json.dumps(intent[key]) for intent in grid()}
    for network in ("storage", "oob"):
        assert {network in intent["networks"] for intent in SAMPLE} == {True, False}
    assert {intent["networks"]["frontend"]["dual_homing"] for intent in SAMPLE} == {"none", "bgp"}


@needs(FRR_LAB)
@pytest.mark.parametrize("name", ["grid-16-sonic-none-11-22"])
def test_a_sample_of_the_grid_converges_in_the_lab_and_survives_its_failures(name: str, tmp_path: Path) -> None:
    intent = next(intent for intent in grid() if intent["name"] == name)
    report = verify(design_files(build(write(tmp_path, intent))), progress=lambda _: None)
    assert report.passed, text(report)
    assert len(report.converged_seconds) > 1  # the healthy fabric and each failure injected after it


@cache
def hall(servers: int, racks_per_row: int | None = None) -> Design:
    """4,096 H100 GPUs now (``servers``: 512) on 64 x 800G leaves run as 128 x 400G, SONiC with FRR, planned for
    8,192: scalable units of 64 servers, 16 compute racks and a leaf rack each (built once a run)."""
    row = f"facility: {{racks_per_row: {racks_per_row}}}\n" if racks_per_row else ""
    return build_text(
        f"name: hall\ncompute: {{servers: {servers}, server: dgx-h100}}\ngrowth: {{max_servers: 1024}}\n"
        f"fabric: {{leaf: {{model: nvidia-sn5600}}}}\ntargets: [sonic, frr]\n{row}"
    )


def longest(design: Design) -> dict[str, float]:
    """Each tier's longest cable run in metres."""
    runs: dict[str, float] = {}
    for (tier, *_), length in zip(design.fabric.links, design.physical.link_length_dm, strict=True):
        runs[LINK_TIERS[tier]] = max(runs.get(LINK_TIERS[tier], 0.0), length / 10)
    return runs


def test_an_open_row_length_keeps_each_scalable_unit_in_a_row_and_the_longest_run_short() -> None:
    chosen, sixteen = hall(512), hall(512, racks_per_row=16)
    assert chosen.physical.row == RowLength(17, False, 17, 32, chosen.physical.row.estimated_m)
    assert sixteen.physical.row.given and sixteen.physical.row.racks == 16
    # rows of 16 wrap every 17-rack unit: its leaf rack's cables run across rows
    assert longest(sixteen) == {"server_leaf": 10.3, "leaf_spine": 27.3}
    assert longest(chosen) == {"server_leaf": 8.5, "leaf_spine": 23.2}
    units = {(rack.su, rack.row) for rack in chosen.physical.racks if rack.su >= 0}
    assert len(units) == len({su for su, _ in units})  # one row each
    summary = summary_markdown(chosen)
    assert "Rows of 17 racks, chosen among rows of 1 to 32 racks (`facility.max_racks_per_row`)" in summary
    assert "a scalable unit's 17 racks stand in one row" in summary
    assert "Longest run per tier, slack (1 m) included: server-leaf 8.5 m, leaf-spine 23.2 m." in summary
    assert "Rows of 16 racks, as the intent gives them (`facility.racks_per_row`)" in summary_markdown(sixteen)


def test_the_chosen_row_length_holds_as_the_fabric_grows_inside_its_plan() -> None:
    now, grown = hall(512), hall(1024)
    assert now.physical.row == grown.physical.row
    racks = {rack.name: (rack.row, rack.position) for rack in now.physical.racks}
    assert racks.items() <= {rack.name: (rack.row, rack.position) for rack in grown.physical.racks}.items()
    names = [device.name for device in now.fabric.devices]
    grown_index = {device.name: number for number, device in enumerate(grown.fabric.devices)}
    for number, name in enumerate(names):
        other = grown_index[name]
        assert (now.physical.racks[now.physical.device_rack[number]].name, now.physical.device_unit[number]) == (
            grown.physical.racks[grown.physical.device_rack[other]].name,
            grown.physical.device_unit[other],
        )


def test_a_rack_too_small_for_one_server_beside_the_networks_switches_is_refused_at_plan_time(tmp_path: Path) -> None:
    """Rather than a plan whose networks check fails: 10.2 kW of DGX H100 and the 3 top-of-rack leaves and the
    management switch of the four networks (5.05 kW) do not fit in an 11 kW rack."""
    intent = tmp_path / "small-racks.yaml"
    intent.write_text(NETS.read_text() + "facility: {rack_power_kw: 11}\n")
    code, out, err = run_cli("build", str(intent), "-o", str(tmp_path / "out"))
    assert (code, out) == (2, "") and not (tmp_path / "out").exists()
    assert (
        "facility.rack_power_kw: a compute rack of one 10.2 kW server with the networks' 3 top-of-rack leaves and "
        "their management switches draws 15.25 kW, over its 11 kW budget; give a rack_power_kw of at least 15.3"
    ) in err
    intent.write_text(NETS.read_text() + "facility: {rack_power_kw: 15.3}\n")
    assert failed_checks(intent) == []

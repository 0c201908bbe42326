"""designer explore: the Pareto front, candidates that build as reported, failure reasons and bad --vary input."""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from designer.backend.physical import plan_physical
from designer.catalog import catalog
from designer.explore import MAX_CANDIDATES, Dimension, candidate_names, pareto
from designer.explore.alike import design_like, wired_alike
from designer.explore.run import _batches
from designer.intent import parse_intent
from designer.intent.fields import MEDIA
from designer.networks.cluster import top_kept
from designer.pipeline import design
from tests.test_intent_errors import run_cli

SMALL = """\
name: small
compute: {servers: 16, server: dgx-h100}
fabric: {leaf: {model: generic-64x400g}}
workloads:
  - {name: ring, bytes: 10GB, placement: scattered}
"""
"""128 GPUs on 16 servers: every candidate builds in well under a second."""
MID = """\
name: mid
compute: {servers: 128, server: dgx-h100}
fabric: {leaf: {model: generic-32x400g}}
"""
"""1,024 GPUs on 32-port leaves: two tiers hold only 64 servers, so tiers: 2 fails."""


def row(switches: int = 10, power: float = 100.0, time: float | None = 1.0, bisection: float = 0.9) -> dict[str, Any]:
    return {
        "switches": switches,
        "power_kw": power,
        "racks": 4,
        "cables": 100,
        "optics": 50,
        "failure_bisection": bisection,
        "workloads": [{"name": "job", "time_s_p50": time}],
    }


def test_the_front_keeps_what_no_other_candidate_beats_everywhere() -> None:
    rows = [
        row(switches=10, power=100),  # beaten by the next one: as good everywhere, fewer watts
        row(switches=10, power=90),
        row(switches=8, power=120),  # fewer switches, more power: a trade-off, on the front
        row(switches=10, power=90, time=0.5),  # beats row 1 on job time
        row(switches=10, power=90, time=0.5, bisection=0.95),  # and this one beats it on the failure left
        row(switches=12, power=200, time=None),  # no job time (infinite) and worse elsewhere
    ]
    assert pareto(rows) == [False, False, True, False, True, False]


def test_equal_candidates_are_both_on_the_front() -> None:
    assert pareto([row(), row()]) == [True, True]
    assert pareto([]) == []


def test_higher_failure_bisection_is_better() -> None:
    assert pareto([row(bisection=0.5), row(bisection=0.75)]) == [False, True]


def test_names_come_from_the_values_and_stay_when_a_list_grows() -> None:
    models = Dimension(("fabric", "leaf", "model"), ("generic-64x400g", "nvidia-sn5600"))
    planes = Dimension(("fabric", "planes"), (1, 2))
    picks = [(0, 0), (0, 1), (1, 0), (1, 1)]
    names = candidate_names("cluster-a", [models, planes], picks)
    assert names == [
        "cluster-a_generic-64x400g_1",
        "cluster-a_generic-64x400g_2",
        "cluster-a_nvidia-sn5600_1",
        "cluster-a_nvidia-sn5600_2",
    ]
    grown = Dimension(("fabric", "planes"), (1, 2, 4))
    assert candidate_names("cluster-a", [models, grown], [(1, 1), (1, 2)]) == [
        "cluster-a_nvidia-sn5600_2",
        "cluster-a_nvidia-sn5600_4",
    ]
    # Values that spell alike fall back to their places in the list, still structural.
    alike = Dimension(("description",), ("a b", "a/b"))
    assert candidate_names("c", [alike], [(0,), (1,)]) == ["c_1", "c_2"]
    assert candidate_names("x" * 63, [planes], [(0,)]) == ["x" * 61 + "_1"]


def test_every_written_candidate_builds_with_the_reported_counts(tmp_path: Path) -> None:
    intent = tmp_path / "small.yaml"
    intent.write_text(SMALL)
    folder = tmp_path / "explored"
    code, out, err = run_cli(
        "explore",
        str(intent),
        "--vary",
        "fabric.leaf.model=generic-64x400g,generic-64x800g,arista-7060x6-64pe",
        "--vary",
        "fabric.planes=1,2",
        "--vary",
        "facility.media=copper,optics",
        "--format",
        "json",
        "-o",
        str(folder),
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["tried"] == 12
    candidates = report["candidates"]
    assert len(candidates) == 12
    assert {candidate["values"]["facility.media"] for candidate in candidates if candidate["pareto"]} == {"copper"}
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        [*(f"{candidate['name']}.yaml" for candidate in candidates), "explore.svg", "manifest.json"]
    )
    assert "<svg" in (folder / "explore.svg").read_text()
    for candidate in candidates:
        written = folder / f"{candidate['name']}.yaml"
        built = tmp_path / "built" / candidate["name"]
        code, _, err = run_cli("build", str(written), "-o", str(built))
        assert code == 0, err
        design = json.loads((built / "design.json").read_text())
        summary = design["summary"]
        assert summary["name"] == candidate["name"]
        assert summary["planes"] == candidate["values"]["fabric.planes"] == candidate["planes"]
        assert summary["tiers"] == candidate["tiers"]
        assert sum(summary["switches"].values()) == candidate["switches"]
        assert summary["power_kw"]["total"] == candidate["power_kw"]
        assert summary["power_kw"]["facility"] == candidate["facility_kw"]
        assert summary["racks"]["total"] == candidate["racks"]
        with (built / "cabling.csv").open() as handle:
            cabling = list(csv.DictReader(handle))
        assert len(cabling) == candidate["cables"]
        assert dict(Counter(link["medium"] for link in cabling)) == candidate["cables_by_medium"]
        with (built / "bom.csv").open() as handle:
            bom = list(csv.DictReader(handle))
        switches = {line["item"]: int(line["count"]) for line in bom if line["category"] == "switch"}
        by_model = Counter[str]()
        for tier in candidate["switches_by_tier"].values():
            by_model[tier["model"]] += tier["count"]
        assert switches == dict(by_model)
        optics = sum(int(line["count"]) for line in bom if line["category"] == "transceiver")
        assert optics == candidate["optics"]
        job = summary["workloads"][0]
        assert job["ecmp"]["time_s_p50"] == candidate["workloads"][0]["time_s_p50"]
        assert job["ecmp"]["efficiency_p50"] == candidate["workloads"][0]["efficiency_p50"]
        fractions = [f["evidence"]["bisection_fraction"] for f in design["findings"] if f["check"] == "failure-impact"]
        assert min(fractions) == candidate["failure_bisection"]


def test_failed_candidates_are_counted_by_reason(tmp_path: Path) -> None:
    intent = tmp_path / "mid.yaml"
    intent.write_text(MID)
    code, out, err = run_cli(
        "explore", str(intent), "--vary", "fabric.tiers=2,3", "--vary", "facility.rack_power_kw=8,50"
    )
    assert code == 0, err
    assert "4 candidates over fabric.tiers (2), facility.rack_power_kw (2); 1 pass every check" in out
    assert (
        "  2 fabric.tiers: 2 tiers hold at most 32 leaves per plane (64 servers, 512 NIC ports per plane) with "
        "32-port spines" in out
    )
    assert "  1 fail the rack-power check (it requires: no rack draws more than its power budget)" in out
    assert "* mid_3_50 " in out.replace("*  ", "* ")


def test_an_empty_space_is_explained_and_exits_1(tmp_path: Path) -> None:
    intent = tmp_path / "mid.yaml"
    intent.write_text(MID)
    code, out, _ = run_cli("explore", str(intent), "--vary", "fabric.tiers=2", "--format", "json")
    assert code == 1
    report = json.loads(out)
    assert report["candidates"] == []
    assert [failure["count"] for failure in report["failed"]] == [1]
    code, out, _ = run_cli("explore", str(intent), "--vary", "fabric.tiers=2")
    assert code == 1
    assert "no candidate passes; the reasons below say why the space is empty" in out


@pytest.mark.parametrize(
    ("vary", "expected"),
    [
        (
            ["fabric.leaf.modle=x"],
            "--vary:1: fabric.leaf.modle: unknown field 'modle' in fabric.leaf; valid keys there: model, ports, speed,",
        ),
        (["fabric.planes=1,9"], "--vary:1: fabric.planes: '9' is refused: Input should be less than or equal to 8"),
        (
            ["fabric.planes=1", "fabric.leaf.model=nvidia-sn5600,nope"],
            "--vary:2: fabric.leaf.model: 'nope' is refused: unknown switch model 'nope'; known models: "
            "arista-7060x6-64pe,",
        ),
        (["fabric.tiers=2,4"], "--vary:1: fabric.tiers: '4' is refused: Input should be 'auto', 2 or 3"),
        (
            ["fabric=1"],
            "--vary:1: fabric: is a section; vary one of its fields: technology, planes, tiers, leaf, spine",
        ),
        (["workloads.gpus=8"], "workloads is a list of sections; explore varies single values"),
        (["fabric.planes"], "'fabric.planes' should be PATH=V1,V2,... such as fabric.planes=1,2"),
        (["fabric.planes=1", "fabric.planes=2"], "--vary:2: fabric.planes: is varied twice"),
        (["name=a,b"], "--vary:1: name: explore names each candidate itself"),
        (["description=2024-01-01"], "--vary:1: description: '2024-01-01' is refused: Input should be a valid string"),
        (
            [
                "fabric.planes=1,2,3,4,5,6,7,8",
                "fabric.tiers=2,3,auto",
                "routing.leaf_asn_start=" + ",".join(str(4_200_000_000 + n) for n in range(11)),
            ],
            f"264 candidates (fabric.planes 8, fabric.tiers 3, routing.leaf_asn_start 11 values) is more than the "
            f"{MAX_CANDIDATES} one exploration builds; narrow it",
        ),
    ],
)
def test_bad_vary_exits_2_with_what_would_be_valid_and_writes_nothing(
    tmp_path: Path, vary: list[str], expected: str
) -> None:
    intent = tmp_path / "small.yaml"
    intent.write_text(SMALL)
    folder = tmp_path / "explored"
    options = [part for option in vary for part in ("--vary", option)]
    code, out, err = run_cli("explore", str(intent), *options, "-o", str(folder))
    assert code == 2
    assert out == ""
    assert expected in err
    assert err.rstrip().endswith("nothing was written.")
    assert "Traceback" not in err
    assert not folder.exists()


def test_without_vary_it_varies_what_the_intent_leaves_open(tmp_path: Path) -> None:
    intent = tmp_path / "open.yaml"
    intent.write_text(
        "name: open\ncompute: {servers: 16, server: dgx-h100}\nfabric: {planes: 1, leaf: {model: generic-64x800g}}\n"
    )
    code, out, err = run_cli("explore", str(intent), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert [(dimension["path"], dimension["values"]) for dimension in report["varied"]] == [
        ("fabric.tiers", [2, 3]),
        ("fabric.leaf.uplink_speed", [400, 800]),
        ("facility.media", ["copper", "optics"]),
    ]
    assert report["tried"] == 8
    names = {candidate["name"] for candidate in report["candidates"]}
    every = {f"open_{tiers}_{speed}_{media}" for tiers in (2, 3) for speed in (400, 800) for media in MEDIA}
    assert {"open_2_400_copper", "open_2_400_optics"} <= names <= every
    # media set by the intent, or by a site catalog's facility defaults, are not varied
    for where, text in (
        ("intent", "facility: {media: optics}\n"),
        ("site", "catalog: site.yaml\n"),
    ):
        (tmp_path / "site.yaml").write_text("facility: {media: optics}\n")
        intent.write_text(intent.read_text().split("facility:")[0].split("catalog:")[0] + text)
        code, out, err = run_cli("explore", str(intent), "--format", "json")
        assert code == 0, err
        assert "facility.media" not in [dimension["path"] for dimension in json.loads(out)["varied"]], where


def test_a_folder_designer_did_not_write_is_never_replaced(tmp_path: Path) -> None:
    intent = tmp_path / "small.yaml"
    intent.write_text(SMALL)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("keep me")
    code, _, err = run_cli("explore", str(intent), "--vary", "fabric.planes=1", "-o", str(folder))
    assert code == 2
    assert "refusing to replace" in err
    assert (folder / "notes.txt").read_text() == "keep me"


def test_site_catalog_models_are_explored_and_written_candidates_still_find_the_catalog(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "catalog.yaml").write_text(
        "switches:\n  site-64x800g: {ports: 64, speed: 800, rack_units: 2, power_w: 900, power_w_optics: 2000}\n"
    )
    (site / "small.yaml").write_text(SMALL.replace("name: small\n", "name: small\ncatalog: catalog.yaml\n"))
    folder = tmp_path / "elsewhere" / "explored"
    code, out, err = run_cli(
        "explore",
        str(site / "small.yaml"),
        "--vary",
        "fabric.leaf.model=generic-64x800g,site-64x800g",
        "--format",
        "json",
        "-o",
        str(folder),
    )
    assert code == 0, err
    candidates = {candidate["name"]: candidate for candidate in json.loads(out)["candidates"]}
    assert set(candidates) == {"small_generic-64x800g", "small_site-64x800g"}
    written = folder / "small_site-64x800g.yaml"
    assert "catalog: ../../site/catalog.yaml" in written.read_text()
    code, plan, err = run_cli("plan", str(written), "--format", "json")
    assert code == 0, err
    assert json.loads(plan)["power_kw"]["total"] == candidates["small_site-64x800g"]["power_kw"]


def test_capital_cost_is_a_measure_only_when_every_row_is_wholly_priced() -> None:
    cheap, dear = {**row(power=120), "capital_cost": 1.0}, {**row(power=100), "capital_cost": 2.0}
    assert pareto([{**cheap, "unpriced": []}, {**dear, "unpriced": []}]) == [True, True]  # a trade-off
    assert pareto([{**cheap, "unpriced": ["x"]}, {**dear, "unpriced": []}]) == [False, True]  # cost ignored


def test_capital_cost_comes_from_the_site_prices_and_the_built_bill_of_materials(tmp_path: Path) -> None:
    """Cost is reported only from prices a site catalog gives, as count x unit price over what bom.csv lists;
    items without a price are named, never priced by designer."""
    code, out, err = run_cli("explore", str(_intent(tmp_path, SMALL)), "--format", "json")
    assert code == 0, err
    assert all("capital_cost" not in candidate for candidate in json.loads(out)["candidates"])

    (tmp_path / "prices.yaml").write_text(
        "prices:\n  currency: EUR\n  items: {generic-64x400g: 20000, generic-64x800g: 30000, dgx-h100: 250000}\n"
    )
    intent = _intent(tmp_path, SMALL.replace("name: small\n", "name: small\ncatalog: prices.yaml\n"))
    folder = tmp_path / "explored"
    vary = "fabric.leaf.model=generic-64x400g,generic-64x800g"
    code, out, err = run_cli("explore", str(intent), "--vary", vary, "--format", "json", "-o", str(folder))
    assert code == 0, err
    prices = {"generic-64x400g": 20000, "generic-64x800g": 30000, "dgx-h100": 250000}
    for candidate in json.loads(out)["candidates"]:
        assert candidate["currency"] == "EUR"
        code, _, err = run_cli("build", str(folder / f"{candidate['name']}.yaml"), "-o", str(tmp_path / "b"))
        assert code == 0, err
        with (tmp_path / "b" / "bom.csv").open() as handle:
            bom = list(csv.DictReader(handle))
        assert candidate["capital_cost"] == sum(prices.get(line["item"], 0) * int(line["count"]) for line in bom)
        assert candidate["unpriced"] == sorted({line["item"] for line in bom} - set(prices))
        assert candidate["unpriced"]  # transceivers and cables have no price here: named, not invented
        shutil.rmtree(tmp_path / "b")
    code, text, err = run_cli("explore", str(intent), "--vary", vary)
    assert "cost EUR" in text and "capital cost is no measure of the front" in text


def test_prices_in_a_site_catalog_are_checked_like_the_rest_of_it(tmp_path: Path) -> None:
    (tmp_path / "prices.yaml").write_text("prices:\n  currency: euro\n  items: {dgx-h100: -1}\n")
    code, _, err = run_cli(
        "plan", str(_intent(tmp_path, SMALL.replace("name: small\n", "name: small\ncatalog: prices.yaml\n")))
    )
    assert code == 2
    assert "prices.yaml:2: prices.currency:" in err and "prices.yaml:3: prices.items.dgx-h100:" in err


def _intent(folder: Path, text: str) -> Path:
    path = folder / "small.yaml"
    path.write_text(text)
    return path


def test_a_candidates_other_media_built_from_its_fabric_are_what_a_whole_design_gives() -> None:
    """Explore builds the candidates that differ only in ``facility.media`` from one fabric, set of device models and
    workloads (:func:`designer.explore.alike.design_like`): every stage's result and every finding is what designing
    it alone gives. The cables' lengths are taken, their media chosen anew."""
    copper = parse_intent(SMALL, "small.yaml")
    optics = parse_intent(SMALL.replace("name: small", "name: small-optics") + "facility: {media: optics}\n", "o.yaml")
    like = design(copper, hosts=False, processes=1, workload_detail=False)
    shared = design_like(optics, like)
    alone = design(optics, hosts=False, processes=1, workload_detail=False)
    assert shared.fabric is like.fabric and shared.configs is like.configs and shared.workloads is like.workloads
    assert shared.physical.link_length_dm is like.physical.link_length_dm
    assert shared.physical == alone.physical != like.physical
    assert (shared.configs, shared.workloads, shared.bisection) == (alone.configs, alone.workloads, alone.bisection)
    assert shared.findings == alone.findings
    assert shared.intent is optics


def test_candidates_wired_alike_share_what_no_switch_model_changes_and_are_what_a_whole_design_gives() -> None:
    """Explore builds a candidate whose switch models differ from an earlier one's with that one's addresses, facts,
    max-flows and workloads when both fabrics are wired alike (the Arista and the generic 64 x 800G switches have the
    same ports): every stage's result and every finding is what designing it alone gives; a candidate wired
    otherwise (64 x 400G leaves: no breakout) takes nothing from it."""
    eight = SMALL.replace("generic-64x400g", "generic-64x800g")
    like = design(parse_intent(eight, "a.yaml"), hosts=False, processes=1, workload_detail=False)
    for model, wired_the_same in (("arista-7060x6-64pe", True), ("generic-64x400g", False)):
        intent = parse_intent(eight.replace("generic-64x800g", model), "b.yaml")
        shared = design_like(intent, like)
        alone = design(intent, hosts=False, processes=1, workload_detail=False)
        assert wired_alike(shared.fabric, like.fabric) is wired_the_same
        assert (shared.bisection is like.bisection) is wired_the_same
        assert (shared.allocation is like.allocation) is wired_the_same
        assert (shared.workloads is like.workloads) is wired_the_same
        assert shared.fabric == alone.fabric != like.fabric
        assert shared.physical == alone.physical != like.physical
        assert shared.configs == alone.configs != like.configs
        assert (shared.allocation, shared.facts, shared.bisection) == (alone.allocation, alone.facts, alone.bisection)
        assert shared.workloads == alone.workloads
        assert shared.findings == alone.findings


def test_a_design_wired_alike_with_other_workloads_shares_nothing() -> None:
    """The fabrics are wired alike, but the workloads (read beside the wiring) differ: nothing is taken."""
    like = design(parse_intent(SMALL, "a.yaml"), hosts=False, processes=1, workload_detail=False)
    intent = parse_intent(SMALL.replace("bytes: 10GB", "bytes: 40GB"), "b.yaml")
    shared = design_like(intent, like)
    alone = design(intent, hosts=False, processes=1, workload_detail=False)
    assert wired_alike(shared.fabric, like.fabric)
    assert shared.workloads is not like.workloads and shared.bisection is not like.bisection
    assert shared.workloads == alone.workloads != like.workloads
    assert shared.findings == alone.findings


def test_a_fabric_with_one_link_moved_is_not_wired_alike() -> None:
    fabric = design(parse_intent(SMALL, "a.yaml"), hosts=False, processes=1, workload_detail=False).fabric
    assert wired_alike(fabric, fabric)
    tier, upper, upper_port, lower, lower_port = fabric.links[-1]
    moved = replace(fabric, links=[*fabric.links[:-1], (tier, upper, upper_port + 1, lower, lower_port)])
    assert not wired_alike(moved, fabric)
    renamed = replace(fabric, devices=[fabric.devices[0]._replace(name="x"), *fabric.devices[1:]])
    assert not wired_alike(renamed, fabric)
    other_model = replace(fabric, devices=[fabric.devices[0]._replace(model="x"), *fabric.devices[1:]])
    assert wired_alike(other_model, fabric)


def test_candidates_differing_only_in_switch_models_and_media_share_a_batch_media_in_a_row() -> None:
    varied = (
        Dimension(("facility", "media"), ("copper", "optics")),
        Dimension(("fabric", "leaf", "model"), ("a", "b")),
        Dimension(("fabric", "planes"), (1, 2)),
    )
    picks = [(media, model, planes) for media in range(2) for model in range(2) for planes in range(2)]
    # picks: 0 (0,0,0) 1 (0,0,1) 2 (0,1,0) 3 (0,1,1) 4 (1,0,0) 5 (1,0,1) 6 (1,1,0) 7 (1,1,1)
    assert _batches(varied, picks, 2) == [[0, 4, 2, 6], [1, 5, 3, 7]]
    # one plane count: a single batch would leave a worker idle, so only the media share one
    one = [pick for pick in picks if pick[2] == 0]
    assert _batches(varied, one, 2) == [[0, 2], [1, 3]]
    assert _batches(varied, one, 1) == [[0, 2, 1, 3]]


def test_a_candidate_wired_alike_whose_devices_stand_where_they_stood_takes_the_cables_lengths_and_media() -> None:
    """The NVIDIA SN5600 stands where the generic 64 x 800G switch stands (same height, a layout alike): its physical
    plan takes each link's length and medium from the earlier one and is what planning it alone gives. In a facility
    with more slack the runs are longer: nothing is taken, and the plan is again what planning it alone gives."""
    eight = SMALL.replace("generic-64x400g", "generic-64x800g")
    like = design(parse_intent(eight, "a.yaml"), hosts=False, processes=1, workload_detail=False)
    for extra, taken in (("", True), ("facility: {slack_m: 7}\n", False)):
        intent = parse_intent(eight.replace("generic-64x800g", "nvidia-sn5600") + extra, "b.yaml")
        shared = design_like(intent, like)
        alone = design(intent, hosts=False, processes=1, workload_detail=False)
        assert (shared.physical.link_length_dm is like.physical.link_length_dm) is taken
        assert (shared.physical.link_medium is like.physical.link_medium) is taken
        assert shared.physical == alone.physical
        assert shared.findings == alone.findings
    moved = replace(like.physical, device_unit=[unit + 1 for unit in like.physical.device_unit])
    intent = parse_intent(eight.replace("generic-64x800g", "nvidia-sn5600"), "b.yaml")
    alone = design(intent, hosts=False, processes=1, workload_detail=False)
    replanned = plan_physical(intent, alone.plan, alone.fabric, top_kept(intent), (like.intent, moved))
    assert replanned.link_length_dm is not like.physical.link_length_dm
    assert replanned == alone.physical


def test_a_leaf_naming_no_model_is_explored_over_every_catalog_switch(tmp_path: Path) -> None:
    """docs/explore.md: with a leaf that names no model and no ports, explore varies fabric.leaf.model over the
    catalog (the intent alone does not build: it must name one)."""
    intent = tmp_path / "open.yaml"
    intent.write_text(
        "name: open\ncompute: {servers: 16, server: dgx-h100}\n"
        "fabric: {leaf: {uplink_speed: 400G}, planes: 1, tiers: 2}\nfacility: {media: copper}\n"
    )
    assert run_cli("build", str(intent), "-o", str(tmp_path / "out"))[0] == 2
    code, out, err = run_cli("explore", str(intent), "--format", "json")
    assert code == 0, err
    found = json.loads(out)
    assert [dimension["path"] for dimension in found["varied"]] == ["fabric.leaf.model"]
    assert found["varied"][0]["values"] == sorted(catalog().switches)
    assert "small_generic-64x400g" not in out and "open_generic-64x400g" in out

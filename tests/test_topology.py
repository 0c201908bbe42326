"""topology.svg: one plane's tiers and bundles, its numbers those of the wired fabric (counted from its devices and
links, not from the plan the picture is drawn from), the same size at 131,072 GPUs as at 1,024."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from functools import cache

import pytest

from designer.backend.sizing import Plan, size
from designer.backend.wiring import LEAF_SPINE, LINK_TIERS, SERVER_LEAF, SPINE_SUPER
from designer.design import Design
from designer.intent import parse_intent
from designer.outputs.build import review_files
from designer.outputs.topology_svg import SHOWN, topology_svg
from tests.helpers import build_design, intent_text
from tests.test_uplink_speed import three_tier, two_tier

SVG = "{http://www.w3.org/2000/svg}"


@cache
def plain_two_tier() -> Design:
    """1,024 DGX H100 GPUs on 64 x 400G switches: 2 tiers, 400G everywhere."""
    return build_design(gpus=1024)


DESIGNS = {
    "2 tiers, 400G": (plain_two_tier, (400, 400, 400)),
    "2 tiers, 800G leaf uplinks": (two_tier, (400, 800, 800)),
    "3 tiers, 800G spine uplinks": (three_tier, (400, 400, 800)),
}
"""Each design and the speeds its intent asks for per tier (server-leaf, leaf-spine, spine-super-spine)."""


def parsed(plan: Plan) -> ET.Element:
    return ET.fromstring(topology_svg("test", plan))


def tier_counts(root: ET.Element) -> dict[str, int]:
    return {g.attrib["data-role"]: int(g.attrib["data-count"]) for g in root.iter(f"{SVG}g") if "data-role" in g.attrib}


def bundles(root: ET.Element) -> dict[tuple[str, str], tuple[int, int]]:
    """(tier, box it comes from) -> (links, Gb/s) of every bundle drawn."""
    return {
        (g.attrib["data-tier"], g.attrib["data-from"]): (int(g.attrib["data-links"]), int(g.attrib["data-speed"]))
        for g in root.iter(f"{SVG}g")
        if g.attrib.get("class") == "bundle"
    }


def wired_bundles(design: Design) -> dict[tuple[str, str], int]:
    """The links of plane 0 by (tier, the SU or pod of the lower end's leaf or spine), counted from the fabric."""
    devices = design.fabric.devices
    counts: Counter[tuple[str, str]] = Counter()
    for tier, upper, _, lower, _ in design.fabric.links:
        if devices[upper].plane != 0:
            continue
        if tier == SERVER_LEAF:
            counts[LINK_TIERS[tier], f"SU {devices[upper].su}"] += 1
        elif tier == LEAF_SPINE:
            counts[LINK_TIERS[tier], f"SU {devices[lower].su}"] += 1
        else:
            counts[LINK_TIERS[tier], f"pod {devices[lower].pod}"] += 1
    return counts


@pytest.mark.parametrize("name", DESIGNS)
def test_switch_counts_per_tier_are_the_wired_fabrics(name: str) -> None:
    design = DESIGNS[name][0]()
    root = parsed(design.plan)
    wired = Counter(device.role for device in design.fabric.switches() if device.plane == 0)
    wired["server"] = len(design.fabric.devices) - design.fabric.switch_count
    shown = tier_counts(root)
    assert shown == {role: wired[role] for role in shown}
    assert set(shown) == {"leaf", "spine", "server"} | ({"super_spine"} if design.plan.tiers == 3 else set())
    assert shown["leaf"] > 0 and shown["spine"] > 0


@pytest.mark.parametrize("name", DESIGNS)
def test_every_bundle_drawn_has_the_links_and_speed_of_the_wired_fabric(name: str) -> None:
    build, speeds = DESIGNS[name]
    design = build()
    drawn = bundles(parsed(design.plan))
    wired = wired_bundles(design)
    assert {key: links for key, (links, _) in drawn.items()} == {key: wired[key] for key in drawn}
    assert {key: speed for key, (_, speed) in drawn.items()} == {key: speeds[LINK_TIERS.index(key[0])] for key in drawn}
    drawn_tiers = {tier for tier, _ in drawn}
    assert drawn_tiers == {LINK_TIERS[t] for t in (SERVER_LEAF, LEAF_SPINE, SPINE_SUPER) if wired_tier(wired, t)}


def wired_tier(wired: dict[tuple[str, str], int], tier: int) -> bool:
    return any(key[0] == LINK_TIERS[tier] for key in wired)


def test_one_panel_stands_for_every_plane_of_a_two_plane_design() -> None:
    """DGX B300 (16 NICs in 2 planes): one panel marked x 2 planes, per-plane counts those of plane 0 of the
    wired fabric, the header's totals those of both planes."""
    design = build_design(servers=64, server="dgx-b300")
    planes = {device.plane for device in design.fabric.switches()}
    assert planes == {0, 1}
    root = parsed(design.plan)
    text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "one plane drawn, x 2 planes" in text
    leaves = sum(device.role == "leaf" for device in design.fabric.switches())
    assert f"all 2 planes: {leaves:,} leaves" in text
    assert tier_counts(root)["leaf"] == leaves // 2
    assert {key: links for key, (links, _) in bundles(root).items()} == {
        key: links for key, links in wired_bundles(design).items() if key in bundles(root)
    }


def test_the_picture_is_written_beside_the_floor_plan_and_listed() -> None:
    files = dict(review_files(plain_two_tier(), lambda _: None))
    assert files["topology.svg"] == topology_svg(plain_two_tier().intent.name, plain_two_tier().plan).encode()
    assert "`topology.svg`" in files["summary.md"].decode()


def plan_of(gpus: int) -> Plan:
    """The plan of the benchmark's intent (DGX H100 on 64 x 800G switches run as 128 x 400G), sized, not built."""
    return size(parse_intent(intent_text(gpus=gpus, leaf="{model: generic-64x800g}"), "test.yaml"))


def test_at_131k_gpus_the_picture_is_as_large_as_at_1k_and_sums_up_the_rest() -> None:
    small, large = plan_of(1024), plan_of(131_072)
    assert large.tiers == 3 and large.sus > SHOWN and large.pods > SHOWN
    small_root, large_root = parsed(small), parsed(large)
    assert large_root.attrib["width"] == small_root.attrib["width"]
    assert int(large_root.attrib["height"]) <= int(small_root.attrib["height"]) + 150  # one more tier, no more
    assert len(topology_svg("test", large)) < 10_000
    boxes = [t.text or "" for t in large_root.iter(f"{SVG}text") if (t.text or "").startswith("...")]
    more_sus = next(box for box in boxes if box.endswith("more SUs"))
    assert int(re.sub(r"\D", "", more_sus)) == large.sus - SHOWN
    leaves = next(g for g in large_root.iter(f"{SVG}g") if g.attrib.get("data-role") == "leaf")
    texts = [t.text or "" for t in leaves.iter(f"{SVG}text")]
    rest = int(re.sub(r"\D", "", texts[texts.index(more_sus) + 1]))
    assert rest + SHOWN * large.rails == large.switch_counts()["leaf"] // large.planes
    assert len(bundles(large_root)) == 3 * SHOWN


def test_a_three_tier_envelope_with_only_pod_0_built_shows_the_super_spines_to_come() -> None:
    plan = size(
        parse_intent(intent_text(servers=64, fabric_extra="tiers: 3", extra="growth: {max_servers: 1024}"), "t.yaml")
    )
    assert not plan.super_tier
    root = parsed(plan)
    text = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "none yet" in text and f"{plan.envelope_supers_per_plane:,} per plane planned" in text
    assert not any(tier == "spine_super_spine" for tier, _ in bundles(root))


def test_growing_inside_the_plan_keeps_every_bundle_already_drawn() -> None:
    """256 to 512 DGX H100 in an envelope of 2,048 (the 3-tier design above): the first pod's bundles keep their
    links and speeds; the second pod brings its own and the super-spines' first bundles."""

    def drawn(servers: int) -> dict[tuple[str, str], tuple[int, int]]:
        text = intent_text(
            servers=servers,
            spine="{model: generic-64x800g, uplink_speed: 800G}",
            super_spine="{model: generic-64x800g}",
            fabric_extra="tiers: 3",
            extra="growth: {max_servers: 2048}",
        )
        return bundles(parsed(size(parse_intent(text, "test.yaml"))))

    before, after = drawn(256), drawn(512)
    assert before.items() <= after.items()
    assert not any(tier == "spine_super_spine" for tier, _ in before)
    assert {key for key in after if key[0] == "spine_super_spine"} == {
        ("spine_super_spine", "pod 0"),
        ("spine_super_spine", "pod 1"),
    }

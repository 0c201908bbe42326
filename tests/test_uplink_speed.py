"""A speed per tier: ``fabric.leaf.uplink_speed`` and ``fabric.spine.uplink_speed``.

A tier whose uplinks run another speed than its downlinks splits its physical ports in half, each half broken out
to its own speed, so it stays 1:1 in bandwidth (a 64 x 800G leaf with 400G NICs: 64 x 400G down, 32 x 800G up).
Every stage follows: sizing, wiring and port names, addressing, media and optics, checks, configs and the
workload model. The configs are proven against the vendors' artifacts in test_sonic.py (SONiC YANG), test_golden.py
and the validate-configs run below (pyavd, the NVUE schema, vtysh); the lab run is at the end.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from itertools import pairwise

import networkx as nx
import pytest

from designer.analysis.maxflow import PlaneNetwork, splits
from designer.analysis.workload import _worst
from designer.backend.wiring import LEAF_SPINE, SERVER_LEAF, SPINE_SUPER
from designer.design import Design
from designer.errors import InputError
from designer.outputs.tables import cabling_rows
from designer.pipeline import build
from designer.render import render_configs
from tests.conftest import ROOT
from tests.helpers import build_design, build_text
from tests.prerequisites import FRR_LAB, VALIDATORS, needs
from tests.test_checks import found, with_links
from tests.test_growth import assert_only_added
from tests.test_intent_errors import run_cli

UPLINKS_800G = "{model: generic-64x800g, uplink_speed: 800G}"
SMALL = ROOT / "tests" / "intents" / "small-800g-uplinks.yaml"


@cache
def two_tier() -> Design:
    """128 DGX H100 (8 x 400G NICs) on 64 x 800G leaves with 800G uplinks, spines of the same hardware."""
    return build_design(servers=128, leaf=UPLINKS_800G)


@cache
def three_tier() -> Design:
    """512 DGX H100 on 64 x 400G leaves; 64 x 800G spines take 64 x 400G down and send 32 x 800G up to 64 x 800G
    super-spines; the envelope of 2,048 servers (8 pods) gives 4 super-spines per group."""
    return build_design(
        servers=512,
        spine="{model: generic-64x800g, uplink_speed: 800G}",
        super_spine="{model: generic-64x800g}",
        fabric_extra="tiers: 3",
        extra="growth: {max_servers: 2048}",
    )


@cache
def small() -> Design:
    """tests/intents/small-800g-uplinks.yaml, built once a run."""
    return build(SMALL)


def errors(design: Design) -> list[str]:
    return [f"{finding.check}: {finding.message}" for finding in design.findings if finding.severity == "error"]


def evidence(design: Design, check: str, subject: str) -> dict:
    return next(f.evidence for f in design.findings if f.check == check and f.subject == subject)


def test_a_64x800g_leaf_runs_64x400g_down_and_32x800g_up() -> None:
    design = two_tier()
    plan = design.plan
    assert plan.link_speeds == (400, 800, 800)
    assert (plan.leaf_downlinks, plan.leaf_uplinks, plan.leaf_radix, plan.servers_per_su) == (64, 32, 96, 64)
    assert (plan.tiers, plan.spines_per_pod, plan.leaf_spine_parallel, plan.spine_radix) == (2, 8, 4, 64)
    leaf = design.fabric.devices[0]
    names = design.fabric.port_names()[0]
    assert names[:3] == ("swp1s0", "swp1s1", "swp2s0") and names[63] == "swp32s1"
    assert names[64:] == tuple(f"swp{port}" for port in range(33, 65))
    assert leaf.physical_ports == 64
    assert not errors(design)


def test_bandwidth_is_1_to_1_at_every_switch_and_in_every_table() -> None:
    design = two_tier()
    leaf = evidence(design, "oversubscription", "leaf")
    assert leaf["down_tbps"] == leaf["up_tbps"] == 16 * 64 * 0.4  # 16 leaves, 25.6 Tb/s each way
    assert leaf["worst_switch_ratio"] == 1.0
    assert design.plan.bandwidth_tbps() == {"server_leaf": 409.6, "leaf_spine": 409.6, "spine_super_spine": 0.0}
    header, rows = cabling_rows(design)
    speed = header.index("speed_gbps")
    assert Counter((row[0], row[speed]) for row in rows) == {("server_leaf", 400): 1024, ("leaf_spine", 800): 512}


def test_spines_with_faster_uplinks_stay_1_to_1_and_their_super_spines_run_800g() -> None:
    design = three_tier()
    plan = design.plan
    assert plan.link_speeds == (400, 400, 800)
    assert (plan.sus_per_pod, plan.spine_downlinks, plan.spine_uplinks, plan.supers_per_group) == (8, 64, 32, 4)
    assert (plan.spine_radix, plan.super_radix, plan.spine_super_parallel) == (96, 64, 8)
    fabric = design.fabric
    spine = next(index for index, device in enumerate(fabric.devices) if device.role == "spine")
    names = fabric.port_names()[spine]
    assert (names[0], names[63], names[64], names[95]) == ("swp1s0", "swp32s1", "swp33", "swp64")
    ups = [link for link in fabric.links if link[0] == SPINE_SUPER and link[3] == spine]
    assert sorted(link[4] for link in ups) == list(range(64, 96))
    spines = evidence(design, "oversubscription", "spine")
    assert spines["down_tbps"] == spines["up_tbps"] and spines["worst_switch_ratio"] == 1.0
    assert not errors(design)


@pytest.mark.parametrize("make", [two_tier, three_tier], ids=["2-tier", "3-tier"])
def test_bisection_is_n_s_over_2_and_networkx_agrees_in_gbps(make) -> None:
    """The contracted max-flow counts in the greatest common divisor of the tiers' speeds; networkx on the
    uncontracted graph with every link's capacity in Gb/s gives the same bandwidth."""
    design = make()
    plan, fabric = design.plan, design.fabric
    full_tbps = plan.planes * plan.servers * plan.rails * plan.link_speed / 2 / 1000
    bisection = evidence(design, "bisection-bandwidth", "fabric")
    assert bisection["bisection_tbps"] == bisection["full_tbps"] == full_tbps
    in_a = splits(fabric)["rails"]
    graph = nx.DiGraph()
    for tier, upper, _, lower, port in design.facts.plane_links[0]:
        capacity = plan.link_speeds[tier]
        if tier == SERVER_LEAF:
            nic = ("nic", lower, port)
            graph.add_edge(nic, upper, capacity=capacity)
            graph.add_edge(upper, nic, capacity=capacity)
            side = in_a(lower - fabric.switch_count, port % plan.rails)
            graph.add_edge(*(("s", nic) if side else (nic, "t")), capacity=10**9)
        else:
            for u, v in ((upper, lower), (lower, upper)):
                old = graph.get_edge_data(u, v, {"capacity": 0})["capacity"]
                graph.add_edge(u, v, capacity=old + capacity)
    assert nx.maximum_flow_value(graph, "s", "t") / 1000 == full_tbps / plan.planes


def test_a_failed_800g_link_takes_its_whole_bandwidth_and_matches_solving_afresh() -> None:
    design = two_tier()
    links = design.facts.plane_links[0]
    network = PlaneNetwork(design.fabric, links)
    unit = math.gcd(*design.plan.link_speeds)
    split = network.split(splits(design.fabric)["rails"])
    solved = network.solve(split)
    pair = next((link[1], link[3]) for link in links if link[0] == LEAF_SPINE)
    assert network.pair_weight[pair] == 800 // unit
    cold = split.copy()
    arc = network.pair_arc[pair]
    cold[arc] -= 800 // unit
    cold[arc ^ 1] -= 800 // unit
    assert network.without(split, solved, dead_links=[pair]) == network.solve(cold).value


def test_uplinks_get_media_and_optics_at_their_own_speed() -> None:
    """Passive copper reaches 3 m at 400G but 2 m at 800G (catalog media): no 800G uplink run between 2 and 3 m
    is on DAC, while 400G server runs there are; an 800G uplink takes one 800G module at each end. Rows of 16 racks
    (the chosen length keeps every run of this small hall on copper) give uplinks beyond copper's reach."""
    design = build_text(SMALL.read_text() + "facility: {racks_per_row: 16}\n")
    physical, fabric = design.physical, design.fabric
    media = physical.medium_names()
    by_tier: dict[int, set[str]] = {}
    for (tier, *_), length, medium in zip(fabric.links, physical.link_length_dm, physical.link_medium, strict=True):
        by_tier.setdefault(tier, set()).add(media[medium])
        if tier == LEAF_SPINE:
            assert media[medium] != "dac" or length <= 20
    assert physical.reach_dm[SERVER_LEAF][0] == 30 and physical.reach_dm[LEAF_SPINE][0] == 20
    bom = Counter()
    for line in physical.bom:
        bom[line.category, line.item] += line.count
    multimode_uplinks = sum(
        1
        for (tier, *_), medium in zip(fabric.links, physical.link_medium, strict=True)
        if tier == LEAF_SPINE and media[medium] == "multimode"
    )
    assert multimode_uplinks and bom[("transceiver", "800G multimode module")] == 2 * multimode_uplinks
    assert not any("400G multimode" in item for _, item in bom)


def test_a_link_faster_than_the_nics_counts_its_flows_at_the_nic_speed() -> None:
    """8 flows on an 800G uplink load it as 4 flows load a 400G NIC link; 9 round up to 5."""
    fabric = small().fabric
    uplink = next(number for number, link in enumerate(fabric.links) if link[0] == LEAF_SPINE)
    server = next(number for number, link in enumerate(fabric.links) if link[0] == SERVER_LEAF)
    assert _worst(Counter({2 * uplink: 8}), 3, fabric) == 4
    assert _worst(Counter({2 * uplink: 9}), 3, fabric) == 5
    assert _worst(Counter({2 * server: 9}), 3, fabric) == 9


@needs(*VALIDATORS)
def test_configs_of_an_800g_uplink_design_pass_every_vendor_validator(tmp_path, capsys) -> None:
    """pyavd renders the EOS files' structured config back, NVUE's OpenAPI schema takes the YAML, SONiC's YANG
    the config_db (a leaf without any shipped SKU: none runs ports broken out two ways), vtysh the FRR files."""
    output = tmp_path / "out"
    assert run_cli("build", str(SMALL), "-o", str(output))[0] == 0
    code, out, err = run_cli("validate-configs", str(output))
    assert code == 0, out + err
    for validator in ("sonic-yang", "vtysh", "pyavd", "nvue-openapi"):
        assert f"{validator}: 6 of 6 files valid" in out


GROWTH = (64, 256, 320)
"""Pod 0 of one scalable unit, the first pod full, then the second pod with the super-spines."""


@cache
def growing(servers: int) -> Design:
    return build_text(
        f"name: growth\ncompute: {{servers: {servers}, server: dgx-h100}}\ngrowth: {{max_servers: 1024}}\n"
        f"fabric: {{leaf: {UPLINKS_800G}, spine: {{model: generic-64x800g}}}}\ntargets: [frr, eos]\n"
    )


@pytest.mark.parametrize(("old", "new"), list(pairwise(GROWTH)))
def test_growth_with_800g_uplinks_only_adds(old: int, new: int) -> None:
    before, after = growing(old), growing(new)
    assert after.plan.tiers == 3 and after.plan.link_speeds == (400, 800, 800)
    assert_only_added(
        before, after, render_configs(before.configs, ("frr", "eos")), render_configs(after.configs, ("frr", "eos"))
    )
    assert not errors(after)


@needs(FRR_LAB)
def test_an_800g_uplink_fabric_converges_and_carries_traffic_in_frr() -> None:
    """The lab's veth links have no real speed (the speed is nominal there): this proves the wiring, addressing
    and BGP of a design whose uplinks are broken out differently from its downlinks (swp3 and swp4 whole, swp1s0
    to swp2s1 split), not the rates."""
    code, out, err = run_cli("verify", str(SMALL), "--no-failures")
    assert code == 0, out + err
    assert out.rstrip().endswith("checks passed)") and "result: PASS" in out


def test_every_switch_that_runs_an_uplink_speed_must_run_it() -> None:
    """The spines' uplinks follow the leaves' (800G), so 64 x 400G super-spines cannot take them: the problem is
    named at the field that set the speed, with the speeds every switch involved runs."""
    with pytest.raises(InputError) as raised:
        build_design(
            servers=128,
            leaf=UPLINKS_800G,
            spine="{model: generic-64x800g}",
            super_spine="{model: generic-64x400g}",
            fabric_extra="tiers: 3",
        )
    assert [(problem.path, problem.message) for problem in raised.value.problems] == [
        (
            ("fabric", "leaf", "uplink_speed"),
            "generic-64x400g ports run at 400G, slower than 800G; a speed every port at both ends runs: 100G, 200G, "
            "400G",
        )
    ]


def test_an_uplink_speed_equal_to_the_downlinks_is_the_default() -> None:
    """800G NICs and 800G leaf uplinks: the same design as without ``uplink_speed``, and its errors the same."""
    fields = {"servers": 128, "server": "dgx-b200", "compute_extra": "nic_speed: 800G"}
    plain = build_design(leaf="{model: generic-64x800g}", **fields)
    given = build_design(leaf="{model: generic-64x800g, uplink_speed: 800G}", **fields)
    assert given.plan == plain.plan and given.fabric.links == plain.fabric.links
    with pytest.raises(InputError) as raised:
        build_design(leaf="{model: generic-64x800g, uplink_speed: 800G}", spine="{model: generic-64x400g}", **fields)
    assert [problem.path for problem in raised.value.problems] == [("fabric", "spine", "speed")]


def test_ports_catches_uplinks_broken_out_as_the_downlinks() -> None:
    """A leaf whose 800G uplinks were laid out at the downlinks' breakout (2 x 400G) is not what its hardware and
    speeds give."""
    design = small()
    devices = list(design.fabric.devices)
    devices[0] = devices[0]._replace(uplink_breakout=2)
    errors = found(with_links(design, list(design.fabric.links), devices), "ports")
    assert [(finding.subject, finding.message) for finding in errors] == [
        (
            devices[0].name,
            "4 logical ports down at breakout 2 and 2 up at breakout 2, but 4 x 800G ports give 4 x 400G down and "
            "2 x 800G up",
        )
    ]
    assert not found(design, "ports")

"""Declared tapers (fabric.oversubscription) and rack-style backends (fabric.style: rack, fabric.leaf.per_rack):
Meta's published 24K-GPU shape written as an intent, the checks held to what is declared, the workload model
slowed by a taper, a rack's traffic kept on its switch, growth that moves nothing, refusals with what would build,
and the configurations in the vendors' tools and in real FRR."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from designer.backend.sizing import size
from designer.intent import parse_intent
from designer.intent.fields import ratio_parser, ratio_text
from designer.outputs.summary import summary_markdown
from tests.conftest import ROOT
from tests.helpers import assert_every_validator_takes, build_text, refused_build
from tests.prerequisites import FRR_LAB, VALIDATORS, needs
from tests.test_choices import refusal
from tests.test_growth import assert_only_added, configs, switches
from tests.test_intent_errors import run_cli
from tests.test_physical import placed_text

INTENTS = ROOT / "tests" / "intents"

META = """\
name: meta-24k
compute: {gpus: 24576, server: dgx-h100}
fabric:
  style: rack
  tiers: 3
  servers_per_su: 384
  leaf: {model: generic-64x400g, uplinks: matched}
  spine: {model: arista-7808r3}
  super_spine: {model: arista-7808r3}
  oversubscription: {spine: "7:1"}
facility: {rack_power_kw: 23}
targets: [eos]
"""
"""Meta's 24K-GPU RoCE clusters (Llama 3 paper, arXiv 2407.21783, section 3.3.1): each rack holds 16 GPUs split
between two servers on one 400G rack switch; 192 racks form a pod of 3,072 GPUs with full bisection bandwidth
(the rack switches 1:1 here, matched uplinks); eight pods connect through aggregation switches oversubscribed 1:7.
A 23 kW rack holds two 10.2 kW DGX H100 beside its switch; the 7800R3 chassis stands for the cluster and
aggregation switches."""

TAPERED = """\
name: tapered
compute: {servers: 512, server: dgx-h100}
fabric:
  tiers: 3
  leaf: {model: generic-64x400g}
  oversubscription: {spine: "3:1"}
targets: [frr, eos]
"""
"""512 H100 servers on 64 x 400G switches with the spines tapered 3:1: each spine splits its 64 ports 48 down and
16 up, so a pod holds 6 scalable units (1:1 spines hold 4)."""


def _rack(servers: int, extra: str = "", per_rack: int = 1, power: int = 23) -> str:
    """H100 servers cabled rack-style on 64 x 400G switches, ``per_rack`` a rack, in racks of ``power`` kW."""
    return (
        f"name: racks\ncompute: {{servers: {servers}, server: dgx-h100}}\n"
        "fabric: {style: rack, leaf: {model: generic-64x400g"
        + (f", per_rack: {per_rack}" if per_rack > 1 else "")
        + "}}\n"
        f"facility: {{rack_power_kw: {power}}}\n{extra}"
    )


@pytest.mark.parametrize(("written", "ratio", "text"), [("7:1", 7.0, "7:1"), ("1:2", 0.5, "1:2"), (1, 1.0, "1:1")])
def test_a_taper_is_written_down_to_up_as_the_frontend_oversubscription(
    written: object, ratio: float, text: str
) -> None:
    """One notation: a taper reads like ``networks.frontend.oversubscription`` and may also under-subscribe."""
    assert ratio_parser(1 / 64)(written) == ratio
    assert ratio_text(ratio) == text
    with pytest.raises(ValueError, match="out of range"):
        ratio_parser(1)("1:2")  # an oversubscription of a network beside the backend is at least 1:1


def test_meta_24k_is_written_as_it_is_published() -> None:
    """1,536 rack switches (one per rack of two servers) in 8 pods of 192 racks; each pod's 16 spines (one per rack
    switch uplink) send the fewest whole links that keep 7:1, 28 of 192 (ceil(192 / 7)), so the aggregation tier
    carries that share of the pods' bandwidth, and the max-flow between halves of the pods says the same."""
    design = build_text(META, seeds=2, hosts=False)
    plan = design.plan
    assert plan.switch_counts() == {"leaf": 1536, "spine": 128, "super_spine": 16}
    assert (plan.pods, plan.rack_servers, plan.leaves_per_su, plan.leaf_downlinks) == (8, 2, 192, 16)
    assert (plan.spines_per_pod, plan.leaf_uplinks, plan.spine_uplinks) == (16, 16, math.ceil(192 / 7))
    links = plan.link_counts()
    assert links["spine_super_spine"] / links["leaf_spine"] == 28 / 192
    assert 1 / 7 <= 28 / 192 < 1 / 7 + 1 / 192  # one link fewer would taper beyond 7:1
    bisection = next(f for f in design.findings if f.check == "bisection-bandwidth")
    assert bisection.severity == "info" and bisection.evidence["fraction"] == round(28 / 192, 6)
    assert bisection.evidence["declared_fraction"] == round(1 / 7, 6)
    assert [f for f in design.findings if f.severity != "info"] == []
    graph = next(f for f in design.findings if f.check == "ecmp-balance" and f.subject == "graph")
    assert graph.evidence["pairs"] > 0 and graph.evidence["wrong"] == 0  # rack switches' pairs counted on the graph
    lines = summary_markdown(design).splitlines()
    assert "| Tiers | 3 (tapered as declared: leaf 1:1 (built 1:1), spine 7:1 (built 6.86:1)) |" in lines
    assert "| Scalable units | 8 (designer: 384 servers a leaf group, 192 racks of 2, 1 switch(es) each) |" in lines


def test_metas_under_subscribed_rack_switches_double_the_spines() -> None:
    """Secondary summaries of Meta's SIGCOMM 2024 paper ("RDMA over Ethernet for Distributed AI Training at Meta
    Scale") give the rack switches 1:2, twice the bandwidth up: 32 uplinks, so 32 spines a pod, and the aggregation
    tier then carries 2/7 of the servers' bandwidth (the tapers multiply)."""
    text = META.replace("uplinks: matched", "uplinks: full").replace('{spine: "7:1"}', '{leaf: "1:2", spine: "7:1"}')
    text = text.replace("uplinks: full", "model: generic-64x400g").replace("model: generic-64x400g, model: ", "model: ")
    plan = size(parse_intent(text, "meta.yaml"))
    assert (plan.leaf_uplinks, plan.spines_per_pod, plan.pods) == (32, 32, 8)
    assert plan.built_tapers() == {"leaf": 0.5, "spine": 192 / 28}


def test_a_spine_taper_splits_its_ports_and_holds_more_scalable_units() -> None:
    """3:1 on 64-port spines: 48 down, 16 up, 6 scalable units a pod instead of 4; every check passes and says the
    tier is as declared."""
    design = build_text(TAPERED, seeds=2, hosts=False)
    plan = design.plan
    assert (plan.spine_downlinks, plan.spine_uplinks, plan.sus_per_pod, plan.pods) == (48, 16, 6, 3)
    assert [f for f in design.findings if f.severity != "info"] == []
    spine = next(f for f in design.findings if f.check == "oversubscription" and f.subject == "spine")
    assert spine.message.endswith("worst switch 3.00:1; declared 3:1")
    failures = [f for f in design.findings if f.check == "failure-impact"]
    assert failures and all(f.evidence["declared_fraction"] == round(1 / 3, 6) for f in failures)
    assert all("of the 33.33% the declared tapers give" in f.message for f in failures)


def test_a_switch_tapered_more_than_declared_fails_the_check() -> None:
    """The same design held to a 2:1 declaration: every spine is an error naming the declared ratio."""
    design = build_text(TAPERED, seeds=2, hosts=False)
    choices = replace(design.intent.choices, tapers=(("spine", 2.0),))
    from designer.checks import oversubscription

    held = replace(design, intent=replace(design.intent, choices=choices))
    errors = [f for f in oversubscription.check(held) if f.severity == "error"]
    assert errors and errors[0].message.endswith(
        "3.00:1 downlink to uplink (19.2 Tb/s down, 6.4 Tb/s up); its tier is declared 2:1"
    )


@pytest.mark.parametrize(
    ("fabric", "expected"),
    [
        (
            "tiers: 2, leaf: {model: generic-64x400g}, oversubscription: {spine: 2}",
            "fabric.oversubscription.spine: the fabric has 2 tiers, so its spines are the top tier",
        ),
        (
            "tiers: 3, leaf: {model: generic-64x400g}, oversubscription: {super_spine: 2}",
            "fabric.oversubscription.super_spine: the super-spines are the top tier and send nothing up",
        ),
        (
            "leaf: {model: generic-64x400g, uplinks: 16}, oversubscription: {leaf: 2}",
            "fabric.leaf.uplinks: fabric.oversubscription.leaf sets each leaf's uplinks already; give one of the two",
        ),
        (
            'servers_per_su: 32, leaf: {model: generic-64x400g}, oversubscription: {leaf: "1:2"}',
            "fabric.servers_per_su: a generic-64x400g leaf tapered 1:2 has 21 downlinks at 400G beside the uplinks "
            "they need, so a scalable unit holds at most 21 servers; use servers_per_su from 1 to 21, a taper of 1:1 "
            "or steeper, or larger leaves",
        ),
        (
            "leaf: {model: generic-64x400g, per_rack: 2}",
            "fabric.leaf.per_rack: per_rack counts a rack's switches with style: rack",
        ),
        (
            "style: rack, planes: 2, leaf: {model: generic-64x400g}",
            "fabric.style: style: rack cabling is for one plane of servers",
        ),
        (
            "style: rack, servers_per_su: 3, leaf: {model: generic-64x400g}",
            "fabric.servers_per_su: with style: rack a scalable unit is whole racks of 2 servers; use 2 or 4",
        ),
    ],
)
def test_a_taper_or_style_the_fabric_cannot_be_is_refused(fabric: str, expected: str) -> None:
    text = (
        f"name: t\ncompute: {{servers: 64, server: dgx-h100}}\nfabric: {{{fabric}}}\nfacility: {{rack_power_kw: 23}}\n"
    )
    assert refusal(text).startswith(expected)


def test_rack_style_beside_networks_with_top_of_rack_leaves_is_refused_until_both_are_planned(tmp_path: Path) -> None:
    """A frontend network's top-of-rack leaves would take the units of the rack's own switches (the build placed
    both in the same units): exit 2 at the style's line, naming the network, nothing written; an out-of-band
    network alone (its switches in the units the top keeps) still builds."""
    base = (
        "name: racks\ncompute: {servers: 8, gpus_per_server: 8, nics_per_server: 2, nic_speed: 400G, "
        "server_power_kw: 5}\nfabric:\n  style: rack\n  tiers: 2\n  leaf: {ports: 8, speed: 400G, per_rack: 2}\n"
        "facility: {rack_power_kw: 12}\ntargets: [frr]\nnetworks:\n"
    )
    path, err = refused_build(
        tmp_path, base + "  frontend: {nics_per_server: 2, nic_speed: 200G, leaf: {model: nvidia-sn4700}}\n"
    )
    assert err.startswith(
        f"{path}:4: fabric.style: style: rack puts each rack's switches at its top, where the networks beside the "
        "backend (frontend) put their top-of-rack leaves"
    )
    assert build_text(base + "  oob: {}\n", seeds=2).physical.racks


def test_a_rack_too_small_for_its_switches_and_a_server_is_refused_at_its_line(tmp_path: Path) -> None:
    """Two 64-port switches (1.65 kW each with optics) and a 10.2 kW server do not fit 12 kW; one switch does:
    exit 2 at per_rack's line, saying so, with nothing written."""
    path, err = refused_build(
        tmp_path,
        "name: racks\ncompute: {servers: 8, server: dgx-h100}\nfabric:\n  style: rack\n  leaf:\n"
        "    model: generic-64x400g\n    per_rack: 2\nfacility: {rack_power_kw: 12}\ntargets: [frr]\n",
    )
    assert err.startswith(
        f"{path}:7: fabric.leaf.per_rack: a rack of 48 U and 12 kW holds no dgx-h100 (8 U, 10.2 kW) beside 2 "
        "generic-64x400g (2 U, 1.65 kW with optics) whose 32 downlinks take 8 NICs a server; use per_rack: 1, "
    )


def test_every_nic_of_a_rack_reaches_its_own_switch_in_its_rack() -> None:
    """Rack-style cabling: each server's 8 NICs on its rack's switch at consecutive ports (two servers: ports 0-15),
    the switch at the top of the same rack, every server link a short copper run; with two switches a rack, NICs 0-3
    on the first and 4-7 on the second."""
    for per_rack, power in ((1, 23), (2, 25)):
        placed = placed_text(_rack(8, "targets: [frr]\n", per_rack, power))
        fabric, physical = placed.fabric, placed.physical
        devices = fabric.devices
        share = 8 // per_rack
        for _, leaf, port, server, nic in fabric.links[: fabric.server_link_count]:
            slot = devices[server].index % 2
            side = nic // share
            assert devices[leaf].name == f"p0-su{devices[server].su}-rack0-leaf" + (f"{side}" if per_rack > 1 else "")
            assert port == slot * share + nic % share
            assert physical.device_rack[leaf] == physical.device_rack[server]
        compute = [rack for rack in physical.racks if rack.role == "compute"]
        assert len(compute) == 4 and all(len(rack.devices) == 2 + per_rack for rack in compute)
        top = [physical.device_unit[device] for device in compute[0].devices[2:]]
        assert top == [47, 45][:per_rack]  # the rack's 2 U switches at the top of its 48 U
        media = {physical.medium_name(link) for link in range(fabric.server_link_count)}
        assert media == {"dac"}


def test_nccl_may_cross_nics_when_they_share_the_rack_switch() -> None:
    """NCCL's environment variables: NCCL_CROSS_NIC=0 suits per-NIC switches (rails), 1 networks whose NICs of a node
    all reach the same switch, 2 (the default) in between: rails 0, one switch a rack 1, two a rack 2."""
    for text, cross in ((_rack(4), 1), (_rack(4, per_rack=2, power=25), 2)):
        design = build_text(text + "targets: [frr]\n", seeds=2)
        assert {host.nccl.cross_nic for host in design.hosts} == {cross}
        assert {host.nccl.backend for host in design.hosts} == {"rack-style"}
    rails = build_text(_rack(4).replace("style: rack, ", "") + "targets: [frr]\n", seeds=2)
    assert {host.nccl.cross_nic for host in rails.hosts} == {0}


def test_a_jobs_traffic_inside_a_rack_stays_on_its_switch() -> None:
    """An AllReduce over the two servers of one rack: nothing climbs above the rack switch; the same job over the
    first server of two racks crosses the spines."""
    one_rack = "workloads:\n  - {name: rack, gpus: 16, placement: packed, bytes: 1GB}\n"
    (inside,) = build_text(_rack(8, one_rack + "targets: [frr]\n"), seeds=2, hosts=False).workloads
    assert inside.fabric_bytes["server_leaf"] > 0 and inside.fabric_bytes["leaf_spine"] == 0
    two = "workloads:\n  - {name: two, gpus: 16, placement: scattered, bytes: 1GB}\n"
    (across,) = build_text(_rack(8, two + "targets: [frr]\n"), seeds=2, hosts=False).workloads
    assert across.fabric_bytes["leaf_spine"] > 0


def test_a_job_crossing_a_tapered_tier_runs_slower() -> None:
    """Derivation: a ring AllReduce scattered over two scalable units (one server of each in turn) crosses the leaves
    at every hop, so each leaf's uplinks carry every flow of its NICs. Sprayed, the load spreads evenly: 1:1 a leaf
    uplink carries what a NIC does (2 flows), tapered 2:1 twice that. The network part of the time scales with the
    busiest link (time = max(network x load / NIC flows / efficiency, NVLink) + latency), so it doubles."""
    intent = (
        "name: l\ncompute: {servers: 32, server: amd-mi300x}\n"
        "fabric: {tiers: 2, servers_per_su: 16, leaf: {model: generic-64x400g%s}%s}\ntargets: [frr]\n"
        "workloads:\n  - {name: all, gpus: 256, placement: scattered, bytes: 8GB}\nload_balancing: {mode: spray}\n"
    )
    (flat,) = build_text(intent % (", uplinks: matched", ""), seeds=2, hosts=False).workloads
    (tapered,) = build_text(intent % ("", ', oversubscription: {leaf: "2:1"}'), seeds=2, hosts=False).workloads
    assert flat.chosen is not None and tapered.chosen is not None
    assert (flat.chosen.worst_link_flows, tapered.chosen.worst_link_flows) == ((2.0,), (4.0,))
    latency = flat.ideal.latency_s
    (flat_s,), (tapered_s,) = flat.chosen.time_s, tapered.chosen.time_s
    assert (tapered_s - latency) / (flat_s - latency) == pytest.approx(2.0)


def test_growing_a_tapered_or_rack_style_fabric_inside_its_plan_moves_nothing() -> None:
    """The tapered fabric planned for 768 servers built with 192 then 512, and the rack-style one planned for 64
    built with 8 then 40: no device, address, ASN, cable, rack or line of an existing switch's files moves."""
    for shape, steps in (
        (TAPERED.replace("{servers: 512,", "{servers: %d,") + "growth: {max_servers: 768}\n", (192, 512)),
        (
            _rack(0).replace("{servers: 0,", "{servers: %d,") + "growth: {max_servers: 64}\ntargets: [frr, eos]\n",
            (8, 40),
        ),
    ):
        old, new = (placed_text(shape % servers, models=True) for servers in steps)
        assert_only_added(old, new, configs(old), configs(new, only=switches(old)))


@needs(*VALIDATORS)
def test_the_configs_of_a_taper_and_of_racks_pass_every_vendor_validator(tmp_path: Path) -> None:
    """SONiC's YANG, FRR's vtysh, pyavd's EOS rendering and NVIDIA's NVUE schema take a 3-tier fabric whose spines
    are tapered 3:1 and a rack-style one with two switches a rack (designer validate-configs runs each one)."""
    small = "compute: {servers: %d, gpus_per_server: 8, nics_per_server: 4, nic_speed: 400G, server_power_kw: 5}\n"
    shapes = {
        "taper": "name: taper\n" + small % 8 + "fabric: {tiers: 3, servers_per_su: 2, leaf: {ports: 8, speed: 400G}, "
        'oversubscription: {spine: "3:1"}}\n',
        "racks": "name: racks\n" + small % 8 + "fabric: {style: rack, leaf: {ports: 16, speed: 400G, per_rack: 2}}\n"
        "facility: {rack_power_kw: 12}\n",
    }
    assert_every_validator_takes(tmp_path, shapes)


@needs(FRR_LAB)
@pytest.mark.parametrize("name", ["verify-taper", "verify-racks"])
def test_a_tapered_and_a_rack_style_fabric_converge_in_frr_and_survive_their_failures(name: str) -> None:
    """Every route in real FRR, then each failure the lab injects: a 3-tier fabric with its spines tapered 3:1, and
    a rack-style one with two switches a rack."""
    intent = INTENTS / f"{name}.yaml"
    plan = size(parse_intent(intent.read_text(), str(intent)))
    if name == "verify-taper":
        assert (plan.tiers, plan.spine_uplinks, plan.built_tapers()["spine"]) == (3, 1, 3.0)
    else:
        assert (plan.rack_style, plan.per_rack) == (True, 2)
    code, out, err = run_cli("verify", str(intent))
    assert code == 0, out + err
    assert out.rstrip().split("\n")[-1].startswith("result: PASS")


def test_explore_varies_the_taper_and_the_style_like_any_other_field(tmp_path: Path) -> None:
    """The tapered fabric at 1:1, 3:1 and 7:1 spines: fewer super-spine links as the taper steepens."""
    (tmp_path / "t.yaml").write_text(TAPERED)
    code, out, err = run_cli(
        "explore", str(tmp_path / "t.yaml"), "--vary", "fabric.oversubscription.spine=1,'3:1','7:1'", "--format", "json"
    )
    assert code == 0, err
    candidates = json.loads(out)["candidates"]
    supers = [c["switches_by_tier"]["super_spine"]["count"] for c in candidates]
    assert len(candidates) == 3 and supers == sorted(supers, reverse=True)
    (tmp_path / "r.yaml").write_text(_rack(16, "targets: [frr]\n"))
    code, out, err = run_cli(
        "explore", str(tmp_path / "r.yaml"), "--vary", "fabric.style=rail,rack", "--format", "json"
    )
    assert code == 0, err
    leaves = [c["switches_by_tier"]["leaf"]["count"] for c in json.loads(out)["candidates"]]
    assert leaves == [8, 8]  # 16 servers: one SU of 8 rail leaves, or 8 racks of 2 with a switch each

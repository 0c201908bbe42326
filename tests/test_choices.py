"""The architect's choices (fabric.leaf.uplinks, fabric.spine.count, fabric.super_spine.count,
fabric.servers_per_su): published shapes written as intents, refusals with the values that would build, growth that
moves nothing, what each tier costs beside today's servers alone, and the configurations in the vendors' tools and
in real FRR."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from designer.backend.sizing import size
from designer.errors import InputError
from designer.intent import parse_intent
from designer.intent.compute_section import FabricChoices
from designer.outputs.summary import summary_markdown
from tests.conftest import ROOT
from tests.helpers import assert_every_validator_takes, build_text, refused_build
from tests.prerequisites import FRR_LAB, VALIDATORS, needs
from tests.test_growth import assert_only_added, configs, switches
from tests.test_intent_errors import run_cli
from tests.test_physical import placed_text

INTENTS = ROOT / "tests" / "intents"

JVD = """\
name: jvd-qpp
compute: {servers: 8, server: dgx-h100}
fabric:
  servers_per_su: 4
  leaf: {model: juniper-qfx5240-64od, uplinks: 4}
  spine: {model: juniper-qfx5240-64od, count: 4}
"""
"""Juniper's AI data center JVD with queue-pair pinning ("IP Fabric GPU Backend Fabric Architecture",
juniper.net/documentation/us/en/software/jvd/jvd-ai-dc-qpp-bgp-dpf): two stripes, each of eight QFX5240-64OD leaves
(one per rail of 8 x 400GE H100 servers); every leaf has 4 x 400GE uplinks to four QFX5240 spines; 4 servers a stripe
is 1:1 ("Server-to-Leaf BW (8 servers)" equals the 25.6 Tbps leaf-to-spine)."""


def plan_of(path: Path) -> dict[str, Any]:
    """What ``designer plan --format json`` says of the intent at ``path``."""
    code, out, err = run_cli("plan", str(path), "--format", "json")
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def refusal(text: str) -> str:
    """The message of the one problem ``text`` is refused with (at sizing, as validation reports it)."""
    with pytest.raises(InputError) as raised:
        size(parse_intent(text, "choices.yaml"))
    problems = raised.value.problems
    assert len(problems) == 1, problems
    return f"{'.'.join(map(str, problems[0].path))}: {problems[0].message}"


def test_the_juniper_qpp_jvd_is_written_as_it_is_published(tmp_path: Path) -> None:
    """2 stripes of 4 servers on QFX5240 leaves, 4 x 400G up from each to 4 spines: 16 leaves, 4 spines and 64
    leaf-to-spine links (the formulas alone gave 8 leaves and 512 links), 1:1 and every check passing."""
    (tmp_path / "jvd.yaml").write_text(JVD)
    data = plan_of(tmp_path / "jvd.yaml")
    assert data["switches"] == {"leaf": 16, "spine": 4, "super_spine": 0}
    assert data["links"] == {"server_leaf": 64, "leaf_spine": 64, "spine_super_spine": 0}
    assert data["checks"] == {"passed": 14, "failed": 0, "warnings": 0}
    assert data["warnings"] == []
    tiers = data["tiers_built"]
    assert tiers["leaf"]["why"].endswith("(fabric.servers_per_su: 4)")
    assert tiers["spine"]["why"].startswith("fabric.spine.count: 4 per plane, 1 link(s) from each leaf's 4 uplinks")
    design = build_text(JVD, seeds=2, hosts=False)
    ratios = [f.message for f in design.findings if f.check == "oversubscription" and f.subject == "leaf"]
    assert ratios == ["leaf tier: 25.6 Tb/s down, 25.6 Tb/s up (1.00:1); worst switch 1.00:1"]
    leaf = next(config for config in design.configs if config.hostname == "p0-su1-r7-leaf")
    assert [interface.name for interface in leaf.interfaces] == [
        "swp1s0",
        "swp1s1",
        "swp2s0",
        "swp2s1",  # the 4 servers of stripe 1
        "swp3s0",
        "swp3s1",
        "swp4s0",
        "swp4s1",  # one uplink to each of the 4 spines
    ]
    assert sorted({interface.peer_device for interface in leaf.interfaces[4:]}) == [f"p0-spine{i}" for i in range(4)]


def test_the_formulas_counts_given_as_choices_size_the_same_fabric() -> None:
    """Every shipped intent names no choice, and giving the counts the formulas chose for it as choices (its stripe,
    uplinks, spines a pod and super-spines a plane) sizes exactly the same plan: the choices run through the same
    arithmetic, and leaving them out keeps every existing design as it was."""
    for path in sorted((ROOT / "intents").glob("*.yaml")):
        intent = parse_intent(path.read_text(), str(path))
        assert intent.choices == FabricChoices(), path.name
        plan = size(intent)
        chosen = FabricChoices(
            leaf_uplinks=plan.leaf_uplinks,
            spine_count=plan.spines_per_pod,
            super_spine_count=plan.spines_per_pod * plan.supers_per_group if plan.tiers == 3 else None,
            servers_per_su=plan.servers_per_su,
        )
        assert size(replace(intent, choices=chosen)) == plan, path.name


def test_matched_uplinks_send_up_what_the_envelope_uses_down() -> None:
    """8 servers planned for 12 on 64 x 400G leaves: full sends 32 uplinks from each leaf, matched 12 (the 12
    downlinks the envelope uses), and without growth 8; the spines follow (2 of them, then 1)."""
    base = "name: m\ncompute: {servers: 8, server: dgx-h100}\nfabric: {leaf: {model: generic-64x400g, uplinks: %s}}\n"
    grown = base + "growth: {max_servers: 12}\n"
    full, matched = size(parse_intent(grown % "full")), size(parse_intent(grown % "matched"))
    alone = size(parse_intent(base % "matched"))
    assert (full.leaf_uplinks, matched.leaf_uplinks, alone.leaf_uplinks) == (32, 12, 8)
    assert (matched.spines_per_plane, matched.leaf_spine_parallel, alone.spines_per_plane) == (2, 6, 1)


def test_a_spine_count_spreads_each_leafs_uplinks_in_two_and_three_tiers() -> None:
    """4 spines per plane with 2 tiers (8 links from each leaf to each); 16 spines a pod with 3 tiers, 2 links from
    each leaf, so a pod holds 2 scalable units and the ECMP path counts the check computes agree with the graph."""
    two = size(parse_intent(_intent(64, "spine: {model: generic-64x800g, count: 4}")))
    assert (two.tiers, two.spines_per_pod, two.leaf_spine_parallel) == (2, 4, 8)
    three_text = _intent(512, "tiers: 3, spine: {model: generic-64x400g, count: 16}")
    three = size(parse_intent(three_text))
    assert (three.tiers, three.spines_per_pod, three.leaf_spine_parallel, three.sus_per_pod, three.pods) == (
        3,
        16,
        2,
        2,
        8,
    )
    assert (three.supers_per_group, three.spine_super_parallel) == (4, 8)
    design = build_text(three_text, seeds=2, hosts=False)
    assert [f for f in design.findings if f.severity == "error"] == []
    paths = [f.evidence for f in design.findings if f.check == "ecmp-balance" and f.subject == "different pods"]
    assert paths == [{"paths": 16 * 2**2 * 4 * 8**2}]


def test_a_super_spine_count_sets_each_groups_share() -> None:
    """128 super-spines per plane over 32 groups (one per spine of a pod) are 4 a group, 8 links from each spine."""
    plan = size(parse_intent(_intent(1024, "tiers: 3, super_spine: {model: generic-64x400g, count: 128}")))
    assert (plan.groups, plan.supers_per_group, plan.spine_super_parallel, plan.supers_per_plane) == (32, 4, 8, 128)


@pytest.mark.parametrize(
    ("fabric", "expected"),
    [
        (
            "servers_per_su: 40, leaf: {model: generic-64x400g}",
            "fabric.servers_per_su: a generic-64x400g leaf has 32 downlinks at 400G, so a scalable unit holds at most "
            "32 servers; use servers_per_su from 1 to 32, or larger leaves",
        ),
        (
            "servers_per_su: 8, leaf: {model: generic-64x400g, uplinks: 60}",
            "fabric.leaf.uplinks: a generic-64x400g leaf of 8 downlinks has room for at most 56 uplinks at 400G; "
            "use 1 to 56, full or matched",
        ),
        (
            "leaf: {model: generic-64x400g}, spine: {model: generic-64x400g, count: 3}",
            "fabric.spine.count: 3 spines do not spread each leaf's 32 uplinks evenly; counts that do: 8, 16, 32",
        ),
        (
            "leaf: {model: generic-64x400g}, spine: {model: generic-64x400g, count: 2}",
            "fabric.spine.count: 2 spines lack the ports of 64-port spines for 16 leaves; counts that do: 8, 16, 32",
        ),
        (
            "tiers: 3, leaf: {model: generic-64x400g}, super_spine: {model: generic-64x400g, count: 64}",
            "fabric.super_spine.count: 64 super-spines lack the ports of 64-port super-spines for 8 pods; counts that "
            "do: 128, 256, 512, 1024",
        ),
        (
            "tiers: 3, leaf: {model: generic-64x400g}, super_spine: {model: generic-64x400g, count: 100}",
            "fabric.super_spine.count: 100 super-spines do not spread each spine's 32 uplinks over 32 groups (one per "
            "spine of a pod) evenly; counts that do: 128, 256, 512, 1024",
        ),
        (
            "leaf: {model: generic-64x400g}, super_spine: {model: generic-64x400g, count: 4}",
            "fabric.super_spine.count: the fabric has 2 tiers (16 leaves per plane fit the spines), so it has no "
            "super-spines; remove super_spine.count, or use tiers: 3",
        ),
    ],
)
def test_a_choice_the_fabric_cannot_build_is_refused_with_the_values_that_would(fabric: str, expected: str) -> None:
    servers = 1024 if "tiers: 3" in fabric else 64
    assert refusal(f"name: r\ncompute: {{servers: {servers}, server: dgx-h100}}\nfabric: {{{fabric}}}\n") == expected


def test_a_refused_choice_is_exit_2_at_its_line_with_nothing_written(tmp_path: Path) -> None:
    path, err = refused_build(
        tmp_path,
        "name: r\ncompute: {servers: 64, server: dgx-h100}\nfabric:\n  leaf: {model: generic-64x400g}\n"
        "  spine:\n    model: generic-64x400g\n    count: 3\n",
    )
    assert err.startswith(f"{path}:7: fabric.spine.count: 3 spines do not spread each leaf's 32 uplinks evenly")


def test_growing_a_chosen_shape_inside_its_plan_moves_nothing() -> None:
    """The JVD's shape planned for 3 stripes, built with 1 then 3: no device, address, ASN, cable, rack or line of
    an existing switch's FRR and EOS files moves; likewise matched uplinks with 4 spines a pod in 3 tiers."""
    for shape, steps in (
        (JVD.replace("{servers: 8,", "{servers: %d,") + "growth: {max_servers: 12}\n", (4, 12)),
        (_intent(0, "tiers: 3, spine: {model: generic-64x400g, count: 16}", "growth: {max_servers: 128}\n"), (32, 96)),
    ):
        old, new = (placed_text(_with_targets(shape % servers), models=True) for servers in steps)
        assert_only_added(old, new, configs(old), configs(new, only=switches(old)))


def test_the_growth_envelope_cost_is_shown_per_tier() -> None:
    """A 4,096-GPU design planned for 8,192 builds 64 spines where today's servers alone need 32: summary.md and
    the plan say so, per tier, with the kW it costs."""
    text = _intent(512, "spine: {model: generic-64x800g}", "growth: {max_servers: 1024}\n")
    design = build_text(text, seeds=2, hosts=False)
    alone = {cost.tier: cost for cost in design.without_growth or ()}
    assert (design.plan.switch_counts()["spine"], alone["spine"].switches) == (64, 32)
    markdown = summary_markdown(design)
    row = next(line for line in markdown.splitlines() if line.startswith("| spine | 64 |") and "switch(es)" in line)
    assert "| 32 switches, " in row and "| +32 switch(es), " in row
    assert alone["spine"].kw < next(cost.kw for cost in design.tier_costs if cost.tier == "spine")


@needs(*VALIDATORS)
def test_the_configs_of_each_choice_pass_every_vendor_validator(tmp_path: Path) -> None:
    """SONiC's YANG, FRR's vtysh, pyavd's EOS rendering and NVIDIA's NVUE schema take the files of every choice
    (designer validate-configs runs each one): stripes of 2 with 2 uplinks over 2 chosen spines; stripes of 3 with
    matched uplinks over 3 spines a pod and 6 chosen super-spines, 2 links from each spine to each."""
    small = "compute: {servers: %d, gpus_per_server: 8, nics_per_server: 2, nic_speed: 400G, server_power_kw: 10.2}\n"
    shapes = {
        "stripes": "name: stripes\n" + small % 4 + "fabric: {tiers: 2, servers_per_su: 2, leaf: {ports: 8, speed: "
        "400G, uplinks: 2}, spine: {count: 2}}\n",
        "counts": "name: counts\n" + small % 12 + "fabric: {tiers: 3, servers_per_su: 3, leaf: {ports: 8, speed: "
        "400G, uplinks: matched}, spine: {count: 3}, super_spine: {count: 6}}\n",
    }
    assert_every_validator_takes(tmp_path, shapes)


@needs(FRR_LAB)
def test_a_chosen_shape_converges_in_frr_and_survives_its_failures() -> None:
    """Matched uplinks (4 from each leaf, not full's 8) over 4 chosen spines: every route in real FRR, then each
    failure the lab injects."""
    intent = INTENTS / "verify-choices.yaml"
    plan = size(parse_intent(intent.read_text(), str(intent)))
    assert (plan.leaf_uplinks, plan.spines_per_plane, plan.leaf_spine_parallel) == (4, 4, 1)
    code, out, err = run_cli("verify", str(intent))
    assert code == 0, out + err
    assert out.rstrip().split("\n")[-1].startswith("result: PASS")


def test_explore_varies_a_choice_like_any_other_field(tmp_path: Path) -> None:
    """The JVD's shape with 2 or 4 spines: both build, and one spine down leaves half the bisection of 2 spines, three
    quarters of 4's."""
    (tmp_path / "jvd.yaml").write_text(JVD)
    code, out, err = run_cli(
        "explore", str(tmp_path / "jvd.yaml"), "--vary", "fabric.spine.count=2,4", "--format", "json"
    )
    assert code == 0, err
    spines = {c["switches_by_tier"]["spine"]["count"]: c for c in json.loads(out)["candidates"]}
    assert {count: c["failure_bisection"] for count, c in spines.items()} == {2: 0.5, 4: 0.75}


def test_an_infiniband_fabric_takes_the_choices() -> None:
    """The JVD's shape on QM9700s with OpenSM: 16 leaves and 4 spines, the subnet manager's files written."""
    text = JVD.replace("juniper-qfx5240-64od", "nvidia-qm9700").replace(
        "fabric:\n", "fabric:\n  technology: infiniband\n"
    )
    design = build_text(text + "targets: [opensm]\n", seeds=2, hosts=False)
    assert design.plan.switch_counts() == {"leaf": 16, "spine": 4, "super_spine": 0}
    assert [f for f in design.findings if f.severity == "error"] == []


def test_a_workload_runs_over_the_chosen_shape() -> None:
    """A 64-GPU AllReduce over the JVD's shape, one server per stripe in turn: its ring leaves the leaves over the 4
    chosen spines, as much over them as over the servers' links (the formulas' 8 leaves keep every hop on its leaf)."""
    job = "workloads:\n  - {name: all, placement: scattered, bytes: 10GB}\n"
    (chosen,) = build_text(JVD + job, seeds=2, hosts=False).workloads
    assert chosen.routed > 0 and chosen.fabric_bytes["leaf_spine"] == chosen.fabric_bytes["server_leaf"] > 0
    formulas = JVD.replace("  servers_per_su: 4\n", "").replace(", uplinks: 4", "").replace(", count: 4", "")
    (alone,) = build_text(formulas + job, seeds=2, hosts=False).workloads
    assert alone.fabric_bytes["leaf_spine"] == 0


def _intent(servers: int, fabric: str, extra: str = "") -> str:
    """An H100 intent of ``servers`` (0: a ``%d`` to fill) on 64 x 400G leaves unless ``fabric`` names its own."""
    leaf = "" if "leaf:" in fabric else "leaf: {model: generic-64x400g}, "
    count = "%d" if servers == 0 else str(servers)
    return f"name: c\ncompute: {{servers: {count}, server: dgx-h100}}\nfabric: {{{leaf}{fabric}}}\n{extra}"


def _with_targets(text: str, targets: str = "[frr, eos]") -> str:
    return text + f"targets: {targets}\n"


def test_a_tier_given_only_its_count_takes_the_hardware_below() -> None:
    """``spine: {count: 4}`` names no hardware: the spines are the leaf's model, as with no spine section at all."""
    counted = parse_intent(_intent(64, "spine: {count: 8}"))
    assert counted.spine == parse_intent(_intent(64, "leaf: {model: generic-64x400g}")).spine
    assert size(counted).spines_per_plane == 8


@pytest.mark.parametrize("value", ["0", "half", "true", "'4'", "8193"])
def test_an_uplink_value_that_is_no_choice_is_one_message_with_the_valid_ones(value: str, tmp_path: Path) -> None:
    path = tmp_path / "uplinks.yaml"
    path.write_text(f"name: u\ncompute: {{servers: 8, server: dgx-h100}}\nfabric:\n  leaf: {{uplinks: {value}}}\n")
    code, out, err = run_cli("plan", str(path))
    assert (code, out) == (2, "")
    problems = [line for line in err.splitlines() if "fabric.leaf.uplinks" in line]
    assert len(problems) == 1 and problems[0].startswith(f"{path}:4: fabric.leaf.uplinks: ")
    assert problems[0].endswith("is not an uplink choice; use full, matched or a count from 1 to 8192")


def test_every_choice_that_cannot_build_is_reported_at_once(tmp_path: Path) -> None:
    """A stripe too large, more uplinks than the leaf has room for, a spine count that does not divide them and
    super-spines on 2 tiers: four problems at their four lines in one run, each checked against the formulas' value
    of the choices before it (the stripe of 32, full uplinks)."""
    path, err = refused_build(
        tmp_path,
        "name: many\ncompute: {servers: 64, server: dgx-h100}\nfabric:\n  tiers: 2\n  servers_per_su: 40\n"
        "  leaf: {model: generic-64x400g, uplinks: 40}\n  spine: {count: 3}\n  super_spine: {count: 4}\n",
    )
    lines = err.splitlines()
    assert [line.split(": ")[1] for line in lines[:4]] == [
        "fabric.servers_per_su",
        "fabric.leaf.uplinks",
        "fabric.spine.count",
        "fabric.super_spine.count",
    ]
    assert [line.split(": ")[0] for line in lines[:4]] == [f"{path}:{line}" for line in (5, 6, 7, 8)]
    assert lines[2].endswith("3 spines do not spread each leaf's 32 uplinks evenly; counts that do: 8, 16, 32")
    assert lines[4] == "4 errors in the intent; nothing was written."

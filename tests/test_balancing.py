"""Load balancing: the intent's section, what each target can express (input errors from plan, check and build),
each switch's resolved settings in the device model and design.json, and the seed rules' stability."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from functools import cache
from itertools import pairwise

import pytest

from designer.catalog import catalog
from designer.checks import balancing as balancing_check
from designer.checks import status
from designer.checks.base import MAX_PER_KIND
from designer.design import Built, Design
from designer.fabric import LEAF_SPINE, SPINE_SUPER
from designer.findings import Finding
from designer.model import HASH_FIELDS, TIER_SEEDS, seed_range, switch_seed
from designer.outputs.design_json import design_json
from designer.pipeline import build
from tests.conftest import ROOT
from tests.helpers import build_text, intent_text
from tests.test_growth import H100_STEPS
from tests.test_intent_errors import run_cli

U32 = 2**32 - 1
"""The Linux kernel's net.ipv4.fib_multipath_hash_seed is a u32 (Documentation/networking/ip-sysctl.rst), and 0
asks for a random seed; NVUE's system forwarding hash-seed takes 0-4294967295 (tests/vendor/nvue/paths-5.x.csv)."""


def test_a_gpu_fabric_hashes_five_tuples_with_a_seed_per_tier_by_default() -> None:
    design = build_text(intent_text(servers=64, spine="{model: generic-64x400g}",
                                    fabric_extra="tiers: 3"))
    by_role = {config.role: config.load_balancing for config in design.configs}
    assert set(by_role) == {"leaf", "spine", "super_spine"}
    for role, balancing in by_role.items():
        assert (balancing.mode, balancing.hash, balancing.seed) == ("ecmp", "five-tuple", TIER_SEEDS[role])
        assert "source-port" in balancing.fields and balancing.layer4
    assert len({balancing.seed for balancing in by_role.values()}) == 3


def test_every_switch_row_of_design_json_carries_its_load_balancing() -> None:
    design = build_text(intent_text(servers=8, extra="targets: [frr, nvue]\nload_balancing: {seeds: per-switch}"))
    rows = {row["name"]: row for row in json.loads(design_json(design))["devices"]}
    for config in design.configs:
        assert rows[config.hostname]["load_balancing"] == {"mode": "ecmp", "hash": "five-tuple",
                                                           "seed": switch_seed(config.hostname)}
    assert all("load_balancing" not in row for row in rows.values() if row["role"] == "server")


def test_per_switch_seeds_fit_every_target_that_takes_them_and_differ() -> None:
    low, high = seed_range()
    assert (low, high) == (1, U32)  # 0 is the kernel's "random": never written
    for target in catalog().targets.values():
        balancing = target.load_balancing
        if "per-switch" in balancing.seeds:
            assert balancing.seed_range[0] <= low and high <= balancing.seed_range[1]
    design = build_text(intent_text(servers=64, extra="targets: [frr, nvue]\nload_balancing: {seeds: per-switch}"))
    seeds = [config.load_balancing.seed for config in design.configs]
    assert len(set(seeds)) == len(seeds)
    assert all(low <= seed <= high for seed in seeds)


def test_per_tier_seeds_are_inside_every_target_range_that_writes_a_seed() -> None:
    for target in catalog().targets.values():
        if target.load_balancing.seed_range is not None:
            low, high = target.load_balancing.seed_range
            assert all(low <= seed <= high for seed in TIER_SEEDS.values()), target.name
    assert 0 not in TIER_SEEDS.values()


def test_a_switch_keeps_its_seed_as_the_fabric_grows_inside_its_envelope() -> None:
    def seeds(servers: int) -> dict[str, int]:
        design = build_text(f"name: growth\ncompute: {{servers: {servers}, server: dgx-h100}}\n"
                            "growth: {max_servers: 1024}\nfabric: {leaf: {model: generic-64x400g}}\n"
                            "targets: [frr, nvue]\nload_balancing: {seeds: per-switch}\n")
        return {config.hostname: config.load_balancing.seed for config in design.configs}

    for small, large in pairwise(H100_STEPS[:4]):
        before, after = seeds(small), seeds(large)
        assert set(before) < set(after)
        assert {name: after[name] for name in before} == before


def test_hash_fields_name_layer_4_for_every_hash_choice() -> None:
    for names in HASH_FIELDS.values():
        assert {"source-port", "destination-port", "source-ip", "destination-ip"} <= set(names)


@pytest.mark.parametrize("command", ["plan", "check", "build"])
def test_what_a_target_cannot_express_is_an_input_error_for_every_command(command: str, tmp_path) -> None:
    intent = tmp_path / "lb.yaml"
    intent.write_text(intent_text(servers=4, extra="targets: [frr, eos]\nload_balancing:\n  mode: dynamic\n"
                                                   "  seeds: per-switch\n"))
    code, out, err = run_cli(command, str(intent))
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert lines[0].startswith(f"{intent}:10: load_balancing.mode: dynamic is not something eos, frr can express")
    assert "NVUE" not in lines[0] and "EOS ecmp; FRR ecmp" in lines[0]
    assert lines[1].startswith(f"{intent}:11: load_balancing.seeds: per-switch is not something eos can express")
    assert lines[-1] == "2 errors in the intent; nothing was written."


def test_dynamic_load_balancing_is_accepted_where_the_platform_has_it() -> None:
    design = build_text(intent_text(servers=4, leaf="{model: nvidia-sn5600, speed: 400G}",
                                    extra="targets: [nvue]\nload_balancing: {mode: dynamic}"))
    assert {config.load_balancing.mode for config in design.configs} == {"dynamic"}


def with_balancing(design: Design, **changes: object) -> Built:
    """The design as checks read it, with every switch's load balancing changed."""
    configs = tuple(replace(config, load_balancing=replace(config.load_balancing, **changes))
                    for config in design.configs)
    return Built(**{**{field.name: getattr(design, field.name) for field in fields(Built)}, "configs": configs})


def errors(built: Built) -> list[Finding]:
    return [finding for finding in balancing_check.check(built) if finding.severity != "info"]


@cache
def three_tier() -> Design:
    return build(ROOT / "tests" / "intents" / "small-3tier.yaml")


def test_the_check_passes_on_shipped_and_per_switch_designs() -> None:
    for design in (three_tier(), build(ROOT / "intents" / "cluster.yaml"),
                   build_text(intent_text(servers=64, extra="targets: [frr, nvue]\nload_balancing: {seeds: "
                                                            "per-switch}"))):
        assert [finding for finding in design.findings
                if finding.check == balancing_check.ID and finding.severity != "info"] == []
        assert status(design.findings)[balancing_check.ID] == "passed"


def test_one_seed_on_every_tier_polarizes_and_fails_the_check() -> None:
    design = three_tier()
    findings = errors(with_balancing(design, seed=7))
    links = {tier: sum(1 for link in design.fabric.links if link[0] == tier) for tier in (LEAF_SPINE, SPINE_SUPER)}
    assert [finding.severity for finding in findings] == ["error", "error"]
    assert findings[0].message.startswith(f"{links[LEAF_SPINE]:,} leaf-spine links join two switches hashing with "
                                          "seed 7")
    assert findings[1].message.startswith(f"{links[SPINE_SUPER]:,} spine-super_spine links join")
    assert balancing_check.SEVERITY == "error"


def test_a_layer_3_hash_fails_the_check_on_every_switch() -> None:
    design = three_tier()
    findings = errors(with_balancing(design, fields=("source-ip", "destination-ip")))
    assert len(findings) == min(len(design.configs), MAX_PER_KIND) + (len(design.configs) > MAX_PER_KIND)
    assert "without both layer-4 ports" in findings[0].message

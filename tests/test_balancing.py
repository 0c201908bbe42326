"""Load balancing: the intent's section, what each target can express (input errors from plan, check and build),
each switch's resolved settings in the device model and design.json, and the seed rules' stability."""

from __future__ import annotations

import json
import re
from dataclasses import fields, replace
from functools import cache
from itertools import pairwise
from pathlib import Path

import pytest

from designer.backend.model import HASH_FIELDS, TIER_SEEDS, seed_range, switch_seed
from designer.backend.wiring import LEAF_SPINE, SPINE_SUPER
from designer.catalog import catalog
from designer.checks import balancing as balancing_check
from designer.checks import status
from designer.checks.base import MAX_PER_KIND
from designer.design import Built, Design
from designer.errors import PrerequisiteError
from designer.findings import Finding
from designer.outputs.design_json import design_json
from designer.pipeline import build
from designer.render import eos, linux, nvue, render_configs, sonic
from designer.verify import pyavd_eos
from designer.verify.parsers import ConfigDbError, check_sysctls
from designer.verify.run import read_output
from tests.conftest import ROOT
from tests.helpers import EOS_LIMITS, build_text, intent_text
from tests.prerequisites import HASH_SEED, LIBYANG, PYAVD, needs
from tests.test_growth import H100_STEPS
from tests.test_intent_errors import run_cli
from tests.test_sonic import sonic_configs, sonic_yang

U32 = 2**32 - 1
"""The Linux kernel's net.ipv4.fib_multipath_hash_seed is a u32 (Documentation/networking/ip-sysctl.rst), and 0
asks for a random seed; NVUE's system forwarding hash-seed takes 0-4294967295 (tests/vendor/nvue/paths-5.x.csv)."""


def test_a_gpu_fabric_hashes_five_tuples_with_a_seed_per_tier_by_default() -> None:
    design = build_text(intent_text(servers=64, spine="{model: generic-64x400g}", fabric_extra="tiers: 3"))
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
        assert rows[config.hostname]["load_balancing"] == {
            "mode": "ecmp",
            "hash": "five-tuple",
            "seed": switch_seed(config.hostname, catalog()),
        }
    assert all("load_balancing" not in row for row in rows.values() if row["role"] == "server")


def test_per_switch_seeds_fit_every_target_that_takes_them_and_differ() -> None:
    low, high = seed_range(catalog())
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
        design = build_text(
            f"name: growth\ncompute: {{servers: {servers}, server: dgx-h100}}\n"
            "growth: {max_servers: 1024}\nfabric: {leaf: {model: generic-64x400g}}\n"
            "targets: [frr, nvue]\nload_balancing: {seeds: per-switch}\n"
        )
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
    intent.write_text(
        intent_text(servers=4, extra="targets: [frr, eos]\nload_balancing:\n  mode: dynamic\n  seeds: per-switch\n")
    )
    code, out, err = run_cli(command, str(intent))
    assert code == 2 and out == ""
    lines = err.splitlines()
    # the older name dynamic is adaptive's, and the message says where each mode runs
    assert lines[0].startswith(f"{intent}:10: load_balancing.mode: adaptive is not something eos, frr can express")
    assert "NVUE" not in lines[0]
    assert (
        "EOS ecmp, adaptive (only on arista-7060x6-64pe), cluster (only on arista-7060x6-64pe), spray; FRR ecmp, spray"
        in lines[0]
    )
    assert lines[1].startswith(f"{intent}:11: load_balancing.seeds: per-switch is not something eos can express")
    assert lines[-1] == "2 errors in the intent; nothing was written."


def test_adaptive_load_balancing_is_accepted_where_the_platform_has_it_by_its_older_name_too() -> None:
    for mode in ("dynamic", "adaptive"):
        design = build_text(
            intent_text(
                servers=4,
                leaf="{model: nvidia-sn5600, speed: 400G}",
                extra=f"targets: [nvue]\nload_balancing: {{mode: {mode}}}",
            )
        )
        assert {config.load_balancing.mode for config in design.configs} == {"adaptive"}


def with_balancing(design: Design, **changes: object) -> Built:
    """The design as checks read it, with every switch's load balancing changed."""
    configs = tuple(
        replace(config, load_balancing=replace(config.load_balancing, **changes)) for config in design.configs
    )
    return Built(**{**{field.name: getattr(design, field.name) for field in fields(Built)}, "configs": configs})


def errors(built: Built) -> list[Finding]:
    return [finding for finding in balancing_check.check(built) if finding.severity != "info"]


@cache
def three_tier() -> Design:
    return build(ROOT / "tests" / "intents" / "small-3tier.yaml")


def test_the_check_passes_on_shipped_and_per_switch_designs() -> None:
    for design in (
        three_tier(),
        build(ROOT / "intents" / "cluster.yaml"),
        build_text(intent_text(servers=64, extra="targets: [frr, nvue]\nload_balancing: {seeds: per-switch}")),
    ):
        assert [
            finding for finding in design.findings if finding.check == balancing_check.ID and finding.severity != "info"
        ] == []
        assert status(design.findings)[balancing_check.ID] == "passed"


def test_one_seed_on_every_tier_polarizes_and_fails_the_check() -> None:
    design = three_tier()
    findings = errors(with_balancing(design, seed=7))
    links = {tier: sum(1 for link in design.fabric.links if link[0] == tier) for tier in (LEAF_SPINE, SPINE_SUPER)}
    assert [finding.severity for finding in findings] == ["error", "error"]
    assert findings[0].message.startswith(
        f"{links[LEAF_SPINE]:,} leaf-spine links join two switches hashing with seed 7"
    )
    assert findings[1].message.startswith(f"{links[SPINE_SUPER]:,} spine-super_spine links join")
    assert balancing_check.SEVERITY == "error"


def test_a_layer_3_hash_fails_the_check_on_every_switch() -> None:
    design = three_tier()
    findings = errors(with_balancing(design, fields=("source-ip", "destination-ip")))
    assert len(findings) == min(len(design.configs), MAX_PER_KIND) + (len(design.configs) > MAX_PER_KIND)
    assert "without both layer-4 ports" in findings[0].message


# ---- each OS against its vendor's own artifacts ----------------------------------------------------------------

YANG = ROOT / "designer" / "data" / "sonic-yang"
"""SONiC's YANG models (sonic-net/sonic-buildimage 086b03bd, src/sonic-yang-models/yang-models; Apache-2.0)."""
OS_FIELDS = {
    "frr": None,
    "sonic": sonic.ECMP_HASH_FIELDS,
    "nvue": nvue.ECMP_HASH_FIELDS,
    "eos": {**eos.LOAD_SHARING_FIELDS, "ip-protocol": None},
}
"""Each OS's spelling of the hash fields (EOS hashes the protocol without naming it; the kernel's policy 1 is the
five-tuple as a whole)."""


def yang_enums(module: str, typedef: str) -> set[str]:
    """The enum values of ``typedef`` in one of the shipped SONiC YANG models."""
    text = (YANG / f"{module}.yang").read_text()
    body = text[text.index(f"typedef {typedef} {{") :]
    body = body[: body.index("\n    }\n")]
    return set(re.findall(r"enum (\w+);", body))


def test_sonic_hash_fields_and_algorithm_are_enum_values_of_sonic_yang() -> None:
    assert set(sonic.ECMP_HASH_FIELDS.values()) <= yang_enums("sonic-hash", "hash-field")
    assert sonic.ECMP_HASH_ALGORITHM in yang_enums("sonic-types", "hash-algorithm")
    assert not any("QP" in value or "QUEUE" in value for value in yang_enums("sonic-hash", "hash-field"))


def test_a_target_is_offered_exactly_the_hashes_its_configuration_can_spell() -> None:
    for target, spelled in OS_FIELDS.items():
        if spelled is None:
            can = set(linux.HASH_POLICY)
        else:
            can = {name for name, names in HASH_FIELDS.items() if set(names) <= spelled.keys()}
        assert set(catalog().targets[target].load_balancing.hashes) == can, target


@needs(LIBYANG)
def test_every_config_db_sets_the_five_tuple_hash_and_libyang_refuses_a_field_the_models_lack() -> None:
    yang = sonic_yang()
    design = three_tier()
    configs = sonic_configs(design)
    for config in configs.values():
        assert config["SWITCH_HASH"] == {
            "GLOBAL": {
                "ecmp_hash": ["SRC_IP", "DST_IP", "IP_PROTOCOL", "L4_SRC_PORT", "L4_DST_PORT"],
                "ecmp_hash_algorithm": "CRC",
            }
        }
        yang.check(config)
    config = next(iter(configs.values()))
    config["SWITCH_HASH"]["GLOBAL"]["ecmp_hash"].append("ROCE_QP")
    with pytest.raises(ConfigDbError, match=r"SWITCH_HASH.*ecmp_hash.*ROCE_QP"):
        yang.check(config)


def test_sonic_seeds_differ_per_tier_through_the_device_type() -> None:
    # docker-orchagent/switch.json.j2 (sonic-buildimage) sets ecmp_hash_seed from DEVICE_METADATA type: ToRRouter 0,
    # LeafRouter 10, SpineRouter 25; the YANG models have no seed field, so the type is how a tier gets its seed.
    orchagent = {"ToRRouter": 0, "LeafRouter": 10, "SpineRouter": 25}
    configs = sonic_configs(three_tier())
    seeds = {config["DEVICE_METADATA"]["localhost"]["type"] for config in configs.values()}
    assert seeds == set(orchagent)
    assert catalog().targets["sonic"].load_balancing.seeds == ("per-tier",)


@needs(PYAVD)
def test_eos_hashes_the_layer_4_ports_and_arista_rendering_has_the_line() -> None:
    """The ``fields`` line on every switch and no seed line (EOS picks its own seed: see test_avd)."""
    design = three_tier()
    files = render_configs(design.configs, ["eos"])
    for device in design.configs:
        text = files[f"configs/eos/{device.hostname}.cfg"].decode()
        line = "ip load-sharing trident fields ip source-ip destination-ip source-port destination-port"
        assert f"\n{line}\n" in text and "seed" not in text
        assert pyavd_eos.compare(device, text, EOS_LIMITS) == []
        assert pyavd_eos.compare(device, text.replace(f"\n{line}\n", "\n"), EOS_LIMITS) == [
            f"missing {line} (Arista's rendering has it)"
        ]


@needs(HASH_SEED)
def test_every_frr_router_gets_a_sysctl_file_of_this_kernels_settings(tmp_path: Path) -> None:
    design = three_tier()
    files = render_configs(design.configs, ["frr"])
    paths = []
    for device in design.configs:
        path = tmp_path / f"{device.hostname}.conf"
        path.write_bytes(files[f"configs/sysctl/{device.hostname}.conf"])
        paths.append((path, path.name))
        settings = dict(line.split(" = ") for line in path.read_text().splitlines() if not line.startswith("#"))
        assert settings == {
            "net.ipv4.fib_multipath_hash_policy": "1",
            "net.ipv4.fib_multipath_hash_seed": str(TIER_SEEDS[device.role]),
        }
    assert [verdict.error for verdict in check_sysctls(paths)] == [""] * len(paths)
    broken = tmp_path / "broken.conf"
    broken.write_text("net.ipv4.fib_multipath_hash_seed = one\n")
    assert check_sysctls([(broken, "broken.conf")])[0].error == (
        "broken.conf:1: net.ipv4.fib_multipath_hash_seed: 'one' is not an integer from 0 to 4294967295"
    )
    broken.write_text("net.ipv4.fib_multipath_hash_sed = 1\n")  # a key verify would not apply: the file is invalid
    assert check_sysctls([(broken, "broken.conf")])[0].error.startswith(
        "broken.conf:1: (top-level): 'net.ipv4.fib_multipath_hash_sed = 1': verify applies only "
    )
    broken.write_text("net.ipv4.fib_multipath_hash_seed = 5\n")  # a kernel without the seed (before Linux 6.11)
    with pytest.raises(PrerequisiteError, match=r"needs a kernel with net\.ipv4\.fib_multipath_hash_seed"):
        check_sysctls([(broken, "broken.conf")], proc=tmp_path / "older-kernel")


def test_verify_reads_each_routers_kernel_settings_from_a_built_folder(tmp_path: Path) -> None:
    code, _, err = run_cli("build", str(ROOT / "tests" / "intents" / "small-2tier.yaml"), "-o", str(tmp_path / "out"))
    assert code == 0, err
    files = read_output(tmp_path / "out")
    switches = [name for name in json.loads(files["design.json"])["devices"] if name["role"] != "server"]
    assert {f"configs/sysctl/{row['name']}.conf" for row in switches} <= set(files)


def test_the_intent_offers_only_hashes_some_target_renders() -> None:
    """A hash the schema offers must be written by at least one target, with the syntax its vendor documents:
    SONiC's hash fields (sonic-hash.yang, hash-field enum: no queue pair), NVUE's ``system forwarding ecmp-hash``
    leaves (tests/vendor/nvue/paths-5.x.csv: no queue pair), the kernel's fib_multipath_hash_policy (layer 4 at
    most) and EOS's ``ip load-sharing trident fields ip`` keywords (addresses and ports; RoCE queue pairs only
    through UDF fields, which designer does not write) have none for the RoCE queue pair."""
    from designer.intent.configs import LoadBalancingDoc

    offered = set(LoadBalancingDoc.model_fields["hash"].annotation.__args__)  # type: ignore[union-attr]
    rendered = {name for target in catalog().targets.values() for name in target.load_balancing.hashes}
    assert offered <= rendered
    assert set(HASH_FIELDS) == offered


def test_summary_says_which_targets_pick_their_own_hash_seed() -> None:
    """designer writes no seed for EOS (no public Arista source documents ``ip load-sharing trident seed``) nor
    SONiC (no seed in its YANG models); summary.md says those OSes pick their own."""
    from designer.outputs.summary import summary_markdown

    text = summary_markdown(build_text(intent_text(servers=8, extra="targets: [frr, eos, nvue]")))
    assert (
        "Hash seeds (per-tier): written for FRR, NVUE; EOS picks its own (designer writes no seed for it), so "
        "the load-balancing check's seeds hold for FRR, NVUE."
    ) in text

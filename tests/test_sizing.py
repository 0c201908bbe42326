"""Sizing against DOMAIN.md section 2: published rows, closed forms and the ECMP divisor rule."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from designer.backend import sizing
from designer.backend.sizing import size
from designer.errors import InputError
from designer.intent import parse_intent
from tests.helpers import build_design, intent_text


def plan_of(**fields: object):
    return size(parse_intent(intent_text(**fields)))  # type: ignore[arg-type]


def test_published_row_128_servers_two_tiers() -> None:
    """NVIDIA, 8 x 400G per server on 64 x 400G switches: 128 servers -> 32 leaves + 16 spines."""
    plan = plan_of(servers=128)
    assert plan.tiers == 2
    assert plan.switch_counts() == {"leaf": 32, "spine": 16, "super_spine": 0}
    assert plan.link_counts() == {"server_leaf": 1024, "leaf_spine": 1024, "spine_super_spine": 0}
    assert plan.leaf_spine_parallel == 2


def test_published_row_512_servers_three_tiers() -> None:
    """512 servers -> 128 leaves, 128 spines, 64 core switches, 4,096 links per tier."""
    plan = plan_of(servers=512)
    assert plan.tiers == 3
    assert plan.switch_counts() == {"leaf": 128, "spine": 128, "super_spine": 64}
    assert plan.link_counts() == {"server_leaf": 4096, "leaf_spine": 4096, "spine_super_spine": 4096}
    assert (plan.pods, plan.spines_per_pod, plan.groups, plan.supers_per_group) == (4, 32, 32, 2)


@pytest.mark.parametrize(
    ("leaf", "nic_ports_2_tier", "nic_ports_3_tier"),
    [
        ("{model: generic-64x400g}", 2048, 65536),  # k = 64: k^2/2 and k^3/4
        ("{model: generic-64x800g}", 8192, 524288),  # 64 x 800G run as 128 x 400G
    ],
)
def test_maximum_sizes_match_closed_forms(
    leaf: str, nic_ports_2_tier: int, nic_ports_3_tier: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sizing, "MAX_LINKS", 4 * nic_ports_3_tier)  # the arithmetic beyond what a build accepts
    biggest_two = plan_of(servers=nic_ports_2_tier // 8, leaf=leaf)
    assert (biggest_two.tiers, biggest_two.nic_ports_per_plane) == (2, nic_ports_2_tier)
    assert biggest_two.switch_counts()["spine"] == biggest_two.leaf_radix // 2  # S = N/k
    assert plan_of(servers=nic_ports_2_tier // 8 + 1, leaf=leaf).tiers == 3
    biggest_three = plan_of(servers=nic_ports_3_tier // 8, leaf=leaf)
    k = biggest_three.leaf_radix
    assert biggest_three.switch_counts() == {
        "leaf": 2 * nic_ports_3_tier // k,
        "spine": 2 * nic_ports_3_tier // k,
        "super_spine": nic_ports_3_tier // k,
    }
    with pytest.raises(InputError, match="3 tiers hold at most"):
        plan_of(servers=nic_ports_3_tier // 8 + 1, leaf=leaf)


def test_144_port_800g_two_tier_maximum() -> None:
    """144 x 800G with 800G NICs: 2 tiers hold 144^2/2 = 10,368 NIC ports."""
    plan = plan_of(servers=10368 // 8, leaf="{model: generic-144x800g}", compute_extra="nic_speed: 800G")
    assert (plan.tiers, plan.nic_ports_per_plane, plan.switch_counts()["spine"]) == (2, 10368, 72)


def test_32k_gpus_on_128_port_radix() -> None:
    """DOMAIN.md section 3: a 32,768-GPU 3-tier fabric at 400G with k = 128 has 1,280 switches."""
    plan = plan_of(gpus=32768, leaf="{model: generic-64x800g}")
    assert plan.tiers == 3
    assert sum(plan.switch_counts().values()) == 1280
    assert sum(plan.link_counts().values()) == 98304


def test_ecmp_divisor_rule_picks_a_divisor_of_the_uplinks() -> None:
    """72 uplinks (144-port leaves) must use 18 or 36 spines, not 16 or 32."""
    plan = plan_of(servers=72 * 4, leaf="{ports: 144, speed: 400G}", spine="{model: generic-64x400g}")
    # 32 leaves x 72 uplinks = 2,304 spine ports: at least 36 64-port spines, and 36 divides 72.
    assert plan.spines_per_plane == 36 and plan.leaf_uplinks % plan.spines_per_plane == 0
    plan = plan_of(servers=72 * 2, leaf="{ports: 144, speed: 400G}", spine="{model: generic-64x400g}")
    # 16 leaves x 72 = 1,152 ports: at least 18 spines, and 18 divides 72.
    assert plan.spines_per_plane == 18


def test_heterogeneous_tiers_small_leaves_under_chassis_spines() -> None:
    # A chassis spine's 288 uplinks are more equal-cost paths than FRR and NVUE take: EOS and SONiC only.
    plan = plan_of(
        servers=2048, leaf="{model: generic-32x400g}", spine="{model: generic-576x400g-chassis}", extra="targets: [eos]"
    )
    # 16 servers per SU, 128 SUs x 8 rails = 1,024 leaves > 576: three tiers with chassis spines.
    assert plan.tiers == 3 and plan.leaf_radix == 32 and plan.spine_radix == 576
    assert plan.spines_per_pod == 16 and plan.sus_per_pod == 36
    two = plan_of(servers=512, leaf="{model: generic-32x400g}", spine="{model: generic-576x400g-chassis}")
    assert two.tiers == 2 and two.spines_per_plane == 8 and two.leaf_spine_parallel == 2


def test_planes_split_the_nics_and_repeat_the_fabric() -> None:
    plan = plan_of(servers=128, server="dgx-b300")
    assert (plan.planes, plan.rails) == (2, 8)
    assert plan.switch_counts() == {"leaf": 64, "spine": 32, "super_spine": 0}
    assert plan.link_counts()["server_leaf"] == 128 * 16


def test_partial_scalable_unit_is_built_whole_and_warned() -> None:
    plan = plan_of(servers=100)
    assert plan.sus == 4 and plan.switch_counts()["leaf"] == 32
    assert plan.link_counts()["leaf_spine"] == 32 * 32
    assert (
        "scalable unit 3 (a leaf group: one leaf per rail and plane, serving 32 servers) is part-filled with 4 "
        "servers; its leaves and uplinks are built in full"
    ) in plan.warnings


def test_few_spines_are_warned() -> None:
    plan = plan_of(servers=16)
    assert plan.spines_per_plane == 4 and not any("spine" in w for w in plan.warnings)
    plan = plan_of(servers=16, leaf="{ports: 16, speed: 400G}")
    assert plan.spines_per_plane == 8
    tiny = plan_of(
        servers=4,
        leaf="{ports: 8, speed: 400G}",
        server="dgx-h100",
        compute_extra="nics_per_server: 2\ngpus_per_server: 2",
    )
    assert tiny.spines_per_plane == 1
    assert any("only 1 spine per plane" in warning for warning in tiny.warnings)


def test_tiers_two_that_cannot_fit_names_the_limit() -> None:
    with pytest.raises(InputError) as error:
        plan_of(servers=512, fabric_extra="tiers: 2")
    assert "2 tiers hold at most 64 leaves per plane (256 servers, 2,048 NIC ports" in str(error.value)


def test_tiers_three_on_request_for_growth() -> None:
    plan = plan_of(servers=128, fabric_extra="tiers: 3")
    assert plan.tiers == 3 and plan.pods == 1 and plan.switch_counts()["super_spine"] == 32


@settings(max_examples=60, deadline=None)
@given(
    leaf_ports=st.sampled_from([8, 16, 32, 64]),
    spine_ports=st.sampled_from([8, 16, 32, 64, 128]),
    super_ports=st.sampled_from([16, 32, 64, 128]),
    rails=st.sampled_from([1, 2, 4, 8]),
    planes=st.sampled_from([1, 2]),
    servers=st.integers(1, 3000),
)
def test_every_sized_fabric_is_one_to_one_and_fits_its_ports(
    leaf_ports: int, spine_ports: int, super_ports: int, rails: int, planes: int, servers: int
) -> None:
    text = intent_text(
        servers=servers,
        leaf=f"{{ports: {leaf_ports}, speed: 400G}}",
        spine=f"{{ports: {spine_ports}, speed: 400G}}",
        super_spine=f"{{ports: {super_ports}, speed: 400G}}",
        compute_extra=f"nics_per_server: {rails * planes}\ngpus_per_server: {rails * planes}",
        fabric_extra=f"planes: {planes}",
    )
    try:
        plan = size(parse_intent(text))
    except InputError as error:
        # Too big for three tiers of these switches, or spines smaller than an SU: refused, not mis-sized.
        assert "3 tiers hold at most" in str(error) or "fewer than the" in str(error), str(error)
        assume(False)
    assert plan.sus == math.ceil(servers / (leaf_ports // 2))
    assert plan.leaf_uplinks % plan.spines_per_pod == 0  # ECMP divisor rule
    spine_down = plan.leaves_per_pod * plan.leaf_spine_parallel
    assert spine_down <= (spine_ports if plan.tiers == 2 else spine_ports // 2)
    if plan.tiers == 3:
        assert plan.spine_uplinks == spine_down  # 1:1 at the spine
        assert plan.spine_uplinks % plan.supers_per_group == 0
        assert plan.pods * plan.spine_super_parallel <= super_ports
        uplinks_per_su = plan.planes * plan.rails * plan.leaf_uplinks
        # Partial pods still get every spine uplink: as many as full pods of leaves would send.
        assert plan.link_counts()["spine_super_spine"] == uplinks_per_su * plan.sus_per_pod * plan.pods
    else:
        assert plan.leaves_per_plane <= spine_ports
    # Full bisection is never below what the servers can send: leaf uplinks match leaf downlinks.
    assert plan.leaf_uplinks == plan.leaf_downlinks


def test_design_counts_match_the_plan() -> None:
    design = build_design(servers=512)
    roles = [device.role for device in design.fabric.devices]
    assert {role: roles.count(role) for role in ("leaf", "spine", "super_spine")} == design.plan.switch_counts()
    tiers = [link[0] for link in design.fabric.links]
    assert [tiers.count(tier) for tier in range(3)] == list(design.plan.link_counts().values())

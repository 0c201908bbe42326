"""The physical checks: a rack over its power budget, an air-cooled rack above the air limit, a link beyond every
medium. Each passes on a generated design and fails on one broken on purpose."""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from pathlib import Path

from designer.checks import CHECKS, air_cooling, cable_reach, rack_power, status
from designer.design import Design
from designer.findings import Finding
from tests.helpers import build_design, intent_text
from tests.test_intent_errors import run_cli


@cache
def h100() -> Design:
    """128 DGX H100 at the default 41 kW, air-cooled: every rack within budget."""
    return build_design(servers=128)


def errors(findings: list[Finding] | tuple[Finding, ...], check: str) -> list[Finding]:
    return [finding for finding in findings if finding.check == check and finding.severity == "error"]


def test_physical_checks_are_registered_and_pass_on_a_generated_design() -> None:
    design = h100()
    ids = [module.ID for module in CHECKS]
    assert {"rack-power", "air-cooling", "cable-reach"} <= set(ids)
    outcome = status(design.findings)
    assert [outcome[check] for check in ("rack-power", "air-cooling", "cable-reach")] == ["passed"] * 3


def test_one_rack_over_budget_is_flagged_by_name() -> None:
    design = h100()
    racks = list(design.physical.racks)
    racks[5] = racks[5]._replace(kw=41.5)
    broken = replace(design, physical=replace(design.physical, racks=racks))
    found = errors(list(rack_power.check(broken)), "rack-power")
    assert [finding.subject for finding in found] == [racks[5].name]
    assert "rack of 4 devices draws 41.50 kW, over its 41 kW budget" in found[0].message
    assert not errors(list(air_cooling.check(broken)), "air-cooling")  # 41.5 kW is still under 50 kW


def test_a_server_above_the_rack_budget_gets_a_rack_and_fails_both_checks() -> None:
    design = build_design(servers=8, compute_extra="server_power_kw: 55")
    assert design.physical.servers_per_rack == 1
    over = errors(design.findings, "rack-power")
    hot = errors(design.findings, "air-cooling")
    compute = [rack.name for rack in design.physical.racks if rack.role == "compute"]
    assert [finding.subject for finding in over] == [finding.subject for finding in hot] == compute


def test_air_limit_alone_and_liquid_cooling() -> None:
    design = build_design(servers=8, compute_extra="server_power_kw: 55")
    facility = replace(design.intent.facility, rack_power_kw=60.0)
    roomy = replace(design, intent=replace(design.intent, facility=facility))
    assert not errors(list(rack_power.check(roomy)), "rack-power")
    assert len(errors(list(air_cooling.check(roomy)), "air-cooling")) == 8
    liquid = build_design(
        servers=8, compute_extra="server_power_kw: 55", extra="facility: {cooling: liquid, rack_power_kw: 60}"
    )
    assert status(liquid.findings)["air-cooling"] == "passed"
    assert status(liquid.findings)["rack-power"] == "passed"


def test_links_beyond_every_medium_fail_cable_reach() -> None:
    """Servers with a cage per NIC port (AMD MI300X), so that every link is a run of its own."""
    reach = "facility: {reach_m: {dac: 1, aec: 2, multimode: 3, singlemode: 4}}"
    design = build_design(servers=128, server="amd-mi300x", extra=reach)
    physical = design.physical
    unreachable = physical.unreachable()
    assert unreachable == [link for link, length in enumerate(physical.link_length_dm) if length > 40]  # no breakout
    assert all(physical.medium_name(link) == "none" for link in unreachable)
    found = errors(design.findings, "cable-reach")
    assert len(found) == 21 and found[-1].evidence["more"] == len(unreachable) - 20
    assert "beyond the 4 m of singlemode" in found[0].message
    none = sum(line.count for line in physical.bom if line.item.startswith("none"))
    assert none == len(unreachable)
    assert not errors(list(cable_reach.check(h100())), "cable-reach")


def test_designer_check_fails_on_a_rack_too_hot_for_air(tmp_path: Path) -> None:
    intent = tmp_path / "hot.yaml"
    intent.write_text(intent_text(servers=8, compute_extra="server_power_kw: 55"))
    code, out, _ = run_cli("check", str(intent))
    assert code == 1
    assert "rack-power: failed" in out and "air-cooling: failed" in out and "cable-reach: passed" in out

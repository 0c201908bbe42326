"""Every input rule runs before any command-specific stage, so plan, check and build agree on every intent."""

from __future__ import annotations

from pathlib import Path

import pytest

from designer.pipeline import design, validated_intent
from tests.helpers import intent_text
from tests.test_intent_errors import run_cli

INTENTS = {
    "valid": intent_text(servers=32, extra="targets: [frr]"),
    # 144 uplinks per leaf: more equal-cost paths than NVUE takes (128); FRR takes 256.
    "ecmp wider than nvue": intent_text(servers=4, leaf="{model: generic-144x800g}", extra="targets: [frr, nvue]"),
    "ecmp fits frr": intent_text(servers=4, leaf="{model: generic-144x800g}", extra="targets: [frr]"),
    # A 288-uplink chassis spine is wider than FRR's 256 paths.
    "ecmp wider than frr": intent_text(
        servers=2048, leaf="{model: generic-32x400g}", spine="{model: generic-576x400g-chassis}", extra="targets: [frr]"
    ),
    "pool too small": intent_text(servers=32).replace("loopbacks: 10.255.0.0/16", "loopbacks: 10.255.0.0/30"),
}


@pytest.mark.parametrize("name", INTENTS)
def test_plan_check_and_build_agree(name: str, tmp_path: Path) -> None:
    intent = tmp_path / "intent.yaml"
    intent.write_text(INTENTS[name])
    results = {
        command: run_cli(command, str(intent), *extra)
        for command, extra in (
            ("plan", ()),
            ("check", ()),
            ("build", ("-o", str(tmp_path / "out"))),
            ("explore", ("--vary", "fabric.planes=1")),
        )
    }
    refused = {command: code == 2 for command, (code, _, _) in results.items()}
    assert len(set(refused.values())) == 1, f"commands disagree on {name}: {results}"
    if refused["plan"]:
        problems = {
            command: [line for line in err.splitlines() if ": " in line] for command, (_, _, err) in results.items()
        }
        assert problems["plan"] == problems["check"] == problems["build"] == problems["explore"]
        assert not (tmp_path / "out").exists()
    expected_refused = name.startswith(("ecmp wider", "pool"))
    assert refused["plan"] == expected_refused


def test_the_ecmp_rule_names_the_target_and_its_limit(tmp_path: Path) -> None:
    intent = tmp_path / "intent.yaml"
    intent.write_text(INTENTS["ecmp wider than nvue"])
    code, out, err = run_cli("plan", str(intent))
    assert code == 2 and out == ""
    assert f"{intent}:" in err and "targets: nvue takes at most 128 equal-cost BGP paths" in err
    assert "spreads over 144" in err and "frr takes" not in err


def test_plan_and_check_leave_out_the_host_settings_and_find_the_same(tmp_path: Path) -> None:
    """plan and check skip the servers' host settings (only the server files read them): every finding is still
    the one a build finds."""
    intent = tmp_path / "intent.yaml"
    intent.write_text(intent_text(servers=32, extra="checks: {ecmp_max_width: 8}"))
    whole, lean = design(validated_intent(intent)), design(validated_intent(intent), hosts=False)
    assert len(whole.hosts) == 32 and lean.hosts == ()
    assert lean.findings == whole.findings and any(finding.severity == "error" for finding in lean.findings)

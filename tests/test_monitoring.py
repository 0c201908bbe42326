"""Monitoring from the design (outputs.monitoring): the scrape jobs and alert rules pass Prometheus's own promtool,
and promtool's rule tests fire exactly the alert of a designed session or cable that fails, nothing for a healthy
fabric or a session the design does not have; growth adds rules and changes none."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.cli import main
from tests.conftest import ROOT
from tests.helpers import build_text
from tests.prerequisites import FRR_LAB, PROMETHEUS, PROMTOOL, needs
from tests.test_intent_errors import run_cli

LAB = (ROOT / "tests" / "intents" / "verify-2tier.yaml").read_text()
MONITORED = LAB + "outputs: {monitoring: true}\n"
"""The 2-tier lab (4 leaves, 2 spines, 2 parallel links from every leaf to every spine) with its monitoring files."""
LEAF = "p0-su0-r0-leaf"


def _files(text: str = MONITORED) -> dict[str, Any]:
    from designer.outputs.monitoring import monitoring_files

    return {path: yaml.safe_load(data) for path, data in monitoring_files(build_text(text, seeds=2)).items()}


def _peer_state(peer: str, peer_as: int, values: str) -> dict[str, str]:
    """A ``frr_bgp_peer_state`` series as prometheus-frr-exporter 1.1.4 exports it for the leaf (its labels read from
    the exporter against real FRR), with the scrape's job and target labels."""
    return {
        "series": (
            f'frr_bgp_peer_state{{afi="ipv4",local_as="4200000000",peer="{peer}",peer_as="{peer_as}",safi="unicast",'
            f'vrf="default",job="frr-exporter",instance="{LEAF}:9342",hostname="{LEAF}"}}'
        ),
        "values": values,
    }


def test_nothing_is_written_unless_the_intent_asks_or_without_the_frr_target() -> None:
    from designer.outputs.monitoring import monitoring_files

    design = build_text(LAB, seeds=2)
    assert not design.intent.outputs.monitoring and not (ROOT / "outputs" / "cluster-a" / "monitoring").exists()
    assert monitoring_files(build_text(MONITORED + "targets: [eos]\n", seeds=2)) == {}


def test_every_device_is_a_target_with_the_designs_labels_and_every_session_and_cable_has_its_rule() -> None:
    files = _files()
    jobs = {job["job_name"]: job["static_configs"] for job in files["monitoring/prometheus.yml"]["scrape_configs"]}
    assert [entry["targets"] for entry in jobs["frr-exporter"]][:1] == [[f"{LEAF}:9342"]]
    assert len(jobs["frr-exporter"]) == 6 and len(jobs["node-exporter"]) == 6 + 8  # the switches; and the servers' NICs
    assert jobs["frr-exporter"][0]["labels"] == {
        "hostname": LEAF,
        "role": "leaf",
        "plane": "0",
        "pod": "0",
        "rail": "0",
        "rack": jobs["frr-exporter"][0]["labels"]["rack"],
        "network": "backend",
    }
    bgp = {group["name"]: group["rules"] for group in files["monitoring/rules/bgp.yml"]["groups"]}
    assert [rule["labels"]["peer_switch"] for rule in bgp[LEAF]] == ["p0-spine0", "p0-spine1"]
    assert (
        bgp[LEAF][0]["expr"] == f'frr_bgp_peer_state{{hostname="{LEAF}", peer=~`10\\.0\\.0\\.0|10\\.0\\.0\\.4`}} != 1'
    )
    assert sum(len(rules) for rules in bgp.values()) == 2 * 4 * 2  # every leaf-spine pair, from both ends


@needs(PROMTOOL)
def test_promtool_takes_the_config_and_the_rules(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text(MONITORED)
    assert main(["build", str(path), "-o", str(tmp_path / "out")]) == 0
    monitoring = tmp_path / "out" / "monitoring"
    for command in (
        ["check", "config", "prometheus.yml"],
        ["check", "rules", *sorted(map(str, monitoring.glob("rules/*.yml")))],
    ):
        checked = subprocess.run(["promtool", *command], cwd=monitoring, capture_output=True, text=True, check=False)
        assert checked.returncode == 0, checked.stdout + checked.stderr


@needs(PROMTOOL)
def test_a_failed_session_or_cable_fires_exactly_its_alert_and_a_healthy_fabric_none(tmp_path: Path) -> None:
    """promtool test rules: the leaf's session to p0-spine1 over 10.0.0.2 drops (state 0) and stays down past the
    hold time, its swp5 loses carrier, a session the design does not have (10.9.9.9) drops too: exactly two alerts,
    each naming both ends; before the drop nothing fires."""
    path = tmp_path / "m.yaml"
    path.write_text(MONITORED)
    assert main(["build", str(path), "-o", str(tmp_path / "out")]) == 0
    monitoring = tmp_path / "out" / "monitoring"
    carrier = f'node_network_carrier{{device="swp5",job="node-exporter",instance="{LEAF}:9100",hostname="{LEAF}"}}'
    tests = {
        "rule_files": sorted(str(rules) for rules in monitoring.glob("rules/*.yml")),
        "evaluation_interval": "1s",
        "tests": [
            {
                "interval": "1s",
                "input_series": [
                    _peer_state("10.0.0.0", 4201000000, "1x120"),
                    _peer_state("10.0.0.2", 4201000000, "1x30 0x90"),
                    _peer_state("10.0.0.4", 4201000000, "1x120"),
                    _peer_state("10.9.9.9", 4201000000, "1x30 0x90"),
                    {"series": carrier, "values": "1x30 0x90"},
                ],
                "alert_rule_test": [
                    {"eval_time": "20s", "alertname": "DesignedBgpSessionDown", "exp_alerts": []},
                    {"eval_time": "20s", "alertname": "DesignedLinkDown", "exp_alerts": []},
                    {
                        "eval_time": "60s",
                        "alertname": "DesignedBgpSessionDown",
                        "exp_alerts": [
                            {
                                "exp_labels": {
                                    "severity": "critical",
                                    "switch": LEAF,
                                    "peer_switch": "p0-spine1",
                                    "afi": "ipv4",
                                    "local_as": "4200000000",
                                    "peer": "10.0.0.2",
                                    "peer_as": "4201000000",
                                    "safi": "unicast",
                                    "vrf": "default",
                                    "job": "frr-exporter",
                                    "instance": f"{LEAF}:9342",
                                    "hostname": LEAF,
                                },
                                "exp_annotations": {
                                    "summary": f"{LEAF} (AS 4200000000): the designed BGP session to p0-spine1 "
                                    "(AS 4201000000) over 10.0.0.2 is not established"
                                },
                            }
                        ],
                    },
                    {
                        "eval_time": "60s",
                        "alertname": "DesignedLinkDown",
                        "exp_alerts": [
                            {
                                "exp_labels": {
                                    "severity": "critical",
                                    "switch": LEAF,
                                    "peer_device": "p0-spine0",
                                    "device": "swp5",
                                    "job": "node-exporter",
                                    "instance": f"{LEAF}:9100",
                                    "hostname": LEAF,
                                },
                                "exp_annotations": {
                                    "summary": f"{LEAF} swp5 has no carrier: the designed cable to p0-spine0 swp1 is "
                                    "down"
                                },
                            }
                        ],
                    },
                ],
            }
        ],
    }
    (tmp_path / "tests.yml").write_text(yaml.safe_dump(tests, sort_keys=False))
    tested = subprocess.run(
        ["promtool", "test", "rules", str(tmp_path / "tests.yml")], capture_output=True, text=True, check=False
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr


def test_growth_inside_the_plan_adds_rules_and_targets_and_changes_none() -> None:
    """The lab planned for 8 servers built with 4 then 8: every rule and target of the first is in the second."""
    planned = MONITORED.replace("  servers: 8\n", "  servers: %d\n") + "growth: {max_servers: 8}\n"
    old, new = (_files(planned % servers) for servers in (4, 8))
    for path in ("monitoring/rules/bgp.yml", "monitoring/rules/links.yml"):
        before = {group["name"]: group["rules"] for group in old[path]["groups"]}
        after = {group["name"]: group["rules"] for group in new[path]["groups"]}
        assert all(rule in after[name] for name, rules in before.items() for rule in rules), path
        assert sum(map(len, after.values())) > sum(map(len, before.values())), path
    jobs = (
        [entry for job in files["monitoring/prometheus.yml"]["scrape_configs"] for entry in job["static_configs"]]
        for files in (old, new)
    )
    before, after = jobs
    assert all(entry in after for entry in before) and len(after) > len(before)


@needs(FRR_LAB, PROMETHEUS)
def test_the_labs_prometheus_fires_exactly_a_failed_spines_alerts_and_resolves_them(tmp_path: Path) -> None:
    """designer verify --monitoring: Debian's prometheus-frr-exporter and node exporter for every router and a real
    Prometheus running the design's rules: nothing fires while healthy, every alert of p0-spine0's sessions and
    cables (its 8 session ends with the 4 leaves, the leaves' 4 cables to it) fires with its links down and no other,
    and all resolve once they are back."""
    path = tmp_path / "m.yaml"
    path.write_text(MONITORED)
    code, out, err = run_cli("verify", str(path), "--monitoring", "--no-failures")
    assert code == 0, out + err
    lines = out.splitlines()
    monitoring = lines[lines.index("monitoring") + 1 :][:3]
    assert monitoring[0].startswith("  PASS healthy: no alert fires: 12 of 12 exporter targets scraped, 0 alerts")
    assert monitoring[1].startswith("  PASS p0-spine0 down: its alerts fire: 12 of 12 alerts of p0-spine0's")
    assert monitoring[2].startswith("  PASS p0-spine0 restored: its alerts resolve")


@needs(PROMETHEUS)
def test_verify_monitoring_of_a_design_without_its_monitoring_files_is_a_missing_prerequisite() -> None:
    """A design built without outputs.monitoring has no rules to run: exit 2 saying how to build it."""
    from designer.errors import PrerequisiteError
    from designer.outputs.build import design_files
    from designer.verify import alerting

    with pytest.raises(PrerequisiteError, match=r"build it with outputs: \{monitoring: true\}"):
        alerting.prerequisites(design_files(build_text(LAB, seeds=2)))

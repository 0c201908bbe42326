"""Monitoring from the design (outputs.monitoring): the scrape jobs and alert rules pass Prometheus's own promtool,
and promtool's rule tests fire exactly the alert of a designed session or cable that fails, nothing for a healthy
fabric or a session the design does not have; growth adds rules and changes none."""

from __future__ import annotations

import json
import re
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


def test_nothing_is_written_unless_the_intent_asks_and_only_subscriptions_without_the_frr_target() -> None:
    from designer.outputs.monitoring import monitoring_files

    design = build_text(LAB, seeds=2)
    assert (
        not design.intent.outputs.monitoring and not (ROOT / "outputs" / "reference-h100-512" / "monitoring").exists()
    )
    assert list(monitoring_files(build_text(MONITORED + "targets: [eos]\n", seeds=2))) == ["monitoring/gnmi/eos.yaml"]


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
    (rule,) = bgp[LEAF]
    peers = "|".join(f"10\\.0\\.0\\.{n}" for n in (0, 4, 2, 6))
    assert rule["expr"] == f'frr_bgp_peer_state{{hostname="{LEAF}", peer=~`{peers}`}} != 1'
    assert len(bgp) == 4  # one group a leaf over its 4 sessions with the spines; the spines' are watched from below
    links = {group["name"]: group["rules"] for group in files["monitoring/rules/links.yml"]["groups"]}
    assert sorted(links) == sorted([*bgp, *(f"su{su}-srv{n}" for su in range(2) for n in range(4))])
    assert all(len(rules) == 1 for rules in links.values())


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
    hold time, its swp5 (to p0-spine0) and a server's nic1 (to the SU's second leaf) lose carrier, a session the
    design does not have (10.9.9.9) drops too: exactly three alerts, each naming both ends; before the drop nothing
    fires."""
    path = tmp_path / "m.yaml"
    path.write_text(MONITORED)
    assert main(["build", str(path), "-o", str(tmp_path / "out")]) == 0
    monitoring = tmp_path / "out" / "monitoring"
    carrier = f'node_network_carrier{{device="swp5",job="node-exporter",instance="{LEAF}:9100",hostname="{LEAF}"}}'
    nic = 'node_network_carrier{device="nic1",job="node-exporter",instance="su0-srv2:9100",hostname="su0-srv2"}'
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
                    {"series": nic, "values": "1x30 0x90"},
                    {"series": nic.replace("nic1", "nic0"), "values": "1x120"},
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
                            },
                            {
                                "exp_labels": {
                                    "severity": "critical",
                                    "server": "su0-srv2",
                                    "peer_device": "p0-su0-r1-leaf",
                                    "device": "nic1",
                                    "job": "node-exporter",
                                    "instance": "su0-srv2:9100",
                                    "hostname": "su0-srv2",
                                },
                                "exp_annotations": {
                                    "summary": "su0-srv2 nic1 has no carrier: the designed cable to "
                                    "p0-su0-r1-leaf swp3 is down"
                                },
                            },
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
    cables (the 4 leaves' sessions and cables to it, watched from the leaves) fires with its links down and no
    other, and all resolve once they are back."""
    path = tmp_path / "m.yaml"
    path.write_text(MONITORED)
    code, out, err = run_cli("verify", str(path), "--monitoring", "--no-failures")
    assert code == 0, out + err
    lines = out.splitlines()
    monitoring = lines[lines.index("monitoring") + 1 :][:4]
    assert monitoring[0].startswith("  PASS healthy: no alert fires: 12 of 12 exporter targets scraped, 0 alerts")
    assert monitoring[1].startswith("  PASS healthy: the dashboards read the design's counts: 6 of 6 count panels")
    assert monitoring[2].startswith("  PASS p0-spine0 down: its alerts fire: 8 of 8 alerts of p0-spine0's")
    assert monitoring[3].startswith("  PASS p0-spine0 restored: its alerts resolve")


@needs(PROMETHEUS)
def test_verify_monitoring_of_a_design_without_its_monitoring_files_is_a_missing_prerequisite() -> None:
    """A design built without outputs.monitoring has no rules to run: exit 2 saying how to build it."""
    from designer.errors import PrerequisiteError
    from designer.outputs.build import design_files
    from designer.verify import alerting

    with pytest.raises(PrerequisiteError, match=r"build it with outputs: \{monitoring: true\}"):
        alerting.prerequisites(design_files(build_text(LAB, seeds=2)))


def test_each_switch_subscribes_to_the_roce_counters_of_exactly_its_cabled_ports(tmp_path: Path) -> None:
    """monitoring/gnmi/<os>.yaml (gnmic's format): every switch is a target bound to one subscription whose paths
    name exactly the ports its configuration for that OS addresses, the PFC counters once per lossless priority.
    Paths as documented: SONiC's COUNTERS_DB fields and Queues virtual path (sonic-net/SONiC
    doc/system-telemetry/grpc_telemetry.md, target COUNTERS_DB), Cumulus Linux's QoS and interface paths (NVIDIA
    Cumulus Linux 5.14 user guide, gNMI Streaming); switches with the same ports share a subscription."""
    path = tmp_path / "m.yaml"
    path.write_text(MONITORED)
    assert main(["build", str(path), "-o", str(tmp_path / "out")]) == 0
    out = tmp_path / "out"
    sonic = yaml.safe_load((out / "monitoring" / "gnmi" / "sonic.yaml").read_text())
    assert len(sonic["targets"]) == 6 and len(sonic["subscriptions"]) == 1  # leaves and spines: 8 ports alike
    for host, bound in sonic["targets"].items():
        assert bound["address"] == f"{host}:8080"
        (name,) = bound["subscriptions"]
        subscription = sonic["subscriptions"][name]
        assert subscription["target"] == "COUNTERS_DB" and subscription["stream-mode"] == "sample"
        config_db = json.loads((out / "configs" / "sonic" / f"{host}.json").read_text())
        addressed = {key.split("|")[0] for key in config_db["INTERFACE"]}
        ports = {path.split("/")[1] for path in subscription["paths"]}
        assert ports == addressed, host
        assert f"COUNTERS/{sorted(ports)[0]}/SAI_PORT_STAT_PFC_3_RX_PKTS" in subscription["paths"]
        assert not any("PFC_4" in path for path in subscription["paths"])  # 3 is the profile's only PFC priority
    nvue = yaml.safe_load((out / "monitoring" / "gnmi" / "nvue.yaml").read_text())
    leaf = nvue["subscriptions"][nvue["targets"][LEAF]["subscriptions"][0]]["paths"]
    assert "/qos/interfaces/interface[interface-id=swp5]/state/switch-priority[priority=3]/counters" in leaf
    assert "/qos/interfaces/interface[interface-id=swp5]/output/queues" in leaf
    assert len(leaf) == 8 * 3  # the leaf's 4 server ports and 4 uplinks, three paths each
    assert not (out / "monitoring" / "gnmi" / "frr.yaml").exists()  # FRR on Linux documents no gNMI counters


@needs(PROMTOOL)
def test_the_dashboards_count_what_the_design_has_and_every_query_parses(tmp_path: Path) -> None:
    """The fabric and rails dashboards (built with Grafana's Foundation SDK) hold a count panel per tier and plane
    and per rail whose green threshold is the design's number: 16 session ends a tier (4 leaves, 2 links to each of
    2 spines), 32 cabled leaf ports (16 uplinks, 16 server ports), 16 a rail; every panel's query passes
    promtool's parser (as a recording rule, Grafana's $__rate_interval as 5m)."""
    from designer.outputs.monitoring import monitoring_files

    files = monitoring_files(build_text(MONITORED, seeds=2))
    boards = {path: json.loads(data) for path, data in files.items() if path.startswith("monitoring/dashboards/")}
    assert sorted(boards) == [f"monitoring/dashboards/{name}.json" for name in ("fabric", "lossless", "rails")]
    panels = [panel for board in boards.values() for panel in board["panels"] if panel["type"] != "row"]
    counts = [
        (panel["title"], panel["fieldConfig"]["defaults"]["thresholds"]["steps"][-1]["value"])
        for panel in panels
        if panel["type"] == "stat"
    ]
    assert counts == [
        ("leaf, plane 0: 16 designed", 16),
        ("spine, plane 0: 16 designed", 16),
        ("leaf, plane 0: 32 designed", 32),
        ("spine, plane 0: 16 designed", 16),
        ("rail 0: 16 designed", 16),
        ("rail 1: 16 designed", 16),
    ]
    assert all(panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"} for panel in panels)
    rules = {
        "groups": [
            {
                "name": "dashboards",
                "rules": [
                    {"record": f"panel_{n}", "expr": target["expr"].replace("$__rate_interval", "5m")}
                    for n, target in enumerate(t for panel in panels for t in panel["targets"])
                ],
            }
        ]
    }
    (tmp_path / "queries.yml").write_text(yaml.safe_dump(rules))
    parsed = subprocess.run(
        ["promtool", "check", "rules", str(tmp_path / "queries.yml")], capture_output=True, text=True, check=False
    )
    assert parsed.returncode == 0, parsed.stdout + parsed.stderr
    lossless = boards["monitoring/dashboards/lossless.json"]["panels"]
    assert [re.findall(r"nvswitch_\w+", panel["targets"][0]["expr"]) for panel in lossless] == [
        [name]
        for name in (
            "nvswitch_interface_sp_rx_pause",
            "nvswitch_interface_sp_tx_pause",
            "nvswitch_interface_tc_tx_ecn_marked_tc",
            "nvswitch_interface_tc_tx_no_buffer_discard_uc",
            "nvswitch_interface_tc_tx_wred_discard",
            "nvswitch_interface_pg_rx_buffer_discard",
        )
    ]  # Cumulus Linux 5.14 user guide, Open Telemetry Export: the interface statistics' documented names
    without_nvue = monitoring_files(build_text(MONITORED + "targets: [frr, sonic]\n", seeds=2))
    (text,) = json.loads(without_nvue["monitoring/dashboards/lossless.json"])["panels"]
    assert text["type"] == "text" and "monitoring/gnmi/" in text["options"]["content"]


@needs(PROMTOOL)
def test_the_shipped_example_is_monitored_and_promtool_takes_its_files() -> None:
    """intents/cluster.yaml builds with monitoring on: its committed monitoring/ has every kind of file, and
    Prometheus's promtool takes its scrape configuration and rules as committed."""
    monitoring = ROOT / "outputs" / "cluster-a" / "monitoring"
    assert sorted(path.relative_to(monitoring).as_posix() for path in monitoring.rglob("*") if path.is_file()) == [
        "dashboards/fabric.json",
        "dashboards/lossless.json",
        "dashboards/rails.json",
        "gnmi/eos.yaml",
        "gnmi/nvue.yaml",
        "gnmi/sonic.yaml",
        "prometheus.yml",
        "rules/bgp.yml",
        "rules/links.yml",
        "rules/lossless.yml",
        "rules/scrapes.yml",
    ]
    for command in (
        ["check", "config", "prometheus.yml"],
        ["check", "rules", *sorted(str(path) for path in monitoring.glob("rules/*.yml"))],
    ):
        checked = subprocess.run(["promtool", *command], cwd=monitoring, capture_output=True, text=True, check=False)
        assert checked.returncode == 0, checked.stdout + checked.stderr


@needs(PROMTOOL)
def test_a_drop_of_the_lossless_class_fires_on_the_names_cumulus_documents(tmp_path: Path) -> None:
    """rules/lossless.yml, for NVUE: Cumulus Linux's OpenTelemetry export names the traffic class's no-buffer and
    WRED discards nvswitch_interface_tc_tx_no_buffer_discard_uc and nvswitch_interface_tc_tx_wred_discard, with the
    port in the `interface` attribute (NVIDIA Cumulus Linux 5.14 user guide, Open Telemetry Export). The QoS
    profile makes priority 3 lossless, so one discard on a designed port fires; a steady counter, or a port the
    design does not have (swp60), fires nothing; a design without NVUE gets no such file."""
    from designer.outputs.monitoring import monitoring_files

    rules = monitoring_files(build_text(MONITORED, seeds=2))["monitoring/rules/lossless.yml"]
    (tmp_path / "lossless.yml").write_bytes(rules)
    metric = "nvswitch_interface_tc_tx_no_buffer_discard_uc"
    series = f'{metric}{{interface="%s",instance="{LEAF}",job="otel"}}'
    tests = {
        "rule_files": [str(tmp_path / "lossless.yml")],
        "evaluation_interval": "15s",
        "tests": [
            {
                "interval": "15s",
                "input_series": [
                    {"series": series % "swp5", "values": "0x8 1x8"},
                    {"series": series % "swp6", "values": "7x16"},
                    {"series": series % "swp60", "values": "0x8 9x8"},
                ],
                "alert_rule_test": [
                    {"eval_time": "1m", "alertname": "LosslessClassDrops", "exp_alerts": []},
                    {
                        "eval_time": "2m30s",
                        "alertname": "LosslessClassDrops",
                        "exp_alerts": [
                            {
                                "exp_labels": {
                                    "severity": "critical",
                                    "os": "nvue",
                                    "counter": metric,
                                    "interface": "swp5",
                                    "instance": LEAF,
                                    "job": "otel",
                                },
                                "exp_annotations": {
                                    "summary": f"swp5 ({LEAF}) dropped packets of the lossless class in the last "
                                    "minute (unicast packets discarded for want of buffer, per traffic class): the "
                                    "QoS profile makes priority 3 lossless, it must drop none"
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
    assert "monitoring/rules/lossless.yml" not in monitoring_files(build_text(MONITORED + "targets: [frr]\n", seeds=2))

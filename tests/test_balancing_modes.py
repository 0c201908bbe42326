"""Load-balancing modes in the configurations: each rendered only where the OS and the switch run it, proven
against the vendor's own artifacts, and refused elsewhere with the reason (exit 2, file:line)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from functools import cache
from pathlib import Path

import pytest

from designer.design import Design
from designer.outputs.design_json import design_json
from designer.render import render_configs
from designer.render.hosts import render_hosts
from designer.verify import avd
from designer.verify.traffic import modes_not_run
from tests.conftest import need
from tests.helpers import build_text, intent_text
from tests.test_intent_errors import run_cli

HAVE_PYAVD = importlib.util.find_spec("pyavd") is not None
NEED_PYAVD = "Arista's templates are needed: pip install pyavd (or pip install '.[test]')"
ARISTA_LEAF = "{model: arista-7060x6-64pe, speed: 400G}"
DLB = "ip hardware fib load-balance distribution dynamic"
"""Arista TOI EOS-4.24.2F "Support for dynamic load balancing on ECMP groups"; pyavd's eos/ip-hardware.j2."""


@cache
def eos_design(mode: str) -> tuple[Design, dict[str, str]]:
    server = "dgx-b300" if mode == "spray" else "dgx-h100"  # spraying needs NICs that spray
    design = build_text(
        intent_text(
            servers=8, server=server, leaf=ARISTA_LEAF, extra=f"targets: [eos]\nload_balancing: {{mode: {mode}}}"
        )
    )
    files = render_configs(design.configs, ["eos"])
    return design, {device.hostname: files[f"configs/eos/{device.hostname}.cfg"].decode() for device in design.configs}


@pytest.mark.parametrize("mode", ["ecmp", "adaptive", "cluster", "spray"])
def test_every_eos_mode_is_what_aristas_templates_render(mode: str) -> None:
    """pyavd's ip_hardware (DLB, AVD issue 4920) and load_balance cluster (CLB, AVD issue 5004) templates render
    the same lines from the design's device model: every line of ours is in Arista's rendering and every line of
    it in ours."""
    need(HAVE_PYAVD, NEED_PYAVD)
    design, texts = eos_design(mode)
    for device in design.configs:
        assert avd.compare(device, texts[device.hostname]) == [], device.hostname


def test_eos_runs_dynamic_load_balancing_on_every_switch_in_adaptive_mode_only() -> None:
    for mode in ("ecmp", "adaptive", "cluster", "spray"):
        _, texts = eos_design(mode)
        assert all((DLB in text.splitlines()) == (mode == "adaptive") for text in texts.values()), mode


def test_cluster_load_balancing_groups_a_leafs_server_ports_and_leaves_spines_hashing() -> None:
    """Arista TOI EOS-4.32.2F "Cluster load balancing": CLB learns flows on the host-facing ports of a leaf."""
    design, texts = eos_design("cluster")
    for device in design.configs:
        lines = texts[device.hostname].splitlines()
        servers = [interface for interface in device.interfaces if interface.role == "server"]
        assert ("load-balance cluster" in lines) == bool(servers), device.hostname
        if servers:
            group = lines[lines.index("   port group host GPU-NICS") + 1].split()
            assert group[0] == "interface" and len(group[1].split(",")) == len(servers)
            assert "   forwarding type routed ipv4" in lines and "   load-balance method flow round-robin" in lines


def refusal(tmp_path: Path, text: str) -> tuple[int, str, str]:
    intent = tmp_path / "lb.yaml"
    intent.write_text(text)
    code, out, err = run_cli("plan", str(intent))
    return code, out, err.replace(str(intent), "lb.yaml")


@pytest.mark.parametrize(
    ("targets", "leaf", "mode", "why"),
    [
        ("nvue", "{model: nvidia-sn5600, speed: 400G}", "cluster", "cluster is not something nvue can express"),
        ("frr, sonic", "{model: nvidia-sn5600, speed: 400G}", "adaptive", "adaptive is not something frr, sonic can"),
        ("eos", "{model: generic-64x800g, speed: 400G}", "adaptive", "adaptive (only on arista-7060x6-64pe)"),
        ("eos, nvue", ARISTA_LEAF, "cluster", "cluster is not something nvue can express"),
    ],
)
def test_a_mode_where_the_os_or_the_switch_does_not_run_it_is_refused(
    tmp_path: Path, targets: str, leaf: str, mode: str, why: str
) -> None:
    text = intent_text(servers=8, leaf=leaf, extra=f"targets: [{targets}]\nload_balancing: {{mode: {mode}}}")
    code, out, err = refusal(tmp_path, text)
    assert code == 2 and out == ""
    assert err.startswith("lb.yaml:9: load_balancing.mode: ") and why in err
    assert "choose what every target accepts" in err


def test_spraying_needs_nics_that_spray(tmp_path: Path) -> None:
    """DGX H100's ConnectX-7 ports hash; DGX B300's ConnectX-8 SuperNICs spray (catalog servers nic_modes)."""
    text = intent_text(servers=8, extra="targets: [frr, sonic]\nload_balancing: {mode: spray}")
    code, _, err = refusal(tmp_path, text)
    assert code == 2
    assert err.startswith("lb.yaml:9: load_balancing.mode: spray needs NICs that spray") and "(dgx-b300)" in err
    sprays = build_text(text.replace("server: dgx-h100", "server: dgx-b300"))
    assert {config.load_balancing.mode for config in sprays.configs} == {"spray"}


@cache
def nic_design(server: str, mode: str) -> Design:
    return build_text(
        intent_text(
            servers=4,
            server=server,
            leaf="{model: nvidia-sn5600, speed: 400G}",
            extra=f"targets: [nvue]\nload_balancing: {{mode: {mode}}}",
        )
    )


def nic_scripts(server: str, mode: str) -> list[str]:
    files = render_hosts(nic_design(server, mode).hosts)
    return [text.decode() for name, text in sorted(files.items()) if name.endswith("/nic-qos.sh")]


def test_supernics_accept_what_adaptive_routing_moves_and_other_nics_are_left_alone(tmp_path: Path) -> None:
    """DGX B300's ConnectX-8 SuperNICs get ROCE_ACCL adaptive_routing_forced_en (NVIDIA "Adaptive Retransmission:
    Parameters Control" names the register's fields; NVIDIA's NIC Configuration Operator writes them with mlxreg
    --set "<field>=0x1,<field>_field_select=0x1"), one line per NIC, and the script still parses; DGX H100's
    ConnectX-7, and any mode but adaptive, get none."""
    (script, *_) = scripts = nic_scripts("dgx-b300", "adaptive")
    lines = [line for line in script.splitlines() if line.startswith("mlxreg ")]
    assert len(lines) == script.count("\nmlnx_qos -i ") // 3 == 16
    assert all(
        line.endswith(
            '--reg_name ROCE_ACCL --set "adaptive_routing_forced_en=0x1,adaptive_routing_forced_en_field_select=0x1" '
            "--yes"
        )
        and "/sys/class/infiniband/mlx5_" in line
        for line in lines
    )
    path = tmp_path / "nic-qos.sh"
    path.write_text(script)
    assert subprocess.run(["sh", "-n", str(path)], capture_output=True).returncode == 0
    assert len(scripts) == 4
    for server, mode in (("dgx-h100", "adaptive"), ("dgx-b300", "ecmp"), ("dgx-b300", "spray")):
        assert all("mlxreg" not in text for text in nic_scripts(server, mode)), (server, mode)


def test_verify_traffic_says_the_lab_runs_no_mode_but_hashing() -> None:
    """Linux has no adaptive routing: for any other mode the report's "not covered" says so, once per mode."""
    adaptive = json.loads(design_json(nic_design("dgx-h100", "adaptive")))
    (line,) = modes_not_run(adaptive)
    assert line.startswith("traffic: load balancing adaptive is not run here: Linux has no adaptive routing")
    assert modes_not_run(json.loads(design_json(nic_design("dgx-h100", "ecmp")))) == []


def test_a_leafs_host_port_group_only_gains_the_ports_of_new_servers_as_the_fabric_grows() -> None:
    """Growth inside the envelope: every leaf of the smaller fabric keeps its cluster load-balancing lines, and its
    host port group keeps every port it had."""

    def groups(servers: int) -> dict[str, tuple[list[str], set[str]]]:
        design = build_text(
            f"name: growth\ncompute: {{servers: {servers}, server: dgx-h100}}\ngrowth: {{max_servers: 64}}\n"
            f"fabric: {{leaf: {ARISTA_LEAF}}}\ntargets: [eos]\nload_balancing: {{mode: cluster}}\n"
        )
        files = render_configs(design.configs, ["eos"])
        result = {}
        for device in design.configs:
            lines = files[f"configs/eos/{device.hostname}.cfg"].decode().splitlines()
            block = lines[lines.index("load-balance cluster") :] if "load-balance cluster" in lines else []
            members = [
                line.split()[1].removeprefix("Ethernet") for line in block if line.startswith("      interface ")
            ]
            result[device.hostname] = (block[: block.index("   !")] if block else [], set(",".join(members).split(",")))
        return result

    small, large = groups(16), groups(32)
    assert set(small) <= set(large)
    for name, (lines, ports) in small.items():
        assert large[name][0] == lines and ports <= large[name][1], name
    assert any(ports < large[name][1] for name, (_, ports) in small.items())

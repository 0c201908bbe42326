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
from designer.errors import InputError
from designer.outputs.design_json import design_json
from designer.outputs.summary import summary_markdown
from designer.render import render_configs
from designer.render.servers import render_hosts
from designer.verify import pyavd_eos
from designer.verify.traffic import modes_not_run
from tests.helpers import EOS_LIMITS, build_text, intent_text
from tests.prerequisites import PYAVD, needs
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


@needs(PYAVD)
@pytest.mark.parametrize("mode", ["ecmp", "adaptive", "cluster", "spray"])
def test_every_eos_mode_is_what_aristas_templates_render(mode: str) -> None:
    """pyavd's ip_hardware (DLB, AVD issue 4920) and load_balance cluster (CLB, AVD issue 5004) templates render
    the same lines from the design's device model: every line of ours is in Arista's rendering and every line of
    it in ours."""
    design, texts = eos_design(mode)
    for device in design.configs:
        assert pyavd_eos.compare(device, texts[device.hostname], EOS_LIMITS) == [], device.hostname


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
    """DGX H100's ConnectX-7 ports hash; DGX B300's ConnectX-8 SuperNICs and AMD servers' Pollara 400 spray
    (catalog nics.<nic>.modes)."""
    text = intent_text(servers=8, extra="targets: [frr, sonic]\nload_balancing: {mode: spray}")
    code, _, err = refusal(tmp_path, text)
    assert code == 2
    assert err.startswith("lb.yaml:9: load_balancing.mode: spray needs NICs that spray")
    assert "(amd-mi300x, amd-mi355x, dgx-b300)" in err
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


SPECTRUM_X = json.loads((Path(__file__).parent / "vendor/nvidia-nic/spectrum-x-adaptive-routing.json").read_text())
"""NVIDIA's NIC Configuration Operator, Spectrum-X profiles RA1.3-RA2.2 for ConnectX-8 (tests/vendor/nvidia-nic/)."""


def test_supernics_are_set_for_adaptive_routing_as_nvidias_spectrum_x_profiles_set_them(tmp_path: Path) -> None:
    """DGX B300's ConnectX-8 SuperNICs get, one pair of lines per NIC, every profile's nvconfig (mlxconfig) and its
    adaptive-routing runtime settings as ROCE_ACCL fields with their select bits (mlxreg), and the script still
    parses; DGX H100's ConnectX-7, and any mode but adaptive, get none."""
    (script, *_) = scripts = nic_scripts("dgx-b300", "adaptive")
    lines = script.splitlines()
    nics = script.count("\ncma_roce_tos -d ")  # one a ConnectX-8 800G port, whose two plane PFs it sets (hwplb)
    assert nics == 8 and sum(line.startswith("pci=$(basename") for line in lines) == nics
    for profile in SPECTRUM_X["profiles"].values():
        wanted = " ".join(f"{name}={value}" for name, value in profile["nvconfig"].items())
        assert sum(line == f'mlxconfig -y -d "$pci" set {wanted}' for line in lines) == nics
    (register,) = {line for line in lines if line.startswith("mlxreg ")}
    written = register.split('--set "')[1].split('"')[0].split(",")
    wanted_fields = {
        item
        for name, value in SPECTRUM_X["adaptive_routing"].items()
        for item in (f"{SPECTRUM_X['roce_accl'][name][0]}={int(value):#x}", f"{SPECTRUM_X['roce_accl'][name][1]}=0x1")
    }
    assert set(written) == wanted_fields and len(written) == len(wanted_fields)
    assert register.startswith('mlxreg -d "$pci" --reg_name ROCE_ACCL') and register.endswith("--yes")
    assert sum(line == register for line in lines) == nics
    path = tmp_path / "nic-qos.sh"
    path.write_text(script)
    assert subprocess.run(["sh", "-n", str(path)], capture_output=True).returncode == 0
    assert len(scripts) == 4
    for server, mode in (("dgx-h100", "adaptive"), ("dgx-b300", "ecmp"), ("dgx-b300", "spray")):
        assert all("mlxreg" not in text and "mlxconfig" not in text for text in nic_scripts(server, mode))


def test_spraying_nics_are_left_to_their_vendors_tools_and_summary_says_so() -> None:
    """No vendor document at hand gives ConnectX-8's or Pollara 400's spraying setting: nic-qos.sh says so in a
    comment and writes no command for it; summary.md tells the reviewer to enable it; Pollara's servers (AMD's
    product page: packet spraying) may spray, and with a ConnectX-7 ordered instead they may not."""
    assert all("# packet spraying: no NVIDIA document" in text for text in nic_scripts("dgx-b300", "spray"))
    assert "NIC side of spray: the backend NICs (NVIDIA ConnectX-8 SuperNIC) spray" in summary_markdown(
        nic_design("dgx-b300", "spray")
    )
    pollara = build_text(
        intent_text(servers=4, server="amd-mi300x", extra="targets: [frr]\nload_balancing: {mode: spray}")
    )
    assert not any(name.endswith("/nic-qos.sh") for name in render_hosts(pollara.hosts))
    assert "NIC side of spray: the backend NICs (AMD Pensando Pollara 400) spray" in summary_markdown(pollara)
    with pytest.raises(InputError, match="spray needs NICs that spray"):
        build_text(
            intent_text(
                servers=4,
                server="amd-mi300x",
                compute_extra="nic: nvidia-cx7",
                extra="targets: [frr]\nload_balancing: {mode: spray}",
            )
        )


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


CHASSIS_SPINE = "{model: arista-7808r3}"
"""Arista 7808R3: 8 line cards of 36 x 400G (Arista 7800R3 white paper, Table 1; netbox-community
devicetype-library DCS-7800R3A-36D-LC: its ports Ethernet<slot>/<port>/1)."""


@cache
def chassis_design(servers: int, mode: str = "ecmp") -> tuple[Design, dict[str, str]]:
    design = build_text(
        f"name: chassis\ncompute: {{servers: {servers}, server: dgx-h100}}\ngrowth: {{max_servers: 128}}\n"
        f"fabric: {{leaf: {ARISTA_LEAF}, spine: {CHASSIS_SPINE}}}\ntargets: [eos]\nload_balancing: {{mode: {mode}}}\n"
    )
    files = render_configs(design.configs, ["eos"])
    return design, {device.hostname: files[f"configs/eos/{device.hostname}.cfg"].decode() for device in design.configs}


@needs(PYAVD)
def test_a_7800r3_spine_builds_with_chassis_port_names_and_writes_no_hash_line_it_cannot_cite() -> None:
    """The spine's ports are Ethernet<line card slot>/<port>/1, 36 to a card; EOS's `ip load-sharing trident` is
    Strata's, and no source gives the 7800R's (sand) five-tuple line, so the spine writes none while the 7060X6
    leaves keep theirs; summary.md says so; Arista's own templates (pyavd) render the same lines."""
    design, texts = chassis_design(64)
    spines = [device for device in design.configs if device.model == "arista-7808r3"]
    leaves = [device for device in design.configs if device.model == "arista-7060x6-64pe"]
    assert spines and leaves
    for device in spines:
        names = device.os_port_names["eos"]
        assert len(names) == 288 and names[:2] == ("Ethernet3/1/1", "Ethernet3/2/1")
        assert names[35:37] == ("Ethernet3/36/1", "Ethernet4/1/1") and names[-1] == "Ethernet10/36/1"
        lines = texts[device.hostname].splitlines()
        assert not any(line.startswith("ip load-sharing") for line in lines)
        assert all(f"interface {device.os_port_name('eos', interface)}" in lines for interface in device.interfaces)
    assert all("ip load-sharing trident fields ip" in texts[device.hostname] for device in leaves)
    assert "Hash fields: EOS writes none on arista-7808r3" in summary_markdown(design)
    if HAVE_PYAVD:
        for device in design.configs:
            assert pyavd_eos.compare(device, texts[device.hostname], EOS_LIMITS) == [], device.hostname


def test_a_7800r3_spine_keeps_its_ports_and_lines_as_the_fabric_grows() -> None:
    """Growth inside the envelope: every spine of the smaller fabric keeps every interface it had, by name."""
    small, large = chassis_design(32)[1], chassis_design(64)[1]
    for name, text in small.items():
        kept = [line for line in text.splitlines() if line.startswith("interface Ethernet")]
        assert kept and set(kept) <= set(large[name].splitlines()), name


@pytest.mark.parametrize("mode", ["adaptive", "cluster"])
def test_dlb_and_clb_are_refused_on_a_7800r3_spine_with_the_reason(tmp_path: Path, mode: str) -> None:
    """Neither DLB nor CLB is documented for Arista's sand platforms (catalog targets.eos): exit 2 at the mode's
    line, naming the switch that does not run it and where the mode does run."""
    text = intent_text(
        servers=8, leaf=ARISTA_LEAF, spine=CHASSIS_SPINE, extra=f"targets: [eos]\nload_balancing: {{mode: {mode}}}"
    )
    code, out, err = refusal(tmp_path, text)
    assert code == 2 and out == ""
    assert err.startswith(f"lb.yaml:10: load_balancing.mode: {mode} is not something eos can express here (not on ")
    assert "arista-7808r3;" in err and "arista-7060x6-64pe;" not in err.split("each target accepts")[0]
    assert f"{mode} (only on arista-7060x6-64pe)" in err

"""The management side of every switch configuration (designer/networks/management.py): the management port's
address and gateway from the out-of-band plan, the management VRF and the intent's NTP, syslog and DNS servers.

Each target's lines are proven against the vendor's own artifacts: EOS against pyavd's ``eos_cli_config_gen``
rendering of the same structured config (``management_interfaces``, ``vrfs``, ``static_routes``, ``ntp``,
``logging``, ``ip_name_servers``, ``dns_domain``), NVUE against NVIDIA's NVUE OpenAPI schema (PyPI nvueschema),
SONiC's config_db.json against SONiC's YANG models (designer/data/sonic-yang: sonic-mgmt_port, sonic-mgmt_vrf,
sonic-mgmt_interface, sonic-ntp, sonic-syslog, sonic-dns). The addresses are checked against ``oob.csv``, the
table a DHCP server loads, and against growth inside the envelope.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from functools import cache
from ipaddress import ip_interface
from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.cli import main
from designer.design import Design
from designer.outputs.network_tables import oob_rows
from designer.outputs.summary import summary_markdown
from designer.render import Renderer, rendered
from designer.verify import pyavd_eos
from designer.verify.nvue_openapi import nvueschema_releases
from designer.verify.nvue_openapi import problems as nvue_problems
from designer.verify.parsers import ConfigDbError
from tests.conftest import ROOT, check_golden
from tests.helpers import EOS_LIMITS, build_text
from tests.prerequisites import LIBYANG, NVUESCHEMA, PYAVD, needs
from tests.test_sonic import sonic_yang

FOUR_NETWORKS = (ROOT / "intents" / "enterprise-four-networks.yaml").read_text()
EVERY_TARGET = "targets: [sonic, frr, eos, nvue]"
HAVE_NVUESCHEMA = importlib.util.find_spec("nvueschema") is not None
NEED_NVUESCHEMA = "NVIDIA's NVUE schema is needed: pip install 'nvueschema>=0.1,<0.2' (or pip install '.[test]')"
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's safe loader, with libyaml's parser where PyYAML has it."""


@cache
def four_networks(servers: int = 32, oob: bool = True) -> Design:
    """The shipped four-network intent for every target, with ``servers`` built now, with or without its
    out-of-band network."""
    text = FOUR_NETWORKS.replace("targets: [frr]", EVERY_TARGET).replace("servers: 32", f"servers: {servers}")
    if not oob:
        text = text.replace("  oob: {}", "")
    return build_text(text)


@cache
def files(oob: bool = True) -> dict[str, str]:
    """Every backend switch's configuration of :func:`four_networks` for every target, by output path."""
    design = four_networks(oob=oob)
    renderer = Renderer(management=design.management)
    return {path: data.decode() for path, data in rendered(design.configs, design.intent.targets, renderer)}


def oob_table(design: Design) -> dict[str, dict[str, str]]:
    """``oob.csv``'s rows of the switches' management ports, by device."""
    assert design.networks is not None
    header, rows = oob_rows(design.networks)
    return {row[0]: dict(zip(header, map(str, row), strict=True)) for row in rows if row[1] == "mgmt"}


def switch_names(design: Design) -> list[str]:
    """Every switch of every network but the out-of-band one: the backend's, then the other networks'."""
    assert design.networks is not None
    return [device.hostname for device in design.configs] + [
        device.name for network in design.networks.data for device in network.fabric.switches()
    ]


def test_every_switch_of_every_network_takes_its_management_address_and_gateway_from_oob_csv() -> None:
    design = four_networks()
    table = oob_table(design)
    names = switch_names(design)
    assert len(names) > len(design.configs)  # the frontend's and storage's switches too
    for name in names:
        management = design.management(name)
        assert management is not None, name
        row = table[name]
        assert management.address == f"{row['address']}/{row['prefix_length']}"
        assert management.gateway == row["gateway"]
        port = ip_interface(management.address)
        assert ip_interface(f"{management.gateway}/{port.network.prefixlen}").network == port.network
        assert str(next(port.network.hosts())) == management.gateway  # the block's first host, its switch's own
        assert (management.vrf, management.ntp, management.dns) == ("mgmt", ("192.0.2.123",), FOUR_DNS)
        assert (management.syslog, management.domain) == (("192.0.2.14",), "cluster.example.net")


FOUR_DNS = ("192.0.2.53", "198.51.100.53")


def test_without_management_or_out_of_band_network_a_switch_has_no_management_side() -> None:
    design = build_text(FOUR_NETWORKS.replace("targets: [frr]", EVERY_TARGET).split("networks:")[0])
    assert all(design.management(device.hostname) is None for device in design.configs)
    rendered_before = dict(rendered(design.configs, design.intent.targets, Renderer()))
    with_none = dict(rendered(design.configs, design.intent.targets, Renderer(management=design.management)))
    assert with_none == rendered_before


def test_growing_inside_the_envelope_moves_no_management_address() -> None:
    now, grown = four_networks(32), four_networks(64)
    for name in switch_names(now):
        assert now.management(name) == grown.management(name), name


@needs(PYAVD)
def test_every_eos_management_line_is_what_aristas_templates_render() -> None:
    design = four_networks()
    for device in design.configs:
        text = files()[f"configs/eos/{device.hostname}.cfg"]
        management = design.management(device.hostname)
        assert management is not None
        assert pyavd_eos.compare(device, text, EOS_LIMITS, management) == [], device.hostname
        for line in (
            "vrf instance mgmt",
            "interface Management1",
            f"   ip address {management.address}",
            f"ip route vrf mgmt 0.0.0.0/0 {management.gateway}",
            "ntp server vrf mgmt 192.0.2.123",
            "logging vrf mgmt host 192.0.2.14",
            "ip name-server vrf mgmt 192.0.2.53",
            "ip name-server vrf mgmt 198.51.100.53",
            "dns domain cluster.example.net",
        ):
            assert f"\n{line}\n" in text, (device.hostname, line)


@needs(PYAVD)
def test_the_eos_comparison_catches_a_management_line_left_out_or_outside_the_vrf() -> None:
    design = four_networks()
    device = design.configs[0]
    text, management = files()[f"configs/eos/{device.hostname}.cfg"], design.management(device.hostname)
    without = text.replace("\nntp server vrf mgmt 192.0.2.123\n", "\n")
    assert pyavd_eos.compare(device, without, EOS_LIMITS, management) == [
        "missing ntp server vrf mgmt 192.0.2.123 (Arista's rendering has it)"
    ]
    outside = text.replace("ntp server vrf mgmt 192.0.2.123", "ntp server 192.0.2.123")
    assert pyavd_eos.compare(device, outside, EOS_LIMITS, management)[0].endswith(
        "ntp server 192.0.2.123 is not in Arista's rendering"
    )


@needs(PYAVD)
def test_without_an_out_of_band_network_eos_keeps_the_services_and_writes_no_address_or_route() -> None:
    design = four_networks(oob=False)
    device = design.configs[0]
    text, management = files(oob=False)[f"configs/eos/{device.hostname}.cfg"], design.management(device.hostname)
    assert management is not None and management.address == ""
    assert pyavd_eos.compare(device, text, EOS_LIMITS, management) == []
    assert "ntp server vrf mgmt 192.0.2.123" in text
    assert "ip route vrf" not in text and "   ip address 10.14" not in text


def nvue_paths(text: str) -> set[tuple[str, ...]]:
    """Every path of the ``set`` tree of an NVUE startup file, as ``nv set`` reads it."""
    paths: set[tuple[str, ...]] = set()

    def walk(node: Any, path: tuple[str, ...]) -> None:
        paths.add(path)
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, (*path, str(key)))
        elif node is not None:
            paths.add((*path, str(node)))

    walk(yaml.load(text, Loader=SAFE_LOADER)[0]["set"], ())
    return paths


@cache
def nvue_files(release: str, oob: bool) -> dict[str, str]:
    """Every backend switch's NVUE file of :func:`four_networks` for Cumulus Linux ``release``."""
    design = four_networks(oob=oob)
    renderer = Renderer(options={"nvue": {"release": release}}, management=design.management)
    return {path: data.decode() for path, data in rendered(design.configs, ["nvue"], renderer)}


NVUE_RELEASES = ("5.6", "5.12", "5.13", "5.14", "5.15", "5.18")
"""The releases around each move of the management services (syslog to ``system`` in 5.13, NTP and DNS in 5.15)."""


@needs(NVUESCHEMA)
@pytest.mark.parametrize("release", NVUE_RELEASES)
@pytest.mark.parametrize("oob", [True, False], ids=["oob", "no-oob"])
def test_every_nvue_management_path_is_in_nvidias_schema_of_the_release(release: str, oob: bool) -> None:
    assert release in nvueschema_releases()
    design = four_networks(oob=oob)
    system = tuple(map(int, release.split("."))) >= (5, 15)
    for device in design.configs:
        text = nvue_files(release, oob)[f"configs/nvue/{device.hostname}.yaml"]
        assert nvue_problems(text, release) == [], (device.hostname, nvue_problems(text, release))
        paths = nvue_paths(text)
        servers = {server for path in paths for server in path if server[:1].isdigit() and "/" not in server}
        assert {"192.0.2.123", "192.0.2.14", *FOUR_DNS} <= servers
        assert any(path[-1:] == ("cluster.example.net",) for path in paths)
        management = design.management(device.hostname)
        assert management is not None
        ip = "ipv4" if system else "ip"
        eth0 = {path[2:] for path in paths if path[:2] == ("interface", "eth0")}
        assert (("vrf", "mgmt") if system else (ip, "vrf", "mgmt")) in eth0
        assert ((ip, "address", management.address) in eth0) == oob
        assert ((ip, "gateway", management.gateway) in eth0) == oob
    misplaced = text.replace("ntp:", "ntpd:", 1)
    assert misplaced != text and nvue_problems(misplaced, release)


@needs(LIBYANG)
def test_every_sonic_management_table_validates_against_sonic_yang() -> None:
    yang = sonic_yang()
    design = four_networks()
    for device in design.configs:
        config = json.loads(files()[f"configs/sonic/{device.hostname}.json"])
        yang.check(config)
        management = design.management(device.hostname)
        assert management is not None
        assert config["MGMT_INTERFACE"] == {f"eth0|{management.address}": {"gwaddr": management.gateway}}
        assert config["MGMT_VRF_CONFIG"] == {"vrf_global": {"mgmtVrfEnabled": "true"}}
        assert config["NTP"] == {"global": {"vrf": "mgmt"}}
        assert set(config["NTP_SERVER"]) == {"192.0.2.123"}
        assert config["SYSLOG_SERVER"] == {"192.0.2.14": {"vrf": "mgmt"}}
        assert set(config["DNS_NAMESERVER"]) == set(FOUR_DNS)
        assert config["DNS_OPTIONS"] == {"GLOBAL": {"search": ["cluster.example.net"]}}
    for change, refused in (
        (lambda config: config.pop("MGMT_PORT"), "MGMT_INTERFACE"),  # the interface names a port SONiC lacks
        (lambda config: config["NTP"]["global"].update(vrf="blue"), "NTP"),  # NTP runs in mgmt or default only
        (lambda config: config.pop("MGMT_VRF_CONFIG"), "Management VRF"),  # NTP in mgmt needs the VRF on
    ):
        broken = copy.deepcopy(config)
        change(broken)
        with pytest.raises(ConfigDbError, match=refused):
            yang.check(broken)


def test_frr_configurations_carry_no_management_side_and_the_summary_says_so() -> None:
    design = four_networks()
    for device in design.configs:
        assert (
            files()[f"configs/frr/{device.hostname}.conf"]
            == dict(rendered([device], ["frr"], Renderer()))[f"configs/frr/{device.hostname}.conf"].decode()
        )
    summary = summary_markdown(design)
    line = next(line for line in summary.splitlines() if line.startswith("Management: "))
    for said in ("SONiC eth0", "EOS Management1", "NVUE eth0", "in VRF mgmt", "from `oob.csv`", "FRR configures none"):
        assert said in line, said
    assert re.search(r"NTP 192\.0\.2\.123; syslog 192\.0\.2\.14; DNS 192\.0\.2\.53, 198\.51\.100\.53", line)


@pytest.mark.parametrize("path", ["configs/eos/p0-su0-r0-leaf.cfg", "configs/nvue/p0-su0-r0-leaf.yaml"])
def test_a_leaf_of_the_four_networks_matches_its_golden_configuration(path: str, update_golden: bool) -> None:
    check_golden(ROOT / "tests" / "golden" / "four-networks" / path, files()[path], update_golden)


@needs(PYAVD)
def test_validate_configs_proves_the_management_lines_of_a_built_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``designer validate-configs`` rebuilds the management side from the folder's intent (the out-of-band plan
    included) and compares every EOS file with pyavd's rendering of it."""
    intent = tmp_path / "four.yaml"
    intent.write_text(FOUR_NETWORKS.replace("targets: [frr]", "targets: [eos]"))
    output = tmp_path / "out"
    assert main(["build", str(intent), "-o", str(output)]) == 0
    switches = len(list((output / "configs" / "eos").glob("*.cfg")))
    capsys.readouterr()
    assert main(["validate-configs", str(output)]) == 0
    assert f"pyavd: {switches} of {switches} files valid" in capsys.readouterr().out
    leaf = output / "configs" / "eos" / "p0-su0-r0-leaf.cfg"
    leaf.write_text(
        leaf.read_text().replace("ip route vrf mgmt 0.0.0.0/0 10.14.1.65", "ip route vrf mgmt 0.0.0.0/0 10.14.1.1")
    )
    assert main(["validate-configs", str(output)]) == 1
    assert "ip route vrf mgmt 0.0.0.0/0 10.14.1.1 is not in Arista's rendering" in capsys.readouterr().out

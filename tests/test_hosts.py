"""The server files (``servers/<server>/``): parsed back and held against netplan's and NetworkManager's documented
keys (tests/vendor/netplan, tests/vendor/networkmanager), against addressing.csv, against the leaves' rendered
configurations (gateway, DSCP, PFC) and against the rails (NCCL_IB_HCA)."""

from __future__ import annotations

import configparser
import contextlib
import csv
import io
import ipaddress
import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest
import yaml

from designer.catalog import catalog
from designer.cli import main
from designer.design import Design
from designer.outputs.build import design_files
from tests.conftest import ROOT
from tests.helpers import build_text, intent_text

VENDOR = ROOT / "tests" / "vendor"
NETPLAN = json.loads((VENDOR / "netplan" / "keys.json").read_text())
NM = json.loads((VENDOR / "networkmanager" / "keys.json").read_text())
WORKLOAD = """workloads:
  - {name: dp, gpus: 128, bytes: 10GB, qps_per_connection: 4}
"""


@cache
def built(
    extra: str = "", server: str = "dgx-h100", servers: int = 32, **fields: str
) -> tuple[Design, dict[str, bytes]]:
    """A design of ``servers`` catalog servers and every output file (``fields``: more of :func:`intent_text`'s)."""
    design = build_text(intent_text(servers=servers, server=server, extra=extra, **fields))
    return design, design_files(design)


def servers_of(files: dict[str, bytes]) -> dict[str, dict[str, bytes]]:
    """Each server's files by file name."""
    found: dict[str, dict[str, bytes]] = {}
    for path, data in files.items():
        if path.startswith("servers/"):
            _, server, name = path.split("/")
            found.setdefault(server, {})[name] = data
    return found


def addressing(files: dict[str, bytes]) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(files["addressing.csv"].decode())))


def server_nics(files: dict[str, bytes]) -> dict[str, list[str]]:
    """Each server's NIC OS names in port order, from design.json."""
    return {row["name"]: row["nics"] for row in json.loads(files["design.json"])["devices"] if row["role"] == "server"}


def frr_interfaces(files: dict[str, bytes]) -> dict[str, tuple[str, str, str]]:
    """Every address configured on a switch in the rendered FRR files: (switch, interface, description)."""
    found = {}
    for path, data in files.items():
        if path.startswith("configs/frr/"):
            switch = Path(path).stem
            for name, body in re.findall(r"^interface (\S+)\n(.*?)^exit", data.decode(), re.M | re.S):
                description = re.search(r"^ description (.*)$", body, re.M)
                for address in re.findall(r"^ ip address (\S+)$", body, re.M):
                    found[address] = (switch, name, description.group(1) if description else "")
    return found


def qos_commands(script: str) -> dict[str, dict[str, object]]:
    """What nic-qos.sh sets per NIC: trust, PFC list, DSCP-to-priority pairs, RDMA ToS, CNP DSCP and priority."""
    nics: dict[str, dict[str, object]] = {}
    order = []
    for line in script.splitlines():
        if match := re.fullmatch(r"mlnx_qos -i (\S+) --trust (\S+) --pfc ([0-9,]+)", line):
            order.append(match.group(1))
            nics[match.group(1)] = {
                "trust": match.group(2),
                "pfc": [int(x) for x in match.group(3).split(",")],
                "dscp2prio": {},
            }
        elif match := re.fullmatch(r"mlnx_qos -i (\S+) --dscp2prio set,(\d+),(\d+)", line):
            nics[match.group(1)]["dscp2prio"][int(match.group(2))] = int(match.group(3))  # type: ignore[index]
        elif match := re.fullmatch(r"cma_roce_tos -d (\S+) -t (\d+)", line):
            nics[order[-1]].update(rdma=match.group(1), tos=int(match.group(2)))
        elif match := re.fullmatch(r"echo (\d+) > /sys/class/net/(\S+)/ecn/roce_np/(cnp_dscp|cnp_802p_prio)", line):
            nics[match.group(2)][match.group(3)] = int(match.group(1))
    return nics


def nccl(data: bytes) -> dict[str, str]:
    """nccl.env as the shell would read it (comments dropped, one level of double quotes removed)."""
    lines = [line for line in data.decode().splitlines() if line and not line.startswith("#")]
    return {key: value.strip('"') for key, _, value in (line.partition("=") for line in lines)}


def test_every_server_gets_its_five_files() -> None:
    design, files = built()
    servers = servers_of(files)
    assert sorted(servers) == sorted(device.name for device in design.fabric.devices if device.role == "server")
    assert all(
        set(found) == {"netplan.yaml", "sysctl.conf", "nic-qos.sh", "nccl.env", "lldpd.conf"}
        for found in servers.values()
    )
    manifest = json.loads(files["manifest.json"])["files"]
    assert {path for path in files if path.startswith("servers/")} <= set(manifest)


def test_netplan_files_use_only_netplans_documented_keys() -> None:
    _, files = built()
    for found in servers_of(files).values():
        network = yaml.safe_load(found["netplan.yaml"])["network"]
        assert set(network) <= set(NETPLAN["network"])
        assert network["version"] == 2 and network["renderer"] in ("networkd", "NetworkManager")
        priorities = []
        for settings in network["ethernets"].values():
            assert set(settings) <= set(NETPLAN["ethernets"]), set(settings) - set(NETPLAN["ethernets"])
            for route in settings["routes"]:
                assert set(route) <= set(NETPLAN["routes"]) and route["table"] >= 1
            for rule in settings["routing-policy"]:
                assert set(rule) <= set(NETPLAN["routing-policy"]) and rule["table"] >= 1
                priorities.append(rule["priority"])
        assert len(priorities) == len(set(priorities)), "netplan asks for a unique priority per rule"


def test_netplan_addresses_tables_and_rules_match_addressing_csv() -> None:
    _, files = built()
    rows = {(row["device"], row["interface"]): row for row in addressing(files) if row["use"] == "server_leaf"}
    server_addresses = [ipaddress.ip_interface(row["address"]).ip for row in rows.values()]
    names = server_nics(files)
    for server, found in servers_of(files).items():
        ethernets = yaml.safe_load(found["netplan.yaml"])["network"]["ethernets"]
        assert list(ethernets) == names[server]
        tables = set()
        for port, settings in enumerate(ethernets.values()):
            row = rows[server, f"nic{port}"]
            assert settings["addresses"] == [row["address"]]
            address = row["address"].partition("/")[0]
            [rule] = settings["routing-policy"]
            assert rule["from"] == address
            for route in settings["routes"]:
                assert route["via"] == row["peer_address"] and route["table"] == rule["table"]
                network = ipaddress.ip_network(route["to"])
                assert all(other in network for other in server_addresses), "the route covers every server /31"
            tables.add(rule["table"])
        assert len(tables) == len(ethernets), "one routing table per NIC"


def test_every_nic_gateway_is_its_leafs_end_in_the_leafs_config() -> None:
    design, files = built()
    configured = frr_interfaces(files)
    rails = design.intent.rails
    for server, found in servers_of(files).items():
        ethernets = yaml.safe_load(found["netplan.yaml"])["network"]["ethernets"]
        for port, settings in enumerate(ethernets.values()):
            gateway = settings["routes"][0]["via"]
            switch, _, description = configured[f"{gateway}/31"]
            assert description == f"{server} nic{port}"
            assert re.fullmatch(rf"p{port // rails}-su\d+-r{port % rails}-leaf", switch)
            assert ipaddress.ip_interface(settings["addresses"][0]).network == ipaddress.ip_network(f"{gateway}/31")


def test_nic_qos_matches_the_leaves_dscp_map_and_pfc() -> None:
    design, files = built()
    configured = frr_interfaces(files)
    qos = design.intent.qos
    for found in servers_of(files).values():
        commands = qos_commands(found["nic-qos.sh"].decode())
        ethernets = yaml.safe_load(found["netplan.yaml"])["network"]["ethernets"]
        assert list(commands) == list(ethernets)
        for nic, settings in ethernets.items():
            switch, interface, _ = configured[f"{settings['routes'][0]['via']}/31"]
            config_db = json.loads(files[f"configs/sonic/{switch}.json"])
            port = next(name for name, fields in config_db["PORT"].items() if fields["alias"] == interface)
            dscp_map = config_db["DSCP_TO_TC_MAP"][config_db["PORT_QOS_MAP"][port]["dscp_to_tc_map"]]
            set_here = commands[nic]
            assert set_here["trust"] == "dscp"
            lossless = [priority for priority, on in enumerate(set_here["pfc"]) if on]
            assert ",".join(map(str, lossless)) == config_db["PORT_QOS_MAP"][port]["pfc_enable"]
            for dscp, priority in set_here["dscp2prio"].items():  # type: ignore[attr-defined]
                assert dscp_map[str(dscp)] == str(priority)
            assert set_here["tos"] >> 2 == qos.roce_dscp and dscp_map[str(qos.roce_dscp)] == str(lossless[0])
            assert dscp_map[str(set_here["cnp_dscp"])] == str(set_here["cnp_802p_prio"])
            assert int(nccl(found["nccl.env"])["NCCL_IB_TC"]) >> 2 == qos.roce_dscp


def test_nic_qos_script_is_valid_shell() -> None:
    _, files = built()
    script = next(iter(servers_of(files).values()))["nic-qos.sh"]
    shell = shutil.which("sh")
    assert shell is not None
    result = subprocess.run([shell, "-n"], input=script, capture_output=True, check=False)
    assert result.returncode == 0, result.stderr


def test_nccl_hca_lists_the_rdma_devices_in_rail_order() -> None:
    design, files = built()
    configured = frr_interfaces(files)
    for found in servers_of(files).values():
        hca = nccl(found["nccl.env"])["NCCL_IB_HCA"]
        assert hca.startswith("=")
        devices = [entry.removesuffix(":1") for entry in hca[1:].split(",")]
        assert devices == list(catalog().servers["dgx-h100"].rdma_devices)
        rdma_of = {nic: commands["rdma"] for nic, commands in qos_commands(found["nic-qos.sh"].decode()).items()}
        ethernets = yaml.safe_load(found["netplan.yaml"])["network"]["ethernets"]
        for nic, settings in ethernets.items():
            switch, _, _ = configured[f"{settings['routes'][0]['via']}/31"]
            rail = int(re.search(r"-r(\d+)-leaf$", switch).group(1))  # type: ignore[union-attr]
            assert devices[rail] == rdma_of[nic]
        values = nccl(found["nccl.env"])
        assert values["NCCL_IB_GID_INDEX"] == "3" and values["NCCL_CROSS_NIC"] == "0"
        assert values["NCCL_IB_QPS_PER_CONNECTION"] == "1"
    assert not design.workloads


def test_queue_pairs_come_from_the_workload_analysis() -> None:
    design, files = built(WORKLOAD)
    [result] = design.workloads
    expected = max(4, result.qps_for_90pct or 0)
    for found in servers_of(files).values():
        assert nccl(found["nccl.env"])["NCCL_IB_QPS_PER_CONNECTION"] == str(expected)


def test_sysctls_set_arp_and_reverse_path_per_nic() -> None:
    _, files = built()
    names = server_nics(files)
    for server, found in servers_of(files).items():
        lines = [line for line in found["sysctl.conf"].decode().splitlines() if line and not line.startswith("#")]
        settings = dict(line.split(" = ") for line in lines)
        assert settings == {
            f"net.ipv4.conf.{nic}.{key}": value
            for nic in names[server]
            for key, value in (("arp_ignore", "1"), ("arp_announce", "2"), ("rp_filter", "2"))
        }


def test_nmconnection_keyfiles_use_only_documented_keys_and_match_netplan() -> None:
    _, netplan_files = built()
    _, files = built("hosts: {format: nmconnection}")
    allowed = NM["sections"]
    lists = "|".join(map(re.escape, NM["keyfile_lists"].values()))
    netplan = servers_of(netplan_files)
    uuids = set()
    for server, found in servers_of(files).items():
        ethernets = yaml.safe_load(netplan[server]["netplan.yaml"])["network"]["ethernets"]
        assert set(found) == {f"{nic}.nmconnection" for nic in ethernets} | {
            "sysctl.conf",
            "nic-qos.sh",
            "nccl.env",
            "lldpd.conf",
        }
        for nic, settings in ethernets.items():
            keyfile = configparser.ConfigParser(interpolation=None, delimiters=("=",))
            keyfile.optionxform = str  # type: ignore[assignment,method-assign]
            keyfile.read_string(found[f"{nic}.nmconnection"].decode())
            for section in keyfile.sections():
                for key in keyfile[section]:
                    base = re.fullmatch(rf"(?:({lists})\d+(_options)?|(.+))", key)
                    assert base is not None
                    assert base.group(3) in allowed[section] if base.group(3) else section in ("ipv4", "ipv6"), key
            connection, ipv4 = keyfile["connection"], keyfile["ipv4"]
            assert connection["interface-name"] == nic and connection["type"] == "ethernet"
            uuids.add(connection["uuid"])
            assert ipv4["method"] in NM["ipv4_methods"] and keyfile["ipv6"]["method"] in NM["ipv6_methods"]
            assert ipv4["address1"] == settings["addresses"][0]
            assert keyfile["ethernet"]["mtu"] == str(settings["mtu"])
            route, rule = settings["routes"][0], settings["routing-policy"][0]
            assert ipv4["route1"] == f"{route['to']},{route['via']}"
            options = dict(option.split("=") for option in ipv4["route1_options"].split(","))
            assert set(options) <= set(NM["route_attributes"]) and options["table"] == str(route["table"])
            assert ipv4["routing-rule1"] == f"priority {rule['priority']} from {rule['from']} table {rule['table']}"
    assert len(uuids) == sum(len(found) - 4 for found in servers_of(files).values()), "every connection its own UUID"


def test_intent_names_override_the_catalog_and_reach_design_json() -> None:
    names = [f"gpu{index}" for index in range(7)] + ["eth0.100"]
    extra = f"hosts:\n  nics: [{', '.join(names)}]\n  rdma_devices: [{', '.join(f'rdma{i}' for i in range(8))}]\n"
    _, files = built(extra)
    assert set(map(tuple, server_nics(files).values())) == {tuple(names)}
    found = next(iter(servers_of(files).values()))
    assert list(yaml.safe_load(found["netplan.yaml"])["network"]["ethernets"]) == names
    sysctl = found["sysctl.conf"].decode()
    assert "net/ipv4/conf/eth0.100/rp_filter = 2" in sysctl, "a dotted name needs sysctl's slash form"
    assert "net.ipv4.conf.gpu0.rp_filter = 2" in sysctl
    assert nccl(found["nccl.env"])["NCCL_IB_HCA"] == "=" + ",".join(f"rdma{i}:1" for i in range(8))


def test_a_server_the_catalog_has_no_names_for_gets_placeholders_by_plane_and_rail() -> None:
    """Sixteen 400G ports, one per plane and rail (a DGX B200 given 16 NIC ports in 2 planes)."""
    design, files = built(server="dgx-b200", servers=16, compute_extra="nics_per_server: 16", fabric_extra="planes: 2")
    assert design.intent.planes == 2 and design.intent.hosts.placeholders
    configured = frr_interfaces(files)
    found = servers_of(files)["su0-srv0"]
    ethernets = yaml.safe_load(found["netplan.yaml"])["network"]["ethernets"]
    assert list(ethernets) == [f"nic{index}" for index in range(16)]
    for index, settings in enumerate(ethernets.values()):
        switch, _, _ = configured[f"{settings['routes'][0]['via']}/31"]
        assert switch == f"p{index // 8}-su0-r{index % 8}-leaf"
    assert nccl(found["nccl.env"])["NCCL_IB_HCA"] == "=" + ",".join(f"mlx5_{i}:1" for i in range(16))


def run_cli(*args: str) -> tuple[int, str]:
    """Run the command line in-process; returns (exit code, stderr)."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main(list(args))
    return code, err.getvalue()


@pytest.mark.parametrize("command", ["plan", "check", "build"])
def test_bad_host_names_are_input_errors_for_every_command(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT / "tests" / "errors")
    code, err = run_cli(command, "hosts_count.yaml")
    assert code == 2
    assert "hosts_count.yaml:8: hosts.nics: 5 names for a server with 8 backend NIC ports" in err
    assert "hosts_count.yaml:9: hosts.rdma_devices[0]: '$(reboot)' is not an RDMA device name" in err


def write_intent(folder: Path, extra: str = "") -> Path:
    intent = folder / "intent.yaml"
    intent.write_text(intent_text(servers=16, extra=extra))
    return intent


def test_user_templates_override_the_host_files(tmp_path: Path) -> None:
    (tmp_path / "templates" / "hosts").mkdir(parents=True)
    (tmp_path / "templates" / "hosts" / "nccl.env.j2").write_text(
        "NCCL_IB_HCA={{ host.nccl.hca | join(',') }}\nNCCL_SOCKET_IFNAME={{ host.nics[0].name }}\n"
    )
    intent = write_intent(tmp_path)
    code, err = run_cli("build", str(intent), "-o", str(tmp_path / "out"))
    assert code == 0, err
    text = (tmp_path / "out" / "servers" / "su0-srv0" / "nccl.env").read_text()
    hca = ",".join(catalog().servers["dgx-h100"].rdma_devices)
    assert text == f"NCCL_IB_HCA={hca}\nNCCL_SOCKET_IFNAME=enp24s0np0\n"
    assert (tmp_path / "out" / "servers" / "su0-srv0" / "netplan.yaml").is_file(), "the shipped ones fill the rest"


def test_build_check_finds_drift_in_a_server_file(tmp_path: Path) -> None:
    intent = write_intent(tmp_path)
    out = tmp_path / "out"
    assert run_cli("build", str(intent), "-o", str(out))[0] == 0
    assert run_cli("build", str(intent), "-o", str(out), "--check")[0] == 0
    sysctl = out / "servers" / "su0-srv15" / "sysctl.conf"
    sysctl.write_text(sysctl.read_text().replace("rp_filter = 2", "rp_filter = 1"))
    code, err = run_cli("build", str(intent), "-o", str(out), "--check")
    assert code == 1 and "servers/su0-srv15/sysctl.conf" in err

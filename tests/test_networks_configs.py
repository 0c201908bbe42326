"""The switch configurations of the frontend and storage networks, proven like the backend's: FRR's own parser reads
every frr.conf, Arista's templates (pyavd) render the same EOS design, NVIDIA's NVUE schema takes every startup.yaml
and SONiC's YANG models every config_db.json; each leaf's BGP towards its servers is what the servers' own FRR files
expect, lossless storage runs the backend's QoS and the frontend none, and growth inside the envelope loses no line
of an existing network switch's configuration."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from designer.backend.model import DeviceConfig
from designer.catalog import catalog
from designer.design import Design, quiet
from designer.intent import parse_intent
from designer.outputs.build import design_files
from designer.outputs.folder import write
from designer.pipeline import design
from designer.render import render_configs
from designer.verify import pyavd_eos
from designer.verify.nvue_openapi import problems as schema_problems
from designer.verify.parsers import check_frr
from tests.conftest import ROOT, check_golden
from tests.helpers import EOS_LIMITS
from tests.prerequisites import LIBYANG, NVUESCHEMA, PYAVD, VTYSH, needs
from tests.test_diff import review, section
from tests.test_intent_errors import run_cli
from tests.test_sonic import sonic_yang

EXAMPLE = ROOT / "intents" / "enterprise-four-networks.yaml"
GOLDEN = ROOT / "tests" / "golden" / "four-networks"
EVERY_TARGET = "targets: [sonic, frr, eos, nvue]"
NEIGHBOR = re.compile(r"^ neighbor (\S+) remote-as (\d+)$", re.MULTILINE)
GOLDEN_CONFIGS = (
    "configs/frr/fe-border0.conf",
    "configs/frr/fe-g0-leaf0.conf",
    "configs/frr/fe-spine0.conf",
    "configs/frr/st-g0-leaf0.conf",
    "configs/frr/st-sg0-leaf0.conf",
    "configs/frr/st-spine0.conf",
)


def example_text(servers: int, extra: str, shipped: bool) -> str:
    """The four-network example with ``servers`` built and ``extra`` sections; unless ``shipped``, with every target
    and lossless storage."""
    text = EXAMPLE.read_text().replace("servers: 32", f"servers: {servers}") + extra
    if shipped:
        return text
    text = text.replace("targets: [frr]", EVERY_TARGET)
    return text.replace("    oversubscription: 1\n", "    oversubscription: 1\n    lossless: true\n")


@cache
def built(servers: int = 32, extra: str = "", shipped: bool = False) -> tuple[Design, dict[str, bytes]]:
    """The design of :func:`example_text` and every file of its build."""
    result = design(parse_intent(example_text(servers, extra, shipped), str(EXAMPLE)), quiet)
    return result, design_files(result)


def network_switches(result: Design) -> list[str]:
    assert result.networks is not None
    return [device.name for network in result.networks.data for device in network.fabric.switches()]


def by_name(result: Design) -> dict[str, DeviceConfig]:
    return {config.hostname: config for config in result.network_configs}


def test_every_frontend_and_storage_switch_gets_a_configuration_for_every_target() -> None:
    result, files = built()
    names = network_switches(result)
    assert [config.hostname for config in result.network_configs] == names
    assert {name.split("-")[0] for name in names} == {"fe", "st"}
    assert any("border" in name for name in names) and any("-sg" in name for name in names)
    for name in names:
        for path in (f"configs/frr/{name}.conf", f"configs/sysctl/{name}.conf", f"configs/eos/{name}.cfg"):
            assert path in files
        assert f"configs/nvue/{name}.yaml" in files and f"configs/sonic/{name}.json" in files
    backend = {device.name for device in result.fabric.switches()}
    assert not backend & set(names)  # beside the backend's files, never one of them


@pytest.mark.parametrize("path", GOLDEN_CONFIGS)
def test_the_shipped_examples_network_switch_configurations_match_the_golden_files(
    path: str, update_golden: bool
) -> None:
    _, files = built(shipped=True)
    check_golden(GOLDEN / path, files[path].decode(), update_golden)


def test_each_frontend_leaf_peers_with_its_servers_as_their_own_frr_files_expect() -> None:
    """Both ends of every server session, read from the rendered files: the server's neighbor is the leaf's /31 end
    and ASN; the leaf's neighbor is the server's end and ASN."""
    result, files = built()
    leaf_sessions: dict[tuple[str, str], int] = {}
    asn_of = {config.hostname: config.asn for config in result.network_configs}
    for config in result.network_configs:
        for address, asn in NEIGHBOR.findall(files[f"configs/frr/{config.hostname}.conf"].decode()):
            leaf_sessions[config.hostname, address] = int(asn)
    checked = 0
    for path, data in files.items():
        if not path.endswith("/frr.conf") or not path.startswith("servers/"):
            continue
        text = data.decode()
        host_asn = int(re.search(r"^router bgp (\d+)$", text, re.MULTILINE)[1])  # type: ignore[index]
        for address, asn in NEIGHBOR.findall(text):
            leaf = re.search(rf"neighbor {re.escape(address)} description (\S+)", text)[1]  # type: ignore[index]
            assert int(asn) == asn_of[leaf]
            config = by_name(result)[leaf]
            (interface,) = [row for row in config.interfaces if row.ip == address]
            assert leaf_sessions[leaf, interface.peer_address] == host_asn
            checked += 1
    assert checked == 2 * 32  # each server's two links, one to each leaf of its pair


def test_a_leaf_takes_only_loopbacks_from_its_servers_and_passes_them_up_beside_its_own() -> None:
    result, files = built()
    text = files["configs/frr/fe-g0-leaf0.conf"].decode()
    assert result.networks is not None
    pools = result.networks.pools()
    loopbacks = next(pool.cidr for name, pool in pools if name == "frontend" and pool.name == "loopbacks")
    assert f"ip prefix-list HOSTS seq 10 permit {loopbacks} le 32" in text
    assert "route-map SERVERS-IN permit 10\n match ip address prefix-list HOSTS\n set community 65534:2\n" in text
    assert "route-map SPINES-OUT permit 10\n match ip address prefix-list LEAF-OWN\n" in text
    assert "route-map SPINES-OUT permit 20\n match community FROM-HOSTS\n" in text
    storage = files["configs/frr/st-g0-leaf0.conf"].decode()
    assert "SERVERS" not in storage and "FROM-HOSTS" not in storage  # storage is not dual-homed with BGP


def test_lossless_storage_runs_the_backends_qos_and_the_frontend_none() -> None:
    result, files = built()
    backend = json.loads(render_backend_sonic(result))
    storage = json.loads(files["configs/sonic/st-g0-leaf0.json"])
    frontend = json.loads(files["configs/sonic/fe-g0-leaf0.json"])
    for table in ("DSCP_TO_TC_MAP", "WRED_PROFILE", "SCHEDULER", "TC_TO_PRIORITY_GROUP_MAP"):
        assert storage[table] == backend[table], table
    assert {entry["pfc_enable"] for key, entry in storage["PORT_QOS_MAP"].items() if key != "global"} == {"3"}
    management = {"MGMT_PORT", "MGMT_VRF_CONFIG", "MGMT_INTERFACE", "NTP", "NTP_SERVER", "SYSLOG_SERVER"}
    management |= {"DNS_NAMESERVER", "DNS_OPTIONS"}  # the intent's management section (test_management.py)
    assert set(frontend) - management == {"DEVICE_METADATA", "INTERFACE", "LOOPBACK_INTERFACE", "PORT", "SWITCH_HASH"}
    assert "buffer_model" not in frontend["DEVICE_METADATA"]["localhost"]
    eos_frontend, eos_storage = files["configs/eos/fe-g0-leaf0.cfg"].decode(), files["configs/eos/st-g0-leaf0.cfg"]
    assert "qos" not in eos_frontend and "service-profile" not in eos_frontend
    assert b"priority-flow-control priority 3 no-drop" in eos_storage
    assert "\n    qos:" not in files["configs/nvue/fe-g0-leaf0.yaml"].decode()
    assert "\n    qos:" in files["configs/nvue/st-g0-leaf0.yaml"].decode()


def render_backend_sonic(result: Design) -> bytes:
    leaf = next(config for config in result.configs if config.role == "leaf")
    return render_configs([leaf], ["sonic"])[f"configs/sonic/{leaf.hostname}.json"]


@needs(VTYSH)
@pytest.mark.parametrize("underlay", ["numbered", "unnumbered"])
def test_frr_reads_every_frontend_and_storage_switch_configuration(underlay: str, tmp_path: Path) -> None:
    """FRR's own parser (vtysh -C, behind the validate-configs walls), as for the backend's files: with an unnumbered
    underlay the switches peer by interface and a leaf still peers with its servers by address."""
    result, files = built(extra=f"routing: {{underlay: {underlay}}}\n")
    if underlay == "unnumbered":
        text = files["configs/frr/fe-g0-leaf0.conf"].decode()
        assert re.search(r"^ neighbor swp\d+ interface peer-group SPINES$", text, re.MULTILINE)
        assert re.search(r"^ neighbor 10\.\d+\.\d+\.\d+ peer-group SERVERS$", text, re.MULTILINE)
    paths = []
    for name in network_switches(result):
        relative = f"configs/frr/{name}.conf"
        path = tmp_path / f"{name}.conf"
        path.write_bytes(files[relative])
        paths.append((path, relative))
    verdicts = check_frr(paths)
    assert [verdict.error for verdict in verdicts if not verdict.ok] == [] and len(verdicts) == len(paths)


@needs(PYAVD)
@pytest.mark.parametrize("extra", ["", "routing: {underlay: unnumbered, bfd: {enabled: true}}\n"])
def test_every_eos_file_is_what_aristas_templates_render_for_the_networks_design(
    extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, files = built(extra=extra)
    for config in result.network_configs:
        text = files[f"configs/eos/{config.hostname}.cfg"].decode()
        assert pyavd_eos.compare(config, text, EOS_LIMITS, result.management(config.hostname)) == [], config.hostname


@needs(NVUESCHEMA)
def test_every_nvue_file_passes_nvidias_openapi_schema() -> None:
    result, files = built()
    release = str(catalog().targets["nvue"].default_release)
    for name in network_switches(result):
        assert schema_problems(files[f"configs/nvue/{name}.yaml"].decode(), release) == [], name


@needs(LIBYANG)
def test_every_config_db_validates_against_sonic_yang() -> None:
    yang = sonic_yang()
    result, files = built()
    for name in network_switches(result):
        yang.check(json.loads(files[f"configs/sonic/{name}.json"]))


def test_growing_inside_the_envelope_loses_no_line_of_an_existing_network_switch() -> None:
    small, small_files = built(32)
    _, large_files = built(64)
    assert len(network_switches(small)) < len(network_switches(built(64)[0]))
    for name in network_switches(small):
        for path in (f"configs/frr/{name}.conf", f"configs/eos/{name}.cfg", f"configs/nvue/{name}.yaml"):
            before, after = small_files[path].decode().splitlines(), set(large_files[path].decode().splitlines())
            assert [line for line in before if line not in after] == [], path
        before, after = (json.loads(files[f"configs/sonic/{name}.json"]) for files in (small_files, large_files))
        for table in ("DEVICE_METADATA", "INTERFACE", "LOOPBACK_INTERFACE"):
            assert before[table].items() <= after[table].items(), (name, table)


def test_diff_names_a_network_switch_whose_configuration_loses_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The network switches are not in design.json; designer diff pairs their files by path, so a frontend whose ASNs
    move shows every leaf's file losing lines, while its storage switches, unchanged, are not named."""
    text = example_text(32, "", shipped=True)
    moved = text.replace("    dual_homing: bgp\n", "    dual_homing: bgp\n    leaf_asn_start: 4250000000\n")
    shipped, shipped_files = built(shipped=True)  # the design of ``text``
    write(shipped_files, tmp_path / "a")
    write(design_files(design(parse_intent(moved, str(EXAMPLE)), quiet)), tmp_path / "b")
    _, out = review(tmp_path, monkeypatch, "a", "b")
    lines = section(out, "configurations of existing switches losing or changing lines (maximum-paths aside)")
    frontend = [config.hostname for config in shipped.network_configs]
    count = sum(name.startswith("fe-") for name in frontend)
    assert lines[1].startswith(f"frr: {count} files, e.g. configs/frr/fe-"), out  # the frontend's switches alone


def test_build_check_names_a_hand_edited_network_switch_configuration(tmp_path: Path) -> None:
    """The manifest lists the network switches' files, so ``build --check`` compares them like the backend's."""
    target = tmp_path / "out"
    assert run_cli("build", str(EXAMPLE), "-o", str(target))[0] == 0
    manifest = json.loads((target / "manifest.json").read_text())["files"]
    assert "configs/frr/fe-g0-leaf0.conf" in manifest and "configs/sysctl/st-spine0.conf" in manifest
    assert run_cli("build", "--check", str(EXAMPLE), "-o", str(target))[0] == 0
    config = target / "configs" / "frr" / "fe-g0-leaf0.conf"
    config.write_text(config.read_text().replace("peer-group SERVERS", "peer-group SPINES", 1))
    code, _, err = run_cli("build", "--check", str(EXAMPLE), "-o", str(target))
    assert code == 1 and err.splitlines()[1:] == ["  changed: configs/frr/fe-g0-leaf0.conf"]

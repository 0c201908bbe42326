"""Rendered switch configurations, parsed back per OS and cross-checked against the design.

Each OS's text is read back by a small parser written here from the OS's syntax (not from the
templates), into one neutral view per device: interfaces by the design's port name, BGP sessions,
and the QoS facts that must match on both ends of a link.
"""

from __future__ import annotations

import ipaddress
import json
import re
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

import jinja2
import pytest
import yaml
from jinja2 import meta

from designer.backend.allocate import ip
from designer.backend.model import DeviceConfig
from designer.backend.port_names import os_port_names
from designer.backend.wiring import SERVER_LEAF
from designer.design import Design
from designer.pipeline import build
from designer.render import TARGETS, Renderer, render_configs
from designer.render import rendered as rendered_files
from designer.render.environment import CompiledCode
from designer.render.views import shared_blocks
from tests.conftest import ROOT
from tests.helpers import build_text, intent_text
from tests.prerequisites import VTYSH, needs

INTENTS = ROOT / "tests" / "intents"
OSES = ("frr", "eos", "nvue", "sonic")
POLICY_BLOCKS = ("eos/policy.j2", "frr/policy.j2", "nvue/policy.j2")


@dataclass
class View:
    """What one device's configuration says, in neutral terms."""

    hostname: str = ""
    asn: int = 0
    interfaces: dict[str, str] = field(default_factory=dict)
    sessions: set[tuple[str, int]] = field(default_factory=set)
    maximum_paths: int = 0
    networks: list[str] = field(default_factory=list)
    aggregates: list[str] = field(default_factory=list)
    dscp_to_tc: dict[int, int] = field(default_factory=dict)
    pfc: dict[str, tuple[int, ...]] = field(default_factory=dict)
    mtu: dict[str, int] = field(default_factory=dict)


def eos_name(port: str, device: DeviceConfig) -> str:
    """The EOS interface of a design port: ``Ethernet{N}`` or ``Ethernet{N}/{first lane from 1}``."""
    number, lane = re.fullmatch(r"swp(\d+)(?:s(\d+))?", port).groups()
    if lane is None:
        return f"Ethernet{number}"
    return f"Ethernet{number}/{int(lane) * (device.serdes_lanes // device.breakout) + 1}"


def parse_frr(text: str, device: DeviceConfig) -> View:
    view = View()
    interface = None
    for line in text.splitlines():
        if match := re.fullmatch(r"hostname (\S+)", line):
            view.hostname = match[1]
        elif match := re.fullmatch(r"interface (\S+)", line):
            interface = match[1]
        elif (match := re.fullmatch(r" ip address (\S+)", line)) and interface != "lo":
            view.interfaces[interface] = match[1]
        elif match := re.fullmatch(r"router bgp (\d+)", line):
            view.asn = int(match[1])
        elif match := re.fullmatch(r" neighbor (\S+) remote-as (\d+)", line):
            view.sessions.add((match[1], int(match[2])))
        elif match := re.fullmatch(r"  maximum-paths (\d+)", line):
            view.maximum_paths = int(match[1])
        elif match := re.fullmatch(r"  network (\S+)", line):
            view.networks.append(match[1])
        elif match := re.fullmatch(r"  aggregate-address (\S+) summary-only", line):
            view.aggregates.append(match[1])
    return view


def parse_eos(text: str, device: DeviceConfig) -> View:
    view = View()
    back = {eos_name(interface.name, device): interface.name for interface in device.interfaces}
    profiles: dict[str, tuple[int, ...]] = {}
    interface = profile = None
    for line in text.splitlines():
        if match := re.fullmatch(r"hostname (\S+)", line):
            view.hostname = match[1]
        elif match := re.fullmatch(r"qos map dscp ([\d ]+) to traffic-class (\d)", line):
            view.dscp_to_tc.update({int(dscp): int(match[2]) for dscp in match[1].split()})
        elif match := re.fullmatch(r"qos profile (\S+)", line):
            profile, interface = match[1], None
            profiles[profile] = ()
        elif profile and (match := re.fullmatch(r"   priority-flow-control priority (\d) no-drop", line)):
            profiles[profile] += (int(match[1]),)
        elif match := re.fullmatch(r"interface (Ethernet\S+)", line):
            interface, profile = back[match[1]], None
            view.pfc[interface] = ()
        elif interface and (match := re.fullmatch(r"   ip address (\S+)", line)):
            view.interfaces[interface] = match[1]
        elif interface and (match := re.fullmatch(r"   mtu (\d+)", line)):
            view.mtu[interface] = int(match[1])
        elif interface and (match := re.fullmatch(r"   service-profile (\S+)", line)):
            view.pfc[interface] = profiles[match[1]]
        elif match := re.fullmatch(r"router bgp (\d+)", line):
            view.asn, interface = int(match[1]), None
        elif match := re.fullmatch(r"   neighbor (\S+) remote-as (\d+)", line):
            view.sessions.add((match[1], int(match[2])))
        elif match := re.fullmatch(r"   maximum-paths (\d+) ecmp \d+", line):
            view.maximum_paths = int(match[1])
        elif match := re.fullmatch(r"      network (\S+)", line):
            view.networks.append(match[1])
        elif match := re.fullmatch(r"   aggregate-address (\S+) summary-only", line):
            view.aggregates.append(match[1])
    return view


def parse_nvue(text: str, device: DeviceConfig) -> View:
    (document,) = yaml.safe_load(text)
    config = document["set"]
    bgp = config["vrf"]["default"]["router"]["bgp"]
    qos = config["qos"]
    pfc = tuple(sorted(int(priority) for priority in qos["pfc"]["default-global"]["switch-priority"]))
    # the IPv4 container is "ip" up to Cumulus Linux 5.14, "ipv4" from 5.15; broken-out parents have none
    interfaces = {
        name: next(iter((body.get("ipv4") or body["ip"])["address"]))
        for name, body in config["interface"].items()
        if body["type"] == "swp" and "link" in body and "breakout" not in body["link"]
    }
    return View(
        hostname=config["system"]["hostname"],
        asn=config["router"]["bgp"]["autonomous-system"],
        interfaces=interfaces,
        sessions={(address, body["remote-as"]) for address, body in bgp["neighbor"].items()},
        maximum_paths=bgp["address-family"]["ipv4-unicast"]["multipaths"]["ebgp"],
        networks=list(bgp["address-family"]["ipv4-unicast"]["network"]),
        aggregates=[
            prefix
            for prefix, body in bgp["address-family"]["ipv4-unicast"].get("aggregate-route", {}).items()
            if body["summary-only"] in (True, "enabled")
        ],  # on (5.14 and earlier), enabled (5.15 on)
        dscp_to_tc={
            int(dscp): body["switch-priority"]  # NVUE's map keys are text ('26'), as nvued saves them
            for dscp, body in qos["mapping"]["default-global"]["dscp"].items()
        },
        pfc=dict.fromkeys(interfaces, pfc),
        mtu={name: config["interface"][name]["link"]["mtu"] for name in interfaces},
    )


def parse_sonic(text: str, device: DeviceConfig) -> View:
    """The cabled (admin up) ports by the designer's name, which opens their description. BGP sessions are in
    SONiC's FRR file (split-unified mode), not in config_db.json."""
    config = json.loads(text)
    alias = {
        name: port["description"].split(" to ")[0]
        for name, port in config["PORT"].items()
        if port["admin_status"] == "up"
    }
    interfaces = {alias[key.split("|")[0]]: key.split("|")[1] for key in config["INTERFACE"] if "|" in key}
    (dscp_map,) = config["DSCP_TO_TC_MAP"].values()
    return View(
        hostname=config["DEVICE_METADATA"]["localhost"]["hostname"],
        asn=int(config["DEVICE_METADATA"]["localhost"]["bgp_asn"]),
        interfaces=interfaces,
        sessions=set(),
        dscp_to_tc={int(dscp): int(tc) for dscp, tc in dscp_map.items()},
        pfc={
            alias[name]: tuple(int(p) for p in body["pfc_enable"].split(",") if p)
            for name, body in config["PORT_QOS_MAP"].items()
            if name in alias
        },
        mtu={alias[name]: int(port["mtu"]) for name, port in config["PORT"].items() if name in alias},
    )


PARSERS = {"frr": parse_frr, "eos": parse_eos, "nvue": parse_nvue, "sonic": parse_sonic}


@dataclass
class Rendered:
    design: Design
    texts: dict[str, dict[str, str]]
    views: dict[str, dict[str, View]]


@pytest.fixture(scope="module", params=["small-2tier", "small-3tier"])
def rendered(request: pytest.FixtureRequest) -> Rendered:
    design = build(INTENTS / f"{request.param}.yaml")
    files = render_configs(design.configs, OSES)
    texts = {
        os: {
            device.hostname: files[f"configs/{os}/{device.hostname}.{TARGETS[os].extension}"].decode()
            for device in design.configs
        }
        for os in OSES
    }
    views = {
        os: {device.hostname: PARSERS[os](texts[os][device.hostname], device) for device in design.configs}
        for os in OSES
    }
    return Rendered(design, texts, views)


@pytest.mark.parametrize("os", OSES)
def test_every_cabling_row_is_two_interfaces_with_the_two_ends_of_its_31(rendered: Rendered, os: str) -> None:
    design, views = rendered.design, rendered.views[os]
    devices = design.fabric.devices
    expected: dict[str, dict[str, str]] = {device.name: {} for device in design.fabric.switches()}
    for number, (tier, upper, upper_port, lower, lower_port) in enumerate(design.fabric.links):
        even, odd = design.allocation.link_addresses(number)
        expected[devices[upper].name][devices[upper].port_name(upper_port)] = f"{ip(even)}/31"
        if tier != SERVER_LEAF:
            expected[devices[lower].name][devices[lower].port_name(lower_port)] = f"{ip(odd)}/31"
    assert {host: view.interfaces for host, view in views.items()} == expected
    assert all(view.hostname == host for host, view in views.items())


@pytest.mark.parametrize("os", ["frr", "eos", "nvue"])  # SONiC's sessions are its FRR file's
def test_every_session_has_a_reciprocal_with_swapped_addresses_and_asns(rendered: Rendered, os: str) -> None:
    views = rendered.views[os]
    address_owner = {
        address.split("/")[0]: (host, view.asn) for host, view in views.items() for address in view.interfaces.values()
    }
    sessions = 0
    for host, view in views.items():
        local_addresses = {address.split("/")[0] for address in view.interfaces.values()}
        for peer_address, remote_asn in view.sessions:
            peer_host, peer_asn = address_owner[peer_address]
            assert remote_asn == peer_asn != view.asn, (host, peer_address)
            (local,) = [address for address in local_addresses if _same_31(address, peer_address)]
            assert (local, view.asn) in views[peer_host].sessions, (host, peer_address)
            sessions += 1
    links = rendered.design.fabric.links
    assert sessions == 2 * (len(links) - rendered.design.fabric.server_link_count)


def _same_31(first: str, second: str) -> bool:
    def number(address: str) -> int:
        return int.from_bytes(bytes(int(part) for part in address.split(".")))

    return number(first) >> 1 == number(second) >> 1 and first != second


@pytest.mark.parametrize("os", ["frr", "eos", "nvue"])
def test_bgp_ecmp_and_advertised_networks(rendered: Rendered, os: str) -> None:
    for device in rendered.design.configs:
        view = rendered.views[os][device.hostname]
        assert view.asn == device.asn
        assert view.maximum_paths == device.bgp.maximum_paths >= 1
        servers = sorted(
            address
            for port, address in view.interfaces.items()
            if any(i.name == port and i.role == "server" for i in device.interfaces)
        )
        assert sorted(view.networks) == sorted([device.loopback, *servers])
        assert view.aggregates == list(device.bgp.aggregates)
        assert len(view.aggregates) == (1 if device.role == "leaf" else 0)
        if device.role == "leaf":
            (block,) = view.aggregates
            assert all(
                ipaddress.ip_interface(server).network.subnet_of(ipaddress.ip_network(block)) for server in servers
            )


@pytest.mark.parametrize("os", ["eos", "nvue", "sonic"])
def test_lossless_priority_dscp_map_and_pfc_identical_on_both_ends(rendered: Rendered, os: str) -> None:
    design, views = rendered.design, rendered.views[os]
    qos = design.configs[0].qos
    devices = design.fabric.devices
    for tier, upper, upper_port, lower, lower_port in design.fabric.links:
        if tier == SERVER_LEAF:
            continue
        ends = [
            (views[devices[index].name], devices[index].port_name(port))
            for index, port in ((upper, upper_port), (lower, lower_port))
        ]
        facts = [(view.dscp_to_tc, view.pfc[port], view.mtu[port]) for view, port in ends]
        assert facts[0] == facts[1]
        dscp_to_tc, pfc, _ = facts[0]
        assert dscp_to_tc[qos.roce_dscp] == qos.lossless_priority == 3
        assert dscp_to_tc[qos.cnp_dscp] == qos.cnp_priority
        assert set(dscp_to_tc) == set(range(64))
        assert pfc == (3,)


EOS_DESCRIBED = re.compile(r"^interface (\S+)\n   description (\S+) (\S+)$", re.MULTILINE)
EOS_SESSION = re.compile(r"^   neighbor (\S+) description (\S+) (\S+)$", re.MULTILINE)


def test_eos_descriptions_name_the_peer_port_as_the_peer_names_it_on_eos(rendered: Rendered) -> None:
    """Issue #23: an EOS interface's and BGP session's description names the peer's port by its EOS name (the one
    the peer's own configuration and ``show lldp neighbors`` give it: ``Ethernet1/5``), a server's by ``nicN``,
    never by the design's ``swpN``."""
    design = rendered.design
    devices, texts = design.fabric.devices, rendered.texts["eos"]
    eos = os_port_names(design.intent, design.fabric)["eos"]
    interfaces: dict[str, dict[str, tuple[str, str]]] = {host: {} for host in texts}
    sessions: dict[str, dict[str, tuple[str, str]]] = {host: {} for host in texts}
    for number, (tier, upper, upper_port, lower, lower_port) in enumerate(design.fabric.links):
        up, down = devices[upper].name, devices[lower].name
        interfaces[up][eos[upper][upper_port]] = (down, eos[lower][lower_port])
        if tier != SERVER_LEAF:
            interfaces[down][eos[lower][lower_port]] = (up, eos[upper][upper_port])
            even, odd = design.allocation.link_addresses(number)
            sessions[up][ip(odd)] = (down, eos[lower][lower_port])
            sessions[down][ip(even)] = (up, eos[upper][upper_port])
    assert {
        host: {name: (peer, port) for name, peer, port in EOS_DESCRIBED.findall(text)} for host, text in texts.items()
    } == interfaces
    assert {
        host: {address: (peer, port) for address, peer, port in EOS_SESSION.findall(text)}
        for host, text in texts.items()
    } == sessions
    assert not any("swp" in text for text in texts.values())


def test_eos_and_nvue_carry_the_profile(rendered: Rendered) -> None:
    qos = rendered.design.configs[0].qos
    eos = rendered.texts["eos"][rendered.design.configs[0].hostname]
    kbytes = (qos.ecn_min_bytes // 1024, qos.ecn_max_bytes // 1024)
    assert (
        f"random-detect ecn minimum-threshold {kbytes[0]} kbytes maximum-threshold {kbytes[1]} kbytes "
        f"max-mark-probability {qos.ecn_probability}"
    ) in eos
    assert "mtu 9214" in eos and "priority-flow-control pause watchdog default timeout 0.2\n" in eos
    assert "priority-flow-control pause watchdog default polling-interval 0.1\n" in eos
    (document,) = yaml.safe_load(rendered.texts["nvue"][rendered.design.configs[0].hostname])
    nvue_qos = document["set"]["qos"]
    assert nvue_qos["roce"] == {"state": "enabled", "mode": "lossless"}
    assert nvue_qos["congestion-control"]["default-global"]["traffic-class"] == {
        "3": {
            "ecn": "enable",
            "red": "disable",
            "min-threshold": qos.ecn_min_bytes,
            "max-threshold": qos.ecn_max_bytes,
            "probability": qos.ecn_probability,
        }
    }
    queues = {
        int(priority): body["traffic-class"]
        for priority, body in nvue_qos["egress-queue-mapping"]["default-global"]["switch-priority"].items()
    }
    assert queues == {0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 0, 7: 0, qos.cnp_priority: qos.cnp_priority}
    interface = next(
        iter(
            body
            for name, body in document["set"]["interface"].items()
            if name != "lo" and "breakout" not in body["link"]
        )
    )
    assert interface["qos"] == {"pfc-watchdog": {"state": "enable"}}
    schedule = nvue_qos["egress-scheduler"]["default-global"]["traffic-class"]
    assert schedule == {
        "0": {"mode": "dwrr", "bw-percent": 50},
        "3": {"mode": "dwrr", "bw-percent": 50},
        str(qos.cnp_priority): {"mode": "strict"},
    }


def _vtysh_check(folder: Path, config: Path) -> subprocess.CompletedProcess[str]:
    (folder / "vtysh.conf").touch()
    return subprocess.run(
        ["vtysh", "--config_dir", str(folder), "-C", "-f", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@needs(VTYSH)
def test_every_frr_conf_passes_vtysh(rendered: Rendered, tmp_path: Path) -> None:
    for host, text in rendered.texts["frr"].items():
        config = tmp_path / f"{host}.conf"
        config.write_text(text)
        result = _vtysh_check(tmp_path, config)
        assert result.returncode == 0, (host, result.stdout, result.stderr)


@needs(VTYSH)
def test_a_broken_frr_conf_fails_vtysh_at_its_line(rendered: Rendered, tmp_path: Path) -> None:
    lines = next(iter(rendered.texts["frr"].values())).splitlines()
    at = next(number for number, line in enumerate(lines) if "remote-as" in line)
    lines[at] = lines[at].replace("remote-as", "remote-asn")
    config = tmp_path / "broken.conf"
    config.write_text("\n".join(lines) + "\n")
    result = _vtysh_check(tmp_path, config)
    assert result.returncode != 0
    assert f"line {at + 1}:" in result.stdout + result.stderr


def test_each_template_is_compiled_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once for the first build's first device (from an empty cache of compiled code), never again for the other
    devices, nor for a later build of the same process."""
    design = build(INTENTS / "small-2tier.yaml")
    code = CompiledCode()
    compiled: list[str | None] = []

    def renderer() -> Renderer:
        made = Renderer()
        original = made.environment.compile

        def counting(source: str, name: str | None = None, *args: object, **kwargs: object) -> object:
            compiled.append(name)
            return original(source, name, *args, **kwargs)

        monkeypatch.setattr(made.environment, "compile", counting)
        monkeypatch.setattr(made.environment, "bytecode_cache", code)
        return made

    first_build = renderer()
    first = [first_build.render("frr", device) for device in design.configs]
    assert sorted(compiled) == ["frr/bfd.j2", "frr/bgp.j2", "frr/frr.conf.j2", "frr/interfaces.j2", "frr/policy.j2"]
    assert [first_build.render("frr", device) for device in design.configs] == first
    assert [renderer().render("frr", device) for device in design.configs] == first
    assert len(compiled) == 5


@pytest.mark.parametrize("view", ["eos", "nvue", "linux"])
def test_a_shared_block_reads_only_the_variables_it_is_keyed_by(view: str) -> None:
    """A shared block's text is reused for every switch giving its variables the same values, so it must read
    nothing else (``device`` least of all); Jinja's own analysis of the template lists what it reads."""
    blocks = import_module(f"designer.render.{view}").SHARED_BLOCKS
    environment = Renderer().environment
    for name, variables in blocks.items():
        source = (ROOT / "templates" / name).read_text()
        assert meta.find_undeclared_variables(environment.parse(source)) == set(variables), name


@pytest.mark.parametrize("intent", ["small-3tier", "small-unnumbered", "gb300-nvl72-small"])
def test_shared_blocks_are_rendered_once_per_distinct_input_with_the_same_text(intent: str) -> None:
    """Every switch's files with the shared blocks reused are the bytes rendered without them; the QoS block is
    rendered once for the whole fabric (one profile) and each route policy once per distinct policy."""
    design = build(INTENTS / f"{intent}.yaml")
    shared = Renderer()
    plain = Renderer()
    plain.shared = {}
    assert dict(rendered_files(design.configs, OSES, shared)) == dict(rendered_files(design.configs, OSES, plain))
    assert shared.shared == shared_blocks() and set(shared_blocks()) >= {"eos/qos.j2", "nvue/qos.j2", "frr/policy.j2"}
    made = Counter(name for name, _ in shared.blocks)
    policies = {device.bgp.policy for device in design.configs}
    assert made == {"eos/qos.j2": 1, "nvue/qos.j2": 1, **dict.fromkeys(POLICY_BLOCKS, len(policies))}
    assert len(policies) < len(design.configs) and not plain.blocks


def test_ecn_and_watchdog_off_leave_them_out_everywhere() -> None:
    design = build_text(intent_text(servers=4, extra="qos: {ecn: false, pfc_watchdog: false}"))
    files = render_configs(design.configs[:1], OSES)
    hostname = design.configs[0].hostname
    eos = files[f"configs/eos/{hostname}.cfg"].decode()
    assert "random-detect" not in eos and "watchdog" not in eos and "priority-flow-control priority 3 no-drop" in eos
    (document,) = yaml.safe_load(files[f"configs/nvue/{hostname}.yaml"])
    qos = document["set"]["qos"]
    assert "congestion-control" not in qos and "pfc-watchdog" not in qos
    assert all("qos" not in body for body in document["set"]["interface"].values())
    assert qos["pfc"]["default-global"]["switch-priority"] == {"3": {}}


def test_a_second_build_reuses_the_compiled_templates_and_an_edited_one_is_compiled_again() -> None:
    """Jinja's bytecode cache protocol (jinja2.bccache): a template whose source is unchanged is not lexed, parsed
    or compiled again by a later environment of the process; a changed source is, and renders its new text."""
    compiled: list[str] = []

    class Counting(jinja2.Environment):
        def _parse(self, source: str, name: str | None, filename: str | None) -> jinja2.nodes.Template:
            compiled.append(name or "")
            return super()._parse(source, name, filename)

    code, sources = CompiledCode(), {"a.j2": "{{ x }} one"}

    def rendered() -> str:
        environment = Counting(loader=jinja2.DictLoader(sources), bytecode_cache=code)
        return environment.get_template("a.j2").render(x=1)

    assert (rendered(), rendered(), compiled) == ("1 one", "1 one", ["a.j2"])
    sources["a.j2"] = "{{ x }} two"
    assert (rendered(), compiled) == ("1 two", ["a.j2", "a.j2"])
    first, second = Renderer(), Renderer()  # two builds of the shipped templates: one compilation
    entry = first.compiled("frr/frr.conf.j2")
    assert "frr/frr.conf.j2" not in shared_blocks()  # its render function is Jinja's own, not a shared block's
    assert entry.root_render_func.__code__ is second.compiled("frr/frr.conf.j2").root_render_func.__code__

"""designer verify --traffic: host files read back strictly, the server sample, the flow model of the lab, and a
real 3-tier lab with server namespaces, RoCEv2 flows counted per link and the kernel's multipath hash."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from designer.analysis.flows import Router, UniformHash
from designer.errors import InputError, PrerequisiteError
from designer.intent import parse_intent
from designer.outputs.build import design_files
from designer.outputs.folder import write
from designer.pipeline import build, design
from designer.readback.built import parse_design
from designer.verify.hostconfig import parse_host, parse_keyfile, parse_netplan, parse_sysctl, sysctl_path
from designer.verify.lab import parse_class_packets
from designer.verify.probe import parse_route_get
from designer.verify.report import VerifyReport, text
from designer.verify.run import verify
from designer.verify.topology import topology
from designer.verify.traffic import (
    Measured,
    chi_square,
    compare,
    design_hashing,
    host_configs,
    model,
    nic_names,
    sample,
    seeds_supported,
    two_tier_polarization,
)
from tests.conftest import ROOT
from tests.prerequisites import FRR_LAB, HASH_SEED, needs
from tests.test_intent_errors import run_cli
from tests.test_verify import built_files, signed

INTENTS = ROOT / "tests" / "intents"
TWO_TIER, THREE_TIER = INTENTS / "verify-2tier.yaml", INTENTS / "verify-3tier.yaml"
NETPLAN = "servers/su0-srv0/netplan.yaml"
SYSCTL = "servers/su0-srv0/sysctl.conf"
KEYFILE = "servers/su0-srv0/nic1.nmconnection"


def keyfile_build(path: Path) -> dict[str, bytes]:
    """The files of the intent at ``path`` built with NetworkManager keyfiles instead of netplan."""
    return design_files(design(parse_intent(path.read_text() + "hosts: {format: nmconnection}\n", path.name)))


@pytest.fixture(scope="module")
def three_tier() -> dict[str, bytes]:
    return built_files(THREE_TIER)


@pytest.fixture(scope="module")
def three_tier_keyfiles() -> dict[str, bytes]:
    return keyfile_build(THREE_TIER)


def host(files: dict[str, bytes], netplan: bytes | None = None, sysctl: bytes | None = None):
    return parse_host({NETPLAN: netplan or files[NETPLAN], SYSCTL: sysctl or files[SYSCTL]}, ("nic0", "nic1"))


# ---- host files read back -------------------------------------------------------------------------------------


def test_the_built_host_files_read_back_as_the_design_addresses_them(three_tier: dict[str, bytes]) -> None:
    config = host(three_tier)
    design = json.loads(three_tier["design.json"])
    links = {link["z"][1]: link for link in design["links"] if link["z"][0] == "su0-srv0"}
    assert [nic.name for nic in config.nics] == ["nic0", "nic1"]
    for nic in config.nics:
        leaf_address, address = links[nic.name]["a"][2], links[nic.name]["z"][2]
        assert (nic.address, nic.prefix, nic.mtu) == (address, 31, 9216)
        assert [route.via for route in nic.routes] == [leaf_address]
        assert [(source, table) for source, table, _ in nic.rules] == [(address, nic.routes[0].table)]
    assert ("net.ipv4.conf.nic1.arp_ignore", 1) in config.sysctls
    assert ("net.ipv4.conf.nic0.rp_filter", 2) in config.sysctls


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        (b"nic1:", b"'eth0;reboot':", "'eth0;reboot' is not a NIC of this server; its NICs are nic0, nic1"),
        (b"nic1:", b"eth9:", "'eth9' is not a NIC of this server"),
        (b"[10.2.0.5/31]", b"['10.2.0.5/31 dev lo']", "is not an IPv4 address with a /31 or /30 prefix"),
        (b"[10.2.0.5/31]", b"[10.2.0.5/8]", "is not an IPv4 address with a /31 or /30 prefix"),
        (b"via: 10.2.0.4", b"via: 10.2.0.4 table 5", "is not {to: <network or default>, via: <IPv4"),
        (b"table: 101\n        ", b"table: 254\n        ", "table: <1-252 or 256-4294967295>"),
        (b"mtu: 9216\n      routes", b"mtu: 100000\n      routes", "100000 is not an MTU from 68 to 9216"),
        (b"priority: 101", b"priority: '101; ip link del'", "priority: <1-32765> (optional)"),
        (b"mtu: 9216\n      routes", b"mtu: 9216\n      macaddress: x\n      routes", "unknown key(s) 'macaddress'"),
        (b"version: 2", b"version: !!python/object:os.system 2", "tag"),
    ],
)
def test_hostile_netplan_values_are_refused_at_their_line(
    three_tier: dict[str, bytes], old: bytes, new: bytes, says: str
) -> None:
    netplan = three_tier[NETPLAN]
    assert old in netplan
    with pytest.raises(InputError) as caught:
        host(three_tier, netplan=netplan.replace(old, new, 1))
    message = str(caught.value)
    assert says in message and message.startswith(f"{NETPLAN}:"), message
    assert "nothing was written" in message


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (b"kernel.core_pattern = |/bin/sh", "verify applies only"),
        (b"net.ipv4.conf.nic0.arp_ignore = 1; reboot", "verify applies only"),
        (b"net.ipv4.conf.nic0.arp_ignore = 9", "'9' is not an integer from 0 to 8"),
        (b"net.ipv4.conf.nic0.arp_announce = 3", "3' is not an integer from 0 to 2"),
        (b"net.ipv4.conf.eth9.arp_ignore = 1", "verify applies only"),
        (b"net.ipv4.conf.nic0/../../../../kernel.arp_ignore = 1", "verify applies only"),
        (b"net.ipv4.conf.nic0.arp_ignore", "verify applies only"),
    ],
)
def test_hostile_sysctl_lines_are_refused_at_their_line(three_tier: dict[str, bytes], line: bytes, says: str) -> None:
    with pytest.raises(InputError) as caught:
        host(three_tier, sysctl=three_tier[SYSCTL] + line + b"\n")
    message = str(caught.value)
    lines = three_tier[SYSCTL].count(b"\n") + 1
    assert says in message and message.startswith(f"{SYSCTL}:{lines}:"), message


def test_a_netplan_that_is_not_netplan_v2_and_comments_in_sysctl() -> None:
    _, _, problems = parse_netplan("n.yaml", b"network:\n  version: 1\n", ("nic0",))
    assert [problem.message for problem in problems] == [
        "a netplan file is {network: {version: 2, ethernets: {<nic>: ...}}}"
    ]
    settings, problems = parse_sysctl(b"# comment\n; other\n\n-net.ipv4.conf.all.rp_filter=0\n", ("nic0",))
    assert settings == (("net.ipv4.conf.all.rp_filter", 0),) and not problems


def test_keyfiles_and_netplan_of_one_design_give_identical_host_configs(
    three_tier: dict[str, bytes], three_tier_keyfiles: dict[str, bytes]
) -> None:
    design_data = parse_design("design.json", three_tier["design.json"])
    servers = [device["name"] for device in design_data["devices"] if device["role"] == "server"]
    assert not any(path.endswith("netplan.yaml") for path in three_tier_keyfiles)
    for server in servers:
        names = ("nic0", "nic1")
        from_netplan = parse_host(
            {
                f"servers/{server}/{name}": three_tier[f"servers/{server}/{name}"]
                for name in ("netplan.yaml", "sysctl.conf")
            },
            names,
        )
        keyfiles = [f"servers/{server}/{name}.nmconnection" for name in names] + [f"servers/{server}/sysctl.conf"]
        from_keyfiles = parse_host({path: three_tier_keyfiles[path] for path in keyfiles}, names)
        assert from_keyfiles == from_netplan
        assert [len(nic.routes) for nic in from_keyfiles.nics] == [1, 1] and from_keyfiles.nics[1].rules
    # the sampled servers' configs come from the keyfiles when a build has no netplan files
    nics = sample(design_data, topology(three_tier_keyfiles))
    assert host_configs(three_tier_keyfiles, nics) == host_configs(three_tier, nics)
    with pytest.raises(PrerequisiteError, match=re.escape("holds both netplan.yaml and NetworkManager keyfiles")):
        host_configs({**three_tier, KEYFILE: three_tier_keyfiles[KEYFILE]}, nics)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        (b"interface-name=nic1", b"interface-name=nic0", "connection.interface-name: 'nic0' is not 'nic1'"),
        (b"type=ethernet", b"type=vpn", "connection.type: 'vpn' is not 'ethernet'"),
        (b"uuid=", b"uuid=x;reboot", "connection.uuid: 'x;reboot"),
        (b"autoconnect=true", b"autoconnect=yes please", "connection.autoconnect: 'yes please' is not true or false"),
        (b"address1=10.2.0.5/31", b"address1=10.2.0.5/31 dev lo", "ipv4.address1: '10.2.0.5/31 dev lo' is not an IPv4"),
        (b"address1=10.2.0.5/31", b"address1=10.2.0.5/8", "is not an IPv4 address with a /31 or /30 prefix"),
        (b"route1=10.2.0.0/15,10.2.0.4", b"route1=10.2.0.0/15,10.2.0.4 table 5", "ipv4.route1: '10.2.0.0/15,10.2.0."),
        (
            b"route1_options=table=101",
            b"route1_options=table=254",
            "ipv4.route1_options: 'table=254' is not table=<1-252",
        ),
        (
            b"route1_options=table=101",
            b"route1_options=table=101,src=10.0.0.1",
            "is not table=<1-252 or 256-4294967295>",
        ),
        (b"routing-rule1=priority 101", b"routing-rule1=priority 101 from 0.0.0.0/0 table 101\n#", "is not priority"),
        (b"table 101\n", b"table 101; ip link del\n", "ipv4.routing-rule1: 'priority 101 from 10.2.0.5 table 101; ip"),
        (b"method=manual", b"method=auto", "ipv4.method: 'auto' is not 'manual'"),
        (b"method=disabled", b"method=auto", "ipv6.method: the backend NIC has no IPv6 routes"),
        (b"mtu=9216", b"mtu=100000", "ethernet.mtu: '100000' is not an MTU from 68 to 9216"),
        (
            b"mtu=9216",
            b"mtu=9216\ncloned-mac-address=x",
            "ethernet.cloned-mac-address: unknown key; [ethernet] may have",
        ),
        (b"never-default=true", b"never-default=true\nroute1=10.0.0.0/8,10.2.0.4", "ipv4.route1: written twice"),
        (b"never-default=true", b"never-default=true\naddress2=10.9.0.1/31", "ipv4.address2: unknown key"),
        (b"id=backend-nic1", b"id=backend\\nnic1", "not a key=value line of a known section"),
        (b"[ipv6]", b"[vpn]", "'[vpn]': section; a NIC's keyfile has [connection], [ethernet], [ipv4], [ipv6] once"),
        (b"[ipv6]", b"[ipv4]", "'[ipv4]': a second section"),
    ],
)
def test_hostile_keyfile_values_are_refused_at_their_line(
    three_tier_keyfiles: dict[str, bytes], old: bytes, new: bytes, says: str
) -> None:
    keyfile = three_tier_keyfiles[KEYFILE]
    assert old in keyfile, keyfile
    changed = keyfile.replace(old, new, 1)
    line = changed[: keyfile.index(old) + len(new.rstrip(b"\n#"))].count(b"\n") + 1
    files = {
        "servers/su0-srv0/nic0.nmconnection": three_tier_keyfiles["servers/su0-srv0/nic0.nmconnection"],
        KEYFILE: changed,
        SYSCTL: three_tier_keyfiles[SYSCTL],
    }
    with pytest.raises(InputError) as caught:
        parse_host(files, ("nic0", "nic1"))
    rows = str(caught.value).splitlines()
    assert any(row.startswith(f"{KEYFILE}:{line}: ") and says in row for row in rows), rows
    assert rows[-1].endswith(f"in {KEYFILE}; nothing was written.")


def test_a_keyfile_must_be_named_for_a_nic_of_its_server(three_tier_keyfiles: dict[str, bytes]) -> None:
    nic, _, problems = parse_keyfile(
        "servers/su0-srv0/eth9.nmconnection", three_tier_keyfiles[KEYFILE], ("nic0", "nic1")
    )
    assert nic is None and [problem.message for problem in problems] == [
        "'eth9' is not a NIC of this server; its NICs are nic0, nic1"
    ]


def test_missing_host_files_are_a_prerequisite_and_nic_names_are_checked(three_tier: dict[str, bytes]) -> None:
    design = parse_design("design.json", three_tier["design.json"])
    nics = sample(design, topology(three_tier))
    files = {path: data for path, data in three_tier.items() if not path.startswith("servers/su0-srv0/")}
    with pytest.raises(PrerequisiteError, match=re.escape("servers/su0-srv0/netplan.yaml is missing")):
        host_configs(files, nics)
    with pytest.raises(InputError, match="'x y' is not a Linux interface name the server files can carry"):
        nic_names({"name": "su0-srv0", "nics": ["nic0", "x y"]}, 2)
    with pytest.raises(InputError, match=re.escape("['nic0', 'nic0'] is not a list of 2 different NIC names")):
        nic_names({"name": "su0-srv0", "nics": ["nic0", "nic0"]}, 2)
    assert nic_names({"name": "su0-srv0"}, 2) == ("nic0", "nic1")


def test_dotted_nic_names_are_read_back_as_build_writes_them() -> None:
    """A NIC name with a dot (a VLAN's, ``enp1s0.100``) is one the intent takes: design.json's ``nics`` give it, its
    netplan entry and keyfile name it, and the sysctl file writes it in the slash form that keeps the dot inside the
    name (sysctl.d(5): when the first separator is '/', dots are left as they are; procps sysctl swaps them only
    when the first separator is a dot), so its path below /proc/sys is ``net/ipv4/conf/enp1s0.100/...``."""
    names = ("enp1s0.100", "a..b")
    assert nic_names({"name": "su0-srv0", "nics": list(names)}, 2) == names
    with pytest.raises(InputError, match="'all' is not a NIC's name"):
        nic_names({"name": "su0-srv0", "nics": ["all", "a"]}, 2)
    sysctl = (
        b"net/ipv4/conf/enp1s0.100/rp_filter = 2\nnet/ipv4/conf/a..b/arp_ignore = 1\n"
        b"net.ipv4.conf.enp1s0/100.arp_announce = 2\nnet.ipv4.conf.all.rp_filter = 2\n"
    )
    settings, problems = parse_sysctl(sysctl, names)
    assert problems == [] and [sysctl_path(key) for key, _ in settings] == [
        ("net", "ipv4", "conf", "enp1s0.100", "rp_filter"),
        ("net", "ipv4", "conf", "a..b", "arp_ignore"),
        ("net", "ipv4", "conf", "enp1s0.100", "arp_announce"),
        ("net", "ipv4", "conf", "all", "rp_filter"),
    ]
    # a dotted key without the slash form names another folder (enp1s0/100): not a NIC of this server
    _, problems = parse_sysctl(b"net.ipv4.conf.enp1s0.100.rp_filter = 2\n", names)
    assert [problem.message.split(":")[0] for problem in problems] == ["'net.ipv4.conf.enp1s0.100.rp_filter = 2'"]
    netplan = (
        b"network:\n  version: 2\n  ethernets:\n    enp1s0.100:\n      addresses: [10.2.0.1/31]\n      mtu: 9216\n"
    )
    nics, _, problems = parse_netplan("n.yaml", netplan, names)
    assert problems == [] and [(nic.name, nic.address) for nic in nics] == [("enp1s0.100", "10.2.0.1")]
    # a build's own keyfiles (enp1s0.100.nmconnection) and sysctl files read back for every sampled server
    text = TWO_TIER.read_text() + f"hosts: {{format: nmconnection, nics: [{', '.join(names)}]}}\n"
    files = design_files(design(parse_intent(text, "dotted.yaml")))
    data = parse_design("design.json", files["design.json"])
    configs = host_configs(files, sample(data, topology(files)))
    assert {tuple(nic.name for nic in config.nics) for config in configs.values()} == {names}
    assert {key for config in configs.values() for key, _ in config.sysctls} >= {"net/ipv4/conf/enp1s0.100/rp_filter"}


def test_tool_answers_are_parsed() -> None:
    assert parse_class_packets("class htb 1:1 root prio 0\n Sent 215 bytes 5 pkt (dropped 0, overlimits 0)") == 5
    with pytest.raises(RuntimeError):
        parse_class_packets("Cannot find device")
    assert parse_route_get('[{"dst":"10.2.0.9","gateway":"10.2.0.0","dev":"nic0","table":"100"}]') == (
        "10.2.0.0",
        "nic0",
    )
    assert parse_route_get("") == ("", "")


# ---- the sample and the model ---------------------------------------------------------------------------------


def test_the_sample_covers_every_rail_of_two_units_or_two_pods(three_tier: dict[str, bytes]) -> None:
    two = built_files()
    for files, units in ((two, {(0, 0), (0, 1)}), (three_tier, {(0, 0), (1, 1)})):
        design = parse_design("design.json", files["design.json"])
        lab = topology(files)
        nics = sample(design, lab)
        servers = {device["name"]: device for device in design["devices"] if device["role"] == "server"}
        assert {(servers[nic.server]["pod"], servers[nic.server]["su"]) for nic in nics} == units
        assert {nic.port for nic in nics} == {"nic0", "nic1"}
        for rail in ("nic0", "nic1"):
            assert len({lab.routers[nic.leaf].su for nic in nics if nic.port == rail}) == 2
    nics = sample(parse_design("design.json", two["design.json"]), topology(two))
    assert sorted({nic.server for nic in nics}) == ["su0-srv0", "su0-srv3", "su1-srv0", "su1-srv3"]


def test_the_model_routes_every_sampled_flow_across_the_units(three_tier: dict[str, bytes]) -> None:
    design = parse_design("design.json", three_tier["design.json"])
    nics = sample(design, topology(three_tier))
    flows = model(design, nics).flows
    # 2 servers in each pod, both ways, 2 rails, 16 QPs per connection: 2 x 2 x 2 x 2 x 16
    assert len(flows.src) == 256
    assert all(a != b for a, b in zip(flows.src_leaf, flows.dst_leaf, strict=True))
    assert len({five[3] for five in flows.five_tuples(0)}) > 200  # source ports from QP numbers
    assert {five[4] for five in flows.five_tuples(0)} == {4791}


def test_chi_square_is_zero_when_even_and_the_flows_when_all_on_one_of_two() -> None:
    groups = [((0, 1), 0)]
    assert chi_square({0: 5, 2: 5}, groups) == 0
    assert chi_square({0: 10}, groups) == 10
    assert chi_square({}, groups) == 0


def test_design_hashing_is_the_routers_own_sysctl_files(three_tier: dict[str, bytes]) -> None:
    assert design_hashing(topology(three_tier)) == 1
    lab = topology({path: data for path, data in three_tier.items() if path != "configs/sysctl/p0-g0-ss1.conf"})
    assert lab.sysctls[[router.name for router in lab.routers].index("p0-g0-ss1")] is None
    assert design_hashing(lab) == (
        "traffic with the design's hashing: no configs/sysctl/p0-g0-ss1.conf (1 router(s) "
        "without one); build with frr among the targets"
    )
    layer3 = three_tier["configs/sysctl/p0-g0-ss1.conf"].replace(b"policy = 1", b"policy = 0")
    assert design_hashing(topology({**three_tier, "configs/sysctl/p0-g0-ss1.conf": layer3})).startswith(
        "traffic with the design's hashing: the routers' sysctl files set different hash policies (0, 1)"
    )


def test_a_two_tier_report_says_what_polarization_is_and_is_not_covered() -> None:
    files = built_files()
    lab = topology(files)
    data = parse_design("design.json", files["design.json"])
    sampled = model(data, sample(data, lab))
    flows = sampled.flows
    # the measurement stands in for a lab: one of the model's own runs, so nothing here needs root
    measured = Measured(Router(sampled.top).route(flows.src_leaf, flows.dst_leaf, UniformHash(7)).loads)
    problems, spreads = compare(sampled.top, flows, measured)
    assert problems == [] and [spread.name for spread in spreads] == ["leaf uplinks", "spine parallel downlinks"]
    downlinks = spreads[1]
    report = VerifyReport("verify-2tier", "whole fabric", 6, 16, 136, 4)
    report.not_covered += two_tier_polarization(lab, "equal seeds", spreads)
    assert two_tier_polarization(lab, "seed per tier", spreads) == []
    said = " ".join(text(report).split())
    assert (
        "polarization, 2 tiers, equal seeds: not asserted. The only second hash decision is a spine's among its "
        "2 parallel links to the destination leaf;"
    ) in said
    assert (
        f"Measured: spine parallel downlinks X² {downlinks.measured:.1f} against the model's 99.9% quantile "
        f"{downlinks.limit():.1f} (as even as independent hashing)."
    ) in said
    assert "With a seed per tier the same class is held to the model ('matches the model')" in said
    single = dataclasses.replace(lab, sizing={**lab.sizing, "leaf_spine_parallel_links": 1})
    assert two_tier_polarization(single, "seed per tier", spreads) == []
    [line] = two_tier_polarization(single, "equal seeds", spreads)
    assert line.startswith("polarization, 2 tiers: does not arise here: with one link from each spine to each leaf")


# ---- a real lab -----------------------------------------------------------------------------------------------


@needs(FRR_LAB, HASH_SEED)
def test_three_tier_traffic_proves_hosts_conservation_the_model_and_polarization(three_tier: dict[str, bytes]) -> None:
    report = verify(three_tier, failures=False, traffic=True, progress=lambda _: None)
    assert report.passed, text(report)
    checks = {(check.phase, check.name): check.summary for check in report.checks}
    assert checks["healthy", "server NICs reach their rail"].startswith("24 of 24 NIC pairs of 2 rails")
    assert checks["healthy", "ARP only for a NIC's own address"].startswith("8 ARP requests for another NIC")
    experiments = {experiment.name: experiment for experiment in report.traffic}
    assert list(experiments) == ["design hashing", "equal seeds", "seed per tier"]
    for experiment in experiments.values():
        links = experiment.links
        # every one of the 256 flows crosses one leaf uplink and one leaf downlink (all are cross-pod)
        up = sum(count for link, count in links.items() if "leaf" in link and link.endswith(" up"))
        assert experiment.flows == 256 and up == 256
        assert all(count < 256 for count in links.values())
    polarized = experiments["equal seeds"]
    assert polarized.chi_square["spine uplinks"] > polarized.model_limit["spine uplinks"]
    for name in ("design hashing", "seed per tier"):
        assert experiments[name].chi_square["spine uplinks"] <= experiments[name].model_limit["spine uplinks"]
        assert experiments[name].chi_square["leaf uplinks"] <= experiments[name].model_limit["leaf uplinks"]
    assert checks["healthy", "kernel settings loaded"].startswith("12 of 12 routers run their configs/sysctl file")
    assert "one path with policy 0" in checks["traffic: layer-3 only", "one path per NIC pair"]
    assert "traffic, equal seeds (fib_multipath_hash_policy=1): 256 flows" in text(report)


@needs(FRR_LAB)
def test_a_tampered_host_file_stops_traffic_before_the_lab_starts(three_tier: dict[str, bytes], tmp_path: Path) -> None:
    files = dict(three_tier)
    files[SYSCTL] += b"kernel.modprobe = /tmp/x\n"
    write(files, tmp_path / "out")
    code, out, err = run_cli("verify", str(signed(tmp_path / "out")), "--traffic")
    assert code == 2 and not out
    assert f"{SYSCTL}:" in err and "kernel.modprobe = /tmp/x': verify applies only" in err
    assert "creating" not in err


def test_an_edited_host_file_is_refused_naming_it(three_tier: dict[str, bytes], tmp_path: Path) -> None:
    """A sampled server's host files, like every file verify reads, must have the sha256 its manifest.json records."""
    files = dict(three_tier)
    files[SYSCTL] += b"# a comment\n"
    write(files, tmp_path / "out")
    code, out, err = run_cli("verify", str(tmp_path / "out"), "--traffic")
    assert (code, out) == (2, "")
    assert "manifest.json:" in err and f"files.{SYSCTL}: the file's sha256 differs" in err, err


@needs(FRR_LAB)
def test_a_keyfile_build_configures_its_servers_in_a_two_tier_lab(tmp_path: Path) -> None:
    write(keyfile_build(TWO_TIER), tmp_path / "out")
    assert not list((tmp_path / "out" / "servers").glob("*/netplan.yaml"))
    code, out, err = run_cli("verify", str(tmp_path / "out"), "--traffic", "--no-failures", "--format", "json")
    report = json.loads(out)
    assert code == 0, out + err
    checks = {(check["phase"], check["name"]): check["summary"] for check in report["checks"]}
    assert checks["healthy", "server host files applied"] == "8 NICs of 4 servers"
    assert checks["healthy", "server NICs reach their rail"].startswith("24 of 24 NIC pairs of 2 rails")
    assert checks["healthy", "server first hop"].startswith("24 of 24 NIC pairs routed out of the source NIC")
    assert checks["healthy", "ARP only for a NIC's own address"].startswith("8 ARP requests for another NIC")
    if seeds_supported():
        assert [experiment["name"] for experiment in report["traffic"]][:1] == ["design hashing"]
        assert [item[:52] for item in report["not_covered"] if "polarization" in item] == [
            "polarization, 2 tiers, equal seeds: not asserted. Th"
        ]


EDGE_NICS = ("e0123456789abcd", "enp220s0f1np1.9", "x-y_z..1.", "help")
"""NIC names at the edges of :mod:`designer.intent.nic_names`: 15 characters (IFNAMSIZ less its NUL), a VLAN-style dot,
'-', '_', two dots and a trailing dot, and ``help``, a word ``ip`` reads as its keyword wherever no ``dev`` precedes
it."""


@needs(FRR_LAB)
def test_nic_names_at_the_edges_of_the_rule_run_in_a_real_lab(tmp_path: Path) -> None:
    """What build accepts, verify --traffic runs: the server namespaces of a real lab get veths named
    :data:`EDGE_NICS` (Linux takes each: net/core/dev.c ``dev_valid_name``; the lab's ``ip`` and ``tc`` lines put
    ``dev`` or ``name`` before every NIC name, so ``help`` is a name there), configured from their netplan file and
    their sysctl file (the dotted names in sysctl.d(5)'s slash form, written under the namespace's own
    /proc/sys/net/ipv4/conf/<name>/), and every NIC reaches its rail from its own address."""
    text = TWO_TIER.read_text().replace("nics_per_server: 2", "nics_per_server: 4")
    files = design_files(design(parse_intent(f"{text}hosts: {{nics: [{', '.join(EDGE_NICS)}]}}\n", "edge.yaml")))
    assert b"net/ipv4/conf/enp220s0f1np1.9/arp_ignore = 1\n" in files[SYSCTL]
    write(files, tmp_path / "out")
    code, out, err = run_cli("verify", str(tmp_path / "out"), "--traffic", "--no-failures", "--format", "json")
    assert code == 0, out + err
    report = json.loads(out)
    checks = {(check["phase"], check["name"]): check["summary"] for check in report["checks"]}
    assert checks["healthy", "server host files applied"] == "16 NICs of 4 servers"
    assert checks["healthy", "server NICs reach their rail"].startswith("48 of 48 NIC pairs of 4 rails")
    assert checks["healthy", "server first hop"].startswith("48 of 48 NIC pairs routed out of the source NIC")
    assert checks["healthy", "ARP only for a NIC's own address"].startswith("48 ARP requests for another NIC")
    assert re.search(
        r"flows su0-srv0 (e0123456789abcd|enp220s0f1np1\.9|x-y_z\.\.1\.|help) -> ",
        checks["traffic: layer-3 only", "one path per NIC pair"],
    )


MULTIPLANE_SITE = (
    "systems:\n  mini-nvl:\n    {trays: 4, tray_gpus: 4, tray_nics: 1, nic: nvidia-cx8, nic_speed: 800, planes: 1,"
    " north_south_nics: 1, north_south_nic: nvidia-bluefield3, tray_rack_units: 1, nvlink_switch_trays: 0,"
    " power_shelves: 0, management_switches: 1, power_kw: 20, power_source: lab, cooling: liquid,"
    " nvlink_gbyte_s: 900, multiplane: [2]}\n"
)
"""A site's rack-scale system small enough for a lab: 4 trays of one ConnectX-8 port in 2 planes of 400G."""


def multiplane_build(folder: Path, mode: str) -> dict[str, bytes]:
    """Two such racks in ``mode`` (hwplb, swplb): per plane 2 leaves, one per scalable unit, and a spine (6 FRR
    routers), written to ``folder``/out; their files."""
    folder.mkdir(exist_ok=True)
    (folder / "site.yaml").write_text(MULTIPLANE_SITE)
    (folder / "intent.yaml").write_text(
        f"name: verify-{mode}\ncatalog: site.yaml\n"
        f"compute: {{system: mini-nvl, systems: 2, multiplane: {{planes: 2, mode: {mode}}}}}\n"
        "fabric: {tiers: 2, leaf: {ports: 8, speed: 400G}, spine: {ports: 8, speed: 400G}}\ntargets: [frr]\n"
    )
    files = design_files(build(folder / "intent.yaml"))
    write(files, folder / "out")
    return files


@pytest.fixture(scope="module")
def multiplane(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], tuple[Path, dict[str, bytes]]]:
    """The multiplane build of a mode, made once for the module: its folder (with ``out`` written) and its files."""
    made: dict[str, tuple[Path, dict[str, bytes]]] = {}

    def of(mode: str) -> tuple[Path, dict[str, bytes]]:
        if mode not in made:
            folder = tmp_path_factory.mktemp(f"multiplane-{mode}")
            made[mode] = folder, multiplane_build(folder, mode)
        return made[mode]

    return of


@pytest.mark.parametrize("mode", ["hwplb", "swplb"])
def test_the_sample_takes_each_plane_link_of_a_multiplane_nic_as_a_port(
    multiplane: Callable[[str], tuple[Path, dict[str, bytes]]], mode: str
) -> None:
    """A tray's NIC port has a link per plane (``nic0s0``, ``nic0s1``): each is a sampled NIC of its own, numbered as
    the fabric numbers its ports (plane x rails + rail). With swplb each plane link is an interface with its own /31;
    with hwplb the rail's one interface (design.json gives one name per rail) holds the same /31 on each plane link,
    and each plane link is a veth named after it."""
    _, files = multiplane(mode)
    design = parse_design("design.json", files["design.json"])
    nics = [nic for nic in sample(design, topology(files)) if nic.server == "sys0-tray0"]
    assert [(nic.port, nic.number) for nic in nics] == [("nic0s0", 0), ("nic0s1", 1)]
    if mode == "hwplb":
        assert [(nic.name, nic.link) for nic in nics] == [("nic0", "nic0s0"), ("nic0", "nic0s1")]
        assert nics[0].address == nics[1].address
    else:
        assert [nic.name for nic in nics] == [nic.link for nic in nics] and len({nic.name for nic in nics}) == 2
        assert nics[0].address != nics[1].address
    assert len({nic.leaf for nic in nics}) == 2  # each plane link goes to its own plane's leaf


@needs(FRR_LAB)
@pytest.mark.parametrize("mode", ["hwplb", "swplb"])
def test_multiplane_trays_run_each_plane_link_as_a_port_in_a_real_lab(
    multiplane: Callable[[str], tuple[Path, dict[str, bytes]]], mode: str
) -> None:
    """verify --traffic on a multiplane design: every plane link of a sampled tray is a veth cabled to its plane's
    leaf and configured from the tray's host files (hwplb: the rail's address on both, its routes over both, a socket
    bound to a plane link taking that plane), lldpd reports each plane link as a cable of its own, and the flows of
    each plane cross that plane's switches only."""
    folder, _ = multiplane(mode)
    code, out, err = run_cli("verify", str(folder / "out"), "--traffic", "--no-failures", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["passed"], out + err
    checks = {(check["phase"], check["name"]): check["summary"] for check in report["checks"]}
    # 16 leaf-spine cables and 2 trays x 2 units x 2 plane links
    assert (
        checks["healthy", "cabling as designed (LLDP)"]
        == "24 of 24 cables reported by lldpd in 10 namespaces as designed"
    )
    assert checks["healthy", "server host files applied"] == "8 NICs of 4 servers"
    assert checks["healthy", "server first hop"].startswith("24 of 24 NIC pairs routed out of the source NIC")
    design_hashing = report["traffic"][0]
    assert checks["traffic: design hashing", "every flow delivered"].startswith(f"{design_hashing['flows']} flows")
    for plane in (0, 1):  # half the flows in each plane, on that plane's spine alone
        carried = sum(count for link, count in design_hashing["links"].items() if link.startswith(f"p{plane}-"))
        assert carried == design_hashing["flows"]  # each flow: up one leaf-spine link and down another

"""designer verify with the frontend: design.json's tables of the networks read back and held to their rules, the
lab's frontend (its switches running the configs/frr files the build wrote, its servers their
servers/<server>/frr.conf), the routes expected with a frontend leaf down, and a real FRR lab in which every server
stays reachable from the border leaf while one leaf of its pair is down."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from designer.errors import InputError, PrerequisiteError
from designer.outputs.build import design_files
from designer.pipeline import build
from designer.verify.parsers import check_frr
from designer.verify.report import text
from designer.verify.run import failure_targets, read_output, verify
from designer.verify.topology import Topology, expected_routes, topology
from tests.conftest import ROOT
from tests.prerequisites import FRR_LAB, VTYSH, needs
from tests.test_intent_errors import run_cli
from tests.test_verify import built_files

FRONTEND = ROOT / "tests" / "intents" / "verify-frontend.yaml"


@cache
def files() -> dict[str, bytes]:
    return design_files(build(FRONTEND))


@cache
def lab() -> Topology:
    return topology(files())


def design() -> dict:
    return json.loads(files()["design.json"])


def named(name: str) -> int:
    return next(number for number, router in enumerate(lab().routers) if router.name == name)


def test_design_json_lists_the_frontend_devices_links_core_uplinks_and_pools() -> None:
    data = design()
    rows = {row["name"]: row for row in data["network_devices"] if row["network"] == "frontend"}
    roles = sorted(row["role"] for row in rows.values())
    assert roles == ["border_leaf"] + ["leaf"] * 4 + ["server"] * 8 + ["spine"] * 2
    summary = data["networks"]["frontend"]
    assert (summary["leaves"], summary["border_leaves"], summary["spines"], summary["dual_homing"]) == (4, 1, 2, "bgp")
    links = [row for row in data["network_links"] if row["network"] == "frontend"]
    assert sum(row["tier"] == "server_leaf" for row in links) == 16  # two leaves per server
    assert sum(row["tier"] == "leaf_spine" for row in links) == 5 * 2  # every leaf to both spines
    (core,) = [row for row in links if row["tier"] == "core_uplink"]
    assert core["a"][0] == "fe-border0" and core["z"] == ["core", "uplink0", None] and core["medium"] != "none"
    # A server's frr.conf (the build's) peers with exactly the leaves design.json cables it to, at their ASNs.
    server = rows["su0-srv0"]
    config = files()["servers/su0-srv0/frr.conf"].decode()
    assert f"router bgp {server['asn']}" in config and f"ip address {server['loopback']}/32" in config
    for link in links:
        if link["z"][0] == "su0-srv0":
            leaf = rows[link["a"][0]]
            assert f"neighbor {link['a'][2]} remote-as {leaf['asn']}" in config


def test_a_backend_only_design_json_has_no_networks_tables() -> None:
    data = json.loads(built_files(ROOT / "tests" / "intents" / "verify-2tier.yaml")["design.json"])
    assert not {"networks", "network_devices", "network_links"} & set(data)


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        ('"name": "fe-g0-leaf0"', '"name": "fe-g0-leaf0;reboot"', "network_devices"),
        ('"fe0", "10.', '"fe0;x", "10.', "is not a port name (feN)"),
        ('"network": "frontend", "name": "su0-srv0"', '"network": "frontend", "name": "su0-srv0 x"', "name"),
    ],
)
def test_a_tampered_frontend_row_is_refused_before_the_lab_starts(old: str, new: str, says: str) -> None:
    tampered = dict(files())
    assert old in tampered["design.json"].decode()
    tampered["design.json"] = tampered["design.json"].replace(old.encode(), new.encode(), 1)
    with pytest.raises(InputError) as raised:
        topology(tampered)
    assert says in str(raised.value)


def test_a_frontend_server_without_its_frr_conf_is_a_missing_prerequisite() -> None:
    partial = {path: data for path, data in files().items() if path != "servers/su0-srv3/frr.conf"}
    with pytest.raises(PrerequisiteError, match=r"servers/su0-srv3/frr\.conf"):
        topology(partial)


def test_the_lab_runs_the_frontend_switches_and_every_bgp_server_as_routers() -> None:
    top = lab()
    counts = {role: len(top.frontend(role)) for role in ("server", "leaf", "border_leaf", "spine")}
    assert counts == {"server": 8, "leaf": 4, "border_leaf": 1, "spine": 2}
    assert len(top.leaves()) == 4  # the backend's leaves alone
    assert top.coverage.endswith("frontend: 7 switches and 8 servers running BGP")
    server = named("su0-srv0")
    assert top.configs[server] == files()["servers/su0-srv0/frr.conf"].decode()  # the build's, unchanged
    ports = [wire for wire in top.wires if wire.lower == server]
    assert [(top.routers[wire.upper].name, wire.lower_port) for wire in ports] == [
        ("fe-g0-leaf0", "fe0"),
        ("fe-g0-leaf1", "fe1"),
    ]
    assert top.lab_lines[server] == tuple(
        line
        for wire in ports
        for line in ("interface " + wire.lower_port, f"ip address {wire.lower_address}/31", "exit")
    )
    leaf = top.configs[named("fe-g0-leaf0")]
    asn = top.routers[server].asn
    assert f"neighbor {ports[0].lower_address} remote-as {asn}" in leaf
    assert f"aggregate-address {top.routers[named('fe-g0-leaf0')].announces[1]} summary-only" in leaf
    assert [top.routers[target].name for target in failure_targets(top)] == ["p0-spine0", "fe-g0-leaf0"]


def test_every_server_stays_reachable_from_the_border_with_one_leaf_of_its_pair_down() -> None:
    top = lab()
    border, leaf = named("fe-border0"), named("fe-g0-leaf0")
    servers = top.frontend("server")
    for failed in (frozenset(), frozenset({leaf})):
        routes = expected_routes(top, failed)
        # the border reaches every server's loopback over both spines, with or without the leaf
        assert {top.routers[server].announces[0]: 2 for server in servers}.items() <= routes[border].items()
    healthy, down = expected_routes(top), expected_routes(top, frozenset({leaf}))
    first, last = named("su0-srv0"), named("su1-srv1")
    target = top.routers[last].announces[0]
    assert (healthy[first][target], down[first][target]) == (2, 1)  # over fe1 alone while fe-g0-leaf0 is down
    spine = named("fe-spine0")
    assert (healthy[spine][top.routers[first].announces[0]], down[spine][top.routers[first].announces[0]]) == (2, 1)


@needs(VTYSH)
def test_the_lab_runs_the_frontend_switches_frr_files_the_build_wrote_and_frr_reads_them(tmp_path: Path) -> None:
    top = lab()
    switches = [*top.frontend("leaf"), *top.frontend("border_leaf"), *top.frontend("spine")]
    for router in switches:
        assert top.configs[router] == files()[f"configs/frr/{top.routers[router].name}.conf"].decode()
    paths = []
    for router in switches:
        path = tmp_path / f"{top.routers[router].name}.conf"
        path.write_text(top.configs[router])
        paths.append((path, top.routers[router].name))
    verdicts = check_frr(paths)
    assert [verdict.error for verdict in verdicts if not verdict.ok] == [] and len(verdicts) == len(switches)


def test_a_frontend_switch_without_its_frr_file_is_a_missing_prerequisite() -> None:
    partial = {path: data for path, data in files().items() if path != "configs/frr/fe-spine1.conf"}
    with pytest.raises(PrerequisiteError, match=r"configs/frr/fe-spine1\.conf"):
        topology(partial)


def test_verify_reads_the_frontend_switches_files_from_an_output_folder(tmp_path: Path) -> None:
    code, _, err = run_cli("build", str(FRONTEND), "-o", str(tmp_path / "out"))
    assert code in (0, 1) and (tmp_path / "out" / "manifest.json").exists(), err  # written, whatever the checks say
    read = read_output(tmp_path / "out")
    assert {"configs/frr/fe-border0.conf", "configs/sysctl/fe-border0.conf"} <= set(read)
    assert topology(read).configs == lab().configs


@needs(FRR_LAB)
def test_frontend_lab_keeps_every_server_reachable_from_the_border_with_a_leaf_down() -> None:
    report = verify(files(), progress=lambda _: None)
    assert report.passed, text(report)
    assert list(report.converged_seconds) == [
        "healthy",
        "p0-spine0 down",
        "p0-spine0 restored",
        "fe-g0-leaf0 down",
        "fe-g0-leaf0 restored",
    ]
    summaries = {(check.phase, check.name): check.summary for check in report.checks}
    reached = "8 of 8 pings from fe-border0 to every frontend server's loopback answered"
    for phase in ("healthy", "fe-g0-leaf0 down", "fe-g0-leaf0 restored"):
        assert summaries[phase, "frontend servers reachable"] == reached
    # 16 backend + 26 frontend sessions (16 server links, 10 leaf-spine), both ends
    assert summaries["healthy", "bgp sessions"].startswith("84 of 84 session ends Established")
    # the leaf's 4 servers and 2 spines lose their sessions to it; the servers keep their other leaf
    leaf = named("fe-g0-leaf0")
    assert sum(leaf in (wire.upper, wire.lower) for wire in lab().wires) == 6
    assert "6 towards fe-g0-leaf0 down" in summaries["fe-g0-leaf0 down", "bgp sessions"]
    assert summaries["fe-g0-leaf0 down", "kernel routes"].endswith("ECMP shrinks 2 -> 1 on 64 routes")


def spine_widths(data: dict, configs: dict[str, bytes]) -> dict[str, tuple[int, int]]:
    """Each frontend spine's ``maximum-paths`` beside its cabled links to the two leaves of group 0's pair: the
    equal-cost paths to a dual-homed server's loopback (the lab's kernel routes check installs that many)."""
    rows = [row for row in data["network_devices"] if row["network"] == "frontend"]
    pair = {row["name"] for row in rows if row["role"] == "leaf" and row["group"] == 0}
    assert len(pair) == 2
    widths = {}
    for spine in (row["name"] for row in rows if row["role"] == "spine"):
        links = sum(
            bool({link["a"][0], link["z"][0]} & pair) and spine in (link["a"][0], link["z"][0])
            for link in data["network_links"]
        )
        text = configs[f"configs/frr/{spine}.conf"].decode()
        widths[spine] = (int(text.split("  maximum-paths ")[1].split()[0]), links)
    return widths


def test_a_spine_spreads_over_every_leaf_of_a_dual_homed_servers_pair() -> None:
    widths = spine_widths(design(), files())
    assert widths and all(paths == links == 2 for paths, links in widths.values()), widths

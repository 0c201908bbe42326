"""BGP peer groups and valley-free route policy: the device model's groups and filters, FRR's text, and real FRR
labs (``designer verify``) under both ASN schemes, where a leaf made to leak a foreign prefix is refused at its
spines and a leaf whose export policy is opened becomes transit, which the routing tables show.

Syntax facts from FRR's documentation (docs.frrouting.org, "BGP": peer groups, ``bgp ebgp-requires-policy``,
``bgp community-list``; "Filtering": ``ip prefix-list ... le``); the configs load into real FRR below."""

from __future__ import annotations

import re
from functools import cache
from ipaddress import ip_network

from designer.backend.model import (
    FABRIC_POOLS,
    FROM_ABOVE,
    FROM_ABOVE_COMMUNITY,
    LEAF_OWN,
    DeviceConfig,
    PrefixRule,
    RouteMapEntry,
)
from designer.design import Design
from designer.outputs.build import design_files
from designer.render import render_configs
from designer.verify import pyavd_eos
from designer.verify.probe import parse_advertised
from designer.verify.report import text
from designer.verify.run import foreign_prefix, verify
from designer.verify.topology import expected_routes, topology
from tests.conftest import ROOT
from tests.helpers import EOS_LIMITS, build_text
from tests.prerequisites import FRR_LAB, PYAVD, needs
from tests.test_verify import sized

INTENTS = ROOT / "tests" / "intents"
TWO_TIER, THREE_TIER = INTENTS / "verify-2tier.yaml", INTENTS / "verify-3tier.yaml"
UNIQUE = "routing:\n  asn_scheme: unique\n"


@cache
def _two_tier(extra: str) -> dict[str, bytes]:
    return design_files(build_text(TWO_TIER.read_text() + extra))


def two_tier(extra: str = "") -> dict[str, bytes]:
    """The files of verify-2tier with ``extra`` intent keys (built once a run), in a dict of the caller's own."""
    return dict(_two_tier(extra))


def by_name(design: Design, name: str) -> DeviceConfig:
    return next(config for config in design.configs if config.hostname == name)


def test_each_switch_has_one_peer_group_per_role_it_peers_with_and_every_session_is_in_one() -> None:
    design = sized(512)  # 3 tiers
    groups = {
        config.role: {(group.name, group.peer_role) for group in config.bgp.peer_groups} for config in design.configs
    }
    assert groups == {
        "leaf": {("SPINES", "spine")},
        "spine": {("LEAVES", "leaf"), ("SUPER-SPINES", "super_spine")},
        "super_spine": {("SPINES", "spine")},
    }
    roles = {config.hostname: config.role for config in design.configs}
    for config in design.configs:
        names = {group.name: group.peer_role for group in config.bgp.peer_groups}
        assert all(names[neighbor.peer_group] == roles[neighbor.peer_device] for neighbor in config.bgp.neighbors)


def test_a_leaf_exports_only_its_loopback_and_server_block_and_imports_only_the_pools() -> None:
    design = sized(128)
    leaf = by_name(design, "p0-su0-r0-leaf")
    policy = leaf.bgp.policy
    lists = {entry.name: entry.rules for entry in policy.prefix_lists}
    assert lists[FABRIC_POOLS] == (PrefixRule("10.255.0.0/16", 32), PrefixRule("10.16.0.0/12", 31))
    loopback, block = leaf.bgp.announced
    assert lists[LEAF_OWN] == (PrefixRule(loopback, 32), PrefixRule(block, 31))
    maps = {entry.name: entry.entries for entry in policy.route_maps}
    (group,) = leaf.bgp.peer_groups
    assert maps[group.export_map] == (RouteMapEntry(True, LEAF_OWN, None, None),)
    assert maps[group.import_map] == (RouteMapEntry(True, FABRIC_POOLS, None, None),)
    # every server /31 of the leaf (announced one by one under server_subnets: each) is inside its block
    assert all(
        ip_network(interface.address, strict=False).subnet_of(ip_network(block))
        for interface in leaf.interfaces
        if interface.role == "server"
    )


def test_a_spine_marks_what_a_super_spine_sends_and_never_sends_it_back_up() -> None:
    spine = by_name(sized(512), "p0-pod0-spine0")
    maps = {entry.name: entry.entries for entry in spine.bgp.policy.route_maps}
    groups = {group.peer_role: group for group in spine.bgp.peer_groups}
    assert maps[groups["super_spine"].import_map] == (RouteMapEntry(True, FABRIC_POOLS, None, FROM_ABOVE_COMMUNITY),)
    assert maps[groups["super_spine"].export_map] == (
        RouteMapEntry(False, None, FROM_ABOVE, None),
        RouteMapEntry(True, FABRIC_POOLS, None, None),
    )
    assert (
        maps[groups["leaf"].import_map]
        == maps[groups["leaf"].export_map]
        == (RouteMapEntry(True, FABRIC_POOLS, None, None),)
    )
    assert spine.bgp.policy.community_lists == ((FROM_ABOVE, FROM_ABOVE_COMMUNITY),)
    # a super-spine exports everything in the pools down and marks nothing
    top = by_name(sized(512), "p0-g0-ss0")
    assert top.bgp.policy.community_lists == ()
    assert {entry for route_map in top.bgp.policy.route_maps for entry in route_map.entries} == {
        RouteMapEntry(True, FABRIC_POOLS, None, None)
    }


def test_frr_keeps_ebgp_requires_policy_and_writes_each_sessions_policy_once_per_group() -> None:
    files = two_tier()
    leaf = files["configs/frr/p0-su0-r0-leaf.conf"].decode()
    assert " bgp ebgp-requires-policy\n" in leaf and "no bgp ebgp-requires-policy" not in leaf
    assert leaf.count("route-map SPINES-OUT out") == 1 and leaf.count(" peer-group SPINES\n") == 4
    assert "ip prefix-list LEAF-OWN seq 20 permit 10.2.0.0/29 le 31\n" in leaf
    for address in re.findall(r" neighbor (\S+) remote-as", leaf):
        lines = re.findall(rf"^ +neighbor {re.escape(address)} (\S+)", leaf, re.MULTILINE)
        assert sorted(lines) == ["description", "peer-group", "remote-as"]


@needs(PYAVD)
def test_the_eos_policy_is_what_aristas_templates_render_for_it() -> None:
    """pyavd's eos_cli_config_gen (``prefix_lists``, ``ip_community_lists``, ``route_maps``, ``router_bgp``
    ``peer_groups``) renders the same peer groups and policy, line for line, as our file of a 3-tier spine."""
    design = build_text((ROOT / "tests" / "intents" / "small-3tier.yaml").read_text())
    spine = by_name(design, "p0-pod0-spine0")
    ours = render_configs([spine], ["eos"])["configs/eos/p0-pod0-spine0.cfg"].decode()
    arista = pyavd_eos.arista_rendering(spine, EOS_LIMITS)
    for line in (
        "route-map SUPER-SPINES-IN permit 10",
        "   set community 65534:1",
        "route-map SUPER-SPINES-OUT deny 10",
        "   match community FROM-ABOVE",
        "ip community-list FROM-ABOVE permit 65534:1",
        "   neighbor SUPER-SPINES route-map SUPER-SPINES-OUT out",
        "      neighbor LEAVES activate",
    ):
        assert line in ours.splitlines() and line in arista.splitlines(), line
    assert pyavd_eos.differences(ours, arista) == []


def test_expected_routes_hold_no_valley_under_either_scheme() -> None:
    """A spine of a 2-tier fabric has no valley-free path to another spine (it would cross a leaf); a route to
    another spine of the pod under rfc7938 is refused by AS-path loop detection, under unique by the policy."""
    for extra in ("", UNIQUE):
        lab = topology(two_tier(extra))
        spines = [index for index, router in enumerate(lab.routers) if router.role == "spine"]
        routes = expected_routes(lab)
        for spine in spines:
            assert not any(f"{lab.routers[other].loopback}/32" in routes[spine] for other in spines if other != spine)
        for leaf in lab.leaves():
            assert {f"{lab.routers[spine].loopback}/32" for spine in spines} <= set(routes[leaf])


def test_the_leaked_prefix_is_clear_of_every_pool_and_address_of_the_design() -> None:
    text = TWO_TIER.read_text()
    lab = topology(two_tier())
    assert foreign_prefix(lab) == "198.51.100.0/24"
    wide = text + "addressing: {fabric_p2p: 10.0.0.0/15, server_p2p: 198.51.0.0/16, loopbacks: 10.255.0.0/20}\n"
    assert foreign_prefix(topology(design_files(build_text(wide)))) == "203.0.113.0/24"


def test_advertised_routes_are_read_from_frrs_json_and_nothing_readable_is_none() -> None:
    answer = '{"bgpLocalRouterId":"10.255.0.0","advertisedRoutes":{"10.255.0.0/32":{},"198.51.100.0/24":{}}}'
    assert parse_advertised(answer) == {"10.255.0.0/32", "198.51.100.0/24"}
    assert parse_advertised("% No such neighbor") == set() == parse_advertised("")


# ---- real FRR labs --------------------------------------------------------------------------------------------


@needs(FRR_LAB)
def test_unique_asns_two_tier_lab_routes_exactly_the_design_and_refuses_a_foreign_prefix() -> None:
    report = verify(two_tier(UNIQUE), progress=lambda _: None)
    assert report.passed, text(report)
    summaries = {(check.phase, check.name): check.summary for check in report.checks}
    assert summaries["healthy", "foreign prefix refused"] == (
        "p0-su0-r0-leaf sent 198.51.100.0/24 (outside the pools) on 4 of its 4 sessions to spines; "
        "0 routers installed it"
    )
    assert "and no other BGP route; leaf widths 4" in summaries["healthy", "kernel routes"]
    assert "ECMP shrinks 4 -> 2 on 24 routes" in summaries["p0-spine0 down", "kernel routes"]


@needs(FRR_LAB)
def test_unique_asns_three_tier_lab_stays_valley_free_through_spine_and_super_spine_failures() -> None:
    report = verify(design_files(build_text(THREE_TIER.read_text() + UNIQUE)), progress=lambda _: None)
    assert report.passed, text(report)
    phases = [phase for phase in report.converged_seconds]
    assert phases == [
        "healthy",
        "p0-pod0-spine0 down",
        "p0-pod0-spine0 restored",
        "p0-g0-ss0 down",
        "p0-g0-ss0 restored",
    ]


@needs(FRR_LAB)
def test_a_spine_that_accepts_everything_from_below_takes_the_leaked_prefix() -> None:
    """The same lab with one spine's import policy opened: the check names the spine and the leaf's other
    spine still refuses the prefix."""
    files = two_tier(UNIQUE)
    spine = "configs/frr/p0-spine0.conf"
    config = files[spine].decode()
    assert "route-map LEAVES-IN permit 10\n match ip address prefix-list FABRIC-POOLS\n" in config
    files[spine] = config.replace(
        "route-map LEAVES-IN permit 10\n match ip address prefix-list FABRIC-POOLS\n", "route-map LEAVES-IN permit 10\n"
    ).encode()
    report = verify(files, failures=False, progress=lambda _: None)
    (leak,) = [check for check in report.checks if check.name == "foreign prefix refused"]
    assert not leak.passed
    assert leak.problems[0] == "p0-spine0 installed 198.51.100.0/24, which its import policy should refuse"
    assert not any("p0-spine1" in problem for problem in leak.problems)


@needs(FRR_LAB)
def test_a_leaf_whose_export_policy_is_opened_becomes_transit_and_the_tables_show_it() -> None:
    """Under unique ASNs nothing but the leaf's export policy stops one spine's loopback from reaching the other
    spine through the leaf: with it opened the exact routing-table check names the valley route."""
    files = two_tier(UNIQUE)
    leaf = "configs/frr/p0-su0-r0-leaf.conf"
    config = files[leaf].decode()
    files[leaf] = config.replace(
        "route-map SPINES-OUT permit 10\n match ip address prefix-list LEAF-OWN\n",
        "route-map SPINES-OUT permit 10\n match ip address prefix-list FABRIC-POOLS\n",
    ).encode()
    report = verify(files, failures=False, timeout=15, progress=lambda _: None)
    (routes,) = [check for check in report.checks if check.phase == "healthy" and check.name == "kernel routes"]
    assert not routes.passed
    lab = topology(files)
    spines = {router.name: router.loopback for router in lab.routers if router.role == "spine"}
    # each spine learns the other's loopback through the leaf, over its 2 parallel links to it
    assert routes.problems == (
        f"p0-spine0: {spines['p0-spine1']}/32 installed with 2 next hops, the design has no such route",
        f"p0-spine1: {spines['p0-spine0']}/32 installed with 2 next hops, the design has no such route",
    )

"""The lab's readers parse what FRR, iproute2 and traceroute really print (tests/canned/, captured here)."""

from __future__ import annotations

from designer.verify.probe import Peer, parse_bgp_summary, parse_routes, parse_traceroute
from tests.conftest import ROOT

CANNED = ROOT / "tests" / "canned"


def test_bgp_summary_gives_each_peer_state_and_remote_asn() -> None:
    peers = parse_bgp_summary((CANNED / "frr-8.4-show-bgp-summary.json").read_text())
    assert peers == {"10.0.0.0": Peer("Active", 4200000016), "10.0.0.2": Peer("Active", 4200000016)}


def test_bgp_summary_of_a_bgpd_that_said_nothing_readable_is_empty() -> None:
    assert parse_bgp_summary("") == {}
    assert parse_bgp_summary("% Unknown command") == {}
    assert parse_bgp_summary('{"ipv4Unicast": {}}') == {}


def test_routes_count_next_hops_and_host_routes_get_a_prefix_length() -> None:
    routes = parse_routes((CANNED / "iproute2-6.1-route-bgp.json").read_text())
    assert routes == {"10.2.0.64/26": 1, "10.255.0.7/32": 2}
    assert parse_routes("") == {}


def test_traceroute_lists_each_hop_and_a_star_for_silence() -> None:
    hops = parse_traceroute((CANNED / "traceroute-2.1-n-q1.txt").read_text())
    assert hops == ["10.0.0.0", "*", "10.0.0.9", "10.255.0.7"]

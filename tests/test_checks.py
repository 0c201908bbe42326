"""Each check passes on a generated fabric and catches a fabric broken on purpose."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import fields, replace
from functools import cache
from itertools import pairwise
from types import SimpleNamespace

import networkx as nx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from designer.analysis.facts import facts
from designer.analysis.maxflow import PlaneNetwork, _Flow, bisection, solve_planes, splits
from designer.backend.allocate import Allocation
from designer.backend.wiring import LEAF_SPINE, SERVER_LEAF, SPINE_SUPER, Device
from designer.checks import CHECKS, OF_THE_FABRIC, counts, ecmp, evidence, run
from designer.design import Design, Wired
from designer.errors import InputError
from designer.findings import Finding
from tests.helpers import build_design

THREE_TIER = {
    "servers": 64,
    "leaf": "{ports: 16, speed: 400G}",
    "fabric_extra": "tiers: 3",
    "compute_extra": "gpus_per_server: 4\nnics_per_server: 4",
}
"""4 rails, k = 16: 8 SUs of 8 servers in 4 pods of 8 spines, 8 groups of 2 super-spines with 4 parallel links."""


@cache
def two_tier() -> Design:
    """32 DGX H100 on 32 x 400G switches: 16 leaves, 8 spines, 2 links per leaf-spine pair."""
    return build_design(servers=32, leaf="{model: generic-32x400g}")


@cache
def three_tier() -> Design:
    return build_design(**THREE_TIER)


def found(design: Design, check: str, severity: str = "error") -> list[Finding]:
    """What one check finds in ``design``, of one severity."""
    module = next(module for module in CHECKS if check == module.ID)
    return [finding for finding in module.check(design) if finding.severity == severity]


def with_links(design: Design, links: list, devices: list[Device] | None = None, **fabric: int) -> Design:
    """A copy of ``design`` whose fabric has other links (and devices); everything else is shared."""
    new = replace(design.fabric, links=links, devices=devices or design.fabric.devices, **fabric)
    counted = facts(new)
    return replace(design, fabric=new, facts=counted, bisection=bisection(new, counted))


def without(design: Design, *numbers: int) -> Design:
    return with_links(design, [link for number, link in enumerate(design.fabric.links) if number not in numbers])


def first_link(design: Design, tier: int, after: int = 0) -> int:
    return next(number for number, link in enumerate(design.fabric.links) if link[0] == tier and number >= after)


@pytest.mark.parametrize("make", [two_tier, three_tier], ids=["2-tier", "3-tier"])
def test_generated_fabrics_pass_every_check(make) -> None:
    design = make()
    assert [f for f in design.findings if f.severity != "info"] == []
    assert counts(design.findings) == {"passed": len(CHECKS), "failed": 0, "warnings": 0}
    assert {f.check for f in design.findings} == {module.ID for module in CHECKS}  # each reports evidence
    assert list(design.findings) == run(design)


def test_the_checks_of_the_fabric_read_only_the_wired_fabric() -> None:
    """What the pipeline runs beside the device models finds the same on the wired record alone as on the whole
    design: none of those checks reads the physical plan, the models or the host settings."""
    for design in (without(two_tier(), first_link(two_tier(), LEAF_SPINE)), three_tier()):
        wired = Wired(**{field.name: getattr(design, field.name) for field in fields(Wired)})
        assert type(wired) is Wired
        assert run(wired, 1, OF_THE_FABRIC) == run(design, 1, OF_THE_FABRIC) != []
        assert {f.check for f in run(wired, 1, OF_THE_FABRIC)} == {module.ID for module in OF_THE_FABRIC}


def test_registry_entries_have_an_id_description_and_severity() -> None:
    ids = [module.ID for module in CHECKS]
    assert len(set(ids)) == len(ids)
    for module in CHECKS:
        assert module.DESCRIPTION and "\n" not in module.DESCRIPTION
        assert module.SEVERITY in ("error", "warning")


def test_checks_shared_among_workers_find_what_one_process_finds() -> None:
    design = without(two_tier(), first_link(two_tier(), LEAF_SPINE))
    alone = run(design, workers=1)
    assert any(finding.severity == "error" for finding in alone)
    assert run(design, workers=2) == alone == run(design, workers=5)


# oversubscription ---------------------------------------------------------------------------------


def oversubscribed_leaf(design: Design) -> Design:
    """An extra leaf with 16 server links and 4 uplinks (4:1), inserted after the switches."""
    fabric = design.fabric
    count = fabric.switch_count
    template = fabric.devices[0]
    leaf = template._replace(name="p0-su9-r0-leaf", su=9)
    shift = [(t, u + (u >= count), up, low + (low >= count), lp) for t, u, up, low, lp in fabric.links]
    servers = [index + 1 for index in range(count, len(fabric.devices))][:16]
    extra = [(SERVER_LEAF, count, port, server, 8) for port, server in enumerate(servers)]
    spines = [index for index, device in enumerate(fabric.switches()) if device.role == "spine"][:4]
    extra += [(LEAF_SPINE, spine, 100 + n, count, 16 + n) for n, spine in enumerate(spines)]
    devices = [*fabric.devices[:count], leaf, *fabric.devices[count:]]
    return with_links(design, shift + extra, devices, switch_count=count + 1)


def test_oversubscription_catches_an_extra_oversubscribed_leaf() -> None:
    broken = oversubscribed_leaf(two_tier())
    errors = found(broken, "oversubscription")
    assert [(f.subject, f.message.split(" (")[0]) for f in errors] == [("p0-su9-r0-leaf", "4.00:1 downlink to uplink")]


def test_oversubscription_allowed_by_the_intent_is_a_warning() -> None:
    base = two_tier()
    lenient = replace(base, intent=replace(base.intent, checks=replace(base.intent.checks, oversubscription=4.0)))
    broken = oversubscribed_leaf(lenient)
    assert found(broken, "oversubscription") == []
    assert [f.subject for f in found(broken, "oversubscription", "warning")] == ["p0-su9-r0-leaf"]


def test_oversubscription_catches_a_removed_uplink() -> None:
    design = two_tier()
    errors = found(without(design, first_link(design, LEAF_SPINE)), "oversubscription")
    assert [(f.subject, f.message.split(" (")[0]) for f in errors] == [("p0-su0-r0-leaf", "1.07:1 downlink to uplink")]


# ecmp-balance -------------------------------------------------------------------------------------


def test_ecmp_path_counts_from_structure_match_networkx() -> None:
    design = three_tier()
    infos = {f.subject: f.evidence for f in design.findings if f.check == "ecmp-balance"}
    plan = design.plan
    assert infos["one pod"]["paths"] == plan.spines_per_pod * plan.leaf_spine_parallel**2 == 8
    assert infos["different pods"]["paths"] == 8 * 2 * 4**2
    graph = nx.Graph()
    for tier, upper, _, lower, _ in design.fabric.links:
        if tier != SERVER_LEAF:
            weight = graph.get_edge_data(upper, lower, {"links": 0})["links"]
            graph.add_edge(upper, lower, links=weight + 1)
    names = {device.name: index for index, device in enumerate(design.fabric.devices)}
    for a, b, expected in (("p0-su0-r0-leaf", "p0-su1-r3-leaf", 8), ("p0-su0-r0-leaf", "p0-su7-r2-leaf", 256)):
        paths = nx.all_shortest_paths(graph, names[a], names[b])
        total = 0
        for path in paths:
            product = 1
            for u, v in pairwise(path):
                product *= graph[u][v]["links"]
            total += product
        assert total == expected
    assert infos["graph"] == {"pairs": 32 * 31 // 2 - 4 * (8 * 7 // 2), "all": True, "wrong": 0}


def test_path_counts_met_from_both_ends_match_networkx_on_a_miswired_fabric() -> None:
    """The graph's path count between two switches (breadth-first from both ends) against networkx's shortest paths
    on the simple graph, each path weighted by its parallel links, for every switch pair of a three-tier fabric
    with a spine wired to a leaf of another pod, two leaves wired together (an odd cycle: searches meet at nodes
    of different distances) and one parallel link gone."""
    design = three_tier()
    links = [link for link in design.fabric.links if link[0] != SERVER_LEAF]
    devices = design.fabric.devices
    spine = next(index for index, device in enumerate(devices) if device.role == "spine" and device.pod == 0)
    stranger = next(index for index, device in enumerate(devices) if device.role == "leaf" and device.pod == 1)
    links = [*links[1:], (LEAF_SPINE, spine, 200, stranger, 250), (LEAF_SPINE, stranger, 251, stranger + 1, 251)]
    pairs = Counter((upper, lower) for _, upper, _, lower, _ in links)
    adjacency: list[list[tuple[int, int]]] = [[] for _ in devices]
    graph = nx.Graph()
    for (upper, lower), count in pairs.items():
        adjacency[upper].append((lower, count))
        adjacency[lower].append((upper, count))
        graph.add_edge(upper, lower, links=count)
    switches = sorted(graph)
    for number, a in enumerate(switches):
        for b in switches[number:]:
            expected = (
                sum(
                    math.prod(graph[u][v]["links"] for u, v in pairwise(path))
                    for path in nx.all_shortest_paths(graph, a, b)
                )
                if a != b
                else 1
            )
            assert ecmp.shortest_path_count(adjacency, a, b) == expected, (devices[a].name, devices[b].name)
    assert ecmp.shortest_path_count(adjacency, switches[0], len(devices) - 1) == 0  # a server: no switch links


@pytest.mark.parametrize("make,tier", [(two_tier, LEAF_SPINE), (three_tier, SPINE_SUPER)], ids=["leaf", "spine"])
def test_ecmp_balance_catches_a_removed_link(make, tier) -> None:
    design = make()
    number = first_link(design, tier)
    lower = design.fabric.links[number][3]
    errors = found(without(design, number), "ecmp-balance")
    lower_name = design.fabric.devices[lower].name
    assert any(f.subject == lower_name and "unequal links" in f.message for f in errors)
    assert any("unequal equal-cost path counts" in f.message for f in errors)


def test_ecmp_balance_flags_groups_wider_than_the_hardware_and_short_maximum_paths() -> None:
    design = two_tier()
    narrow = replace(design, intent=replace(design.intent, checks=replace(design.intent.checks, ecmp_max_width=8)))
    errors = found(narrow, "ecmp-balance")
    assert errors[0].message == "ECMP group of 16 next hops exceeds the hardware limit of 8 (checks.ecmp_max_width)"
    assert len([f for f in errors if "exceeds" in f.message]) == 16  # the 16 leaves, spines have 2
    config = design.configs[3]
    short = replace(config, bgp=replace(config.bgp, maximum_paths=4))
    devices = [*design.configs[:3], short, *design.configs[4:]]
    errors = found(replace(design, configs=devices), "ecmp-balance")
    assert [(f.subject, f.message) for f in errors] == [
        (config.hostname, "BGP maximum-paths 4 is below its ECMP width 16")
    ]


def test_ecmp_balance_catches_a_link_the_structure_does_not_expect() -> None:
    design = two_tier()
    links = list(design.fabric.links)
    leaves = [index for index, device in enumerate(design.fabric.switches()) if device.role == "leaf"]
    links.append((LEAF_SPINE, leaves[0], 60, leaves[5], 63))  # a leaf wired to another leaf
    errors = found(with_links(design, links), "ecmp-balance")
    assert any("uplinks go outside" in f.message for f in errors)
    assert (
        "p0-su0-r0-leaf to p0-su0-r5-leaf",
        "1 equal-cost shortest paths on the graph, 32 from the structure: links the design does not expect",
    ) in [(f.subject, f.message) for f in errors]


# bisection ----------------------------------------------------------------------------------------


def reference_bisection(design: Design) -> int:
    """Max-flow on the uncontracted graph with networkx: every NIC port its own node, parallel links summed,
    minimum over the same splits (a cross-check of the contraction and of Dinic)."""
    fabric = design.fabric
    totals = []
    for in_a in splits(fabric).values():
        total = 0
        for links in design.facts.plane_links:
            graph = nx.DiGraph()
            for tier, upper, _, lower, port in links:
                if tier == SERVER_LEAF:
                    nic = ("nic", lower, port)
                    graph.add_edge(nic, upper, capacity=1)
                    graph.add_edge(upper, nic, capacity=1)
                    a = in_a(lower - fabric.switch_count, port % fabric.plan.rails)
                    graph.add_edge(*(("s", nic) if a else (nic, "t")), capacity=10**6)
                else:
                    for u, v in ((upper, lower), (lower, upper)):
                        old = graph.get_edge_data(u, v, {"capacity": 0})["capacity"]
                        graph.add_edge(u, v, capacity=old + 1)
            total += nx.maximum_flow_value(graph, "s", "t")
        totals.append(total)
    return min(totals)


@pytest.mark.parametrize(
    "fields",
    [
        {"servers": 32, "leaf": "{model: generic-32x400g}"},
        {"servers": 20, "leaf": "{model: generic-32x400g}"},  # a partial scalable unit
        {"servers": 128},
        THREE_TIER,
        {"servers": 24, "server": "dgx-b300", "leaf": "{model: generic-32x400g}"},  # 2 planes
        {
            "servers": 40,
            "leaf": "{ports: 16, speed: 800G}",
            "fabric_extra": "tiers: 3",
            "compute_extra": "gpus_per_server: 4\nnics_per_server: 4",
        },  # breakout, a partial pod
    ],
    ids=["2-tier", "partial-su", "cluster-a", "3-tier", "2-planes", "3-tier-breakout"],
)
def test_bisection_is_exactly_n_s_over_2_on_1_to_1_fabrics(fields) -> None:
    design = build_design(**fields)
    plan = design.plan
    full_tbps = plan.planes * plan.servers * plan.rails * plan.link_speed / 2 / 1000
    assert evidence(design.findings, "bisection-bandwidth", "bisection_tbps") == full_tbps
    assert evidence(design.findings, "bisection-bandwidth", "full_tbps") == full_tbps
    assert set(evidence(design.findings, "bisection-bandwidth", "splits_tbps").values()) == {full_tbps}
    assert reference_bisection(design) * plan.link_speed / 1000 == full_tbps


def test_bisection_drops_by_one_link_per_removed_uplink() -> None:
    design = two_tier()
    first = first_link(design, LEAF_SPINE)
    other = first_link(design, LEAF_SPINE, first + 16 * 3)  # a link of another leaf
    for removed, lost in (((first,), 1), ((first, other), 2)):
        broken = without(design, *removed)
        result = broken.bisection
        assert result.total(result.worst) == result.full - lost
        assert reference_bisection(broken) == result.full - lost
        errors = found(broken, "bisection-bandwidth")
        assert errors and errors[0].evidence["bisection_tbps"] == (128 - lost) * 400 / 1000


def test_bisection_drops_in_three_tiers_at_both_tiers() -> None:
    design = three_tier()
    leaf_link = first_link(design, LEAF_SPINE)
    super_link = first_link(design, SPINE_SUPER, len(design.fabric.links) - 8)  # the last pod's spine
    broken = without(design, leaf_link, super_link)
    result = broken.bisection
    assert result.full == 128
    assert result.total(result.worst) == 126 == reference_bisection(broken)


def test_bisection_within_an_allowed_oversubscription_is_a_warning() -> None:
    design = two_tier()
    lenient = replace(design, intent=replace(design.intent, checks=replace(design.intent.checks, oversubscription=1.5)))
    broken = without(lenient, first_link(design, LEAF_SPINE))
    assert found(broken, "bisection-bandwidth") == []
    assert len(found(broken, "bisection-bandwidth", "warning")) == 1


# addressing ---------------------------------------------------------------------------------------


class ShiftedLink(Allocation):
    """An allocation that gives link ``number`` the odd/even pair starting one address too late."""

    number = 40

    def link_addresses(self, link: int) -> tuple[int, int]:
        even, odd = super().link_addresses(link)
        return (even + 1, odd + 1) if link == self.number else (even, odd)


def test_addressing_catches_a_duplicated_loopback() -> None:
    design = two_tier()
    loopbacks = list(design.allocation.loopbacks)
    loopbacks[5] = loopbacks[2]
    broken = replace(design, allocation=replace(design.allocation, loopbacks=loopbacks))
    errors = found(broken, "addressing")
    names = [design.fabric.devices[index].name for index in (2, 5)]
    assert [(f.subject, f.message) for f in errors] == [(name, "10.255.0.2 is assigned 2 times") for name in names]


def test_addressing_catches_a_split_31_and_the_address_it_takes() -> None:
    design = two_tier()
    fields = {name: getattr(design.allocation, name) for name in design.allocation.__dataclass_fields__}
    broken = replace(design, allocation=ShiftedLink(**fields))
    assert [(f.subject, f.message) for f in found(broken, "addressing")] == [
        (
            "p0-su0-r2-leaf:swp9",
            "10.16.0.81 and 10.16.0.82 (to su0-srv8) are not the two ends of one /31 (upper end even, lower end odd)",
        ),
        ("su0-srv8:nic2", "10.16.0.82 is assigned 2 times"),
        ("p0-su0-r2-leaf:swp10", "10.16.0.82 is assigned 2 times"),
    ]


def test_addressing_catches_overlapping_pools_and_reports_utilisation() -> None:
    design = two_tier()
    pools = design.allocation
    overlapping = replace(
        pools, loopback_pool=replace(pools.loopback_pool, cidr="10.0.0.0/16", first=pools.fabric_p2p.first)
    )
    messages = [f.message for f in found(replace(design, allocation=overlapping), "addressing")]
    assert "fabric_p2p 10.0.0.0/12 overlaps loopbacks 10.0.0.0/16" in messages
    use = {f.subject: f.evidence for f in design.findings if f.check == "addressing" and "utilisation" in f.evidence}
    assert use["fabric_p2p"]["used"] == 2 * 256 and use["server_p2p"]["used"] == 2 * 256


# asn ----------------------------------------------------------------------------------------------


def with_asn(design: Design, index: int, asn: int) -> Design:
    asns = list(design.allocation.asns)
    asns[index] = asn
    return replace(design, allocation=replace(design.allocation, asns=asns))


def test_asn_catches_a_leaf_with_its_spines_asn() -> None:
    design = two_tier()
    spine = next(i for i, device in enumerate(design.fabric.devices) if device.role == "spine")
    errors = found(with_asn(design, 0, design.allocation.asns[spine]), "asn")
    assert "held by 9 switches that must not share it (leaf/spine)" in errors[0].message
    assert any("the session would be iBGP" in f.message for f in errors)


def test_asn_catches_a_broken_scheme_and_a_public_asn() -> None:
    design = three_tier()
    spine = next(i for i, device in enumerate(design.fabric.devices) if device.role == "spine")
    errors = found(with_asn(design, spine, 4_200_999_999), "asn")
    assert [f.subject for f in errors] == ["p0-pod0 spines"]
    errors = found(with_asn(design, 1, 65_535), "asn")
    assert errors[0].message == "ASN 65535 is not private (64512-65534 or 4200000000-4294967294)"


# ports --------------------------------------------------------------------------------------------


def test_ports_catches_a_port_used_twice_and_one_beyond_the_hardware() -> None:
    design = two_tier()
    links = list(design.fabric.links)
    number = first_link(design, LEAF_SPINE)
    tier, upper, _, lower, lower_port = links[number]
    twin = next(other for other in range(number + 1, len(links)) if links[other][1:4:2] == (upper, lower))
    links[number] = (tier, upper, links[twin][2], lower, lower_port)  # the spine port of its twin
    links[number + 2] = (*links[number + 2][:4], 32)  # beyond 32 logical ports
    messages = [(f.subject, f.message) for f in found(with_links(design, links), "ports")]
    port = design.fabric.devices[upper].port_name(links[twin][2])
    assert messages == [
        ("p0-su0-r0-leaf:swp33", "port 33 is beyond the 32 logical ports of generic-32x400g"),
        (f"p0-spine0:{port}", f"used by two links (#{number} and #{twin})"),
    ]


def test_ports_catches_an_inconsistent_breakout() -> None:
    design = two_tier()
    devices = list(design.fabric.devices)
    devices[0] = devices[0]._replace(breakout=2, ports=64)
    errors = found(with_links(design, list(design.fabric.links), devices), "ports")
    assert [(f.subject, f.message) for f in errors] == [
        (
            devices[0].name,
            (
                "16 logical ports down at breakout 2 and 48 up at breakout 1, but 32 x 400G ports give 16 x 400G "
                "down and 16 x 400G up"
            ),
        )
    ]


# sessions -----------------------------------------------------------------------------------------


def test_sessions_catch_a_changed_peer_asn_and_a_missing_neighbor() -> None:
    design = two_tier()
    config = design.configs[0]
    neighbor = config.bgp.neighbors[0]
    changed = replace(
        config,
        bgp=replace(config.bgp, neighbors=(neighbor._replace(remote_asn=4_200_000_100), *config.bgp.neighbors[1:])),
    )
    errors = found(replace(design, configs=[changed, *design.configs[1:]]), "sessions")
    assert [(f.subject, f.message) for f in errors] == [
        (
            f"{config.hostname} neighbor {neighbor.address}",
            f"remote-as 4200000100, but {neighbor.peer_device} has ASN {design.allocation.asns[16]}",
        ),
        (
            f"{neighbor.peer_device} neighbor {neighbor.local_address}",
            (
                f"{config.hostname}'s neighbor {neighbor.address} says remote-as 4200000100 from "
                f"{neighbor.local_address}; "
                f"expected remote-as {design.allocation.asns[16]} from {neighbor.local_address}"
            ),
        ),
    ]
    dropped = replace(config, bgp=replace(config.bgp, neighbors=config.bgp.neighbors[1:]))
    messages = [f.message for f in found(replace(design, configs=[dropped, *design.configs[1:]]), "sessions")]
    assert messages == [
        "15 BGP neighbors for 16 switch links",
        f"fabric interface {neighbor.local_address}/31 to {neighbor.peer_device} has no BGP session",
        f"{config.hostname} has no neighbor {neighbor.address} back",
    ]


def test_sessions_catch_a_link_missing_from_the_model_on_both_ends() -> None:
    design = two_tier()
    leaf, spine = design.configs[0], design.configs[16]
    neighbor = leaf.bgp.neighbors[0]
    assert neighbor.peer_device == spine.hostname
    devices = list(design.configs)
    devices[0] = replace(
        leaf,
        bgp=replace(leaf.bgp, neighbors=leaf.bgp.neighbors[1:]),
        interfaces=tuple(interface for interface in leaf.interfaces if interface.ip != neighbor.local_address),
    )
    devices[16] = replace(
        spine,
        bgp=replace(spine.bgp, neighbors=tuple(n for n in spine.bgp.neighbors if n.address != neighbor.local_address)),
        interfaces=tuple(interface for interface in spine.interfaces if interface.ip != neighbor.address),
    )
    errors = found(replace(design, configs=devices), "sessions")
    assert [(f.subject, f.message) for f in errors] == [
        (leaf.hostname, "15 BGP neighbors for 16 switch links"),
        (spine.hostname, "31 BGP neighbors for 32 switch links"),
    ]


def test_sessions_catch_a_near_end_that_is_none_of_the_switchs_interfaces() -> None:
    """Every statement still has its answer on the peer, but the leaf's interface towards the spine has moved to
    another address."""
    design = two_tier()
    leaf = design.configs[0]
    neighbor = leaf.bgp.neighbors[0]
    interfaces = tuple(
        interface._replace(address="10.254.0.0/31") if interface.ip == neighbor.local_address else interface
        for interface in leaf.interfaces
    )
    errors = found(replace(design, configs=[replace(leaf, interfaces=interfaces), *design.configs[1:]]), "sessions")
    assert [(f.subject, f.message) for f in errors] == [
        (
            f"{leaf.hostname} neighbor {neighbor.address}",
            f"local end {neighbor.local_address} is none of its interfaces",
        ),
        (
            f"{leaf.hostname}:{interfaces[[i.address for i in interfaces].index('10.254.0.0/31')].name}",
            f"fabric interface 10.254.0.0/31 to {neighbor.peer_device} has no BGP session",
        ),
    ]


def test_sessions_catch_two_switches_of_one_name_and_a_statement_made_twice() -> None:
    design = two_tier()
    leaf, other = design.configs[0], design.configs[1]
    twin = replace(other, hostname=leaf.hostname)
    errors = found(replace(design, configs=[leaf, twin, *design.configs[2:]]), "sessions")
    assert errors and all(f.severity == "error" for f in errors)
    doubled = replace(leaf, bgp=replace(leaf.bgp, neighbors=(*leaf.bgp.neighbors, leaf.bgp.neighbors[0])))
    messages = [f.message for f in found(replace(design, configs=[doubled, *design.configs[1:]]), "sessions")]
    assert messages == ["17 BGP neighbors for 16 switch links"]


def test_addressing_catches_an_address_configured_twice_in_the_model() -> None:
    design = two_tier()
    config = design.configs[1]
    clash = config.interfaces[0]._replace(address=design.configs[0].interfaces[0].address)
    devices = [design.configs[0], replace(config, interfaces=(clash, *config.interfaces[1:])), *design.configs[2:]]
    errors = found(replace(design, configs=devices), "addressing")
    address = clash.address
    assert [(f.subject, f.message) for f in errors] == [
        (f"{design.configs[0].hostname}:{design.configs[0].interfaces[0].name}", f"{address} is configured 2 times"),
        (f"{config.hostname}:{clash.name}", f"{address} is configured 2 times"),
    ]


# qos ----------------------------------------------------------------------------------------------


def test_qos_catches_a_pfc_priority_flipped_on_one_end() -> None:
    design = two_tier()
    config = design.configs[0]
    flipped = replace(config, qos=replace(config.qos, pfc_priorities=(4,)))
    errors = found(replace(design, configs=[flipped, *design.configs[1:]]), "qos")
    assert errors[0].message == "lossless priority 3 has no PFC (PFC on [4]) (on 1 switch)"
    links = [f for f in errors if f.message.startswith("ends differ")]
    assert len(links) == 16 and links[0].message == "ends differ in pfc_priorities ((3,) vs (4,))"


def test_qos_catches_inverted_ecn_thresholds_and_a_cnp_queue_that_is_not_strict() -> None:
    design = two_tier()
    qos = replace(design.configs[0].qos, ecn_min=2_000_000, ecn_max=1_000, cnp_priority=3)
    devices = [replace(config, qos=qos) for config in design.configs]
    messages = [f.message for f in found(replace(design, configs=devices), "qos")]
    assert "ECN min 2000000 is not below ECN max 1000 bytes (on 24 switches)" in messages
    assert "CNP shares priority 3 with RoCE data (on 24 switches)" in messages
    assert any("CNP DSCP 48 maps to priority 6, not the CNP priority 3" in message for message in messages)


# failure-impact -----------------------------------------------------------------------------------


def test_failure_impact_reports_and_enforces_thresholds() -> None:
    design = two_tier()
    impact = {f.subject: f.evidence for f in design.findings if f.check == "failure-impact"}
    assert impact["spine"] == {
        "bisection_fraction": 0.875,
        "bisection_tbps": 44.8,
        "ecmp_width": 14,
        "ecmp_width_intact": 16,
        "gpus_losing_a_rail": 0,
    }
    assert impact["leaf"]["gpus_losing_a_rail"] == 16 and impact["leaf"]["bisection_fraction"] == 0.875
    assert impact["link"]["ecmp_width"] == 15 and impact["link"]["bisection_fraction"] == pytest.approx(127 / 128)
    strict = replace(
        design,
        intent=replace(
            design.intent,
            checks=replace(design.intent.checks, failure_min_bisection=0.9, failure_max_gpus=8),
        ),
    )
    errors = {f.subject: f.message for f in found(strict, "failure-impact")}
    assert set(errors) == {"spine", "leaf"}
    assert errors["leaf"].endswith("below checks.failure_min_bisection 0.9; above checks.failure_max_gpus 8")


def test_failure_impact_of_a_super_spine_in_three_tiers() -> None:
    impact = {f.subject: f.evidence for f in three_tier().findings if f.check == "failure-impact"}
    assert impact["super-spine"]["ecmp_width"] == 8 - 4  # a spine loses its 4 links to it
    assert impact["super-spine"]["gpus_losing_a_rail"] == 0
    assert impact["leaf"]["gpus_losing_a_rail"] == 8


@pytest.mark.parametrize(
    "make",
    [
        two_tier,
        three_tier,
        lambda: without(two_tier(), first_link(two_tier(), LEAF_SPINE), first_link(two_tier(), LEAF_SPINE, 40)),
        lambda: without(
            three_tier(), *range(first_link(three_tier(), SPINE_SUPER), first_link(three_tier(), SPINE_SUPER) + 24, 3)
        ),
        lambda: build_design(servers=24, server="dgx-b300", leaf="{model: generic-32x400g}"),
    ],
    ids=["2-tier", "3-tier", "2-tier-broken", "3-tier-broken", "2-planes"],
)
def test_a_failure_solved_from_the_intact_flow_is_the_max_flow_solved_afresh(make) -> None:
    """Taking back the flow through what is down and adding what the rest carries gives what solving the
    network without it from nothing gives: for every switch, and for links of every bundle, in every split."""
    design = make()
    for network, links in zip(
        (PlaneNetwork(design.fabric, links) for links in design.facts.plane_links),
        design.facts.plane_links,
        strict=True,
    ):
        pairs = sorted({(link[1], link[3]) for link in links if link[0] != SERVER_LEAF})
        for in_a in splits(design.fabric).values():
            split = network.split(in_a)
            solved = network.solve(split)
            for device in [device for device in network.ids if device >= 0]:
                cold = split.copy()
                for arc in network.arcs[network.ids[device]]:
                    cold[arc] = cold[arc ^ 1] = 0
                assert network.without(split, solved, [device]) == network.solve(cold).value
            for pair in pairs[::7]:
                cold = split.copy()
                arc = network.pair_arc[pair]
                cold[arc] -= 1
                cold[arc ^ 1] -= 1
                assert network.without(split, solved, dead_links=[pair]) == network.solve(cold).value


def test_a_plane_wired_as_an_earlier_one_takes_its_max_flow_and_one_that_is_not_is_solved() -> None:
    design = build_design(servers=24, server="dgx-b300", leaf="{model: generic-32x400g}")
    networks = tuple(PlaneNetwork(design.fabric, links) for links in design.facts.plane_links)
    in_a = splits(design.fabric)["rails"]
    alike = [network.split(in_a) for network in networks]
    assert [solved.value for solved in solve_planes(networks, alike)] == [
        network.solve(split).value for network, split in zip(networks, alike, strict=True)
    ]
    narrowed = [alike[0], alike[1].copy()]
    for pair in list(networks[1].pair_arc)[:8]:  # plane 1 loses one link of each of 8 bundles
        narrowed[1][networks[1].pair_arc[pair]] -= 1
        narrowed[1][networks[1].pair_arc[pair] ^ 1] -= 1
    first, second = solve_planes(networks, narrowed)
    assert (first.value, second.value) == (networks[0].solve(alike[0]).value, networks[1].solve(narrowed[1]).value)
    assert second.value < first.value


def test_taking_back_the_flow_through_a_link_cancels_a_cycle_of_the_flow_met_on_the_way() -> None:
    """Source s=0, sink t=1, a=2, b=3, c=4: one unit s -> a -> t and one around a -> b -> c -> a. Taking back the
    unit on a -> t walks back from a into the cycle first (its arc is listed first at a); the cycle is cancelled,
    the walk goes on to s, and no flow is left anywhere."""
    head: list[int] = []
    arcs: list[list[int]] = [[] for _ in range(5)]
    split: list[int] = []
    for tail, to, forward, backward in ((4, 2, 1, 1), (0, 2, 2, 0), (2, 3, 1, 1), (3, 4, 1, 1), (2, 1, 1, 0)):
        arcs[tail].append(len(head))
        arcs[to].append(len(head) + 1)
        head += [to, tail]
        split += [forward, backward]
    carried = [1, 1, 1, 1, 1]  # one unit on every arc, forward
    cap = [capacity - (carried[arc // 2] if arc % 2 == 0 else -carried[arc // 2]) for arc, capacity in enumerate(split)]
    flow = _Flow(SimpleNamespace(head=head, arcs=arcs), split, cap)
    flow.reduce(8, 0, 0)  # a -> t down
    assert flow.taken == 1
    assert [flow.split[arc] - flow.cap[arc] for arc in range(0, 10, 2)] == [0, 0, 0, 0, 0]


# runner -------------------------------------------------------------------------------------------


def test_runner_orders_findings_by_check_then_severity_and_counts_outcomes() -> None:
    broken = without(two_tier(), first_link(two_tier(), LEAF_SPINE))
    findings = run(broken)
    order = [module.ID for module in CHECKS]
    keys = [(order.index(f.check), ("error", "warning", "info").index(f.severity)) for f in findings]
    assert keys == sorted(keys)
    assert counts(findings)["failed"] >= 2 and sum(counts(findings).values()) == len(CHECKS)
    assert run(broken) == findings


def test_findings_are_capped_per_kind() -> None:
    design = two_tier()
    asns = [4_200_000_000] * len(design.allocation.asns)
    flat = replace(design, allocation=replace(design.allocation, asns=asns))
    errors = found(flat, "asn")
    assert errors[-1].message.startswith("and ") and errors[-1].evidence["more"] > 0
    assert len(errors) <= 2 * 21


def test_fabric_copies_do_not_share_findings() -> None:
    design = two_tier()
    broken = without(design, 300)
    assert run(broken) != run(design)
    assert run(broken) != list(design.findings) and run(design) == list(design.findings)


# any generated fabric -----------------------------------------------------------------------------


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    servers=st.integers(1, 80),
    leaf=st.sampled_from(["{ports: 16, speed: 400G}", "{ports: 8, speed: 800G}", "{model: generic-32x400g}"]),
    tiers=st.sampled_from(["auto", "3"]),
    server=st.sampled_from(["dgx-h100", "dgx-b300"]),
    four_nics=st.booleans(),
)
def test_every_generated_fabric_passes_with_full_bisection(servers, leaf, tiers, server, four_nics) -> None:
    try:
        design = build_design(
            servers=servers,
            leaf=leaf,
            server=server,
            fabric_extra=f"tiers: {tiers}",
            compute_extra="gpus_per_server: 4\nnics_per_server: 4" if four_nics else "",
        )
    except InputError as error:
        assert "3 tiers hold at most" in str(error) or "fewer than the" in str(error), str(error)
        assume(False)  # a shape the sizing refuses, with a reason
    assert [f for f in design.findings if f.severity != "info"] == []
    plan = design.plan
    assert evidence(design.findings, "bisection-bandwidth", "bisection_tbps") == (
        plan.planes * (plan.servers * plan.rails // 2) * plan.link_speed / 1000
    )

"""Wiring and allocation invariants on 2-tier, 3-tier and multi-plane fabrics."""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

import networkx as nx
import pytest

from designer.backend.allocate import Allocation, ip
from designer.backend.sizing import Plan
from designer.backend.wiring import LEAF_SPINE, SERVER_LEAF, SPINE_SUPER, Fabric
from designer.design import quiet
from designer.errors import InputError
from designer.intent import parse_intent
from designer.pipeline import first_stages
from tests.helpers import intent_text


class Wiring(NamedTuple):
    """What the wiring and allocation stages make of an intent: all these tests read."""

    plan: Plan
    fabric: Fabric
    allocation: Allocation


def build_text(text: str) -> Wiring:
    """Size, wire and allocate intent text (only the stages these tests read)."""
    plan, fabric, allocation = first_stages(parse_intent(text, "test.yaml"), quiet)
    assert allocation is not None
    return Wiring(plan, fabric, allocation)


def build_design(**fields: Any) -> Wiring:
    """:func:`build_text` of an intent made by :func:`tests.helpers.intent_text`."""
    return build_text(intent_text(**fields))


FABRICS = {
    "two-tier": {"servers": 128},
    "three-tier": {"servers": 512},
    "two-planes-breakout": {  # swplb: a /31 per plane link (hwplb shares one per rail, tests/test_multiplane.py)
        "servers": 300,
        "server": "dgx-b300",
        "leaf": "{model: generic-64x800g}",
        "compute_extra": "multiplane: {planes: 2, mode: swplb}",
    },
    "three-tier-breakout": {"gpus": 8192 * 2, "leaf": "{model: generic-64x800g}"},
}


@pytest.fixture(scope="module", params=sorted(FABRICS))
def design(request: pytest.FixtureRequest) -> Wiring:
    return build_design(**FABRICS[request.param])


def test_no_port_is_used_twice_or_beyond_the_hardware(design) -> None:
    devices = design.fabric.devices
    ends = Counter()
    for _, upper, upper_port, lower, lower_port in design.fabric.links:
        ends[upper, upper_port] += 1
        ends[lower, lower_port] += 1
    assert max(ends.values()) == 1
    for device, port in ends:
        assert 0 <= port < devices[device].ports


def test_every_switch_is_one_to_one(design) -> None:
    down, up = Counter(), Counter()
    for _, upper, _, lower, _ in design.fabric.links:
        down[upper] += 1
        up[lower] += 1
    for index, device in enumerate(design.fabric.switches()):
        if device.role == "leaf":
            assert down[index] <= design.plan.leaf_downlinks and up[index] == design.plan.leaf_uplinks
        elif device.role == "spine" and design.plan.tiers == 3:
            assert down[index] <= up[index] == design.plan.spine_uplinks


def test_rail_alignment(design) -> None:
    """NIC i of every server of an SU lands on that SU's leaf of rail i % rails in plane i // rails."""
    devices, plan = design.fabric.devices, design.plan
    for tier, leaf, leaf_port, server, nic in design.fabric.links:
        if tier != SERVER_LEAF:
            continue
        assert devices[leaf].role == "leaf" and devices[server].role == "server"
        assert devices[leaf].su == devices[server].su
        assert (devices[leaf].plane, devices[leaf].rail) == divmod(nic, plan.rails)
        assert leaf_port == devices[server].index


def test_ecmp_balance_from_the_graph(design) -> None:
    """Every leaf has the same number of links to every spine of its pod; every spine to every super-spine of its
    group."""
    devices = design.fabric.devices
    pairs = Counter((upper, lower) for tier, upper, _, lower, _ in design.fabric.links if tier != SERVER_LEAF)
    for index, device in enumerate(devices):
        if device.role == "leaf":
            spines = [
                s
                for s, d in enumerate(devices)
                if d.role == "spine" and d.plane == device.plane and d.pod == device.pod
            ]
            assert {pairs[spine, index] for spine in spines} == {design.plan.leaf_spine_parallel}
        if device.role == "spine" and design.plan.tiers == 3:
            supers = [
                s
                for s, d in enumerate(devices)
                if d.role == "super_spine" and d.plane == device.plane and d.group == device.group
            ]
            assert {pairs[s, index] for s in supers} == {design.plan.spine_super_parallel}


def test_each_plane_is_one_connected_fabric(design) -> None:
    graph = design.fabric.graph()
    switches = design.fabric.switches()
    for plane in range(design.plan.planes):
        nodes = [index for index, device in enumerate(switches) if device.plane == plane]
        assert nx.is_connected(graph.subgraph(nodes))


def test_addresses_are_unique_and_pair_up_in_one_slash_31(design) -> None:
    allocation = design.allocation
    seen = set(allocation.loopbacks)
    assert len(seen) == design.fabric.switch_count
    for number in range(len(design.fabric.links)):
        even, odd = allocation.link_addresses(number)
        assert even % 2 == 0 and odd == even + 1
        assert even not in seen and odd not in seen
        seen.update((even, odd))
    pools = {pool.name: pool for pool in allocation.pools()}
    first_server, _ = allocation.link_addresses(0)
    assert first_server == pools["server_p2p"].first
    last_fabric, _ = allocation.link_addresses(len(design.fabric.links) - 1)
    assert last_fabric < pools["fabric_p2p"].first + pools["fabric_p2p"].size


def test_rfc7938_asns(design) -> None:
    switches, asns = design.fabric.switches(), design.allocation.asns
    by_role: dict[str, set[int]] = {"leaf": set(), "spine": set(), "super_spine": set()}
    for device, asn in zip(switches, asns, strict=True):
        by_role[device.role].add(asn)
    leaves = [d for d in switches if d.role == "leaf"]
    assert len(by_role["leaf"]) == len(leaves)  # every leaf its own
    assert len(by_role["spine"]) == design.plan.planes * design.plan.pods  # a pod's spines share one
    assert len(by_role["super_spine"]) == (design.plan.planes if design.plan.tiers == 3 else 0)
    assert not by_role["leaf"] & by_role["spine"] and not by_role["spine"] & by_role["super_spine"]
    assert all(4_200_000_000 <= asn <= 4_294_967_294 for asn in asns)


def test_links_run_between_adjacent_tiers(design) -> None:
    roles = {SERVER_LEAF: ("leaf", "server"), LEAF_SPINE: ("spine", "leaf"), SPINE_SUPER: ("super_spine", "spine")}
    devices = design.fabric.devices
    for tier, upper, _, lower, _ in design.fabric.links:
        assert (devices[upper].role, devices[lower].role) == roles[tier]
        if tier != SERVER_LEAF:
            assert devices[upper].plane == devices[lower].plane


def test_unique_scheme_gives_every_switch_its_own_asn() -> None:
    design = build_text(intent_text(servers=512, extra="routing: {asn_scheme: unique}"))
    assert len(set(design.allocation.asns)) == design.fabric.switch_count


def test_pinned_spine_asns_and_two_byte_range() -> None:
    design = build_text(intent_text(servers=128, extra="routing: {leaf_asn_start: 64512, spine_asn_start: 65534}"))
    spine_asns = {
        asn for d, asn in zip(design.fabric.switches(), design.allocation.asns, strict=True) if d.role == "spine"
    }
    assert spine_asns == {65534}
    with pytest.raises(InputError, match="leave the private ASN ranges"):
        build_text(intent_text(gpus=65536, leaf="{model: generic-64x800g}", extra="routing: {leaf_asn_start: 64512}"))


def test_names_and_ports_follow_the_documented_convention() -> None:
    design = build_design(servers=512)
    names = [device.name for device in design.fabric.devices]
    assert len(set(names)) == len(names)
    assert {"p0-su0-r0-leaf", "p0-pod3-spine31", "p0-g31-ss1", "su15-srv31"} <= set(names)
    by_name = {device.name: device for device in design.fabric.devices}
    assert by_name["p0-su0-r0-leaf"].port_name(0) == "swp1" and by_name["su0-srv0"].port_name(7) == "nic7"
    breakout = build_design(servers=128, leaf="{model: generic-64x800g}").fabric.devices[0]
    assert [breakout.port_name(p) for p in (0, 1, 2, 127)] == ["swp1s0", "swp1s1", "swp2s0", "swp64s1"]


def test_port_names_table_names_every_port_as_port_name_does(design) -> None:
    names = design.fabric.port_names()
    assert len(names) == len(design.fabric.devices)
    for device, table in zip(design.fabric.devices, names, strict=True):
        assert table == tuple(device.port_name(port) for port in range(device.ports))


def test_the_example_cabling_first_rows() -> None:
    design = build_design(servers=128)
    devices, allocation = design.fabric.devices, design.allocation
    _, leaf, port, server, nic = design.fabric.links[0]
    assert (
        devices[leaf].name,
        devices[leaf].port_name(port),
        devices[server].name,
        devices[server].port_name(nic),
    ) == ("p0-su0-r0-leaf", "swp1", "su0-srv0", "nic0")
    assert [ip(a) for a in allocation.link_addresses(0)] == ["10.16.0.0", "10.16.0.1"]
    first_uplink = design.fabric.server_link_count
    _, spine, spine_port, leaf, leaf_port = design.fabric.links[first_uplink]
    assert (devices[spine].name, devices[spine].port_name(spine_port), devices[leaf].port_name(leaf_port)) == (
        "p0-spine0",
        "swp1",
        "swp33",
    )
    assert [ip(a) for a in allocation.link_addresses(first_uplink)] == ["10.0.0.0", "10.0.0.1"]

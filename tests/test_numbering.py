"""Allocation by structural coordinates: docs/sizing.md's formulas, fixed ASN offsets and default pools laid out for
the envelope."""

from __future__ import annotations

import ipaddress

import pytest

from designer.backend.allocate import Numbering, allocate, default_pools, ip
from designer.backend.sizing import size
from designer.backend.wiring import LEAF_SPINE, SERVER_LEAF, wire
from designer.errors import InputError
from designer.intent import parse_intent
from tests.helpers import build_design, build_text, intent_text


def addressed(text: str):
    """Size, wire and allocate intent text (no physical plan, configs or checks)."""
    intent = parse_intent(text, "test.yaml")
    fabric = wire(intent, size(intent))
    return fabric, allocate(intent, fabric)


def bare(gpus: int, leaf: str = "generic-64x400g", extra: str = "") -> str:
    """An intent with no addressing section: every pool defaults."""
    return f"name: big\ncompute: {{gpus: {gpus}, server: dgx-h100}}\nfabric: {{leaf: {{model: {leaf}}}}}\n{extra}"


def test_every_address_and_asn_follows_the_documented_formulas() -> None:
    """Two planes, 3 tiers (512 dgx-b300, swplb: an address per plane, on 64 x 400G): each switch's loopback and ASN
    and each link's /31,
    computed from docs/sizing.md's table by hand, with L = 128 leaves, S = 128 spines, X = 64 super-spines per plane,
    U = V = 32 uplinks."""
    swplb = "multiplane: {planes: 2, mode: swplb}"
    fabric, allocation = addressed(intent_text(servers=512, server="dgx-b300", compute_extra=swplb))
    plan, devices = fabric.plan, fabric.devices
    assert (
        plan.tiers,
        plan.planes,
        plan.envelope_leaves_per_plane,
        plan.envelope_spines_per_plane,
        plan.envelope_supers_per_plane,
        plan.envelope_pods,
    ) == (3, 2, 128, 128, 64, 4)
    loopbacks, p2p, server = 0x0AFF0000, 0x0A000000, 0x0A100000  # 10.255.0.0, 10.0.0.0, 10.16.0.0
    by_name = {device.name: index for index, device in enumerate(devices)}

    def switch(name: str) -> tuple[str, int]:
        index = by_name[name]
        return ip(allocation.loopbacks[index]), allocation.asns[index]

    assert switch("p1-su3-r7-leaf") == (ip(loopbacks + 128 + 3 * 8 + 7), 4_200_000_000 + 128 + 31)
    assert switch("p1-pod2-spine5") == (ip(loopbacks + 2 * 128 + 128 + 2 * 32 + 5), 4_201_000_000 + 1 * 4 + 2)
    assert switch("p1-g5-ss1") == (ip(loopbacks + 2 * 128 + 2 * 128 + 64 + 5 * 2 + 1), 4_202_000_000 + 1)
    for number, (tier, upper, upper_port, lower, lower_port) in enumerate(fabric.links):
        low = devices[lower]
        if tier == SERVER_LEAF:
            leaf = devices[upper]
            expected = server + (leaf.plane * 128 + leaf.su * 8 + leaf.rail) * 64 + 2 * upper_port
        elif tier == LEAF_SPINE:
            expected = p2p + 2 * ((low.plane * 128 + low.su * 8 + low.rail) * 32 + lower_port - 32)
        else:
            expected = (
                p2p + 2 * 2 * 128 * 32 + 2 * ((low.plane * 128 + low.pod * 32 + low.index) * 32 + lower_port - 32)
            )
        assert allocation.link_addresses(number) == (expected, expected + 1)


def test_default_asn_starts_are_fixed_offsets_not_after_the_leaves() -> None:
    for servers in (32, 64, 256):
        design = build_design(servers=servers)
        spines = {
            asn
            for device, asn in zip(design.fabric.switches(), design.allocation.asns, strict=True)
            if device.role == "spine"
        }
        assert spines == {4_201_000_000}
    unique = build_text(intent_text(servers=512, extra="routing: {asn_scheme: unique, leaf_asn_start: 4210000000}"))
    first = {
        device.role: asn
        for device, asn in reversed(list(zip(unique.fabric.switches(), unique.allocation.asns, strict=True)))
    }
    assert first == {"leaf": 4_210_000_000, "spine": 4_211_000_000, "super_spine": 4_212_000_000}


def test_two_byte_leaf_asns_need_pinned_spine_asns() -> None:
    with pytest.raises(InputError) as error:
        build_text(intent_text(servers=32, extra="routing: {leaf_asn_start: 64512}"))
    assert "routing.spine_asn_start: the 1 spine ASNs 1064512-1064512 leave the private ASN ranges" in str(error.value)


def test_a_131072_gpu_intent_without_addressing_gets_disjoint_pools_sized_for_it() -> None:
    fabric, allocation = addressed(bare(131072, "generic-64x800g"))
    assert [(pool.name, pool.cidr, pool.given) for pool in allocation.pools()] == [
        ("fabric_p2p", "10.0.0.0/13", False),
        ("server_p2p", "10.8.0.0/14", False),
        ("loopbacks", "10.255.0.0/19", False),
    ]
    assert [pool.used for pool in allocation.pools()] == [524_288, 262_144, 5_120]
    networks = {pool.name: ipaddress.ip_network(pool.cidr) for pool in allocation.pools()}
    last = allocation.link_addresses(len(fabric.links) - 1)[1]
    assert ipaddress.ip_address(last) in networks["fabric_p2p"]


def test_small_fabrics_keep_the_familiar_default_pools() -> None:
    _, allocation = addressed(bare(1024))
    assert [pool.cidr for pool in allocation.pools()] == ["10.0.0.0/15", "10.2.0.0/15", "10.255.0.0/20"]


def test_default_pools_avoid_the_pools_the_intent_gives() -> None:
    """Following the hint for a too-small fabric_p2p no longer lands it on the default server_p2p."""
    _, allocation = addressed(bare(65536, extra="addressing: {fabric_p2p: 10.0.0.0/14}\n"))
    assert [pool.cidr for pool in allocation.pools()] == ["10.0.0.0/14", "10.4.0.0/15", "10.255.0.0/19"]
    _, allocation = addressed(bare(1024, extra="addressing: {loopbacks: 10.0.0.0/20}\n"))
    assert [pool.cidr for pool in allocation.pools()] == ["10.2.0.0/15", "10.4.0.0/15", "10.0.0.0/20"]
    _, allocation = addressed(bare(1024, extra="addressing: {fabric_p2p: 10.255.0.0/16}\n"))
    assert [pool.cidr for pool in allocation.pools()] == ["10.255.0.0/16", "10.0.0.0/15", "10.2.0.0/20"]


def test_default_pools_need_room_in_ten_slash_eight() -> None:
    needed = {"fabric_p2p": 1 << 23, "server_p2p": 1 << 23, "loopbacks": 1 << 12}
    assert default_pools(needed, {"fabric_p2p": (0x0A000000, 1 << 20)}) == {
        "server_p2p": (0x0A800000, 1 << 23),
        "loopbacks": (0x0A100000, 1 << 12),
    }  # 10.255.0.0 is taken
    with pytest.raises(InputError, match=r"no free block of 10\.0\.0\.0/8 holds a default fabric_p2p"):
        addressed(bare(1024, extra="addressing: {server_p2p: 10.0.0.0/9, loopbacks: 10.128.0.0/9}\n"))


def test_numbering_needs_are_what_the_envelope_uses() -> None:
    plan = size(parse_intent(bare(4096), "test.yaml"))
    numbering = Numbering.of(plan)
    assert numbering.needed() == {"fabric_p2p": 2 * 2 * 4096, "server_p2p": 128 * 64, "loopbacks": 128 + 128 + 64}

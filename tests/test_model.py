"""The vendor-neutral device model: interfaces, sessions, ECMP width and the QoS profile, from the design."""

from __future__ import annotations

import csv
import ipaddress
import math
from collections import Counter

import pytest

from designer.backend.allocate import ip
from designer.backend.model import Headroom, headroom
from designer.backend.wiring import SERVER_LEAF
from designer.catalog import catalog
from designer.design import Design
from designer.errors import InputError
from designer.intent import parse_intent
from designer.outputs.summary import summary_markdown
from designer.pipeline import build
from tests.conftest import ROOT
from tests.helpers import build_text, intent_text

INTENTS = ROOT / "tests" / "intents"


@pytest.fixture(scope="module", params=["small-2tier", "small-3tier"])
def small(request: pytest.FixtureRequest) -> Design:
    return build(INTENTS / f"{request.param}.yaml")


def test_one_model_per_switch_in_fabric_order(small: Design) -> None:
    assert [config.hostname for config in small.configs] == [device.name for device in small.fabric.switches()]
    for index, config in enumerate(small.configs):
        assert config.asn == config.bgp.asn == small.allocation.asns[index]
        assert config.loopback == f"{ip(small.allocation.loopbacks[index])}/32"
        assert config.router_id == config.bgp.router_id == config.loopback.removesuffix("/32")


def test_every_link_is_two_interfaces_with_the_two_ends_of_its_31(small: Design) -> None:
    by_device = {config.hostname: {iface.name: iface for iface in config.interfaces} for config in small.configs}
    devices = small.fabric.devices
    for number, (tier, upper, upper_port, lower, lower_port) in enumerate(small.fabric.links):
        even, odd = small.allocation.link_addresses(number)
        up_name, low_name = devices[upper].port_name(upper_port), devices[lower].port_name(lower_port)
        up = by_device[devices[upper].name][up_name]
        assert (up.address, up.peer_device, up.peer_interface, up.peer_address) == (
            f"{ip(even)}/31",
            devices[lower].name,
            low_name,
            ip(odd),
        )
        if tier == SERVER_LEAF:
            assert up.role == "server"
            continue
        low = by_device[devices[lower].name][low_name]
        assert (low.address, low.peer_device, low.peer_interface, low.peer_address, low.role) == (
            f"{ip(odd)}/31",
            devices[upper].name,
            up_name,
            ip(even),
            "fabric",
        )
    links, server_links = len(small.fabric.links), small.fabric.server_link_count
    assert sum(len(ports) for ports in by_device.values()) == 2 * links - server_links


def test_every_session_has_its_reciprocal(small: Design) -> None:
    sessions = {
        (config.hostname, n.local_address, n.address, config.asn, n.remote_asn, n.peer_device)
        for config in small.configs
        for n in config.bgp.neighbors
    }
    assert len(sessions) == 2 * (len(small.fabric.links) - small.fabric.server_link_count)
    for host, local, remote, asn, remote_asn, peer in sessions:
        assert (peer, remote, local, remote_asn, asn, host) in sessions
    for config in small.configs:
        for neighbor in config.bgp.neighbors:
            assert neighbor.remote_asn != config.asn, "a fabric session must be eBGP"


def test_maximum_paths_is_the_ecmp_width() -> None:
    two = build(INTENTS / "small-2tier.yaml")
    paths = {config.role: config.bgp.maximum_paths for config in two.configs}
    assert paths == {"leaf": two.plan.leaf_uplinks, "spine": two.plan.leaf_spine_parallel}
    assert paths["spine"] == 2
    three = build(INTENTS / "small-3tier.yaml")
    paths = {config.role: config.bgp.maximum_paths for config in three.configs}
    assert paths == {
        "leaf": three.plan.leaf_uplinks,
        "spine": three.plan.spine_uplinks,
        "super_spine": three.plan.spine_super_parallel,
    }


def test_leaves_advertise_loopback_and_server_subnets_others_only_loopback(small: Design) -> None:
    for config in small.configs:
        servers = [iface.address for iface in config.interfaces if iface.role == "server"]
        assert config.bgp.networks == (config.loopback, *servers)
        assert len(servers) == (small.plan.leaf_downlinks if config.role == "leaf" else 0)
        assert all(int(address.split(".")[-1].split("/")[0]) % 2 == 0 for address in servers)


def test_a_leaf_announces_its_server_subnets_as_one_aligned_block(small: Design) -> None:
    for config in small.configs:
        servers = [
            ipaddress.ip_interface(iface.address).network for iface in config.interfaces if iface.role == "server"
        ]
        if config.role != "leaf":
            assert config.bgp.aggregates == () and config.bgp.announced == (config.loopback,)
            continue
        (block,) = config.bgp.aggregates
        network = ipaddress.ip_network(block)  # strict: aligned on its own size
        assert all(server.subnet_of(network) for server in servers)
        assert network.num_addresses == 1 << (2 * small.plan.servers_per_su - 1).bit_length()
        assert config.bgp.announced == (config.loopback, block)
    blocks = [config.bgp.aggregates[0] for config in small.configs if config.role == "leaf"]
    networks = [ipaddress.ip_network(block) for block in blocks]
    assert not any(a.overlaps(b) for index, a in enumerate(networks) for b in networks[:index])


def test_every_server_31_announced_when_asked() -> None:
    design = build_text(intent_text(servers=64, extra="routing: {server_subnets: each}"))
    leaf = design.configs[0]
    assert leaf.bgp.aggregates == ()
    assert leaf.bgp.announced == leaf.bgp.networks and len(leaf.bgp.announced) == 1 + 32


def test_breakout_lanes_and_physical_ports() -> None:
    design = build(INTENTS / "small-2tier.yaml")
    leaf = design.configs[0]
    assert (leaf.physical_ports, leaf.port_speed_gbps, leaf.breakout, leaf.serdes_lanes) == (4, 800, 2, 8)
    assert [(i.name, i.port, i.lane, i.lanes, i.first_lane) for i in leaf.interfaces[:3]] == [
        ("swp1s0", 1, 0, 4, 0),
        ("swp1s1", 1, 1, 4, 4),
        ("swp2s0", 2, 0, 4, 0),
    ]
    spine = next(config for config in design.configs if config.role == "spine")
    assert (spine.physical_ports, spine.breakout) == (8, 1)
    assert {(i.name, i.port, i.lane, i.lanes, i.speed_gbps) for i in spine.interfaces[:1]} == {("swp1", 1, 0, 8, 400)}


def test_bfd_and_timers_reach_every_session() -> None:
    design = build(INTENTS / "small-2tier.yaml")
    assert {(c.bgp.bfd.interval_ms, c.bgp.bfd.multiplier, c.bgp.keepalive, c.bgp.hold) for c in design.configs} == {
        (300, 3, 3, 9)
    }
    assert build(INTENTS / "small-3tier.yaml").configs[0].bgp.bfd is None


def test_qos_profile_values_and_one_shared_object() -> None:
    design = build(INTENTS / "small-3tier.yaml")
    qos = design.configs[0].qos
    assert all(config.qos is qos for config in design.configs)
    assert (qos.profile, qos.roce_dscp, qos.lossless_priority, qos.pfc_priorities, qos.cnp_dscp, qos.cnp_priority) == (
        "cisco",
        26,
        3,
        (3,),
        48,
        7,
    )
    assert (qos.ecn_min_bytes, qos.ecn_max_bytes, qos.ecn_probability, qos.mtu) == (150 * 1024, 3000 * 1024, 7, 9216)
    assert Counter(qos.dscp_to_tc) == {0: 62, 3: 1, 7: 1}
    assert qos.dscp_to_tc[26] == 3 and qos.dscp_to_tc[48] == 7
    assert qos.tc_dscps == ((0, tuple(d for d in range(64) if d not in (26, 48))), (3, (26,)), (7, (48,)))
    assert qos.dwrr_weights == ((0, 50), (3, 50))
    assert qos.priority_queues == (0, 0, 0, 3, 0, 0, 0, 7)


def test_headroom_formula_by_hand() -> None:
    spec = parse_intent(intent_text(servers=4)).qos
    # 2 x (100 m x 5 ns/m + 1,000 ns) x 50 bytes/ns at 400G + 2 x 9,216-byte frames; xon two frames
    assert headroom(spec, 400, 100, None) == Headroom(400, 100, 168_432 + 18_432, 18_432, 168_432, False)
    assert headroom(spec, 800, 100, None).xoff == 2 * 1500 * 100 + 2 * 9216
    assert headroom(spec, 400, 100, catalog().switch_facts["nvidia-sn5600"]).xoff > 168_432


def vendor_lookup(hwsku: str) -> dict[tuple[int, int], tuple[int, int, int]]:
    """NVIDIA's lossless headroom rows of ``hwsku``, (Gb/s, m) -> (size, xon, xoff), read from the test data derived
    from sonic-buildimage device/mellanox/<platform>/<hwsku>/pg_profile_lookup.ini."""
    with (ROOT / "tests" / "vendor" / "sonic" / "pg_profile_lookup.csv").open() as rows:
        return {
            (int(row["speed_mbps"]) // 1000, int(row["cable"].removesuffix("m"))): (
                int(row["size"]),
                int(row["xon"]),
                int(row["xoff"]),
            )
            for row in csv.DictReader(rows)
            if hwsku in row["hwskus"].split()
        }


@pytest.mark.parametrize(
    ("model", "hwsku"), [("nvidia-sn5600", "Mellanox-SN5600-O128"), ("nvidia-sn4700", "ACS-MSN4700")]
)
def test_the_catalog_carries_the_vendors_headroom_lookup(model: str, hwsku: str) -> None:
    facts = catalog().switch_facts[model]
    assert {
        (speed, cable): row for speed, rows in facts.headroom.items() for cable, row in rows.items()
    } == vendor_lookup(hwsku)


@pytest.mark.parametrize(
    ("model", "hwsku"), [("nvidia-sn5600", "Mellanox-SN5600-V256"), ("nvidia-sn4700", "Mellanox-SN4700-O32")]
)
def test_a_sku_with_its_own_lookup_carries_it_and_sizes_its_ports_by_it(model: str, hwsku: str) -> None:
    """The shared-headroom SKUs have their own pg_profile_lookup.ini (O32's links to Mellanox-SN4700-O8C48's):
    size = xon, a smaller xoff than the switch's default SKU, and for O32 1500 m and 2000 m rows."""
    facts = catalog().switch_facts[model]
    sku = next(sku for sku in facts.sonic.skus if sku.hwsku == hwsku)
    assert sku.headroom is not None and sku.headroom != facts.headroom
    assert {
        (speed, cable): row for speed, rows in sku.headroom.items() for cable, row in rows.items()
    } == vendor_lookup(hwsku)
    spec = parse_intent(intent_text(servers=4)).qos
    size, xon, xoff = vendor_lookup(hwsku)[400, 300]
    assert headroom(spec, 400, 100, facts, sku) == Headroom(400, 300, size, xon, xoff, True)


def test_vendor_headroom_is_the_next_longer_tabulated_cable_never_a_shorter_one() -> None:
    """Old model: one headroom for the whole fabric, 168,432 bytes xoff at 400G and 100 m, below NVIDIA's own
    231,424 bytes at 5 m for the SN5600 (pg_profile_lookup.ini of Mellanox-SN5600-O128)."""
    spec = parse_intent(intent_text(servers=4)).qos
    facts = catalog().switch_facts["nvidia-sn5600"]
    rows = vendor_lookup("Mellanox-SN5600-O128")
    for cable, tabulated in ((1, 5), (5, 5), (6, 40), (40, 40), (41, 300), (300, 300)):
        size, xon, xoff = rows[400, tabulated]
        assert headroom(spec, 400, cable, facts) == Headroom(400, tabulated, size, xon, xoff, True)
    assert headroom(spec, 400, 301, facts) == headroom(spec, 400, 301, None)  # beyond the table: first order


def test_each_port_is_sized_for_its_own_cable_from_the_physical_plan() -> None:
    design = build_text(intent_text(servers=64, leaf="{model: nvidia-sn5600}", spine="{model: generic-64x800g}"))
    configs = {config.hostname: config for config in design.configs}
    devices = design.fabric.devices
    rows = vendor_lookup("Mellanox-SN5600-O128")
    seen = set()
    for number, (_, upper, upper_port, _, _) in enumerate(design.fabric.links):
        cable = math.ceil(design.physical.link_length_dm[number] / 10)
        config = configs[devices[upper].name]
        room = next(iface.headroom for iface in config.interfaces if iface.name == devices[upper].port_name(upper_port))
        if config.model == "nvidia-sn5600":
            tabulated = min(length for speed, length in rows if speed == 400 and length >= cable)
            assert (room.cable_m, room.vendor, (room.size, room.xon, room.xoff)) == (
                tabulated,
                True,
                rows[400, tabulated],
            )
        else:
            assert room == headroom(design.intent.qos, 400, cable, None)
        seen.add((config.model, room.cable_m))
    assert len({length for _, length in seen}) > 1  # the cables differ, and so do the headrooms


def test_summary_says_where_each_models_headroom_comes_from() -> None:
    design = build_text(intent_text(servers=64, leaf="{model: nvidia-sn5600}", spine="{model: generic-64x800g}"))
    text = summary_markdown(design)
    line = next(line for line in text.splitlines() if line.startswith("PFC headroom"))
    assert "nvidia-sn5600 from its vendor's lookup" in line and "231,424 bytes at 5 m" in line
    assert "generic-64x800g first-order estimate, not a vendor figure" in line


def test_overrides_win_over_the_profile_field_by_field() -> None:
    design = build_text(
        intent_text(servers=4, extra="qos: {profile: nvidia, ecn_max: 2000000, cnp_priority: 7, mtu: 9000}")
    )
    qos = design.configs[0].qos
    assert (qos.ecn_min_bytes, qos.ecn_max_bytes, qos.cnp_priority, qos.mtu, qos.ecn_probability) == (
        153600,
        2_000_000,
        7,
        9000,
        100,
    )
    assert {iface.mtu for iface in design.configs[0].interfaces} == {9000}


def test_percent_profile_converts_with_queue_bytes() -> None:
    design = build_text(intent_text(servers=4, extra="qos: {profile: juniper, queue_bytes: 2000000}"))
    qos = design.configs[0].qos
    assert (qos.ecn_unit, qos.ecn_min, qos.ecn_max, qos.ecn_min_bytes, qos.ecn_max_bytes) == (
        "percent",
        55,
        90,
        1_100_000,
        1_800_000,
    )
    assert (qos.cnp_priority, qos.cnp_rate_percent) == (5, 5)


@pytest.mark.parametrize(
    ("extra", "field", "words"),
    [
        ("qos: {ecn_min: 2000000}", "qos.ecn_min", "must be below ecn_max"),
        ("qos: {profile: juniper}", "qos.profile", "give qos.queue_bytes"),
        ("qos: {profile: juniper, queue_bytes: 1000000, ecn_max: 120}", "qos.ecn_max", "not a percentage"),
        ("qos: {cnp_priority: 3}", "qos.cnp_priority", "share priority 3"),
        ("qos: {cnp_dscp: 26}", "qos.cnp_dscp", "share DSCP 26"),
        ("qos: {roce_priority: 0}", "qos.roce_priority", "priority 0"),
        ("qos: {profile: arista}", "qos.profile", "'nvidia', 'cisco' or 'juniper'"),
        ("qos: {mtu: 10000}", "qos.mtu", "less than or equal to 9216"),
        ("routing: {timers: {keepalive: 5, hold: 9}}", "routing.timers.hold", "hold >= 15"),
        ("routing: {bfd: {enabled: yes, interval: 100}}", "routing.bfd.interval", "did you mean 'interval_ms'"),
        ("targets: [frr, eos, frr]", "targets[2]", "listed twice"),
        ("targets: [frr, junos]", "targets[1]", "'sonic', 'frr', 'eos', 'nvue' or 'opensm'"),
        ("targets: []", "targets", "at least 1 item"),
        ("targets: [eos, sonic]", "targets[1]", "add frr to targets"),
    ],
)
def test_bad_config_settings_name_the_field(extra: str, field: str, words: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_intent(intent_text(servers=4, extra=extra), "test.yaml")
    text = str(caught.value)
    assert f": {field}: " in text and words in text, text

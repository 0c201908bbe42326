"""The networks beside the backend: the intent's ``networks`` and ``management`` sections resolved into the specs
each network's stages read, and the backend alone when none is declared."""

from __future__ import annotations

import pytest

from designer.backend.allocate import allocate, ip
from designer.backend.sizing import size
from designer.backend.wiring import wire
from designer.errors import InputError
from designer.intent import parse_intent
from designer.intent.fields import ratio_parser
from designer.intent.networks_section import Networks
from designer.networks.allocate import NetworkAllocation, allocate_network, overlapping
from designer.networks.oob import Managed, RackPorts, design_oob
from designer.networks.sizing import size_network
from designer.networks.wiring import NetworkFabric, wire_network

BACKEND = """
name: four
compute: {servers: 32, server: dgx-h100}
fabric: {leaf: {model: generic-64x400g}}
targets: [sonic, frr]
"""
FOUR = (
    BACKEND
    + """
networks:
  frontend: {nics_per_server: 2, nic_speed: 200G, dual_homing: bgp, oversubscription: "3:1"}
  storage:  {nics_per_server: 2, nic_speed: 200G, oversubscription: 1, lossless: true,
             storage_nodes: {count: 16, nics_per_server: 2, nic_speed: 400G}}
  oob: {}
management: {ntp: [192.0.2.1], syslog: [192.0.2.2], dns: [192.0.2.53], domain: example.net}
"""
)


def test_no_networks_declared_leaves_the_backend_alone() -> None:
    intent = parse_intent(BACKEND)
    assert intent.networks == Networks()
    assert intent.networks.declared == ()


def test_the_issue_example_resolves_every_network() -> None:
    networks = parse_intent(FOUR).networks
    assert networks.declared == ("frontend", "storage", "oob")
    frontend, storage, oob = networks.frontend, networks.storage, networks.oob
    assert frontend is not None and storage is not None and oob is not None
    assert (frontend.nics_per_server, frontend.nic_speed, frontend.oversubscription) == (2, 200, 3.0)
    assert (frontend.dual_homing, frontend.leaves_per_rack) == ("bgp", 2)
    assert (frontend.border_leaves, frontend.core_uplinks, frontend.core_uplink_speed) == (2, 4, 400)
    assert frontend.leaf.model == "generic-64x400g"  # the backend leaf's hardware by default
    assert (storage.leaves_per_rack, storage.lossless, storage.border_leaves) == (1, True, 0)
    assert storage.storage_nodes is not None and (storage.storage_nodes.count, storage.storage_nodes.nic_speed) == (
        16,
        400,
    )
    # NVIDIA SN2201: 48 x 1G access ports and 4 x 100G uplinks (catalog.yaml, after NetBox's device type library).
    assert (oob.switch.name, oob.switch.ports, oob.switch.uplinks, oob.switch.uplink_speed) == (
        "nvidia-sn2201",
        48,
        4,
        100,
    )
    assert (oob.bmcs_per_server, oob.host_management, oob.pool) == (1, False, None)
    assert networks.management.ntp == ("192.0.2.1",)
    assert (networks.management.vrf, networks.management.domain) == ("mgmt", "example.net")


def test_a_network_takes_its_own_switches_and_the_management_switch_its_fields() -> None:
    intent = parse_intent(
        BACKEND
        + """
networks:
  inband: {nics_per_server: 1, nic_speed: 100G, leaf: {model: generic-32x400g}, spine: {model: nvidia-sn5600}}
  oob: {switch: {uplinks: 2, power_w: 80}, host_management: true, managed_per_rack: 2, pool: 192.168.0.0/20}
"""
    )
    inband, oob = intent.networks.inband, intent.networks.oob
    assert inband is not None and oob is not None
    assert (inband.leaf.model, inband.spine.model, inband.leaves_per_rack) == ("generic-32x400g", "nvidia-sn5600", 1)
    assert (oob.switch.ports, oob.switch.uplinks, oob.switch.power_w) == (48, 2, 80)
    assert (oob.host_management, oob.managed_per_rack, oob.pool) == (True, 2, "192.168.0.0/20")


@pytest.mark.parametrize(("written", "ratio"), [(1, 1.0), (3, 3.0), ("3:1", 3.0), ("5:2", 2.5), (" 2 ", 2.0)])
def test_an_oversubscription_is_a_number_or_a_ratio(written: object, ratio: float) -> None:
    assert ratio_parser(1)(written) == ratio


@pytest.mark.parametrize("written", ["1:2", 0.5, "three", True, "3:0", 65])
def test_an_oversubscription_below_1_or_not_a_ratio_is_refused(written: object) -> None:
    with pytest.raises(ValueError, match="ratio"):
        ratio_parser(1)(written)


def test_lossless_storage_is_refused_where_a_target_writes_no_qos_but_frr_beside_sonic_carries_none() -> None:
    lossless = "networks: {storage: {lossless: true}}\n"
    assert parse_intent(BACKEND + lossless).networks.storage is not None  # SONiC writes the QoS, FRR its BGP
    with pytest.raises(InputError, match=r"networks\.storage\.lossless: FRR configurations write no QoS"):
        parse_intent(BACKEND.replace("[sonic, frr]", "[frr, eos]") + lossless)
    assert parse_intent(BACKEND.replace("[sonic, frr]", "[frr]") + "networks: {storage: {}}\n").networks.storage


def _network(text: str, name: str, servers: int, max_servers: int, per_rack: int = 4) -> NetworkFabric:
    spec = getattr(parse_intent(text).networks, name)
    plan = size_network(spec, servers, max_servers, per_rack)
    return wire_network(spec, plan, [f"srv{number}" for number in range(servers)])


def _cables(fabric: NetworkFabric) -> set[tuple[str, str, str, str]]:
    devices = fabric.devices
    return {
        (devices[upper].name, devices[upper].port_name(up), devices[lower].name, devices[lower].port_name(down))
        for _, upper, up, lower, down in fabric.links
    }


def test_the_frontend_is_sized_from_its_own_ports_and_ratio() -> None:
    plan = _network(FOUR, "frontend", 32, 32).plan
    # 64 x 400G leaves at 3:1: 16 ports up, 48 down broken out into 96 x 200G; one NIC port of each server on each
    # leaf of the pair, so a pair holds 96 servers: 24 racks of 4.
    assert (plan.leaf_uplinks, plan.leaf_down_ports, plan.leaf_downlinks, plan.ratio) == (16, 48, 96, 3.0)
    assert (plan.servers_per_group, plan.groups, plan.leaves_per_group, plan.nics_per_leaf) == (96, 1, 2, 1)
    # 2 border leaves and one pair: 4 leaves x 16 uplinks fit one 64-port spine; at least 2 spines, dividing 16.
    assert (plan.leaves, plan.spines, plan.leaf_spine_parallel) == (4, 2, 8)
    assert (plan.core_uplinks, plan.core_downlinks, plan.core_uplink_speed) == (4, 48, 400)


def test_a_declared_ratio_is_never_exceeded_and_a_group_holds_whole_racks() -> None:
    for ratio in ("1", "2:1", "3:1", "2.5", "7:2"):
        text = FOUR.replace('oversubscription: "3:1"', f'oversubscription: "{ratio}"')
        plan = _network(text, "frontend", 32, 32, per_rack=5).plan
        assert plan.ratio <= ratio_parser(1)(ratio)
        assert plan.servers_per_group % 5 == 0
        assert plan.servers_per_group * plan.nics_per_leaf <= plan.leaf_downlinks


def test_every_dual_homed_server_reaches_both_leaves_of_its_pair_and_every_port_is_used_once() -> None:
    fabric = _network(FOUR, "frontend", 200, 200)
    devices = fabric.devices
    ends = [(upper, up) for _, upper, up, _, _ in fabric.links] + [(lower, down) for *_, lower, down in fabric.links]
    assert len(ends) == len(set(ends))
    assert all(port < devices[device].ports for device, port in ends)
    leaves: dict[str, set[str]] = {}
    for _, upper, _, lower, _ in fabric.links[: fabric.server_link_count]:
        leaves.setdefault(devices[lower].name, set()).add(devices[upper].name)
    assert len(leaves) == 200
    assert all(len(pair) == 2 and len({name.rsplit("-", 1)[0] for name in pair}) == 1 for pair in leaves.values())
    spines = {devices[upper].name for tier, upper, *_ in fabric.links if tier == 1}
    assert spines == {f"fe-spine{index}" for index in range(fabric.plan.spines)}


def test_storage_servers_get_leaf_groups_of_their_own() -> None:
    fabric = _network(FOUR, "storage", 32, 32)
    plan = fabric.plan
    # 1:1 on 64 x 400G: 32 ports down; 2 x 400G storage NICs on one leaf take 2 ports: 16 storage servers a leaf.
    assert (plan.storage_per_group, plan.storage_groups, plan.leaves_per_group) == (16, 1, 1)
    storage = [device for device in fabric.devices if device.role == "storage"]
    assert [device.name for device in storage] == [f"storage{number}" for number in range(16)]
    assert {name for name, *_ in _cables(fabric) if name.startswith("st-sg")} == {"st-sg0-leaf0"}


def test_growing_inside_the_envelope_moves_no_cable_of_the_frontend_or_storage() -> None:
    for name in ("frontend", "storage"):
        text = FOUR.replace('oversubscription: "3:1"', 'oversubscription: "1:1"')  # small groups: several of them
        small, large = _network(text, name, 100, 400), _network(text, name, 400, 400)
        assert small.plan.spines == large.plan.spines and small.plan.groups < large.plan.groups
        assert _cables(small) <= _cables(large)
        assert {device.name for device in small.devices} <= {device.name for device in large.devices}


def test_an_envelope_beyond_two_tiers_of_the_network_is_refused_with_what_would_fit() -> None:
    text = FOUR.replace('oversubscription: "3:1"', "oversubscription: 1")
    with pytest.raises(InputError, match="leaves of the envelope need more than the 64 ports"):
        _network(text, "frontend", 32, 4000)


def _allocated(text: str, servers: int, max_servers: int) -> dict[str, tuple[NetworkFabric, NetworkAllocation]]:
    """Every data network of ``text`` wired and allocated beside the backend, each clear of the pools before it."""
    intent = parse_intent(text)
    backend = allocate(intent, wire(intent, size(intent)))
    taken = list(backend.pools())
    done = {}
    for spec in intent.networks.data_networks:
        plan = size_network(spec, servers, max_servers, 4)
        fabric = wire_network(spec, plan, [f"srv{number}" for number in range(servers)])
        done[spec.name] = (fabric, allocate_network(spec, fabric, taken, intent.routing.leaf_asn_start, max_servers))
        taken.extend(done[spec.name][1].pools)
    return done


def test_every_network_has_its_own_pools_beside_the_backend_and_none_overlap() -> None:
    intent = parse_intent(FOUR)
    backend = allocate(intent, wire(intent, size(intent)))
    networks = _allocated(FOUR, 32, 32)
    pools = [("backend", pool) for pool in backend.pools()]
    pools += [(name, pool) for name, (_, allocation) in networks.items() for pool in allocation.pools]
    assert len(pools) == 9 and overlapping(pools) == []
    assert [pool.cidr for pool in networks["frontend"][1].pools] == ["10.4.0.0/15", "10.6.0.0/15", "10.8.0.0/20"]
    assert overlapping([("a", pools[0][1]), ("b", pools[0][1])])  # the check itself sees an overlap


def test_addresses_and_asns_come_from_structure() -> None:
    fabric, allocation = _allocated(FOUR, 200, 200)["frontend"]
    assert len(set(allocation.evens)) == len(fabric.links) and all(even % 2 == 0 for even in allocation.evens)
    assert len(set(allocation.loopbacks)) == fabric.switch_count
    leaves = [asn for device, asn in zip(fabric.switches(), allocation.asns, strict=True) if device.role != "spine"]
    spines = {asn for device, asn in zip(fabric.switches(), allocation.asns, strict=True) if device.role == "spine"}
    assert len(set(leaves)) == len(leaves) and min(leaves) == 4_203_000_000  # backend leaf_asn_start + 3 million
    assert spines == {4_204_000_000}


def test_growing_inside_the_envelope_moves_no_address_or_asn_of_any_network() -> None:
    def by_cable(done: dict[str, tuple[NetworkFabric, NetworkAllocation]]) -> dict[tuple[str, ...], int]:
        found = {}
        for name, (fabric, allocation) in done.items():
            devices = fabric.devices
            for (_, upper, port, lower, _), even in zip(fabric.links, allocation.evens, strict=True):
                found[name, devices[upper].name, devices[upper].port_name(port), devices[lower].name] = even
            for device, loopback, asn in zip(fabric.switches(), allocation.loopbacks, allocation.asns, strict=False):
                found[name, device.name, "lo", str(asn)] = loopback
        return found

    text = FOUR.replace('oversubscription: "3:1"', "oversubscription: 1").replace("servers: 32", "servers: 100")
    text = text.replace("targets:", "growth: {max_servers: 400}\ntargets:")
    small, large = by_cable(_allocated(text, 100, 400)), by_cable(_allocated(text, 400, 400))
    assert len(small) < len(large)
    assert {key: large.get(key) for key in small} == small


def test_a_given_pool_too_small_for_the_network_is_refused() -> None:
    text = FOUR.replace("oversubscription: 1,", "oversubscription: 1, addressing: {loopbacks: 10.200.0.0/31},")
    with pytest.raises(InputError, match=r"10\.200\.0\.0/31 holds 2 addresses but the network's envelope needs"):
        _allocated(text, 32, 32)


def _racks(built: int, per_rack: int = 4, racks: int = 3) -> list[RackPorts]:
    """Compute racks of ``per_rack`` server slots, the first ``built`` servers built: each slot a BMC position."""
    return [
        RackPorts(
            f"r00-{rack:02d}",
            rack,
            tuple(
                Managed(f"srv{number}", "bmc") if number < built else None
                for number in range(rack * per_rack, (rack + 1) * per_rack)
            ),
        )
        for rack in range(racks)
    ]


def test_every_management_port_gets_a_cable_and_one_address_from_structure() -> None:
    spec = parse_intent(FOUR).networks.oob
    assert spec is not None
    oob = design_oob(spec, _racks(12), 3, [])
    # 4 BMCs a rack fit one 48-port SN2201; its 4 x 100G uplinks over 2 OOB spines (64 x 400G broken out: 256 ports).
    assert (oob.switches_per_rack, oob.spines, oob.block) == (1, 2, 64)
    assert oob.switches == ("r00-00-mgmt0", "r00-01-mgmt0", "r00-02-mgmt0", "oob-spine0", "oob-spine1")
    addresses = [access.address for access in oob.access] + list(oob.gateways)
    assert len(oob.access) == 12 and len(set(addresses)) == len(addresses)
    assert all(oob.pool.first <= address < oob.pool.first + oob.pool.size for address in addresses)
    first = oob.access[0]
    assert (first.managed.device, first.port, ip(first.address), oob.subnet(0)) == (
        "srv0",
        0,
        "10.0.0.2",
        "10.0.0.0/26",
    )
    assert ip(oob.gateways[0]) == "10.0.0.1"
    ends = [(spine, port) for spine, port, _, _ in oob.uplinks]
    assert len(oob.uplinks) == 12 and len(set(ends)) == 12


def test_a_management_network_filling_up_moves_nothing() -> None:
    spec = parse_intent(FOUR).networks.oob
    assert spec is not None
    small, large = design_oob(spec, _racks(5), 3, []), design_oob(spec, _racks(12), 3, [])
    cables = {(small.switches[a.switch], a.port, a.managed, a.address) for a in small.access}
    assert cables < {(large.switches[a.switch], a.port, a.managed, a.address) for a in large.access}
    assert small.uplinks == large.uplinks and small.uplink_evens == large.uplink_evens


def test_the_management_pool_lies_beside_the_others_or_is_refused_when_too_small() -> None:
    intent = parse_intent(FOUR)
    backend = allocate(intent, wire(intent, size(intent)))
    assert intent.networks.oob is not None
    oob = design_oob(intent.networks.oob, _racks(12), 3, backend.pools())
    assert overlapping([("backend", pool) for pool in backend.pools()] + [("oob", oob.pool)]) == []
    small = parse_intent(FOUR.replace("oob: {}", "oob: {pool: 192.168.0.0/28}")).networks.oob
    assert small is not None
    with pytest.raises(InputError, match=r"192\.168\.0\.0/28 holds 16 addresses but the management network"):
        design_oob(small, _racks(12), 3, [])


def test_a_hall_beyond_one_spines_ports_gets_groups_of_oob_spines() -> None:
    spec = parse_intent(FOUR.replace("oob: {}", "oob: {spine: {ports: 4, speed: 100G}}")).networks.oob
    assert spec is not None
    oob = design_oob(spec, _racks(40, racks=10), 10, [])
    # 10 management switches, 4 ports a spine: 3 groups of 4 spines (one per uplink), 4 switches a group.
    assert oob.spines == 12
    ends = [(spine, port) for spine, port, _, _ in oob.uplinks]
    assert len(set(ends)) == len(ends) == 40 and all(port < 4 for _, port in ends)
    managers = len(oob.switches) - oob.spines
    groups = {
        switch: {(spine - managers) // 4 for spine, _, own, _ in oob.uplinks if own == switch} for switch in range(10)
    }
    assert all(len(group) == 1 for group in groups.values())
    assert [groups[switch].pop() for switch in range(10)] == [0, 0, 0, 0, 1, 1, 1, 1, 2, 2]

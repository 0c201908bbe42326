"""The networks beside the backend: the intent's ``networks`` and ``management`` sections resolved into the specs
each network's stages read, and the backend alone when none is declared."""

from __future__ import annotations

import pytest

from designer.errors import InputError
from designer.intent import parse_intent
from designer.intent.networks import Networks
from designer.intent.schema import parse_ratio

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
    assert parse_ratio(written) == ratio


@pytest.mark.parametrize("written", ["1:2", 0.5, "three", True, "3:0", 65])
def test_an_oversubscription_below_1_or_not_a_ratio_is_refused(written: object) -> None:
    with pytest.raises(ValueError, match="oversubscription"):
        parse_ratio(written)


def test_lossless_storage_is_refused_where_a_target_writes_no_qos_but_frr_beside_sonic_carries_none() -> None:
    lossless = "networks: {storage: {lossless: true}}\n"
    assert parse_intent(BACKEND + lossless).networks.storage is not None  # SONiC writes the QoS, FRR its BGP
    with pytest.raises(InputError, match=r"networks\.storage\.lossless: FRR configurations write no QoS"):
        parse_intent(BACKEND.replace("[sonic, frr]", "[frr, eos]") + lossless)
    assert parse_intent(BACKEND.replace("[sonic, frr]", "[frr]") + "networks: {storage: {}}\n").networks.storage

"""SONiC config_db.json: valid against SONiC's YANG models, SONiC port numbering, QoS and buffer values.

The cross-checks every OS shares (both /31 ends of every link, reciprocal sessions, identical QoS on both
ends) are in test_render.py."""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from typing import Any

import pytest

from designer.design import Design
from designer.pipeline import build
from designer.render import render_configs
from designer.render.sonic import BUFFER_BYTES_PER_GBPS, _ranges, config_db
from designer.resources import sonic_yang_models
from designer.verify.parsers import SonicYang
from tests.conftest import ROOT, need
from tests.helpers import build_text, intent_text

INTENTS = ("small-2tier", "small-3tier")


def sonic_configs(design: Design) -> dict[str, dict[str, Any]]:
    """Every switch's rendered config_db.json, parsed back, by hostname."""
    files = render_configs(design.configs, ["sonic"])
    return {path.removeprefix("configs/sonic/").removesuffix(".json"): json.loads(data)
            for path, data in files.items()}


@cache
def small(name: str) -> tuple[Design, dict[str, dict[str, Any]]]:
    design = build(ROOT / "tests" / "intents" / f"{name}.yaml")
    return design, sonic_configs(design)


def sonic_yang() -> SonicYang:
    """SONiC's YANG models loaded with libyang (skipped without them, a failure under CI)."""
    need(importlib.util.find_spec("libyang") is not None, "libyang binding missing: apt-get install libyang2-dev "
                                                         "&& pip install libyang==2.8.0")
    return SonicYang(sonic_yang_models())


@pytest.fixture(scope="module")
def yang() -> SonicYang:
    return sonic_yang()


@pytest.mark.parametrize("name", INTENTS)
def test_every_config_db_validates_against_sonic_yang(yang: SonicYang, name: str) -> None:
    design, configs = small(name)
    assert sorted(configs) == sorted(device.name for device in design.fabric.switches())
    for hostname, config in configs.items():
        yang.check(config)  # raises ConfigDbError naming table, key and field
        assert config["DEVICE_METADATA"]["localhost"]["hostname"] == hostname


def test_ports_follow_sonic_lane_numbering_on_a_broken_out_800g_cage() -> None:
    _, configs = small("small-2tier")  # leaves: 4 x 800G cages as 8 x 400G
    ports = configs["p0-su0-r0-leaf"]["PORT"]
    assert list(ports)[:3] == ["Ethernet0", "Ethernet4", "Ethernet8"]
    assert ports["Ethernet0"] == {
        "alias": "swp1s0", "description": "su0-srv0 nic0", "index": "1", "subport": "1", "lanes": "0,1,2,3",
        "speed": "400000", "fec": "rs", "mtu": "9216", "admin_status": "up"}
    assert (ports["Ethernet4"]["alias"], ports["Ethernet4"]["index"], ports["Ethernet4"]["subport"],
            ports["Ethernet4"]["lanes"]) == ("swp1s1", "1", "2", "4,5,6,7")
    assert ports["Ethernet8"]["index"] == "2"
    lanes = [int(lane) for fields in ports.values() for lane in fields["lanes"].split(",")]
    assert sorted(lanes) == list(range(32))
    spine = configs["p0-spine0"]["PORT"]  # spines: 8 x 400G, not broken out
    assert (spine["Ethernet8"]["alias"], spine["Ethernet8"]["subport"], spine["Ethernet8"]["lanes"]) == (
        "swp2", "0", "8,9,10,11,12,13,14,15")


def test_known_platform_gets_its_sonic_hwsku_and_port_layout(yang: SonicYang) -> None:
    design = build_text(intent_text(servers=4, leaf="{model: nvidia-sn5600}", spine="{model: nvidia-sn5600}"))
    configs = sonic_configs(design)
    leaf = configs["p0-su0-r0-leaf"]
    metadata = leaf["DEVICE_METADATA"]["localhost"]
    assert (metadata["platform"], metadata["hwsku"]) == ("x86_64-nvidia_sn5600-r0", "Mellanox-SN5600-O128")
    # Mellanox-SN5600-O128's own port_config.ini: Ethernet{4i} on lanes 4i..4i+3, two per cage.
    ports = leaf["PORT"]
    assert len(ports) == 4 + 64  # the 4 servers' ports and all 64 uplinks (cages 33-64)
    assert ports["Ethernet508"]["lanes"] == "508,509,510,511"
    assert (ports["Ethernet508"]["index"], ports["Ethernet508"]["subport"]) == ("64", "2")
    for config in configs.values():
        yang.check(config)
    generic = small("small-2tier")[1]["p0-spine0"]["DEVICE_METADATA"]["localhost"]
    assert "hwsku" not in generic and generic["type"] == "SpineRouter"


@pytest.mark.parametrize(("name", "cnp_tc", "ecn_max", "probability"), [
    ("small-2tier", "6", "1536000", "100"),  # nvidia profile
    ("small-3tier", "7", "3072000", "7"),  # cisco profile
])
def test_lossless_qos_is_the_profile_on_every_port(name: str, cnp_tc: str, ecn_max: str, probability: str) -> None:
    _, configs = small(name)
    for config in configs.values():
        dscp = config["DSCP_TO_TC_MAP"]["ROCE"]
        assert len(dscp) == 64 and dscp["26"] == "3" and dscp["48"] == cnp_tc
        assert {tc for code, tc in dscp.items() if code not in ("26", "48")} == {"0"}
        assert config["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"]["3"] == "3"
        assert set(config["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"].values()) == {"0", "3"}
        wred = config["WRED_PROFILE"]["ROCE_ECN"]
        assert (wred["ecn"], wred["green_min_threshold"], wred["green_max_threshold"],
                wred["green_drop_probability"]) == ("ecn_all", "153600", ecn_max, probability)
        assert config["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "ROCE"}
        assert set(config["PORT_QOS_MAP"]) == {"global", *config["PORT"]}
        for port in config["PORT"]:
            assert config["PORT_QOS_MAP"][port]["pfc_enable"] == "3"
            assert config["QUEUE"][f"{port}|3"] == {"scheduler": "DWRR_Q3", "wred_profile": "ROCE_ECN"}
            assert config["QUEUE"][f"{port}|{cnp_tc}"] == {"scheduler": "STRICT_CNP"}
            assert config["BUFFER_PG"][f"{port}|3"] == {"profile": "ingress_lossless_profile"}
            assert config["BUFFER_QUEUE"][f"{port}|3"] == {"profile": "egress_lossless_profile"}
            assert config["PFC_WD"][port] == {"action": "drop", "detection_time": "200", "restoration_time": "200"}
        assert config["SCHEDULER"]["STRICT_CNP"] == {"type": "STRICT"}
        assert config["SCHEDULER"]["DWRR_Q3"] == {"type": "DWRR", "weight": "50"}


def test_buffers_reserve_the_model_headroom_below_the_pool() -> None:
    design, configs = small("small-2tier")
    device = design.configs[0]
    config = configs[device.hostname]
    lossless = config["BUFFER_PROFILE"]["ingress_lossless_profile"]
    assert int(lossless["xoff"]) == device.qos.headroom_bytes
    assert int(lossless["size"]) == int(lossless["xon"]) + int(lossless["xoff"])
    pool = config["BUFFER_POOL"]["ingress_lossless_pool"]
    total = device.physical_ports * device.port_speed_gbps * BUFFER_BYTES_PER_GBPS
    assert int(pool["xoff"]) == device.qos.headroom_bytes * len(config["PORT"])
    assert int(pool["size"]) + int(pool["xoff"]) == total
    assert int(device.qos.ecn_max_bytes) < total  # ECN marks long before the shared buffer runs out


def test_profile_switches_turn_tables_off_and_stay_valid(yang: SonicYang) -> None:
    extra = "qos: {profile: juniper, queue_bytes: 3145728, ecn: false, pfc_watchdog: false}"
    design = build_text(intent_text(servers=4, leaf="{ports: 4, speed: 800G}", spine="{ports: 8, speed: 400G}",
                                    compute_extra="nics_per_server: 2", extra=extra))
    for config in sonic_configs(design).values():
        yang.check(config)
        assert "WRED_PROFILE" not in config and "PFC_WD" not in config
        assert config["DEVICE_METADATA"]["localhost"]["default_pfcwd_status"] == "disable"
        assert all("wred_profile" not in queue for queue in config["QUEUE"].values())
        # Juniper caps CNP at 5% of a 400G port: 400e9 / 8 * 5% bytes per second.
        assert config["SCHEDULER"]["STRICT_CNP"] == {"type": "STRICT", "meter_type": "bytes",
                                                     "cir": "2500000000", "pir": "2500000000"}


def test_lossy_queues_are_compact_ranges_around_the_lossless_ones() -> None:
    assert _ranges([0, 1, 2, 4, 5, 6, 7]) == ("0-2", "4-7")
    assert _ranges([1, 3]) == ("1", "3")
    device = small("small-2tier")[0].configs[0]
    queues = {key.partition("|")[2]: entry["profile"] for key, entry in config_db(device)["BUFFER_QUEUE"].items()
              if key.startswith("Ethernet0|")}
    assert queues == {"0-2": "egress_lossy_profile", "3": "egress_lossless_profile", "4-7": "egress_lossy_profile"}

"""SONiC config_db.json: valid against SONiC's YANG models, complete for ``config reload``, and true to what SONiC's
own files say about the switch: ports and aliases (the SKU's port_config.ini and hwsku.json), the QoS tables its
qos_config.j2 writes, the buffer layout of its buffers_defaults templates and at least its headroom
(pg_profile_lookup.ini). Those facts are test data in tests/vendor/sonic/ (see its README); each test names the
upstream file it holds the config to.

The cross-checks every OS shares (both /31 ends of every link, reciprocal sessions, identical QoS on both
ends) are in test_render.py."""

from __future__ import annotations

import csv
import json
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from designer.cli import main
from designer.design import Design
from designer.files import sonic_yang_models
from designer.pipeline import build
from designer.render import render_configs
from designer.render.sonic import BUFFER_BYTES_PER_GBPS, ConfigDbWriter, _ranges, config_db
from designer.verify.parsers import SonicYang, check_frr
from tests.conftest import ROOT
from tests.helpers import build_text, intent_text
from tests.prerequisites import LIBYANG, VALIDATORS, VTYSH, declared, needs
from tests.test_intent_errors import run_cli

INTENTS = ("small-2tier", "small-3tier", "small-800g-uplinks", "small-unnumbered")
VENDOR = ROOT / "tests" / "vendor" / "sonic"
SKUS = {  # intent switches -> the SONiC SKU the catalog runs them as
    "Mellanox-SN5600-O128": dict(servers=64, leaf="{model: nvidia-sn5600}", spine="{model: nvidia-sn5600}"),
    "ACS-SN5600": dict(
        servers=4, leaf="{model: nvidia-sn5600}", spine="{model: nvidia-sn5600}", compute_extra="nic_speed: 800G"
    ),
    "ACS-MSN4700": dict(servers=4, leaf="{model: nvidia-sn4700}", spine="{model: nvidia-sn4700}"),
    "Mellanox-SN5600-V256": dict(
        servers=4, leaf="{model: nvidia-sn5600}", spine="{model: nvidia-sn5600}", compute_extra="nic_speed: 200G"
    ),
    "Mellanox-SN4700-O32": dict(
        servers=4,
        leaf="{model: nvidia-sn4700}",
        spine="{model: nvidia-sn4700}",
        extra="target_options: {sonic: {hwsku: Mellanox-SN4700-O32}}",
    ),
}


def sonic_configs(design: Design) -> dict[str, dict[str, Any]]:
    """Every switch's rendered config_db.json, parsed back, by hostname."""
    files = render_configs(design.configs, ["sonic"])
    return {
        path.removeprefix("configs/sonic/").removesuffix(".json"): json.loads(data)
        for path, data in files.items()
        if path.startswith("configs/sonic/")  # not SONiC's own FRR files (configs/sonic-frr/, unnumbered)
    }


@cache
def small(name: str) -> tuple[Design, dict[str, dict[str, Any]]]:
    design = build(ROOT / "tests" / "intents" / f"{name}.yaml")
    return design, sonic_configs(design)


NEEDED_BY_FIXTURE = {"yang": (LIBYANG,)}


def sonic_yang() -> SonicYang:
    """SONiC's YANG models loaded with libyang (its callers declare LIBYANG)."""
    declared(LIBYANG)
    return SonicYang(sonic_yang_models())


@pytest.fixture(scope="module")
def yang() -> SonicYang:
    return sonic_yang()


@cache
def on_sku(hwsku: str) -> tuple[Design, dict[str, dict[str, Any]]]:
    """A small fabric of catalog switches that SONiC runs as ``hwsku``, and its config_db.json files."""
    design = build_text(intent_text(**SKUS[hwsku]))  # type: ignore[arg-type]
    return design, sonic_configs(design)


def vendor_ports(hwsku: str) -> dict[str, dict[str, str]]:
    """Every port of ``hwsku`` as SONiC's port_config.ini and hwsku.json give it (tests/vendor/sonic/ports.csv);
    a SKU without a speed column runs at the first speed of its default breakout mode (``1x800G[...]``)."""
    with (VENDOR / "ports.csv").open() as rows:
        ports = {row["port"]: row for row in csv.DictReader(rows) if row["hwsku"] == hwsku}
    for row in ports.values():
        if not row["speed_mbps"]:
            row["speed_mbps"] = str(int(re.match(r"\dx(\d+)G", row["default_brkout_mode"])[1]) * 1000)
    return ports


def vendor_json(name: str) -> dict[str, Any]:
    return json.loads((VENDOR / name).read_text())


def vendor_headroom(hwsku: str) -> dict[tuple[str, str], tuple[int, int, int]]:
    """(speed Mb/s, cable) -> (size, xon, xoff) of ``hwsku``'s pg_profile_lookup.ini (pg_profile_lookup.csv)."""
    with (VENDOR / "pg_profile_lookup.csv").open() as rows:
        return {
            (row["speed_mbps"], row["cable"]): (int(row["size"]), int(row["xon"]), int(row["xoff"]))
            for row in csv.DictReader(rows)
            if hwsku in row["hwskus"].split()
        }


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
        "alias": "swp1s0",
        "description": "swp1s0 to su0-srv0 nic0",
        "index": "1",
        "subport": "1",
        "lanes": "0,1,2,3",
        "speed": "400000",
        "fec": "rs",
        "mtu": "9216",
        "admin_status": "up",
    }
    assert (
        ports["Ethernet4"]["alias"],
        ports["Ethernet4"]["index"],
        ports["Ethernet4"]["subport"],
        ports["Ethernet4"]["lanes"],
    ) == ("swp1s1", "1", "2", "4,5,6,7")
    assert ports["Ethernet8"]["index"] == "2"
    lanes = [int(lane) for fields in ports.values() for lane in fields["lanes"].split(",")]
    assert sorted(lanes) == list(range(32))
    spine = configs["p0-spine0"]["PORT"]  # spines: 8 x 400G, not broken out
    assert (spine["Ethernet8"]["alias"], spine["Ethernet8"]["subport"], spine["Ethernet8"]["lanes"]) == (
        "swp2",
        "0",
        "8,9,10,11,12,13,14,15",
    )


@pytest.mark.parametrize("hwsku", sorted(SKUS))
def test_every_port_is_the_skus_own_with_its_lanes_alias_index_and_speed(yang: SonicYang, hwsku: str) -> None:
    """Old files: only the cabled ports, aliases the designer's names (swp1s0) where SONiC's SKU says etp1a, no
    hwsku for an 800G SN5600. Source: sonic-buildimage device/mellanox/<platform>/<hwsku>/port_config.ini and
    hwsku.json (tests/vendor/sonic/ports.csv)."""
    design, configs = on_sku(hwsku)
    vendor = vendor_ports(hwsku)
    platform = {row["platform"] for row in vendor.values()}
    for config in configs.values():
        yang.check(config)
        metadata = config["DEVICE_METADATA"]["localhost"]
        assert {metadata["hwsku"], metadata["platform"]} == {hwsku, *platform}
        ports = config["PORT"]
        assert list(ports) == list(vendor)  # every port of the switch, in the SKU's order
        for name, row in vendor.items():
            port = ports[name]
            assert (port["lanes"], port["alias"], port["index"], port["speed"]) == (
                row["lanes"],
                row["alias"],
                row["index"],
                row["speed_mbps"],
            ), name
            assert port.get("autoneg", "") == row["autoneg"], name
    leaf = configs["p0-su0-r0-leaf"]["PORT"]
    cabled = {iface.name: iface for iface in design.configs[0].interfaces}
    for port in leaf.values():  # cabled ports up and described by the designer's port, the others down
        designer_name = port.get("description", "").split(" to ")[0]
        assert port["admin_status"] == ("up" if designer_name in cabled else "down")
        if designer_name in cabled:
            assert port["description"] == f"{designer_name} to {cabled[designer_name].description}"
    assert sum(port["admin_status"] == "up" for port in leaf.values()) == len(cabled)


@needs(VTYSH)
def test_an_unnumbered_switch_runs_link_local_ports_and_its_own_frr_file_names_them(
    yang: SonicYang, tmp_path: Path
) -> None:
    """routing.underlay: unnumbered: each fabric port's INTERFACE entry is ``ipv6_use_link_local_only: enable``
    with no address (sonic-interface.yang, vendored: the YANG check proves the field and its value), server ports
    keep their /31s, and SONiC's FRR file (configs/sonic-frr/) names its neighbors by SONiC's port names, since
    the FRR target's file names the lab's (swpN): vtysh takes it."""
    design = build_text(
        (ROOT / "tests" / "intents" / "small-3tier.yaml").read_text() + "routing: {underlay: unnumbered}\n"
    )
    files = render_configs(design.configs, ["sonic"])
    leaf = next(device for device in design.configs if device.role == "leaf")
    config = json.loads(files[f"configs/sonic/{leaf.hostname}.json"])
    yang.check(config)
    fabric = [leaf.os_port_name("sonic", interface) for interface in leaf.interfaces if interface.role == "fabric"]
    servers = [interface for interface in leaf.interfaces if interface.role == "server"]
    assert all(config["INTERFACE"][name] == {"ipv6_use_link_local_only": "enable"} for name in fabric)
    assert not [key for key in config["INTERFACE"] if "|" in key and key.partition("|")[0] in fabric]
    assert all(
        f"{leaf.os_port_name('sonic', interface)}|{interface.address}" in config["INTERFACE"] for interface in servers
    )
    text = files[f"configs/sonic-frr/{leaf.hostname}.conf"].decode()
    assert re.findall(r"^ neighbor (\S+) interface peer-group SPINES$", text, re.M) == fabric
    assert "swp" not in "".join(line for line in text.splitlines() if " description " not in line)
    paths = []
    for hostname in (leaf.hostname, design.configs[-1].hostname):
        path = tmp_path / f"{hostname}.conf"
        path.write_bytes(files[f"configs/sonic-frr/{hostname}.conf"])
        paths.append((path, str(path)))
    assert [verdict.error for verdict in check_frr(paths)] == ["", ""]
    numbered = render_configs(small("small-3tier")[0].configs[:1], ["sonic"])
    assert not [path for path in numbered if path.startswith("configs/sonic-frr/")]


def test_frr_container_keeps_the_one_frr_conf_split_unified() -> None:
    """Old files said docker_routing_config_mode "split": SONiC's docker-fpm-frr docker_init.sh then runs
    ``rm -f /etc/frr/frr.conf`` and the switch has no BGP. "split-unified" keeps one user frr.conf and loads it
    with vtysh -b. bgpcfgd still runs in both split modes, so BGP_NEIGHBOR stays out of the file (one source of
    BGP configuration). Source: sonic-buildimage dockers/docker-fpm-frr/docker_init.sh."""
    for name in (*INTENTS, *SKUS):
        configs = small(name)[1] if name in INTENTS else on_sku(name)[1]
        for config in configs.values():
            assert config["DEVICE_METADATA"]["localhost"]["docker_routing_config_mode"] == "split-unified"
            assert "BGP_NEIGHBOR" not in config


def test_a_complete_configuration_for_config_reload(yang: SonicYang) -> None:
    """``config reload`` flushes CONFIG_DB and loads init_cfg.json plus the file; it generates no QoS or buffer
    tables (sonic-utilities config/main.py, ``reload``; load_minigraph runs ``config qos reload`` itself). Mellanox
    images seed ``buffer_model: dynamic`` in init_cfg.json (platform/mellanox/rules.mk), so the traditional model
    is written explicitly. The buffer manager needs CABLE_LENGTH for every PORT or retries that port forever
    (sonic-swss cfgmgr/buffermgr.cpp, doSpeedUpdateTask)."""
    configs = on_sku("Mellanox-SN5600-O128")[1]
    for hostname, config in configs.items():
        metadata = config["DEVICE_METADATA"]["localhost"]
        assert {
            "hostname",
            "hwsku",
            "platform",
            "type",
            "bgp_asn",
            "docker_routing_config_mode",
            "buffer_model",
        } <= set(metadata)
        assert metadata["buffer_model"] == "traditional"
        assert (
            metadata["type"]
            == {"leaf": "ToRRouter", "spine": "LeafRouter"}[
                hostname.rpartition("-")[2] if "leaf" in hostname else "spine"
            ]
        )
        assert {
            "PORT",
            "INTERFACE",
            "LOOPBACK_INTERFACE",
            "CABLE_LENGTH",
            "BUFFER_POOL",
            "BUFFER_PROFILE",
            "BUFFER_PG",
            "BUFFER_QUEUE",
            "BUFFER_PORT_INGRESS_PROFILE_LIST",
            "BUFFER_PORT_EGRESS_PROFILE_LIST",
            "DSCP_TO_TC_MAP",
            "TC_TO_PRIORITY_GROUP_MAP",
            "TC_TO_QUEUE_MAP",
            "MAP_PFC_PRIORITY_TO_QUEUE",
            "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
            "PORT_QOS_MAP",
            "SCHEDULER",
            "WRED_PROFILE",
            "QUEUE",
            "PFC_WD",
        } <= set(config)
        assert set(config["CABLE_LENGTH"]["AZURE"]) == set(config["PORT"])
        # Every name a table points at exists: profiles, pools, maps, schedulers, WRED profiles.
        profiles, pools = config["BUFFER_PROFILE"], config["BUFFER_POOL"]
        assert {profile["pool"] for profile in profiles.values()} <= set(pools)
        named = [entry["profile"] for table in ("BUFFER_PG", "BUFFER_QUEUE") for entry in config[table].values()]
        named += [
            name
            for table in ("BUFFER_PORT_INGRESS_PROFILE_LIST", "BUFFER_PORT_EGRESS_PROFILE_LIST")
            for entry in config[table].values()
            for name in entry["profile_list"].split(",")
        ]
        assert set(named) <= set(profiles)
        for port, fields in config["PORT_QOS_MAP"].items():
            for field, table in (
                ("dscp_to_tc_map", "DSCP_TO_TC_MAP"),
                ("tc_to_queue_map", "TC_TO_QUEUE_MAP"),
                ("tc_to_pg_map", "TC_TO_PRIORITY_GROUP_MAP"),
                ("pfc_to_pg_map", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"),
                ("pfc_to_queue_map", "MAP_PFC_PRIORITY_TO_QUEUE"),
            ):
                assert port == "global" or fields[field] in config[table], (port, field)
        for queue in config["QUEUE"].values():
            assert queue["scheduler"] in config["SCHEDULER"]
            assert queue.get("wred_profile", "ROCE_ECN") in config["WRED_PROFILE"]


def test_the_qos_tables_sonics_own_template_writes_with_the_same_meaning() -> None:
    """Old files had no PFC_PRIORITY_TO_PRIORITY_GROUP_MAP and no pfc_to_pg_map, which SONiC's qos_config.j2
    always writes on Mellanox. Source: sonic-buildimage files/build_templates/qos_config.j2
    (tests/vendor/sonic/qos_defaults.json). The DSCP map differs on purpose (RoCE on DSCP 26)."""
    vendor = vendor_json("qos_defaults.json")
    tables, vendor_lossless = vendor["tables"], set(vendor["lossless_tcs"])
    port_fields = set(tables["PORT_QOS_MAP"]["<each active port>"])
    design, configs = on_sku("Mellanox-SN5600-O128")
    lossless = {str(priority) for priority in design.configs[0].qos.pfc_priorities}
    assert lossless <= vendor_lossless
    for config in configs.values():
        assert set(tables) <= set(config)
        for table in ("TC_TO_QUEUE_MAP", "MAP_PFC_PRIORITY_TO_QUEUE"):
            assert list(config[table].values()) == list(tables[table].values())  # identity 0..7 in both
        pfc_to_pg, vendor_pfc_to_pg = (
            *config["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"].values(),
            *tables["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"].values(),
        )
        assert pfc_to_pg == {priority: vendor_pfc_to_pg[priority] for priority in lossless}
        tc_to_pg = next(iter(config["TC_TO_PRIORITY_GROUP_MAP"].values()))
        vendor_tc_to_pg = tables["TC_TO_PRIORITY_GROUP_MAP"]["AZURE"]
        assert {tc: tc_to_pg[tc] for tc in lossless} == {tc: vendor_tc_to_pg[tc] for tc in lossless}
        up = [name for name, port in config["PORT"].items() if port["admin_status"] == "up"]
        assert set(config["PORT_QOS_MAP"]) == {"global", *up}
        assert config["PORT_QOS_MAP"]["global"].keys() == tables["PORT_QOS_MAP"]["global"].keys()
        for port in up:
            fields = config["PORT_QOS_MAP"][port]
            assert set(fields) == port_fields
            assert set(fields["pfc_enable"].split(",")) == set(fields["pfcwd_sw_enable"].split(",")) == lossless
            for priority in lossless:  # lossless queues mark ECN, as SONiC's AZURE_LOSSLESS does
                assert "wred_profile" in config["QUEUE"][f"{port}|{priority}"]


@pytest.mark.parametrize(
    ("hwsku", "variant"),
    [
        ("ACS-SN5600", "separate_lossy_pool"),
        ("Mellanox-SN5600-O128", "separate_lossy_pool"),
        ("ACS-MSN4700", "separate_lossy_pool"),
        ("Mellanox-SN5600-V256", "shared_headroom_pool"),
        ("Mellanox-SN4700-O32", "shared_headroom_pool"),
    ],
)
def test_buffers_are_the_skus_own_layout_and_pools(hwsku: str, variant: str) -> None:
    """Old files put the lossy priority group in the lossless pool and had no lossy ingress pool; then every SKU
    got a lossy ingress pool, where the shared-headroom SKUs (V256, O32) have none. The SKU's
    buffers_defaults_objects.j2 (separate lossy pool: ACS-MSN2700's; shared headroom pool: Mellanox-SN2700-D48C8's,
    with xoff on the lossless pool and the lossy priority group in it) and buffers_defaults_t0/t1.j2 give the pools,
    the default profiles, and zero profiles for unused ports (tests/vendor/sonic/buffer_defaults.json)."""
    vendor = vendor_json("buffer_defaults.json")
    sku = vendor["hwskus"][hwsku]
    assert sku["object_variant"] == variant
    layout = vendor["object_variants"][variant]
    inactive = layout["inactive_ports"]
    for hostname, config in on_sku(hwsku)[1].items():
        sizes = sku["t0" if hostname.endswith("-leaf") else "t1"]["pool_sizes_bytes"]
        unused = any(port["admin_status"] == "down" for port in config["PORT"].values())
        assert config["BUFFER_POOL"] == {
            **{
                name: {
                    "type": pool["type"],
                    "mode": pool["mode"],
                    "size": sizes[pool["size_from"]],
                    **({"xoff": sizes[pool["xoff_from"]]} if "xoff_from" in pool else {}),
                }
                for name, pool in layout["pools"].items()
            },
            **(inactive["pools"] if unused else {}),
        }
        expected = {**layout["profiles"], **(inactive["profiles"] if unused else {})}
        profiles = config["BUFFER_PROFILE"]
        assert {name for name in profiles if not name.startswith("pg_lossless_")} == set(expected)
        for name, profile in expected.items():
            assert profiles[name] == profile, name
        for name, port in config["PORT"].items():
            state = layout if port["admin_status"] == "up" else inactive
            assert config["BUFFER_PG"][f"{name}|0"]["profile"] == state["buffer_pg"]["0"]
            assert (
                config["BUFFER_PORT_INGRESS_PROFILE_LIST"][name]["profile_list"],
                config["BUFFER_PORT_EGRESS_PROFILE_LIST"][name]["profile_list"],
            ) == (state["port_ingress_profile_list"], state["port_egress_profile_list"])
            if state is inactive:
                assert config["CABLE_LENGTH"]["AZURE"][name] == "0m"  # buffermgrd: no lossless buffer


@pytest.mark.parametrize("hwsku", sorted(SKUS))
def test_lossless_headroom_is_at_least_the_vendors_for_the_speed_and_cable(hwsku: str) -> None:
    """Old files: 168,432 bytes xoff at 400G for 100 m, where NVIDIA's SN5600 table gives 231,424 bytes at 5 m;
    no CABLE_LENGTH. Each cabled port's lossless priority group names the profile SONiC's buffer manager would
    build for its speed and cable (pg_lossless_<speed>_<cable>_profile, reused when it exists: sonic-swss
    cfgmgr/buffermgr.cpp), at a cable length the SKU's lookup has, at least the port's physical cable, with at
    least the lookup's size, xon and xoff. Source: device/mellanox/<platform>/<hwsku>/pg_profile_lookup.ini."""
    design, configs = on_sku(hwsku)
    lookup = vendor_headroom(hwsku)
    lengths = {}
    for number, (_, upper, upper_port, lower, lower_port) in enumerate(design.fabric.links):
        for device, port in ((upper, upper_port), (lower, lower_port)):
            lengths[design.fabric.devices[device].name, design.fabric.devices[device].port_name(port)] = math.ceil(
                design.physical.link_length_dm[number] / 10
            )
    for hostname, config in configs.items():
        for name, port in config["PORT"].items():
            if port["admin_status"] != "up":
                continue
            cable = config["CABLE_LENGTH"]["AZURE"][name]
            assert int(cable.removesuffix("m")) >= lengths[hostname, port["description"].split(" to ")[0]]
            size, xon, xoff = lookup[port["speed"], cable]
            for pg in config["PORT_QOS_MAP"][name]["pfc_enable"].split(","):
                profile_name = config["BUFFER_PG"][f"{name}|{pg}"]["profile"]
                assert profile_name == f"pg_lossless_{port['speed']}_{cable}_profile"
                profile = config["BUFFER_PROFILE"][profile_name]
                assert profile["pool"] == "ingress_lossless_pool"
                assert (int(profile["size"]), int(profile["xon"]), int(profile["xoff"])) >= (size, xon, xoff)
                assert int(profile["size"]) >= size and int(profile["xon"]) >= xon and int(profile["xoff"]) >= xoff


@pytest.mark.parametrize(
    ("name", "cnp_tc", "ecn_max", "probability"),
    [
        ("small-2tier", "6", "1536000", "100"),  # nvidia profile
        ("small-3tier", "7", "3072000", "7"),  # cisco profile
    ],
)
def test_lossless_qos_is_the_profile_on_every_port(name: str, cnp_tc: str, ecn_max: str, probability: str) -> None:
    _, configs = small(name)
    for config in configs.values():
        dscp = config["DSCP_TO_TC_MAP"]["ROCE"]
        assert len(dscp) == 64 and dscp["26"] == "3" and dscp["48"] == cnp_tc
        assert {tc for code, tc in dscp.items() if code not in ("26", "48")} == {"0"}
        assert config["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"]["3"] == "3"
        assert set(config["TC_TO_PRIORITY_GROUP_MAP"]["ROCE"].values()) == {"0", "3"}
        assert config["PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"]["ROCE"] == {"3": "3"}
        wred = config["WRED_PROFILE"]["ROCE_ECN"]
        assert (
            wred["ecn"],
            wred["green_min_threshold"],
            wred["green_max_threshold"],
            wred["green_drop_probability"],
        ) == ("ecn_all", "153600", ecn_max, probability)
        assert config["PORT_QOS_MAP"]["global"] == {"dscp_to_tc_map": "ROCE"}
        up = [port for port, fields in config["PORT"].items() if fields["admin_status"] == "up"]
        assert set(config["PORT_QOS_MAP"]) == {"global", *up}
        for port in up:
            assert config["PORT_QOS_MAP"][port]["pfc_enable"] == "3"
            assert config["PORT_QOS_MAP"][port]["pfc_to_pg_map"] == "ROCE"
            assert config["QUEUE"][f"{port}|3"] == {"scheduler": "DWRR_Q3", "wred_profile": "ROCE_ECN"}
            assert config["QUEUE"][f"{port}|{cnp_tc}"] == {"scheduler": "STRICT_CNP"}
            assert config["BUFFER_PG"][f"{port}|3"]["profile"].startswith("pg_lossless_400000_")
            assert config["BUFFER_QUEUE"][f"{port}|3"] == {"profile": "egress_lossless_profile"}
            assert config["PFC_WD"][port] == {"action": "drop", "detection_time": "200", "restoration_time": "200"}
        assert config["SCHEDULER"]["STRICT_CNP"] == {"type": "STRICT"}
        assert config["SCHEDULER"]["DWRR_Q3"] == {"type": "DWRR", "weight": "50"}


def test_generic_switches_estimate_the_pools_less_the_headroom_of_their_ports() -> None:
    design, configs = small("small-2tier")
    for device in design.configs:
        config = configs[device.hostname]
        assert "hwsku" not in config["DEVICE_METADATA"]["localhost"]
        total = device.physical_ports * device.port_speed_gbps * BUFFER_BYTES_PER_GBPS
        reserved = 0
        for interface in device.interfaces:  # each port's lossless group holds its own (first-order) headroom
            name = next(
                port
                for port, fields in config["PORT"].items()
                if fields["description"].startswith(f"{interface.name} to ")
            )
            profile = config["BUFFER_PROFILE"][config["BUFFER_PG"][f"{name}|3"]["profile"]]
            room = interface.headroom
            assert not room.vendor and config["CABLE_LENGTH"]["AZURE"][name] == f"{room.cable_m}m"
            assert (profile["size"], profile["xon"], profile["xoff"]) == (str(room.size), str(room.xon), str(room.xoff))
            reserved += room.size
        pools = config["BUFFER_POOL"]
        assert pools["egress_lossless_pool"]["size"] == str(total)
        shared = (total - reserved) // 2
        assert {
            pools[name]["size"] for name in ("ingress_lossless_pool", "ingress_lossy_pool", "egress_lossy_pool")
        } == {str(shared)}
        assert int(device.qos.ecn_max_bytes) < shared  # ECN marks long before the shared buffer runs out


def test_profile_switches_turn_tables_off_and_stay_valid(yang: SonicYang) -> None:
    extra = "qos: {profile: juniper, queue_bytes: 3145728, ecn: false, pfc_watchdog: false}"
    design = build_text(
        intent_text(
            servers=4,
            leaf="{ports: 4, speed: 800G}",
            spine="{ports: 8, speed: 400G}",
            compute_extra="nics_per_server: 2",
            extra=extra,
        )
    )
    for config in sonic_configs(design).values():
        yang.check(config)
        assert "WRED_PROFILE" not in config and "PFC_WD" not in config
        assert config["DEVICE_METADATA"]["localhost"]["default_pfcwd_status"] == "disable"
        assert all("wred_profile" not in queue for queue in config["QUEUE"].values())
        # Juniper caps CNP at 5% of a 400G port: 400e9 / 8 * 5% bytes per second.
        assert config["SCHEDULER"]["STRICT_CNP"] == {
            "type": "STRICT",
            "meter_type": "bytes",
            "cir": "2500000000",
            "pir": "2500000000",
        }


def test_lossy_queues_are_compact_ranges_around_the_lossless_ones() -> None:
    assert _ranges([0, 1, 2, 4, 5, 6, 7]) == ("0-2", "4-7")
    assert _ranges([1, 3]) == ("1", "3")
    device = small("small-2tier")[0].configs[0]
    queues = {
        key.partition("|")[2]: entry["profile"]
        for key, entry in config_db(device)["BUFFER_QUEUE"].items()
        if key.startswith("Ethernet0|")
    }
    assert queues == {"0-2": "q_lossy_profile", "3": "egress_lossless_profile", "4-7": "q_lossy_profile"}


def test_the_sku_is_an_intent_choice_checked_against_the_switches(tmp_path: Path) -> None:
    """target_options.sonic.hwsku picks between SKUs of one port layout (ACS-MSN4700 by default, or
    Mellanox-SN4700-O32: the same 32 x 400G ports, sonic-buildimage's O32 port_config.ini links to ACS-MSN4700's).
    A name the catalog does not know, or a SKU whose ports no switch of the intent has, is an input error at the
    line, from every command that reads the intent, with the SKUs that would do; nothing is written."""
    assert on_sku("ACS-MSN4700")[0].configs[0].sku.hwsku == "ACS-MSN4700"  # type: ignore[union-attr]
    intent = tmp_path / "intent.yaml"
    switches = dict(servers=4, leaf="{model: nvidia-sn4700}", spine="{model: nvidia-sn4700}")
    for hwsku, message in (
        (
            "Mellanox-SN4700-O33",
            "'Mellanox-SN4700-O33' is not a SONiC SKU the catalog knows; known SKUs: "
            "ACS-MSN4700 (nvidia-sn4700); Mellanox-SN4700-O32 (nvidia-sn4700); ACS-SN5600 "
            "(nvidia-sn5600); Mellanox-SN5600-O128 (nvidia-sn5600); Mellanox-SN5600-V256 "
            "(nvidia-sn5600)",
        ),
        (
            "Mellanox-SN5600-V256",
            "Mellanox-SN5600-V256 runs nvidia-sn5600 with 64 cages as 4 x 200G, which no "
            "switch of this intent is (leaf, spine, super_spine: nvidia-sn4700, 32 ports "
            "as 1 x 400G); use one of ACS-MSN4700, Mellanox-SN4700-O32",
        ),
    ):
        intent.write_text(intent_text(**switches, extra=f"target_options: {{sonic: {{hwsku: {hwsku}}}}}"))
        for command in ("plan", "check", "build"):
            code, _, err = run_cli(command, str(intent), *(["-o", str(tmp_path / "out")] if command == "build" else []))
            assert code == 2 and f"{intent}:9: target_options.sonic.hwsku: {message}" in err, (command, err)
        assert not (tmp_path / "out").exists()


@needs(*VALIDATORS)
def test_validate_configs_passes_a_build_on_a_shared_headroom_sku(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``designer validate-configs`` (SONiC's YANG models and vtysh) passes a whole build of Mellanox-SN4700-O32
    switches: the lossless pool's xoff and the lossy priority group in the lossless pool are valid CONFIG_DB."""
    sonic_yang()
    intent = tmp_path / "intent.yaml"
    intent.write_text(intent_text(**SKUS["Mellanox-SN4700-O32"]))  # type: ignore[arg-type]
    assert main(["build", str(intent), "-o", str(tmp_path / "out")]) == 0
    built = json.loads(next((tmp_path / "out" / "configs" / "sonic").iterdir()).read_text())
    assert built["DEVICE_METADATA"]["localhost"]["hwsku"] == "Mellanox-SN4700-O32"
    assert "xoff" in built["BUFFER_POOL"]["ingress_lossless_pool"]
    capsys.readouterr()
    assert main(["validate-configs", str(tmp_path / "out")]) == 0
    assert re.search(r"sonic-yang: (\d+) of \1 files valid", capsys.readouterr().out)


def test_a_table_is_written_again_only_when_its_entries_and_their_order_repeat() -> None:
    """The writer reuses the previous switch's text of a table only when the entries are the same, in the same
    order; every file must read back as its own tables and equal what a writer without memory writes."""
    design, _ = small("small-2tier")
    first, second = (config_db(device) for device in design.configs[:2])
    turned = {**second, "QUEUE": dict(reversed(second["QUEUE"].items()))}  # same entries, other order
    changed = {**second, "QUEUE": {**second["QUEUE"], next(iter(second["QUEUE"])): {"scheduler": "DWRR_Q1"}}}
    writer = ConfigDbWriter()
    for tables in (first, second, turned, changed, first):
        text = writer(tables)
        assert text == ConfigDbWriter()(tables)
        assert json.loads(text) == tables and list(json.loads(text)["QUEUE"]) == list(tables["QUEUE"])
    assert first["QUEUE"] == second["QUEUE"]  # the repeat the writer exists for


def test_the_writer_lays_out_each_entry_as_the_json_module_does() -> None:
    """Each entry is one line of JSON as ``json.dumps(fields, separators=(", ", ": "))`` writes it (the writer sets
    the json module's C encoder up once); a value JSON cannot carry is refused, as json.dumps refuses it."""
    design, _ = small("small-3tier")
    for device in design.configs:
        text = ConfigDbWriter()(config_db(device))
        lines = [line.strip().rstrip(",") for line in text.splitlines() if line.startswith("    ")]
        entries = [(key, fields) for table in config_db(device).values() for key, fields in table.items()]
        assert lines == [f"{json.dumps(key)}: {json.dumps(fields, separators=(', ', ': '))}" for key, fields in entries]
    with pytest.raises(TypeError, match="not JSON serializable"):
        ConfigDbWriter()({"PORT": {"Ethernet0": {"mtu": object()}}})


@pytest.mark.parametrize("fabric", ["small-3tier", *sorted(SKUS)])
def test_switches_alike_share_a_port_layout_and_nothing_they_could_change(fabric: str) -> None:
    """A rendering makes each port layout once (names, lanes, table keys) for the switches alike. Every switch's
    tables are what a fresh layout gives them, in the same order, whichever switches came before; and an override
    that changes one switch's entries in place leaves the other switches' alone."""
    design = small(fabric)[0] if fabric in INTENTS else on_sku(fabric)[0]
    layouts: dict[tuple[Any, ...], Any] = {}
    made = [config_db(device, layouts) for device in design.configs]
    assert len(layouts) < len(design.configs)
    for device, tables in zip(design.configs, made, strict=True):
        alone = config_db(device)
        assert json.dumps(tables) == json.dumps(alone), device.hostname
    first, second = made[0], made[1]
    for table in ("PORT", "BUFFER_PG", "BUFFER_QUEUE", "QUEUE", "PORT_QOS_MAP", "BUFFER_PORT_EGRESS_PROFILE_LIST"):
        before = json.dumps(second[table])
        for fields in first[table].values():
            fields["changed"] = "yes"
        assert json.dumps(second[table]) == before, table

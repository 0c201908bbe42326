"""The four-network example built end to end: golden tables holding every network, the checks passing, and
growth inside the envelope moving nothing in any network (the backend's own goldens prove that a design without
other networks is unchanged)."""

from __future__ import annotations

import csv
import io
import json
from functools import cache
from pathlib import Path

import pytest
import yaml
from netaddr import IPAddress, IPNetwork

from designer.backend.physical import TopKept, plan_physical
from designer.backend.physical.placement import device_units
from designer.design import Design, quiet
from designer.intent import parse_intent
from designer.networks.cluster import top_kept
from designer.outputs.build import build_and_write, design_files, review_files
from designer.pipeline import _networks, build, design, first_stages
from designer.readback.diff import _bom_counts
from designer.verify.parsers import check_frr
from tests.conftest import ROOT, check_golden
from tests.helpers import part_sizes
from tests.prerequisites import VTYSH, needs

EXAMPLE = ROOT / "intents" / "enterprise-four-networks.yaml"
GOLDEN = ROOT / "tests" / "golden" / "four-networks"
TABLES = ("cabling.csv", "racks.csv", "bom.csv", "oob.csv", "network-addressing.csv")


@cache
def built() -> Design:
    return build(EXAMPLE)


@cache
def tables() -> dict[str, bytes]:
    return design_files(built())


@cache
def grown(servers: int) -> dict[str, bytes]:
    text = EXAMPLE.read_text().replace("servers: 32", f"servers: {servers}")
    return dict(review_files(design(parse_intent(text, str(EXAMPLE)), quiet), quiet))


@pytest.mark.parametrize("table", TABLES)
def test_the_tables_of_all_four_networks_match_the_golden_files(table: str, update_golden: bool) -> None:
    check_golden(GOLDEN / table, tables()[table].decode(), update_golden)


def test_the_example_passes_every_check_with_every_network_in_its_tables() -> None:
    design = built()
    assert design.networks is not None
    assert not [finding for finding in design.findings if finding.severity == "error"]
    assert [finding.check for finding in design.findings if finding.check == "networks"] == ["networks"]
    rows = list(csv.DictReader(io.StringIO(tables()["cabling.csv"].decode())))
    assert {row["network"] for row in rows} == {"backend", "frontend", "storage", "oob"}
    assert len({row["cable_id"] for row in rows}) == len(rows)
    oob = list(csv.DictReader(io.StringIO(tables()["oob.csv"].decode())))
    assert len({row["address"] for row in oob}) == len(oob)
    managed = {row["device"] for row in oob}
    switches = {device.name for device in design.fabric.switches()}
    switches |= {device.name for network in design.networks.data for device in network.fabric.switches()}
    servers = {device.name for device in design.fabric.devices[design.fabric.switch_count :]}
    assert switches | servers <= managed  # every switch of every network, every server's BMC


def _rows(files: dict[str, bytes], table: str, key: tuple[str, ...]) -> dict[tuple[str, ...], tuple[str, ...]]:
    reader = csv.DictReader(io.StringIO(files[table].decode()))
    return {tuple(row[name] for name in key): tuple(row.values()) for row in reader}


@pytest.mark.parametrize(
    ("table", "key"),
    [
        ("cabling.csv", ("cable_id",)),
        ("oob.csv", ("device", "port")),
        ("network-addressing.csv", ("network", "device", "interface", "use")),
    ],
)
def test_growing_inside_the_envelope_moves_nothing_in_any_network(table: str, key: tuple[str, ...]) -> None:
    small, large = _rows(grown(32), table, key), _rows(grown(64), table, key)
    assert len(small) < len(large)
    changed = {name: (row, large.get(name)) for name, row in small.items() if large.get(name) != row}
    assert changed == {}


def _design_rows(files: dict[str, bytes], table: str) -> dict[tuple[str, ...], str]:
    key = {"network_devices": lambda row: (row["name"],), "network_links": lambda row: tuple(row["a"][:2])}[table]
    return {key(row): json.dumps(row) for row in json.loads(files["design.json"])[table]}


@pytest.mark.parametrize("table", ["network_devices", "network_links"])
def test_growing_inside_the_envelope_moves_nothing_of_the_networks_in_design_json(table: str) -> None:
    small, large = _design_rows(grown(32), table), _design_rows(grown(64), table)
    assert len(small) < len(large)
    assert {name: (row, large.get(name)) for name, row in small.items() if large.get(name) != row} == {}


def test_design_json_power_and_floor_plan_show_every_network() -> None:
    files = tables()
    data = json.loads(files["design.json"])
    assert set(data["networks"]) == {"frontend", "storage", "oob"}
    assert data["networks"]["frontend"]["pools"]["loopbacks"] == "10.8.0.0/20"
    roles = {(row["network"], row["role"]) for row in data["network_devices"]}
    assert {("frontend", "border_leaf"), ("storage", "storage"), ("oob", "management"), ("oob", "oob_spine")} <= roles
    cables = list(csv.DictReader(io.StringIO(files["cabling.csv"].decode())))
    non_backend = [row for row in cables if row["network"] != "backend"]
    assert len(data["network_links"]) == len(non_backend)  # every cable of the networks, in cabling.csv's order
    assert [(row["a"][0], row["z"][0]) for row in data["network_links"]] == [
        (row["a_device"], row["z_device"]) for row in non_backend
    ]
    power = files["power.md"].decode()
    assert "## The networks beside the backend" in power
    drawn = {line.split(" | ")[0].lstrip("| ") for line in power.splitlines() if line.startswith("| ")}
    assert {"backend", "frontend", "storage", "oob", "cluster"} <= drawn
    svg = files["floorplan.svg"].decode()
    for rack in {row["rack"] for row in data["network_devices"] if "rack" in row}:
        assert f"<title>{rack}:" in svg


def test_border_leaves_uplink_to_the_core_with_a_medium_and_optics() -> None:
    files = tables()
    cables = list(csv.DictReader(io.StringIO(files["cabling.csv"].decode())))
    core = [row for row in cables if row["tier"] == "core_uplink"]
    assert len(core) == 2 * 4  # two border leaves, four uplinks each
    assert {row["z_device"] for row in core} == {"core"} and {row["network"] for row in core} == {"frontend"}
    assert sorted({row["a_device"] for row in core}) == ["fe-border0", "fe-border1"]
    assert all(row["medium"] not in ("", "none") for row in core)
    bom = files["bom.csv"].decode()
    medium = core[0]["medium"]
    assert f"{medium} 400G" in bom


def test_managed_power_parts_and_host_ports_get_their_own_management_cable() -> None:
    text = EXAMPLE.read_text().replace("oob: {}", "oob: {host_management: true, managed_per_rack: 2}")
    files = dict(review_files(design(parse_intent(text, str(EXAMPLE)), quiet), quiet))
    rows = [row for row in csv.DictReader(io.StringIO(files["cabling.csv"].decode())) if row["network"] == "oob"]
    ends = {(row["z_device"], row["z_port"]) for row in rows}
    assert {("r00-00-pdu0", "mgmt"), ("r00-00-pdu1", "mgmt"), ("su0-srv0", "mgmt"), ("su0-srv0", "bmc")} <= ends
    pdu = next(row for row in rows if row["z_device"] == "r00-00-pdu0")
    assert (pdu["a_rack"], pdu["z_rack"], pdu["medium"]) == ("r00-00", "r00-00", "cat6")


@needs(VTYSH)
def test_every_server_gets_its_ports_in_every_network_and_bgp_from_the_host_that_frr_reads(tmp_path: Path) -> None:
    files = tables()
    netplan = yaml.safe_load(files["servers/su0-srv0/networks.yaml"])["network"]["ethernets"]
    assert sorted(netplan) == ["fe0", "fe1", "st0", "st1"]
    addressing = list(csv.DictReader(io.StringIO(files["network-addressing.csv"].decode())))
    for port, settings in netplan.items():
        (row,) = [row for row in addressing if row["device"] == "su0-srv0" and row["interface"] == port]
        assert settings["addresses"] == [row["address"]]
    assert [route["to"] for route in netplan["st0"]["routes"]] == ["10.12.0.0/15"]  # the storage servers' /31s
    assert "routes" not in netplan["fe0"]  # dual-homed: the routes come from BGP
    configs = [path for path in files if path.startswith("servers/") and path.endswith("/frr.conf")]
    assert len(configs) == 32
    text = files["servers/su0-srv0/frr.conf"].decode()
    assert "neighbor 10.6.1.0 remote-as 4203000002" in text and "neighbor 10.6.1.128 remote-as 4203000003" in text
    # Proof from outside: FRR's own parser (vtysh -C, behind the validate-configs walls) takes every host's file.
    paths = []
    for relative in configs[:4]:
        path = tmp_path / relative.replace("/", "-")
        path.write_bytes(files[relative])
        paths.append((path, relative))
    verdicts = check_frr(paths)
    assert [verdict.error for verdict in verdicts if not verdict.ok] == [] and len(verdicts) == 4


def test_diff_reads_the_bill_of_materials_with_its_network_column() -> None:
    """bom.csv gains a network column with networks declared; designer diff counted four columns and broke."""
    counts = _bom_counts(grown(32)["bom.csv"].decode())
    grown_counts = _bom_counts(grown(64)["bom.csv"].decode())
    assert counts["networks switch nvidia-sn2201"] < grown_counts["networks switch nvidia-sn2201"]
    assert counts["switch generic-64x400g"] < grown_counts["switch generic-64x400g"]  # the backend's own line
    assert all(grown_counts[item] >= count for item, count in counts.items())  # growth only adds


@pytest.mark.parametrize("workers", [1, 3])
@pytest.mark.parametrize("oob", [True, False], ids=["with-oob", "without-oob"])
def test_the_rendering_workers_write_every_networks_file_of_the_in_memory_build(
    tmp_path: Path, workers: int, oob: bool
) -> None:
    """The networks' switch and server files are rendered by the workers that render the backend's (each server's
    from the worker of its backend files), whether the rendering waits for an out-of-band network or not: the same
    bytes as design_files, and every GPU server's networks.yaml and frr.conf and every network switch's configuration
    among them."""
    text = EXAMPLE.read_text()
    if not oob:
        text = "\n".join(line for line in text.splitlines() if not line.startswith("  oob:")) + "\n"
    built_now, sizes = build_and_write(parse_intent(text, str(EXAMPLE)), tmp_path, workers=workers)
    on_disk = {str(path.relative_to(tmp_path)): path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    assert on_disk == design_files(built_now) and sizes == part_sizes(tmp_path)
    servers = [device.name for device in built_now.fabric.devices[built_now.fabric.switch_count :]]
    assert len(servers) == 32
    for name in servers:
        assert f"servers/{name}/networks.yaml" in on_disk and f"servers/{name}/frr.conf" in on_disk
    assert all(f"configs/frr/{config.hostname}.conf" in on_disk for config in built_now.network_configs)
    assert ("oob.csv" in on_disk) == oob


def _heights(design: Design) -> dict[str, int]:
    """Every device's rack units, from the intent's catalog entries (not from the placement under test)."""
    intent = design.intent
    heights = {device.name: device_units(intent, device) for device in design.fabric.devices}
    assert design.networks is not None
    for network in design.networks.data:
        spec = network.spec
        for device in network.fabric.devices:
            if device.role == "storage":
                assert spec.storage_nodes is not None
                heights[device.name] = spec.storage_nodes.rack_units
            elif device.role != "server":
                heights[device.name] = (spec.spine if device.role == "spine" else spec.leaf).rack_units
    oob = intent.networks.oob
    assert oob is not None and design.networks.physical.oob is not None
    switches = design.networks.physical.oob.switches
    spines = design.networks.physical.oob.spines
    heights |= {name: oob.switch.rack_units for name in switches[:-spines]}
    heights |= {name: oob.spine.rack_units for name in switches[-spines:]}
    return heights


@pytest.mark.parametrize("servers", [32, 64])
def test_no_two_devices_of_any_network_stand_in_the_same_rack_unit(servers: int) -> None:
    # every rack of racks.csv, its devices' units against their catalog heights: a management switch at the top of
    # a backend leaf or spine rack once stood in the top unit of a 2U switch there
    design = built() if servers == 32 else design_of(servers)
    files = tables() if servers == 32 else design_files(design)
    heights = _heights(design)
    rack_units = design.intent.facility.rack_units
    for row in csv.DictReader(io.StringIO(files["racks.csv"].decode())):
        taken: dict[int, str] = {}
        for member in row["devices"].split():
            name, unit = member.rsplit("@", 1)
            for held in range(int(unit), int(unit) + heights[name]):
                assert 1 <= held <= rack_units, f"{name} in {row['rack']} reaches unit {held}"
                assert held not in taken, f"{name} and {taken[held]} share unit {held} of {row['rack']}"
                taken[held] = name


@cache
def design_of(servers: int) -> Design:
    return design(parse_intent(EXAMPLE.read_text().replace("servers: 32", f"servers: {servers}"), str(EXAMPLE)), quiet)


def test_devices_sharing_units_fail_the_networks_check() -> None:
    # the backend placed as if nothing kept its network racks' tops: the management switch of r00-05 lands in the
    # top unit of the 2U leaf p0-su0-r0-leaf, and the networks check says so
    intent = parse_intent(EXAMPLE.read_text(), str(EXAMPLE))
    plan, fabric, allocation = first_stages(intent, quiet)
    networks = _networks(intent, fabric, allocation, plan_physical(intent, plan, fabric, TopKept()), quiet)
    assert ("r00-05", "p0-su0-r0-leaf", "r00-05-mgmt0") in networks.physical.sharing_units
    kept = _networks(intent, fabric, allocation, plan_physical(intent, plan, fabric, top_kept(intent)), quiet)
    assert kept.physical.sharing_units == ()
    assert not [finding for finding in built().findings if "stands in units" in finding.message]


def test_every_management_switch_uplink_has_its_own_31_in_the_management_pool() -> None:
    # the /31s are laid out after every management switch's block of the envelope: none may meet a management
    # address of oob.csv, and each is in design.json's network_links and both its ends in network-addressing.csv
    files = tables()
    pool = IPNetwork(json.loads(files["design.json"])["networks"]["oob"]["pool"])
    links = [link for link in json.loads(files["design.json"])["network_links"] if link["tier"] == "oob_uplink"]
    cables = [row for row in csv.DictReader(io.StringIO(files["cabling.csv"].decode())) if row["tier"] == "oob_uplink"]
    assert len(links) == len(cables) > 0
    managed = {row["address"] for row in csv.DictReader(io.StringIO(files["oob.csv"].decode()))}
    addressing = {
        (row["device"], row["interface"]): (row["address"], row["peer_address"])
        for row in csv.DictReader(io.StringIO(files["network-addressing.csv"].decode()))
        if row["use"] == "oob_uplink"
    }
    subnets = set()
    for link in links:
        subnet = IPNetwork(link["subnet"])
        (spine, spine_port, spine_address), (switch, switch_port, switch_address) = link["a"], link["z"]
        assert spine.startswith("oob-spine") and switch.endswith("-mgmt0")
        assert subnet.prefixlen == 31 and subnet in pool and int(IPAddress(spine_address)) % 2 == 0
        assert {spine_address, switch_address} == {str(address) for address in subnet}
        assert not {spine_address, switch_address} & managed
        assert addressing[spine, spine_port] == (f"{spine_address}/31", switch_address)
        assert addressing[switch, switch_port] == (f"{switch_address}/31", spine_address)
        subnets.add(subnet)
    assert len(subnets) == len(links)

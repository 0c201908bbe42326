"""Every network beside rack-scale systems: a GB300 NVL72 rack is full (NVIDIA's GB200/GB300 NVL72 reference
architectures put the north-south (converged) and storage leaves in network racks of their own, the compute
racks holding the system alone, 132-142 kW each), so the frontend's and storage network's leaves stand in network
racks, cabled from each compute tray's north-south NIC ports across the racks."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from designer.backend.physical.cables import UNIT_M, decimetres
from designer.catalog import catalog
from designer.design import quiet
from designer.intent import parse_intent
from designer.outputs.build import review_files
from designer.pipeline import design
from tests.conftest import ROOT, check_golden
from tests.test_oob_systems import diff_of_a_grown_build

INTENT = ROOT / "tests" / "intents" / "gb300-nvl72-networks.yaml"
GOLDEN = ROOT / "tests" / "golden" / "gb300-nvl72-networks"
SYSTEM = catalog().systems["gb300-nvl72"]
NETWORKS = ("frontend", "storage")


def text(systems: int = 2, networks: bool = True, oob: bool = True) -> str:
    intent = INTENT.read_text().replace("systems: 2}", f"systems: {systems}}}")
    intent = intent if oob else intent.replace("  oob: {}\n", "")
    return intent if networks else intent[: intent.index("networks:\n")]


@cache
def files(systems: int = 2, networks: bool = True, oob: bool = True) -> dict[str, bytes]:
    return dict(review_files(design(parse_intent(text(systems, networks, oob), str(INTENT)), quiet), quiet))


def rows(table: str, systems: int = 2, networks: bool = True, oob: bool = True) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(files(systems, networks, oob)[table].decode())))


def network_devices(systems: int = 2, oob: bool = True) -> dict[str, dict[str, object]]:
    return {row["name"]: row for row in json.loads(files(systems, oob=oob)["design.json"])["network_devices"]}


@pytest.mark.parametrize("oob", [True, False], ids=["with-oob", "without-oob"])
def test_no_network_device_stands_at_a_unit_a_system_part_holds(oob: bool) -> None:
    compute = {row["rack"]: row for row in rows("racks.csv", oob=oob) if row["role"] == "compute"}
    assert len(compute) == 2
    held = {  # every unit of every system part, from the catalog's rack layout
        (rack, unit + step)
        for rack in compute
        for spots in SYSTEM.units(48).values()
        for unit, height in spots
        for step in range(height)
    }
    parts = {device.split("@")[0] for row in rows("racks.csv", networks=False) for device in row["devices"].split()}
    added = {name: row for name, row in network_devices(oob=oob).items() if name not in parts}  # the networks'
    assert {row["network"] for row in added.values()} == {*NETWORKS, *(["oob"] if oob else [])}
    leaves = [row for row in added.values() if row["network"] in NETWORKS and row["role"] == "leaf"]
    assert leaves and all(row["rack"] not in compute for row in leaves)
    assert [name for name, row in added.items() if (row["rack"], row["unit"]) in held] == []
    for row in compute.values():  # a system's rack holds its own parts and nothing else
        assert all(device.split("@")[0].startswith("sys") for device in row["devices"].split())


@pytest.mark.parametrize("oob", [True, False], ids=["with-oob", "without-oob"])
def test_every_system_rack_keeps_its_units_and_power(oob: bool) -> None:
    with_networks, without = rows("racks.csv", oob=oob), rows("racks.csv", networks=False)
    compute = [row for row in without if row["role"] == "compute"]
    assert compute and all(row in with_networks for row in compute)
    for row in with_networks:
        assert float(row["kw"]) <= float(row["budget_kw"])
    assert all(float(row["kw"]) == SYSTEM.power_kw for row in compute)
    power = files(oob=oob)["power.md"].decode()
    added = power[power.index("### Racks with the networks") :]
    assert not any(f"| {row['rack']} |" in added for row in compute)
    assert "they add nothing to the compute racks: their own switches stand in network racks." in power


def test_the_leaf_racks_hold_whole_groups_below_their_management_switch() -> None:
    racks = {row["rack"]: row for row in rows("racks.csv")}
    devices = network_devices()
    for network, prefix in (("frontend", "fe"), ("storage", "st")):
        leaves = [row for row in devices.values() if row["network"] == network and row["role"] == "leaf"]
        (rack,) = {row["rack"] for row in leaves}  # a few groups: one rack of the network's own
        members = racks[rack]["devices"].split()
        assert all(member.startswith((f"{prefix}-g", f"{rack}-mgmt")) for member in members)
        assert max(int(row["unit"]) for row in leaves) == 47  # below the rack's management switch at 48
        assert len({int(row["unit"]) for row in leaves}) == len(leaves)


def test_each_trays_north_south_ports_are_cabled_to_its_leaves_with_lengths_from_the_rack_distances() -> None:
    facility = parse_intent(text(), str(INTENT)).facility
    cables = [
        row
        for row in rows("cabling.csv")
        if row["network"] in NETWORKS and row["tier"] == "server_leaf" and row["z_device"].startswith("sys")
    ]
    trays = 2 * SYSTEM.trays
    per_tray = Counter((row["network"], row["z_device"]) for row in cables)
    assert len(per_tray) == 2 * trays and set(per_tray.values()) == {2}  # nics_per_server: 2 in each network
    places = {row["rack"]: (int(row["row"]), int(row["position"])) for row in rows("racks.csv")}
    for cable in cables:
        assert cable["a_rack"] != cable["z_rack"]  # a leaf never stands in a system's rack
        (a_row, a_pos), (z_row, z_pos) = places[cable["a_rack"]], places[cable["z_rack"]]
        # the backend's rule: up to the tray, along it and down, plus the slack (both devices 1U here)
        run = 2 * facility.rack_units * UNIT_M - (int(cable["a_unit"]) - 0.5) * UNIT_M
        run -= (int(cable["z_unit"]) - 0.5) * UNIT_M
        run += abs(a_pos - z_pos) * facility.rack_width_m + abs(a_row - z_row) * facility.row_pitch_m
        assert float(cable["length_m"]) == decimetres(run + facility.slack_m) / 10
        assert cable["medium"] != "none"


def test_systems_added_inside_the_envelope_change_nothing_that_exists() -> None:
    small, large = network_devices(2), network_devices(4)
    assert len(small) < len(large)
    moved = {
        name
        for name, row in small.items()
        if (row.get("rack"), row.get("unit")) != (large[name].get("rack"), large[name].get("unit"))
    }
    assert moved == set()
    for table, key in (("cabling.csv", "cable_id"), ("network-addressing.csv", None)):
        before = [row for row in rows(table, 2)]
        after = rows(table, 4)
        if key:
            by_key = {row[key]: row for row in after}
            assert [row for row in before if by_key.get(row[key]) != row] == []
        else:
            assert [row for row in before if row not in after] == []
    compute = [row for row in rows("racks.csv", 2) if row["role"] == "compute"]
    assert all(row in rows("racks.csv", 4) for row in compute)


def test_diff_reads_a_grown_build_as_additions_only(tmp_path: Path) -> None:
    assert diff_of_a_grown_build(tmp_path, text(2), text(4)) == (0, "")


@pytest.mark.parametrize("table", ["racks.csv", "bom.csv", "cabling.csv"])
def test_the_tables_match_the_golden_files(table: str, update_golden: bool) -> None:
    check_golden(GOLDEN / table, files()[table].decode(), update_golden)

"""The four-network example built end to end: golden tables holding every network, the checks passing, and
growth inside the envelope moving nothing in any network (the backend's own goldens prove that a design without
other networks is unchanged)."""

from __future__ import annotations

import csv
import io
from functools import cache

import pytest

from designer.design import Design, quiet
from designer.intent import parse_intent
from designer.outputs.build import review_files
from designer.pipeline import build, design
from tests.conftest import ROOT, check_golden

EXAMPLE = ROOT / "intents" / "enterprise-four-networks.yaml"
GOLDEN = ROOT / "tests" / "golden" / "four-networks"
TABLES = ("cabling.csv", "racks.csv", "bom.csv", "oob.csv", "network-addressing.csv")


@cache
def built() -> Design:
    return build(EXAMPLE)


@cache
def tables() -> dict[str, bytes]:
    return review_files(built(), quiet)


@cache
def grown(servers: int) -> dict[str, bytes]:
    text = EXAMPLE.read_text().replace("servers: 32", f"servers: {servers}")
    return review_files(design(parse_intent(text, str(EXAMPLE)), quiet), quiet)


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


def test_managed_power_parts_and_host_ports_get_their_own_management_cable() -> None:
    text = EXAMPLE.read_text().replace("oob: {}", "oob: {host_management: true, managed_per_rack: 2}")
    files = review_files(design(parse_intent(text, str(EXAMPLE)), quiet), quiet)
    rows = [row for row in csv.DictReader(io.StringIO(files["cabling.csv"].decode())) if row["network"] == "oob"]
    ends = {(row["z_device"], row["z_port"]) for row in rows}
    assert {("r00-00-pdu0", "mgmt"), ("r00-00-pdu1", "mgmt"), ("su0-srv0", "mgmt"), ("su0-srv0", "bmc")} <= ends
    pdu = next(row for row in rows if row["z_device"] == "r00-00-pdu0")
    assert (pdu["a_rack"], pdu["z_rack"], pdu["medium"]) == ("r00-00", "r00-00", "cat6")

"""The out-of-band network beside rack-scale systems: an NVL72 rack's own management switches are its access
switches (NVIDIA Enterprise RA "NVL72 AI factory", components: two SN2201s per rack for the management access of
the rack's components), cabling what the catalog's ``management_ports`` list for each part (NVIDIA Mission Control
North-South Network GB200 deployment guide, NVLink Switch Planning and Design: an NVLink switch tray's ComE1, ComE2
and BMC, 1G each, to the rack's SN2201s), with no units, power or order lines beyond the system's."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from netaddr import IPAddress, IPNetwork

from designer.backend.physical.cables import UNIT_M, decimetres
from designer.catalog import SYSTEM_PARTS, catalog
from designer.design import quiet
from designer.intent import parse_intent
from designer.outputs.build import review_files
from designer.pipeline import design
from tests.conftest import ROOT, check_golden
from tests.test_intent_errors import run_cli

INTENT = ROOT / "tests" / "intents" / "gb300-nvl72-oob.yaml"
GOLDEN = ROOT / "tests" / "golden" / "gb300-nvl72-oob"
SYSTEM = catalog().systems["gb300-nvl72"]


@cache
def files(systems: int = 2, oob: bool = True) -> dict[str, bytes]:
    text = INTENT.read_text().replace("systems: 2}", f"systems: {systems}}}")
    if not oob:
        text = text.replace("networks:\n  oob: {}\n", "")
    return dict(review_files(design(parse_intent(text, str(INTENT)), quiet), quiet))


def rows(table: str, systems: int = 2, oob: bool = True) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(files(systems, oob)[table].decode())))


def rack_of(device: str) -> str:
    """The rack racks.csv puts ``device`` in."""
    return next(row["rack"] for row in rows("racks.csv") if f" {device}@" in f" {row['devices']}")


def test_each_rack_cables_every_parts_management_ports_through_its_own_switches() -> None:
    expected = Counter(
        {
            part: getattr(SYSTEM, field) * len(SYSTEM.management_ports_of(part))
            for part, field in SYSTEM_PARTS.items()
            if SYSTEM.management_ports_of(part)
        }
    )
    assert expected["compute_tray"] == SYSTEM.trays and expected["nvlink_switch_tray"] == 3 * SYSTEM.nvlink_switch_trays
    kinds = {"tray": "compute_tray", "nvswitch": "nvlink_switch_tray", "powershelf": "power_shelf"}
    table = rows("oob.csv")
    for system in range(2):
        access = [row for row in table if row["switch"].startswith(f"sys{system}-mgmt")]
        found = Counter(kinds[row["device"].split("-")[1].rstrip("0123456789")] for row in access)
        assert found == expected
        assert {row["rack"] for row in access} == {rack_of(f"sys{system}-tray0")}  # the system's own rack
        for row in access:
            part = kinds[row["device"].split("-")[1].rstrip("0123456789")]
            assert row["port"] in SYSTEM.management_ports_of(part)
    switches = {row["device"] for row in table if row["port"] == "vlan"}
    assert {f"sys{system}-mgmt{k}" for system in range(2) for k in range(SYSTEM.management_switches)} <= switches
    assert not any(name.startswith((f"{rack_of('sys0-tray0')}-", f"{rack_of('sys1-tray0')}-")) for name in switches)


def test_every_management_address_is_unique_and_from_the_pool() -> None:
    design = json.loads(files()["design.json"])
    pool = IPNetwork(design["networks"]["oob"]["pool"])
    addresses = [row["address"] for row in rows("oob.csv")]
    assert len(addresses) == len(set(addresses)) and all(IPAddress(address) in pool for address in addresses)
    devices = {row["name"]: row for row in design["network_devices"] if row["network"] == "oob"}
    top = SYSTEM.units(48)["management_switch"]
    assert (devices["sys1-mgmt1"]["rack"], devices["sys1-mgmt1"]["unit"]) == (rack_of("sys1-tray0"), top[1][0])


def test_the_system_racks_keep_their_units_power_and_order_lines() -> None:
    with_oob, without = rows("racks.csv"), rows("racks.csv", oob=False)
    compute = [row for row in without if row["role"] == "compute"]
    assert compute and all(row in with_oob for row in compute)  # no unit, device or kW added to a system's rack
    assert all(float(row["kw"]) == SYSTEM.power_kw for row in compute)
    bom = {(row["category"], row["item"]): int(row["count"]) for row in rows("bom.csv")}
    placed = [row for row in rows("oob.csv") if row["port"] == "vlan" and not row["device"].startswith("sys")]
    assert bom["switch", "nvidia-sn2201"] == len(placed)  # the network racks' own; the systems bring theirs
    assert bom["system", "gb300-nvl72 management switch"] == 2 * SYSTEM.management_switches
    power = files()["power.md"].decode()
    added = power[power.index("### Racks with the networks") :]
    assert not any(f"| {row['rack']} |" in added for row in compute)  # nothing the networks add stands in them
    oob_line = next(line for line in power.splitlines() if line.startswith("| oob |"))
    spines = json.loads(files()["design.json"])["networks"]["oob"]["spines"]
    assert oob_line.split("|")[2].strip() == str(len(placed) + spines)


def test_a_parts_cable_runs_between_its_units_in_the_rack() -> None:
    facility = parse_intent(INTENT.read_text(), str(INTENT)).facility
    cables = [row for row in rows("cabling.csv") if row["network"] == "oob" and row["a_device"].startswith("sys")]
    assert len(cables) == 2 * sum(
        getattr(SYSTEM, field) * len(SYSTEM.management_ports_of(part)) for part, field in SYSTEM_PARTS.items()
    )
    for cable in cables:
        assert cable["a_rack"] == cable["z_rack"] and cable["medium"] == "cat6"
        run = abs(int(cable["a_unit"]) - int(cable["z_unit"])) * UNIT_M + facility.slack_m
        assert float(cable["length_m"]) == decimetres(run) / 10


def test_systems_added_inside_the_envelope_change_nothing_that_exists() -> None:
    for table, key in (("oob.csv", ("device", "port")), ("cabling.csv", ("cable_id",)), ("racks.csv", ("rack",))):
        small = {tuple(row[name] for name in key): row for row in rows(table, 2)}
        large = {tuple(row[name] for name in key): row for row in rows(table, 4)}
        assert len(small) < len(large)
        if table == "racks.csv":  # a network rack gains the new systems' leaves; a system's rack never changes
            small = {name: row for name, row in small.items() if row["role"] == "compute"}
        assert {name: row for name, row in small.items() if large.get(name) != row} == {}


def diff_of_a_grown_build(tmp_path: Path, old: str, new: str) -> tuple[int, str]:
    """Build the intents ``old`` and ``new`` and diff the builds, failing on a change to what exists: the exit code
    and the errors."""
    for folder, text in (("old", old), ("new", new)):
        path = tmp_path / f"{folder}.yaml"
        path.write_text(text)
        assert run_cli("build", str(path), "-o", str(tmp_path / folder))[0] == 0
    code, _, err = run_cli("diff", str(tmp_path / "old"), str(tmp_path / "new"), "--fail-on", "existing-change")
    return code, err


def test_diff_reads_a_grown_build_with_the_systems_management_switches(tmp_path: Path) -> None:
    grown = INTENT.read_text().replace("systems: 2}", "systems: 3}")
    assert diff_of_a_grown_build(tmp_path, INTENT.read_text(), grown) == (0, "")


@pytest.mark.parametrize("table", ["oob.csv", "racks.csv", "bom.csv"])
def test_the_tables_match_the_golden_files(table: str, update_golden: bool) -> None:
    check_golden(GOLDEN / table, files()[table].decode(), update_golden)


SITE_RACK = (
    "systems:\n  mi355x-rack:\n    {trays: 4, tray_gpus: 8, tray_nics: 8, nic: amd-pollara-400, nic_speed: 400,"
    " planes: 1, north_south_nics: 1, north_south_nic: nvidia-bluefield3, tray_rack_units: 4,"
    " nvlink_switch_trays: 0, power_shelves: 0, management_switches: 1, power_kw: 60, power_source: site survey,"
    " cooling: liquid, nvlink_gbyte_s: 537.6MORE}\n"
)


def _site(tmp_path: Path, more: str, oob: str) -> tuple[int, str]:
    (tmp_path / "site.yaml").write_text(SITE_RACK.replace("MORE", more))
    (tmp_path / "intent.yaml").write_text(
        "name: site\ncatalog: site.yaml\ncompute: {system: mi355x-rack, systems: 2}\n"
        f"fabric: {{leaf: {{model: generic-64x400g}}}}\ntargets: [frr]\nnetworks:\n  oob: {oob}\n"
    )
    code, _, err = run_cli("build", str(tmp_path / "intent.yaml"), "-o", str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()
    return code, err


def test_a_system_whose_management_switch_model_is_not_named_is_refused(tmp_path: Path) -> None:
    code, err = _site(tmp_path, "", "{}")
    assert code == 2 and "intent.yaml:7: networks.oob: mi355x-rack racks hold 1 management switch of their own" in err
    assert "give systems.mi355x-rack.management_switch" in err and "Traceback" not in err


def test_a_rack_with_more_management_ports_than_its_own_switches_have_is_refused(tmp_path: Path) -> None:
    more = ", management_switch: nvidia-sn2201, management_ports: {compute_tray: [bmc]}"
    code, err = _site(tmp_path, more, "{host_management: true, managed_per_rack: 48}")
    assert code == 2 and "has 56 management ports to cable, but its own 1 management switch has 48 ports" in err

"""Physical plan: hand-computed racks and power, placement rules, cable lengths, media at the thresholds,
bill of materials against the links, and determinism."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from designer.backend.allocate import Allocation
from designer.backend.model import DeviceConfig, device_configs
from designer.backend.physical import COMPUTE, NETWORK, Physical, TopKept, cable_lengths, plan_physical
from designer.backend.physical.cables import PORT_SPACE, UNIT_M, choose_media, decimetres, medium_for, ordered_length
from designer.backend.sizing import Plan
from designer.backend.wiring import SERVER_LEAF, Fabric
from designer.catalog import catalog
from designer.design import Design, quiet
from designer.errors import InputError
from designer.intent import Intent, parse_intent
from designer.intent.fields import SPEEDS
from designer.networks.cluster import top_kept
from designer.outputs.design_json import design_json
from designer.outputs.physical_review import bom_rows, power_markdown, racks_rows
from designer.outputs.tables import cabling_rows
from designer.pipeline import design as run_stages
from designer.pipeline import first_stages
from tests.conftest import ROOT
from tests.helpers import build_text, intent_text
from tests.test_intent_errors import run_cli

H100_128 = {"servers": 128}
"""128 DGX H100 (10.2 kW, 8U) on 64 x 400G switches: 4 SUs of 32 servers, 32 leaves, 16 spines."""


class Placed(NamedTuple):
    """An intent sized, wired, allocated and placed (the physical plan), with its device models when asked for."""

    intent: Intent
    plan: Plan
    fabric: Fabric
    allocation: Allocation | None
    physical: Physical
    configs: tuple[DeviceConfig, ...]


def placed_text(text: str, models: bool = False) -> Placed:
    """Only the stages up to the physical plan (and the device models, from its cable lengths, with ``models``),
    as the pipeline runs them on intent text."""
    intent = parse_intent(text, "test.yaml")
    plan, fabric, allocation = first_stages(intent, quiet)
    physical = plan_physical(intent, plan, fabric, top_kept(intent))
    configs: tuple[DeviceConfig, ...] = ()
    if models and allocation is not None:
        configs = tuple(device_configs(intent, plan, fabric, allocation, physical.link_length_dm))
    return Placed(intent, plan, fabric, allocation, physical, configs)


def placed(models: bool = False, **fields: Any) -> Placed:
    """:func:`placed_text` of an intent made by :func:`tests.helpers.intent_text`."""
    return placed_text(intent_text(**fields), models)


@pytest.fixture(scope="module")
def h100() -> Design:
    return build_text(intent_text(**H100_128), seeds=2, hosts=False)


def power(design: Design | Placed) -> str:
    return power_markdown(design.intent.name, design.physical, design.intent.facility)


def test_128_dgx_h100_at_41_kw_is_4_a_rack_32_racks_and_1305_6_kw(h100: Design) -> None:
    physical = h100.physical
    compute = [rack for rack in physical.racks if rack.role == COMPUTE]
    assert physical.servers_per_rack == 4  # floor(41 / 10.2) = 4; floor(48 / 8) = 6
    assert len(compute) == 32
    assert all(len(rack.devices) == 4 and rack.kw == pytest.approx(40.8) for rack in compute)
    power = physical.power_kw(h100.intent.facility.pue)
    assert power["compute"] == pytest.approx(1305.6)
    assert power["total"] == pytest.approx(power["compute"] + power["network"])
    assert power["facility"] == pytest.approx(power["total"] * 1.3, abs=1e-3)
    switch_kw = sum(physical.switch_w) / 1000
    assert power["network"] == pytest.approx(switch_kw, abs=1e-3)


def test_rack_units_limit_servers_when_power_allows_more() -> None:
    design = placed(
        servers=16,
        compute_extra="server_power_kw: 5\nserver_rack_units: 20",
        extra="facility: {rack_power_kw: 100, cooling: liquid}",
    )
    assert design.physical.servers_per_rack == 2  # floor(48 / 20) = 2, while 100 / 5 = 20


def test_every_device_has_one_rack_unit_and_row_and_units_never_overlap(h100: Design) -> None:
    physical, devices = h100.physical, h100.fabric.devices
    placed = sorted(index for rack in physical.racks for index in rack.devices)
    assert placed == list(range(len(devices)))
    units = h100.intent.facility.rack_units
    for number, rack in enumerate(physical.racks):
        taken: set[int] = set()
        for index in rack.devices:
            assert physical.device_rack[index] == number
            height = h100.intent.server.rack_units if devices[index].role == "server" else h100.intent.leaf.rack_units
            span = set(range(physical.device_unit[index], physical.device_unit[index] + height))
            assert span <= set(range(1, units + 1)) and not span & taken, rack.name
            taken |= span
    cells = [(rack.row, rack.position) for rack in physical.racks]
    assert len(set(cells)) == len(cells)
    assert all(0 <= rack.position < physical.row.racks for rack in physical.racks)


def test_an_su_keeps_its_servers_together_with_its_leaves_in_the_middle(h100: Design) -> None:
    physical, devices = h100.physical, h100.fabric.devices
    for su in range(h100.plan.sus):
        block = sorted((rack for rack in physical.racks if rack.su == su), key=lambda rack: rack.position)
        roles = [rack.role for rack in block]
        assert roles == [COMPUTE] * 4 + [NETWORK] + [COMPUTE] * 4, su
        assert len({rack.row for rack in block}) == 1
        for rack in block:
            assert {devices[index].su for index in rack.devices} == {su}
            assert {devices[index].role for index in rack.devices} == ({"server"} if rack.role == COMPUTE else {"leaf"})
    central = [rack for rack in physical.racks if rack.su == -1]
    assert {devices[index].role for rack in central for index in rack.devices} == {"spine"}
    su_rows = sorted({rack.row for rack in physical.racks if rack.su >= 0})
    assert su_rows == [0, 1, 3, 4] and {rack.row for rack in central} == {2}  # the spines stand mid-hall


def test_a_partial_su_gets_its_own_racks() -> None:
    physical = placed(servers=130).physical
    assert sum(1 for rack in physical.racks if rack.role == COMPUTE) == 33  # 32 + one rack for 2 servers
    last = [rack for rack in physical.racks if rack.su == 4 and rack.role == COMPUTE]
    assert [len(rack.devices) for rack in last] == [2]


def test_network_racks_stay_within_units_and_the_planning_power() -> None:
    """At 5 kW a rack takes three 1,650 W (planning figure with optics) leaves: an SU's 8 leaves need 3 racks."""
    design = placed(servers=128, extra="facility: {rack_power_kw: 5, cooling: liquid}")
    leaf_racks = [rack for rack in design.physical.racks if rack.role == NETWORK and rack.su == 0]
    assert [len(rack.devices) for rack in leaf_racks] == [3, 3, 2]
    units = [design.physical.device_unit[index] for index in leaf_racks[0].devices]
    assert units == [47, 45, 43]  # stacked from the top


def test_a_server_link_length_by_hand(h100: Design) -> None:
    """su0-srv0 sits at U1-U8 of the first rack of row 0; the rail-0 leaf at U47-U48 of the leaf rack four
    positions along. Up 2 x 48U minus both device middles, 4 x 0.6 m along the row, 1 m slack."""
    devices, physical = h100.fabric.devices, h100.physical
    number = next(
        number
        for number, (tier, upper, _, lower, _) in enumerate(h100.fabric.links)
        if tier == SERVER_LEAF and devices[upper].name == "p0-su0-r0-leaf" and devices[lower].name == "su0-srv0"
    )
    _, leaf, _, server, _ = h100.fabric.links[number]
    assert (physical.device_unit[server], physical.device_unit[leaf]) == (1, 47)
    run = 2 * 48 * UNIT_M - 4 * UNIT_M - 47 * UNIT_M + 4 * 0.6 + 1.0
    assert run == pytest.approx(5.40025)
    assert physical.link_length_dm[number] == 55
    assert physical.medium_name(number) == "aec"


def test_length_inside_one_rack_is_the_vertical_distance() -> None:
    """Spines and super-spines share the central racks, so some of their links stay inside one rack."""
    design = placed(
        servers=64, leaf="{model: generic-32x400g}", fabric_extra="tiers: 3", extra="facility: {slack_m: 0}"
    )
    devices, physical = design.fabric.devices, design.physical
    inside = [
        number
        for number, (_, upper, _, lower, _) in enumerate(design.fabric.links)
        if physical.device_rack[upper] == physical.device_rack[lower]
    ]
    assert inside
    for number in inside:
        _, upper, _, lower, _ = design.fabric.links[number]
        gap = abs(physical.device_unit[upper] - physical.device_unit[lower]) * UNIT_M  # both switches are 1U
        assert physical.link_length_dm[number] == decimetres(gap), (devices[upper].name, devices[lower].name)


def test_decimetres_round_up_and_ignore_float_noise() -> None:
    assert decimetres(3.0) == 30
    assert decimetres(0.1 + 0.2) == 3  # 0.30000000000000004
    assert decimetres(3.01) == 31


def test_medium_selection_exactly_at_the_thresholds() -> None:
    reach = (30, 70, 500, 20000)  # DAC 3 m, AEC 7 m, multimode 50 m, single-mode 2 km
    assert [medium_for(length, reach) for length in (1, 30, 31, 70, 71, 500, 501, 20000, 20001)] == [
        0,
        0,
        1,
        1,
        2,
        2,
        3,
        3,
        4,
    ]


def test_a_link_exactly_at_the_dac_reach_is_dac_and_a_decimetre_more_is_not() -> None:
    """On servers with a cage per NIC port (an AMD MI300X's single-port cards), every link is its own run."""
    at = placed(servers=128, server="amd-mi300x", extra="facility: {reach_m: {dac: 5.5}}")
    below = placed(servers=128, server="amd-mi300x", extra="facility: {reach_m: {dac: 5.4}}")
    for design, medium in ((at, "dac"), (below, "aec")):
        lengths = design.physical.link_length_dm
        chosen = {design.physical.medium_name(number) for number, length in enumerate(lengths) if length == 55}
        assert chosen == {medium}


def test_reach_depends_on_the_link_speed() -> None:
    dac = catalog().media["dac"]
    assert (dac.reach_at(400), dac.reach_at(800)) == (3, 2)
    intent = parse_intent(
        intent_text(servers=16, server="dgx-b200", compute_extra="nic_speed: 800G", leaf="{model: generic-64x800g}"),
        "test.yaml",
    )
    assert dict(intent.facility.reach_m)["dac"] == 2


def test_media_power_tables_cover_every_speed() -> None:
    for medium in catalog().media.values():
        assert medium.name == "dac" or set(medium.power_w) >= set(SPEEDS), medium.name


def bom(design: Design | Placed) -> Counter[tuple[str, str]]:
    counts: Counter[tuple[str, str]] = Counter()
    for line in design.physical.bom:
        counts[line.category, line.item] += line.count
    return counts


def test_bom_counts_equal_link_counts_without_breakout() -> None:
    """Servers with a cage per NIC port (AMD MI300X: one single-port card a GPU) on unbroken 400G switch ports: one
    module at each optical end, one cable a link."""
    single = placed(**H100_128, server="amd-mi300x")
    physical = single.physical
    media = Counter(physical.medium_name(number) for number in range(len(single.fabric.links)))
    optical = media["multimode"] + media["singlemode"]
    assert optical and media["aec"] and media["dac"]
    counts = bom(single)
    assert counts["transceiver", "400G multimode module"] == 2 * media["multimode"]
    assert sum(count for (category, _), count in counts.items() if category == "transceiver") == 2 * optical
    assert counts["cable", "active copper (AEC) 400G"] == media["aec"]
    assert counts["cable", "passive copper (DAC) 400G"] == media["dac"]
    assert counts["cable", "multimode optics (SR) fiber"] == media["multimode"]
    assert counts["switch", "generic-64x400g"] == 48 and counts["server", "amd-mi300x"] == 128
    assert sum(line.count for line in physical.bom if line.category == "cable") == len(single.fabric.links)


def test_twin_port_modules_serve_two_links_and_splitters_two_servers() -> None:
    """800G switch ports as 2 x 400G, servers with a cage per NIC port (AMD MI300X); DGX cages of two ports are in
    tests/test_hardware_facts.py."""
    design = placed(servers=128, server="amd-mi300x", leaf="{model: generic-64x800g}")
    devices, physical = design.fabric.devices, design.physical
    ports: dict[str, set[tuple[int, int]]] = {"multimode": set(), "singlemode": set()}
    copper_ports: set[tuple[int, int]] = set()
    for number, (_, upper, upper_port, lower, lower_port) in enumerate(design.fabric.links):
        medium = physical.medium_name(number)
        ends = {(upper, upper_port // devices[upper].breakout), (lower, lower_port // devices[lower].breakout)}
        if medium in ports:
            ports[medium] |= ends
        elif devices[lower].role == "server":
            copper_ports.add((upper, upper_port // 2))
    counts = bom(design)
    for medium, used in ports.items():
        twin = sum(1 for device, _ in used if devices[device].breakout == 2)
        single = len(used) - twin
        assert counts["transceiver", f"800G {medium} module, twin-port 2 x 400G"] == twin
        assert counts["transceiver", f"400G {medium} module"] == single
    splitters = sum(
        count for (category, item), count in counts.items() if category == "cable" and item.endswith("800G to 2 x 400G")
    )
    assert splitters == len(copper_ports) > 0


def test_a_switch_draws_its_base_power_plus_its_optics(h100: Design) -> None:
    devices, physical = h100.fabric.devices, h100.physical
    expected = [float(h100.intent.leaf.power_w)] * h100.fabric.switch_count
    for number, (_, upper, _, lower, _) in enumerate(h100.fabric.links):
        medium = physical.medium_name(number)
        watts = catalog().media[medium].power_w.get(400, 0.0)
        for device in (upper, lower):
            if devices[device].role != "server":
                expected[device] += watts
    assert physical.switch_w == pytest.approx(expected)
    for rack in physical.racks:
        if rack.role == NETWORK:
            assert rack.kw == pytest.approx(sum(expected[index] for index in rack.devices) / 1000, abs=1e-3)


def test_cables_are_ordered_in_standard_lengths() -> None:
    assert [ordered_length(length, catalog()) for length in (1, 5, 30, 31, 55, 70, 71, 20000, 20001)] == [
        5,
        5,
        30,
        40,
        70,
        70,
        100,
        20000,
        20010,
    ]
    for line in placed(**H100_128).physical.bom:
        if line.category == "cable":
            assert line.length_m is not None and line.length_m * 10 == ordered_length(
                round(line.length_m * 10), catalog()
            )


def test_layout_and_tables_are_deterministic(h100: Design) -> None:
    again = placed(**H100_128)
    assert again.physical == h100.physical
    for render in (lambda d: racks_rows(d.physical, d.fabric.devices, 41), lambda d: bom_rows(d.physical)):
        header, rows = render(h100)
        header_again, rows_again = render(again)
        assert (header, list(rows)) == (header_again, list(rows_again))
    assert power(h100) == power(again)
    assert plan_physical(h100.intent, h100.plan, h100.fabric, TopKept()) == h100.physical


def test_racks_csv_lists_every_device_with_its_unit(h100: Design) -> None:
    header, rows = racks_rows(h100.physical, h100.fabric.devices, h100.intent.facility.rack_power_kw)
    rows = list(rows)
    assert header[:6] == ["rack", "row", "position", "role", "su", "kw"]
    assert len(rows) == len(h100.physical.racks)
    listed = [entry.split("@") for row in rows for entry in row[-1].split()]
    assert sorted(name for name, _ in listed) == sorted(device.name for device in h100.fabric.devices)
    assert rows[0][:6] == ["r00-00", 0, 0, "compute", "0", "40.800"]
    assert rows[0][-1] == "su0-srv0@1 su0-srv1@9 su0-srv2@17 su0-srv3@25"


def test_power_md_totals_and_flags() -> None:
    text = power(placed(servers=8, compute_extra="server_power_kw: 55"))
    assert "| compute (servers) | 440.0 |" in text
    assert "over the 41 kW budget; above the 50 kW air-cooling limit" in text
    clean = power(placed(**H100_128))
    assert "None: every rack is within its budget and cooling." in clean
    assert "| compute (servers) | 1,305.6 |" in clean
    assert "| central |" in clean
    assert "| r00-00 | 0 | 0 | compute | 0 | 4 | 40.80 | 99.5% | 53.04 |  |" in clean  # 40.8 kW x PUE 1.3


@pytest.mark.parametrize(
    ("facility", "path", "words"),
    [
        ("{rack_power_kw: 60}", "facility.rack_power_kw", "air cooling is refused above 50 kW"),
        ("{rack_power_kw: 60, air_limit_kw: 55}", "facility.rack_power_kw", "refused above 55 kW"),
        ("{reach_m: {dac: 8}}", "facility.reach_m.aec", "not beyond dac"),
        ("{rack_units: 6}", "facility.rack_units", "dgx-h100 takes 8U and does not fit in a 6U rack"),
        ("{cooling: water}", "facility.cooling", "air"),
        ("{pue: 0.9}", "facility.pue", "greater than or equal to 1"),
        ("{media: fiber}", "facility.media", "Input should be 'copper' or 'optics'"),
    ],
)
def test_bad_facility_is_refused_with_the_field(facility: str, path: str, words: str) -> None:
    with pytest.raises(InputError) as error:
        placed(servers=8, extra=f"facility: {facility}")
    text = str(error.value)
    assert f"{path}:" in text and words in text, text


def test_liquid_cooling_allows_dense_racks() -> None:
    design = placed(servers=128, extra="facility: {rack_power_kw: 82, cooling: liquid}")
    assert design.physical.servers_per_rack == 6  # 82 / 10.2 = 8, but 48U / 8U = 6
    assert sum(1 for rack in design.physical.racks if rack.role == COMPUTE) == 24  # ceil(32 / 6) = 6 per SU


def test_intent_line_numbers_for_facility_errors() -> None:
    text = intent_text(servers=8, extra="facility:\n  rack_units: 48\n  rack_power_kw: 70")
    with pytest.raises(InputError) as error:
        parse_intent(text, "hall.yaml")
    line = text.splitlines().index("  rack_power_kw: 70") + 1
    assert f"hall.yaml:{line}: facility.rack_power_kw:" in str(error.value)


def test_rows_follow_a_serpentine_and_wide_sus_wrap() -> None:
    # SU of 64 servers: 17 racks, in rows of 16 as the intent gives them
    design = placed(servers=256, leaf="{model: generic-64x800g}", extra="facility: {racks_per_row: 16}")
    physical = design.physical
    su_racks = [rack for rack in physical.racks if rack.su == 0]
    assert len(su_racks) == 17 and len({rack.row for rack in su_racks}) == 2
    first, second = sorted({rack.row for rack in su_racks})
    row_one = [rack.position for rack in physical.racks if rack.row == first]
    row_two = [rack.position for rack in physical.racks if rack.row == second]
    assert row_one == list(range(16)) and row_two[0] == 15 and row_two == sorted(row_two, reverse=True)


def test_only_cables_have_a_length(h100: Design) -> None:
    assert all((line.length_m is None) == (line.category != "cable") for line in h100.physical.bom)


def test_spine_j_of_every_pod_stands_beside_its_super_spine_group() -> None:
    """32 spines and 32 super-spines fill three central racks; in plain fabric order spine 16 (first rack)
    and its super-spine p0-g16-ss0 (third rack) would stand two racks apart."""
    design = placed(servers=64, fabric_extra="tiers: 3")
    assert sum(1 for rack in design.physical.racks if rack.su == -1) == 3
    physical, devices = design.physical, design.fabric.devices
    for _, upper, _, lower, _ in design.fabric.links:
        if devices[upper].role == "super_spine":
            assert abs(physical.device_rack[upper] - physical.device_rack[lower]) <= 1, devices[lower].name


def test_plan_json_gains_power_and_racks() -> None:
    code, out, _ = run_cli("plan", str(ROOT / "intents" / "cluster.yaml"), "--format", "json")
    data = json.loads(out)
    assert code == 0
    assert data["power_kw"]["compute"] == 1305.6
    assert set(data["power_kw"]) == {"compute", "network", "total", "facility"}
    assert data["power_kw"]["facility"] == pytest.approx(data["power_kw"]["total"] * 1.3, abs=1e-3)
    # 4 of the envelope's 8 scalable units built (two to a row of 18 racks), and the central row planned for its
    # 32 spines
    assert data["racks"] == {"compute": 32, "network": 6, "total": 38, "rows": 5}


def test_links_sharing_a_physical_port_share_the_medium_of_the_longest() -> None:
    """Device 0 breaks its ports out 2 ways: its lanes 0 and 1 (one physical port) reach devices 2 and 3; lane 2
    (the next port) reaches device 2 again; device 1 has no breakout."""
    links = [(0, 0, 0, 2, 0), (0, 0, 1, 3, 0), (0, 0, 2, 2, 1), (0, 1, 0, 3, 1)]
    media, shared = choose_media(links, ([2, 1, 1, 1], [2, 1, 1, 1], [0] * 4, [()] * 4), [20, 60, 20, 20], ((30, 70),))
    assert media == [1, 1, 0, 0]
    assert shared == {0: (0, 2), 1: (2, 2)}


def test_uplinks_broken_out_otherwise_share_their_own_physical_port_at_their_own_reach() -> None:
    """Device 0 (a leaf) breaks its 2 down ports out 2 ways (logical 0-3) and runs its up ports whole (logical 4-5,
    physical 2-3); device 1 (a spine) runs whole ports. Tier 0 links reach 30 or 70 dm, tier 1 links (a faster speed)
    only 20 or 50: the 25 dm uplink needs the second medium, the 25 dm downlinks the first."""
    links = [(0, 0, 0, 2, 0), (0, 0, 1, 3, 0), (1, 1, 0, 0, 4), (1, 1, 1, 0, 5)]
    lanes = ([2, 1, 1, 1], [1, 1, 1, 1], [-2, 0, 0, 0], [()] * 4)
    media, shared = choose_media(links, lanes, [25, 25, 25, 10], ((30, 70), (20, 50)))
    assert media == [0, 0, 1, 0]
    assert shared == {0: (0, 2)}


def test_a_multiplane_nic_port_meeting_a_broken_out_leaf_port_takes_optics_only() -> None:
    """Devices 0 and 1 are leaves of planes 0 and 1 whose down ports break out 2 ways; devices 2 and 3 are servers
    whose one NIC port serves both planes (ports 0 and 1 its plane links). Leaf 0's first port reaches both servers,
    each server's port both leaves: no copper cable splits at both ends, so the short links take the first optical
    medium (index 1 of copper, optics, optics) though copper reaches them."""
    links = [(0, 0, 0, 2, 0), (0, 0, 1, 3, 0), (0, 1, 0, 2, 1), (0, 1, 1, 3, 1)]
    lanes = ([2, 2, 1, 1], [1, 1, 2, 2], [0] * 4, [(), (), (0, 0), (0, 0)])
    media, shared = choose_media(links, lanes, [10, 10, 10, 10], ((30, 70, 500),), (False, True, True))
    assert media == [1, 1, 1, 1]
    assert shared == {0: (0, 2), 2 * PORT_SPACE: (0, 2), 3 * PORT_SPACE: (1, 2), PORT_SPACE: (2, 2)}


def test_cabling_csv_and_design_json_carry_lengths_media_and_racks(h100: Design) -> None:
    header, rows = cabling_rows(h100)
    rows = list(rows)
    length_at, medium_at = header.index("length_m"), header.index("medium")
    assert header[medium_at + 1 :] == ["cable_id", "a_rack", "a_unit", "z_rack", "z_unit", "a_cage", "z_cage"]
    physical = h100.physical
    assert [(row[length_at], row[medium_at]) for row in rows] == [
        (f"{length / 10:.1f}", physical.medium_name(number)) for number, length in enumerate(physical.link_length_dm)
    ]
    data = json.loads(design_json(h100))
    assert [rack["name"] for rack in data["racks"]] == [rack.name for rack in physical.racks]
    assert data["links"][0]["length_m"] == physical.link_length_dm[0] / 10
    first = data["devices"][0]
    assert (first["rack"], first["unit"]) == (physical.racks[physical.device_rack[0]].name, physical.device_unit[0])


def test_the_cable_lengths_the_models_read_are_the_physical_plans(h100: Design) -> None:
    assert cable_lengths(h100.intent, h100.plan, h100.fabric, TopKept()) == h100.physical.link_length_dm


def test_one_core_plans_and_models_what_a_worker_beside_the_models_does(
    h100: Design, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("designer.pipeline.os.cpu_count", lambda: 1)
    alone = run_stages(h100.intent, seeds=2, hosts=False)
    assert alone.physical == h100.physical and alone.configs == h100.configs


def test_media_copper_is_the_default_and_optics_puts_a_module_in_every_port_without_moving_anything(
    h100: Design,
) -> None:
    """``facility.media: optics`` changes the medium of the links copper reached and nothing the placement or the
    lengths read: every link takes the first optical medium whose reach covers it, with a module at both ends."""
    copper = placed(**H100_128, extra="facility: {media: copper}")
    assert copper.physical == h100.physical and h100.intent.facility.media == "copper"
    optics = placed(models=True, **H100_128, extra="facility: {media: optics}")
    physical = optics.physical
    assert [name for name, _ in optics.intent.facility.reach_m] == ["multimode", "singlemode"]
    assert (physical.device_rack, physical.device_unit) == (h100.physical.device_rack, h100.physical.device_unit)
    assert physical.link_length_dm == h100.physical.link_length_dm
    expected = ["multimode" if length <= 500 else "singlemode" for length in physical.link_length_dm]
    assert [physical.medium_name(number) for number in range(len(optics.fabric.links))] == expected
    counts = bom(optics)
    assert not any(category == "cable" and "copper" in item for category, item in counts)
    server_links = sum(1 for link in optics.fabric.links if link[0] == 0)
    # a module in every switch port, and one in each twin-port cage of a DGX H100 for its two links
    modules = 2 * len(expected) - server_links // 2
    assert sum(count for (category, _), count in counts.items() if category == "transceiver") == modules
    assert sum(physical.switch_w) > sum(h100.physical.switch_w)  # modules draw more than the copper they replace
    assert optics.configs == h100.configs  # the headroom reads the length, not the medium


def test_media_optics_needs_an_optical_medium(tmp_path: Path) -> None:
    (tmp_path / "copper.yaml").write_text("media:\n  multimode: {optical: false}\n  singlemode: {optical: false}\n")
    intent = tmp_path / "hall.yaml"
    intent.write_text(intent_text(servers=8, extra="catalog: copper.yaml\nfacility: {media: optics}"))
    code, out, err = run_cli("plan", str(intent))
    assert code == 2 and out == ""
    assert "facility.media: optics needs an optical medium and the catalog's media (dac, aec, multimode, " in err


def test_a_site_catalog_may_set_the_media_and_the_intent_still_wins(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("facility: {media: optics}\n")
    intent = tmp_path / "hall.yaml"
    intent.write_text(intent_text(servers=8, extra="catalog: site.yaml"))
    code, out, err = run_cli("plan", str(intent), "--format", "json")
    assert code == 0, err
    site = json.loads(out)
    intent.write_text(intent_text(servers=8, extra="catalog: site.yaml\nfacility: {media: copper}"))
    code, out, err = run_cli("plan", str(intent), "--format", "json")
    assert code == 0, err
    assert site["power_kw"]["total"] > json.loads(out)["power_kw"]["total"]

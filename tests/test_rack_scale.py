"""Rack-scale systems and NICs of every vendor: GB200/GB300 NVL72 racks designed as whole systems (scalable units,
placement, power, BOM), the NVLink domain from the catalog in the workload analysis, and server files right for
each NIC vendor (never NVIDIA's mlnx_qos on an AMD or Broadcom NIC).

Sources of the catalog facts these tests hold the code to (designer/catalog.yaml cites each): NVIDIA DGX SuperPOD
GB200 RA (18 compute trays x 4 GPUs, 9 NVLink switch trays, 4 ConnectX-7 400G per tray, about 120-132 kW a rack,
8 racks per SU); NVIDIA Enterprise RA "NVL72 AI factory" (GB300: 4 ConnectX-8 800G per tray, 2 SN2201 management
switches, 8 power shelves, up to about 142 kW a rack, liquid); the Linux kernel's ionic_rdma.rst (AMD Pollara 400:
ionic driver) and Broadcom's bnxt_re README (Thor2: bnxt_re RoCE driver).
"""

from __future__ import annotations

import csv
import json
import math
from functools import cache
from pathlib import Path

import pytest

from designer.analysis.collectives import NVLINK_EFFICIENCY
from designer.catalog import catalog
from designer.design import Design
from designer.outputs.build import design_files
from designer.outputs.physical_review import bom_rows, power_markdown, racks_rows
from designer.outputs.summary import summary_markdown
from designer.outputs.tables import csv_bytes
from designer.pipeline import build
from designer.render import render_configs
from designer.render.servers import render_hosts
from tests.conftest import ROOT, check_golden
from tests.helpers import build_text
from tests.test_growth import GAINING, assert_only_added
from tests.test_intent_errors import run_cli

GOLDEN = ROOT / "tests" / "golden"
INTENTS = ROOT / "tests" / "intents"


@cache
def gb300() -> Design:
    return build(INTENTS / "gb300-nvl72-small.yaml")


@cache
def mi355x(nic: str | None = None) -> Design:
    text = (INTENTS / "amd-mi355x-small.yaml").read_text()
    if nic:
        text = text.replace("server: amd-mi355x}", f"server: amd-mi355x, nic: {nic}}}")
    return build_text(text)


def rack_intent(
    systems: int, extra: str = "", leaf: str = "{ports: 16, speed: 800G}", system: str = "gb300-nvl72"
) -> str:
    return (
        f"name: rack\ncompute: {{system: {system}, systems: {systems}}}\n{extra}"
        f"fabric: {{tiers: 2, leaf: {leaf}, spine: {{ports: 64, speed: 800G}}}}\ntargets: [frr]\n"
    )


def test_the_shipped_systems_are_nvidias_racks() -> None:
    systems = catalog().systems
    gb200, gb300 = systems["gb200-nvl72"], systems["gb300-nvl72"]
    assert (gb200.trays, gb200.tray_gpus, gb200.gpus, gb200.nvlink_switch_trays) == (18, 4, 72, 9)
    assert (gb200.tray_nics, gb200.nic, gb200.nic_speed) == (4, "nvidia-cx7", 400)
    assert (gb300.tray_nics, gb300.nic, gb300.nic_speed, gb300.management_switches) == (4, "nvidia-cx8", 800, 2)
    for system in (gb200, gb300):
        assert system.cooling == "liquid" and system.power_shelves == 8
        assert 120 <= system.power_kw <= 142  # the rack's draw, never the shelves' 8 x 33 kW of redundant capacity
        assert system.power_kw < system.power_shelves * 33 and system.power_source


def test_a_system_design_has_whole_racks_of_trays() -> None:
    design = gb300()
    assert (design.intent.servers, design.intent.gpus, design.intent.systems) == (72, 288, 4)
    compute = [rack for rack in design.physical.racks if rack.role == "compute"]
    assert len(compute) == 4  # one rack per system, never 9 racks for 8 systems' worth of trays
    devices = design.fabric.devices
    for number, rack in enumerate(compute):
        names = sorted(devices[index].name for index in rack.devices)
        assert names == sorted(f"sys{number}-tray{tray}" for tray in range(18))
        assert rack.kw == 142.0  # the system's maximum power, the rack's budget by default
    assert design.intent.facility.rack_power_kw == 142.0 and design.intent.facility.cooling == "liquid"
    assert not [finding for finding in design.findings if finding.severity == "error"]


@pytest.mark.parametrize(
    ("trays", "leaf", "systems_per_block", "leaves_per_rail"),
    [
        (18, "{ports: 16, speed: 800G}", 4, 9),  # 8 downlinks: lcm(18, 8) = 72 trays
        (18, "{model: nvidia-sn5600}", 16, 9),  # 32 x 800G downlinks: lcm(18, 32) = 288 trays
        (18, "{ports: 36, speed: 800G}", 1, 1),  # 18 downlinks: one system fills one leaf per rail
    ],
)
def test_a_block_is_the_fewest_systems_that_fill_whole_scalable_units(
    trays: int, leaf: str, systems_per_block: int, leaves_per_rail: int
) -> None:
    plan = build_text(rack_intent(2, leaf=leaf)).plan
    assert (plan.systems_per_block, plan.sus_per_block) == (systems_per_block, leaves_per_rail)
    lcm = math.lcm(trays, plan.servers_per_su)
    assert plan.systems_per_block * trays == lcm and plan.sus_per_block * plan.servers_per_su == lcm


def test_designers_scalable_units_stand_beside_nvidias_su_of_8_nvl72_racks(tmp_path: Path) -> None:
    """NVIDIA's DGX SuperPOD GB200 RA: one scalable unit is 8 NVL72 racks, 576 GPUs. designer's scalable unit is a
    leaf group (an SN5600's 32 downlinks: 32 trays), so 8 racks (144 trays) are 5 of designer's, the last holding
    16 trays: summary.md and designer plan name both, NVIDIA's with its source, and the warning says what is
    part-filled in designer's terms."""
    design = build_text(rack_intent(8, leaf="{model: nvidia-sn5600}"))
    summary = summary_markdown(design)
    assert (
        "| Scalable units | 5 (designer: 32 trays a leaf group, one leaf per rail and plane) — SU of NVIDIA's DGX "
        "SuperPOD GB200 RA (NVL72 racks): 8 gb300-nvl72 racks = 576 GPUs |"
    ) in summary
    assert "Blocks of whole systems: 16 systems (288 trays) each." in summary
    assert design.plan.warnings[0] == (
        "scalable unit 4 (a leaf group: one leaf per rail and plane, serving 32 trays) is part-filled with 16 trays; "
        "its leaves and uplinks are built in full"
    )
    intent = tmp_path / "rack.yaml"
    intent.write_text(rack_intent(8, leaf="{model: nvidia-sn5600}"))
    code, out, _ = run_cli("plan", "--format", "json", str(intent))
    sizing = json.loads(out)["sizing"]
    assert code == 0 and (sizing["servers_per_su"], sizing["scalable_units"]) == (32, 5)
    assert sizing["vendor_scalable_unit"] == {
        "systems": 8,
        "gpus": 576,
        "source": "NVIDIA's DGX SuperPOD GB200 RA (NVL72 racks)",
    }
    code, out, _ = run_cli("plan", str(intent))
    assert (
        "scalable units: 5 (designer: 32 trays a leaf group); SU of NVIDIA's DGX SuperPOD GB200 RA (NVL72 racks): "
        "8 systems = 576 GPUs"
    ) in out.splitlines()


def test_nvidias_gb200_su_of_8_racks_on_18_port_leaves() -> None:
    # The DGX SuperPOD GB200 SU is 8 racks (576 GPUs); on leaves whose downlinks take one system's 18 trays of a rail
    # every rack is its own unit of leaves, and 8 racks take 8 leaves per rail.
    design = build_text(
        rack_intent(8, leaf="{ports: 36, speed: 400G}", system="gb200-nvl72").replace("800G}}", "400G}}")
    )
    assert design.intent.gpus == 576 and design.plan.leaves_per_plane == 8 * 4
    assert len([rack for rack in design.physical.racks if rack.role == "compute"]) == 8


def test_the_bom_and_summary_show_what_a_rack_holds() -> None:
    design = gb300()
    bom = {(row[0], row[1]): row[3] for row in bom_rows(design.physical)[1]}
    assert bom["system", "gb300-nvl72 rack"] == 4
    assert bom["system", "gb300-nvl72 NVLink switch tray"] == 36
    assert bom["system", "gb300-nvl72 power shelf"] == 32
    assert bom["system", "gb300-nvl72 management switch"] == 8
    assert bom["server", "gb300-nvl72-tray"] == 72
    text = summary_markdown(design)
    assert "lcm(18, 8) = 72 trays" in text and "9 leaves per plane" in text
    assert "142 kW per rack at most (NVIDIA Enterprise RA NVL72 AI factory" in text
    power = power_markdown(design.intent.name, design.physical, design.intent.facility, design.intent.system)
    assert "One gb300-nvl72 per compute rack: 18 compute trays, 9 NVLink switch trays, 8 power shelves" in power


NVL72_RACK = {
    # The shipped layout of a GB300 NVL72 rack in a 48U rack (designer/catalog.yaml, rack_layout): the two SN2201
    # management switches and four power shelves on top, 10 compute trays, the 9 NVLink switch trays in the middle,
    # 8 compute trays and the other four power shelves at the bottom; every part 1U (NVIDIA DGX GB Rack Scale Systems
    # User Guide: 1RU compute and NVLink switch trays; NVIDIA Base Command Manager: 1U power shelves, 8 a rack),
    # counted down from U48 without gaps.
    "mgmt": [48, 47],
    "powershelf": [46, 45, 44, 43, 15, 14, 13, 12],
    "tray": [*range(42, 32, -1), *range(23, 15, -1)],
    "nvswitch": list(range(32, 23, -1)),
}


def test_racks_csv_of_a_gb300_build_shows_every_tray_shelf_and_switch_at_its_unit(tmp_path: Path) -> None:
    code, _, err = run_cli("build", str(INTENTS / "gb300-nvl72-small.yaml"), "-o", str(tmp_path / "out"))
    assert code == 0, err
    with (tmp_path / "out" / "racks.csv").open(newline="") as handle:
        compute = [row for row in csv.DictReader(handle) if row["role"] == "compute"]
    assert len(compute) == 4
    for number, row in enumerate(compute):
        entries = [entry.split("@") for entry in row["devices"].split()]
        assert int(row["device_count"]) == len(entries) == 18 + 9 + 8 + 2
        placed: dict[str, list[int]] = {}
        for name, unit in entries:
            system, part = name.split("-", 1)
            assert system == f"sys{number}"  # one system a rack, never split
            placed.setdefault(part.rstrip("0123456789"), []).append(int(unit))
        assert placed == NVL72_RACK
        units = sorted(unit for spots in placed.values() for unit in spots)
        assert len(set(units)) == len(units) and units[0] >= 1 and units[-1] <= 48  # no two parts share a unit
    power = (tmp_path / "out" / "power.md").read_text()
    assert "| U32-U24 | 9 NVLink switch trays of 1U | nvswitch0 to nvswitch8 |" in power
    assert "| U42-U33 | 10 compute trays of 1U | tray0 to tray9 |" in power
    svg = (tmp_path / "out" / "floorplan.svg").read_text()
    assert "18 devices and 19 system parts" in svg and ">sys0-nvswitch8</text>" in svg


def test_a_system_that_does_not_fit_the_racks_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "short.yaml"
    path.write_text(rack_intent(1, "facility: {rack_units: 36}\n"))
    code, _, err = run_cli("build", str(path), "-o", str(tmp_path / "out"))
    assert code == 2 and not (tmp_path / "out").exists() and "Traceback" not in err
    assert "short.yaml:3: facility.rack_units: gb300-nvl72 takes 37U and does not fit in a 36U rack" in err


def test_a_site_rack_layout_must_hold_every_part_of_the_system(tmp_path: Path) -> None:
    (tmp_path / "intent.yaml").write_text(
        "name: site\ncatalog: site.yaml\ncompute: {system: gb300-nvl72, systems: 1}\n"
        "fabric: {leaf: {model: nvidia-sn5600}}\n"
    )
    site = tmp_path / "site.yaml"
    site.write_text("systems:\n  gb300-nvl72:\n    rack_layout: [[compute_tray, 18, 1], [rack_door, 1, 1]]\n")
    code, _, err = run_cli("plan", str(tmp_path / "intent.yaml"))
    assert code == 2 and "Traceback" not in err
    assert (
        "site.yaml:3: systems.gb300-nvl72.rack_layout[1]: should be [part, how many (1 to 64), rack units of one "
        "(1 to 8)] with the part one of compute_tray, nvlink_switch_tray, power_shelf, management_switch" in err
    )
    site.write_text(
        "systems:\n  gb300-nvl72:\n    rack_layout: [[compute_tray, 17, 2], [nvlink_switch_tray, 9, 1],"
        " [power_shelf, 8, 1], [management_switch, 2, 1]]\n"
    )
    code, _, err = run_cli("plan", str(tmp_path / "intent.yaml"))
    assert code == 2 and "Traceback" not in err
    assert (
        "systems.gb300-nvl72.rack_layout: 17 x compute_tray where trays is 18; list each part as many times as the "
        "system has it" in err
    )
    assert "systems.gb300-nvl72.rack_layout: compute trays of 2U, but tray_rack_units is 1" in err


def test_a_site_system_without_a_layout_stacks_its_trays_from_the_bottom(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(
        "systems:\n  mi355x-rack:\n    {trays: 4, tray_gpus: 8, tray_nics: 8, nic: amd-pollara-400, nic_speed: 400,"
        " planes: 1, north_south_nics: 1, north_south_nic: nvidia-bluefield3, tray_rack_units: 4,"
        " nvlink_switch_trays: 0, power_shelves: 2, management_switches: 1, power_kw: 60, power_source: site survey,"
        " cooling: liquid, nvlink_gbyte_s: 537.6}\n"
    )
    (tmp_path / "intent.yaml").write_text(
        "name: site\ncatalog: site.yaml\ncompute: {system: mi355x-rack, systems: 2}\n"
        "fabric: {leaf: {model: generic-64x400g}}\ntargets: [frr]\n"
    )
    design = build(tmp_path / "intent.yaml")
    _, rows = racks_rows(design.physical, design.fabric.devices, 60)
    compute = [row for row in rows if row[3] == "compute"]
    assert compute[0][-1] == (
        "sys0-tray0@1 sys0-tray1@5 sys0-tray2@9 sys0-tray3@13 sys0-powershelf0 sys0-powershelf1 sys0-mgmt0"
    )
    power = power_markdown(design.intent.name, design.physical, design.intent.facility, design.intent.system)
    assert "The catalog gives no rack layout for mi355x-rack" in power


@pytest.mark.parametrize("name", ["gb300-nvl72-small", "amd-mi355x-small"])
def test_rack_scale_and_vendor_designs_match_the_golden_files(name: str, update_golden: bool) -> None:
    design = gb300() if name.startswith("gb300") else mi355x()
    folder = GOLDEN / name
    text = summary_markdown(design)
    section = text[text.index("## Systems, NVLink and NICs") : text.index("## Switches")]
    check_golden(folder / "summary-hardware.md", section, update_golden)
    check_golden(
        folder / "racks.csv",
        csv_bytes(*racks_rows(design.physical, design.fabric.devices, design.intent.facility.rack_power_kw)).decode(),
        update_golden,
    )
    check_golden(folder / "bom.csv", csv_bytes(*bom_rows(design.physical)).decode(), update_golden)
    for relative, data in render_hosts(design.hosts[:1]).items():
        check_golden(folder / relative, data.decode(), update_golden)


def test_a_job_inside_one_nvl72_sends_nothing_to_the_fabric() -> None:
    text = rack_intent(4) + (
        "workloads:\n  - {name: rack, gpus: 72, bytes: 10GB}\n  - {name: two, gpus: 144, bytes: 10GB}\n"
        "  - {name: tray, gpus: 4, bytes: 10GB}\n"
    )
    design = build_text(text)
    rack, two, tray = design.workloads
    for inside in (rack, tray):
        assert inside.flows == 0 and inside.ideal.network_s == 0
        assert set(inside.fabric_bytes.values()) == {0}
    assert two.workload.servers == 2 and two.flows > 0 and two.fabric_bytes["server_leaf"] > 0
    # every tray's every rail carries the ring between the two racks: 72 NICs each way, 2 channels
    assert two.flows == 2 * 72 * 2
    # NVLink time from the system's own figure: 2(g-1)/g x bytes at 900 GB/s x efficiency, g = 72
    assert rack.ideal.nvlink_s == pytest.approx(2 * 71 / 72 * 10e9 / (900e9 * NVLINK_EFFICIENCY))


def test_a_custom_server_without_an_nvlink_figure_cannot_run_workloads(tmp_path: Path) -> None:
    text = (
        "name: custom\ncompute: {servers: 8, gpus_per_server: 8, nics_per_server: 8, nic_speed: 400G, "
        "server_power_kw: 10}\nfabric: {leaf: {model: generic-64x400g}}\n"
        "workloads: [{name: job, gpus: 16, bytes: 1GB}]\n"
    )
    path = tmp_path / "custom.yaml"
    path.write_text(text)
    code, _, err = run_cli("plan", str(path))
    assert code == 2 and "compute.nvlink_gbyte_s: the workloads need the NVLink (scale-up) bandwidth" in err
    assert "Traceback" not in err


def test_amd_servers_get_no_nvidia_script() -> None:
    design = mi355x()
    files = render_hosts(design.hosts[:1])
    assert not [path for path in files if path.endswith("nic-qos.sh")]
    assert not any(b"mlnx_qos" in data for data in files.values())
    nccl = files["servers/su0-srv0/nccl.env"].decode()
    assert 'NCCL_IB_HCA="=ionic_0:1,ionic_1:1' in nccl
    text = summary_markdown(design)
    assert "Not confirmed from a source designer holds" in text and "PFC on priority 3 only" in text
    assert "driver `ionic`" in text
    written = design_files(design)
    assert not [path for path in written if path.endswith("nic-qos.sh")]


def test_a_broadcom_nic_is_named_by_its_driver() -> None:
    files = render_hosts(mi355x("broadcom-thor2").hosts[:1])
    assert 'NCCL_IB_HCA="=bnxt_re0:1,bnxt_re1:1' in files["servers/su0-srv0/nccl.env"].decode()
    assert not [path for path in files if path.endswith("nic-qos.sh")]


def test_connectx7_in_an_amd_server_gets_mlnx_qos() -> None:
    files = render_hosts(mi355x("nvidia-cx7").hosts[:1])
    script = files["servers/su0-srv0/nic-qos.sh"].decode()
    assert "mlnx_qos -i nic0 --trust dscp" in script and "cma_roce_tos -d mlx5_0" in script


def test_site_catalog_defines_its_own_rack(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text(
        "systems:\n  mi355x-rack:\n    {trays: 4, tray_gpus: 8, tray_nics: 8, nic: amd-pollara-400, nic_speed: 400,"
        " planes: 1, north_south_nics: 1, north_south_nic: nvidia-bluefield3, tray_rack_units: 4,"
        " nvlink_switch_trays: 0, power_shelves: 0, management_switches: 1, power_kw: 60, power_source: site survey,"
        " cooling: liquid, nvlink_gbyte_s: 537.6}\n"
    )
    (tmp_path / "intent.yaml").write_text(
        "name: site\ncatalog: site.yaml\ncompute: {system: mi355x-rack, systems: 8}\n"
        "fabric: {leaf: {model: generic-64x400g}}\ntargets: [frr]\n"
    )
    code, out, err = run_cli("plan", str(tmp_path / "intent.yaml"))
    assert (code, err) == (0, ""), err
    assert "256 GPUs on 32 servers" in out and "8 compute" in out


def test_a_site_system_with_an_unknown_nic_is_refused(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("systems:\n  gb300-nvl72: {nic: acme-9000}\n")
    (tmp_path / "intent.yaml").write_text(
        "name: site\ncatalog: site.yaml\ncompute: {system: gb300-nvl72, systems: 1}\n"
        "fabric: {leaf: {model: nvidia-sn5600}}\n"
    )
    code, _, err = run_cli("plan", str(tmp_path / "intent.yaml"))
    assert code == 2 and "systems.gb300-nvl72: acme-9000 is not a NIC of the catalog; known:" in err


def test_the_shipped_gb300_intent_plans() -> None:
    code, out, err = run_cli("plan", str(ROOT / "intents" / "gb300-nvl72.yaml"))
    assert (code, err) == (0, "")
    assert "576 GPUs on 144 servers" in out and "8 compute" in out


@cache
def grown(systems: int) -> Design:
    """GB300 racks inside an envelope of 12 systems, on 16 x 800G leaves (scalable units of 4 systems)."""
    return build_text(
        f"name: growth\ncompute: {{system: gb300-nvl72, systems: {systems}}}\ngrowth: {{max_systems: 12}}\n"
        "fabric: {leaf: {ports: 16, speed: 800G}, spine: {ports: 64, speed: 800G}}\ntargets: [frr, eos]\n"
    )


@pytest.mark.parametrize(("old", "new"), [(1, 3), (3, 4), (4, 9), (9, 12)])
def test_racks_added_inside_the_envelope_only_add(old: int, new: int) -> None:
    before, after = grown(old), grown(new)
    assert_only_added(before, after, render_configs(before.configs, GAINING), render_configs(after.configs, GAINING))
    assert after.intent.systems == new
    parts = {rack.name: rack.parts for rack in after.physical.racks}
    assert all(parts[rack.name] == rack.parts for rack in before.physical.racks)  # no shelf or switch tray moves
    assert sum(len(rack.parts) for rack in after.physical.racks) == new * 19


def test_diff_reads_a_system_build_and_shows_only_the_added_rack(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    intent = (INTENTS / "gb300-nvl72-small.yaml").read_text()
    for folder, systems in ((old, 3), (new, 4)):
        path = tmp_path / f"{folder.name}.yaml"
        text = intent.replace("systems: 4}", f"systems: {systems}}}").replace("[frr, sonic, eos, nvue]", "[frr, eos]")
        path.write_text(text + "growth: {max_systems: 4}\n")  # SONiC rewrites a port's buffers once it is used
        assert run_cli("build", str(path), "-o", str(folder))[0] == 0
    code, out, err = run_cli("diff", str(old), str(new), "--fail-on", "existing-change")
    assert (code, err) == (0, ""), err
    assert "| GPUs | 216 | 288 | +72 |" in out

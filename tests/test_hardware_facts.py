"""The shipped hardware as its vendors' documents give it: ports as cages and modules, and the designs NVIDIA
publishes for them.

Sources (designer/catalog.yaml cites each where the fact is kept):
- NVIDIA DGX SuperPOD B300 reference architecture (Spectrum-X), Table 3: one scalable unit of 64 DGX B300 is 16
  leaves, 8 spines, 512 node-to-leaf and 512 leaf-to-spine cables; each GPU "twin-planar", 2 x 400G.
- NVIDIA DGX H100/H200 User Guide, "Network Modules", Table 6: four twin-port OSFP cages, OSFP1P1 (GPU 7) to OSFP4P2
  (GPU 0); DGX BasePOD RA, Core Components: "4x OSFP ports serving 8x single-port ConnectX-7".
- NVIDIA MCP4Y10-Nxxx twin-port DAC specification, Overview: flat-top ends for DGX H100, finned for the switch.
- NVIDIA Mission Control North-South Network GB200 deployment guide 2.3.0, Compute Tray Network Ports.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

from designer.backend.wiring import SERVER_LEAF
from designer.catalog import catalog
from designer.design import Design
from designer.outputs.labels import label_rows, label_text
from designer.outputs.physical_review import bom_rows
from designer.outputs.tables import cabling_rows
from tests.helpers import build_text, intent_text
from tests.test_intent_errors import run_cli

B300_SU = intent_text(
    servers=64,
    server="dgx-b300",
    leaf="{model: nvidia-sn5600, uplink_speed: 800G}",
    spine="{model: nvidia-sn5600}",
    extra="targets: [nvue]",
)
"""One scalable unit of the DGX SuperPOD B300 RA (Spectrum-X): 64 nodes on SN5600 leaves and spines, the leaves'
uplinks at 800G."""


@cache
def b300_su() -> Design:
    return build_text(B300_SU, seeds=2, hosts=False)


@cache
def h100_ib() -> Design:
    """32 DGX H100 on Quantum-2 QM9700 (InfiniBand NDR, 32 twin-port cages a switch), as NVIDIA's H100 SuperPOD."""
    text = "name: h100\ncompute: {servers: 32, server: dgx-h100}\n"
    return build_text(text + "fabric: {technology: infiniband, leaf: {model: nvidia-qm9700}}\n", seeds=2, hosts=False)


def cables_by_tier(design: Design) -> Counter[str]:
    """Cables (distinct cable IDs) of each tier in cabling.csv."""
    header, rows = cabling_rows(design)
    tier, cable = header.index("tier"), header.index("cable_id")
    return Counter(tier_name for tier_name, _ in {(row[tier], row[cable]) for row in rows})


def test_the_dgx_b300_is_eight_connectx8_800g_ports_each_split_over_two_planes() -> None:
    """DGX B300 datasheet / SuperPOD B300 RA: eight ConnectX-8 SuperNIC 800G ports, "twin-planar" 2 x 400G a GPU; the
    shipped model splits each port over 2 planes by default, in hwplb (Spectrum-X RA 2.3's generally available
    mode)."""
    model = catalog().servers["dgx-b300"]
    assert (model.nics, model.nic_speed, model.nic, model.multiplane) == (8, 800, "nvidia-cx8", 2)
    server = b300_su().intent.server
    assert server.multiplane is not None
    assert (server.multiplane.planes, server.multiplane.mode, server.multiplane.port_speed) == (2, "hwplb", 800)
    assert (server.nics, server.nic_speed, b300_su().intent.planes) == (16, 400, 2)


def test_one_b300_scalable_unit_is_nvidias_table_3() -> None:
    """NVIDIA DGX SuperPOD B300 RA, Table 3: 64 nodes = 16 leaves, 8 spines, 512 node-to-leaf cables and 512
    leaf-to-spine cables (one cable a ConnectX-8 cage, split over the two planes)."""
    design = b300_su()
    roles = Counter(device.role for device in design.fabric.devices)
    assert (roles["leaf"], roles["spine"], roles["server"]) == (16, 8, 64)
    assert cables_by_tier(design) == {"server_leaf": 512, "leaf_spine": 512}


def test_a_b300_scalable_unit_orders_one_twin_port_module_a_cage_at_both_ends() -> None:
    """512 ConnectX-8 cages (64 nodes x 8) and 512 twin-port cages on the leaves' server side (16 leaves x 32 cages
    of 2 x 400G): 1,024 twin-port modules, never a 400G module for a NIC."""
    rows = list(bom_rows(b300_su().physical)[1])
    transceivers = {item: count for category, item, _, count in rows if category == "transceiver"}
    assert transceivers["800G multimode module, twin-port 2 x 400G"] == 2 * 512
    assert not [item for item in transceivers if item.startswith("400G")]


def test_compute_multiplane_is_taken_for_the_b300_and_infiniband_takes_its_ports_whole() -> None:
    """ConnectX-8 on B300 also splits 4 x 200G (NVIDIA Network Operator multiplane quick starts); in one plane
    (fabric.planes: 1, as on the B300-XDR SuperPOD's InfiniBand) each port is one 800G link."""
    four = build_text(
        intent_text(
            servers=16, server="dgx-b300", leaf="{model: nvidia-sn5600}", compute_extra="multiplane: {planes: 4}"
        )
        + "targets: [nvue]\n",
        seeds=2,
        hosts=False,
    )
    assert (four.intent.planes, four.intent.server.nics, four.intent.server.nic_speed) == (4, 32, 200)
    one = build_text(
        intent_text(servers=8, server="dgx-b300", leaf="{model: generic-64x800g}", fabric_extra="planes: 1"),
        seeds=2,
        hosts=False,
    )
    assert (one.intent.planes, one.intent.server.nics, one.intent.server.nic_speed) == (1, 8, 800)
    assert one.intent.server.multiplane is None


def test_dgx_h100_ports_leave_through_four_twin_port_cages_named_as_nvidia_names_them() -> None:
    """DGX H100/H200 User Guide, Table 6: GPU 0's port is OSFP4P2, GPU 7's OSFP1P1 (rail i serves GPU i)."""
    header, table = cabling_rows(h100_ib())
    rows = list(table)
    tier, device, port, cage = (header.index(name) for name in ("tier", "z_device", "z_port", "z_cage"))
    named = {row[port]: row[cage] for row in rows if row[tier] == "server_leaf" and row[device] == "su0-srv0"}
    assert named == {
        "nic0": "OSFP4P2",
        "nic1": "OSFP3P2",
        "nic2": "OSFP3P1",
        "nic3": "OSFP4P1",
        "nic4": "OSFP1P2",
        "nic5": "OSFP2P2",
        "nic6": "OSFP2P1",
        "nic7": "OSFP1P1",
    }
    labels = list(label_rows((header, rows))[1])
    server_end = next(label for label in labels if label[4] == "su0-srv0" and label[5] == "nic0")
    assert "su0-srv0 nic0 (OSFP4P2)" in label_text(server_end)[1]


def test_both_ends_of_a_dgx_h100_link_are_counted_by_cage() -> None:
    """32 DGX H100 x 4 twin-port cages = 128 flat-top modules (MCP4Y10 specification: flat top for DGX H100); 256
    server links on QM9700 leaves' twin-port cages (2 x 400G each, finned) = 128 more."""
    rows = list(bom_rows(h100_ib().physical)[1])
    transceivers = {item: count for category, item, _, count in rows if category == "transceiver"}
    assert transceivers["800G multimode module, twin-port 2 x 400G, flat-top"] == 32 * 4
    server_links = sum(1 for link in h100_ib().fabric.links if link[0] == SERVER_LEAF)
    assert server_links == 256
    assert transceivers["800G multimode module, twin-port 2 x 400G"] == server_links // 2
    assert not [item for item in transceivers if item.startswith("400G")]


def test_the_gb200_tray_names_its_four_compute_cages_as_nvidia_does() -> None:
    """NVIDIA Mission Control North-South Network GB200 deployment guide, Compute Tray Network Ports: Left Bay OSFP
    P3 and P4, Right Bay OSFP P3 and P4 (mlx5_0, mlx5_1, mlx5_4, mlx5_5)."""
    text = "name: t\ncompute: {system: gb200-nvl72, systems: 1}\nfabric: {leaf: {model: generic-64x400g}}\n"
    design = build_text(text + "targets: [frr]\n", seeds=2, hosts=False)
    header, rows = cabling_rows(design)
    device, cage = header.index("z_device"), header.index("z_cage")
    tray = [row[cage] for row in rows if row[device] == "sys0-tray0"]
    assert tray == ["Left Bay OSFP P3", "Left Bay OSFP P4", "Right Bay OSFP P3", "Right Bay OSFP P4"]


def xdr(servers: int) -> Design:
    """DGX B300 on Quantum-X800 Q3400 leaves and spines (InfiniBand XDR), as NVIDIA's B300-XDR SuperPOD."""
    text = f"name: xdr\ncompute: {{servers: {servers}, server: dgx-b300}}\n"
    return build_text(text + "fabric: {technology: infiniband, leaf: {model: nvidia-q3400}}\n", seeds=2, hosts=False)


def test_the_b300_xdr_superpod_is_nvidias_on_quantum_x800() -> None:
    """NVIDIA DGX SuperPOD B300-XDR RA (DOMAIN notes, section 10): one SU of 72 nodes is 8 leaves and 4 spines, 4 SUs
    32 leaves and 18 spines; each ConnectX-8 port one 800G link (no planes on InfiniBand). The Q3400-RA is 4U with
    144 x 800G over 72 twin-port cages (netbox-community devicetype-library Nvidia/Q3400-RA.yaml); its power has no
    vendor figure at hand, so it stays an estimate."""
    q3400 = catalog().switches["nvidia-q3400"]
    assert (q3400.ports * q3400.speed // 800, q3400.technology, q3400.power_estimated) == (144, "infiniband", True)
    assert (q3400.ports, q3400.rack_units) == (72, 4)
    for servers, leaves, spines in ((72, 8, 4), (288, 32, 18)):
        design = xdr(servers)
        roles = Counter(device.role for device in design.fabric.devices)
        assert (roles["leaf"], roles["spine"], design.intent.planes) == (leaves, spines, 1), servers
        assert design.intent.server.nic_speed == 800 and design.intent.server.multiplane is None


def test_the_qfx5240_is_juniper_s_64_x_800g_tomahawk_5_switch_with_estimated_power() -> None:
    """Juniper's AI data center JVDs: QFX5240-64OD leaves and spines, 64 x 800GbE OSFP, 800G ports broken out
    2 x 400G toward the GPUs; its power figures are estimates (no Juniper datasheet copy at hand)."""
    qfx = catalog().switches["juniper-qfx5240-64od"]
    assert (qfx.ports, qfx.speed, qfx.technology, qfx.power_estimated) == (64, 800, "ethernet", True)
    design = build_text(
        intent_text(servers=64, leaf="{model: juniper-qfx5240-64od}", extra="targets: [sonic, frr]"),
        seeds=2,
        hosts=False,
    )
    roles = Counter(device.role for device in design.fabric.devices)
    assert (roles["leaf"], roles["spine"]) == (8, 4)  # 128 x 400G a switch: 64 servers down, 64 up


def refusal(tmp_path: Path, intent: str, site: str = "") -> str:
    """What ``designer plan`` says of an intent (and a site catalog beside it, site.yaml) it refuses: exit 2."""
    if site:
        (tmp_path / "site.yaml").write_text(site)
    (tmp_path / "intent.yaml").write_text(intent)
    code, out, err = run_cli("plan", str(tmp_path / "intent.yaml"))
    assert (code, out) == (2, ""), err
    return err


def test_a_site_catalog_takes_power_estimated_and_cages_and_lists_every_section(tmp_path: Path) -> None:
    """The shipped catalog marks unconfirmed power power_estimated (QM9700, Q3400): a site may too; the refusal of
    an unknown section names every section a site catalog holds."""
    site = "switches:\n  my-64x800g: {ports: 64, speed: 800, rack_units: 2, power_w: 1000, power_w_optics: 2500, "
    site += "power_estimated: true}\n"
    (tmp_path / "site.yaml").write_text(site)
    (tmp_path / "intent.yaml").write_text(
        intent_text(servers=16, leaf="{model: my-64x800g}", extra="catalog: site.yaml")
    )
    code, _, err = run_cli("plan", str(tmp_path / "intent.yaml"))
    assert code == 0, err
    err = refusal(tmp_path, intent_text(servers=16, extra="catalog: site.yaml"), "chassis: {}\n")
    assert (
        "site.yaml:1: chassis: unknown key; a site catalog holds switches, servers, nics, systems, media, targets,"
        in err
    )
    assert "facility and prices" in err


def test_a_server_whose_ports_and_cages_do_not_add_up_is_refused_with_what_would_be_valid(tmp_path: Path) -> None:
    """Every NIC port leaves through exactly one cage (a DGX H100's eight through four twin-port cages)."""
    site = "servers:\n  my-dgx: {gpus: 8, nics: 8, nic_speed: 400G, planes: 1, power_kw: 10, rack_units: 8,\n"
    site += "           cages: {OSFP1: [0, 1], OSFP2: [1, 2], OSFP3: [4, 9]}}\n"
    err = refusal(tmp_path, intent_text(servers=16, server="my-dgx", extra="catalog: site.yaml"), site)
    assert (
        "servers.my-dgx.cages: NIC ports 9 beyond its 8 (nics: 8); NIC ports 1 in two cages; NIC ports 3, 5, 6, 7 in "
        in err
    )
    assert "list each of NIC ports 0 to 7 in exactly one cage" in err


def test_the_air_limit_refusal_names_the_limit_and_the_value_that_would_hold(tmp_path: Path) -> None:
    """NVIDIA's B300-XDR SuperPOD: 4 DGX B300 an air-cooled rack at about 56 kW, above the default 50 kW."""
    err = refusal(tmp_path, intent_text(servers=16, server="dgx-b300", extra="facility: {rack_power_kw: 58}"))
    assert "facility.rack_power_kw: air cooling is refused above 50 kW per rack (facility.air_limit_kw)" in err
    assert "facility.air_limit_kw: 58" in err


def test_adaptive_routing_refused_at_800g_says_two_planes_of_400g_would_run_it(tmp_path: Path) -> None:
    """NVUE runs adaptive routing on Spectrum-4 at 200G/400G links (catalog targets.nvue); a ConnectX-8 port splits
    into 2 x 400G planes (Spectrum-X multiplane)."""
    text = "name: ar\ncompute: {servers: 16, gpus_per_server: 8, nics_per_server: 8, nic_speed: 800G, "
    text += "server_power_kw: 14}\nfabric: {leaf: {model: nvidia-sn5600}}\ntargets: [nvue]\n"
    err = refusal(tmp_path, text + "load_balancing: {mode: adaptive}\n")
    assert "load_balancing.mode: adaptive is not something nvue can express here" in err
    assert "or run it at 400G: 800G NIC ports split into 2 planes of 400G each (compute.multiplane: {planes: 2}" in err

"""floorplan.svg: one cell per rack colored by its draw, network racks marked, one line per row, two rack
elevations, and no per-cable drawing, so it stays readable (and small) at 32k GPUs."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from designer.outputs.floorplan import OVER, SHADES, floorplan_svg, shade
from tests.test_physical import Placed, placed

SVG = "{http://www.w3.org/2000/svg}"


def rack_cells(root: ET.Element) -> dict[str, ET.Element]:
    """Each rack's cell, by rack name (the tooltip starts with it)."""
    cells = {}
    for group in root.iter(f"{SVG}g"):
        title = group.find(f"{SVG}title")
        if title is not None and title.text:
            cells[title.text.split(":")[0]] = group
    return cells


def svg(design: Placed) -> str:
    return floorplan_svg(design.intent, design.fabric.devices, design.physical)


def test_shade_bands_are_shares_of_the_budget() -> None:
    assert [shade(kw, 40) for kw in (0, 10, 10.01, 20, 30, 40)] == [
        SHADES[0][1],
        SHADES[0][1],
        SHADES[1][1],
        SHADES[1][1],
        SHADES[2][1],
        SHADES[3][1],
    ]
    assert shade(40.01, 40) == OVER


def test_every_rack_is_one_cell_colored_by_its_draw_and_network_racks_are_marked() -> None:
    design = placed(servers=128)
    root = ET.fromstring(svg(design))
    cells = rack_cells(root)
    racks = design.physical.racks
    assert sorted(cells) == sorted(rack.name for rack in racks)
    budget = design.intent.facility.rack_power_kw
    for rack in racks:
        cell = cells[rack.name]
        assert cell.find(f"{SVG}rect").get("fill") == shade(rack.kw, budget)
        mark = cell.find(f"{SVG}text")
        expected = None if rack.role == "compute" else ("N" if rack.su >= 0 else "C")
        assert (mark.text if mark is not None else None) == expected, rack.name


def test_elevations_show_the_first_compute_and_network_rack() -> None:
    design = placed(servers=128)
    text = svg(design)
    for name in ("su0-srv0", "su0-srv3", "p0-su0-r0-leaf", "p0-su0-r7-leaf"):
        assert f">{name}</text>" in text
    assert "compute rack r00-00" in text and "network rack r00-04" in text


def test_an_over_budget_rack_is_drawn_as_over() -> None:
    design = placed(servers=8, compute_extra="server_power_kw: 55")
    cells = rack_cells(ET.fromstring(svg(design)))
    compute = [rack.name for rack in design.physical.racks if rack.role == "compute"]
    assert {cells[name].find(f"{SVG}rect").get("fill") for name in compute} == {OVER}


@pytest.mark.slow
def test_readable_at_32k_gpus_one_line_per_row_and_no_cables() -> None:
    design = placed(gpus=32768, leaf="{model: generic-64x800g}")
    text = svg(design)
    root = ET.fromstring(text)
    physical = design.physical
    assert len(design.fabric.links) == 98_304
    assert not [element for element in root.iter() if element.tag in {f"{SVG}line", f"{SVG}path", f"{SVG}polyline"}]
    elements = sum(1 for _ in root.iter())
    assert elements < 4 * len(physical.racks) + physical.rows * physical.row.racks + 300
    cells = rack_cells(root)
    row_y = {rack.row: float(cells[rack.name].find(f"{SVG}rect").get("y")) for rack in physical.racks}
    assert len(set(row_y.values())) == physical.rows  # each row on its own line, in order
    assert [row_y[row] for row in range(physical.rows)] == sorted(row_y.values())
    labels = re.findall(r">row (\d+)</text>", text)
    assert labels == [str(row) for row in range(physical.rows)]
    assert svg(design) == text


def server_faces(root: ET.Element) -> list[list[tuple[str, list[str]]]]:
    """Each server's cages on the elevation, in drawing order: per cage its name and its halves' tooltips."""
    cages = [
        (group.get("data-cage"), [rect.find(f"{SVG}title").text for rect in group.iter(f"{SVG}rect")])
        for group in root.iter(f"{SVG}g")
        if group.get("class") == "cage"
    ]
    return [cages[first : first + 4] for first in range(0, len(cages), 4)]


def test_a_dgx_h100_face_shows_its_four_twin_port_cages_with_their_halves() -> None:
    """NVIDIA DGX H100 User Guide, Network Modules, Table 6: four twin-port OSFP cages, OSFP1P1 GPU 7, OSFP1P2 GPU 4,
    OSFP2P1 GPU 6, OSFP2P2 GPU 5, OSFP3P1 GPU 2, OSFP3P2 GPU 1, OSFP4P1 GPU 3, OSFP4P2 GPU 0: each server on the
    compute rack's elevation shows those four cages, each split into P1 and P2 carrying its rail's port, and no
    eight separate ports."""
    design = placed(servers=128)
    root = ET.fromstring(svg(design))
    rack = next(rack for rack in design.physical.racks if rack.role == "compute")
    faces = server_faces(root)
    assert len(faces) == len(rack.devices) == 4
    expected = [
        ("OSFP1", ["OSFP1P1: nic7", "OSFP1P2: nic4"]),
        ("OSFP2", ["OSFP2P1: nic6", "OSFP2P2: nic5"]),
        ("OSFP3", ["OSFP3P1: nic2", "OSFP3P2: nic1"]),
        ("OSFP4", ["OSFP4P1: nic3", "OSFP4P2: nic0"]),
    ]
    assert all(face == expected for face in faces)
    text = svg(design)
    assert text.count(">OSFP1</text>") == 4 and text.count(">P2</text>") == 16


def test_a_server_without_named_cages_shows_one_cage_per_nic_port_and_its_plane_links() -> None:
    """A DGX B300's eight ConnectX-8 800G ports each split over two planes (DGX B300 datasheet; SuperPOD B300 RA,
    "twin-planar"): eight cages, each with two halves, one plane link each; its panel's cage names are in no stored
    source, so the cages carry the design's NIC port names."""
    design = placed(servers=64, server="dgx-b300", leaf="{model: nvidia-sn5600}")
    root = ET.fromstring(svg(design))
    cages = [
        (group.get("data-cage"), [rect.find(f"{SVG}title").text for rect in group.iter(f"{SVG}rect")])
        for group in root.iter(f"{SVG}g")
        if group.get("class") == "cage"
    ]
    rack = next(rack for rack in design.physical.racks if rack.role == "compute")
    assert len(cages) == 8 * len(rack.devices)
    assert cages[:8] == [(f"nic{nic}", [f"nic{nic}P1: nic{nic}s0", f"nic{nic}P2: nic{nic}s1"]) for nic in range(8)]

"""The cable plan's IDs, racks and units, and the label sheet made from it (``labels.csv``, ``labels.html``)."""

from __future__ import annotations

from collections import Counter
from functools import cache
from html.parser import HTMLParser
from itertools import islice
from typing import Any

from designer.design import Design
from designer.outputs.labels import HTML_LABELS, LABELS_PER_SHEET, label_rows, label_text, labels_html
from designer.outputs.physical_review import racks_rows
from designer.outputs.summary import summary_markdown
from designer.outputs.tables import cabling_rows
from designer.pipeline import build
from tests.conftest import ROOT
from tests.helpers import build_text, intent_text


@cache
def design_1024() -> Design:
    return build_text(intent_text(servers=128) + "targets: [sonic, frr]\n")


CABLE_ENDS = [
    "cable_id",
    "a_rack",
    "a_unit",
    "a_device",
    "a_port",
    "z_rack",
    "z_unit",
    "z_device",
    "z_port",
    "a_cage",
    "z_cage",
]
"""The columns of cabling.csv the labels read."""


def cabling() -> tuple[list[str], list[list[Any]]]:
    header, rows = cabling_rows(design_1024())
    return header, list(rows)


class Labels(HTMLParser):
    """The text of every ``<div class="label">``, and how many sheets hold them."""

    def __init__(self) -> None:
        super().__init__()
        self.labels: list[str] = []
        self.sheets = 0
        self.depth = 0
        self.sections: list[tuple[str, list[list[str]]]] = []
        """Each ``<section class="rack">``'s rack and its sheets' labels."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "section" and ("class", "rack") in attrs:
            self.sections.append((dict(attrs)["data-rack"] or "", []))
        if tag == "div" and ("class", "sheet") in attrs:
            self.sheets += 1
            self.sections[-1][1].append([])
        if tag == "div" and ("class", "label") in attrs:
            self.labels.append("")
            self.depth = 1
        elif tag == "br" and self.depth:
            self.labels[-1] += "\n"

    def handle_endtag(self, tag: str) -> None:
        if tag == "b" and self.depth:
            self.labels[-1] += "\n"
        if tag == "div" and self.depth:
            self.depth = 0
            self.sections[-1][1][-1].append(self.labels[-1])

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.labels[-1] += data


def parsed(html: str) -> Labels:
    parser = Labels()
    parser.feed(html)
    parser.close()
    return parser


def test_both_ends_of_every_cable_stand_where_racks_csv_puts_their_devices() -> None:
    header, rows = cabling()
    _, racks = racks_rows(design_1024().physical, design_1024().fabric.devices, 41)
    where = {
        device: (rack[0], int(unit))
        for rack in racks
        for device, unit in (entry.split("@") for entry in rack[-1].split())
    }
    column = {name: number for number, name in enumerate(header)}
    for row in rows:
        for end in ("a", "z"):
            device = row[column[f"{end}_device"]]
            assert (row[column[f"{end}_rack"]], row[column[f"{end}_unit"]]) == where[device], (device, row)


def test_a_cable_id_is_its_upper_ends_device_and_front_panel_port_and_unique() -> None:
    header, rows = cabling()
    assert header[3:5] == ["a_port", "a_port_sonic"]  # two targets: the canonical names come first
    ids = [row[header.index("cable_id")] for row in rows]
    assert len(set(ids)) == len(ids) == len(design_1024().fabric.links)
    assert ids[0] == "p0-su0-r0-leaf/1" and rows[0][header.index("a_port_sonic")] == "Ethernet0"


def test_a_cable_id_numbers_a_broken_out_port_by_cage_and_lane_whatever_the_os() -> None:
    header, rows = cabling_rows(build(ROOT / "tests" / "intents" / "small-eos.yaml"))
    first, second = islice(rows, 2)
    port, cable = header.index("a_port"), header.index("cable_id")
    assert (first[port], first[cable]) == ("Ethernet1/1", "p0-su0-r0-leaf/1.0")  # EOS numbers the lanes 1 and 5
    assert (second[port], second[cable]) == ("Ethernet1/5", "p0-su0-r0-leaf/1.1")


def test_every_cable_has_two_labels_one_per_end_each_naming_the_far_end() -> None:
    header, rows = cabling()
    label_header, labels = label_rows((header, rows))
    labels = list(labels)
    assert Counter(label[0] for label in labels) == Counter({row[header.index("cable_id")]: 2 for row in rows})
    for a_label, z_label in zip(labels[::2], labels[1::2], strict=True):
        assert (a_label[1], z_label[1]) == ("a", "z")
        assert a_label[2:6] == z_label[6:10] and z_label[2:6] == a_label[6:10]
        assert a_label[10:] == z_label[10:][::-1]
    first, column = rows[0], {name: number for number, name in enumerate(header)}
    assert labels[0][2:] == [first[column[name]] for name in ("a_rack", "a_unit", "a_device", "a_port")] + [
        first[column[name]] for name in ("z_rack", "z_unit", "z_device", "z_port", "a_cage", "z_cage")
    ]
    assert label_header[:2] == ["cable_id", "end"]


def racks_1024() -> list[str]:
    return [rack.name for rack in design_1024().physical.racks]


def test_the_html_parses_and_holds_every_label_at_1024_gpus_in_little_space() -> None:
    labels = list(label_rows(cabling())[1])
    assert len(labels) < HTML_LABELS  # every label fits at this size
    html = labels_html("test", cabling(), racks_1024())
    sheet = parsed(html)
    assert sorted(sheet.labels) == sorted("\n".join(label_text(label)) for label in labels)
    assert len(html.encode()) < 160 * len(labels) + 2000
    assert f"{len(labels):,} labels in " in html and "@media print" in html


def test_the_html_has_one_section_per_rack_in_racks_csv_order_each_on_its_own_sheets() -> None:
    labels = list(label_rows(cabling())[1])
    sheet = parsed(labels_html("test", cabling(), racks_1024()))
    by_rack = {rack: ["\n".join(label_text(label)) for label in labels if label[2] == rack] for rack in racks_1024()}
    with_labels = [rack for rack in racks_1024() if by_rack[rack]]
    assert [rack for rack, _ in sheet.sections] == with_labels  # every rack holding a cable end, in order
    assert len(with_labels) > 1  # compute, leaf and spine racks: the test splits something
    for rack, sheets in sheet.sections:
        # a rack's labels in cable order, on sheets of its own (a sheet is a printed page), full but the last
        assert [label for page in sheets for label in page] == by_rack[rack]
        assert all(len(page) == LABELS_PER_SHEET for page in sheets[:-1]) and 0 < len(sheets[-1]) <= LABELS_PER_SHEET
        assert all(label.split("\n")[1].startswith(f"{rack} U") for page in sheets for label in page)
    assert sheet.sheets == sum(-(-len(by_rack[rack]) // LABELS_PER_SHEET) for rack in with_labels)


def test_the_html_stops_at_its_cap_at_a_rack_boundary_and_says_where_the_rest_are() -> None:
    racks = [f"r00-{number:02}" for number in range(30)]
    per_rack = 1000  # 8 racks fit in 8,400 labels, the ninth would not
    total = per_rack * len(racks)

    # each cable between a rack and the rack 15 further on: 1,000 labels in every rack
    far = [racks[(number + 15) % len(racks)] for number in range(total // 2)]
    rows = [
        [f"c{number}", racks[number % len(racks)], 1, "leaf", "swp1", far[number], 2, "srv", "n", "1", "n"]
        for number in range(total // 2)
    ]
    labels = (CABLE_ENDS, rows)
    sheet = parsed(labels_html("big", labels, racks))
    assert [rack for rack, _ in sheet.sections] == racks[:8]
    assert len(sheet.labels) == 8 * per_rack <= HTML_LABELS
    assert f"the {8 * per_rack:,} labels of the first 8 racks, of {total:,} labels; every label is in labels.csv" in (
        labels_html("big", labels, racks)
    )


def test_label_text_is_escaped_in_the_html() -> None:
    label = ["p0/<x>&", "a", "r<1>", 1, "d", "p", "r2", 2, "d2", "p2", "1", "OSFP<4>P2"]
    sheet = parsed(labels_html("<n>", (CABLE_ENDS, [[label[0], *label[2:]]]), ["r<1>"]))
    assert sheet.labels == ["\n".join(label_text(label))] and sheet.sections[0][0] == "r<1>"


def test_summary_says_when_the_html_holds_only_the_first_labels() -> None:
    small, large = design_1024(), build_text(intent_text(servers=512))
    assert 2 * len(large.fabric.links) > HTML_LABELS
    assert "labels.html`: the labels to print, rack by rack (each rack from a new page), 21 to an A4 sheet\n" in (
        summary_markdown(small, [])
    )
    links = 2 * len(large.fabric.links)
    line = f"(the racks whose labels fit in {HTML_LABELS:,}, of {links:,}; every label is in `labels.csv`)"
    assert line in summary_markdown(large, [])

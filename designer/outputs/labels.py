"""The cable label sheet made from ``cabling.csv``'s rows: ``labels.csv`` (both ends of every cable) and a
printable ``labels.html``, rack by rack."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from html import escape
from typing import Any

HTML_LABELS = 8400
"""The most labels ``labels.html`` holds (about 400 A4 sheets of 21), whole racks only; the rest are in
``labels.csv`` alone."""

LABELS_PER_SHEET = 21
"""Labels of 63.5 x 38.1 mm, three across and seven down an A4 sheet (the common L7160 layout)."""

LABEL_HEADER = [
    "cable_id",
    "end",
    "rack",
    "unit",
    "device",
    "port",
    "far_rack",
    "far_unit",
    "far_device",
    "far_port",
    "cage",
    "far_cage",
]


def label_rows(cabling: tuple[list[str], Iterable[list[Any]]]) -> tuple[list[str], Iterator[list[Any]]]:
    """One row per label from ``cabling.csv``'s header and rows: the a end's, then the z end's, of every cable,
    each with where it is plugged and where the other end goes, then both ends' cages (the cage and half a port
    leaves its box through: a DGX's ``OSFP4P2``). Ports are named as in the first port columns."""
    header, rows = cabling
    columns = _end_columns(header)
    return LABEL_HEADER, (label for row in rows for label in _labels_of(row, *columns))


def _end_columns(header: list[str]) -> tuple[int, list[int], list[int]]:
    """The column of the cable ID and of each end's rack, unit, device, port and cage (a, then z) in ``header``."""
    column = {name: number for number, name in enumerate(header)}
    a_end, z_end = ([column[f"{end}_{field}"] for field in ("rack", "unit", "device", "port", "cage")] for end in "az")
    return column["cable_id"], a_end, z_end


def _labels_of(row: list[Any], cable: int, a_columns: list[int], z_columns: list[int]) -> tuple[list[Any], ...]:
    """The a end's and the z end's label of one cabling row."""
    a_end, z_end = [row[number] for number in a_columns], [row[number] for number in z_columns]
    return [row[cable], "a", *a_end[:4], *z_end[:4], a_end[4], z_end[4]], [
        row[cable],
        "z",
        *z_end[:4],
        *a_end[:4],
        z_end[4],
        a_end[4],
    ]


def label_text(label: list[Any]) -> tuple[str, str, str]:
    """A label's three printed lines: the cable ID, this end (rack, unit, device, port, and the cage it leaves its
    box through where the port's name does not say it), the far end."""
    cable, _, rack, unit, device, port, far_rack, far_unit, far_device, far_port, cage, far_cage = label
    here = f"{port} ({cage})" if _names_a_cage(cage, port) else port
    there = f"{far_port} ({far_cage})" if _names_a_cage(far_cage, far_port) else far_port
    return cable, f"{rack} U{unit} {device} {here}", f"to {far_rack} U{far_unit} {far_device} {there}"


def _names_a_cage(cage: str, port: str) -> bool:
    """Whether ``cage`` says something ``port`` does not: a vendor's cage name, not a switch's panel number (which
    the cable ID carries) nor the port's own name."""
    return bool(cage) and cage != port and not cage.replace(".", "").isdigit()


def labels_html(name: str, cabling: tuple[list[str], Sequence[list[Any]]], racks: Iterable[str]) -> str:
    """A printable page of the labels of ``cabling.csv``'s header and rows, one section per rack (``racks`` in their
    order; a label belongs to the rack of its end), each rack's labels in sheets of :data:`LABELS_PER_SHEET` that
    start on a page of their own. Whole racks, in order, while they fit in :data:`HTML_LABELS`; the rest are in
    ``labels.csv`` alone. The labels are counted by rack from the rows' rack columns; only those shown are made."""
    shown, count, total = _shown_labels(cabling, racks)
    note = (
        f"{total:,} labels in {len(shown):,} racks"
        if count == total
        else f"the {count:,} labels of the first {len(shown):,} racks, of {total:,} labels; every label is in "
        "labels.csv"
    )
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f"<title>Cable labels: {escape(name)}</title>\n",
        "<style>\n"
        "@page { size: A4; margin: 15.1mm 7.2mm; }\n"
        "body { font-family: monospace; margin: 0; }\n"
        ".rack { break-before: page; }\n"
        ".rack h2 { font-size: 10pt; margin: 4mm 0 2mm; }\n"
        ".sheet { display: grid; grid-template-columns: repeat(3, 63.5mm); grid-auto-rows: 38.1mm;"
        " column-gap: 2.5mm; break-after: page; }\n"
        ".label { box-sizing: border-box; padding: 2mm; overflow: hidden; border: 0.2mm dotted #999;"
        " font-size: 7.5pt; line-height: 1.3; }\n"
        ".label b { display: block; font-size: 9pt; }\n"
        "@media print { .note, .rack h2 { display: none; } .label { border: none; } }\n"
        "</style>\n</head>\n<body>\n",
        f'<p class="note">Cable labels: {escape(name)}: {note}. Each rack starts on a new page.</p>\n',
    ]
    for rack, rack_labels in shown.items():
        parts.append(
            f'<section class="rack" data-rack="{escape(rack)}">\n'
            f"<h2>Rack {escape(rack)}: {len(rack_labels):,} labels</h2>\n"
        )
        for first in range(0, len(rack_labels), LABELS_PER_SHEET):
            parts.append('<div class="sheet">\n')
            for label in rack_labels[first : first + LABELS_PER_SHEET]:
                cable_id, here, there = (escape(str(line)) for line in label_text(label))
                parts.append(f'<div class="label"><b>{cable_id}</b>{here}<br>{there}</div>\n')
            parts.append("</div>\n")
        parts.append("</section>\n")
    parts.append("</body>\n</html>\n")
    return "".join(parts)


def _shown_labels(
    cabling: tuple[list[str], Sequence[list[Any]]], racks: Iterable[str]
) -> tuple[dict[str, list[list[Any]]], int, int]:
    """The labels of the whole racks, in order, that fit in :data:`HTML_LABELS`, by rack; how many those racks have,
    and how many labels there are in all."""
    header, rows = cabling
    cable, a_columns, z_columns = _end_columns(header)
    a_rack, z_rack = a_columns[0], z_columns[0]
    per_rack = Counter(row[a_rack] for row in rows)
    per_rack.update(row[z_rack] for row in rows)
    shown: dict[str, list[list[Any]]] = {}
    room = HTML_LABELS
    for rack in racks:
        if per_rack[rack] > room:
            break
        if per_rack[rack]:
            shown[rack] = []
            room -= per_rack[rack]
    for row in rows:
        if row[a_rack] in shown or row[z_rack] in shown:
            for label in _labels_of(row, cable, a_columns, z_columns):
                if label[2] in shown:
                    shown[label[2]].append(label)
    return shown, HTML_LABELS - room, sum(per_rack.values())

"""The cable label sheet made from ``cabling.csv``'s rows: ``labels.csv`` (both ends of every cable) and a
printable ``labels.html``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from html import escape
from itertools import islice
from typing import Any

HTML_LABELS = 8400
"""The most labels ``labels.html`` holds: 400 A4 sheets of 21; the rest are in ``labels.csv`` alone."""

LABELS_PER_SHEET = 21
"""Labels of 63.5 x 38.1 mm, three across and seven down an A4 sheet (the common L7160 layout)."""

LABEL_HEADER = ["cable_id", "end", "rack", "unit", "device", "port", "far_rack", "far_unit", "far_device", "far_port"]


def label_rows(cabling: tuple[list[str], Iterable[list[Any]]]) -> tuple[list[str], Iterator[list[Any]]]:
    """One row per label from ``cabling.csv``'s header and rows: the a end's, then the z end's, of every cable,
    each with where it is plugged and where the other end goes. Ports are named as in the first port columns."""
    header, rows = cabling
    column = {name: number for number, name in enumerate(header)}
    ends = {end: [column[f"{end}_{field}"] for field in ("rack", "unit", "device", "port")] for end in ("a", "z")}
    cable = column["cable_id"]

    def labels() -> Iterator[list[Any]]:
        for row in rows:
            a_end, z_end = [row[number] for number in ends["a"]], [row[number] for number in ends["z"]]
            yield [row[cable], "a", *a_end, *z_end]
            yield [row[cable], "z", *z_end, *a_end]

    return LABEL_HEADER, labels()


def label_text(label: list[Any]) -> tuple[str, str, str]:
    """A label's three printed lines: the cable ID, this end (rack, unit, device, port), the far end."""
    cable, _, rack, unit, device, port, far_rack, far_unit, far_device, far_port = label
    return cable, f"{rack} U{unit} {device} {port}", f"to {far_rack} U{far_unit} {far_device} {far_port}"


def labels_html(name: str, labels: Iterable[list[Any]], total: int) -> str:
    """A printable page of the first :data:`HTML_LABELS` of ``labels`` (``total`` in all), in sheets of
    :data:`LABELS_PER_SHEET`, with print CSS that puts each sheet on its own A4 page."""
    shown = min(total, HTML_LABELS)
    note = (
        f"{total:,} labels"
        if shown == total
        else f"the first {shown:,} of {total:,} labels; every label is in labels.csv"
    )
    parts = [
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
        f"<title>Cable labels: {escape(name)}</title>\n",
        "<style>\n"
        "@page { size: A4; margin: 15.1mm 7.2mm; }\n"
        "body { font-family: monospace; margin: 0; }\n"
        ".sheet { display: grid; grid-template-columns: repeat(3, 63.5mm); grid-auto-rows: 38.1mm;"
        " column-gap: 2.5mm; break-after: page; }\n"
        ".label { box-sizing: border-box; padding: 2mm; overflow: hidden; border: 0.2mm dotted #999;"
        " font-size: 7.5pt; line-height: 1.3; }\n"
        ".label b { display: block; font-size: 9pt; }\n"
        "@media print { .note { display: none; } .label { border: none; } }\n"
        "</style>\n</head>\n<body>\n",
        f'<p class="note">Cable labels: {escape(name)}: {note}.</p>\n',
    ]
    sheet: list[str] = []
    for label in islice(labels, shown):
        cable, here, there = (escape(str(line)) for line in label_text(label))
        sheet.append(f'<div class="label"><b>{cable}</b>{here}<br>{there}</div>\n')
        if len(sheet) == LABELS_PER_SHEET:
            parts += ['<div class="sheet">\n', *sheet, "</div>\n"]
            sheet = []
    if sheet:
        parts += ['<div class="sheet">\n', *sheet, "</div>\n"]
    parts.append("</body>\n</html>\n")
    return "".join(parts)

"""``designer explore``'s reports: the table a person reads (the Pareto front first), the JSON a script reads and
the SVG chart of power against job time."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import yaml

from designer.explore.run import Exploration

CHART_WIDTH, CHART_HEIGHT, MARGIN = 640, 400, 60
CHART_FILE = "explore.svg"


def as_json(exploration: Exploration) -> str:
    """``{"candidates": [...]}`` with what was varied and why the other candidates failed."""
    return json.dumps(
        {
            "name": exploration.name,
            "varied": [
                {"path": dimension.name, "values": list(dimension.values)} for dimension in exploration.dimensions
            ],
            "tried": exploration.tried,
            "candidates": list(exploration.candidates),
            "failed": [{"reason": reason, "count": count} for reason, count in exploration.failures],
        },
        indent=2,
    )


def table(exploration: Exploration) -> str:
    """The kept candidates, the Pareto front first (marked ``*``), then how many failed for each reason."""
    rows, varied = exploration.candidates, [dimension.name for dimension in exploration.dimensions]
    front = sum(1 for row in rows if row["pareto"])
    lines = [
        f"{exploration.name}: {exploration.tried:,} candidate{'s' if exploration.tried != 1 else ''} over "
        + (
            ", ".join(f"{name} ({len(d.values)})" for name, d in zip(varied, exploration.dimensions, strict=True))
            or "the intent as written"
        )
        + f"; {len(rows):,} pass every check, {front:,} on the Pareto front (*)"
    ]
    if rows:
        jobs = [job["name"] for job in rows[0]["workloads"]]
        priced = "capital_cost" in rows[0]
        header = ["", "name", *varied, "tiers", "switches", "power kW", "racks", "cables", "optics", "1 failure"]
        header += [f"{job} p50 s" for job in jobs]
        header += [f"cost {rows[0]['currency']}"] if priced else []
        body = [
            [
                "*" if row["pareto"] else "",
                row["name"],
                *(str(row["values"][name]) for name in varied),
                str(row["tiers"]),
                f"{row['switches']:,}",
                f"{row['power_kw']:,.1f}",
                f"{row['racks']:,}",
                f"{row['cables']:,}",
                f"{row['optics']:,}",
                f"{row['failure_bisection']:.1%}",
                *(_seconds(job["time_s_p50"]) for job in row["workloads"]),
                *([_cost(row)] if priced else []),
            ]
            for row in rows
        ]
        widths = [max(len(cells[column]) for cells in [header, *body]) for column in range(len(header))]
        lines.append("")
        lines += [
            "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()
            for cells in [header, *body]
        ]
        lines.append("'1 failure': the bisection left after the worst single switch or link failure")
        unpriced = sorted({item for row in rows for item in row.get("unpriced", ())})
        if unpriced:
            lines.append(
                f"'cost ...+': the site catalog's prices leave out {', '.join(unpriced)}; capital cost is no measure "
                "of the front until every item has a price"
            )
    else:
        lines.append("no candidate passes; the reasons below say why the space is empty")
    if exploration.failures:
        lines.append("")
        lines.append(f"failed ({exploration.tried - len(rows):,}; a candidate may fail for several reasons):")
        lines += [f"  {count:,} {reason}" for reason, count in exploration.failures]
    return "\n".join(lines)


def _cost(row: dict[str, Any]) -> str:
    """A row's capital cost, ``+`` when some of its items have no price (empty: no prices in its catalog)."""
    if "capital_cost" not in row:
        return ""
    return f"{row['capital_cost']:,.0f}" + ("+" if row["unpriced"] else "")


def chart(exploration: Exploration) -> str:
    """Power (kW) against the first workload's p50 collective time, or switches when the intent has no workload;
    the Pareto front's candidates are filled and named."""
    rows = exploration.candidates
    timed = bool(rows and rows[0]["workloads"])
    label = f"{rows[0]['workloads'][0]['name']} p50 collective time (s)" if timed else "switches"

    def along(row: dict[str, Any]) -> float:
        if timed:
            seconds = row["workloads"][0]["time_s_p50"]
            return float("nan") if seconds is None else float(seconds)
        return float(row["switches"])

    xs = [along(row) for row in rows if along(row) == along(row)]
    ys = [float(row["power_kw"]) for row in rows]
    low_x, high_x = (min(xs), max(xs)) if xs else (0.0, 1.0)
    low_y, high_y = (min(ys), max(ys)) if ys else (0.0, 1.0)

    def place(value: float, low: float, high: float, span: int) -> float:
        return span / 2 if high == low else (value - low) / (high - low) * span

    inner_w, inner_h = CHART_WIDTH - 2 * MARGIN, CHART_HEIGHT - 2 * MARGIN
    marks = []
    for row in rows:
        if along(row) != along(row):
            continue
        x = MARGIN + place(along(row), low_x, high_x, inner_w)
        y = CHART_HEIGHT - MARGIN - place(float(row["power_kw"]), low_y, high_y, inner_h)
        fill = "#1f6feb" if row["pareto"] else "white"
        marks.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="{fill}" stroke="#1f6feb"/>')
        if row["pareto"]:
            marks.append(f'<text x="{x + 8:.1f}" y="{y - 8:.1f}" font-size="11">{escape(row["name"])}</text>')
    bottom, right = CHART_HEIGHT - MARGIN, CHART_WIDTH - MARGIN
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{CHART_WIDTH}" height="{CHART_HEIGHT}" '
            f'font-family="sans-serif">',
            f"<title>{escape(exploration.name)}: power against {escape(label)}; filled: the Pareto front</title>",
            f'<line x1="{MARGIN}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="black"/>',
            f'<line x1="{MARGIN}" y1="{MARGIN}" x2="{MARGIN}" y2="{bottom}" stroke="black"/>',
            f'<text x="{CHART_WIDTH / 2}" y="{CHART_HEIGHT - 20}" text-anchor="middle" font-size="12">'
            f"{escape(label)}: {low_x:,.3f} to {high_x:,.3f}</text>",
            f'<text x="20" y="{CHART_HEIGHT / 2}" text-anchor="middle" font-size="12" '
            f'transform="rotate(-90 20 {CHART_HEIGHT / 2})">IT power (kW): {low_y:,.1f} to {high_y:,.1f}</text>',
            *marks,
            "</svg>",
            "",
        ]
    )


def written(exploration: Exploration, folder: Path, intent_path: Path) -> dict[str, bytes]:
    """The files ``-o DIR`` writes: each kept candidate's intent as ``NAME.yaml`` (its site catalogs named relative
    to ``folder``) and a manifest listing them, so a later exploration may replace the folder; and the chart."""
    files = {
        f"{name}.yaml": _relocated(text, intent_path, folder).encode() for name, text in exploration.intents.items()
    }
    files[CHART_FILE] = chart(exploration).encode()
    manifest = {
        "tool": "designer",
        "command": "explore",
        "intent": exploration.name,
        "files": {name: hashlib.sha256(data).hexdigest() for name, data in sorted(files.items())},
    }
    return {**files, "manifest.json": (json.dumps(manifest, indent=2) + "\n").encode()}


def _relocated(text: str, intent_path: Path, folder: Path) -> str:
    """``text`` with its site catalog paths (relative to the intent) made relative to ``folder``."""
    header, _, body = text.partition("\n")
    document = yaml.safe_load(body)
    named = document.get("catalog")
    if named is None:
        return text
    base = intent_path.resolve().parent
    moved = [
        os.path.relpath(base / entry, folder.resolve()) for entry in ([named] if isinstance(named, str) else named)
    ]
    document["catalog"] = moved[0] if isinstance(named, str) else moved
    return f"{header}\n{yaml.safe_dump(document, sort_keys=False, allow_unicode=True)}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:,.3f}"

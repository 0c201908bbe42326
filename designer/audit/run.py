"""An audit of a built folder against discovery files: the design's cables, the devices' names, the reports."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from designer.audit.compare import Audit, Link, audit, link
from designer.audit.inputs import reports
from designer.audit.names import port_names
from designer.built import DESIGN_FILE, read_design


def designed_links(design: dict[str, Any]) -> list[Link]:
    """Every cable of a checked design.json, as two ``(device, port)`` ends."""
    return [link((row["a"][0], row["a"][1]), (row["z"][0], row["z"][1])) for row in design["links"]]


def audit_output(folder: Path, files: Sequence[Path]) -> tuple[str, Audit]:
    """The design's name and the audit of ``files`` (one discovery file per device) against ``folder``."""
    design = read_design(folder / DESIGN_FILE)
    devices = design["devices"]
    found = reports(files, {row["name"] for row in devices})
    return design["name"], audit(designed_links(design), found, port_names(folder, devices))

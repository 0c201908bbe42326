"""What a check reports: one finding per problem, with the evidence a reviewer needs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True, order=True)
class Finding:
    """One result of a check. ``error`` fails the gate, ``warning`` is reported, ``info`` is evidence."""

    check: str
    severity: str
    message: str
    subject: str = ""
    evidence: dict[str, Any] = field(default_factory=dict, compare=False)
    """Numbers behind the message (a ratio, a flow, a count), for JSON reports; not part of equality."""

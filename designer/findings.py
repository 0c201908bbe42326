"""What a check reports: one finding per problem, with the evidence a reviewer needs."""

from __future__ import annotations

from dataclasses import dataclass

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True, order=True)
class Finding:
    """One result of a check. ``error`` fails the gate, ``warning`` is reported, ``info`` is evidence."""

    check: str
    severity: str
    message: str
    subject: str = ""

"""Helpers the checks share: capped problem lists and joined values."""

from __future__ import annotations

from collections.abc import Iterable

from designer.findings import Finding

MAX_PER_KIND = 20
"""A broken fabric can break thousands of things the same way; list this many, then count the rest."""


def capped(check: str, severity: str, problems: list[tuple[str, str]], limit: int = MAX_PER_KIND) -> list[Finding]:
    """Findings for ``(subject, message)`` problems, the first ``limit`` in full, then one line counting the rest."""
    findings = [Finding(check, severity, message, subject) for subject, message in problems[:limit]]
    if len(problems) > limit:
        findings.append(
            Finding(
                check,
                severity,
                f"and {len(problems) - limit:,} more like the above",
                evidence={"more": len(problems) - limit},
            )
        )
    return findings


def join(values: Iterable[object]) -> str:
    return ", ".join(str(value) for value in values)

"""Findings as a person, a script or a CI system reads them: text, JSON, JUnit XML and Markdown.

Every format lists one finding per line (or per test case) with its check id, in runner order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from designer.checks import CHECKS, counts, status
from designer.checks.junit import Case, junit_xml
from designer.findings import Finding


def rows(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """One JSON object per finding: check, severity, subject, message and evidence (when there is some)."""
    return [
        {
            "check": f.check,
            "severity": f.severity,
            "subject": f.subject,
            "message": f.message,
            **({"evidence": f.evidence} if f.evidence else {}),
        }
        for f in findings
    ]


def text(findings: Sequence[Finding], name: str, checks: Sequence[ModuleType] = CHECKS) -> str:
    """``check severity: subject: message`` per finding, then each of ``checks``' outcome and the totals."""
    lines = [line(f) for f in findings]
    outcome = status(findings, checks)
    lines += [f"{check}: {result}" for check, result in outcome.items()]
    total = counts(findings, checks)
    lines.append(f"{name}: {total['passed']} passed, {total['failed']} failed, {total['warnings']} with warnings")
    return "\n".join(lines)


def json_report(findings: Sequence[Finding], name: str, checks: Sequence[ModuleType] = CHECKS) -> str:
    """The counts, each of ``checks``' outcome and every finding, as one JSON document."""
    return json.dumps(
        {
            "name": name,
            "checks": counts(findings, checks),
            "status": status(findings, checks),
            "findings": rows(findings),
        },
        indent=2,
    )


def junit(findings: Sequence[Finding], name: str, checks: Sequence[ModuleType] = CHECKS) -> str:
    """JUnit XML: one test case per check of ``checks``, failed by its errors, its warnings and evidence in
    system-out."""
    cases = []
    for module in checks:
        mine = [f for f in findings if f.check == module.ID]
        errors = [f for f in mine if f.severity == "error"]
        more = _problems(errors) - 1
        others = [f for f in mine if f.severity != "error"]
        cases.append(
            Case(
                f"designer.{name}",
                module.ID,
                failure=_line(errors[0]) + (f" (+{more:,} more)" if more > 0 else "") if errors else None,
                detail="\n".join(_line(f) for f in errors),
                kind=module.SEVERITY,
                output="\n".join([module.DESCRIPTION, *(f"{f.severity}: {_line(f)}" for f in others)]),
            )
        )
    return junit_xml(f"designer check {name}", cases)


def markdown(findings: Sequence[Finding], checks: Sequence[ModuleType] = CHECKS) -> list[str]:
    """The checks section of ``summary.md``: each of ``checks``' outcome, then every error and warning."""
    outcome = status(findings, checks)
    lines = ["| check | result | what it proves |", "|---|---|---|"]
    lines += [f"| {module.ID} | {outcome[module.ID]} | {module.DESCRIPTION} |" for module in checks]
    problems = [f for f in findings if f.severity != "info"]
    lines += ["", *(f"- **{f.severity}** `{f.check}` {f.subject}: {f.message}" for f in problems)] if problems else []
    return lines


def line(finding: Finding) -> str:
    """``check severity: subject: message``, the line ``designer check`` prints for one finding."""
    return f"{finding.check} {finding.severity}: {_line(finding)}"


def _problems(findings: Sequence[Finding]) -> int:
    """How many problems ``findings`` report: the line closing a capped list (``checks.base.capped``) stands for
    the ``more`` problems it counts instead of listing."""
    return sum(finding.evidence.get("more", 1) for finding in findings)


def _line(finding: Finding) -> str:
    return f"{finding.subject}: {finding.message}" if finding.subject else finding.message

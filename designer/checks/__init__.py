"""Checks: each proves one property of a built design and reports the evidence it found.

A check is a module with ``ID`` (kebab-case), ``DESCRIPTION`` (one line), ``SEVERITY`` (what a
failure of the check is: ``error`` fails the gate), optionally ``TECHNOLOGIES`` (the fabrics it applies to; default:
every one) and ``check(design: Built) -> Iterable[Finding]``. It
reads the design and never edits it. To add a check, write such a module and append it to
:data:`CHECKS`; the runner, ``designer check``, the JUnit report and the counts pick it up. A check that reads
only the wired fabric and its max-flows takes a ``Wired`` record and belongs in :data:`OF_THE_FABRIC` too: it then
runs beside the device models.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from types import ModuleType

from designer.checks import (
    addressing,
    air_cooling,
    asn,
    balancing,
    bisection,
    cable_reach,
    ecmp,
    failure,
    oversubscription,
    ports,
    qos,
    rack_power,
    sessions,
    workload_budget,
)
from designer.design import Wired
from designer.findings import SEVERITIES, Finding
from designer.targets import TECHNOLOGIES
from designer.workers import each_in_workers

CHECKS: tuple[ModuleType, ...] = (
    oversubscription,
    ecmp,
    bisection,
    addressing,
    asn,
    ports,
    sessions,
    qos,
    balancing,
    failure,
    rack_power,
    air_cooling,
    cable_reach,
    workload_budget,
)
"""Every check, in report order."""


OF_THE_FABRIC: tuple[ModuleType, ...] = (oversubscription, bisection, asn, ports, failure)
"""The checks that read only the wired fabric and its max-flows (a :class:`~designer.design.Wired` record, no
physical plan and no device models): the pipeline runs them beside the device models."""


def applicable(technology: str, checks: Sequence[ModuleType] = CHECKS) -> tuple[ModuleType, ...]:
    """Those of ``checks`` that prove something of a fabric of ``technology`` (``fabric.technology``): an InfiniBand
    fabric has no addresses, ASNs, BGP sessions, PFC or ECMP hashing to check."""
    return tuple(module for module in checks if technology in getattr(module, "TECHNOLOGIES", TECHNOLOGIES))


def run(design: Wired, workers: int | None = None, checks: Sequence[ModuleType] = CHECKS) -> list[Finding]:
    """The findings of ``checks`` (default: every check; a ``Wired`` record is enough for :data:`OF_THE_FABRIC`),
    in :func:`ordered` order. The checks are shared among ``workers`` forked processes (default: one per core),
    each taking the next check when free, the last registered first (the long ones are late in the registry)."""
    last_first = tuple(checks)[::-1]
    found = each_in_workers(
        workers or os.cpu_count() or 1, len(last_first), lambda job: list(last_first[job].check(design))
    )
    return ordered(finding for job in range(len(last_first) - 1, -1, -1) for finding in found[job])


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    """Findings by check (registry order), then severity; each check's own order within (whichever run found
    them: the findings of separate runs merge as one run's)."""
    position = {module.ID: number for number, module in enumerate(CHECKS)}
    return sorted(findings, key=lambda f: (position.get(f.check, len(CHECKS)), f.check, SEVERITIES.index(f.severity)))


def status(findings: Iterable[Finding], checks: Sequence[ModuleType] = CHECKS) -> dict[str, str]:
    """Each of ``checks``' outcome, in registry order: ``failed`` (an error), ``warning`` (a warning) or
    ``passed``."""
    worst = {module.ID: "passed" for module in checks}
    for finding in findings:
        worst.setdefault(finding.check, "passed")  # a check run only for some designs (networks)
        if finding.severity == "error":
            worst[finding.check] = "failed"
        elif finding.severity == "warning" and worst.get(finding.check) != "failed":
            worst[finding.check] = "warning"
    return worst


def counts(findings: Iterable[Finding], checks: Sequence[ModuleType] = CHECKS) -> dict[str, int]:
    """How many of ``checks`` ``passed``, ``failed`` (an error) or gave ``warnings`` (no error): the plan
    contract."""
    outcomes = list(status(findings, checks).values())
    return {
        "passed": outcomes.count("passed"),
        "failed": outcomes.count("failed"),
        "warnings": outcomes.count("warning"),
    }


def evidence(findings: Iterable[Finding], check: str, key: str) -> object:
    """The evidence value ``key`` a check reported (``None`` when it did not)."""
    return next((f.evidence[key] for f in findings if f.check == check and key in f.evidence), None)

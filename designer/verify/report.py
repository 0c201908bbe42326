"""What ``designer verify`` found, as text for people, JSON for scripts and JUnit XML for CI."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from designer.checks.junit import Case, junit_xml

SHOWN = 20
"""Problems listed per check in the text report (JSON and JUnit carry every kept problem)."""
KEPT = 1000
"""Problems kept per check; a broken 144-router lab would otherwise list hundreds of thousands of routes."""


@dataclass(frozen=True)
class Check:
    """One assertion in one phase (``healthy``, ``p0-spine0 down``, ``p0-spine0 restored``)."""

    phase: str
    name: str
    passed: bool
    summary: str
    problems: tuple[str, ...] = ()


def check(phase: str, name: str, summary: str, problems: list[str]) -> Check:
    """A check that passes when ``problems`` is empty; it keeps the first :data:`KEPT` problems and counts the rest."""
    kept = tuple(problems[:KEPT]) + ((f"... and {len(problems) - KEPT} more",) if len(problems) > KEPT else ())
    return Check(phase, name, not problems, summary, kept)


@dataclass(frozen=True)
class Experiment:
    """One traffic experiment of ``--traffic``: the routers' hash, the flows sent, the RoCEv2 packets (one per
    flow) counted per link and direction, and each ECMP group class's X² with the model's limit."""

    name: str
    policy: int
    """``net.ipv4.fib_multipath_hash_policy`` of every router (0: layer 3, 1: layer 4)."""
    flows: int
    links: dict[str, int]
    chi_square: dict[str, float]
    model_limit: dict[str, float]


@dataclass
class VerifyReport:
    """The whole run: what the lab held, every check, and how long each phase took to converge."""

    name: str
    coverage: str
    routers: int
    sessions: int
    memory_mib: int
    design_width: int
    measured_mib: int | None = None
    """Memory (PSS) of the lab's FRR daemons once the healthy fabric has converged."""
    checks: list[Check] = field(default_factory=list)
    converged_seconds: dict[str, float | None] = field(default_factory=dict)
    not_covered: list[str] = field(default_factory=list)
    traffic: list[Experiment] = field(default_factory=list)
    lab: str = ""
    """What ran the fabric, when not FRR routers (an InfiniBand fabric under ibsim and OpenSM)."""

    @property
    def passed(self) -> bool:
        return bool(self.checks) and all(check.passed for check in self.checks)

    def failed(self) -> list[Check]:
        return [check for check in self.checks if not check.passed]


def text(report: VerifyReport) -> str:
    """Readable report: coverage, then each phase with its time to converge and its checks."""
    lines = [
        f"designer verify {report.name}: {report.coverage}",
        report.lab
        or f"{report.routers} FRR routers, {report.sessions} BGP sessions; memory estimated {report.memory_mib:,} "
        f"MiB, used {'-' if report.measured_mib is None else f'{report.measured_mib:,}'} MiB; a leaf's ECMP "
        f"width by design: {report.design_width}",
    ]
    for phase in dict.fromkeys(check.phase for check in report.checks):
        seconds = report.converged_seconds.get(phase, 0.0)
        took = (
            ""
            if phase not in report.converged_seconds
            else f": converged in {seconds:.1f} s"
            if seconds is not None
            else ": did not converge in time"
        )
        lines += ["", f"{phase}{took}"]
        for check in (check for check in report.checks if check.phase == phase):
            lines.append(f"  {'PASS' if check.passed else 'FAIL'} {check.name}: {check.summary}")
            lines += [f"      - {problem}" for problem in check.problems[:SHOWN]]
            if len(check.problems) > SHOWN:
                lines.append(f"      ... and {len(check.problems) - SHOWN} more")
    for experiment in report.traffic:
        lines += [
            "",
            f"traffic, {experiment.name} (fib_multipath_hash_policy={experiment.policy}): "
            f"{experiment.flows} flows; RoCEv2 packets per link:",
        ]
        lines += [f"  {count:6d}  {link}" for link, count in list(experiment.links.items())[:SHOWN]]
        if len(experiment.links) > SHOWN:
            lines.append(f"  ... and {len(experiment.links) - SHOWN} more links (all in --format json)")
    if report.not_covered:
        lines += ["", f"not covered ({len(report.not_covered)}):"]
        lines += [f"  - {item}" for item in report.not_covered[:SHOWN]]
        if len(report.not_covered) > SHOWN:
            lines.append(f"  ... and {len(report.not_covered) - SHOWN} more")
    failed = report.failed()
    lines += [
        "",
        f"result: {'PASS' if report.passed else 'FAIL'} ({len(report.checks) - len(failed)} of "
        f"{len(report.checks)} checks passed)",
    ]
    return "\n".join(lines) + "\n"


def as_json(report: VerifyReport) -> str:
    """Every field and every problem, for scripts."""
    data = asdict(report)
    data["passed"] = report.passed
    return json.dumps(data, indent=2) + "\n"


def junit(report: VerifyReport) -> str:
    """One JUnit test case per check, named ``phase: check``; failures carry every problem."""
    cases = [
        Case(
            f"verify.{report.name}",
            f"{check.phase}: {check.name}",
            failure=None if check.passed else check.summary,
            detail="\n".join(check.problems),
            output=check.summary if check.passed else None,
            seconds=report.converged_seconds.get(check.phase) or 0,
        )
        for check in report.checks
    ]
    return junit_xml(
        f"designer verify {report.name}",
        cases,
        "not covered:\n" + "\n".join(report.not_covered) if report.not_covered else None,
    )


FORMATS = {"text": text, "json": as_json, "junit": junit}

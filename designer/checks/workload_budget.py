"""workload-budget: every workload's collective fits the time its team can afford per step.

The workload analysis (:mod:`designer.analysis.workload`) times each workload's collective on the fabric; a
collective slower at p50 (the switch hash, or the spreading model under load_balancing.mode adaptive, cluster or
spray) than the workload's ``step_budget_s`` is a warning, saying whether the
ideal fabric would meet the budget (then ECMP collisions are to blame: more QPs per connection help) or not (the
job needs more bandwidth or a smaller collective). Each workload's numbers are reported as evidence.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.analysis.workload import SPREAD_EFFICIENCY, WorkloadResult, not_analyzed
from designer.design import Built
from designer.findings import Finding

ID = "workload-budget"
DESCRIPTION = "every workload's collective (p50 under the intent's load balancing) fits its step_budget_s"
SEVERITY = "warning"


def check(design: Built) -> Iterable[Finding]:
    if not design.workloads:
        yield Finding(
            ID,
            "info",
            "no workloads in the intent: a workloads section times a training job's collective "
            "on this fabric (designer analyze)",
            "workloads",
            evidence={"workloads": 0},
        )
    for result in design.workloads:
        yield _timing(design, result)


def _timing(design: Built, result: WorkloadResult) -> Finding:
    """The time of one workload's collective at its mode's p50, against its ideal and its step budget: over the
    budget, why (the fabric's bandwidth, spreading's efficiency or ECMP collisions) and what would help."""
    work, spread, ideal = result.workload, result.chosen, result.ideal.time_s
    if spread is None:
        return Finding(
            ID,
            "info",
            f"ideal {ideal:.3f} s per {work.collective}; ECMP not analyzed: {not_analyzed(design.workloads)}",
            work.name,
            evidence={"ideal_s": round(ideal, 6)},
        )
    p50 = spread.time(0.5)
    evidence = {
        "ideal_s": round(ideal, 6),
        "time_s_p50": round(p50, 6),
        "efficiency_p50": round(ideal / p50, 4),
        "step_budget_s": work.step_budget_s,
    }
    text = f"{p50:.3f} s per {work.collective} at {result.label} p50 ({ideal / p50:.1%} of ideal {ideal:.3f} s)"
    budget = work.step_budget_s
    if budget is None or p50 <= budget:
        within = "" if budget is None else f", within step_budget_s {budget:g} s"
        return Finding(ID, "info", text + within, work.name, evidence=evidence)
    if ideal > budget:
        why = (
            f"{text}: over step_budget_s {budget:g} s even on an ideal fabric; the job "
            "needs more bandwidth per server or a smaller collective"
        )
    elif result.mode != "ecmp":
        why = (
            f"{text}: over step_budget_s {budget:g} s because spreading delivers "
            f"{SPREAD_EFFICIENCY:.0%} of line rate and the busiest link carries more than a NIC link; more "
            "bandwidth per server or a packed placement would help"
        )
    else:
        fix = (
            f"{result.qps_for_90pct} QPs per connection reach 90% of ideal"
            if result.qps_for_90pct
            else "more QPs per connection or a packed placement would help"
        )
        why = f"{text}: over step_budget_s {budget:g} s because of ECMP collisions; {fix}"
    return Finding(ID, "warning", why, work.name, evidence=evidence)

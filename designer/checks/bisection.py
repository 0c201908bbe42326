"""bisection-bandwidth: max-flow between the worst-case halves of the NIC ports, against ``N * s / 2``, or against
what the declared tapers leave of it (:func:`declared_bisection`).

The max-flow of every split (pods, rails, a seeded random one) is solved once per design beside the facts
(:mod:`designer.analysis.maxflow` explains the splits and the contracted networks); this check compares
the worst split with the full bisection of a non-blocking fabric.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.backend.sizing import declared_bisection
from designer.design import Wired
from designer.findings import Finding

ID = "bisection-bandwidth"
DESCRIPTION = "max-flow between worst-case halves (pods, rails, random) equals full bisection N * s / 2"
SEVERITY = "error"


def check(design: Wired) -> Iterable[Finding]:
    result = design.bisection
    worst = result.total(result.worst)
    fraction = result.fraction(worst)
    allowed = design.intent.checks.oversubscription
    evidence = {
        "bisection_tbps": result.tbps(worst),
        "full_tbps": result.tbps(result.full),
        "fraction": round(fraction, 6),
        "worst_split": result.worst,
        "splits_tbps": {name: result.tbps(result.total(name)) for name in result.flows},
    }
    text = (
        f"{result.tbps(worst):,.1f} Tb/s of {result.tbps(result.full):,.1f} Tb/s full bisection "
        f"({fraction:.2%}), worst split by {result.worst}; "
        + ", ".join(f"{name} {result.tbps(result.total(name)):,.1f}" for name in result.flows)
    )
    declared = declared_bisection(design.intent, design.plan)
    evidence["declared_fraction"] = round(declared, 6)
    if worst >= result.full:
        yield Finding(ID, "info", text, "fabric", evidence=evidence)
    elif declared < 1 and fraction >= declared - 1e-9:
        yield Finding(ID, "info", f"{text}; the declared tapers give {declared:.2%}", "fabric", evidence=evidence)
    elif fraction * allowed >= 1 - 1e-9:
        yield Finding(
            ID, "warning", f"{text}; within checks.oversubscription {allowed:g}:1", "fabric", evidence=evidence
        )
    else:
        wanted = "a non-blocking fabric gives the full bisection"
        if declared < 1:
            wanted = f"the declared tapers give {declared:.2%}"
        yield Finding(ID, "error", f"{text}; {wanted}", "fabric", evidence=evidence)

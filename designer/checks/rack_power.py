"""rack-power: no rack draws more than the facility's per-rack power budget.

A rack's draw is what the physical plan puts in it: servers at their maximum power, switches at their
power without optics plus the optics and active cables chosen for their ports. Placement fills racks
up to the budget, so a rack goes over only when one device alone exceeds it or the optics chosen
later push a network rack past it.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.backend.physical import over_budget
from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding

ID = "rack-power"
DESCRIPTION = "no rack draws more than its power budget"
SEVERITY = "error"


def check(design: Built) -> Iterable[Finding]:
    facility = design.intent.facility
    racks = design.physical.racks
    over = over_budget(racks, facility)
    problems = [
        (
            rack.name,
            f"{rack.role} rack of {len(rack.devices)} device{'s' if len(rack.devices) != 1 else ''} "
            f"draws {rack.kw:,.2f} kW, over its {facility.rack_power_kw:g} kW budget "
            "(facility.rack_power_kw)",
        )
        for rack in over
    ]
    if problems:
        return capped(ID, SEVERITY, problems)
    peak = max(racks, key=lambda rack: rack.kw)
    return [
        Finding(
            ID,
            "info",
            f"{len(racks):,} racks within {facility.rack_power_kw:g} kW; the highest, "
            f"{peak.name}, draws {peak.kw:,.2f} kW",
            evidence={"racks": len(racks), "peak_kw": peak.kw, "budget_kw": facility.rack_power_kw},
        )
    ]

"""air-cooling: no air-cooled rack draws more than the air-cooling limit (``facility.air_limit_kw``).

A liquid-cooled hall passes. The intent already refuses air cooling for racks budgeted above the
limit; this catches racks whose real draw goes beyond it anyway.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from designer.backend.physical import too_hot_for_air
from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding

ID = "air-cooling"
DESCRIPTION = "no air-cooled rack above the air-cooling limit"
SEVERITY = "error"


def check(design: Built) -> Iterable[Finding]:
    facility = design.intent.facility
    hot = too_hot_for_air(design.physical.racks, facility)
    problems = [
        (
            rack.name,
            f"air-cooled rack draws {rack.kw:,.2f} kW, above the {facility.air_limit_kw:g} kW "
            "air-cooling limit (facility.air_limit_kw); cool it with liquid, spread its devices, or, where the "
            f"hall's air handling carries it, set facility.air_limit_kw: {math.ceil(rack.kw * 10) / 10:g}",
        )
        for rack in hot
    ]
    if problems:
        return capped(ID, SEVERITY, problems)
    if facility.cooling == "liquid":
        return [Finding(ID, "info", "liquid-cooled: no air-cooling limit applies", evidence={"cooling": "liquid"})]
    return [
        Finding(
            ID,
            "info",
            f"every rack is within the {facility.air_limit_kw:g} kW air-cooling limit",
            evidence={"cooling": "air", "limit_kw": facility.air_limit_kw},
        )
    ]

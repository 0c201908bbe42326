"""oversubscription: every switch below the top tier has as much uplink as downlink bandwidth (1:1).

Downlinks are the links to the tier below (servers for a leaf), uplinks the links to the tier above; each
counts at its tier's speed (``uplink_speed``), so a leaf of 64 x 400G down and 32 x 800G up is 1:1. A ratio
above 1:1 fails unless the intent allows it with ``checks.oversubscription`` (then it is a warning that states
the ratio).
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.backend.wiring import LEAF_SPINE, SPINE_SUPER
from designer.checks.base import capped
from designer.design import Wired
from designer.findings import Finding

ID = "oversubscription"
DESCRIPTION = "downlink vs uplink bandwidth per switch and per tier is 1:1 (or within the allowed ratio)"
SEVERITY = "error"


def check(design: Wired) -> Iterable[Finding]:
    fabric, speeds = design.fabric, design.plan.link_speeds
    allowed = design.intent.checks.oversubscription
    top = design.plan.top_role
    up_speed = {"leaf": speeds[LEAF_SPINE], "spine": speeds[SPINE_SUPER]}
    uplinks = zip(design.facts.uplinks, fabric.devices, strict=True)
    up = [count * up_speed.get(device.role, 0) for count, device in uplinks]
    down = [0] * len(fabric.devices)
    for tier, upper, _, _, _ in fabric.links:
        down[upper] += speeds[tier]
    over: list[tuple[str, str]] = []
    allowed_over: list[tuple[str, str]] = []
    tiers: dict[str, list[float]] = {}
    for index, device in enumerate(fabric.switches()):
        if device.role == top:
            continue
        totals = tiers.setdefault(device.role, [0, 0, 0])
        totals[0] += down[index]
        totals[1] += up[index]
        ratio = down[index] / up[index] if up[index] else float("inf")
        totals[2] = max(totals[2], ratio) if down[index] else totals[2]
        if down[index] > up[index]:
            text = (
                f"{_ratio(ratio)} downlink to uplink ({down[index] / 1000:g} Tb/s down, {up[index] / 1000:g} Tb/s up)"
            )
            if ratio > allowed + 1e-9:
                over.append((device.name, f"{text}; the intent allows {_ratio(allowed)}"))
            else:
                allowed_over.append((device.name, f"{text}; allowed by checks.oversubscription"))
    yield from capped(ID, "error", over)
    yield from capped(ID, "warning", allowed_over)
    for role, (total_down, total_up, worst) in tiers.items():
        ratio = total_down / total_up if total_up else float("inf")
        yield Finding(
            ID,
            "info",
            (
                f"{role.replace('_', '-')} tier: {total_down / 1000:g} Tb/s down, "
                f"{total_up / 1000:g} Tb/s up ({_ratio(ratio)}); worst switch "
                f"{_ratio(worst)}"
            ),
            role,
            evidence={
                "down_tbps": total_down / 1000,
                "up_tbps": total_up / 1000,
                "ratio": _finite(ratio),
                "worst_switch_ratio": _finite(worst),
            },
        )


def _ratio(value: float) -> str:
    return "no uplinks" if value == float("inf") else f"{value:.2f}:1"


def _finite(value: float) -> float | None:
    """JSON has no infinity: a tier without uplinks reports ``null``."""
    return None if value == float("inf") else round(value, 6)

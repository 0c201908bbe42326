"""oversubscription: every switch below the top tier is tapered no more than its tier declares (1:1 by default).

Downlinks are the links to the tier below (servers for a leaf), uplinks the links to the tier above; each
counts at its tier's speed (``uplink_speed``), so a leaf of 64 x 400G down and 32 x 800G up is 1:1. A tier with a
declared taper (``fabric.oversubscription``) is the design: a switch at or below it passes, one above it fails. On
a tier without one a ratio above 1:1 fails unless ``checks.oversubscription`` tolerates it (then it is a warning
that states the ratio). Both are written down:up, in one notation.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.backend.wiring import LEAF_SPINE, SPINE_SUPER
from designer.checks.base import capped
from designer.design import Wired
from designer.findings import Finding
from designer.intent.fields import ratio_text

ID = "oversubscription"
DESCRIPTION = "downlink vs uplink bandwidth per switch and per tier is as declared (1:1 unless a taper is declared)"
SEVERITY = "error"


def check(design: Wired) -> Iterable[Finding]:
    fabric, speeds = design.fabric, design.plan.link_speeds
    tolerated = design.intent.checks.oversubscription
    declared_of = dict(design.intent.choices.tapers)
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
        declared = declared_of.get(device.role)
        text = f"{_ratio(ratio)} downlink to uplink ({down[index] / 1000:g} Tb/s down, {up[index] / 1000:g} Tb/s up)"
        if declared is not None:
            if ratio > declared + 1e-9:
                over.append((device.name, f"{text}; its tier is declared {ratio_text(declared)}"))
        elif down[index] > up[index]:
            if ratio > tolerated + 1e-9:
                over.append((device.name, f"{text}; the intent allows {_ratio(tolerated)}"))
            else:
                allowed_over.append((device.name, f"{text}; allowed by checks.oversubscription"))
    yield from capped(ID, "error", over)
    yield from capped(ID, "warning", allowed_over)
    for role, (total_down, total_up, worst) in tiers.items():
        ratio = total_down / total_up if total_up else float("inf")
        declared = declared_of.get(role)
        yield Finding(
            ID,
            "info",
            (
                f"{role.replace('_', '-')} tier: {total_down / 1000:g} Tb/s down, "
                f"{total_up / 1000:g} Tb/s up ({_ratio(ratio)}); worst switch "
                f"{_ratio(worst)}" + (f"; declared {ratio_text(declared)}" if declared is not None else "")
            ),
            role,
            evidence={
                "down_tbps": total_down / 1000,
                "up_tbps": total_up / 1000,
                "ratio": _finite(ratio),
                "worst_switch_ratio": _finite(worst),
                "declared": declared if declared is not None else 1.0,
            },
        )


def _ratio(value: float) -> str:
    return "no uplinks" if value == float("inf") else f"{value:.2f}:1"


def _finite(value: float) -> float | None:
    """JSON has no infinity: a tier without uplinks reports ``null``."""
    return None if value == float("inf") else round(value, 6)

"""What each switch tier builds and why it has its count, beside what today's servers alone would need: the
``tiers_built`` part of summary.md, ``designer plan`` and design.json."""

from __future__ import annotations

from typing import Any

from designer.backend.physical.costs import TierCost
from designer.backend.sizing import tier_reasons
from designer.design import Design
from designer.intent.fields import ratio_text

FIGURES = ("switches", "ports_used", "ports_free", "optics", "cable_runs", "kw")
"""What each tier's row gives, in order."""


def tiers_built(design: Design) -> dict[str, Any]:
    """Per switch tier: its figures, the same for today's servers alone (None without a growth envelope) and the
    line saying why it has its count."""
    alone = {cost.tier: cost for cost in design.without_growth or ()}
    reasons = tier_reasons(design.intent, design.plan)
    built = design.plan.built_tapers()
    return {
        cost.tier: {
            **_figures(cost),
            "taper_declared": design.intent.choices.taper(cost.tier) or 1.0 if cost.tier in built else None,
            "taper_built": round(built[cost.tier], 6) if cost.tier in built else None,
            "without_growth": _figures(alone[cost.tier]) if cost.tier in alone else None,
            "why": reasons.get(cost.tier, ""),
        }
        for cost in design.tier_costs
    }


def _figures(cost: TierCost) -> dict[str, Any]:
    return {figure: getattr(cost, figure) for figure in FIGURES}


def tier_markdown(tiers: dict[str, Any], growth: bool) -> list[str]:
    """## What each tier builds: a row per tier (and, with ``growth``, what today's servers alone would need and
    the difference the envelope makes), then why each tier has its count. A difference may be negative: the
    envelope's hall and tiers lay the cables otherwise (copper where today's alone needs optics)."""
    lines = [
        "## What each tier builds",
        "",
        "Ports are physical; optics the transceivers in the tier's switches; cable runs those of the links up to "
        "the tier; kW the switches' draw with their optics; the taper is down:up bandwidth of a full switch, as "
        "declared (fabric.oversubscription) and as built.",
        "",
        "| tier | switches | ports used | ports free | optics | cable runs | kW | taper declared | built |"
        + (" for today's servers alone | with the envelope, against today's alone |" if growth else ""),
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---|---|" if growth else ""),
    ]
    for tier, row in tiers.items():
        line = (
            f"| {tier.replace('_', '-')} | {row['switches']:,} | {row['ports_used']:,} | {row['ports_free']:,} | "
            f"{row['optics']:,} | {row['cable_runs']:,} | {row['kw']:,.1f} | {_taper(row['taper_declared'])} | "
            f"{_taper(row['taper_built'])} |"
        )
        if growth:
            line += f" {_alone(row['without_growth'])} | {_added(row, row['without_growth'])} |"
        lines.append(line)
    lines += ["", *(f"- {tier.replace('_', '-')}: {row['why']}" for tier, row in tiers.items())]
    return lines


def tier_text(tiers: dict[str, Any], growth: bool) -> list[str]:
    """One terminal line per tier: its figures, and with ``growth`` the difference against today's servers alone."""
    lines = []
    for tier, row in tiers.items():
        line = (
            f"{tier.replace('_', '-')}: {row['switches']:,} switches, {row['ports_used']:,} ports used, "
            f"{row['ports_free']:,} free, {row['optics']:,} optics, {row['cable_runs']:,} cable runs, "
            f"{row['kw']:,.1f} kW"
        )
        if growth:
            line += f"; against today's servers alone {_added(row, row['without_growth'])}"
        lines.append(line)
    return lines


def _taper(ratio: float | None) -> str:
    """A tier's taper as the intent writes it; the top tier, which sends nothing up, has none."""
    return "-" if ratio is None else ratio_text(ratio)


def _alone(row: dict[str, Any] | None) -> str:
    """Today's servers' figures of a tier (a tier the envelope alone needs: none)."""
    if row is None:
        return "none"
    return (
        f"{row['switches']:,} switches, {row['ports_used']:,} ports, {row['optics']:,} optics, "
        f"{row['cable_runs']:,} runs, {row['kw']:,.1f} kW"
    )


def _added(row: dict[str, Any], alone: dict[str, Any] | None) -> str:
    """What the design's tier builds beyond today's servers' alone."""
    base = alone or dict.fromkeys(FIGURES, 0)
    return (
        f"{row['switches'] - base['switches']:+,} switch(es), {row['ports_used'] - base['ports_used']:+,} ports, "
        f"{row['optics'] - base['optics']:+,} optics, {row['cable_runs'] - base['cable_runs']:+,} runs, "
        f"{row['kw'] - base['kw']:+,.1f} kW"
    )

"""The workload analysis as people and scripts read it: the plan contract, the detailed record (``design.json``,
``designer analyze --format json``), the text of ``designer analyze``, the ``summary.md`` section and
``workloads.svg``.

Seconds are rounded to the microsecond, GB/s (10^9 bytes per second) to the MB/s, efficiencies to 0.01%, dollars
to the cent. A time that never ends (a failure leaving some flow no way) is ``null`` with efficiency 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape
from typing import Any

from designer.analysis.workload import SPREAD_EFFICIENCY, Spread, WorkloadResult, not_analyzed

TIME_DIGITS, RATE_DIGITS, SHARE_DIGITS = 6, 3, 4
HISTOGRAM_TEXT = 8
"""The text lists the uplinks of the busiest switch load by load up to this many loads, else their range."""


def _seconds(value: float) -> float | None:
    return None if math.isinf(value) else round(value, TIME_DIGITS)


def _share(ideal: float, value: float) -> float:
    return 0.0 if math.isinf(value) else round(ideal / value, SHARE_DIGITS)


def _usd(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def contract(result: WorkloadResult) -> dict[str, Any]:
    """One workload in ``designer plan --format json``: exactly the keys of the public contract, the numbers of the
    intent's load-balancing mode (``ecmp.model`` says which model made them)."""
    work, best, spread = result.workload, result.ideal, result.chosen
    return {
        "name": work.name,
        "gpus": work.gpus,
        "servers": work.servers,
        "placement": work.placement,
        "collective": work.collective,
        "algorithm": best.algorithm,
        "bytes": work.bytes,
        "ideal": {
            "algbw_gbyte_s": round(best.algbw_gbyte_s, RATE_DIGITS),
            "busbw_gbyte_s": round(best.busbw_gbyte_s, RATE_DIGITS),
            "time_s": _seconds(best.time_s),
        },
        "fabric_bytes": dict(result.fabric_bytes),
        "ecmp": {
            "model": result.model,
            "flows": result.flows,
            "worst_link_flows_p50": spread.worst(0.5) if spread else None,
            "time_s_p50": _seconds(spread.time(0.5)) if spread else None,
            "time_s_p99": _seconds(spread.time(0.99)) if spread else None,
            "efficiency_p50": _share(best.time_s, spread.time(0.5)) if spread else None,
            "efficiency_p99": _share(best.time_s, spread.time(0.99)) if spread else None,
            "qps_for_90pct": result.chosen_qps_for_90pct,
        },
        "failures": [
            {
                "failed": failure.failed,
                "time_s_p50": _seconds(failure.spread.time(0.5)),
                "efficiency_p50": _share(best.time_s, failure.spread.time(0.5)),
            }
            for failure in result.chosen_failures
        ],
        "cost": {
            "usd_per_minute_stall": _usd(result.stall_usd_per_minute),
            "usd_per_step_lost_p50": _usd(result.lost_usd_per_step()),
            "usd_per_day_lost_p50": _usd(result.lost_usd_per_day()),
        },
    }


def _hash(best_s: float, spread: Spread | None) -> dict[str, Any] | None:
    if spread is None:
        return None
    return {
        "worst_link_flows_p50": spread.worst(0.5),
        "worst_link_flows_p99": spread.worst(0.99),
        "time_s_p50": _seconds(spread.time(0.5)),
        "time_s_p99": _seconds(spread.time(0.99)),
        "efficiency_p50": _share(best_s, spread.time(0.5)),
        "efficiency_p99": _share(best_s, spread.time(0.99)),
    }


def _even(best_s: float, spread: Spread | None) -> dict[str, Any] | None:
    """The spreading model's figures (adaptive, cluster, spray), whatever the intent's mode."""
    if spread is None:
        return None
    return {
        "worst_link_flows": round(spread.worst_link_flows[0], 3),
        "time_s": _seconds(spread.time(0.5)),
        "efficiency": _share(best_s, spread.time(0.5)),
        "link_efficiency": SPREAD_EFFICIENCY,
    }


def detail(result: WorkloadResult) -> dict[str, Any]:
    """Everything about one workload: the contract, then both hashes and the spreading model, the inputs of the
    model and the busiest switch's uplinks."""
    work, best = result.workload, result.ideal
    row = contract(result)
    row["ideal"].update(
        network_s=_seconds(best.network_s), nvlink_s=_seconds(best.nvlink_s), latency_s=_seconds(best.latency_s)
    )
    row["ecmp"].update(
        routed_flows=result.routed,
        nic_link_flows=result.nic_flows,
        runs=result.seeds,
        channels=work.channels,
        qps_per_connection=work.qps_per_connection,
        qps_searched_up_to=result.qps_searched,
        switch_crc32=_hash(best.time_s, result.switch),
        uniform=_hash(best.time_s, result.uniform),
        even_spread=_even(best.time_s, result.spread),
    )
    for entry, failure in zip(row["failures"], result.chosen_failures, strict=True):
        entry.update(kind=failure.kind, worst_link_flows_p50=failure.spread.worst(0.5))
    row["worst_switch"] = {
        "name": result.worst_switch,
        "uplink_histogram": [list(pair) for pair in result.uplink_histogram],
    }
    row["cost"].update(gpu_hour_usd=work.gpu_hour_usd)
    row["step_budget_s"] = work.step_budget_s
    return row


def size_text(count: float) -> str:
    """Bytes with a decimal unit: ``700 GB``, ``11.1 TB``, ``0 B``."""
    for unit, scale in (("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:,.3g} {unit}" if count / scale < 1000 else f"{count / scale:,.0f} {unit}"
    return f"{count:,.0f} B"


def _time_text(value: float) -> str:
    if math.isinf(value):
        return "never (a flow has no way left)"
    return f"{value * 1000:,.1f} ms" if value < 1 else f"{value:,.3f} s"


def _spread_text(best_s: float, spread: Spread) -> str:
    p50, p99 = spread.time(0.5), spread.time(0.99)
    return (
        f"{_time_text(p50)} p50 ({_share(best_s, p50):.1%}), {_time_text(p99)} p99 ({_share(best_s, p99):.1%}); "
        f"busiest link {spread.worst(0.5)} flows at p50"
    )


def _even_label(result: WorkloadResult) -> str:
    """What the spreading line is: the intent's mode, or what adaptive load balancing would give."""
    return f"{result.mode} (even spread)" if result.mode != "ecmp" else "adaptive would give (even spread)"


def _even_text(best_s: float, spread: Spread) -> str:
    time = spread.time(0.5)
    return (
        f"{_time_text(time)} ({_share(best_s, time):.1%}); busiest link {spread.worst_link_flows[0]:,.2f} flows, "
        f"fabric links at {SPREAD_EFFICIENCY:.0%} of line rate"
    )


def text(name: str, results: Sequence[WorkloadResult], seeds: int, domain: str = "server") -> str:
    """What ``designer analyze`` prints: every workload, a few lines each; ``domain`` names one NVLink domain
    (``server``, or the rack-scale system's model)."""
    mode = results[0].mode if results else "ecmp"
    lines = [
        f"{name}: {len(results)} workload{'s' if len(results) != 1 else ''}, each alone on the fabric, "
        f"{seeds} run{'s' if seeds != 1 else ''} per hash; "
        + (
            "a switch down moves only the flows that crossed it (resilient hashing)"
            if mode == "ecmp"
            else f"load balancing {mode}: the fabric spreads every flow over all paths (a switch down: over what "
            "is left), the hashes show what per-flow ECMP would give"
        )
    ]
    for result in results:
        lines += _workload_lines(result, results, domain)
    return "\n".join(lines)


def _workload_lines(result: WorkloadResult, results: Sequence[WorkloadResult], domain: str) -> list[str]:
    """One workload's lines of :func:`text`: what it runs, its ideal, bytes and flows, the hashes, spreading and
    failures, its cost, its busiest uplinks and its step budget."""
    work, best = result.workload, result.ideal
    lines = [
        "",
        f"{work.name}: {work.collective} of {size_text(work.bytes)} ({best.algorithm}) on {work.gpus:,} GPUs in "
        f"{work.servers:,} {domain}{'s' if work.servers != 1 else ''}, {work.placement}",
        f"  ideal: {_time_text(best.time_s)} (algbw {best.algbw_gbyte_s:,.1f} GB/s, busbw "
        f"{best.busbw_gbyte_s:,.1f} GB/s; network {_time_text(best.network_s)}, NVLink "
        f"{_time_text(best.nvlink_s)}, latency {_time_text(best.latency_s)})",
        "  fabric bytes: "
        + ", ".join(f"{tier.replace('_', '-')} {size_text(count)}" for tier, count in result.fabric_bytes.items()),
        f"  flows: {result.flows:,} ({work.channels} channels x {work.qps_per_connection} QPs per connection), "
        f"{result.routed:,} leave their leaf; a NIC link carries {result.nic_flows:,}",
    ]
    if result.switch is None or result.uniform is None:
        lines.append(f"  ECMP: not analyzed: {not_analyzed(results)}")
    else:
        qps = (
            f"{result.qps_for_90pct}"
            if result.qps_for_90pct is not None
            else f"not reached up to {result.qps_searched}"
        )
        lines += [
            f"  switch hash (CRC-32): {_spread_text(best.time_s, result.switch)}",
            f"  uniform hash:         {_spread_text(best.time_s, result.uniform)}",
            f"  QPs per connection for 90% at p50: {qps}",
        ]
    if result.spread is not None:
        lines.append(f"  {_even_label(result)}: {_even_text(best.time_s, result.spread)}")
    lines += [
        f"  {failure.failed} down: {_spread_text(best.time_s, failure.spread)}" for failure in result.chosen_failures
    ]
    lost, day = result.lost_usd_per_step(), result.lost_usd_per_day()
    lines.append(
        f"  cost: ${result.stall_usd_per_minute:,.2f} a minute of stall"
        + (
            f"; ${lost:,.2f} lost per step and ${day:,.2f} per day at p50"
            if lost is not None and day is not None
            else ""
        )
    )
    if result.worst_switch:
        histogram = result.uplink_histogram
        spread = (
            ", ".join(f"{uplinks} with {flows}" for flows, uplinks in histogram) + " flows"
            if len(histogram) <= HISTOGRAM_TEXT
            else f"{sum(uplinks for _, uplinks in histogram)} uplinks carry {histogram[0][0]:,} to "
            f"{histogram[-1][0]:,} flows"
        )
        lines.append(f"  busiest uplinks: {result.worst_switch}: {spread}")
    if work.step_budget_s is not None and result.switch is not None:
        over = result.switch.time(0.5) > work.step_budget_s
        lines.append(f"  step budget {work.step_budget_s:g} s: {'exceeded' if over else 'met'} at p50")
    return lines


def markdown(results: Sequence[WorkloadResult]) -> list[str]:
    """The workloads section of ``summary.md`` (empty without workloads)."""
    if not results:
        return []
    label = results[0].label
    how = (
        f"ECMP by the switch hash (CRC-32 per switch) over {results[0].seeds} runs (`designer analyze` also shows "
        "the uniform hash; `workloads.svg` draws the times and the busiest switch's uplinks)."
        if results[0].mode == "ecmp"
        else f"load balancing {label}: every flow spread over all paths, fabric links at {SPREAD_EFFICIENCY:.0%} of "
        "line rate (`designer analyze` also shows per-flow ECMP hashing; `workloads.svg` draws its times and the "
        "busiest switch's uplinks)."
    )
    lines = [
        "",
        "## Workloads",
        "",
        f"Each job alone on the fabric; {how}",
        "",
        f"| workload | GPUs | collective | ideal | busbw | {label} p50 | {label} p99 | efficiency p50 | "
        "one spine down | QPs for 90% | $ lost per step |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for result in results:
        row = contract(result)
        ecmp, cost = row["ecmp"], row["cost"]
        spine = next((failure for failure in result.chosen_failures if failure.kind == "spine"), None)

        def show(value: float | None) -> str:
            return "-" if value is None else _time_text(value)

        lines.append(
            f"| {row['name']} | {row['gpus']:,} | {row['collective']} {size_text(row['bytes'])} ({row['algorithm']}, "
            f"{row['placement']}) | {_time_text(result.ideal.time_s)} | {row['ideal']['busbw_gbyte_s']:,.1f} GB/s | "
            f"{show(ecmp['time_s_p50'])} | {show(ecmp['time_s_p99'])} | "
            f"{'-' if ecmp['efficiency_p50'] is None else format(ecmp['efficiency_p50'], '.1%')} | "
            f"{show(spine.spread.time(0.5)) if spine else '-'} | {ecmp['qps_for_90pct'] or '-'} | "
            f"{'-' if cost['usd_per_step_lost_p50'] is None else format(cost['usd_per_step_lost_p50'], ',.2f')} |"
        )
    return lines


BAR_H, GAP, LEFT, CHART_W, HIST_W = 18, 4, 150, 420, 300
COLOURS = {
    "ideal": "#2c7fb8",
    "ECMP p50": "#7fcdbb",
    "ECMP p99": "#fdae61",
    "spine down": "#d7191c",
    "super-spine down": "#984ea3",
}


def svg(name: str, results: Sequence[WorkloadResult]) -> str:
    """``workloads.svg``: per workload, the time of one collective (ideal, ECMP p50 and p99 by the switch hash, one
    spine and one super-spine down at p50) as bars, and a histogram of flows per uplink on the busiest switch."""
    blocks: list[str] = []
    top = 70
    for result in results:
        bars = _bars(result)
        height = max(len(bars) * (BAR_H + GAP) + 40, 150)
        blocks += _workload_block(result, bars, top)
        top += height + 20
    width = LEFT + CHART_W + 120 + HIST_W + 20
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{top}" viewBox="0 0 {width} {top}" '
            'font-family="sans-serif" font-size="11">',
            f'<rect width="{width}" height="{top}" fill="#ffffff"/>',
            f'<text x="10" y="22" font-size="16" font-weight="bold">{escape(name)}: time per collective</text>',
            '<text x="10" y="40">Bars: seconds per collective (switch hash, CRC-32 per switch). Right: uplinks of the '
            "busiest switch by the flows they carry (median run).</text>",
            *blocks,
            "</svg>",
            "",
        ]
    )


def _bars(result: WorkloadResult) -> list[tuple[str, float]]:
    bars = [("ideal", result.ideal.time_s)]
    if result.switch is not None:
        bars += [("ECMP p50", result.switch.time(0.5)), ("ECMP p99", result.switch.time(0.99))]
    bars += [(f"{failure.kind} down", failure.spread.time(0.5)) for failure in result.failures]
    return bars


def _workload_block(result: WorkloadResult, bars: list[tuple[str, float]], top: int) -> list[str]:
    finite = [value for _, value in bars if not math.isinf(value)]
    scale = CHART_W / max(finite) if finite and max(finite) > 0 else 0
    work = result.workload
    parts = [
        f'<text x="10" y="{top}" font-weight="bold">{escape(work.name)}: {work.collective} of '
        f"{escape(size_text(work.bytes))} on {work.gpus:,} GPUs ({work.placement}, "
        f"{result.ideal.algorithm})</text>"
    ]
    for number, (label, value) in enumerate(bars):
        y = top + 12 + number * (BAR_H + GAP)
        length = CHART_W if math.isinf(value) else value * scale
        parts += [
            f'<text x="{LEFT - 6}" y="{y + BAR_H - 5}" text-anchor="end">{escape(label)}</text>',
            f'<rect x="{LEFT}" y="{y}" width="{length:.1f}" height="{BAR_H}" fill="{COLOURS[label]}"/>',
            f'<text x="{LEFT + length + 4:.1f}" y="{y + BAR_H - 5}">{escape(_time_text(value))}</text>',
        ]
    parts += _histogram(result, LEFT + CHART_W + 120, top)
    return parts


def _histogram(result: WorkloadResult, left: int, top: int) -> list[str]:
    if not result.uplink_histogram:
        return [f'<text x="{left}" y="{top + 30}">no flow leaves its leaf</text>']
    most = max(uplinks for _, uplinks in result.uplink_histogram)
    columns = result.uplink_histogram
    step = HIST_W / len(columns)
    chart_h = 100
    parts = [f'<text x="{left}" y="{top}">{escape(result.worst_switch)}: uplinks by flows carried</text>']
    for number, (flows, uplinks) in enumerate(columns):
        x = left + number * step
        h = uplinks / most * chart_h
        parts += [
            f'<rect x="{x + 1:.1f}" y="{top + 12 + chart_h - h:.1f}" width="{max(step - 2, 1):.1f}" '
            f'height="{h:.1f}" fill="#636363"/>',
            f'<text x="{x + step / 2:.1f}" y="{top + 12 + chart_h - h - 2:.1f}" text-anchor="middle" '
            f'font-size="9">{uplinks}</text>',
            f'<text x="{x + step / 2:.1f}" y="{top + 24 + chart_h:.1f}" text-anchor="middle" '
            f'font-size="9">{flows}</text>',
        ]
    parts.append(
        f'<text x="{left}" y="{top + 38 + chart_h}" font-size="9">flows on an uplink (below), uplinks '
        "carrying that many (above the bars)</text>"
    )
    return parts

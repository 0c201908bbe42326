"""failure-impact: what one spine, one super-spine, one leaf or one leaf-spine link down costs.

For each failure (the element with the most links of its kind, first in device order on a tie, or
the first leaf-spine link) the failed plane's max-flow is solved again without it, for the structured
splits of the bisection check (pods and rails; the random split mixes both halves on every leaf and
is never the worst one for a single failure: :mod:`designer.analysis.maxflow` solves them with the
bisection), and reported as the remaining fraction of the full bisection; with the narrowest ECMP group
left (uplinks of the switches that lost some) and the GPUs that lose a rail (their NIC link is gone, or
their leaf has no uplink left).
``checks.failure_min_bisection`` and ``checks.failure_max_gpus`` turn a result into a failure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from operator import itemgetter
from typing import NamedTuple

from designer.analysis.maxflow import Failure
from designer.backend.sizing import declared_bisection
from designer.backend.wiring import NONE, SERVER_LEAF, Fabric, Link
from designer.design import Wired
from designer.findings import Finding

ID = "failure-impact"
DESCRIPTION = "bisection, ECMP width and GPUs cut off when one spine, super-spine, leaf or link fails"
SEVERITY = "error"


def check(design: Wired) -> Iterable[Finding]:
    fabric = design.fabric
    thresholds = design.intent.checks
    intact = design.bisection
    up = design.facts.uplinks
    top = fabric.plan.top_role
    full_width = min((up[index] for index, device in enumerate(fabric.switches()) if device.role != top), default=0)
    counted: dict[int, _Counted] = {}
    declared = declared_bisection(design.intent, design.plan)
    for failure, remaining in intact.failed:
        fraction = intact.fraction(remaining)
        plane = design.facts.plane_links[failure.plane]
        if failure.plane not in counted:
            counted[failure.plane] = _count(plane)
        width, gpus = _width_and_gpus(fabric, plane, counted[failure.plane], failure, up, top, full_width)
        evidence = {
            "bisection_fraction": round(fraction, 6),
            "bisection_tbps": intact.tbps(remaining),
            "ecmp_width": width,
            "ecmp_width_intact": full_width,
            "gpus_losing_a_rail": gpus,
        }
        text = (
            f"{failure.kind} {failure.subject} down: {fraction:.2%} of full bisection left, narrowest ECMP group "
            f"{width} of {full_width}, {gpus:,} GPU{'s' if gpus != 1 else ''} lose a rail"
        )
        problems = []
        if declared < 1:
            text += f" ({fraction / declared:.2%} of the {declared:.2%} the declared tapers give)"
            evidence["declared_fraction"] = round(declared, 6)
        if fraction / declared < thresholds.failure_min_bisection - 1e-9:
            problems.append(f"below checks.failure_min_bisection {thresholds.failure_min_bisection:g}")
        if thresholds.failure_max_gpus is not None and gpus > thresholds.failure_max_gpus:
            problems.append(f"above checks.failure_max_gpus {thresholds.failure_max_gpus}")
        yield Finding(
            ID, "error" if problems else "info", "; ".join([text, *problems]), failure.kind, evidence=evidence
        )


class _Counted(NamedTuple):
    """One plane's links counted: at each device as the lower end (its uplinks in the plane) and at either end,
    and the switches with server links."""

    lower: Counter[int]
    ends: Counter[int]
    serving: set[int]


def _count(plane: tuple[Link, ...]) -> _Counted:
    lower = Counter(map(itemgetter(3), plane))
    return _Counted(
        lower, lower + Counter(map(itemgetter(1), plane)), {link[1] for link in plane if link[0] == SERVER_LEAF}
    )


def _width_and_gpus(
    fabric: Fabric,
    plane: tuple[Link, ...],
    counted: _Counted,
    failure: Failure,
    up: tuple[int, ...],
    top: str,
    full_width: int,
) -> tuple[int, int]:
    """Narrowest ECMP group among the plane's switches that lost uplinks, and the GPUs whose rail is cut off (their
    link is down, or their leaf has no uplink left): the plane's counts less the links that went down."""
    plan, devices = fabric.plan, fabric.devices
    dead = (
        [link for link in plane if link == failure.link or link[1] == failure.device or link[3] == failure.device]
        if failure.device != NONE
        else [link for link in plane if link == failure.link]
    )
    now, ends = counted.lower.copy(), counted.ends.copy()
    for _, upper, _, lower, _ in dead:
        now[lower] -= 1
        ends[upper] -= 1
        ends[lower] -= 1
    narrowed = [
        now[index]
        for index in range(fabric.switch_count)
        if ends[index] > 0 and now[index] < up[index] and devices[index].role != top
    ]
    stranded = {index for index in counted.serving if now[index] == 0}
    cut = [link for link in dead if link[0] == SERVER_LEAF]
    if stranded:
        gone = set(cut)
        cut += [link for link in plane if link[0] == SERVER_LEAF and link[1] in stranded and link not in gone]
    gpus: set[tuple[int, int]] = set()
    per_server = plan.gpus_per_server
    for _, _, _, server, port in cut:
        rail = port % plan.rails
        first = rail * per_server // plan.rails
        gpus.update((server, gpu) for gpu in range(first, max(first + 1, (rail + 1) * per_server // plan.rails)))
    return min(narrowed, default=full_width), len(gpus)

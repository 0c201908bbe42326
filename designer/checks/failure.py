"""failure-impact: what one spine, one super-spine, one leaf or one leaf-spine link down costs.

For each failure (the element with the most links of its kind, first in device order on a tie, or
the first leaf-spine link) the failed plane's max-flow is solved again without it, for the structured
splits of the bisection check (pods and rails; the random split mixes both halves on every leaf and
is never the worst one for a single failure), and reported as the remaining fraction of the full
bisection; with the narrowest ECMP group left (uplinks of the switches that lost some) and the GPUs
that lose a rail (their NIC link is gone, or their leaf has no uplink left).
``checks.failure_min_bisection`` and ``checks.failure_max_gpus`` turn a result into a failure.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from designer.analysis.facts import Facts
from designer.analysis.maxflow import splits
from designer.design import Built
from designer.fabric import LEAF_SPINE, NONE, SERVER_LEAF, Fabric, Link
from designer.findings import Finding

ID = "failure-impact"
DESCRIPTION = "bisection, ECMP width and GPUs cut off when one spine, super-spine, leaf or link fails"
SEVERITY = "error"
STRUCTURED = ("pods", "scalable units", "rails")


def check(design: Built) -> Iterable[Finding]:
    fabric = design.fabric
    thresholds = design.intent.checks
    intact = design.facts.bisection
    per_plane = design.facts.plane_links
    up = design.facts.uplinks
    top = fabric.plan.top_role
    full_width = min((up[index] for index, device in enumerate(fabric.switches()) if device.role != top), default=0)
    structured = {name: in_a for name, in_a in splits(fabric).items() if name in STRUCTURED}
    for failure in _failures(fabric, design.facts):
        left = [link for link in per_plane[failure.plane]
                if link != failure.link and link[1] != failure.device and link[3] != failure.device]
        dead_devices = [failure.device] if failure.device != NONE else []
        dead_links = [(failure.link[1], failure.link[3])] if failure.link else []
        remaining = min(intact.total(name) - intact.flows[name][failure.plane]
                        + intact.networks[failure.plane].max_flow(in_a, dead_devices, dead_links)
                        for name, in_a in structured.items())
        fraction = intact.fraction(remaining)
        width, gpus = _width_and_gpus(fabric, per_plane[failure.plane], left, up, top, full_width)
        evidence = {"bisection_fraction": round(fraction, 6), "bisection_tbps": intact.tbps(remaining),
                    "ecmp_width": width, "ecmp_width_intact": full_width, "gpus_losing_a_rail": gpus}
        text = (f"{failure.kind} {failure.subject} down: {fraction:.2%} of full bisection left, narrowest ECMP group "
                f"{width} of {full_width}, {gpus:,} GPU{'s' if gpus != 1 else ''} lose a rail")
        problems = []
        if fraction < thresholds.failure_min_bisection - 1e-9:
            problems.append(f"below checks.failure_min_bisection {thresholds.failure_min_bisection:g}")
        if thresholds.failure_max_gpus is not None and gpus > thresholds.failure_max_gpus:
            problems.append(f"above checks.failure_max_gpus {thresholds.failure_max_gpus}")
        yield Finding(ID, "error" if problems else "info", "; ".join([text, *problems]), failure.kind,
                      evidence=evidence)


class Failure(NamedTuple):
    """One thing down: a switch (``device``) or a link (``link``), in ``plane``."""

    kind: str
    plane: int
    subject: str
    device: int = NONE
    link: Link | None = None


def _failures(fabric: Fabric, facts: Facts) -> Iterator[Failure]:
    """Each single failure the fabric has: its busiest spine, super-spine and leaf, and a leaf-spine link."""
    devices, links_of = fabric.devices, facts.links_of
    for role in ("spine", "super_spine", "leaf"):
        members = [index for index, device in enumerate(fabric.switches()) if device.role == role]
        if members:
            dead = max(members, key=lambda index: (links_of[index], -index))
            yield Failure(role.replace("_", "-"), devices[dead].plane, devices[dead].name, device=dead)
    link = next((link for link in fabric.links if link[0] == LEAF_SPINE), None)
    if link is not None:
        _, upper, upper_port, lower, lower_port = link
        yield Failure("link", devices[upper].plane, f"{devices[lower].name}:{devices[lower].port_name(lower_port)} - "
                                                    f"{devices[upper].name}:{devices[upper].port_name(upper_port)}",
                      link=link)


def _width_and_gpus(fabric: Fabric, before: tuple[Link, ...], after: list[Link], up: tuple[int, ...], top: str,
                    full_width: int) -> tuple[int, int]:
    """Narrowest ECMP group among the plane's switches that lost uplinks, and the GPUs whose rail is cut off."""
    plan, devices = fabric.plan, fabric.devices
    now = [0] * len(devices)
    present = bytearray(len(devices))
    for _, upper, _, lower, _ in after:
        now[lower] += 1
        present[upper] = present[lower] = 1
    narrowed = [now[index] for index in range(fabric.switch_count)
                if present[index] and now[index] < up[index] and devices[index].role != top]
    attached = {link for link in after if link[0] == SERVER_LEAF}
    gpus: set[tuple[int, int]] = set()
    per_server = plan.gpus_per_server
    for link in before:
        if link[0] == SERVER_LEAF and (link not in attached or now[link[1]] == 0):
            rail = link[4] % plan.rails
            first = rail * per_server // plan.rails
            gpus.update((link[3], gpu) for gpu in range(first, max(first + 1, (rail + 1) * per_server // plan.rails)))
    return min(narrowed, default=full_width), len(gpus)

"""Facts about the wired fabric that several checks (and the workload analysis) read: computed once per design.

Counting a device's links, grouping links by plane or solving the bisection max-flow is per-link work;
at 400k links it is done here once, then every reader takes the result (pyavd's "facts first, then per
device"). Facts are read-only and hold no reference to any other design.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from designer.analysis.maxflow import Bisection, bisection
from designer.fabric import SERVER_LEAF, Fabric, Link


@dataclass(frozen=True)
class Facts:
    """Shared, read-only facts of one wired fabric."""

    uplinks: tuple[int, ...]
    """Links each device has to the tier above it (a server's NIC links count as its uplinks), by device index."""
    links_of: tuple[int, ...]
    """Links at each device, both directions, by device index."""
    switch_pairs: Counter[tuple[int, int]]
    """Parallel links between two switches: ``(upper, lower) -> count``; server links left out."""
    plane_links: tuple[tuple[Link, ...], ...]
    """The links of each plane (a link belongs to the plane of its upper end, always a switch)."""
    bisection: Bisection
    """Max-flow of every split in every plane, with each plane's network for failure variants."""


def facts(fabric: Fabric) -> Facts:
    """Count, group and solve what the readers of ``fabric`` share."""
    devices = fabric.devices
    up = [0] * len(devices)
    links_of = [0] * len(devices)
    pairs: Counter[tuple[int, int]] = Counter()
    per_plane: list[list[Link]] = [[] for _ in range(fabric.plan.planes)]
    for link in fabric.links:
        tier, upper, _, lower, _ = link
        up[lower] += 1
        links_of[upper] += 1
        links_of[lower] += 1
        if tier != SERVER_LEAF:
            pairs[upper, lower] += 1
        per_plane[devices[upper].plane].append(link)
    return Facts(tuple(up), tuple(links_of), pairs, tuple(tuple(links) for links in per_plane),
                 bisection(fabric, per_plane))

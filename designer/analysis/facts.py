"""Facts about the wired fabric that several checks (and the workload analysis) read: computed once per design.

Counting a device's links or grouping links by plane is per-link work; at 400k links it is done here once, then
every reader takes the result (pyavd's "facts first, then per device"). The max-flows solved on these facts are
:mod:`designer.analysis.maxflow`'s. Facts are read-only and hold no reference to any other design.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from operator import itemgetter

from designer.backend.wiring import SERVER_LEAF, Fabric, Link


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


def facts(fabric: Fabric) -> Facts:
    """Count and group what the readers of ``fabric`` share (the counting is done by ``Counter``, in C)."""
    devices, links = fabric.devices, fabric.links
    lowers = Counter(map(itemgetter(3), links))
    uppers = Counter(map(itemgetter(1), links))
    up = tuple(lowers.get(index, 0) for index in range(len(devices)))
    links_of = tuple(count + uppers.get(index, 0) for index, count in enumerate(up))
    pairs = Counter((upper, lower) for tier, upper, _, lower, _ in links if tier != SERVER_LEAF)
    if fabric.plan.planes == 1:
        return Facts(up, links_of, pairs, (tuple(links),))
    per_plane: list[list[Link]] = [[] for _ in range(fabric.plan.planes)]
    for link in links:
        per_plane[devices[link[1]].plane].append(link)
    return Facts(up, links_of, pairs, tuple(tuple(plane) for plane in per_plane))

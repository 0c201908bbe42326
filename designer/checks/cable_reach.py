"""cable-reach: every link's estimated run is within the reach of some medium at the link speed.

Lengths and media come from the physical plan (:mod:`designer.backend.physical.cables`): a link whose run,
or whose port group's longest run, exceeds even the longest-reaching medium has no medium.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding

ID = "cable-reach"
DESCRIPTION = "no link longer than every medium reaches"
SEVERITY = "error"


def check(design: Built) -> Iterable[Finding]:
    physical, fabric = design.physical, design.fabric
    devices = fabric.devices
    longest_medium = physical.media[-1].name
    problems = []
    for number in physical.unreachable():
        tier, upper, upper_port, lower, lower_port = fabric.links[number]
        reach = physical.reach_dm[tier][-1] / 10
        problems.append(
            (
                f"{devices[upper].name}:{devices[upper].port_name(upper_port)}",
                f"{physical.link_length_dm[number] / 10:.1f} m run to {devices[lower].name}:"
                f"{devices[lower].port_name(lower_port)}; it, or a link sharing its ports, is beyond the "
                f"{reach:g} m of {longest_medium}: move the racks closer or raise "
                f"facility.reach_m.{longest_medium}",
            )
        )
    if problems:
        return capped(ID, SEVERITY, problems)
    longest = max(physical.link_length_dm, default=0) / 10
    return [
        Finding(
            ID,
            "info",
            f"every link has a medium; the longest run is {longest:.1f} m",
            evidence={"links": len(fabric.links), "longest_m": longest},
        )
    ]

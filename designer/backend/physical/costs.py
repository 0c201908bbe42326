"""What each switch tier of a design builds: switches, ports used and free, optics, cable runs and power.

The summary shows it beside what today's servers alone would need (the same intent without its growth envelope), so
the envelope's cost is a number in the review, not a surprise on the purchase order.

* Ports are physical ports (cages): used when at least one link runs through them.
* Optics are the transceivers in the tier's switches: one per used cage whose links run over an optical medium.
* Cable runs are those of the links up to the tier (server to leaf, leaf to spine, spine to super-spine): one per
  pair of cages a link joins, so a breakout splitter counts once per far end.
* Power is the tier's switches' draw with their optics (:attr:`Physical.switch_w`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from designer.backend.physical import Physical
from designer.backend.wiring import LEAF_SPINE, Fabric
from designer.intent import Intent
from designer.intent.switch_spec import SWITCH_TIERS


@dataclass(frozen=True)
class TierCost:
    """What one switch tier builds."""

    tier: str
    switches: int
    ports_used: int
    ports_free: int
    optics: int
    cable_runs: int
    kw: float


def tier_costs(intent: Intent, fabric: Fabric, physical: Physical) -> tuple[TierCost, ...]:
    """Per switch tier with at least one switch, in :data:`SWITCH_TIERS` order, what it builds (free ports: of the
    intent's switch model of the tier). Each link end is a number, ``device * width + cage``, so the counting runs
    over lists and sets, not link by link: a 131,072-GPU fabric's 400,000 links take a fraction of a second."""
    devices, links, switches = fabric.devices, fabric.links, fabric.switch_count
    cages = fabric.per_port(lambda device, port: device.place(port)[0])
    width = max((len(ports) for ports in cages), default=0) + 1
    uppers = [upper * width + cages[upper][port] for _, upper, port, _, _ in links]
    lowers = [lower * width + cages[lower][port] for _, _, _, lower, port in links]
    optical = [medium.optical for medium in physical.media] + [False]  # the last: no medium
    lit_links = [optical[medium] for medium in physical.link_medium]
    first_server_end = switches * width
    used = {*uppers, *(end for end in lowers if end < first_server_end)}
    lit = {end for end, on in zip(uppers, lit_links, strict=True) if on}
    lit.update(end for end, on in zip(lowers, lit_links, strict=True) if on and end < first_server_end)
    bounds = [0, fabric.server_link_count]  # links run tier by tier: server links, leaf-spine, spine-super-spine
    bounds.append(bounds[-1] + sum(1 for link in links[bounds[-1] :] if link[0] == LEAF_SPINE))
    bounds.append(len(links))
    roles = [device.role for device in devices[:switches]]
    ports = Counter(roles[end // width] for end in used)
    optics = Counter(roles[end // width] for end in lit)
    watts = dict.fromkeys(SWITCH_TIERS, 0.0)
    for role, draw in zip(roles, physical.switch_w, strict=True):
        watts[role] += draw
    costs = []
    for level, tier in enumerate(SWITCH_TIERS):
        if not (members := roles.count(tier)):
            continue
        low, high = bounds[level], bounds[level + 1]
        runs = len(set(zip(uppers[low:high], lowers[low:high], strict=True)))
        free = intent.switch(tier).ports * members - ports[tier]
        costs.append(TierCost(tier, members, ports[tier], free, optics[tier], runs, round(watts[tier] / 1000, 3)))
    return tuple(costs)

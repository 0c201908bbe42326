"""The hardware of one switch tier as every stage reads it: the backend's tiers and each network's switches."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

SWITCH_TIERS = ("leaf", "spine", "super_spine")
"""The backend's switch tiers from the servers up, as the intent's ``fabric`` section and every stage name them."""


@dataclass(frozen=True)
class SwitchSpec:
    """The hardware of one switch tier, every field known."""

    model: str
    ports: int
    speed: int
    rack_units: int
    power_w: int
    power_w_optics: int
    uplink_speed: int | None = None
    """The speed of the tier's uplinks as the intent gives it (None: its downlink speed)."""

    def radix(self, link_speed: int) -> int:
        """Logical ports when every physical port breaks out into links of ``link_speed``."""
        return self.ports * self.breakout(link_speed)

    def breakout(self, link_speed: int) -> int:
        """Logical links per physical port."""
        return self.speed // link_speed

    def split(self, down_speed: int, up_speed: int, taper: float = 1) -> tuple[int, int]:
        """Logical downlinks and uplinks, down:up bandwidth ``taper`` (1:1 unless told). At 1:1 and one speed the
        logical ports split in half (a port's lanes may face both ways); at two, the physical ports do, each half
        broken out to its speed. Tapered, the most downlinks whose :func:`uplinks_for` still fit beside them."""
        if taper == 1:
            if down_speed == up_speed:
                half = self.radix(down_speed) // 2
                return half, half
            half = self.ports // 2
            return half * self.breakout(down_speed), half * self.breakout(up_speed)
        down_breakout, up_breakout = self.breakout(down_speed), self.breakout(up_speed)
        for downlinks in range(self.radix(down_speed) - 1, 0, -1):
            up = uplinks_for(downlinks, down_speed, up_speed, taper)
            if down_speed == up_speed:
                fits = downlinks + up <= self.radix(down_speed)
            else:
                fits = -(-downlinks // down_breakout) + -(-up // up_breakout) <= self.ports
            if fits:
                return downlinks, up
        return 0, 0


def uplinks_for(downlinks: int, down_speed: int, up_speed: int, taper: float) -> int:
    """The fewest whole uplinks that keep ``downlinks`` at most ``taper`` times their bandwidth (down:up)."""
    ratio = Fraction(taper).limit_denominator(1000)
    return math.ceil(Fraction(downlinks * down_speed) / (ratio * up_speed))

"""The hardware of one switch tier as every stage reads it: the backend's tiers and each network's switches."""

from __future__ import annotations

from dataclasses import dataclass

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

    def split(self, down_speed: int, up_speed: int) -> tuple[int, int]:
        """Logical downlinks and uplinks, as much bandwidth each way (1:1). At one speed the logical ports split in
        half (a port's lanes may face both ways); at two, the physical ports do, each half broken out to its speed."""
        if down_speed == up_speed:
            half = self.radix(down_speed) // 2
            return half, half
        half = self.ports // 2
        return half * self.breakout(down_speed), half * self.breakout(up_speed)

"""ports: no port used twice or beyond the hardware, breakout consistent with the switch and link speed.

A switch's logical ports are its physical ports times its breakout (``port speed / link speed``);
every link end must name a logical port below that count, and no two link ends the same port. A
server's NIC ports are numbered below its NIC count, each used once.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding

ID = "ports"
DESCRIPTION = "no port used twice or beyond the hardware; breakout consistent"
SEVERITY = "error"


def check(design: Built) -> Iterable[Finding]:
    fabric, intent, speed = design.fabric, design.intent, design.plan.link_speed
    devices = fabric.devices
    problems: list[tuple[str, str]] = []
    for device in fabric.switches():
        spec = intent.switch(device.role)
        if device.breakout != spec.breakout(speed) or device.ports != spec.radix(speed):
            problems.append((device.name, f"{device.ports} logical ports at breakout {device.breakout}, but "
                                          f"{spec.ports} x {spec.speed}G ports give {spec.radix(speed)} x {speed}G "
                                          f"at breakout {spec.breakout(speed)}"))
    width = max((device.ports for device in devices), default=0) + 1
    used: dict[int, int] = {}
    per_device = [0] * len(devices)
    for number, (_, upper, upper_port, lower, lower_port) in enumerate(fabric.links):
        for device, port in ((upper, upper_port), (lower, lower_port)):
            per_device[device] += 1
            name = f"{devices[device].name}:{devices[device].port_name(port)}"
            if not 0 <= port < devices[device].ports:
                problems.append((name, f"port {port + 1} is beyond the {devices[device].ports} logical ports of "
                                       f"{devices[device].model}"))
                continue
            key = device * width + port
            if key in used:
                problems.append((name, f"used by two links (#{used[key]} and #{number})"))
            else:
                used[key] = number
    yield from capped(ID, "error", problems)
    busiest = max(range(fabric.switch_count), key=lambda index: (per_device[index] / devices[index].ports, -index),
                  default=None)
    if busiest is not None:
        device = devices[busiest]
        yield Finding(ID, "info", f"{len(used):,} link ends on distinct ports; fullest switch {device.name} uses "
                                  f"{per_device[busiest]} of {device.ports}", "ports",
                      evidence={"link_ends": len(used), "fullest": device.name, "used": per_device[busiest],
                                "ports": device.ports})

"""ports: no port used twice or beyond the hardware, breakout consistent with the switch and link speed.

A switch's logical ports are its physical ports times its breakout (``port speed / link speed``), or, when its
uplinks run another speed than its downlinks, half its physical ports at each breakout (a tier with a declared
taper splits them by it); every link end must name
a logical port below that count, and no two link ends the same port. A server's NIC ports are numbered below its
NIC count, each used once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from itertools import repeat
from operator import add, itemgetter, lt, mul

from designer.backend.sizing import leaf_up_room
from designer.backend.wiring import Device, Fabric
from designer.checks.base import capped
from designer.design import Wired
from designer.findings import Finding
from designer.intent import Intent
from designer.intent.switch_spec import SWITCH_TIERS, SwitchSpec

ID = "ports"
DESCRIPTION = "no port used twice or beyond the hardware; breakout consistent"
SEVERITY = "error"


def check(design: Wired) -> Iterable[Finding]:
    fabric, intent, plan = design.fabric, design.intent, design.plan
    devices = fabric.devices
    problems: list[tuple[str, str]] = []
    speeds = dict(zip(SWITCH_TIERS, plan.link_speeds[:3], strict=True))
    ups = {"leaf": plan.leaf_spine_speed, "spine": plan.spine_super_speed, "super_spine": plan.spine_super_speed}
    hardware: dict[tuple[str, int, int], tuple[int, int, int, int]] = {}
    for device in fabric.switches():
        spec, down, up = intent.switch(device.role), speeds[device.role], ups[device.role]
        layout = (device.role, device.downlinks, device.ports)
        if layout not in hardware:  # once per layout: a tapered split searches the switch's ports
            hardware[layout] = _hardware(intent, device, spec, down, up)
        downlinks, uplinks = hardware[layout][2], hardware[layout][3] - hardware[layout][2]
        if (device.breakout, device.uplink_breakout, device.downlinks, device.ports) != hardware[layout]:
            problems.append(
                (
                    device.name,
                    f"{device.downlinks} logical ports down at breakout {device.breakout} and "
                    f"{device.ports - device.downlinks} up at breakout {device.uplink_breakout}, but "
                    f"{spec.ports} x {spec.speed}G ports give {downlinks} x {down}G down and {uplinks} x {up}G up",
                )
            )
    links, sizes = fabric.links, [device.ports for device in devices]
    width = max(sizes, default=0) + 1
    columns = [list(map(itemgetter(column), links)) for column in range(1, 5)]
    keys: list[int] = []
    per_device = [0] * len(devices)
    in_range = True
    for end_devices, end_ports in ((columns[0], columns[1]), (columns[2], columns[3])):  # counted in C, not one by one
        keys += map(add, map(mul, end_devices, repeat(width)), end_ports)
        in_range = (
            in_range and min(end_ports, default=0) >= 0 and all(map(lt, end_ports, map(sizes.__getitem__, end_devices)))
        )
        for index, count in Counter(end_devices).items():
            per_device[index] += count
    if in_range and len(set(keys)) == len(keys):
        used = len(keys)  # the usual case: every port within its device, none used twice
    else:
        used = len(_problems(fabric, width, problems))
    yield from capped(ID, "error", problems)
    busiest = max(
        range(fabric.switch_count), key=lambda index: (per_device[index] / devices[index].ports, -index), default=None
    )
    if busiest is not None:
        device = devices[busiest]
        yield Finding(
            ID,
            "info",
            f"{used:,} link ends on distinct ports; fullest switch {device.name} uses "
            f"{per_device[busiest]} of {device.ports}",
            "ports",
            evidence={"link_ends": used, "fullest": device.name, "used": per_device[busiest], "ports": device.ports},
        )


def _hardware(intent: Intent, device: Device, spec: SwitchSpec, down: int, up: int) -> tuple[int, int, int, int]:
    """What the hardware gives a switch laid out as ``device``: (breakout down, breakout up, logical ports down,
    logical ports), split by its tier's declared taper; a leaf may serve fewer servers and send fewer uplinks (the
    intent's choices)."""
    taper = intent.choices.taper(device.role) or 1
    downlinks, uplinks = spec.split(down, up, taper) if device.downlinks < device.ports else (spec.radix(down), 0)
    if device.role == "leaf":
        downlinks = min(device.downlinks, downlinks)
        uplinks = min(device.ports - device.downlinks, leaf_up_room(intent, downlinks))
    return spec.breakout(down), spec.breakout(up), downlinks, downlinks + uplinks


def _problems(fabric: Fabric, width: int, problems: list[tuple[str, str]]) -> dict[int, int]:
    """Add every port beyond its device and every port used twice to ``problems``, in link order (the upper end
    first); returns the link of each port used once at least."""
    devices = fabric.devices
    used: dict[int, int] = {}
    ends = (
        (number, end)
        for number, (_, upper, upper_port, lower, lower_port) in enumerate(fabric.links)
        for end in ((upper, upper_port), (lower, lower_port))
    )
    for number, (device, port) in ends:
        name = f"{devices[device].name}:{devices[device].port_name(port)}"
        if not 0 <= port < devices[device].ports:
            problems.append(
                (
                    name,
                    f"port {port + 1} is beyond the {devices[device].ports} logical ports of {devices[device].model}",
                )
            )
            continue
        key = device * width + port
        if key in used:
            problems.append((name, f"used by two links (#{used[key]} and #{number})"))
        else:
            used[key] = number
    return used

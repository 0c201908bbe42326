"""Port names as each network OS names them, from the catalog's naming rules (data, not code).

The fabric names every switch port once, ``swpN`` or ``swpNsL`` (:meth:`designer.backend.wiring.Device.port_name`): that
canonical name is the key growth, diff and the FRR lab use. Each target names the same port its own way, by the
catalog's ``port_names`` rule of the OS (or of the switch model, where its platform differs): ``Ethernet1/5`` on
EOS for the second 400G link of an 8-lane port, ``Ethernet4`` on SONiC, ``swp1s1`` on NVUE. The tables and
design.json give these names (:func:`os_port_names`), the device models carry them for the views
(``DeviceConfig.os_port_names``). An InfiniBand switch's ports are named for the fabric's subnet manager, by the
switch model's rule (NVIDIA's Quantum-2: ``1/<cage>/<port>``) or else by their port numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from designer.backend.wiring import Device, Fabric
from designer.catalog import Catalog, PortNaming
from designer.intent import Intent
from designer.intent.switch_spec import SWITCH_TIERS

SERDES_LANES = {10: 1, 25: 1, 40: 4, 50: 2, 100: 4, 200: 4, 400: 8, 800: 8, 1600: 8}
"""Electrical lanes of one physical port at each port speed (QSFP28/QSFP56 4, QSFP-DD/OSFP 8)."""


def serdes_lanes(port_speed: int, breakout: int) -> int:
    """The SerDes lanes of one physical port of ``port_speed`` Gb/s split into ``breakout`` links (at least one
    lane per link)."""
    return max(SERDES_LANES.get(port_speed, 1), breakout)


def uniform_places(ports: int, breakout: int) -> list[tuple[int, int, int]]:
    """Every logical port's place when each physical port is split alike: (cage from 0, link in the cage,
    ``breakout``)."""
    return [(port // breakout, port % breakout, breakout) for port in range(ports)]


def layout_names(naming: PortNaming, places: Sequence[tuple[int, int, int]], serdes: int) -> tuple[str, ...]:
    """The names of a switch's logical ports, in the fabric's port order, by ``naming``: each port's place as
    (cage from 0, link in the cage, the cage's breakout), physical ports of ``serdes`` lanes."""
    names = []
    for number, (cage, link, breakout) in enumerate(places):
        lanes = serdes // breakout
        names.append(naming.name(cage, link, breakout, lanes, cage * serdes + link * lanes, number))
    return tuple(names)


def switch_port_names(
    catalog: Catalog, targets: tuple[str, ...], device: Device, port_speed: int
) -> dict[str, tuple[str, ...]]:
    """Each target's names of the logical ports of ``device``'s layout (its ports placed by
    :meth:`Device.place`), on physical ports of ``port_speed`` Gb/s."""
    places = [device.place(port) for port in range(device.ports)]
    serdes = serdes_lanes(port_speed, max(device.breakout, device.uplink_breakout))
    return {target: layout_names(catalog.port_naming(target, device.model), places, serdes) for target in targets}


def port_speeds(intent: Intent) -> dict[str, int]:
    """The port speed (Gb/s) of the backend's switches of each role."""
    return {role: intent.switch(role).speed for role in SWITCH_TIERS}


def switch_namer(
    catalog: Catalog, port_speeds: Mapping[str, int], targets: tuple[str, ...]
) -> Callable[[Device], dict[str, tuple[str, ...]]]:
    """:func:`switch_port_names` for each switch under ``targets``, its ports of ``port_speeds`` Gb/s (by role), made
    once per port layout (role, model and how its ports break out) and shared by every switch of that layout."""
    layouts: dict[tuple[str, str, int, int, int, int], dict[str, tuple[str, ...]]] = {}

    def named(device: Device) -> dict[str, tuple[str, ...]]:
        key = (device.role, device.model, device.ports, device.breakout, device.downlinks, device.uplink_breakout)
        if key not in layouts:
            layouts[key] = switch_port_names(catalog, targets, device, port_speeds[device.role])
        return layouts[key]

    return named


def naming_targets(intent: Intent) -> tuple[str, ...]:
    """The targets whose port names the tables and design.json give: the network OSes, then the subnet managers
    (an InfiniBand switch's ports as its vendor and the subnet manager's tools name them)."""
    return (*intent.targets, *intent.subnet_managers)


def os_port_names(intent: Intent, fabric: Fabric) -> dict[str, list[tuple[str, ...]]]:
    """Every device's logical port names as each of the intent's targets (:func:`naming_targets`) names them, by
    target and then device index (as :meth:`Fabric.port_names`); a server's ports keep their ``nicN`` names.
    Switches alike share one tuple."""
    targets = naming_targets(intent)
    canonical = fabric.port_names()
    named = switch_namer(intent.catalog, port_speeds(intent), targets)
    names: dict[str, list[tuple[str, ...]]] = {target: [] for target in targets}
    for index, device in enumerate(fabric.devices):
        if device.role == "server":
            for target in targets:
                names[target].append(canonical[index])
            continue
        layout = named(device)
        for target in targets:
            names[target].append(layout[target])
    return names


def port_columns(targets: tuple[str, ...] | list[str]) -> tuple[tuple[str, str | None], ...]:
    """The port columns of a table with a port column named ``port``: with one target, that OS's names under
    ``port``; with several, the canonical name under ``port`` and each OS's in ``port_<os>``. Each column as
    (suffix, target; None for the canonical name)."""
    if len(targets) == 1:
        return (("", targets[0]),)
    return (("", None), *((f"_{target}", target) for target in targets))


def named_ports(intent: Intent, fabric: Fabric) -> list[tuple[str, ...]]:
    """Every device's port names as a file that gives one name per port says them: the design's one target's, or
    with several the canonical names (the first of :func:`port_columns`)."""
    _, target = port_columns(naming_targets(intent))[0]
    return fabric.port_names() if target is None else os_port_names(intent, fabric)[target]

"""Port names as each network OS names them, from the catalog's naming rules (data, not code).

The fabric names every switch port once, ``swpN`` or ``swpNsL`` (:meth:`designer.fabric.Device.port_name`): that
canonical name is the key growth, diff and the FRR lab use. Each target names the same port its own way, by the
catalog's ``port_names`` rule of the OS (or of the switch model, where its platform differs): ``Ethernet1/5`` on
EOS for the second 400G link of an 8-lane port, ``Ethernet4`` on SONiC, ``swp1s1`` on NVUE. The tables and
design.json give these names (:func:`os_port_names`), the device models carry them for the views
(``DeviceConfig.os_port_names``).
"""

from __future__ import annotations

from designer.catalog import Catalog, PortNaming
from designer.fabric import Fabric
from designer.intent import Intent

SERDES_LANES = {10: 1, 25: 1, 40: 4, 50: 2, 100: 4, 200: 4, 400: 8, 800: 8, 1600: 8}
"""Electrical lanes of one physical port at each port speed (QSFP28/QSFP56 4, QSFP-DD/OSFP 8)."""


def serdes_lanes(port_speed: int, breakout: int) -> int:
    """The SerDes lanes of one physical port of ``port_speed`` Gb/s split into ``breakout`` links (at least one
    lane per link)."""
    return max(SERDES_LANES.get(port_speed, 1), breakout)


def layout_names(naming: PortNaming, ports: int, breakout: int, serdes: int) -> tuple[str, ...]:
    """The names of a switch's ``ports`` logical ports, in the fabric's port order, by ``naming``: ``breakout``
    links per physical port of ``serdes`` lanes."""
    lanes = serdes // breakout
    pattern = naming.whole if breakout == 1 else naming.broken_out
    return tuple(
        pattern.format(
            cage=port // breakout + 1,
            subport=port % breakout,
            lane=port % breakout * lanes + 1,
            serdes=port // breakout * serdes + port % breakout * lanes,
        )
        for port in range(ports)
    )


def switch_port_names(
    catalog: Catalog, targets: tuple[str, ...], model: str, ports: int, breakout: int, port_speed: int
) -> dict[str, tuple[str, ...]]:
    """Each target's names of the logical ports of one switch layout: ``ports`` logical ports of ``model``,
    ``breakout`` to a physical port of ``port_speed`` Gb/s."""
    serdes = serdes_lanes(port_speed, breakout)
    return {target: layout_names(catalog.port_naming(target, model), ports, breakout, serdes) for target in targets}


def os_port_names(intent: Intent, fabric: Fabric) -> dict[str, list[tuple[str, ...]]]:
    """Every device's logical port names as each of the intent's targets names them, by target and then device
    index (as :meth:`Fabric.port_names`); a server's ports keep their ``nicN`` names. Switches alike share one
    tuple."""
    targets = tuple(intent.targets)
    canonical = fabric.port_names()
    layouts: dict[tuple[str, str, int, int], dict[str, tuple[str, ...]]] = {}
    names: dict[str, list[tuple[str, ...]]] = {target: [] for target in targets}
    for index, device in enumerate(fabric.devices):
        if device.role == "server":
            for target in targets:
                names[target].append(canonical[index])
            continue
        key = (device.role, device.model, device.ports, device.breakout)
        if key not in layouts:
            speed = intent.switch(device.role).speed
            layouts[key] = switch_port_names(
                intent.catalog, targets, device.model, device.ports, device.breakout, speed
            )
        for target in targets:
            names[target].append(layouts[key][target])
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
    _, target = port_columns(intent.targets)[0]
    return fabric.port_names() if target is None else os_port_names(intent, fabric)[target]

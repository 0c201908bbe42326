"""The design as a source of truth holds it: a backend-neutral list of objects read from a built output folder.

Each object is an :class:`Item`: its kind, its natural key (what names it uniquely, never an id or a counter) and
its fields, where a field that points at another object holds that object's :class:`Ref`. Items come in an order
where every object follows the objects it points at. The folder's ``design.json`` gives the devices, racks,
links, addresses and ASNs; its ``intent.yaml`` (with the site catalog the build kept) gives the hardware models
and the network OS, and the device models rebuilt from it give each switch's ports as its OS names them.
A consumer (:mod:`designer.sync.nautobot`) turns the items into its own objects and API calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from designer.built import DESIGN_FILE, folder_intent, read_design, read_manifest
from designer.errors import PrerequisiteError
from designer.fabric import NONE, Device
from designer.intent import Intent
from designer.model import DeviceConfig
from designer.nic_names import server_interfaces
from designer.outputs.folder import INTENT_FILE
from designer.pipeline import device_models
from designer.targets import TARGETS

KINDS = (
    "site",
    "design_record",
    "rack",
    "manufacturer",
    "platform",
    "role",
    "device_type",
    "device",
    "cable",
    "namespace",
    "prefix",
    "ip_address",
    "autonomous_system",
    "routing_instance",
)
"""Every kind of object, each after the kinds its objects point at."""
SHARED = frozenset(("design_record", "manufacturer", "platform", "role", "device_type", "autonomous_system"))
"""Kinds a source of truth may hold already (a device type from the devicetype-library, a role, a private ASN that
other clusters use too) and the record of each design synced (history): reused by natural key when present, never
changed or deleted."""


PLANE_NAMESPACE = "-plane"
"""What joins the design's name and the plane's number in the name of a plane's namespace (hwplb: every plane
repeats the server /31s, so each plane's addresses go in a namespace of their own)."""


class Ref(NamedTuple):
    """A pointer to another item: its kind and natural key."""

    kind: str
    key: tuple[Any, ...]


@dataclass(frozen=True)
class Item:
    """One object of the design: ``kind`` (one of :data:`KINDS`), natural ``key`` and ``fields``."""

    kind: str
    key: tuple[Any, ...]
    fields: dict[str, Any]

    @property
    def ref(self) -> Ref:
        """A pointer to this item."""
        return Ref(self.kind, self.key)


@dataclass(frozen=True)
class Port:
    """One interface of a device type: its name on the device's OS, whether it is virtual, and its speed."""

    name: str
    speed_gbps: int
    virtual: bool = False


def port_names(platform: str, device: DeviceConfig) -> tuple[str, ...]:
    """Every logical port of ``device`` as ``platform`` (a target) names it, in port order (the device model's
    ``os_port_names``, :mod:`designer.ports`)."""
    return device.os_port_names[platform]


@dataclass(frozen=True)
class Inventory:
    """Every object of one design, in :data:`KINDS` order, and the design's name and hash."""

    name: str
    design_sha256: str
    items: tuple[Item, ...]

    def of(self, kind: str) -> Iterator[Item]:
        """The items of one kind."""
        return (item for item in self.items if item.kind == kind)


def folder_inventory(folder: Path) -> Inventory:
    """The objects of the design built into ``folder``, its switch models rebuilt from the folder's intent.
    :class:`InputError` for a folder changed after the build; :class:`PrerequisiteError` without an intent.yaml
    and for a design without switch configurations."""
    intent = folder_intent(folder)
    if intent is None:
        raise PrerequisiteError(
            f"{folder} has no {INTENT_FILE} (an older designer built it); rebuild it with 'designer build INTENT'"
        )
    if not intent.targets:
        raise PrerequisiteError(
            f"{folder} is an {intent.technology} design with no switch configurations: the inventory names the "
            "switches' interfaces as their network OS does, so only Ethernet designs sync for now"
        )
    return inventory(folder, intent, device_models(intent))


def inventory(folder: Path, intent: Intent, devices: tuple[DeviceConfig, ...]) -> Inventory:
    """The objects of the design built into ``folder`` from ``intent``, whose switch models are ``devices``."""
    design = read_design(folder / DESIGN_FILE)
    design_sha256 = read_manifest(folder).hashes.get(DESIGN_FILE, "")
    if not design_sha256:
        raise PrerequisiteError(f"{folder / 'manifest.json'} lists no {DESIGN_FILE}; rebuild the folder")
    if design["intent_sha256"] != intent.sha256:
        raise PrerequisiteError(f"{folder / DESIGN_FILE} was not built from {folder / INTENT_FILE}; rebuild the folder")
    name, platform = design["name"], intent.targets[0]
    multiplane = intent.server.multiplane
    site = Item("site", (name,), {"description": f"GPU backend fabric {name}, designed by designer"})
    record = f"designer design {name}: design.json sha256 {design_sha256} (designer {design['tool_version']})"
    items: list[Item] = [site, Item("design_record", (name, design_sha256), {"site": site.ref, "text": record})]
    items += [
        Item("rack", (name, rack["name"]), {"site": site.ref, "units": intent.facility.rack_units})
        for rack in design["racks"]
    ]
    switch_ports = {device.hostname: device for device in devices}
    device_types: dict[str, Item] = {}  # by device
    for row in design["devices"]:
        spec = getattr(intent, row["role"])  # the role's resolved model (a catalog entry or the intent's own numbers)
        if row["role"] == "server":
            ports = tuple(Port(nic, spec.nic_speed) for nic in server_interfaces(row))
            units, type_name = spec.rack_units, row["model"]
            if multiplane:  # its ports are plane links, named per mode: a type of its own
                type_name = f"{row['model']} {multiplane.planes}x{spec.nic_speed}G {multiplane.mode}"
        else:
            switch = switch_ports[row["name"]]
            lane_speed = switch.port_speed_gbps // switch.breakout
            ports = (
                *(Port(port, lane_speed) for port in port_names(platform, switch)),
                Port(TARGETS[platform].loopback, 0, virtual=True),
            )
            units = spec.rack_units
            type_name = row["model"] if switch.breakout == 1 else f"{row['model']} {switch.breakout}x{lane_speed}G"
        maker = manufacturer_of(row["model"])
        device_types[row["name"]] = Item(
            "device_type",
            (maker, type_name),
            {"manufacturer": Ref("manufacturer", (maker,)), "units": units, "ports": ports},
        )
    types = {item.key: item for item in device_types.values()}
    items += [Item("manufacturer", (maker,), {}) for maker in sorted({key[0] for key in types})]
    items.append(Item("platform", (platform,), {}))
    items += [Item("role", (role,), {}) for role in sorted({row["role"] for row in design["devices"]})]
    items += sorted(types.values(), key=lambda item: item.key)
    names: dict[str, dict[str, str]] = {}  # device -> design port name -> OS port name
    for row in design["devices"]:
        switch = row["role"] != "server"
        items.append(
            Item(
                "device",
                (name, row["name"]),
                {
                    "site": site.ref,
                    "device_type": device_types[row["name"]].ref,
                    "role": Ref("role", (row["role"],)),
                    "platform": Ref("platform", (platform,)) if switch else None,
                    "rack": Ref("rack", (name, row["rack"])),
                    "position": row["unit"],
                },
            )
        )
        if switch:
            model = switch_ports[row["name"]]
            names[row["name"]] = dict(zip(model.port_names, port_names(platform, model), strict=True))
        else:
            names[row["name"]] = server_port_names(row, intent.server.ports_per_nic_port)
    for link in design["links"]:
        (upper, upper_port, _), (lower, lower_port, _) = link["a"], link["z"]
        a, z = (upper, names[upper][upper_port]), (lower, names[lower][lower_port])
        items.append(Item("cable", (name, *a, *z), {"length_m": link["length_m"], "medium": link["medium"]}))
    switches = [row for row in design["devices"] if row["role"] != "server"]
    hwplb = multiplane is not None and multiplane.mode == "hwplb"
    namespace_of = switch_namespaces(name, switches, separate_planes=hwplb)
    namespaces = {key: Item("namespace", (key,), {}) for key in sorted(set(namespace_of.values()))}
    items += namespaces.values()
    pools = design["summary"]["pools"]
    items += [
        Item("prefix", (key, pools[pool]["cidr"]), {"namespace": namespace.ref, "description": f"{key} {pool}"})
        for key, namespace in namespaces.items()
        for pool in sorted(pools)
    ]
    for link in design["links"]:
        if link["subnet"] is None:
            continue  # an unnumbered switch-to-switch link: no address on either end
        length = link["subnet"].partition("/")[2]
        namespace = namespaces[namespace_of[link["a"][0]]]  # the upper end is a switch, of the link's plane
        for device, port, address in (link["a"], link["z"]):
            items.append(_address(namespace, f"{address}/{length}", (name, device), names[device][port]))
    loopbacks = {
        row["name"]: _address(
            namespaces[namespace_of[row["name"]]],
            f"{row['loopback']}/32",
            (name, row["name"]),
            TARGETS[platform].loopback,
        )
        for row in switches
    }
    items += loopbacks.values()
    items += [Item("autonomous_system", (asn,), {}) for asn in sorted({row["asn"] for row in switches})]
    items += [
        Item(
            "routing_instance",
            (name, row["name"]),
            {
                "device": Ref("device", (name, row["name"])),
                "asn": Ref("autonomous_system", (row["asn"],)),
                "router_id": loopbacks[row["name"]].ref,
            },
        )
        for row in switches
    ]
    return Inventory(name, design_sha256, tuple(items))


def _address(namespace: Item, address: str, device: tuple[str, str], interface: str) -> Item:
    """An address (with its prefix length) on one interface of a device."""
    return Item(
        "ip_address",
        (namespace.key[0], address),
        {"namespace": namespace.ref, "device": Ref("device", device), "interface": interface},
    )


def server_port_names(row: dict[str, Any], planes: int) -> dict[str, str]:
    """A server's ports in the design's names (``nic0``, or with ``planes`` plane links a NIC port ``nic0s1``, as
    the fabric names them) to its interfaces' (:func:`server_interfaces`)."""
    interfaces = server_interfaces(row)
    server = Device(
        name=row["name"],
        role="server",
        plane=NONE,
        pod=NONE,
        su=NONE,
        rail=NONE,
        group=NONE,
        index=NONE,
        model=row["model"],
        ports=len(interfaces),
        breakout=1,
        downlinks=0,
        uplink_breakout=planes,
    )
    return {server.port_name(port): interface for port, interface in enumerate(interfaces)}


def switch_namespaces(design: str, switches: list[dict[str, Any]], separate_planes: bool) -> dict[str, str]:
    """The namespace of each switch's addresses (and of its links' ends): the design's, or with
    ``separate_planes`` (hwplb: every plane repeats the server /31s) its plane's, ``DESIGN-plane1``."""
    if not separate_planes:
        return dict.fromkeys((row["name"] for row in switches), design)
    return {row["name"]: f"{design}{PLANE_NAMESPACE}{row['plane']}" for row in switches}


def is_design_namespace(design: str, namespace: str) -> bool:
    """Whether ``namespace`` is one the design's addresses go in (:func:`switch_namespaces`)."""
    if not namespace.startswith(design):
        return False
    tail = namespace.removeprefix(design)
    return tail == "" or (tail.startswith(PLANE_NAMESPACE) and tail.removeprefix(PLANE_NAMESPACE).isdigit())


def manufacturer_of(model: str) -> str:
    """The maker a catalog model is filed under: the first word of its name (``nvidia-sn5600``: nvidia)."""
    return model.partition("-")[0]

"""The design as a source of truth holds it: a backend-neutral list of objects read from a built output folder.

Each object is an :class:`Item`: its kind, its natural key (what names it uniquely, never an id or a counter) and
its fields, where a field that points at another object holds that object's :class:`Ref`. Items come in an order
where every object follows the objects it points at. The folder's ``design.json`` gives the devices, racks,
links, addresses and ASNs of the backend and of the networks beside it, its ``oob.csv`` the management addresses;
its ``intent.yaml`` (with the site catalog the build kept) gives the hardware models and the network OS, and the
device models rebuilt from it give each switch's ports as its OS names them.
A consumer (:mod:`designer.sync.nautobot`) turns the items into its own objects and API calls.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from designer.backend.model import DeviceConfig
from designer.backend.wiring import NONE, Device
from designer.catalog import BESIDE_TRAYS, PART, ManagementSwitchModel
from designer.errors import PrerequisiteError
from designer.intent import Intent
from designer.intent.networks_section import DataNetworkSpec
from designer.intent.nic_names import server_interfaces
from designer.networks.oob import MANAGEMENT_PORT
from designer.outputs.folder import INTENT_FILE
from designer.pipeline import device_models
from designer.readback.built import DESIGN_FILE, Manifest, folder_intent, read_built_design, read_inside, read_manifest
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
    """One interface of a device type: its name on the device's OS, its speed, whether it is virtual, and whether
    it is the device's out-of-band management port."""

    name: str
    speed_gbps: int
    virtual: bool = False
    management: bool = False


def port_names(platform: str, device: DeviceConfig) -> tuple[str, ...]:
    """Every logical port of ``device`` as ``platform`` (a target) names it, in port order (the device model's
    ``os_port_names``, :mod:`designer.backend.port_names`)."""
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
    """The objects of the design built into ``folder`` from ``intent``, whose switch models are ``devices`` (every
    network's): the GPU backend's, and with networks beside it, their switches, storage servers, cables, pools and
    addresses, the servers' ports in every network and the out-of-band addresses of ``oob.csv``."""
    design, manifest, design_sha256 = _built_design(folder, intent)
    name, platform = design["name"], intent.targets[0]
    site = Item("site", (name,), {"description": f"GPU backend fabric {name}, designed by designer"})
    record = f"designer design {name}: design.json sha256 {design_sha256} (designer {design['tool_version']})"
    items: list[Item] = [site, Item("design_record", (name, design_sha256), {"site": site.ref, "text": record})]
    items += _racks(intent, design, site)
    switch_ports = {device.hostname: device for device in devices}
    network_links = design.get("network_links", [])
    oob = _oob_addresses(folder, manifest) if intent.networks.oob else []
    # every device with a place in a rack: the backend's, then the networks' switches and storage servers (their GPU
    # servers are the backend's, listed again there only for their own BGP)
    rows = [*design["devices"], *(row for row in design.get("network_devices", []) if "rack" in row)]
    rows += _part_rows(design["racks"], {row["name"] for row in rows})
    host_loopbacks = {
        row["name"]: row["loopback"] for row in design.get("network_devices", []) if row["role"] == "server"
    }
    names, device_ports, base_ports = _interfaces(intent, platform, rows, switch_ports, network_links, host_loopbacks)
    device_types = _device_types(intent, rows, switch_ports, device_ports, base_ports)
    items += _device_type_items(device_types, platform, rows)
    items += _devices(name, site, platform, rows, device_types, switch_ports)
    links = [*design["links"], *(link for link in network_links if link["z"][0] in names and link["a"][0] in names)]
    items += _cables(name, links, names)
    switches = [row for row in rows if row["name"] in switch_ports]  # the backend's, then the networks' with BGP
    network_pools = _network_pools(design.get("networks", {}))
    namespace_of, namespaces = _namespaces(intent, design, switches, bool(network_pools or network_links or oob))
    design_namespace = Item("namespace", (name,), {})
    items += namespaces.values()
    items += _prefixes(design, namespaces, design_namespace, network_pools)
    items += _link_addresses(name, [*design["links"], *network_links], namespaces, namespace_of, names)
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
    items += [
        _address(design_namespace, f"{address}/32", (name, device), "lo") for device, address in host_loopbacks.items()
    ]
    items += [
        _address(
            design_namespace,
            f"{row['address']}/{row['prefix_length']}",
            (name, row["device"]),
            names[row["device"]][row["port"]],
        )
        for row in oob
        if row["device"] in names
    ]
    items += _routing(name, switches, loopbacks)
    return Inventory(name, design_sha256, tuple(items))


def _built_design(folder: Path, intent: Intent) -> tuple[dict[str, Any], Manifest, str]:
    """The folder's ``design.json``, its manifest and the design's hash, once they are known to be built from
    ``intent`` (else :class:`PrerequisiteError`)."""
    design = read_built_design(folder)
    manifest = read_manifest(folder)
    design_sha256 = manifest.hashes.get(DESIGN_FILE, "")
    if not design_sha256:
        raise PrerequisiteError(f"{folder / 'manifest.json'} lists no {DESIGN_FILE}; rebuild the folder")
    if design["intent_sha256"] != intent.sha256:
        raise PrerequisiteError(f"{folder / DESIGN_FILE} was not built from {folder / INTENT_FILE}; rebuild the folder")
    return design, manifest, design_sha256


def _racks(intent: Intent, design: dict[str, Any], site: Item) -> list[Item]:
    """The racks: the backend's, then those only the networks beside the backend fill (racks.csv has them,
    design.json's racks not)."""
    name = site.key[0]
    racks = [
        Item(
            "rack",
            (name, rack["name"]),
            {"site": site.ref, "units": intent.facility.rack_units, "comments": _system_of(intent, rack)},
        )
        for rack in design["racks"]
    ]
    backend = {rack["name"] for rack in design["racks"]}
    return racks + [
        Item("rack", (name, rack), {"site": site.ref, "units": intent.facility.rack_units, "comments": ""})
        for rack in sorted({row["rack"] for row in design.get("network_devices", []) if "rack" in row} - backend)
    ]


def _interfaces(
    intent: Intent,
    platform: str,
    rows: list[dict[str, Any]],
    switch_ports: dict[str, DeviceConfig],
    network_links: list[dict[str, Any]],
    host_loopbacks: dict[str, str],
) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, Port]], dict[str, tuple[str, ...]]]:
    """Each device's design port names to its OS port names, its interfaces by OS name, and the names of those it
    has in the backend-only design (before the ports of the networks beside the backend)."""
    management = TARGETS[platform].management_port or MANAGEMENT_PORT
    names: dict[str, dict[str, str]] = {}  # device -> design port name -> OS port name
    device_ports: dict[str, dict[str, Port]] = {}  # device -> its interfaces by OS name
    for row in rows:
        names[row["name"]], ports = _own_interfaces(intent, platform, row, switch_ports.get(row["name"]))
        device_ports[row["name"]] = {port.name: port for port in ports}
    base_ports = {device: tuple(ports) for device, ports in device_ports.items()}  # before the networks' ports
    for link in network_links:  # the hosts' ports in every network, and each switch's management port
        for device, port, _ in (link["a"], link["z"]):
            if device not in names or port in names[device]:
                continue  # the core beyond the frontend, or a switch port its model has
            speed = link["speed_gbps"]
            interface = management if device in switch_ports else port
            names[device][port] = interface
            device_ports[device][interface] = Port(interface, speed, management=device in switch_ports)
    for device in host_loopbacks:  # a GPU server that runs BGP in the frontend
        names[device]["lo"] = "lo"
        device_ports[device]["lo"] = Port("lo", 0, virtual=True)
    return names, device_ports, base_ports


def _own_interfaces(
    intent: Intent, platform: str, row: dict[str, Any], switch: DeviceConfig | None
) -> tuple[dict[str, str], list[Port]]:
    """One device's design port names to its OS port names, and its interfaces, in the backend-only design: a
    switch's ports and loopback, an OOB switch's or a system part's management ports, a server's NIC ports."""
    if switch is not None:
        ports = [
            *(Port(port, speed) for port, speed in zip(port_names(platform, switch), _speeds(switch), strict=True)),
            Port(TARGETS[platform].loopback, 0, virtual=True),
        ]
        return dict(zip(switch.port_names, port_names(platform, switch), strict=True)), ports
    if row["role"] in OOB_ROLES:
        ports = _oob_switch_ports(intent, row["role"])
        return {port.name: port.name for port in ports}, ports
    if row["role"] in PART_ROLES:  # an NVLink switch tray or a power shelf: its management ports
        assert intent.system is not None  # only a rack-scale system's rack has parts
        ports = [Port(port, ACCESS_SPEED_GBPS) for port in intent.system.management_ports_of(row["part"])]
        return {port.name: port.name for port in ports}, ports
    # a GPU server (its NIC ports or plane links) or a storage server
    nic_speed = intent.server.nic_speed if row["role"] == "server" else 0
    ports = [Port(nic, nic_speed) for nic in server_interfaces(row)]
    planes = intent.server.ports_per_nic_port if row["role"] == "server" else 1
    return server_port_names(row, planes), ports


def _device_types(
    intent: Intent,
    rows: list[dict[str, Any]],
    switch_ports: dict[str, DeviceConfig],
    device_ports: dict[str, dict[str, Port]],
    base_ports: dict[str, tuple[str, ...]],
) -> dict[str, Item]:
    """Each device's type, with every port any device of the type has."""
    type_of = {row["name"]: _device_type(intent, row, switch_ports.get(row["name"])) for row in rows}
    for row in rows:  # a model with ports in the networks beside the backend: not the backend-only design's type
        extra = sorted(set(device_ports[row["name"]]) - set(base_ports[row["name"]]))
        if extra and row["role"] != "storage":
            (maker, model), units = type_of[row["name"]]
            type_of[row["name"]] = (maker, f"{model} ({', '.join(extra)})"), units
    model_ports: dict[tuple[str, str], dict[str, Port]] = {}  # every port any device of a type has
    for row in rows:
        model_ports.setdefault(type_of[row["name"]][0], {}).update(device_ports[row["name"]])
    return {
        device: Item(
            "device_type",
            key,
            {"manufacturer": Ref("manufacturer", (key[0],)), "units": units, "ports": tuple(model_ports[key].values())},
        )
        for device, (key, units) in type_of.items()
    }


def _device_type_items(device_types: dict[str, Item], platform: str, rows: list[dict[str, Any]]) -> list[Item]:
    """The manufacturers, the platform, the roles and the device types the devices point at."""
    types = {item.key: item for item in device_types.values()}
    return [
        *(Item("manufacturer", (maker,), {}) for maker in sorted({key[0] for key in types})),
        Item("platform", (platform,), {}),
        *(Item("role", (role,), {}) for role in sorted({row["role"] for row in rows})),
        *sorted(types.values(), key=lambda item: item.key),
    ]


def _devices(
    name: str,
    site: Item,
    platform: str,
    rows: list[dict[str, Any]],
    device_types: dict[str, Item],
    switch_ports: dict[str, DeviceConfig],
) -> list[Item]:
    """Every device in its rack, with its type and role (and a switch its platform)."""
    return [
        Item(
            "device",
            (name, row["name"]),
            {
                "site": site.ref,
                "device_type": device_types[row["name"]].ref,
                "role": Ref("role", (row["role"],)),
                "platform": Ref("platform", (platform,)) if row["name"] in switch_ports else None,
                "rack": Ref("rack", (name, row["rack"])),
                "position": row["unit"] or None,  # 0: a system's part where the catalog gives no rack layout
            },
        )
        for row in rows
    ]


def _cables(name: str, links: list[dict[str, Any]], names: dict[str, dict[str, str]]) -> list[Item]:
    """A cable per link, between the OS names of its ends."""
    cables = []
    for link in links:
        (upper, upper_port, _), (lower, lower_port, _) = link["a"], link["z"]
        a, z = (upper, names[upper][upper_port]), (lower, names[lower][lower_port])
        cables.append(Item("cable", (name, *a, *z), {"length_m": link["length_m"], "medium": link["medium"]}))
    return cables


def _namespaces(
    intent: Intent, design: dict[str, Any], switches: list[dict[str, Any]], networks_addressed: bool
) -> tuple[dict[str, str], dict[str, Item]]:
    """The namespace of each switch's addresses, and every namespace used: the backend's switches in the design's
    namespace or their plane's, the networks' in the design's (``networks_addressed``: the networks beside the
    backend have pools, links or out-of-band addresses)."""
    name = design["name"]
    multiplane = intent.server.multiplane
    hwplb = multiplane is not None and multiplane.mode == "hwplb"
    backend_switches = [row for row in design["devices"] if row["role"] != "server"]
    namespace_of = {
        **dict.fromkeys((row["name"] for row in switches), name),
        **switch_namespaces(name, backend_switches, separate_planes=hwplb),
    }
    used = set(namespace_of.values()) | ({name} if networks_addressed else set())
    return namespace_of, {key: Item("namespace", (key,), {}) for key in sorted(used)}


def _prefixes(
    design: dict[str, Any],
    namespaces: dict[str, Item],
    design_namespace: Item,
    network_pools: list[tuple[str, str, str]],
) -> list[Item]:
    """The backend's pools in every namespace, then the pools of the networks beside it in the design's."""
    name, pools = design["name"], design["summary"]["pools"]
    return [
        *(
            Item("prefix", (key, pools[pool]["cidr"]), {"namespace": namespace.ref, "description": f"{key} {pool}"})
            for key, namespace in namespaces.items()
            for pool in sorted(pools)
        ),
        *(
            Item("prefix", (name, cidr), {"namespace": design_namespace.ref, "description": f"{name} {network} {pool}"})
            for network, pool, cidr in network_pools
        ),
    ]


def _link_addresses(
    name: str,
    links: list[dict[str, Any]],
    namespaces: dict[str, Item],
    namespace_of: dict[str, str],
    names: dict[str, dict[str, str]],
) -> list[Item]:
    """The addresses of both ends of every numbered link the design holds an end of."""
    addresses = []
    for link in links:
        if link["subnet"] is None:
            continue  # an unnumbered link: no address on either end
        length = link["subnet"].partition("/")[2]
        # a backend link's upper end is a switch, of the link's plane; a network's link is the design's
        namespace = namespaces[namespace_of.get(link["a"][0], name)]
        for device, port, address in (link["a"], link["z"]):
            if device in names:  # the core's end of a core uplink is the data centre's
                addresses.append(_address(namespace, f"{address}/{length}", (name, device), names[device][port]))
    return addresses


def _routing(name: str, switches: list[dict[str, Any]], loopbacks: dict[str, Item]) -> list[Item]:
    """The switches' ASNs and each switch's BGP routing instance, its router ID its loopback address."""
    return [
        *(Item("autonomous_system", (asn,), {}) for asn in sorted({row["asn"] for row in switches})),
        *(
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
        ),
    ]


OOB_FILE = "oob.csv"
"""The management addresses of a design with an out-of-band network, one per device and port."""
ACCESS_SPEED_GBPS = 1
"""The speed of a management switch's access ports (a BMC's or a switch's management port)."""
OOB_ROLES = ("management", "oob_spine")
"""The roles of the out-of-band network's switches: their configurations are not the design's to render."""
PART_ROLES = frozenset(part.role for part in BESIDE_TRAYS)
"""The roles of the parts of a rack-scale system's rack beside its compute trays (a management switch's is the
out-of-band network's)."""
STORAGE_MAKER = "generic"
"""The maker a storage server's device type is filed under: the design gives its ports, not its model."""


def _device_type(intent: Intent, row: dict[str, Any], switch: DeviceConfig | None) -> tuple[tuple[str, str], int]:
    """The natural key (maker, model) of a device's type and its height in rack units: a switch's catalog model
    (with its breakout), a GPU server's model, an OOB switch's model from the network's spec, a storage server's
    NICs."""
    if switch is not None:
        model = row["model"]
        speeds = _speeds(switch)
        if switch.uplink_breakout != switch.breakout:  # ports of two speeds: how many of each
            model += " " + "+".join(f"{speeds.count(speed)}x{speed}G" for speed in sorted(set(speeds)))
        elif switch.breakout > 1:
            model += f" {switch.breakout}x{speeds[0]}G"
        if "network" in row:  # a switch of a network beside the backend: its leaves' or spines' model
            spec = _network_spec(intent, row["network"])
            units = (spec.spine if row["role"] == "spine" else spec.leaf).rack_units
        else:
            units = getattr(intent, row["role"]).rack_units
        return (manufacturer_of(row["model"]), model), units
    if row["role"] == "server":
        multiplane = intent.server.multiplane
        model = row["model"]
        if multiplane:  # its ports are plane links, named per mode: a type of its own
            model += f" {multiplane.planes}x{intent.server.nic_speed}G {multiplane.mode}"
        return (manufacturer_of(row["model"]), model), intent.server.rack_units
    oob = intent.networks.oob
    management = _management_switch(intent) if row["role"] == "management" else None
    if management is not None:
        return (manufacturer_of(management.name), management.name), management.rack_units
    if row["role"] in PART_ROLES:  # a system's part: NVLink switch tray, power shelf, unnamed switch model
        assert intent.system is not None  # only a rack-scale system's rack has parts
        model = f"{intent.system.name} {PART[row['part']].item}"
        return (manufacturer_of(intent.system.name), model), row["units"] or 1
    if row["role"] == "oob_spine" and oob is not None:
        breakout = oob.spine.breakout(oob.switch.uplink_speed)
        model = oob.spine.model if breakout == 1 else f"{oob.spine.model} {breakout}x{oob.switch.uplink_speed}G"
        return (manufacturer_of(oob.spine.model), model), oob.spine.rack_units
    nodes = _network_spec(intent, row["network"]).storage_nodes
    assert nodes is not None  # a storage server is in a network that declares them
    return (STORAGE_MAKER, f"storage server {nodes.nics}x{nodes.nic_speed}G"), nodes.rack_units


def _speeds(switch: DeviceConfig) -> list[int]:
    """The speed of each logical port of ``switch`` in port order: its downward cages' lanes, then its uplinks'."""
    down = (switch.first_uplink_cage - 1) * switch.breakout
    return [
        switch.port_speed_gbps // (switch.breakout if port < down else switch.uplink_breakout)
        for port in range(len(switch.port_names))
    ]


def _network_spec(intent: Intent, network: str) -> DataNetworkSpec:
    """The spec of the leaf-spine network named ``network``."""
    return next(spec for spec in intent.networks.data_networks if spec.name == network)


def _oob_switch_ports(intent: Intent, role: str) -> list[Port]:
    """Every interface of an out-of-band switch as ``oob.csv`` and the cables name them: a management switch's 1G
    access ports then its uplinks (``swp1`` on), and its management VLAN's interface; an OOB spine's ports broken
    out to the uplinks' speed (``swp1s0``), and its loopback."""
    if role == "management":
        switch = _management_switch(intent)
        if switch is None:  # a system's management switch of a model the catalog does not name
            return []
        return [
            *(Port(f"swp{port}", ACCESS_SPEED_GBPS) for port in range(1, switch.ports + 1)),
            *(
                Port(f"swp{port}", switch.uplink_speed)
                for port in range(switch.ports + 1, switch.ports + switch.uplinks + 1)
            ),
            Port("vlan", 0, virtual=True),
        ]
    oob = intent.networks.oob
    assert oob is not None  # only a design with an OOB network has OOB spines
    switch = oob.switch
    breakout = oob.spine.breakout(switch.uplink_speed)
    lanes = [f"swp{cage}s{lane}" for cage in range(1, oob.spine.ports + 1) for lane in range(breakout)]
    if breakout == 1:
        lanes = [f"swp{cage}" for cage in range(1, oob.spine.ports + 1)]
    return [*(Port(lane, switch.uplink_speed) for lane in lanes), Port("lo", 0, virtual=True)]


def _management_switch(intent: Intent) -> ManagementSwitchModel | None:
    """The model of the racks' management switches: the out-of-band network's, or without one a rack-scale system's
    own (None: the catalog names none)."""
    if intent.networks.oob is not None:
        return intent.networks.oob.switch
    system = intent.system
    return intent.catalog.management_switches.get(system.management_switch) if system is not None else None


def _part_rows(racks: list[dict[str, Any]], listed: set[str]) -> list[dict[str, Any]]:
    """A device row for each part of a rack-scale system's rack (design.json's rack ``parts``) that ``listed`` (the
    devices design.json lists: an out-of-band network's management switches are there) does not hold already."""
    return [
        {**part, "role": PART[part["part"]].role, "rack": rack["name"]}
        for rack in racks
        for part in rack.get("parts", ())
        if part["name"] not in listed
    ]


def _system_of(intent: Intent, rack: dict[str, Any]) -> str:
    """What a rack's comments say of the rack-scale system it holds ("" for any other rack)."""
    if not rack.get("parts") or intent.system is None:
        return ""
    system = rack["parts"][0]["name"].partition("-")[0]
    return f"rack-scale system {system}: one {intent.system.name}"


def _network_pools(networks: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Every pool of the networks beside the backend (design.json's ``networks``): network, pool name and CIDR."""
    pools = []
    for network, summary in sorted(networks.items()):
        if "pool" in summary:  # the out-of-band network: one pool
            pools.append((network, "pool", summary["pool"]))
        pools += [(network, pool, cidr) for pool, cidr in sorted(summary.get("pools", {}).items())]
    return pools


def _oob_addresses(folder: Path, manifest: Manifest) -> list[dict[str, str]]:
    """The rows of the folder's ``oob.csv``: one management address per device and port (:class:`InputError` for a
    file changed since the build)."""
    data = read_inside(folder, (OOB_FILE,))
    manifest.check({OOB_FILE: data})
    return list(csv.DictReader(io.StringIO(data.decode())))


def _address(namespace: Item, address: str, device: tuple[str, str], interface: str) -> Item:
    """An address (with its prefix length) on one interface of a device."""
    return Item(
        "ip_address",
        (namespace.key[0], address),
        {"namespace": namespace.ref, "device": Ref("device", device), "interface": interface},
    )


def server_port_names(row: dict[str, Any], planes: int) -> dict[str, str]:
    """A GPU or storage server's ports in the design's names (``nic0``, or with ``planes`` plane links a NIC port
    ``nic0s1``, as the fabric names them) to its interfaces' (:func:`server_interfaces`)."""
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
        model="",  # naming its ports needs no model (a storage server's row has none)
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

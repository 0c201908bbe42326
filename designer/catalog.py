"""The hardware catalog: switch and server models an intent can name (data in ``catalog.yaml``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from designer.targets import TARGETS

PORT_FIELDS = ("cage", "subport", "lane", "serdes", "link", "twin", "split", "number", "card", "card_port")
"""The fields a port naming pattern may use: the front-panel port (from 1), the link in it (from 0), the port's
first lane the link takes (from 1), the switch's first SerDes lane it takes (from 0), the link in the port again
(from 1), for a twin-port cage (an OSFP cage of two InfiniBand ports) the port of the cage the link is in and the
link in that port (both from 1), the logical port's number on the switch (from 1, in the fabric's port order:
the port number InfiniBand's tools report), and on a chassis the line card's slot and the port on that card (from
1)."""


@dataclass(frozen=True)
class PortNaming:
    """How a network OS names the front-panel ports of a switch: ``whole`` for a port run as one link,
    ``broken_out`` for each link of a port split into several, and ``split`` (when given) for each link of a
    twin-port cage split into more than two, as ``str.format`` patterns of the fields :data:`PORT_FIELDS`; on a
    chassis, ``card_ports`` ports to a line card, the first in slot ``first_card``."""

    whole: str
    broken_out: str
    split: str = ""
    card_ports: int = 0
    """Front-panel ports of one line card (0: not a chassis; {card} is then 1 and {card_port} the port)."""
    first_card: int = 1
    """The slot number of the first line card."""

    def name(self, cage: int, link: int, breakout: int, lanes: int, serdes: int, number: int) -> str:
        """The name of link ``link`` (from 0) of physical port ``cage`` (from 0) broken out ``breakout`` ways, the
        link taking ``lanes`` SerDes lanes from the switch's lane ``serdes``; ``number`` is the logical port's place
        on the switch (from 0)."""
        pattern = self.whole if breakout == 1 else self.split if self.split and breakout > 2 else self.broken_out
        per_twin = max(1, breakout // 2)
        card, card_port = divmod(cage, self.card_ports) if self.card_ports else (0, cage)
        return pattern.format(
            cage=cage + 1,
            subport=link,
            lane=link * lanes + 1,
            serdes=serdes,
            link=link + 1,
            twin=link // per_twin + 1,
            split=link % per_twin + 1,
            number=number + 1,
            card=self.first_card + card,
            card_port=card_port + 1,
        )


@dataclass(frozen=True)
class SwitchModel:
    """A switch as the catalog knows it; ``port_names`` is how an OS names its ports where this platform differs
    from the OS's own rule (the target's ``port_names``), by OS."""

    name: str
    ports: int
    speed: int
    rack_units: int
    power_w: int
    power_w_optics: int
    port_names: dict[str, PortNaming] = field(default_factory=dict)
    technology: str = "ethernet"
    """The fabric it switches: ``ethernet`` or ``infiniband``."""
    link_speeds: tuple[int, ...] = ()
    """The link speeds (Gb/s) its ports run at, where it runs fewer than its ports' breakouts give (empty: any)."""
    line_card_ports: int = 0
    """On a chassis, the front-panel ports of one line card (0: a fixed switch)."""
    first_line_card: int = 1
    """On a chassis, the slot number of its first line card."""
    hash_line_unknown: tuple[str, ...] = ()
    """The OSes whose hash-field line for this platform no source at hand gives: their configurations write none."""
    power_estimated: bool = False
    """Its power figures are planning estimates: the vendor's published ones could not be cited (summary.md says
    so for a design that uses it)."""


@dataclass(frozen=True)
class Prices:
    """A site's unit prices of the parts a bill of materials lists (switch, server and management switch models,
    transceivers, cables), by the item's name in ``bom.csv``, in one currency. Prices are the site's data: the
    shipped catalog has none."""

    currency: str
    items: dict[str, float]

    def cost(self, counts: Iterable[tuple[str, int]]) -> tuple[float, tuple[str, ...]]:
        """The cost of ``counts`` (item, count) at these prices, and the items without a price, sorted."""
        unpriced = sorted({item for item, _ in counts if item not in self.items})
        return sum(self.items.get(item, 0.0) * count for item, count in counts), tuple(unpriced)


@dataclass(frozen=True)
class ManagementSwitchModel:
    """A management switch as the catalog knows it: 1G access ports (management ports, BMCs) and fast uplinks."""

    name: str
    ports: int
    uplinks: int
    uplink_speed: int
    rack_units: int
    power_w: int


@dataclass(frozen=True)
class ServerModel:
    """A GPU server as the catalog knows it."""

    name: str
    gpus: int
    nics: int
    nic_speed: int
    planes: int
    power_kw: float
    rack_units: int
    nic_names: tuple[str, ...] = ()
    """The backend NIC ports' Linux interface names in NIC order (empty: the catalog does not know them)."""
    rdma_devices: tuple[str, ...] = ()
    """The backend NIC ports' RDMA device names in NIC order."""
    nic_modes: tuple[str, ...] = ()
    """Load-balancing modes the backend NICs take part in beyond hashing, where they differ from the NIC model's
    ``modes`` (empty: the NIC model's)."""
    nic: str | None = None
    """The backend NIC model it ships with (the catalog's ``nics``), None when the catalog does not know it."""
    nic_options: tuple[str, ...] = ()
    """Other NIC models it can be ordered with (``compute.nic`` picks one)."""
    nvlink_gbyte_s: float | None = None
    """Scale-up (NVLink) bandwidth per GPU and direction inside the server, GB/s (None: not known)."""
    cooling: str | None = None
    """``liquid`` when the server must be liquid cooled (None: either)."""
    multiplane: int = 1
    """Planes each backend NIC port serves on an Ethernet fabric unless ``compute.multiplane`` says otherwise (1: a
    port serves one plane; more: ``nics`` counts physical ports, each split over that many planes, hwplb)."""
    cages: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """The backend cages of its panel as (name, the NIC ports in it from its first half on, counted from 0 in NIC
    order); empty: one cage per NIC port, named as the design names the port."""
    cage_module: str = ""
    """The form of the modules and cable ends its cages take (``flat-top``), named in the bill of materials; empty:
    not known (a switch takes finned-top ones)."""


@dataclass(frozen=True)
class NicModel:
    """A backend NIC: its vendor, ports and speed, the planes one port can serve and the host modes for several,
    its Linux driver and RDMA device names, how its RoCE QoS is set on the host, and where that comes from."""

    name: str
    vendor: str
    label: str
    ports: int
    speed: int
    planes: tuple[int, ...]
    driver: str
    rdma_names: str
    """The RDMA device naming pattern, ``{}`` counting from 0 (``mlx5_{}``)."""
    host_qos: str
    """``mlnx_qos`` (designer writes nic-qos.sh) or ``vendor`` (the vendor's own tools, not written)."""
    qos_tools: str
    source: str
    plane_modes: tuple[str, ...] = ()
    modes: tuple[str, ...] = ()
    """Load-balancing modes it takes part in beyond hashing (``adaptive``, ``spray``)."""


@dataclass(frozen=True)
class SystemModel:
    """A rack-scale system: one rack of compute trays (each a server of the fabric), NVLink switch trays, power
    shelves and management switches, one NVLink domain, its maximum power with the source of that figure."""

    name: str
    trays: int
    tray_gpus: int
    tray_nics: int
    nic: str
    nic_speed: int
    planes: int
    north_south_nics: int
    north_south_nic: str
    tray_rack_units: int
    nvlink_switch_trays: int
    power_shelves: int
    management_switches: int
    power_kw: float
    power_source: str
    cooling: str
    nvlink_gbyte_s: float
    multiplane: tuple[int, ...] = ()
    """Plane counts one of its scale-out NIC ports may serve in this system (``compute.multiplane.planes``; empty:
    whatever the NIC's catalog entry allows)."""
    rack_layout: tuple[tuple[str, int, int], ...] = ()
    """What the rack holds from its top unit down, as (part, how many, rack units of one), the parts of
    :data:`SYSTEM_PARTS` (empty: the catalog does not know where they stand; the trays stack from the bottom)."""
    rack_layout_source: str = ""
    management_switch: str = ""
    """The model of the rack's own management switches (a catalog management switch; empty: not named)."""
    management_ports: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Each part's management ports as (part of :data:`SYSTEM_PARTS`, port names), cabled to the rack's own
    management switches by an out-of-band network."""
    cages: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """A compute tray's scale-out cages as (name, the NIC ports in it, from 0); empty: one cage per NIC port."""
    vendor_su: int = 0
    """Systems of the scalable unit its vendor's reference architecture names (NVIDIA's DGX SuperPOD: 8 NVL72
    racks), shown beside designer's scalable units (leaf groups); 0: none given."""
    vendor_su_source: str = ""
    """The reference architecture that names ``vendor_su``."""
    cage_module: str = ""
    """The form of the modules its cages take (empty: not known)."""

    @property
    def gpus(self) -> int:
        """GPUs of the whole system: its NVLink domain."""
        return self.trays * self.tray_gpus

    def management_ports_of(self, part: str) -> tuple[str, ...]:
        """The management ports of one ``part`` (:data:`SYSTEM_PARTS`), none when the catalog gives none."""
        return dict(self.management_ports).get(part, ())

    def rack_units(self) -> int:
        """Rack units the system takes: its layout's, else its compute trays' alone."""
        if self.rack_layout:
            return sum(count * units for _, count, units in self.rack_layout)
        return self.trays * self.tray_rack_units

    def units(self, top: int) -> dict[str, tuple[tuple[int, int], ...]]:
        """Each part's lowest rack unit and height, per part in its order from the top of a rack whose top unit is
        ``top``, stacked down the layout without gaps (empty without a layout)."""
        placed: dict[str, list[tuple[int, int]]] = {}
        for part, count, units in self.rack_layout:
            for _ in range(count):
                top -= units
                placed.setdefault(part, []).append((top + 1, units))
        return {part: tuple(spots) for part, spots in placed.items()}


@dataclass(frozen=True)
class PartKind:
    """One kind of part of a rack-scale system's rack: every name it goes by."""

    kind: str
    """Its name in the catalog's ``rack_layout`` and ``management_ports``."""
    count: str
    """The system's field counting it."""
    item: str
    """One of it, after the system's name, as bom.csv orders it (``gb300-nvl72 power shelf``)."""
    words: str
    """Several of it, as power.md says."""
    short: str
    """What its ones are called in the rack, ``sys<s>-<short><k>`` (k from the top)."""
    role: str
    """Its role in a source of truth."""
    managed: bool = True
    """Whether its management ports are cabled to the rack's management switches (a management switch's are not)."""


PART_KINDS = (
    PartKind("compute_tray", "trays", "compute tray", "compute trays", "tray", "server"),
    PartKind(
        "nvlink_switch_tray",
        "nvlink_switch_trays",
        "NVLink switch tray",
        "NVLink switch trays",
        "nvswitch",
        "nvlink_switch_tray",
    ),
    PartKind("power_shelf", "power_shelves", "power shelf", "power shelves", "powershelf", "power_shelf"),
    PartKind(
        "management_switch",
        "management_switches",
        "management switch",
        "management switches",
        "mgmt",
        "management",
        managed=False,
    ),
)
"""Every kind of part a rack-scale system's rack holds, the compute trays first: a new kind is one more record."""
PART = {part.kind: part for part in PART_KINDS}
"""Each kind of part by its name in the catalog."""
BESIDE_TRAYS = PART_KINDS[1:]
"""The kinds of part a system's rack holds beside its compute trays."""
SYSTEM_PARTS = {part.kind: part.count for part in PART_KINDS}
"""The parts of a rack-scale system's rack as its ``rack_layout`` names them, and the field counting each."""


@dataclass(frozen=True)
class MediumModel:
    """A cable or optic family: its reach by link speed and its power by port speed."""

    name: str
    label: str
    optical: bool
    reach_m: dict[int | str, float]
    power_w: dict[int, float]

    def reach_at(self, speed: int) -> float:
        """Longest run in metres at ``speed`` Gb/s."""
        return self.reach_m.get(speed, self.reach_m["default"])


@dataclass(frozen=True)
class Balancing:
    """What one network OS can say about load balancing: modes, hash choices and seed rules (the intent's
    words), the seeds it takes (``None``: designer writes no seed, the OS picks its own), and per mode the switch
    models that run it and the link speeds it runs at (a mode absent there needs nothing of the switch)."""

    modes: tuple[str, ...]
    hashes: tuple[str, ...]
    seeds: tuple[str, ...]
    seed_range: tuple[int, int] | None
    platforms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    speeds: dict[str, tuple[int, ...]] = field(default_factory=dict)

    def runs(self, mode: str, models: set[str], speed: int | None) -> bool:
        """Whether this OS runs ``mode`` on every switch of ``models`` at link ``speed`` Gb/s (None: not known)."""
        return (
            mode in self.modes
            and (mode not in self.platforms or models <= set(self.platforms[mode]))
            and (speed is None or mode not in self.speeds or speed in self.speeds[mode])
        )


@dataclass(frozen=True)
class TargetModel:
    """What one network OS's configuration can express (``None``: no known limit)."""

    name: str
    max_ecmp_paths: int | None
    max_mtu: int
    min_pfc_watchdog_ms: int | None
    port_names: PortNaming
    """How the OS names a switch's ports, unless the switch model says otherwise (:meth:`Catalog.port_naming`)."""
    pfc_watchdog_poll_ms: tuple[int, int] | None = None
    """Shortest and longest PFC watchdog polling interval, when the OS configures polls rather than times."""
    pfc_watchdog_polls: tuple[int, int] | None = None
    """Fewest and most polls of a paused queue before the watchdog declares a storm."""
    releases: tuple[str, ...] = ()
    """Releases whose syntax the configurations can be written in, oldest first (empty: one syntax)."""
    default_release: str | None = None
    bfd_interval_ms: dict[str, list[int]] | None = None
    """Shortest and longest BFD interval from each listed release on (None: no limit beyond the intent's)."""

    def bfd_range(self, release: str | None) -> tuple[int, int] | None:
        """The BFD interval range of ``release`` (default: the default release), None when there is no limit."""
        if not self.bfd_interval_ms:
            return None
        position = self.releases.index(release or self.default_release or self.releases[-1])
        first = max(
            (since for since in self.bfd_interval_ms if self.releases.index(since) <= position), key=self.releases.index
        )
        low, high = self.bfd_interval_ms[first]
        return low, high

    load_balancing: Balancing = Balancing(("ecmp",), ("five-tuple",), ("per-tier",), None)
    underlays: tuple[str, ...] = ("numbered",)
    """The underlays (``routing.underlay``) its configuration can express on the site's platforms."""

    @property
    def label(self) -> str:
        """The OS's name in messages: its record's (:mod:`designer.targets`)."""
        return TARGETS[self.name].label


@dataclass(frozen=True)
class ExtraPort:
    """A SONiC port beyond the front cages (a management-speed port): name, SerDes lanes, alias, index, Gb/s."""

    name: str
    lanes: tuple[int, ...]
    alias: str
    index: int
    speed: int


Lookup = dict[int, dict[int, tuple[int, int, int]]]
"""A vendor's PFC headroom lookup: speed (Gb/s) -> cable length (m) -> (size, xon, xoff) in bytes."""


@dataclass(frozen=True)
class SonicSku:
    """One SONiC SKU of a switch: the port layout it loads (breakout, port speed in Gb/s), the ports' autoneg
    (None: the SKU sets none) and the buffer pool sizes in bytes of SONiC's buffer templates by topology.
    ``shared_headroom`` is the lossless pool's xoff by topology when the SKU uses the shared-headroom layout (None:
    separate lossy pool); ``headroom`` the SKU's own lookup (None: the switch's)."""

    hwsku: str
    breakout: int
    speed: int
    autoneg: str | None
    pools: dict[str, dict[str, int]]
    shared_headroom: dict[str, int] | None = None
    headroom: Lookup | None = None


@dataclass(frozen=True)
class SonicFacts:
    """A switch as its vendor's SONiC device files describe it."""

    platform: str
    cages: int
    alias_prefix: str
    extra_ports: tuple[ExtraPort, ...]
    skus: tuple[SonicSku, ...]

    def fitting(self, cages: int, breakout: int, speed: int) -> tuple[SonicSku, ...]:
        """The SKUs that run ``cages`` cages at ``breakout`` ports of ``speed`` Gb/s each, the default first."""
        return tuple(sku for sku in self.skus if (self.cages, sku.breakout, sku.speed) == (cages, breakout, speed))

    def sku(self, cages: int, breakout: int, speed: int, hwsku: str | None = None) -> SonicSku | None:
        """The SKU a switch of that port layout runs: ``hwsku`` when it fits, else the layout's default, if the
        vendor ships one."""
        fitting = self.fitting(cages, breakout, speed)
        return next((sku for sku in fitting if sku.hwsku == hwsku), fitting[0] if fitting else None)


@dataclass(frozen=True)
class SwitchFacts:
    """Vendor facts of one catalog switch: the ASIC's PFC headroom lookup, speed (Gb/s) -> cable length (m) ->
    (size, xon, xoff) in bytes, and what SONiC's device files say about it."""

    model: str
    headroom: Lookup
    sonic: SonicFacts


@dataclass(frozen=True)
class Catalog:
    """All known models, by name; target OSes; media shortest reach first; facility defaults; cable lengths;
    vendor facts of the switches that have them."""

    switches: dict[str, SwitchModel]
    servers: dict[str, ServerModel]
    nics: dict[str, NicModel]
    systems: dict[str, SystemModel]
    media: dict[str, MediumModel]
    targets: dict[str, TargetModel]
    facility: dict[str, Any]
    cable_lengths_m: tuple[float, ...]
    switch_facts: dict[str, SwitchFacts]
    management_switches: dict[str, ManagementSwitchModel] = field(default_factory=dict)
    """Management switches of the out-of-band network, by name."""
    prices: Prices | None = None
    """The site's unit prices (site catalogs' ``prices``; None: no prices, and no cost is ever reported)."""

    def port_naming(self, target: str, model: str) -> PortNaming:
        """How ``target`` names the ports of switch ``model``: the model's own rule for it, else the target's (a
        subnet manager, which has no catalog entry, its record's: the ports' numbers)."""
        known = self.switches.get(model)
        naming = (
            known.port_names[target]
            if known and target in known.port_names
            else self.targets[target].port_names
            if target in self.targets
            else PortNaming(TARGETS[target].port_names[0], TARGETS[target].port_names[1])
        )
        return replace(naming, card_ports=known.line_card_ports, first_card=known.first_line_card) if known else naming


def shipped_data(name: str) -> Any:
    """A YAML data file shipped in the package (``catalog.yaml``, ``qos_profiles.yaml``), read with libyaml's
    parser where PyYAML has it (these files are ours: no line numbers are needed)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load((Path(__file__).parent / name).read_text(), Loader=loader)


def shipped_catalog_data() -> dict[str, Any]:
    """The shipped catalog's data: ``catalog.yaml``, with each target card's ``capabilities`` as its ``targets``
    entry (:mod:`designer.targets`)."""
    capabilities = {name: target.capabilities for name, target in TARGETS.items() if target.capabilities}
    return {**shipped_data("catalog.yaml"), "targets": capabilities}


@cache
def catalog() -> Catalog:
    """The shipped catalog, read once."""
    return make_catalog(shipped_catalog_data())


def make_catalog(data: dict[str, Any]) -> Catalog:
    """A catalog from data in ``catalog.yaml``'s format (the shipped file, or it overlaid by site catalogs)."""
    return Catalog(
        switches={
            name: SwitchModel(
                name,
                **{
                    **fields,
                    "link_speeds": tuple(fields.get("link_speeds", ())),
                    "hash_line_unknown": tuple(fields.get("hash_line_unknown", ())),
                    "port_names": {
                        target: PortNaming(**naming) for target, naming in fields.get("port_names", {}).items()
                    },
                },
            )
            for name, fields in sorted(data["switches"].items())
        },
        servers={
            name: ServerModel(name, **{**_lists_as_tuples(fields), "cages": _cages(fields)})
            for name, fields in sorted(data["servers"].items())
        },
        nics={name: NicModel(name, **_lists_as_tuples(fields)) for name, fields in sorted(data["nics"].items())},
        systems={
            name: SystemModel(
                name,
                **{
                    **_lists_as_tuples(fields),
                    "rack_layout": tuple(tuple(block) for block in fields.get("rack_layout", ())),
                    "management_ports": tuple(
                        (part, tuple(ports)) for part, ports in fields.get("management_ports", {}).items()
                    ),
                    "cages": _cages(fields),
                },
            )
            for name, fields in sorted(data["systems"].items())
        },
        media={name: MediumModel(name, **fields) for name, fields in data["media"].items()},
        targets={
            name: TargetModel(
                name,
                **_tuples(fields),
                port_names=PortNaming(port_names["whole"], port_names["broken_out"], port_names.get("split", "")),
                load_balancing=_balancing(balancing),
            )
            for name, (fields, balancing, port_names) in (
                (name, _split(fields)) for name, fields in data["targets"].items()
            )
        },
        facility=data["facility"],
        cable_lengths_m=tuple(data["cable_lengths_m"]),
        switch_facts={name: _switch_facts(name, fields) for name, fields in sorted(data["switch_facts"].items())},
        management_switches={
            name: ManagementSwitchModel(name, **fields)
            for name, fields in sorted(data.get("management_switches", {}).items())
        },
        prices=Prices(data["prices"]["currency"], dict(sorted(data["prices"]["items"].items())))
        if data.get("prices")
        else None,
    )


ENTRIES = ("switches", "servers", "nics", "systems", "media", "targets")
"""The sections of a catalog whose entries a site catalog adds or overrides by name."""


def laid_over(data: dict[str, Any], site: dict[str, Any]) -> dict[str, Any]:
    """``data`` (catalog.yaml's format, or a site catalog) with a site catalog's entries laid over it: a new entry is
    added, an entry of the same name keeps the fields the site leaves out and takes those it gives (a target's
    ``load_balancing`` field by field too); ``facility`` defaults field by field; ``prices`` take the later currency
    and add or override prices item by item."""
    merged = dict(data)
    for section in (*ENTRIES, "facility", "prices"):
        if section not in site:
            continue
        if section == "facility":
            merged[section] = {**data.get(section, {}), **site[section]}
            continue
        if section == "prices":
            earlier = data.get(section) or {"items": {}}
            merged[section] = {**site[section], "items": {**earlier["items"], **site[section]["items"]}}
            continue
        entries = dict(data.get(section, {}))
        for name, fields in site[section].items():
            entry = {**entries.get(name, {}), **fields}
            if "load_balancing" in fields and "load_balancing" in entries.get(name, {}):
                entry["load_balancing"] = {**entries[name]["load_balancing"], **fields["load_balancing"]}
            entries[name] = entry
        merged[section] = entries
    return merged


def overlaid(data: dict[str, Any], site: dict[str, Any]) -> dict[str, Any]:
    """The shipped catalog's ``data`` with the site's entries laid over it (:func:`laid_over`), media in order of
    their default reach, shortest first (a link takes the first medium that reaches far enough)."""
    merged = laid_over(data, site)
    merged["media"] = dict(sorted(merged["media"].items(), key=lambda item: item[1]["reach_m"]["default"]))
    return merged


def _split(fields: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    """A target's fields without its ``load_balancing`` and ``port_names`` mappings, and those mappings."""
    rest = {key: value for key, value in fields.items() if key not in ("load_balancing", "port_names")}
    return rest, fields["load_balancing"], fields["port_names"]


def _balancing(fields: dict[str, Any]) -> Balancing:
    """A target's ``load_balancing`` entry, lists as tuples."""
    per_mode = {
        key: {mode: tuple(values) for mode, values in fields.get(key, {}).items()} for key in ("platforms", "speeds")
    }
    return Balancing(**{**_tuples(fields), **per_mode})


def _tuples(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` with every list as a tuple (catalog models are frozen)."""
    return {key: tuple(value) if isinstance(value, list) else value for key, value in fields.items()}


def _switch_facts(model: str, fields: dict[str, Any]) -> SwitchFacts:
    sonic = fields["sonic"]
    return SwitchFacts(
        model=model,
        headroom=_lookup(fields["headroom"]),
        sonic=SonicFacts(
            platform=sonic["platform"],
            cages=sonic["cages"],
            alias_prefix=sonic["alias_prefix"],
            extra_ports=tuple(ExtraPort(**{**port, "lanes": tuple(port["lanes"])}) for port in sonic["extra_ports"]),
            skus=tuple(
                SonicSku(**{**sku, "headroom": _lookup(sku["headroom"]) if "headroom" in sku else None})
                for sku in sonic["skus"]
            ),
        ),
    )


def _lookup(table: dict[int, dict[int, list[int]]]) -> Lookup:
    """A headroom lookup as the catalog writes it, with (size, xon, xoff) tuples."""
    return {speed: {cable: (row[0], row[1], row[2]) for cable, row in rows.items()} for speed, rows in table.items()}


def _lists_as_tuples(fields: dict[str, Any]) -> dict[str, Any]:
    """A catalog entry's fields with its lists made tuples, as a frozen model holds them."""
    return {key: tuple(value) if isinstance(value, list) else value for key, value in fields.items()}


def _cages(fields: dict[str, Any]) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """A server's or system's ``cages`` mapping (cage name -> its NIC ports) as (name, ports) pairs, in the order
    the catalog lists them."""
    return tuple((name, tuple(ports)) for name, ports in fields.get("cages", {}).items())

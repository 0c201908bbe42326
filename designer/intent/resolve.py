"""Load an intent file into a fully specified :class:`Intent`, or explain everything wrong with it.

Loading runs in three passes: safe YAML with line numbers, pydantic for types and known keys, then
the cross-field rules below (catalog defaults, divisibility, speeds and breakout, pool overlaps).
Each pass reports every problem it finds and leaves the values in error out (their defaults stand
in), so the next pass still runs every rule whose inputs are sound: one run reports everything.
Later stages receive an ``Intent`` whose every field is set.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import math
import types
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

from netaddr import IPNetwork
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from designer.catalog import Catalog, NicModel, ServerModel, SystemModel
from designer.errors import InputError, Path, Problem, Source
from designer.intent.checks_section import CheckLimits, check_limits
from designer.intent.compute_section import (
    ComputeDoc,
    FabricChoices,
    FabricDoc,
    MultiplaneDoc,
    SwitchDoc,
    fabric_choices,
)
from designer.intent.configs import (
    BalancingSpec,
    QosSpec,
    balancing_problems,
    balancing_spec,
    bfd_problems,
    resolve_qos,
    routing_problems,
    sku_problems,
    target_problems,
    underlay_problems,
)
from designer.intent.facility import Facility, FacilityNeeds, facility_problems, resolve_facility
from designer.intent.fields import MAX_BREAKOUT, MAX_GPUS, MAX_RADIX, SPEEDS, private_asns
from designer.intent.hosts_section import HostSpec, resolve_hosts
from designer.intent.lab_section import LabSpec, resolve_lab
from designer.intent.networks_section import Networks, resolve_networks
from designer.intent.outputs_section import OutputChoices, output_choices
from designer.intent.routing_section import (
    AddressingDoc,
    AddressPools,
    RoutingDoc,
    RoutingSpec,
    address_pools,
    routing_spec,
)
from designer.intent.schema import IntentDoc
from designer.intent.site_catalog import SiteCatalogs, site_catalogs
from designer.intent.switch_spec import SWITCH_TIERS, SwitchSpec
from designer.intent.target_options_section import TargetOptions, TargetOptionsDoc, target_options
from designer.intent.technology import (
    chassis_naming_problems,
    default_targets,
    link_speed_problems,
    technology_problems,
)
from designer.intent.workloads_section import Workload, resolve_workloads
from designer.intent.yaml_source import decode, load_yaml, read_bytes, short
from designer.targets import per_fabric, per_switch

MAX_UNKNOWN_KEYS = 50
"""Unknown keys reported one by one; the rest are counted."""


@dataclass(frozen=True)
class Multiplane:
    """One backend NIC port serving several planes (``compute.multiplane``)."""

    planes: int
    mode: str
    """``hwplb``: the NIC balances the planes, one interface and address per rail (the same /31 in every plane);
    ``swplb``: one interface and address per plane, NCCL balances them."""
    port_speed: int
    """Gb/s of the physical port; each plane's link runs at ``port_speed / planes``."""


@dataclass(frozen=True)
class ServerSpec:
    """One GPU server, every field known."""

    model: str
    gpus: int
    nics: int
    nic_speed: int
    power_kw: float
    rack_units: int
    nic_modes: tuple[str, ...] = ()
    """Load-balancing modes its backend NICs take part in beyond hashing (catalog ``nic_modes``)."""
    nic: str | None = None
    """Its backend NIC model (the catalog's ``nics``; None: not known, a custom server)."""
    nvlink_gbyte_s: float | None = None
    """Scale-up (NVLink) bandwidth per GPU and direction in its NVLink domain, GB/s (None: not known)."""
    multiplane: Multiplane | None = None
    """Each physical NIC port serves several planes: ``nics`` counts one port per plane (the fabric's server
    ports) and ``nic_speed`` is the plane speed; None: one plane per port."""

    cages: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """Its backend cages as (name, the physical NIC ports in it from its first half on, from 0); empty: one cage per
    NIC port, named as the design names the port."""
    cage_module: str = ""
    """The form of the modules its cages take (``flat-top``; empty: not known)."""

    @property
    def ports_per_nic_port(self) -> int:
        """Server ports (plane links) of one physical NIC port: its planes, 1 without multiplane."""
        return self.multiplane.planes if self.multiplane else 1

    def cage_places(self) -> tuple[tuple[int, int, int], ...]:
        """Each server port's (cage from 0, half from 0, links of that cage), in the fabric's port order: port ``i``
        is plane link ``i // n`` of physical NIC port ``i % n`` (``n`` physical NIC ports), and a cage's halves are
        its NIC ports' plane links in order."""
        per_port = self.ports_per_nic_port
        physical = self.nics // per_port
        where = {
            port: (cage, place, len(ports))
            for cage, (_, ports) in enumerate(self.cages)
            for place, port in enumerate(ports)
        }
        places = []
        for port in range(self.nics):
            nic, lane = port % physical, port // physical
            cage, place, ports = where.get(nic, (nic, 0, 1))
            places.append((cage, place * per_port + lane, ports * per_port))
        return tuple(places)

    @property
    def cage_links(self) -> int:
        """The most links one cage carries (1: every cage a single link)."""
        return max((links for _, _, links in self.cage_places()), default=1)

    def cage_names(self, design_names: tuple[str, ...]) -> tuple[str, ...]:
        """Each server port's cage and half as the panel names them (``OSFP4P2``), or its name in the design
        (``design_names``, by port) where the catalog names no cage."""
        if not self.cages:
            return design_names
        return tuple(
            f"{self.cages[cage][0]}P{half + 1}" if links > 1 else self.cages[cage][0]
            for cage, half, links in self.cage_places()
        )


@dataclass(frozen=True)
class Intent:
    """A validated intent with catalog defaults applied; what every later stage reads."""

    name: str
    description: str
    servers: int
    server: ServerSpec
    planes: int
    tiers: str | int
    leaf: SwitchSpec
    spine: SwitchSpec
    super_spine: SwitchSpec
    addressing: AddressPools
    routing: RoutingSpec
    targets: tuple[str, ...]
    target_options: TargetOptions
    qos: QosSpec
    load_balancing: BalancingSpec
    """How the switches spread flows: ECMP hash fields and seeds, or dynamic load balancing."""
    facility: Facility
    checks: CheckLimits
    hosts: HostSpec
    """The server files' format and the backend NICs' names (``hosts``)."""
    lab: LabSpec | None
    """The containerlab export's kind and image (``lab``); None: the build writes no ``lab/``."""
    outputs: OutputChoices
    """Which optional parts a build writes: the server files, the lab (``outputs``)."""
    source: Source
    sha256: str
    text: str
    """The intent file as read: its UTF-8 encoding is the file's bytes (those ``sha256`` hashes)."""
    max_servers: int
    """The envelope: the servers the fabric is planned for (``growth``); ``servers`` when the intent has none."""
    workloads: tuple[Workload, ...] = ()
    """Training jobs to analyze on the fabric (``designer analyze``), each alone on an idle fabric."""
    system: SystemModel | None = None
    """The rack-scale system the servers are the compute trays of (``compute.system``), None for servers."""
    catalogs: SiteCatalogs = dataclasses.field(default_factory=SiteCatalogs.shipped, compare=False)
    """The catalog the intent designs with (the shipped one overlaid by its site catalogs) and what made it."""
    choices: FabricChoices = dataclasses.field(default_factory=FabricChoices)
    """The architect's choices of the fabric's shape (``fabric.leaf.uplinks``, ``fabric.spine.count``,
    ``fabric.super_spine.count``, ``fabric.servers_per_su``)."""
    technology: str = "ethernet"
    """The fabric's technology (``fabric.technology``): ``ethernet`` or ``infiniband``."""
    subnet_managers: tuple[str, ...] = ()
    """The targets that configure the fabric as a whole (an InfiniBand fabric's ``opensm``); ``targets`` holds
    only the network OSes, which write a configuration per switch."""
    targets_named: bool = dataclasses.field(default=True, compare=False)
    """Whether the intent names its ``targets`` (False: it took the default cards of its technology)."""
    networks: Networks = dataclasses.field(default_factory=Networks)
    """The networks beside the backend (frontend, storage, in-band, out-of-band) and every switch's management
    side; none declared: the backend alone."""

    @property
    def catalog(self) -> Catalog:
        """The hardware catalog of this design: the shipped catalog with the intent's site catalogs laid over it."""
        return self.catalogs.catalog

    @property
    def gpus(self) -> int:
        return self.servers * self.server.gpus

    @property
    def servers_per_system(self) -> int:
        """Servers (compute trays) of one system, its NVLink (scale-up) domain: 1 without a rack-scale system."""
        return self.system.trays if self.system else 1

    @property
    def systems(self) -> int:
        """Rack-scale systems built now (servers without one)."""
        return self.servers // self.servers_per_system

    @property
    def rails(self) -> int:
        """NIC ports per server in one plane: one rail each."""
        return self.server.nics // self.planes

    @property
    def link_speeds(self) -> tuple[int, int, int]:
        """Gb/s of the server-leaf, leaf-spine and spine-super-spine links: the NIC speed, then each tier's
        ``uplink_speed`` (default: the speed of the links below it)."""
        return tier_speeds(self.server.nic_speed, self.leaf, self.spine)

    def switch(self, role: str) -> SwitchSpec:
        """The hardware of the switches of ``role`` (``leaf``, ``spine`` or ``super_spine``)."""
        return {"leaf": self.leaf, "spine": self.spine, "super_spine": self.super_spine}[role]


def host_interfaces(server: ServerSpec) -> int:
    """Backend interfaces of one server: one per port and plane, but one per rail (physical port) with hwplb."""
    if server.multiplane and server.multiplane.mode == "hwplb":
        return server.nics // server.multiplane.planes
    return server.nics


def tier_speeds(nic_speed: int, leaf: SwitchSpec, spine: SwitchSpec) -> tuple[int, int, int]:
    """Gb/s of the server-leaf, leaf-spine and spine-super-spine links (see :attr:`Intent.link_speeds`)."""
    leaf_spine = leaf.uplink_speed or nic_speed
    return nic_speed, leaf_spine, spine.uplink_speed or leaf_spine


@dataclass(frozen=True)
class Loaded:
    """What loading an intent found: every problem, and the intent whenever its fabric can be sized.

    ``intent`` is set even when other problems exist (a pool overlap, a QoS rule), so that the later
    input rules (sizing limits, pool sizes) can still be checked and reported in the same run.
    """

    intent: Intent | None
    problems: tuple[Problem, ...]
    source: Source
    broken: frozenset[Path]
    """Field paths whose value was in error; their defaults stood in, and the rules reading them were skipped."""

    def intact(self, path: Path) -> bool:
        """Whether the value at ``path`` was read as written (no problem on, above or below it)."""
        return _intact(self.broken, path)


def read_intent(path: str | FilePath, raw: bytes | None = None, catalogs: SiteCatalogs | None = None) -> Loaded:
    """Read an intent file (or take its bytes, ``raw``, already read) and check every rule that does not need the
    sized fabric, collecting problems. The site catalogs it names are read relative to ``path``, unless
    ``catalogs`` gives them already (a built folder's: the entries its build wrote beside its intent.yaml).

    Raises :class:`InputError` only when the file cannot be read or is not YAML at all.
    """
    raw = read_bytes(FilePath(path)) if raw is None else raw
    return _load(decode(raw, str(path)), str(path), hashlib.sha256(raw).hexdigest(), catalogs)


def parse_intent(text: str, filename: str = "<intent>", sha256: str | None = None) -> Intent:
    """Validate and resolve intent YAML given as text."""
    return _sound(_load(text, filename, sha256 or hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()))


def _sound(loaded: Loaded) -> Intent:
    """The intent, or :class:`InputError` with every problem found."""
    if loaded.problems or loaded.intent is None:
        raise InputError(loaded.problems, loaded.source)
    return loaded.intent


def _load(text: str, filename: str, sha256: str, catalogs: SiteCatalogs | None = None) -> Loaded:
    document = load_yaml(text, filename)
    problems = list(document.problems)
    broken = {cut for path in document.broken if (cut := _field_path(path)) is not None}
    if not isinstance(document.data, dict):
        if () not in broken:
            problems.append(Problem((), "the intent must be a YAML mapping with at least name, compute and fabric"))
        return Loaded(None, tuple(problems), document.source, frozenset(broken))
    if not document.data.keys() & {"name", "compute", "fabric"}:  # not an intent: none of its lines is echoed
        problems.append(
            Problem(
                (),
                f"not an intent: it has none of name, compute and fabric among its {len(document.data):,} top-level "
                "keys (not shown); give an intent file",
                line=1,
            )
        )
        return Loaded(None, tuple(problems), document.source, frozenset(broken))
    if catalogs is None:
        found = len(problems)
        catalogs = site_catalogs(document.data.get("catalog"), filename, problems, ("catalog",))
        if len(problems) > found:
            broken.add(("catalog",))
    doc = _validated(document.data, broken, problems, None if ("catalog",) in broken else catalogs.catalog)
    intent = _resolve(doc, frozenset(broken), document.source, sha256, text, problems, catalogs) if doc else None
    return Loaded(intent, tuple(problems), document.source, frozenset(broken))


def _validated(
    data: dict[str, Any], broken: set[Path], problems: list[Problem], hardware: Catalog | None
) -> IntentDoc | None:
    """Validate ``data`` with pydantic, reporting every error; a field in error is then left out (its default,
    or for a required field the smallest valid stand-in, takes its place) and added to ``broken``, until the
    rest validates, so that the cross-field rules can run on every field that is right."""
    data = _without(data, broken)
    unknown = 0
    first_unshown: Path = ()
    doc: IntentDoc | None = None
    while True:
        try:
            doc = IntentDoc.model_validate(data, context={"catalog": hardware})
            break
        except ValidationError as error:
            items = error.errors()
        before, known = (len(broken), data), frozenset(broken)
        for item in items:
            loc = tuple(item["loc"])
            extra = item["type"] == "extra_forbidden"
            if not any(loc[: len(bad)] == bad for bad in known):
                unknown += extra
                if not extra or unknown <= MAX_UNKNOWN_KEYS:
                    problems.append(_pydantic_problem(item))
                elif unknown == MAX_UNKNOWN_KEYS + 1:
                    first_unshown = loc
        data = _without(data, _cuts(items, broken))
        if (len(broken), data) == before:
            break
    if unknown > MAX_UNKNOWN_KEYS:
        more = unknown - MAX_UNKNOWN_KEYS
        problems.append(Problem(first_unshown, f"unknown, and {more - 1:,} more unknown keys after it, not shown"))
    return doc


def _cuts(items: list[Any], broken: set[Path]) -> list[Path]:
    """What to leave out of the data for pydantic's errors ``items``: each field in error (added to ``broken``) and
    each unknown key."""
    cuts = []
    for item in items:
        loc = tuple(item["loc"])
        extra = item["type"] == "extra_forbidden"
        cut = loc if extra else _field_path(loc)
        if cut is not None:
            cuts.append(cut)
            if not extra:
                broken.add(cut)
    return cuts


def _intact(broken: frozenset[Path] | set[Path], *paths: Path) -> bool:
    """No field on, above or below any of ``paths`` is in ``broken``."""
    return not any(bad[: len(path)] == path or path[: len(bad)] == bad for bad in broken for path in paths)


def _field_path(path: Path) -> Path | None:
    """The part of ``path`` made of intent fields (a problem in a list belongs to the field holding the list),
    or None when ``path`` runs through an unknown key, which pydantic reports by itself."""
    model: type[BaseModel] | None = IntentDoc
    for end, part in enumerate(path):
        if model is None or isinstance(part, int):
            return path[:end]
        field = model.model_fields.get(part)
        if field is None:
            return None
        model = submodel(field.annotation)
    return path


def _without(data: Any, paths: Iterable[Path], prefix: Path = ()) -> Any:
    """A copy of ``data`` (at ``prefix`` in the intent) with the value at each of ``paths`` removed, or replaced by a
    stand-in if it is required; each mapping on the way is copied once, however many of its keys go."""
    here: set[Any] = set()
    below: dict[Any, list[Path]] = {}
    for path in paths:
        if len(path) == 1:
            here.add(path[0])
        elif path:
            below.setdefault(path[0], []).append(path[1:])
    if not (here or below) or not isinstance(data, dict):
        return data
    kept = {
        key: _without(value, below[key], (*prefix, key)) if key in below else value
        for key, value in data.items()
        if key not in here
    }
    for head in sorted(here, key=str):
        field = field_at((*prefix, head))
        if field is not None and field.is_required():
            kept[head] = _stand_in(field)
    return kept


@dataclass(frozen=True)
class _Sized:
    """The compute and fabric sections resolved, what sizes the fabric: each part None where a field it needs is in
    error or a rule fails (reported already)."""

    system: SystemModel | None
    server: ServerSpec | None
    planes: int | None
    switches: tuple[SwitchSpec, SwitchSpec, SwitchSpec] | None
    servers: int | None
    max_servers: int | None


def _resolve(
    doc: IntentDoc,
    broken: frozenset[Path],
    source: Source,
    sha256: str,
    text: str,
    problems: list[Problem],
    catalogs: SiteCatalogs,
) -> Intent | None:
    """Apply the catalog and every cross-field rule whose inputs were read as written; the intent when the
    fabric can be sized (its compute and fabric hold), else None."""

    def intact(*paths: Path) -> bool:
        return _intact(broken, *paths)

    if not intact(("catalog",)):
        return None  # the site catalog's problems are reported; without it no model can be looked up
    hardware = catalogs.catalog
    sizing: list[Problem] = []
    sized = _sized(doc, intact, sizing, hardware)
    problems.extend(sizing)
    problems.extend(_pool_overlaps(doc.addressing, intact))
    problems.extend(_asn_start_problems(doc.routing))
    if intact(("routing", "timers")):
        problems.extend(routing_problems(doc.routing))
    listed = _listed_targets(doc, intact, problems, hardware)
    targets = list(per_switch(listed))  # the network OSes: what the Ethernet-only rules below read
    problems.extend(_protocol_problems(doc, targets, intact, hardware))
    sound = (  # the tiers' switches and link speeds, once the fabric sizes
        (sized.switches, tier_speeds(sized.server.nic_speed, *sized.switches[:2]))
        if sized.server and sized.switches and not sizing
        else None
    )
    if sound and intact(("target_options",), ("fabric",)):
        problems.extend(_sku_problems(doc.target_options, *sound, hardware))
    built = _built_tiers(doc.fabric, *sound) if sound else {}
    lab = resolve_lab(doc.lab, targets, built, hardware, problems) if intact(("lab",)) else None
    qos = _qos(doc, targets, intact, problems, hardware)
    problems.extend(_balancing_problems(doc, sized, targets, intact, hardware))
    needs = _facility_needs(sized.system, hardware.servers.get(doc.compute.server or "") if not sized.system else None)
    if intact(("facility",)):
        nic_speed = sized.server.nic_speed if sized.server else None
        problems.extend(facility_problems(doc.facility, nic_speed, _equipment(doc, sized, intact), hardware, needs))
    networks = _networks(doc, sized, targets, intact, problems, hardware)
    hosts = _hosts(doc, sized.server, intact, problems, hardware)
    workloads = _workloads(doc, sized, intact, problems)
    if sizing or not intact(("fabric", "tiers")):
        return None
    return _intent(doc, sized, listed, qos, lab, hosts, networks, workloads, needs, source, sha256, text, catalogs)


def _sized(doc: IntentDoc, intact: Callable[..., bool], problems: list[Problem], hardware: Catalog) -> _Sized:
    """The compute and fabric sections resolved, with the problems of sizing the fabric from them recorded."""
    system = hardware.systems.get(doc.compute.system) if doc.compute.system and intact(("compute", "system")) else None
    asked = _multiplane_asked(doc, hardware) if intact(("compute", "server"), ("fabric", "planes")) else None
    server = _compute_server(doc, system, asked, intact, problems, hardware)
    planes = _planes(doc, intact, hardware)
    switches = _switches(doc.fabric, intact, problems, hardware)
    servers = (
        (_system_count(doc.compute, system, problems) if system else _server_count(doc.compute, server, problems))
        if server and intact(("compute", "servers"), ("compute", "gpus"), ("compute", "systems"))
        else None
    )
    max_servers = (
        (_system_envelope(doc, system, servers, problems) if system else _envelope(doc, server, servers, problems))
        if server and servers is not None and intact(("growth",))
        else servers
    )
    if server and planes and server.nics % planes and not asked:  # multiplane: its own rule
        where = ("fabric", "planes") if doc.fabric.planes else ("compute", "nics_per_server")
        problems.append(
            Problem(
                where,
                f"{server.nics} NIC ports per server cannot split evenly into {planes} "
                f"planes; use a plane count that divides {server.nics}",
            )
        )
    if server and switches:
        problems.extend(_tier_speed_problems(doc.fabric, server, switches, intact, hardware))
    return _Sized(system, server, planes, switches, servers, max_servers)


def _compute_server(
    doc: IntentDoc,
    system: SystemModel | None,
    asked: MultiplaneDoc | None,
    intact: Callable[..., bool],
    problems: list[Problem],
    hardware: Catalog,
) -> ServerSpec | None:
    """The server of ``compute``: a system's compute tray or a server, with its NIC and its ports' planes; None
    (quietly) when a field it needs is in error."""
    if system:
        server: ServerSpec | None = _tray(doc.compute, system, problems, hardware)
    elif intact(("compute", "system")):
        server = _server(doc.compute, intact, problems, hardware)
    else:
        server = None  # an unknown system is reported; no server fields stand in for it
    if server and intact(("compute", "nic")):
        server = _with_nic(doc.compute, server, system, problems, hardware)
    if server and asked and intact(("compute", "nic"), ("compute", "multiplane")):
        server = _with_multiplane(doc, asked, server, system, problems, hardware)
    return server


def _tier_speed_problems(
    fabric: FabricDoc,
    server: ServerSpec,
    switches: tuple[SwitchSpec, SwitchSpec, SwitchSpec],
    intact: Callable[..., bool],
    hardware: Catalog,
) -> list[Problem]:
    """The link speeds of the tiers: what each tier given in the intent runs from the servers' NIC speed up, and
    its uplinks."""
    problems = []
    given = {
        "leaf": True,
        "spine": fabric.spine is not None,
        "super_spine": fabric.super_spine is not None and fabric.tiers != 2,
    }
    speeds = tier_speeds(server.nic_speed, switches[0], switches[1])
    for tier, spec, down in zip(SWITCH_TIERS, switches, speeds, strict=True):
        if given[tier] and down == server.nic_speed:  # an inherited tier repeats the problems of the one it copies
            problems.extend(_speed_problems(tier, spec, server.nic_speed))
    problems.extend(_uplink_problems(fabric, switches, speeds))
    ups = (speeds[1], speeds[2], speeds[2])
    for tier, spec, down, up in zip(SWITCH_TIERS, switches, speeds, ups, strict=True):
        if given[tier] and intact(("fabric", tier)):
            problems.extend(
                link_speed_problems(tier, spec.model, (down, up) if tier != "super_spine" else (down,), hardware)
            )
    return problems


def _listed_targets(
    doc: IntentDoc, intact: Callable[..., bool], problems: list[Problem], hardware: Catalog
) -> list[str]:
    """The targets the intent lists (or their default), with the problems of the targets, the fabric's technology
    and its chassis' naming recorded."""
    listed = default_targets(doc) if intact(("targets",)) else []
    problems.extend(target_problems(listed))
    if intact(("fabric", "technology")):
        problems.extend(technology_problems(doc, listed, hardware, intact))
    problems.extend(chassis_naming_problems(doc, listed, hardware, intact))
    return listed


def _protocol_problems(
    doc: IntentDoc, targets: list[str], intact: Callable[..., bool], hardware: Catalog
) -> list[Problem]:
    """The problems of BFD and of the underlay on the network OSes ``targets``."""
    problems = []
    if intact(("routing", "bfd"), ("target_options",)):
        releases = {name: options.release for name, options in doc.target_options if hasattr(options, "release")}
        problems.extend(bfd_problems(doc.routing, targets, releases, hardware))
    if intact(("routing", "underlay"), ("addressing", "fabric_p2p")):
        problems.extend(underlay_problems(doc.routing, doc.addressing, targets, hardware))
    return problems


def _sku_problems(
    options: TargetOptionsDoc,
    switches: tuple[SwitchSpec, SwitchSpec, SwitchSpec],
    speeds: tuple[int, int, int],
    hardware: Catalog,
) -> list[Problem]:
    """The problems of the SONiC hardware SKUs given for the tiers whose ports run one speed."""
    ups = (speeds[1], speeds[2], speeds[2])
    return sku_problems(
        options.sonic.hwsku,
        {
            tier: (spec.model, spec.ports, spec.breakout(down), down)
            for tier, spec, down, up in zip(SWITCH_TIERS, switches, speeds, ups, strict=True)
            if up == down  # no SKU runs ports broken out two ways
        },
        hardware,
    )


def _built_tiers(
    fabric: FabricDoc, switches: tuple[SwitchSpec, SwitchSpec, SwitchSpec], speeds: tuple[int, int, int]
) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Each tier's model and breakouts, down and up, of the tiers the intent builds (with tiers auto, maybe none)."""
    return {
        tier: (switches[index].model, tuple(switches[index].breakout(speed) for speed in speeds[index : index + 2]))
        for index, tier in enumerate(SWITCH_TIERS[: 3 if fabric.tiers == 3 else 2])
    }


def _qos(
    doc: IntentDoc, targets: list[str], intact: Callable[..., bool], problems: list[Problem], hardware: Catalog
) -> QosSpec:
    """The QoS section resolved, its problems recorded where it was read as written."""
    qos_problems: list[Problem] = []
    qos = resolve_qos(doc.qos, targets, qos_problems, hardware)
    if intact(("qos",)):
        problems.extend(qos_problems)
    return qos


def _balancing_problems(
    doc: IntentDoc, sized: _Sized, targets: list[str], intact: Callable[..., bool], hardware: Catalog
) -> list[Problem]:
    """The problems of the load-balancing section on the fabric's switches (none without them)."""
    if not sized.switches:
        return []
    server = sized.server
    return balancing_problems(
        doc.load_balancing,
        targets,
        {spec.model for spec in sized.switches},
        tier_speeds(server.nic_speed, *sized.switches[:2]) if server else (),
        hardware,
        tuple(field for field in ("mode", "hash", "seeds") if intact(("load_balancing", field))),
        server.nic_modes if server else None,
    )


def _equipment(doc: IntentDoc, sized: _Sized, intact: Callable[..., bool]) -> dict[str, int]:
    """The rack units of each model the racks hold (the server or system, the switches), as far as they are known."""
    equipment = {}
    if sized.server and intact(("compute", "server"), ("compute", "server_rack_units")):
        equipment[sized.server.model] = sized.server.rack_units
    if sized.system:
        equipment[sized.system.name] = sized.system.rack_units()
    for tier, spec in zip(SWITCH_TIERS, sized.switches or (), strict=False):
        if intact(("fabric", tier)):
            equipment[spec.model] = spec.rack_units
    return equipment


def _networks(
    doc: IntentDoc,
    sized: _Sized,
    targets: list[str],
    intact: Callable[..., bool],
    problems: list[Problem],
    hardware: Catalog,
) -> Networks | None:
    """The networks beside the backend and the management side, resolved (:func:`resolve_networks`)."""
    return resolve_networks(
        doc.networks,
        doc.management,
        doc.addressing,
        targets,
        sized.switches[0] if sized.switches else None,
        lambda section, path: _switch(section, path, intact, problems, hardware),
        _cannot_run,
        intact,
        problems,
        hardware,
        sized.system,
    )


def _hosts(
    doc: IntentDoc, server: ServerSpec | None, intact: Callable[..., bool], problems: list[Problem], hardware: Catalog
) -> HostSpec:
    """The hosts section resolved for the server's backend NICs."""
    model = hardware.servers.get(doc.compute.server or "") if intact(("compute", "server")) else None
    nic = hardware.nics.get(server.nic or "") if server else None
    return resolve_hosts(
        doc.hosts,
        model if model and (nic is None or model.nic == nic.name) else None,  # its names are its own NIC's
        host_interfaces(server) if server else None,
        intact,
        problems,
        nic.rdma_names if nic else "mlx5_{}",
        server.multiplane.planes if server and server.multiplane and server.multiplane.mode == "swplb" else 1,
        server.multiplane.planes if server and server.multiplane and server.multiplane.mode == "hwplb" else 0,
    )


def _workloads(
    doc: IntentDoc, sized: _Sized, intact: Callable[..., bool], problems: list[Problem]
) -> tuple[Workload, ...]:
    """The workloads resolved on the cluster's GPUs and NVLink domains; none when its size is not known."""
    server, servers = sized.server, sized.servers
    domain = sized.system.trays if sized.system else 1
    workloads = (
        resolve_workloads(doc.workloads, servers * server.gpus, server.gpus * domain, server.nics * domain, problems)
        if server and servers is not None and intact(("workloads",))
        else ()
    )
    if workloads and server and server.nvlink_gbyte_s is None:
        problems.append(
            Problem(
                ("compute", "nvlink_gbyte_s"),
                f"the workloads need the NVLink (scale-up) bandwidth of {server.model}, which the catalog does not "
                "give; add nvlink_gbyte_s (GB/s per GPU and direction, 450 for H100, 900 for Blackwell) to compute, "
                "or name a catalog server model",
            )
        )
    return workloads


def _intent(
    doc: IntentDoc,
    sized: _Sized,
    listed: list[str],
    qos: QosSpec,
    lab: LabSpec | None,
    hosts: HostSpec,
    networks: Networks | None,
    workloads: tuple[Workload, ...],
    needs: FacilityNeeds,
    source: Source,
    sha256: str,
    text: str,
    catalogs: SiteCatalogs,
) -> Intent | None:
    """The intent from its resolved sections; None when the compute and fabric sections do not size a fabric."""
    server, switches, servers, planes = sized.server, sized.switches, sized.servers, sized.planes
    if server is None or switches is None or servers is None or planes is None:
        return None
    return Intent(
        name=doc.name,
        description=doc.description,
        servers=servers,
        server=server,
        planes=planes,
        tiers=doc.fabric.tiers,
        choices=fabric_choices(doc.fabric),
        leaf=switches[0],
        spine=switches[1],
        super_spine=switches[2],
        addressing=address_pools(doc.addressing),
        routing=routing_spec(doc.routing),
        targets=tuple(per_switch(listed)),
        technology=doc.fabric.technology,
        subnet_managers=per_fabric(listed),
        targets_named=doc.targets is not None,
        target_options=target_options(doc.target_options),
        qos=qos,
        load_balancing=balancing_spec(doc.load_balancing),
        facility=resolve_facility(
            doc.facility,
            (*tier_speeds(server.nic_speed, *switches[:2]), *(networks or Networks()).speeds),
            catalogs.catalog,
            needs,
        ),
        checks=check_limits(doc.checks),
        hosts=hosts,
        lab=lab,
        outputs=output_choices(doc.outputs),
        source=source,
        sha256=sha256,
        text=text,
        max_servers=sized.max_servers or servers,
        workloads=workloads,
        catalogs=catalogs,
        system=sized.system,
        networks=networks or Networks(),
    )


def _server(
    compute: ComputeDoc, intact: Callable[..., bool], problems: list[Problem], hardware: Catalog
) -> ServerSpec | None:
    """The server from the catalog model and the explicit fields; None (quietly) when a field it needs is in
    error, since that error is reported already."""
    base = hardware.servers.get(compute.server) if compute.server else None
    gpus = compute.gpus_per_server or (base.gpus if base else None)
    nics = compute.nics_per_server or (base.nics if base else None)
    nic_speed = compute.nic_speed or (base.nic_speed if base else None)
    power_kw = compute.server_power_kw or (base.power_kw if base else None)
    fields = {"gpus_per_server": gpus, "nics_per_server": nics, "nic_speed": nic_speed, "server_power_kw": power_kw}
    if not intact(*(("compute", name) for name in fields)):
        return None
    missing = [name for name, value in fields.items() if value is None]
    if missing and intact(("compute", "server")):
        for name in missing:
            problems.append(
                Problem(
                    ("compute", name),
                    f"is required unless compute.server names a catalog model ({', '.join(hardware.servers)})",
                )
            )
    if gpus is None or nics is None or nic_speed is None or power_kw is None:
        return None
    return ServerSpec(
        model=compute.server or "custom",
        gpus=gpus,
        nics=nics,
        nic_speed=nic_speed,
        power_kw=power_kw,
        rack_units=compute.server_rack_units or (base.rack_units if base else 8),
        nic_modes=_nic_modes(base.nic_modes if base else (), base.nic if base else None, hardware),
        nic=base.nic if base else None,
        nvlink_gbyte_s=compute.nvlink_gbyte_s or (base.nvlink_gbyte_s if base else None),
        cages=base.cages if base and not compute.nics_per_server else (),
        cage_module=base.cage_module if base else "",
    )


def _tray(compute: ComputeDoc, system: SystemModel, problems: list[Problem], hardware: Catalog) -> ServerSpec:
    """A compute tray of ``system`` as the fabric's server; the server fields of ``compute`` do not apply."""
    given = [
        name
        for name in ("servers", "server", "gpus_per_server", "nics_per_server", "nic_speed", "server_power_kw")
        if getattr(compute, name) is not None
    ]
    if given:
        problems.append(
            Problem(
                ("compute", given[0]),
                f"{', '.join(f'compute.{name}' for name in given)} cannot go with compute.system ({system.name}: "
                f"{system.trays} trays of {system.tray_gpus} GPUs and {system.tray_nics} x {system.nic_speed}G NICs); "
                "give compute.systems or compute.gpus, and a site catalog system for other trays",
            )
        )
    return ServerSpec(
        model=f"{system.name}-tray",
        gpus=system.tray_gpus,
        nics=system.tray_nics,
        nic_speed=system.nic_speed,
        power_kw=round(system.power_kw / system.trays, 6),
        rack_units=system.tray_rack_units,
        nic_modes=_nic_modes((), system.nic, hardware),
        nic=system.nic,
        nvlink_gbyte_s=system.nvlink_gbyte_s,
        cages=system.cages,
        cage_module=system.cage_module,
    )


def _with_nic(
    compute: ComputeDoc, server: ServerSpec, system: SystemModel | None, problems: list[Problem], hardware: Catalog
) -> ServerSpec:
    """``server`` with the NIC ``compute.nic`` picks, where its model ships with it."""
    if compute.nic is None:
        return server
    model = hardware.servers.get(compute.server or "")
    offered = (system.nic,) if system else ((model.nic, *model.nic_options) if model and model.nic else (compute.nic,))
    if compute.nic not in offered:
        problems.append(
            Problem(
                ("compute", "nic"),
                f"{system.name if system else server.model} does not ship with {compute.nic}; its NICs: "
                f"{', '.join(offered)} (a site catalog can add a {'system' if system else 'server model'} with others)",
            )
        )
        return server
    nic = hardware.nics[compute.nic]
    if nic.speed < server.nic_speed:
        problems.append(
            Problem(
                ("compute", "nic"),
                f"{compute.nic} ports run at {nic.speed}G, slower than the {server.nic_speed}G of compute.nic_speed; "
                f"use a NIC of at least {server.nic_speed}G or nic_speed: {nic.speed}G",
            )
        )
    modes = server.nic_modes if compute.nic == server.nic else _nic_modes((), compute.nic, hardware)
    return dataclasses.replace(server, nic=compute.nic, nic_modes=modes)


def _nic_modes(given: tuple[str, ...], nic: str | None, hardware: Catalog) -> tuple[str, ...]:
    """The load-balancing modes a server's backend NICs take part in: ``given`` by its catalog entry, else its NIC
    model's ``modes`` (none for a NIC the catalog does not know)."""
    known = hardware.nics.get(nic or "")
    return given or (known.modes if known else ())


def _system_count(compute: ComputeDoc, system: SystemModel, problems: list[Problem]) -> int | None:
    """Servers (trays) of the systems built now: ``compute.systems``, or ``compute.gpus`` in whole systems."""
    if (compute.systems is None) == (compute.gpus is None):
        problems.append(
            Problem(("compute",), "give exactly one of compute.systems or compute.gpus with compute.system")
        )
        return None
    if compute.gpus is not None and compute.gpus % system.gpus:
        low = compute.gpus // system.gpus * system.gpus
        problems.append(
            Problem(
                ("compute", "gpus"),
                f"{compute.gpus:,} GPUs do not fill whole {system.name} systems of {system.gpus} GPUs (a system is "
                f"never split); use a multiple of {system.gpus}, such as {max(low, system.gpus):,} or "
                f"{low + system.gpus:,}",
            )
        )
        return None
    systems = compute.systems if compute.systems is not None else (compute.gpus or 0) // system.gpus
    if systems * system.gpus > MAX_GPUS:
        problems.append(
            Problem(
                ("compute", "systems" if compute.systems else "gpus"),
                f"{systems:,} systems hold {systems * system.gpus:,} GPUs, above the limit of {MAX_GPUS:,}",
            )
        )
        return None
    return systems * system.trays


def _system_envelope(doc: IntentDoc, system: SystemModel, servers: int, problems: list[Problem]) -> int:
    """The trays the fabric is planned for: ``growth.max_systems`` or ``growth.max_gpus`` in whole systems."""
    growth = doc.growth
    if growth is None:
        return servers
    if growth.max_servers is not None or (growth.max_systems is None) == (growth.max_gpus is None):
        problems.append(
            Problem(
                ("growth",),
                "give exactly one of growth.max_systems or growth.max_gpus with compute.system: the size the fabric "
                "is planned for, in whole systems",
            )
        )
        return servers
    if growth.max_gpus is not None and growth.max_gpus % system.gpus:
        problems.append(
            Problem(
                ("growth", "max_gpus"),
                f"{growth.max_gpus:,} GPUs do not fill whole {system.name} systems of {system.gpus} GPUs; use a "
                f"multiple of {system.gpus}",
            )
        )
        return servers
    systems = growth.max_systems if growth.max_systems is not None else (growth.max_gpus or 0) // system.gpus
    field = ("growth", "max_systems" if growth.max_systems is not None else "max_gpus")
    if systems * system.gpus > MAX_GPUS:
        problems.append(
            Problem(field, f"{systems:,} systems hold {systems * system.gpus:,} GPUs, above the limit of {MAX_GPUS:,}")
        )
        return servers
    if systems * system.trays < servers:
        problems.append(
            Problem(
                field,
                f"{systems:,} systems is below the {servers // system.trays:,} systems of compute; the envelope is "
                "the size the fabric is planned for, at least what is built now",
            )
        )
        return servers
    return systems * system.trays


def _facility_needs(system: SystemModel | None, server: ServerModel | None) -> FacilityNeeds:
    """What the racks must give the equipment: a system's own rack power and cooling, or a server's cooling."""
    if system:
        return FacilityNeeds(system.name, system.power_kw, system.cooling, system.power_source)
    if server and server.cooling:
        return FacilityNeeds(server.name, None, server.cooling, "")
    return FacilityNeeds("", None, None, "")


def _with_multiplane(
    doc: IntentDoc,
    asked: MultiplaneDoc,
    server: ServerSpec,
    system: SystemModel | None,
    problems: list[Problem],
    hardware: Catalog,
) -> ServerSpec:
    """``server`` with each NIC port split into the planes ``asked`` (``compute.multiplane``), where its NIC (and
    its system) can serve them; else ``server`` unchanged and the problems recorded."""
    nic = hardware.nics.get(server.nic or "")
    field = ("compute", "multiplane")
    found = len(problems)
    if nic is None:
        problems.append(
            Problem(
                field,
                f"{server.model}'s backend NIC is not a catalog NIC, so the planes one port serves are not known; "
                "name a catalog server or system whose NIC serves several planes (nvidia-cx8), or remove multiplane",
            )
        )
        return server
    problems.extend(_multiplane_nic_problems(doc, asked, server, system, nic, hardware))
    if doc.fabric.technology != "ethernet":
        problems.append(
            Problem(
                field,
                "multiplane NIC ports are NVIDIA Spectrum-X, an Ethernet fabric; remove compute.multiplane or use "
                "fabric.technology: ethernet",
            )
        )
    if doc.fabric.planes is not None and doc.fabric.planes != asked.planes:
        problems.append(
            Problem(
                ("fabric", "planes"),
                f"compute.multiplane gives every NIC port {asked.planes} planes, so the fabric has {asked.planes}; "
                f"remove fabric.planes or make it {asked.planes}",
            )
        )
    if len(problems) > found:
        return server
    return dataclasses.replace(
        server,
        nics=server.nics * asked.planes,
        nic_speed=server.nic_speed // asked.planes,
        multiplane=Multiplane(asked.planes, asked.mode, server.nic_speed),
    )


def _multiplane_nic_problems(
    doc: IntentDoc,
    asked: MultiplaneDoc,
    server: ServerSpec,
    system: SystemModel | None,
    nic: NicModel,
    hardware: Catalog,
) -> list[Problem]:
    """Why the ports of ``nic`` (in ``system``) cannot serve the planes ``asked``, if they cannot."""
    field = ("compute", "multiplane")
    counts = [count for count in nic.planes if count > 1]
    if system and system.multiplane:
        counts = [count for count in counts if count in system.multiplane]
    model = hardware.servers.get(doc.compute.server or "")
    where = f" in a {system.name}" if system else ""
    if model and model.planes > 1 and model.multiplane == 1:
        return [
            Problem(
                field,
                f"{model.name}'s {model.nics} NIC ports already serve {model.planes} planes (its catalog entry counts "
                "one port per plane); remove compute.multiplane, or use fabric.planes",
            )
        ]
    if not counts:
        return [
            Problem(
                field,
                f"{nic.name} ({nic.label}) serves one plane per port{where}; multiplane needs a NIC whose ports "
                "serve several (nvidia-cx8: 2 planes of 400G, or 4 of 200G on B300); remove compute.multiplane",
            )
        ]
    if asked.planes not in counts:
        return [
            Problem(
                (*field, "planes"),
                f"{nic.name} ({nic.label}) ports{where} cannot serve {asked.planes} planes; valid: "
                f"{' or '.join(map(str, counts))}",
            )
        ]
    if asked.mode not in nic.plane_modes:
        return [
            Problem(
                (*field, "mode"),
                f"{nic.name} has no {asked.mode} multiplane mode; valid: {', '.join(nic.plane_modes) or 'none'}",
            )
        ]
    if server.nic_speed % asked.planes or server.nic_speed // asked.planes not in SPEEDS:
        return [
            Problem(
                (*field, "planes"),
                f"{server.nic_speed}G ports do not split into {asked.planes} planes of a link speed; valid speeds: "
                f"{', '.join(f'{speed}G' for speed in SPEEDS)}",
            )
        ]
    return []


def _multiplane_asked(doc: IntentDoc, hardware: Catalog) -> MultiplaneDoc | None:
    """The planes each NIC port serves: ``compute.multiplane``, else the server model's default (its catalog
    ``multiplane``, hwplb, the intent's default mode) on an Ethernet fabric, as many as ``fabric.planes`` where it
    gives more than one; None: one plane per port."""
    if doc.compute.multiplane:
        return doc.compute.multiplane
    model = hardware.servers.get(doc.compute.server or "") if not doc.compute.system else None
    if model is None or model.multiplane == 1 or doc.fabric.technology != "ethernet" or doc.fabric.planes == 1:
        return None
    return MultiplaneDoc(planes=doc.fabric.planes or model.multiplane)


def _planes(doc: IntentDoc, intact: Callable[..., bool], hardware: Catalog) -> int | None:
    """Planes as given, else the multiplane NIC ports', else the server model's, else 1; None when what decides it
    is in error."""
    if not intact(("fabric", "planes")):
        return None
    if doc.fabric.planes:
        return doc.fabric.planes
    if doc.compute.multiplane:
        return doc.compute.multiplane.planes if intact(("compute", "multiplane")) else None
    if doc.compute.system and doc.compute.system in hardware.systems:
        return hardware.systems[doc.compute.system].planes
    if doc.compute.server:
        model = hardware.servers[doc.compute.server]
        if model.multiplane > 1:  # ports split over planes on Ethernet, whole on InfiniBand
            return model.multiplane if doc.fabric.technology == "ethernet" else 1
        return model.planes
    return 1 if intact(("compute", "server")) else None


def _server_count(compute: ComputeDoc, server: ServerSpec, problems: list[Problem]) -> int | None:
    if compute.systems is not None:
        problems.append(
            Problem(("compute", "systems"), "needs compute.system (a rack-scale system); use compute.servers")
        )
        return None
    if compute.servers is None and compute.gpus is not None:
        if compute.gpus % server.gpus:
            problems.append(
                Problem(
                    ("compute", "gpus"),
                    f"{compute.gpus} GPUs do not fill whole servers of "
                    f"{server.gpus} GPUs; use a multiple of {server.gpus}",
                )
            )
        return compute.gpus // server.gpus
    if compute.servers is None or compute.gpus is not None:
        problems.append(Problem(("compute",), "give exactly one of compute.servers or compute.gpus"))
        return None
    if compute.servers * server.gpus > MAX_GPUS:
        problems.append(
            Problem(
                ("compute", "servers"),
                f"{compute.servers} servers hold "
                f"{compute.servers * server.gpus:,} GPUs, above the "
                f"limit of {MAX_GPUS:,}",
            )
        )
    return compute.servers


def _envelope(doc: IntentDoc, server: ServerSpec, servers: int, problems: list[Problem]) -> int:
    """The servers the fabric is planned for: ``growth.max_servers`` or ``growth.max_gpus``, else ``servers``."""
    growth = doc.growth
    if growth is None:
        return servers
    if growth.max_systems is not None:
        problems.append(
            Problem(("growth", "max_systems"), "needs compute.system (a rack-scale system); use growth.max_servers")
        )
        return servers
    if growth.max_gpus is not None and growth.max_gpus % server.gpus:
        problems.append(
            Problem(
                ("growth", "max_gpus"),
                f"{growth.max_gpus} GPUs do not fill whole servers of "
                f"{server.gpus} GPUs; use a multiple of {server.gpus}",
            )
        )
    if growth.max_gpus is not None and growth.max_servers is None:
        field, most = ("growth", "max_gpus"), growth.max_gpus // server.gpus
        below = f"{growth.max_gpus:,} GPUs is below the {servers * server.gpus:,} GPUs of compute"
    elif growth.max_servers is not None and growth.max_gpus is None:
        field, most = ("growth", "max_servers"), growth.max_servers
        below = f"{most:,} servers is below the {servers:,} servers of compute"
        if most * server.gpus > MAX_GPUS:
            problems.append(
                Problem(field, f"{most:,} servers hold {most * server.gpus:,} GPUs, above the limit of {MAX_GPUS:,}")
            )
    else:
        problems.append(
            Problem(
                ("growth",),
                "give exactly one of growth.max_servers or growth.max_gpus: the size the fabric is planned for",
            )
        )
        return servers
    if servers and most < servers:
        problems.append(
            Problem(field, f"{below}; the envelope is the size the fabric is planned for, at least what is built now")
        )
    return max(most, servers)


def _switches(
    fabric: FabricDoc, intact: Callable[..., bool], problems: list[Problem], hardware: Catalog
) -> tuple[SwitchSpec, SwitchSpec, SwitchSpec] | None:
    """Resolve the three tiers; the spine defaults to the leaf's hardware, the super-spine to the spine's (also when
    the tier's section gives no model, ports or speed: only a count, an uplink speed or its power)."""
    specs: list[SwitchSpec | None] = []
    for tier in SWITCH_TIERS:
        path, switch = ("fabric", tier), getattr(fabric, tier)
        below = specs[-1] if specs else None
        if switch is None and specs and intact(path):
            specs.append(below)
        elif switch is not None and below is not None and not (switch.model or switch.ports or switch.speed):
            given = {
                name: getattr(switch, name) for name in ("uplink_speed", "rack_units", "power_w", "power_w_optics")
            }
            specs.append(dataclasses.replace(below, **{name: value for name, value in given.items() if value}))
        else:
            specs.append(_switch(switch, path, intact, problems, hardware))
    leaf, spine, super_spine = specs
    if leaf is None or spine is None or super_spine is None:
        return None
    return leaf, spine, super_spine


def _switch(
    switch: SwitchDoc | None, path: Path, intact: Callable[..., bool], problems: list[Problem], hardware: Catalog
) -> SwitchSpec | None:
    """One tier from its catalog model and explicit fields; None (quietly) when a field it needs is in error."""
    if switch is None or not intact((*path, "ports"), (*path, "speed")):
        return None
    base = hardware.switches.get(switch.model) if switch.model else None
    ports = switch.ports or (base.ports if base else None)
    speed = switch.speed or (base.speed if base else None)
    if ports is None or speed is None:
        if intact((*path, "model")):
            problems.append(
                Problem(
                    path,
                    "give a catalog model or both ports and speed, for example "
                    "{model: generic-64x400g} or {ports: 64, speed: 400G}; known models: "
                    f"{', '.join(hardware.switches)}",
                )
            )
        return None
    power_w = switch.power_w or (base.power_w if base else round(ports * speed * 0.023))
    return SwitchSpec(
        uplink_speed=switch.uplink_speed,
        model=switch.model or f"custom-{ports}x{speed}g",
        ports=ports,
        speed=speed,
        rack_units=switch.rack_units or (base.rack_units if base else max(1, math.ceil(ports / 32))),
        power_w=power_w,
        power_w_optics=switch.power_w_optics or (base.power_w_optics if base else power_w + ports * speed // 50),
    )


def _speed_problems(tier: str, spec: SwitchSpec, nic_speed: int) -> list[Problem]:
    """Whether the tier's ports break out into NIC-speed links, within ``MAX_BREAKOUT`` and ``MAX_RADIX``."""
    path = ("fabric", tier)
    if spec.speed < nic_speed:
        return [
            Problem(
                (*path, "speed"),
                f"{spec.model} ports run at {spec.speed}G, slower than the "
                f"{nic_speed}G NICs; every fabric link runs at the NIC speed, so use "
                f"ports of {nic_speed}G or faster",
            )
        ]
    if spec.speed % nic_speed:
        return [
            Problem(
                (*path, "speed"),
                f"{spec.speed}G ports cannot break out into {nic_speed}G links; use "
                f"a port speed that is a multiple of {nic_speed}G",
            )
        ]
    if spec.breakout(nic_speed) > MAX_BREAKOUT:
        return [
            Problem(
                (*path, "speed"),
                (
                    f"{spec.speed}G ports would break out into {spec.breakout(nic_speed)} x {nic_speed}G links, above "
                    f"the limit of {MAX_BREAKOUT} (a port has at most {MAX_BREAKOUT} lanes); use ports of at most "
                    f"{MAX_BREAKOUT * nic_speed}G or NICs of at least {-(-spec.speed // MAX_BREAKOUT)}G"
                ),
            )
        ]
    if spec.radix(nic_speed) > MAX_RADIX:
        return [
            Problem(
                (*path, "ports"),
                (
                    f"{spec.ports} ports of {spec.speed}G give {spec.radix(nic_speed):,} logical {nic_speed}G ports, "
                    f"above the limit of {MAX_RADIX:,} per switch; use fewer ports, or NICs as fast as the ports"
                ),
            )
        ]
    if spec.radix(nic_speed) % 2:
        return [
            Problem(
                (*path, "ports"),
                f"{spec.radix(nic_speed)} logical ports cannot split evenly into "
                "downlinks and uplinks; use an even number",
            )
        ]
    return []


def _uplink_problems(
    fabric: FabricDoc, switches: tuple[SwitchSpec, SwitchSpec, SwitchSpec], speeds: tuple[int, int, int]
) -> list[Problem]:
    """The tiers' ``uplink_speed``: every switch whose ports run it, at either end, must run it within
    ``MAX_BREAKOUT`` and ``MAX_RADIX``, and a tier whose uplinks run another speed than its downlinks splits its
    physical ports in half, so it needs an even count of them to stay 1:1 in bandwidth (at one speed the logical
    ports split, as they always have). The top tier has no uplinks."""
    problems = _top_uplink_problems(fabric)
    leaf, spine, super_spine = switches
    downs = {"leaf": speeds[0], "spine": speeds[1]}
    spine_own = fabric.spine is not None and fabric.spine.uplink_speed not in (None, speeds[1])
    runs = {
        "leaf": [("leaf", leaf, speeds[0]), ("spine", spine, speeds[1])]
        + ([] if spine_own else [("super-spine", super_spine, speeds[2])]),
        "spine": [("spine", spine, speeds[1]), ("super-spine", super_spine, speeds[2])],
    }
    for tier in ("leaf", "spine"):
        switch = getattr(fabric, tier)
        if switch is None or switch.uplink_speed in (None, downs[tier]) or (tier == "spine" and fabric.tiers == 2):
            continue  # an uplink speed equal to the downlinks' is the default, which the tiers' own rules cover
        field, speed = ("fabric", tier, "uplink_speed"), switch.uplink_speed
        ends = runs[tier]
        wrong = [what for _, spec, _ in ends if (what := _cannot_run(spec, speed))]
        if wrong:
            valid = [f"{value}G" for value in SPEEDS if not any(_cannot_run(spec, value) for _, spec, _ in ends)]
            problems.append(
                Problem(
                    field,
                    f"{'; '.join(dict.fromkeys(wrong))}; a speed every port at both ends runs: "
                    f"{', '.join(valid) or 'none, use other switches'}",
                )
            )
            continue
        for role, spec, down in ends:
            if spec.radix(speed) > MAX_RADIX:
                problems.append(
                    Problem(
                        field,
                        f"{spec.ports} ports of {spec.speed}G give {spec.radix(speed):,} logical {speed}G ports, "
                        f"above the limit of {MAX_RADIX:,} per switch; use a faster uplink_speed",
                    )
                )
            elif down != speed and spec.ports % 2 and role != "super-spine":
                problems.append(
                    Problem(
                        field,
                        f"the {spec.ports} ports of a {role} ({spec.model}) cannot split in half between {down}G "
                        f"downlinks and {speed}G uplinks, so it would not be 1:1 in bandwidth; use {down}G (the "
                        "downlink speed) or a switch with an even number of ports",
                    )
                )
    return problems


def _top_uplink_problems(fabric: FabricDoc) -> list[Problem]:
    """An ``uplink_speed`` given to the top tier, which has no uplinks."""
    problems = []
    tops = [("super_spine", "super-spines are the top tier")]
    if fabric.tiers == 2:
        tops.append(("spine", "with tiers: 2 the spines are the top tier"))
    for tier, why in tops:
        switch = getattr(fabric, tier)
        if switch is not None and switch.uplink_speed is not None:
            problems.append(
                Problem(("fabric", tier, "uplink_speed"), f"{why} and have no uplinks; remove uplink_speed there")
            )
    return problems


def _cannot_run(spec: SwitchSpec, speed: int) -> str | None:
    """Why ``spec``'s ports cannot run links of ``speed`` Gb/s (None: they can)."""
    if spec.speed < speed:
        return f"{spec.model} ports run at {spec.speed}G, slower than {speed}G"
    if spec.speed % speed:
        return f"{spec.model}'s {spec.speed}G ports cannot break out into {speed}G links"
    if spec.breakout(speed) > MAX_BREAKOUT:
        return (
            f"{spec.model}'s {spec.speed}G ports would break out into {spec.breakout(speed)} x {speed}G links, above "
            f"the limit of {MAX_BREAKOUT}"
        )
    return None


def _pool_overlaps(addressing: AddressingDoc, intact: Callable[..., bool]) -> list[Problem]:
    pools = [
        (name, IPNetwork(value))
        for name, value in addressing.model_dump().items()
        if value is not None and intact(("addressing", name))
    ]
    problems = []
    for index, (name, network) in enumerate(pools):
        for other, other_network in pools[:index]:
            if network.first <= other_network.last and other_network.first <= network.last:
                problems.append(
                    Problem(
                        ("addressing", name),
                        f"{network} overlaps addressing.{other} ({other_network}); pools must be disjoint",
                    )
                )
    return problems


def _asn_start_problems(routing: RoutingDoc) -> list[Problem]:
    problems = []
    for field in ("leaf_asn_start", "spine_asn_start", "super_spine_asn_start"):
        asn = getattr(routing, field)
        if asn is not None and not private_asns(asn):
            problems.append(
                Problem(
                    ("routing", field),
                    f"{asn} is not a private ASN; use 64512-65534 (2-byte) or 4200000000-4294967294 (4-byte)",
                )
            )
    return problems


def field_at(path: Path) -> FieldInfo | None:
    """The schema's field at the intent path ``path`` (None: no such field)."""
    model = _model_at(path[:-1])
    return model.model_fields.get(path[-1]) if model and isinstance(path[-1], str) else None


def _stand_in(field: FieldInfo) -> Any:
    """The smallest valid value of a required field: a mapping of its required fields' stand-ins, or its first
    example."""
    model = submodel(field.annotation)
    if model is None:
        return field.examples[0] if field.examples else None
    return {name: _stand_in(sub) for name, sub in model.model_fields.items() if sub.is_required()}


def _pydantic_problem(error: Any) -> Problem:
    path = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        return Problem(path, _unknown_key_message(path))
    if kind == "missing":
        return Problem(path, "is required")
    if kind in {"model_type", "dict_type"}:
        return Problem(path, f"should be a mapping of keys to values (got {short(error['input'])})")
    message = error["msg"].removeprefix("Value error, ")
    if kind.endswith("_type") or kind in {
        "literal_error",
        "int_parsing",
        "int_from_float",
        "greater_than",
        "greater_than_equal",
        "less_than",
        "less_than_equal",
    }:
        message = f"{message} (got {short(error['input'])})"
    return Problem(path, message)


def _unknown_key_message(path: Path) -> str:
    key = str(path[-1])
    model = _model_at(path[:-1])
    known = list(model.model_fields) if model else []
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else "."
    return f"unknown key {short(key)}{hint} Valid keys here: {', '.join(known)}"


def _model_at(path: Path) -> type[BaseModel] | None:
    model: type[BaseModel] | None = IntentDoc
    for part in path:
        if isinstance(part, int):
            continue  # an item of a list keeps the list's model
        field = model.model_fields.get(str(part)) if model else None
        model = submodel(field.annotation) if field else None
    return model


def submodel(annotation: Any) -> type[BaseModel] | None:
    """The section model an annotation holds, directly or inside an optional, a union or a list (None: a value)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        for arg in typing.get_args(annotation):
            found = submodel(arg)
            if found:
                return found
    if typing.get_origin(annotation) is list:
        return submodel(typing.get_args(annotation)[0])
    return None

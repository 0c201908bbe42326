"""Site catalogs: a site's own switches, servers, media, target limits and facility defaults, laid over the
shipped catalog (``designer/catalog.yaml``, in its format) for one intent.

An intent names them with ``catalog: <path>`` or a list of paths, relative to the intent file; later files
override earlier ones, and every file overrides the shipped entries by name, field by field
(:func:`designer.catalog.overlaid`). Each file is read as strictly as an intent (:mod:`yaml_source`: bounded, plain
YAML, lines kept) and checked here: every problem of every file is reported at once, as ``file:line: field: what
is wrong``. A new entry must give every field the shipped entries have; an override may give any of them.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path as FilePath
from string import Formatter
from typing import Annotated, Any, Literal

import yaml
from pydantic import AfterValidator, Field, ValidationError, model_validator

from designer.catalog import (
    PART_KINDS,
    PORT_FIELDS,
    SYSTEM_PARTS,
    Catalog,
    PortNaming,
    catalog,
    laid_over,
    make_catalog,
    overlaid,
    shipped_catalog_data,
)
from designer.errors import InputError, Problem, Source
from designer.intent.fields import MAX_BREAKOUT, MAX_SWITCH_PORTS, MEDIA, SPEEDS, Section, Speed
from designer.intent.hosts_section import NicName, RdmaName, naming_problems
from designer.intent.yaml_source import decode, load_yaml, read_bytes, short
from designer.targets import NAMES, TARGETS, TECHNOLOGIES, per_switch

MAX_FILES = 16
"""Site catalogs one intent may name."""


INTERFACE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9/._:-]{0,62}")
"""What a port naming pattern must give: an interface name a network OS could have."""


def port_pattern(value: str) -> str:
    """A port naming pattern: text with the fields of :data:`PORT_FIELDS` in braces, no format spec or conversion,
    giving an interface name."""
    try:
        parts = list(Formatter().parse(value))
    except ValueError as error:
        raise ValueError(f"{error}; write the fields in single braces, for example Ethernet{{cage}}/{{lane}}") from None
    for _, field, spec, conversion in parts:
        if field is not None and (field not in PORT_FIELDS or spec or conversion):
            written = field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
            raise ValueError(
                f"{{{written}}} is not a field of a port name; use {', '.join(f'{{{f}}}' for f in PORT_FIELDS)}"
            )
    if not INTERFACE_NAME.fullmatch(PortNaming(value, value).name(0, 0, 1, 8, 0, 0)):
        raise ValueError("gives no interface name (a letter, then up to 62 letters, digits and / . _ : -)")
    return value


PortPattern = Annotated[str, Field(min_length=1, max_length=64), AfterValidator(port_pattern)]


class PortNamingDoc(Section):
    """How a network OS names a switch's ports: ``whole`` for a port run as one link, ``broken_out`` for each link
    of a port split into several, from the fields {cage} (the port, from 1), {subport} (the link in it, from 0),
    {lane} (its first lane in the port, from 1), {serdes} (its first SerDes lane on the switch, from 0), {link} (the
    link in the port, from 1), {twin} and {split} (on a twin-port cage, its port the link is in and the link in that
    port, from 1), {number} (the logical port's number on the switch, from 1) and on a chassis {card} (the line
    card's slot) and {card_port} (the port on that card, from 1)."""

    whole: PortPattern = Field(description="A port run as one link, e.g. Ethernet{cage}.")
    broken_out: PortPattern = Field(description="A link of a broken-out port, e.g. Ethernet{cage}/{lane}.")

    @model_validator(mode="after")
    def distinct(self) -> PortNamingDoc:
        """Every port of a switch must get its own name."""
        fields = {name: {part[1] for part in Formatter().parse(pattern)} for name, pattern in vars(self).items()}
        whole = fields["whole"]
        if not (whole & {"cage", "serdes", "number"} or whole >= {"card", "card_port"}):
            raise ValueError(
                "whole: names every port alike; use {cage}, {serdes}, {number}, or {card} with {card_port}"
            )
        broken = fields["broken_out"]
        port = "cage" in broken or broken >= {"card", "card_port"}
        if not broken & {"serdes", "number"} and not (port and broken & {"subport", "lane", "link"}):
            raise ValueError(
                "broken_out: names two links alike; use {serdes} or {number}, or {cage} (or {card} with "
                "{card_port}) with {subport}, {lane} or {link}"
            )
        return self


def site_named(target: str) -> str:
    """An OS whose port names are the site's to choose (:attr:`Target.fixed_port_names`)."""
    if TARGETS[target].fixed_port_names:
        raise ValueError(f"{target}'s port names are not a site's to choose: {TARGETS[target].fixed_port_names}")
    return target


SWITCH_OSES = per_switch(NAMES)
"""The targets a site catalog can say something of: the network OSes (a subnet manager has no catalog entry)."""
SiteNamed = Annotated[Literal[SWITCH_OSES], AfterValidator(site_named)]  # type: ignore[valid-type]


class SwitchEntryDoc(Section):
    """A switch model: ports and their speed, rack units, power without and with optics (W)."""

    ports: int | None = Field(None, gt=0, le=MAX_SWITCH_PORTS, description="Physical ports.")
    speed: Speed | None = Field(None, description="Speed of a physical port.")
    rack_units: int | None = Field(None, gt=0, le=60, description="Rack units.")
    power_w: int | None = Field(None, gt=0, le=100_000, description="Power with no optics plugged, in watts.")
    power_w_optics: int | None = Field(None, gt=0, le=100_000, description="Typical power with optics, in watts.")
    port_names: dict[SiteNamed, PortNamingDoc] | None = Field(
        None, description="How a network OS names this model's ports, where it differs from the OS's rule."
    )
    technology: Literal[TECHNOLOGIES] | None = Field(  # type: ignore[valid-type]
        None, description="The fabric it switches: ethernet (the default) or infiniband."
    )
    link_speeds: list[Speed] | None = Field(
        None, description="The link speeds its ports run at, where fewer than their breakouts give (default: any)."
    )
    line_card_ports: int | None = Field(
        None, gt=0, le=MAX_SWITCH_PORTS, description="On a chassis, the front-panel ports of one line card."
    )
    first_line_card: int | None = Field(None, ge=0, le=64, description="On a chassis, its first line card's slot.")
    hash_line_unknown: list[Literal[SWITCH_OSES]] | None = Field(  # type: ignore[valid-type]
        None, description="The OSes whose hash-field line for this platform is not known: they write none."
    )
    power_estimated: bool | None = Field(
        None, description="Its power figures are planning estimates, not the vendor's (summary.md says so)."
    )


CageName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9 /._-]{0,39}$")]
Cages = Annotated[dict[CageName, list[Annotated[int, Field(ge=0, lt=64)]]], Field(min_length=1, max_length=64)]
"""A server's or tray's backend cages: name -> the NIC ports it carries, from its first half on."""
CageModule = Literal["flat-top", "finned-top"]


class ServerEntryDoc(Section):
    """A GPU server model: GPUs, backend NIC ports (all planes), their speed, planes, power (kW), rack units, and
    the backend NICs' interface and RDMA device names in NIC order."""

    gpus: int | None = Field(None, gt=0, le=144, description="GPUs in one server.")
    nics: int | None = Field(None, gt=0, le=64, description="Backend NIC ports, all planes together.")
    nic_speed: Speed | None = Field(None, description="Speed of a backend NIC port.")
    planes: int | None = Field(None, gt=0, le=8, description="Planes the NIC ports split into.")
    power_kw: float | None = Field(None, gt=0, le=500, description="Maximum power, in kW.")
    rack_units: int | None = Field(None, gt=0, le=60, description="Rack units.")
    nic_names: list[NicName] | None = Field(None, description="Backend NICs' Linux interface names, NIC order.")
    rdma_devices: list[RdmaName] | None = Field(None, description="Backend NICs' RDMA device names, NIC order.")
    nic_modes: list[Literal["adaptive", "spray"]] | None = Field(
        None, description="Load-balancing modes the backend NICs take part in beyond hashing."
    )
    nic: str | None = Field(None, description="The backend NIC model it ships with (a catalog NIC).")
    nic_options: list[str] | None = Field(None, description="Other NIC models it can be ordered with.")
    nvlink_gbyte_s: float | None = Field(
        None, gt=0, le=100_000, description="Scale-up (NVLink) bandwidth per GPU and direction, GB/s."
    )
    cooling: Literal["air", "liquid"] | None = Field(None, description="liquid when it must be liquid cooled.")
    multiplane: int | None = Field(
        None, gt=0, le=8, description="Planes each NIC port serves on Ethernet unless the intent says otherwise."
    )
    cages: Cages | None = Field(
        None,
        description="Backend cages by name, each with the NIC ports in it (from 0, NIC order), e.g. {OSFP1: [0, 1]}.",
    )
    cage_module: CageModule | None = Field(None, description="The form of the modules its cages take.")


class NicEntryDoc(Section):
    """A backend NIC model: vendor, ports, speed, planes per port and their host modes, driver, RDMA device names,
    how its QoS is set on the host (mlnx_qos, or vendor: its own tools, not written by designer) and the source."""

    vendor: str | None = Field(None, min_length=1, max_length=40, description="The NIC's vendor.")
    label: str | None = Field(None, min_length=1, max_length=80, description="Name in summary.md.")
    ports: int | None = Field(None, gt=0, le=8, description="Ports of one NIC.")
    speed: Speed | None = Field(None, description="Speed of a port.")
    planes: list[Annotated[int, Field(gt=0, le=8)]] | None = Field(None, description="Planes one port can serve.")
    plane_modes: list[Literal["swplb", "hwplb"]] | None = Field(None, description="Host modes of several planes.")
    modes: list[Literal["adaptive", "spray"]] | None = Field(
        None, description="Load-balancing modes it takes part in beyond hashing."
    )
    driver: str | None = Field(None, min_length=1, max_length=40, description="The Linux driver.")
    rdma_names: str | None = Field(
        None, pattern=r"^[a-z][a-z0-9_]*\{\}$", description="RDMA device naming pattern, e.g. mlx5_{}."
    )
    host_qos: Literal["mlnx_qos", "vendor"] | None = Field(None, description="How its RoCE QoS is set on the host.")
    qos_tools: str | None = Field(None, min_length=1, max_length=200, description="The host QoS tools, named.")
    source: str | None = Field(None, min_length=1, max_length=400, description="Where these facts come from.")


def rack_block(value: list[str | int]) -> list[str | int]:
    """Parts of one kind in a system's rack layout: [part, how many (1 to 64), rack units of one (1 to 8)]."""
    match value:
        case [str(part), int(count), int(units)] if part in SYSTEM_PARTS and 0 < count <= 64 and 0 < units <= 8:
            return value
    raise ValueError(
        f"should be [part, how many (1 to 64), rack units of one (1 to 8)] with the part one of "
        f"{', '.join(SYSTEM_PARTS)}, e.g. [power_shelf, 4, 1]"
    )


RackBlock = Annotated[list[str | int], AfterValidator(rack_block)]


class SystemEntryDoc(Section):
    """A rack-scale system: compute trays and what each holds, NVLink switch trays, power shelves, management
    switches, its maximum rack power with the source of that figure, cooling and NVLink bandwidth."""

    trays: int | None = Field(None, gt=0, le=64, description="Compute trays, each a server of the fabric.")
    tray_gpus: int | None = Field(None, gt=0, le=16, description="GPUs of one tray.")
    tray_nics: int | None = Field(None, gt=0, le=16, description="Scale-out NIC ports of one tray.")
    nic: str | None = Field(None, description="The scale-out NIC model (a catalog NIC).")
    nic_speed: Speed | None = Field(None, description="Speed of a scale-out NIC port.")
    planes: int | None = Field(None, gt=0, le=8, description="Planes the NIC ports split into.")
    north_south_nics: int | None = Field(None, ge=0, le=8, description="Storage and in-band NICs of one tray.")
    north_south_nic: str | None = Field(None, description="Their model (a catalog NIC).")
    tray_rack_units: int | None = Field(None, gt=0, le=8, description="Rack units of one compute tray.")
    nvlink_switch_trays: int | None = Field(None, ge=0, le=64, description="NVLink switch trays in the rack.")
    power_shelves: int | None = Field(None, ge=0, le=64, description="Power shelves in the rack.")
    management_switches: int | None = Field(None, ge=0, le=8, description="Management switches in the rack.")
    power_kw: float | None = Field(None, gt=0, le=1000, description="Maximum power of the rack, in kW.")
    power_source: str | None = Field(None, min_length=1, max_length=400, description="Where power_kw comes from.")
    cooling: Literal["air", "liquid"] | None = Field(None, description="Cooling the system needs.")
    nvlink_gbyte_s: float | None = Field(
        None, gt=0, le=100_000, description="Scale-up (NVLink) bandwidth per GPU and direction, GB/s."
    )
    multiplane: list[Annotated[int, Field(gt=1, le=8)]] | None = Field(
        None, description="Plane counts one NIC port may serve in this system (default: what the NIC allows)."
    )
    rack_layout: list[RackBlock] | None = Field(
        None,
        min_length=1,
        max_length=64,
        description="Optional: the rack from its top unit down, as [part, how many, rack units of one], each part "
        "as many times as the system has it, e.g. [[power_shelf, 2, 1], [compute_tray, 4, 4]].",
    )
    rack_layout_source: str | None = Field(
        None, min_length=1, max_length=400, description="Where rack_layout comes from."
    )
    management_switch: str | None = Field(
        None, description="Optional: the model of the rack's management switches (a catalog management switch)."
    )
    management_ports: (
        dict[
            Literal[tuple(part.kind for part in PART_KINDS if part.managed)],  # type: ignore[valid-type]
            list[Annotated[str, Field(pattern=r"^[a-z][a-z0-9]{0,9}$")]],
        ]
        | None
    ) = Field(
        None,
        description="Optional: the 1G management ports of each part the out-of-band network cables to the rack's "
        "management switches, e.g. {compute_tray: [bmc], power_shelf: [mgmt]}.",
    )
    cages: Cages | None = Field(
        None, description="Optional: a compute tray's scale-out cages by name, each with the NIC ports in it (from 0)."
    )
    cage_module: CageModule | None = Field(None, description="Optional: the form of the modules its cages take.")
    vendor_su: int | None = Field(
        None, gt=0, le=1024, description="Optional: systems of the scalable unit its vendor's reference design names."
    )
    vendor_su_source: str | None = Field(
        None, min_length=1, max_length=200, description="Optional: the reference design that names vendor_su."
    )


Reach = Annotated[float, Field(gt=0, le=100_000)]
Watts = Annotated[float, Field(ge=0, le=1_000)]


class MediumEntryDoc(Section):
    """A cable or optic family: label, whether it is optical, reach in metres by link speed (Gb/s, and
    ``default``) and power per module by port speed."""

    label: str | None = Field(None, min_length=1, max_length=80, description="Name in the cable plan and BOM.")
    optical: bool | None = Field(None, description="Whether it is an optic (two modules per link).")
    reach_m: dict[int | Literal["default"], Reach] | None = Field(None, description="Reach by link speed (Gb/s).")
    power_w: dict[int, Watts] | None = Field(None, description="Power per module by port speed (Gb/s).")


class BalancingEntryDoc(Section):
    """Where a target's load-balancing modes run: per mode, catalog switch models and link speeds."""

    platforms: dict[Literal["adaptive", "cluster"], list[str]] | None = Field(
        None, description="Per mode, the switch models that run it."
    )
    speeds: dict[Literal["adaptive", "cluster"], list[Speed]] | None = Field(
        None, description="Per mode, the link speeds it runs at."
    )


class TargetEntryDoc(Section):
    """What a network OS's configuration can express on the site's platforms (only the shipped targets: a new
    OS needs its view and templates)."""

    max_ecmp_paths: int | None = Field(None, gt=0, le=4096, description="Most equal-cost BGP paths.")
    port_names: PortNamingDoc | None = Field(None, description="How the OS names a switch's ports.")
    load_balancing: BalancingEntryDoc | None = Field(None, description="Where its load-balancing modes run.")
    underlays: list[Literal["numbered", "unnumbered"]] | None = Field(
        None,
        min_length=1,
        description="The routing.underlay choices it runs on the site's platforms (e.g. [numbered] on a release "
        "without BGP unnumbered).",
    )


class FacilityDefaultsDoc(Section):
    """The site's facility defaults (an intent's ``facility`` fields still win)."""

    rack_power_kw: float | None = Field(None, gt=0, le=1000, description="Usable power of every rack, in kW.")
    rack_units: int | None = Field(None, ge=1, le=60, description="Rack height in units.")
    cooling: Literal["air", "liquid"] | None = Field(None, description="Cooling of the racks.")
    air_limit_kw: float | None = Field(None, gt=0, le=1000, description="Most power an air-cooled rack takes, kW.")
    racks_per_row: int | None = Field(None, ge=1, le=1000, description="Racks in one row (left out: designer chooses).")
    max_racks_per_row: int | None = Field(None, ge=1, le=1000, description="The longest row, when designer chooses.")
    rack_width_m: float | None = Field(None, gt=0, le=5, description="Rack width, in metres.")
    row_pitch_m: float | None = Field(None, gt=0, le=100, description="Centre to centre of two rows, in metres.")
    pue: float | None = Field(None, ge=1, le=5, description="Power usage effectiveness of the hall.")
    slack_m: float | None = Field(None, ge=0, le=100, description="Length added to every cable run, in metres.")
    media: Literal[MEDIA] | None = Field(  # type: ignore[valid-type]
        None, description="copper where its reach covers a run and optics beyond it, or optics on every link."
    )


ModelName = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9._-]{0,62}$")]


class PricesDoc(Section):
    """The site's unit prices, for ``designer explore``'s capital cost: one currency, a price per item as
    ``bom.csv`` names it."""

    currency: str = Field(pattern=r"^[A-Z]{3}$", description="ISO 4217 currency code, such as USD or EUR.")
    items: dict[Annotated[str, Field(min_length=1, max_length=200)], Annotated[float, Field(ge=0, le=1e9)]] = Field(
        min_length=1,
        description="Unit price of each item, by its name in bom.csv's item column (a switch or server model, a "
        "transceiver, a cable).",
    )


class SiteCatalogDoc(Section):
    """A site catalog file: entries by name in the shipped catalog's sections."""

    model_config = Section.model_config | {"title": "designer site catalog"}

    switches: dict[ModelName, SwitchEntryDoc] = Field(default_factory=dict, description="Switch models.")
    servers: dict[ModelName, ServerEntryDoc] = Field(default_factory=dict, description="GPU server models.")
    nics: dict[ModelName, NicEntryDoc] = Field(default_factory=dict, description="Backend NIC models.")
    systems: dict[ModelName, SystemEntryDoc] = Field(default_factory=dict, description="Rack-scale systems.")
    media: dict[ModelName, MediumEntryDoc] = Field(
        default_factory=dict,
        description=("Cable and optic families; every medium is tried in order of its default reach, shortest first."),
    )
    targets: dict[Literal[SWITCH_OSES], TargetEntryDoc] = Field(  # type: ignore[valid-type]
        default_factory=dict, description="Limits of the shipped network OSes on the site's platforms."
    )
    facility: FacilityDefaultsDoc = Field(FacilityDefaultsDoc(), description="Facility defaults.")
    prices: PricesDoc | None = Field(
        None, description="Unit prices of the parts of a bill of materials (designer explore reports capital cost)."
    )


@dataclass(frozen=True)
class SiteCatalogs:
    """The catalog an intent designs with, and what it was made from: each site file as named and its sha256, and
    the site entries laid over the shipped catalog (what a build writes beside its intent.yaml)."""

    catalog: Catalog
    files: tuple[tuple[str, str], ...]
    overlay: dict[str, Any]

    @staticmethod
    def shipped() -> SiteCatalogs:
        """No site catalog: the shipped one."""
        return SiteCatalogs(catalog(), (), {})

    def text(self) -> str:
        """The site entries as one catalog file (empty when the intent names none)."""
        if not self.files:
            return ""
        return yaml.safe_dump(self.overlay, sort_keys=True, default_flow_style=False)


def site_catalogs(
    named: Any, intent_file: str, problems: list[Problem], catalog_path: tuple[str, ...] = ()
) -> SiteCatalogs:
    """The catalog of an intent whose ``catalog`` field holds ``named`` (a path or a list, relative to
    ``intent_file``), adding every problem of those files to ``problems``. ``catalog_path`` is where ``named``
    sits in the intent (for problems of the field itself)."""
    if named is None:
        return SiteCatalogs.shipped()
    paths = named if isinstance(named, list) else [named]
    if not paths or len(paths) > MAX_FILES or not all(isinstance(path, str) and path.strip() for path in paths):
        problems.append(
            Problem(
                catalog_path,
                f"should be a path or a list of 1 to {MAX_FILES} paths of site "
                f"catalog files, relative to the intent (got {short(named)})",
            )
        )
        return SiteCatalogs.shipped()
    base = FilePath(intent_file).parent
    data = shipped_catalog_data()
    overlay: dict[str, Any] = {}
    files, found = [], len(problems)
    read: list[tuple[dict[str, Any], Source]] = []
    for name in paths:
        site = _read(base / name, problems)
        if site is not None:
            files.append((name, site[1]))
            read.append((site[0], site[2]))
            overlay = laid_over(overlay, site[0])
    if len(problems) > found:
        return SiteCatalogs(catalog(), tuple(files), overlay)
    if rules := _incomplete(laid_over(data, overlay), overlay, data):  # before the media are sorted by reach
        problems.extend(_where_given(message, read, catalog_path) for message in rules)
        return SiteCatalogs(catalog(), tuple(files), overlay)
    return SiteCatalogs(make_catalog(overlaid(data, overlay)), tuple(files), overlay)


def folder_catalogs(text: str, filename: str, files: tuple[tuple[str, str], ...]) -> SiteCatalogs:
    """The catalog a built folder was designed with, from the site entries its build wrote as one file
    (``catalog.yaml`` beside ``intent.yaml``): ``files`` are the site files the intent named, as design.json
    records them."""
    problems: list[Problem] = []
    document = load_yaml(text, filename, number_keys=True)
    entries = _entries(document, problems)
    if problems or entries is None:
        raise InputError(problems, document.source, about=filename)
    return SiteCatalogs(make_catalog(overlaid(shipped_catalog_data(), entries)), files, entries)


def json_schema() -> dict[str, Any]:
    """The site catalog's JSON Schema (draft 2020-12), for editors and tools."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **SiteCatalogDoc.model_json_schema()}


def _where_given(message: str, read: list[tuple[dict[str, Any], Source]], catalog_path: tuple[str, ...]) -> Problem:
    """A rule's ``message`` (``section.entry[.field]: what is wrong``) as a problem of the last site file that gives
    that entry, at the line of the field (or the entry), else of the intent's ``catalog`` field."""
    where, _, text = message.partition(": ")
    section, _, rest = where.partition(".")
    for entries, source in reversed(read):
        names = sorted(
            (name for name in entries.get(section, {}) if rest == name or rest.startswith(f"{name}.")), key=len
        )
        if names:
            name = names[-1]
            field, _, index = rest[len(name) + 1 :].split(".")[0].partition("[")
            path: tuple[str | int, ...] = (section, name)
            if field and field in entries[section][name]:
                path = (section, name, field, int(index[:-1])) if index[:-1].isdigit() else (section, name, field)
            return Problem(path, text, line=source.line_of(path), file=source.filename)
    return Problem(catalog_path, message)


def _read(path: FilePath, problems: list[Problem]) -> tuple[dict[str, Any], str, Source] | None:
    """One site file's entries (as the catalog writes them, fields left out where not given), its sha256 and where
    each of its values is, or None with its problems added."""
    try:
        raw = read_bytes(
            path, "a site catalog in designer/catalog.yaml's format, relative to the intent", "../hw/site.yaml"
        )
        document = load_yaml(decode(raw, str(path)), str(path), number_keys=True)
    except InputError as error:
        problems.extend(_located(problem, error.source) for problem in error.problems)
        return None
    entries = _entries(document, problems)
    return None if entries is None else (entries, hashlib.sha256(raw).hexdigest(), document.source)


def _entries(document: Any, problems: list[Problem]) -> dict[str, Any] | None:
    """The entries of a parsed site catalog, checked, with only the fields it gives; None with its problems added."""
    if not isinstance(document.data, dict):
        problems.append(
            _located(
                Problem((), f"a site catalog is a YAML mapping of {_sections()}", line=1),
                document.source,
            )
        )
        return None
    own = [_located(problem, document.source) for problem in document.problems]
    try:
        doc = SiteCatalogDoc.model_validate(document.data)
    except ValidationError as error:
        own.extend(_located(Problem(tuple(item["loc"]), _message(item)), document.source) for item in error.errors())
    if own or document.broken:
        problems.extend(own)
        return None
    return doc.model_dump(exclude_none=True, exclude_defaults=True)


def _located(problem: Problem, source: Source | None) -> Problem:
    """``problem`` of a site file, naming that file and line."""
    if source is None:
        return problem
    line = problem.line if problem.line is not None else source.line_of(problem.path)
    return Problem(problem.path, problem.message, line=line, file=source.filename)


def _sections() -> str:
    """Every section a site catalog may hold, in the order of its schema."""
    names = list(SiteCatalogDoc.model_fields)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def _message(item: Any) -> str:
    kind = item["type"]
    if kind == "extra_forbidden":
        return f"unknown key; a site catalog holds {_sections()}, with the fields of the shipped catalog's entries"
    if kind == "missing":
        return "is required"
    message = item["msg"].removeprefix("Value error, ")
    return f"{message} (got {short(item['input'])})" if "input" in item else message


REQUIRED = {
    "switches": ("ports", "speed", "rack_units", "power_w", "power_w_optics"),
    "servers": ("gpus", "nics", "nic_speed", "planes", "power_kw", "rack_units"),
    "media": ("label", "optical", "reach_m", "power_w"),
    "nics": ("vendor", "label", "ports", "speed", "planes", "driver", "rdma_names", "host_qos", "qos_tools", "source"),
    "systems": tuple(
        field
        for field in SystemEntryDoc.model_fields
        if field
        not in (
            "multiplane",
            "management_switch",
            "management_ports",
            "cages",
            "cage_module",
            "vendor_su",
            "vendor_su_source",
        )
        and not field.startswith("rack_layout")
    ),
}
"""The fields a new entry of each section must give (an override of a shipped entry may give any)."""


def _incomplete(merged: dict[str, Any], overlay: dict[str, Any], shipped: dict[str, Any]) -> list[str]:
    """What is wrong with the site entries once laid over the shipped ones: new entries that leave out a field, a
    new medium's reach without a default, a target's dynamic models that are no catalog switch, port names of an
    OS whose names are fixed."""
    problems = _missing_fields(merged, overlay, shipped) + _unknown_nics(merged, overlay)
    for name in sorted(overlay.get("systems", {})):
        problems += _layout_problems(name, merged["systems"][name])
    for name in sorted(overlay.get("switches", {})):
        problems += _switch_problems(f"switches.{name}", merged["switches"][name])
    for section, count in (("servers", "nics"), ("systems", "tray_nics")):
        for name in sorted(overlay.get(section, {})):
            problems += _cage_problems(f"{section}.{name}", merged[section][name], count)
    problems += _naming_problems(merged, overlay)
    problems += _reach_problems(merged, overlay)
    problems += _target_problems(merged, overlay)
    return problems


def _missing_fields(merged: dict[str, Any], overlay: dict[str, Any], shipped: dict[str, Any]) -> list[str]:
    """The fields a new entry of the site catalog leaves out (an entry that overrides a shipped one may)."""
    problems = []
    for section, fields in REQUIRED.items():
        for name in sorted(overlay.get(section, {})):
            if name in shipped[section]:
                continue
            missing = [field for field in fields if field not in merged[section][name]]
            if missing:
                kind = {
                    "switches": "switch",
                    "servers": "server",
                    "media": "medium",
                    "nics": "NIC",
                    "systems": "system",
                }[section]
                problems.append(
                    f"{section}.{name}: a new {kind} needs {', '.join(missing)} in a site catalog (only "
                    "an entry that overrides a shipped one may leave fields out)"
                )
    return problems


def _unknown_nics(merged: dict[str, Any], overlay: dict[str, Any]) -> list[str]:
    """The NICs a site server or system names that are no NIC of the catalog."""
    problems = []
    for section in ("servers", "systems"):
        for name, entry in sorted(overlay.get(section, {}).items()):
            named = [entry.get("nic"), entry.get("north_south_nic"), *entry.get("nic_options", ())]
            unknown = [nic for nic in named if nic is not None and nic not in merged["nics"]]
            if unknown:
                problems.append(
                    f"{section}.{name}: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not a NIC of the "
                    f"catalog; known: {', '.join(sorted(merged['nics']))}"
                )
    return problems


def _naming_problems(merged: dict[str, Any], overlay: dict[str, Any]) -> list[str]:
    """What is wrong with a site server's lists of its NIC ports' names."""
    problems = []
    for name, entry in sorted(overlay.get("servers", {}).items()):
        for field, rule in (("nic_names", "nics"), ("rdma_devices", "rdma_devices")):
            if field in entry and isinstance(merged["servers"][name].get("nics"), int):
                problems += [
                    f"servers.{name}.{field}{'' if index is None else f'[{index}]'}: {message}"
                    for index, message in naming_problems(rule, entry[field], merged["servers"][name]["nics"])
                ]
    return problems


def _reach_problems(merged: dict[str, Any], overlay: dict[str, Any]) -> list[str]:
    """A site medium's reaches without a default."""
    problems = []
    for name, entry in sorted(overlay.get("media", {}).items()):
        if "reach_m" in entry and "default" not in merged["media"][name]["reach_m"]:
            problems.append(
                f"media.{name}.reach_m: needs a default reach for the speeds it does not list, e.g. "
                "{default: 30, 800: 20}"
            )
    return problems


def _target_problems(merged: dict[str, Any], overlay: dict[str, Any]) -> list[str]:
    """Port names given for an OS whose names are fixed, and dynamic-balancing platforms that are no catalog switch."""
    problems = []
    for target, entry in sorted(overlay.get("targets", {}).items()):
        if "port_names" in entry and TARGETS[target].fixed_port_names:
            problems.append(
                f"targets.{target}.port_names: {target}'s port names are not a site's to choose: "
                f"{TARGETS[target].fixed_port_names}"
            )
        for mode, models in sorted(entry.get("load_balancing", {}).get("platforms", {}).items()):
            unknown = [model for model in models if model not in merged["switches"]]
            if unknown:
                problems.append(
                    f"targets.{target}.load_balancing.platforms.{mode}: {', '.join(unknown)} "
                    f"{'is' if len(unknown) == 1 else 'are'} not a switch of the catalog; known: "
                    f"{', '.join(sorted(merged['switches']))}"
                )
    return problems


def _switch_problems(where: str, entry: dict[str, Any]) -> list[str]:
    """What a tier cannot take from a switch entry: link speeds its ports cannot run (faster than the port, or not a
    breakout of it into at most ``MAX_BREAKOUT`` links), line cards that do not divide its ports, a first line card
    on a switch without line cards."""
    ports, speed = entry.get("ports"), entry.get("speed")
    problems = []
    if isinstance(speed, int):
        valid = [link for link in SPEEDS if link <= speed and speed % link == 0 and speed // link <= MAX_BREAKOUT]
        wrong = [link for link in entry.get("link_speeds", ()) if link not in valid]
        if wrong:
            problems.append(
                f"{where}.link_speeds: {', '.join(f'{link}G' for link in wrong)} "
                f"{'is' if len(wrong) == 1 else 'are'} not a speed its {speed}G ports run at (a port runs whole or "
                f"broken out into at most {MAX_BREAKOUT} links); valid: {', '.join(f'{link}G' for link in valid)}"
            )
    card = entry.get("line_card_ports")
    if isinstance(card, int) and isinstance(ports, int) and (card > ports or ports % card):
        fitting = [count for count in range(1, ports + 1) if ports % count == 0]
        problems.append(
            f"{where}.line_card_ports: {card} ports a line card do not fill the chassis's {ports} ports (ports: "
            f"{ports}) with whole cards; valid: a divisor of {ports}, such as {', '.join(map(str, fitting[-4:]))}"
        )
    if "first_line_card" in entry and not card:
        problems.append(
            f"{where}.first_line_card: only a chassis has line cards; give line_card_ports (the ports of one card) "
            "beside it, or remove first_line_card"
        )
    return problems


def _cage_problems(where: str, entry: dict[str, Any], count: str) -> list[str]:
    """What is wrong with an entry's cages: NIC ports (``entry[count]`` of them, from 0) that no cage or two cages
    carry, or that it does not have."""
    cages, nics = entry.get("cages"), entry.get(count)
    if not cages or not isinstance(nics, int):
        return []
    carried = [port for ports in cages.values() for port in ports]
    beyond = sorted({port for port in carried if port >= nics})
    twice = sorted({port for port in carried if carried.count(port) > 1})
    missing = sorted(set(range(nics)) - set(carried))
    wrong = [
        *([f"NIC ports {', '.join(map(str, beyond))} beyond its {nics} ({count}: {nics})"] if beyond else []),
        *([f"NIC ports {', '.join(map(str, twice))} in two cages"] if twice else []),
        *([f"NIC ports {', '.join(map(str, missing))} in no cage"] if missing else []),
    ]
    if not wrong:
        return []
    return [
        f"{where}.cages: {'; '.join(wrong)}; list each of NIC ports 0 to {nics - 1} in exactly one cage, e.g. "
        "{OSFP1: [0, 1], OSFP2: [2, 3]} for twin-port cages"
    ]


def _layout_problems(name: str, system: dict[str, Any]) -> list[str]:
    """What is wrong with a system's rack layout: a part given other than as many times as the system has it, compute
    trays of another height than ``tray_rack_units``."""
    layout = system.get("rack_layout")
    if not layout:
        return []
    counts = dict.fromkeys(SYSTEM_PARTS, 0)
    for part, count, _ in layout:
        counts[part] += count
    wrong = [
        f"{counts[part]} x {part} where {field} is {system[field]}"
        for part, field in SYSTEM_PARTS.items()
        if counts[part] != system[field]
    ]
    problems = []
    if wrong:
        problems.append(
            f"systems.{name}.rack_layout: {'; '.join(wrong)}; list each part as many times as the system has it"
        )
    heights = sorted({units for part, _, units in layout if part == "compute_tray"} - {system["tray_rack_units"]})
    if heights:
        problems.append(
            f"systems.{name}.rack_layout: compute trays of {', '.join(f'{units}U' for units in heights)}, but "
            f"tray_rack_units is {system['tray_rack_units']}; give the trays their own height"
        )
    return problems

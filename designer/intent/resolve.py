"""Load an intent file into a fully specified :class:`Intent`, or explain everything wrong with it.

Loading runs in three passes, each collecting every problem before it stops: safe YAML with line
numbers, pydantic for types and known keys, then the cross-field rules below (catalog defaults,
divisibility, speeds, pool overlaps). Later stages receive an ``Intent`` whose every field is set.
"""

from __future__ import annotations

import difflib
import hashlib
import math
import types
import typing
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

from netaddr import IPNetwork
from pydantic import BaseModel, ValidationError

from designer.catalog import catalog
from designer.errors import InputError, Path, Problem, Source
from designer.intent.configs import QosSpec, resolve_qos, routing_problems, target_problems
from designer.intent.facility import Facility, resolve_facility
from designer.intent.schema import (
    MAX_GPUS,
    AddressingDoc,
    ChecksDoc,
    IntentDoc,
    RoutingDoc,
    SwitchDoc,
    private_asns,
)
from designer.intent.workloads import Workload, resolve_workloads
from designer.intent.yaml_source import load_yaml

TIERS = ("leaf", "spine", "super_spine")


@dataclass(frozen=True)
class SwitchSpec:
    """The hardware of one switch tier, every field known."""

    model: str
    ports: int
    speed: int
    rack_units: int
    power_w: int
    power_w_optics: int

    def radix(self, link_speed: int) -> int:
        """Logical ports when every physical port breaks out into links of ``link_speed``."""
        return self.ports * self.breakout(link_speed)

    def breakout(self, link_speed: int) -> int:
        """Logical links per physical port."""
        return self.speed // link_speed


@dataclass(frozen=True)
class ServerSpec:
    """One GPU server, every field known."""

    model: str
    gpus: int
    nics: int
    nic_speed: int
    power_kw: float
    rack_units: int


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
    addressing: AddressingDoc
    routing: RoutingDoc
    targets: tuple[str, ...]
    qos: QosSpec
    facility: Facility
    checks: ChecksDoc
    source: Source
    sha256: str
    workloads: tuple[Workload, ...] = ()
    """Training jobs to analyze on the fabric (``designer analyze``), each alone on an idle fabric."""

    @property
    def gpus(self) -> int:
        return self.servers * self.server.gpus

    @property
    def rails(self) -> int:
        """NIC ports per server in one plane: one rail each."""
        return self.server.nics // self.planes

    def switch(self, role: str) -> SwitchSpec:
        """The hardware of the switches of ``role`` (``leaf``, ``spine`` or ``super_spine``)."""
        return {"leaf": self.leaf, "spine": self.spine, "super_spine": self.super_spine}[role]


def load_intent(path: str | FilePath) -> Intent:
    """Read, validate and resolve an intent file. Raises :class:`InputError` listing every problem."""
    file = FilePath(path)
    try:
        raw = file.read_bytes()
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise InputError([Problem((), f"no such intent file: {file}")]) from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError([Problem((), f"cannot read {file}: {error}")]) from None
    return parse_intent(text, str(path), hashlib.sha256(raw).hexdigest())


def parse_intent(text: str, filename: str = "<intent>", sha256: str | None = None) -> Intent:
    """Validate and resolve intent YAML given as text."""
    data, source = load_yaml(text, filename)
    if not isinstance(data, dict):
        raise InputError([Problem((), "the intent must be a YAML mapping with at least name, compute "
                                      "and fabric")], source)
    try:
        doc = IntentDoc.model_validate(data)
    except ValidationError as error:
        raise InputError([_pydantic_problem(item) for item in error.errors()], source) from None
    problems: list[Problem] = []
    intent = _resolve(doc, source, sha256 or hashlib.sha256(text.encode()).hexdigest(), problems)
    if problems or intent is None:
        raise InputError(problems, source)
    return intent


def _resolve(doc: IntentDoc, source: Source, sha256: str, problems: list[Problem]) -> Intent | None:
    server = _server(doc, problems)
    planes = doc.fabric.planes or (catalog().servers[doc.compute.server].planes if doc.compute.server else 1)
    switches = _switches(doc, problems)
    if server is None or switches is None:
        return None
    servers = _server_count(doc, server, problems)
    if server.nics % planes:
        where = ("fabric", "planes") if doc.fabric.planes else ("compute", "nics_per_server")
        problems.append(Problem(where, f"{server.nics} NIC ports per server cannot split evenly into {planes} "
                                       f"planes; use a plane count that divides {server.nics}"))
    for tier, spec in zip(TIERS, switches, strict=True):
        problems.extend(_speed_problems(tier, spec, server.nic_speed))
    problems.extend(_pool_overlaps(doc.addressing))
    problems.extend(_asn_start_problems(doc.routing))
    problems.extend(routing_problems(doc.routing))
    problems.extend(target_problems(doc.targets))
    qos = resolve_qos(doc.qos, doc.targets, problems)
    facility = resolve_facility(doc.facility, server.nic_speed,
                                {spec.model: spec.rack_units for spec in (server, *switches)}, problems)
    workloads = resolve_workloads(doc.workloads, servers * server.gpus, server.gpus, problems)
    if problems:
        return None
    return Intent(name=doc.name, description=doc.description, servers=servers, server=server, planes=planes,
                  tiers=doc.fabric.tiers, leaf=switches[0], spine=switches[1], super_spine=switches[2],
                  addressing=doc.addressing, routing=doc.routing, targets=tuple(doc.targets), qos=qos,
                  facility=facility, checks=doc.checks, source=source, sha256=sha256, workloads=workloads)


def _server(doc: IntentDoc, problems: list[Problem]) -> ServerSpec | None:
    compute = doc.compute
    base = catalog().servers.get(compute.server) if compute.server else None
    fields = {
        "gpus_per_server": compute.gpus_per_server or (base.gpus if base else None),
        "nics_per_server": compute.nics_per_server or (base.nics if base else None),
        "nic_speed": compute.nic_speed or (base.nic_speed if base else None),
        "server_power_kw": compute.server_power_kw or (base.power_kw if base else None),
    }
    missing = [name for name, value in fields.items() if value is None]
    for name in missing:
        problems.append(Problem(("compute", name), "is required unless compute.server names a catalog model "
                                                   f"({', '.join(catalog().servers)})"))
    if missing:
        return None
    return ServerSpec(model=compute.server or "custom", gpus=fields["gpus_per_server"],
                      nics=fields["nics_per_server"], nic_speed=fields["nic_speed"],
                      power_kw=fields["server_power_kw"],
                      rack_units=compute.server_rack_units or (base.rack_units if base else 8))


def _server_count(doc: IntentDoc, server: ServerSpec, problems: list[Problem]) -> int:
    compute = doc.compute
    if (compute.servers is None) == (compute.gpus is None):
        problems.append(Problem(("compute",), "give exactly one of compute.servers or compute.gpus"))
        return 0
    if compute.gpus is not None:
        if compute.gpus % server.gpus:
            problems.append(Problem(("compute", "gpus"), f"{compute.gpus} GPUs do not fill whole servers of "
                                                         f"{server.gpus} GPUs; use a multiple of {server.gpus}"))
        return compute.gpus // server.gpus
    if compute.servers * server.gpus > MAX_GPUS:
        problems.append(Problem(("compute", "servers"), f"{compute.servers} servers hold "
                                                        f"{compute.servers * server.gpus:,} GPUs, above the "
                                                        f"limit of {MAX_GPUS:,}"))
    return compute.servers


def _switches(doc: IntentDoc, problems: list[Problem]) -> tuple[SwitchSpec, ...] | None:
    """Resolve the three tiers; the spine defaults to the leaf's hardware, the super-spine to the spine's."""
    leaf = _switch(doc.fabric.leaf, ("fabric", "leaf"), problems)
    spine = _switch(doc.fabric.spine, ("fabric", "spine"), problems) if doc.fabric.spine else leaf
    super_spine = (_switch(doc.fabric.super_spine, ("fabric", "super_spine"), problems)
                   if doc.fabric.super_spine else spine)
    if leaf is None or spine is None or super_spine is None:
        return None
    return leaf, spine, super_spine


def _switch(switch: SwitchDoc, path: Path, problems: list[Problem]) -> SwitchSpec | None:
    base = catalog().switches.get(switch.model) if switch.model else None
    ports = switch.ports or (base.ports if base else None)
    speed = switch.speed or (base.speed if base else None)
    if ports is None or speed is None:
        problems.append(Problem(path, "give a catalog model or both ports and speed, for example "
                                      "{model: generic-64x400g} or {ports: 64, speed: 400G}; known models: "
                                      f"{', '.join(catalog().switches)}"))
        return None
    power_w = switch.power_w or (base.power_w if base else round(ports * speed * 0.023))
    return SwitchSpec(
        model=switch.model or f"custom-{ports}x{speed}g",
        ports=ports,
        speed=speed,
        rack_units=switch.rack_units or (base.rack_units if base else max(1, math.ceil(ports / 32))),
        power_w=power_w,
        power_w_optics=switch.power_w_optics or (base.power_w_optics if base else power_w + ports * speed // 50),
    )


def _speed_problems(tier: str, spec: SwitchSpec, nic_speed: int) -> list[Problem]:
    path = ("fabric", tier)
    if spec.speed < nic_speed:
        return [Problem((*path, "speed"), f"{spec.model} ports run at {spec.speed}G, slower than the "
                                          f"{nic_speed}G NICs; every fabric link runs at the NIC speed, so use "
                                          f"ports of {nic_speed}G or faster")]
    if spec.speed % nic_speed:
        return [Problem((*path, "speed"), f"{spec.speed}G ports cannot break out into {nic_speed}G links; use "
                                          f"a port speed that is a multiple of {nic_speed}G")]
    if spec.radix(nic_speed) % 2:
        return [Problem((*path, "ports"), f"{spec.radix(nic_speed)} logical ports cannot split evenly into "
                                          "downlinks and uplinks; use an even number")]
    return []


def _pool_overlaps(addressing: AddressingDoc) -> list[Problem]:
    pools = [(name, IPNetwork(value)) for name, value in addressing.model_dump().items()]
    problems = []
    for index, (name, network) in enumerate(pools):
        for other, other_network in pools[:index]:
            if network.first <= other_network.last and other_network.first <= network.last:
                problems.append(Problem(("addressing", name), f"{network} overlaps addressing.{other} "
                                                              f"({other_network}); pools must be disjoint"))
    return problems


def _asn_start_problems(routing: RoutingDoc) -> list[Problem]:
    problems = []
    for field in ("leaf_asn_start", "spine_asn_start", "super_spine_asn_start"):
        asn = getattr(routing, field)
        if asn is not None and not private_asns(asn):
            problems.append(Problem(("routing", field), f"{asn} is not a private ASN; use 64512-65534 "
                                                        "(2-byte) or 4200000000-4294967294 (4-byte)"))
    return problems


def _pydantic_problem(error: Any) -> Problem:
    path = tuple(error["loc"])
    kind = error["type"]
    if kind == "extra_forbidden":
        return Problem(path, _unknown_key_message(path))
    if kind == "missing":
        return Problem(path, "is required")
    if kind in {"model_type", "dict_type"}:
        return Problem(path, f"should be a mapping of keys to values (got {error['input']!r})")
    message = error["msg"].removeprefix("Value error, ")
    if kind.endswith("_type") or kind in {"literal_error", "int_parsing", "int_from_float", "greater_than",
                                          "greater_than_equal", "less_than", "less_than_equal"}:
        message = f"{message} (got {error['input']!r})"
    return Problem(path, message)


def _unknown_key_message(path: Path) -> str:
    key = str(path[-1])
    model = _model_at(path[:-1])
    known = list(model.model_fields) if model else []
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else "."
    return f"unknown key {key!r}{hint} Valid keys here: {', '.join(known)}"


def _model_at(path: Path) -> type[BaseModel] | None:
    model: type[BaseModel] | None = IntentDoc
    for part in path:
        if isinstance(part, int):
            continue  # an item of a list keeps the list's model
        field = model.model_fields.get(str(part)) if model else None
        model = _submodel(field.annotation) if field else None
    return model


def _submodel(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        for arg in typing.get_args(annotation):
            found = _submodel(arg)
            if found:
                return found
    if typing.get_origin(annotation) is list:
        return _submodel(typing.get_args(annotation)[0])
    return None

"""Intent settings for the switch configurations: the QoS profile with its overrides, BGP session options.

Profiles are data (``designer/qos_profiles.yaml``); an intent names one and overrides fields one by one.
The cross-field rules below run once, at load time, so every later stage reads values that are known
to be consistent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cache
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    WithJsonSchema,
)

from designer.catalog import Balancing, Catalog, TargetModel, shipped_data
from designer.errors import Path, Problem
from designer.intent.fields import (
    Section,
    record_of,
)
from designer.intent.routing_section import AddressingDoc, RoutingDoc
from designer.targets import TARGETS


@dataclass(frozen=True)
class QosSpec:
    """The lossless RoCEv2 profile, every field known (see ``qos_profiles.yaml`` for meanings)."""

    profile: str
    roce_dscp: int
    roce_priority: int
    cnp_dscp: int
    cnp_priority: int
    cnp_rate_percent: int | None
    roce_bandwidth_percent: int
    ecn: bool
    ecn_unit: str
    ecn_min: int
    ecn_max: int
    ecn_probability: int
    queue_bytes: int | None
    pfc_watchdog: bool
    pfc_watchdog_detection_ms: int
    pfc_watchdog_restoration_ms: int
    mtu: int
    cable_length_m: int
    pfc_response_ns: int

    @property
    def ecn_min_bytes(self) -> int:
        return self._bytes(self.ecn_min)

    @property
    def ecn_max_bytes(self) -> int:
        return self._bytes(self.ecn_max)

    def _bytes(self, value: int) -> int:
        if self.ecn_unit == "bytes":
            return value
        return value * (self.queue_bytes or 0) // 100


@cache
def qos_profiles() -> dict[str, dict[str, Any]]:
    """The shipped QoS profiles by name, read once."""
    profiles: dict[str, dict[str, Any]] = shipped_data("qos_profiles.yaml")
    return profiles


def resolve_qos(doc: QosDoc, targets: list[str], problems: list[Problem], hardware: Catalog) -> QosSpec:
    """The profile named by ``doc`` with the intent's overrides applied; problems are appended."""
    written = doc.model_dump(exclude_none=True)
    values = {**qos_profiles()[doc.profile], **written}
    spec = QosSpec(**{field.name: values[field.name] for field in fields(QosSpec)})

    def where(field: str) -> tuple[str, str]:
        return ("qos", field if field in written else "profile")

    if spec.roce_dscp == spec.cnp_dscp:
        problems.append(
            Problem(
                where("cnp_dscp"),
                f"CNP and RoCE data share DSCP {spec.cnp_dscp}; CNP needs its own DSCP (48 in every profile)",
            )
        )
    if spec.roce_priority == spec.cnp_priority:
        problems.append(
            Problem(
                where("cnp_priority"),
                (
                    f"CNP and RoCE data share priority {spec.cnp_priority}; CNP must not wait behind paused lossless "
                    "data, so give it its own strict-priority queue (6 or 7)"
                ),
            )
        )
    for field in ("roce_priority", "cnp_priority"):
        if getattr(spec, field) == 0:
            problems.append(Problem(where(field), "priority 0 carries all other (lossy) traffic; use 1-7"))
    problems.extend(_ecn_problems(spec, where))
    problems.extend(_watchdog_problems(spec, targets, where, hardware))
    return spec


def _ecn_problems(spec: QosSpec, where: Callable[[str], Path]) -> list[Problem]:
    """The problems of the ECN thresholds: their order, and in percent their range and the queue size they need;
    ``where`` gives the field a problem is reported on."""
    problems = []
    if spec.ecn_min >= spec.ecn_max:
        problems.append(
            Problem(
                where("ecn_min"),
                (
                    f"the ECN start threshold ({spec.ecn_min}) must be below ecn_max ({spec.ecn_max}) so that marking "
                    "ramps up before the queue fills"
                ),
            )
        )
    if spec.ecn_unit == "percent":
        if spec.ecn_max > 100:
            problems.append(
                Problem(where("ecn_max"), f"{spec.ecn_max} is not a percentage; use 1-100 or set ecn_unit: bytes")
            )
        if spec.queue_bytes is None:
            problems.append(
                Problem(
                    where("queue_bytes"),
                    (
                        f"the {spec.profile} profile gives ECN thresholds in percent of the RoCE queue's buffer, but "
                        "switch configurations take bytes; give qos.queue_bytes (your switch's per-queue limit, for "
                        "example 3145728) or ecn_unit: bytes with ecn_min and ecn_max in bytes"
                    ),
                )
            )
    return problems


def _watchdog_problems(
    spec: QosSpec, targets: list[str], where: Callable[[str], Path], hardware: Catalog
) -> list[Problem]:
    """The PFC watchdog's times below what a target of ``targets`` accepts; ``where`` gives the field a problem is
    reported on."""
    problems = []
    for target in targets if spec.pfc_watchdog else ():
        capability = hardware.targets[target]
        minimum = capability.min_pfc_watchdog_ms
        for field in ("pfc_watchdog_detection_ms", "pfc_watchdog_restoration_ms"):
            if minimum is not None and getattr(spec, field) < minimum:
                upper = next(rule.le for rule in QosDoc.model_fields[field].metadata if hasattr(rule, "le"))
                problems.append(
                    Problem(
                        where(field),
                        (
                            f"{getattr(spec, field)} ms is below {capability.label}'s PFC watchdog minimum of "
                            f"{minimum} ms; use {minimum}-{upper} ms or drop {target} from targets"
                        ),
                    )
                )
    return problems


def routing_problems(routing: RoutingDoc) -> list[Problem]:
    """Cross-field rules of the BGP session options."""
    timers = routing.timers
    if timers.hold < 3 * timers.keepalive:
        return [
            Problem(
                ("routing", "timers", "hold"),
                (
                    f"a hold time of {timers.hold}s with {timers.keepalive}s keepalives drops a session after fewer "
                    f"than three lost keepalives; use hold >= {3 * timers.keepalive} or a shorter keepalive"
                ),
            )
        ]
    return []


def bfd_problems(routing: RoutingDoc, targets: list[str], releases: dict[str, str], hardware: Catalog) -> list[Problem]:
    """BFD intervals a target's release cannot configure (``releases``: the release chosen per target)."""
    bfd = routing.bfd
    problems = []
    for target in targets if bfd.enabled else ():
        capability = hardware.targets[target]
        limits = capability.bfd_range(releases.get(target))
        if limits is None or limits[0] <= bfd.interval_ms <= limits[1]:
            continue
        release = releases.get(target) or capability.default_release
        later = [
            name
            for name in capability.releases[capability.releases.index(release or "") :]
            if (bounds := capability.bfd_range(name)) and bounds[0] <= bfd.interval_ms <= bounds[1]
        ]
        instead = f', set target_options.{target}.release: "{later[0]}" or later,' if later else ""
        problems.append(
            Problem(
                ("routing", "bfd", "interval_ms"),
                (
                    f"{bfd.interval_ms} ms is outside the BFD intervals {capability.label} {release} can configure "
                    f"({limits[0]}-{limits[1]} ms); use {limits[0]}-{limits[1]} ms{instead} or drop {target} from "
                    "targets"
                ),
            )
        )
    return problems


def underlay_problems(
    routing: RoutingDoc, addressing: AddressingDoc, targets: list[str], hardware: Catalog
) -> list[Problem]:
    """An unnumbered underlay gives switch-to-switch links no addresses, so a pool for them is a contradiction; and
    every target must be able to run the chosen underlay (catalog ``targets.<os>.underlays``)."""
    problems = []
    if routing.underlay == "unnumbered" and addressing.fabric_p2p is not None:
        problems.append(
            Problem(
                ("addressing", "fabric_p2p"),
                (
                    "switch-to-switch links take no addresses with routing.underlay: unnumbered, so this pool would "
                    "go unused; remove addressing.fabric_p2p, or set routing.underlay: numbered to give the links /31s"
                ),
            )
        )
    lacking = [target for target in targets if routing.underlay not in hardware.targets[target].underlays]
    if lacking:
        runs = "; ".join(
            f"{hardware.targets[target].label} {', '.join(hardware.targets[target].underlays)}" for target in targets
        )
        names = ", ".join(lacking)
        problems.append(
            Problem(
                ("routing", "underlay"),
                (
                    f"{names} cannot run a {routing.underlay} underlay on this site's platforms (catalog "
                    f"targets.<os>.underlays; each target runs: {runs}); choose an underlay every target runs or drop "
                    f"{names} from targets"
                ),
            )
        )
    return problems


def target_problems(targets: list[str]) -> list[Problem]:
    """A target listed twice is a typo worth pointing at; a target that needs another (SONiC runs BGP from the FRR
    file, split-unified mode) needs it listed too."""
    problems = [
        Problem(("targets", index), f"{target!r} is listed twice; list each network OS once")
        for index, target in enumerate(targets)
        if target in targets[:index]
    ]
    for index, target in enumerate(targets):
        problems.extend(
            Problem(("targets", index), f"{why}; add {needed} to targets")
            for needed, why in TARGETS[target].needs
            if needed not in targets and target not in targets[:index]
        )
    return problems


def balancing_problems(
    doc: LoadBalancingDoc,
    targets: list[str],
    models: set[str],
    speeds: tuple[int, ...],
    hardware: Catalog,
    fields: tuple[str, ...] = ("mode", "hash", "seeds"),
    nic_modes: tuple[str, ...] | None = None,
) -> list[Problem]:
    """The load-balancing choices some target cannot express (catalog ``targets``: modes, hashes, seed rules):
    one problem per field of ``fields`` (those read as written), naming the targets that lack it and what each
    target accepts. A mode also needs every switch of ``models`` on a platform that runs it under each target, at
    every link speed of ``speeds`` in Gb/s (empty: not known, not checked), and spraying needs NICs that spray
    (``nic_modes``, the server's; None: not known, not checked); ``hardware`` is the catalog the intent designs
    with."""
    capabilities = {target: hardware.targets[target] for target in sorted(targets)}
    problems = []
    for field, choices in (("mode", "modes"), ("hash", "hashes"), ("seeds", "seeds")):
        if field not in fields:
            continue
        if problem := _lacking_problem(field, choices, getattr(doc, field), capabilities, models, speeds):
            problems.append(problem)
    if "mode" in fields and doc.mode == "spray" and nic_modes is not None and "spray" not in nic_modes:
        problems.append(_spray_problem(hardware))
    return problems


def _lacking_problem(
    field: str,
    choices: str,
    value: str,
    capabilities: dict[str, TargetModel],
    models: set[str],
    speeds: tuple[int, ...],
) -> Problem | None:
    """The problem of a load-balancing ``field`` whose ``value`` some target cannot express (its catalog
    ``choices``), or a mode some switch of ``models`` does not run at a link speed of ``speeds``; None: every target
    can."""
    lacking = [
        target
        for target, capability in capabilities.items()
        if value not in getattr(capability.load_balancing, choices)
        or (
            field == "mode"
            and not all(capability.load_balancing.runs(value, models, speed) for speed in speeds or (None,))
        )
    ]
    if lacking:
        accepted = "; ".join(
            f"{capability.label} {_accepted(capability.load_balancing, choices)}"
            for capability in capabilities.values()
        )
        names = ", ".join(lacking)
        platforms = [capabilities[target].load_balancing.platforms for target in lacking]
        missing = sorted({model for runs in platforms for model in models - set(runs.get(value, models))})
        where = f"not on {', '.join(missing)}; " if field == "mode" and missing else ""
        return Problem(
            ("load_balancing", field),
            (
                f"{value} is not something {names} can express here ({where}each target accepts: {accepted}); "
                f"choose what every target accepts or drop {names} from targets"
                + (_plane_hint(value, speeds, [capabilities[target].load_balancing for target in lacking]))
            ),
        )
    return None


def _spray_problem(hardware: Catalog) -> Problem:
    """Spraying asked of a server whose NICs do not spray, naming the servers of ``hardware`` whose NICs do."""
    spraying = ", ".join(
        name
        for name, server in hardware.servers.items()
        if "spray" in (server.nic_modes or (hardware.nics[server.nic].modes if server.nic in hardware.nics else ()))
    )
    return Problem(
        ("load_balancing", "mode"),
        (
            "spray needs NICs that spray each connection's packets over many paths, and this server's do "
            f"not (catalog nics.<nic>.modes); choose a server whose NICs spray ({spraying or 'none'}) or "
            "pick such a NIC with compute.nic, state nic_modes: [spray] for yours in a site catalog, or use "
            "another mode"
        ),
    )


def _plane_hint(mode: str, speeds: tuple[int, ...], lacking: list[Balancing]) -> str:
    """For a mode refused only at link speeds it runs at half of, how planes would take it: each NIC port split
    into 2 planes of half its speed (``compute.multiplane``), the uplinks at that speed too."""
    runs = [set(balancing.speeds[mode]) for balancing in lacking if mode in balancing.speeds]
    too_fast = sorted({speed for speed in speeds if any(speed not in allowed for allowed in runs)})
    if not runs or not too_fast or not all(speed // 2 in allowed for speed in too_fast for allowed in runs):
        return ""
    fast, half = too_fast[-1], too_fast[-1] // 2
    return (
        f"; or run it at {half}G: {fast}G NIC ports split into 2 planes of {half}G each (compute.multiplane: "
        f"{{planes: 2}}, on a NIC that serves 2 planes a port, such as nvidia-cx8) with the uplinks at {half}G "
        "(uplink_speed)"
    )


def _accepted(balancing: Balancing, choices: str) -> str:
    """What one target accepts for a field, with where each mode that needs the platform runs."""
    if choices != "modes":
        return ", ".join(getattr(balancing, choices))
    return ", ".join(mode + _where(balancing, mode) for mode in balancing.modes)


def _where(balancing: Balancing, mode: str) -> str:
    """`` (only on <models> with <speeds> links)`` for a mode that needs the platform, else nothing."""
    if mode not in balancing.platforms:
        return ""
    speeds = "/".join(f"{speed}G" for speed in balancing.speeds.get(mode, ()))
    return f" (only on {', '.join(balancing.platforms[mode])}{f' with {speeds} links' if speeds else ''})"


def sku_problems(hwsku: str | None, switches: dict[str, tuple[str, int, int, int]], hardware: Catalog) -> list[Problem]:
    """A chosen SONiC SKU must run the port layout of a switch of the intent (``switches``: per tier its model,
    physical ports, breakout and link speed in Gb/s)."""
    if hwsku is None:
        return []
    facts = hardware.switch_facts
    fitting = {
        sku.hwsku: tier
        for tier, (model, cages, breakout, speed) in switches.items()
        if model in facts
        for sku in facts[model].sonic.fitting(cages, breakout, speed)
    }
    if hwsku in fitting:
        return []
    model, sku = next(
        (model, sku) for model, of_model in facts.items() for sku in of_model.sonic.skus if sku.hwsku == hwsku
    )
    tiers: dict[tuple[str, int, int, int], list[str]] = {}
    for tier, layout in switches.items():
        tiers.setdefault(layout, []).append(tier)
    runs = "; ".join(
        f"{', '.join(names)}: {model_}, {cages} ports as {breakout} x {speed}G"
        for (model_, cages, breakout, speed), names in tiers.items()
    )
    instead = (
        f"use one of {', '.join(fitting)}"
        if fitting
        else "the catalog has no SONiC SKU for these switches, so leave hwsku out"
    )
    return [
        Problem(
            ("target_options", "sonic", "hwsku"),
            (
                f"{hwsku} runs {model} with {facts[model].sonic.cages} cages as {sku.breakout} x "
                f"{sku.speed}G, which no switch of this intent is ({runs}); {instead}"
            ),
        )
    ]


Dscp = Annotated[int, Field(ge=0, le=63)]
Priority = Annotated[int, Field(ge=0, le=7)]
_PROFILE = "Default: the profile's value (designer/qos_profiles.yaml)."


class QosDoc(Section):
    """RoCEv2 lossless QoS: a vendor profile (``designer/qos_profiles.yaml``), overridable field by field."""

    profile: Literal["nvidia", "cisco", "juniper"] = Field(
        "nvidia", description=("The vendor profile every other qos field defaults from.")
    )
    roce_dscp: Dscp | None = Field(None, description=f"DSCP of RoCE data. {_PROFILE}")
    roce_priority: Priority | None = Field(
        None,
        description=(f"Priority (traffic class and queue) of RoCE data, the only lossless one with PFC. {_PROFILE}"),
    )
    cnp_dscp: Dscp | None = Field(None, description=f"DSCP of congestion notification packets (CNP). {_PROFILE}")
    cnp_priority: Priority | None = Field(None, description=f"Strict-priority queue of CNP. {_PROFILE}")
    cnp_rate_percent: int | None = Field(
        None, ge=1, le=100, description=(f"Cap on the strict CNP queue, in percent of the port. {_PROFILE}")
    )
    roce_bandwidth_percent: int | None = Field(
        None,
        ge=1,
        le=99,
        description=(f"DWRR share of the RoCE queue; queue 0 (every other DSCP) gets the rest. {_PROFILE}"),
    )
    ecn: bool | None = Field(None, description=f"ECN marking (never dropping) on the RoCE queue. {_PROFILE}")
    ecn_unit: Literal["bytes", "percent"] | None = Field(
        None, description=(f"Unit of ecn_min and ecn_max: bytes, or percent of queue_bytes. {_PROFILE}")
    )
    ecn_min: int | None = Field(
        None, ge=1, le=1 << 32, description=(f"Queue depth where ECN marking starts; below ecn_max. {_PROFILE}")
    )
    ecn_max: int | None = Field(
        None, ge=1, le=1 << 32, description=(f"Queue depth where marking reaches ecn_probability. {_PROFILE}")
    )
    ecn_probability: int | None = Field(
        None, ge=1, le=100, description=(f"Percent of packets marked at ecn_max. {_PROFILE}")
    )
    queue_bytes: int | None = Field(
        None,
        ge=1,
        le=1 << 32,
        description=(f"Buffer limit of the RoCE queue that percent thresholds refer to. {_PROFILE}"),
    )
    pfc_watchdog: bool | None = Field(
        None, description=(f"Drop on a queue paused longer than the detection time, until restored. {_PROFILE}")
    )
    pfc_watchdog_detection_ms: int | None = Field(
        None,
        ge=10,
        le=5000,
        description=(f"PFC watchdog detection time, in milliseconds (SONiC takes at least 100). {_PROFILE}"),
    )
    pfc_watchdog_restoration_ms: int | None = Field(
        None,
        ge=10,
        le=60_000,
        description=(f"PFC watchdog restoration time, in milliseconds (SONiC takes at least 100). {_PROFILE}"),
    )
    mtu: int | None = Field(None, ge=1500, le=9216, description=f"MTU of every port. {_PROFILE}")
    cable_length_m: int | None = Field(
        None,
        ge=1,
        le=10_000,
        description=(
            f"Cable length a port's PFC headroom is sized for where the design has no cable length of its own, in "
            f"metres (a build sizes every port for its cable in cabling.csv). {_PROFILE}"
        ),
    )
    pfc_response_ns: int | None = Field(
        None, ge=0, le=100_000, description=(f"PFC response time the headroom is sized for, in nanoseconds. {_PROFILE}")
    )


BALANCING_MODES = ("ecmp", "adaptive", "cluster", "spray")
"""The intent's load-balancing modes, hashing first."""
BALANCING_ALIASES = {"dynamic": "adaptive"}
"""Older names of a mode, still accepted."""


def balancing_mode(value: object) -> object:
    """A load-balancing mode by its current name (``dynamic`` was ``adaptive``'s name)."""
    return BALANCING_ALIASES.get(value, value) if isinstance(value, str) else value


BalancingMode = Annotated[
    Literal["ecmp", "adaptive", "cluster", "spray"],
    BeforeValidator(balancing_mode),
    WithJsonSchema({"type": "string", "enum": [*BALANCING_MODES, *BALANCING_ALIASES]}),
]


class LoadBalancingDoc(Section):
    """How the switches spread flows over their equal-cost paths; every target must be able to express it
    (each target card's ``capabilities``, designer/targets/)."""

    mode: BalancingMode = Field(
        "ecmp",
        description=(
            "ecmp: each flow hashed onto one path; adaptive: the switch moves flowlets or packets to less loaded "
            "paths (NVIDIA adaptive routing on Spectrum-4, Arista dynamic load balancing; the older name dynamic "
            "means the same); cluster: Arista cluster load balancing, which places RoCE flows on the leaf uplinks; "
            "spray: the NICs spray each connection's packets over all paths and the switches forward them by hash. "
            "Each only where the target and the switch run it (catalog targets), spray only with NICs that spray."
        ),
    )
    hash: Literal["five-tuple"] = Field(
        "five-tuple",
        description=(
            "Header fields the ECMP hash reads: five-tuple is source and destination address, IP protocol and both "
            "layer-4 ports, which includes the UDP source port RoCEv2 varies per queue pair for entropy (no target "
            "writes a RoCE queue-pair hash: SONiC's and NVUE's hash fields have none, EOS has it only through UDF "
            "fields)."
        ),
    )
    seeds: Literal["per-tier", "per-switch"] = Field(
        "per-tier",
        description=(
            "Hash seeds: per-tier gives leaves, spines and super-spines different seeds (the same seed on two "
            "consecutive tiers sends a leaf's flows down the same choice again: polarization); per-switch derives "
            "a seed from each switch's name, so it never changes as the fabric grows."
        ),
    )


@dataclass(frozen=True)
class BalancingSpec:
    """How the switches spread flows (``load_balancing``): the mode, the hash fields and the seeds."""

    mode: str
    hash: str
    seeds: str


def balancing_spec(doc: LoadBalancingDoc) -> BalancingSpec:
    """The ``load_balancing`` section as the stages read it."""
    return record_of(BalancingSpec, doc)

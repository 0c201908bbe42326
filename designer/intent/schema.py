"""The intent file as written: pydantic models for types, ranges and known keys.

Cross-field rules and catalog defaults are applied afterwards in :mod:`designer.intent.resolve`,
which turns this document into the fully specified :class:`~designer.intent.resolve.Intent`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from netaddr import AddrFormatError, IPNetwork
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
    create_model,
)

from designer.catalog import Catalog, catalog
from designer.intent.nic_names import PATTERN as NIC_NAME_PATTERN
from designer.intent.nic_names import RESERVED as RESERVED_NIC_NAMES
from designer.intent.nic_names import nic_name_problem
from designer.intent.yaml_source import short
from designer.targets import LAB_KINDS, NAMES, TARGETS, TECHNOLOGIES, defaults

MAX_GPUS = 1_048_576
"""The largest cluster the designer accepts (1M GPUs); anything bigger is a typo, refused at once."""
MAX_SWITCH_PORTS = 2048
MAX_PLANES = 8
MAX_BREAKOUT = 8
"""Links one switch port breaks out into: a port has at most 8 lanes (QSFP-DD, OSFP)."""
MAX_RADIX = 8192
"""Logical (broken-out) ports of one switch; the largest catalog switch has 576 ports."""
SPEEDS = (10, 25, 40, 50, 100, 200, 400, 800, 1600)
MEDIA = ("copper", "optics")
"""``facility.media``: copper where its reach covers a run and optics beyond (the shipped default), or optics on every
link."""
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$"
PRIVATE_ASN_RANGES = ((64512, 65534), (4_200_000_000, 4_294_967_294))


def private_asns(first: int, last: int | None = None) -> bool:
    """True when every ASN from ``first`` to ``last`` (default: just ``first``) is in one private range."""
    return any(low <= first and (first if last is None else last) <= high for low, high in PRIVATE_ASN_RANGES)


def parse_speed(value: object) -> object:
    """Accept ``400G``, ``1.6T``, ``400`` or 400 (Gb/s) and return whole Gb/s; anything else is left for
    validation to reject with the list of known speeds."""
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([GgTt]?)(?:b(?:ps|/s)?|bps)?\s*", value)
        if match:
            number = float(match.group(1)) * (1000 if match.group(2).lower() == "t" else 1)
            value = int(number) if number.is_integer() else value
    if isinstance(value, int) and not isinstance(value, bool) and value not in SPEEDS:
        known = ", ".join(f"{s}G" for s in SPEEDS)
        raise ValueError(f"{value}G is not a link speed; known speeds: {known}")
    return value


def check_ipv4_pool(value: str) -> str:
    """A pool is an IPv4 prefix with no host bits set, written canonically."""
    try:
        network = IPNetwork(value, version=4)
    except (AddrFormatError, ValueError, TypeError):
        raise ValueError(f"{short(value)} is not an IPv4 prefix such as 10.0.0.0/16") from None
    if "/" not in value:
        raise ValueError(f"{short(value)} needs a prefix length, for example {value}/16")
    if network.ip != network.network:
        raise ValueError(f"{value} has host bits set; the prefix starts at {network.cidr}")
    return str(network.cidr)


def safe_name(name: str) -> str:
    """The design's name becomes a folder name, so it must be a safe file name."""
    if not re.fullmatch(NAME_PATTERN, name) or ".." in name:
        raise ValueError(
            f"{short(name)} is not a safe file name; use 1-63 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit"
        )
    return name


def designing_with(info: ValidationInfo) -> Catalog | None:
    """The catalog an intent is validated against: the shipped one overlaid by the intent's site catalogs (the
    validation context's ``catalog``; None when a site catalog is in error, so no model can be known), else the
    shipped one."""
    return info.context["catalog"] if isinstance(info.context, dict) and "catalog" in info.context else catalog()


def _known(kind: str, what: str) -> AfterValidator:
    """A validator of a catalog model name of ``kind`` (``switches``, ``servers``) in the catalog designed with."""

    def check(name: str, info: ValidationInfo) -> str:
        hardware = designing_with(info)
        models = getattr(hardware, kind) if hardware else {name: None}
        if name not in models:
            raise ValueError(
                f"unknown {what} model {short(name)}; known models: {', '.join(models)} (a site catalog, "
                "named by the intent's catalog field, can add one)"
            )
        return name

    return AfterValidator(check)


SPEED_PATTERN = r"^\s*\d+(\.\d+)?\s*[GgTt]?(b(ps|/s)?|bps)?\s*$"
Speed = Annotated[
    int,
    BeforeValidator(parse_speed),
    WithJsonSchema(
        {
            "anyOf": [{"enum": list(SPEEDS)}, {"type": "string", "pattern": SPEED_PATTERN}],
            "examples": ["400G", "1.6T", 800],
        }
    ),
]
"""A link speed in Gb/s: a number, or text such as ``400G`` or ``1.6T``."""
Pool = Annotated[
    str,
    AfterValidator(check_ipv4_pool),
    WithJsonSchema({"type": "string", "pattern": r"^\d{1,3}(\.\d{1,3}){3}/\d{1,2}$", "examples": ["10.0.0.0/15"]}),
]
Asn = Annotated[int, Field(ge=1, le=4_294_967_294)]


def _catalog_names(kind: str) -> WithJsonSchema:
    """A catalog model name in the JSON Schema: the shipped models as examples (a site catalog adds its own)."""
    return WithJsonSchema({"type": "string", "examples": list(getattr(catalog(), kind))})


class Section(BaseModel):
    """Every intent section: strict types, unknown keys refused, read-only once loaded."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class MultiplaneDoc(Section):
    """One backend NIC port serving several planes (NVIDIA Spectrum-X multiplane on ConnectX-8): one physical port
    and one cable, one link at the plane speed to a leaf of each plane."""

    planes: int = Field(
        gt=1,
        le=MAX_PLANES,
        description=(
            "Planes each NIC port serves, as the NIC's catalog entry allows (ConnectX-8 800G: 2 x 400G or 4 x 200G); "
            "the fabric gets as many planes, each link running at the port speed divided by it."
        ),
    )
    mode: Literal["hwplb", "swplb"] = Field(
        "hwplb",
        description=(
            "hwplb (default; generally available from Spectrum-X RA 2.3): the NIC balances the planes, the host has "
            "one interface and address per rail, the same /31 in every plane; swplb: one interface and address per "
            "plane, NCCL balances the planes."
        ),
    )


class ComputeDoc(Section):
    """The GPU servers: how many, and what each has."""

    servers: int | None = Field(
        None, gt=0, le=MAX_GPUS, description=("Number of GPU servers; give exactly one of servers or gpus.")
    )
    gpus: int | None = Field(
        None,
        gt=0,
        le=MAX_GPUS,
        description=("Number of GPUs, a multiple of gpus_per_server; give exactly one of servers or gpus."),
    )
    server: Annotated[str, _known("servers", "server"), _catalog_names("servers")] | None = Field(
        None,
        description=(
            "A catalog server model (designer/catalog.yaml or a site catalog); it fills gpus_per_server, "
            "nics_per_server, nic_speed, server_power_kw, server_rack_units and the default plane count."
        ),
    )
    gpus_per_server: int | None = Field(None, gt=0, le=144, description="GPUs in one server.")
    nics_per_server: int | None = Field(
        None,
        gt=0,
        le=64,
        description=("Backend NIC ports of one server, all planes together (one rail each per plane)."),
    )
    nic_speed: Speed | None = Field(
        None,
        description=(
            "Speed of a backend NIC port; the server links run at it, and every fabric link too unless a tier's "
            "uplink_speed says otherwise."
        ),
    )
    server_power_kw: float | None = Field(None, gt=0, le=500, description="Maximum power of one server, in kW.")
    server_rack_units: int | None = Field(
        None, gt=0, le=60, description=("Rack units of one server (default: the catalog model's, else 8).")
    )
    nvlink_gbyte_s: float | None = Field(
        None,
        gt=0,
        le=100_000,
        description=(
            "NVLink (scale-up) bandwidth per GPU and direction inside the server, GB/s, for the workload analysis "
            "(default: the catalog model's; required for workloads on a server the catalog does not know)."
        ),
    )
    system: Annotated[str, _known("systems", "system"), _catalog_names("systems")] | None = Field(
        None,
        description=(
            "A catalog rack-scale system (gb200-nvl72, gb300-nvl72 or a site catalog's): the fabric's servers are "
            "its compute trays, placed a whole system to a rack; give systems or gpus, not servers."
        ),
    )
    systems: int | None = Field(
        None, gt=0, le=MAX_GPUS, description="Number of rack-scale systems (with system); or give gpus."
    )
    nic: Annotated[str, _known("nics", "NIC"), _catalog_names("nics")] | None = Field(
        None,
        description=(
            "The backend NIC model where the server model ships with several (amd-mi355x: amd-pollara-400, "
            "nvidia-cx7 or broadcom-thor2). Default: the model's own."
        ),
    )
    multiplane: MultiplaneDoc | None = Field(
        None,
        description=(
            "Each backend NIC port serves several planes (planes: 2 or 4 as the NIC allows; mode: hwplb, the "
            "default, or swplb). Default: one plane per port."
        ),
    )


class SwitchDoc(Section):
    """One switch tier's hardware: a catalog model, explicit fields, or both (fields win)."""

    model: Annotated[str, _known("switches", "switch"), _catalog_names("switches")] | None = Field(
        None,
        description=("A catalog switch model (designer/catalog.yaml or a site catalog); explicit fields override it."),
    )
    ports: int | None = Field(None, gt=0, le=MAX_SWITCH_PORTS, description="Physical ports.")
    speed: Speed | None = Field(
        None,
        description=(
            f"Speed of a physical port; a multiple of the speed of the links it runs, breaking out into at most "
            f"{MAX_BREAKOUT} links."
        ),
    )
    uplink_speed: Speed | None = Field(
        None,
        description=(
            "Speed of the tier's uplinks (leaf to spine, spine to super-spine; default: its downlink speed). With "
            "another speed than the downlinks, half the physical ports face down and half up, so the tier stays "
            "1:1 in bandwidth: a 64 x 800G leaf with 400G NICs runs 64 x 400G down and 32 x 800G up."
        ),
    )
    rack_units: int | None = Field(
        None, gt=0, le=60, description=("Rack units (default: the catalog model's, else one per 32 ports).")
    )
    power_w: int | None = Field(None, gt=0, le=100_000, description="Power with no optics plugged, in watts.")
    power_w_optics: int | None = Field(
        None, gt=0, le=100_000, description=("Typical power with every optic plugged, in watts.")
    )


class FabricDoc(Section):
    """The backend fabric's shape: planes, tiers and the switch of each tier."""

    technology: Literal[TECHNOLOGIES] = Field(  # type: ignore[valid-type]  # the registry's, read at import
        "ethernet",
        description=(
            "ethernet: a routed fabric (/31 links, eBGP, RoCEv2 PFC and ECN) for switch OSes; infiniband: credit-based "
            "flow control and a subnet manager that routes (target opensm), with no IP addressing, BGP, PFC or ECN."
        ),
    )

    planes: int | None = Field(
        None,
        gt=0,
        le=MAX_PLANES,
        description=(
            "Separate identical fabrics the NIC ports split across evenly (default: the server model's, else 1)."
        ),
    )
    tiers: Literal["auto", 2, 3] = Field(
        "auto",
        description=("Switch tiers: 2 (leaf, spine), 3 (with super-spines) or auto, the fewest that hold the cluster."),
    )
    leaf: SwitchDoc = Field(description="The leaf switches, one per rail of each scalable unit.")
    spine: SwitchDoc | None = Field(None, description="The spine switches (default: the leaf's hardware).")
    super_spine: SwitchDoc | None = Field(
        None, description=("The super-spine switches of a 3-tier fabric (default: the spine's hardware).")
    )


class GrowthDoc(Section):
    """The envelope: the size the fabric is planned for (``compute`` says what is built now). Spine counts, pods,
    super-spine groups, pools, ASN ranges and the hall come from it, so growing inside it only adds."""

    max_servers: int | None = Field(None, gt=0, le=MAX_GPUS, description="Servers the fabric is planned for.")
    max_gpus: int | None = Field(None, gt=0, le=MAX_GPUS, description="Or: GPUs the fabric is planned for.")
    max_systems: int | None = Field(
        None, gt=0, le=MAX_GPUS, description="Or, with compute.system: rack-scale systems the fabric is planned for."
    )


class AddressingDoc(Section):
    """IPv4 pools: switch-to-switch /31s, leaf-to-NIC /31s and switch loopback /32s."""

    fabric_p2p: Pool | None = Field(
        None,
        description=(
            "Pool of the switch-to-switch /31s (default: laid out for the growth envelope, 10.0.0.0/15 while it "
            "is large enough); unused, and refused, with routing.underlay: unnumbered."
        ),
    )
    server_p2p: Pool | None = Field(
        None,
        description=(
            "Pool of the leaf-to-NIC /31s: an aligned block per leaf, sized for a full scalable unit (default: laid "
            "out for the envelope, 10.2.0.0/15 while it is large enough)."
        ),
    )
    loopbacks: Pool | None = Field(
        None,
        description=(
            "Pool of the switch loopback /32s (default: laid out for the envelope, 10.255.0.0/20 while it is large "
            "enough)."
        ),
    )


class BfdDoc(Section):
    """BFD on every fabric BGP session (off unless enabled)."""

    enabled: bool = Field(False, description="Run BFD on every fabric BGP session.")
    interval_ms: int = Field(300, ge=10, le=60_000, description="Transmit and receive interval, in milliseconds.")
    multiplier: int = Field(3, ge=2, le=255, description="Missed packets before a session is declared down.")


class TimersDoc(Section):
    """BGP keepalive and hold times in seconds; the hold time must be at least three keepalives."""

    keepalive: int = Field(3, ge=1, le=21_845, description="Seconds between keepalives.")
    hold: int = Field(
        9, ge=3, le=65_535, description="Seconds without a keepalive before a session drops (>= 3 x keepalive)."
    )


class RoutingDoc(Section):
    """eBGP underlay numbering (RFC 7938)."""

    asn_scheme: Literal["rfc7938", "unique"] = Field(
        "rfc7938",
        description=(
            "rfc7938: every leaf its own ASN, a pod's spines one, a plane's super-spines one; unique: every switch "
            "its own."
        ),
    )
    leaf_asn_start: Asn = Field(4_200_000_000, description="First leaf ASN, in a private range.")
    spine_asn_start: Asn | None = Field(
        None, description=("First spine ASN (default: leaf_asn_start + 1,000,000, whatever the fabric's size).")
    )
    super_spine_asn_start: Asn | None = Field(
        None, description=("First super-spine ASN (default: leaf_asn_start + 2,000,000).")
    )
    underlay: Literal["numbered", "unnumbered"] = Field(
        "numbered",
        description=(
            "numbered: a /31 on every switch-to-switch link (RFC 3021); unnumbered: each session runs over the link's "
            "IPv6 link-local address and carries IPv4 routes with IPv6 next hops (RFC 8950), so switch-to-switch "
            "links take no addresses (loopbacks and server links keep theirs)."
        ),
    )
    server_subnets: Literal["aggregate", "each"] = Field(
        "aggregate",
        description=("How a leaf announces its server /31s: one prefix per leaf (summary only), or every /31."),
    )
    bfd: BfdDoc = Field(BfdDoc(), description="BFD on the fabric BGP sessions.")
    timers: TimersDoc = Field(TimersDoc(), description="BGP keepalive and hold times.")


"""Network operating systems the switch configurations are rendered for."""

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


def nvue_release(value: object) -> object:
    """A Cumulus Linux release the NVUE files can be written for, as text (YAML reads 5.10 as the number 5.1)."""
    releases = catalog().targets["nvue"].releases
    if isinstance(value, float | int) and not isinstance(value, bool):
        raise ValueError(
            f'write the release as text in quotes, for example release: "5.10"; unquoted, YAML '
            f"reads it as the number {value}"
        )
    if isinstance(value, str) and value not in releases:
        raise ValueError(
            f"{short(value)} is not a Cumulus Linux release designer writes NVUE files for; use one of "
            f"{releases[0]} to {releases[-1]}"
        )
    return value


NvueRelease = Annotated[
    str,
    BeforeValidator(nvue_release),
    WithJsonSchema({"type": "string", "enum": list(catalog().targets["nvue"].releases)}),
]


class NvueOptionsDoc(Section):
    """How the NVUE files are written."""

    release: NvueRelease = Field(
        cast(str, catalog().targets["nvue"].default_release),  # the shipped catalog gives one
        description=(
            "Cumulus Linux release the startup.yaml files are for: 5.6-5.14 write enable: on and ip address, "
            "5.15 and later state: enabled, ipv4 address and a BFD profile. Default: the catalog's."
        ),
    )


def sonic_skus() -> dict[str, str]:
    """Every SONiC SKU the catalog knows, with the catalog switch model it runs on."""
    return {sku.hwsku: model for model, facts in catalog().switch_facts.items() for sku in facts.sonic.skus}


def known_sku(value: object) -> object:
    """A SONiC SKU the catalog knows (whether it fits the intent's switches is a cross-field rule)."""
    if isinstance(value, str) and value not in sonic_skus():
        known = "; ".join(f"{sku} ({model})" for sku, model in sonic_skus().items())
        raise ValueError(f"{short(value)} is not a SONiC SKU the catalog knows; known SKUs: {known}")
    return value


class SonicOptionsDoc(Section):
    """How the SONiC files are written."""

    hwsku: (
        Annotated[str, BeforeValidator(known_sku), WithJsonSchema({"type": "string", "enum": list(sonic_skus())})]
        | None
    ) = Field(
        None,
        description=(
            "SONiC SKU (DEVICE_METADATA hwsku) of the catalog switches it runs on, where their port layout has "
            "more than one, such as Mellanox-SN4700-O32 for 32 x 400G SN4700s. Default: the catalog's first SKU "
            "for the layout."
        ),
    )


PARTITION_NAME = r"^[A-Za-z][A-Za-z0-9_-]{0,31}$"
MAX_PKEY = 0x7FFE
"""The highest partition key an intent may give: keys are 15 bits, and 0x7fff is the default partition's."""


def whole_match(pattern: str, refusal: str) -> Callable[[str], str]:
    """A validator of strings that match ``pattern`` whole; any other value is refused as ``'value' is not``
    ``refusal``."""

    def check(value: str) -> str:
        if not re.fullmatch(pattern, value):
            raise ValueError(f"{short(value)} is not {refusal}")
        return value

    return check


partition_name = whole_match(
    PARTITION_NAME, "a partition name; use 1-32 letters, digits, '_' or '-', starting with a letter"
)
"""A partition name partitions.conf holds as one word (its parser splits at '=', ',', ':' and ';')."""


def partition_key(pkey: int) -> int:
    """A partition key of 15 bits other than the default partition's."""
    if not 1 <= pkey <= MAX_PKEY:
        raise ValueError(
            f"0x{pkey:x} is not a partition key an intent can give; use 0x0001 to 0x{MAX_PKEY:04x} (keys are 15 bits "
            "and 0x7fff is the default partition's)"
        )
    return pkey


class PartitionDoc(Section):
    """One InfiniBand partition beside the default: its name, its key and how every HCA is a member."""

    name: Annotated[
        str, AfterValidator(partition_name), WithJsonSchema({"type": "string", "pattern": PARTITION_NAME})
    ] = Field(description="The partition's name in partitions.conf and OpenSM's log.")
    pkey: Annotated[
        int, AfterValidator(partition_key), WithJsonSchema({"type": "integer", "minimum": 1, "maximum": MAX_PKEY})
    ] = Field(description="Its partition key, 0x0001 to 0x7ffe, in hex or decimal (0x7fff is the default partition's).")
    membership: Literal["full", "limited"] = Field(
        "full", description="Every HCA's membership: full members talk to all, limited ones only to full members."
    )


class OpensmOptionsDoc(Section):
    """How the OpenSM files are written: LMC, sweeps, QoS and the partitions beside the default one."""

    lmc: int = Field(0, ge=0, le=7, description="LIDs per HCA port as a power of two (2^lmc); 0: one path per pair.")
    sweep_interval_s: int = Field(
        10, ge=0, le=3600, description="Seconds between light sweeps of the subnet (0: only on a trap)."
    )
    qos: bool = Field(
        False,
        description="Enable OpenSM's QoS manager (service levels to virtual lanes from qos-policy.conf); off: one "
        "traffic class, as one training job's collectives need.",
    )
    partitions: list[PartitionDoc] = Field(
        default_factory=list,
        description="Partitions beside the default one (0x7fff, every port a full member), each key and name once.",
    )


def target_options_doc() -> type[Section]:
    """The ``target_options`` section: one field per target whose record names an options model of this module
    (:attr:`designer.targets.Target.options`), in record order."""
    models: dict[str, type[Section]] = {
        target.name: globals()[target.options] for target in TARGETS.values() if target.options
    }
    fields: dict[str, Any] = {
        name: (model, Field(model(), description=f"{TARGETS[name].label}.")) for name, model in models.items()
    }
    return create_model(
        "TargetOptionsDoc", __base__=Section, __doc__="Per network OS choices of how its files are written.", **fields
    )


if TYPE_CHECKING:
    TargetOptionsDoc = Any  # made from the target records at import; typed by its fields' own models
else:
    TargetOptionsDoc = target_options_doc()


IMAGE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,254}$"
"""A container image reference as Docker takes it (``registry/name:tag`` or ``name@sha256:...``)."""


image_reference = whole_match(
    IMAGE_PATTERN,
    "a container image reference; write it as docker images lists it, such as ceos:4.32.0F or "
    "registry.example.com/ceos:4.32.0F (letters, digits and ._/:@+-, at most 255)",
)
"""An image reference as ``docker images`` lists it: letters, digits and ``._/:@+-``, at most 255."""


class LabDoc(Section):
    """The containerlab export (``lab/clab.yml``): which network OS image every switch runs in it."""

    kind: Literal[tuple(LAB_KINDS)] = Field(  # type: ignore[valid-type]  # the registry's kinds, read at import
        "linux",
        description=(
            "containerlab node kind of every switch: "
            + "; ".join(f"{kind} ({entry.label}, boots the {entry.target} files)" for kind, entry in LAB_KINDS.items())
            + ". Its target must be in targets."
        ),
    )
    image: (
        Annotated[str, AfterValidator(image_reference), WithJsonSchema({"type": "string", "pattern": IMAGE_PATTERN})]
        | None
    ) = Field(
        None,
        examples=["ceos:4.32.0F"],
        description=(
            "The container image of the nodes, as imported on the lab host (docker images). Default for linux: "
            f"{LAB_KINDS['linux'].image}; every other kind needs the team's own image named here."
        ),
    )


_CATALOG = "Default: the catalog's (designer/catalog.yaml)."


class ReachDoc(Section):
    """Longest cable run per medium, in metres at the fabric's link speed; the catalog gives the defaults."""

    dac: float | None = Field(None, gt=0, le=100, description=f"Passive copper reach, in metres. {_CATALOG}")
    aec: float | None = Field(None, gt=0, le=100, description=f"Active copper reach, in metres. {_CATALOG}")
    multimode: float | None = Field(
        None, gt=0, le=10_000, description=(f"Multimode fibre reach, in metres. {_CATALOG}")
    )
    singlemode: float | None = Field(
        None, gt=0, le=100_000, description=(f"Single-mode fibre reach, in metres. {_CATALOG}")
    )


class FacilityDoc(Section):
    """The data hall: rack power and size, cooling, row geometry and PUE; the catalog gives the defaults."""

    rack_power_kw: float | None = Field(
        None, gt=0, le=1000, description=(f"Usable power budget of every rack, in kW. {_CATALOG}")
    )
    rack_units: int | None = Field(None, ge=1, le=60, description=f"Rack height in units. {_CATALOG}")
    cooling: Literal["air", "liquid"] | None = Field(
        None, description=(f"Cooling; air is refused for racks budgeted above air_limit_kw. {_CATALOG}")
    )
    air_limit_kw: float | None = Field(
        None, gt=0, le=1000, description=(f"Most power an air-cooled rack may take, in kW. {_CATALOG}")
    )
    racks_per_row: int | None = Field(
        None,
        ge=1,
        le=1000,
        description=(
            "Racks in one row. Left out (and not set by a site catalog), designer chooses it up to "
            "max_racks_per_row: the row length whose longest cable run is shortest, each scalable unit in its row "
            "where one fits."
        ),
    )
    max_racks_per_row: int | None = Field(
        None, ge=1, le=1000, description=f"The longest row the hall takes, when designer chooses the row. {_CATALOG}"
    )
    rack_width_m: float | None = Field(None, gt=0, le=5, description=f"Rack width, in metres. {_CATALOG}")
    row_pitch_m: float | None = Field(
        None, gt=0, le=100, description=(f"Distance between the centres of two rows, in metres. {_CATALOG}")
    )
    pue: float | None = Field(None, ge=1, le=5, description=f"Power usage effectiveness of the hall. {_CATALOG}")
    slack_m: float | None = Field(
        None, ge=0, le=100, description=(f"Length added to every cable run, in metres. {_CATALOG}")
    )
    reach_m: ReachDoc = Field(ReachDoc(), description="Longest cable run per medium at the link speed.")
    media: Literal[MEDIA] | None = Field(  # type: ignore[valid-type]
        None,
        description=(
            "Which media the links take: copper, passive or active copper where its reach covers the run and "
            f"optics beyond it; optics, optical modules on every link however short. {_CATALOG}"
        ),
    )


class ChecksDoc(Section):
    """Thresholds of the checks (``designer check``): what the design must meet to pass."""

    oversubscription: float = Field(
        1.0,
        ge=1.0,
        le=64,
        description=(
            "Downlink to uplink ratio allowed per switch; above 1 such switches are warnings, beyond it errors."
        ),
    )
    ecmp_max_width: int = Field(
        256, ge=1, le=65_536, description=("Next hops one ECMP group may hold in the switch hardware.")
    )
    failure_min_bisection: float = Field(
        0.5,
        ge=0,
        le=1,
        description=("Fraction of full bisection that must remain with any one spine, super-spine, leaf or link down."),
    )
    failure_max_gpus: int | None = Field(
        None, ge=0, description=("GPUs that may lose a rail through one failure (null: reported only).")
    )


BYTE_UNITS = {
    "": 1,
    "K": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
}
"""Prefixes of a byte count: decimal (``GB`` = 10^9 bytes, as nccl-tests reports) or binary (``GiB``)."""
MAX_BYTES = 10**16
"""The largest collective the analysis takes (10PB); anything bigger is a typo."""


def parse_bytes(value: object) -> object:
    """Accept ``700GB``, ``1.5TB``, ``64GiB`` or a whole number of bytes and return the bytes as an int; anything
    else raises, saying what would be valid."""
    number: float | None = None
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*(?:([KMGTP]i?)?B)?\s*", value)
        if match:
            number = float(match.group(1)) * BYTE_UNITS[match.group(2) or ""]
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    if number is None or not number.is_integer() or not 1 <= number <= MAX_BYTES:
        raise ValueError(
            f"{short(value)} is not a byte count; write 700GB, 1.5TB, 64GiB or a whole number of bytes (1 byte to 10PB)"
        )
    return int(number)


def parse_count(value: object) -> object:
    """A count written as a number or in exponent form (``175e9``, which YAML reads as text) as an int."""
    if isinstance(value, str):
        if not re.fullmatch(r"\s*\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*", value):
            raise ValueError(f"{short(value)} is not a count; write a number such as 175e9 or 175000000000")
        value = float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Bytes = Annotated[
    int,
    BeforeValidator(parse_bytes),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*[kKMGTP]?B\s*$"},
            ],
            "description": "Bytes per collective: an integer, or with a unit (700GB, 1.5TB; 10^3 multiples).",
        }
    ),
]
Count = Annotated[
    int,
    BeforeValidator(parse_count),
    WithJsonSchema(
        {
            "anyOf": [{"type": "integer", "minimum": 1}, {"type": "number", "minimum": 1}, {"type": "string"}],
            "description": "A count: an integer or a number such as 175e9.",
        }
    ),
]


class ModelDoc(Section):
    """A model whose gradient is the collective: parameters times bytes per parameter (4 for fp32, 2 for bf16)."""

    parameters: Annotated[Count, Field(ge=1, le=10**15, description="Parameters of the model (175e9).")]
    bytes_per_parameter: float = Field(4, gt=0, le=16, description="Bytes per parameter: 4 for fp32, 2 for bf16.")


class WorkloadDoc(Section):
    """One training job on the fabric: its collective, size, placement and what a stall costs."""

    name: Annotated[str, AfterValidator(safe_name)] = Field(description="The job's name in reports.")
    gpus: int | None = Field(None, ge=2, le=MAX_GPUS, description="GPUs of the job (default: every GPU).")
    placement: Literal["packed", "scattered", "random"] = Field(
        "packed",
        description=("packed: scalable unit by scalable unit; scattered: one server per unit in turn; random: seeded."),
    )
    collective: Literal["allreduce", "allgather", "reducescatter", "alltoall"] = Field(
        "allreduce", description="The collective every step ends with."
    )
    bytes: Bytes | None = Field(
        None,
        description=("Bytes per collective as nccl-tests counts them (the per-rank buffer; for allgather the output)."),
    )
    model: ModelDoc | None = Field(None, description="Or the model whose gradient is the collective.")
    algorithm: Literal["ring", "tree", "auto"] = Field("ring", description="NCCL's algorithm.")
    qps_per_connection: int = Field(
        1,
        ge=1,
        le=128,
        description=("RoCE queue pairs per connection (NCCL_IB_QPS_PER_CONNECTION; NCCL takes at most 128)."),
    )
    channels: int = Field(2, ge=1, le=64, description="Connections per rail and neighbour (NCCL channels).")
    gpu_hour_usd: float = Field(30.0, ge=0, le=10_000, description="What one GPU-hour costs, in US dollars.")
    step_budget_s: float | None = Field(
        None,
        gt=0,
        le=86_400,
        description=("The collective time the team can afford per step; above it designer check warns."),
    )


RDMA_NAME_PATTERN = r"^[a-z][a-z0-9_]{0,62}$"
"""An RDMA device name (``mlx5_0``): below the kernel's 64-character limit, letters, digits and '_' only."""


def _named(pattern: str, what: str, example: str) -> Any:
    """A list item that must match ``pattern``, with the JSON Schema saying so."""

    def check(name: str) -> str:
        if not re.fullmatch(pattern, name):
            raise ValueError(f"{short(name)} is not {what}; use {example}")
        return name

    return Annotated[str, AfterValidator(check), WithJsonSchema({"type": "string", "pattern": pattern})]


def _nic_name(name: str) -> str:
    if problem := nic_name_problem(name):
        raise ValueError(problem)
    return name


NicName = Annotated[
    str,
    AfterValidator(_nic_name),
    WithJsonSchema({"type": "string", "pattern": NIC_NAME_PATTERN, "not": {"enum": sorted(RESERVED_NIC_NAMES)}}),
]
if TYPE_CHECKING:
    RdmaName = str
else:
    RdmaName = _named(
        RDMA_NAME_PATTERN, "an RDMA device name", "lower-case letters, digits and '_', starting with a letter (mlx5_0)"
    )


class HostsDoc(Section):
    """The server side of every backend link: the files written per server under ``servers/``."""

    format: Literal["netplan", "nmconnection"] = Field(
        "netplan",
        description=(
            "How the NIC addresses, routes and rules are written: netplan (one netplan.yaml per server) or "
            "nmconnection (one NetworkManager keyfile per NIC)."
        ),
    )
    nics: list[NicName] | None = Field(
        None,
        description=(
            "The backend NICs' Linux interface names in NIC order (rail order), one per NIC port of the server. "
            "Default: the catalog server model's, else nic0, nic1, ..."
        ),
    )
    plane_nics: list[NicName] | None = Field(
        None,
        description=(
            "With compute.multiplane mode hwplb: the Linux interface names of every NIC port's plane PFs (PF n is "
            "the rail interface's PCI function + n), in port order as swplb numbers them (plane 0 of every rail, "
            "each the rail's interface of nics, then plane 1, ...), so that lldpd runs on each and designer audit "
            "maps them to their plane links. Default: nics, then nic0s1, nic1s1, ..."
        ),
    )
    rdma_devices: list[RdmaName] | None = Field(
        None,
        description=(
            "The backend NICs' RDMA device names in NIC order (NCCL_IB_HCA), one per NIC port. Default: the catalog "
            "server model's, else the NIC driver's names: mlx5_0, ... (NVIDIA), ionic_0, ... (AMD), bnxt_re0, ... "
            "(Broadcom)"
        ),
    )


class OutputsDoc(Section):
    """What a build writes beside the review files (summary, design.json, tables, pictures) and the switch
    configurations of ``targets``: the parts a large design may leave out to keep its pull requests reviewable."""

    servers: bool = Field(
        True,
        description=(
            "Write servers/<server>/, every GPU server's backend NIC files (one folder per server: most of a large "
            "build's files). designer verify --traffic needs them."
        ),
    )
    lab: bool = Field(
        True,
        description="Write lab/, designer verify's FRR lab as a containerlab topology (when frr is a target).",
    )


def parse_ratio(value: object) -> object:
    """Accept an oversubscription as ``3``, ``2.5`` or ``"3:1"`` and return downlink bandwidth per unit of uplink
    bandwidth as a float; anything else, or a ratio below 1, raises, saying what would be valid."""
    ratio: float | None = None
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?::\s*(\d+(?:\.\d+)?))?\s*", value)
        if match and float(match.group(2) or 1) > 0:
            ratio = float(match.group(1)) / float(match.group(2) or 1)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        ratio = float(value)
    if ratio is None:
        raise ValueError(
            f'{short(value)} is not an oversubscription; write a number such as 3 or a ratio such as "3:1"'
        )
    if not 1 <= ratio <= 64:
        raise ValueError(
            f"{short(value)} is {ratio:g}:1; an oversubscription runs from 1 (as much bandwidth up as down) to 64, "
            'such as 2 or "3:1"'
        )
    return ratio


Ratio = Annotated[
    float,
    BeforeValidator(parse_ratio),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "number", "minimum": 1, "maximum": 64},
                {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*(:\s*\d+(\.\d+)?)?\s*$"},
            ],
            "examples": [1, 3, "3:1"],
        }
    ),
]
"""Downlink to uplink bandwidth of a leaf: a number (``3``) or a ratio (``"3:1"``), at least 1."""


class NetworkAddressingDoc(Section):
    """The IPv4 pools of one network beside the backend: its switch-to-switch /31s, leaf-to-server /31s and
    loopbacks. Every pool of every network must be disjoint from every other."""

    fabric_p2p: Pool | None = Field(
        None, description="Pool of the network's switch-to-switch /31s (default: laid out beside the backend's)."
    )
    server_p2p: Pool | None = Field(
        None, description="Pool of the network's leaf-to-server /31s (default: laid out beside the backend's)."
    )
    loopbacks: Pool | None = Field(
        None, description="Pool of the network's switch loopback /32s (default: laid out beside the backend's)."
    )


DUAL_HOMING = ("none", "bgp", "evpn-mh", "mlag")
"""How a server reaches the two leaves of its rack: not at all, by BGP from the host over two routed links, by
EVPN multihoming (a bonded host), or by MLAG."""


class DataNetworkDoc(Section):
    """A rack-local leaf-spine network beside the backend (top-of-rack leaves, declared oversubscription)."""

    nics_per_server: int = Field(2, ge=1, le=16, description="The network's NIC ports of one GPU server.")
    nic_speed: Speed = Field(200, description="Speed of those NIC ports, as under compute.")
    oversubscription: Ratio = Field(
        1.0,
        description=(
            'Leaf downlink to uplink bandwidth, 3 or "3:1" (default 1). The leaves are sized to it; unlike '
            "checks.oversubscription (the backend's warning threshold), it is the network's design."
        ),
    )
    dual_homing: Literal[DUAL_HOMING] = Field(  # type: ignore[valid-type]  # the tuple above, read at import
        "none",
        description=(
            "none: every NIC port to one leaf of the rack; bgp: the server's ports split over the rack's leaves, a "
            "routed link each, the server runs BGP (routing on the host). evpn-mh and mlag are refused until a "
            "target renders them."
        ),
    )
    leaves_per_rack: int | None = Field(
        None, ge=1, le=8, description="Top-of-rack leaves per rack (default: 2 when dual-homed, else 1)."
    )
    leaf: SwitchDoc | None = Field(None, description="The top-of-rack leaves (default: the backend leaf's hardware).")
    spine: SwitchDoc | None = Field(None, description="The spines (default: the network's leaf hardware).")
    addressing: NetworkAddressingDoc = Field(NetworkAddressingDoc(), description="The network's IPv4 pools.")
    leaf_asn_start: Asn | None = Field(
        None,
        description=(
            "First leaf ASN of the network, in a private range (default: laid out after the backend's ranges); "
            "its spines take the next million."
        ),
    )


class CoreDoc(Section):
    """The data-centre core the border leaves peer with: eBGP on every core uplink, the frontend's pools announced
    to it and a default route taken from it."""

    asn: Asn = Field(description="The core's ASN, none of the design's own.")


class FrontendDoc(DataNetworkDoc):
    """The frontend (north-south, converged) network: its border leaves face the data-centre core."""

    border_leaves: int = Field(2, ge=0, le=64, description="Border leaves with uplinks toward the data-centre core.")
    core_uplinks: int = Field(4, ge=0, le=512, description="Uplinks of each border leaf toward the core.")
    core_uplink_speed: Speed | None = Field(
        None, description="Speed of the core uplinks (default: the border leaf's port speed)."
    )
    core: CoreDoc | None = Field(
        None,
        description=(
            "The data-centre core's BGP: each core uplink a /31 and an eBGP session to it (default: none, the core "
            "uplinks are only cabled)."
        ),
    )


class StorageNodesDoc(Section):
    """The storage servers the storage network also serves."""

    count: int = Field(ge=1, le=100_000, description="Storage servers.")
    nics_per_server: int = Field(2, ge=1, le=16, description="Storage network NIC ports of one storage server.")
    nic_speed: Speed = Field(400, description="Speed of those NIC ports.")
    rack_units: int = Field(2, gt=0, le=60, description="Rack units of one storage server.")
    power_kw: float = Field(1.5, gt=0, le=100, description="Maximum power of one storage server, in kW.")


class StorageDoc(DataNetworkDoc):
    """The storage network: GPU servers to the storage servers it also serves."""

    storage_nodes: StorageNodesDoc | None = Field(None, description="The storage servers on this network.")
    lossless: bool = Field(
        False,
        description=("Run the backend's RoCE QoS (PFC and ECN) on the storage switches; every target must write QoS."),
    )


class ManagementSwitchDoc(Section):
    """A management switch: 1G access ports for management ports and BMCs, and a few fast uplinks."""

    model: Annotated[str, _known("management_switches", "management switch")] | None = Field(
        None,
        json_schema_extra={"examples": ["nvidia-sn2201"]},
        description="A catalog management switch model (default: nvidia-sn2201); explicit fields override it.",
    )
    ports: int | None = Field(None, ge=1, le=MAX_SWITCH_PORTS, description="Access (1G) ports.")
    uplinks: int | None = Field(None, ge=1, le=64, description="Uplink ports toward the OOB spine.")
    uplink_speed: Speed | None = Field(None, description="Speed of the uplink ports.")
    rack_units: int | None = Field(None, gt=0, le=60, description="Rack units.")
    power_w: int | None = Field(None, gt=0, le=100_000, description="Typical power, in watts.")


class OobDoc(Section):
    """The out-of-band network: a management switch in every rack for every BMC, switch management port and
    managed power part, aggregated to an OOB spine; one management address per device."""

    switch: ManagementSwitchDoc = Field(ManagementSwitchDoc(), description="The management switch of every rack.")
    spine: SwitchDoc | None = Field(
        None, description="The OOB spine the management switches uplink to (default: the backend leaf's hardware)."
    )
    bmcs_per_server: int = Field(1, ge=0, le=8, description="BMC ports of one GPU server.")
    host_management: bool = Field(
        False, description="Also cable every GPU server's host management port (besides its BMC)."
    )
    managed_per_rack: int = Field(
        0, ge=0, le=48, description="Other managed parts per rack on the OOB network (PDUs, power shelves)."
    )
    pool: Pool | None = Field(
        None, description="Pool of the management addresses, one per device (default: laid out beside the others)."
    )


class NetworksDoc(Section):
    """The cluster's networks beside the backend (``fabric``); each is designed only when declared."""

    frontend: FrontendDoc | None = Field(None, description="The frontend (north-south, converged) network.")
    storage: StorageDoc | None = Field(None, description="The storage network.")
    inband: DataNetworkDoc | None = Field(None, description="The in-band management network (optional).")
    oob: OobDoc | None = Field(None, description="The out-of-band management network; {} takes every default.")


def check_ipv4_address(value: str) -> str:
    """A single IPv4 address, written canonically."""
    try:
        network = IPNetwork(value, version=4)
    except (AddrFormatError, ValueError, TypeError):
        raise ValueError(f"{short(value)} is not an IPv4 address such as 192.0.2.10") from None
    if "/" in value:
        raise ValueError(f"{short(value)} is a prefix; give the server's address alone, such as {network.ip}")
    return str(network.ip)


Address = Annotated[
    str,
    AfterValidator(check_ipv4_address),
    WithJsonSchema({"type": "string", "pattern": r"^\d{1,3}(\.\d{1,3}){3}$", "examples": ["192.0.2.10"]}),
]


DOMAIN_PATTERN = r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
"""A DNS name as RFC 1123 writes a host name: dot-separated labels of 1-63 letters, digits and inner hyphens."""


check_domain = whole_match(
    DOMAIN_PATTERN,
    "a DNS domain; use dot-separated labels of letters, digits and inner hyphens, such as cluster.example.net",
)
"""A DNS search domain: a host name's labels (it goes into every switch's configuration as it is)."""


class ManagementDoc(Section):
    """The management side of every switch of every network: its VRF and the services it uses."""

    vrf: Annotated[str, AfterValidator(safe_name)] = Field(
        "mgmt", description="The management VRF the management port sits in."
    )
    ntp: list[Address] = Field(default_factory=list, max_length=8, description="NTP servers.")
    syslog: list[Address] = Field(default_factory=list, max_length=8, description="Syslog servers.")
    dns: list[Address] = Field(default_factory=list, max_length=3, description="DNS servers (resolv.conf takes 3).")
    domain: Annotated[str, AfterValidator(check_domain)] | None = Field(
        None,
        max_length=253,
        json_schema_extra={"pattern": DOMAIN_PATTERN, "examples": ["cluster.example.net"]},
        description="DNS search domain.",
    )


class IntentDoc(Section):
    """An intent: the GPU training cluster whose backend network the designer builds (docs/intent.md)."""

    model_config = ConfigDict(title="designer intent")

    name: Annotated[str, AfterValidator(safe_name)] = Field(
        examples=["cluster-a"],
        json_schema_extra={"pattern": NAME_PATTERN},
        description=(
            "The design's name and its output folder: 1-63 letters, digits, '.', '_' or '-', starting with a "
            "letter or digit."
        ),
    )
    description: str = Field("", description="Free text shown in summary.md, as text (its Markdown and HTML escaped).")
    catalog: str | list[str] | None = Field(
        None,
        description=(
            "Site catalog files (a path or a list, relative to the intent) in designer/catalog.yaml's format: "
            "switches, servers, media, target limits and facility defaults that add to or override the shipped "
            "catalog by name, field by field; later files win."
        ),
    )
    compute: ComputeDoc = Field(description="The GPU servers built now.")
    growth: GrowthDoc | None = Field(
        None,
        description=(
            "The envelope: the size the fabric is planned for; growing inside it only adds devices, links and "
            "lines, nothing existing moves."
        ),
    )
    fabric: FabricDoc = Field(description="The backend fabric's shape and switches.")
    addressing: AddressingDoc = Field(AddressingDoc(), description="IPv4 pools; each large enough and disjoint.")
    routing: RoutingDoc = Field(RoutingDoc(), description="eBGP underlay (RFC 7938) numbering and sessions.")
    facility: FacilityDoc = Field(FacilityDoc(), description="The data hall.")
    targets: list[Literal[NAMES]] | None = Field(  # type: ignore[valid-type]  # the registry's names, read at import
        None,
        min_length=1,
        description=(
            "Network operating systems to render switch configurations for (sonic needs frr), or the subnet manager "
            "of an InfiniBand fabric (opensm). Default: the default targets of the fabric's technology "
            f"({', '.join(defaults('ethernet'))} on Ethernet, {', '.join(defaults('infiniband'))} on InfiniBand)."
        ),
    )
    target_options: TargetOptionsDoc = Field(
        TargetOptionsDoc(), description=("Per network OS choices, such as the Cumulus Linux release of the NVUE files.")
    )
    lab: LabDoc | None = Field(
        None,
        description=(
            "The containerlab topology (lab/clab.yml) and the images its switches run. Default: FRR linux nodes, "
            "written when frr is a target."
        ),
    )
    qos: QosDoc = Field(QosDoc(), description="RoCEv2 lossless QoS.")
    hosts: HostsDoc = Field(
        HostsDoc(),
        description=("The server files (servers/<server>/): NIC addressing format, NIC and RDMA device names."),
    )
    load_balancing: LoadBalancingDoc = Field(
        LoadBalancingDoc(),
        description="How traffic spreads over the fabric's paths (hashing, adaptive, cluster or spraying), and seeds.",
    )
    checks: ChecksDoc = Field(ChecksDoc(), description="Thresholds of the checks.")
    outputs: OutputsDoc = Field(
        OutputsDoc(),
        description="What a build writes beside the review files and the configurations of targets: server files, lab.",
    )
    workloads: list[WorkloadDoc] = Field(
        default_factory=list,
        description=("Training jobs to analyze on the fabric (designer analyze): collective, size, placement, price."),
    )
    networks: NetworksDoc = Field(
        NetworksDoc(),
        description="The frontend, storage, in-band and out-of-band networks beside the backend, each when declared.",
    )
    management: ManagementDoc = Field(
        ManagementDoc(), description="NTP, syslog and DNS servers and the management VRF of every switch."
    )


def json_schema() -> dict[str, Any]:
    """The intent's JSON Schema (draft 2020-12), generated from the models above, for editors and tools."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **IntentDoc.model_json_schema()}

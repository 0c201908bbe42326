"""The intent file as written: pydantic models for types, ranges and known keys.

Cross-field rules and catalog defaults are applied afterwards in :mod:`designer.intent.resolve`,
which turns this document into the fully specified :class:`~designer.intent.resolve.Intent`.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from netaddr import AddrFormatError, IPNetwork
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from designer.catalog import catalog

MAX_GPUS = 1_048_576
"""The largest cluster the designer accepts (1M GPUs); anything bigger is a typo, refused at once."""
MAX_SWITCH_PORTS = 2048
MAX_PLANES = 8
SPEEDS = (10, 25, 40, 50, 100, 200, 400, 800, 1600)
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
        raise ValueError(f"{value!r} is not an IPv4 prefix such as 10.0.0.0/16") from None
    if "/" not in value:
        raise ValueError(f"{value!r} needs a prefix length, for example {value}/16")
    if network.ip != network.network:
        raise ValueError(f"{value} has host bits set; the prefix starts at {network.cidr}")
    return str(network.cidr)


def safe_name(name: str) -> str:
    """The design's name becomes a folder name, so it must be a safe file name."""
    if not re.fullmatch(NAME_PATTERN, name) or ".." in name:
        raise ValueError(f"{name!r} is not a safe file name; use 1-63 letters, digits, '.', '_' or '-', "
                         "starting with a letter or digit")
    return name


def known_switch(name: str) -> str:
    if name not in catalog().switches:
        raise ValueError(f"unknown switch model {name!r}; known models: {', '.join(catalog().switches)}")
    return name


def known_server(name: str) -> str:
    if name not in catalog().servers:
        raise ValueError(f"unknown server model {name!r}; known models: {', '.join(catalog().servers)}")
    return name


Speed = Annotated[int, BeforeValidator(parse_speed)]
Pool = Annotated[str, AfterValidator(check_ipv4_pool)]
Asn = Annotated[int, Field(ge=1, le=4_294_967_294)]


class Section(BaseModel):
    """Every intent section: strict types, unknown keys refused, read-only once loaded."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class ComputeDoc(Section):
    """The GPU servers: how many, and what each has."""

    servers: int | None = Field(None, gt=0, le=MAX_GPUS)
    gpus: int | None = Field(None, gt=0, le=MAX_GPUS)
    server: Annotated[str, AfterValidator(known_server)] | None = None
    gpus_per_server: int | None = Field(None, gt=0, le=144)
    nics_per_server: int | None = Field(None, gt=0, le=64)
    nic_speed: Speed | None = None
    server_power_kw: float | None = Field(None, gt=0, le=500)
    server_rack_units: int | None = Field(None, gt=0, le=60)


class SwitchDoc(Section):
    """One switch tier's hardware: a catalog model, explicit fields, or both (fields win)."""

    model: Annotated[str, AfterValidator(known_switch)] | None = None
    ports: int | None = Field(None, gt=0, le=MAX_SWITCH_PORTS)
    speed: Speed | None = None
    rack_units: int | None = Field(None, gt=0, le=60)
    power_w: int | None = Field(None, gt=0, le=100_000)
    power_w_optics: int | None = Field(None, gt=0, le=100_000)


class FabricDoc(Section):
    """The backend fabric's shape: planes, tiers and the switch of each tier."""

    planes: int | None = Field(None, gt=0, le=MAX_PLANES)
    tiers: Literal["auto", 2, 3] = "auto"
    leaf: SwitchDoc
    spine: SwitchDoc | None = None
    super_spine: SwitchDoc | None = None


class AddressingDoc(Section):
    """IPv4 pools: switch-to-switch /31s, leaf-to-NIC /31s and switch loopback /32s."""

    fabric_p2p: Pool = "10.0.0.0/15"
    server_p2p: Pool = "10.2.0.0/15"
    loopbacks: Pool = "10.255.0.0/20"


class BfdDoc(Section):
    """BFD on every fabric BGP session (off unless enabled)."""

    enabled: bool = False
    interval_ms: int = Field(300, ge=10, le=60_000)
    multiplier: int = Field(3, ge=2, le=255)


class TimersDoc(Section):
    """BGP keepalive and hold times in seconds; the hold time must be at least three keepalives."""

    keepalive: int = Field(3, ge=1, le=21_845)
    hold: int = Field(9, ge=3, le=65_535)


class RoutingDoc(Section):
    """eBGP underlay numbering (RFC 7938)."""

    asn_scheme: Literal["rfc7938", "unique"] = "rfc7938"
    leaf_asn_start: Asn = 4_200_000_000
    spine_asn_start: Asn | None = None
    super_spine_asn_start: Asn | None = None
    server_subnets: Literal["aggregate", "each"] = "aggregate"
    """How a leaf announces its server /31s: one prefix per leaf (summary only), or every /31."""
    bfd: BfdDoc = BfdDoc()
    timers: TimersDoc = TimersDoc()


TARGETS = ("sonic", "frr", "eos", "nvue")
"""Network operating systems the switch configurations are rendered for."""

Dscp = Annotated[int, Field(ge=0, le=63)]
Priority = Annotated[int, Field(ge=0, le=7)]


class QosDoc(Section):
    """RoCEv2 lossless QoS: a vendor profile (``designer/qos_profiles.yaml``), overridable field by field."""

    profile: Literal["nvidia", "cisco", "juniper"] = "nvidia"
    roce_dscp: Dscp | None = None
    roce_priority: Priority | None = None
    cnp_dscp: Dscp | None = None
    cnp_priority: Priority | None = None
    cnp_rate_percent: int | None = Field(None, ge=1, le=100)
    roce_bandwidth_percent: int | None = Field(None, ge=1, le=99)
    ecn: bool | None = None
    ecn_unit: Literal["bytes", "percent"] | None = None
    ecn_min: int | None = Field(None, ge=1, le=1 << 32)
    ecn_max: int | None = Field(None, ge=1, le=1 << 32)
    ecn_probability: int | None = Field(None, ge=1, le=100)
    queue_bytes: int | None = Field(None, ge=1, le=1 << 32)
    pfc_watchdog: bool | None = None
    pfc_watchdog_detection_ms: int | None = Field(None, ge=10, le=5000)
    pfc_watchdog_restoration_ms: int | None = Field(None, ge=10, le=60_000)
    mtu: int | None = Field(None, ge=1500, le=9216)
    cable_length_m: int | None = Field(None, ge=1, le=10_000)
    pfc_response_ns: int | None = Field(None, ge=0, le=100_000)


class ReachDoc(Section):
    """Longest cable run per medium, in metres at the fabric's link speed; the catalog gives the defaults."""

    dac: float | None = Field(None, gt=0, le=100)
    aec: float | None = Field(None, gt=0, le=100)
    multimode: float | None = Field(None, gt=0, le=10_000)
    singlemode: float | None = Field(None, gt=0, le=100_000)


class FacilityDoc(Section):
    """The data hall: rack power and size, cooling, row geometry and PUE; the catalog gives the defaults."""

    rack_power_kw: float | None = Field(None, gt=0, le=1000)
    rack_units: int | None = Field(None, ge=1, le=60)
    cooling: Literal["air", "liquid"] | None = None
    air_limit_kw: float | None = Field(None, gt=0, le=1000)
    racks_per_row: int | None = Field(None, ge=1, le=1000)
    rack_width_m: float | None = Field(None, gt=0, le=5)
    row_pitch_m: float | None = Field(None, gt=0, le=100)
    pue: float | None = Field(None, ge=1, le=5)
    slack_m: float | None = Field(None, ge=0, le=100)
    reach_m: ReachDoc = ReachDoc()


class ChecksDoc(Section):
    """Thresholds of the checks (``designer check``): what the design must meet to pass."""

    oversubscription: float = Field(1.0, ge=1.0, le=64)
    """Downlink to uplink ratio allowed per switch; above 1 such switches are warnings, beyond it errors."""
    ecmp_max_width: int = Field(256, ge=1, le=65_536)
    """Next hops one ECMP group may hold in the switch hardware."""
    failure_min_bisection: float = Field(0.5, ge=0, le=1)
    """Fraction of full bisection that must remain with any one spine, super-spine, leaf or link down."""
    failure_max_gpus: int | None = Field(None, ge=0)
    """GPUs that may lose a rail through one failure (``null``: reported only)."""


BYTE_UNITS = {"": 1, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15,
              "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50}
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
        raise ValueError(f"{value!r} is not a byte count; write 700GB, 1.5TB, 64GiB or a whole number of bytes "
                         "(1 byte to 10PB)")
    return int(number)


def parse_count(value: object) -> object:
    """A count written as a number or in exponent form (``175e9``, which YAML reads as text) as an int."""
    if isinstance(value, str):
        if not re.fullmatch(r"\s*\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*", value):
            raise ValueError(f"{value!r} is not a count; write a number such as 175e9 or 175000000000")
        value = float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class ModelDoc(Section):
    """A model whose gradient is the collective: parameters times bytes per parameter (4 for fp32, 2 for bf16)."""

    parameters: Annotated[int, BeforeValidator(parse_count), Field(ge=1, le=10**15)]
    bytes_per_parameter: float = Field(4, gt=0, le=16)


class WorkloadDoc(Section):
    """One training job on the fabric: its collective, size, placement and what a stall costs."""

    name: Annotated[str, AfterValidator(safe_name)]
    gpus: int | None = Field(None, ge=2, le=MAX_GPUS)
    """GPUs of the job (default: every GPU of the fabric)."""
    placement: Literal["packed", "scattered", "random"] = "packed"
    collective: Literal["allreduce", "allgather", "reducescatter", "alltoall"] = "allreduce"
    bytes: Annotated[int, BeforeValidator(parse_bytes)] | None = None
    """Bytes per collective as nccl-tests counts them (the per-rank buffer; for allgather the output)."""
    model: ModelDoc | None = None
    algorithm: Literal["ring", "tree", "auto"] = "ring"
    qps_per_connection: int = Field(1, ge=1, le=128)
    """RoCE queue pairs per connection (NCCL_IB_QPS_PER_CONNECTION; NCCL takes at most 128)."""
    channels: int = Field(2, ge=1, le=64)
    """Connections per rail and neighbour (NCCL channels)."""
    gpu_hour_usd: float = Field(30.0, ge=0, le=10_000)
    step_budget_s: float | None = Field(None, gt=0, le=86_400)
    """The collective time the team can afford per step; above it ``designer check`` warns."""


class IntentDoc(Section):
    """The whole intent file."""

    name: Annotated[str, AfterValidator(safe_name)]
    description: str = ""
    compute: ComputeDoc
    fabric: FabricDoc
    addressing: AddressingDoc = AddressingDoc()
    routing: RoutingDoc = RoutingDoc()
    facility: FacilityDoc = FacilityDoc()
    targets: list[Literal["sonic", "frr", "eos", "nvue"]] = Field(default_factory=lambda: list(TARGETS),
                                                                   min_length=1)
    qos: QosDoc = QosDoc()
    checks: ChecksDoc = ChecksDoc()
    workloads: list[WorkloadDoc] = Field(default_factory=list)

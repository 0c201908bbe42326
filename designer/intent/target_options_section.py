"""The ``target_options`` section as written: per network OS choices of how its files are written."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal, cast

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    WithJsonSchema,
    create_model,
)

from designer.catalog import catalog
from designer.intent.fields import (
    Section,
    record_of,
    whole_match,
)
from designer.intent.yaml_source import short
from designer.targets import TARGETS


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


@dataclass(frozen=True)
class SonicOptions:
    """How the SONiC files are written: the SKU asked for (None: the catalog's for the port layout)."""

    hwsku: str | None


@dataclass(frozen=True)
class NvueOptions:
    """How the NVUE files are written: the Cumulus Linux release."""

    release: str


@dataclass(frozen=True)
class Partition:
    """One InfiniBand partition beside the default."""

    name: str
    pkey: int
    membership: str


@dataclass(frozen=True)
class OpensmOptions:
    """How the OpenSM files are written."""

    lmc: int
    sweep_interval_s: int
    qos: bool
    partitions: tuple[Partition, ...]


@dataclass(frozen=True)
class TargetOptions:
    """Per target that takes options, its choices (each card's ``options``)."""

    sonic: SonicOptions
    nvue: NvueOptions
    opensm: OpensmOptions

    def view_arguments(self) -> dict[str, dict[str, Any]]:
        """Per target, the keyword arguments of its view."""
        return {field.name: dataclasses.asdict(getattr(self, field.name)) for field in dataclasses.fields(self)}


def target_options(doc: Any) -> TargetOptions:
    """The ``target_options`` section as the stages read it (``doc``: a :data:`TargetOptionsDoc`)."""
    opensm = doc.opensm
    return TargetOptions(
        sonic=record_of(SonicOptions, doc.sonic),
        nvue=record_of(NvueOptions, doc.nvue),
        opensm=record_of(
            OpensmOptions, opensm, partitions=tuple(record_of(Partition, part) for part in opensm.partitions)
        ),
    )

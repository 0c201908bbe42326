"""The intent's common field types and the base of every section: speeds, pools, ASNs, names."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from netaddr import AddrFormatError, IPNetwork
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
)

from designer.catalog import Catalog, catalog
from designer.intent.yaml_source import short

RecordT = TypeVar("RecordT")
"""A frozen record (a dataclass) of the resolved intent."""

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

RATIO_PATTERN = r"^\s*\d+(\.\d+)?\s*(:\s*\d+(\.\d+)?)?\s*$"
MOST_TAPERED = 64
"""The steepest ratio of downlink to uplink bandwidth an intent may write (and its inverse, the most
under-subscribed a taper may be)."""


def ratio_parser(lowest: float) -> Callable[[object], object]:
    """A reader of ratios of downlink to uplink bandwidth, written as a number (``3``, ``2.5``) or as down:up
    (``"3:1"``, ``"1:2"``), from ``lowest`` to 64; it returns down per unit of up as a float, and refuses anything
    else saying what would be valid."""

    def parse(value: object) -> object:
        ratio: float | None = None
        if isinstance(value, str):
            match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(?::\s*(\d+(?:\.\d+)?))?\s*", value)
            if match and float(match.group(2) or 1) > 0:
                ratio = float(match.group(1)) / float(match.group(2) or 1)
        elif isinstance(value, int | float) and not isinstance(value, bool):
            ratio = float(value)
        if ratio is None:
            raise ValueError(f'{short(value)} is not a ratio; write a number such as 3 or down:up such as "3:1"')
        if isinstance(value, int) and value > MOST_TAPERED:
            down, up = divmod(value, 60)
            raise ValueError(
                f"{value} is {value}:1, beyond the steepest ratio, {MOST_TAPERED}:1; if you meant {down}:{up}, quote "
                f'it ("{down}:{up}"): YAML reads an unquoted 7:1 as a number in base 60'
            )
        if not lowest - 1e-9 <= ratio <= MOST_TAPERED:
            least = "1 (as much bandwidth up as down)" if lowest == 1 else f'"1:{round(1 / lowest)}"'
            raise ValueError(
                f"{short(value)}{'' if isinstance(value, str) else f' ({ratio_text(ratio)})'} is out of range: a "
                f'ratio here runs from {least} to {MOST_TAPERED}:1, such as 2 or "3:1"'
            )
        return ratio

    return parse


def ratio_text(ratio: float) -> str:
    """A ratio of down to up bandwidth as the intent writes it: ``7:1``, ``1:2``, ``6.86:1``."""
    if ratio < 1 and abs(1 / ratio - round(1 / ratio)) < 1e-9:
        return f"1:{round(1 / ratio)}"
    return f"{ratio:.2f}".rstrip("0").rstrip(".") + ":1"


def _ratio_schema(lowest: float, examples: list[object]) -> WithJsonSchema:
    return WithJsonSchema(
        {
            "anyOf": [
                {"type": "number", "minimum": lowest, "maximum": MOST_TAPERED},
                {"type": "string", "pattern": RATIO_PATTERN},
            ],
            "examples": examples,
        }
    )


Ratio = Annotated[float, BeforeValidator(ratio_parser(1)), _ratio_schema(1, [1, 3, "3:1"])]
"""Downlink to uplink bandwidth of a switch: a number (``3``) or down:up (``"3:1"``), at least 1."""
Taper = Annotated[
    float,
    BeforeValidator(ratio_parser(1 / MOST_TAPERED)),
    _ratio_schema(1 / MOST_TAPERED, [1, "7:1", "1:2"]),
]
"""A tier's declared taper: down:up bandwidth of each of its switches, tapered (``"7:1"``) or under-subscribed
(``"1:2"``)."""


def _catalog_names(kind: str) -> WithJsonSchema:
    """A catalog model name in the JSON Schema: the shipped models as examples (a site catalog adds its own)."""
    return WithJsonSchema({"type": "string", "examples": list(getattr(catalog(), kind))})


class Section(BaseModel):
    """Every intent section: strict types, unknown keys refused, read-only once loaded."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def whole_match(pattern: str, refusal: str) -> Callable[[str], str]:
    """A validator of strings that match ``pattern`` whole; any other value is refused as ``'value' is not``
    ``refusal``."""

    def check(value: str) -> str:
        if not re.fullmatch(pattern, value):
            raise ValueError(f"{short(value)} is not {refusal}")
        return value

    return check


def record_of(kind: type[RecordT], doc: BaseModel, **resolved: Any) -> RecordT:
    """The frozen record ``kind`` of a section as written: each field of the record from the section's field of the
    same name, or from ``resolved`` (the section's own records, made first)."""
    values = {field.name: resolved.get(field.name, getattr(doc, field.name)) for field in dataclasses.fields(kind)}  # type: ignore[arg-type]
    return kind(**values)

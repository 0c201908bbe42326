"""The ``facility:`` section resolved: every field set from the intent or the catalog defaults.

Cross-field rules: air cooling is refused for racks budgeted above the air limit, the media reaches
must grow in catalog order (each medium takes over where the shorter one stops), ``media: optics`` needs an
optical medium in the catalog, and every server and switch must fit in a rack.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

from pydantic import (
    Field,
)

from designer.catalog import Catalog
from designer.errors import Problem
from designer.intent.fields import (
    MEDIA,
    Section,
)

FIELDS = (
    "rack_power_kw",
    "rack_units",
    "cooling",
    "air_limit_kw",
    "racks_per_row",
    "max_racks_per_row",
    "rack_width_m",
    "row_pitch_m",
    "pue",
    "slack_m",
    "media",
)


@dataclass(frozen=True)
class Facility:
    """The data hall every rack stands in; ``reach_m`` is (medium, metres at the NIC speed), shortest first, and
    ``reach_by_speed`` the same at each speed the fabric's links run: every medium of the catalog, or only the
    optical ones when ``media`` is ``optics``."""

    rack_power_kw: float
    rack_units: int
    cooling: str
    air_limit_kw: float
    racks_per_row: int | None
    """None: open, chosen by the placement (:func:`designer.backend.physical.placement.row_length`)."""
    max_racks_per_row: int
    rack_width_m: float
    row_pitch_m: float
    pue: float
    slack_m: float
    media: str
    """``copper``: a link takes copper where its reach covers the run, optics beyond; ``optics``: optics always."""
    reach_m: tuple[tuple[str, float], ...]
    reach_by_speed: tuple[tuple[int, tuple[tuple[str, float], ...]], ...]

    def reach_at(self, speed: int) -> tuple[tuple[str, float], ...]:
        """(medium, metres) at links of ``speed`` Gb/s, shortest first."""
        return dict(self.reach_by_speed)[speed]


@dataclass(frozen=True)
class FacilityNeeds:
    """What the equipment asks of its racks: a rack-scale system's own maximum power (with its source) and
    cooling, or a server model's cooling; ``model`` names it (empty: nothing asked)."""

    model: str
    rack_power_kw: float | None
    cooling: str | None
    source: str

    def defaults(self) -> dict[str, Any]:
        """The facility fields the equipment sets unless the intent gives them."""
        given = {"rack_power_kw": self.rack_power_kw, "cooling": self.cooling}
        return {name: value for name, value in given.items() if value is not None}


NO_NEEDS = FacilityNeeds("", None, None, "")


def resolve_facility(
    doc: FacilityDoc, link_speeds: tuple[int, ...], hardware: Catalog, needs: FacilityNeeds = NO_NEEDS
) -> Facility:
    """Fill ``doc`` from the equipment's ``needs``, then the catalog ``hardware``; ``link_speeds`` are the
    fabric's, the NIC speed first."""
    values = _values(doc, hardware, needs)
    usable = [name for name, medium in hardware.media.items() if medium.optical or values["media"] == "copper"]
    reach = {
        speed: tuple((name, _reach_at(doc, name, speed, hardware)) for name in usable)
        for speed in sorted(set(link_speeds))
    }
    return Facility(**values, reach_m=reach[link_speeds[0]], reach_by_speed=tuple(sorted(reach.items())))


def facility_problems(
    doc: FacilityDoc,
    link_speed: int | None,
    equipment: dict[str, int],
    hardware: Catalog,
    needs: FacilityNeeds = NO_NEEDS,
) -> list[Problem]:
    """A problem for each rule ``doc`` breaks. ``equipment`` maps each server and switch model of the design to
    its rack units; without the ``link_speed`` only the reaches the intent gives are compared; ``needs`` is what
    a rack-scale system or a liquid-cooled server asks of its racks."""
    facility = _values(doc, hardware, needs)
    problems: list[Problem] = []
    problems.extend(_power_problems(doc, facility, needs))
    problems.extend(_media_problems(doc, facility, link_speed, hardware))
    problems.extend(_rack_unit_problems(facility, equipment))
    return problems


def _power_problems(doc: FacilityDoc, facility: dict[str, Any], needs: FacilityNeeds) -> list[Problem]:
    """The racks' power and cooling against what the equipment ``needs`` and what air cooling carries."""
    problems = []
    if needs.rack_power_kw is not None and facility["rack_power_kw"] < needs.rack_power_kw:
        problems.append(
            Problem(
                ("facility", "rack_power_kw"),
                (
                    f"{facility['rack_power_kw']:g} kW is below the {needs.rack_power_kw:g} kW one {needs.model} "
                    f"rack draws at most ({needs.source}); a system is never split across racks, so use at least "
                    f"{needs.rack_power_kw:g} (or leave rack_power_kw out: it defaults to the system's)"
                ),
            )
        )
    if needs.cooling == "liquid" and facility["cooling"] == "air":
        problems.append(
            Problem(
                ("facility", "cooling"),
                f"{needs.model} is liquid cooled; use cooling: liquid (or leave cooling out: it defaults to liquid)",
            )
        )
    air_too_hot = facility["cooling"] == "air" and facility["rack_power_kw"] > facility["air_limit_kw"]
    if air_too_hot and needs.cooling != "liquid":  # for a liquid system the rule above says it already
        where = ("facility", "rack_power_kw") if doc.rack_power_kw is not None else ("facility", "cooling")
        problems.append(
            Problem(
                where,
                (
                    f"air cooling is refused above {facility['air_limit_kw']:g} kW per rack (facility.air_limit_kw) "
                    f"and the racks are budgeted at {facility['rack_power_kw']:g} kW; use cooling: liquid, a "
                    f"rack_power_kw of at most {facility['air_limit_kw']:g}, or, where the hall's air handling "
                    f"carries it, facility.air_limit_kw: {facility['rack_power_kw']:g}"
                ),
            )
        )
    return problems


def _media_problems(
    doc: FacilityDoc, facility: dict[str, Any], link_speed: int | None, hardware: Catalog
) -> list[Problem]:
    """The media's reaches (each further than the one before it) and optics without an optical medium."""
    problems = []
    reach = [(name, _reach(doc, name, link_speed, hardware)) for name in hardware.media]
    known = [(name, metres) for name, metres in reach if metres is not None]
    for (shorter, short_reach), (name, longer_reach) in pairwise(known):
        if longer_reach <= short_reach:
            problems.append(
                Problem(
                    ("facility", "reach_m", name),
                    (
                        f"{name} reaches {longer_reach:g} m, not beyond {shorter} ({short_reach:g} m); each medium "
                        f"must reach further than the one before it ({' < '.join(name for name, _ in known)})"
                    ),
                )
            )
    if facility["media"] == "optics" and not any(medium.optical for medium in hardware.media.values()):
        problems.append(
            Problem(
                ("facility", "media"),
                f"optics needs an optical medium and the catalog's media ({', '.join(hardware.media)}) are all "
                "copper; use media: copper, or add an optical medium to a site catalog",
            )
        )
    return problems


def _rack_unit_problems(facility: dict[str, Any], equipment: dict[str, int]) -> list[Problem]:
    """Each model of ``equipment`` that does not fit in a rack."""
    problems = []
    for model, units in sorted(equipment.items()):
        if units > facility["rack_units"]:
            problems.append(
                Problem(
                    ("facility", "rack_units"),
                    (
                        f"{model} takes {units}U and does not fit in a {facility['rack_units']}U rack; use racks of at "
                        f"least {units} units"
                    ),
                )
            )
    return problems


def _values(doc: FacilityDoc, hardware: Catalog, needs: FacilityNeeds = NO_NEEDS) -> dict[str, Any]:
    """Every field of ``FIELDS``, from ``doc``, else what the equipment ``needs``, else the catalog."""
    defaults = {"racks_per_row": None, **hardware.facility, **needs.defaults()}
    return {name: value if (value := getattr(doc, name)) is not None else defaults[name] for name in FIELDS}


def _reach(doc: FacilityDoc, medium: str, link_speed: int | None, hardware: Catalog) -> float | None:
    """Metres ``medium`` reaches: as the intent gives it, else the catalog's at ``link_speed`` (if known)."""
    if link_speed:
        return _reach_at(doc, medium, link_speed, hardware)
    given = getattr(doc.reach_m, medium, None)
    return float(given) if given else None


def _reach_at(doc: FacilityDoc, medium: str, link_speed: int, hardware: Catalog) -> float:
    """Metres ``medium`` reaches at ``link_speed``: as the intent gives it, else the catalog's."""
    given = getattr(doc.reach_m, medium, None)
    return float(given) if given else float(hardware.media[medium].reach_at(link_speed))


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

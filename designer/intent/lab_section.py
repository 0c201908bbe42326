"""The intent's ``lab`` section resolved: the containerlab kind and image of every switch of ``lab/clab.yml``.

Its rules run at load time, so a lab the kind cannot run is refused before anything is written: the kind boots one
target's files, so that target must be built; a kind without a shared image needs the team's own; and every port
the target's files name must be one the kind's image has an interface for (NVIDIA Cumulus VX, a virtual machine
with one NIC per ``swpN``, has no broken-out ``swpNsL``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    Field,
    WithJsonSchema,
)

from designer.catalog import Catalog
from designer.errors import Problem
from designer.intent.fields import (
    Section,
    whole_match,
)
from designer.targets import LAB_KINDS

TIER_NAMES = {"leaf": "leaves", "spine": "spines", "super_spine": "super-spines"}


@dataclass(frozen=True)
class LabSpec:
    """The containerlab export: the kind every switch node runs as and its image."""

    kind: str
    image: str

    @property
    def target(self) -> str:
        """The target whose files the nodes boot."""
        return LAB_KINDS[self.kind].target


def resolve_lab(
    doc: LabDoc | None,
    targets: list[str],
    tiers: dict[str, tuple[str, tuple[int, ...]]],
    hardware: Catalog,
    problems: list[Problem],
) -> LabSpec | None:
    """The lab of ``doc`` (None: FRR ``linux`` nodes when ``frr`` is among ``targets``, else no lab), adding to
    ``problems`` what it cannot run; ``tiers`` gives each tier known to be built as its switch model and the
    breakouts (links per physical port) its ports run at."""
    if doc is None:
        default = LAB_KINDS["linux"]
        return LabSpec(default.kind, default.image) if default.target in targets else None
    entry = LAB_KINDS[doc.kind]
    before = len(problems)
    if targets and entry.target not in targets:
        problems.append(
            Problem(
                ("lab", "kind"),
                f"{doc.kind} nodes boot the {entry.target} files; add {entry.target} to targets, or use the kind "
                f"of a listed target: {_kinds_of(targets)}",
            )
        )
    if doc.image is None and not entry.image:
        problems.append(
            Problem(
                ("lab", "image"),
                f"{doc.kind} runs your team's own {entry.label} image: name it as docker images lists it on the "
                "lab host (a tag such as name:version)",
            )
        )
    unfit = [
        f"the {TIER_NAMES[tier]}' {name}"
        for tier, (model, breakouts) in tiers.items()
        for name in _sample_ports(hardware, entry.target, model, breakouts)
        if not re.fullmatch(entry.ports, name)
    ]
    if unfit:
        problems.append(
            Problem(
                ("lab", "kind"),
                f"{entry.label} has interfaces for ports named {entry.port_names}, not {' or '.join(unfit)}; use "
                f"another kind ({', '.join(kind for kind in LAB_KINDS if kind != doc.kind)}), or for a breakout "
                "links at the ports' own speed",
            )
        )
    if len(problems) > before:
        return None
    return LabSpec(doc.kind, doc.image or entry.image)


def _sample_ports(hardware: Catalog, target: str, model: str, breakouts: tuple[int, ...]) -> list[str]:
    """The name ``target`` gives the first port of switch ``model`` at each of ``breakouts``: run whole, or its
    second link when broken out."""
    naming = hardware.port_naming(target, model)
    return sorted(
        {
            naming.name(0, 0 if breakout == 1 else 1, breakout, 8 // breakout, 0 if breakout == 1 else 8 // breakout, 1)
            for breakout in breakouts
        }
    )


def _kinds_of(targets: list[str]) -> str:
    """The kinds that boot one of ``targets``' files, for a message."""
    kinds = [kind for kind, entry in LAB_KINDS.items() if entry.target in targets]
    return ", ".join(kinds) if kinds else f"none (the kinds are {', '.join(LAB_KINDS)})"


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

"""The intent's ``lab`` section resolved: the containerlab kind and image of every switch of ``lab/clab.yml``.

Its rules run at load time, so a lab the kind cannot run is refused before anything is written: the kind boots one
target's files, so that target must be built; a kind without a shared image needs the team's own; and NVIDIA Cumulus
VX, a virtual machine whose ports are whole ``swpN`` NICs, cannot run a switch whose ports break out.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.errors import Problem
from designer.intent.schema import LabDoc
from designer.targets import LAB_KINDS

WHOLE_PORTS_ONLY = ("nvidia_cumulusvx",)
"""Kinds whose nodes have one interface per physical port: no ``swpNsL`` sub-ports (containerlab's
``nodes/nvidia_cumulusvx``: an interface is ``swp<port>``, mapped to the VM's NIC ``eth<port>``)."""

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
    doc: LabDoc | None, targets: list[str], breakouts: dict[str, int], problems: list[Problem]
) -> LabSpec | None:
    """The lab of ``doc`` (None: FRR ``linux`` nodes when ``frr`` is among ``targets``, else no lab), adding to
    ``problems`` what it cannot run; ``breakouts`` is the largest breakout (links per physical port) of each tier
    known to be built."""
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
    broken_out = [
        f"{TIER_NAMES[tier]} run each port as {links} links" for tier, links in breakouts.items() if links > 1
    ]
    if doc.kind in WHOLE_PORTS_ONLY and broken_out:
        problems.append(
            Problem(
                ("lab", "kind"),
                f"{entry.label} has whole ports only (swpN), but the {' and the '.join(broken_out)}; use kind "
                "linux or arista_ceos, or links at the ports' own speed",
            )
        )
    if len(problems) > before:
        return None
    return LabSpec(doc.kind, doc.image or entry.image)


def _kinds_of(targets: list[str]) -> str:
    """The kinds that boot one of ``targets``' files, for a message."""
    kinds = [kind for kind, entry in LAB_KINDS.items() if entry.target in targets]
    return ", ".join(kinds) if kinds else f"none (the kinds are {', '.join(LAB_KINDS)})"

"""Designing a candidate from the results of another where they are bound to be the same, as ``designer explore``
builds its candidates: the stages run as :func:`designer.pipeline.design` runs them, without the servers' host
settings, in one process, the workloads' numbers of the intent's mode only, each result taken from the other
design where nothing it reads differs (:class:`designer.pipeline.Known`).
"""

from __future__ import annotations

from dataclasses import fields, replace
from operator import attrgetter
from typing import Any

from designer.analysis.workload import SEEDS
from designer.backend.allocate import Allocation
from designer.backend.sizing import Plan
from designer.backend.wiring import Fabric
from designer.checks import OF_THE_FABRIC, applicable
from designer.design import Design, quiet
from designer.intent import Intent
from designer.pipeline import Known, design_wired, first_stages

BESIDE_THE_WIRING = ("technology", "planes", "server", "addressing", "routing", "load_balancing", "workloads")
"""The intent's fields that the addresses, max-flows and workload analysis read beside the wired fabric: two designs
that agree on these and are wired alike (:func:`wired_alike`) have the same of each."""
_beside = attrgetter(*BESIDE_THE_WIRING)
NOT_DESIGNED_FROM = frozenset(("name", "description", "source", "sha256", "text"))
"""The intent's fields that name and describe it: the host settings and the outputs read its name, no stage
before them reads any of these."""


def design_like(intent: Intent, alike: Design | None, seeds: int = SEEDS) -> Design:
    """The design of ``intent`` as explore makes it (no host settings, one process, the workloads' numbers of the
    intent's mode only) over ``seeds`` runs. ``alike``: the design of another intent, made the same way with the same
    ``seeds``, whose results this one takes where they are bound to be the same: when the intents differ in nothing
    before the physical plan but ``facility.media`` (:func:`_before_the_media`), its fabric, addresses, facts,
    max-flows, workloads, device models (with ``alike``'s ``configs``) and findings of the fabric; else, when the
    fabric is wired as its fabric is (:func:`wired_alike`: only the switch models differ) and the intent's fields
    those read beside it are the same (:data:`BESIDE_THE_WIRING`), its addresses, facts, max-flows and workloads
    (none reads a switch's model). Either way the physical plan takes its cables' lengths (and media, when those are
    the same) where its devices stand where this one's do (:func:`~designer.backend.physical.plan_physical`'s ``like``);
    the rest is made anew."""
    if alike is not None and alike.configs and _before_the_media(intent) == _before_the_media(alike.intent):
        return _designed(intent, (alike.plan, alike.fabric, alike.allocation), _known(intent, alike, True), seeds)
    plan, fabric, allocation = first_stages(intent, quiet)
    if alike is not None and _beside(intent) == _beside(alike.intent) and wired_alike(fabric, alike.fabric):
        return _designed(intent, (plan, fabric, alike.allocation), _known(intent, alike, False), seeds)
    return _designed(intent, (plan, fabric, allocation), Known(), seeds)


def _known(intent: Intent, alike: Design, media_only: bool) -> Known:
    """What ``intent``'s design takes of ``alike``'s: its facts, max-flows and workloads, its intent and physical
    plan for the cables' lengths; and, when the two differ only in their media, its device models and the findings of
    the checks of the fabric."""
    checked = {module.ID for module in applicable(intent.technology, OF_THE_FABRIC)}
    return Known(
        alike.facts,
        alike.bisection,
        [finding for finding in alike.findings if finding.check in checked] if media_only else None,
        alike.configs if media_only else None,
        alike.workloads,
        (alike.intent, alike.physical),
    )


def _designed(intent: Intent, wiring: tuple[Plan, Fabric, Allocation | None], known: Known, seeds: int) -> Design:
    """The stages after ``wiring`` as explore runs them, taking what is ``known``."""
    return design_wired(intent, wiring, known, quiet, seeds, None, hosts=False, processes=1, workload_detail=False)


def wired_alike(fabric: Fabric, other: Fabric) -> bool:
    """Whether two fabrics are wired alike: the same plan, links, counts and devices (names, places, ports and
    breakouts) but for the switches' models, so that what reads only the wiring (the addresses, facts, max-flows and
    workloads) is the same for both."""
    if replace(fabric, devices=[]) != replace(other, devices=[]) or len(fabric.devices) != len(other.devices):
        return False
    return all(
        mine._replace(model="") == theirs._replace(model="")
        for mine, theirs in zip(fabric.devices, other.devices, strict=True)
    )


def _before_the_media(intent: Intent) -> tuple[Any, ...]:
    """What the stages before the physical plan read of ``intent``: every field but its name and text (the site
    catalogs by their files) with ``facility.media`` left out: which links take copper and which optics moves no
    device and changes no cable's length, so it first matters when the physical plan picks each link's medium."""
    facility = replace(intent.facility, media="", reach_m=(), reach_by_speed=())
    return (
        intent.catalogs.files,
        *(
            facility if field.name == "facility" else getattr(intent, field.name)
            for field in fields(intent)
            if field.compare and field.name not in NOT_DESIGNED_FROM
        ),
    )

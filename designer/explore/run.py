"""designer explore: the buildable designs of one intent, side by side.

A candidate is the intent with one value set at each varied dotted path (``fabric.leaf.model``). Each candidate
runs the stages ``designer plan`` runs (load, size, wire, allocate, physical plan, models, workloads, checks; never
rendering) in one of two forked workers, one stage after another, so the imports, the catalog and the parsed intent
are shared and the two cores each build a candidate; the workloads get only the numbers reported. Candidates that
differ only in ``facility.media`` are built by one worker, from one fabric, set of device models and workloads;
so are those that differ only in their switch models too, one after another, a candidate wired as the one before
taking its addresses, max-flows and workloads. A candidate is kept when it loads and passes every error-level check
(the facility's rack power and cooling among them); the others are counted by reason. The kept ones are compared
on what they cost and what they give, and the Pareto front is marked.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError

from designer.catalog import Catalog, catalog
from designer.checks import CHECKS
from designer.design import Design
from designer.errors import InputError, Problem, dotted
from designer.explore.alike import design_like
from designer.intent import Intent, SiteCatalogs
from designer.intent.fields import MAX_PLANES, MEDIA, SPEEDS
from designer.intent.resolve import field_at, submodel
from designer.intent.schema import IntentDoc
from designer.intent.yaml_source import decode, load_yaml, read_bytes
from designer.outputs.workload_report import contract
from designer.validation import validated_intent
from designer.workers import each_in_workers

MAX_CANDIDATES = 256
"""The most candidates one exploration builds (several minutes at 32,768 GPUs on two cores); a larger space is
refused with its size by dimension, so the user narrows it."""
VARY_SOURCE = "--vary"
MAX_NAME = 63
"""The longest design name (``designer.intent.fields.NAME_PATTERN``)."""
_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9.-]+")
WORKERS = 2
"""Candidates built at once; each build forks its own helpers beside it."""
MEDIA_PATH = ("facility", "media")
MODEL_PATHS = (("fabric", "leaf", "model"), ("fabric", "spine", "model"), ("fabric", "super_spine", "model"))
"""The fields whose values change no wiring when the models have the same ports: candidates that differ only in
these (and the media) may be wired alike (:func:`designer.explore.alike.wired_alike`)."""
LOWER_IS_BETTER = ("switches", "power_kw", "racks", "cables", "optics")
"""The measures the Pareto front compares, with ``failure_bisection`` (higher is better) and each workload's p50
collective time (lower is better)."""


@dataclass(frozen=True)
class Dimension:
    """One varied intent field: its path and the values tried, in the order given."""

    path: tuple[str, ...]
    values: tuple[Any, ...]

    @property
    def name(self) -> str:
        return dotted(self.path)


@dataclass(frozen=True)
class Exploration:
    """What ``designer explore`` found: the dimensions, the kept candidates (measures, Pareto mark, intent text)
    and the reasons the others failed, with how many failed for each."""

    name: str
    dimensions: tuple[Dimension, ...]
    candidates: tuple[dict[str, Any], ...]
    intents: dict[str, str]
    """Each kept candidate's intent YAML, by name."""
    failures: tuple[tuple[str, int], ...]

    @property
    def tried(self) -> int:
        return len(self.candidates) + sum(count for _, count in self.failures)


def dimensions(vary: Sequence[str], hardware: Catalog) -> tuple[Dimension, ...]:
    """The ``--vary PATH=V1,V2`` options as dimensions, or :class:`InputError` with every problem: an unknown path
    (with the valid keys there), a section or list in place of a single field, a value the schema refuses."""
    problems: list[Problem] = []
    found: list[Dimension] = []
    for line, option in enumerate(vary, start=1):
        path_text, equals, values_text = option.partition("=")
        path = tuple(part.strip() for part in path_text.split("."))
        texts = values_text.split(",")
        values = tuple(_value(text) for text in texts)
        if not equals or not all(path) or not values_text.strip():
            messages = [f"{option!r} should be PATH=V1,V2,... such as fabric.planes=1,2"]
        elif problem := _path_problem(path):
            messages = [problem]
        elif path == ("name",):
            messages = ["explore names each candidate itself (the intent's name and its values); vary another field"]
        elif any(dimension.path == path for dimension in found):
            messages = ["is varied twice; give all its values in one --vary"]
        else:
            messages = _value_problems(path, texts, values, hardware)
        problems += [Problem(path, message, line, VARY_SOURCE) for message in messages]
        if not messages:
            found.append(Dimension(path, values))
    if problems:
        raise InputError(problems, about="the --vary options")
    return tuple(found)


def open_dimensions(data: dict[str, Any], intent: Intent) -> tuple[Dimension, ...]:
    """What the intent leaves open, among a documented set: the leaf model (every catalog switch) when the leaf
    names no model and no ports, the plane count (each that divides the server's NIC ports) when ``fabric.planes``
    is not given, the tiers (2 and 3) when ``auto``, the leaf uplink speed (the NIC speed and twice it) when not
    given, and the media (copper, optics) when neither the intent nor a site catalog sets ``facility.media``. The
    spine follows the leaf unless the intent or a ``--vary`` says otherwise."""
    fabric = data.get("fabric") or {}
    leaf = fabric.get("leaf") or {}
    site_facility = intent.catalogs.overlay.get("facility") or {}
    nics, speed = intent.server.nics, intent.server.nic_speed
    found = []
    if "model" not in leaf and "ports" not in leaf:
        found.append(Dimension(("fabric", "leaf", "model"), tuple(intent.catalog.switches)))
    if "planes" not in fabric:
        found.append(Dimension(("fabric", "planes"), tuple(p for p in range(1, MAX_PLANES + 1) if nics % p == 0)))
    if fabric.get("tiers", "auto") == "auto":
        found.append(Dimension(("fabric", "tiers"), (2, 3)))
    if "uplink_speed" not in leaf:
        found.append(Dimension(("fabric", "leaf", "uplink_speed"), tuple(s for s in (speed, 2 * speed) if s in SPEEDS)))
    if "media" not in (data.get("facility") or {}) and "media" not in site_facility:
        found.append(Dimension(("facility", "media"), MEDIA))
    return tuple(found)


def _base(path: Path, raw: bytes, data: Any) -> Intent:
    """The intent at ``path`` (its bytes ``raw``, read as ``data``) validated; one whose leaf names no model and no
    ports (what explore then varies over the catalog) validated with the first catalog switch for its leaf, as the
    base the candidates are read against. :class:`InputError` with the intent's own problems otherwise."""
    try:
        return validated_intent(path, raw)
    except InputError:
        fabric = data.get("fabric") if isinstance(data, dict) else None
        leaf = fabric.get("leaf") if isinstance(fabric, dict) else None
        if not isinstance(leaf, dict) or "model" in leaf or "ports" in leaf:
            raise
        with_model = json.loads(json.dumps(data))  # a deep copy of plain YAML data
        with_model["fabric"]["leaf"]["model"] = next(iter(catalog().switches))
        try:
            return validated_intent(path, yaml.safe_dump(with_model, sort_keys=False).encode())
        except InputError:
            pass
        raise


def explore(path: Path, vary: Sequence[str]) -> Exploration:
    """Build every candidate of the intent at ``path`` over the ``--vary`` options (or what the intent leaves
    open), keep those that pass, and mark the Pareto front. Raises :class:`InputError` on bad input."""
    raw = read_bytes(path)
    data = load_yaml(decode(raw, str(path)), str(path)).data
    intent = _base(path, raw, data)
    varied = dimensions(vary, intent.catalog) if vary else open_dimensions(data, intent)
    _refuse_too_many(varied)
    picks = list(itertools.product(*(range(len(dimension.values)) for dimension in varied)))
    combinations = [tuple(d.values[place] for d, place in zip(varied, pick, strict=True)) for pick in picks]
    names = candidate_names(intent.name, varied, picks)
    texts = [
        _candidate_text(data, intent.name, name, varied, values)
        for name, values in zip(names, combinations, strict=True)
    ]
    shared_catalogs = None if any(dimension.path[0] == "catalog" for dimension in varied) else intent.catalogs
    batches = _batches(varied, picks, min(WORKERS, os.cpu_count() or 1))

    def evaluate(batch: int) -> dict[int, dict[str, Any]]:
        """The measures, or the failure reasons, of each candidate of one batch (:func:`_outcomes`)."""
        return _outcomes(path, batches[batch], texts, shared_catalogs, varied, picks)

    results: dict[int, dict[str, Any]] = {}
    for found in each_in_workers(min(WORKERS, os.cpu_count() or 1), len(batches), evaluate).values():
        results.update(found)
    kept: list[dict[str, Any]] = []
    failures: Counter[str] = Counter()
    for job, name in enumerate(names):
        result = results[job]
        if "failed" in result:
            failures.update(dict.fromkeys(result["failed"], 1))
            continue
        values = {dimension.name: value for dimension, value in zip(varied, combinations[job], strict=True)}
        kept.append({"name": name, "values": values, **result})
    marks = pareto(kept)
    candidates = tuple(
        {**row, "pareto": mark} for mark, row in sorted(zip(marks, kept, strict=True), key=lambda pair: not pair[0])
    )
    return Exploration(
        intent.name,
        varied,
        candidates,
        {row["name"]: texts[names.index(row["name"])] for row in candidates},
        tuple(sorted(failures.items(), key=lambda item: (-item[1], item[0]))),
    )


def _refuse_too_many(varied: Sequence[Dimension]) -> None:
    """:class:`InputError` when the dimensions make more than :data:`MAX_CANDIDATES` candidates, with each one's
    size."""
    space = 1
    for dimension in varied:
        space *= len(dimension.values)
    if space > MAX_CANDIDATES:
        sizes = ", ".join(f"{dimension.name} {len(dimension.values)}" for dimension in varied)
        raise InputError(
            [
                Problem(
                    (),
                    f"{space:,} candidates ({sizes} values) is more than the {MAX_CANDIDATES} one exploration "
                    "builds; narrow it with fewer --vary values, or set some of these fields in the intent",
                    file=VARY_SOURCE,
                    line=1,
                )
            ],
            about="the --vary options",
        )


def _outcomes(
    path: Path,
    jobs: Sequence[int],
    texts: Sequence[str],
    shared_catalogs: SiteCatalogs | None,
    varied: Sequence[Dimension],
    picks: Sequence[tuple[int, ...]],
) -> dict[int, dict[str, Any]]:
    """The measures, or the failure reasons, of each candidate of one batch (``jobs``: its other media one after
    another): the first of each set of switch models is designed whole, with what the models leave alone taken from
    the last one designed whole when the two are wired alike; its other media take what the media leave alone from
    it."""
    outcomes: dict[int, dict[str, Any]] = {}
    whole: Design | None = None
    but_media: tuple[int, ...] | None = None
    for job in jobs:
        try:
            candidate = validated_intent(path, texts[job].encode(), shared_catalogs)
            anew = whole is None or but_media != _but_media(varied, picks[job])
            if whole is not None and anew:
                whole = replace(whole, configs=())  # its device models are read no more: freed before the next
            built = design_like(candidate, whole)
            if anew:
                whole, but_media = built, _but_media(varied, picks[job])
        except InputError as error:
            outcomes[job] = {"failed": [_reason(problem) for problem in error.problems]}
            continue
        errors = sorted({finding.check for finding in built.findings if finding.severity == "error"})
        outcomes[job] = {"failed": [_check_reason(check) for check in errors]} if errors else measures(built)
        del built
    return outcomes


def _batches(varied: Sequence[Dimension], picks: Sequence[tuple[int, ...]], workers: int) -> list[list[int]]:
    """The candidates (by place in ``picks``) in batches a worker takes at once, each batch in the order of its
    first candidate: those that differ only in their switch models and ``facility.media`` share a batch, so that
    one design's addresses, max-flows and workloads serve all those wired alike and one set of device models
    serves its other media (:func:`designer.explore.alike.design_like`),
    in the order of the models, their media one after another. When that gives fewer batches than ``workers``,
    only the media share a batch, so that every worker has one."""
    media = {axis for axis, dimension in enumerate(varied) if dimension.path == MEDIA_PATH}
    models = media | {axis for axis, dimension in enumerate(varied) if dimension.path in MODEL_PATHS}
    for apart in (models, media):
        batches: dict[tuple[int, ...], list[int]] = {}
        for job, pick in enumerate(picks):
            batches.setdefault(tuple(place for axis, place in enumerate(pick) if axis not in apart), []).append(job)
        if len(batches) >= workers or apart == media:
            break
    return [sorted(jobs, key=lambda job: (_but_media(varied, picks[job]), job)) for jobs in batches.values()]


def _but_media(varied: Sequence[Dimension], pick: tuple[int, ...]) -> tuple[int, ...]:
    """The places of a candidate's values in every dimension but ``facility.media``: the same for the candidates that
    differ only in their media."""
    return tuple(place for dimension, place in zip(varied, pick, strict=True) if dimension.path != MEDIA_PATH)


def candidate_names(base: str, varied: Sequence[Dimension], picks: Sequence[tuple[int, ...]]) -> list[str]:
    """Each candidate's name from the place of its value in each dimension (``picks``): the base name and the values,
    joined by ``_`` (``cluster-a_nvidia-sn5600_2``), or, when those would be longer than a name may be or alike, the
    places counted from 1 (``cluster-a_3_2``, the base name cut short if need be). Values added at the end of a
    list leave the names of the candidates before them as they were, unless they make the first form too long."""
    if not varied:
        return [base]
    spelled = [[_spelled(value) for value in dimension.values] for dimension in varied]
    counted = [[str(place + 1) for place in range(len(dimension.values))] for dimension in varied]
    for parts in (spelled, counted):
        suffixes = ["_" + "_".join(parts[axis][place] for axis, place in enumerate(pick)) for pick in picks]
        names = [base[: MAX_NAME - len(suffix)] + suffix for suffix in suffixes]
        if len(set(names)) == len(names) and all(len(base) + len(suffix) <= MAX_NAME for suffix in suffixes):
            return names
    return names


def measures(built: Design) -> dict[str, Any]:
    """What a candidate costs and gives: switches (by tier and model), power, racks, cables and optics (by medium
    and module), the worst single failure and each workload's p50 collective time and efficiency."""
    plan, physical = built.plan, built.physical
    counts = plan.switch_counts()
    by_tier = {
        tier: {"model": built.intent.switch(tier).model, "count": count} for tier, count in counts.items() if count
    }
    media = physical.medium_names()
    cables = Counter(media[medium] for medium in physical.link_medium)
    optics: Counter[str] = Counter()
    for line in physical.bom:
        if line.category == "transceiver":
            optics[line.item] += line.count
    failures = [finding.evidence for finding in built.findings if finding.check == "failure-impact"]
    power = physical.power_kw(built.intent.facility.pue)
    jobs = [contract(result) for result in built.workloads]
    prices = built.intent.catalogs.catalog.prices
    cost = prices.cost([(line.item, line.count) for line in physical.bom]) if prices else None
    return {
        "tiers": plan.tiers,
        "planes": plan.planes,
        "switches": sum(counts.values()),
        "switches_by_tier": by_tier,
        "power_kw": power["total"],
        "facility_kw": power["facility"],
        "racks": physical.rack_counts()["total"],
        "cables": sum(cables.values()),
        "cables_by_medium": dict(sorted(cables.items())),
        "optics": sum(optics.values()),
        "optics_by_model": dict(sorted(optics.items())),
        "failure_bisection": min((f["bisection_fraction"] for f in failures), default=1.0),
        "failure_gpus": max((f["gpus_losing_a_rail"] for f in failures), default=0),
        "workloads": [
            {
                "name": job["name"],
                "time_s_p50": job["ecmp"]["time_s_p50"]
                if job["ecmp"]["time_s_p50"] is not None
                else job["ideal"]["time_s"],
                "efficiency_p50": job["ecmp"]["efficiency_p50"],
            }
            for job in jobs
        ],
        **(
            {"capital_cost": round(cost[0], 2), "currency": prices.currency, "unpriced": list(cost[1])}
            if prices and cost
            else {}
        ),
    }


def pareto(rows: Sequence[dict[str, Any]]) -> list[bool]:
    """For each row, whether no other row is at least as good in every measure and better in one; capital cost is
    a measure only when every row's bill of materials is wholly priced."""
    priced = bool(rows) and all("capital_cost" in row and not row["unpriced"] for row in rows)
    keys = [(*_costs(row), *((float(row["capital_cost"]),) if priced else ())) for row in rows]
    return [
        not any(all(o <= m for o, m in zip(other, mine, strict=True)) and other != mine for other in keys)
        for mine in keys
    ]


def _costs(row: dict[str, Any]) -> tuple[float, ...]:
    """A row's measures, each oriented so that lower is better."""
    return (
        *(float(row[key]) for key in LOWER_IS_BETTER),
        -float(row["failure_bisection"]),
        *(math.inf if job["time_s_p50"] is None else float(job["time_s_p50"]) for job in row["workloads"]),
    )


def _path_problem(path: tuple[str, ...]) -> str | None:
    """Why ``path`` is no single field of the intent schema, with the valid keys where it goes wrong."""
    model: type[BaseModel] | None = IntentDoc
    for depth, part in enumerate(path):
        if model is None:
            return f"{dotted(path[:depth])} is a single value, not a section; vary {dotted(path[:depth])} itself"
        if part not in model.model_fields:
            return (
                f"unknown field {part!r} in {dotted(path[:depth])}; valid keys there: {', '.join(model.model_fields)}"
            )
        annotation = model.model_fields[part].annotation
        if "list[" in str(annotation) and submodel(annotation) is not None:
            return f"{dotted(path[: depth + 1])} is a list of sections; explore varies single values"
        model = submodel(annotation)
    if model is not None:
        return f"is a section; vary one of its fields: {', '.join(model.model_fields)}"
    return None


def _value_problems(path: tuple[str, ...], texts: list[str], values: tuple[Any, ...], hardware: Catalog) -> list[str]:
    """The values of ``path`` its schema field refuses, each as written (``texts``) with the field's message."""
    field = field_at(path)
    if field is None:
        return []
    kind: Any = Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
    adapter: TypeAdapter[Any] = TypeAdapter(kind)
    problems = []
    for text, value in zip(texts, values, strict=True):
        try:
            adapter.validate_python(value, strict=True, context={"catalog": hardware})  # as strict as the intent
        except ValidationError as error:
            message = error.errors()[0]["msg"].removeprefix("Value error, ")
            problems.append(f"{text.strip()!r} is refused: {message}")
    return problems


def _candidate_text(
    data: dict[str, Any], base: str, name: str, varied: Sequence[Dimension], values: Sequence[Any]
) -> str:
    """The intent YAML of one candidate: the base intent with ``name`` and each varied value set."""
    document = json.loads(json.dumps(data))  # a deep copy of plain YAML data
    document["name"] = name
    for dimension, value in zip(varied, values, strict=True):
        section = document
        for part in dimension.path[:-1]:
            if not isinstance(section.get(part), dict):
                section[part] = {}
            section = section[part]
        section[dimension.path[-1]] = value
    settings = ", ".join(f"{dimension.name}={value}" for dimension, value in zip(varied, values, strict=True))
    header = f"# {name}: a candidate of {base} explored by designer explore ({settings or 'as written'})\n"
    return header + yaml.safe_dump(document, sort_keys=False, allow_unicode=True)


def _value(text: str) -> Any:
    """One ``--vary`` value as YAML reads it (``2`` a number, ``auto`` text), or the text itself."""
    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, ValueError):  # ValueError: a number of more digits than Python converts
        return text


def _spelled(value: Any) -> str:
    """A value as a part of a design name: letters, digits, '.' and '-'."""
    return _NAME_UNSAFE.sub("-", str(value)).replace("..", ".").strip("-.") or "x"


def _reason(problem: Problem) -> str:
    """A failure reason shared by candidates: the field and the first clause of its message."""
    first = re.split(r"; |\. ", problem.message, maxsplit=1)[0]
    return f"{problem.file}: {first}" if problem.file else f"{dotted(problem.path)}: {first}"


def _check_reason(check: str) -> str:
    descriptions = {module.ID: module.DESCRIPTION for module in CHECKS}
    return f"fail the {check} check (it requires: {descriptions[check]})"

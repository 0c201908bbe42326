"""A semantic diff of two built designs, for the reviewer of a pull request.

Reads ``design.json`` (devices, links with addresses, the summary and every check finding) from two
output folders, or from every ``outputs/*/design.json`` at two git revisions, and says what changed
in network terms: devices added and removed, links added, removed or readdressed, loopbacks and ASNs
changed, BGP sessions (one per switch-to-switch link, with both ASNs) added, removed or renumbered,
the QoS profile field by field, and the headline counts and check results before and after.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from designer.built import DESIGN_FILE, parse_design, read_design
from designer.errors import InputError, Problem
from designer.fabric import natural

EXAMPLES = 10
"""Names listed per kind of change; the rest are counted."""


@dataclass(frozen=True)
class Side:
    """One side of the diff: a label and the parsed ``design.json`` of every design, by folder name."""

    label: str
    designs: dict[str, dict[str, Any]]


def load_dir(folder: Path) -> Side:
    """A built output folder (``outputs/<name>``), or a folder of them (``outputs``)."""
    if os.path.lexists(folder / DESIGN_FILE):
        return Side(str(folder), {folder.name: read_design(folder / DESIGN_FILE)})
    found = sorted(folder.glob(f"*/{DESIGN_FILE}"))
    if not found:
        raise InputError([Problem((), f"{folder} has no {DESIGN_FILE} (nor */{DESIGN_FILE}); give a folder "
                                      "written by 'designer build' or a git revision")], about=str(folder))
    return Side(str(folder), {path.parent.name: read_design(path) for path in found})


def load_revision(revision: str, under: str = "outputs", repo: Path = Path()) -> Side:
    """Every ``<under>/*/design.json`` committed at git ``revision``."""
    listing = _git(repo, "ls-tree", "-r", "--name-only", revision, "--", under).decode(errors="replace")
    paths = sorted(PurePosixPath(line) for line in listing.splitlines() if line.endswith(f"/{DESIGN_FILE}"))
    return Side(revision, {path.parent.name: parse_design(f"{revision}:{path}",
                                                          _git(repo, "show", f"{revision}:{path}"))
                           for path in paths})


def load(spec: str, under: str = "outputs", repo: Path = Path()) -> Side:
    """A folder when ``spec`` is one, otherwise a git revision."""
    folder = Path(spec)
    return load_dir(folder) if folder.is_dir() else load_revision(spec, under, repo)


def diff(old: Side, new: Side) -> str:
    """The review text: one section per design that exists on either side."""
    sections = []
    for name in sorted(set(old.designs) | set(new.designs)):
        before, after = old.designs.get(name), new.designs.get(name)
        if before is None or after is None:
            sections.append(f"## {name}\n\n{'added' if before is None else 'removed'} "
                            f"({old.label} -> {new.label})\n")
        else:
            sections.append(design_diff(name, before, after, old.label, new.label))
    return "\n".join(sections) if sections else f"no designs found in {old.label} or {new.label}\n"


def design_diff(name: str, before: dict[str, Any], after: dict[str, Any], old: str = "old", new: str = "new") -> str:
    """What changed in one design, most important first."""
    devices_a, devices_b = _by_name(before["devices"]), _by_name(after["devices"])
    lines = _set_change("devices", devices_a, devices_b)
    renumbered = [f"{device}: {key} {devices_a[device].get(key)} -> {devices_b[device].get(key)}"
                  for device in sorted(set(devices_a) & set(devices_b), key=natural)
                  for key in ("role", "model", "loopback", "asn")
                  if devices_a[device].get(key) != devices_b[device].get(key)]
    lines += _listed("device changes (role, model, loopback, ASN)", renumbered)
    links_a, links_b = _links(before), _links(after)
    lines += _set_change("links", links_a, links_b)
    readdressed = [f"{_link_name(key)}: {links_a[key]['subnet']} -> {links_b[key]['subnet']}"
                   for key in sorted(set(links_a) & set(links_b), key=_order)
                   if links_a[key]["subnet"] != links_b[key]["subnet"]]
    lines += _listed("links readdressed", readdressed)
    sessions_a, sessions_b = _sessions(before, links_a), _sessions(after, links_b)
    lines += _set_change("BGP sessions", sessions_a, sessions_b)
    changed = [f"{_link_name(key)}: {sessions_a[key]} -> {sessions_b[key]}"
               for key in sorted(set(sessions_a) & set(sessions_b), key=_order) if sessions_a[key] != sessions_b[key]]
    lines += _listed("BGP sessions changed (addresses, ASNs)", changed)
    lines += _qos(before, after)
    lines += _checks(before, after)
    head = [f"## {name} ({old} -> {new})", "", *_counts(before["summary"], after["summary"])]
    return "\n".join(head + (lines or ["No change to devices, links, addresses, BGP sessions, QoS or checks.", ""]))


def _git(repo: Path, *args: str) -> bytes:
    result = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=False)
    if result.returncode:
        reason = result.stderr.decode(errors="replace").strip() or "failed"
        raise InputError([Problem((), f"git {' '.join(args)}: {reason}; give two output folders or two git "
                                      "revisions")], about="the git revisions")
    return result.stdout


def _counts(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    rows = [("GPUs", before["gpus"], after["gpus"])]
    rows += [(f"{role.replace('_', '-')} switches", before["switches"][role], after["switches"][role])
             for role in after["switches"]]
    rows += [(f"{tier.replace('_', '-')} links", before["links"][tier], after["links"][tier])
             for tier in after["links"]]
    rows += [("ASNs", before["asns"], after["asns"]),
             ("bisection Tb/s", before.get("bisection_tbps"), after.get("bisection_tbps"))]
    lines = ["| | before | after | change |", "|---|---:|---:|---:|"]
    for label, old, new in rows:
        if old or new:
            delta = f"{new - old:+,g}" if isinstance(old, int | float) and isinstance(new, int | float) else ""
            lines.append(f"| {label} | {_number(old)} | {_number(new)} | {delta if old != new else ''} |")
    return [*lines, ""]


def _number(value: object) -> str:
    return f"{value:,g}" if isinstance(value, int | float) else "-"


def _by_name(devices: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {device["name"]: device for device in devices}


def _links(data: dict[str, Any]) -> dict[tuple[str, str, str, str], dict[str, Any]]:
    """Links by both ends (device and port), which survive readdressing."""
    return {(link["a"][0], link["a"][1], link["z"][0], link["z"][1]): link for link in data["links"]}


def _link_name(key: tuple[str, str, str, str]) -> str:
    return f"{key[0]}:{key[1]} - {key[2]}:{key[3]}"


def _sessions(data: dict[str, Any], links: dict[tuple[str, str, str, str], dict[str, Any]]
              ) -> dict[tuple[str, str, str, str], str]:
    """One eBGP session per switch-to-switch link: both addresses and both ASNs."""
    asn = {device["name"]: device.get("asn") for device in data["devices"]}
    return {key: f"{link['a'][2]} AS{asn[key[0]]} <-> {link['z'][2]} AS{asn[key[2]]}"
            for key, link in links.items() if link["tier"] != "server_leaf"}


def _set_change(what: str, before: dict[Any, Any], after: dict[Any, Any]) -> list[str]:
    added = sorted(set(after) - set(before), key=_order)
    removed = sorted(set(before) - set(after), key=_order)
    lines = _listed(f"{what} added", [_label(key) for key in added])
    lines += _listed(f"{what} removed", [_label(key) for key in removed])
    return lines


def _order(key: object) -> tuple[object, ...]:
    """Natural order (``swp2`` before ``swp10``) of a device name or a link's ends."""
    return tuple(natural(part) for part in key) if isinstance(key, tuple) else natural(str(key))


def _label(key: object) -> str:
    return _link_name(key) if isinstance(key, tuple) else str(key)


def _listed(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    more = [f"- and {len(items) - EXAMPLES:,} more"] if len(items) > EXAMPLES else []
    return [f"**{title}: {len(items):,}**", *(f"- {item}" for item in items[:EXAMPLES]), *more, ""]


def _evidence(data: dict[str, Any], check: str) -> dict[str, dict[str, Any]]:
    return {row["subject"]: row.get("evidence", {}) for row in data.get("findings", [])
            if row["check"] == check and row["severity"] == "info"}


def _qos(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """QoS profiles as the qos check reported them, compared field by field."""
    old, new = _evidence(before, "qos"), _evidence(after, "qos")
    if len(old) == len(new) == 1:                      # one profile on every switch: compare it whatever its name
        old, new = {"": next(iter(old.values()))}, {"": next(iter(new.values()))}
    changes = []
    for profile in sorted(set(old) | set(new)):
        a, b = old.get(profile, {}), new.get(profile, {})
        changes += [f"{profile + ' ' if profile else ''}{field}: {a.get(field)} -> {b.get(field)}"
                    for field in sorted(set(a) | set(b)) if field != "switches" and a.get(field) != b.get(field)]
    return _listed("QoS changed", changes)


def _checks(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    old, new = before["summary"].get("checks"), after["summary"].get("checks")
    lines = []
    if old != new and new is not None:
        lines.append(f"**checks**: {_outcome(old)} -> {_outcome(new)}")
        lines.append("")
    problems = {(row["check"], row["severity"], row["subject"], row["message"]) for row in after.get("findings", [])
                if row["severity"] != "info"}
    known = {(row["check"], row["severity"], row["subject"], row["message"]) for row in before.get("findings", [])}
    lines += _listed("new check findings", [f"{check} {severity} {subject}: {message}"
                                            for check, severity, subject, message in sorted(problems - known)])
    return lines


def _outcome(counts: dict[str, int] | None) -> str:
    if counts is None:
        return "not run"
    return f"{counts['passed']} passed, {counts['failed']} failed, {counts['warnings']} with warnings"

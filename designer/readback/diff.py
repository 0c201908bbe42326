"""A semantic diff of two built designs, for the reviewer of a pull request.

Reads ``design.json`` (devices, links with addresses, racks, the summary and every check finding), the
committed switch configurations and ``manifest.json`` from two output folders, or from every
``outputs/*/`` at two git revisions. Designs are paired by their ``name`` (two single design folders are
compared whatever their names), devices by their structural identity (leaf: plane, SU, rail; spine:
plane, pod, index; super-spine: plane, group, index; server: SU, slot), so a renamed device shows as
renamed. What a reviewer must see first is what happened to what already exists:

1. **Existing items changed**, grouped by cause: devices renamed or removed, router-ids and ASNs
   moved, cables re-patched (a port now going to another peer), links removed or readdressed, cables
   changing length or medium, devices moved to another rack or unit. An item is a device or a link of
   ``design.json`` with what it carries (name, loopback, ASN, rack and unit; peers, /31, length,
   medium), each counted once per cause: :func:`existing_changes` counts them for ``designer diff`` and
   for ``designer build`` alike.
2. **Existing configurations changed**: configuration files of existing switches losing or changing
   lines, and files edited by hand (they differ from the hash ``manifest.json`` lists). They follow from
   the items and the intent, so they are counted apart, by ``designer diff`` only (a build does not read
   the previous configurations).
3. What was added: devices, links, BGP sessions, lines in existing configurations.
4. Physical changes: racks, power, the bill of materials.

then the QoS profile field by field and the check results.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import json
import os
import re
import stat
import subprocess
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path, PurePosixPath
from typing import IO, Any, NamedTuple

from designer.backend.wiring import natural
from designer.errors import InputError, Problem, printable
from designer.files import GIT_LISTING, Cap, MiB, output_cap, too_large
from designer.intent.switch_spec import SWITCH_TIERS
from designer.readback.built import DESIGN_FILE, parse_design, read_built_design, read_inside, read_regular
from designer.targets import TARGETS

MANIFEST_FILE = "manifest.json"
BOM_FILE = "bom.csv"
EXAMPLES = 10
"""Names listed per kind of change; the rest are counted."""
GROUPS = 8
"""Causes listed per kind of change; the rest are counted."""
IGNORED_LINES = re.compile(r"maximum-paths|^\s*ebgp: \d+$")
"""Configuration lines that may change as the fabric grows: the ECMP width (FRR and EOS ``maximum-paths``, NVUE
``multipaths: ebgp``)."""
IGNORED_KEYS = re.compile(r"^BUFFER_POOL/[^/]+/(size|xoff)$")
"""JSON configuration values that follow the ports in use: SONiC's shared buffer pools."""

Identity = tuple[object, ...]
End = tuple[Identity, str]
"""One end of a link: the device's identity and the port's name."""


class Files(Mapping[str, str]):
    """The files of one design that the diff compares besides design.json (configurations, manifest, bill of
    materials), relative path to text, each read and decoded when asked for: a 131,072-GPU design's switch
    configurations hold 1.5 GB, which a diff of two folders never holds in memory at once."""

    def __init__(self, paths: Iterable[str], read: Callable[[str], bytes]):
        self._paths = dict.fromkeys(paths)
        self._read = read

    def __getitem__(self, path: str) -> str:
        if path not in self._paths:
            raise KeyError(path)
        return self._read(path).decode(errors="replace")

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


@dataclass(frozen=True)
class Side:
    """One side of the diff: a label, the parsed ``design.json`` of every design by its name, and each design's
    configuration files and manifest (relative path to text)."""

    label: str
    designs: dict[str, dict[str, Any]]
    files: dict[str, Mapping[str, str]] = field(default_factory=dict)
    single: bool = False
    """Read from one design's folder (``outputs/<name>``): the other side is read for that design alone."""


class Group(NamedTuple):
    """Existing items (or configurations) changed for one cause: a title, how many, and a few lines of detail."""

    title: str
    count: int  # type: ignore[assignment]  # a field, as NamedTuple allows; tuple.count is not used here
    lines: tuple[str, ...] = ()


class Changes(NamedTuple):
    """What changed of what existed, grouped by cause, and how many in all."""

    groups: list[Group]
    count: int  # type: ignore[assignment]  # a field, as NamedTuple allows; tuple.count is not used here

    @classmethod
    def of(cls, groups: list[Group]) -> Changes:
        return cls(groups, sum(group.count for group in groups))


def load_dir(folder: Path) -> Side:
    """A built output folder (``outputs/<name>``), or a folder of them (``outputs``)."""
    if os.path.lexists(folder / DESIGN_FILE):
        found = [folder / DESIGN_FILE]
    else:
        found = sorted(folder.glob(f"*/{DESIGN_FILE}"))
    if not found:
        raise InputError(
            [
                Problem(
                    (),
                    f"{folder} has no {DESIGN_FILE} (nor */{DESIGN_FILE}); give a folder "
                    "written by 'designer build' or a git revision",
                )
            ],
            about=str(folder),
        )
    designs: dict[str, dict[str, Any]] = {}
    files: dict[str, Mapping[str, str]] = {}
    for path in found:
        data = read_built_design(path.parent)
        designs[data["name"]] = data
        relatives = [
            relative
            for relative in (
                file.relative_to(path.parent)
                for file in sorted(path.parent.rglob("*"))
                if file.is_file() and file != path
            )
            if _compared(relative.parts)
        ]
        files[data["name"]] = Files(
            (str(relative) for relative in relatives),
            partial(_read_relative, path.parent),
        )
    return Side(str(folder), designs, files, single=found == [folder / DESIGN_FILE])


def load_revision(revision: str, under: str = "outputs", repo: Path = Path()) -> Side:
    """Every ``<under>/*/design.json`` committed at git ``revision``, with its configurations and manifest. What git
    prints is bounded: the listing by :data:`~designer.files.GIT_LISTING`, each file by the cap of its kind, checked
    on the sizes the listing gives before any file is read."""
    if revision.startswith("-"):  # git would read it as an option
        raise InputError(
            [Problem((), f"{printable(revision)!r} is neither a folder nor a git revision (none starts with '-')")],
            about="the command line",
        )
    blobs: dict[PurePosixPath, tuple[str, int]] = {}
    listing = _git(repo, GIT_LISTING, "ls-tree", "-r", "-l", revision, "--", under)
    for line in listing.decode(errors="replace").splitlines():
        meta, _, path = line.partition("\t")
        kind, sha, length = meta.split()[1:4]
        if kind == "blob":
            blobs[PurePosixPath(path)] = sha, int(length)
    folders = sorted(path.parent for path in blobs if path.name == DESIGN_FILE)
    members = {
        folder: {
            str(path.relative_to(folder)): blob
            for path, blob in blobs.items()
            if folder in path.parents and _compared(path.relative_to(folder).parts)
        }
        for folder in folders
    }
    for folder, listed in members.items():
        for relative, (_, size) in listed.items():
            cap = output_cap(PurePosixPath(relative).parts)
            if size > cap.limit:
                raise too_large(str(folder / relative), size, cap, f"{revision}:{folder / relative}")
    texts = _git_blobs(repo, sorted({sha for listed in members.values() for sha, _ in listed.values()}))
    designs: dict[str, dict[str, Any]] = {}
    files: dict[str, Mapping[str, str]] = {}
    for folder, listed in members.items():
        data = parse_design(f"{revision}:{folder / DESIGN_FILE}", texts[listed[DESIGN_FILE][0]])
        designs[data["name"]] = data
        shas = {path: sha for path, (sha, _) in sorted(listed.items()) if path != DESIGN_FILE}
        files[data["name"]] = Files(shas, partial(_blob, texts, shas))
    return Side(revision, designs, files)


def _compared(parts: tuple[str, ...]) -> bool:
    """The files of a design folder the diff reads besides design.json: configs, the manifest, the BOM."""
    return parts[0] == "configs" or parts in ((DESIGN_FILE,), (MANIFEST_FILE,), (BOM_FILE,))


def load(spec: str, under: str = "outputs", repo: Path = Path()) -> Side:
    """A folder when ``spec`` is one, otherwise a git revision."""
    folder = Path(spec)
    return load_dir(folder) if folder.is_dir() else load_revision(spec, under, repo)


def diff(old: Side, new: Side) -> str:
    """The review text: one section per design that exists on either side."""
    return review(old, new)[0]


def review(old: Side, new: Side) -> tuple[str, int]:
    """The review text and how many existing items and configurations changed over every design (what
    ``--fail-on`` reads)."""
    sections, changed = [], 0
    for before_name, after_name in _pairs(old, new):
        if before_name is None or after_name is None:
            name = after_name or before_name
            sections.append(
                f"## {name}\n\n{'added' if before_name is None else 'removed'} ({old.label} -> {new.label})\n"
            )
            changed += before_name is not None
            continue
        text, count = _design_review(
            before_name if before_name == after_name else f"{before_name} -> {after_name}",
            old.designs[before_name],
            new.designs[after_name],
            old.label,
            new.label,
            old.files.get(before_name, {}),
            new.files.get(after_name, {}),
        )
        sections.append(text)
        changed += count
    text = "\n".join(sections) if sections else f"no designs found in {old.label} or {new.label}\n"
    return text, changed


def design_diff(
    name: str,
    before: dict[str, Any],
    after: dict[str, Any],
    old: str = "old",
    new: str = "new",
    before_files: Mapping[str, str] | None = None,
    after_files: Mapping[str, str] | None = None,
) -> str:
    """What changed in one design: existing items first, then what was added, then physical changes."""
    return _design_review(name, before, after, old, new, before_files or {}, after_files or {})[0]


def existing_changes(before: dict[str, Any], after: dict[str, Any]) -> Changes:
    """Every change to an item (device or link) of the design.json ``before``, grouped by cause: the one count of
    existing items changed that ``designer build`` and ``designer diff`` print."""
    return _Comparison(before, after, {}, {}).existing()


SINCE_TITLE = "## Existing items changed since the previous build"


class Previous:
    """The build already in an output folder, which a new build replaces: what the new one moves is printed by
    ``designer build`` and listed in its summary.md. Rebuilding the same design keeps the list it had."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / DESIGN_FILE
        summary = read_inside(folder, ("summary.md",)) if (folder / "summary.md").is_file() else b""
        self.listed = _section(summary.decode(errors="replace"), SINCE_TITLE)
        self.moved = 0
        """Existing items the new build changed (0 until :meth:`section` ran, and for the same design)."""
        self.cause = ""

    @classmethod
    def of(cls, folder: Path) -> Previous | None:
        """The previous build in ``folder``, or None when it holds no design.json as a regular file. The file is
        read only when :meth:`section` compares it (it is the largest file of a build: neither read twice nor held
        while the new build runs)."""
        try:
            return cls(folder) if stat.S_ISREG(os.lstat(folder / DESIGN_FILE).st_mode) else None
        except (OSError, InputError):
            return None

    def section(self, data: bytes) -> list[str]:
        """summary.md's lines about what the design whose design.json is ``data`` changes of this build. The
        previous design.json is parsed and checked only here, when it differs and is not only grown (none when it
        is not a design, or can no longer be read)."""
        try:
            previous = read_regular(self.path)
        except (OSError, InputError):
            return []
        if data == previous:
            return self.listed
        if grown_only(previous, data):
            return []
        try:
            before = parse_design(str(self.path), previous)
        except InputError:
            return []
        del previous
        after = json.loads(data)
        groups, self.moved = existing_changes(before, after)
        if not self.moved:
            return []
        changes = [
            f"{label} {old:,} -> {new:,}"
            for label, old, new in (
                ("tiers", before["summary"].get("tiers"), after["summary"].get("tiers")),
                (
                    "envelope (servers)",
                    before["summary"].get("growth", {}).get("max_servers"),
                    after["summary"].get("growth", {}).get("max_servers"),
                ),
            )
            if old is not None and old != new
        ]
        self.cause = "; ".join(changes)
        return [
            SINCE_TITLE,
            "",
            f"{self.moved:,} items that existed in the previous build of this folder changed"
            + (f" ({self.cause})" if self.cause else "")
            + "; `designer diff` shows the configurations too.",
            "",
            *(line for group in groups for line in _group_lines(group)),
        ][:-1]


def grown_only(before: bytes, after: bytes) -> bool:
    """Whether every device and link of the design.json ``before`` is in ``after``, row for row (both as designer
    lays them out, one row per line): then no item that existed changed (what ``existing_changes`` compares is all
    in those rows) and neither design needs parsing, which takes seconds at 131k GPUs. False when unsure."""
    for table in ("devices", "links"):
        old, new = _table_rows(before, table), _table_rows(after, table)
        if old is None or new is None or not new.issuperset(old):
            return False
    return True


ROW_BREAK = b",\n    "
"""What separates two rows of a design.json table as designer lays it out (a row holds no line break: JSON escapes
it in strings)."""


def _table_rows(data: bytes, table: str) -> set[bytes] | None:
    """A digest of each row of ``table`` in a design.json as designer writes it (``"table": [``, then one object a
    line, indented by four spaces, ``]`` indented by two); None unless the data holds that table once, in that
    layout. Digests, not the rows: a 131k-GPU design's links are some 200 MB of text."""
    start = f'\n  "{table}": [\n    '.encode()
    if data.count(start) != 1:
        return None
    first = data.index(start) + len(start)
    end = data.find(b"\n  ]", first)
    if end < 0:
        return None
    view, digests, at = memoryview(data), set(), first
    while at <= end:
        stop = data.find(ROW_BREAK, at, end)
        stop = end if stop < 0 else stop
        digests.add(hashlib.blake2b(view[at:stop], digest_size=16).digest())
        at = stop + len(ROW_BREAK)
    return digests


def _section(text: str, title: str) -> list[str]:
    """The lines of the Markdown section ``title`` (up to the next ``## ``), or none."""
    lines = text.splitlines()
    if title not in lines:
        return []
    start = lines.index(title)
    end = next((number for number in range(start + 1, len(lines)) if lines[number].startswith("## ")), len(lines))
    while end > start and not lines[end - 1]:
        end -= 1
    return lines[start:end]


def _design_review(
    name: str,
    before: dict[str, Any],
    after: dict[str, Any],
    old: str,
    new: str,
    before_files: Mapping[str, str],
    after_files: Mapping[str, str],
) -> tuple[str, int]:
    comparison = _Comparison(before, after, before_files, after_files)
    existing, configurations = comparison.existing(), comparison.configurations()
    lines = [f"## {name} ({old} -> {new})", "", *_counts(before["summary"], after["summary"])]
    lines += [f"### Existing items changed: {existing.count:,}", ""]
    lines += [line for group in existing.groups for line in _group_lines(group)] or [
        "None: every existing name, loopback, ASN, cable, address and rack place is unchanged.",
        "",
    ]
    lines += [f"### Existing configurations changed: {configurations.count:,}", ""]
    lines += [line for group in configurations.groups for line in _group_lines(group)] or [
        "None: every configuration of an existing switch keeps its lines, and no file was edited by hand.",
        "",
    ]
    added = comparison.added()
    lines += ["### Added", "", *(added or ["Nothing.", ""])]
    physical = comparison.physical()
    lines += ["### Physical", "", *(physical or ["No change to racks, power or the bill of materials.", ""])]
    lines += _qos(before, after)
    lines += _checks(before, after)
    return "\n".join(lines), existing.count + configurations.count


def identity(row: dict[str, Any]) -> Identity:
    """A device's structural identity in ``design.json``: what it is, whatever its name."""
    role = row["role"]
    if role == "server":
        return (role, row.get("su"), row.get("index"))
    if role == "leaf":
        return (role, row.get("plane"), row.get("su"), row.get("rail"))
    if role == "spine":
        return (role, row.get("plane"), row.get("pod", 0), row.get("index"))
    return (role, row.get("plane"), row.get("group"), row.get("index"))


class _Comparison:
    """Both designs indexed by structural identity, and the changes between them."""

    def __init__(
        self,
        before: dict[str, Any],
        after: dict[str, Any],
        before_files: Mapping[str, str],
        after_files: Mapping[str, str],
    ) -> None:
        self.before, self.after = before, after
        self.before_files, self.after_files = before_files, after_files
        self.old = {identity(row): row for row in before["devices"]}
        self.new = {identity(row): row for row in after["devices"]}
        self.old_ids = {row["name"]: key for key, row in self.old.items()}
        self.new_ids = {row["name"]: key for key, row in self.new.items()}
        self.old_links = self._links(before, self.old_ids)
        self.new_links = self._links(after, self.new_ids)

    @staticmethod
    def _links(data: dict[str, Any], ids: dict[str, Identity]) -> dict[End, tuple[End, dict[str, Any]]]:
        """Every link by each of its two ends: the other end and the link."""
        ends: dict[End, tuple[End, dict[str, Any]]] = {}
        for link in data["links"]:
            a, z = (ids[link["a"][0]], link["a"][1]), (ids[link["z"][0]], link["z"][1])
            ends[a] = (z, link)
            ends[z] = (a, link)
        return ends

    def _name(self, key: Identity) -> str:
        return str((self.new.get(key) or self.old[key])["name"])

    def _end(self, end: End) -> str:
        return f"{self._name(end[0])} {end[1]}"

    def existing(self) -> Changes:
        """Devices and links of ``before`` that changed (what design.json holds of them)."""
        groups: list[Group] = []
        common = [key for key in self.old if key in self.new]
        renamed = [key for key in common if self.old[key]["name"] != self.new[key]["name"]]
        if renamed:
            groups.append(
                Group(
                    "devices renamed",
                    len(renamed),
                    tuple(
                        f"{self.old[key]['name']} -> {self.new[key]['name']}" + self._numbers(key)
                        for key in sorted(renamed, key=lambda key: natural(self.new[key]["name"]))
                    ),
                )
            )
        removed = sorted(
            (key for key in self.old if key not in self.new), key=lambda key: natural(self.old[key]["name"])
        )
        if removed:
            groups.append(Group("devices removed", len(removed), tuple(self.old[key]["name"] for key in removed)))
        groups += self._moved_numbers(
            common, "loopback", "router-ids (loopbacks) moved; each resets the switch's BGP sessions"
        )
        groups += self._moved_numbers(common, "asn", "ASNs moved; every neighbor's remote-as changes")
        groups += self._links_changed()
        groups += self._racks_moved(common)
        return Changes.of(groups)

    def configurations(self) -> Changes:
        """Configuration files of existing switches that lose or change lines, and files edited by hand."""
        return Changes.of([*self._configs_changed(), *self._hand_edits()])

    def _numbers(self, key: Identity) -> str:
        old, new = self.old[key], self.new[key]
        parts = [
            f"{label} {old.get(field_)}" + (f" -> {new.get(field_)}" if old.get(field_) != new.get(field_) else "")
            for field_, label in (("loopback", "loopback"), ("asn", "ASN"))
            if field_ in old or field_ in new
        ]
        return f" ({', '.join(parts)})" if parts else ""

    def _moved_numbers(self, common: list[Identity], field_: str, what: str) -> list[Group]:
        """Loopbacks or ASNs that changed, grouped by role and shift (one cause moves a whole range)."""
        shifts: dict[tuple[str, int], list[Identity]] = defaultdict(list)
        for key in common:
            old, new = self.old[key].get(field_), self.new[key].get(field_)
            if old != new and old is not None and new is not None:
                shifts[str(key[0]), _number(new) - _number(old)].append(key)
        if not shifts:
            return []
        sessions = self._sessions_touching({key for keys in shifts.values() for key in keys})
        lines = []
        for (role, shift), keys in sorted(shifts.items(), key=lambda item: (-len(item[1]), item[0])):
            first = min(keys, key=lambda key: natural(self.new[key]["name"]))
            lines.append(
                f"{role.replace('_', '-')} {'ASN' if field_ == 'asn' else 'loopback'}s shifted by "
                f"{shift:+,}: {len(keys):,} switches, e.g. {self.new[first]['name']} "
                f"{self.old[first][field_]} -> {self.new[first][field_]}"
            )
        count = sum(len(keys) for keys in shifts.values())
        touched = f"{sessions:,} BGP session{'s' if sessions != 1 else ''} touched"
        return [Group(f"{what} ({touched})", count, tuple(lines))]

    def _sessions_touching(self, keys: set[Identity]) -> int:
        """Switch-to-switch links (one BGP session each) that exist on both sides with an end in ``keys``."""
        count = 0
        for link in self.after["links"]:
            upper, lower = self._ends(link, self.new_ids)
            if (
                link["tier"] != "server_leaf"
                and (upper[0] in keys or lower[0] in keys)
                and self.old_links.get(upper, (None,))[0] == lower
            ):
                count += 1
        return count

    def _ends(self, link: dict[str, Any], ids: dict[str, Identity]) -> tuple[End, End]:
        return (ids[link["a"][0]], link["a"][1]), (ids[link["z"][0]], link["z"][1])

    def _links_changed(self) -> list[Group]:
        """The links that existed before and changed: re-patched or removed, readdressed or renumbered, of another
        length or medium."""
        repatched: dict[str, list[str]] = defaultdict(list)
        removed: Counter[str] = Counter()
        readdressed: dict[tuple[str, int], list[str]] = defaultdict(list)
        renumbered: dict[str, list[str]] = defaultdict(list)  # a /31 given or taken by routing.underlay
        length: dict[str, list[str]] = defaultdict(list)
        media: Counter[tuple[str, str, str]] = Counter()
        for link in self.before["links"]:
            upper, lower = self._ends(link, self.old_ids)
            tier = link["tier"].replace("_", "-")
            at_upper, at_lower = self.new_links.get(upper), self.new_links.get(lower)
            if at_upper is None or at_upper[0] != lower:
                if at_lower is not None:
                    end, was, now = lower, upper, at_lower[0]
                elif at_upper is not None:
                    end, was, now = upper, lower, at_upper[0]
                else:
                    removed[tier] += 1
                    continue
                repatched[tier].append(
                    f"{self._end(end)}: {self._end(was)} -> " + (self._end(now) if now[0] in self.new else "nothing")
                )
                continue
            new_link = at_upper[1]
            subnet, new_subnet = link.get("subnet"), new_link.get("subnet")  # none on InfiniBand
            if new_subnet != subnet and None in (new_subnet, subnet):
                renumbered[tier].append(
                    f"{self._end(upper)} - {self._end(lower)}: {subnet or 'unnumbered'} -> {new_subnet or 'unnumbered'}"
                )
            elif new_subnet != subnet:
                shift = _number(new_subnet) - _number(subnet)
                readdressed[tier, shift].append(f"{self._end(upper)} - {self._end(lower)}: {subnet} -> {new_subnet}")
            if "length_m" in link and new_link.get("length_m") != link["length_m"]:
                length[tier].append(
                    f"{self._end(upper)} - {self._end(lower)}: {link['length_m']} m -> {new_link.get('length_m')} m"
                )
            if "medium" in link and new_link.get("medium") != link["medium"]:
                media[tier, link["medium"], str(new_link.get("medium"))] += 1
        return _link_groups(repatched, removed, readdressed, renumbered, length, media)

    def _racks_moved(self, common: list[Identity]) -> list[Group]:
        moved: dict[str, list[str]] = defaultdict(list)
        for key in common:
            old, new = self.old[key], self.new[key]
            if "rack" in old and (old.get("rack"), old.get("unit")) != (new.get("rack"), new.get("unit")):
                moved[str(key[0])].append(
                    f"{new['name']} {old.get('rack')} U{old.get('unit')} -> {new.get('rack')} U{new.get('unit')}"
                )
        if not moved:
            return []
        rows = (self.before["summary"].get("racks", {}).get("rows"), self.after["summary"].get("racks", {}).get("rows"))
        cause = f"; the hall has {rows[0]} -> {rows[1]} rows" if rows[0] != rows[1] else ""
        return [
            Group(
                f"devices moved to another rack or unit{cause}",
                sum(len(items) for items in moved.values()),
                tuple(
                    f"{_plural(role)}: {len(items):,}, e.g. {min(items, key=natural)}"
                    for role, items in sorted(moved.items())
                ),
            )
        ]

    def _config_pairs(self) -> Iterable[tuple[str, str]]:
        """(old path, new path) of every configuration file of a switch that exists on both sides: a switch of
        design.json by its structural identity, any other (a switch of a network beside the backend) by its path; a
        subnet manager's files are not a switch's."""
        for path in sorted(self.before_files, key=natural):
            parts = PurePosixPath(path).parts
            if parts[0] != "configs" or len(parts) != 3:
                continue
            host, _, extension = parts[2].rpartition(".")
            key = self.old_ids.get(host)
            per_switch = not (parts[1] in TARGETS and TARGETS[parts[1]].fabric_files)
            if key is None and per_switch and path in self.after_files:
                yield path, path
                continue
            if key is None or key not in self.new:
                continue
            new_path = f"configs/{parts[1]}/{self.new[key]['name']}.{extension}"
            if new_path in self.after_files:
                yield path, new_path

    @cached_property
    def _config_changes(self) -> list[tuple[str, str, list[str]]]:
        """(old path, new path, lines lost) of every configuration of an existing switch that changed, each pair
        read once (a pair with the same text loses nothing)."""
        changes = []
        for old_path, new_path in self._config_pairs():
            old, new = self.before_files[old_path], self.after_files[new_path]
            if old != new:
                changes.append((old_path, new_path, lost_lines(old, new, new_path)))
        return changes

    def _configs_changed(self) -> list[Group]:
        changed: dict[str, list[str]] = defaultdict(list)
        for old_path, new_path, lost in self._config_changes:
            if lost:
                changed[old_path.split("/")[1]].append(
                    f"{new_path}: {len(lost):,} line{'s' if len(lost) != 1 else ''} removed or changed, e.g. "
                    f"{lost[0].strip()!r}"
                )
        if not changed:
            return []
        return [
            Group(
                "configurations of existing switches losing or changing lines (maximum-paths aside)",
                sum(len(items) for items in changed.values()),
                tuple(
                    f"{target}: {len(items):,} file{'s' if len(items) != 1 else ''}, e.g. {items[0]}"
                    for target, items in sorted(changed.items())
                ),
            )
        ]

    def _hand_edits(self) -> list[Group]:
        edited = _hand_edited(self.after_files)
        if not edited:
            return []
        return [
            Group("files edited by hand (they differ from the sha256 manifest.json lists)", len(edited), tuple(edited))
        ]

    def added(self) -> list[str]:
        lines = []
        added = [key for key in self.new if key not in self.old]
        by_role: dict[str, list[str]] = defaultdict(list)
        for key in added:
            by_role[str(key[0])].append(self.new[key]["name"])
        if added:
            lines.append(f"**devices added: {len(added):,}**")
            lines += [
                f"- {_plural(role)}: {len(names):,} ({_span(names)})"
                for role, names in sorted(by_role.items(), key=lambda item: _ROLES.index(item[0]))
            ]
            lines.append("")
        links: Counter[str] = Counter()
        for link in self.after["links"]:
            upper, lower = self._ends(link, self.new_ids)
            if self.old_links.get(upper, (None,))[0] != lower:
                links[link["tier"]] += 1
        if links:
            lines.append(f"**links added: {sum(links.values()):,}**")
            lines += [f"- {tier.replace('_', '-')}: {count:,}" for tier, count in sorted(links.items())]
            sessions = sum(count for tier, count in links.items() if tier != "server_leaf")
            lines += [f"- BGP sessions added: {sessions:,} (one per switch-to-switch link)", ""]
        ports = Counter(
            end[0]
            for end in self.new_links
            if end not in self.old_links and end[0] in self.old and end[0][0] != "server"
        )
        if ports:
            lines += [
                f"**ports newly in use on existing switches: {sum(ports.values()):,}** on {len(ports):,} switches",
                "",
            ]
        grown = [new_path for _, new_path, lost in self._config_changes if not lost]
        if grown:
            lines += [f"**configurations of existing switches that only gained lines: {len(grown):,}**", ""]
        return lines

    def physical(self) -> list[str]:
        before = {rack["name"]: rack for rack in self.before.get("racks", [])}
        after = {rack["name"]: rack for rack in self.after.get("racks", [])}
        lines = []
        added = sorted(set(after) - set(before), key=natural)
        removed = sorted(set(before) - set(after), key=natural)
        if added:
            lines.append(f"- racks added: {len(added):,} ({_span(added)})")
        if removed:
            lines.append(f"- racks removed: {len(removed):,} ({_span(removed)})")
        power = (
            self.before["summary"].get("power_kw", {}).get("total"),
            self.after["summary"].get("power_kw", {}).get("total"),
        )
        if power[0] != power[1] and None not in power:
            lines.append(f"- IT power: {power[0]:,} kW -> {power[1]:,} kW ({power[1] - power[0]:+,.1f} kW)")
        bom = _bom(self.before_files, self.after_files)
        if bom:
            lines.append("- bill of materials:")
            lines += [f"  - {item}: {delta:+,}" for item, delta in bom]
        return [*lines, ""] if lines else []


_ROLES = (*SWITCH_TIERS, "server")


def lost_lines(old: str, new: str, path: str = "") -> list[str]:
    """What of configuration ``old`` the configuration ``new`` does not keep (what follows the fabric's size aside:
    the ECMP width, SONiC's buffer pools): its lines that ``new`` has fewer of, or for JSON (``path`` ending
    ``.json``) the values at paths that changed. A configuration that only gains lines or entries loses nothing."""
    if path.endswith(".json"):
        try:
            document = json.loads(old)
            before, after = dict(_flatten(document)), dict(_flatten(json.loads(new)))
        except (ValueError, RecursionError):  # compared line by line instead
            pass
        else:
            unused = _unused_ports(document)
            return [
                f"{key}: {value}"
                for key, value in before.items()
                if after.get(key) != value and not IGNORED_KEYS.match(key) and not _of_ports(key, unused)
            ]
    kept = Counter(new.splitlines())
    lost = []
    for line in old.splitlines():
        if kept[line]:
            kept[line] -= 1
        elif not IGNORED_LINES.search(line):
            lost.append(line)
    return lost


def _unused_ports(document: object) -> set[str]:
    """The ports a SONiC config_db.json lists but keeps down (no cable yet): bringing one into use changes its
    entries (admin status, cable length, buffer profiles), which is growth, not a loss."""
    ports = document.get("PORT", {}) if isinstance(document, dict) else {}
    return {name for name, fields in ports.items() if isinstance(fields, dict) and fields.get("admin_status") == "down"}


def _of_ports(key: str, ports: set[str]) -> bool:
    """Whether the flattened config_db key (``TABLE/ENTRY/field``) belongs to one of ``ports``: an entry named
    after the port (``PORT/Ethernet8/...``, ``QUEUE/Ethernet8|3/...``) or a per-port field (``CABLE_LENGTH/AZURE/
    Ethernet8``)."""
    parts = key.split("/")
    entry = parts[1].split("|")[0] if len(parts) > 1 else ""
    return entry in ports or (len(parts) > 2 and parts[2] in ports)


def _flatten(value: object, prefix: str = "") -> Iterable[tuple[str, object]]:
    """Every leaf value of a JSON document with its path (``PORT/Ethernet0/mtu``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _flatten(item, f"{prefix}/{key}" if prefix else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _flatten(item, f"{prefix}[{index}]")
    else:
        yield prefix, value


def _hand_edited(files: Mapping[str, str]) -> list[str]:
    """Files whose sha256 is not the one ``manifest.json`` lists (edited after the build wrote them)."""
    manifest = files.get(MANIFEST_FILE)
    if manifest is None:
        return []
    try:
        document = json.loads(manifest)
    except (ValueError, RecursionError):  # not JSON, a number too long to read, or nested too deep
        return [f"{MANIFEST_FILE} is not valid JSON"]
    listed = document.get("files", {}) if isinstance(document, dict) else {}
    return [
        path
        for path in sorted(files, key=natural)
        if path in listed and hashlib.sha256(files[path].encode()).hexdigest() != listed[path]
    ]


def _bom(before: Mapping[str, str], after: Mapping[str, str]) -> list[tuple[str, int]]:
    """What to order more or less of: each ``bom.csv`` line whose count changed."""
    counts = [_bom_counts(files.get(BOM_FILE, "")) for files in (before, after)]
    changed = {item: counts[1].get(item, 0) - counts[0].get(item, 0) for item in set(counts[0]) | set(counts[1])}
    return [(item, delta) for item, delta in sorted(changed.items(), key=lambda row: natural(row[0])) if delta]


def _bom_counts(text: str) -> dict[str, int]:
    """Each ``bom.csv`` line's count by its words (``switch generic-64x400g``); with networks beside the backend the
    file has a ``network`` column, and their lines are named ``networks ...``."""
    counts = {}
    for row in csv.DictReader(text.splitlines()):
        network = row.get("network", "backend")
        length = row["length_m"]
        words = ("" if network == "backend" else network, row["category"], row["item"], f"{length} m" if length else "")
        counts[" ".join(part for part in words if part)] = int(row["count"])
    return counts


def _plural(role: str) -> str:
    return "leaves" if role == "leaf" else f"{role.replace('_', '-')}s"


def _span(names: list[str]) -> str:
    ordered = sorted(names, key=natural)
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]} ... {ordered[-1]}"


def _link_groups(
    repatched: dict[str, list[str]],
    removed: Counter[str],
    readdressed: dict[tuple[str, int], list[str]],
    renumbered: dict[str, list[str]],
    length: dict[str, list[str]],
    media: Counter[tuple[str, str, str]],
) -> list[Group]:
    """A group for each kind of change to the existing links, by tier (readdressed links by tier and shift, the
    largest shifts first)."""
    groups = []
    if repatched:
        groups.append(_tier_group("cables re-patched (a port now goes to another peer)", repatched, " cables"))
    if removed:
        groups.append(_counted_group("links removed", removed, str))
    if readdressed:
        ordered = sorted(readdressed.items(), key=lambda item: (-len(item[1]), item[0]))
        lines = [
            f"{tier} /31s shifted by {shift:+,} addresses: {len(items):,} links, e.g. {items[0]}"
            for (tier, shift), items in ordered[:GROUPS]
        ]
        if len(ordered) > GROUPS:
            rest = sum(len(items) for _, items in ordered[GROUPS:])
            lines.append(f"and {len(ordered) - GROUPS:,} more shifts ({rest:,} links)")
        groups.append(Group("links readdressed", sum(len(items) for items in readdressed.values()), tuple(lines)))
    if renumbered:
        groups.append(
            _tier_group(
                "links changing underlay (a /31 given or taken away: every session on them restarts)", renumbered, ""
            )
        )
    if length:
        groups.append(_tier_group("cables changing length", length, ""))
    if media:
        groups.append(_counted_group("cables changing medium", media, lambda key: f"{key[0]} {key[1]} -> {key[2]}"))
    return groups


def _counted_group(title: str, counts: Counter[Any], label: Callable[[Any], str]) -> Group:
    """The group ``title`` of ``counts``: one line per key in order, its ``label`` and its count."""
    return Group(
        title, sum(counts.values()), tuple(f"{label(key)}: {count:,}" for key, count in sorted(counts.items()))
    )


def _tier_group(title: str, by_tier: dict[str, list[str]], unit: str) -> Group:
    """The group ``title`` of the changes ``by_tier``: one line per tier with its count (of ``unit``) and its
    first change."""
    return Group(
        title,
        sum(len(items) for items in by_tier.values()),
        tuple(f"{tier}: {len(items):,}{unit}, e.g. {items[0]}" for tier, items in sorted(by_tier.items())),
    )


def _number(value: object) -> int:
    """An ASN, or an IPv4 address or prefix, as an integer."""
    if isinstance(value, int):
        return value
    address = str(value).partition("/")[0]
    number = 0
    for part in address.split("."):
        number = number * 256 + int(part)
    return number


def _group_lines(group: Group) -> list[str]:
    more = [f"- and {len(group.lines) - EXAMPLES:,} more"] if len(group.lines) > EXAMPLES else []
    return [f"**{group.title}: {group.count:,}**", *(f"- {line}" for line in group.lines[:EXAMPLES]), *more, ""]


def _pairs(old: Side, new: Side) -> list[tuple[str | None, str | None]]:
    """Designs to compare, by name; two single designs are compared whatever their names, and a side read from one
    design's folder only with that design of the other (a repository's other designs are neither added nor
    removed by it)."""
    if len(old.designs) == len(new.designs) == 1:
        return [(next(iter(old.designs)), next(iter(new.designs)))]
    if old.single or new.single:
        names = sorted(set(old.designs if old.single else ()) | set(new.designs if new.single else ()))
    else:
        names = sorted(set(old.designs) | set(new.designs))
    return [(name if name in old.designs else None, name if name in new.designs else None) for name in names]


def _git(repo: Path, cap: Cap, *args: str) -> bytes:
    """What ``git ARGS`` prints, at most ``cap`` (git is stopped there: an input error)."""
    with _running(repo, args) as (process, errors):
        assert process.stdout is not None
        chunks, size = [], 0
        while size <= cap.limit and (chunk := process.stdout.read(min(MiB, cap.limit + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
        if size > cap.limit:
            raise InputError(
                [
                    Problem(
                        (), f"git {' '.join(args)} printed more than {cap.limit:,} bytes, larger than {cap.kind} may be"
                    )
                ],
                about="the git revisions",
            )
        _finished(process, errors, args)
    return b"".join(chunks)


def _read_relative(built: Path, relative: str) -> bytes:
    """The bytes of the file at the slash-separated ``relative`` path inside the folder ``built``."""
    return read_inside(built, tuple(relative.split("/")))


def _blob(texts: dict[str, bytes], shas: dict[str, str], path: str) -> bytes:
    """The bytes of the blob at ``path`` of a listing (``shas``: path to blob)."""
    return texts[shas[path]]


def _git_blobs(repo: Path, shas: list[str]) -> dict[str, bytes]:
    """The bytes of every blob in ``shas`` (each one's size was checked against its cap on git's listing), read one
    after the other from one ``git cat-file --batch``; the names come from a file, so git never waits for us."""
    with tempfile.TemporaryFile() as names:
        names.write("".join(f"{sha}\n" for sha in shas).encode())
        names.seek(0)
        with _running(repo, ("cat-file", "--batch"), names) as (process, errors):
            assert process.stdout is not None
            texts = {}
            for sha in shas:
                header = process.stdout.readline(200).split()
                if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
                    _finished(process, errors, ("cat-file", "--batch"))
                    raise InputError(
                        [Problem((), f"git cat-file --batch: {sha} is not a blob")], about="the git revisions"
                    )
                texts[sha] = process.stdout.read(int(header[2]))
                process.stdout.read(1)  # the line break after each object
            _finished(process, errors, ("cat-file", "--batch"))
    return texts


@contextlib.contextmanager
def _running(
    repo: Path, args: tuple[str, ...], stdin: IO[bytes] | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], IO[bytes]]]:
    """``git ARGS`` in ``repo`` running, its output a pipe and its complaints a file; stopped if still running."""
    with (
        tempfile.TemporaryFile() as errors,
        subprocess.Popen(
            ["git", "-C", str(repo), *args],
            stdin=stdin if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errors,
        ) as process,
    ):
        try:
            yield process, errors
        finally:
            if process.poll() is None:
                process.kill()


def _finished(process: subprocess.Popen[bytes], errors: IO[bytes], args: tuple[str, ...]) -> None:
    """Wait for git; an input error with the start of what it complained about when it failed."""
    if process.wait():
        errors.seek(0)
        complaint = errors.read(4096).decode(errors="replace").strip() or "failed"
        raise InputError(
            [Problem((), f"git {' '.join(args)}: {complaint}; give two output folders or two git revisions")],
            about="the git revisions",
        )


def _counts(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    rows = [("GPUs", before["gpus"], after["gpus"]), ("tiers", before.get("tiers"), after.get("tiers"))]
    envelope = (before.get("growth", {}).get("max_servers"), after.get("growth", {}).get("max_servers"))
    if any(envelope):
        rows.append(("envelope (servers)", envelope[0], envelope[1]))
    rows += [
        (f"{role.replace('_', '-')} switches", before["switches"][role], after["switches"][role])
        for role in after["switches"]
    ]
    rows += [
        (f"{tier.replace('_', '-')} links", before["links"][tier], after["links"][tier]) for tier in after["links"]
    ]
    rows += [
        ("ASNs", before.get("asns"), after.get("asns")),
        ("bisection Tb/s", before.get("bisection_tbps"), after.get("bisection_tbps")),
    ]
    lines = ["| | before | after | change |", "|---|---:|---:|---:|"]
    for label, old, new in rows:
        if old or new:
            delta = f"{new - old:+,g}" if isinstance(old, int | float) and isinstance(new, int | float) else ""
            lines.append(f"| {label} | {_shown(old)} | {_shown(new)} | {delta if old != new else ''} |")
    return [*lines, ""]


def _shown(value: object) -> str:
    return f"{value:,g}" if isinstance(value, int | float) else "-"


def _listed(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    more = [f"- and {len(items) - EXAMPLES:,} more"] if len(items) > EXAMPLES else []
    return [f"**{title}: {len(items):,}**", *(f"- {item}" for item in items[:EXAMPLES]), *more, ""]


def _evidence(data: dict[str, Any], check: str) -> dict[str, dict[str, Any]]:
    return {
        row["subject"]: row.get("evidence", {})
        for row in data.get("findings", [])
        if row["check"] == check and row["severity"] == "info"
    }


def _qos(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """QoS profiles as the qos check reported them, compared field by field."""
    old, new = _evidence(before, "qos"), _evidence(after, "qos")
    if len(old) == len(new) == 1:  # one profile on every switch: compare it whatever its name
        old, new = {"": next(iter(old.values()))}, {"": next(iter(new.values()))}
    changes = []
    for profile in sorted(set(old) | set(new)):
        a, b = old.get(profile, {}), new.get(profile, {})
        changes += [
            f"{profile + ' ' if profile else ''}{name}: {a.get(name)} -> {b.get(name)}"
            for name in sorted(set(a) | set(b))
            if name != "switches" and a.get(name) != b.get(name)
        ]
    return _listed("QoS changed", changes)


def _checks(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    old, new = before["summary"].get("checks"), after["summary"].get("checks")
    lines = []
    if old != new and new is not None:
        lines.append(f"**checks**: {_outcome(old)} -> {_outcome(new)}")
        lines.append("")
    problems = {
        (row["check"], row["severity"], row["subject"], row["message"])
        for row in after.get("findings", [])
        if row["severity"] != "info"
    }
    known = {(row["check"], row["severity"], row["subject"], row["message"]) for row in before.get("findings", [])}
    lines += _listed(
        "new check findings",
        [f"{check} {severity} {subject}: {message}" for check, severity, subject, message in sorted(problems - known)],
    )
    return lines


def _outcome(counts: dict[str, int] | None) -> str:
    if counts is None:
        return "not run"
    return f"{counts['passed']} passed, {counts['failed']} failed, {counts['warnings']} with warnings"

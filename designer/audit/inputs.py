"""What ``designer audit`` reads: the design of a built folder and either one LLDP file per device or one
``ibnetdiscover`` file of the whole InfiniBand fabric (plain text, told from JSON by how it opens).

Each LLDP file is named after the device that printed it, as the design names it (``p0-su0-r0-leaf.json``); a file
of a device the design does not have, two files of one device, a file that is not a regular file, too large, not
JSON or in no known format, or an ``ibnetdiscover`` file given with others is an
:class:`~designer.errors.InputError` naming the file, the line and the field, every problem of every file at once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from designer.audit.readers import KNOWN, Cable, Unreadable, detect
from designer.errors import InputError, Problem, Source
from designer.files import DISCOVERY, Refused, read_below
from designer.infiniband.ibnetdiscover import looks_like
from designer.readback.built import json_lines, long_number, shown

LINE_DEPTH = 8
"""Field depth to which a discovery file's problems are located on their line (lldpd's fields are 7 deep)."""


@dataclass(frozen=True)
class Reports:
    """What the discovery files hold: each LLDP file's device with its name family and cables, or the one
    ``ibnetdiscover`` file (its path and text)."""

    devices: dict[str, tuple[str, list[Cable]]]
    fabric: tuple[str, str] | None


def reports(files: Sequence[Path], devices: Callable[[], set[str]]) -> Reports:
    """Read ``files``: one LLDP file per device of ``devices()`` (asked for only when an LLDP file is read), or one
    ``ibnetdiscover`` file."""
    problems: list[Problem] = []
    found: dict[str, tuple[str, list[Cable]]] = {}
    fabric: list[tuple[str, str]] = []
    first: dict[str, Path] = {}
    for path in files:
        text = _text(path, problems)
        if text is None:
            continue
        if looks_like(text):
            fabric.append((str(path), text))
            continue
        device = path.name.removesuffix(".json")
        if device not in devices():
            problems.append(
                Problem(
                    (),
                    f"the design has no device {shown(device)}; name each file after the device that printed it, "
                    "as the design names it (e.g. p0-su0-r0-leaf.json)",
                    1,
                    str(path),
                )
            )
            continue
        if device in first:
            problems.append(Problem((), f"a second file of {device} (the first is {first[device]})", 1, str(path)))
            continue
        first[device] = path
        if (lldp := _lldp(path, device, text, problems)) is not None:
            found[device] = lldp
    if fabric and len(files) > 1:
        problems.extend(
            Problem(
                (),
                f"ibnetdiscover output covers the whole fabric: give it as the only discovery file, not with "
                f"{len(files) - 1} other{'s' if len(files) > 2 else ''}",
                1,
                where,
            )
            for where, _ in fabric
        )
    if problems:
        raise InputError(problems, about=f"the discovery file{'s' if len(files) != 1 else ''}")
    return Reports(found, fabric[0] if fabric else None)


def _text(path: Path, problems: list[Problem]) -> str | None:
    """The text of the discovery file ``path``; None when it cannot be read or is no UTF-8 text (the problem
    recorded)."""
    try:
        data = read_below(path.parent, (path.name,), DISCOVERY)
    except (Refused, OSError) as error:
        reason = error.reason if isinstance(error, Refused) else f"cannot be read: {error.strerror or error}"
        problems.append(Problem((), reason, 1, str(path)))
        return None
    except InputError as error:
        problems.extend(Problem((), problem.message, 1, str(path)) for problem in error.problems)
        return None
    try:
        return data.decode()
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        problems.append(Problem((), f"not UTF-8 text (byte 0x{data[error.start]:02x})", line, str(path)))
        return None


def _lldp(path: Path, device: str, text: str, problems: list[Problem]) -> tuple[str, list[Cable]] | None:
    """The name family and cables of ``device``'s LLDP file ``path`` (its ``text``); None when it is not JSON or in
    no known format (the problem recorded)."""
    try:
        document = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        problems.append(_not_json(error, str(path)))
        return None
    except ValueError:  # a number of more digits than Python converts
        problems.append(
            Problem((), "not what a device prints: a number of thousands of digits", long_number(text), str(path))
        )
        return None
    try:
        family = detect(document)
        return family.names, family.reader(device, document)
    except Unreadable as error:
        line = Source(str(path), dict(json_lines(text, LINE_DEPTH))).line_of(error.where)
        problems.append(Problem(error.where, error.message, line, str(path)))
        return None


def _not_json(error: json.JSONDecodeError | RecursionError, where: str) -> Problem:
    """A file that is not JSON: in no known format when it does not even open as JSON, else where it breaks."""
    if isinstance(error, RecursionError):
        return Problem((), "not JSON: nested too deep; give what the device printed", 1, where)
    if error.pos == 0:
        return Problem(
            (),
            f"in no known format: neither JSON ({KNOWN}) nor ibnetdiscover output ('ibnetdiscover > FILE'); give "
            "what the device printed, unedited",
            1,
            where,
        )
    return Problem((), f"not JSON: {error.msg}; give what the device printed", error.lineno, where)

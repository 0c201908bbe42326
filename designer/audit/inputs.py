"""What ``designer audit`` reads: the design of a built folder and one discovery file per device.

Each file is named after the device that printed it, as the design names it (``p0-su0-r0-leaf.json``); a file
of a device the design does not have, two files of one device, a file that is not a regular file, too large, not
JSON or in no known format is an :class:`~designer.errors.InputError` naming the file, the line and the field,
every problem of every file at once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from designer.audit.readers import Cable, Unreadable, detect
from designer.built import json_lines, shown
from designer.errors import InputError, Problem, Source
from designer.files import DISCOVERY, Refused, read_below

LINE_DEPTH = 8
"""Field depth to which a discovery file's problems are located on their line (lldpd's fields are 7 deep)."""


def reports(files: Sequence[Path], devices: set[str]) -> dict[str, tuple[str, list[Cable]]]:
    """Each reporting device's name family and cables, from ``files`` (one per device of ``devices``)."""
    problems: list[Problem] = []
    found: dict[str, tuple[str, list[Cable]]] = {}
    first: dict[str, Path] = {}
    for path in files:
        device = path.name.removesuffix(".json")
        if device not in devices:
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
        try:
            data = read_below(path.parent, (path.name,), DISCOVERY)
        except (Refused, OSError) as error:
            reason = error.reason if isinstance(error, Refused) else f"cannot be read: {error.strerror or error}"
            problems.append(Problem((), reason, 1, str(path)))
            continue
        except InputError as error:
            problems.extend(Problem((), problem.message, 1, str(path)) for problem in error.problems)
            continue
        try:
            text = data.decode()
            document = json.loads(text)
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            problems.append(Problem((), f"not UTF-8 text (byte 0x{data[error.start]:02x})", line, str(path)))
            continue
        except (json.JSONDecodeError, RecursionError) as error:
            where = (error.msg, error.lineno) if isinstance(error, json.JSONDecodeError) else ("nested too deep", 1)
            problems.append(Problem((), f"not JSON: {where[0]}; give what the device printed", where[1], str(path)))
            continue
        try:
            family = detect(document)
            found[device] = (family.names, family.reader(device, document))
        except Unreadable as error:
            line = Source(str(path), dict(json_lines(text, LINE_DEPTH))).line_of(error.where)
            problems.append(Problem(error.where, error.message, line, str(path)))
    if problems:
        raise InputError(problems, about=f"the discovery file{'s' if len(files) != 1 else ''}")
    return found

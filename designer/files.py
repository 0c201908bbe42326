"""Where designer's own data files are, and how it reads files that someone else may have put in a folder:
regular files only, never through a link, never more bytes than a file of their kind may hold.

The shipped data (the Jinja2 templates, SONiC's YANG models) is package data found through
:mod:`importlib.resources`, so a wheel, an sdist and an editable install (``pip install -e .``) all find it from any
directory. The repository's top-level ``templates/`` is the package ``designer._templates`` (``package-dir`` in
pyproject.toml).

Built outputs and template overrides can come with a pull request. A symbolic link there could make the
designer read ``/etc/shadow`` or ``/proc/self/environ`` into a config or an error message, and a FIFO would
block it forever; :func:`read_below` refuses both, for the file and for every folder on the way to it. A huge
(or sparse) file would take all memory before anything else could refuse it: every read is capped, by the kind
of file (:data:`CAPS`), checked with ``fstat`` before the first byte is read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from designer.errors import InputError, Problem

MiB = 1 << 20


def shipped_templates() -> Path:
    """The folder of the shipped templates (the repository's ``templates/``)."""
    return Path(str(files("designer._templates")))


def sonic_yang_models() -> Path:
    """The folder of SONiC's YANG models that ship with designer (``designer/data/sonic-yang``)."""
    return Path(str(files("designer").joinpath("data", "sonic-yang")))


@dataclass(frozen=True)
class Cap:
    """The most bytes designer reads of one kind of file. Each cap is a power of two at least three times the
    largest file of its kind that a 131,072-GPU build writes (docs/outputs.md's table has the measured sizes)."""

    kind: str
    limit: int

    def refusal(self, size: int) -> str:
        """Why a file of ``size`` bytes is not read."""
        return f"{size:,} bytes, larger than the {self.limit // MiB:,} MiB {self.kind} may hold; it was not read"


DESIGN = Cap("a design.json", 1024 * MiB)
"""289 MiB at 131,072 GPUs (DGX B300, 786,432 links, four targets: each link's os_ports about 150 bytes); it grows
with the links."""
TABLE = Cap("a table or report of a build", 1024 * MiB)
"""summary.md, the CSV tables, power.md, the SVGs and lab/: addressing.csv, the largest, 242 MiB at 131,072 GPUs
(each OS's port names in its own columns)."""
MANIFEST = Cap("a manifest.json", 128 * MiB)
"""11.9 MiB for 116,749 files at 131,072 GPUs (DGX B300); 60 to 70 MiB at the link limit with a NetworkManager file
per NIC."""
CONFIG = Cap("a switch configuration", 16 * MiB)
"""A SONiC config_db.json of 128 ports, the largest, 164 KiB; a switch of 8,192 ports (the intent's limit) about 64
times that."""
SERVER = Cap("a server's file", 1 * MiB)
"""nic-qos.sh of 16 NICs, the largest, 6.8 KiB."""
INTENT = Cap("an intent", 1 * MiB)
"""An intent is a few dozen lines (:mod:`designer.intent.yaml_source` reads no more)."""
CATALOG = Cap("a site catalog", 1 * MiB)
"""A site catalog's entries, as a build writes them beside its intent (read as strictly as an intent)."""
TEMPLATE = Cap("a template", 1 * MiB)
"""The shipped templates are 2 KiB at most."""
DISCOVERY = Cap("a discovery file", 64 * MiB)
"""What a device printed for ``designer audit``: lldpd's json0 output, the largest, about 1.6 KiB per neighbour,
13 MiB for a switch of 8,192 ports."""
GIT_LISTING = Cap("the git listing of a revision's designs", 256 * MiB)
"""``git ls-tree -r -l`` of the designs' folder: about a manifest.json per design."""
SOURCE_OF_TRUTH = Cap("an answer of a source of truth", 512 * MiB)
"""One answer of Nautobot's API to ``designer sync``; the largest, the GraphQL list of a location's interfaces, takes
about 60 bytes an interface: some 60 MiB for the million interfaces of a 131,072-GPU design (estimated, not
measured at that size)."""
CAPS = (DESIGN, TABLE, MANIFEST, CONFIG, SERVER, INTENT, CATALOG, TEMPLATE, DISCOVERY, GIT_LISTING, SOURCE_OF_TRUTH)
_TOP = {"design.json": DESIGN, "manifest.json": MANIFEST, "intent.yaml": INTENT, "site-catalog.yaml": CATALOG}
_BELOW = {"configs": CONFIG, "servers": SERVER}


def output_cap(parts: Sequence[str]) -> Cap:
    """The cap of the file ``parts`` (path parts relative to a built output folder), by its kind."""
    if len(parts) == 1:
        return _TOP.get(parts[0], TABLE)
    return _BELOW.get(parts[0], TABLE)


def too_large(where: str, size: int, cap: Cap, about: str = "") -> InputError:
    """The input error (exit 2) for the file ``where`` of ``size`` bytes, above ``cap``; ``about`` names it in the
    last line when ``where`` does not say all (a git revision)."""
    return InputError([Problem((where,), cap.refusal(size))], about=about or where)


class Refused(Exception):
    """A path that is not a regular file (or, on the way to one, not a real folder)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason

    def __reduce__(self) -> tuple[type[Refused], tuple[Path, str]]:
        return Refused, (self.path, self.reason)


def read_below(folder: Path, parts: Sequence[str], cap: Cap) -> bytes:
    """The bytes of ``folder/parts...``. Raises :class:`Refused` for a symbolic link anywhere below ``folder`` (the
    folder itself may be one) or a final path that is a folder or special file; :class:`InputError` for a file
    larger than ``cap``; FileNotFoundError when a part is missing or a file stands where a folder should; OSError
    when it cannot be read."""
    path = folder
    for number, part in enumerate(parts):
        path = path / part
        mode = os.lstat(path).st_mode
        last = number == len(parts) - 1
        if stat.S_ISLNK(mode):
            raise Refused(path, "is a symbolic link")
        if not last and not stat.S_ISDIR(mode):
            raise FileNotFoundError(f"{path} is not a folder")
        if last and not stat.S_ISREG(mode):
            raise Refused(path, "is a folder" if stat.S_ISDIR(mode) else "is a special file")
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        return _read_open(descriptor, str(path), cap)
    finally:
        os.close(descriptor)


def read_file(path: Path, cap: Cap) -> bytes:
    """The bytes of the regular file ``path`` (a link to one is followed), at most ``cap``: :class:`Refused` for a
    folder or a special file, :class:`InputError` for a file larger than ``cap``."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        return _read_open(descriptor, str(path), cap)
    finally:
        os.close(descriptor)


def _read_open(descriptor: int, where: str, cap: Cap) -> bytes:
    """What the open file ``descriptor`` (named ``where``) holds: its size is checked against ``cap`` before the
    first byte is read, and no more than that size is read (one byte more tells that it grew meanwhile)."""
    info = os.fstat(descriptor)
    size = info.st_size
    if not stat.S_ISREG(info.st_mode):
        raise Refused(Path(where), "changed while it was read")
    if size > cap.limit:
        raise too_large(where, size, cap)
    data = os.read(descriptor, size + 1)
    while len(data) <= size and (chunk := os.read(descriptor, size + 1 - len(data))):
        data += chunk  # a short read (a signal, a network file system); a local file gives all at once
    if len(data) > size:
        raise Refused(Path(where), "changed while it was read")
    return data


def oversized(paths: Iterable[Path], cap: Cap) -> list[Problem]:
    """A problem for each of ``paths`` (files another program will read) larger than ``cap``."""
    problems = []
    for path in paths:
        size = os.stat(path).st_size
        if size > cap.limit:
            problems.append(Problem((str(path),), cap.refusal(size)))
    return problems

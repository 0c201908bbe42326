"""The output folder: claimed before a build, written atomically, compared for drift.

``claim`` takes an output folder before a build (refusing one that holds anything but a previous build's
files, locking out other builds) and its ``write`` swaps the new folder in with one atomic exchange, so a
failed, interrupted or killed build leaves the previous outputs whole; ``drift`` compares a committed
folder with what the design produces now.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, cast

from designer.errors import OutputError
from designer.files import MANIFEST as MANIFEST_CAP
from designer.files import Refused, output_cap, read_below, read_file, too_large
from designer.workers import in_workers

MANIFEST = "manifest.json"
INTENT_FILE = "intent.yaml"
SITE_CATALOG_FILE = "site-catalog.yaml"
"""The site catalogs' entries the design used, as one catalog file (only when the intent names site catalogs)."""
"""The intent the folder was built from, byte for byte (its sha256 is the manifest's ``intent_sha256``)."""
AT_FDCWD, RENAME_EXCHANGE = -100, 2
"""From Linux's <fcntl.h> and <linux/fs.h>: paths relative to the working folder; swap two paths."""


class Claim:
    """The right to replace one output folder, held by :func:`claim` for as long as its ``with`` block runs."""

    def __init__(self, folder: Path, kind: str):
        self.folder = folder
        """Where the outputs go, symbolic links resolved."""
        self.kind = kind
        """The kind of output folder it writes (:data:`BUILD`...)."""
        self.written = False

    def write(self, files: dict[str, bytes]) -> None:
        """Replace the folder with exactly ``files`` (see :meth:`fill`)."""
        self.fill(lambda staging: write_files(files, staging))

    def fill(self, writer: Callable[[Path], None]) -> None:
        """Replace the folder with what ``writer`` puts into an empty staging folder beside it, exchanged with the
        folder in one step (what interrupted builds of the folder left beside it is deleted first)."""
        try:
            _remove_leftovers(self.folder)
            _replace(writer, self.folder, self.kind)
        except OSError as error:
            raise OutputError(_explain(error, self.folder)) from None
        self.written = True


BUILD, EXPLORE, SM_FILES = "build", "explore", "sm-files"
"""The kinds of output folder, each written by one command (``export avd`` and ``export anta`` are ``export
KIND``): a command replaces only a folder of its own kind (:func:`output_kind`)."""


@contextmanager
def claim(target: Path, kind: str = BUILD, reads: Iterable[Path] = ()) -> Iterator[Claim]:
    """Take ``target`` for one command writing a ``kind`` of output folder, before any work: refuse a folder it must
    not replace (see :func:`refusal`), one of the folders it ``reads`` among them, and lock it against other writers
    (``.NAME.lock`` beside it). Raises :class:`OutputError`. Folders created on the way to ``target`` are removed
    again when nothing was written."""
    try:
        folder = target.resolve()
        inputs = [path.resolve() for path in reads]
    except (OSError, RuntimeError) as error:  # RuntimeError: a loop of symbolic links (Python 3.11 and 3.12)
        raise OutputError(f"cannot write {target}: {error}") from None
    created: list[Path] = []
    try:
        problem = next(
            (
                f"refusing to replace {folder}: it is the folder this command reads; choose another folder with -o"
                for path in inputs
                if path == folder or folder in path.parents
            ),
            None,
        ) or refusal(folder, kind)
        if problem:
            raise OutputError(problem + (f" ({target} is a symbolic link to it)" if target.is_symlink() else ""))
        created = _make_folders(folder.parent)
        lock = _lock(folder)
    except OutputError:
        _remove_empty(created)
        raise
    except OSError as error:
        _remove_empty(created)
        raise OutputError(_explain(error, folder)) from None
    held = Claim(folder, kind)
    try:
        yield held
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock.name)
        lock.close()
        if not held.written:
            _remove_empty(created)


def write(files: dict[str, bytes], target: Path, kind: str = BUILD, reads: Iterable[Path] = ()) -> None:
    """Replace the output folder ``target`` with exactly ``files`` (:func:`claim`, then :meth:`Claim.write`)."""
    with claim(target, kind, reads) as folder:
        folder.write(files)


def output_kind(manifest: Mapping[str, object]) -> str:
    """The kind of output folder a designer ``manifest`` describes: its ``output`` field, else as the manifests
    written without one tell (``export``: ``export KIND``; ``command: explore``; anything else: a build)."""
    if isinstance(manifest.get("output"), str):
        return str(manifest["output"])
    if isinstance(manifest.get("export"), str):
        return f"export {manifest['export']}"
    if manifest.get("command") == EXPLORE:
        return EXPLORE
    return BUILD


def refusal(folder: Path, kind: str = BUILD) -> str | None:
    """Why a command writing a ``kind`` of output must not replace ``folder``, or ``None`` when it may: it is
    missing, empty, or written by the same command before (its ``manifest.json`` says tool ``designer`` and that
    kind) and holding nothing its manifest does not list."""
    if not folder.exists():
        return None
    if not folder.is_dir():
        return f"cannot write {folder}: it is a file, not a folder; choose another folder with -o"
    if os.path.ismount(folder):
        return (
            f"cannot write {folder}: it is a mount point, which a build cannot replace; choose a folder "
            f"inside it with -o {folder / 'NAME'}"
        )
    entries = sorted(folder.iterdir())
    if not entries:
        return None
    manifest = _manifest(folder)
    listed = None if manifest is None else {*cast(dict[str, object], manifest["files"]), MANIFEST}
    if manifest is not None and (wrote := output_kind(manifest)) != kind:
        return (
            f"refusing to replace {folder}: designer {wrote} wrote it, and only designer {wrote} replaces it; "
            f"choose a new or empty folder for designer {kind} with -o"
        )
    if listed is None:
        return (
            f"refusing to replace {folder}: it is not an output folder of designer (no manifest.json written "
            f"by designer) and holds {_few(entries, folder)}; a build replaces its whole folder, so choose a "
            "new or empty one with -o"
        )
    foreign = _unlisted(folder, listed)
    if foreign:
        return (
            f"refusing to replace {folder}: it holds {_few(foreign, folder)}, which the build that wrote it did "
            "not (they are not in its manifest.json); a build replaces its whole folder, so move them elsewhere "
            "first"
        )
    return None


def _manifest(folder: Path) -> dict[str, object] | None:
    """``folder/manifest.json`` with the files it lists; ``None`` unless designer wrote it. A manifest larger than
    designer writes is an input error (exit 2), not read."""
    try:
        manifest = json.loads(read_below(folder, (MANIFEST,), MANIFEST_CAP))
    except (OSError, ValueError, RecursionError, Refused):
        return None
    if (
        not isinstance(manifest, dict)
        or manifest.get("tool") != "designer"
        or not isinstance(manifest.get("files"), dict)
    ):
        return None
    return manifest


PartSizes = dict[str, tuple[int, int]]
"""How many files and bytes a build wrote, by part: each ``configs/<os>``, ``servers``, ``lab`` and ``review
files`` (everything else)."""


def sizes_by_part(files: Iterable[tuple[str, int]]) -> PartSizes:
    """The :data:`PartSizes` of ``files`` (relative path, bytes)."""
    sizes: PartSizes = {}
    for path, size in files:
        parts = path.split("/")
        part = "/".join(parts[:2]) if parts[0] == "configs" else parts[0] if len(parts) > 1 else "review files"
        count, total = sizes.get(part, (0, 0))
        sizes[part] = (count + 1, total + size)
    return sizes


def _unlisted(folder: Path, listed: set[str]) -> list[Path]:
    """Everything in ``folder`` that is neither a listed file nor a folder on the way to one (symbolic links
    included: a build writes none); a foreign folder counts once, without its contents."""
    parents = set()
    for path in {path.rpartition("/")[0] for path in listed}:
        while path not in parents:
            parents.add(path)
            path = path.rpartition("/")[0]
    return sorted(
        folder / path
        for path, entry in _walk(folder, parents.__contains__)
        if entry.is_symlink() or path not in (parents if entry.is_dir() else listed)
    )


def _walk(folder: Path, enter: Callable[[str], bool]) -> Iterator[tuple[str, os.DirEntry[str]]]:
    """Every entry below ``folder`` as (path relative to it, entry), each folder read once; a folder (never a link
    to one) is entered when ``enter(its relative path)``."""
    below = [""]  # folders to read, relative to ``folder`` ("" is the folder itself)
    while below:
        relative = below.pop()
        with os.scandir(os.path.join(folder, relative)) as entries:
            for entry in entries:
                path = f"{relative}/{entry.name}" if relative else entry.name
                if entry.is_dir(follow_symlinks=False) and enter(path):
                    below.append(path)
                yield path, entry


def _few(paths: list[Path], folder: Path, shown: int = 5) -> str:
    """A handful of ``paths`` inside ``folder`` (folders end in ``/``), then how many more."""
    names = [
        path.relative_to(folder).as_posix() + ("/" if path.is_dir() and not path.is_symlink() else "")
        for path in paths[:shown]
    ]
    more = [f"{len(paths) - shown:,} more"] if len(paths) > shown else []
    return ", ".join([*names, *more])


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones created, outermost first."""
    missing: list[Path] = []
    for path in (folder, *folder.parents):
        if path.is_dir():
            break
        if path.exists():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path))
        missing.insert(0, path)
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def _remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (innermost last in the list) where they are still empty."""
    for path in reversed(folders):
        with contextlib.suppress(OSError):
            path.rmdir()


def _lock(folder: Path) -> IO[bytes]:
    """Hold ``.NAME.lock`` beside ``folder`` (flock) until it is closed; :func:`claim` deletes it before closing.
    Another holder means another build is writing the folder."""
    path = folder.parent / f".{folder.name}.lock"
    while True:
        lock = path.open("ab")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise OutputError(
                f"cannot write {folder}: another build is writing this folder (it holds {path}); wait for it to finish"
            ) from None
        except OSError:
            lock.close()
            raise
        with contextlib.suppress(FileNotFoundError):
            if os.stat(path).st_ino == os.fstat(lock.fileno()).st_ino:
                return lock
        lock.close()  # the build before us deleted the file after we opened it: lock the new one


def _leftover(folder: Path, name: str) -> bool:
    """Whether ``name`` beside ``folder`` is the staging or retired folder of an interrupted build of it."""
    return re.fullmatch(rf"\.{re.escape(folder.name)}\.(new|old)-[a-z0-9_]{{8}}", name) is not None


def _remove_leftovers(folder: Path) -> None:
    """Delete the staging and retired folders that killed builds of ``folder`` left beside it (only folders)."""
    for path in sorted(folder.parent.iterdir()):
        if _leftover(folder, path.name) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)


def write_files(files: Mapping[str, bytes] | Iterable[tuple[str, bytes]], folder: Path) -> None:
    """Write ``files`` (relative path -> bytes, or such pairs one at a time) below ``folder``, making subfolders as
    needed. Each file is new (an existing file or link in its place is an error, never overwritten) and written
    with three system calls: servers alone have tens of thousands of files."""
    root = os.fspath(folder)
    made: set[str] = set()
    for relative, data in files.items() if isinstance(files, Mapping) else files:
        path = os.path.join(root, relative)
        parent = os.path.dirname(path)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(descriptor, view) :]
        finally:
            os.close(descriptor)


def _replace(writer: Callable[[Path], None], target: Path, kind: str) -> None:
    """Let ``writer`` fill a staging folder beside ``target`` and put it in place of ``target``, if it may still
    be replaced (:func:`refusal`).

    Where ``renameat2(RENAME_EXCHANGE)`` exists (Linux 3.15 with glibc 2.28, on ext4, xfs, btrfs, tmpfs...),
    the two folders swap in one step and ``target`` is always a whole build. Elsewhere two renames do it, and a
    kill between them leaves ``target`` missing, the previous build whole in ``.NAME.old-*/previous``.
    """
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    try:
        writer(staging)
        staging.chmod(0o755)
        problem = refusal(target, kind)  # again: someone may have put files into it while the build ran
        if problem:
            raise OutputError(problem)
        if not target.exists():
            os.rename(staging, target)
        elif not _exchange(staging, target):
            retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
            os.rename(target, retired / "previous")
            os.rename(staging, target)
            _remove(retired)
    finally:
        if staging.exists():
            _remove(staging)  # after an exchange it holds the previous build


def _remove(folder: Path) -> None:
    """Delete ``folder`` and all it holds (never following a link), the entries of its subfolders shared among one
    process per core: freeing a large build (90,000 files at 131k GPUs) is the kernel's work, about a second."""
    entries: list[str] = []
    with os.scandir(folder) as tops:
        for top in tops:
            if top.is_dir(follow_symlinks=False):
                with os.scandir(top.path) as inside:
                    entries += [entry.path for entry in inside]
    entries.sort()

    def part(worker: int, count: int) -> dict[str, str]:
        for path in entries[worker::count]:
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            else:
                os.unlink(path)
        return {}

    in_workers(os.cpu_count() or 1, part)
    shutil.rmtree(folder)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically with Linux ``renameat2(RENAME_EXCHANGE)``; ``False`` where the C library, the
    kernel or the file system cannot."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE) == 0:
        return True
    number = ctypes.get_errno()
    if number in (errno.ENOSYS, errno.EINVAL):
        return False
    raise OSError(number, os.strerror(number), str(second))


def _explain(error: OSError, folder: Path) -> str:
    """What went wrong writing ``folder``, for a person: the system's reason, the path and what to do."""
    hints = {
        errno.EBUSY: "a mount point (or a folder in use) cannot be replaced; choose a folder inside it",
        errno.EROFS: "the file system is read-only; choose a folder on a writable one",
        errno.EACCES: "choose a folder you may write in",
        errno.EPERM: "choose a folder you may write in",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.ENAMETOOLONG: "choose a shorter folder name (a build adds 14 characters to it for its staging folder)",
        errno.ENOSPC: "the disk is full",
    }
    where = f" ({error.filename})" if error.filename and Path(error.filename) != folder else ""
    hint = f"; {hints[error.errno]}" if error.errno in hints else ""
    return f"cannot write {folder}: {error.strerror or error}{where}{hint}"


def drift(files: dict[str, bytes], target: Path) -> list[str]:
    """Paths that differ between ``files`` and the folder ``target`` (changed, missing or extra)."""
    return differences({relative: file_matches(target, relative, data) for relative, data in files.items()}, target)


def file_matches(folder: Path, relative: str, data: bytes) -> bool:
    """Whether the file ``relative`` below ``folder`` holds ``data``: read only when it has as many bytes; one
    larger than the cap of its kind (:func:`~designer.files.output_cap`) is an input error (exit 2)."""
    path = folder / relative
    try:
        info = os.stat(path)
    except OSError:
        return False
    cap = output_cap(relative.split("/"))
    if stat.S_ISREG(info.st_mode) and info.st_size > cap.limit:
        raise too_large(str(path), info.st_size, cap)
    try:
        return stat.S_ISREG(info.st_mode) and info.st_size == len(data) and read_file(path, cap) == data
    except Refused:  # it changed while it was read
        return False


def differences(matches: dict[str, bool], target: Path) -> list[str]:
    """The drift lines of the folder ``target`` from whether each expected file matches (:func:`file_matches`):
    the changed and missing files in path order, then everything in ``target`` a build would refuse to replace
    (:func:`refusal`), so that the gate and the build agree: a link, FIFO or folder where an expected file belongs,
    and every extra entry (a file, a link, a FIFO, a folder, an empty one too, counted once without its contents)."""
    foreign = {path.relative_to(target).as_posix(): path for path in _unlisted(target, set(matches))}
    regular = {path for path, entry in _walk(target, lambda _: True) if entry.is_file(follow_symlinks=False)}
    lines = []
    for path in sorted(matches):
        if path in foreign:
            lines.append(f"not a file: {path} (a link, FIFO or folder stands where the build writes a file)")
        elif path not in regular:
            lines.append(f"missing: {path}")
        elif not matches[path]:
            lines.append(f"changed: {path}")
    extra = sorted((path for path in foreign if path not in matches), key=lambda path: path.split("/"))
    return lines + [
        f"extra: {path}{'/' if foreign[path].is_dir() and not foreign[path].is_symlink() else ''}" for path in extra
    ]

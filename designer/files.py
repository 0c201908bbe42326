"""Read files that someone else may have put in a folder: regular files only, never through a link.

Built outputs and template overrides can come with a pull request. A symbolic link there could make the
designer read ``/etc/shadow`` or ``/proc/self/environ`` into a config or an error message, and a FIFO would
block it forever; :func:`read_below` refuses both, for the file and for every folder on the way to it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path


class Refused(Exception):
    """A path that is not a regular file (or, on the way to one, not a real folder)."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def read_below(folder: Path, parts: Sequence[str]) -> bytes:
    """The bytes of ``folder/parts...``. Raises :class:`Refused` for a symbolic link anywhere below ``folder`` (the
    folder itself may be one) or a final path that is a folder or special file; FileNotFoundError when a part is
    missing or a file stands where a folder should; OSError when it cannot be read."""
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
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise Refused(path, "changed while it was read")
        return file.read()

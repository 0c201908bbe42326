"""Input errors that point a person at the file, line and field to fix."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import partial

Path = tuple[str | int, ...]
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_./-]+")


def dotted(path: Path) -> str:
    """Render a field path the way a YAML author reads it: ``fabric.leaf.ports``, ``targets[1]``.

    The path stops before a key that is not a plain word (``'a b'``, a key holding a line break): the
    message names such a key, so that every error stays one line of ``file:line: field: message``.
    """
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            text += f".{part}" if text else part
        else:
            break
    return text or "(top-level)"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the intent: where (field path) and what would be valid."""

    path: Path
    message: str
    line: int | None = None
    """The line, when it is not the line of ``path`` (a duplicate key's second appearance)."""
    file: str | None = None
    """The file, when it is not the one the error is about (a site catalog the intent names); ``line`` is then set."""


@dataclass(frozen=True)
class Source:
    """Where an intent came from: its file name and the line of every field path."""

    filename: str
    lines: Mapping[Path, int]

    def line_of(self, path: Path) -> int:
        """Line of the nearest field on ``path`` that the file has (a missing key points at its parent)."""
        for end in range(len(path), -1, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return 1


class InputError(Exception):
    """The intent (or, with ``about``, another input such as a built design.json) cannot be used as written.
    Carries every problem found, not just the first."""

    def __init__(self, problems: Iterable[Problem], source: Source | None = None, *, about: str = "the intent"):
        self.problems = sorted(set(problems), key=lambda p: (p.file or "", _line(source, p), dotted(p.path), p.message))
        self.source = source
        self.about = about
        super().__init__(self.render())

    def render(self) -> str:
        """All problems, one per line, as ``file:line: field: message``."""
        rows = []
        for problem in self.problems:
            if problem.file:
                where = f"{printable(problem.file)}:{problem.line}: "
            else:
                where = f"{printable(self.source.filename)}:{_line(self.source, problem)}: " if self.source else ""
            rows.append(f"{where}{printable(dotted(problem.path))}: {problem.message}")
        count = len(self.problems)
        rows.append(f"{count} error{'s' if count != 1 else ''} in {self.about}; nothing was written.")
        return "\n".join(rows)

    def __reduce__(self) -> tuple[partial[InputError], tuple[list[Problem], Source | None]]:
        """Pickled with its problems (a forked worker sends it to the parent, which raises it again)."""
        return partial(InputError, about=self.about), (self.problems, self.source)

    def located(self, source: Source) -> InputError:
        """The same problems, now tied to the intent file they belong to."""
        return InputError(self.problems, source, about=self.about)


def _line(source: Source | None, problem: Problem) -> int:
    if problem.line is not None:
        return problem.line
    return source.line_of(problem.path) if source else 0


class PrerequisiteError(Exception):
    """Something outside the intent is missing (a program, a privilege); the message says how to get it."""


class TemplateError(Exception):
    """A template cannot be compiled or rendered; the message names the template file, its line and the fault."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}\nA template failed; nothing was written.")
        self.where = where
        self.reason = message

    def __reduce__(self) -> tuple[type[TemplateError], tuple[str, str]]:
        return TemplateError, (self.where, self.reason)


class OutputError(Exception):
    """The output folder cannot be written as asked; the message names it and says what to do."""


def printable(text: str) -> str:
    """``text`` safe to print: every character that is not printable (control characters, a new line, escape codes,
    a lone surrogate) and the backslash written as its Python escape, so that what a device or a server reports
    can neither forge a line of a report nor rewrite the terminal."""
    if text.isprintable() and "\\" not in text:  # what designer names itself: nothing to escape
        return text
    return "".join(
        char if char.isprintable() and char != "\\" else char.encode("unicode_escape", "backslashreplace").decode()
        for char in text
    )

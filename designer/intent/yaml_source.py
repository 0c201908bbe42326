"""Read YAML safely into plain data, remembering the line of every field.

Only plain YAML is accepted: mappings with string keys, sequences, strings, numbers, booleans
and null. Tags that would construct objects (``!!python/...``) are refused, duplicate keys are
errors (YAML parsers usually keep the last one silently), text must be printable, and the input
is bounded before it costs time or memory: at most ``MAX_BYTES`` read from a regular file,
nesting at most ``MAX_DEPTH`` deep, and at most ``MAX_NODES`` values, aliases expanded (which stops
"billion laughs" documents), never an alias into itself.

Every problem comes with a line; a value that cannot be read is left out of the data and its
field path listed as broken, so that later passes skip what reads it instead of guessing.
"""

from __future__ import annotations

import bisect
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

import yaml

from designer.errors import InputError, Path, Problem, Source
from designer.files import INTENT

MAX_BYTES = INTENT.limit
MAX_NODES = 50_000
MAX_DEPTH = 64
"""Deepest nesting of lists and mappings; an intent needs 4."""

_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_TAG}{name}" for name in ("str", "int", "float", "bool", "null")}
_KINDS = {
    f"{_TAG}int": "a number",
    f"{_TAG}float": "a number",
    f"{_TAG}bool": "a boolean",
    f"{_TAG}null": "null",
    f"{_TAG}timestamp": "a date",
}
_MERGE_TAG = f"{_TAG}merge"
_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)
_HINTS = (
    (
        "mapping values are not allowed",
        "a ':' follows a value on the same line; check the indentation of this "
        "line and the one above (a key lines up with the keys beside it), or "
        "quote a value that holds ': '",
    ),
    (
        "expected <block end>",
        "check the indentation of this line and the one above: keys of one mapping (and "
        "the '-' of one list) line up exactly",
    ),
    (
        "did not find expected key",
        "check the indentation of this line and the one above: keys of one mapping line up exactly",
    ),
    (
        "did not find expected '-'",
        "check the indentation of this line and the one above: the '-' of one list line up exactly",
    ),
    ("could not find expected ':'", "a key needs ': ' after it; check this line and the one above"),
    (
        "cannot start any token",
        "YAML indents with spaces, never tabs, and '@' or '`' cannot start a value; quote such a value",
    ),
    ("found undefined alias", "an alias (*name) can only repeat an anchor (&name) given before it"),
    ("found duplicate anchor", "give each anchor (&name) once"),
    (
        "expected a single document",
        "an intent is one YAML document; remove the '---' line and what follows it, or split the file",
    ),
    ("unexpected end of stream", "a quote is not closed"),
    ("expected ',' or ']'", "a '[' list is not closed with ']' (or a ',' is missing)"),
    ("expected ',' or '}'", "a '{' mapping is not closed with '}' (or a ',' is missing)"),
    ("'<stream end>'", "the file ends before a '[' or '{' is closed or a value is given"),
    (
        "sequence entries are not allowed",
        "a '- ' list item cannot follow a value on the same level; check the "
        "indentation of this line and the one above",
    ),
)
"""What to do about the syntax errors people make, by a fragment of PyYAML's message."""


@dataclass(frozen=True)
class Document:
    """A parsed YAML file: plain data, the line of every field, the problems met and the paths they broke."""

    data: Any
    source: Source
    problems: tuple[Problem, ...]
    broken: frozenset[Path]
    """Field paths whose value was left out for a problem (a refused tag, a recursive alias, ...)."""


def read_bytes(path: FilePath, what: str = "an intent YAML file", example: str = "intents/cluster.yaml") -> bytes:
    """The bytes of the YAML file at ``path`` (``what`` it should be, and an ``example`` path, for the messages: an
    intent by default): a regular file of at most ``MAX_BYTES``, read no further."""
    name = str(path)

    def refused(message: str) -> InputError:
        return InputError([Problem((), message, line=1)], Source(name, {}))

    try:  # without blocking: opening a named pipe would otherwise wait for a writer
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise refused(f"no such file; give the path of {what}, for example {example}") from None
    except OSError as error:
        raise refused(f"cannot open it ({error.strerror}); give the path of {what} that can be read") from None
    try:
        info = os.fstat(handle)
        kind = next((kind for test, kind in _FILE_KINDS if test(info.st_mode)), None)
        if kind:
            raise refused(f"is {kind}, not a file; give the path of {what}")
        if info.st_size > MAX_BYTES:
            raise refused(_too_large())
        raw = bytearray()
        while len(raw) <= MAX_BYTES and (chunk := os.read(handle, MAX_BYTES + 1 - len(raw))):
            raw += chunk
    except OSError as error:
        raise refused(f"cannot read it ({error.strerror}); give the path of {what} that can be read") from None
    finally:
        os.close(handle)
    if len(raw) > MAX_BYTES:
        raise refused(_too_large())
    return bytes(raw)


def decode(raw: bytes, filename: str) -> str:
    """``raw`` as UTF-8 text, or an error at the line and column of the first byte that is not."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        start = error.start
        line = raw.count(b"\n", 0, start) + 1
        column = start - raw.rfind(b"\n", 0, start)
        raise InputError(
            [
                Problem(
                    (),
                    f"byte 0x{raw[start]:02x} at column {column} is not UTF-8 text; save the "
                    "intent as UTF-8 (plain ASCII is UTF-8)",
                    line=line,
                )
            ],
            Source(filename, {}),
        ) from None


def load_yaml(text: str, filename: str, number_keys: bool = False) -> Document:
    """Parse ``text`` into plain data with the line of every field path; with ``number_keys``, a key may be a
    whole number too (a catalog's tables by link speed: ``{400: 8, 800: 15}``).

    Raises :class:`InputError` when ``text`` is not YAML at all; problems of single values are returned.
    """
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise InputError([Problem((), _too_large(), line=1)], Source(filename, {}))
    lines = _Lines(text)
    try:
        loader = _Loader(text)
    except yaml.reader.ReaderError as error:
        raise InputError([_unprintable(text, error.position, lines)], Source(filename, {})) from None
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as error:
        raise InputError([_syntax_problem(error, loader.path, lines)], Source(filename, {})) from None
    finally:
        loader.dispose()
    builder = _Builder(lines, loader.aliases > 0, number_keys)
    data = builder.build(node, (), 0) if node is not None else None
    return Document(data, Source(filename, builder.lines), tuple(builder.problems), frozenset(builder.broken))


def _too_large() -> str:
    return f"the file is larger than {MAX_BYTES // 1024} KiB; an intent is a few dozen lines"


class _Lines:
    """Line and column of a character, counting lines as grep, sed and wc do: at ``\\n`` only (YAML also breaks
    lines at a lone ``\\r``, U+0085, U+2028 and U+2029); a position past the last line is on the last line."""

    def __init__(self, text: str) -> None:
        self.breaks = [match.start() for match in re.finditer("\n", text)]
        self.last = max(1, len(self.breaks) + (not text.endswith("\n")))
        self.end = len(text.rstrip())

    def line(self, index: int) -> int:
        return min(bisect.bisect_left(self.breaks, index) + 1, self.last)

    def column(self, index: int) -> int:
        before = bisect.bisect_left(self.breaks, index)
        return index - (self.breaks[before - 1] if before else -1)


def _unprintable(text: str, position: int, lines: _Lines) -> Problem:
    character = text[position]
    return Problem(
        (),
        (
            f"the character {character!r} (U+{ord(character):04X}) at column {lines.column(position)} "
            "is not allowed in YAML; use printable text (tabs and line breaks are fine)"
        ),
        line=lines.line(position),
    )


def _syntax_problem(error: yaml.MarkedYAMLError, path: list[Any], lines: _Lines) -> Problem:
    """A YAML syntax error at its line and column, in the field being read, with what to do about it."""
    mark = error.problem_mark or error.context_mark
    if mark is not None and mark.index >= lines.end and error.context_mark is not None:
        mark = error.context_mark  # the end of the file: point at what is still open
    index = min(mark.index, lines.end) if mark else 0  # else just after the last thing written
    line, column = lines.line(index), lines.column(index)
    field = tuple(part for part in path if part is not None)[:4]  # an intent nests 4 levels deep
    if isinstance(error, _TooDeep):
        return Problem(field, f"{error.problem} at column {column}; an intent nests 4 levels deep", line=line)
    reason = " ".join(part for part in (error.context, error.problem) if part)
    hint = next(
        (hint for fragment, hint in _HINTS if fragment in reason),
        "check the indentation of this line and the one above",
    )
    return Problem(field, f"YAML syntax error at column {column}: {reason}; {hint}", line=line)


class _TooDeep(yaml.MarkedYAMLError):
    """Nesting beyond ``MAX_DEPTH``: refused before it costs a deep recursion."""


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, refusing nesting deeper than ``MAX_DEPTH`` and knowing which field it reads."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.path: list[Any] = []
        """Keys and indices down to the node being composed (``None`` while composing a key); left as it is
        when an error stops composing, so the error can name the field."""
        self.aliases = 0
        """Aliases (``*name``) met so far."""

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        if len(self.path) >= MAX_DEPTH:
            raise _TooDeep(
                None, None, f"lists and mappings nest deeper than {MAX_DEPTH} levels", self.peek_event().start_mark
            )
        if parent is None:
            return super().compose_node(parent, index)
        self.path.append(index.value if isinstance(index, yaml.ScalarNode) else index)
        self.aliases += self.check_event(yaml.AliasEvent)  # read after the path, so a syntax error names the field
        node = super().compose_node(parent, index)
        self.path.pop()
        return node


class _Builder:
    """Turns a composed YAML node tree into dicts, lists and scalars, recording lines."""

    def __init__(self, lines: _Lines, aliased: bool, number_keys: bool = False) -> None:
        self.text_lines = lines
        self.aliased = aliased
        """Whether the document repeats values by aliases: then they, not its length, run past ``MAX_NODES``."""
        self.number_keys = number_keys
        self.lines: dict[Path, int] = {}
        self.problems: list[Problem] = []
        self.broken: list[Path] = []
        self.visited = 0
        self.open: set[int] = set()
        """The nodes being built, to catch an alias inside its own anchor."""
        self.constructor = yaml.SafeLoader("")

    def line(self, node: yaml.Node) -> int:
        """The line of ``node`` within the file (an empty value at the very end is on the last line)."""
        return self.text_lines.line(node.start_mark.index)

    def refuse(self, path: Path, message: str, line: int | None = None) -> None:
        """Report ``message`` at ``path`` and leave its value out."""
        self.problems.append(Problem(path, message, line=line))
        self.broken.append(path)

    def build(self, node: yaml.Node, path: Path, depth: int) -> Any:
        self.visited += 1
        if self.visited > MAX_NODES:  # reported once, where it happens; every value after it is left out
            if self.visited == MAX_NODES + 1:
                self.problems.append(
                    Problem(
                        path,
                        f"aliases expand to more than {MAX_NODES} values; an intent never needs that many (alias bomb?)"
                        if self.aliased
                        else f"the intent holds more than {MAX_NODES:,} values (this one is "
                        f"past them); an intent needs a few hundred",
                    )
                )
            self.broken.append(path)
            return None
        self.lines.setdefault(path, self.line(node))
        if depth > MAX_DEPTH:
            self.refuse(path, f"aliases nest lists and mappings deeper than {MAX_DEPTH} levels; an intent needs 4")
            return None
        if id(node) in self.open:
            self.refuse(
                path,
                "this alias repeats a list or mapping that contains it (a recursive alias); an alias "
                "can only repeat a value that is complete",
            )
            return None
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node, path)
        self.open.add(id(node))
        try:
            if isinstance(node, yaml.MappingNode):
                return self._mapping(node, path, depth)
            if node.tag != f"{_TAG}seq":
                self.refuse(path, f"the YAML tag {node.tag!r} is not allowed on a list")
                return None
            return [self.build(item, (*path, index), depth + 1) for index, item in enumerate(node.value)]
        finally:
            self.open.discard(id(node))

    def _scalar(self, node: yaml.ScalarNode, path: Path) -> Any:
        if node.tag == f"{_TAG}timestamp":
            return node.value
        if node.tag not in _SCALAR_TAGS:
            self.refuse(
                path,
                f"the YAML tag {node.tag!r} is not allowed; use plain strings, numbers, booleans, lists and mappings",
            )
            return None
        try:
            value = self.constructor.yaml_constructors[node.tag](self.constructor, node)
        except (ValueError, KeyError):  # '!!int abc', '!!bool maybe' or a number of more than 4,300 digits
            self.refuse(
                path,
                f"{short(node.value)} cannot be read as {_KINDS[node.tag]}; write a number of at "
                "most 4,300 digits, true or false, or quote the text",
            )
            return None
        if isinstance(value, str) and (bad := yaml.reader.Reader.NON_PRINTABLE.search(value)):
            self.refuse(
                path,
                f"the text holds {bad.group()!r} (U+{ord(bad.group()):04X}), which is not printable "
                "(a control character or half of a UTF-16 pair); remove that escape",
            )
            return None
        return value

    def _mapping(self, node: yaml.MappingNode, path: Path, depth: int) -> dict[Any, Any]:
        if node.tag != f"{_TAG}map":
            self.refuse(path, f"the YAML tag {node.tag!r} is not allowed on a mapping")
            return {}
        result: dict[Any, Any] = {}
        merged: dict[Any, Any] = {}
        own: dict[Path, int] = {}
        """Lines of this mapping's own keys, recorded last: a merged mapping's keys must not replace them."""
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                merged.update(self._merge_source(value_node, path, depth))
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                self.problems.append(
                    Problem(path, "a list or mapping cannot be a key; keys are plain strings", line=self.line(key_node))
                )
                continue
            key = key_node.value
            if self.number_keys and key_node.tag == f"{_TAG}int" and key.isdigit():
                key = int(key)
            child = (*path, key)
            if key_node.tag != f"{_TAG}str" and not isinstance(key, int):
                kind = _KINDS.get(key_node.tag, f"tagged {key_node.tag}")
                self.problems.append(
                    Problem(
                        child,
                        f"the key {short(key)} is read as {kind}; keys are strings, so "
                        f"quote it ({short(key)}) if that is the name you mean",
                        line=self.line(key_node),
                    )
                )
                continue
            if key in result:
                self.problems.append(
                    Problem(
                        child,
                        f"duplicate key {short(key)} (first given on line {own[child]}); give each key once",
                        line=self.line(key_node),
                    )
                )
                continue
            own[child] = self.line(key_node)
            result[key] = self.build(value_node, child, depth + 1)
        self.lines.update(own)
        return {**merged, **result}

    def _merge_source(self, node: yaml.Node, path: Path, depth: int) -> dict[str, Any]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        merged: dict[str, Any] = {}
        for source in reversed(sources):
            value = self.build(source, path, depth + 1)
            if isinstance(value, dict):
                merged.update(value)
            else:
                self.refuse(path, "a '<<' merge key needs a mapping (or a list of mappings)", line=self.line(source))
        return merged


def short(value: object) -> str:
    """``repr`` of ``value``, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."

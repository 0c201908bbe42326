"""Read YAML safely into plain data, remembering the line of every field.

Only plain YAML is accepted: mappings with string keys, sequences, strings, numbers, booleans
and null. Tags that would construct objects (``!!python/...``) are refused, duplicate keys are
errors (YAML parsers usually keep the last one silently), and aliases may not expand into more
than ``MAX_NODES`` values, which stops "billion laughs" documents before they cost memory.
"""

from __future__ import annotations

from typing import Any

import yaml

from designer.errors import InputError, Path, Problem, Source

MAX_BYTES = 1 << 20
MAX_NODES = 50_000

_TAG = "tag:yaml.org,2002:"
_SCALAR_TAGS = {f"{_TAG}{name}" for name in ("str", "int", "float", "bool", "null")}
_MERGE_TAG = f"{_TAG}merge"


def load_yaml(text: str, filename: str) -> tuple[Any, Source]:
    """Parse ``text`` into plain data and a :class:`Source` mapping field paths to lines."""
    if len(text.encode()) > MAX_BYTES:
        raise InputError([Problem((), f"the file is larger than {MAX_BYTES // 1024} KiB; an intent is short")],
                         Source(filename, {}))
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = min(mark.line + 1, text.count("\n") or 1) if mark else 1
        reason = " ".join(part for part in (error.context, error.problem) if part)
        raise InputError([Problem((), f"YAML syntax error: {reason}")], Source(filename, {(): line})) from None
    except yaml.YAMLError as error:
        raise InputError([Problem((), f"YAML error: {error}")], Source(filename, {})) from None
    finally:
        loader.dispose()
    builder = _Builder()
    data = builder.build(node, ()) if node is not None else None
    source = Source(filename, builder.lines)
    if builder.problems:
        raise InputError(builder.problems, source)
    return data, source


class _Builder:
    """Turns a composed YAML node tree into dicts, lists and scalars, recording lines."""

    def __init__(self) -> None:
        self.lines: dict[Path, int] = {}
        self.problems: list[Problem] = []
        self.visited = 0
        self.constructor = yaml.SafeLoader("")

    def build(self, node: yaml.Node, path: Path) -> Any:
        self.visited += 1
        if self.visited > MAX_NODES:
            if self.visited == MAX_NODES + 1:
                self.problems.append(Problem(path, f"aliases expand to more than {MAX_NODES} values; "
                                                   "an intent never needs that many (alias bomb?)"))
            return None
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            if node.tag != f"{_TAG}seq":
                self.problems.append(Problem(path, f"the YAML tag {node.tag!r} is not allowed on a list"))
                return None
            return [self.build(item, (*path, index)) for index, item in enumerate(node.value)]
        return self._scalar(node, path)

    def _scalar(self, node: yaml.ScalarNode, path: Path) -> Any:
        if node.tag == f"{_TAG}timestamp":
            return node.value
        if node.tag not in _SCALAR_TAGS:
            self.problems.append(Problem(path, f"the YAML tag {node.tag!r} is not allowed; "
                                               "use plain strings, numbers, booleans, lists and mappings"))
            return None
        return self.constructor.yaml_constructors[node.tag](self.constructor, node)

    def _mapping(self, node: yaml.MappingNode, path: Path) -> dict[str, Any]:
        if node.tag != f"{_TAG}map":
            self.problems.append(Problem(path, f"the YAML tag {node.tag!r} is not allowed on a mapping"))
            return {}
        result: dict[str, Any] = {}
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                merged.update(self._merge_source(value_node, path))
                continue
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != f"{_TAG}str":
                self.problems.append(Problem(path, f"line {key_node.start_mark.line + 1}: keys must be plain "
                                                   "strings"))
                continue
            key = key_node.value
            child = (*path, key)
            if key in result:
                first = self.lines[child]
                self.problems.append(Problem(child, f"duplicate key {key!r} (first given on line {first}); "
                                                    "give each key once", line=key_node.start_mark.line + 1))
                continue
            self.lines[child] = key_node.start_mark.line + 1
            result[key] = self.build(value_node, child)
        return {**merged, **result}

    def _merge_source(self, node: yaml.Node, path: Path) -> dict[str, Any]:
        sources = node.value if isinstance(node, yaml.SequenceNode) else [node]
        merged: dict[str, Any] = {}
        for source in reversed(sources):
            value = self.build(source, path)
            if isinstance(value, dict):
                merged.update(value)
            else:
                self.problems.append(Problem(path, "a '<<' merge key needs a mapping (or a list of mappings)"))
        return merged

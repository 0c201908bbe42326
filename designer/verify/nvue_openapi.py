"""Prove NVUE startup files against NVIDIA's NVUE OpenAPI specification of the Cumulus Linux release they are
written for, as PyPI ``nvueschema`` (MIT) carries it: Pydantic models generated from the specification NVIDIA
publishes for each release, one module per release (``nvueschema.models.v5_18``), offline.

The models accept more than the specification does (they ignore unknown keys and do not check map keys), so
the check has two parts:

* every key of the ``set`` tree is one the schema has at that place (an object's property, or any text key of
  a map), and every key is text: JSON, in which NVUE's API takes the tree, has only text keys, and nvued's own
  ``nv config save`` writes numeric keys quoted (``'10':``);
* the tree, as JSON, validates against the release's model in strict mode: no value is coerced (the number
  ``4`` is not the text ``'4'`` an enum of texts asks for; the text ``'9216'`` is not an integer).

The YAML is read as YAML 1.2 reads it: ``on`` and ``off`` are text, as in NVIDIA's own startup.yaml examples of
the releases that spell them so (YAML 1.1 would read booleans). A problem names the line and the ``nv set``
path, with the schema's complaint and the value found.
"""

from __future__ import annotations

import importlib
import json
import re
import types
from collections.abc import Iterator
from functools import cache
from typing import Annotated, Any, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError

from designer.errors import PrerequisiteError

INSTALL = "pip install 'nvueschema>=0.1,<0.2'"
NvuePath = tuple[str, ...]


class Yaml12Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML's safe loader (libyaml's parser where PyYAML has it) with YAML 1.2's booleans: only ``true`` and
    ``false``, so ``on`` stays text."""


Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|false)$"), list("tf"))


def nvueschema_releases() -> tuple[str, ...]:
    """The Cumulus Linux releases nvueschema has a schema for, or :class:`PrerequisiteError` without it."""
    try:
        versions = importlib.import_module("nvueschema.models._versions")
    except ImportError:
        raise PrerequisiteError(
            f"checking NVUE files against NVIDIA's NVUE OpenAPI schema needs nvueschema: {INSTALL}"
        ) from None
    return tuple(versions.VERSIONS)


@cache
def schema(release: str) -> type:
    """The root model (``NvueConfig``) of the NVUE schema of Cumulus Linux ``release`` (one nvueschema has)."""
    if release not in nvueschema_releases():
        raise ValueError(f"nvueschema has no NVUE schema for Cumulus Linux {release}")
    model: type = importlib.import_module(f"nvueschema.models.v{release.replace('.', '_')}").NvueConfig
    return model


def problems(text: str, release: str) -> list[str]:
    """What NVIDIA's NVUE schema of ``release`` rejects in the startup.yaml ``text``, each ``line N: path: what``."""
    loader = Yaml12Loader(text)
    try:
        node = loader.get_single_node()
        document = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        return [f"line {mark.line + 1 if mark else 0}: not YAML: {getattr(error, 'problem', None) or error}"]
    finally:
        loader.dispose()
    lines = _key_lines(node)
    shape = "a list of one '- set:' tree (optionally after a '- header:')"
    if not isinstance(document, list) or not all(isinstance(item, dict) for item in document):
        return [f"line 1: not {shape}"]
    trees = [item["set"] for item in document if "set" in item]
    strays = [key for item in document for key in item if key not in ("set", "header")]
    if len(trees) != 1 or strays:
        return [f"line 1: not {shape}" + (f"; found {', '.join(map(str, strays))}" if strays else "")]
    model = schema(release)
    found = [(path, message) for path, message in _unknown_keys(trees[0], model, ())]
    found += _schema_errors(trees[0], model)
    return [f"line {lines.get(path, 0)}: {' '.join(path)}: {message}" for path, message in found]


def _key_lines(node: yaml.Node | None) -> dict[NvuePath, int]:
    """The line of every key under the ``set`` tree, by its ``nv set`` path."""
    lines: dict[NvuePath, int] = {}

    def walk(node: yaml.Node, path: NvuePath) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                lines[(*path, str(key.value))] = key.start_mark.line + 1
                walk(value, (*path, str(key.value)))

    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if isinstance(item, yaml.MappingNode):
                for key, value in item.value:
                    if key.value == "set":
                        walk(value, ())
    return lines


def _unknown_keys(node: Any, annotation: Any, path: NvuePath) -> Iterator[tuple[NvuePath, str]]:
    """Keys the schema has no place for under ``path`` (typed ``annotation``), and keys that are not text."""
    if not isinstance(node, dict):
        return
    model, values = _shapes(annotation)
    for key, child in node.items():
        here = (*path, str(key))
        if not isinstance(key, str):
            yield here, f"the key is the {type(key).__name__} {key!r}; NVUE's keys are text, write '{key}'"
        field = _fields(model).get(str(key)) if model is not None else None
        if field is not None:
            yield from _unknown_keys(child, field.annotation, here)
        elif values is not None:
            yield from _unknown_keys(child, values, here)
        elif model is not None:
            known = ", ".join(sorted(_fields(model)))
            yield here, f"not in NVIDIA's NVUE schema (here it has: {known})"


def _shapes(annotation: Any) -> tuple[Any, Any]:
    """The model class and the map value type (either None) that an annotation admits."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        return _shapes(args[0])
    if origin in (Union, types.UnionType):
        shapes = [_shapes(arg) for arg in args]
        return (
            next((model for model, _ in shapes if model is not None), None),
            next((values for _, values in shapes if values is not None), None),
        )
    if origin is dict:
        return None, args[1]
    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
        return annotation, None
    return None, None


@cache
def _fields(model: type[BaseModel]) -> dict[str, Any]:
    """A model's fields by the key NVUE writes (the alias where there is one)."""
    return {field.alias or name: field for name, field in model.model_fields.items()}


def _schema_errors(tree: dict[str, Any], model: Any) -> list[tuple[NvuePath, str]]:
    """The model's complaints about the tree as JSON, in strict mode (no coercion), one per path."""
    try:
        model.model_validate_json(json.dumps(tree), strict=True)
    except ValidationError as error:
        found: dict[NvuePath, str] = {}
        for item in error.errors(include_url=False):
            path = _data_path(tree, item["loc"])
            found.setdefault(path, f"{item['msg']} (found {json.dumps(item['input'])})")
        return list(found.items())
    return []


def _data_path(tree: Any, location: tuple[int | str, ...]) -> NvuePath:
    """The keys of ``tree`` along a Pydantic error location (which also names union members and tags)."""
    path: list[str] = []
    node = tree
    for part in location:
        key = next((key for key in node if str(key) == str(part)), None) if isinstance(node, dict) else None
        if key is not None:
            path.append(str(key))
            node = node[key]
    return tuple(path)

"""MkDocs hook: the intent reference page (``intent-reference.md``), generated at every build from what
``designer schema`` prints, so the page can never disagree with the loader."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

PAGE = "intent-reference.md"


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated page to the site's files."""
    files.append(File.generated(config, PAGE, content=reference_markdown(intent_schema())))
    return files


def intent_schema() -> dict[str, Any]:
    """The JSON Schema ``designer schema`` prints, from the ``designer`` beside this Python."""
    command = Path(sys.executable).parent / "designer"
    printed = subprocess.run([str(command), "schema"], check=True, capture_output=True, text=True).stdout
    schema: dict[str, Any] = json.loads(printed)
    return schema


def reference_markdown(schema: dict[str, Any]) -> str:
    """One section per top-level key of the intent, with a row for each field below it."""
    definitions = schema.get("$defs", {})
    lines = [
        "# Intent reference",
        "",
        "Every key an intent may hold, generated from `designer schema` (the JSON Schema the loader validates",
        "with; `intents/intent.schema.json` is the same text). Rules across fields (exactly one of `servers` and",
        "`gpus`, pools that do not overlap, sizes that fit) are not in the schema: `designer plan` checks them",
        "([The intent](intent.md)).",
        "",
        f"Required at the top: {', '.join(f'`{key}`' for key in schema.get('required', []))}.",
    ]
    for key, field in schema["properties"].items():
        lines += ["", f"## `{key}`", "", _text(field.get("description", ""))]
        rows = _rows(key, field, definitions) or [_row(key, field)]
        lines += ["", "| field | type | default | description |", "|---|---|---|---|", *rows]
    return "\n".join(lines) + "\n"


def _rows(path: str, field: dict[str, Any], definitions: dict[str, Any]) -> list[str]:
    """The table rows of every field below ``field`` (an object, or a list of objects: ``path[]``) at ``path``."""
    target = _object(field, definitions)
    if target is None:
        items = next((part["items"] for part in [field, *field.get("anyOf", [])] if "items" in part), None)
        return _rows(f"{path}[]", items, definitions) if items is not None else []
    rows: list[str] = []
    for name, child in target.get("properties", {}).items():
        rows += [_row(f"{path}.{name}", child), *_rows(f"{path}.{name}", child, definitions)]
    return rows


def _object(field: dict[str, Any], definitions: dict[str, Any]) -> dict[str, Any] | None:
    """The object schema ``field`` refers to (directly, or as one of its alternatives), if any."""
    for part in [field, *field.get("anyOf", []), *field.get("allOf", [])]:
        if "$ref" in part:
            resolved: dict[str, Any] = definitions[part["$ref"].split("/")[-1]]
            return resolved
        if part.get("type") == "object" and "properties" in part:
            return part
    return None


def _row(path: str, field: dict[str, Any]) -> str:
    default = f"`{json.dumps(field['default'])}`" if "default" in field else ""
    return f"| `{path}` | {_text(_type(field))} | {_text(default)} | {_text(field.get('description', ''))} |"


def _type(field: dict[str, Any]) -> str:
    """A field's type in a few words: its JSON type, allowed values, range or pattern."""
    if "$ref" in field:
        return "object"
    if "enum" in field:
        return " or ".join(f"`{json.dumps(value)}`" for value in field["enum"])
    if "const" in field:
        return f"`{json.dumps(field['const'])}`"
    if "anyOf" in field or "oneOf" in field:
        parts = [_type(part) for part in field.get("anyOf", field.get("oneOf", []))]
        return " or ".join(dict.fromkeys(part for part in parts if part))
    kind = field.get("type", "")
    if kind == "array":
        return f"list of {_type(field.get('items', {})) or 'values'}"
    bounds = [
        f"{sign} {field[key]}"
        for key, sign in (("exclusiveMinimum", ">"), ("minimum", ">="), ("exclusiveMaximum", "<"), ("maximum", "<="))
        if key in field
    ]
    if "pattern" in field:
        bounds.append(f"pattern `{field['pattern']}`")
    if "examples" in field:
        bounds.append("e.g. " + ", ".join(f"`{example}`" for example in field["examples"]))
    return f"{kind} ({', '.join(bounds)})" if bounds else str(kind)


def _text(description: str) -> str:
    """A description as one table cell: no line breaks, pipes and HTML's < escaped."""
    return " ".join(description.split()).replace("|", "\\|").replace("<", "&lt;")

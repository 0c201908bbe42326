"""The intent's JSON Schema: generated from the models, committed for editors, and as strict as the loader."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.test_intent_errors import run_cli

SCHEMA = ROOT / "intents" / "intent.schema.json"
INTENTS = sorted([*(ROOT / "intents").glob("*.yaml"), *(ROOT / "tests" / "intents").glob("*.yaml")])


def validator() -> Any:
    """A JSON Schema validator of the committed schema, as an editor's language server would use it."""
    import jsonschema

    return jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text()))


def test_the_committed_schema_is_what_designer_schema_prints() -> None:
    code, out, err = run_cli("schema")
    assert (code, err) == (0, "")
    assert out == SCHEMA.read_text(), (
        "intents/intent.schema.json is stale: run 'designer schema > intents/intent.schema.json' and commit it"
    )


def test_the_schema_is_valid_and_every_field_has_a_description() -> None:
    schema = json.loads(SCHEMA.read_text())
    validator().check_schema(schema)

    def fields(node: dict[str, Any], path: str) -> Iterator[tuple[str, dict[str, Any]]]:
        for name, field in node.get("properties", {}).items():
            yield f"{path}{name}", field
        for name, model in node.get("$defs", {}).items():
            yield from fields(model, f"{name}.")

    undescribed = [path for path, field in fields(schema, "") if not field.get("description")]
    assert undescribed == []
    assert all(model.get("additionalProperties") is False for model in schema["$defs"].values())


@pytest.mark.parametrize(
    "intent", [path for path in INTENTS if path.parent == ROOT / "intents"], ids=lambda path: path.name
)
def test_shipped_intents_name_the_schema_in_their_first_line(intent: Path) -> None:
    first = intent.read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=intent.schema.json"
    assert (intent.parent / first.split("=", 1)[1]).resolve() == SCHEMA


@pytest.mark.parametrize("intent", INTENTS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_shipped_and_test_intent_is_valid_against_the_schema(intent: Path) -> None:
    errors = [error.message for error in validator().iter_errors(yaml.safe_load(intent.read_text()))]
    assert errors == []


@pytest.mark.parametrize(
    ("case", "fragment"),
    [
        ("unknown_keys", "'spien' was unexpected"),
        ("wrong_types", "'many' is not valid"),
        ("absurd_size", "8000000 is not valid"),
    ],
)
def test_an_editor_flags_what_the_loader_refuses(case: str, fragment: str) -> None:
    data = yaml.safe_load((ROOT / "tests" / "errors" / f"{case}.yaml").read_text())
    assert any(fragment in error.message for error in validator().iter_errors(data))


def test_an_editor_flags_nic_names_linux_keeps_for_itself() -> None:
    data = yaml.safe_load((ROOT / "tests" / "errors" / "hosts_reserved.yaml").read_text())
    said = [inner.message for error in validator().iter_errors(data) for inner in error.context or ()]
    assert [message.split(" should")[0] for message in said if "should not be valid" in message] == [
        "'all'",
        "'default'",
        "'lo'",
        "'bonding_masters'",
    ]

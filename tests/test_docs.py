"""The README's first screen and the documentation site: the README's two commands stay true (the first's intent,
output folder and picture exist; the second's extras are pyproject's), every page is in the site's nav, the site
builds with ``mkdocs build --strict`` and its intent reference covers every key of ``designer schema``.
.ci/run also runs the README's first command as written, in a copy of the repository."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

from designer.intent.schema import json_schema
from designer.pipeline import validated_intent
from tests.conftest import ROOT
from tests.prerequisites import MKDOCS, needs

pytestmark = pytest.mark.meta

README = (ROOT / "README.md").read_text()
HOOK = ROOT / "docs_hooks" / "intent_reference.py"


def readme_commands() -> list[str]:
    blocks = re.findall(r"^```sh\n(.*?)^```$", README, flags=re.M | re.S)
    assert len(blocks) == 1, "the README shows one shell block: the two commands"
    return [line for line in blocks[0].splitlines() if line.strip()]


def test_the_readme_is_one_screen_with_exactly_two_commands_and_one_picture() -> None:
    assert len(README.splitlines()) <= 30
    assert len(readme_commands()) == 2
    assert len(re.findall(r"!\[[^\]]+\]\(([^)]+)\)", README)) == 1


def test_the_first_command_installs_designer_and_builds_the_shipped_example_into_its_committed_folder() -> None:
    command, _, comment = readme_commands()[0].partition("#")
    steps = [step.split() for step in command.split("&&")]
    assert steps[0] == ["python3", "-m", "venv", ".venv"]
    assert steps[1] == [".venv/bin/pip", "install", "."]  # the distribution pyproject names, from the clone
    assert steps[2][:2] == [".venv/bin/designer", "build"] and len(steps[2]) == 3
    intent = validated_intent(ROOT / steps[2][2])
    folder = f"outputs/{intent.name}/"
    assert comment.split() == ["writes", folder]
    assert (ROOT / folder / "manifest.json").is_file()
    (picture,) = re.findall(r"!\[[^\]]+\]\(([^)]+)\)", README)
    assert picture == f"{folder}topology.svg" and (ROOT / picture).is_file()


def test_the_second_command_installs_extras_pyproject_has_and_runs_the_tests() -> None:
    command, _, _ = readme_commands()[1].partition("#")
    steps = [step.split() for step in command.split("&&")]
    assert steps[0] == ["python3", "-m", "venv", ".venv"]
    assert steps[1][:3] == [".venv/bin/pip", "install", "-e"]
    extras = re.fullmatch(r"'\.\[([a-z,]+)\]'", steps[1][3])
    assert extras is not None
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert set(extras.group(1).split(",")) <= set(pyproject["project"]["optional-dependencies"])
    assert "test" in extras.group(1).split(",")
    assert steps[2] == [".venv/bin/python", "-m", "pytest"]
    assert pyproject["project"]["name"] in README  # the distribution's name, as the install line installs it


def test_every_link_of_the_readme_leads_to_a_file_of_the_repository() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    assert links and all((ROOT / link).is_file() for link in links), links


def nav_pages(nav: list[Any]) -> list[str]:
    pages: list[str] = []
    for entry in nav:
        for value in entry.values() if isinstance(entry, dict) else [entry]:
            pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_every_page_is_in_the_nav_and_every_nav_entry_is_a_page() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    pages = nav_pages(config["nav"])
    assert len(pages) == len(set(pages))
    written = {path.name for path in (ROOT / "docs").glob("*.md")}
    generated = {"intent-reference.md"}
    assert set(pages) == written | generated


def hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("intent_reference", HOOK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def schema_paths(schema: dict[str, Any], definitions: dict[str, Any], prefix: str = "") -> list[str]:
    """Every field's dotted path, ``[]`` for the items of a list of objects (read here from the schema itself)."""
    paths = []
    for name, field in schema.get("properties", {}).items():
        path = f"{prefix}{name}"
        paths.append(path)
        for part in [field, *field.get("anyOf", [])]:
            ref = part.get("$ref") or part.get("items", {}).get("$ref")
            if ref:
                below = "[]." if "items" in part else "."
                paths += schema_paths(definitions[ref.split("/")[-1]], definitions, path + below)
    return paths


def test_the_intent_reference_has_a_row_for_every_key_of_the_schema() -> None:
    schema = json_schema()
    page = hook().reference_markdown(schema)
    rows = set(re.findall(r"^\| `([^`]+)` \|", page, flags=re.M))
    headings = set(re.findall(r"^## `([^`]+)`$", page, flags=re.M))
    expected = schema_paths(schema, schema["$defs"])
    assert {"outputs.servers", "fabric.leaf.model", "workloads[].name", "target_options.nvue.release"} <= set(expected)
    missing = [path for path in expected if path not in rows and path not in headings]
    assert not missing
    assert "| `outputs.servers` | boolean | `true` |" in page


@needs(MKDOCS)
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    mkdocs = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    assert mkdocs is not None
    done = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    reference = (tmp_path / "site" / "intent-reference" / "index.html").read_text()
    assert "outputs.servers" in reference

"""One card per network OS (designer/targets/): the schema, the renderer, the build and the summary read it,
and no stage decides by an OS's name."""

from __future__ import annotations

import ast
import dataclasses
import importlib
import json
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from designer.catalog import catalog
from designer.files import shipped_templates
from designer.intent import parse_intent
from designer.outputs.build import review_files
from designer.pipeline import design
from designer.render.views import view_of
from designer.targets import NAMES, TARGETS, TECHNOLOGIES, per_switch
from tests.conftest import ROOT

INTENT = "name: t\ncompute: {servers: 8, server: dgx-h100}\nfabric: {leaf: {model: generic-64x400g}}\n"


def test_every_record_has_its_view_templates_and_catalog_entry() -> None:
    """A network OS has a template per switch and a catalog entry (what its configuration can express); a subnet
    manager has templates for the fabric as a whole instead, and no catalog entry."""
    for name, target in TARGETS.items():
        module = importlib.import_module(f"designer.render.{target.view}")
        assert callable(getattr(module, "View", None) or module.view), name
        assert callable(view_of(name)), name
        assert bool(target.template) != bool(target.fabric_files), name
        templates = (target.template, *(companion.template for companion in target.companions))
        for template in (*filter(None, templates), *(template for _, template in target.fabric_files)):
            assert (shipped_templates() / template).is_file(), template
        if target.template:
            assert catalog().targets[name].name == name
        assert all(needed in TARGETS for needed, _ in target.needs)
        assert target.technology in TECHNOLOGIES
    assert set(catalog().targets) == set(per_switch(NAMES))


def test_the_intent_offers_exactly_the_registered_targets_and_defaults_to_its_technologys() -> None:
    schema = json.loads((ROOT / "intents" / "intent.schema.json").read_text())
    assert tuple(schema["properties"]["targets"]["anyOf"][0]["items"]["enum"]) == NAMES
    assert parse_intent(INTENT).targets == ("sonic", "frr", "eos", "nvue")
    assert parse_intent(INTENT).subnet_managers == ()


def test_a_build_of_an_intent_without_targets_says_which_it_took(tmp_path: Path) -> None:
    """The default cards are a choice the intent did not write down: the build names them; an intent that names its
    targets is not told."""
    from tests.test_intent_errors import run_cli

    (tmp_path / "default.yaml").write_text(INTENT)
    (tmp_path / "named.yaml").write_text(INTENT + "targets: [frr]\n")
    code, out, _ = run_cli("build", str(tmp_path / "default.yaml"), "-o", str(tmp_path / "default"))
    assert code == 0 and "\ntargets: sonic, frr, eos, nvue (the defaults: the intent names no targets)\n" in out
    code, out, _ = run_cli("build", str(tmp_path / "named.yaml"), "-o", str(tmp_path / "named"))
    assert code == 0 and "\ntargets: " not in out


def test_a_target_that_needs_another_says_why() -> None:
    """SONiC runs BGP from the FRR file beside its config_db.json (split-unified mode)."""
    from designer.errors import InputError

    try:
        parse_intent(INTENT + "targets: [sonic, eos]\n")
    except InputError as error:
        assert "targets[0]: sonic runs BGP from the FRR configuration" in str(error)
        assert "add frr to targets" in str(error)
    else:
        raise AssertionError("sonic without frr was accepted")


def test_the_lab_and_the_companions_follow_the_records() -> None:
    """lab/ is written for a target whose files run the FRR lab, and summary.md lists each listed target's
    companion files."""
    for targets, lab in (("[eos]", False), ("[frr]", True)):
        built = design(parse_intent(INTENT + f"targets: {targets}\n"), hosts=False)
        files = dict(review_files(built, lambda _: None))
        assert any(path.startswith("lab/") for path in files) == lab
        assert ("configs/sysctl/<hostname>.conf" in files["summary.md"].decode()) == lab


def test_no_stage_decides_by_an_os_name() -> None:
    """Membership tests on an OS name (``"frr" in targets``) belong in the target's record: only the records,
    the views, the lab (which runs FRR) and the parsers of validate-configs name an OS."""
    allowed = {"targets", "render", "verify"}
    pattern = re.compile(r"""["'](sonic|frr|eos|nvue)["']\s+(not\s+)?in\b""")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "designer").rglob("*.py"))
        if path.relative_to(ROOT / "designer").parts[0] not in allowed
        for number, line in enumerate(Path(path).read_text().splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []


def test_each_record_names_its_check_and_options_and_the_schema_and_validate_configs_read_them() -> None:
    """validate-configs checks a configs/ folder with the function its record names, and target_options has a
    section exactly for the records that name an options model."""
    from designer.intent import target_options_section as schema
    from designer.targets import validators
    from designer.verify import parsers

    for folder, validator in validators().items():
        assert callable(getattr(parsers, validator)), (folder, validator)
    assert set(validators()) == {*NAMES, "sysctl", "sonic-frr"}
    with_options = {name: target.options for name, target in TARGETS.items() if target.options}
    assert set(schema.TargetOptionsDoc.model_fields) == set(with_options)
    for name, model in with_options.items():
        assert schema.TargetOptionsDoc.model_fields[name].annotation is getattr(schema, model)
    assert all(catalog().targets[name].label == target.label for name, target in TARGETS.items() if target.template)


def test_an_os_is_named_only_by_its_record_view_check_and_options() -> None:
    """Adding a target means adding its card, view, templates and, if it has them, its check and options model: an
    OS's name as a string appears nowhere else in the package. Beside the cards, views and checks, only the options
    models of the intent's schema and their cross-field rules name one, and the catalog reads its switches' SONiC
    device facts by that section's name."""
    allowed_folders = {"targets", "render", "verify", "export"}  # export: Arista's AVD and ANTA take EOS
    allowed_lines = {
        ("intent/target_options_section.py", "nvue"),
        ("intent/configs.py", "sonic"),
        ("catalog.py", "sonic"),
        ("intent/starter.py", "frr"),  # the starter's one target: the one designer verify runs
        ("audit/readers.py", "eos"),  # the format of EOS's 'show lldp neighbors | json'
    }
    pattern = re.compile(r"""["'](sonic|frr|eos|nvue)["']""")
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted((ROOT / "designer").rglob("*.py"))
        if path.relative_to(ROOT / "designer").parts[0] not in allowed_folders
        for number, line in enumerate(Path(path).read_text().splitlines(), 1)
        for match in pattern.finditer(line)
        if (str(path.relative_to(ROOT / "designer")), match.group(1)) not in allowed_lines
    ]
    assert found == []


def test_each_records_loopback_is_the_one_its_configuration_names() -> None:
    """The loopback name a record gives (what a source of truth is told) is the interface its golden
    configuration puts the router's /32 on."""
    golden = ROOT / "tests" / "golden" / "small-2tier"
    for name in per_switch(NAMES):
        target = TARGETS[name]
        (config,) = sorted((golden / name).glob("p0-spine0.*"))
        text = config.read_text()
        assert re.search(rf"(interface |\"|^\s+){re.escape(target.loopback)}\b", text, re.M), (name, target.loopback)


def _layers() -> dict[str, int]:
    """Each package and top-level module of designer/ with its layer, as docs/code-layout.md draws them."""
    text = (ROOT / "docs" / "code-layout.md").read_text()
    table = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    layers = {}
    for number, names in re.findall(r"^\| (\d+) \| (.+) \|$", table, re.MULTILINE):
        for name in re.findall(r"`([\w.]+?)(?:\.py|/)`", names):
            layers[name] = int(number)
    return layers


def _unit(module: str) -> str:
    """The package or top-level module of designer/ that a dotted module name belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(source: str) -> set[str]:
    """Every designer module a file imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "designer":
                found |= {f"designer.{alias.name}" for alias in node.names}
            elif node.module.startswith("designer."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("designer.")}
    return found


def _upward(layers: dict[str, int], sources: dict[str, str]) -> list[str]:
    """The imports of ``sources`` (path under the repository: text) that do not run to a lower layer."""
    wrong = []
    for name, source in sorted(sources.items()):
        unit = _unit(".".join(Path(name).with_suffix("").parts))
        for imported in sorted(_imports(source)):
            first = imported.removeprefix("designer.").split(".")[0]
            target = first if first in layers else "__init__"  # from designer import __version__: the package's face
            if target != unit and layers.get(target, 0) >= layers[unit]:
                wrong.append(f"{name} imports {imported} (layer {layers.get(target)}, not below {layers[unit]})")
    return wrong


def test_each_layer_imports_only_the_layers_below_it() -> None:
    """The layers of docs/code-layout.md hold: a package or top-level module imports only those of a lower layer
    (or itself), and every one of them has a layer; the top level holds at most 12 modules (the CLI, the pipeline
    and its records, the registries, errors and files), the stages are in packages."""
    layers = _layers()
    package = ROOT / "designer"
    assert len(list(package.glob("*.py"))) <= 12
    units = {path.stem for path in package.glob("*.py")} | {path.parent.name for path in package.glob("*/__init__.py")}
    assert units == set(layers), "every package and module of designer/ has a layer in docs/code-layout.md"
    sources = {path.relative_to(ROOT).as_posix(): path.read_text() for path in package.rglob("*.py")}
    assert _upward(layers, sources) == []


def test_the_layer_rule_refuses_an_import_upward_or_sideways() -> None:
    """A stage importing the pipeline, or a package importing one of its own layer, is named; importing a lower
    layer, its own package or the Python API from above is not."""
    layers = _layers()
    sources = {
        "designer/backend/wiring.py": "from designer.pipeline import design\nfrom designer.intent import Intent\n",
        "designer/backend/model.py": "from designer import __version__\n",
        "designer/networks/sizing.py": "def f():\n    from designer.analysis.facts import Facts\n",
        "designer/outputs/summary.py": "from designer import __version__\nfrom designer.outputs import tables\n",
        "designer/validation.py": "import designer.render.views\n",
    }
    assert _upward(layers, sources) == [
        "designer/backend/model.py imports designer.__version__ (layer 9, not below 4)",
        "designer/backend/wiring.py imports designer.pipeline (layer 8, not below 4)",
        "designer/networks/sizing.py imports designer.analysis.facts (layer 5, not below 5)",
        "designer/validation.py imports designer.render.views (layer 6, not below 6)",
    ]


def _models_inside(value: object, path: str, seen: set[int]) -> list[str]:
    """Where a pydantic model sits inside ``value`` (a record, or what a record holds)."""
    if id(value) in seen:
        return []
    seen.add(id(value))
    if isinstance(value, BaseModel):
        return [path]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        items: Iterable[tuple[str, object]] = (
            (f".{f.name}", getattr(value, f.name)) for f in dataclasses.fields(value)
        )
    elif isinstance(value, tuple | list | set | frozenset):
        items = ((f"[{index}]", item) for index, item in enumerate(value))
    elif isinstance(value, dict):
        items = ((f"[{key!r}]", item) for key, item in value.items())
    else:
        return []
    return [found for step, item in items for found in _models_inside(item, path + step, seen)]


def test_the_resolved_intent_is_records_all_the_way_down() -> None:
    """The stages read frozen records, not the input schema: no pydantic model anywhere in a resolved intent (the
    shipped ones, and one with every optional record: BFD, timers, partitions, outputs), and no stage past the
    intent imports pydantic (explore varies the schema's fields; verify reads NVIDIA's OpenAPI)."""
    written = [path.read_text() for path in sorted((ROOT / "intents").glob("*.yaml"))]
    every = (
        "name: t\ncompute: {servers: 8, server: dgx-h100}\n"
        "fabric: {technology: infiniband, leaf: {model: nvidia-qm9700}}\n"
        "targets: [opensm]\ntarget_options: {opensm: {partitions: [{name: tenant, pkey: 0x10}]}}\n"
        "outputs: {servers: false}\nchecks: {failure_max_gpus: 8}\n"
    )
    for text in (*written, every, INTENT + "routing: {bfd: {enabled: true}, timers: {keepalive: 1, hold: 3}}\n"):
        intent = parse_intent(text)
        assert _models_inside(intent, "intent", set()) == [], intent.name
    assert parse_intent(every).target_options.opensm.partitions[0].pkey == 0x10
    allowed = {"designer/intent", "designer/explore/run.py", "designer/verify/nvue_openapi.py"}
    importing = sorted(
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "designer").rglob("*.py")
        if re.search(r"^\s*(from|import) pydantic\b", path.read_text(), re.M)
    )
    assert [path for path in importing if not any(path.startswith(prefix) for prefix in allowed)] == []


def test_each_record_takes_every_field_of_its_section() -> None:
    """A resolved section record has exactly the fields of the section it is made from, so a field added to the
    schema cannot be dropped on the way to the stages; target_options has a record for each card with options."""
    from designer.intent import checks_section, configs, outputs_section, routing_section
    from designer.intent import target_options_section as options

    pairs = [
        (routing_section.AddressPools, routing_section.AddressingDoc),
        (routing_section.RoutingSpec, routing_section.RoutingDoc),
        (routing_section.Bfd, routing_section.BfdDoc),
        (routing_section.BgpTimers, routing_section.TimersDoc),
        (configs.BalancingSpec, configs.LoadBalancingDoc),
        (checks_section.CheckLimits, checks_section.ChecksDoc),
        (outputs_section.OutputChoices, outputs_section.OutputsDoc),
        (options.SonicOptions, options.SonicOptionsDoc),
        (options.NvueOptions, options.NvueOptionsDoc),
        (options.OpensmOptions, options.OpensmOptionsDoc),
        (options.Partition, options.PartitionDoc),
        (options.TargetOptions, options.TargetOptionsDoc),
    ]
    for record, section in pairs:
        assert [field.name for field in dataclasses.fields(record)] == list(section.model_fields), record
    assert {field.name for field in dataclasses.fields(options.TargetOptions)} == {
        name for name, target in TARGETS.items() if target.options
    }


def test_one_name_for_one_thing() -> None:
    """No two modules of designer/ share a file name unless they are the same step of the two parallel pipelines
    (backend/ and networks/) or the run and report of a command (audit/, explore/, verify/); the switch tiers and the
    link tiers each have one home, and no module defines a bare ``TIERS``."""
    pipelines, commands = {"backend", "networks"}, {"audit", "explore", "verify"}
    steps = {name: pipelines for name in ("sizing.py", "wiring.py", "allocate.py", "model.py", "hosts.py")}
    steps |= {"run.py": commands, "report.py": commands}
    by_name: dict[str, list[str]] = {}
    for path in sorted((ROOT / "designer").rglob("*.py")):
        by_name.setdefault(path.name, []).append(path.relative_to(ROOT / "designer").as_posix())
    shared = {
        name: paths
        for name, paths in by_name.items()
        if len(paths) > 1 and name != "__init__.py" and {path.split("/")[0] for path in paths} != steps.get(name)
    }
    assert shared == {}
    assert by_name["physical.py"] == ["networks/physical.py"]  # the backend's physical step is a package
    spelled = {
        '("leaf", "spine", "super_spine")': "intent/switch_spec.py",
        '("server_leaf", "leaf_spine", "spine_super_spine")': "backend/wiring.py",
    }
    for literal, home in spelled.items():
        found = [
            path for paths in by_name.values() for path in paths if literal in (ROOT / "designer" / path).read_text()
        ]
        assert found == [home], literal
    bare = [
        path
        for paths in by_name.values()
        for path in paths
        if re.search(r"^TIERS\b", (ROOT / "designer" / path).read_text(), re.MULTILINE)
    ]
    assert bare == []


LONG_FUNCTIONS_ALLOWED = {
    "tests/test_nvue.py": {"C901"},
    "tests/test_render.py": {"C901"},
    "tests/test_sync.py": {"C901", "PLR0915"},
}
"""The files pyproject.toml lets past ruff's C901 and PLR0915, and which of the two: the list may only shrink."""


def test_functions_stay_short_and_the_ignore_list_only_shrinks() -> None:
    """A function of designer/ builds one part of its result (as pyavd builds a structured config one key at a
    time): none over 100 lines, at most 15 over 60; ruff's C901 and PLR0915 are on, and a file they skip is one of
    :data:`LONG_FUNCTIONS_ALLOWED`."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]
    assert {"C901", "PLR0915"} <= set(config["select"])
    skipped = {
        path: set(rules) & {"C901", "PLR0915"}
        for path, rules in config.get("per-file-ignores", {}).items()
        if set(rules) & {"C901", "PLR0915"}
    }
    assert all(
        path in LONG_FUNCTIONS_ALLOWED and rules <= LONG_FUNCTIONS_ALLOWED[path] for path, rules in skipped.items()
    )
    lengths = [
        (node.end_lineno - node.lineno + 1, f"{path.relative_to(ROOT)}:{node.name}")
        for path in sorted((ROOT / "designer").rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.end_lineno is not None
    ]
    assert [name for length, name in lengths if length > 100] == []
    assert len([name for length, name in lengths if length > 60]) <= 15

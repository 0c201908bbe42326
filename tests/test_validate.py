"""The real parsers as proof: SONiC's YANG models reject a broken config_db.json naming its table, FRR's
vtysh rejects a broken frr.conf at its line, NVIDIA's NVUE schema a broken startup.yaml at its line and path, and
``designer validate-configs`` runs them over a build."""

from __future__ import annotations

import copy
import importlib.util
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from designer.cli import main
from designer.files import sonic_yang_models
from designer.render import render_configs
from designer.verify.parsers import (
    NVUE,
    YANG_ENV,
    ConfigDbError,
    SonicYang,
    _located,
    check_config_db,
    check_config_dbs,
    check_frr,
    check_nvue,
    default_yang_dir,
    validate_output,
)
from tests.conftest import ROOT
from tests.prerequisites import LIBYANG, NVUESCHEMA, VALIDATORS, VTYSH, needs
from tests.test_sonic import INTENTS, small, sonic_yang

LEAF = "p0-su0-r0-leaf"
Mutation = Callable[[dict[str, Any]], None]


def _set(table: str, key: str, field: str, value: str) -> Mutation:
    def mutate(config: dict[str, Any]) -> None:
        config[table][key][field] = value

    return mutate


def _add(table: str, key: str, fields: dict[str, str]) -> Mutation:
    def mutate(config: dict[str, Any]) -> None:
        config.setdefault(table, {})[key] = fields

    return mutate


def _interface_on_a_missing_port(config: dict[str, Any]) -> None:
    config["INTERFACE"]["Ethernet996"] = {}
    config["INTERFACE"]["Ethernet996|10.9.9.0/31"] = {}


MUTATIONS: dict[str, tuple[Mutation, str, str, str, str]] = {
    # name: (mutation, table, key, field, fragment of libyang's message)
    "interface on a port not in PORT": (
        _interface_on_a_missing_port,
        "INTERFACE",
        "Ethernet996|10.9.9.0/31",
        "name",
        "leafref",
    ),
    "MTU above 9216": (_set("PORT", "Ethernet0", "mtu", "9217"), "PORT", "Ethernet0", "mtu", "range"),
    "unknown ECN mode": (
        _set("WRED_PROFILE", "ROCE_ECN", "ecn", "ecn_sometimes"),
        "WRED_PROFILE",
        "ROCE_ECN",
        "ecn",
        "enumeration",
    ),
    "unknown scheduler type": (
        _set("SCHEDULER", "STRICT_CNP", "type", "FAST"),
        "SCHEDULER",
        "STRICT_CNP",
        "type",
        "enumeration",
    ),
    "QoS map that does not exist": (
        _set("PORT_QOS_MAP", "Ethernet0", "dscp_to_tc_map", "NOPE"),
        "PORT_QOS_MAP",
        "Ethernet0",
        "dscp_to_tc_map",
        "leafref",
    ),
    "ECN max below min": (
        _set("WRED_PROFILE", "ROCE_ECN", "green_max_threshold", "1024"),
        "WRED_PROFILE",
        "ROCE_ECN",
        "green_max_threshold",
        "greater than or equal",
    ),
    "PFC on priority 8": (
        _set("PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,8"),
        "PORT_QOS_MAP",
        "Ethernet0",
        "pfc_enable",
        "pattern",
    ),
    "traffic class 16": (
        _set("DSCP_TO_TC_MAP", "ROCE", "26", "16"),
        "DSCP_TO_TC_MAP",
        "ROCE",
        "26",
        "Invalid Traffic Class",
    ),
    "watchdog faster than SONiC allows": (
        _set("PFC_WD", "Ethernet0", "detection_time", "50"),
        "PFC_WD",
        "Ethernet0",
        "detection_time",
        "range",
    ),
    "buffer profile in no pool": (
        _set("BUFFER_PROFILE", "ingress_lossy_profile", "pool", "nowhere"),
        "BUFFER_PROFILE",
        "ingress_lossy_profile",
        "pool",
        "leafref",
    ),
    "neighbor that is not an address": (
        _add("BGP_NEIGHBOR", "spine0", {"asn": "65000"}),
        "BGP_NEIGHBOR",
        "",
        "neighbor",
        'Invalid union value "spine0"',
    ),
    "field SONiC does not know": (_set("PORT", "Ethernet0", "speeed", "400000"), "PORT", "Ethernet0", "", "speeed"),
    "key with too many parts": (
        _add("INTERFACE", "Ethernet0|10.0.0.1/31|extra", {}),
        "INTERFACE",
        "Ethernet0|10.0.0.1/31|extra",
        "",
        "name or name|ip-prefix",
    ),
    "table without a model": (_add("ROCE_MAGIC", "x", {}), "ROCE_MAGIC", "", "", "no SONiC YANG model"),
}


NEEDED_BY_FIXTURE = {"yang": (LIBYANG,), "frr_files": (VTYSH,)}


@pytest.fixture(scope="module")
def yang() -> SonicYang:
    return sonic_yang()


@pytest.fixture(autouse=True)
def _models_of_this_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    """validate-configs reads $DESIGNER_SONIC_YANG first; these tests use the models in the repository."""
    monkeypatch.delenv(YANG_ENV, raising=False)


def test_the_sonic_yang_models_ship_in_the_package_with_their_license_and_source() -> None:
    models = default_yang_dir()
    assert models == sonic_yang_models() and models.is_relative_to(ROOT / "designer")
    assert len(list(models.glob("sonic-*.yang"))) == 146
    assert "Apache License, Version 2.0" in (models / "LICENSE").read_text()
    assert "github.com/sonic-net/sonic-buildimage" in (models / "README.md").read_text()


def leaf_config() -> dict[str, Any]:
    return copy.deepcopy(small("small-2tier")[1][LEAF])


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_a_mutated_config_db_fails_naming_table_key_and_field(yang: SonicYang, name: str) -> None:
    mutate, table, key, field, fragment = MUTATIONS[name]
    config = leaf_config()
    yang.check(config)
    mutate(config)
    with pytest.raises(ConfigDbError) as raised:
        yang.check(config)
    error = raised.value
    assert (error.table, error.key, error.field) == (table, key, field), str(error)
    assert fragment in error.message, str(error)


def test_a_file_verdict_points_at_the_line(yang: SonicYang, tmp_path: Path) -> None:
    path = tmp_path / f"{LEAF}.json"
    text = json.dumps(leaf_config(), indent=2)
    path.write_text(text)
    assert check_config_db(yang, path, path.name).ok
    # Only PORT has an mtu field, so the first one in the file is the first port's.
    line = next(number for number, row in enumerate(text.splitlines(), 1) if '"mtu": "9216"' in row)
    path.write_text(text.replace('"mtu": "9216"', '"mtu": "9999"', 1))
    verdict = check_config_db(yang, path, path.name)
    assert not verdict.ok and verdict.error.startswith(f"line {line}: PORT|Ethernet0 mtu: "), verdict.error
    path.write_text(text[:-3])
    assert "not JSON" in check_config_db(yang, path, path.name).error


@pytest.mark.parametrize(
    ("location", "where"),
    [
        (
            """/sonic-port:sonic-port/PORT/PORT_LIST[name='Ethernet8']/mtu", line number 1.""",
            ("PORT", "Ethernet8", "mtu"),
        ),
        (
            """/sonic-interface:sonic-interface/INTERFACE/INTERFACE_IPPREFIX_LIST[name='Ethernet0'][ip-prefix='10.0.0.0/31']\
/family\"""",
            ("INTERFACE", "Ethernet0|10.0.0.0/31", "family"),
        ),
        (
            """/sonic-device_metadata:sonic-device_metadata/DEVICE_METADATA/localhost/hostname\"""",
            ("DEVICE_METADATA", "localhost", "hostname"),
        ),
        (
            """/sonic-dscp-tc-map:sonic-dscp-tc-map/DSCP_TO_TC_MAP/DSCP_TO_TC_MAP_LIST[name='ROCE']/DSCP_TO_TC_MAP\
[dscp='26']/tc\"""",
            ("DSCP_TO_TC_MAP", "ROCE", "26"),
        ),
    ],
)
def test_libyang_data_paths_map_back_to_config_db_names(location: str, where: tuple[str, str, str]) -> None:
    error = _located(f'failed to parse data tree: Something is wrong.: Data location "{location}')
    assert (error.table, error.key, error.field, error.message) == (*where, "Something is wrong")
    assert str(_located("failed to parse data tree: No location.")) == "No location"


@pytest.fixture(scope="module")
def frr_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("frr")
    paths = []
    for name in INTENTS:
        design = small(name)[0]
        for relative, data in render_configs(design.configs, ["frr"]).items():
            if not relative.startswith("configs/frr/"):
                continue  # the routers' kernel settings (configs/sysctl/) are no vtysh input
            path = folder / name / Path(relative).name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            paths.append(path)
    return paths


def test_every_generated_frr_conf_passes_vtysh(frr_files: list[Path]) -> None:
    verdicts = check_frr((path, str(path)) for path in frr_files)
    assert len(verdicts) == len(frr_files) >= 26
    assert [verdict.error for verdict in verdicts if not verdict.ok] == []


def test_a_broken_frr_conf_fails_at_its_line(frr_files: list[Path], tmp_path: Path) -> None:
    lines = frr_files[0].read_text().splitlines()
    router = next(number for number, line in enumerate(lines) if line.startswith("router bgp"))
    lines.insert(router + 1, " bgp bestpath as-path multipath-relaxed-typo")
    broken = tmp_path / "broken.conf"
    broken.write_text("\n".join(lines) + "\n")
    (verdict,) = check_frr([(broken, "broken.conf")])
    assert not verdict.ok
    assert verdict.error.startswith(f"line {router + 2}: % Unknown command"), verdict.error
    assert "multipath-relaxed-typo" in verdict.error


def build_output(tmp_path: Path) -> Path:
    output = tmp_path / "out"
    assert main(["build", str(ROOT / "tests" / "intents" / "small-2tier.yaml"), "-o", str(output)]) == 0
    return output


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/intents/small-2tier.yaml built once by the command line (read as is, or copied to be changed)."""
    return build_output(tmp_path_factory.mktemp("validate"))


def copy_of(built: Path, tmp_path: Path) -> Path:
    """A copy of the build at ``tmp_path/out``, to change."""
    output = tmp_path / "out"
    shutil.copytree(built, output)
    return output


@needs(*VALIDATORS)
def test_validate_configs_passes_a_build_and_fails_a_tampered_one(
    yang: SonicYang, tmp_path: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    output = copy_of(built, tmp_path)
    design = small("small-2tier")[0]
    capsys.readouterr()
    assert main(["validate-configs", str(output)]) == 0
    report = capsys.readouterr().out
    switches = len(design.fabric.switches())
    assert f"sonic-yang: {switches} of {switches} files valid" in report
    assert f"vtysh: {switches} of {switches} files valid" in report
    if importlib.util.find_spec("pyavd") is None:  # EOS files are compared whenever pyavd is there (test_avd.py)
        assert f"not checked: {switches} eos files (pyavd is not installed;" in report
    else:
        assert f"pyavd: {switches} of {switches} files valid" in report

    sonic = output / "configs" / "sonic" / f"{LEAF}.json"
    original = sonic.read_text()
    sonic.write_text(original.replace('"mtu": "9216"', '"mtu": "65000"', 1))
    assert main(["validate-configs", str(output)]) == 1
    assert f"INVALID configs/sonic/{LEAF}.json (sonic-yang): line " in capsys.readouterr().out
    sonic.write_text(original)

    frr = output / "configs" / "frr" / f"{LEAF}.conf"
    frr.write_text(frr.read_text() + "router bgp not-a-number\n")
    assert main(["validate-configs", str(output)]) == 1
    assert f"INVALID configs/frr/{LEAF}.conf (vtysh): line " in capsys.readouterr().out


@needs(*VALIDATORS)
def test_validate_configs_says_what_to_install_when_a_parser_is_missing(
    yang: SonicYang, tmp_path: Path, built: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    output = copy_of(built, tmp_path)
    capsys.readouterr()
    assert main(["validate-configs", str(output), "--yang-dir", str(tmp_path)]) == 2
    assert "no SONiC YANG models (*.yang) in" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path))  # no vtysh on the path
    assert main(["validate-configs", str(output)]) == 2
    captured = capsys.readouterr()
    assert "apt-get install frr libyang2-dev && pip install libyang==2.8.0" in captured.err
    switches = len(small("small-2tier")[0].fabric.switches())
    assert f"sonic-yang: {switches} of {switches} files valid" in captured.out  # the parser that is there ran
    assert main(["validate-configs", str(tmp_path)]) == 2
    assert "has no configs/ folder" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "libyang", None)  # the binding is not installed
    assert main(["validate-configs", str(output)]) == 2
    err = capsys.readouterr().err
    assert "SONiC config_db.json needs the libyang binding: apt-get install frr libyang2-dev" in err


def test_leaf_lists_and_booleans_take_sonic_config_db_spelling(yang: SonicYang) -> None:
    config = leaf_config()
    config["PORT"]["Ethernet0"]["adv_speeds"] = "400000,200000"  # a leaf-list, comma-separated in config_db
    config["PORT"]["Ethernet0"]["fast_linkup"] = "true"  # a YANG boolean, text in config_db
    yang.check(config)
    document = yang.to_yang(config)["sonic-port:sonic-port"]["PORT"]["PORT_LIST"][0]
    assert (document["adv_speeds"], document["fast_linkup"], document["mtu"]) == ([400000, 200000], True, 9216)
    config["PORT"]["Ethernet0"]["adv_speeds"] = "all,400000"
    with pytest.raises(ConfigDbError) as raised:
        yang.check(config)
    assert (raised.value.table, raised.value.key) == ("PORT", "Ethernet0")
    config["PORT"]["Ethernet0"]["adv_speeds"] = {"not": "a list"}
    with pytest.raises(ConfigDbError, match="expected a list or a comma-separated string"):
        yang.check(config)


@needs(*VALIDATORS)
def test_yang_dir_option_wins_over_the_environment(
    yang: SonicYang, tmp_path: Path, built: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    output = copy_of(built, tmp_path)
    models = sonic_yang_models()
    monkeypatch.setenv(YANG_ENV, str(tmp_path / "nowhere"))
    assert default_yang_dir() == tmp_path / "nowhere"
    assert main(["validate-configs", str(output)]) == 2
    assert f"no SONiC YANG models (*.yang) in {tmp_path / 'nowhere'}" in capsys.readouterr().err
    assert main(["validate-configs", str(output), "--yang-dir", str(models)]) == 0


def test_config_dbs_checked_in_worker_processes_give_the_same_verdicts(yang: SonicYang, tmp_path: Path) -> None:
    paths = []
    for hostname, config in small("small-3tier")[1].items():
        path = tmp_path / f"{hostname}.json"
        path.write_text(json.dumps(config, indent=2))
        paths.append((path, path.name))
    broken = paths[3][0]
    broken.write_text(broken.read_text().replace('"mtu": "9216"', '"mtu": "9217"'))
    serial = check_config_dbs(paths, sonic_yang_models(), workers=1)
    assert check_config_dbs(paths, sonic_yang_models(), workers=2) == serial
    assert [verdict.path for verdict in serial if not verdict.ok] == [broken.name]


@needs(*VALIDATORS)
def test_validate_configs_checks_nvue_files_against_nvidias_schema_of_their_release(
    tmp_path: Path, built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every NVUE file of a build passes NVIDIA's NVUE OpenAPI schema of the release the folder's intent names
    (5.18 by default; PyPI nvueschema's models of it); a value of the wrong type and a key the schema does not
    have fail the file (exit 1), each named by line and ``nv set`` path."""
    output = copy_of(built, tmp_path)
    switches = len(small("small-2tier")[0].fabric.switches())
    report = validate_output(output)
    checked = [verdict for verdict in report.verdicts if verdict.parser == NVUE]
    assert len(checked) == switches and all(verdict.ok for verdict in checked), report.text()
    assert f"nvue-openapi: {switches} of {switches} files valid" in report.text()
    assert "nvue" not in report.unchecked

    leaf, spine = output / "configs" / "nvue" / f"{LEAF}.yaml", output / "configs" / "nvue" / "p0-spine0.yaml"
    leaf_lines, spine_lines = leaf.read_text().splitlines(), spine.read_text().splitlines()
    mtu = next(number for number, line in enumerate(leaf_lines, 1) if line.strip() == "mtu: 9216")
    leaf_lines[mtu - 1] = leaf_lines[mtu - 1].replace("9216", "'9216'")
    leaf.write_text("\n".join(leaf_lines) + "\n")
    speed = next(number for number, line in enumerate(spine_lines, 1) if line.strip().startswith("speed:"))
    spine_lines[speed - 1] = spine_lines[speed - 1].replace("speed:", "sped:")
    spine.write_text("\n".join(spine_lines) + "\n")
    capsys.readouterr()
    assert main(["validate-configs", str(output)]) == 1
    out = capsys.readouterr().out
    assert (
        f"INVALID configs/nvue/{LEAF}.yaml (nvue-openapi): line {mtu}: interface swp1s0 link mtu: Input should "
        'be a valid integer (found "9216")'
    ) in out, out
    assert (
        f"INVALID configs/nvue/p0-spine0.yaml (nvue-openapi): line {speed}: interface swp1 link sped: not in "
        "NVIDIA's NVUE schema (here it has: "
    ) in out, out
    assert f"nvue-openapi: {switches - 2} of {switches} files valid" in out


@needs(*VALIDATORS)
def test_validate_configs_says_what_to_install_for_nvue_and_which_releases_have_no_schema(
    tmp_path: Path, built: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without nvueschema the NVUE files are a missing prerequisite (exit 2 with the install line), as without
    libyang or vtysh; a release nvueschema 0.1.0 has no schema for (5.19) leaves them counted as not checked."""
    output = copy_of(built, tmp_path)
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "nvueschema", None)
    monkeypatch.setitem(sys.modules, "nvueschema.models", None)
    monkeypatch.setitem(sys.modules, "nvueschema.models._versions", None)
    assert main(["validate-configs", str(output)]) == 2
    assert (
        "checking NVUE files against NVIDIA's NVUE OpenAPI schema needs nvueschema: pip install 'nvueschema>=0.1,<0.2'"
    ) in capsys.readouterr().err
    monkeypatch.undo()
    intent = tmp_path / "intent.yaml"
    intent.write_text(
        (ROOT / "tests" / "intents" / "small-2tier.yaml").read_text()
        + 'targets: [nvue]\ntarget_options: {nvue: {release: "5.19"}}\n'
    )
    assert main(["build", str(intent), "-o", str(tmp_path / "out519")]) == 0
    report = validate_output(tmp_path / "out519")
    count, why = report.unchecked["nvue"]
    assert count == len(list((tmp_path / "out519" / "configs" / "nvue").iterdir())) >= 6
    assert why.startswith("nvueschema has no NVUE schema for Cumulus Linux 5.19 (it has 5.0-5.18)"), why
    assert not [verdict for verdict in report.verdicts if verdict.parser == NVUE]


@needs(NVUESCHEMA)
def test_nvue_files_checked_in_worker_processes_give_the_same_verdicts(tmp_path: Path) -> None:
    design = small("small-3tier")[0]
    paths = []
    for relative, data in render_configs(design.configs, ["nvue"]).items():
        path = tmp_path / Path(relative).name
        path.write_bytes(data)
        paths.append((path, path.name))
    broken = paths[3][0]
    broken.write_text(broken.read_text().replace("mtu: 9216", "mtu: 99999"))
    serial = check_nvue(paths, "5.18", workers=1)
    assert check_nvue(paths, "5.18", workers=2) == serial
    assert [verdict.path for verdict in serial if not verdict.ok] == [broken.name]
    assert "link mtu: Input should be less than or equal to 9216 (found 99999)" in serial[3].error

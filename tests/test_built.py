"""Reading a built output back (designer.readback.built): what build writes always passes, what it never writes is
refused, and ``designer check OUTPUT_DIR`` reports the recorded findings exactly as ``designer check INTENT`` does."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from designer.errors import InputError
from designer.outputs.build import design_files
from designer.outputs.design_json import design_json
from designer.outputs.folder import write
from designer.pipeline import build
from designer.readback.built import NAMES, SERVER_PORT, SWITCH_PORT, design_problems, parse_design
from tests.conftest import ROOT
from tests.helpers import build_design, build_text, intent_text
from tests.test_intent_errors import run_cli


@pytest.mark.parametrize(
    "fields",
    [
        {"servers": 32},  # 2 tiers
        {"servers": 512},  # 3 tiers: pods, super-spine groups
        {"servers": 64, "server": "dgx-b300"},  # 2 planes
        {"servers": 32, "leaf": "{model: generic-64x800g}"},  # 800G cages broken out: swpNsL
    ],
    ids=["2-tier", "3-tier", "2-planes", "breakout"],
)
def test_every_design_build_writes_passes_and_its_names_and_ports_match_the_patterns(fields: dict) -> None:
    design = build_design(**fields)
    data = json.loads(design_json(design))
    assert design_problems(data) == []
    for device in design.fabric.devices:
        assert NAMES[device.role][0].fullmatch(device.name), device.name
    ports = {
        device.port_name(port)
        for device in design.fabric.devices[: design.fabric.switch_count]
        for port in range(device.ports)
    }
    assert all(SWITCH_PORT.fullmatch(port) and len(port) <= 15 for port in ports)
    assert any("s" in port.removeprefix("swp") for port in ports) == (fields.get("leaf") is not None)
    assert all(
        SERVER_PORT.fullmatch(design.fabric.devices[server].port_name(port))
        for _, _, _, server, port in design.fabric.links[: design.fabric.server_link_count]
    )


def test_problems_point_at_the_line_and_field_and_stop_after_twenty(tmp_path: Path) -> None:
    text = design_json(build_text(intent_text(servers=32, leaf="{model: generic-32x400g}"))).decode()
    lines = text.splitlines()
    broken = text.replace('"asn": 42', '"asn": -42')  # every switch: 24 problems
    with pytest.raises(InputError) as caught:
        parse_design("x/design.json", broken.encode())
    rendered = str(caught.value).splitlines()
    assert len(rendered) == 22
    first = rendered[0]
    assert first.startswith("x/design.json:") and ": devices[0].asn: -42" in first
    line = int(first.split(":")[1])
    assert '"name": "p0-su0-r0-leaf"' in lines[line - 1]
    assert rendered[-2] == f"x/design.json:{len(lines)}: (top-level): and 4 more problems like these"
    assert rendered[-1] == "21 errors in x/design.json; nothing was written."


EDGE_NICS = ["a", "enp220s0f1np1.9", "x-y_z.1", "eth0.", "a..b", "help", "dev", "e0123456789abcd"]
"""NIC names the intent takes at the edges of its rule: one letter, 15 characters, dots (VLAN style), '-', '_',
a trailing dot, two dots, and words iproute2 knows as keywords."""


def test_design_json_nic_names_are_read_with_the_intents_rule() -> None:
    """What build writes for the intent's NIC names passes (dots included), and a name the intent would refuse
    (Linux's reserved ``all``, one with a '/', one listed twice, one that is not a string) is refused at its server's
    line, as the intent refuses it (designer.intent.nic_names)."""
    text = design_json(
        build_text(intent_text(servers=32, extra=f"hosts: {{nics: [{', '.join(EDGE_NICS)}]}}\n"))
    ).decode()
    data = json.loads(text)
    servers = [row for row in data["devices"] if row["role"] == "server"]
    assert servers[0]["nics"] == EDGE_NICS and design_problems(data) == []
    first = next(number for number, row in enumerate(data["devices"]) if row["role"] == "server")
    for names, says in (
        (
            ["all", *EDGE_NICS[1:]],
            "'all' is not a NIC's name: /proc/sys/net/ipv4/conf/all holds the settings of every interface",
        ),
        (["a/b", *EDGE_NICS[1:]], "'a/b' is not a Linux interface name the server files can carry"),
        ([EDGE_NICS[1], *EDGE_NICS[1:]], '"enp220s0f1np1.9" is listed twice'),
        ([7, *EDGE_NICS[1:]], "7 is not a Linux interface name"),
        ("enp1s0", '"enp1s0" is not a list of interface names'),
    ):
        servers[0]["nics"] = names
        [problem] = design_problems(data)
        assert problem.path == ("devices", first, "nics") and problem.message.startswith(says), problem
    edited = text.replace(f'"nics": {json.dumps(EDGE_NICS)}', '"nics": ["lo", "b", "c", "d", "e", "f", "g", "h"]', 1)
    with pytest.raises(InputError) as caught:
        parse_design("x/design.json", edited.encode())
    [line, _] = str(caught.value).splitlines()
    number = int(line.split(":")[1])
    assert '"lo"' in edited.splitlines()[number - 1] and "devices[" in line and "'lo' is not a NIC's name" in line


def test_a_duplicate_name_and_a_link_to_an_unknown_device_are_refused() -> None:
    data = json.loads(design_json(build_design(servers=32)))
    data["devices"][1]["name"] = data["devices"][0]["name"]
    data["links"][0]["z"][0] = "su99-srv0"
    paths = {problem.path: problem.message for problem in design_problems(data)}
    assert "is a second device of that name" in paths["devices", 1, "name"]
    assert paths["links", 0, "z", 0] == '"su99-srv0" is not a server of this design\'s devices'


def _output(folder: Path, **changes: str) -> Path:
    write(design_files(build_text(intent_text(servers=32, leaf="{model: generic-32x400g}", **changes))), folder)
    return folder


FAILING = {"extra": "checks: {ecmp_max_width: 8}"}


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The small intent's outputs, clean and with a failing check, written once (tests that change one copy it)."""
    folder = tmp_path_factory.mktemp("outputs")
    return {name: _output(folder / name, **changes) for name, changes in (("clean", {}), ("failing", FAILING))}


def _copy(outputs: dict[str, Path], folder: Path) -> Path:
    """A copy of the clean output at ``folder``."""
    shutil.copytree(outputs["clean"], folder)
    return folder


@pytest.mark.parametrize("form", ["text", "json", "junit"])
def test_check_on_an_output_folder_reports_what_the_build_recorded(
    form: str, tmp_path: Path, outputs: dict[str, Path]
) -> None:
    for name, changes in (("clean", {}), ("failing", FAILING)):
        folder = outputs[name]
        intent = tmp_path / f"{name}.yaml"
        intent.write_text(intent_text(servers=32, leaf="{model: generic-32x400g}", **changes))
        from_folder = run_cli("check", str(folder), "--format", form)
        from_intent = run_cli("check", str(intent), "--format", form)
        assert from_folder == from_intent
        assert from_folder[0] == (1 if name == "failing" else 0)


def test_check_on_an_edited_output_folder_is_exit_2(tmp_path: Path, outputs: dict[str, Path]) -> None:
    folder = _copy(outputs, tmp_path / "out")
    config = folder / "configs" / "frr" / "p0-spine0.conf"
    config.write_text(config.read_text() + "!\n")
    (folder / "bom.csv").unlink()
    code, out, err = run_cli("check", str(folder))
    assert (code, out) == (2, "")
    assert "files.bom.csv: cannot be read: No such file or directory" in err
    assert "files.configs/frr/p0-spine0.conf: the file's sha256 differs: it was changed after 'designer build'" in err
    assert err.startswith(f"{folder}/manifest.json:")
    assert err.rstrip().splitlines()[-1] == f"2 errors in {folder}/manifest.json; nothing was written."


def test_check_refuses_a_manifest_path_outside_the_folder_and_unknown_checks(
    tmp_path: Path, outputs: dict[str, Path]
) -> None:
    folder = _copy(outputs, tmp_path / "out")
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["../secret"] = "0" * 64
    (folder / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = run_cli("check", str(folder))
    assert code == 2 and 'files.../secret: "../secret" is not a path inside the folder' in err
    folder = _copy(outputs, tmp_path / "again")
    design = folder / "design.json"
    design.write_bytes(design.read_bytes().replace(b'{"check": "qos"', b'{"check": "no-such-check"'))
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["design.json"] = hashlib.sha256(design.read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(manifest))
    code, _, err = run_cli("check", str(folder))
    assert code == 2 and '"no-such-check" is not a check of this designer; known checks: addressing' in err
    assert err.startswith(f"{design}:") and "in the intent" not in err


def test_check_on_a_folder_that_is_not_an_output(tmp_path: Path) -> None:
    code, _, err = run_cli("check", str(tmp_path))
    assert code == 2
    assert "is not an output folder (no manifest.json or design.json)" in err
    assert err.rstrip().splitlines()[-1] == f"1 error in {tmp_path}; nothing was written."


def test_a_management_uplink_whose_addresses_are_not_one_31_is_refused() -> None:
    design = build(ROOT / "intents" / "enterprise-four-networks.yaml")
    data = json.loads(design_files(design)["design.json"])
    assert design_problems(data) == []
    number, uplink = next((n, link) for n, link in enumerate(data["network_links"]) if link["tier"] == "oob_uplink")
    spine, switch = uplink["a"][2], uplink["z"][2]
    uplink["a"][2], uplink["z"][2] = switch, spine  # the spine's end odd
    assert "is not one /31 with the upper end (a) even" in _messages(data)["network_links", number]
    uplink["a"][2] = None
    assert _messages(data)["network_links", number] == "an uplink has both addresses or neither"
    uplink["z"][2] = uplink["subnet"] = None  # as a build from before the uplinks were addressed
    assert design_problems(data) == []


def _messages(data: dict) -> dict[tuple[str | int, ...], str]:
    return {problem.path: problem.message for problem in design_problems(data)}

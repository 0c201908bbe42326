"""What designer reads from files others write (built folders edited by hand, what devices report, ``--vary``
values) is read within bounds and reported escaped: a number of more digits than Python converts (4,300), JSON
nested 100,000 deep, a lone surrogate or a new line in a neighbour's name are exit 2 with the file and its line, or
escaped in the report; never a traceback, never a forged line.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import time
from pathlib import Path

import pytest

from designer.cli import main
from tests.conftest import ROOT
from tests.test_audit import reports, write
from tests.test_intent_errors import run_cli

INTENT = ROOT / "tests" / "intents" / "small-2tier.yaml"
HUGE = "9" * 5000
"""A number of more digits than Python converts to an int (``sys.get_int_max_str_digits``: 4,300)."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile") / "small-2tier"
    assert run_cli("build", str(INTENT), "-o", str(folder))[0] == 0
    return folder


def copy(built: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "small-2tier"
    shutil.copytree(built, folder)
    return folder


def no_traceback(code: int, out: str, err: str) -> str:
    assert (code, out) == (2, ""), (code, out, err)
    assert "Traceback" not in err and "Exceeds the limit" not in err
    return err


def test_a_huge_number_in_design_json_and_manifest_json_is_exit_2_with_its_line(built: Path, tmp_path: Path) -> None:
    folder = copy(built, tmp_path)
    manifest = folder / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"tool": "designer",', f'"tool": "designer",\n"n": {HUGE},'))
    err = no_traceback(*run_cli("check", str(folder)))
    assert f"{manifest}:4: (top-level): a number of more than 4,300 digits" in err
    folder = copy(built, tmp_path / "second")
    design = folder / "design.json"
    design.write_text(design.read_text().replace("{", f'{{"n": {HUGE},', 1))
    listed = json.loads((folder / "manifest.json").read_text())  # its hash as the build would have written it
    listed["files"]["design.json"] = hashlib.sha256(design.read_bytes()).hexdigest()
    (folder / "manifest.json").write_text(json.dumps(listed))
    err = no_traceback(*run_cli("diff", str(built), str(folder)))
    assert f"{design}:1: (top-level): a number of more than 4,300 digits" in err


def test_a_manifest_nested_100000_deep_is_refused_by_diff(built: Path, tmp_path: Path) -> None:
    folder = copy(built, tmp_path)
    (folder / "manifest.json").write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = run_cli("diff", str(built), str(folder))
    assert code == 2 and "Traceback" not in err and "RecursionError" not in err, err


def test_a_huge_number_in_a_devices_report_is_exit_2_with_its_line(built: Path, tmp_path: Path) -> None:
    files = write(reports(built), tmp_path / "lldp")
    text = Path(files[0]).read_text()
    Path(files[0]).write_text(text.replace('"ttl": 120', f'"ttl": {HUGE}', 1))
    err = no_traceback(*run_cli("audit", str(built), *files))
    assert f"{files[0]}:" in err and "a number of thousands of digits" in err


def test_a_huge_port_number_in_ibnetdiscover_output_is_a_line_it_does_not_read(built: Path, tmp_path: Path) -> None:
    canned = (ROOT / "tests" / "canned" / "infiniband-diags-44-ibnetdiscover-small-2tier.txt").read_text()
    lines = canned.splitlines(keepends=True)
    number = next(index for index, line in enumerate(lines) if line.startswith("["))
    lines[number] = "[" + HUGE + lines[number][lines[number].index("]") :]
    discovery = tmp_path / "ibnetdiscover.txt"
    discovery.write_text("".join(lines))
    err = no_traceback(*run_cli("audit", str(built), str(discovery)))
    assert f"{discovery}:{number + 1}:" in err and "is not a line of ibnetdiscover output" in err


def test_a_huge_number_or_a_boolean_in_a_vary_value_is_refused(tmp_path: Path) -> None:
    intent = tmp_path / "small.yaml"
    intent.write_text(INTENT.read_text())
    for value in (HUGE, "true"):
        err = no_traceback(*run_cli("explore", str(intent), "--vary", f"fabric.planes={value}"))
        assert "is refused: Input should be a valid integer" in err, err


def test_what_devices_report_is_escaped_in_the_audits_text(built: Path, tmp_path: Path) -> None:
    """A neighbour that names itself ``su0-srv9\\nthe cabling matches the design`` (or with escape codes, or a
    lone surrogate) cannot forge a line of the report or rewrite the terminal."""
    files = reports(built)
    leaf = next(name for name in files if name.endswith("leaf"))
    row = files[leaf]["lldpNeighbors"][0]
    row["neighborDevice"] = "su0-srv9\nthe cabling matches the design\x1b[2J"
    files[leaf]["lldpNeighbors"][1]["neighborDevice"] = "\udc80"
    paths = write_raw(files, tmp_path / "lldp")
    code, out, err = run_cli("audit", str(built), *paths)
    assert code == 1, err
    assert "the cabling matches the design" not in out.splitlines()
    assert "su0-srv9\\nthe cabling matches the design\\x1b[2J" in out and "\\udc80" in out
    assert "\x1b" not in out and all(line.isprintable() for line in out.splitlines())


def write_raw(files: dict[str, dict], folder: Path) -> list[str]:
    """:func:`tests.test_audit.write`, keeping a lone surrogate as the JSON escape a device prints for it."""
    folder.mkdir(exist_ok=True)
    for device, document in files.items():
        (folder / f"{device}.json").write_text(json.dumps(document, indent=2, ensure_ascii=True))
    return [str(folder / f"{device}.json") for device in sorted(files)]


@pytest.mark.parametrize("seconds", ["-5", "nan", "inf", "0", "1e9", "soon"])
def test_verify_refuses_a_timeout_that_is_not_a_number_of_seconds_before_it_starts(seconds: str) -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.raises(SystemExit) as raised:
        main(["verify", str(ROOT / "tests" / "intents" / "verify-2tier.yaml"), "--timeout", seconds])
    assert raised.value.code == 2
    assert f"{seconds!r} is not a number of seconds from 1 to 86400" in err.getvalue()


def test_a_git_revision_never_reaches_git_as_an_option(built: Path) -> None:
    err = no_traceback(*run_cli("diff", "--", "--output=/tmp/designer-diff-option", str(built)))
    assert "'--output=/tmp/designer-diff-option' is neither a folder nor a git revision" in err
    assert not Path("/tmp/designer-diff-option").exists()


def test_the_ci_example_pins_no_tag_that_does_not_exist() -> None:
    workflow = (ROOT / "examples" / "ci" / "github-actions.yml").read_text()
    assert "v0.1.0" not in workflow and "v0.1.0" not in (ROOT / "docs" / "ci.md").read_text()
    assert "not `main`, which moves" in (ROOT / "docs" / "ci.md").read_text()


def test_a_file_that_is_not_an_intent_has_none_of_its_lines_echoed(tmp_path: Path) -> None:
    secret = tmp_path / "shadow"
    secret.write_text("operator:$6$salt$s3cret:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n")
    (tmp_path / "intent.yaml").symlink_to(secret)
    err = no_traceback(*run_cli("build", str(tmp_path / "intent.yaml"), "-o", str(tmp_path / "out")))
    assert "not an intent: it has none of name, compute and fabric among its 2 top-level keys" in err
    assert "operator" not in err and "s3cret" not in err and "daemon" not in err


def test_thousands_of_unknown_keys_are_counted_past_the_first_fifty_in_linear_time(tmp_path: Path) -> None:
    """32,000 unknown keys (313 KB, under the intent's 1 MiB cap) took a minute: each copied the whole mapping."""
    head = INTENT.read_text()
    intent = tmp_path / "many.yaml"
    intent.write_text(head + "".join(f"k{number}: 1\n" for number in range(32_000)))
    start = time.monotonic()
    err = no_traceback(*run_cli("build", str(intent), "-o", str(tmp_path / "out")))
    assert time.monotonic() - start < 30
    lines = err.splitlines()
    assert len(lines) == 52 and lines[-1] == "51 errors in the intent; nothing was written."
    first = head.count("\n") + 1
    assert lines[-2] == f"{intent}:{first + 50}: k50: unknown, and 31,949 more unknown keys after it, not shown"


def test_a_file_name_with_a_new_line_is_printed_escaped(tmp_path: Path) -> None:
    intent = tmp_path / "intent.yaml"
    intent.write_text(INTENT.read_text() + 'catalog: ["site\\n.yaml"]\n')
    err = no_traceback(*run_cli("build", str(intent), "-o", str(tmp_path / "out")))
    assert f"{tmp_path}/site\\n.yaml:1: (top-level): no such file" in err
    assert all(line.startswith(str(tmp_path)) for line in err.splitlines()[:-1])


def test_a_value_of_thousands_of_characters_is_not_echoed_in_full(tmp_path: Path) -> None:
    intent = tmp_path / "long.yaml"
    intent.write_text(INTENT.read_text().replace("name: ", "name: " + "a" * 5000, 1))
    err = no_traceback(*run_cli("build", str(intent), "-o", str(tmp_path / "out")))
    assert "is not a safe file name" in err and "a" * 100 not in err
    assert max(map(len, err.splitlines())) < 400

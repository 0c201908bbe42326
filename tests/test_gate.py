"""The CI gate: ``designer check`` in its three formats and exit codes, the plan and output additions,
the drift list of ``build --check``, build's exit code and the example workflow (the pre-commit hook has
tests/test_precommit.py)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from designer.checks import CHECKS
from designer.checks import formats as check_formats
from designer.outputs.build import design_files
from designer.pipeline import build
from tests.conftest import ROOT
from tests.helpers import build_design, build_text, intent_text
from tests.test_intent_errors import run_cli

EXAMPLE = ROOT / "intents" / "cluster.yaml"
SMALL = {"servers": 32, "leaf": "{model: generic-32x400g}"}


def intent_file(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "intent.yaml"
    path.write_text(intent_text(**SMALL, extra=extra))
    return path


@pytest.fixture(scope="module")
def built_small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small intent built by the command line once, copied by each test that changes the folder."""
    target = tmp_path_factory.mktemp("gate") / "out"
    assert run_cli("build", str(intent_file(target.parent)), "-o", str(target))[0] == 0
    return target


def built_copy(built_small: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The small intent in ``tmp_path`` and a copy of its build at ``tmp_path/out``."""
    target = tmp_path / "out"
    shutil.copytree(built_small, target, symlinks=True)
    return intent_file(tmp_path), target


def test_check_passes_a_clean_intent_with_one_line_per_finding(tmp_path: Path) -> None:
    code, out, err = run_cli("check", str(intent_file(tmp_path)))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[-1] == f"test: {len(CHECKS)} passed, 0 failed, 0 with warnings"
    assert [line for line in lines if line.endswith(": passed")] == [f"{module.ID}: passed" for module in CHECKS]
    assert {line.split()[0] for line in lines if " info: " in line} == {module.ID for module in CHECKS}
    assert any(line.startswith("bisection-bandwidth info: fabric: 51.2 Tb/s of 51.2 Tb/s") for line in lines)


def test_check_fails_with_exit_1_and_names_the_check(tmp_path: Path) -> None:
    path = intent_file(tmp_path, "checks: {failure_min_bisection: 0.9, ecmp_max_width: 8}")
    code, out, _ = run_cli("check", str(path))
    assert code == 1
    assert "failure-impact: failed" in out and "ecmp-balance: failed" in out and "oversubscription: passed" in out
    assert "failure-impact error: spine: spine p0-spine0 down: 87.50% of full bisection left" in out
    assert out.splitlines()[-1] == f"test: {len(CHECKS) - 2} passed, 2 failed, 0 with warnings"


def test_check_json_carries_counts_status_and_evidence(tmp_path: Path) -> None:
    code, out, _ = run_cli("check", str(intent_file(tmp_path, "checks: {ecmp_max_width: 8}")), "--format", "json")
    data = json.loads(out)
    assert code == 1
    assert data["checks"] == {"passed": len(CHECKS) - 1, "failed": 1, "warnings": 0}
    assert data["status"]["ecmp-balance"] == "failed"
    bisection = next(row for row in data["findings"] if row["check"] == "bisection-bandwidth")
    assert bisection["evidence"]["bisection_tbps"] == 51.2 and bisection["evidence"]["fraction"] == 1.0


def test_check_junit_is_one_test_case_per_check(tmp_path: Path) -> None:
    code, out, _ = run_cli("check", str(intent_file(tmp_path, "checks: {ecmp_max_width: 8}")), "--format", "junit")
    root = ElementTree.fromstring(out)
    suite = root.find("testsuite")
    assert code == 1 and root.tag == "testsuites" and suite is not None
    assert suite.get("tests") == str(len(CHECKS)) and suite.get("failures") == "1"
    cases = {case.get("name"): case for case in suite.iter("testcase")}
    assert list(cases) == [module.ID for module in CHECKS]
    failure = cases["ecmp-balance"].find("failure")
    assert failure is not None and "exceeds the hardware limit of 8" in failure.get("message")
    assert len(failure.text.splitlines()) == 16  # one per leaf
    assert cases["oversubscription"].find("failure") is None


def test_check_refuses_a_bad_checks_section_with_exit_2(tmp_path: Path) -> None:
    code, out, err = run_cli("check", str(intent_file(tmp_path, "checks: {oversubscribed: 2}")))
    assert (code, out) == (2, "")
    assert "checks.oversubscribed: unknown key 'oversubscribed'; did you mean 'oversubscription'?" in err
    code, _, err = run_cli("check", str(intent_file(tmp_path, "checks: {oversubscription: 0.5}")))
    assert code == 2 and "checks.oversubscription: 0.5 (1:2) is out of range: a ratio here runs from 1" in err


def test_plan_json_design_json_and_summary_gain_the_checks() -> None:
    code, out, _ = run_cli("plan", str(EXAMPLE), "--format", "json")
    data = json.loads(out)
    assert code == 0
    # the example's 700 GB AllReduce takes 3.6 s, over its 2 s step budget: the one warning
    assert data["checks"] == {"passed": len(CHECKS) - 1, "failed": 0, "warnings": 1}
    assert data["bisection_tbps"] == 128 * 8 * 400 / 2 / 1000
    files = design_files(build_design(**SMALL))
    design = json.loads(files["design.json"])
    assert design["summary"]["checks"]["passed"] == len(CHECKS) and design["summary"]["bisection_tbps"] == 51.2
    assert {row["check"] for row in design["findings"]} == {module.ID for module in CHECKS}
    summary = files["summary.md"].decode()
    assert f"## Checks\n\n{len(CHECKS)} passed, 0 failed, 0 with warnings; bisection 51.2 Tb/s" in summary
    assert "| bisection-bandwidth | passed |" in summary


def test_build_check_lists_a_short_list_of_differing_files(tmp_path: Path, built_small: Path) -> None:
    path, target = built_copy(built_small, tmp_path)
    assert run_cli("build", "--check", str(path), "-o", str(target))[0] == 0
    (target / "summary.md").write_text("edited by hand\n")
    code, _, err = run_cli("build", "--check", str(path), "-o", str(target))
    assert code == 1 and err.splitlines()[1:] == ["  changed: summary.md"]
    configs = sorted(path for path in (target / "configs").rglob("*") if path.is_file())
    assert len(configs) > 25
    shutil.rmtree(target / "configs")
    code, _, err = run_cli("build", "--check", str(path), "-o", str(target))
    lines = err.splitlines()[1:]
    assert code == 1 and len(lines) == 21
    assert lines[-1] == f"  and {len(configs) + 1 - 20:,} more"  # the configs, and summary.md


@pytest.mark.parametrize("stray", ["fifo", "link to a folder", "empty folder", "link in a file's place"])
def test_the_gate_fails_whatever_the_build_then_refuses_to_replace(
    tmp_path: Path, stray: str, built_small: Path
) -> None:
    """``build --check`` and ``build`` agree: what makes the build refuse the folder makes the gate fail."""
    path, target = built_copy(built_small, tmp_path)
    (tmp_path / "elsewhere").mkdir()
    summary = target / "summary.md"
    expected = {
        "fifo": "  extra: configs/pipe",
        "link to a folder": "  extra: configs/linked",
        "empty folder": "  extra: configs/empty/",
        "link in a file's place": (
            "  not a file: summary.md (a link, FIFO or folder stands where the build writes a file)"
        ),
    }[stray]
    if stray == "fifo":
        os.mkfifo(target / "configs" / "pipe")
    elif stray == "link to a folder":
        (target / "configs" / "linked").symlink_to(tmp_path / "elsewhere")
    elif stray == "empty folder":
        (target / "configs" / "empty").mkdir()
    else:
        (tmp_path / "summary.md").write_bytes(summary.read_bytes())
        summary.unlink()
        summary.symlink_to(tmp_path / "summary.md")  # the same bytes, through a link
    code, _, err = run_cli("build", "--check", str(path), "-o", str(target))
    assert code == 1 and err.splitlines()[1:] == [expected], err
    code, _, err = run_cli("build", str(path), "-o", str(target))
    assert code == 2 and "refusing to replace" in err, err


def test_workflow_example_runs_the_gate() -> None:
    workflow = yaml.safe_load((ROOT / "examples" / "ci" / "github-actions.yml").read_text())
    steps = workflow["jobs"]["gate"]["steps"]
    scripts = "\n".join(step.get("run", "") for step in steps)
    assert "designer check" in scripts and "--format junit" in scripts
    assert "designer build --check" in scripts and "designer diff" in scripts
    assert "HEAD --fail-on existing-change" in scripts


def test_junit_counts_every_failing_rack_when_the_list_is_capped() -> None:
    """128 racks over budget: 20 listed, one line counting the other 108, and the message says +127."""
    design = build_text(intent_text(servers=128, extra="facility: {rack_power_kw: 8}"), seeds=2, hosts=False)
    suite = ElementTree.fromstring(check_formats.junit(design.findings, "test")).find("testsuite")
    failure = next(case for case in suite.iter("testcase") if case.get("name") == "rack-power").find("failure")
    assert failure is not None
    assert failure.get("message").endswith("over its 8 kW budget (facility.rack_power_kw) (+127 more)")
    assert failure.text.splitlines()[-1] == "and 108 more like the above"


def test_build_exits_1_when_a_check_fails_and_still_writes_the_outputs(tmp_path: Path) -> None:
    path = intent_file(tmp_path, "checks: {ecmp_max_width: 8}")
    target = tmp_path / "out"
    code, out, err = run_cli("build", str(path), "-o", str(target))
    assert code == 1
    files = [path for path in target.rglob("*") if path.is_file()]
    megabytes = sum(path.stat().st_size for path in files) / 1e6
    assert out.splitlines()[-1] == (
        f"wrote {len(files):,} files, {megabytes:,.1f} MB, to {target}; read {target / 'summary.md'} first"
    )
    lines = err.splitlines()
    assert len(lines) == 17 and all(line.startswith("ecmp-balance error: ") for line in lines[:16])
    assert lines[-1] == (
        f"designer build: 1 check failed (ecmp-balance); the outputs were written to {target}: read "
        f"{target / 'summary.md'} first"
    )
    assert run_cli("build", "--check", str(path), "-o", str(target))[0] == 0
    code, _, err = run_cli("build", str(intent_file(tmp_path)), "-o", str(target))
    assert (code, err) == (0, "")


def _command(*args: str, stdout: int = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    """The ``designer`` command as installed (``designer.cli:console``), in its own process."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-c", "from designer.cli import console; console()", *args],
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_command_ends_with_the_exit_code_and_every_line_it_printed(tmp_path: Path) -> None:
    """The installed command leaves without freeing what it built: its output must still arrive whole and its
    exit code be the command's (0, 1 a check failed, 2 bad input)."""
    clean = intent_file(tmp_path)
    passed = _command("check", str(clean))
    assert (passed.returncode, passed.stdout, passed.stderr) == (0, *run_cli("check", str(clean))[1:])
    failing = tmp_path / "failing.yaml"
    failing.write_text(intent_text(**SMALL, extra="checks: {failure_min_bisection: 0.9, ecmp_max_width: 8}"))
    failed = _command("check", str(failing))
    assert failed.returncode == 1 and failed.stdout.splitlines()[-1].endswith("2 failed, 0 with warnings")
    bad = _command("plan", str(tmp_path / "missing.yaml"))
    assert bad.returncode == 2 and "no such file" in bad.stderr and bad.stdout == ""
    built = _command("build", str(clean), "-o", str(tmp_path / "out"))
    assert built.returncode == 0 and built.stdout.endswith(f"; read {tmp_path / 'out' / 'summary.md'} first\n")
    assert (tmp_path / "out" / "manifest.json").read_bytes() == design_files(build(clean))["manifest.json"]


def test_the_command_says_nothing_more_when_its_reader_has_gone(tmp_path: Path) -> None:
    """``designer plan ... | head -1``: the reader has closed the pipe; no traceback, exit 0."""
    read, write = os.pipe()
    os.close(read)
    try:
        result = _command("plan", str(intent_file(tmp_path)), "--format", "json", stdout=write)
    finally:
        os.close(write)
    assert (result.returncode, result.stderr) == (0, "")

"""The tiers of the suite (docs/testing.md): each test's marker comes from what it needs, ``-m`` selects by them, an
unknown marker is pytest's own error, and a test whose prerequisite is missing skips saying what to install (fails
under CI) before its fixtures are made."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests import conftest
from tests.conftest import ROOT
from tests.prerequisites import (
    DECLARED,
    IBSIM,
    LIBYANG,
    PYAVD,
    TIERS,
    UNIT,
    VTYSH,
    Prerequisite,
    VendorUse,
    declared,
    needs,
    prerequisites_of,
)

pytestmark = pytest.mark.meta

SAMPLE = ("tests/test_verify.py", "tests/test_sync.py", "tests/test_avd.py", "tests/test_packaging.py")
"""Files holding tests of every tier: FRR labs and unit tests, Nautobot syncs, pyavd comparisons, packaging."""
TWO_TIER_LAB = "tests/test_verify.py::test_two_tier_lab_converges_and_survives_a_spine_failure"
SYNC = "tests/test_sync.py::test_sync_writes_the_design_and_a_second_sync_changes_nothing"
REPORT = "DESIGNER_TEST_TIERS"
"""Where this module, loaded as a plugin (``-p tests.test_tiers``), writes each collected test's tier markers."""


def pytest_deselected(items: list[pytest.Item]) -> None:
    """As a plugin: the tests ``-m`` left out, with their tiers (see :func:`pytest_collection_finish`)."""
    if os.environ.get(REPORT):
        _tiers_of(items, "deselected")


def pytest_collection_finish(session: pytest.Session) -> None:
    """As a plugin: the tests ``-m`` selected, with their tiers, written as JSON to $DESIGNER_TEST_TIERS."""
    if os.environ.get(REPORT):
        _tiers_of(session.items, "selected")


def _tiers_of(items: list[pytest.Item], kind: str) -> None:
    path = Path(os.environ[REPORT])
    report = json.loads(path.read_text()) if path.exists() else {"selected": {}, "deselected": {}}
    for item in items:
        report[kind][item.nodeid] = sorted(mark.name for mark in item.iter_markers() if mark.name in (*TIERS, UNIT))
    path.write_text(json.dumps(report))


def collected(expression: str, files: tuple[str, ...], report: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Collecting ``files`` under ``-m expression`` (with ``report``: this module as a plugin, writing there)."""
    plugin = ["-p", "tests.test_tiers"] if report else []
    options = ["-n", "0", "-p", "no:cacheprovider", *plugin, "--collect-only", "-q", "-m", expression]
    return subprocess.run(
        [sys.executable, "-m", "pytest", *options, *files],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, REPORT: str(report or "")},
    )


def test_each_test_carries_the_tier_of_what_it_needs_and_m_unit_selects_the_rest(tmp_path: Path) -> None:
    """``-m unit`` over files of every tier: the tests it keeps carry ``unit`` alone; each it leaves out carries one
    tier or more, not ``unit``: a lab test ``lab``, a test using the Nautobot fixture ``sot``, a pyavd comparison
    ``vendor``, packaging ``meta``."""
    report = tmp_path / "tiers.json"
    run = collected("unit", SAMPLE, report)
    assert run.returncode == 0, run.stdout + run.stderr
    tiers = json.loads(report.read_text())
    assert tiers["selected"] and set(map(tuple, tiers["selected"].values())) == {("unit",)}
    assert all(marks and "unit" not in marks for marks in tiers["deselected"].values())
    assert tiers["deselected"][TWO_TIER_LAB] == ["lab"] and tiers["deselected"][SYNC] == ["sot"]
    assert "tests/test_verify.py::test_a_check_keeps_a_thousand_problems_and_counts_the_rest" in tiers["selected"]
    assert {test.split("::")[0] for test, marks in tiers["deselected"].items() if "meta" in marks} == {
        "tests/test_packaging.py"
    }
    assert any(
        test.startswith("tests/test_avd.py") and marks == ["vendor"] for test, marks in tiers["deselected"].items()
    )


def test_an_unknown_marker_is_pytests_own_error() -> None:
    run = collected("unti", ("tests/test_sizing.py",))
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.stdout + run.stderr
    assert "Unknown marker(s) in '-m' expression: unti" in run.stderr + run.stdout


@pytest.mark.parametrize(
    "prerequisite, install", [(LIBYANG, "apt-get install libyang2-dev"), (VTYSH, "apt-get install frr")]
)
def test_a_missing_prerequisite_skips_saying_what_to_install_and_fails_under_ci(
    prerequisite: Prerequisite,
    install: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the libyang binding or vtysh gone, a test that needs it stops in its setup: a skip naming the package,
    a failure under CI."""
    if prerequisite is VTYSH:
        monkeypatch.setenv("PATH", str(tmp_path))
    else:
        find_spec = importlib.util.find_spec
        monkeypatch.setattr(
            importlib.util, "find_spec", lambda name, *rest: None if name == "libyang" else find_spec(name, *rest)
        )
    item = request.node
    item.add_marker(needs(prerequisite))
    assert prerequisite in prerequisites_of(item)
    for in_ci, outcome in ((False, pytest.skip.Exception), (True, pytest.fail.Exception)):
        monkeypatch.setattr(conftest, "IN_CI", in_ci)
        monkeypatch.setitem(item.config.stash[conftest.MISSING], prerequisite.name, prerequisite.missing())
        with pytest.raises(outcome, match=f"{prerequisite.name}: .*{install}"):
            conftest.pytest_runtest_setup(item)


def test_a_prerequisite_is_looked_for_once_a_run(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    looks: list[str] = []

    def missing() -> str | None:
        looks.append("looked")
        return None

    counted = Prerequisite("counted", "vendor", missing)
    request.node.add_marker(needs(counted))
    for _ in range(3):
        conftest.pytest_runtest_setup(request.node)
    monkeypatch.delitem(request.config.stash[conftest.MISSING], counted.name)
    assert looks == ["looked"]


def test_a_helper_using_a_prerequisite_fails_a_test_that_did_not_declare_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The running test's declarations reach the helpers (this test declares nothing); a helper that uses ibsim
    fails a test without ``@needs(IBSIM)`` saying what to add, on a machine that has ibsim as on one that has not,
    and lets a test that declared it through."""
    assert os.environ[DECLARED] == ""
    with pytest.raises(pytest.fail.Exception, match=r"uses ibsim and OpenSM without declaring it: add @needs\(IBSIM\)"):
        declared(IBSIM)
    monkeypatch.setenv(DECLARED, f"{LIBYANG.name}\n{IBSIM.name}")
    declared(IBSIM)


def test_a_test_running_a_vendors_tool_undeclared_fails_naming_the_tool(monkeypatch: pytest.MonkeyPatch) -> None:
    """The recorder every test runs under (tests/conftest.py ``vendor_tools_declared``): a vendor's package
    imported (here the standard library's ``colorsys`` stands for pyavd) or vtysh run, without ``needs``, fails
    the test saying what to add; with the declarations it passes, and nothing is recorded once it is removed."""
    from designer.verify import parsers

    monkeypatch.setattr(parsers, "vtysh", lambda: "/usr/bin/vtysh")
    use = VendorUse({"colorsys": PYAVD})
    use.install()
    try:
        importlib.import_module("colorsys")
        assert parsers.vtysh() == "/usr/bin/vtysh"
    finally:
        use.remove()
    assert sorted(use.used) == ["FRR's vtysh", "pyavd"]
    with pytest.raises(pytest.fail.Exception, match=r"uses (pyavd|FRR's vtysh) without declaring it: add @needs"):
        use.check()
    monkeypatch.setenv(DECLARED, f"{PYAVD.name}\n{VTYSH.name}")
    use.check()
    parsers.vtysh()
    assert sorted(use.used) == ["FRR's vtysh", "pyavd"] and parsers.vtysh() == "/usr/bin/vtysh"


@pytest.mark.parametrize(
    ("selected", "more"), [("", 1), ("unit", 0), ("unit or vendor", 0), ("lab", 1), ("sot and not slow", 1)]
)
def test_a_run_that_may_hold_labs_gets_a_worker_more_than_the_cores(
    monkeypatch: pytest.MonkeyPatch, selected: str, more: int
) -> None:
    """``-n auto``: one worker a core for the CPU-bound tiers, one more where lab and Nautobot tests may wait on
    their daemons; $PYTEST_XDIST_AUTO_NUM_WORKERS is left to pytest-xdist."""
    config = SimpleNamespace(option=SimpleNamespace(markexpr=selected))
    monkeypatch.delenv("PYTEST_XDIST_AUTO_NUM_WORKERS", raising=False)
    cores = len(os.sched_getaffinity(0))
    assert conftest.pytest_xdist_auto_num_workers(config) == cores + more  # type: ignore[arg-type]
    monkeypatch.setenv("PYTEST_XDIST_AUTO_NUM_WORKERS", "7")
    assert conftest.pytest_xdist_auto_num_workers(config) is None  # type: ignore[arg-type]

"""Shared test helpers."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def need(condition: bool, reason: str) -> None:
    """Skip the calling test when ``condition`` is false, with ``reason``; under CI (CI=true) fail instead,
    because CI installs everything the tests need and a silent skip would hide a missing proof."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


def need_validators(what: str) -> None:
    """Skip (fail under CI) unless ``designer validate-configs`` has every validator it runs here: the libyang
    binding (SONiC's YANG models) and FRR's vtysh (pyavd and nvueschema come with the test extra); ``what`` names
    the caller in the message."""
    from designer.verify.parsers import INSTALL

    missing = [
        name
        for name, present in (
            ("the libyang binding", importlib.util.find_spec("libyang") is not None),
            ("FRR's vtysh", shutil.which("vtysh") is not None),
        )
        if not present
    ]
    need(not missing, f"{what} needs {' and '.join(missing)}: {INSTALL}")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        help="rewrite golden and snapshot files from the current output instead of comparing",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to rewrite golden files (``pytest --update-golden``)."""
    return bool(request.config.getoption("--update-golden"))


def check_golden(path: Path, actual: str, update: bool) -> None:
    """Compare ``actual`` with the golden file at ``path`` (or rewrite it under ``--update-golden``)."""
    if not update and not path.exists():
        pytest.fail(f"golden file {path.relative_to(ROOT)} is missing; run pytest --update-golden and commit it")
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        return
    expected = path.read_text()
    assert actual == expected, (
        f"{path.relative_to(ROOT)} differs from the output; if the change is intended, "
        "run 'pytest --update-golden' and review the diff"
    )


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the Nautobot of tests/test_sync.py at once when the run holds any test that needs it (it migrates
    for minutes while the tests before it run); tests/test_sync.py's ``lab`` fixture waits for it. Not in a
    pytest-xdist worker: every worker collects every test, only one runs tests/test_sync.py, and it starts its lab
    when it comes to it while the other worker goes on."""
    from tests import nautobot_lab

    if (
        session.config.option.collectonly
        or os.environ.get("PYTEST_XDIST_WORKER")
        or os.environ.get("DESIGNER_NAUTOBOT_URL")
        or nautobot_lab.missing()
    ):
        return
    if any(
        "lab" in getattr(item, "fixturenames", ()) and item.nodeid.startswith("tests/test_sync.py")
        for item in session.items
    ):
        session.config.stash[nautobot_lab.EARLY] = nautobot_lab.EarlyLab()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """In a pytest-xdist worker, tests/test_sync.py first, then the other files by their number of tests, the most
    first (every worker sorts alike, so the collections still agree; pyproject turns xdist's own reordering, which
    would put the largest file first, off): the worker that takes tests/test_sync.py starts its Nautobot at once,
    and the other works through the rest meanwhile, as the early start does in a run of one process."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        per_file = Counter(item.nodeid.split("::", 1)[0] for item in items)
        items.sort(
            key=lambda item: (
                not item.nodeid.startswith("tests/test_sync.py"),
                -per_file[item.nodeid.split("::", 1)[0]],
                item.nodeid.split("::", 1)[0],
            )
        )


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Stop the Nautobot started early, whether its tests ran or not."""
    from tests import nautobot_lab

    early = session.config.stash.get(nautobot_lab.EARLY, None)
    if early is not None:
        early.stop()

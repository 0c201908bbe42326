"""Shared test helpers."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.prerequisites import DECLARED, NAUTOBOT, TIERS, UNIT, VendorUse, prerequisites_of

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}
MISSING: pytest.StashKey[dict[str, str | None]] = pytest.StashKey()
"""What each prerequisite of tests/prerequisites.py lacks on this machine (None: nothing), once looked for."""


def need(condition: bool, reason: str) -> None:
    """Skip the calling test when ``condition`` is false, with ``reason``; under CI (CI=true) fail instead,
    because CI installs everything the tests need and a silent skip would hide a missing proof."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[MISSING] = {}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before a test's fixtures are made: skip it (fail it under CI) when the machine lacks something it needs,
    saying what to install. Each prerequisite is looked for once a run. What it declared is written to
    $DESIGNER_TEST_DECLARED for the helpers that check it (tests/prerequisites.py ``declared``)."""
    known = item.config.stash[MISSING]
    prerequisites = prerequisites_of(item)
    os.environ[DECLARED] = "\n".join(prerequisite.name for prerequisite in prerequisites)
    for prerequisite in prerequisites:
        if prerequisite.name not in known:
            known[prerequisite.name] = prerequisite.missing()
        reason = known[prerequisite.name]
        need(reason is None, f"{prerequisite.name}: {reason}")


@pytest.fixture(autouse=True)
def vendor_tools_declared() -> Iterator[None]:
    """A test that runs a vendor's tool (pyavd, anta, nvueschema, libyang, FRR's vtysh) without declaring it
    fails (tests/prerequisites.py ``VendorUse``): it belongs to the vendor tier, not the unit tier, and would fail on
    a machine without the tool instead of skipping."""
    use = VendorUse()
    use.install()
    try:
        yield
    finally:
        use.remove()
    use.check()


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """How many workers ``-n auto`` (pyproject's addopts) starts: one a core, and one more when the run may hold
    lab or Nautobot tests (no ``-m``, or one naming ``lab`` or ``sot``), which spend much of their time waiting on
    the daemons they started while a core stands idle. Measured on 2 cores (docs/testing.md): the whole suite
    12 min 58 s with 2 workers, 10 min 49 s with 3; the CPU-bound unit tier 2 min 5 s with 2, 2 min 10 s with 3.
    $PYTEST_XDIST_AUTO_NUM_WORKERS still decides when it is set; ``--maxprocesses`` caps either."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    selected = config.option.markexpr
    return cores + (not selected or re.search(r"\b(lab|sot)\b", selected) is not None)


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
    """Start the Nautobot the sync tests share at once when the run holds any test that needs it (it starts for
    a while as the tests before it run); tests/test_sync.py's ``lab`` fixture waits for it. Not in a pytest-xdist
    worker: every worker collects every test, each file that syncs runs on one worker, which starts a lab of its
    own when it comes to it."""
    from tests import nautobot_lab

    if (
        session.config.option.collectonly
        or os.environ.get("PYTEST_XDIST_WORKER")
        or os.environ.get("DESIGNER_NAUTOBOT_URL")
        or nautobot_lab.missing()
    ):
        return
    if any(NAUTOBOT in prerequisites_of(item) for item in session.items):
        session.config.stash[nautobot_lab.EARLY] = nautobot_lab.EarlyLab()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test's tier marker, before ``-m`` selects by it: ``lab``, ``sot``, ``vendor`` from what it needs
    (tests/prerequisites.py), ``meta`` from its module, ``unit`` when it carries none of the four.

    In a pytest-xdist worker, the files that sync into Nautobot first (tests/test_sync.py, tests/test_sync_shapes.py),
    then the other files by their number of tests, the most first (every worker sorts alike, so the collections
    still agree; pyproject turns xdist's own reordering, which would put the largest file first, off): the workers
    that take them start their Nautobots at once, and work through the rest afterwards, as the early start does in
    a run of one process."""
    for item in items:
        for tier in sorted({prerequisite.tier for prerequisite in prerequisites_of(item)} & set(TIERS)):
            item.add_marker(tier)
        if not any(item.get_closest_marker(tier) for tier in TIERS):
            item.add_marker(UNIT)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        per_file = Counter(item.nodeid.split("::", 1)[0] for item in items)
        syncing = {item.nodeid.split("::", 1)[0] for item in items if NAUTOBOT in prerequisites_of(item)}
        items.sort(
            key=lambda item: (
                item.nodeid.split("::", 1)[0] not in syncing,
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

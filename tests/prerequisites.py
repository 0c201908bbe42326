"""What a test needs beyond ``pip install -e '.[test]'``, and the tier that puts it in.

A test declares what it needs once, with ``@needs(...)`` (or a module's ``pytestmark = needs(...)``, or its module's
``NEEDED_BY_FIXTURE`` for a fixture that needs it). From that one
declaration tests/conftest.py gives the test its tier marker at collection (``lab``, ``sot``, ``vendor`` or
``meta``) and, before its fixtures are made, skips it saying what to install when the machine lacks it (under
``CI=true`` that skip is a failure). Tests that prove the project itself (packaging, docs, benchmarks, pre-commit,
fuzzing) carry ``pytest.mark.meta`` by module; every test of none of the four tiers is marked ``unit``.
docs/testing.md lists the tiers.
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

LAB, SOT, VENDOR, META, UNIT = "lab", "sot", "vendor", "meta", "unit"
TIERS = (LAB, SOT, VENDOR, META)
"""The tiers a test is put in by what it needs or what it proves; every other test is in the ``unit`` tier."""


@dataclass(frozen=True)
class Prerequisite:
    """Something of the machine a test needs: ``missing`` says what to install, or None when it is there."""

    name: str
    tier: str
    missing: Callable[[], str | None]


def needs(*prerequisites: Prerequisite) -> pytest.MarkDecorator:
    """The marker of a test (or a module, as ``pytestmark``) that needs ``prerequisites``."""
    return pytest.mark.needs(*prerequisites)


def _module(name: str, install: str) -> Callable[[], str | None]:
    return lambda: None if importlib.util.find_spec(name) is not None else install


def _programs(names: tuple[str, ...], install: str) -> Callable[[], str | None]:
    def missing() -> str | None:
        absent = [name for name in names if shutil.which(name) is None]
        return f"{', '.join(absent)} missing: {install}" if absent else None

    return missing


def _lab() -> str | None:
    from designer.errors import PrerequisiteError
    from designer.verify.lab import check_prerequisites

    try:
        check_prerequisites()
    except PrerequisiteError as error:
        return str(error)
    return None


def _root() -> str | None:
    return None if os.geteuid() == 0 else "needs root to make network namespaces and switch users: run it as root"


def _user_namespaces() -> str | None:
    """Whether this machine lets us mount file systems in a private user and mount namespace."""
    reason = "needs unshare (util-linux) and user namespaces to mount a private file system"
    if not shutil.which("unshare"):
        return reason
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True, check=False
    )
    return None if probe.returncode == 0 else reason


def _hash_seed() -> str | None:
    seed = Path("/proc/sys/net/ipv4/fib_multipath_hash_seed")
    return None if seed.is_file() else "the kernel's net.ipv4.fib_multipath_hash_seed needs Linux 6.11 or later"


def _nautobot() -> str | None:
    from tests.nautobot_lab import missing

    reason = missing()
    return None if reason is None else f"a real Nautobot needs {reason}"


def _mkdocs() -> str | None:
    found = shutil.which("mkdocs", path=str(Path(sys.executable).parent))
    return None if found else "mkdocs is needed beside this Python: pip install -e '.[test]'"


def _ibsim() -> str | None:
    from designer.verify.subnet import INSTALL, TOOLS

    return _programs(TOOLS, INSTALL)()


FRR_LAB = Prerequisite("FRR lab", LAB, _lab)
"""designer verify's lab: root, FRR's daemons, iproute2, ping, traceroute, unshare and a 6.x kernel."""
AS_ROOT = Prerequisite("root", LAB, _root)
USER_NAMESPACES = Prerequisite("user namespaces", LAB, _user_namespaces)
HASH_SEED = Prerequisite("kernel hash seed", LAB, _hash_seed)
LLDPD = Prerequisite("lldpd", LAB, _programs(("lldpd", "lldpcli", "ip"), "apt-get install lldpd iproute2"))
IBSIM = Prerequisite("ibsim and OpenSM", LAB, _ibsim)
NAUTOBOT = Prerequisite("Nautobot", SOT, _nautobot)
PYAVD = Prerequisite("pyavd", VENDOR, _module("pyavd", "Arista's pyavd is needed: pip install -e '.[test]'"))
ANTA = Prerequisite("anta", VENDOR, _module("anta", "Arista's anta is needed: pip install -e '.[test]'"))
NVUESCHEMA = Prerequisite(
    "nvueschema", VENDOR, _module("nvueschema", "NVIDIA's NVUE schema is needed: pip install -e '.[test]'")
)
LIBYANG = Prerequisite(
    "libyang",
    VENDOR,
    _module("libyang", "the libyang binding is needed: apt-get install libyang2-dev && pip install -e '.[yang]'"),
)
VTYSH = Prerequisite("FRR's vtysh", VENDOR, _programs(("vtysh",), "apt-get install frr"))
PROMTOOL = Prerequisite("Prometheus's promtool", VENDOR, _programs(("promtool",), "apt-get install prometheus"))
PROMETHEUS = Prerequisite(
    "Prometheus and its FRR and node exporters",
    LAB,
    _programs(
        ("prometheus", "prometheus-frr-exporter", "prometheus-node-exporter"),
        "apt-get install prometheus prometheus-frr-exporter prometheus-node-exporter",
    ),
)
MKDOCS = Prerequisite("mkdocs", META, _mkdocs)
VALIDATORS = (PYAVD, NVUESCHEMA, LIBYANG, VTYSH)
"""Every checker ``designer validate-configs`` runs on a folder of every target's files."""


DECLARED = "DESIGNER_TEST_DECLARED"
"""Where tests/conftest.py writes the prerequisites the running test declared (their names, one a line)."""


def declared(prerequisite: Prerequisite) -> None:
    """Fail the running test unless it declared ``prerequisite``: called by the helpers that use one (the ibsim
    simulation, SONiC's YANG models), so a test that forgets its ``needs`` fails on every machine, not only on one
    that lacks the prerequisite. Outside a test run (no $DESIGNER_TEST_DECLARED) it does nothing."""
    running = os.environ.get(DECLARED)
    if running is not None and prerequisite.name not in running.split("\n"):
        symbol = next(name for name, value in globals().items() if value is prerequisite)
        pytest.fail(f"this test uses {prerequisite.name} without declaring it: add @needs({symbol})", pytrace=False)


def prerequisites_of(item: pytest.Item) -> tuple[Prerequisite, ...]:
    """What ``item`` needs, each once: from its own, its class's and its module's ``needs`` markers, and from the
    fixtures it uses that its module lists in ``NEEDED_BY_FIXTURE`` (a fixture's name: what it needs)."""
    found: dict[str, Prerequisite] = {}
    for mark in item.iter_markers("needs"):
        for prerequisite in mark.args:
            assert isinstance(prerequisite, Prerequisite), f"{item.nodeid}: needs() takes Prerequisite values"
            found.setdefault(prerequisite.name, prerequisite)
    by_fixture = getattr(getattr(item, "module", None), "NEEDED_BY_FIXTURE", {})
    for fixture in getattr(item, "fixturenames", ()):
        for prerequisite in by_fixture.get(fixture, ()):
            found.setdefault(prerequisite.name, prerequisite)
    return tuple(found.values())


VENDOR_MODULES = {"pyavd": PYAVD, "anta": ANTA, "nvueschema": NVUESCHEMA, "libyang": LIBYANG}
"""The vendors' Python packages, by the top-level name a module imports them as."""


class VendorUse:
    """Records which vendor packages (:data:`VENDOR_MODULES`) a test imports, and whether it runs FRR's vtysh,
    while it is installed: a test of the unit tier that runs a vendor's tool belongs to the vendor tier, so
    :meth:`undeclared` names what it runs without declaring (``declared`` fails it)."""

    def __init__(self, modules: dict[str, Prerequisite] = VENDOR_MODULES) -> None:
        self.modules = modules
        self.used: dict[str, Prerequisite] = {}
        self._import = builtins.__import__
        self._import_module = importlib.import_module
        self._vtysh: Callable[[], str] | None = None
        """vtysh's runner in designer.verify.parsers, while this records."""

    def _note(self, name: str) -> None:
        prerequisite = self.modules.get(name.partition(".")[0])
        if prerequisite is not None:
            self.used[prerequisite.name] = prerequisite

    def install(self) -> None:
        """Record from now on: every import statement and ``importlib.import_module`` call, and vtysh's runs."""
        original, by_name = self._import, self._import_module

        def recorded(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
            if level == 0:
                self._note(name)
            return original(name, globals, locals, fromlist, level)

        def recorded_by_name(name: str, package: str | None = None) -> Any:
            self._note(name)
            return by_name(name, package)

        builtins.__import__ = recorded
        importlib.import_module = recorded_by_name  # type: ignore[assignment]
        parsers = by_name("designer.verify.parsers")
        run_vtysh = self._vtysh = parsers.vtysh

        def vtysh() -> str:
            self.used[VTYSH.name] = VTYSH
            return run_vtysh()

        parsers.vtysh = vtysh

    def remove(self) -> None:
        """Stop recording."""
        builtins.__import__ = self._import
        importlib.import_module = self._import_module  # type: ignore[assignment]
        if self._vtysh is not None:
            sys.modules["designer.verify.parsers"].vtysh = self._vtysh  # type: ignore[attr-defined]

    def check(self) -> None:
        """Fail the running test for each vendor tool it ran without declaring it (``declared``)."""
        for prerequisite in self.used.values():
            declared(prerequisite)

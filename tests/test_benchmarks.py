"""The benchmark scripts still run: each sized one at the smallest size, one run, printing its table row."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from designer.verify.parsers import INSTALL
from tests import conftest
from tests.conftest import ROOT, need

SIZED = ["bench_analyze", "bench_build", "bench_checks", "bench_physical", "bench_render", "bench_validate"]


def need_parsers() -> None:
    """bench_validate runs validate-configs, which needs the libyang binding and FRR's vtysh."""
    missing = [name for name, present in (("the libyang binding", importlib.util.find_spec("libyang") is not None),
                                          ("FRR's vtysh", shutil.which("vtysh") is not None)) if not present]
    need(not missing, f"bench_validate needs {' and '.join(missing)}: {INSTALL}")


PREREQUISITES: dict[str, Callable[[], None]] = {"bench_validate": need_parsers}


@pytest.mark.parametrize("script", SIZED)
def test_sized_benchmark_prints_a_row_for_the_smallest_size(script: str) -> None:
    PREREQUISITES.get(script, lambda: None)()
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{script}.py"), "--runs", "1",
                             "--sizes", "1024"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| 1,024 |")]
    assert len(rows) == 1, result.stdout


@pytest.mark.parametrize("missing", ["libyang", "vtysh"])
def test_bench_validate_without_a_parser_skips_saying_what_to_install_and_fails_under_ci(
        missing: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if missing == "vtysh":
        monkeypatch.setenv("PATH", str(tmp_path))
    else:
        find_spec = importlib.util.find_spec
        monkeypatch.setattr(importlib.util, "find_spec", lambda name, *rest: None if name == missing
                            else find_spec(name, *rest))
    for in_ci, outcome in ((False, pytest.skip.Exception), (True, pytest.fail.Exception)):
        monkeypatch.setattr(conftest, "IN_CI", in_ci)
        with pytest.raises(outcome, match=f"needs .*{missing}.*: apt-get install frr libyang2-dev"):
            PREREQUISITES["bench_validate"]()


def test_verify_benchmark_parses_its_options() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_verify.py"), "--help"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0 and "--labs" in result.stdout


def test_avd_benchmark_prints_a_row_at_a_tiny_size() -> None:
    need(importlib.util.find_spec("pyavd") is not None, "bench_avd needs Arista's pyavd: pip install pyavd")
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_avd.py"), "--runs", "1",
                             "--sizes", "256"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| 256 | 12 |")]
    assert len(rows) == 1 and rows[0].endswith("x |"), result.stdout

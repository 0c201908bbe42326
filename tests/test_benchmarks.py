"""The benchmark scripts still run: each sized one at the smallest size, one run, printing its table row."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

SIZED = ["bench_build", "bench_checks", "bench_physical", "bench_render", "bench_validate"]


@pytest.mark.parametrize("script", SIZED)
def test_sized_benchmark_prints_a_row_for_the_smallest_size(script: str) -> None:
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / f"{script}.py"), "--runs", "1",
                             "--sizes", "1024"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.startswith("| 1,024 |")]
    assert len(rows) == 1, result.stdout


def test_verify_benchmark_parses_its_options() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_verify.py"), "--help"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0 and "--labs" in result.stdout

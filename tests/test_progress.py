"""Long builds say what they are doing: stage lines on stderr when it is a terminal or the fabric is large,
stdout byte for byte what it was, and nothing on stderr for a small build in a pipe."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from designer.checks import CHECKS, OF_THE_FABRIC
from designer.cli import main
from tests.conftest import ROOT

EXAMPLE = ROOT / "intents" / "cluster.yaml"
STAGE = re.compile(r"\[ *\d+\.\ds\] \S.*")


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def run(args: list[str], err: io.StringIO) -> tuple[int, str, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "args", [["plan", str(EXAMPLE), "--format", "json"], ["check", str(EXAMPLE)]], ids=["plan", "check"]
)
def test_a_terminal_sees_the_stages_and_stdout_is_unchanged(args: list[str]) -> None:
    code, piped, quiet = run(args, io.StringIO())
    assert (code, quiet) == (0, "")
    code, out, err = run(args, Terminal())
    assert code == 0 and out == piped
    lines = err.splitlines()
    assert all(STAGE.fullmatch(line) for line in lines), lines
    assert [line.split("] ", 1)[1] for line in lines] == [
        "wiring 2,048 links",
        "allocating addresses and ASNs",
        "placing racks, power and cables, solving the bisection max-flows and checking the fabric",
        "modelling 64 switches",
        "analyzing 2 workloads over at most 32 runs per hash",
        "waiting for the racks, cables, max-flows and the checks of the fabric",
        f"running {len(CHECKS) - len(OF_THE_FABRIC)} more checks",
    ]
    if args[0] == "plan":
        json.loads(out)


def test_a_large_build_reports_its_stages_even_in_a_pipe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, piped, quiet = run(["build", str(EXAMPLE), "-o", str(tmp_path / "quiet")], io.StringIO())
    assert (code, quiet) == (0, "")
    monkeypatch.setattr("designer.cli.PROGRESS_GPUS", 1024)  # cluster-a has 1,024 GPUs: large from here on
    target = tmp_path / "loud"
    code, out, err = run(["build", str(EXAMPLE), "-o", str(target)], io.StringIO())
    assert code == 0 and out == piped.replace(str(tmp_path / "quiet"), str(target))
    stages = [line.split("] ", 1)[1] for line in err.splitlines() if STAGE.fullmatch(line)]
    assert len(stages) == len(err.splitlines()) == 11
    assert stages[6] == (
        "rendering and writing the configurations of 64 switches for sonic, frr, eos, nvue "
        "and the backend NIC files of 128 servers beside the checks"
    )
    assert stages[-2:] == [
        "writing the summary, design.json and tables",
        "waiting for the configurations and server files",
    ]

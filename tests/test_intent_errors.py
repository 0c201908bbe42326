"""Every kind of bad intent gets exit 2, every problem on stderr with file:line and field, and no output.

Each ``tests/errors/<case>.yaml`` has its expected stderr in ``<case>.txt`` (``pytest --update-golden``
rewrites them after an intended change to a message).
"""

from __future__ import annotations

import contextlib
import io
import os
from pathlib import Path

import pytest

from designer.cli import main
from tests.conftest import check_golden

CASES = sorted((Path(__file__).parent / "errors").glob("*.yaml"))


def run_cli(*args: str) -> tuple[int, str, str]:
    """Run the command line in-process; returns (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", CASES, ids=[case.stem for case in CASES])
def test_bad_intent_is_explained_and_nothing_is_written(case: Path, tmp_path: Path, update_golden: bool,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(case.parent)
    target = tmp_path / "out"
    code, out, err = run_cli("build", case.name, "-o", str(target))
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    assert not target.exists()
    for line in err.splitlines()[:-1]:
        assert line.startswith(f"{case.name}:"), line
    assert err.splitlines()[-1].endswith("in the intent; nothing was written.")
    check_golden(case.with_suffix(".txt"), err, update_golden)


def test_every_problem_of_a_file_is_reported_together(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent / "errors")
    code, _, err = run_cli("plan", "unknown_models.yaml")
    assert code == 2
    assert "compute.server: unknown server model 'dgx-h900'" in err
    assert "fabric.leaf.model: unknown switch model 'acme-9000'" in err
    assert err.splitlines()[-1] == "2 errors in the intent; nothing was written."


def test_unknown_key_suggests_the_close_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(Path(__file__).parent / "errors")
    _, _, err = run_cli("plan", "unknown_keys.yaml")
    assert "unknown_keys.yaml:7: fabric.spien: unknown key 'spien'; did you mean 'spine'?" in err
    assert "unknown_keys.yaml:8: adressing: unknown key 'adressing'; did you mean 'addressing'?" in err


def test_python_tags_never_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = tmp_path / "ran"
    intent = tmp_path / "evil.yaml"
    intent.write_text(f"name: x\ncompute: !!python/object/apply:os.system ['touch {marker}']\n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli("plan", "evil.yaml")
    assert code == 2 and "is not allowed" in err
    assert not marker.exists()


def test_a_failed_build_leaves_the_previous_outputs_untouched(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parent.parent
    target = tmp_path / "out"
    assert run_cli("build", str(root / "intents" / "cluster.yaml"), "-o", str(target))[0] == 0
    before = {path: path.read_bytes() for path in target.rglob("*") if path.is_file()}
    code, _, _ = run_cli("build", str(Path(__file__).parent / "errors" / "pools_too_small.yaml"), "-o", str(target))
    assert code == 2
    assert {path: path.read_bytes() for path in target.rglob("*") if path.is_file()} == before
    assert sorted(os.listdir(tmp_path)) == ["out"]

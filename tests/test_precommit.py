"""The example pre-commit hook judges what is staged, in a real git repository: staged drift or a failed check
refuses the commit, drift only in the working tree does not matter."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.helpers import intent_text

pytestmark = pytest.mark.meta

HOOK = ROOT / "examples" / "ci" / "pre-commit"
SMALL = {"servers": 32, "leaf": "{model: generic-32x400g}"}


class Repo:
    """A git repository with the hook installed, and ``designer`` from this checkout on the PATH."""

    def __init__(self, path: Path, new: bool = True):
        """A new repository at ``path``, or with ``new`` false the one already there."""
        self.path = path
        self.env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com",
        }
        if not new:
            return
        path.mkdir(parents=True)
        self.git("init", "-q")
        shutil.copy(HOOK, path / ".git" / "hooks" / "pre-commit")
        (path / "intents").mkdir()

    def copy(self, path: Path) -> Repo:
        """A copy of this repository at ``path``: its history, index, hook and working tree."""
        shutil.copytree(self.path, path, symlinks=True)
        return Repo(path, new=False)

    def git(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["git", *args], cwd=self.path, env=self.env, capture_output=True, text=True, check=False)

    def intent(self, **changes: object) -> None:
        """Write ``intents/small.yaml``, with ``changes`` to the test intent."""
        text = intent_text(**{**SMALL, **changes}).replace("name: test", "name: small")  # type: ignore[arg-type]
        (self.path / "intents" / "small.yaml").write_text(text)

    def build(self) -> int:
        return subprocess.run(
            [sys.executable, "-m", "designer.cli", "build", "intents/small.yaml"],
            cwd=self.path,
            env=self.env,
            capture_output=True,
            check=False,
        ).returncode

    def commit(self, message: str) -> subprocess.CompletedProcess[str]:
        return self.git("commit", "-q", "-m", message)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """A repository whose intent is built, nothing staged yet; tests work on copies of it."""
    assert os.access(HOOK, os.X_OK)
    made = Repo(tmp_path_factory.mktemp("built") / "repo")
    made.intent()
    assert made.build() == 0
    return made


@pytest.fixture(scope="module")
def committed(built: Repo, tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """That repository with the intent and its outputs committed through the hook; tests work on copies of it."""
    made = built.copy(tmp_path_factory.mktemp("committed") / "repo")
    made.git("add", "intents", "outputs")
    result = made.commit("first design")
    assert result.returncode == 0, result.stderr
    return made


@pytest.fixture
def repo(committed: Repo, tmp_path: Path) -> Repo:
    return committed.copy(tmp_path / "repo")


def test_staged_drift_is_refused_even_when_the_working_tree_matches(repo: Repo) -> None:
    repo.intent(servers=64)
    assert repo.build() == 0  # the working tree is up to date ...
    repo.git("add", "intents")  # ... but only the intent is staged
    result = repo.commit("grow to 64 servers")
    assert result.returncode != 0
    assert "outputs/small is out of date with intents/small.yaml" in result.stderr
    repo.git("add", "outputs")
    result = repo.commit("grow to 64 servers, with the outputs")
    assert result.returncode == 0, result.stderr


def test_drift_only_in_the_working_tree_does_not_matter(repo: Repo) -> None:
    (repo.path / "README.md").write_text("the design of the small cluster\n")
    repo.git("add", "README.md")
    repo.intent(servers=64)  # edited, not built, not staged
    (repo.path / "outputs" / "small" / "summary.md").write_text("edited, not staged\n")
    result = repo.commit("a readme")
    assert result.returncode == 0, result.stderr
    assert repo.git("status", "--porcelain").stdout.splitlines() == [
        " M intents/small.yaml",
        " M outputs/small/summary.md",
    ]


def test_a_staged_intent_whose_checks_fail_is_refused(repo: Repo) -> None:
    repo.intent(extra="checks: {ecmp_max_width: 8}")
    assert repo.build() == 1  # the outputs are written, the gate fails
    repo.git("add", "intents", "outputs")
    result = repo.commit("narrow ECMP")
    assert result.returncode != 0
    assert "ecmp-balance error" in result.stderr and "checks failed for intents/small.yaml" in result.stderr
    assert " info: " not in result.stderr


def test_an_intent_whose_outputs_were_never_staged_is_refused(built: Repo, tmp_path: Path) -> None:
    fresh = built.copy(tmp_path / "fresh")
    fresh.git("add", "intents")
    result = fresh.commit("intent without its outputs")
    assert result.returncode != 0 and "missing: outputs/small/" in result.stderr

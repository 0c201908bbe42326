"""A build never loses a user's files, and the output folder is always whole.

``designer build -o DIR`` replaces DIR only when it is empty, missing or a previous build's (its manifest
lists everything in it), refusing anything else before any work; it swaps the new folder in with one atomic
exchange, locks out a second build of the same folder and clears what killed builds left behind.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

import designer.outputs.folder
from designer.outputs.build import design_files
from designer.outputs.folder import OutputError, claim, drift, write
from designer.readback.diff import Previous
from tests.conftest import ROOT
from tests.helpers import build_design, intent_text
from tests.prerequisites import ANTA, PYAVD, USER_NAMESPACES, needs
from tests.test_intent_errors import run_cli

SMALL = {"servers": 32, "leaf": "{model: generic-32x400g}"}


def intent_file(folder: Path, name: str = "intent.yaml", **changes: object) -> Path:
    """A small intent written into ``folder``."""
    path = folder / name
    path.write_text(intent_text(**{**SMALL, **changes}))  # type: ignore[arg-type]
    return path


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (hidden ones and symbolic links' targets included), by relative path."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()
    }


@cache
def small_files() -> dict[str, bytes]:
    """Every output file of the small intent, made once (tests only read them)."""
    return design_files(build_design(**SMALL))


def built(files: dict[str, bytes]) -> dict[str, bytes]:
    """``files`` with the manifest a build writes, listing them."""
    manifest = {"tool": "designer", "files": {path: "" for path in files}}
    return {**files, "manifest.json": json.dumps(manifest).encode()}


@pytest.fixture
def no_design(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if the command line starts building the design: a refusal must come before any work."""

    def refuse(*_: object) -> None:
        raise AssertionError("the design was built before the output folder was checked")

    monkeypatch.setattr("designer.pipeline.design", refuse)


def test_refuses_the_current_folder_holding_the_intent_and_a_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_design: None
) -> None:
    intent_file(tmp_path)
    (tmp_path / "notes.txt").write_text("mine\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    before = snapshot(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("build", "intent.yaml", "-o", ".")
    assert (code, out) == (2, "")
    assert err.startswith(f"refusing to replace {tmp_path}: it is not an output folder of designer")
    assert "holds .git/, intent.yaml, notes.txt;" in err and "Traceback" not in err
    assert snapshot(tmp_path) == before


def test_refuses_a_repository_root_and_says_what_it_holds(tmp_path: Path, no_design: None) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for number in range(7):
        (repo / f"file{number}.txt").write_text(f"{number}\n")
    before = snapshot(repo)
    code, _, err = run_cli("build", str(intent_file(tmp_path)), "-o", str(repo))
    assert code == 2
    assert "holds .git/, file0.txt, file1.txt, file2.txt, file3.txt, 3 more;" in err
    assert snapshot(repo) == before


def test_refuses_the_parent_of_several_outputs(tmp_path: Path, no_design: None) -> None:
    outputs = tmp_path / "outputs"
    files = small_files()
    for name in ("a", "b"):
        write(files, outputs / name)
    code, _, err = run_cli("build", str(intent_file(tmp_path)), "-o", str(outputs))
    assert code == 2 and f"refusing to replace {outputs}:" in err and "holds a/, b/;" in err
    assert drift(files, outputs / "a") == [] and drift(files, outputs / "b") == []


def test_refuses_a_file_and_a_path_through_a_file(tmp_path: Path, no_design: None) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    intent = intent_file(tmp_path)
    code, _, err = run_cli("build", str(intent), "-o", str(notes))
    assert code == 2 and err == f"cannot write {notes}: it is a file, not a folder; choose another folder with -o\n"
    code, _, err = run_cli("build", str(intent), "-o", str(notes / "out"))
    assert code == 2 and "Traceback" not in err
    assert err.startswith(f"cannot write {notes / 'out'}: Not a directory ({notes}); a part of the path is a file")
    assert notes.read_text() == "mine\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["intent.yaml", "notes.txt"]


def test_a_folder_with_a_git_repository_or_extra_files_in_a_previous_build_is_refused(
    tmp_path: Path, no_design: None
) -> None:
    """Files a user added to a built folder are never deleted: the build stops and asks to move them."""
    target = tmp_path / "out"
    write(small_files(), target)
    subprocess.run(["git", "init", "-q", str(target)], check=True)
    (target / "review-notes.md").write_text("mine\n")
    (target / "configs" / "frr" / "mine").mkdir()
    (target / "configs" / "frr" / "mine" / "router.conf").write_text("mine\n")
    before = snapshot(target)
    code, _, err = run_cli("build", str(intent_file(tmp_path)), "-o", str(target))
    assert code == 2
    assert err == (
        f"refusing to replace {target}: it holds .git/, configs/frr/mine/, review-notes.md, which the "
        "build that wrote it did not (they are not in its manifest.json); a build replaces its whole "
        "folder, so move them elsewhere first\n"
    )
    assert snapshot(target) == before


def test_links_fifos_and_unlisted_files_deep_in_a_previous_build_are_refused(tmp_path: Path) -> None:
    """Whatever a build did not write stops the next one, at any depth: a link in place of a listed file or folder,
    a FIFO, a file or a folder the manifest does not list; a foreign folder is named once, without its contents."""
    target = tmp_path / "out"
    write(small_files(), target)
    (tmp_path / "elsewhere").mkdir()
    configs = target / "configs"
    listed_file = next((configs / "frr").iterdir())
    listed_file.unlink()
    listed_file.symlink_to(tmp_path / "elsewhere")  # a link where a listed file was
    shutil.rmtree(configs / "eos")
    (configs / "eos").symlink_to(tmp_path / "elsewhere")  # a link where a listed folder was
    os.mkfifo(configs / "nvue" / "pipe")
    (configs / "sonic" / "extra" / "deeper").mkdir(parents=True)
    (configs / "sonic" / "extra" / "deeper" / "file").write_text("mine\n")
    (target / ".hidden").write_text("mine\n")
    problem = designer.outputs.folder.refusal(target)
    assert problem is not None
    named = problem.split(" it holds ")[1].split(", which the build")[0]
    assert named == (f".hidden, configs/eos, configs/frr/{listed_file.name}, configs/nvue/pipe, configs/sonic/extra/")


def test_a_manifest_not_written_by_designer_does_not_make_a_folder_replaceable(tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.mkdir()
    (target / "manifest.json").write_text(json.dumps({"tool": "other", "files": {}}))
    (target / "data.bin").write_bytes(b"mine")
    with pytest.raises(OutputError, match="it is not an output folder of designer"):
        write({"summary.md": b"x\n"}, target)
    assert (target / "data.bin").read_bytes() == b"mine"


def test_rebuilds_a_previous_build_and_an_empty_folder(tmp_path: Path) -> None:
    intent = intent_file(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("build", str(intent), "-o", str(empty))[0] == 0
    assert (empty / "manifest.json").is_file()
    (empty / "summary.md").write_text("edited by hand, regenerated by the next build\n")
    (empty / "asn.csv").unlink()
    assert run_cli("build", str(intent), "-o", str(empty))[0] == 0
    assert drift(small_files(), empty) == []
    assert sorted(path.name for path in tmp_path.iterdir()) == ["empty", "intent.yaml"]


def test_a_symbolic_link_is_followed_and_what_it_leads_to_is_judged(tmp_path: Path) -> None:
    """A link to a built folder is rebuilt where it leads (the link stays); a link to anything else is refused."""
    intent = intent_file(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("mine\n")
    link = tmp_path / "link"
    link.symlink_to(mine)
    code, _, err = run_cli("build", str(intent), "-o", str(link))
    assert code == 2 and f"refusing to replace {mine}:" in err and f"({link} is a symbolic link to it)" in err
    assert snapshot(mine) == {"thesis.tex": b"mine\n"} and link.is_symlink()

    previous = tmp_path / "previous"
    write(built({"summary.md": b"old\n"}), previous)
    link.unlink()
    link.symlink_to(previous)
    assert run_cli("build", str(intent), "-o", str(link))[0] == 0
    assert link.is_symlink() and link.resolve() == previous
    assert drift(small_files(), previous) == []

    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    code, _, err = run_cli("build", str(intent), "-o", str(loop))
    assert code == 2 and err.startswith(f"cannot write {loop}: ") and "Traceback" not in err


def test_a_name_too_long_is_explained(tmp_path: Path) -> None:
    target = tmp_path / ("x" * 250)
    code, out, err = run_cli("build", str(intent_file(tmp_path)), "-o", str(target))
    assert (code, out) == (2, "")
    assert err.startswith(f"cannot write {target}: File name too long") and "choose a shorter folder name" in err


def test_another_build_of_the_same_folder_is_turned_away(tmp_path: Path) -> None:
    intent = intent_file(tmp_path)
    target = tmp_path / "out"
    with claim(target):
        code, _, err = run_cli("build", str(intent), "-o", str(target))
        assert code == 2 and "another build is writing this folder" in err
        assert not target.exists()
    assert run_cli("build", str(intent), "-o", str(target))[0] == 0
    assert sorted(path.name for path in tmp_path.iterdir()) == ["intent.yaml", "out"]  # the lock file went


def test_files_added_while_the_build_ran_are_kept(tmp_path: Path) -> None:
    target = tmp_path / "out"
    old = built({"summary.md": b"old\n"})
    write(old, target)
    with claim(target) as folder:
        (target / "added-meanwhile.txt").write_text("mine\n")
        with pytest.raises(OutputError, match=r"it holds added-meanwhile\.txt, which the build that wrote it did not"):
            folder.write(built({"summary.md": b"new\n"}))
    assert snapshot(target) == {**old, "added-meanwhile.txt": b"mine\n"}
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


def test_a_failed_build_leaves_no_folder_it_created(tmp_path: Path) -> None:
    target = tmp_path / "new" / "deeper" / "out"
    code, _, _ = run_cli("build", str(ROOT / "tests" / "errors" / "pools_too_small.yaml"), "-o", str(target))
    assert code == 2
    assert list(tmp_path.iterdir()) == []


def test_leftovers_of_interrupted_builds_of_the_same_folder_are_cleared(tmp_path: Path) -> None:
    for leftover in (
        ".out.new-abcd_123/configs",
        ".out.old-zz99zz99/previous",
        ".other.new-abcd1234",
        ".out.new-toolong123",
        "out.new-abcd1234",
    ):
        (tmp_path / leftover).mkdir(parents=True)
    (tmp_path / ".out.new-file0000").write_text("a file of the same pattern is not ours\n")
    write(built({"summary.md": b"new\n"}), tmp_path / "out")
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        ".other.new-abcd1234",
        ".out.new-file0000",
        ".out.new-toolong123",
        "out",
        "out.new-abcd1234",
    ]


def test_removing_a_replaced_build_never_follows_a_link(tmp_path: Path) -> None:
    """The replaced build is removed by one process per core, each taking every other entry of its subfolders;
    links (to files or folders, at any level) are removed, never what they point to."""
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep" / "file").write_text("mine\n")
    old = tmp_path / "old"
    for number in range(9):
        (old / "servers" / f"srv{number}").mkdir(parents=True)
        (old / "servers" / f"srv{number}" / "nccl.env").write_text("x\n")
    (old / "configs" / "frr").mkdir(parents=True)
    (old / "configs" / "frr" / "leaf.conf").write_text("x\n")
    (old / "summary.md").write_text("x\n")
    (old / "servers" / "link").symlink_to(outside / "keep")
    (old / "configs" / "frr" / "link").symlink_to(outside / "keep" / "file")
    (old / "top-link").symlink_to(outside)
    designer.outputs.folder._remove(old)
    assert not old.exists() and (outside / "keep" / "file").read_text() == "mine\n"


def test_the_folder_is_a_whole_build_at_every_step_of_the_swap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rename and removal during a rebuild finds the output folder whole, before and after."""
    target = tmp_path / "out"
    old = built({"summary.md": b"old\n", "configs/frr/leaf.conf": b"old\n"})
    new = built({"summary.md": b"new\n", "configs/frr/leaf.conf": b"new\n", "asn.csv": b"new\n"})
    write(old, target)
    steps: list[str] = []

    def whole() -> bool:
        return target.is_dir() and (drift(old, target) == [] or drift(new, target) == [])

    def watched(name: str, real: object) -> object:
        def step(*args: object, **kwargs: object) -> object:
            assert whole(), f"the output folder is not whole before {name}{args}"
            result = real(*args, **kwargs)  # type: ignore[operator]
            assert whole(), f"the output folder is not whole after {name}{args}"
            steps.append(name)
            return result

        return step

    for name in ("rename", "replace"):
        monkeypatch.setattr(os, name, watched(name, getattr(os, name)))
    monkeypatch.setattr(shutil, "rmtree", watched("rmtree", shutil.rmtree))
    write(new, target)
    assert drift(new, target) == [] and set(steps) == {"rmtree"}  # the exchange, then the old build removed
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


def test_where_the_exchange_is_missing_two_renames_replace_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(designer.outputs.folder, "_exchange", lambda first, second: False)
    target = tmp_path / "out"
    write(built({"summary.md": b"old\n", "stale.csv": b"old\n"}), target)
    new = built({"summary.md": b"new\n"})
    write(new, target)
    assert snapshot(target) == new
    assert sorted(path.name for path in tmp_path.iterdir()) == ["out"]


KILLED_BUILD = """
import sys, time
import designer.outputs.folder
from designer.cli import main

real, when = designer.outputs.folder._exchange, sys.argv.pop(1)

def paused(first, second):
    swapped = real(first, second) if when == "after" else False
    print("at the swap", flush=True)
    time.sleep(600)
    return swapped

designer.outputs.folder._exchange = paused
sys.exit(main(sys.argv[1:]))
"""


@pytest.fixture(scope="module")
def old_build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes]]:
    """The small intent built by the command line, and the files a build of 64 servers writes over it."""
    folder = tmp_path_factory.mktemp("killed")
    target = folder / "out"
    assert run_cli("build", str(intent_file(folder, "old.yaml")), "-o", str(target))[0] == 0
    previous = Previous.of(target)  # the new build lists what it moves of the old one
    assert previous is not None
    return target, design_files(build_design(**{**SMALL, "servers": 64}), since=previous.section)


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_build_killed_at_the_swap_leaves_a_whole_folder(
    tmp_path: Path, when: str, old_build: tuple[Path, dict[str, bytes]]
) -> None:
    """SIGKILL just before or just after the exchange: the folder holds the previous or the new build, whole;
    the next build clears the staging folder that was left."""
    old_intent, new_intent = intent_file(tmp_path, "old.yaml"), intent_file(tmp_path, "new.yaml", servers=64)
    target = tmp_path / "out"
    shutil.copytree(old_build[0], target)
    assert old_intent.read_text() == (old_build[0] / "intent.yaml").read_text()
    old_files, new_files = snapshot(target), old_build[1]
    build = subprocess.Popen(
        [sys.executable, "-c", KILLED_BUILD, when, "build", str(new_intent), "-o", str(target)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert build.stdout is not None and build.stdout.readline() == "at the swap\n"
    finally:
        build.send_signal(signal.SIGKILL)
        build.wait()
    if when == "before":
        assert snapshot(target) == old_files
    else:
        assert drift(new_files, target) == []
    left = sorted(path.name for path in tmp_path.iterdir() if path.name.startswith("."))
    assert len(left) == 2 and left[0] == ".out.lock" and left[1].startswith(".out.new-")  # SIGKILL skips cleanup
    assert run_cli("build", str(new_intent), "-o", str(target))[0] == 0
    assert drift(new_files, target) == []
    assert sorted(path.name for path in tmp_path.iterdir()) == ["new.yaml", "old.yaml", "out"]


@needs(USER_NAMESPACES)
@pytest.mark.parametrize(
    "setup, output, expected",
    [
        (
            "mount -t tmpfs -o ro tmpfs {dir}",
            "{dir}/out",
            "Read-only file system ({dir}/.out.lock); the file system is read-only; choose a folder on a writable one",
        ),
        ("mount --bind {dir} {dir} && mount -o remount,bind,ro {dir}", "{dir}/out", "Read-only file system"),
        ("mount -t tmpfs tmpfs {dir}", "{dir}", "it is a mount point, which a build cannot replace"),
    ],
    ids=["read-only-file-system", "read-only-parent", "mount-point"],
)
def test_folders_the_system_will_not_let_us_replace_are_explained(
    tmp_path: Path, setup: str, output: str, expected: str
) -> None:
    folder = tmp_path / "mounted"
    folder.mkdir()
    intent = intent_file(tmp_path)
    script = f"{setup} && exec {sys.executable} -m designer.cli build {intent} -o {output}".format(dir=folder)
    result = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert expected.format(dir=folder) in result.stderr
    assert list(folder.iterdir()) == []


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """tests/intents/small-2tier.yaml built twice, into two folders."""
    folders = tmp_path_factory.mktemp("builds") / "a", tmp_path_factory.mktemp("builds") / "b"
    for folder in folders:
        assert run_cli("build", str(ROOT / "tests" / "intents" / "small-2tier.yaml"), "-o", str(folder))[0] == 0
    return folders


CANNED = ROOT / "tests" / "canned" / "infiniband-diags-44-ibnetdiscover-small-2tier.txt"


@pytest.mark.parametrize(
    ("command", "says"),
    [
        (["audit", "{a}", str(CANNED), "--sm-files", "{a}"], "it is the folder this command reads"),
        (["export", "avd", "{a}", "-o", "{a}"], "it is the folder this command reads"),
        (["export", "avd", "{a}", "-o", "{b}"], "designer build wrote it, and only designer build replaces it"),
        pytest.param(
            ["export", "anta", "{a}", "-o", "{b}"],
            "designer build wrote it, and only designer build replaces it",
            marks=needs(ANTA, PYAVD),  # export anta loads pyavd and anta before it looks at the folder
        ),
        (["explore", "{a}/intent.yaml", "--vary", "fabric.tiers=2", "-o", "{b}"], "designer build wrote it"),
    ],
    ids=["audit-its-own-input", "export-its-own-input", "export-over-a-build", "anta-over-a-build", "explore"],
)
def test_no_command_replaces_a_design_it_did_not_write(
    two_builds: tuple[Path, Path], command: list[str], says: str
) -> None:
    a, b = two_builds
    before = snapshot(a), snapshot(b)
    code, out, err = run_cli(*(part.format(a=a, b=b) for part in command))
    assert (code, out) == (2, ""), err
    assert says in err and "Traceback" not in err
    assert (snapshot(a), snapshot(b)) == before


@needs(ANTA, PYAVD)
def test_each_command_replaces_only_a_folder_of_its_own_kind(two_builds: tuple[Path, Path], tmp_path: Path) -> None:
    a, _ = two_builds
    export, explored, sm = tmp_path / "avd", tmp_path / "explored", tmp_path / "sm"
    for _ in range(2):  # the second time, each replaces what it wrote
        assert run_cli("export", "avd", str(a), "-o", str(export))[0] == 0
        assert run_cli("explore", str(a / "intent.yaml"), "--vary", "fabric.tiers=2", "-o", str(explored))[0] == 0
        assert run_cli("audit", str(a), str(CANNED), "--sm-files", str(sm))[0] == 0
    intent = str(ROOT / "tests" / "intents" / "small-2tier.yaml")
    for folder, wrote in ((export, "export avd"), (explored, "explore"), (sm, "sm-files")):
        before = snapshot(folder)
        code, _, err = run_cli("build", intent, "-o", str(folder))
        assert code == 2 and f"designer {wrote} wrote it, and only designer {wrote} replaces it" in err, err
        assert snapshot(folder) == before
    code, _, err = run_cli("export", "anta", str(a), "-o", str(export))
    assert code == 2 and "designer export avd wrote it" in err


@pytest.mark.parametrize("command", ["sync", "audit", "diff", "check"])
def test_a_design_json_edited_after_the_build_is_refused_by_every_reader(
    two_builds: tuple[Path, Path], tmp_path: Path, command: str
) -> None:
    """An edited design.json (its sha256 no longer the manifest's) is refused before anything reads it (or, for
    sync, before Nautobot is asked anything: port 9 of 127.0.0.1, discard, answers nothing)."""
    a, _ = two_builds
    edited = tmp_path / "edited"
    shutil.copytree(a, edited)
    data = json.loads((edited / "design.json").read_text())
    data["name"] = "renamed"
    (edited / "design.json").write_text(json.dumps(data))
    lldp = tmp_path / "p0-su0-r0-leaf.json"
    lldp.write_text(json.dumps({"lldp": [{"interface": []}]}))
    arguments = {
        "sync": ["sync", "nautobot", str(edited), "--url", "http://127.0.0.1:9", "--token", "t"],
        "audit": ["audit", str(edited), str(lldp)],
        "diff": ["diff", str(a), str(edited)],
        "check": ["check", str(edited)],
    }[command]
    code, out, err = run_cli(*arguments)
    assert (code, out) == (2, ""), err
    assert "design.json" in err and "changed after 'designer build'" in err and "Traceback" not in err

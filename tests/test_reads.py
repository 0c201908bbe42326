"""Every file designer reads back is bounded before it is read: a file above the cap of its kind is exit 2 with
``file: N bytes, larger than ...``, never a MemoryError.

The huge files are sparse: ``os.truncate`` (truncate(2): a file extended this way reads as zeros and takes no disk)
makes 3 GB or 20 GB in no time. Each command runs in a fresh process whose address space is limited (setrlimit(2),
``RLIMIT_AS``) far below the file's size, so reading the file whole, as designer did, fails there with a MemoryError
traceback (exit 1). The sizes of committed files come from real git (git-ls-tree(1): ``--long`` shows the size of
each blob). The caps and the sizes they come from are in docs/outputs.md ("Reading built files back").
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from designer.errors import InputError
from designer.readback.built import built_intent

ROOT = Path(__file__).resolve().parent.parent
INTENT = ROOT / "tests" / "intents" / "small-2tier.yaml"
MiB, GB3, GB20 = 1 << 20, 3 << 30, 20 << 30
CAPS = {
    "a design.json": 1024,
    "a table or report of a build": 1024,
    "a manifest.json": 128,
    "a switch configuration": 16,
    "a server's file": 1,
    "an intent": 1,
    "a template": 1,
}
"""MiB designer reads of each kind of file at most (docs/outputs.md's table)."""
MEMORY = 384 * MiB
"""Address space of each command: a few times what designer needs for a small design, far below the files."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A build of the small 2-tier intent, copied by each test that changes it."""
    folder = tmp_path_factory.mktemp("reads") / "small-2tier"
    assert run(["build", str(INTENT), "-o", str(folder)], folder.parent).returncode == 0
    return folder


def copy(built: Path, tmp_path: Path) -> Path:
    folder = tmp_path / "small-2tier"
    shutil.copytree(built, folder)
    return folder


def run(args: list[str], cwd: Path, memory: int = MEMORY) -> subprocess.CompletedProcess[str]:
    """``designer ARGS`` in a fresh process limited to ``memory`` bytes of address space (and 60 s of CPU)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (60, 60))

    return subprocess.run(
        [sys.executable, "-m", "designer.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        check=False,
        timeout=120,
    )


def refused(result: subprocess.CompletedProcess[str], where: str, size: int, kind: str) -> None:
    """Exit 2 naming ``where`` (a path, or a manifest's ``files.PATH``) with its size and the cap of its kind; no
    traceback, nothing on stdout."""
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr and "MemoryError" not in result.stderr, result.stderr
    assert f"{where}: {size:,} bytes, larger than the {CAPS[kind]:,} MiB {kind} may hold" in result.stderr, (
        result.stderr
    )
    assert result.stdout == ""


def grow(path: Path, size: int) -> None:
    """Make ``path`` a sparse file of ``size`` bytes (its text first)."""
    os.truncate(path, size)


def test_check_refuses_a_huge_design_json_manifest_json_and_server_file(built: Path, tmp_path: Path) -> None:
    folder = copy(built, tmp_path)
    grow(folder / "design.json", GB3)
    grow(folder / "servers" / "su0-srv0" / "nccl.env", GB3)
    result = run(["check", str(folder)], tmp_path)
    refused(result, "files.design.json", GB3, "a design.json")
    refused(result, "files.servers/su0-srv0/nccl.env", GB3, "a server's file")
    grow(folder / "manifest.json", GB20)
    refused(run(["check", str(folder)], tmp_path), f"{folder}/manifest.json", GB20, "a manifest.json")


def test_diff_refuses_a_huge_design_json_and_manifest_json(built: Path, tmp_path: Path) -> None:
    folder = copy(built, tmp_path)
    grow(folder / "design.json", GB20)
    refused(run(["diff", str(built), str(folder)], tmp_path), f"{folder}/design.json", GB20, "a design.json")
    shutil.rmtree(folder)
    folder = copy(built, tmp_path)
    grow(folder / "manifest.json", GB3)
    refused(run(["diff", str(built), str(folder)], tmp_path), f"{folder}/manifest.json", GB3, "a manifest.json")


def test_verify_refuses_a_huge_design_json_frr_conf_and_server_file_before_it_needs_root(
    built: Path, tmp_path: Path
) -> None:
    """``verify`` reads the folder before it asks for root or FRR, so these run anywhere."""
    folder = copy(built, tmp_path)
    config = folder / "configs" / "frr" / "p0-spine1.conf"
    grow(config, GB3)
    refused(run(["verify", str(folder)], tmp_path), str(config), GB3, "a switch configuration")
    os.truncate(config, (built / config.relative_to(folder)).stat().st_size)
    for server in (folder / "servers").iterdir():
        grow(server / "netplan.yaml", GB3)
    result = run(["verify", "--traffic", str(folder)], tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result
    assert re.search(
        rf"^{folder}/servers/su[01]-srv[0-3]/netplan.yaml: {GB3:,} bytes, larger than the 1 MiB a "
        "server's file may hold",
        result.stderr,
        re.MULTILINE,
    ), result.stderr
    grow(folder / "design.json", GB20)
    refused(run(["verify", str(folder)], tmp_path), f"{folder}/design.json", GB20, "a design.json")


def test_validate_configs_refuses_every_huge_config_before_any_parser_reads_one(built: Path, tmp_path: Path) -> None:
    folder = copy(built, tmp_path)
    for path in ("configs/frr/p0-spine0.conf", "configs/sonic/p0-su1-r1-leaf.json"):
        grow(folder / path, GB3)
    result = run(["validate-configs", str(folder)], tmp_path)
    refused(result, f"{folder}/configs/frr/p0-spine0.conf", GB3, "a switch configuration")
    refused(result, f"{folder}/configs/sonic/p0-su1-r1-leaf.json", GB3, "a switch configuration")


def test_build_check_refuses_a_huge_summary_md_and_server_file(built: Path, tmp_path: Path) -> None:
    """The review files are compared in the main process, the switch and server files in forked workers: both
    report the size, not a MemoryError."""
    folder = copy(built, tmp_path)
    grow(folder / "summary.md", GB3)
    result = run(["build", "--check", str(INTENT), "-o", str(folder)], tmp_path, memory=768 * MiB)
    refused(result, f"{folder}/summary.md", GB3, "a table or report of a build")
    os.truncate(folder / "summary.md", (built / "summary.md").stat().st_size)
    grow(folder / "servers" / "su1-srv3" / "sysctl.conf", GB20)
    result = run(["build", "--check", str(INTENT), "-o", str(folder)], tmp_path, memory=768 * MiB)
    refused(result, f"{folder}/servers/su1-srv3/sysctl.conf", GB20, "a server's file")


def test_build_refuses_to_replace_a_folder_with_a_huge_manifest(built: Path, tmp_path: Path) -> None:
    folder = copy(built, tmp_path)
    grow(folder / "manifest.json", GB20)
    result = run(["build", str(INTENT), "-o", str(folder)], tmp_path, memory=768 * MiB)
    refused(result, f"{folder}/manifest.json", GB20, "a manifest.json")
    assert (folder / "manifest.json").stat().st_size == GB20


def test_a_huge_template_override_is_refused(tmp_path: Path) -> None:
    templates = tmp_path / "templates" / "frr"
    templates.mkdir(parents=True)
    (templates / "bgp.j2").write_text("x")
    grow(templates / "bgp.j2", GB3)
    result = run(
        ["build", str(INTENT), "-o", str(tmp_path / "out"), "--templates", str(tmp_path / "templates")],
        tmp_path,
        memory=768 * MiB,
    )
    assert result.returncode == 2, result
    assert f"{templates / 'bgp.j2'}: {GB3:,} bytes, larger than the 1 MiB a template may hold" in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "out").exists()


def test_the_intent_a_folder_was_built_from_is_read_no_further_than_an_intent(built: Path, tmp_path: Path) -> None:
    folder = copy(built, tmp_path)
    grow(folder / "intent.yaml", GB3)
    with pytest.raises(InputError, match=rf"intent.yaml: {GB3:,} bytes, larger than the 1 MiB an intent may hold"):
        built_intent(folder)


def test_each_file_of_a_build_has_the_cap_of_its_kind(built: Path) -> None:
    """What kind each file of a build is."""
    from designer.files import output_cap

    kinds = {
        path.relative_to(built).as_posix(): output_cap(path.relative_to(built).parts).kind
        for path in built.rglob("*")
        if path.is_file()
    }
    assert kinds["design.json"] == "a design.json" and kinds["manifest.json"] == "a manifest.json"
    assert kinds["intent.yaml"] == "an intent"
    assert {kinds[path] for path in kinds if path.startswith("configs/")} == {"a switch configuration"}
    assert {kinds[path] for path in kinds if path.startswith("servers/")} == {"a server's file"}
    assert {kinds[path] for path in ("summary.md", "cabling.csv", "floorplan.svg", "topology.svg", "lab/clab.yml")} == {
        "a table or report of a build"
    }


def commit(repo: Path, message: str) -> None:
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", message], check=True)


def test_diff_of_git_revisions_refuses_a_committed_file_above_its_cap_before_git_prints_it(
    built: Path, tmp_path: Path
) -> None:
    """The sizes come from ``git ls-tree -l``: the blob is never read (real git, a 20 MiB configuration)."""
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    folder = copy(built, repo / "outputs")
    commit(repo, "built")
    grow(folder / "configs" / "frr" / "p0-spine0.conf", 20 * MiB)
    commit(repo, "edited")
    result = run(["diff", "HEAD~1", "HEAD"], repo)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result
    assert result.stderr.splitlines() == [
        f"outputs/small-2tier/configs/frr/p0-spine0.conf: {20 * MiB:,} bytes, larger than the 16 MiB a switch "
        "configuration may hold; it was not read",
        "1 error in HEAD:outputs/small-2tier/configs/frr/p0-spine0.conf; nothing was written.",
    ]


def test_diff_stops_git_at_the_cap_of_its_listing(built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A listing larger than its cap (here lowered to 1,000 bytes; the small build's is 20 times that) stops git."""
    from designer.files import Cap
    from designer.readback import diff

    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    copy(built, repo / "outputs")
    commit(repo, "built")
    monkeypatch.setattr(diff, "GIT_LISTING", Cap("the git listing of a revision's designs", 1000))
    with pytest.raises(
        InputError,
        match="git ls-tree -r -l HEAD -- outputs printed more than 1,000 bytes, larger "
        "than the git listing of a revision's designs may be",
    ):
        diff.load_revision("HEAD", repo=repo)
    monkeypatch.undo()
    assert diff.load_revision("HEAD", repo=repo).designs.keys() == {"small-2tier"}


def test_diff_holds_one_pair_of_configurations_at_a_time(built: Path, tmp_path: Path) -> None:
    """Both folders' 30 configurations grown to 15 MiB each (under the cap): 900 MiB in all, which the diff, limited
    to 384 MiB, compares pair by pair instead of holding (each is then an edit by hand: its sha256 changed)."""
    folders = [copy(built, tmp_path / side) for side in ("old", "new")]
    for folder in folders:
        for config in (folder / "configs").rglob("*.*"):
            grow(config, 15 * MiB)
    result = run(["diff", str(folders[0]), str(folders[1])], tmp_path)
    assert result.returncode == 0, result
    assert "**files edited by hand (they differ from the sha256 manifest.json lists): 30**" in result.stdout

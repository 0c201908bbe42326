"""``designer diff``: what a reviewer reads about a change, from two output folders or two git revisions.

Snapshots of whole reviews are in ``tests/diff/<case>.md`` (``pytest --update-golden`` rewrites them after an
intended change to the review's wording).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

from designer.outputs.build import design_files
from designer.outputs.folder import write
from designer.readback.diff import design_diff, diff, existing_changes, grown_only, load_dir
from tests.conftest import ROOT, check_golden
from tests.helpers import build_text, intent_text
from tests.test_intent_errors import run_cli

SMALL = {"servers": 32, "leaf": "{model: generic-32x400g}"}
SNAPSHOTS = ROOT / "tests" / "diff"


@cache
def outputs(name: str, changes: tuple[tuple[str, str], ...]) -> dict[str, bytes]:
    """The output files of the small intent with ``changes`` to intent_text, the design named ``name``: built once
    a run, since the design is the same each time (tests only read them)."""
    fields: dict[str, object] = {**SMALL, **dict(changes)}
    text = intent_text(**fields).replace("name: test\n", f"name: {name}\n")  # type: ignore[arg-type]
    return design_files(build_text(text))


def built(folder: Path, name: str = "test", **changes: str) -> Path:
    """Write the outputs of the small intent (with ``changes`` to intent_text) into ``folder/<name>``, the design
    named ``name`` too."""
    target = folder / name
    write(outputs(name, tuple(sorted(changes.items()))), target)
    return target


def section(text: str, title: str) -> list[str]:
    """The bullet lines under a bold ``title: N`` heading."""
    lines = text.splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith(f"**{title}: "))
    body = []
    for line in lines[start + 1 :]:
        if not line.startswith("- "):
            break
        body.append(line[2:])
    return [lines[start], *body]


def review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    """``designer diff`` run from ``tmp_path``, so that the labels are the relative paths given."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli("diff", *args)
    assert err == ""
    return code, out


def test_same_design_has_no_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built(tmp_path / "a"), built(tmp_path / "b")
    code, out = review(tmp_path, monkeypatch, "a/test", "b/test", "--fail-on", "existing-change")
    assert code == 0
    assert "### Existing items changed: 0\n\nNone: every existing name" in out
    assert "### Added\n\nNothing." in out and "No change to racks, power or the bill of materials." in out
    assert "| GPUs | 256 | 256 |  |" in out


def test_growth_step_inside_the_envelope_only_adds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_golden: bool
) -> None:
    built(tmp_path / "a", extra="growth: {max_servers: 64}")
    built(tmp_path / "b", servers=48, extra="growth: {max_servers: 64}")  # one more scalable unit
    code, out = review(tmp_path, monkeypatch, "a/test", "b/test", "--fail-on", "existing-change")
    assert code == 0
    check_golden(SNAPSHOTS / "growth_step.md", out, update_golden)


def test_growth_without_an_envelope_shows_what_it_re_patches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built(tmp_path / "a")
    built(tmp_path / "b", servers=48)  # 8 spines with 2 links to each leaf become 16 with 1
    code, out = review(tmp_path, monkeypatch, "a/test", "b/test", "--fail-on", "existing-change")
    assert code == 1
    assert section(out, "cables re-patched (a port now goes to another peer)") == [  # half: the fewest
        "**cables re-patched (a port now goes to another peer): 128**",
        "leaf-spine: 128 cables, e.g. p0-su0-r0-leaf swp25: p0-spine0 swp17 -> p0-spine8 swp1",
    ]
    assert (
        section(out, "router-ids (loopbacks) moved; each resets the switch's BGP sessions (128 BGP sessions touched)")[
            1
        ]
        == "spine loopbacks shifted by +8: 8 switches, e.g. p0-spine0 10.255.0.16 -> "
        "10.255.0.24"
    )


def test_a_two_to_three_tier_envelope_change_renames_and_moves_but_re_patches_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_golden: bool
) -> None:
    built(tmp_path / "a", extra="growth: {max_servers: 64}")
    built(tmp_path / "b", extra="growth: {max_servers: 128}")  # 3 tiers: the 2-tier fabric becomes pod 0
    code, out = review(tmp_path, monkeypatch, "a/test", "b/test", "--fail-on", "existing-change")
    assert code == 1
    assert "re-patched" not in out and "readdressed" not in out
    check_golden(SNAPSHOTS / "tiers_envelope.md", out, update_golden)


def test_a_renamed_design_is_compared_with_itself(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_golden: bool
) -> None:
    """Two single folders are compared whatever their names; folders of designs pair by the design's name."""
    built(tmp_path / "a", "cluster-a")
    built(tmp_path / "b", "cluster-b", servers=48)
    code, out = review(tmp_path, monkeypatch, "a/cluster-a", "b/cluster-b")
    assert code == 0
    check_golden(SNAPSHOTS / "rename.md", out, update_golden)
    built(tmp_path / "c", "cluster-a", servers=48)
    (tmp_path / "c" / "cluster-a").rename(tmp_path / "c" / "moved-folder")
    _, out = review(tmp_path, monkeypatch, "a", "c")
    assert out.startswith("## cluster-a (a -> c)") and "removed" not in out.splitlines()[2]


def test_a_hand_edited_config_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, update_golden: bool) -> None:
    built(tmp_path / "a")
    new = built(tmp_path / "b")
    config = new / "configs" / "frr" / "p0-su0-r0-leaf.conf"
    config.write_text(
        config.read_text().replace(
            " neighbor 10.0.0.0 remote-as 4201000000\n", " neighbor 10.0.0.0 remote-as 4201000999\n"
        )
    )
    code, out = review(tmp_path, monkeypatch, "a/test", "b/test", "--fail-on", "existing-change")
    assert code == 1
    check_golden(SNAPSHOTS / "hand_edit.md", out, update_golden)


def test_qos_and_check_results_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built(tmp_path / "a")
    built(tmp_path / "b", extra="qos: {profile: cisco}\nchecks: {ecmp_max_width: 8}")
    _, out = review(tmp_path, monkeypatch, "a/test", "b/test")
    assert section(out, "QoS changed") == [
        "**QoS changed: 5**",
        "cnp_priority: 6 -> 7",
        "dscp_to_tc: {'26': 3, '48': 6} -> {'26': 3, '48': 7}",
        "ecn_max: 1536000 -> 3072000",
        "ecn_probability: 100 -> 7",
        "profile: nvidia -> cisco",
    ]
    assert "passed, 0 failed, 0 with warnings -> " in out and " passed, 1 failed, 0 with warnings\n" in out
    findings = section(out, "new check findings")
    assert findings[0] == "**new check findings: 16**"
    assert findings[1].startswith("ecmp-balance error p0-su0-r0-leaf: ECMP group of 16")


def test_git_revisions_read_design_configs_and_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    built(repo / "outputs", extra="growth: {max_servers: 64}")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    built(repo / "outputs", servers=48, extra="growth: {max_servers: 64}")
    config = repo / "outputs" / "test" / "configs" / "eos" / "p0-spine0.cfg"
    config.write_text(config.read_text().replace("hostname p0-spine0", "hostname spine-zero"))
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "two"], check=True)
    monkeypatch.chdir(repo)
    code, out, _ = run_cli("diff", "HEAD~1", "HEAD", "--fail-on", "existing-change")
    assert code == 1
    assert out.startswith("## test (HEAD~1 -> HEAD)") and "**devices added: 24**" in out
    assert section(out, "files edited by hand (they differ from the sha256 manifest.json lists)") == [
        "**files edited by hand (they differ from the sha256 manifest.json lists): 1**",
        "configs/eos/p0-spine0.cfg",
    ]
    code, out, err = run_cli("diff", "no-such-revision", "HEAD")
    assert (code, out) == (2, "") and "git ls-tree" in err and "give two output folders or two git revisions" in err


def test_the_tutorials_gate_on_one_design_of_a_repository_of_several(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/tutorial.md's ``designer diff HEAD outputs/<name> --fail-on existing-change`` in a repository of several
    designs compares that design alone: the others are neither removed nor added by it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    built(repo / "outputs", extra="growth: {max_servers: 64}")
    built(repo / "outputs", name="other")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    built(repo / "outputs", servers=48, extra="growth: {max_servers: 64}")
    monkeypatch.chdir(repo)
    code, out, _ = run_cli("diff", "HEAD", "outputs/test", "--fail-on", "existing-change")
    assert code == 0, out
    assert out.startswith("## test (HEAD -> outputs/test)") and "## other" not in out and "removed (" not in out
    code, out, _ = run_cli("diff", "HEAD", "outputs")  # the whole folder: every design
    assert "## other" in out


def test_a_folder_without_a_design_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, _, err = run_cli("diff", str(tmp_path / "empty"), str(built(tmp_path / "b")))
    assert code == 2 and "has no design.json" in err


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (
            b'{"summary":1,"devices":2,"links":3}',
            [
                "design.json:1: summary: 1 is not a JSON object",
                "design.json:1: devices: 2 is not a list",
                "name is missing",
            ],
        ),
        (b"\xff\xfe", ["design.json:1: (top-level): not UTF-8 text (byte 0xff)"]),
        (b"[" * 100_000 + b"]" * 100_000, ["design.json:1: (top-level): JSON nested too deeply to read"]),
        (
            b'{"name": "x", "summary": {}, "devices": [], "links": [], "findings": [{"check": 1}]}',
            ["summary: tiers is missing", "findings[0].check: 1 is not a string", "findings[0]: severity is missing"],
        ),
    ],
)
def test_a_design_json_that_is_not_a_design_is_named_with_what_is_wrong(
    content: bytes, says: list[str], tmp_path: Path
) -> None:
    old, new = built(tmp_path / "a"), built(tmp_path / "b")
    (new / "design.json").write_bytes(content)
    manifest = json.loads((new / "manifest.json").read_text())  # its sha256 listed, as a build would list it
    manifest["files"]["design.json"] = hashlib.sha256(content).hexdigest()
    (new / "manifest.json").write_text(json.dumps(manifest))
    code, out, err = run_cli("diff", str(old), str(new))
    assert (code, out) == (2, "") and "Traceback" not in err
    assert all(text in err for text in says), err
    assert err.startswith(f"{new}/design.json:")
    assert err.rstrip().splitlines()[-1].endswith(f"in {new}/design.json; nothing was written.")


def test_a_design_json_that_is_a_folder_or_a_link_is_refused(tmp_path: Path) -> None:
    built(tmp_path / "a")
    (tmp_path / "b" / "test").mkdir(parents=True)
    (tmp_path / "b" / "test" / "design.json").mkdir()
    code, _, err = run_cli("diff", str(tmp_path / "a"), str(tmp_path / "b"))
    assert code == 2 and f"{tmp_path}/b/test/design.json: is a folder; a built output holds regular files only" in err
    (tmp_path / "b" / "test" / "design.json").rmdir()
    (tmp_path / "b" / "test" / "design.json").symlink_to(tmp_path / "a" / "test" / "design.json")
    code, _, err = run_cli("diff", str(tmp_path / "a"), str(tmp_path / "b" / "test"))
    assert code == 2 and "design.json: is a symbolic link" in err


def test_a_committed_design_that_is_not_utf8_names_the_revision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "outputs" / "test").mkdir(parents=True)
    (repo / "outputs" / "test" / "design.json").write_bytes(b'{"name": "\xff"}\n')
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    monkeypatch.chdir(repo)
    code, out, err = run_cli("diff", "HEAD", "HEAD")
    assert (code, out) == (2, "")
    assert err.startswith("HEAD:outputs/test/design.json:1: (top-level): not UTF-8 text (byte 0xff)")


def test_errors_about_folders_and_revisions_do_not_blame_an_intent(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    _, _, err = run_cli("diff", str(tmp_path / "empty"), str(tmp_path / "empty"))
    assert err.rstrip().splitlines()[-1] == f"1 error in {tmp_path / 'empty'}; nothing was written."
    _, _, err = run_cli("diff", "no-such-revision", "HEAD")
    assert err.rstrip().splitlines()[-1] == "1 error in the git revisions; nothing was written."
    assert "in the intent" not in err


def test_build_reports_what_it_moved_and_summary_md_lists_it(tmp_path: Path) -> None:
    intent = tmp_path / "intent.yaml"
    target = tmp_path / "out"

    def build(**fields: object) -> str:
        intent.write_text(intent_text(**{**SMALL, **fields}))  # type: ignore[arg-type]
        code, out, err = run_cli("build", str(intent), "-o", str(target))
        assert (code, err) == (0, "")
        return out

    assert "existing items" not in build(extra="growth: {max_servers: 64}")
    out = build(extra="growth: {max_servers: 128}")
    # the count of the review of the same change (tests/diff/tiers_envelope.md): existing_changes for both
    assert (
        "existing items changed since the previous build: 544 (tiers 2 -> 3; envelope (servers) 64 -> 128); "
        "summary.md lists them"
    ) in out
    summary = (target / "summary.md").read_text()
    assert "## Existing items changed since the previous build\n\n544 items that existed" in summary
    assert "**devices renamed: 16**\n- p0-spine0 -> p0-pod0-spine0 (loopback 10.255.0.32 -> 10.255.0.64" in summary
    assert run_cli("build", "--check", str(intent), "-o", str(target))[0] == 0  # the list is kept on a rebuild
    assert "existing items" not in build(extra="growth: {max_servers: 128}")
    assert (target / "summary.md").read_text() == summary
    assert "existing items" not in build(servers=48, extra="growth: {max_servers: 128}")  # growth only adds
    assert "since the previous build" not in (target / "summary.md").read_text()


def test_a_previous_design_json_that_is_not_a_design_is_not_compared(tmp_path: Path) -> None:
    """The previous build's design.json is read only when the new one differs; if it is then no design (edited
    by hand), the build goes on and lists nothing it moved, as if there were no previous build."""
    intent, target = tmp_path / "intent.yaml", tmp_path / "out"
    intent.write_text(intent_text(**SMALL))  # type: ignore[arg-type]
    assert run_cli("build", str(intent), "-o", str(target))[0] == 0
    (target / "design.json").write_text('{"name": 1, "links": "none"}\n')
    intent.write_text(intent_text(**{**SMALL, "extra": "growth: {max_servers: 128}"}))  # type: ignore[arg-type]
    code, out, err = run_cli("build", str(intent), "-o", str(target))
    assert (code, err) == (0, "") and "existing items" not in out
    assert "since the previous build" not in (target / "summary.md").read_text()


def test_only_grown_is_said_from_the_lines_where_the_full_comparison_finds_nothing_moved() -> None:
    """A rebuild skips parsing both design.json files when every device and link line of the previous one is in
    the new one (``grown_only``). On growth inside the envelope, growth past it (renumbering), a link readdressed,
    a device renamed and a file in another layout, it must say "only grown" only where the full comparison finds
    no existing item changed."""

    def text(**changes: str) -> str:
        return outputs("test", tuple(sorted(changes.items())))["design.json"].decode()

    small = text(extra="growth: {max_servers: 64}")
    pairs = {
        "grown inside the envelope": (small, text(servers=48, extra="growth: {max_servers: 64}")),
        "grown past it": (small, text(servers=48, extra="growth: {max_servers: 128}")),
        "a link readdressed": (small.replace('"subnet": "10.16.0.0/31"', '"subnet": "10.16.0.2/31"', 1), small),
        "a device renamed": (small.replace("p0-su0-r0-leaf", "p0-su0-r0-leaf-old"), small),
        "another layout": (json.dumps(json.loads(small)), small),
    }
    said = {case: grown_only(before.encode(), after.encode()) for case, (before, after) in pairs.items()}
    assert said == {
        "grown inside the envelope": True,
        "grown past it": False,
        "a link readdressed": False,
        "a device renamed": False,
        "another layout": False,
    }
    for case, (before, after) in pairs.items():
        moved = existing_changes(json.loads(before), json.loads(after)).count
        assert (moved == 0) >= said[case], case


def test_the_python_api_gives_the_same_review(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    built(tmp_path / "a", extra="growth: {max_servers: 64}")
    built(tmp_path / "b", servers=48, extra="growth: {max_servers: 64}")
    _, out = review(tmp_path, monkeypatch, "a/test", "b/test")
    old, new = load_dir(Path("a/test")), load_dir(Path("b/test"))
    assert diff(old, new) == out
    assert (
        design_diff(
            "test", old.designs["test"], new.designs["test"], "a/test", "b/test", old.files["test"], new.files["test"]
        )
        == out
    )


MOVED = re.compile(r"existing items changed since the previous build: ([\d,]+)")
ITEMS = re.compile(r"^### Existing items changed: ([\d,]+)$", re.MULTILINE)
CONFIGURATIONS = re.compile(r"^### Existing configurations changed: ([\d,]+)$", re.MULTILINE)


def build_twice_and_diff(tmp_path: Path, first: str, second: str) -> tuple[str, str]:
    """What ``designer build`` prints when the intent ``second`` replaces the build of ``first`` in one folder,
    and ``designer diff`` of a copy of the first build against the second."""
    intent, target = tmp_path / "intent.yaml", tmp_path / "out"
    printed = []
    for text in (first, second):
        intent.write_text(text)
        if target.exists():
            shutil.copytree(target, tmp_path / "before")
        code, out, err = run_cli("build", str(intent), "-o", str(target))
        assert (code, err) == (0, "")
        printed.append(out)
    code, review_text, err = run_cli("diff", str(tmp_path / "before"), str(target))
    assert err == ""
    return printed[1], review_text


def counts(build_out: str, review_text: str) -> tuple[int, int, int]:
    """The items build says it changed, the items diff says changed, and the configurations diff lists."""
    number = [
        int(found.group(1).replace(",", "")) if found else 0
        for found in (MOVED.search(build_out), ITEMS.search(review_text), CONFIGURATIONS.search(review_text))
    ]
    return number[0], number[1], number[2]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"extra": "growth: {max_servers: 64}"}, {"extra": "growth: {max_servers: 128}"}),  # 2 -> 3 tiers
        ({}, {"servers": 48}),  # a growth step without an envelope: spines re-patched
        ({"extra": "growth: {max_servers: 64}"}, {"servers": 48, "extra": "growth: {max_servers: 64}"}),  # only adds
    ],
    ids=["tiers", "growth-step-re-patching", "growth-step-inside-the-envelope"],
)
def test_build_and_diff_count_the_same_existing_items(
    tmp_path: Path, first: dict[str, str], second: dict[str, str]
) -> None:
    """One definition of an existing item (a device, its loopback, ASN and rack place, a link, its /31, cable
    length and medium: what design.json holds), counted by ``existing_changes`` for both commands; configuration
    files of existing switches are counted apart, by diff alone (they follow from the items and the intent)."""
    build_out, review_text = build_twice_and_diff(
        tmp_path,
        intent_text(**{**SMALL, **first}),  # type: ignore[arg-type]
        intent_text(**{**SMALL, **second}),
    )  # type: ignore[arg-type]
    moved, items, _ = counts(build_out, review_text)
    assert moved == items
    assert CONFIGURATIONS.search(review_text)


def test_build_and_diff_agree_on_the_shipped_cluster_crossing_to_three_tiers(tmp_path: Path) -> None:
    """intents/cluster.yaml with its envelope doubled from 256 to 512 servers crosses from 2 to 3 tiers: build and
    diff both say 1,299 existing items changed; diff alone adds the 288 configurations that lose lines."""
    shipped = (ROOT / "intents" / "cluster.yaml").read_text()
    assert "max_servers: 256 " in shipped
    build_out, review_text = build_twice_and_diff(
        tmp_path, shipped, shipped.replace("max_servers: 256 ", "max_servers: 512 ")
    )
    assert counts(build_out, review_text) == (1299, 1299, 288)

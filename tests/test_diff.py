"""``designer diff``: what a reviewer reads about a change, from two output folders or two git revisions."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from designer.outputs import design_files
from designer.outputs.folder import write
from tests.helpers import build_text, intent_text
from tests.test_intent_errors import run_cli

SMALL = {"servers": 32, "leaf": "{model: generic-32x400g}"}


def built(folder: Path, **changes: str) -> Path:
    """Write the outputs of the small intent (with ``changes`` to intent_text) into ``folder/test``."""
    fields: dict[str, object] = {**SMALL, **changes}
    target = folder / "test"
    write(design_files(build_text(intent_text(**fields))), target)  # type: ignore[arg-type]
    return target


def section(text: str, title: str) -> list[str]:
    """The bullet lines under a bold ``title: N`` heading."""
    lines = text.splitlines()
    start = next(number for number, line in enumerate(lines) if line.startswith(f"**{title}: "))
    body = []
    for line in lines[start + 1:]:
        if not line.startswith("- "):
            break
        body.append(line[2:])
    return [lines[start], *body]


def test_same_design_has_no_change(tmp_path: Path) -> None:
    old, new = built(tmp_path / "a"), built(tmp_path / "b")
    code, out, _ = run_cli("diff", str(old), str(new))
    assert code == 0
    assert out.endswith("No change to devices, links, addresses, BGP sessions, QoS or checks.\n")
    assert "| GPUs | 256 | 256 |  |" in out


def test_growth_lists_devices_links_sessions_and_counts(tmp_path: Path) -> None:
    old = built(tmp_path / "a")
    new = built(tmp_path / "b", servers=48)       # one more scalable unit: 16 servers, 8 leaves and 8 spines more
    code, out, _ = run_cli("diff", str(old), str(new))
    assert code == 0
    assert "| GPUs | 256 | 384 | +128 |" in out
    assert "| leaf switches | 16 | 24 | +8 |" in out
    added = section(out, "devices added")
    assert added[0] == "**devices added: 32**"
    assert added[1:] == [*(f"p0-spine{index}" for index in range(8, 16)), "p0-su2-r0-leaf", "p0-su2-r1-leaf",
                         "and 22 more"]
    assert section(out, "links added")[0].startswith("**links added: ")
    assert section(out, "BGP sessions added")[0].startswith("**BGP sessions added: ")


def test_renumbering_shows_asn_and_session_changes(tmp_path: Path) -> None:
    old = built(tmp_path / "a")
    new = built(tmp_path / "b", extra="routing: {spine_asn_start: 4200001000}")
    _, out, _ = run_cli("diff", str(old), str(new))
    changes = section(out, "device changes (role, model, loopback, ASN)")
    assert changes[:2] == ["**device changes (role, model, loopback, ASN): 8**",
                           "p0-spine0: asn 4200000016 -> 4200001000"]
    sessions = section(out, "BGP sessions changed (addresses, ASNs)")
    assert sessions[0] == "**BGP sessions changed (addresses, ASNs): 256**"
    assert sessions[1] == ("p0-spine0:swp1 - p0-su0-r0-leaf:swp17: 10.0.0.0 AS4200000016 <-> 10.0.0.1 AS4200000000 "
                           "-> 10.0.0.0 AS4200001000 <-> 10.0.0.1 AS4200000000")
    assert "devices added" not in out and "links added" not in out


def test_qos_and_check_results_changes(tmp_path: Path) -> None:
    old = built(tmp_path / "a")
    new = built(tmp_path / "b", extra="qos: {profile: cisco}\nchecks: {ecmp_max_width: 8}")
    _, out, _ = run_cli("diff", str(old), str(new))
    assert section(out, "QoS changed") == [
        "**QoS changed: 5**", "cnp_priority: 6 -> 7", "dscp_to_tc: {'26': 3, '48': 6} -> {'26': 3, '48': 7}",
        "ecn_max: 1536000 -> 3072000", "ecn_probability: 100 -> 7", "profile: nvidia -> cisco"]
    assert "passed, 0 failed, 0 with warnings -> " in out and " passed, 1 failed, 0 with warnings\n" in out
    findings = section(out, "new check findings")
    assert findings[0] == "**new check findings: 16**"
    assert findings[1].startswith("ecmp-balance error p0-su0-r0-leaf: ECMP group of 16")


def test_git_revisions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    built(repo / "outputs")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    built(repo / "outputs", servers=48)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "two"], check=True)
    monkeypatch.chdir(repo)
    code, out, _ = run_cli("diff", "HEAD~1", "HEAD")
    assert code == 0
    assert out.startswith("## test (HEAD~1 -> HEAD)") and "**devices added: 32**" in out
    code, out, err = run_cli("diff", "no-such-revision", "HEAD")
    assert (code, out) == (2, "") and "git ls-tree" in err and "give two output folders or two git revisions" in err


def test_a_folder_without_a_design_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    code, _, err = run_cli("diff", str(tmp_path / "empty"), str(built(tmp_path / "b")))
    assert code == 2 and "has no design.json" in err


@pytest.mark.parametrize(("content", "says"), [
    (b'{"summary":1,"devices":2,"links":3}', ["design.json:1: summary: 1 is not a JSON object",
                                               "design.json:1: devices: 2 is not a list", "name is missing"]),
    (b"\xff\xfe", ["design.json:1: (top-level): not UTF-8 text (byte 0xff)"]),
    (b"[" * 100_000 + b"]" * 100_000, ["design.json:1: (top-level): JSON nested too deeply to read"]),
    (b'{"name": "x", "summary": {}, "devices": [], "links": [], "findings": [{"check": 1}]}',
     ["summary: tiers is missing", "findings[0].check: 1 is not a string", "findings[0]: severity is missing"]),
])
def test_a_design_json_that_is_not_a_design_is_named_with_what_is_wrong(content: bytes, says: list[str],
                                                                        tmp_path: Path) -> None:
    old, new = built(tmp_path / "a"), built(tmp_path / "b")
    (new / "design.json").write_bytes(content)
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


def test_a_committed_design_that_is_not_utf8_names_the_revision(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
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

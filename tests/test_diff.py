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
                           "p0-spine0: asn 4201000000 -> 4200001000"]
    sessions = section(out, "BGP sessions changed (addresses, ASNs)")
    assert sessions[0] == "**BGP sessions changed (addresses, ASNs): 256**"
    assert sessions[1] == ("p0-spine0:swp1 - p0-su0-r0-leaf:swp17: 10.0.0.0 AS4201000000 <-> 10.0.0.1 AS4200000000 "
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

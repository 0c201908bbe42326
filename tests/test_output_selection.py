"""What a build writes is the intent's choice (``outputs``: the server files and the lab; ``targets``: the switch
configurations), and ``designer build`` says what it wrote, part by part, in files and MB."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from designer.outputs.build import design_files
from designer.outputs.summary import written_lines
from tests.helpers import build_text, intent_text, part_sizes
from tests.test_intent_errors import run_cli

OPTIONAL = ("servers/", "lab/")


def intent(outputs: str = "") -> str:
    return intent_text(servers=64, extra="targets: [frr]\n" + (f"outputs: {outputs}\n" if outputs else ""))


@cache
def files(outputs: str = "") -> dict[str, bytes]:
    return design_files(build_text(intent(outputs)))


def test_by_default_a_build_writes_the_server_files_and_the_lab() -> None:
    written = files()
    assert sum(path.startswith("servers/") for path in written) == 64 * 5  # netplan, sysctl, QoS, NCCL, lldpd
    assert {path for path in written if path.startswith("lab/")} == {"lab/clab.yml", "lab/daemons"}


@pytest.mark.parametrize(
    ("outputs", "left_out"),
    [
        ("{servers: false}", ("servers/",)),
        ("{lab: false}", ("lab/",)),
        ("{servers: false, lab: false}", OPTIONAL),
    ],
)
def test_a_part_left_out_is_all_that_changes(outputs: str, left_out: tuple[str, ...]) -> None:
    everything, chosen = files(), files(outputs)
    assert set(chosen) == {path for path in everything if not path.startswith(left_out)}
    # every other file the same bytes; the summary says what was left out, the manifest lists what was written
    differ = {path for path in chosen if chosen[path] != everything[path]}
    assert differ == {"intent.yaml", "design.json", "summary.md", "manifest.json"}
    changed_lines = set(chosen["design.json"].splitlines()) ^ set(everything["design.json"].splitlines())
    assert {line.split(b":")[0].strip() for line in changed_lines} == {b'"intent_sha256"'}  # the new intent's hash
    named = {"servers/": "the server files (`servers/`)", "lab/": "the containerlab lab (`lab/`)"}
    line = "- not written, as the intent's `outputs` says: " + " and ".join(named[part] for part in left_out)
    assert line in chosen["summary.md"].decode().splitlines()
    assert set(json.loads(chosen["manifest.json"])["files"]) == set(chosen) - {"manifest.json"}


def test_without_frr_there_is_no_lab_and_nothing_to_say_about_it() -> None:
    text = intent_text(servers=64, extra="targets: [eos]\noutputs: {lab: false}\n")
    written = design_files(build_text(text))
    assert not any(path.startswith(OPTIONAL[1]) for path in written)
    assert "not written" not in written["summary.md"].decode()


def test_build_prints_each_part_and_the_total_and_the_drift_gate_holds_the_selection(tmp_path: Path) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(intent("{servers: false}"))
    target = tmp_path / "out"
    code, out, err = run_cli("build", str(path), "-o", str(target))
    assert (code, err) == (0, "")
    on_disk = sorted(str(file.relative_to(target)) for file in target.rglob("*") if file.is_file())
    assert on_disk == sorted(files("{servers: false}"))  # forked writers and the in-memory build agree
    sizes = part_sizes(target)
    assert set(sizes) == {"configs/frr", "configs/sysctl", "lab", "review files"}
    assert sum(count for count, _ in sizes.values()) == len(on_disk)
    assert sum(size for _, size in sizes.values()) == sum((target / file).stat().st_size for file in on_disk)
    printed = out.splitlines()
    assert printed[-len(sizes) - 1 :] == written_lines(sizes, target, f"read {target / 'summary.md'} first").split("\n")
    assert run_cli("build", "--check", str(path), "-o", str(target))[0] == 0
    path.write_text(intent())  # the server files asked for again: the committed folder lacks them
    code, _, err = run_cli("build", "--check", str(path), "-o", str(target))
    assert code == 1 and "missing: servers/su0-srv0/netplan.yaml" in err


def test_written_lines_put_the_largest_part_first_and_the_total_last() -> None:
    sizes = {"configs/eos": (2, 1_500_000), "review files": (3, 2_600_000), "servers": (1000, 40_000_000)}
    assert written_lines(sizes, Path("outputs/x"), "read outputs/x/summary.md first").split("\n") == [
        "  servers         1,000 files     40.0 MB",
        "  review files        3 files      2.6 MB",
        "  configs/eos         2 files      1.5 MB",
        "wrote 1,005 files, 44.1 MB, to outputs/x; read outputs/x/summary.md first",
    ]

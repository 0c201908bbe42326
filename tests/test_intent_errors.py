"""Every kind of bad intent gets exit 2, every problem on stderr with file:line and field, and no output.

Each ``tests/errors/<case>.yaml`` has its expected stderr in ``<case>.txt`` (``pytest --update-golden``
rewrites them after an intended change to a message).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import resource
import signal
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.common import INTENT
from designer.backend.allocate import address_problems
from designer.backend.sizing import MAX_LINKS, MAX_SWITCHES, size
from designer.cli import main
from designer.intent import parse_intent
from tests.conftest import check_golden

CASES = sorted((Path(__file__).parent / "errors").glob("*.yaml"))


def run_cli(*args: str) -> tuple[int, str, str]:
    """Run the command line in-process; returns (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("case", CASES, ids=[case.stem for case in CASES])
def test_bad_intent_is_explained_and_nothing_is_written(
    case: Path, tmp_path: Path, update_golden: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
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


ERROR_LINE = re.compile(r"^[^:\n]+:\d+: \S+: .+$")


@dataclass(frozen=True)
class Outcome:
    code: int
    stdout: str
    stderr: str


HANG_FACTOR = 6
"""How many times its CPU-time bound a forked case may take on the wall clock before it counts as hung."""


def run_forked(args: list[str], folder: Path, seconds: int = 20, memory: int = 2 << 30) -> Outcome:
    """``designer ARGS`` in a forked child limited to ``seconds`` of CPU time and ``memory`` bytes, its output
    captured in files of ``folder``: a case that runs away (exit -24 or 1) or hangs (exit -14, after
    :data:`HANG_FACTOR` times ``seconds`` of wall time) fails alone instead of taking the run down. The bound is on
    CPU time, so a machine busy with other work does not fail a case that stays within it."""
    out, err = folder / "stdout", folder / "stderr"
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 3
        try:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))
            signal.alarm(seconds * HANG_FACTOR)
            with (
                open(out, "w") as stdout,
                open(err, "w") as stderr,
                contextlib.redirect_stdout(stdout),
                contextlib.redirect_stderr(stderr),
            ):
                try:
                    code = main(args)
                except BaseException:
                    traceback.print_exc(file=stderr)
                    code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return Outcome(os.waitstatus_to_exitcode(status), out.read_text(errors="replace"), err.read_text(errors="replace"))


def refused(text: str | bytes, tmp_path: Path, name: str = "intent.yaml") -> list[str]:
    """The error lines (count line dropped) of ``designer plan`` on an intent file holding ``text``."""
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    outcome = run_forked(["plan", str(path)], tmp_path)
    assert outcome.code == 2, outcome
    lines = outcome.stderr.splitlines()
    assert lines[-1].endswith("in the intent; nothing was written."), outcome.stderr
    assert all(ERROR_LINE.match(line) for line in lines[:-1]), outcome.stderr
    return [line.removeprefix(f"{path}:") for line in lines[:-1]]


VALID = (Path(__file__).parent / "errors" / "duplicate_key.yaml").read_text().replace("  servers: 256\n", "")


@pytest.mark.parametrize("character", ["\0", "\x0c", "\x15", "\x7f"])
def test_control_characters_are_errors_at_their_line(character: str, tmp_path: Path) -> None:
    text = VALID.replace("server: dgx-h100", f"server: dgx{character}h100")
    assert refused(text, tmp_path) == [
        f"4: (top-level): the character {character!r} (U+{ord(character):04X}) at "
        "column 14 is not allowed in YAML; use printable text (tabs and line breaks "
        "are fine)"
    ]


def test_invalid_utf8_names_the_line_and_the_byte(tmp_path: Path) -> None:
    text = VALID.encode().replace(b"dgx-h100", b"dgx-h\xff100")
    assert refused(text, tmp_path) == [
        "4: (top-level): byte 0xff at column 16 is not UTF-8 text; save the intent as UTF-8 (plain ASCII is UTF-8)"
    ]


def test_a_missing_file_is_an_error_at_line_1(tmp_path: Path) -> None:
    outcome = run_forked(["plan", str(tmp_path / "nowhere.yaml")], tmp_path)
    assert (outcome.code, outcome.stderr.splitlines()[0]) == (
        2,
        (
            f"{tmp_path}/nowhere.yaml:1: (top-level): no such file; give the path of an intent YAML file, for example "
            "intents/cluster.yaml"
        ),
    )


@pytest.mark.parametrize("kind", ["directory", "fifo", "device"])
def test_what_is_not_a_regular_file_is_refused_without_reading_it(kind: str, tmp_path: Path) -> None:
    path = {"directory": tmp_path / "folder.yaml", "fifo": tmp_path / "pipe.yaml", "device": Path("/dev/zero")}[kind]
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)  # nothing ever writes: opening it to read would wait forever
    outcome = run_forked(["plan", str(path)], tmp_path, seconds=10, memory=1 << 30)
    expected = {"directory": "a directory", "fifo": "a named pipe", "device": "a device"}[kind]
    assert (outcome.code, outcome.stderr.splitlines()[0]) == (
        2,
        (f"{path}:1: (top-level): is {expected}, not a file; give the path of an intent YAML file"),
    )


def test_a_file_above_the_size_limit_is_refused(tmp_path: Path) -> None:
    assert refused(VALID + "#" * (1 << 20), tmp_path) == [
        "1: (top-level): the file is larger than 1024 KiB; an intent is a few dozen lines"
    ]


def test_a_long_intent_without_aliases_is_not_called_an_alias_bomb(tmp_path: Path) -> None:
    """8,000 workloads of 7 values each ran past the 50,000-values limit, and the error blamed aliases the file did
    not have."""
    workloads = "".join(
        f"  - {{name: w{number}, gpus: 16, bytes: 1GB, placement: packed, channels: 1, qps_per_connection: 1}}\n"
        for number in range(8000)
    )
    errors = refused(VALID + "workloads:\n" + workloads, tmp_path)
    assert not any("alias" in error for error in errors), errors
    assert any("the intent holds more than 50,000 values" in error for error in errors), errors


def test_a_lone_surrogate_is_refused_at_load(tmp_path: Path) -> None:
    """It passed ``plan`` and broke ``build`` when summary.md was written (UnicodeEncodeError)."""
    text = VALID.replace("name: cluster-a\n", 'name: cluster-a\ndescription: "\\udc80"\n')
    assert refused(text, tmp_path)[0].startswith("2: description: the text holds '\\udc80' (U+DC80)")


def test_keys_that_are_not_plain_words_keep_their_line_and_one_line_each(tmp_path: Path) -> None:
    text = VALID.replace("  server: dgx-h100\n", '  server: dgx-h100\n  2: two\n  "x\\ny": 1\n')
    assert refused(text, tmp_path) == [
        "5: compute.2: the key '2' is read as a number; keys are strings, so quote it ('2') if that is the name you "
        "mean",
        "6: compute: unknown key 'x\\ny'. Valid keys here: servers, gpus, server, gpus_per_server, nics_per_server, "
        "nic_speed, server_power_kw, server_rack_units, nvlink_gbyte_s, system, systems, nic, multiplane",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("name: x\nfabric: {leaf: {model: generic-64x400g}", "2: fabric: YAML syntax error at column 9"),
        ("name: x\ncompute: 5\rfabric: 6\r", "2: fabric: should be a mapping"),
        ("name: 'x\n\n\n", "1: name: YAML syntax error at column 7"),
        (
            "name: x\nbase: &b\n  servers: 1\ncompute:\n  servers: 2\n  <<: *b\n  servers: 3\n",
            "7: compute.servers: duplicate key 'servers' (first given on line 5)",
        ),
    ],
)
def test_error_lines_are_where_the_problem_is(text: str, expected: str, tmp_path: Path) -> None:
    """An unclosed '{' at the end of a file without a final line break, a lone carriage return (a line break
    to YAML, not to grep or sed), an unclosed quote and a duplicate key beside a merge."""
    assert any(line.startswith(expected) for line in refused(text, tmp_path))


def errors_of(case: str) -> list[str]:
    """The error lines of ``designer plan tests/errors/<case>.yaml``, without the file name."""
    code, _, err = run_cli("plan", str(Path(__file__).parent / "errors" / f"{case}.yaml"))
    assert code == 2
    return [line.split(":", 1)[1] for line in err.splitlines()[:-1]]


def test_cross_field_rules_run_beside_type_errors() -> None:
    fields = [line.split(": ")[1] for line in errors_of("every_problem")]
    assert fields == [
        "compute.server_power_kw",
        "fabric.tiers",
        "addressing.server_p2p",
        "routing.timers.hold",
        "targets[0]",
        "qos.ecn_min",
    ]


@pytest.mark.parametrize(
    ("case", "first", "hidden"),
    [
        ("hidden_behind_model", "compute.server: unknown server model", "addressing.loopbacks: 10.255.0.0/28 holds 16"),
        (
            "hidden_behind_overlap",
            "addressing.server_p2p: 10.1.0.0/20 overlaps",
            "addressing.server_p2p: 10.1.0.0/20 holds 4,096 addresses",
        ),
    ],
)
def test_a_pool_too_small_is_reported_beside_other_problems(case: str, first: str, hidden: str) -> None:
    errors = errors_of(case)
    assert any(first in line for line in errors) and any(hidden in line for line in errors)


def test_the_pool_hint_is_a_prefix_that_fits_beside_the_other_pools() -> None:
    """Taking every suggested prefix as it is gives pools that are disjoint (checked when the intent loads) and
    large enough (it once suggested a size whose obvious prefix overlapped the next pool)."""
    intent = (Path(__file__).parent / "errors" / "pool_hint.yaml").read_text()
    hints = dict(re.findall(r"addressing\.(\w+): .*, for example (\S+) \(aligned", "\n".join(errors_of("pool_hint"))))
    assert sorted(hints) == ["fabric_p2p", "loopbacks"]
    for name, prefix in hints.items():
        intent = re.sub(rf"  {name}: .*\n", f"  {name}: {prefix}\n", intent)
    fixed = parse_intent(intent)
    assert address_problems(fixed, size(fixed)) == []


def test_an_indentation_error_gives_line_column_and_what_to_check() -> None:
    assert errors_of("indentation") == [
        "4: compute: YAML syntax error at column 10: mapping values are not allowed here; a ':' follows a value on "
        "the same line; check the indentation of this line and the one above (a key lines up with the keys beside "
        "it), or quote a value that holds ': '"
    ]


def test_a_nic_faster_than_the_switches_is_reported_once() -> None:
    """Not again for the spine and super-spine that inherit the leaf's hardware in a 2-tier design."""
    assert [line.split(": ")[1] for line in errors_of("nic_faster")] == ["fabric.leaf.speed"]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("breakout", "fabric.leaf.speed: 800G ports would break out into 80 x 10G links, above the limit of 8"),
        ("fabric_too_big", "compute.gpus: this fabric needs 3,177,472 links, above the limit of 1,048,576 links"),
    ],
)
def test_a_fabric_beyond_the_limits_is_refused_before_it_is_built(case: str, expected: str, tmp_path: Path) -> None:
    """Both once ran for minutes into gigabytes (the first with wider pools) before a pool error or MemoryError;
    refused now from the counts alone, well inside 1 GiB and 10 s."""
    text = (Path(__file__).parent / "errors" / f"{case}.yaml").read_text()
    assert any(expected in line for line in refused(text, tmp_path))


def test_the_131072_gpu_benchmark_designs_are_inside_the_limits() -> None:
    for leaf, planes in (("generic-64x800g", 1), ("generic-64x400g", 8)):
        text = INTENT.format(gpus=131_072).replace("generic-64x800g}", f"{leaf}}}\n  planes: {planes}")
        plan = size(parse_intent(text))
        assert sum(plan.link_counts().values()) == 393_216 < MAX_LINKS / 2.5
        assert sum(plan.switch_counts().values()) < MAX_SWITCHES / 3

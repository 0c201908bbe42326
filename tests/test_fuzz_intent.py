"""Mutated intents never crash the designer: exit 0 or 2, every error line in the promised format, nothing written.

Seeded, so a failure names a case that reproduces: the mutations of the shipped and test intents
(and of the bad intents in ``tests/errors``) delete, duplicate, swap, re-indent and retype lines,
insert random bytes, nest deeply, write huge numbers and wrong types. Each case runs ``designer plan``
(every tenth ``designer build -o``) in a forked child with a memory and time limit, so a runaway case
fails alone instead of taking the suite down. The parent builds one shipped intent first, so every child starts
with designer's modules loaded instead of importing them again.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_intent_errors import ERROR_LINE, Outcome, run_cli, run_forked

pytestmark = pytest.mark.meta

SEEDS = sorted([*(ROOT / "intents").glob("*.yaml"), *(ROOT / "tests" / "intents").glob("*.yaml")])
BAD_SEEDS = sorted((ROOT / "tests" / "errors").glob("*.yaml"))
"""Mutated a quarter of the time: already wrong, they reach other corners (aliases, odd keys, limits)."""
CASES = 300
BUILD_EVERY = 10
"""Every tenth case runs ``build -o`` instead of ``plan``."""
CASE_SECONDS = 20
CASE_MEMORY = 2 << 30
WARM_UP = ROOT / "tests" / "intents" / "small-2tier.yaml"
"""Built in the parent before the cases: what ``plan`` and ``build`` import is then inherited by each fork."""
COUNT_LINE = re.compile(r"^\d+ errors? in the intent; nothing was written\.$")

VALUES = [
    b"[]",
    b"{}",
    b"''",
    b"-1",
    b"0",
    b"1.5",
    b"1e308",
    b".nan",
    b"-.inf",
    b"true",
    b"null",
    b"~",
    b"99999999999999999999999999",
    b"2024-01-01",
    b"0x7fffffff",
    b"0o777",
    b"400T",
    b"'400G'",
    b"&a [*a]",
    b"*nowhere",
    b"!!python/object/apply:os.getpid []",
    b"!!binary aGVsbG8=",
    b'"\\ud800"',
    b'"\\x00"',
    b'"a\\nb"',
    b"|\n  text",
    b"[1, [2, [3]]]",
    b"{a: {b: {c: 1}}}",
    b"generic-64x400g",
    b"dgx-h100",
    b"10.0.0.0/8",
    b"10.0.0.1/31",
    b"- 1\n- 2",
]
NOISE = [
    b"\x00",
    b"\x0c",
    b"\x15",
    b"\x7f",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",
    b"\t",
    b":",
    b": ",
    b"- ",
    b"[",
    b"{",
    b"}",
    b"'",
    b'"',
    b"&x ",
    b"*x",
    b"<<: ",
    b"? ",
    b"---\n",
    b"...\n",
    b"%YAML 1.1\n",
    b"#",
    b"\r",
    b"\xe2\x80\xa8",
    b"\xef\xbb\xbf",
]


def mutate(text: bytes, rng: random.Random) -> bytes:
    """One to three random mutations of ``text``."""
    for _ in range(rng.randint(1, 3)):
        lines = text.split(b"\n")
        index = rng.randrange(len(lines))
        line = lines[index]
        kind = rng.randrange(9)
        if kind == 0:
            del lines[index]
        elif kind == 1:
            lines.insert(index, line)
        elif kind == 2:
            other = rng.randrange(len(lines))
            lines[index], lines[other] = lines[other], line
        elif kind == 3:
            lines[index] = b" " * rng.choice([1, 2, 3, 4]) + line if rng.random() < 0.5 else line.lstrip()
        elif kind == 4 and b": " in line:
            lines[index] = line.split(b": ", 1)[0] + b": " + rng.choice(VALUES)
        elif kind == 5:
            cut = rng.randrange(len(line) + 1)
            lines[index] = line[:cut] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))) + line[cut:]
        elif kind == 6:
            cut = rng.randrange(len(line) + 1)
            lines[index] = line[:cut] + rng.choice(NOISE) + line[cut:]
        elif kind == 7 and b": " in line:
            depth = rng.choice([8, 70, 600])
            nested = b"[" * depth + b"]" * depth if rng.random() < 0.5 else b"{a: " * depth + b"1" + b"}" * depth
            lines[index] = line.split(b": ", 1)[0] + b": " + nested
        else:
            number = rng.choice([b"0", b"1", b"3", b"1" + b"0" * rng.choice([7, 9, 12, 40, 5000]), b"4294967296"])
            lines[index] = re.sub(rb"\d+", number, line, count=1)
        text = b"\n".join(lines)
    return text


def problems_of(outcome: Outcome, text: bytes, target: Path | None) -> list[str]:
    """What is wrong with how the designer answered one case (empty: nothing)."""
    if outcome.code not in (0, 2):
        return [f"exit {outcome.code}", *outcome.stderr.splitlines()[-5:]]
    if "Traceback" in outcome.stderr:
        return ["traceback", *outcome.stderr.splitlines()[-5:]]
    if outcome.code == 0:
        return [] if target is None or target.is_dir() else [f"exit 0 but {target} was not written"]
    lines = outcome.stderr.splitlines()
    wrong = [f"not in the error format: {line!r}" for line in lines[:-1] if not ERROR_LINE.match(line)]
    last = max(1, text.count(b"\n") + (not text.endswith(b"\n")))
    wrong += [
        f"beyond the last line ({last}): {line!r}"
        for line in lines[:-1]
        if (number := re.match(r"[^:]+:(\d+):", line)) and int(number.group(1)) > last
    ]
    if not lines or not COUNT_LINE.match(lines[-1]):
        wrong.append(f"no count line at the end: {lines[-1:]!r}")
    if outcome.stdout:
        wrong.append(f"exit 2 printed on stdout: {outcome.stdout[:200]!r}")
    if target is not None and target.exists():
        wrong.append(f"exit 2 but {target} exists")
    return wrong


def cases() -> list[tuple[int, bytes]]:
    """``CASES`` mutated intents, the same on every run."""
    rng = random.Random(20240601)
    seeds, bad = [seed.read_bytes() for seed in SEEDS], [seed.read_bytes() for seed in BAD_SEEDS]
    return [(number, mutate(rng.choice(bad if rng.random() < 0.25 else seeds), rng)) for number in range(CASES)]


def test_mutated_intents_exit_0_or_2_with_every_error_in_the_format(tmp_path: Path) -> None:
    assert run_cli("build", str(WARM_UP), "-o", str(tmp_path / "warm-up"))[0] == 0
    failures = []
    for number, text in cases():
        folder = tmp_path / f"case{number}"
        folder.mkdir()
        (folder / "intent.yaml").write_bytes(text)
        target = folder / "out" if number % BUILD_EVERY == 0 else None
        args = (
            ["build", str(folder / "intent.yaml"), "-o", str(target)]
            if target
            else ["plan", str(folder / "intent.yaml")]
        )
        wrong = problems_of(run_forked(args, folder, CASE_SECONDS, CASE_MEMORY), text, target)
        if wrong:
            failures.append(f"case {number} ({folder / 'intent.yaml'}): " + "; ".join(wrong))
    assert not failures, f"{len(failures)} of {CASES} mutated intents:\n" + "\n".join(failures)

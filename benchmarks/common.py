"""What every benchmark script shares: the intent it scales, its arguments and its README table."""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
QUIET_LOAD = 2
"""A load average below this: the machine is quiet (most of the load the benchmark's own)."""

INTENT = """\
name: bench-{gpus}
compute: {{gpus: {gpus}, server: dgx-h100}}
fabric:
  leaf: {{model: generic-64x800g}}
addressing: {{fabric_p2p: 10.0.0.0/12, server_p2p: 10.16.0.0/12, loopbacks: 10.255.0.0/16}}
"""
"""DGX H100 servers on 64 x 800G switches run as 128 x 400G; ``{gpus}`` sets the size."""


def compile_designer() -> None:
    """Compile designer's package to bytecode, as an installed wheel has it, so that a timed run does not compile
    its modules from source: with ``PYTHONDONTWRITEBYTECODE`` set (as on the benchmark machine) every fresh
    process would, and an interpreter reads the ``.pyc`` files whether or not it may write them."""
    spec = importlib.util.find_spec("designer")
    if spec is None or spec.origin is None:
        raise SystemExit("designer is not installed: pip install -e .")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(spec.origin).parent)], check=True)


def fresh_process(script: str, gpus: int) -> dict[str, Any]:
    """Run ``script`` in a fresh Python process with the benchmark intent at ``gpus`` GPUs as its first argument,
    and return the JSON object it prints."""
    result = subprocess.run(
        [sys.executable, "-c", script, INTENT.format(gpus=gpus)], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def medians(samples: Sequence[dict[str, Any]], timed: Sequence[str]) -> dict[str, Any]:
    """The first of ``samples`` (counts are alike in every run) with the median of each of the ``timed`` figures."""
    return {**samples[0], **{key: statistics.median(sample[key] for sample in samples) for key in timed}}


def fresh_runs(runs: int) -> str:
    """How a table of :func:`fresh_process` medians was measured, its caption's opening."""
    return (
        f"Median of {runs} runs, each a fresh process, on {platform.machine()} with Python {platform.python_version()}"
    )


def seconds_and_cpu(row: dict[str, Any]) -> str:
    """A row's wall and CPU seconds, as :func:`each_size` says each result."""
    return f"{row['seconds']:.2f} s, {row['cpu_seconds']:.2f} s CPU"


def storage() -> str:
    """The file system the runs write to (the temporary folder's: ``TMPDIR`` chooses it), as ``ext4 (/tmp)``, from
    the longest mount point above it in /proc/mounts (Linux); ``unknown`` elsewhere."""
    folder = Path(tempfile.gettempdir()).resolve()
    try:
        mounts = [line.split()[1:3] for line in Path("/proc/mounts").read_text().splitlines()]
    except OSError:
        return "unknown"
    above = [(point, kind) for point, kind in mounts if folder.is_relative_to(point)]
    return f"{max(above, key=lambda mount: len(mount[0]))[1]} ({folder})" if above else "unknown"


def arguments(
    description: str, sizes: Sequence[int], extra: Callable[[argparse.ArgumentParser], None] | None = None
) -> argparse.Namespace:
    """``--runs``, ``--sizes`` (GPUs) and ``--write``, the options of every sized benchmark, and what ``extra`` adds."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per size; the table shows their median")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(sizes), help="cluster sizes in GPUs")
    parser.add_argument("--write", action="store_true", help="update the table in benchmarks/README.md")
    if extra:
        extra(parser)
    return parser.parse_args()


def each_size(
    bench: Callable[[int, int, Path], dict[str, Any]],
    args: argparse.Namespace,
    describe: Callable[[dict[str, Any]], str],
) -> list[dict[str, Any]]:
    """``bench(gpus, runs, work folder)`` for every size, saying each result on stderr as it comes."""
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for gpus in args.sizes:
            rows.append(bench(gpus, args.runs, Path(work)))
            print(f"{gpus:,} GPUs: {describe(rows[-1])}", file=sys.stderr)
    return rows


def publish(text: str, name: str, write: bool) -> None:
    """Print the table; with ``write``, replace what benchmarks/README.md holds between ``name``'s markers with it,
    stamped with when, at which commit and on what machine it was measured (:func:`stamped`)."""
    print(text)
    if not write:
        return
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    readme = HERE / "README.md"
    content = readme.read_text()
    head, rest = content.split(start, 1)
    before, tail = rest.split(end, 1)
    readme.write_text(f"{head}{start}\n{stamped(text, before, measurement())}\n{end}{tail}")


def measurement() -> tuple[str, str, str]:
    """When (UTC, to the minute), at which commit (``+`` when the tree has changes) and on what machine: quiet or busy
    by the load average, its cores, and where ``TMPDIR`` is when it is set."""
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    git = ["git", "-C", str(HERE)]
    commit = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    changed = subprocess.run([*git, "status", "--porcelain"], capture_output=True, text=True).stdout.strip()
    load = os.getloadavg()[0]
    machine = f"{'quiet' if load < QUIET_LOAD else f'busy (load {load:.1f})'}, {os.cpu_count()} cores"
    if os.environ.get("TMPDIR"):
        machine += f", {os.environ['TMPDIR']}"
    return when, (commit or "unknown") + ("+" if changed else ""), machine


def stamped(table: str, before: str, measured: tuple[str, str, str]) -> str:
    """A script's table with three columns added, ``measured``'s when, commit and machine, and the target of each case
    kept from the table it replaces (``before``: by the first cell; ``none stated`` for a new case)."""
    targets = {cells[0]: cells[-1] for cells in map(_cells, before.splitlines()) if cells}
    lines = table.splitlines()
    out = []
    for line, following in zip(lines, [*lines[1:], ""], strict=True):
        if not (cells := _cells(line)):
            out.append(line)
        elif _separator(line):
            out.append(line + "---|---|---|---|")
        elif _separator(following):
            out.append(line + " measured | commit | machine | target |")
        else:
            out.append(line + " " + " | ".join((*measured, targets.get(cells[0], "none stated"))) + " |")
    return "\n".join(out)


def _separator(line: str) -> bool:
    """Whether ``line`` is the row under a Markdown table's header (``|---|---:|``)."""
    cells = _cells(line)
    return bool(cells) and all(cell and set(cell) <= set("-:") for cell in cells)


def _cells(line: str) -> list[str]:
    """The cells of a Markdown table row, stripped; none for a line that is not one."""
    line = line.strip()
    return [cell.strip() for cell in line[1:-1].split("|")] if line.startswith("|") and line.endswith("|") else []

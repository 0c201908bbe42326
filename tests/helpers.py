"""Build small designs from intent text for tests."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from designer.catalog import catalog
from designer.cli import main
from designer.design import Design
from designer.intent import parse_intent
from designer.pipeline import design

EOS_LIMITS = catalog().targets["eos"]
"""EOS's entry of the shipped catalog: the limits of every design built from it."""


def intent_text(
    servers: int | None = None,
    gpus: int | None = None,
    server: str = "dgx-h100",
    leaf: str = "{model: generic-64x400g}",
    spine: str | None = None,
    super_spine: str | None = None,
    extra: str = "",
    fabric_extra: str = "",
    compute_extra: str = "",
) -> str:
    """An intent as YAML text; pools are wide enough for a 131k-GPU fabric."""
    count = f"servers: {servers}" if servers is not None else f"gpus: {gpus}"
    lines = [
        "name: test",
        "compute:",
        f"  {count}",
        f"  server: {server}",
        *([textwrap.indent(compute_extra, "  ")] if compute_extra else []),
        "fabric:",
        f"  leaf: {leaf}",
        *([f"  spine: {spine}"] if spine else []),
        *([f"  super_spine: {super_spine}"] if super_spine else []),
        *([textwrap.indent(fabric_extra, "  ")] if fabric_extra else []),
        "addressing: {fabric_p2p: 10.0.0.0/12, server_p2p: 10.16.0.0/12, loopbacks: 10.255.0.0/16}",
        extra,
    ]
    return "\n".join(lines) + "\n"


def build_text(text: str, **options: Any) -> Design:
    """Run every stage on intent text, in this process (the forked workers are proven in tests/test_workers.py and
    tests/test_outputs.py); ``options`` go to :func:`designer.pipeline.design` (``seeds=2`` for a test that reads
    no workload figure, ``hosts=False`` for one that reads no server's settings)."""
    return design(parse_intent(text, "test.yaml"), **{"processes": 1, **options})


def build_design(**fields: object) -> Design:
    """Run every stage, in this process, on an intent made by :func:`intent_text`."""
    return build_text(intent_text(**fields))  # type: ignore[arg-type]


def part_sizes(folder: Path) -> dict[str, tuple[int, int]]:
    """The files and bytes on disk below ``folder``, by part of a build (:func:`designer.outputs.folder.sizes_by_part`):
    what a build says it wrote, counted apart."""
    from designer.outputs.folder import sizes_by_part

    return sizes_by_part(
        (file.relative_to(folder).as_posix(), file.stat().st_size) for file in folder.rglob("*") if file.is_file()
    )


def assert_every_validator_takes(tmp_path: Path, shapes: dict[str, str]) -> None:
    """Build each intent of ``shapes`` (by name) for every Ethernet target and run ``designer validate-configs``
    (SONiC's YANG, FRR's vtysh, pyavd's EOS rendering, NVIDIA's NVUE schema) on what it wrote."""
    for name, text in shapes.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(text + "targets: [frr, sonic, eos, nvue]\n")
        assert main(["build", str(path), "-o", str(tmp_path / name)]) == 0, name
        assert main(["validate-configs", str(tmp_path / name)]) == 0, name


def refused_build(tmp_path: Path, text: str) -> tuple[Path, str]:
    """Build the intent ``text`` (written to ``tmp_path``) and assert it is refused as bad input: exit 2, nothing
    on stdout, no traceback, nothing written; the intent's path and what stderr said."""
    from tests.test_intent_errors import run_cli

    path = tmp_path / "intent.yaml"
    path.write_text(text)
    code, out, err = run_cli("build", str(path), "-o", str(tmp_path / "out"))
    assert (code, out) == (2, ""), err
    assert "Traceback" not in err and not (tmp_path / "out").exists()
    return path, err

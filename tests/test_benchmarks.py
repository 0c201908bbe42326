"""The benchmark scripts still run: each sized one at the smallest size (:data:`SMALLEST`), one run, printing its
table row."""

from __future__ import annotations

import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.common import INTENT
from designer.design import Design
from designer.export import avd as avd_export
from designer.pipeline import build
from designer.render import eos, render_configs
from designer.verify.pyavd_eos import fabric_differences, fabric_of
from tests.conftest import ROOT
from tests.helpers import EOS_LIMITS
from tests.prerequisites import PYAVD, VALIDATORS, needs

pytestmark = pytest.mark.meta

SMALLEST = 256
"""GPUs of each sized script's one row (32 servers: 12 switches): below the scripts' own default sizes, given with
``--sizes``; a script's fixed costs (its fresh processes, their imports) dominate at any smaller size."""

SIZED = [
    "bench_analyze",
    "bench_audit",
    "bench_build",
    "bench_checks",
    "bench_explore",
    "bench_physical",
    "bench_reads",
    "bench_render",
    "bench_sm_files",
    "bench_topology",
    "bench_uplinks",
    pytest.param("bench_validate", marks=needs(*VALIDATORS)),
]


def printed_by(script: str, *args: str) -> str:
    """What ``benchmarks/<script>.py`` with ``args`` prints, once it has exited with 0."""
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{script}.py"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.parametrize("script", SIZED)
def test_sized_benchmark_prints_a_row_for_the_smallest_size(script: str) -> None:
    printed = printed_by(script, "--runs", "1", "--sizes", str(SMALLEST))
    rows = [line for line in printed.splitlines() if line.startswith(f"| {SMALLEST:,} |")]
    assert len(rows) == 1, printed


def test_systems_benchmark_prints_the_dgx_row_then_each_gb300_designs_at_a_tiny_size() -> None:
    """bench_systems at 8 GB300 systems: the DGX build at as many GPUs rounded up to 1,024, the multiplane reference
    (each ConnectX-8 port one link to each plane: 576 x 2 host links) and the 800G design, each with its links from
    ``designer plan`` and its ratios to the DGX row."""
    printed = printed_by("bench_systems", "--runs", "1", "--systems", "8")
    rows = [line.split(" | ")[:3] for line in printed.splitlines() if line.startswith("| ") and "x |" in line]
    assert rows == [
        ["| DGX H100, 1,024 GPUs", "1,024", "2,048"],
        ["| GB300 NVL72 x 8, ConnectX-8 in 2 planes of 400G (hwplb)", "576", "2,688"],
        ["| GB300 NVL72 x 8, 800G ports in 2 fabric planes", "576", "1,216"],
    ], printed


def test_the_planner_grid_builds_a_stride_of_its_intents_with_every_check_passed() -> None:
    printed = printed_by("planner_grid", "--every", "40")
    assert "| 9 | 9 | 0 | 0 |" in printed, printed


def test_verify_benchmark_parses_its_options() -> None:
    assert "--labs" in printed_by("bench_verify", "--help")


NEED_PYAVD = "bench_avd needs Arista's pyavd: pip install pyavd (or pip install '.[test]')"


@pytest.fixture(scope="module")
def bench_256(tmp_path_factory: pytest.TempPathFactory) -> Design:
    """bench_avd's intent at 256 GPUs (``targets: [eos]``), built; tests read it and never change it."""
    intent = tmp_path_factory.mktemp("bench-avd") / "bench-256.yaml"
    intent.write_text(INTENT.format(gpus=256) + "targets: [eos]\n")
    return build(intent)


@needs(PYAVD)
def test_avd_benchmark_prints_a_row_at_a_tiny_size() -> None:
    printed = printed_by("bench_avd", "--runs", "1", "--sizes", "256")
    rows = [line for line in printed.splitlines() if line.startswith("| 256 | 12 |")]
    assert len(rows) == 1 and rows[0].endswith("x |"), printed


@needs(PYAVD)
def test_the_avd_inventory_builds_the_same_fabric_through_aristas_pipeline(
    bench_256: Design, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bench_avd's claim: its AVD inventory (``designer export avd``'s inputs), run through Arista's own pipeline
    (pyavd, Apache-2.0, Arista Networks, https://github.com/aristanetworks/avd: validate_inputs, get_avd_facts,
    get_device_structured_config, then eos_cli_config_gen), gives every switch of a 256-GPU design the routed
    interfaces, BGP neighbors and ASN of the design and of designer's EOS file; and the comparison names what
    differs."""
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    bench_avd = importlib.import_module("bench_avd")
    design = bench_256
    inventory = tmp_path / "inventory.json"
    inventory.write_text(json.dumps(avd_export.inputs(design)))
    arista, ours = tmp_path / "avd", tmp_path / "eos"
    steps = bench_avd.pyavd_run(inventory, arista)
    assert set(steps) == {
        "validate_inputs",
        "get_avd_facts",
        "get_device_structured_config",
        "validate_structured_config",
        "get_device_config",
        "total",
    }
    for device in design.configs:  # pyavd's configuration against the design model itself
        view = eos.view(device, limits=EOS_LIMITS)
        assert fabric_of((arista / f"{device.hostname}.cfg").read_text()) == {
            "asn": str(device.asn),
            "routed": {
                "Loopback0": {"ip": device.loopback},
                **{
                    name: {"ip": interface.address, "mtu": str(view["mtu"]), "speed": speed, "service-profile": "ROCE"}
                    for name, speed, _, interface in view["interfaces"]
                },
            },
            "neighbors": {neighbor.address: str(neighbor.remote_asn) for neighbor in device.bgp.neighbors},
        }, device.hostname
    ours.mkdir()
    for path, data in render_configs(design.configs, ["eos"]).items():
        (ours / Path(path).name).write_bytes(data)
    assert fabric_differences(ours, arista) == []
    leaf = ours / "p0-su0-r0-leaf.cfg"
    text = leaf.read_text()
    leaf.write_text(
        text.replace("   neighbor 10.0.0.0 remote-as 4201000000\n", "").replace(
            "ip address 10.16.0.2/31", "ip address 10.16.0.4/31"
        )
    )
    (ours / "p0-spine0.cfg").unlink()
    assert fabric_differences(ours, arista) == [
        "p0-spine0.cfg: only pyavd wrote it",
        "p0-su0-r0-leaf.cfg: neighbors: designer {}, pyavd {'10.0.0.0': '4201000000'}",
        "p0-su0-r0-leaf.cfg: routed: designer {'Ethernet1/5': {'ip': '10.16.0.4/31', 'mtu': '9214', 'speed': "
        "'400g-4', 'service-profile': 'ROCE'}}, pyavd {'Ethernet1/5': {'ip': '10.16.0.2/31', 'mtu': '9214', "
        "'speed': '400g-4', 'service-profile': 'ROCE'}}",
    ]


@needs(PYAVD)
def test_the_avd_benchmark_refuses_an_inventory_arista_would_not_take(
    bench_256: Design, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    bench_avd = importlib.import_module("bench_avd")
    inputs = avd_export.inputs(bench_256)
    inputs["p0-su0-r0-leaf"]["l3leaf"]["nodes"][0]["uplink_switchs"] = ["p0-spine0"]  # not a key of AVD's schema
    inventory = tmp_path / "inventory.json"
    inventory.write_text(json.dumps(inputs))
    with pytest.raises(
        SystemExit,
        match=r"(?s)the pyavd driver failed:.*p0-su0-r0-leaf: not valid AVD design input: "
        r"l3leaf\.nodes\.0\.uplink_switchs: ",
    ):
        bench_avd.pyavd_run(inventory, tmp_path / "avd")


def test_a_written_table_says_when_where_and_at_which_commit_and_keeps_each_target() -> None:
    """``--write`` stamps the script's table with the measurement's date, commit and machine and keeps the target
    each case had in the table it replaces, so benchmarks/README.md's columns stay whole."""
    from benchmarks.common import stamped

    before = "| case | median | measured | commit | machine | target |\n|---|---|---|---|---|---|\n"
    before += "| 1,024 GPUs | 1.2 s | 2026-11-26 | a32efcc | busy | at most 5 s |\n"
    table = "intro line\n\n| case | median |\n|---|---:|\n| 1,024 GPUs | 0.9 s |\n| 2,048 GPUs | 1.9 s |"
    assert stamped(table, before, ("2026-12-03 13:16 UTC", "079fa87", "quiet, 2 cores")).splitlines() == [
        "intro line",
        "",
        "| case | median | measured | commit | machine | target |",
        "|---|---:|---|---|---|---|",
        "| 1,024 GPUs | 0.9 s | 2026-12-03 13:16 UTC | 079fa87 | quiet, 2 cores | at most 5 s |",
        "| 2,048 GPUs | 1.9 s | 2026-12-03 13:16 UTC | 079fa87 | quiet, 2 cores | none stated |",
    ]

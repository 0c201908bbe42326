"""The workload model under adaptive routing, cluster load balancing and packet spraying: flows spread evenly over
every path, fabric links at SPREAD_EFFICIENCY of line rate, calibrated against NVIDIA's published Spectrum-X figure,
and the contract following the intent's mode while ``designer analyze`` shows what the mode buys over hashing."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from designer.analysis import collectives
from designer.analysis.flows import Router, even_spread, job_connections, place, topology
from designer.analysis.workload import HASHED, SPREAD, SPREAD_EFFICIENCY, WorkloadResult
from designer.backend.sizing import size
from designer.backend.wiring import wire
from designer.design import Design
from designer.intent import parse_intent
from designer.outputs.workload_report import contract, detail
from tests.helpers import build_text, intent_text
from tests.test_intent_errors import run_cli

SPECTRUM_X = 0.95
"""NVIDIA: Spectrum-X (adaptive routing with SuperNIC reordering) delivers 95% effective data throughput where
standard Ethernet's flow hashing delivers about 60% ("NVIDIA Ethernet Networking Accelerates World's Largest AI
Supercomputer, Built by xAI", NVIDIA newsroom, 28 October 2024); NVIDIA's Spectrum-X pages call it 1.6x the
effective bandwidth of traditional Ethernet."""
STANDARD_ETHERNET = 0.60
SPECTRUM_X_GAIN = 1.6
SN5600_LEAF = "{model: nvidia-sn5600, speed: 400G}"
JOBS = (
    "  - {name: full, bytes: 350GB, placement: scattered}\n"
    "  - {name: scattered, gpus: 512, bytes: 350GB, placement: scattered}\n"
    "  - {name: packed, gpus: 512, bytes: 350GB}\n"
)


@cache
def fabric(mode: str) -> Design:
    """128 DGX H100 on SN5600 leaves at 400G (1:1), NVUE, with the intent's load-balancing mode."""
    return build_text(
        intent_text(
            servers=128,
            leaf=SN5600_LEAF,
            extra=f"targets: [nvue]\nload_balancing: {{mode: {mode}}}\nworkloads:\n{JOBS}",
        )
    )


def result(design: Design, name: str) -> WorkloadResult:
    return next(item for item in design.workloads if item.workload.name == name)


def test_a_fully_loaded_fabric_spreads_at_the_efficiency_nvidia_reports_for_spectrum_x() -> None:
    """A scattered ring over every server loads every leaf uplink at a NIC link's load: spreading runs it at the
    stated 95%, and the switch hash of the same flows at or below standard Ethernet's 60%, so adaptive routing buys
    at least NVIDIA's 1.6x."""
    full = result(fabric("adaptive"), "full")
    assert full.spread is not None and full.switch is not None
    assert full.spread.worst_link_flows[0] == full.nic_flows  # the busiest link at the average load
    spread = full.ideal.time_s / full.spread.time(0.5)
    assert spread == pytest.approx(SPECTRUM_X, abs=0.005)
    hashed = full.ideal.time_s / full.switch.time(0.5)
    assert hashed <= STANDARD_ETHERNET
    assert spread / hashed >= SPECTRUM_X_GAIN


def test_a_half_loaded_fabric_spreads_at_the_nics_speed_where_hashing_collides() -> None:
    """The 512-GPU scattered ring loads each leaf's uplinks to half a NIC link: spread, the NICs bind (100%);
    hashed, the busiest uplink carries several flows (the existing anchor: well under half of ideal)."""
    scattered = result(fabric("adaptive"), "scattered")
    assert scattered.spread is not None and scattered.switch is not None
    assert scattered.ideal.time_s / scattered.spread.time(0.5) == pytest.approx(1.0)
    assert scattered.ideal.time_s / scattered.switch.time(0.5) < 0.5


def test_even_spread_puts_the_average_load_on_every_uplink() -> None:
    """On a 1:1 two-tier fabric a leaf sends its crossing flows over all its uplinks in equal shares."""
    design = fabric("adaptive")
    top = topology(design.fabric)
    order = place(128, 32, 128, "scattered", "full")
    connections = job_connections(order, collectives.ring_edges(128), top.nics)
    sources, targets = [top.leaf(nic) for nic in connections.src], [top.leaf(nic) for nic in connections.dst]
    loads, lost = even_spread(Router(top), sources, targets, 2)
    assert lost == 0
    for leaf, uplinks in top.up.items():
        if design.fabric.devices[leaf].role != "leaf":
            continue
        crossing = 2 * sum(1 for source, target in zip(sources, targets, strict=True) if source == leaf != target)
        assert [loads.get(2 * link, 0.0) for link in uplinks] == pytest.approx([crossing / len(uplinks)] * len(uplinks))


def test_a_spine_down_spreads_over_what_is_left() -> None:
    """With one spine down a leaf spreads over its surviving uplinks: the fully loaded ring slows by their share."""
    design = fabric("adaptive")
    full = result(design, "full")
    top = topology(design.fabric)
    spine = next(index for index, device in enumerate(design.fabric.switches()) if device.name == "p0-spine0")
    leaf = next(index for index, device in enumerate(design.fabric.switches()) if device.role == "leaf")
    uplinks = top.up[leaf]
    surviving = sum(1 for link in uplinks if design.fabric.links[link][1] != spine) / len(uplinks)
    (failure,) = full.spread_failures
    assert failure.failed == "p0-spine0"
    network = full.ideal.network_s / (SPECTRUM_X * surviving)
    assert failure.spread.time(0.5) == pytest.approx(network + full.ideal.latency_s, rel=1e-6)


def test_the_contract_follows_the_mode_and_names_its_model() -> None:
    for mode, model in (("ecmp", HASHED), ("adaptive", SPREAD)):
        row = contract(result(fabric(mode), "full"))
        assert row["ecmp"]["model"] == model
    hashed, spread = result(fabric("ecmp"), "full"), result(fabric("adaptive"), "full")
    assert hashed.switch == spread.switch  # the same flows hash the same whatever the mode
    assert contract(hashed)["ecmp"]["time_s_p50"] == round(hashed.switch.time(0.5), 6)
    assert contract(spread)["ecmp"]["time_s_p50"] == detail(spread)["ecmp"]["even_spread"]["time_s"]
    assert contract(spread)["failures"][0]["efficiency_p50"] < contract(spread)["ecmp"]["efficiency_p50"]
    assert detail(spread)["ecmp"]["even_spread"]["link_efficiency"] == SPREAD_EFFICIENCY


def test_analyze_shows_the_hashed_and_the_spread_figure(tmp_path: Path) -> None:
    intent = tmp_path / "adaptive.yaml"
    intent.write_text(
        intent_text(
            servers=128,
            leaf=SN5600_LEAF,
            extra="targets: [nvue]\nload_balancing: {mode: adaptive}\nworkloads:\n"
            "  - {name: full, bytes: 350GB, placement: scattered}\n",
        )
    )
    code, out, err = run_cli("analyze", str(intent), "--seeds", "8")
    assert code == 0, err
    assert "load balancing adaptive: the fabric spreads every flow over all paths" in out
    assert "  switch hash (CRC-32): " in out and "  adaptive (even spread): " in out and "(95.0%)" in out
    code, out, _ = run_cli("plan", str(intent), "--format", "json")
    assert code == 0 and json.loads(out)["workloads"][0]["ecmp"]["model"] == SPREAD


def hop_by_hop(router: Router, sources: list[int], targets: list[int]) -> tuple[dict[int, float], float]:
    """The definition, one group at a time: every flow split evenly over each group it meets until it reaches its
    leaf (what even_spread computes once per destination block)."""
    here: dict[tuple[int, int], float] = {}
    for source, target in zip(sources, targets, strict=True):
        if source != target:
            here[source, target] = here.get((source, target), 0.0) + 1.0
    loads: dict[int, float] = {}
    lost = 0.0
    while here:
        after: dict[tuple[int, int], float] = {}
        for (switch, target), flows in here.items():
            members, hops, down = router.group(switch, target)
            if not members:
                lost += flows
                continue
            for link, hop in zip(members, hops, strict=True):
                loads[2 * link + down] = loads.get(2 * link + down, 0.0) + flows / len(members)
                if hop != target:
                    after[hop, target] = after.get((hop, target), 0.0) + flows / len(members)
        here = after
    return loads, lost


@pytest.mark.parametrize("server", ["dgx-h100", "dgx-b300"])
def test_even_spread_is_the_hop_by_hop_split_on_three_tiers_with_switches_down(server: str) -> None:
    intent = parse_intent(
        intent_text(
            servers=64,
            server=server,
            leaf="{model: generic-32x400g}",
            spine="{model: generic-32x400g}",
            fabric_extra="tiers: 3",
        ),
        "test.yaml",
    )
    fabric = wire(intent, size(intent))
    top = topology(fabric)
    switches = fabric.switches()
    leaves = [index for index, device in enumerate(switches) if device.role == "leaf"]
    spines = [index for index, device in enumerate(switches) if device.role == "spine"]
    supers = [index for index, device in enumerate(switches) if device.role == "super_spine"]
    # every leaf to every leaf of its plane (flows never leave their plane: each rail stays on its own)
    pairs = [(a, b) for a in leaves for b in leaves if switches[a].plane == switches[b].plane]
    sources, targets = [a for a, _ in pairs], [b for _, b in pairs]
    assert len({switches[leaf].pod for leaf in leaves}) > 1
    for dead in (frozenset(), frozenset(spines[:1]), frozenset(spines[:2]), frozenset(supers[:1])):
        router = Router(top, dead)
        loads, lost = even_spread(router, sources, targets)
        expected, expected_lost = hop_by_hop(router, sources, targets)
        assert lost == pytest.approx(expected_lost) and set(loads) == set(expected)
        assert all(loads[key] == pytest.approx(expected[key], rel=1e-9) for key in expected)

"""The workload analysis: closed forms checked by hand, flows routed on the real fabric, hashing statistics against
balls in bins, failures, cost, determinism, and the commands that show it."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import zlib
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import pairwise
from pathlib import Path

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.analysis import collectives
from designer.analysis.collectives import busbw_factor, ideal, latency_us, tree_edges, tree_parent
from designer.analysis.flows import (
    Router,
    SwitchHash,
    UniformHash,
    flow_set,
    job_connections,
    place,
    resilient,
    topology,
    tuple_bytes,
    udp_sport,
)
from designer.analysis.workload import SEEDS, WorkloadResult, analyze, job, workload_runs
from designer.design import Design
from designer.intent.workloads_section import pattern_edges
from designer.outputs.build import design_files
from designer.outputs.summary import summary
from designer.outputs.workload_report import contract, svg
from designer.outputs.workload_report import text as workload_text
from tests.conftest import ROOT
from tests.helpers import build_design, build_text, intent_text
from tests.test_intent_errors import run_cli

EXAMPLE = ROOT / "intents" / "cluster.yaml"
CONTRACT = {
    "name",
    "gpus",
    "servers",
    "placement",
    "collective",
    "algorithm",
    "bytes",
    "ideal",
    "fabric_bytes",
    "ecmp",
    "failures",
    "cost",
}
SIGMAS = 4
"""Statistical tests accept a simulated mean within 4 standard errors of the exact value (99.99% two-sided)."""


def jobs(*lines: str, servers: int = 128, extra_lines: str = "", seeds: int = SEEDS, **fields: object) -> Design:
    """A DGX H100 fabric (2 tiers of 64 x 400G by default) with the given workload lines (and ``extra_lines`` of
    the intent after them), its workloads analyzed over ``seeds`` runs; no server's host settings."""
    workloads = "workloads:\n" + "\n".join(f"  - {line}" for line in lines)
    return build_text(
        intent_text(servers=servers, extra=workloads + (f"\n{extra_lines}" if extra_lines else ""), **fields),
        seeds=seeds,
        hosts=False,
    )


@cache
def cluster() -> Design:
    """The hand-computed case: 1,024 H100 on 128 servers, 8 x 400G, 700 GB ring AllReduce, and smaller jobs."""
    return jobs(
        "{name: dp, bytes: 700GB}",
        "{name: server, gpus: 8, bytes: 700GB}",
        "{name: su, gpus: 256, bytes: 700GB}",
        "{name: tree, bytes: 700GB, algorithm: tree}",
        "{name: a2a, gpus: 64, collective: alltoall, bytes: 1GB}",
        "{name: gather, collective: allgather, bytes: 700GB, placement: random}",
    )


@cache
def scattered_and_alone() -> Design:
    """A 512-GPU scattered ring AllReduce of 350 GB at $2 per GPU-hour beside an 8-GPU job inside one server."""
    return jobs(
        "{name: scattered, gpus: 512, bytes: 350GB, placement: scattered, gpu_hour_usd: 2}",
        "{name: alone, gpus: 8, bytes: 1GB}",
    )


def result(design: Design, name: str) -> WorkloadResult:
    return next(item for item in design.workloads if item.workload.name == name)


# Closed forms


def test_bus_bandwidth_factors_are_nccl_tests() -> None:
    assert busbw_factor("allreduce", 8) == pytest.approx(2 * 7 / 8)
    for collective in ("allgather", "reducescatter", "alltoall"):
        assert busbw_factor(collective, 1024) == pytest.approx(1023 / 1024)
    assert busbw_factor("allreduce", 1) == 0


def test_700gb_ring_allreduce_on_128_dgx_h100_takes_about_3_6_s() -> None:
    dp = result(cluster(), "dp")
    per_server = 8 * 400 / 8 * 0.96  # GB/s: eight 400G NICs at 96%
    assert per_server == pytest.approx(384)
    assert dp.ideal.network_s == pytest.approx(2 * 127 / 128 * 700 / per_server)
    assert dp.ideal.time_s == pytest.approx(3.6, abs=0.05)
    assert dp.ideal.algbw_gbyte_s == pytest.approx(700 / dp.ideal.time_s)
    assert dp.ideal.busbw_gbyte_s == pytest.approx(dp.ideal.algbw_gbyte_s * 2 * 1023 / 1024)
    assert dp.ideal.busbw_gbyte_s == pytest.approx(per_server, rel=0.01)


def test_ring_latency_is_nccls_model() -> None:
    # base 8.4 us; 2(n-1) - 2(N-1) NVLink steps of 3.4 us and 2(N-1) network steps of 14 us; x1.4 multi-node.
    assert latency_us("allreduce", "ring", 128, 8) == pytest.approx((8.4 + (2046 - 254) * 3.4 + 254 * 14) * 1.4)
    assert latency_us("allgather", "ring", 1, 8) == pytest.approx(8.4 + 7 * 3.4)
    assert latency_us("allreduce", "tree", 128, 8) == pytest.approx(8.4 + 2 * (7 * 4.0 + 7 * 14))


def test_constants_match_the_vendored_nccl_tuning_table() -> None:
    table = json.loads((ROOT / "tests" / "vendor" / "nccl" / "tuning-constants.json").read_text())
    for algorithm, name in (("ring", "Ring"), ("tree", "Tree")):
        assert collectives.BASE_LATENCY_US[algorithm] == table["base_latency_us"][name]["Simple"]
        assert collectives.NVLINK_LATENCY_US[algorithm] == table["hw_latency_us"]["NVLINK"][name]["Simple"]
        assert collectives.NET_LATENCY_US[algorithm] == table["hw_latency_us"]["NET"][name]["Simple"]
    overhead = table["net_overhead_us"]
    assert overhead["x86_intel"] * overhead["simple_protocol_multiplier"] == collectives.NET_OVERHEAD_US
    assert table["nccl_tests_busbw_factor"]["all_reduce"] == "2*(n-1)/n"


def test_auto_takes_the_faster_algorithm() -> None:
    args = ("allreduce", 700 * 10**9, 128, 8, 8, 400, 450.0)
    ring, tree = ideal(args[0], "ring", *args[1:]), ideal(args[0], "tree", *args[1:])
    small = ideal("allreduce", "auto", 10**6, 128, 8, 8, 400, 450.0)
    assert ideal("allreduce", "auto", *args[1:]) == min(ring, tree, key=lambda option: option.time_s)
    assert small.algorithm == "tree"  # a small buffer is latency-bound: the tree's log2(N) steps win


def test_nccls_trees_span_every_node_once_each() -> None:
    # The binary tree drawn in NCCL's src/graph/trees.cc for 16 ranks: 0 - 8, 8 - 4 and 12, 4 - 2 and 6, ...
    assert [tree_parent(rank, 16) for rank in range(16)] == [-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8, 14, 12, 14]
    for servers in (2, 3, 7, 16, 33):
        edges = tree_edges(servers)
        first, second = edges[: servers - 1], edges[servers - 1 :]
        for tree in (first, second):
            children = [child for child, _ in tree]
            graph = nx.Graph(tree)
            assert len(set(children)) == servers - 1  # one parent for every node but the root
            assert nx.is_tree(graph) and set(graph) == set(range(servers))


def test_a_job_inside_one_server_moves_no_fabric_bytes() -> None:
    server = result(cluster(), "server")
    assert server.fabric_bytes == {"server_leaf": 0, "leaf_spine": 0, "spine_super_spine": 0}
    assert server.flows == 0 and server.ideal.network_s == 0 and server.ideal.nvlink_s > 0


def test_a_packed_job_inside_one_su_never_crosses_a_spine() -> None:
    su = result(cluster(), "su")  # 256 GPUs = the 32 servers of SU 0
    per_nic = 2 * 31 / 32 * 700e9 / 8
    assert su.fabric_bytes == {"server_leaf": round(2 * 32 * 8 * per_nic), "leaf_spine": 0, "spine_super_spine": 0}
    assert su.routed == 0


def test_a_packed_job_inside_one_pod_never_reaches_the_super_spines() -> None:
    # 3 tiers, k = 16, 4 rails: SUs of 8 servers, 2 SUs per pod. 16 servers fill pod 0; 24 spill into pod 1.
    three = {
        "leaf": "{ports: 16, speed: 400G}",
        "fabric_extra": "tiers: 3",
        "compute_extra": "gpus_per_server: 4\nnics_per_server: 4",
    }
    design = jobs("{name: pod, gpus: 64, bytes: 1GB}", "{name: two, gpus: 96, bytes: 1GB}", servers=64, **three)
    pod, two = result(design, "pod"), result(design, "two")
    assert pod.fabric_bytes["leaf_spine"] > 0 and pod.fabric_bytes["spine_super_spine"] == 0
    assert two.fabric_bytes["spine_super_spine"] > 0


def test_fabric_bytes_count_every_link_a_byte_crosses() -> None:
    dp = result(cluster(), "dp")
    per_nic = 2 * 127 / 128 * 700e9 / 8
    # every NIC sends per_nic up its link and receives as much; 4 SUs: the ring crosses leaves at 4 edges per rail
    assert dp.fabric_bytes["server_leaf"] == round(2 * 1024 * per_nic)
    assert dp.fabric_bytes["leaf_spine"] == round(2 * 4 * 8 * per_nic)


# Flows, routing and hashing


def test_roce_source_ports_follow_linux() -> None:
    # rdma_calc_flow_label folds lqpn * rqpn to 20 bits; rdma_flow_label_to_udp_sport XORs bits 14-19 into 0-13.
    assert udp_sport(0x11, 0x22) == 0xC242  # 0x242: nothing to fold
    assert udp_sport(0x400, 0x400) == 0xC001  # 2^20 folds to 1
    assert udp_sport(1, 0xFC123) == 0xC11C  # 0x0123 ^ 0x3F
    assert udp_sport(0xFFFFFF, 0xFFFFFF) == 0xFF21  # both folds and the top bits
    assert udp_sport(0x1234, 0x5678) == udp_sport(0x5678, 0x1234)


def test_placements() -> None:
    assert place(10, 4, 3, "packed", "x") == [0, 1, 2]
    assert place(10, 4, 6, "scattered", "x") == [0, 4, 8, 1, 5, 9]
    shuffled = place(10, 4, 10, "random", "x")
    assert sorted(shuffled) == list(range(10)) and shuffled == place(10, 4, 10, "random", "x")
    assert shuffled != place(10, 4, 10, "random", "y")


def test_every_flow_takes_a_shortest_up_down_path_of_real_links() -> None:
    # 3 tiers, k = 16, 4 rails: 24 servers fill 3 SUs in 2 pods, so an AllToAll crosses leaves, spines and pods.
    design = build_text(
        intent_text(
            servers=24,
            leaf="{ports: 16, speed: 400G}",
            fabric_extra="tiers: 3",
            compute_extra="gpus_per_server: 4\nnics_per_server: 4",
        )
    )
    top = topology(design.fabric)
    connections = job_connections(list(range(24)), collectives.pattern("alltoall", "ring", 24), 4)
    flows = flow_set(top, design.allocation, connections, 2)
    routing = Router(top).route(flows.src_leaf, flows.dst_leaf, SwitchHash(flows.keys(0), 0), trace=True)
    switches = design.fabric.switch_count
    graph = nx.Graph((upper, lower) for _, upper, _, lower, _ in design.fabric.links if lower < switches)
    distance = {leaf: nx.single_source_shortest_path_length(graph, leaf) for leaf in set(flows.src_leaf)}
    links = design.fabric.links
    assert routing.lost == 0 and routing.paths is not None
    assert {len(path) for path in routing.paths} == {2, 4}
    for source, target, path in zip(flows.src_leaf, flows.dst_leaf, routing.paths, strict=True):
        hops = [source]
        for link in path:
            _, upper, _, lower, _ = links[link]
            assert hops[-1] in (upper, lower)
            hops.append(lower if hops[-1] == upper else upper)
        assert hops[-1] == target and len(path) == distance[source][target]
    assert sum(routing.loads.values()) == sum(len(path) for path in routing.paths)


def test_crc_seeds_only_xor_a_constant_so_switches_in_series_polarize() -> None:
    keys = [tuple_bytes((0x0A020001 + 2 * i, 0x0A020101, 17, udp_sport(i + 7, 3 * i + 11), 4791)) for i in range(200)]
    assert len({zlib.crc32(key, 1234) ^ zlib.crc32(key, 98765) for key in keys}) == 1
    assert len({zlib.crc32(key, 1234) % 32 for key in keys}) == 32  # yet one switch alone spreads them


def test_the_lab_gets_the_flows_the_analysis_hashed() -> None:
    design = scattered_and_alone()
    analyzed = result(design, "scattered")
    top = topology(design.fabric)
    order, connections = job(top, analyzed.workload, analyzed.ideal.algorithm)
    flows = flow_set(top, design.allocation, connections, 2)
    assert order == place(128, 32, 64, "scattered", "scattered")
    assert len(connections.src) * 2 == analyzed.flows and len(flows.src) == analyzed.routed
    tuples = flows.five_tuples(3)
    assert [tuple_bytes(five) for five in tuples] == flows.keys(3)
    assert all(five[2] == 17 and 0xC000 <= five[3] <= 0xFFFF and five[4] == 4791 for five in tuples)


@cache
def balls_in_bins(uplinks: int) -> Design:
    """Servers of one GPU and one NIC, 2 SUs in one pod of 3 tiers: a leaf's ``uplinks`` links each reach their own
    spine, and a spine has one link down to each leaf. A scattered ring of every server sends ``uplinks`` flows
    from each leaf to the other: two independent groups of n flows hashed on n paths."""
    return build_text(
        intent_text(
            servers=2 * uplinks,
            leaf=f"{{ports: {2 * uplinks}, speed: 400G}}",
            fabric_extra="tiers: 3",
            compute_extra="gpus_per_server: 1\nnics_per_server: 1\nnic_speed: 400G\nserver_power_kw: 1",
        )
    )


def worst_loads(uplinks: int, runs: int, hash_kind: str, qps: int = 1) -> list[int]:
    """The busiest link of every run of the scattered ring on :func:`balls_in_bins`, in flows."""
    design = balls_in_bins(uplinks)
    top = topology(design.fabric)
    order = place(2 * uplinks, uplinks, 2 * uplinks, "scattered", "ring")
    flows = flow_set(top, design.allocation, job_connections(order, collectives.ring_edges(2 * uplinks), 1), qps)
    router = Router(top)
    worst = []
    for seed in range(runs):
        pick = UniformHash(seed) if hash_kind == "uniform" else SwitchHash(flows.keys(seed), seed)
        worst.append(max(router.route(flows.src_leaf, flows.dst_leaf, pick).loads.values()))
    return worst


@cache
def max_load_cdf(balls: int, bins: int, up_to: int = 16) -> tuple[Fraction, ...]:
    """P(the busiest of ``bins`` holds at most m of ``balls`` uniform balls) for m = 0..min(balls, up_to), exactly:
    ``balls! / bins^balls x [x^balls] (sum_{i<=m} x^i / i!)^bins``; beyond ``up_to`` it is 1 to better than 1e-12
    for the sizes tested."""
    cdf = []
    for most in range(min(balls, up_to) + 1):
        poly = [Fraction(1)]
        term = [Fraction(1, math.factorial(i)) for i in range(most + 1)]
        for _ in range(bins):
            poly = [
                sum(poly[j] * term[k - j] for j in range(max(0, k - most), min(k, len(poly) - 1) + 1))
                for k in range(min(balls, len(poly) - 1 + most) + 1)
            ]
        coefficient = poly[balls] if balls < len(poly) else Fraction(0)
        cdf.append(coefficient * math.factorial(balls) / Fraction(bins) ** balls)
    return tuple(cdf)


def test_exact_balls_in_bins_reference() -> None:
    cdf = max_load_cdf(32, 32)
    mean = sum(1 - p for p in cdf)
    assert float(mean) == pytest.approx(3.53, abs=0.01)  # the busiest of 32 paths holds about 3.5 of 32 flows
    assert max_load_cdf(4, 4)[1] == Fraction(math.factorial(4), 4**4)  # no collision: n!/n^n


@pytest.mark.parametrize("hash_kind", ["uniform", "switch"])
def test_no_collision_happens_n_factorial_over_n_to_the_n_of_the_time(hash_kind: str) -> None:
    runs = 3000
    worst = worst_loads(4, runs, hash_kind)
    p = float(Fraction(math.factorial(4), 4**4)) ** 2  # both leaves' 4 flows on 4 paths without a collision
    hits = worst.count(1)
    assert abs(hits - runs * p) <= SIGMAS * math.sqrt(runs * p * (1 - p)), (hits, runs * p)


@pytest.mark.parametrize("hash_kind", ["uniform", "switch"])
def test_the_busiest_of_32_paths_holds_what_balls_in_bins_expects(hash_kind: str) -> None:
    runs = 600
    worst = worst_loads(32, runs, hash_kind)
    cdf = [float(p) ** 2 for p in max_load_cdf(32, 32)]  # the busier of two independent leaves
    pmf = [cdf[0], *(b - a for a, b in pairwise(cdf))]
    mean = sum(m * p for m, p in enumerate(pmf))
    sd = math.sqrt(sum((m - mean) ** 2 * p for m, p in enumerate(pmf)))
    assert abs(sum(worst) / runs - mean) <= SIGMAS * sd / math.sqrt(runs), (sum(worst) / runs, mean)


@pytest.mark.parametrize("hash_kind", ["uniform", "switch"])
def test_more_qps_never_raise_the_expected_worst_load(hash_kind: str) -> None:
    runs = 150
    means = []
    for qps in (1, 2, 4, 8):
        worst = worst_loads(32, runs, hash_kind, qps)
        means.append(sum(load / qps for load in worst) / runs)  # in units of one connection's demand
    assert means == sorted(means, reverse=True), means
    assert means[-1] < means[0] / 2


def test_collisions_slow_a_scattered_job_and_qps_win_it_back() -> None:
    design = jobs(
        "{name: scattered, gpus: 512, bytes: 350GB, placement: scattered}",
        "{name: more, gpus: 512, bytes: 350GB, placement: scattered, qps_per_connection: 16}",
    )
    scattered, more = result(design, "scattered"), result(design, "more")
    assert scattered.switch is not None and more.switch is not None
    p50 = scattered.switch.time(0.5)
    assert p50 > 2 * scattered.ideal.time_s
    assert scattered.switch.worst(0.5) > scattered.nic_flows
    # One QP is never enough; with the CRC hash's polarization on this fabric 90% may lie beyond the search.
    assert scattered.qps_searched > 1 and (scattered.qps_for_90pct is None or scattered.qps_for_90pct > 1)
    assert more.ideal.time_s / more.switch.time(0.5) > 2 * scattered.ideal.time_s / p50


@pytest.mark.parametrize("mode", ["ecmp", "adaptive"])
def test_only_the_mode_gives_the_contracts_p50_numbers_of_a_whole_analysis(mode: str) -> None:
    """What ``designer explore`` reads (each workload's p50 time and efficiency under the intent's mode) is the same
    whether the analysis is whole or only the mode's healthy runs."""
    design = jobs(
        "{name: scattered, gpus: 512, bytes: 350GB, placement: scattered}",
        "{name: dp, bytes: 700GB}",
        leaf="{model: nvidia-sn5600, speed: 400G}",
        extra_lines=f"targets: [nvue]\nload_balancing: {{mode: {mode}}}",  # NVUE runs adaptive routing on it
        seeds=2,  # the design's own analysis is not read: both analyses are made here
    )
    whole = analyze(design.intent, design.fabric, design.allocation)
    lean = analyze(design.intent, design.fabric, design.allocation, only_the_mode=True)
    assert [result.chosen for result in lean] == [result.chosen for result in whole]
    assert all(result.chosen is not None for result in lean)
    for lean_one, whole_one in zip(lean, whole, strict=True):
        lean_numbers, whole_numbers = contract(lean_one), contract(whole_one)
        assert lean_numbers["ideal"] == whole_numbers["ideal"]
        for key in ("time_s_p50", "efficiency_p50", "time_s_p99", "worst_link_flows_p50"):
            assert lean_numbers["ecmp"][key] == whole_numbers["ecmp"][key]
    assert all(result.uniform is None and not result.failures and not result.spread_failures for result in lean)


def test_a_spine_down_takes_its_links_out_of_every_group() -> None:
    design = scattered_and_alone()
    top = topology(design.fabric)
    spine = next(index for index, device in enumerate(design.fabric.switches()) if device.name == "p0-spine0")
    order = place(128, 32, 64, "scattered", "x")
    flows = flow_set(top, design.allocation, job_connections(order, collectives.ring_edges(64), 8), 2)
    routing = Router(top, frozenset({spine})).route(flows.src_leaf, flows.dst_leaf, UniformHash(1), trace=True)
    links = design.fabric.links
    assert routing.lost == 0 and routing.paths is not None
    assert all(links[link][1] != spine for path in routing.paths for link in path)
    failure = result(design, "scattered").failures[0]
    assert failure.kind == "spine" and failure.failed == "p0-spine0"


def test_a_failure_that_cuts_every_path_never_finishes() -> None:
    # 2 SUs of 4 servers under one spine: with it down no flow leaves its leaf.
    design = jobs(
        "{name: cut, gpus: 64, bytes: 1GB}", servers=8, leaf="{ports: 8, speed: 400G}", spine="{ports: 64, speed: 400G}"
    )
    cut = result(design, "cut")
    assert design.plan.spines_per_pod == 1
    assert math.isinf(cut.failures[0].spread.time(0.5))
    row = contract(cut)
    assert row["failures"][0]["time_s_p50"] is None and row["failures"][0]["efficiency_p50"] == 0


# Cost, check and outputs


def test_a_stall_costs_gpus_times_price_per_minute() -> None:
    dp = result(cluster(), "dp")
    assert dp.stall_usd_per_minute == pytest.approx(512.0)  # 1,024 GPUs at $30 per GPU-hour
    scattered = result(scattered_and_alone(), "scattered")
    assert scattered.switch is not None
    lost = scattered.switch.time(0.5) - scattered.ideal.time_s
    assert scattered.lost_usd_per_step() == pytest.approx(lost * 512 * 2 / 3600)
    assert scattered.lost_usd_per_day() == pytest.approx(lost * 512 * 2 / 3600 * 86_400 / scattered.switch.time(0.5))


def test_a_collective_over_its_step_budget_is_a_warning() -> None:
    design = jobs(
        "{name: slow, bytes: 700GB, step_budget_s: 2}",
        "{name: fine, bytes: 700GB, step_budget_s: 4}",
        "{name: collide, gpus: 512, bytes: 350GB, placement: scattered, step_budget_s: 3}",
    )
    findings = {finding.subject: finding for finding in design.findings if finding.check == "workload-budget"}
    assert findings["slow"].severity == "warning" and "even on an ideal fabric" in findings["slow"].message
    assert findings["fine"].severity == "info" and "within step_budget_s 4 s" in findings["fine"].message
    assert findings["collide"].severity == "warning" and "ECMP collisions" in findings["collide"].message
    assert findings["collide"].evidence["efficiency_p50"] < 1


def test_plan_json_has_the_workloads_contract() -> None:
    code, out, _ = run_cli("plan", str(EXAMPLE), "--format", "json")
    workloads = json.loads(out)["workloads"]
    assert code == 0 and [row["name"] for row in workloads] == ["gpt3-175b-dp", "gpt3-175b-bf16-scattered"]
    for row in workloads:
        assert set(row) == CONTRACT
        assert set(row["ideal"]) == {"algbw_gbyte_s", "busbw_gbyte_s", "time_s"}
        assert set(row["fabric_bytes"]) == {"server_leaf", "leaf_spine", "spine_super_spine"}
        assert set(row["ecmp"]) == {
            "model",
            "flows",
            "worst_link_flows_p50",
            "time_s_p50",
            "time_s_p99",
            "efficiency_p50",
            "efficiency_p99",
            "qps_for_90pct",
        }
        assert all(set(failure) == {"failed", "time_s_p50", "efficiency_p50"} for failure in row["failures"])
        assert set(row["cost"]) == {"usd_per_minute_stall", "usd_per_step_lost_p50", "usd_per_day_lost_p50"}
    assert workloads[0]["ideal"]["time_s"] == pytest.approx(3.6, abs=0.05)
    assert workloads[0]["cost"]["usd_per_minute_stall"] == 512.0
    code, out, _ = run_cli("plan", str(EXAMPLE))
    assert code == 0 and "workload gpt3-175b-dp: allreduce on 1,024 GPUs, 3.631 s ideal, 3.631 s at ECMP p50" in out


def test_an_intent_without_workloads_has_an_empty_list_and_no_workload_files() -> None:
    design = build_text(intent_text(servers=32))
    files = design_files(design)
    assert summary(design)["workloads"] == [] and "workloads.svg" not in files
    assert b'"workloads": [\n' not in files["design.json"] and b"## Workloads" not in files["summary.md"]


def test_analyze_prints_every_workload(monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run_cli("analyze", str(EXAMPLE), "--seeds", "8")
    assert code == 0, err
    assert "gpt3-175b-dp: allreduce of 700 GB (ring) on 1,024 GPUs in 128 servers, packed" in out
    assert "8 runs per hash; a switch down moves only the flows that crossed it (resilient hashing)" in out
    assert "p0-spine0 down" in out and "QPs per connection for 90% at p50" in out
    code, out, _ = run_cli("analyze", str(EXAMPLE), "--format", "json", "--seeds", "8")
    data = json.loads(out)
    assert code == 0 and data["runs"] == 8
    assert data["workloads"][1]["ecmp"]["switch_crc32"]["worst_link_flows_p50"] > 2
    assert data["workloads"][1]["worst_switch"]["uplink_histogram"]


def test_analyze_without_workloads_or_with_bad_seeds_is_refused(tmp_path: Path) -> None:
    intent = tmp_path / "plain.yaml"
    intent.write_text(intent_text(servers=32))
    code, out, err = run_cli("analyze", str(intent))
    assert code == 2 and out == "" and f"{intent}:" in err and "workloads: the intent has no workloads" in err
    with pytest.raises(SystemExit) as exit_info:
        run_cli("analyze", str(EXAMPLE), "--seeds", "0")
    assert exit_info.value.code == 2


def test_same_intent_and_seeds_same_bytes_under_any_hash_seed() -> None:
    outputs = [
        subprocess.run(
            [sys.executable, "-m", "designer.cli", "analyze", str(EXAMPLE), "--format", "json", "--seeds", "6"],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "777")
    ]
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0])["workloads"][1]["ecmp"]["runs"] == 6


def test_the_svg_draws_every_workload_and_the_busiest_switch() -> None:
    design = scattered_and_alone()
    picture = svg("test", design.workloads)
    scattered = result(design, "scattered")
    assert picture.startswith("<svg") and picture.endswith("</svg>\n")
    assert "scattered: allreduce of 350 GB" in picture and scattered.worst_switch in picture
    assert picture.count(">spine down<") == 2 and "no flow leaves its leaf" in picture


def test_a_spine_down_never_speeds_a_scattered_ring_up() -> None:
    """128 DGX H100 on 64 x 400G leaves, a 512-GPU scattered ring AllReduce of 10 GB: the healthy CRC hash polarizes
    (a leaf's 32 uplinks reach 16 spines, so a spine's choice between its 2 links down follows the leaf's choice), and
    rehashing every flow over 30 uplinks with a spine down broke that polarization and reported the job 14-28% faster
    with fewer paths. With resilient hashing only the flows that crossed the failed spine move."""
    scattered = result(jobs("{name: scattered, gpus: 512, bytes: 10GB, placement: scattered}"), "scattered")
    assert scattered.switch is not None
    failed = scattered.failures[0].spread
    assert failed.time(0.5) >= scattered.switch.time(0.5)
    assert failed.time(0.99) >= scattered.switch.time(0.99)


SMALL_FABRICS = (
    {"servers": 24, "leaf": "{ports: 16, speed: 400G}", "compute_extra": "gpus_per_server: 4\nnics_per_server: 4"},
    {"servers": 20, "leaf": "{ports: 8, speed: 400G}", "compute_extra": "gpus_per_server: 2\nnics_per_server: 2"},
    {
        "servers": 24,
        "leaf": "{ports: 16, speed: 400G}",
        "fabric_extra": "tiers: 3",
        "compute_extra": "gpus_per_server: 4\nnics_per_server: 4",
    },
    {
        "servers": 40,
        "leaf": "{ports: 8, speed: 400G}",
        "fabric_extra": "tiers: 3",
        "compute_extra": "gpus_per_server: 2\nnics_per_server: 2",
    },
)
"""2 and 3 tiers, 2 or 4 rails, SUs of 4 or 8 servers, 2 to 8 spines per pod, partly filled."""


@cache
def small_fabric(index: int) -> Design:
    return build_design(**SMALL_FABRICS[index])


def directed_loads(
    design: Design, sources: tuple[int, ...], paths: list[list[int]], chosen: list[bool]
) -> Counter[int]:
    """Flows per link and direction (``2 * link`` up, ``2 * link + 1`` down) walked from the traced paths of the
    flows ``chosen``."""
    links, loads = design.fabric.links, Counter[int]()
    for here, path in (pair for pair, keep in zip(zip(sources, paths, strict=True), chosen, strict=True) if keep):
        for link in path:
            _, upper, _, lower, _ = links[link]
            loads[2 * link + (here == upper)] += 1
            here = upper if here == lower else lower
    return loads


@settings(max_examples=80, deadline=None)
@given(
    data=st.data(),
    fabric=st.integers(0, len(SMALL_FABRICS) - 1),
    collective=st.sampled_from(["ring", "tree", "alltoall"]),
    qps=st.integers(1, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_with_resilient_hashing_a_switch_down_only_moves_the_flows_it_carried(
    data: st.DataObject, fabric: int, collective: str, qps: int, seed: int
) -> None:
    """Resilient ECMP as the failure model (Linux Documentation/networking/nexthop-group-resilient.rst and Cumulus
    Linux's "Equal Cost Multipath Load Sharing", resilient hashing: a next hop going away moves only the flows that
    hashed to it, where RFC 2992's hash-threshold remaps others too), checked flow by flow against both routings
    traced in full on random fabrics, placements, patterns and failed switches: the flows whose healthy path avoids
    the failed switch keep it, the others take their path on the failed fabric. So seed by seed no surviving link
    loses a flow that avoided the failed switch. With 2 tiers, or a super-spine down beside another of its group, that
    is every surviving link's flows, so the busiest link is never below the healthy busiest that survives; with 3
    tiers a spine down (or a group's only super-spine) also unloads the links that led other pods' flows up to it:
    BGP withdraws that way at the switches below, and the flows rehash there."""
    design = small_fabric(fabric)
    top, switches = topology(design.fabric), design.fabric.switches()
    order = data.draw(st.permutations(range(design.plan.servers)))[: data.draw(st.integers(2, design.plan.servers))]
    edges = (
        collectives.ring_edges(len(order))
        if collective == "ring"
        else collectives.pattern("alltoall" if collective == "alltoall" else "allreduce", collective, len(order))
    )
    flows = flow_set(top, design.allocation, job_connections(order, edges, top.nics), qps)
    dead = data.draw(
        st.sampled_from([index for index, device in enumerate(switches) if device.role in ("spine", "super_spine")])
    )
    links = design.fabric.links
    pick = SwitchHash(flows.keys(seed), seed)
    healthy, failed = Router(top), Router(top, frozenset({dead}))
    before = healthy.route(flows.src_leaf, flows.dst_leaf, pick, trace=True, watch=frozenset({dead}))
    after = resilient(healthy, before, failed, flows.src_leaf, flows.dst_leaf, pick)
    rerouted = failed.route(flows.src_leaf, flows.dst_leaf, pick, trace=True)
    assert before.paths is not None and rerouted.paths is not None
    crossed = [any(dead in links[link][1:4:2] for link in path) for path in before.paths]
    assert sorted(before.crossed[dead]) == [flow for flow, hit in enumerate(crossed) if hit]
    kept = directed_loads(design, flows.src_leaf, before.paths, [not hit for hit in crossed])
    moved = directed_loads(design, flows.src_leaf, rerouted.paths, crossed)
    assert after.loads == kept + moved
    assert after.lost == rerouted.lost  # only a flow that crossed the failed switch can lose its way
    surviving = {key: flows for key, flows in before.loads.items() if dead not in links[key // 2][1:4:2]}
    group = [
        device
        for device in switches
        if device.role == "super_spine"
        and device.plane == switches[dead].plane
        and device.group == switches[dead].group
    ]
    if top.fabric.plan.tiers == 2 or (switches[dead].role == "super_spine" and len(group) > 1):
        assert after.lost == 0  # the other spines (or the other super-spines of the group) still lead there
        assert all(after.loads[key] >= flows for key, flows in surviving.items())
        assert max(after.loads.values(), default=0) >= max(surviving.values(), default=0)


# The analysis budget


def test_an_intent_analyzes_at_most_16_workloads_and_says_so_without_blaming_aliases(tmp_path: Path) -> None:
    """4,000 light workloads made ``plan`` take 568 s; 8,000 hit the YAML values limit and were called aliases."""
    for count in (17, 8000):
        intent = tmp_path / f"many-{count}.yaml"
        intent.write_text(
            intent_text(
                servers=32,
                extra="workloads:\n"
                + "".join(f"  - {{name: w{number}, gpus: 16, bytes: 1GB}}\n" for number in range(count)),
            )
        )
        code, out, err = run_cli("plan", str(intent))
        assert code == 2 and out == "" and "alias" not in err, err
        assert f"{intent}:8: workloads: {count:,} workloads; an intent holds at most 16" in err, err


def test_the_flows_of_all_workloads_are_bounded_before_anything_is_built(tmp_path: Path) -> None:
    """One line of ``gpus: 1024, channels: 64, qps_per_connection: 64`` is 4,194,304 flows (128 ring edges x 8 rails
    x 4,096 QPs): the most an intent's workloads may have together. A second such line is refused, and so is an
    AllToAll whose pairs alone pass it (every ordered pair of 1,024 servers on 8 rails: 8,380,416 connections)."""
    big = "{name: big, gpus: 1024, channels: 64, qps_per_connection: 64, bytes: 1GB}"
    intent = tmp_path / "two.yaml"
    intent.write_text(intent_text(servers=1024, extra=f"workloads:\n  - {big}\n  - {big.replace('big', 'b2')}\n"))
    code, out, err = run_cli("plan", str(intent))
    assert code == 2 and out == "", err
    assert (
        "workloads: the workloads have 8,388,608 flows in all (big 4,194,304, b2 4,194,304); an intent's "
        "workloads have at most 4,194,304"
    ) in err, err
    intent.write_text(
        intent_text(servers=1024, extra="workloads:\n  - {name: a2a, collective: alltoall, channels: 1, bytes: 1GB}\n")
    )
    code, out, err = run_cli("plan", str(intent))
    assert code == 2 and "8,380,416 flows in all" in err, err


@pytest.mark.parametrize(
    ("collective", "algorithm"),
    [("allreduce", "ring"), ("allreduce", "tree"), ("allgather", "ring"), ("alltoall", "ring")],
)
def test_the_intent_counts_the_connections_the_analysis_opens(collective: str, algorithm: str) -> None:
    for servers in (1, 2, 3, 8, 33, 128):
        assert pattern_edges(collective, algorithm, servers) == len(collectives.pattern(collective, algorithm, servers))


def test_runs_shrink_to_the_budget_and_below_3_the_workloads_get_ideal_times_only() -> None:
    """The hashing budget is 524,288 flow-runs: with 32 runs per hash up to 16,384 flows leave their leaves in all,
    beyond that the runs are fewer, and with fewer than 3 runs the ECMP numbers would be noise."""
    assert workload_runs(32, 16_384) == 32 and workload_runs(32, 16_385) == 31
    assert workload_runs(8, 50_000) == 8 and workload_runs(32, 174_762) == 3 and workload_runs(32, 174_763) == 0
    # 1,024 GPUs scattered, 64 channels x 8 QPs: 524,288 flows leave their leaves
    design = jobs("{name: wide, placement: scattered, channels: 64, qps_per_connection: 8, bytes: 1GB}")
    wide = result(design, "wide")
    assert wide.routed == 524_288 and wide.switch is None and wide.uniform is None and wide.failures == ()
    text = workload_text("test", design.workloads, 32)
    assert "ECMP: not analyzed: the workloads send 524,288 flows out of their leaves in all" in text
    finding = next(finding for finding in design.findings if finding.check == "workload-budget")
    assert "ECMP not analyzed: the workloads send 524,288 flows" in finding.message
    assert contract(wide)["ecmp"]["time_s_p50"] is None and contract(wide)["failures"] == []

"""The workload stage: what the fabric does to each training job of the intent.

For each workload, alone on an idle fabric:

* **ideal**: the closed-form time of its collective (:mod:`designer.analysis.collectives`);
* **fabric bytes**: bytes sent over the links of each tier (a byte that climbs a tier and comes back down counts
  on both links): a job inside one server sends none, a packed job inside one scalable unit none above its leaves;
* **ECMP**: its flows hashed over the real ECMP groups (:mod:`designer.analysis.flows`), once per seed by the
  uniform hash and by the switch-style CRC-32 hash. A link carrying ``k`` flows where a NIC carries ``c`` (its
  connections times channels times QPs) runs the collective ``k / c`` times slower than the NICs allow; the
  collective waits for its slowest flow, so the busiest link sets the time:
  ``max(network x k / c, nvlink) + latency``. Efficiency is the ideal time over that. The QPs per connection
  needed for 90% at p50 is the first of 1, 2, 4 ... 128 that reaches it with the switch hash;
* **failures**: the same with one spine down (the first spine of the pod holding the job's first server, plane
  0) and, with 3 tiers, one super-spine (the first of plane 0); BGP withdraws what no longer leads anywhere, and
  the switches hash resiliently: a flow whose path survives keeps it, only the flows that crossed the failed switch
  are hashed again over what is left (:func:`designer.analysis.flows.resilient`);
* **cost**: a stall costs ``GPUs x $/GPU-hour / 60`` a minute; the time lost to collisions at p50, per step and
  per day of back-to-back steps of one collective each (an upper bound: real steps also compute).

* **spreading**: adaptive routing, cluster load balancing and packet spraying (``load_balancing.mode`` adaptive,
  cluster, spray) move flowlets or packets rather than whole flows: each flow is split evenly over every path
  (:func:`designer.analysis.flows.even_spread`), so the busiest link carries about its tier's average load, and
  the fabric links deliver :data:`SPREAD_EFFICIENCY` of their line rate (the NIC links all of it): the collective
  runs ``max(1, fabric / efficiency / c)`` times slower than the NICs allow, where ``fabric`` is the busiest fabric
  link's load; the same with each switch down. It needs no seeds: one deterministic run.

The contract numbers (``designer plan --format json``) follow the intent's mode: the switch hash's for ``ecmp``,
the spreading model's otherwise, with ``ecmp.model`` naming which; ``designer analyze`` and ``design.json`` show
both, so a reader sees what the mode buys. Percentiles are nearest-rank over the seeds.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from designer.analysis.collectives import Ideal, ideal, pattern, per_connection_bytes
from designer.analysis.flows import (
    Connections,
    FlowSet,
    Router,
    SwitchHash,
    Topology,
    UniformHash,
    even_spread,
    flow_set,
    job_connections,
    place,
    resilient,
    topology,
)
from designer.backend.allocate import Allocation
from designer.backend.hosts import NCCL_DEFAULT
from designer.backend.wiring import Fabric
from designer.intent import Intent
from designer.intent.workloads_section import MIN_RUNS, RUN_BUDGET, SEARCH_BUDGET, Workload

SEEDS = 32
"""Runs per workload (``designer analyze --seeds`` changes it): each its own QP numbers and hash seeds."""
QPS_LADDER = (1, 2, 4, 8, 16, 32, 64, 128)
"""QPs per connection tried for 90% efficiency (NCCL takes at most 128)."""
TARGET_EFFICIENCY = 0.9
SEARCH_RUN_FLOWS = 1 << 16
"""Flows times runs one step of the QP search aims at: a step with many flows (where the busiest link varies little
from run to run) takes fewer runs than the workload's, but at least
:data:`~designer.intent.workloads_section.MIN_RUNS`."""
SPREAD_EFFICIENCY = 0.95
"""The share of line rate links deliver when traffic is spread at flowlet or packet granularity: NVIDIA reports 95%
effective data throughput for Spectrum-X (adaptive routing with SuperNIC reordering) at 100,000-GPU scale, against
about 60% for standard Ethernet's per-flow hashing ("NVIDIA Ethernet Networking Accelerates World's Largest AI
Supercomputer, Built by xAI", NVIDIA newsroom, 28 October 2024). No published figure for Arista's DLB and CLB or
for NIC spraying was at hand: designer takes the same loss for them."""
HASHED, SPREAD = "per-flow hash", "even spread"
"""``ecmp.model`` in the contract: which model produced its numbers."""


@dataclass(frozen=True)
class Spread:
    """One hash over every seed: the flows on the busiest link and the collective's time, run by run."""

    worst_link_flows: tuple[float, ...]
    """Per run; whole flows under hashing, shares of flows when spread."""
    time_s: tuple[float, ...]
    """Per run; infinite when some flow had no way to its destination."""

    def worst(self, share: float) -> int:
        """Flows on the busiest link at percentile ``share`` of the runs (a share of a flow counts as one)."""
        return math.ceil(percentile(self.worst_link_flows, share) - 1e-9)

    def time(self, share: float) -> float:
        """The collective's time at percentile ``share`` of the runs."""
        return percentile(self.time_s, share)


@dataclass(frozen=True)
class FailureResult:
    """The job with one switch down, under the switch hash or spread."""

    kind: str
    failed: str
    spread: Spread


@dataclass(frozen=True)
class WorkloadResult:
    """What the fabric does to one workload."""

    workload: Workload
    ideal: Ideal
    seeds: int
    """Runs per hash: ``seeds`` or fewer (:func:`workload_runs`), 0 when ECMP was not analyzed."""
    flows: int
    """Every flow of the job: connections times channels times QPs."""
    routed: int
    """Flows that leave their leaf, the ones ECMP hashes."""
    nic_flows: int
    """Flows on the busiest NIC link, one direction: the load every link could carry at full speed."""
    fabric_bytes: dict[str, int]
    uniform: Spread | None
    switch: Spread | None
    """The switch hash's runs; ``None`` (with ``uniform``) when the workloads of the intent have more flows leaving
    their leaves than the analysis budget hashes (:func:`workload_runs`)."""
    failures: tuple[FailureResult, ...]
    qps_for_90pct: int | None
    qps_searched: int
    """The largest QPs per connection the search tried."""
    worst_switch: str
    """The switch holding the busiest uplink in the median run of the switch hash (empty: none loaded)."""
    uplink_histogram: tuple[tuple[int, int], ...]
    """Its uplinks by load: ``(flows, uplinks carrying that many)``, fewest flows first."""
    mode: str = "ecmp"
    """The intent's ``load_balancing.mode``: which model the contract numbers come from."""
    spread: Spread | None = None
    """The spreading model's one run (:data:`SPREAD_EFFICIENCY`); ``None`` without flows to spread."""
    spread_failures: tuple[FailureResult, ...] = ()
    """The spreading model with each switch down; only under a spreading mode (empty under ``ecmp``)."""

    @property
    def model(self) -> str:
        """The model of the intent's mode: :data:`HASHED` for ``ecmp``, else :data:`SPREAD`."""
        return HASHED if self.mode == "ecmp" else SPREAD

    @property
    def label(self) -> str:
        """How the findings and tables name the mode's numbers: ``ECMP``, or the mode (``adaptive``...)."""
        return "ECMP" if self.mode == "ecmp" else self.mode

    @property
    def chosen(self) -> Spread | None:
        """The runs of the intent's mode: the switch hash's for ``ecmp``, else the spreading model's."""
        return self.switch if self.mode == "ecmp" else self.spread

    @property
    def chosen_failures(self) -> tuple[FailureResult, ...]:
        return self.failures if self.mode == "ecmp" else self.spread_failures

    @property
    def chosen_qps_for_90pct(self) -> int | None:
        """QPs per connection for 90% under the intent's mode: spreading does not depend on them, so 1 when it
        reaches 90% at all."""
        if self.mode == "ecmp" or self.spread is None:
            return self.qps_for_90pct
        return 1 if self.ideal.time_s / self.spread.time(0.5) >= TARGET_EFFICIENCY - 1e-12 else None

    @property
    def stall_usd_per_minute(self) -> float:
        return self.workload.gpus * self.workload.gpu_hour_usd / 60

    def lost_usd_per_step(self) -> float | None:
        """Dollars of idle GPUs per step at the mode's p50 time versus ideal (``None``: not computed or never
        finishing)."""
        if self.chosen is None or math.isinf(self.chosen.time(0.5)):
            return None
        lost = max(0.0, self.chosen.time(0.5) - self.ideal.time_s)
        return lost * self.workload.gpus * self.workload.gpu_hour_usd / 3600

    def lost_usd_per_day(self) -> float | None:
        per_step = self.lost_usd_per_step()
        return None if per_step is None or self.chosen is None else per_step * 86_400 / self.chosen.time(0.5)


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest rank: the smallest value with at least ``share`` of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def analyze(
    intent: Intent, fabric: Fabric, allocation: Allocation | None, seeds: int = SEEDS, only_the_mode: bool = False
) -> tuple[WorkloadResult, ...]:
    """Every workload of ``intent`` on the wired fabric, over ``seeds`` runs or as many as the budget allows (the
    flows' addresses from ``allocation``: :func:`~designer.analysis.flows.flow_set`). With
    ``only_the_mode``, only what the contract's p50 numbers read (``designer explore``): the ideal and the intent's
    mode on the healthy fabric (the switch hash under ``ecmp``, else the one spreading run), the same numbers as a
    whole analysis gives; no uniform hash, no failures, no QP search and no busiest switch."""
    if not intent.workloads:
        return ()
    top = topology(fabric)
    placed = [_placed(intent, top, workload) for workload in intent.workloads]
    routed = sum(job.cross_leaf * job.workload.channels * job.workload.qps_per_connection for job in placed)
    runs, search = workload_runs(seeds, routed), SEARCH_BUDGET // len(intent.workloads)
    return tuple(_analyze(intent, top, allocation, job, runs, search, only_the_mode) for job in placed)


def workload_runs(seeds: int, routed: int) -> int:
    """Runs per hash for workloads whose flows leaving their leaves number ``routed`` in all: ``seeds``, or fewer so
    that the runs hash at most :data:`~designer.intent.workloads_section.RUN_BUDGET` flow-runs; 0 (ideal times only)
    when that leaves fewer than :data:`~designer.intent.workloads_section.MIN_RUNS`."""
    runs = min(seeds, RUN_BUDGET // max(1, routed))
    return runs if runs >= MIN_RUNS else 0


def not_analyzed(results: Sequence[WorkloadResult]) -> str:
    """Why the workloads have ideal times only: the flows leaving their leaves are beyond the analysis budget."""
    routed = sum(result.routed for result in results)
    return (
        f"the workloads send {routed:,} flows out of their leaves in all, more than the "
        f"{RUN_BUDGET // MIN_RUNS:,} the analysis hashes ({MIN_RUNS} runs within its budget); ideal times only "
        "(fewer channels or QPs per connection, a packed placement or fewer workloads would fit)"
    )


@dataclass(frozen=True)
class _Placed:
    """One workload placed on the fabric: its ideal (and the algorithm it picks), its NVLink domains in rank order,
    its connections, and how many of them leave their leaf and their pod."""

    workload: Workload
    best: Ideal
    order: list[int]
    connections: Connections
    cross_leaf: int
    cross_pod: int


def _placed(intent: Intent, top: Topology, workload: Workload) -> _Placed:
    best = _ideal(intent, top, workload)
    order, connections = job(top, workload, best.algorithm)
    return _Placed(workload, best, order, connections, *_crossings(top, connections))


def _ideal(intent: Intent, top: Topology, workload: Workload) -> Ideal:
    return ideal(
        workload.collective,
        workload.algorithm,
        workload.bytes,
        workload.servers,
        workload.gpus_per_server,
        domain_nics(top),
        top.fabric.plan.link_speed,
        intent.server.nvlink_gbyte_s or 0.0,  # known whenever the intent has workloads (an input rule)
    )


def domain_nics(top: Topology) -> int:
    """NIC ports of one NVLink domain: a server's, or every tray's of a rack-scale system."""
    return top.nics * top.fabric.plan.servers_per_system


class _Hashed(NamedTuple):
    """What the hashed model gives a workload (none of it where ECMP is not analyzed): its runs per hash, the
    uniform and switch hashes' spreads, the switch hash's under each failure, the QPs a connection needs and how
    many were tried, and the busiest switch with its uplinks' loads."""

    seeds: int = 0
    uniform: Spread | None = None
    switch: Spread | None = None
    failures: tuple[FailureResult, ...] = ()
    qps: int | None = None
    searched: int = 0
    worst_switch: str = ""
    histogram: tuple[tuple[int, int], ...] = ()


def _analyze(
    intent: Intent,
    top: Topology,
    allocation: Allocation | None,
    placed: _Placed,
    seeds: int,
    search: int,
    only_the_mode: bool = False,
) -> WorkloadResult:
    fabric, workload, best, order = top.fabric, placed.workload, placed.best, placed.order
    connections, cross_leaf = placed.connections, placed.cross_leaf
    per_connection = workload.channels * workload.qps_per_connection
    flows = len(connections.src) * per_connection
    routed, baseline = cross_leaf * per_connection, _nic_connections(connections) * per_connection
    down = [] if only_the_mode else _failures(top, order[0] * top.fabric.plan.servers_per_system if order else 0)
    healthy = Router(top)
    failed = [Router(top, frozenset({device})) for _, device in down]
    mode = intent.load_balancing.mode
    spreading = flows and (mode != "ecmp" or not only_the_mode)
    spread = _even(best, healthy, connections, per_connection, baseline) if spreading else None
    # the spread's failures count only where the fabric spreads: under ecmp the hashed ones are the mode's
    spread_failures = tuple(
        FailureResult(kind, fabric.devices[device].name, _even(best, router, connections, per_connection, baseline))
        for (kind, device), router in zip(down, failed, strict=True)
        if flows and mode != "ecmp"
    )
    hashed = (
        _Hashed()
        if not seeds or (only_the_mode and mode != "ecmp")
        else _hashed(top, allocation, placed, healthy, failed, down, seeds, search, only_the_mode)
    )
    return WorkloadResult(
        workload,
        best,
        hashed.seeds,
        flows,
        routed,
        baseline,
        _fabric_bytes(top, placed),
        hashed.uniform,
        hashed.switch,
        hashed.failures,
        hashed.qps,
        hashed.searched,
        hashed.worst_switch,
        hashed.histogram,
        mode,
        spread,
        spread_failures,
    )


def _fabric_bytes(top: Topology, placed: _Placed) -> dict[str, int]:
    """The bytes the workload's flows carry over each tier's links, both ways."""
    workload, best, connections = placed.workload, placed.best, placed.connections
    per_connection = workload.channels * workload.qps_per_connection
    flow_bytes = (
        per_connection_bytes(
            workload.collective,
            best.algorithm,
            workload.bytes,
            workload.servers,
            workload.gpus_per_server,
            domain_nics(top),
        )
        / per_connection
    )
    flows = len(connections.src) * per_connection
    return {
        "server_leaf": round(2 * flows * flow_bytes),
        "leaf_spine": round(2 * placed.cross_leaf * per_connection * flow_bytes),
        "spine_super_spine": round(2 * placed.cross_pod * per_connection * flow_bytes),
    }


def _hashed(
    top: Topology,
    allocation: Allocation | None,
    placed: _Placed,
    healthy: Router,
    failed: list[Router],
    down: list[tuple[str, int]],
    seeds: int,
    search: int,
    only_the_mode: bool,
) -> _Hashed:
    """The hashed model of the workload over ``seeds`` runs: on the ``healthy`` fabric and with each of ``down``
    ``failed``; with ``only_the_mode`` the switch hash on the healthy fabric alone, else the uniform hash too, the
    QP search (``search`` runs) and the busiest switch."""
    workload, connections = placed.workload, placed.connections
    per_connection = workload.channels * workload.qps_per_connection
    nic_connections = _nic_connections(connections)
    baseline = nic_connections * per_connection
    flowset = flow_set(top, allocation, connections, per_connection)
    runs = _runs(healthy, failed, flowset, baseline, seeds, uniform=not only_the_mode)
    spreads = [_spread(placed.best, worst, baseline, lost) for worst, lost in runs]
    uniform = None if only_the_mode else spreads.pop(0)
    switch, *under_failures = spreads
    failures = tuple(
        FailureResult(kind, top.fabric.devices[device].name, spread)
        for (kind, device), spread in zip(down, under_failures, strict=True)
    )
    if only_the_mode:
        return _Hashed(seeds, uniform, switch, failures)
    qps, searched = _qps_search(
        healthy,
        allocation,
        connections,
        workload,
        placed.best,
        placed.cross_leaf,
        nic_connections,
        seeds,
        switch,
        search,
    )
    name, histogram = _worst_switch(top, healthy, flowset, list(switch.worst_link_flows), seeds)
    return _Hashed(seeds, uniform, switch, failures, qps, searched, name, histogram)


def _even(best: Ideal, router: Router, connections: Connections, per_connection: int, baseline: int) -> Spread:
    """The job's flows spread evenly over every path (adaptive, cluster, spray): its one run. A NIC link runs at line
    rate, a fabric link at :data:`SPREAD_EFFICIENCY` of it, so the busiest fabric link slows the collective only when
    its load over that share passes a NIC link's."""
    leaf = router.topology.leaf
    sources, targets = [leaf(nic) for nic in connections.src], [leaf(nic) for nic in connections.dst]
    loads, lost = even_spread(router, sources, targets, per_connection)
    fabric = round(max(loads.values(), default=0.0), 6)
    worst = max(float(baseline), fabric)
    if lost > 1e-9:
        return Spread((worst,), (math.inf,))
    network = best.network_s * max(1.0, fabric / SPREAD_EFFICIENCY / baseline)
    return Spread((worst,), (max(network, best.nvlink_s) + best.latency_s,))


Runs = tuple[list[int], list[bool]]
"""The busiest link's flows in every run, and whether some flow found no way."""


def _runs(
    healthy: Router, failed: list[Router], flowset: FlowSet, baseline: int, seeds: int, uniform: bool = True
) -> list[Runs]:
    """Every run of the uniform hash (unless not ``uniform``), then of the switch hash on the healthy fabric and
    with each switch down (resilient hashing: :func:`designer.analysis.flows.resilient`)."""
    runs: list[Runs] = [([], []) for _ in range(1 + uniform + len(failed))]
    sources, targets = flowset.src_leaf, flowset.dst_leaf
    watch = frozenset().union(*(router.dead for router in failed))
    for seed in range(seeds):
        pick = SwitchHash(flowset.keys(seed), seed)
        routing = healthy.route(sources, targets, pick, watch=watch)
        routings = [
            *([healthy.route(sources, targets, UniformHash(seed))] if uniform else []),
            routing,
            *(resilient(healthy, routing, router, sources, targets, pick) for router in failed),
        ]
        for (worst, lost), done in zip(runs, routings, strict=True):
            worst.append(_worst(done.loads, baseline, healthy.topology.fabric))
            lost.append(done.lost > 0)
    return runs


def job(top: Topology, workload: Workload, algorithm: str) -> tuple[list[int], Connections]:
    """The workload's NVLink domains (servers, or rack-scale systems) in rank order and its connections on every
    rail, the collective run by ``algorithm`` (``ring`` or ``tree``): with :func:`designer.analysis.flows.flow_set`
    the flows a lab sends to measure ECMP. A domain's servers are numbered one after another, so a domain is taken
    for one server with all their NICs."""
    plan = top.fabric.plan
    domains = plan.servers // plan.servers_per_system
    order = place(domains, plan.systems_per_block, workload.servers, workload.placement, workload.name)
    edges = pattern(workload.collective, algorithm, workload.servers)
    return order, job_connections(order, edges, top.nics * plan.servers_per_system)


def _nic_connections(connections: Connections) -> int:
    """Connections on the busiest NIC, in one direction."""
    if not connections.src:
        return 0
    return max(max(Counter(connections.src).values()), max(Counter(connections.dst).values()))


def _crossings(top: Topology, connections: Connections) -> tuple[int, int]:
    """Connections whose NICs sit on different leaves, and those of them whose leaves sit in different pods."""
    devices = top.fabric.devices
    leaf = top.leaf
    cross_leaf = cross_pod = 0
    for src, dst in zip(connections.src, connections.dst, strict=True):
        a, b = leaf(src), leaf(dst)
        if a != b:
            cross_leaf += 1
            cross_pod += devices[a].pod != devices[b].pod
    return cross_leaf, cross_pod


def _failures(top: Topology, first_server: int) -> list[tuple[str, int]]:
    """The switches failed one at a time: the first spine of the pod of the job's first server in plane 0, and
    the first super-spine of plane 0 (3 tiers)."""
    fabric = top.fabric
    pod = fabric.devices[fabric.switch_count + first_server].pod
    chosen = []
    for kind, role, wanted in (("spine", "spine", pod), ("super-spine", "super_spine", -1)):
        device = next(
            (
                index
                for index, device in enumerate(fabric.switches())
                if device.role == role and device.plane == 0 and device.pod == wanted
            ),
            None,
        )
        if device is not None:
            chosen.append((kind, device))
    return chosen


def _worst(loads: Counter[int], baseline: int, fabric: Fabric) -> int:
    """Flows on the busiest link: a fabric link, or a NIC link (``baseline``). A link faster than the NICs counts
    its flows at the NIC speed (rounded up): an 800G link carrying 8 flows is as busy as a 400G link carrying 4."""
    speeds = fabric.plan.link_speeds
    if speeds.count(speeds[0]) == len(speeds):
        return max(baseline, max(loads.values(), default=0))
    links, nic = fabric.links, speeds[0]
    busiest = max((-(-flows * nic // speeds[links[key // 2][0]]) for key, flows in loads.items()), default=0)
    return max(baseline, busiest)


def _time(best: Ideal, worst: int, baseline: int, lost: bool = False) -> float:
    """The collective's time when its busiest link carries ``worst`` flows where a NIC carries ``baseline``."""
    if lost:
        return math.inf
    if baseline == 0:
        return best.time_s
    return max(best.network_s * worst / baseline, best.nvlink_s) + best.latency_s


def _spread(best: Ideal, worst: list[int], baseline: int, lost: list[bool]) -> Spread:
    return Spread(
        tuple(worst), tuple(_time(best, flows, baseline, gone) for flows, gone in zip(worst, lost, strict=True))
    )


def _qps_search(
    router: Router,
    allocation: Allocation | None,
    connections: Connections,
    workload: Workload,
    best: Ideal,
    cross_leaf: int,
    nic_connections: int,
    seeds: int,
    current: Spread,
    limit: int,
) -> tuple[int | None, int]:
    """The fewest QPs per connection on :data:`QPS_LADDER` whose switch-hash p50 efficiency reaches 90%, and the
    largest count tried; the search stops before its flow-runs would pass ``limit``."""
    top = router.topology
    searched = spent = 0
    for qps in QPS_LADDER:
        per_connection = workload.channels * qps
        routed = cross_leaf * per_connection
        if qps == workload.qps_per_connection:
            spread = current
        else:
            runs = min(seeds, max(MIN_RUNS, SEARCH_RUN_FLOWS // max(1, routed)))
            spent += runs * routed
            if spent > limit:
                return None, searched
            flowset = flow_set(top, allocation, connections, per_connection)
            baseline = nic_connections * per_connection
            worst = [
                _worst(
                    router.route(flowset.src_leaf, flowset.dst_leaf, SwitchHash(flowset.keys(seed), seed)).loads,
                    baseline,
                    top.fabric,
                )
                for seed in range(runs)
            ]
            spread = _spread(best, worst, baseline, [False] * len(worst))
        searched = qps
        if best.time_s / spread.time(0.5) >= TARGET_EFFICIENCY - 1e-12:
            return qps, searched
    return None, searched


def _worst_switch(
    top: Topology, router: Router, flowset: FlowSet, worst: list[float], seeds: int
) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The switch with the busiest uplink in the median run of the switch hash, and its uplinks by load."""
    if not flowset.src:
        return "", ()
    median = percentile(worst, 0.5)
    seed = next(seed for seed in range(seeds) if worst[seed] == median)
    loads = router.route(flowset.src_leaf, flowset.dst_leaf, SwitchHash(flowset.keys(seed), seed)).loads
    links = top.fabric.links
    busiest: dict[int, int] = {}
    for key, flows in loads.items():
        if key % 2 == 0:
            lower = links[key // 2][3]
            busiest[lower] = max(busiest.get(lower, 0), flows)
    switch = min(busiest, key=lambda device: (-busiest[device], device))
    histogram = Counter(loads.get(2 * link, 0) for link in top.up[switch])
    return top.fabric.devices[switch].name, tuple(sorted(histogram.items()))


def queue_pairs(workloads: Sequence[WorkloadResult]) -> tuple[int, str]:
    """NCCL_IB_QPS_PER_CONNECTION and why: the most any workload needs, each taking the larger of its own
    ``qps_per_connection`` and the count its analysis found to reach 90% of the ideal time under ECMP; NCCL's
    default without workloads."""
    if not workloads:
        return NCCL_DEFAULT
    needs = [
        (max(result.workload.qps_per_connection, result.qps_for_90pct or 0), result.workload.name)
        for result in workloads
    ]
    qps, name = max(needs, key=lambda need: need[0])
    return qps, f"workload {name} (designer analyze: the most queue pairs any workload needs)"

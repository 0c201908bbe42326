"""The ``workloads:`` section resolved: each training job with every field known.

Cross-field rules: a job fits the fabric (at least 2 GPUs, at most every GPU) and fills whole servers (or
sits inside one); its size is given once (``bytes`` or ``model``); a tree runs AllReduce only (NCCL runs
the other collectives on rings); names are unique.
"""

from __future__ import annotations

from dataclasses import dataclass

from designer.errors import Problem
from designer.intent.schema import WorkloadDoc


@dataclass(frozen=True)
class Workload:
    """One training job: which GPUs, what collective of how many bytes, how NCCL connects, what it costs."""

    name: str
    gpus: int
    servers: int
    """Servers the job spans; a job of fewer GPUs than a server has sits inside one."""
    gpus_per_server: int
    """GPUs of the job in each of its servers."""
    placement: str
    collective: str
    bytes: int
    algorithm: str
    qps_per_connection: int
    channels: int
    gpu_hour_usd: float
    step_budget_s: float | None


def resolve_workloads(docs: list[WorkloadDoc], fabric_gpus: int, per_server: int,
                      problems: list[Problem]) -> tuple[Workload, ...]:
    """Fill each workload's defaults and append a problem for each rule it breaks."""
    workloads = []
    seen: set[str] = set()
    for number, doc in enumerate(docs):
        where = ("workloads", number)
        if doc.name in seen:
            problems.append(Problem((*where, "name"), f"{doc.name!r} names an earlier workload too; give each "
                                                      "workload its own name"))
        seen.add(doc.name)
        gpus = fabric_gpus if doc.gpus is None else doc.gpus
        if gpus > fabric_gpus:
            problems.append(Problem((*where, "gpus"), f"{gpus:,} GPUs are more than the fabric's {fabric_gpus:,}; "
                                                      f"use 2 to {fabric_gpus:,}"))
        elif gpus > per_server and gpus % per_server:
            problems.append(Problem((*where, "gpus"), f"{gpus:,} GPUs do not fill whole servers of {per_server}; "
                                                      f"use at most {per_server} or a multiple of {per_server}"))
        if (doc.bytes is None) == (doc.model is None):
            problems.append(Problem(where, "give exactly one of bytes (700GB, 1.5TB or a number of bytes) or model "
                                           "({parameters: 175e9, bytes_per_parameter: 4})"))
        if doc.algorithm == "tree" and doc.collective != "allreduce":
            problems.append(Problem((*where, "algorithm"), f"NCCL runs {doc.collective} on rings only; use ring or "
                                                           "auto (tree is for allreduce)"))
        size = doc.bytes or 0
        if doc.model is not None and doc.bytes is None:
            size = max(1, round(doc.model.parameters * doc.model.bytes_per_parameter))
        workloads.append(Workload(
            name=doc.name, gpus=gpus, servers=max(1, gpus // per_server), gpus_per_server=min(gpus, per_server),
            placement=doc.placement, collective=doc.collective, bytes=size, algorithm=doc.algorithm,
            qps_per_connection=doc.qps_per_connection, channels=doc.channels, gpu_hour_usd=doc.gpu_hour_usd,
            step_budget_s=doc.step_budget_s))
    return tuple(workloads)

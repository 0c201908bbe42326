"""The ``workloads:`` section resolved: each training job with every field known.

Cross-field rules: a job fits the fabric (at least 2 GPUs, at most every GPU) and fills whole servers (or
sits inside one); its size is given once (``bytes`` or ``model``); a tree runs AllReduce only (NCCL runs
the other collectives on rings); names are unique.

The analysis budget, all of it here so that ``plan``, ``check``, ``build`` and ``analyze`` of any accepted intent
stay within about a minute and 2 GiB at 131,072 GPUs on 2 cores (``benchmarks/README.md``):

* at most :data:`MAX_WORKLOADS` workloads, and :data:`MAX_FLOWS` flows among them (connections of the pattern on
  every rail, times channels, times QPs per connection; :func:`pattern_edges`): input errors;
* the flows leaving their leaves are hashed at most :data:`RUN_BUDGET` flow-runs in all (a flow-run: one flow through
  both hashes and the failures once), so the runs per hash are ``seeds`` or fewer; below :data:`MIN_RUNS` runs the
  workloads get the ideal times only and say so;
* the search for the QPs that reach 90% hashes at most :data:`SEARCH_BUDGET` flow-runs, shared evenly by the
  workloads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    WithJsonSchema,
)

from designer.errors import Path, Problem
from designer.intent.fields import (
    MAX_GPUS,
    Section,
    safe_name,
)
from designer.intent.yaml_source import short

MAX_WORKLOADS = 16
"""Workloads in one intent; each costs a QP search besides its runs."""
MAX_FLOWS = 1 << 22
"""Flows of all workloads of an intent together, whether or not they leave their leaf: bounds the connections the
analysis lists (4,194,304: one 1,024-GPU ring of 64 channels x 64 QPs)."""
RUN_BUDGET = 1 << 19
"""Flow-runs of the healthy and failed runs of every workload together (about 17-25 us each at 131,072 GPUs)."""
SEARCH_BUDGET = 1 << 19
"""Flow-runs of the QP searches of every workload together (about 10-15 us each: one hash, no failures)."""
MIN_RUNS = 3
"""Fewest runs per hash that give a p50."""


@dataclass(frozen=True)
class Workload:
    """One training job: which GPUs, what collective of how many bytes, how NCCL connects, what it costs."""

    name: str
    gpus: int
    servers: int
    """NVLink domains the job spans (servers, or rack-scale systems such as an NVL72); a job of fewer GPUs than a
    domain has sits inside one."""
    gpus_per_server: int
    """GPUs of the job in each of its NVLink domains."""
    placement: str
    collective: str
    bytes: int
    algorithm: str
    qps_per_connection: int
    channels: int
    gpu_hour_usd: float
    step_budget_s: float | None


def pattern_edges(collective: str, algorithm: str, servers: int) -> int:
    """Connections per rail of the collective's pattern (``designer.analysis.collectives.pattern``): a ring's
    edges, both directions of both of NCCL's trees (``auto`` may pick the tree), every ordered pair for AllToAll."""
    if servers < 2:
        return 0
    if collective == "alltoall":
        return servers * (servers - 1)
    if collective == "allreduce" and algorithm in ("tree", "auto"):
        return max(servers, 4 * (servers - 1))
    return servers


def resolve_workloads(
    docs: list[WorkloadDoc], fabric_gpus: int, per_server: int, nics: int, problems: list[Problem]
) -> tuple[Workload, ...]:
    """Fill each workload's defaults and append a problem for each rule it breaks; ``per_server`` and ``nics`` are
    the GPUs and NIC ports of one NVLink domain (a server, or a whole rack-scale system)."""
    if len(docs) > MAX_WORKLOADS:
        problems.append(
            Problem(
                ("workloads",),
                f"{len(docs):,} workloads; an intent holds at most {MAX_WORKLOADS} "
                "(each is analyzed on its own: split them over intents of the same "
                "fabric)",
            )
        )
    workloads = []
    seen: set[str] = set()
    for number, doc in enumerate(docs):
        where = ("workloads", number)
        if doc.name in seen:
            problems.append(
                Problem(
                    (*where, "name"), f"{doc.name!r} names an earlier workload too; give each workload its own name"
                )
            )
        seen.add(doc.name)
        gpus = fabric_gpus if doc.gpus is None else doc.gpus
        problems.extend(_workload_problems(where, doc, gpus, fabric_gpus, per_server))
        workloads.append(_workload(doc, gpus, per_server))
    problems.extend(_flow_problems(workloads, nics))
    return tuple(workloads)


def _workload_problems(where: Path, doc: WorkloadDoc, gpus: int, fabric_gpus: int, per_server: int) -> list[Problem]:
    """The rules one workload of ``gpus`` GPUs breaks: its size on the fabric and in NVLink domains of
    ``per_server`` GPUs, its data (bytes or a model) and its algorithm."""
    problems = []
    if gpus > fabric_gpus:
        problems.append(
            Problem(
                (*where, "gpus"),
                f"{gpus:,} GPUs are more than the fabric's {fabric_gpus:,}; use 2 to {fabric_gpus:,}",
            )
        )
    elif gpus > per_server and gpus % per_server:
        problems.append(
            Problem(
                (*where, "gpus"),
                f"{gpus:,} GPUs do not fill whole NVLink domains of {per_server} (a server, or a rack-scale "
                f"system); use at most {per_server} or a multiple of {per_server}",
            )
        )
    if (doc.bytes is None) == (doc.model is None):
        problems.append(
            Problem(
                where,
                "give exactly one of bytes (700GB, 1.5TB or a number of bytes) or model "
                "({parameters: 175e9, bytes_per_parameter: 4})",
            )
        )
    if doc.algorithm == "tree" and doc.collective != "allreduce":
        problems.append(
            Problem(
                (*where, "algorithm"),
                f"NCCL runs {doc.collective} on rings only; use ring or auto (tree is for allreduce)",
            )
        )
    return problems


def _workload(doc: WorkloadDoc, gpus: int, per_server: int) -> Workload:
    """One workload of ``gpus`` GPUs with its defaults filled, in NVLink domains of ``per_server`` GPUs."""
    size = doc.bytes or 0
    if doc.model is not None and doc.bytes is None:
        size = max(1, round(doc.model.parameters * doc.model.bytes_per_parameter))
    return Workload(
        name=doc.name,
        gpus=gpus,
        servers=max(1, gpus // per_server),
        gpus_per_server=min(gpus, per_server),
        placement=doc.placement,
        collective=doc.collective,
        bytes=size,
        algorithm=doc.algorithm,
        qps_per_connection=doc.qps_per_connection,
        channels=doc.channels,
        gpu_hour_usd=doc.gpu_hour_usd,
        step_budget_s=doc.step_budget_s,
    )


def _flow_problems(workloads: list[Workload], nics: int) -> list[Problem]:
    """More flows in all than :data:`MAX_FLOWS`, with ``nics`` NIC ports per NVLink domain."""
    flows = {
        work.name: pattern_edges(work.collective, work.algorithm, work.servers)
        * nics
        * work.channels
        * work.qps_per_connection
        for work in workloads
    }
    if sum(flows.values()) > MAX_FLOWS:
        each = (
            f" ({', '.join(f'{name} {count:,}' for name, count in flows.items())})"
            if len(flows) <= MAX_WORKLOADS
            else ""
        )
        return [
            Problem(
                ("workloads",),
                f"the workloads have {sum(flows.values()):,} flows in all{each}; an "
                f"intent's workloads have at most {MAX_FLOWS:,} (connections x "
                "channels x qps_per_connection): use fewer channels, QPs per "
                "connection or GPUs, or split them over intents",
            )
        ]
    return []


BYTE_UNITS = {
    "": 1,
    "K": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "P": 10**15,
    "Ki": 2**10,
    "Mi": 2**20,
    "Gi": 2**30,
    "Ti": 2**40,
    "Pi": 2**50,
}
"""Prefixes of a byte count: decimal (``GB`` = 10^9 bytes, as nccl-tests reports) or binary (``GiB``)."""
MAX_BYTES = 10**16
"""The largest collective the analysis takes (10PB); anything bigger is a typo."""


def parse_bytes(value: object) -> object:
    """Accept ``700GB``, ``1.5TB``, ``64GiB`` or a whole number of bytes and return the bytes as an int; anything
    else raises, saying what would be valid."""
    number: float | None = None
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*(?:([KMGTP]i?)?B)?\s*", value)
        if match:
            number = float(match.group(1)) * BYTE_UNITS[match.group(2) or ""]
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    if number is None or not number.is_integer() or not 1 <= number <= MAX_BYTES:
        raise ValueError(
            f"{short(value)} is not a byte count; write 700GB, 1.5TB, 64GiB or a whole number of bytes (1 byte to 10PB)"
        )
    return int(number)


def parse_count(value: object) -> object:
    """A count written as a number or in exponent form (``175e9``, which YAML reads as text) as an int."""
    if isinstance(value, str):
        if not re.fullmatch(r"\s*\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*", value):
            raise ValueError(f"{short(value)} is not a count; write a number such as 175e9 or 175000000000")
        value = float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Bytes = Annotated[
    int,
    BeforeValidator(parse_bytes),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*[kKMGTP]?B\s*$"},
            ],
            "description": "Bytes per collective: an integer, or with a unit (700GB, 1.5TB; 10^3 multiples).",
        }
    ),
]
Count = Annotated[
    int,
    BeforeValidator(parse_count),
    WithJsonSchema(
        {
            "anyOf": [{"type": "integer", "minimum": 1}, {"type": "number", "minimum": 1}, {"type": "string"}],
            "description": "A count: an integer or a number such as 175e9.",
        }
    ),
]


class ModelDoc(Section):
    """A model whose gradient is the collective: parameters times bytes per parameter (4 for fp32, 2 for bf16)."""

    parameters: Annotated[Count, Field(ge=1, le=10**15, description="Parameters of the model (175e9).")]
    bytes_per_parameter: float = Field(4, gt=0, le=16, description="Bytes per parameter: 4 for fp32, 2 for bf16.")


class WorkloadDoc(Section):
    """One training job on the fabric: its collective, size, placement and what a stall costs."""

    name: Annotated[str, AfterValidator(safe_name)] = Field(description="The job's name in reports.")
    gpus: int | None = Field(None, ge=2, le=MAX_GPUS, description="GPUs of the job (default: every GPU).")
    placement: Literal["packed", "scattered", "random"] = Field(
        "packed",
        description=("packed: scalable unit by scalable unit; scattered: one server per unit in turn; random: seeded."),
    )
    collective: Literal["allreduce", "allgather", "reducescatter", "alltoall"] = Field(
        "allreduce", description="The collective every step ends with."
    )
    bytes: Bytes | None = Field(
        None,
        description=("Bytes per collective as nccl-tests counts them (the per-rank buffer; for allgather the output)."),
    )
    model: ModelDoc | None = Field(None, description="Or the model whose gradient is the collective.")
    algorithm: Literal["ring", "tree", "auto"] = Field("ring", description="NCCL's algorithm.")
    qps_per_connection: int = Field(
        1,
        ge=1,
        le=128,
        description=("RoCE queue pairs per connection (NCCL_IB_QPS_PER_CONNECTION; NCCL takes at most 128)."),
    )
    channels: int = Field(2, ge=1, le=64, description="Connections per rail and neighbour (NCCL channels).")
    gpu_hour_usd: float = Field(30.0, ge=0, le=10_000, description="What one GPU-hour costs, in US dollars.")
    step_budget_s: float | None = Field(
        None,
        gt=0,
        le=86_400,
        description=("The collective time the team can afford per step; above it designer check warns."),
    )

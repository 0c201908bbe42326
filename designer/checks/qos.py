"""qos: the same lossless settings on both ends of every link, and a profile that holds together.

Both ends of every switch link must agree on the lossless priority, the DSCP-to-priority map, the PFC
priorities, ECN (on, unit, thresholds, probability), the CNP class, the PFC watchdog and the MTU: one
end pausing a priority the other does not honour drops the lossless class. Each profile in use must
also be sound: RoCE's DSCP maps to the lossless priority, which has PFC on; CNP's DSCP maps to its own
priority, served by a strict queue; the ECN start threshold sits below the maximum.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.backend.model import Qos
from designer.backend.wiring import SERVER_LEAF
from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding

ID = "qos"
DESCRIPTION = "same lossless priority, DSCP map, PFC and ECN on both ends of every link; ECN min < max; CNP strict"
SEVERITY = "error"
TECHNOLOGIES = ("ethernet",)
"""The fabrics it proves something of: an InfiniBand fabric has no PFC and ECN."""
COMPARED = (
    "lossless_priority",
    "dscp_to_tc",
    "pfc_priorities",
    "roce_dscp",
    "cnp_dscp",
    "cnp_priority",
    "ecn",
    "ecn_unit",
    "ecn_min",
    "ecn_max",
    "ecn_probability",
    "pfc_watchdog",
    "mtu",
)
"""The settings both ends of a link must share."""


def check(design: Built) -> Iterable[Finding]:
    configs, fabric = design.configs, design.fabric
    profiles: dict[int, tuple[Qos, list[str]]] = {}
    for config in configs:
        profiles.setdefault(id(config.qos), (config.qos, []))[1].append(config.hostname)
    problems: list[tuple[str, str]] = []
    for qos, holders in profiles.values():
        problems.extend(
            (holders[0], f"{problem} (on {len(holders):,} switch{'es' if len(holders) > 1 else ''})")
            for problem in _unsound(qos)
        )
    yield from capped(ID, "error", problems)

    differences: dict[tuple[int, int], list[str]] = {}
    mismatched: list[tuple[str, str]] = []
    for tier, upper, upper_port, lower, lower_port in fabric.links:
        if tier == SERVER_LEAF:
            continue
        a, b = configs[upper].qos, configs[lower].qos
        if a is b:
            continue
        key = (id(a), id(b))
        if key not in differences:
            differences[key] = [field for field in COMPARED if getattr(a, field) != getattr(b, field)]
        if differences[key]:
            devices = fabric.devices
            mismatched.append(
                (
                    f"{devices[upper].name}:{devices[upper].port_name(upper_port)} - "
                    f"{devices[lower].name}:{devices[lower].port_name(lower_port)}",
                    "ends differ in "
                    + ", ".join(f"{field} ({getattr(a, field)} vs {getattr(b, field)})" for field in differences[key]),
                )
            )
    yield from capped(ID, "error", mismatched)
    for qos, holders in profiles.values():
        yield Finding(
            ID,
            "info",
            f"profile {qos.profile}: RoCE DSCP {qos.roce_dscp} -> lossless priority "
            f"{qos.lossless_priority} (PFC {','.join(map(str, qos.pfc_priorities))}), CNP DSCP "
            f"{qos.cnp_dscp} -> strict queue {qos.cnp_priority}, ECN {qos.ecn_min}-{qos.ecn_max} "
            f"{qos.ecn_unit}, on {len(holders):,} switches",
            qos.profile,
            evidence={
                "profile": qos.profile,
                "switches": len(holders),
                **{field: _plain(getattr(qos, field)) for field in COMPARED if field != "dscp_to_tc"},
                "dscp_to_tc": {str(dscp): tc for dscp, tc in enumerate(qos.dscp_to_tc) if tc},
            },
        )


def _unsound(qos: Qos) -> list[str]:
    """What is wrong with one lossless profile on its own."""
    problems = []
    if qos.dscp_to_tc[qos.roce_dscp] != qos.lossless_priority:
        problems.append(
            f"RoCE DSCP {qos.roce_dscp} maps to priority {qos.dscp_to_tc[qos.roce_dscp]}, not the "
            f"lossless priority {qos.lossless_priority}"
        )
    if qos.lossless_priority not in qos.pfc_priorities:
        problems.append(f"lossless priority {qos.lossless_priority} has no PFC (PFC on {list(qos.pfc_priorities)})")
    if qos.dscp_to_tc[qos.cnp_dscp] != qos.cnp_priority:
        problems.append(
            f"CNP DSCP {qos.cnp_dscp} maps to priority {qos.dscp_to_tc[qos.cnp_dscp]}, not the CNP "
            f"priority {qos.cnp_priority}"
        )
    if qos.cnp_priority == qos.lossless_priority:
        problems.append(f"CNP shares priority {qos.cnp_priority} with RoCE data")
    if not any(queue.strict for queue in qos.queues if queue.index == qos.cnp_priority):
        problems.append(f"the CNP queue {qos.cnp_priority} is not strict priority")
    if qos.ecn and not qos.ecn_min < qos.ecn_max:
        problems.append(f"ECN min {qos.ecn_min} is not below ECN max {qos.ecn_max} {qos.ecn_unit}")
    return problems


def _plain(value: object) -> object:
    """Tuples as lists, so the evidence reads back from JSON as it was written."""
    return list(value) if isinstance(value, tuple) else value

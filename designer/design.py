"""The design record: every stage's result for one intent, read-only for everything after it.

``Wired`` is the fabric up to its max-flows (what the checks of the fabric itself read), ``Built`` adds what the
building stages produce after it (what every other check reads); ``Design`` adds what the checks found. The
stages themselves run in :mod:`designer.pipeline`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from designer.analysis.facts import Facts
from designer.analysis.maxflow import Bisection
from designer.analysis.workload import WorkloadResult
from designer.backend.allocate import Allocation
from designer.backend.hosts import HostConfig
from designer.backend.model import DeviceConfig
from designer.backend.physical import Physical
from designer.backend.physical.costs import TierCost
from designer.backend.sizing import Plan
from designer.backend.wiring import Fabric
from designer.findings import Finding
from designer.intent import Intent
from designer.intent.networks_section import ManagementSpec
from designer.networks.cluster import ClusterNetworks
from designer.networks.management import SwitchManagement, switch_management

Progress = Callable[[str], None]
"""Told what each stage is about to do (``"wiring 393,216 links"``); the command line prints it on stderr."""


def quiet(stage: str) -> None:
    """The progress of a caller that wants none."""


@dataclass(frozen=True)
class Wired:
    """The wired, addressed and counted fabric with its max-flows: what the checks of the fabric itself read
    (:data:`designer.checks.OF_THE_FABRIC`), made before the physical plan and the device models."""

    intent: Intent
    plan: Plan
    fabric: Fabric
    allocation: Allocation | None
    """Every address and ASN; None on an InfiniBand fabric, whose subnet manager gives every port a LID."""
    facts: Facts
    """Shared facts of the fabric (link counts, the links of each plane), computed once."""
    bisection: Bisection
    """The max-flows: every split's bisection and what each single failure leaves of it."""


@dataclass(frozen=True)
class Built(Wired):
    """Everything the building stages produced for one intent: what the checks read."""

    physical: Physical
    """Racks, positions, power, cable lengths and media, and the bill of materials."""
    configs: tuple[DeviceConfig, ...]
    """One vendor-neutral configuration model per switch, in fabric device order; none on an InfiniBand fabric,
    whose switches take what the subnet manager sets."""
    workloads: tuple[WorkloadResult, ...] = ()
    """What the fabric does to each workload of the intent (:mod:`designer.analysis.workload`)."""
    hosts: tuple[HostConfig, ...] = ()
    """Every server's backend NIC settings, in fabric device order (:mod:`designer.backend.hosts`); empty where they are
    left out (``plan`` and ``check``: only the server files read them)."""
    networks: ClusterNetworks | None = None
    """The frontend, storage, in-band and out-of-band networks beside the backend (None: none declared)."""
    network_configs: tuple[DeviceConfig, ...] = ()
    """One configuration model per switch of the leaf-spine networks beside the backend, network by network."""
    management: SwitchManagement = field(default_factory=lambda: switch_management(ManagementSpec(), None))
    """The management side of every switch of every network, by its name (:mod:`designer.networks.management`)."""
    tier_costs: tuple[TierCost, ...] = ()
    """What each switch tier builds: switches, ports, optics, cable runs and kW
    (:mod:`designer.backend.physical.costs`)."""
    without_growth: tuple[TierCost, ...] | None = None
    """What each switch tier would build for today's servers alone, without the growth envelope (None: the intent
    plans no growth, so the design builds just that)."""


@dataclass(frozen=True)
class Design(Built):
    """A built design with what the checks (:mod:`designer.checks`) found: errors, warnings, evidence."""

    findings: tuple[Finding, ...] = ()

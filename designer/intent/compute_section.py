"""The ``compute``, ``growth`` and ``fabric`` sections as written: the servers, the envelope, the
fabric's shape and switches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema

from designer.intent.fields import (
    MAX_BREAKOUT,
    MAX_GPUS,
    MAX_PLANES,
    MAX_RADIX,
    MAX_SWITCH_PORTS,
    Section,
    Speed,
    Taper,
    _catalog_names,
    _known,
)
from designer.intent.yaml_source import short
from designer.targets import TECHNOLOGIES


class MultiplaneDoc(Section):
    """One backend NIC port serving several planes (NVIDIA Spectrum-X multiplane on ConnectX-8): one physical port
    and one cable, one link at the plane speed to a leaf of each plane."""

    planes: int = Field(
        gt=1,
        le=MAX_PLANES,
        description=(
            "Planes each NIC port serves, as the NIC's catalog entry allows (ConnectX-8 800G: 2 x 400G or 4 x 200G); "
            "the fabric gets as many planes, each link running at the port speed divided by it."
        ),
    )
    mode: Literal["hwplb", "swplb"] = Field(
        "hwplb",
        description=(
            "hwplb (default; generally available from Spectrum-X RA 2.3): the NIC balances the planes, the host has "
            "one interface and address per rail, the same /31 in every plane; swplb: one interface and address per "
            "plane, NCCL balances the planes."
        ),
    )


class ComputeDoc(Section):
    """The GPU servers: how many, and what each has."""

    servers: int | None = Field(
        None, gt=0, le=MAX_GPUS, description=("Number of GPU servers; give exactly one of servers or gpus.")
    )
    gpus: int | None = Field(
        None,
        gt=0,
        le=MAX_GPUS,
        description=("Number of GPUs, a multiple of gpus_per_server; give exactly one of servers or gpus."),
    )
    server: Annotated[str, _known("servers", "server"), _catalog_names("servers")] | None = Field(
        None,
        description=(
            "A catalog server model (designer/catalog.yaml or a site catalog); it fills gpus_per_server, "
            "nics_per_server, nic_speed, server_power_kw, server_rack_units and the default plane count."
        ),
    )
    gpus_per_server: int | None = Field(None, gt=0, le=144, description="GPUs in one server.")
    nics_per_server: int | None = Field(
        None,
        gt=0,
        le=64,
        description=("Backend NIC ports of one server, all planes together (one rail each per plane)."),
    )
    nic_speed: Speed | None = Field(
        None,
        description=(
            "Speed of a backend NIC port; the server links run at it, and every fabric link too unless a tier's "
            "uplink_speed says otherwise."
        ),
    )
    server_power_kw: float | None = Field(None, gt=0, le=500, description="Maximum power of one server, in kW.")
    server_rack_units: int | None = Field(
        None, gt=0, le=60, description=("Rack units of one server (default: the catalog model's, else 8).")
    )
    nvlink_gbyte_s: float | None = Field(
        None,
        gt=0,
        le=100_000,
        description=(
            "NVLink (scale-up) bandwidth per GPU and direction inside the server, GB/s, for the workload analysis "
            "(default: the catalog model's; required for workloads on a server the catalog does not know)."
        ),
    )
    system: Annotated[str, _known("systems", "system"), _catalog_names("systems")] | None = Field(
        None,
        description=(
            "A catalog rack-scale system (gb200-nvl72, gb300-nvl72 or a site catalog's): the fabric's servers are "
            "its compute trays, placed a whole system to a rack; give systems or gpus, not servers."
        ),
    )
    systems: int | None = Field(
        None, gt=0, le=MAX_GPUS, description="Number of rack-scale systems (with system); or give gpus."
    )
    nic: Annotated[str, _known("nics", "NIC"), _catalog_names("nics")] | None = Field(
        None,
        description=(
            "The backend NIC model where the server model ships with several (amd-mi355x: amd-pollara-400, "
            "nvidia-cx7 or broadcom-thor2). Default: the model's own."
        ),
    )
    multiplane: MultiplaneDoc | None = Field(
        None,
        description=(
            "Each backend NIC port serves several planes (planes: 2 or 4 as the NIC allows; mode: hwplb, the "
            "default, or swplb). Default: one plane per port."
        ),
    )


class SwitchDoc(Section):
    """One switch tier's hardware: a catalog model, explicit fields, or both (fields win)."""

    model: Annotated[str, _known("switches", "switch"), _catalog_names("switches")] | None = Field(
        None,
        description=("A catalog switch model (designer/catalog.yaml or a site catalog); explicit fields override it."),
    )
    ports: int | None = Field(None, gt=0, le=MAX_SWITCH_PORTS, description="Physical ports.")
    speed: Speed | None = Field(
        None,
        description=(
            f"Speed of a physical port; a multiple of the speed of the links it runs, breaking out into at most "
            f"{MAX_BREAKOUT} links."
        ),
    )
    uplink_speed: Speed | None = Field(
        None,
        description=(
            "Speed of the tier's uplinks (leaf to spine, spine to super-spine; default: its downlink speed). With "
            "another speed than the downlinks, half the physical ports face down and half up, so the tier stays "
            "1:1 in bandwidth: a 64 x 800G leaf with 400G NICs runs 64 x 400G down and 32 x 800G up."
        ),
    )
    rack_units: int | None = Field(
        None, gt=0, le=60, description=("Rack units (default: the catalog model's, else one per 32 ports).")
    )
    power_w: int | None = Field(None, gt=0, le=100_000, description="Power with no optics plugged, in watts.")
    power_w_optics: int | None = Field(
        None, gt=0, le=100_000, description=("Typical power with every optic plugged, in watts.")
    )


UPLINK_WORDS = ("full", "matched")
"""The uplink choices that are not a count (``fabric.leaf.uplinks``)."""


def leaf_uplinks(value: object) -> object:
    """``full``, ``matched`` or a count of logical ports from 1 to ``MAX_RADIX``; anything else is refused in one
    message saying what would be valid."""
    if value in UPLINK_WORDS or (isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_RADIX):
        return value
    raise ValueError(f"{short(value)} is not an uplink choice; use full, matched or a count from 1 to {MAX_RADIX}")


LeafUplinks = Annotated[
    int | str,
    BeforeValidator(leaf_uplinks),
    WithJsonSchema({"anyOf": [{"enum": list(UPLINK_WORDS)}, {"type": "integer", "minimum": 1, "maximum": MAX_RADIX}]}),
]
"""Each leaf's uplinks: ``full``, ``matched`` or a count."""


class LeafDoc(SwitchDoc):
    """The leaf tier's hardware, and how many of its ports run up to the spines."""

    uplinks: LeafUplinks = Field(
        "full",
        description=(
            "The uplinks of each leaf, logical ports at the leaf's uplink speed: full, as much bandwidth up as the "
            "leaf has down (half its ports), matched, as much as the downlinks the growth envelope uses (a leaf "
            "whose scalable unit is not full sends less up), or a count. Each leaf reaches every spine of its pod "
            "with the same number of links, so a count must spread evenly over the spines."
        ),
    )
    per_rack: Literal[1, 2] | None = Field(
        None,
        description=(
            "With style: rack, the switches of each rack that its servers' backend NICs share (default 1); with 2, "
            "each server's first half of NICs goes to the first, the second half to the second."
        ),
    )


class SpineDoc(SwitchDoc):
    """A tier above the leaves: its hardware, and how many switches it has."""

    count: int | None = Field(
        None,
        gt=0,
        le=MAX_RADIX,
        description=(
            "The spines of each pod (one pod with 2 tiers: the spines of each plane), or the super-spines of each "
            "plane. Default: the fewest that take every uplink below evenly and have the ports for the growth "
            "envelope (3 tiers: one spine per leaf uplink). The uplinks below must spread evenly over them."
        ),
    )


class TaperDoc(Section):
    """The declared taper of each tier below the top: down:up bandwidth of each of its switches."""

    leaf: Taper | None = Field(
        None, description='Each leaf\'s server bandwidth to its uplink bandwidth ("1:2": twice as much up as down).'
    )
    spine: Taper | None = Field(
        None, description='Each spine\'s leaf bandwidth to its super-spine bandwidth (3 tiers; "7:1": a seventh up).'
    )
    super_spine: Taper | None = Field(
        None, description="Refused: the super-spines are the top tier and send nothing up."
    )


class FabricDoc(Section):
    """The backend fabric's shape: planes, tiers and the switch of each tier."""

    technology: Literal[TECHNOLOGIES] = Field(  # type: ignore[valid-type]  # the registry's, read at import
        "ethernet",
        description=(
            "ethernet: a routed fabric (/31 links, eBGP, RoCEv2 PFC and ECN) for switch OSes; infiniband: credit-based "
            "flow control and a subnet manager that routes (target opensm), with no IP addressing, BGP, PFC or ECN."
        ),
    )

    planes: int | None = Field(
        None,
        gt=0,
        le=MAX_PLANES,
        description=(
            "Separate identical fabrics the NIC ports split across evenly (default: the server model's, else 1)."
        ),
    )
    tiers: Literal["auto", 2, 3] = Field(
        "auto",
        description=("Switch tiers: 2 (leaf, spine), 3 (with super-spines) or auto, the fewest that hold the cluster."),
    )
    leaf: LeafDoc = Field(description="The leaf switches, one per rail of each scalable unit.")
    spine: SpineDoc | None = Field(
        None, description="The spine switches (default: the leaf's hardware, also when only count or power is given)."
    )
    super_spine: SpineDoc | None = Field(
        None,
        description="The super-spine switches of a 3-tier fabric (default: the spine's hardware, also when only count "
        "or power is given).",
    )
    servers_per_su: int | None = Field(
        None,
        gt=0,
        le=MAX_RADIX,
        description=(
            "The stripe: servers (a rack-scale system's compute trays) of each scalable unit, the servers one leaf "
            "per rail serves. Default, and at most: the leaf's downlinks (half its ports at the NIC speed)."
        ),
    )
    oversubscription: TaperDoc | None = Field(
        None,
        description=(
            'The declared taper per tier, down:up bandwidth of each switch there ("7:1", "1:2", or 1 for 1:1): '
            "a tier's switches split their ports by it and the checks hold each to it. Default: 1:1 everywhere."
        ),
    )
    style: Literal["rail", "rack"] = Field(
        "rail",
        description=(
            "rail: NIC i of every server of a scalable unit goes to that unit's leaf of rail i; rack: every backend "
            "NIC of a rack's servers goes to that rack's own switch (leaf.per_rack of them)."
        ),
    )


class GrowthDoc(Section):
    """The envelope: the size the fabric is planned for (``compute`` says what is built now). Spine counts, pods,
    super-spine groups, pools, ASN ranges and the hall come from it, so growing inside it only adds."""

    max_servers: int | None = Field(None, gt=0, le=MAX_GPUS, description="Servers the fabric is planned for.")
    max_gpus: int | None = Field(None, gt=0, le=MAX_GPUS, description="Or: GPUs the fabric is planned for.")
    max_systems: int | None = Field(
        None, gt=0, le=MAX_GPUS, description="Or, with compute.system: rack-scale systems the fabric is planned for."
    )


@dataclass(frozen=True)
class FabricChoices:
    """The architect's choices of the fabric's shape; where one is left out (``full``, None) the sizing formulas
    decide it (docs/sizing.md)."""

    leaf_uplinks: int | str = "full"
    """Each leaf's uplinks: ``full``, ``matched`` or a count (``fabric.leaf.uplinks``)."""
    spine_count: int | None = None
    """The spines of each pod, or of each plane with 2 tiers (``fabric.spine.count``)."""
    super_spine_count: int | None = None
    """The super-spines of each plane (``fabric.super_spine.count``)."""
    servers_per_su: int | None = None
    """The servers (trays) of each scalable unit (``fabric.servers_per_su``)."""
    tapers: tuple[tuple[str, float], ...] = ()
    """The declared tapers, (role, down per unit of up bandwidth), lowest tier first (``fabric.oversubscription``)."""
    style: str = "rail"
    """``rail`` or ``rack`` (``fabric.style``)."""
    per_rack: int = 1
    """With ``rack``: the switches of each rack (``fabric.leaf.per_rack``)."""

    def taper(self, role: str) -> float | None:
        """The declared taper of ``role``'s switches, None where none is declared."""
        return dict(self.tapers).get(role)


def fabric_choices(doc: FabricDoc) -> FabricChoices:
    """The ``fabric`` section's choices of shape as the stages read them."""
    return FabricChoices(
        leaf_uplinks=doc.leaf.uplinks,
        spine_count=doc.spine.count if doc.spine else None,
        super_spine_count=doc.super_spine.count if doc.super_spine else None,
        servers_per_su=doc.servers_per_su,
        tapers=tuple(
            (role, ratio)
            for role, ratio in (doc.oversubscription or TaperDoc()).model_dump().items()
            if ratio is not None
        ),
        style=doc.style,
        per_rack=doc.leaf.per_rack or 1,
    )

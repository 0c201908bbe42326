"""The intent file as written: the whole document, made of the sections' pydantic models.

Each section's model lives beside its resolution (``*_section.py``, :mod:`designer.intent.configs`,
:mod:`designer.intent.facility`); cross-field rules and catalog defaults are applied in
:mod:`designer.intent.resolve`, which turns this document into the fully specified
:class:`~designer.intent.resolve.Intent`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
)

from designer.intent.checks_section import ChecksDoc
from designer.intent.compute_section import ComputeDoc, FabricDoc, GrowthDoc
from designer.intent.configs import LoadBalancingDoc, QosDoc
from designer.intent.facility import FacilityDoc
from designer.intent.fields import (
    NAME_PATTERN,
    Section,
    safe_name,
)
from designer.intent.hosts_section import HostsDoc
from designer.intent.lab_section import LabDoc
from designer.intent.networks_section import ManagementDoc, NetworksDoc
from designer.intent.outputs_section import OutputsDoc
from designer.intent.routing_section import AddressingDoc, RoutingDoc
from designer.intent.target_options_section import TargetOptionsDoc
from designer.intent.workloads_section import WorkloadDoc
from designer.targets import NAMES, defaults


class IntentDoc(Section):
    """An intent: the GPU training cluster whose backend network the designer builds (docs/intent.md)."""

    model_config = ConfigDict(title="designer intent")

    name: Annotated[str, AfterValidator(safe_name)] = Field(
        examples=["cluster-a"],
        json_schema_extra={"pattern": NAME_PATTERN},
        description=(
            "The design's name and its output folder: 1-63 letters, digits, '.', '_' or '-', starting with a "
            "letter or digit."
        ),
    )
    description: str = Field("", description="Free text shown in summary.md, as text (its Markdown and HTML escaped).")
    catalog: str | list[str] | None = Field(
        None,
        description=(
            "Site catalog files (a path or a list, relative to the intent) in designer/catalog.yaml's format: "
            "switches, servers, media, target limits and facility defaults that add to or override the shipped "
            "catalog by name, field by field; later files win."
        ),
    )
    compute: ComputeDoc = Field(description="The GPU servers built now.")
    growth: GrowthDoc | None = Field(
        None,
        description=(
            "The envelope: the size the fabric is planned for; growing inside it only adds devices, links and "
            "lines, nothing existing moves."
        ),
    )
    fabric: FabricDoc = Field(description="The backend fabric's shape and switches.")
    addressing: AddressingDoc = Field(AddressingDoc(), description="IPv4 pools; each large enough and disjoint.")
    routing: RoutingDoc = Field(RoutingDoc(), description="eBGP underlay (RFC 7938) numbering and sessions.")
    facility: FacilityDoc = Field(FacilityDoc(), description="The data hall.")
    targets: list[Literal[NAMES]] | None = Field(  # type: ignore[valid-type]  # the registry's names, read at import
        None,
        min_length=1,
        description=(
            "Network operating systems to render switch configurations for (sonic needs frr), or the subnet manager "
            "of an InfiniBand fabric (opensm). Default: the default targets of the fabric's technology "
            f"({', '.join(defaults('ethernet'))} on Ethernet, {', '.join(defaults('infiniband'))} on InfiniBand)."
        ),
    )
    target_options: TargetOptionsDoc = Field(
        TargetOptionsDoc(), description=("Per network OS choices, such as the Cumulus Linux release of the NVUE files.")
    )
    lab: LabDoc | None = Field(
        None,
        description=(
            "The containerlab topology (lab/clab.yml) and the images its switches run. Default: FRR linux nodes, "
            "written when frr is a target."
        ),
    )
    qos: QosDoc = Field(QosDoc(), description="RoCEv2 lossless QoS.")
    hosts: HostsDoc = Field(
        HostsDoc(),
        description=("The server files (servers/<server>/): NIC addressing format, NIC and RDMA device names."),
    )
    load_balancing: LoadBalancingDoc = Field(
        LoadBalancingDoc(),
        description="How traffic spreads over the fabric's paths (hashing, adaptive, cluster or spraying), and seeds.",
    )
    checks: ChecksDoc = Field(ChecksDoc(), description="Thresholds of the checks.")
    outputs: OutputsDoc = Field(
        OutputsDoc(),
        description="What a build writes beside the review files and the configurations of targets: server files, lab.",
    )
    workloads: list[WorkloadDoc] = Field(
        default_factory=list,
        description=("Training jobs to analyze on the fabric (designer analyze): collective, size, placement, price."),
    )
    networks: NetworksDoc = Field(
        NetworksDoc(),
        description="The frontend, storage, in-band and out-of-band networks beside the backend, each when declared.",
    )
    management: ManagementDoc = Field(
        ManagementDoc(), description="NTP, syslog and DNS servers and the management VRF of every switch."
    )


def json_schema() -> dict[str, Any]:
    """The intent's JSON Schema (draft 2020-12), generated from the models above, for editors and tools."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **IntentDoc.model_json_schema()}

"""The networks beside the backend (``networks``) and the management side of every switch (``management``),
resolved into specs a network's stages read on their own: each network's ports, ratio, dual-homing, switches and
pools, never the whole intent.

The rules here are those of one network and those across networks (pools disjoint from each other and from the
backend's, lossless storage only where every target writes QoS); the backend's own rules stay in
:mod:`designer.intent.resolve`, which hands in how a switch section is resolved.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

from netaddr import AddrFormatError, IPNetwork
from pydantic import (
    AfterValidator,
    Field,
    WithJsonSchema,
)

from designer.catalog import Catalog, ManagementSwitchModel, SystemModel
from designer.errors import Path, Problem
from designer.intent.compute_section import SwitchDoc
from designer.intent.fields import (
    MAX_SWITCH_PORTS,
    Asn,
    Pool,
    Ratio,
    Section,
    Speed,
    _known,
    private_asns,
    safe_name,
    whole_match,
)
from designer.intent.routing_section import AddressingDoc
from designer.intent.switch_spec import SwitchSpec
from designer.intent.yaml_source import short
from designer.targets import TARGETS

DATA_NETWORKS = ("frontend", "storage", "inband")
"""The leaf-spine networks beside the backend, in the order they are designed and listed."""
NETWORKS = ("backend", *DATA_NETWORKS, "oob")
"""Every network of a cluster, by the name cabling.csv's ``network`` column gives it."""
DEFAULT_MANAGEMENT_SWITCH = "nvidia-sn2201"
REFUSED_DUAL_HOMING = {
    "evpn-mh": "EVPN multihoming needs a bonded host and EVPN on the leaves, which no target writes yet",
    "mlag": "MLAG needs a peer link and a bonded host, which no target writes yet",
}
"""Dual-homing values the intent reads but no target renders yet, each with the reason."""

SwitchOf = Callable[[SwitchDoc | None, Path], SwitchSpec | None]
"""Resolves a switch section at a path to its hardware (None, its problem reported, when it cannot be)."""
CannotRun = Callable[[SwitchSpec, int], str | None]
"""Why a switch's ports cannot run links of a speed (None: they can)."""


@dataclass(frozen=True)
class NetworkPools:
    """A network's pools as the intent gives them (None: laid out beside the backend's when allocated)."""

    fabric_p2p: str | None = None
    server_p2p: str | None = None
    loopbacks: str | None = None


@dataclass(frozen=True)
class StorageNodes:
    """The storage servers a storage network also serves."""

    count: int
    nics: int
    nic_speed: int
    rack_units: int
    power_kw: float


@dataclass(frozen=True)
class DataNetworkSpec:
    """One rack-local leaf-spine network (frontend, storage or in-band), every field known."""

    name: str
    nics_per_server: int
    nic_speed: int
    oversubscription: float
    dual_homing: str
    leaves_per_rack: int
    leaf: SwitchSpec
    spine: SwitchSpec
    pools: NetworkPools
    leaf_asn_start: int | None
    """None: laid out after the backend's ASN ranges when allocated."""
    border_leaves: int = 0
    core_uplinks: int = 0
    """Uplinks of each border leaf toward the data-centre core."""
    core_uplink_speed: int = 0
    core_asn: int | None = None
    """The data-centre core's ASN: the border leaves peer with it on every core uplink (None: no sessions)."""
    storage_nodes: StorageNodes | None = None
    lossless: bool = False


@dataclass(frozen=True)
class OobSpec:
    """The out-of-band network: the management switch of every rack, the OOB spine, what each rack plugs in."""

    switch: ManagementSwitchModel
    spine: SwitchSpec
    bmcs_per_server: int
    host_management: bool
    managed_per_rack: int
    pool: str | None


@dataclass(frozen=True)
class ManagementSpec:
    """The management side of every switch: its VRF and the NTP, syslog and DNS servers it uses."""

    vrf: str = "mgmt"
    ntp: tuple[str, ...] = ()
    syslog: tuple[str, ...] = ()
    dns: tuple[str, ...] = ()
    domain: str | None = None


@dataclass(frozen=True)
class Networks:
    """Every declared network beside the backend (None: not declared) and the management side."""

    frontend: DataNetworkSpec | None = None
    storage: DataNetworkSpec | None = None
    inband: DataNetworkSpec | None = None
    oob: OobSpec | None = None
    management: ManagementSpec = ManagementSpec()

    @property
    def data_networks(self) -> tuple[DataNetworkSpec, ...]:
        """The declared leaf-spine networks, in :data:`DATA_NETWORKS` order."""
        return tuple(spec for name in DATA_NETWORKS if (spec := getattr(self, name)) is not None)

    @property
    def speeds(self) -> tuple[int, ...]:
        """Every link speed of the declared networks (the cable reach of each is looked up at it)."""
        speeds = set()
        for spec in self.data_networks:
            speeds.update({spec.nic_speed, spec.leaf.speed, spec.core_uplink_speed or spec.leaf.speed})
            speeds.update({spec.storage_nodes.nic_speed} if spec.storage_nodes else ())
        speeds.update({self.oob.switch.uplink_speed} if self.oob else ())
        return tuple(sorted(speeds))

    @property
    def declared(self) -> tuple[str, ...]:
        """The names of every declared network beside the backend."""
        return (*(spec.name for spec in self.data_networks), *(("oob",) if self.oob else ()))


def resolve_networks(
    doc: NetworksDoc,
    management: ManagementDoc,
    backend: AddressingDoc,
    targets: list[str],
    backend_leaf: SwitchSpec | None,
    switch_of: SwitchOf,
    cannot_run: CannotRun,
    intact: Callable[..., bool],
    problems: list[Problem],
    hardware: Catalog,
    system: SystemModel | None = None,
) -> Networks | None:
    """Every declared network as its spec, reporting its problems and those across networks into ``problems``;
    None when a network cannot be resolved (its problem is reported)."""
    found = len(problems)
    data = {
        name: _data_network(name, section, backend_leaf, switch_of, cannot_run, intact, problems)
        for name in DATA_NETWORKS
        if (section := getattr(doc, name)) is not None
    }
    oob = (
        _oob(doc.oob, backend_leaf, switch_of, cannot_run, intact, problems, hardware, system)
        if doc.oob is not None
        else None
    )
    problems.extend(_pool_overlaps(doc, backend, intact))
    if doc.storage is not None and doc.storage.lossless and intact(("networks", "storage", "lossless"), ("targets",)):
        problems.extend(_lossless_problems(targets))
    if intact(("management", "vrf"), ("targets",)):
        problems.extend(_management_vrf_problems(management.vrf, targets))
    if management.domain and not management.dns and intact(("management", "dns")):
        problems.append(
            Problem(
                ("management", "domain"),
                f"a search domain ({management.domain}) is for a resolver, and no DNS server is given; add "
                "management.dns (1 to 3 addresses) or leave domain out",
            )
        )
    if len(problems) > found or None in data.values() or (doc.oob is not None and oob is None):
        return None
    return Networks(
        frontend=data.get("frontend"),
        storage=data.get("storage"),
        inband=data.get("inband"),
        oob=oob,
        management=ManagementSpec(
            vrf=management.vrf,
            ntp=tuple(management.ntp),
            syslog=tuple(management.syslog),
            dns=tuple(management.dns),
            domain=management.domain,
        ),
    )


def _data_network(
    name: str,
    doc: DataNetworkDoc,
    backend_leaf: SwitchSpec | None,
    switch_of: SwitchOf,
    cannot_run: CannotRun,
    intact: Callable[..., bool],
    problems: list[Problem],
) -> DataNetworkSpec | None:
    """One leaf-spine network from its section: its switches (the backend leaf's hardware by default), the ports
    the servers plug into them and the rules between them."""
    path: Path = ("networks", name)

    def sound(*fields: str) -> bool:
        return intact(*((*path, field) for field in fields))

    leaf = switch_of(doc.leaf, (*path, "leaf")) if doc.leaf else backend_leaf
    spine = switch_of(doc.spine, (*path, "spine")) if doc.spine else leaf
    leaves = doc.leaves_per_rack or (1 if doc.dual_homing == "none" else 2)
    if not sound("dual_homing", "leaves_per_rack"):
        return None
    problems.extend(_layout_problems(path, doc, leaves, sound))
    if leaf is None or spine is None:
        return None
    problems.extend(_hardware_problems(path, doc, leaf, spine, sound, cannot_run))
    return _data_network_spec(name, doc, leaves, leaf, spine)


def _layout_problems(path: Path, doc: DataNetworkDoc, leaves: int, sound: Callable[..., bool]) -> list[Problem]:
    """The problems of the network's dual homing, its leaves per rack, its servers' NIC ports over them and its
    leaves' first ASN."""
    problems = []
    if doc.dual_homing in REFUSED_DUAL_HOMING:
        problems.append(
            Problem(
                (*path, "dual_homing"),
                f"{REFUSED_DUAL_HOMING[doc.dual_homing]}; use bgp (the server routes over two links) or none",
            )
        )
    if doc.dual_homing != "none" and leaves < 2:
        problems.append(
            Problem(
                (*path, "leaves_per_rack"),
                f"dual_homing: {doc.dual_homing} needs two leaves per rack so that one can fail; use 2 or more, "
                "or dual_homing: none",
            )
        )
    if sound("nics_per_server") and doc.nics_per_server % leaves:
        problems.append(
            Problem(
                (*path, "nics_per_server"),
                f"{doc.nics_per_server} NIC ports per server cannot split evenly over {leaves} leaves per rack; "
                f"use a multiple of {leaves}",
            )
        )
    if doc.leaf_asn_start is not None and not private_asns(doc.leaf_asn_start):
        problems.append(
            Problem(
                (*path, "leaf_asn_start"),
                f"{doc.leaf_asn_start} is not a private ASN; use 64512-65534 (2-byte) or 4200000000-4294967294 "
                "(4-byte)",
            )
        )
    return problems


def _hardware_problems(
    path: Path,
    doc: DataNetworkDoc,
    leaf: SwitchSpec,
    spine: SwitchSpec,
    sound: Callable[..., bool],
    cannot_run: CannotRun,
) -> list[Problem]:
    """The problems of the network's links on its switches: the speeds the leaves and the spine must run, a
    frontend's core uplinks and its core."""
    problems = []
    where = (*path, "leaf") if doc.leaf else path
    for speed, field, what in _speeds(doc):
        if sound(field[0]) and (why := cannot_run(leaf, speed)):
            problems.append(Problem((*path, *field), f"{why}: the {what} do not fit the leaf {_at(where)}"))
    if doc.spine and sound("nic_speed") and (why := cannot_run(spine, doc.nic_speed)):
        problems.append(Problem((*path, "spine"), f"{why}: the spine cannot run the leaves' uplinks"))
    if isinstance(doc, FrontendDoc) and sound("core_uplinks") and doc.core_uplinks * 2 > leaf.ports:
        problems.append(
            Problem(
                (*path, "core_uplinks"),
                f"{doc.core_uplinks} core uplinks take more than half of a border leaf's {leaf.ports} ports; use at "
                f"most {leaf.ports // 2}",
            )
        )
    if isinstance(doc, FrontendDoc) and doc.core and not (doc.border_leaves and doc.core_uplinks):
        problems.append(
            Problem(
                (*path, "core"),
                "the core is peered with over the border leaves' core uplinks, and there are none; give "
                "border_leaves and core_uplinks of 1 or more, or leave core out",
            )
        )
    return problems


def _data_network_spec(
    name: str, doc: DataNetworkDoc, leaves: int, leaf: SwitchSpec, spine: SwitchSpec
) -> DataNetworkSpec:
    """The spec of the network ``name`` from its section, once its rules hold."""
    return DataNetworkSpec(
        name=name,
        nics_per_server=doc.nics_per_server,
        nic_speed=doc.nic_speed,
        oversubscription=doc.oversubscription,
        dual_homing=doc.dual_homing,
        leaves_per_rack=leaves,
        leaf=leaf,
        spine=spine,
        pools=NetworkPools(**doc.addressing.model_dump()),
        leaf_asn_start=doc.leaf_asn_start,
        border_leaves=doc.border_leaves if isinstance(doc, FrontendDoc) else 0,
        core_uplinks=doc.core_uplinks if isinstance(doc, FrontendDoc) else 0,
        core_uplink_speed=(doc.core_uplink_speed or leaf.speed) if isinstance(doc, FrontendDoc) else 0,
        core_asn=doc.core.asn if isinstance(doc, FrontendDoc) and doc.core else None,
        storage_nodes=(
            StorageNodes(
                doc.storage_nodes.count,
                doc.storage_nodes.nics_per_server,
                doc.storage_nodes.nic_speed,
                doc.storage_nodes.rack_units,
                doc.storage_nodes.power_kw,
            )
            if isinstance(doc, StorageDoc) and doc.storage_nodes
            else None
        ),
        lossless=isinstance(doc, StorageDoc) and doc.lossless,
    )


def _speeds(doc: DataNetworkDoc) -> list[tuple[int, tuple[str, ...], str]]:
    """Every link speed a network's leaves run, with the field that sets it and what the links are."""
    speeds: list[tuple[int, tuple[str, ...], str]] = [
        (doc.nic_speed, ("nic_speed",), f"{doc.nic_speed}G server NIC ports")
    ]
    if isinstance(doc, FrontendDoc) and doc.core_uplink_speed:
        speeds.append((doc.core_uplink_speed, ("core_uplink_speed",), f"{doc.core_uplink_speed}G core uplinks"))
    if isinstance(doc, StorageDoc) and doc.storage_nodes:
        speed = doc.storage_nodes.nic_speed
        speeds.append((speed, ("storage_nodes", "nic_speed"), f"{speed}G storage server NIC ports"))
    return speeds


def _at(path: Path) -> str:
    """Where a network's leaf hardware comes from, for a message."""
    return f"({'.'.join(map(str, path))})" if path[-1] == "leaf" else "(the backend leaf's hardware; set its leaf)"


def _oob(
    doc: OobDoc,
    backend_leaf: SwitchSpec | None,
    switch_of: SwitchOf,
    cannot_run: CannotRun,
    intact: Callable[..., bool],
    problems: list[Problem],
    hardware: Catalog,
    system: SystemModel | None,
) -> OobSpec | None:
    """The out-of-band network: the management switch from the catalog and its fields (beside a rack-scale system
    with management switches of its own, their model), and the OOB spine."""
    path: Path = ("networks", "oob")
    model = doc.switch.model
    if system is not None and system.management_switches:
        own = system.management_switch
        if own not in hardware.management_switches:
            problems.append(
                Problem(
                    path,
                    f"{system.name} racks hold {system.management_switches} management "
                    f"switch{'es' if system.management_switches > 1 else ''} of their own, whose model the catalog "
                    f"does not name; give systems.{system.name}.management_switch (a catalog "
                    f"management switch: {', '.join(hardware.management_switches)}) in a site catalog",
                )
            )
            return None
        if model not in (None, own):
            problems.append(
                Problem(
                    (*path, "switch", "model"),
                    f"{system.name} racks hold their own {own} management switches, which the out-of-band network "
                    f"uses in those racks; leave networks.oob.switch.model out or give {own}",
                )
            )
            return None
        model = own
    switch = _management_switch(doc.switch, hardware, model) if intact((*path, "switch")) else None
    spine = switch_of(doc.spine, (*path, "spine")) if doc.spine else backend_leaf
    if switch is None or spine is None:
        return None
    if why := cannot_run(spine, switch.uplink_speed):
        problems.append(
            Problem(
                (*path, "spine") if doc.spine else (*path, "switch", "uplink_speed"),
                f"{why}: the OOB spine cannot take the management switches' {switch.uplink_speed}G uplinks; give "
                "networks.oob.spine a switch whose ports run them",
            )
        )
    return OobSpec(
        switch=switch,
        spine=spine,
        bmcs_per_server=doc.bmcs_per_server,
        host_management=doc.host_management,
        managed_per_rack=doc.managed_per_rack,
        pool=doc.pool,
    )


def _management_switch(doc: ManagementSwitchDoc, hardware: Catalog, model: str | None) -> ManagementSwitchModel | None:
    """The management switch: the catalog ``model`` (``nvidia-sn2201`` by default) with the section's fields over
    it."""
    base = hardware.management_switches.get(model or DEFAULT_MANAGEMENT_SWITCH)
    if base is None:
        return None
    given = {field: value for field, value in doc.model_dump(exclude={"model"}).items() if value is not None}
    return ManagementSwitchModel(**{**vars(base), **given})


def _pool_overlaps(doc: NetworksDoc, backend: AddressingDoc, intact: Callable[..., bool]) -> list[Problem]:
    """Every pool the intent gives, of every network, disjoint from those of the other networks (a network's own
    pools too; the backend's among themselves are the backend's rule)."""
    pools: list[tuple[str, Path, IPNetwork]] = [
        ("backend", ("addressing", field), IPNetwork(value))
        for field, value in backend.model_dump().items()
        if value is not None and intact(("addressing", field))
    ]
    for name in DATA_NETWORKS:
        section = getattr(doc, name)
        if section is not None:
            pools.extend(
                (name, ("networks", name, "addressing", field), IPNetwork(value))
                for field, value in section.addressing.model_dump().items()
                if value is not None and intact(("networks", name, "addressing", field))
            )
    if doc.oob is not None and doc.oob.pool is not None and intact(("networks", "oob", "pool")):
        pools.append(("oob", ("networks", "oob", "pool"), IPNetwork(doc.oob.pool)))
    problems = []
    for index, (network, path, pool) in enumerate(pools):
        for other_network, other_path, other in pools[:index]:
            if network == "backend" and other_network == "backend":
                continue
            if pool.first <= other.last and other.first <= pool.last:
                problems.append(
                    Problem(
                        path,
                        f"{pool} overlaps {'.'.join(map(str, other_path))} ({other}); every network's pools must be "
                        "disjoint from every other pool",
                    )
                )
    return problems


def _lossless_problems(targets: list[str]) -> list[Problem]:
    """Lossless storage runs the backend's QoS on the storage switches: every target must write it, unless the
    target only carries another's routing (FRR beside SONiC)."""
    carried = {needed for target in targets for needed, _ in TARGETS[target].needs}
    without = [target for target in targets if not TARGETS[target].qos and target not in carried]
    writing = [target.name for target in TARGETS.values() if target.qos]
    return [
        Problem(
            ("networks", "storage", "lossless"),
            f"{TARGETS[target].label} configurations write no QoS (PFC, ECN), so its storage switches could not be "
            f"lossless; render for targets that write it ({', '.join(writing)}) or set lossless: false",
        )
        for target in without
    ]


def _management_vrf_problems(vrf: str, targets: list[str]) -> list[Problem]:
    """The management VRF's name: not the default VRF (the fabric's routing table), and the one name a target allows
    its management VRF, if it allows one only."""
    free = [target.name for target in TARGETS.values() if target.management_port and not target.management_vrf]
    if vrf == "default":
        return [
            Problem(
                ("management", "vrf"),
                "default is the VRF of the fabric's routes; the management port sits in a VRF of its own, such as "
                "mgmt (the default)",
            )
        ]
    return [
        Problem(
            ("management", "vrf"),
            f"{TARGETS[target].label} names its management VRF {TARGETS[target].management_vrf}, not {vrf}; use "
            f"vrf: {TARGETS[target].management_vrf} (the default), or render only for targets that take any name "
            f"({', '.join(free)})",
        )
        for target in targets
        if TARGETS[target].management_vrf not in ("", vrf)
    ]


class NetworkAddressingDoc(Section):
    """The IPv4 pools of one network beside the backend: its switch-to-switch /31s, leaf-to-server /31s and
    loopbacks. Every pool of every network must be disjoint from every other."""

    fabric_p2p: Pool | None = Field(
        None, description="Pool of the network's switch-to-switch /31s (default: laid out beside the backend's)."
    )
    server_p2p: Pool | None = Field(
        None, description="Pool of the network's leaf-to-server /31s (default: laid out beside the backend's)."
    )
    loopbacks: Pool | None = Field(
        None, description="Pool of the network's switch loopback /32s (default: laid out beside the backend's)."
    )


DUAL_HOMING = ("none", "bgp", "evpn-mh", "mlag")
"""How a server reaches the two leaves of its rack: not at all, by BGP from the host over two routed links, by
EVPN multihoming (a bonded host), or by MLAG."""


class DataNetworkDoc(Section):
    """A rack-local leaf-spine network beside the backend (top-of-rack leaves, declared oversubscription)."""

    nics_per_server: int = Field(2, ge=1, le=16, description="The network's NIC ports of one GPU server.")
    nic_speed: Speed = Field(200, description="Speed of those NIC ports, as under compute.")
    oversubscription: Ratio = Field(
        1.0,
        description=(
            'Leaf downlink to uplink bandwidth, 3 or "3:1" (default 1). The leaves are sized to it; unlike '
            "checks.oversubscription (the backend's warning threshold), it is the network's design."
        ),
    )
    dual_homing: Literal[DUAL_HOMING] = Field(  # type: ignore[valid-type]  # the tuple above, read at import
        "none",
        description=(
            "none: every NIC port to one leaf of the rack; bgp: the server's ports split over the rack's leaves, a "
            "routed link each, the server runs BGP (routing on the host). evpn-mh and mlag are refused until a "
            "target renders them."
        ),
    )
    leaves_per_rack: int | None = Field(
        None, ge=1, le=8, description="Top-of-rack leaves per rack (default: 2 when dual-homed, else 1)."
    )
    leaf: SwitchDoc | None = Field(None, description="The top-of-rack leaves (default: the backend leaf's hardware).")
    spine: SwitchDoc | None = Field(None, description="The spines (default: the network's leaf hardware).")
    addressing: NetworkAddressingDoc = Field(NetworkAddressingDoc(), description="The network's IPv4 pools.")
    leaf_asn_start: Asn | None = Field(
        None,
        description=(
            "First leaf ASN of the network, in a private range (default: laid out after the backend's ranges); "
            "its spines take the next million."
        ),
    )


class CoreDoc(Section):
    """The data-centre core the border leaves peer with: eBGP on every core uplink, the frontend's pools announced
    to it and a default route taken from it."""

    asn: Asn = Field(description="The core's ASN, none of the design's own.")


class FrontendDoc(DataNetworkDoc):
    """The frontend (north-south, converged) network: its border leaves face the data-centre core."""

    border_leaves: int = Field(2, ge=0, le=64, description="Border leaves with uplinks toward the data-centre core.")
    core_uplinks: int = Field(4, ge=0, le=512, description="Uplinks of each border leaf toward the core.")
    core_uplink_speed: Speed | None = Field(
        None, description="Speed of the core uplinks (default: the border leaf's port speed)."
    )
    core: CoreDoc | None = Field(
        None,
        description=(
            "The data-centre core's BGP: each core uplink a /31 and an eBGP session to it (default: none, the core "
            "uplinks are only cabled)."
        ),
    )


class StorageNodesDoc(Section):
    """The storage servers the storage network also serves."""

    count: int = Field(ge=1, le=100_000, description="Storage servers.")
    nics_per_server: int = Field(2, ge=1, le=16, description="Storage network NIC ports of one storage server.")
    nic_speed: Speed = Field(400, description="Speed of those NIC ports.")
    rack_units: int = Field(2, gt=0, le=60, description="Rack units of one storage server.")
    power_kw: float = Field(1.5, gt=0, le=100, description="Maximum power of one storage server, in kW.")


class StorageDoc(DataNetworkDoc):
    """The storage network: GPU servers to the storage servers it also serves."""

    storage_nodes: StorageNodesDoc | None = Field(None, description="The storage servers on this network.")
    lossless: bool = Field(
        False,
        description=("Run the backend's RoCE QoS (PFC and ECN) on the storage switches; every target must write QoS."),
    )


class ManagementSwitchDoc(Section):
    """A management switch: 1G access ports for management ports and BMCs, and a few fast uplinks."""

    model: Annotated[str, _known("management_switches", "management switch")] | None = Field(
        None,
        json_schema_extra={"examples": ["nvidia-sn2201"]},
        description="A catalog management switch model (default: nvidia-sn2201); explicit fields override it.",
    )
    ports: int | None = Field(None, ge=1, le=MAX_SWITCH_PORTS, description="Access (1G) ports.")
    uplinks: int | None = Field(None, ge=1, le=64, description="Uplink ports toward the OOB spine.")
    uplink_speed: Speed | None = Field(None, description="Speed of the uplink ports.")
    rack_units: int | None = Field(None, gt=0, le=60, description="Rack units.")
    power_w: int | None = Field(None, gt=0, le=100_000, description="Typical power, in watts.")


class OobDoc(Section):
    """The out-of-band network: a management switch in every rack for every BMC, switch management port and
    managed power part, aggregated to an OOB spine; one management address per device."""

    switch: ManagementSwitchDoc = Field(ManagementSwitchDoc(), description="The management switch of every rack.")
    spine: SwitchDoc | None = Field(
        None, description="The OOB spine the management switches uplink to (default: the backend leaf's hardware)."
    )
    bmcs_per_server: int = Field(1, ge=0, le=8, description="BMC ports of one GPU server.")
    host_management: bool = Field(
        False, description="Also cable every GPU server's host management port (besides its BMC)."
    )
    managed_per_rack: int = Field(
        0, ge=0, le=48, description="Other managed parts per rack on the OOB network (PDUs, power shelves)."
    )
    pool: Pool | None = Field(
        None, description="Pool of the management addresses, one per device (default: laid out beside the others)."
    )


class NetworksDoc(Section):
    """The cluster's networks beside the backend (``fabric``); each is designed only when declared."""

    frontend: FrontendDoc | None = Field(None, description="The frontend (north-south, converged) network.")
    storage: StorageDoc | None = Field(None, description="The storage network.")
    inband: DataNetworkDoc | None = Field(None, description="The in-band management network (optional).")
    oob: OobDoc | None = Field(None, description="The out-of-band management network; {} takes every default.")


def check_ipv4_address(value: str) -> str:
    """A single IPv4 address, written canonically."""
    try:
        network = IPNetwork(value, version=4)
    except (AddrFormatError, ValueError, TypeError):
        raise ValueError(f"{short(value)} is not an IPv4 address such as 192.0.2.10") from None
    if "/" in value:
        raise ValueError(f"{short(value)} is a prefix; give the server's address alone, such as {network.ip}")
    return str(network.ip)


Address = Annotated[
    str,
    AfterValidator(check_ipv4_address),
    WithJsonSchema({"type": "string", "pattern": r"^\d{1,3}(\.\d{1,3}){3}$", "examples": ["192.0.2.10"]}),
]


DOMAIN_PATTERN = r"^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$"
"""A DNS name as RFC 1123 writes a host name: dot-separated labels of 1-63 letters, digits and inner hyphens."""


check_domain = whole_match(
    DOMAIN_PATTERN,
    "a DNS domain; use dot-separated labels of letters, digits and inner hyphens, such as cluster.example.net",
)
"""A DNS search domain: a host name's labels (it goes into every switch's configuration as it is)."""


class ManagementDoc(Section):
    """The management side of every switch of every network: its VRF and the services it uses."""

    vrf: Annotated[str, AfterValidator(safe_name)] = Field(
        "mgmt", description="The management VRF the management port sits in."
    )
    ntp: list[Address] = Field(default_factory=list, max_length=8, description="NTP servers.")
    syslog: list[Address] = Field(default_factory=list, max_length=8, description="Syslog servers.")
    dns: list[Address] = Field(default_factory=list, max_length=3, description="DNS servers (resolv.conf takes 3).")
    domain: Annotated[str, AfterValidator(check_domain)] | None = Field(
        None,
        max_length=253,
        json_schema_extra={"pattern": DOMAIN_PATTERN, "examples": ["cluster.example.net"]},
        description="DNS search domain.",
    )

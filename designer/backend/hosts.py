"""The other end of every server link: each GPU server's backend NIC settings, as data.

``host_configs(intent, fabric, allocation, queue_pairs)`` gives one :class:`HostConfig` per server (fabric
device order), from the design's structure only; the templates under ``templates/hosts/`` lay it out as
netplan or NetworkManager files, a sysctl.d file, the NIC vendor's QoS commands and NCCL's environment.

* Addresses: NIC ``i`` of a server holds the odd end of the /31 of its server link; its leaf holds the even end
  and is the NIC's gateway.
* Routing: every NIC has its own routing table, number ``TABLE_BASE + i`` (NIC index ``i`` in port order), with
  one route to the whole leaf-to-NIC pool (``addressing.server_p2p``, every server /31 of the fabric and of its
  growth envelope) via its leaf, and a rule ``from <NIC address> lookup <table>`` of priority ``TABLE_BASE + i``.
  Replies and RDMA traffic from a NIC's address so leave through that NIC, to the leaf of its rail, whatever
  the main table says; without the rules every NIC would send through whichever one the main table lists first.
* ARP (:data:`SYSCTLS`): every NIC of a server sits in its own /31 on its own leaf, and Linux by default answers
  ARP for any local address on any interface and picks the ARP source address from any interface, so a NIC
  could answer for its neighbours and a leaf would learn the wrong MAC for an address.
* QoS (NVIDIA NICs, and servers the catalog does not know: ``mlnx_qos``; another vendor's NIC gets no QoS file,
  summary.md says what to set with the vendor's tools): the NIC trusts DSCP, runs PFC on the profile's lossless
  priority only, maps the RoCE and CNP DSCPs to the same priorities as the switches, marks RDMA-CM traffic with the
  RoCE DSCP and sends CNPs with the CNP DSCP and priority; ECN (both congestion-control roles) on the lossless
  priority when the profile marks ECN. With hwplb, as NVIDIA's NIC Configuration Operator does it (Spectrum-X profile
  RA3.0, tests/vendor/nvidia-nic/): trust, PFC, the DSCP map and the CNP DSCP on every plane PF of the NIC, ECN on
  the first PF alone (the other PFs share its RDMA device).
* Adaptive routing (``load_balancing.mode: adaptive`` with NICs whose catalog ``modes`` has it): what NVIDIA's NIC
  Configuration Operator sets on ConnectX-8 for Spectrum-X (its profiles RA1.3 to RA2.2, tests/vendor/nvidia-nic/):
  the non-volatile ``ROCE_ADAPTIVE_ROUTING_EN=1`` (``mlxconfig``, from the next firmware reset or reboot) and, at
  run time, the adaptive-routing fields of the NIC's ``ROCE_ACCL`` register (:data:`ADAPTIVE_ROCE_ACCL`: adaptive
  retransmission and the transmit window on, slow restart off, adaptive routing forced; the field names as NVIDIA's
  "Adaptive Retransmission: Parameters Control" gives them, set with ``mlxreg``), so the NIC accepts and reorders
  the packets the switches moved to other paths.
* Spraying (``mode: spray``): no NIC setting is written, as none is in a vendor document at hand (ConnectX-8's
  per-packet spraying, AMD's Pollara tools); nic-qos.sh and summary.md say so.
* NCCL: the RDMA devices in NIC order (rail order), exact names; RoCEv2 over IPv4 (GID index 3); traffic class
  DSCP << 2; no cross-NIC rings (each rail stays on its own leaves; rack-style cabling: :data:`CROSS_NIC`); queue
  pairs per connection from the workload analysis when the intent has workloads
  (:func:`designer.analysis.workload.queue_pairs`), else NCCL's default of 1.
* Multiplane NIC ports (``compute.multiplane``; NVIDIA Network Operator 26.7, "Software Multiplane" and "Hardware
  Multiplane Spectrum-X Quick Start"): with swplb each plane of a port is a PF of its own, so the server has one
  interface, address, table and RDMA device per plane, and NCCL fuses the PFs of one NIC into one device and
  balances them (``NCCL_IB_MERGE_NICS=1``, NCCL's environment variables documentation); with hwplb the NIC joins
  its plane PFs in a LAG and balances them itself, so the server has one interface, address and RDMA device per
  rail, its /31 the same in every plane (``designer.backend.allocate``), and NCCL sees one device per rail.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import NamedTuple

from designer.backend.allocate import Allocation
from designer.backend.port_names import named_ports
from designer.backend.wiring import Fabric
from designer.intent import Intent

TABLE_BASE = 100
"""NIC ``i``'s routing table and rule priority are ``TABLE_BASE + i``: clear of the kernel's reserved tables
(253-255) for up to 153 NIC ports, and of the main (32766) and default (32767) rules."""
GID_INDEX = 3
"""The RoCEv2 GID of a NIC's IPv4 address: mlx5 lists each address as RoCEv1 and RoCEv2 GIDs after the two of
the link-local IPv6 address, so a NIC with one IPv4 address has it at index 3 (``show_gids``)."""
CONNECTION_NAMESPACE = uuid.UUID("6f1c7a52-3d0e-5b8e-9a41-0c2f6d8e1b73")
"""Namespace of the NetworkManager connection UUIDs: ``uuid5`` of ``<design>/<server>/<nic>``, the same in every
build, different in every design."""
ADAPTIVE_NVCONFIG = (("ROCE_ADAPTIVE_ROUTING_EN", 1),)
"""The ``mlxconfig`` (non-volatile) settings of adaptive routing on a ConnectX-8, as NVIDIA's Spectrum-X profiles set
them."""
ADAPTIVE_ROCE_ACCL = (
    ("roce_adp_retrans_en", "roce_adp_retrans_field_select", 1),
    ("roce_tx_window_en", "roce_tx_window_field_select", 1),
    ("roce_slow_restart_en", "roce_slow_restart_field_select", 0),
    ("roce_slow_restart_idle_en", "roce_slow_restart_idle_field_select", 0),
    ("adaptive_routing_forced_en", "adaptive_routing_forced_en_field_select", 1),
)
"""The ``ROCE_ACCL`` register fields of adaptive routing: (field, its field-select bit, value), as NVIDIA's
Spectrum-X profiles set them at run time."""
NCCL_DEFAULT_QPS = 1
"""NCCL_IB_QPS_PER_CONNECTION when nothing says otherwise: NCCL's own default."""
NCCL_DEFAULT = (NCCL_DEFAULT_QPS, "NCCL's default (the intent has no workloads)")
"""NCCL's queue pairs per connection without workloads, and why."""
SYSCTLS = (
    ("arp_ignore", 1, "answer ARP only for addresses on the NIC asked, never for a neighbour NIC's"),
    ("arp_announce", 2, "send ARP requests from the NIC's own address, the one in the leaf's /31"),
    (
        "rp_filter",
        2,
        (
            "loose reverse-path filter: a source reachable through any NIC is accepted; strict (1) "
            "would drop packets whenever a per-NIC table or rule is not installed yet"
        ),
    ),
)
"""Per-NIC IPv4 sysctls (``net.ipv4.conf.<nic>.*``): setting, value, why. Linux applies the larger of the NIC's
and ``all``'s value for each, so per-NIC values hold whatever ``all`` says."""


class HostNic(NamedTuple):
    """One backend NIC port of a server: its names, its /31 and its leaf, its routing table (a named tuple: a
    131,072-GPU design has 131,072 of them)."""

    name: str
    """Linux interface name."""
    rdma: str
    """RDMA device name."""
    port: str
    """The design's name of the port (``nic<i>``, as in cabling.csv and design.json); with hwplb, the names of
    its plane links."""
    planes: tuple[int, ...]
    """The planes the interface sends to: one, or every plane of its port with hwplb."""
    rail: int
    address: str
    """The NIC's end of the /31 (the odd address); empty on InfiniBand."""
    gateway: str
    """The leaf's end of the /31 (every plane's leaf's, with hwplb); empty on InfiniBand."""
    leaves: tuple[tuple[str, str], ...]
    """(leaf, leaf port) of each plane link of the interface."""
    table: int
    """Routing table and rule priority."""
    uuid: str
    """The NetworkManager connection's UUID (format nmconnection; empty otherwise)."""
    sysctl: str
    """The sysctl key prefix of the NIC (``net.ipv4.conf.<nic>.``; with '/' separators when the name has a dot)."""
    plane_pfs: tuple[str, ...] = ()
    """With hwplb, the Linux name of each plane PF behind the interface, in plane order (``hosts.plane_nics``);
    empty when the interface is one PF."""

    @property
    def place(self) -> str:
        """Where the interface sits in the fabric: ``plane 0 rail 1``, or ``planes 0-1 rail 1`` with hwplb."""
        if len(self.planes) == 1:
            return f"plane {self.planes[0]} rail {self.rail}"
        return f"planes {'-'.join(map(str, self.planes))} rail {self.rail}"

    @property
    def plane_functions(self) -> tuple[int, ...]:
        """With hwplb, the PCI function of each plane PF the NIC joins behind the interface, counted from the
        interface's own (PF0's): plane PF ``n`` is PF0's function plus ``n``, as NVIDIA's NIC Configuration Operator
        names them; empty when the interface is one PF."""
        return tuple(range(len(self.planes))) if len(self.planes) > 1 else ()

    @property
    def lldp_interfaces(self) -> tuple[str, ...]:
        """The interfaces lldpd sends on for this NIC: each plane PF with hwplb (each on its own plane link, to its
        own leaf), else the interface itself."""
        return self.plane_pfs or (self.name,)

    @property
    def peers(self) -> str:
        """The leaf port of each plane link: ``p0-su0-r1-leaf swp2``."""
        return ", ".join(f"{leaf} {port}" for leaf, port in self.leaves)


@dataclass(frozen=True)
class HostQos:
    """What the NIC's QoS must match on the switches: DSCPs, priorities, PFC and ECN."""

    profile: str
    roce_dscp: int
    roce_priority: int
    cnp_dscp: int
    cnp_priority: int
    pfc: tuple[int, ...]
    """PFC on (1) or off (0) for each of the 8 priorities: on for the lossless priority only."""
    tos: int
    """The IP ToS byte of RoCE traffic: the DSCP shifted past the two ECN bits."""
    ecn: bool


CROSS_NIC = {
    (False, 1): (0, "each rail stays on its own NIC and leaves"),
    (True, 1): (1, "every NIC of the server reaches its rack's one switch: rings need not keep to one NIC"),
    (True, 2): (2, "NCCL's default: the same NIC where it can; half the NICs share each of the rack's two switches"),
}
"""``NCCL_CROSS_NIC`` by (rack-style cabling, switches a rack) and why (NCCL's environment variables: 0 for
per-NIC switches, rails; 1 where every NIC of a node reaches the same switch; 2, the default, in between)."""


@dataclass(frozen=True)
class Nccl:
    """NCCL's environment for the backend."""

    hca: tuple[str, ...]
    """RDMA devices in NIC (rail) order."""
    gid_index: int
    traffic_class: int
    qps_per_connection: int
    qps_reason: str
    cross_nic: int
    cross_nic_reason: str
    backend: str
    """What the backend is, for the file's first line: ``rail-optimized`` or ``rack-style``."""
    merge_nics: bool = False
    """NCCL fuses the plane PFs of one NIC port into one device (swplb multiplane): ``NCCL_IB_MERGE_NICS=1``."""


@dataclass(frozen=True)
class HostConfig:
    """Everything one server's backend files say."""

    hostname: str
    format: str
    mtu: int
    prefix_length: int
    backend: tuple[str, ...]
    """Prefixes every NIC routes through its own leaf."""
    nics: tuple[HostNic, ...]
    sysctls: tuple[tuple[str, int, str], ...]
    qos: HostQos
    nccl: Nccl
    adaptive_routing: bool = False
    """Whether the NICs accept the packets adaptive routing moves (``load_balancing.mode: adaptive`` on a server
    whose NICs take part in it, catalog ``modes``)."""
    spray: bool = False
    """Whether the NICs spray (``load_balancing.mode: spray``): a setting no vendor document at hand gives."""
    technology: str = "ethernet"
    """The backend's technology (``fabric.technology``): on ``infiniband`` the NICs are HCAs with no IP address,
    route or PFC, and the server's only backend file is NCCL's environment."""
    nic: HostNicModel | None = None
    """The backend NICs' model as the catalog knows it (None: a server the catalog does not know, taken to carry
    NVIDIA ConnectX NICs, as its placeholder names ``mlx5_<i>`` say)."""

    @property
    def nvconfig(self) -> str:
        """The ``mlxconfig set`` arguments of adaptive routing."""
        return " ".join(f"{name}={value}" for name, value in ADAPTIVE_NVCONFIG)

    @property
    def roce_accl(self) -> str:
        """The ``mlxreg --set`` argument of adaptive routing: each ``ROCE_ACCL`` field with its select bit."""
        return ",".join(f"{field}={value:#x},{select}=0x1" for field, select, value in ADAPTIVE_ROCE_ACCL)

    @property
    def nvidia_qos(self) -> bool:
        """Whether the NICs take NVIDIA's QoS tools (``mlnx_qos``, the mlx5 sysfs files): nic-qos.sh is written
        only then, never for another vendor's NIC."""
        return self.nic is None or self.nic.host_qos == "mlnx_qos"


class HostNicModel(NamedTuple):
    """What the server files say of the NIC model: its names, vendor, driver and host QoS method and tools."""

    name: str
    label: str
    vendor: str
    driver: str
    host_qos: str
    qos_tools: str


def host_configs(
    intent: Intent, fabric: Fabric, allocation: Allocation | None, queue_pairs: tuple[int, str] = NCCL_DEFAULT
) -> tuple[HostConfig, ...]:
    """One host configuration per server, in fabric device order; without an ``allocation`` (an InfiniBand
    fabric) the NICs have no address, gateway or backend route. ``queue_pairs``: NCCL's queue pairs per connection
    and why (the workload analysis's, else NCCL's default)."""
    devices, first = fabric.devices, fabric.switch_count
    spec, qos, multiplane = intent.hosts, intent.qos, intent.server.multiplane
    host_qos, nic_model = _host_qos(intent), _nic_model(intent)
    adaptive = intent.load_balancing.mode == "adaptive" and "adaptive" in intent.server.nic_modes
    qps, reason = queue_pairs
    swplb = multiplane is not None and multiplane.mode == "swplb"
    cross_nic, why = CROSS_NIC[(fabric.plan.rack_style, fabric.plan.per_rack)]
    style = "rack-style" if fabric.plan.rack_style else "rail-optimized"
    nccl = Nccl(spec.rdma_devices, GID_INDEX, qos.roce_dscp << 2, qps, reason, cross_nic, why, style, swplb)
    backend = (allocation.server_p2p.cidr,) if allocation is not None else ()
    nics = _Nics(intent, fabric, allocation)
    return tuple(
        HostConfig(
            devices[first + offset].name,
            spec.format,
            qos.mtu,
            31,
            backend,
            nics(first + offset, numbers),
            SYSCTLS,
            host_qos,
            nccl,
            adaptive,
            intent.load_balancing.mode == "spray",
            intent.technology,
            nic_model,
        )
        for offset, numbers in enumerate(_nic_links(intent, fabric))
    )


class _Nics:
    """The backend NICs of each server, from what every server shares: the intent's NIC names, the ports' names,
    the links' addresses and, with hwplb, each rail's interface over its port in every plane."""

    def __init__(self, intent: Intent, fabric: Fabric, allocation: Allocation | None) -> None:
        self.intent, self.fabric = intent, fabric
        multiplane, rails = intent.server.multiplane, intent.rails
        self.per_rail = multiplane is not None and multiplane.mode == "hwplb"
        self.every_plane = tuple(range(intent.planes))
        self.one_plane = [(plane,) for plane in self.every_plane]
        spec = intent.hosts
        self.keyfiles = spec.format == "nmconnection"
        self.prefixes = tuple(
            f"net/ipv4/conf/{name}/" if "." in name else f"net.ipv4.conf.{name}." for name in spec.nics
        )
        self.names = named_ports(intent, fabric)  # one tuple per port layout: naming a port costs an index
        unaddressed = [""] * fabric.server_link_count
        # a server link's leaf is its upper end
        self.leaf_ips, self.nic_ips = (
            (allocation.upper_ips, allocation.lower_ips) if allocation is not None else (unaddressed,) * 2
        )
        self.rail_ports = (
            [tuple(index + plane * rails for plane in self.every_plane) for index in range(len(spec.nics))]
            if self.per_rail
            else []
        )
        """With hwplb, the ports of each rail's interface, a plane each."""
        self.rail_pfs = [tuple(spec.plane_nics[each] for each in plane_ports) for plane_ports in self.rail_ports]

    def __call__(self, device: int, numbers: list[int]) -> tuple[HostNic, ...]:
        """The NICs of the server that is fabric device ``device``, whose NIC ports take links ``numbers``."""
        intent, fabric, names, rails = self.intent, self.fabric, self.names, self.intent.rails
        devices, spec = fabric.devices, intent.hosts
        server, ports = devices[device], names[device]
        per_rail, rail_ports, rail_pfs, one_plane = self.per_rail, self.rail_ports, self.rail_pfs, self.one_plane
        nic_ips, leaf_ips, prefixes = self.nic_ips, self.leaf_ips, self.prefixes
        nics = []
        for index, name in enumerate(spec.nics):
            number = numbers[index]
            if per_rail:  # the interface of a rail sends over the port's link in every plane
                plane_ports, planes, plane_pfs = rail_ports[index], self.every_plane, rail_pfs[index]
                port = "+".join([ports[each] for each in plane_ports])
                ends = [fabric.links[numbers[each]] for each in plane_ports]
                leaves = tuple([(devices[leaf].name, names[leaf][slot]) for _, leaf, slot, _, _ in ends])
            else:
                _, leaf, slot, _, _ = fabric.links[number]
                port, planes = ports[index], one_plane[index // rails]
                plane_pfs = ()
                leaves = ((devices[leaf].name, names[leaf][slot]),)
            nics.append(
                HostNic(
                    name,
                    spec.rdma_devices[index],
                    port,
                    planes,
                    index % rails,
                    nic_ips[number],
                    leaf_ips[number],
                    leaves,
                    TABLE_BASE + index,
                    str(uuid.uuid5(CONNECTION_NAMESPACE, f"{intent.name}/{server.name}/{name}"))
                    if self.keyfiles
                    else "",
                    prefixes[index],
                    plane_pfs,
                )
            )
        return tuple(nics)


def _nic_links(intent: Intent, fabric: Fabric) -> list[list[int]]:
    """Each server's link of each NIC port, by server in fabric order."""
    first = fabric.switch_count
    links: list[list[int]] = [[0] * intent.server.nics for _ in range(len(fabric.devices) - first)]
    for number in range(fabric.server_link_count):
        _, _, _, lower, nic = fabric.links[number]
        links[lower - first][nic] = number
    return links


def _host_qos(intent: Intent) -> HostQos:
    """The servers' side of the RoCE profile: DSCPs and priorities, PFC on the lossless priority, ECN."""
    qos = intent.qos
    return HostQos(
        qos.profile,
        qos.roce_dscp,
        qos.roce_priority,
        qos.cnp_dscp,
        qos.cnp_priority,
        tuple(int(priority == qos.roce_priority) for priority in range(8)),
        qos.roce_dscp << 2,
        qos.ecn,
    )


def _nic_model(intent: Intent) -> HostNicModel | None:
    """The catalog's facts of the servers' NIC, when it knows the NIC."""
    known = intent.catalog.nics.get(intent.server.nic or "")
    if not known:
        return None
    return HostNicModel(known.name, known.label, known.vendor, known.driver, known.host_qos, known.qos_tools)

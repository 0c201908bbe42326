"""SONiC's view of a device model: every CONFIG_DB table of a switch as data, serialized once as config_db.json.

``config_db(device)`` decides every value; ``templates/sonic/config_db.json.j2`` receives the tables and
writes them with ``config_db_json`` (a user's template override can add or change entries first).

The file is a whole configuration for ``config reload``, which flushes CONFIG_DB and loads the image's
``init_cfg.json`` and this file; reload generates no QoS or buffer tables, so every table the running switch
needs is here (sonic-utilities ``config/main.py``). BGP runs from the FRR file beside it:
``docker_routing_config_mode: split-unified`` makes SONiC's FRR container load one user ``frr.conf``
(``split`` would delete it at start: sonic-buildimage ``dockers/docker-fpm-frr/docker_init.sh``), so there
is no BGP_NEIGHBOR table for bgpcfgd to push a second BGP configuration from. With an unnumbered underlay the FRR file
must name SONiC's ports, so SONiC has its own (``configs/sonic-frr/``, :data:`designer.targets.TARGETS`), and each
fabric port's INTERFACE entry is ``ipv6_use_link_local_only: enable`` (sonic-interface.yang) with no address.

* Management (:mod:`designer.networks.management`, when the design has one): ``eth0`` (``MGMT_PORT``) in SONiC's
  management VRF (``MGMT_VRF_CONFIG``, always named ``mgmt``) with its address and gateway (``MGMT_INTERFACE``), NTP
  run in that VRF with its servers, the syslog servers reached through it, the DNS servers and search domain.
* Ports: every port of the switch, cabled ones up and unused ones admin down, named as the catalog's SONiC
  naming says (``DeviceConfig.os_port_names``): after its first SerDes lane, ``Ethernet{lane}``, counting the
  lanes of every cage in order (the vendors' ``port_config.ini`` layout): an 8-lane 800G cage run as 2 x 400G
  gives ``Ethernet0`` (lanes 0-3) and ``Ethernet4`` (lanes 4-7). ``index`` is the cage, ``subport`` the
  sub-port from 1 (0 when the cage is not broken out). Where the catalog knows the switch's SONiC SKU
  (``switch_facts``) the file names it (``platform``, ``hwsku``) with the SKU's aliases (``etp1a``), autoneg and
  extra ports; elsewhere the alias is the designer's port name. The designer's name always opens the ``description``.
* QoS: one set of named maps shared by every cabled port (the DSCP map also switch-wide,
  ``PORT_QOS_MAP|global``): DSCP to traffic class from the model, traffic class ``i`` to queue ``i``, the
  lossless classes to their own priority group and every other class to priority group 0, PFC priority ``i``
  to queue ``i`` and, for the lossless priorities, to priority group ``i`` (the tables SONiC's own
  ``qos_config.j2`` writes). Queues: the lossless queue gets the ECN (WRED) profile and its DWRR weight, the
  CNP queue strict priority (capped when the profile says so), queue 0 (all other traffic) the remaining
  DWRR weight.
* A switch that runs no RoCE QoS (a network beside the backend that is not lossless) gets only
  :data:`ROUTED_TABLES`, no QoS, buffer or watchdog table: its traffic is best effort.
* Buffers: SONiC's traditional model (``buffer_model: traditional``, explicit: Mellanox images default to the
  dynamic one), laid out as NVIDIA's own buffer templates do: separate lossless and lossy ingress pools, the
  lossy priority group in the lossy pool, unused ports on zero profiles. A SKU with a shared headroom pool
  (``shared_headroom`` in the catalog: Mellanox-SN5600-V256, Mellanox-SN4700-O32) has no lossy ingress pool: its
  lossy priority group takes the lossless pool, whose ``xoff`` holds every port's xoff, and each lossless profile
  reserves only xon (NVIDIA's ``Mellanox-SN2700-D48C8/buffers_defaults_objects.j2``). Pool sizes are the SKU's (its
  ``buffers_defaults_t0/t1.j2``, by :data:`BUFFER_TOPOLOGY`); without a known SKU they are estimated from the
  switching capacity (:data:`BUFFER_BYTES_PER_GBPS`) less the ports' headroom. Each lossless priority group
  takes the port's headroom from the device model as ``pg_lossless_<speed>_<cable>_profile``, the name SONiC's
  buffer manager gives the profile it would build from the same lookup, so it reuses ours; ``CABLE_LENGTH``
  holds the cable length every port's headroom is sized for (``0m`` on unused ports: no lossless buffer).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain, compress, cycle
from typing import Any, NamedTuple

from designer.backend.model import DeviceConfig, Headroom, Interface
from designer.catalog import ExtraPort
from designer.json_text import compact_encoder, quote
from designer.networks.management import Management
from designer.targets import TARGETS

DEVICE_TYPES = {"leaf": "ToRRouter", "spine": "LeafRouter", "super_spine": "SpineRouter"}
"""DEVICE_METADATA ``type`` by role: SONiC's tiers, T0 (the switches servers plug into), T1 and T2."""
BUFFER_TOPOLOGY = {"leaf": "t0", "spine": "t1", "super_spine": "t1"}
"""The SKU pool sizes each role takes: SONiC picks ``buffers_defaults_<t0|t1|t2>.j2`` by DEVICE_METADATA type;
the catalog's SKUs ship t0 and t1 only, so a T2 switch takes the t1 pools (the vendor's profile for longer cables)."""
BUFFER_BYTES_PER_GBPS = 3000
"""Shared packet buffer per Gb/s of switching capacity, about what current ASICs carry (Spectrum-4 and
Tomahawk 5: 160-165 MB for 51.2 Tb/s). Sizes the buffer pools of a switch without a known SKU."""
PFC_WD_POLL_MS = 100
"""How often the PFC watchdog looks at the queues; at most the detection time."""
QUEUES = 8
MAP = "ROCE"
"""Name of every QoS map (DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, ...)."""
ECN_PROFILE = "ROCE_ECN"
"""Name of the WRED profile that marks ECN on the lossless queue."""
ECMP_HASH_FIELDS = {
    "source-ip": "SRC_IP",
    "destination-ip": "DST_IP",
    "ip-protocol": "IP_PROTOCOL",
    "source-port": "L4_SRC_PORT",
    "destination-port": "L4_DST_PORT",
}
"""``SWITCH_HASH|GLOBAL`` ``ecmp_hash`` value of each hash field (the hash-field enum of sonic-hash.yang). The models
have no RoCE queue pair field, so the catalog's ``targets.sonic`` does not offer that hash."""
ECMP_HASH_ALGORITHM = "CRC"
"""``ecmp_hash_algorithm``: CRC, the hash-algorithm enum value every switch ASIC's SAI implements. SONiC's YANG
has no hash seed: swss sets one per DEVICE_METADATA type (ToRRouter, LeafRouter, SpineRouter: a seed per tier)."""
CABLE_KEY = "AZURE"
"""The CABLE_LENGTH entry's name, as SONiC's templates and ``config interface cable-length`` write it."""
LOSSLESS_DYNAMIC_TH = "0"
"""Threshold of the lossless priority groups: the threshold column of NVIDIA's headroom lookups."""
ROUTED_TABLES = ("DEVICE_METADATA", "INTERFACE", "LOOPBACK_INTERFACE", "PORT", "SWITCH_HASH")
"""The tables of a switch that runs no RoCE QoS (``DeviceConfig.roce_qos``: a network beside the backend that is not
lossless): its ports, addresses and hash, and none of the QoS, buffer and watchdog tables."""
QOS_METADATA = ("buffer_model", "default_pfcwd_status")
"""DEVICE_METADATA fields such a switch leaves to the image."""


class PortLayout(NamedTuple):
    """The ports of every switch alike (model, breakout, SKU, MTU and queues), in lane order, with what their
    entries take from the port's place alone; made once per rendering (``config_db``'s ``layouts``)."""

    ports: tuple[tuple[Any, ...], ...]
    """Each port's name, designer name, alias, index, subport, lanes, BUFFER_PG keys (group 0, then the lossless
    ones) and PORT fields while unused."""
    places: tuple[tuple[int, int] | None, ...]
    """Each port's (cage, sub-port), where the model's interfaces are found (None: a SKU's extra port)."""
    names: tuple[str, ...]
    queue_keys: tuple[tuple[str, ...], ...]
    """Each port's QUEUE keys, in queue order."""
    run_keys: tuple[tuple[str, ...], ...]
    """Each port's BUFFER_QUEUE keys, in run order."""


Tables = dict[str, dict[str, dict[str, Any]]]
"""config_db.json: table -> key -> fields, every value a string as SONiC stores it (a leaf-list a list of them)."""


class View:
    """SONiC's view of the switches of one rendering: each one's tables, and ``config_db_json`` to write them (a
    :class:`ConfigDbWriter`); the port layouts of switches alike are made once."""

    def __init__(self) -> None:
        self.layouts: dict[tuple[Any, ...], PortLayout] = {}
        self.writer = ConfigDbWriter()

    def __call__(
        self, device: DeviceConfig, hwsku: str | None = None, management: Management | None = None
    ) -> dict[str, Any]:
        """The variables of ``templates/sonic/`` for ``device``. ``hwsku`` is the intent's SKU choice
        (``target_options.sonic``), which the device model has already applied: ``device.sku``; ``management`` is
        the switch's management side (None: none to write)."""
        tables = config_db(device, self.layouts)
        if management is not None:
            tables = dict(sorted({**tables, **management_tables(management)}.items()))
        return {
            "tables": tables,
            "config_db_json": self.writer,
            "device": device,
            "policy": device.bgp.policy,  # and its route policy (frr/policy.j2)
            "ports": device.unnumbered_ports("sonic"),  # SONiC's FRR file (configs/sonic-frr/) names SONiC's ports
        }


class _PortEntries(NamedTuple):
    """The entries of ``config_db``'s tables that need a port's interface (cabled) or none (unused), one pass over the
    ports; and the headroom the cabled ports reserve."""

    port: dict[str, dict[str, str]]
    buffer_pg: dict[str, dict[str, str]]
    cable_lengths: dict[str, str]
    interface: dict[str, dict[str, Any]]
    lossless_profiles: dict[str, dict[str, str]]
    """One lossless priority-group profile per (speed, cable length)."""
    reserved: int


def config_db(device: DeviceConfig, layouts: dict[tuple[Any, ...], PortLayout] | None = None) -> Tables:
    """Every CONFIG_DB table of ``device``, tables in name order, entries in port and queue order: one pass over the
    ports, then the tables that only tell cabled ports from unused ones, in one go. ``layouts`` keeps each port
    layout made for an earlier switch of the same rendering, so that switches alike share their ports' names and
    keys (the values are made for each switch)."""
    qos = device.qos
    lossless = tuple(sorted(qos.pfc_priorities))
    buffer_queues = _buffer_queues(lossless)
    queues = _queues(device, lossless)
    layout = _layout(device, {} if layouts is None else layouts, lossless, tuple(queues), buffer_queues[True])
    cabled_ports: dict[tuple[int, int] | None, Interface] = {
        (interface.port, interface.lane): interface for interface in device.interfaces
    }
    cabled = list(map(cabled_ports.__contains__, layout.places))
    ports = _port_entries(device, layout, map(cabled_ports.get, layout.places))
    used = list(compress(layout.names, cabled))
    no_fields: dict[str, Any] = {}  # an entry that exists by its key alone (an address on an interface)
    tables: Tables = {
        **_buffer_tables(device, layout, cabled, buffer_queues, ports),
        "CABLE_LENGTH": {CABLE_KEY: ports.cable_lengths},
        "DEVICE_METADATA": {"localhost": _device_metadata(device)},
        **_qos_maps(device, lossless),
        "INTERFACE": ports.interface,
        "LOOPBACK_INTERFACE": {"Loopback0": no_fields, f"Loopback0|{device.loopback}": no_fields},
        "PORT": ports.port,
        "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": MAP}, **dict.fromkeys(used, _port_qos(device, lossless))},
        "QUEUE": dict(zip(chain.from_iterable(compress(layout.queue_keys, cabled)), cycle(queues.values()))),
        "SCHEDULER": _schedulers(device),
        "SWITCH_HASH": {
            "GLOBAL": {
                "ecmp_hash": [ECMP_HASH_FIELDS[field] for field in device.load_balancing.fields],
                "ecmp_hash_algorithm": ECMP_HASH_ALGORITHM,
            }
        },
    }
    if qos.pfc_watchdog:
        tables["PFC_WD"] = _pfc_watchdog(device, used)
    if qos.ecn:
        tables["WRED_PROFILE"] = _wred_profile(device)
    if not device.roce_qos:
        return {name: entries for name, entries in sorted(tables.items()) if name in ROUTED_TABLES}
    return dict(sorted(tables.items()))


def _device_metadata(device: DeviceConfig) -> dict[str, str]:
    """``DEVICE_METADATA|localhost``: the switch's name, tier, platform and SKU (where known), BGP and buffer model;
    a switch that runs no RoCE QoS leaves the buffer model and the PFC watchdog to the image."""
    sonic = device.facts.sonic if device.facts else None
    metadata = {"hostname": device.hostname, "type": DEVICE_TYPES[device.role]}
    if sonic and device.sku:
        metadata.update(platform=sonic.platform, hwsku=device.sku.hwsku)
    metadata.update(
        bgp_asn=str(device.asn),
        bgp_router_id=device.router_id,
        docker_routing_config_mode="split-unified",
        buffer_model="traditional",
        default_pfcwd_status="enable" if device.qos.pfc_watchdog else "disable",
    )
    if not device.roce_qos:
        for field in QOS_METADATA:
            del metadata[field]
    return metadata


def _buffer_queues(lossless: tuple[int, ...]) -> dict[bool, list[tuple[str, dict[str, str]]]]:
    """A port's BUFFER_QUEUE entries, by whether it is cabled (True) or unused (False: the zero profiles): each
    lossless queue on its own, the lossy ones in runs, in key order."""
    lossy_queues = _ranges([queue for queue in range(QUEUES) if queue not in lossless])
    return {
        cabled: sorted(
            [(str(queue), {"profile": lossless_queue}) for queue in lossless]
            + [(run, {"profile": lossy_queue}) for run in lossy_queues],
            key=lambda row: row[0],
        )
        for cabled, lossless_queue, lossy_queue in (
            (True, "egress_lossless_profile", "q_lossy_profile"),
            (False, "egress_lossless_zero_profile", "egress_lossy_zero_profile"),
        )
    }


def _queues(device: DeviceConfig, lossless: tuple[int, ...]) -> dict[int, dict[str, str]]:
    """A cabled port's QUEUE entries, in queue order: each queue's scheduler, the lossless ones' ECN profile."""
    qos = device.qos
    queues = {
        queue: {
            "scheduler": f"DWRR_Q{queue}",
            **({"wred_profile": ECN_PROFILE} if qos.ecn and queue in lossless else {}),
        }
        for queue, _ in qos.dwrr_weights
    }
    queues[qos.cnp_priority] = {"scheduler": "STRICT_CNP"}
    return dict(sorted(queues.items()))


def _port_qos(device: DeviceConfig, lossless: tuple[int, ...]) -> dict[str, str]:
    """A cabled port's PORT_QOS_MAP entry: the QoS maps, PFC on the lossless priorities (and their watchdog)."""
    pfc = ",".join(map(str, lossless))
    return {
        "dscp_to_tc_map": MAP,
        "tc_to_queue_map": MAP,
        "tc_to_pg_map": MAP,
        "pfc_to_pg_map": MAP,
        "pfc_to_queue_map": MAP,
        "pfc_enable": pfc,
        **({"pfcwd_sw_enable": pfc} if device.qos.pfc_watchdog else {}),
    }


def _layout(
    device: DeviceConfig,
    layouts: dict[tuple[Any, ...], PortLayout],
    lossless: tuple[int, ...],
    queue_order: tuple[int, ...],
    buffer_queues: list[tuple[str, dict[str, str]]],
) -> PortLayout:
    """The port layout of ``device``: that of an earlier switch alike in ``layouts``, else made and kept there."""
    sonic = device.facts.sonic if device.facts else None
    sku = device.sku
    arguments = (
        sonic.alias_prefix if sonic and sku else None,
        sonic.extra_ports if sonic and sku else (),
        sku.autoneg if sku else None,
        str(device.qos.mtu),
        lossless,
        queue_order,
        tuple(run for run, _ in buffer_queues),
    )
    key = (
        device.physical_ports,
        device.breakout,
        device.uplink_breakout,
        device.first_uplink_cage,
        device.serdes_lanes,
        device.port_speed_gbps,
        device.port_names,
        *arguments,
    )  # everything _port_layout reads
    if key not in layouts:
        layouts[key] = _port_layout(device, *arguments)
    return layouts[key]


def _port_entries(device: DeviceConfig, layout: PortLayout, interfaces: Iterable[Interface | None]) -> _PortEntries:
    """Every port's entries in lane order, given each port's interface (None: unused). Every port has a lossy
    priority group and a cable length (0m unused: no lossless buffer); a cabled one also its lossless priority groups
    on the headroom profile of its speed and cable length and its addresses."""
    mtu = str(device.qos.mtu)
    autoneg = {"autoneg": device.sku.autoneg} if device.sku and device.sku.autoneg else {}
    lossy_pg = {True: {"profile": "ingress_lossy_profile"}, False: {"profile": "ingress_lossy_pg_zero_profile"}}
    no_fields: dict[str, Any] = {}  # an entry that exists by its key alone (an interface, an address on it)
    link_local_only = {"ipv6_use_link_local_only": "enable"}
    speeds: dict[int, tuple[str, str]] = {}  # Gb/s -> PORT speed and fec
    port_table: dict[str, dict[str, str]] = {}
    buffer_pg: dict[str, dict[str, str]] = {}
    cable_lengths: dict[str, str] = {}
    interface_table: dict[str, dict[str, Any]] = {}
    profiles: dict[str, dict[str, str]] = {}
    headrooms: dict[tuple[int, int], tuple[dict[str, str], str]] = {}  # (Gb/s, cable m) -> BUFFER_PG entry, length
    reserved = 0  # the cabled ports' headroom
    for (name, designer_name, alias, index, subport, lanes, pg_keys, unused), interface in zip(
        layout.ports, interfaces, strict=True
    ):
        if interface is None:
            port_table[name] = dict(unused)
            buffer_pg[pg_keys[0]] = lossy_pg[False]
            cable_lengths[name] = "0m"
            continue
        gbps = interface.speed_gbps
        if gbps not in speeds:
            speeds[gbps] = (str(gbps * 1000), _fec(gbps * 1000))
        speed, fec = speeds[gbps]
        port_table[name] = {
            "alias": alias,
            "description": f"{designer_name} to {interface.description}",
            "index": index,
            "subport": subport,
            "lanes": lanes,
            "speed": speed,
            "fec": fec,
            "mtu": mtu,
            **autoneg,
            "admin_status": "up",
        }
        room = interface.headroom
        reserved += room.size
        headroom = headrooms.get((gbps, room.cable_m))
        if headroom is None:
            profile = f"pg_lossless_{speed}_{room.cable_m}m_profile"
            profiles[profile] = _lossless_profile(room)
            headroom = headrooms[gbps, room.cable_m] = ({"profile": profile}, f"{room.cable_m}m")
        buffer_pg[pg_keys[0]] = lossy_pg[True]
        for key in pg_keys[1:]:
            buffer_pg[key] = headroom[0]
        cable_lengths[name] = headroom[1]
        if interface.address:
            interface_table[name] = interface_table[f"{name}|{interface.address}"] = no_fields
        else:  # unnumbered: BGP runs over the port's IPv6 link-local address (sonic-interface.yang)
            interface_table[name] = link_local_only
    return _PortEntries(port_table, buffer_pg, cable_lengths, interface_table, profiles, reserved)


def _lossless_profile(room: Headroom) -> dict[str, str]:
    """The BUFFER_PROFILE of a lossless priority group on ``room``, the headroom of a port's speed and cable."""
    return {
        "pool": "ingress_lossless_pool",
        "xon": str(room.xon),
        "xoff": str(room.xoff),
        "size": str(room.size),
        "dynamic_th": LOSSLESS_DYNAMIC_TH,
    }


def _buffer_tables(
    device: DeviceConfig,
    layout: PortLayout,
    cabled: list[bool],
    buffer_queues: dict[bool, list[tuple[str, dict[str, str]]]],
    ports: _PortEntries,
) -> Tables:
    """The buffer tables: every port's priority groups (from ``ports``), profile lists and buffer queues (cabled or
    zero), the pools and the profiles."""
    ingress = _ingress_layout(device)[0]
    ingress_lists = {
        up: {"profile_list": ",".join(f"{name}_{suffix}" for name in ingress)}
        for up, suffix in ((True, "profile"), (False, "zero_profile"))
    }
    egress_lists = {
        True: {"profile_list": "egress_lossless_profile,egress_lossy_profile"},
        False: {"profile_list": "egress_lossless_zero_profile,egress_lossy_zero_profile"},
    }
    run_entries = {up: tuple(entry for _, entry in rows) for up, rows in buffer_queues.items()}
    unused = len(layout.names) > sum(cabled)
    return {
        "BUFFER_PG": ports.buffer_pg,
        "BUFFER_POOL": _buffer_pools(device, ports.reserved, unused),
        "BUFFER_PORT_EGRESS_PROFILE_LIST": dict(zip(layout.names, map(egress_lists.__getitem__, cabled), strict=True)),
        "BUFFER_PORT_INGRESS_PROFILE_LIST": dict(
            zip(layout.names, map(ingress_lists.__getitem__, cabled), strict=True)
        ),
        "BUFFER_PROFILE": _buffer_profiles(device, ports.lossless_profiles, unused),
        "BUFFER_QUEUE": dict(
            zip(
                chain.from_iterable(layout.run_keys),
                chain.from_iterable(map(run_entries.__getitem__, cabled)),
                strict=True,
            )
        ),
    }


def _buffer_pools(device: DeviceConfig, reserved: int, unused: bool) -> dict[str, dict[str, str]]:
    """BUFFER_POOL: the SKU's pools, else estimated from the switching capacity less the cabled ports' ``reserved``
    headroom; the shared headroom's xoff where the SKU has one, and the zero pool when some port is ``unused``."""
    if device.sku:
        pools = device.sku.pools[BUFFER_TOPOLOGY[device.role]]
    else:
        total = device.physical_ports * device.port_speed_gbps * BUFFER_BYTES_PER_GBPS
        shared = (total - reserved * len(device.qos.pfc_priorities)) // 2
        pools = {
            "egress_lossless_pool": total,
            "egress_lossy_pool": shared,
            "ingress_lossless_pool": shared,
            "ingress_lossy_pool": shared,
        }
    buffer_pools = {
        name: {"type": name.partition("_")[0], "mode": "dynamic", "size": str(size)} for name, size in pools.items()
    }
    shared_xoff = _ingress_layout(device)[2]
    if shared_xoff is not None:
        buffer_pools["ingress_lossless_pool"]["xoff"] = shared_xoff
    if unused:
        buffer_pools["ingress_zero_pool"] = {"type": "ingress", "mode": "static", "size": "0"}
    return dict(sorted(buffer_pools.items()))


def _buffer_profiles(
    device: DeviceConfig, lossless_profiles: dict[str, dict[str, str]], unused: bool
) -> dict[str, dict[str, str]]:
    """BUFFER_PROFILE: the ``lossless_profiles`` of the cabled ports' headrooms, the shared profiles, and the zero
    profiles when some port is ``unused``."""
    ingress, lossy_pool, _ = _ingress_layout(device)
    profiles = {
        **lossless_profiles,
        "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "dynamic_th": "7"},
        "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": str(device.qos.mtu), "dynamic_th": "7"},
        "ingress_lossless_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "7"},
        "ingress_lossy_profile": {"pool": lossy_pool, "size": "0", "dynamic_th": "3"},
        "q_lossy_profile": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "3"},
    }
    if unused:
        profiles["ingress_lossy_pg_zero_profile"] = {"pool": "ingress_zero_pool", "size": "0", "static_th": "0"}
        profiles.update(
            {
                f"{name}_zero_profile": {"pool": f"{name}_pool", "size": "0", "dynamic_th": "-8"}
                for name in ("egress_lossless", "egress_lossy", *ingress)
            }
        )
    return dict(sorted(profiles.items()))


def _qos_maps(device: DeviceConfig, lossless: tuple[int, ...]) -> Tables:
    """The QoS maps every cabled port names: DSCP to traffic class, PFC priority to queue and to priority group,
    traffic class to priority group and to queue."""
    return {
        "DSCP_TO_TC_MAP": {MAP: {str(dscp): str(tc) for dscp, tc in enumerate(device.qos.dscp_to_tc)}},
        "MAP_PFC_PRIORITY_TO_QUEUE": {MAP: {str(priority): str(priority) for priority in range(QUEUES)}},
        "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": {MAP: {str(priority): str(priority) for priority in lossless}},
        "TC_TO_PRIORITY_GROUP_MAP": {MAP: {str(tc): str(tc if tc in lossless else 0) for tc in range(QUEUES)}},
        "TC_TO_QUEUE_MAP": {MAP: {str(tc): str(tc) for tc in range(QUEUES)}},
    }


def _schedulers(device: DeviceConfig) -> dict[str, dict[str, str]]:
    """SCHEDULER: a DWRR scheduler per weighted queue and the CNP queue's strict priority (capped when the profile
    says so, at its share of the first interface's speed)."""
    qos = device.qos
    rate = (
        device.interfaces[0].speed_gbps * 125_000_000 * qos.cnp_rate_percent // 100
        if qos.cnp_rate_percent and device.interfaces
        else 0
    )
    schedulers = {f"DWRR_Q{queue}": {"type": "DWRR", "weight": str(weight)} for queue, weight in qos.dwrr_weights}
    schedulers["STRICT_CNP"] = {
        "type": "STRICT",
        **({"meter_type": "bytes", "cir": str(rate), "pir": str(rate)} if rate else {}),
    }
    return dict(sorted(schedulers.items()))


def _pfc_watchdog(device: DeviceConfig, used: list[str]) -> dict[str, dict[str, str]]:
    """PFC_WD: its poll interval, then the watchdog of every cabled port in ``used``."""
    qos = device.qos
    watchdog = {
        "action": qos.pfc_watchdog_action,
        "detection_time": str(qos.pfc_watchdog_detection_ms),
        "restoration_time": str(qos.pfc_watchdog_restoration_ms),
    }
    return {
        "GLOBAL": {"POLL_INTERVAL": str(min(PFC_WD_POLL_MS, qos.pfc_watchdog_detection_ms))},
        **dict.fromkeys(used, watchdog),
    }


def _wred_profile(device: DeviceConfig) -> dict[str, dict[str, str]]:
    """WRED_PROFILE: the ECN profile of the lossless queue, the same thresholds for every colour."""
    qos = device.qos
    thresholds = {
        f"{color}_{field}": str(value)
        for color in ("green", "yellow", "red")
        for field, value in (
            ("min_threshold", qos.ecn_min_bytes),
            ("max_threshold", qos.ecn_max_bytes),
            ("drop_probability", qos.ecn_probability),
        )
    }
    return {
        ECN_PROFILE: {
            "ecn": "ecn_all",
            "wred_green_enable": "true",
            "wred_yellow_enable": "true",
            "wred_red_enable": "true",
            **thresholds,
        }
    }


def management_tables(management: Management) -> Tables:
    """The CONFIG_DB tables of a switch's management side (sonic-mgmt_port, sonic-mgmt_vrf, sonic-mgmt_interface,
    sonic-ntp, sonic-syslog and sonic-dns YANG): the management port up in the management VRF with its address and
    gateway, NTP (in that VRF) and its servers, the syslog servers reached through that VRF, the DNS servers and the
    search domain."""
    port, vrf = TARGETS["sonic"].management_port, management.vrf
    tables: Tables = {
        "MGMT_PORT": {port: {"admin_status": "up", "alias": port}},
        "MGMT_VRF_CONFIG": {"vrf_global": {"mgmtVrfEnabled": "true"}},
    }
    if management.address:
        tables["MGMT_INTERFACE"] = {f"{port}|{management.address}": {"gwaddr": management.gateway}}
    if management.ntp:
        tables["NTP"] = {"global": {"vrf": vrf}}
        tables["NTP_SERVER"] = {server: {"association_type": "server", "iburst": "on"} for server in management.ntp}
    if management.syslog:
        tables["SYSLOG_SERVER"] = {server: {"vrf": vrf} for server in management.syslog}
    if management.dns:
        tables["DNS_NAMESERVER"] = {server: {} for server in management.dns}
        if management.domain:
            tables["DNS_OPTIONS"] = {"GLOBAL": {"search": [management.domain]}}
    return tables


class ConfigDbWriter:
    """``config_db_json`` of one rendering: tables as config_db.json, one table per block and one entry per line, so
    a review diff shows entries.

    Entries that share one fields object (every port's QoS map, buffer profile or queue) are encoded once. A table
    with the same entries as the previous switch's, in the same order, is that switch's text again: most QoS and
    buffer tables repeat from switch to switch. (Fields are compared as values: JSON objects are unordered.)
    """

    def __init__(self) -> None:
        self.previous: dict[str, tuple[dict[str, Any], str]] = {}
        self.encode = compact_encoder()

    def __call__(self, tables: Tables) -> str:
        encoded: dict[int, str] = {}  # id of a fields object -> its text, for this switch's tables
        encode, previous = self.encode, self.previous
        blocks = []
        for table, entries in tables.items():
            last = previous.get(table)
            if last is not None and last[0] == entries and list(last[0]) == list(entries):
                blocks.append(last[1])
                continue
            rows = []
            for key, fields in entries.items():
                text = encoded.get(id(fields))
                if text is None:
                    text = encoded[id(fields)] = encode(fields)
                rows.append(f"    {quote(key)}: {text}")
            block = f"  {quote(table)}: {{\n" + ",\n".join(rows) + "\n  }" if rows else f"  {quote(table)}: {{}}"
            blocks.append(block)
            previous[table] = (entries, block)
        return "{\n" + ",\n".join(blocks) + "\n}"


def _ingress_layout(device: DeviceConfig) -> tuple[tuple[str, ...], str, str | None]:
    """The ingress side of the SKU's buffer layout: the ingress profiles of a port (without ``_profile``), the pool
    of the lossy priority group, and the lossless pool's xoff when the SKU shares its headroom (else None)."""
    if device.sku is None or device.sku.shared_headroom is None:
        return ("ingress_lossless", "ingress_lossy"), "ingress_lossy_pool", None
    return ("ingress_lossless",), "ingress_lossless_pool", str(device.sku.shared_headroom[BUFFER_TOPOLOGY[device.role]])


def _port_layout(
    device: DeviceConfig,
    alias_prefix: str | None,
    extra_ports: tuple[ExtraPort, ...],
    autoneg: str | None,
    mtu: str,
    lossless: tuple[int, ...],
    queues: tuple[int, ...],
    runs: tuple[str, ...],
) -> PortLayout:
    """Every port of ``device`` in lane order, then the SKU's ``extra_ports``, with what its entries need from its
    place alone (:class:`PortLayout`)."""
    ports = (*_cage_port_rows(device, alias_prefix, autoneg, mtu, lossless), *_extra_port_rows(extra_ports, mtu))
    names = tuple(port[0] for port in ports)
    return PortLayout(
        ports,
        (*((cage, lane) for cage, lane, _, _, _ in _cage_ports(device)), *(None for _ in extra_ports)),
        names,
        tuple(tuple(f"{name}|{queue}" for queue in queues) for name in names),
        tuple(tuple(f"{name}|{run}" for run in runs) for name in names),
    )


def _cage_port_rows(
    device: DeviceConfig, alias_prefix: str | None, autoneg: str | None, mtu: str, lossless: tuple[int, ...]
) -> Iterator[tuple[Any, ...]]:
    """Each sub-port of each cage of ``device`` in lane order, as :attr:`PortLayout.ports` holds it."""
    for cage, lane, breakout, port, lane_list in _cage_ports(device):
        unused_speed = device.port_speed_gbps // breakout * 1000
        name, designer_name = device.os_port_names["sonic"][port], device.port_names[port]
        alias = (
            f"{alias_prefix}{cage}{'abcdefgh'[lane] if breakout > 1 else ''}"
            if alias_prefix is not None
            else designer_name
        )
        index, subport = str(cage), str(lane + 1 if breakout > 1 else 0)
        unused = {
            "alias": alias,
            "description": designer_name,
            "index": index,
            "subport": subport,
            "lanes": lane_list,
            "speed": str(unused_speed),
            "fec": _fec(unused_speed),
            "mtu": mtu,
            **({"autoneg": autoneg} if autoneg else {}),
            "admin_status": "down",
        }
        pg_keys = (f"{name}|0", *(f"{name}|{pg}" for pg in lossless))
        yield name, designer_name, alias, index, subport, lane_list, pg_keys, unused


def _extra_port_rows(extra_ports: tuple[ExtraPort, ...], mtu: str) -> Iterator[tuple[Any, ...]]:
    """The SKU's extra ports (never cabled), as :attr:`PortLayout.ports` holds them."""
    for extra in extra_ports:
        lanes = ",".join(map(str, extra.lanes))
        unused = {
            "alias": extra.alias,
            "index": str(extra.index),
            "subport": "0",
            "lanes": lanes,
            "speed": str(extra.speed * 1000),
            "fec": _fec(extra.speed * 1000),
            "mtu": mtu,
            "admin_status": "down",
        }
        yield extra.name, None, extra.alias, str(extra.index), "0", lanes, (f"{extra.name}|0",), unused


def _cage_ports(device: DeviceConfig) -> Iterator[tuple[int, int, int, int, str]]:
    """Every port of ``device`` in lane order: its cage, its sub-port in the cage, the cage's breakout, its logical
    port and its lanes (SONiC's ``lanes``, each cage's serdes lanes shared out among its sub-ports)."""
    serdes, first_up = device.serdes_lanes, device.first_uplink_cage
    downlinks = (first_up - 1) * device.breakout
    for cage in range(1, device.physical_ports + 1):
        breakout = device.breakout if cage < first_up else device.uplink_breakout
        lanes = serdes // breakout
        logical = (cage - 1) * breakout if cage < first_up else downlinks + (cage - first_up) * breakout
        for lane in range(breakout):
            first = (cage - 1) * serdes + lane * lanes
            yield cage, lane, breakout, logical + lane, ",".join(map(str, range(first, first + lanes)))


def port_lanes(device: DeviceConfig) -> tuple[tuple[str, str], ...]:
    """Each port of ``device``'s ``config_db.json`` with its lanes, in the PORT table's lane order: the cages'
    ports, then the SKU's extra ports."""
    sonic = device.facts.sonic if device.facts else None
    extra = sonic.extra_ports if sonic and device.sku else ()
    return (
        *((device.os_port_names["sonic"][port], lanes) for _, _, _, port, lanes in _cage_ports(device)),
        *((port.name, ",".join(map(str, port.lanes))) for port in extra),
    )


def _fec(speed_mbps: int) -> str:
    """A port's ``fec``: Reed-Solomon from 100G up."""
    return "rs" if speed_mbps >= 100_000 else "none"


def _ranges(numbers: list[int]) -> tuple[str, ...]:
    """Consecutive runs as SONiC index ranges: [0, 1, 2, 4, 5, 6, 7] -> ("0-2", "4-7")."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return tuple(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)

"""SONiC's view of a device model: every CONFIG_DB table of a switch as data, serialized once as config_db.json.

``config_db(device)`` decides every value; ``templates/sonic/config_db.json.j2`` receives the tables and
writes them with ``config_db_json`` (a user's template override can add or change entries first).

* Ports: SONiC names a port after its first SerDes lane, ``Ethernet{lane}``, counting the lanes of every
  cage in order (SONiC's own ``port_config.ini`` layout): an 8-lane 800G cage run as 2 x 400G gives
  ``Ethernet0`` (lanes 0-3) and ``Ethernet4`` (lanes 4-7). ``index`` is the cage, ``subport`` the
  sub-port from 1 (0 when the cage is not broken out), ``alias`` the designer's port name, the one the
  cabling table uses.
* QoS: one set of named maps shared by every port (the DSCP map also switch-wide, ``PORT_QOS_MAP|global``,
  for ASICs that classify per switch): DSCP to traffic class from the model, traffic class
  ``i`` to queue ``i``, the lossless classes to their own priority group and every other class to
  priority group 0, PFC priority ``i`` to queue ``i``. Queues: the lossless queue gets the ECN
  (WRED) profile and its DWRR weight, the CNP queue strict priority (capped when the profile says so),
  queue 0 (all other traffic) the remaining DWRR weight.
* Buffers (SONiC's traditional buffer model): the shared buffer is estimated from the switching capacity
  (:data:`BUFFER_BYTES_PER_GBPS`); the ingress lossless pool keeps a shared headroom of one lossless
  headroom per port; a lossless priority group reserves its headroom (``xoff``) plus ``xon``; lossless
  egress queues never drop (static threshold of the whole pool).
"""

from __future__ import annotations

from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as quote
from typing import Any

from designer.model import DeviceConfig, Interface

DEVICE_TYPES = {"leaf": "LeafRouter", "spine": "SpineRouter", "super_spine": "UpperSpineRouter"}
"""DEVICE_METADATA ``type`` by role."""
PLATFORMS = {
    ("nvidia-sn5600", 2): ("x86_64-nvidia_sn5600-r0", "Mellanox-SN5600-O128"),
    ("nvidia-sn4700", 1): ("x86_64-mlnx_msn4700-r0", "ACS-MSN4700"),
}
"""(catalog model, breakout) to SONiC (platform, hwsku); other switches keep the platform and hwsku they boot with."""
BUFFER_BYTES_PER_GBPS = 3000
"""Shared packet buffer per Gb/s of switching capacity, about what current ASICs carry (Spectrum-4 and
Tomahawk 5: 160-165 MB for 51.2 Tb/s). Sizes the buffer pools; tune it to your ASIC."""
PFC_WD_POLL_MS = 100
"""How often the PFC watchdog looks at the queues; at most the detection time."""
QUEUES = 8
MAP = "ROCE"
"""Name of every QoS map (DSCP_TO_TC_MAP, TC_TO_QUEUE_MAP, ...)."""
ECN_PROFILE = "ROCE_ECN"
"""Name of the WRED profile that marks ECN on the lossless queue."""


@dataclass(frozen=True, slots=True)
class Port:
    """One SONiC port and its addressed interface: name, SerDes lanes, cage, sub-port, speed in Mb/s."""

    name: str
    alias: str
    description: str
    address: str
    lanes: str
    index: int
    subport: int
    speed_mbps: int
    fec: str
    mtu: int


Tables = dict[str, dict[str, dict[str, Any]]]
"""config_db.json: table -> key -> fields, every value a string as SONiC stores it."""


def view(device: DeviceConfig) -> dict[str, Any]:
    """The variables of ``templates/sonic/``: the tables and their serializer."""
    return {"tables": config_db(device), "config_db_json": config_db_json}


def config_db(device: DeviceConfig) -> Tables:
    """Every CONFIG_DB table of ``device``, tables in name order, entries in port and queue order."""
    qos, bgp = device.qos, device.bgp
    lossless = tuple(sorted(qos.pfc_priorities))
    platform, hwsku = PLATFORMS.get((device.model, device.breakout), ("", ""))
    ports = [_port(device, interface) for interface in device.interfaces]
    pool = device.physical_ports * device.port_speed_gbps * BUFFER_BYTES_PER_GBPS
    shared_headroom = qos.headroom_bytes * len(ports)
    metadata = {"hostname": device.hostname, "type": DEVICE_TYPES[device.role]}
    if platform:
        metadata.update(platform=platform, hwsku=hwsku)
    metadata.update(bgp_asn=str(device.asn), bgp_router_id=device.router_id, docker_routing_config_mode="split",
                    buffer_model="traditional", default_pfcwd_status="enable" if qos.pfc_watchdog else "disable")
    no_fields: dict[str, Any] = {}  # an entry that exists by its key alone (an interface, an address on it)
    lossy_pg, lossless_pg = {"profile": "ingress_lossy_profile"}, {"profile": "ingress_lossless_profile"}
    pgs = (("0", lossy_pg), *((str(pg), lossless_pg) for pg in lossless))
    lossy_queue, lossless_queue = {"profile": "egress_lossy_profile"}, {"profile": "egress_lossless_profile"}
    buffer_queues = sorted([(str(queue), lossless_queue) for queue in lossless] + [
        (run, lossy_queue) for run in _ranges([queue for queue in range(QUEUES) if queue not in lossless])],
        key=lambda row: row[0])
    queues = {queue: {"scheduler": f"DWRR_Q{queue}", **({"wred_profile": ECN_PROFILE}
                                                        if qos.ecn and queue in lossless else {})}
              for queue, _ in qos.dwrr_weights}
    queues[qos.cnp_priority] = {"scheduler": "STRICT_CNP"}
    rate = (device.interfaces[0].speed_gbps * 125_000_000 * qos.cnp_rate_percent // 100
            if qos.cnp_rate_percent and device.interfaces else 0)
    schedulers = {f"DWRR_Q{queue}": {"type": "DWRR", "weight": str(weight)} for queue, weight in qos.dwrr_weights}
    schedulers["STRICT_CNP"] = {"type": "STRICT", **({"meter_type": "bytes", "cir": str(rate), "pir": str(rate)}
                                                     if rate else {})}
    port_qos = {"dscp_to_tc_map": MAP, "tc_to_queue_map": MAP, "tc_to_pg_map": MAP, "pfc_to_queue_map": MAP,
                "pfc_enable": ",".join(map(str, lossless))}
    tables: Tables = {
        "BGP_NEIGHBOR": {neighbor.address: {
            "asn": str(neighbor.remote_asn), "name": neighbor.peer_device, "local_addr": neighbor.local_address,
            "holdtime": str(bgp.hold), "keepalive": str(bgp.keepalive), "admin_status": "up"}
            for neighbor in bgp.neighbors},
        "BUFFER_PG": {f"{port.name}|{pg}": profile for port in ports for pg, profile in pgs},
        "BUFFER_POOL": {
            "egress_lossless_pool": {"type": "egress", "mode": "dynamic", "size": str(pool)},
            "egress_lossy_pool": {"type": "egress", "mode": "dynamic", "size": str(pool - shared_headroom)},
            "ingress_lossless_pool": {"type": "ingress", "mode": "dynamic", "size": str(pool - shared_headroom),
                                      "xoff": str(shared_headroom)}},
        "BUFFER_PROFILE": {
            "egress_lossless_profile": {"pool": "egress_lossless_pool", "size": "0", "static_th": str(pool)},
            "egress_lossy_profile": {"pool": "egress_lossy_pool", "size": str(qos.mtu), "dynamic_th": "3"},
            "ingress_lossless_profile": {"pool": "ingress_lossless_pool",
                                         "size": str(2 * qos.mtu + qos.headroom_bytes), "xon": str(2 * qos.mtu),
                                         "xoff": str(qos.headroom_bytes), "dynamic_th": "0"},
            "ingress_lossy_profile": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "3"}},
        "BUFFER_QUEUE": {f"{port.name}|{run}": profile for port in ports for run, profile in buffer_queues},
        "DEVICE_METADATA": {"localhost": metadata},
        "DSCP_TO_TC_MAP": {MAP: {str(dscp): str(tc) for dscp, tc in enumerate(qos.dscp_to_tc)}},
        "INTERFACE": {key: no_fields for port in ports for key in (port.name, f"{port.name}|{port.address}")},
        "LOOPBACK_INTERFACE": {"Loopback0": no_fields, f"Loopback0|{device.loopback}": no_fields},
        "MAP_PFC_PRIORITY_TO_QUEUE": {MAP: {str(priority): str(priority) for priority in range(QUEUES)}},
        "PORT": {port.name: {
            "alias": port.alias, "description": port.description, "index": str(port.index),
            "subport": str(port.subport), "lanes": port.lanes, "speed": str(port.speed_mbps), "fec": port.fec,
            "mtu": str(port.mtu), "admin_status": "up"} for port in ports},
        "PORT_QOS_MAP": {"global": {"dscp_to_tc_map": MAP}, **{port.name: port_qos for port in ports}},
        "QUEUE": {f"{port.name}|{queue}": queues[queue] for port in ports for queue in sorted(queues)},
        "SCHEDULER": dict(sorted(schedulers.items())),
        "TC_TO_PRIORITY_GROUP_MAP": {MAP: {str(tc): str(tc if tc in lossless else 0) for tc in range(QUEUES)}},
        "TC_TO_QUEUE_MAP": {MAP: {str(tc): str(tc) for tc in range(QUEUES)}},
    }
    if qos.pfc_watchdog:
        watchdog = {"action": qos.pfc_watchdog_action, "detection_time": str(qos.pfc_watchdog_detection_ms),
                    "restoration_time": str(qos.pfc_watchdog_restoration_ms)}
        tables["PFC_WD"] = {"GLOBAL": {"POLL_INTERVAL": str(min(PFC_WD_POLL_MS, qos.pfc_watchdog_detection_ms))},
                            **{port.name: watchdog for port in ports}}
    if qos.ecn:
        thresholds = {f"{color}_{field}": str(value) for color in ("green", "yellow", "red") for field, value in (
            ("min_threshold", qos.ecn_min_bytes), ("max_threshold", qos.ecn_max_bytes),
            ("drop_probability", qos.ecn_probability))}
        tables["WRED_PROFILE"] = {ECN_PROFILE: {"ecn": "ecn_all", "wred_green_enable": "true",
                                                "wred_yellow_enable": "true", "wred_red_enable": "true", **thresholds}}
    return dict(sorted(tables.items()))


def config_db_json(tables: Tables) -> str:
    """``tables`` as config_db.json: one table per block, one entry per line, so a review diff shows entries.

    Entries that share one fields object (every port's QoS map, buffer profile or queue) are encoded once.
    """
    encoded: dict[int, str] = {}

    def compact(fields: dict[str, Any]) -> str:
        text = encoded.get(id(fields))
        if text is None:
            text = encoded[id(fields)] = "{" + ", ".join(
                f"{quote(key)}: {compact(value) if isinstance(value, dict) else quote(value)}"
                for key, value in fields.items()) + "}"
        return text

    blocks = []
    for table, entries in tables.items():
        rows = ",\n".join(f"    {quote(key)}: {compact(fields)}" for key, fields in entries.items())
        blocks.append(f"  {quote(table)}: {{\n{rows}\n  }}" if rows else f"  {quote(table)}: {{}}")
    return "{\n" + ",\n".join(blocks) + "\n}"


def _port(device: DeviceConfig, interface: Interface) -> Port:
    first = (interface.port - 1) * device.serdes_lanes + interface.first_lane
    return Port(f"Ethernet{first}", interface.name, interface.description, interface.address,
                ",".join(str(lane) for lane in range(first, first + interface.lanes)), interface.port,
                interface.lane + 1 if interface.breakout > 1 else 0, interface.speed_gbps * 1000,
                "rs" if interface.speed_gbps >= 100 else "none", interface.mtu)


def _ranges(numbers: list[int]) -> tuple[str, ...]:
    """Consecutive runs as SONiC index ranges: [0, 1, 2, 4, 5, 6, 7] -> ("0-2", "4-7")."""
    runs: list[list[int]] = []
    for number in numbers:
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return tuple(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]) for run in runs)

"""SONiC's view of a device model: what ``templates/sonic/config_db.json.j2`` lays out, every value decided here.

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


@dataclass(frozen=True)
class Queue:
    """A queue's scheduler and, on the lossless queue, its ECN profile."""

    index: int
    scheduler: str
    wred_profile: str


@dataclass(frozen=True)
class Scheduler:
    """A SCHEDULER entry: DWRR with a weight, or STRICT with an optional rate cap in bytes per second."""

    name: str
    type: str
    weight: int
    rate_bytes: int


@dataclass(frozen=True)
class Buffers:
    """Buffer sizes in bytes (SONiC traditional buffer model)."""

    pool: int
    shared_pool: int
    shared_headroom: int
    xon: int
    xoff: int
    lossless_pg: int
    lossy_queue: int


@dataclass(frozen=True)
class SonicConfig:
    """Everything the SONiC template needs for one switch, beside the device model itself."""

    device: DeviceConfig
    type: str
    platform: str
    hwsku: str
    ports: tuple[Port, ...]
    qos_map: str
    ecn_profile: str
    tc_to_queue: tuple[tuple[int, int], ...]
    tc_to_pg: tuple[tuple[int, int], ...]
    buffer_pgs: tuple[tuple[str, str], ...]
    buffer_queues: tuple[tuple[str, str], ...]
    queues: tuple[Queue, ...]
    schedulers: tuple[Scheduler, ...]
    buffers: Buffers
    pfc_enable: str
    pfc_wd_poll_ms: int


def sonic_config(device: DeviceConfig) -> SonicConfig:
    """SONiC names, lanes and QoS/buffer layout for ``device``."""
    qos = device.qos
    lossless = tuple(sorted(qos.pfc_priorities))
    platform, hwsku = PLATFORMS.get((device.model, device.breakout), ("", ""))
    ports = tuple(_port(device, interface) for interface in device.interfaces)
    schedulers = [Scheduler(f"DWRR_Q{queue}", "DWRR", weight, 0) for queue, weight in qos.dwrr_weights]
    rate = (device.interfaces[0].speed_gbps * 125_000_000 * qos.cnp_rate_percent // 100
            if qos.cnp_rate_percent and device.interfaces else 0)
    schedulers.append(Scheduler("STRICT_CNP", "STRICT", 0, rate))
    queues = [Queue(queue, f"DWRR_Q{queue}", ECN_PROFILE if qos.ecn and queue in lossless else "")
              for queue, _ in qos.dwrr_weights]
    queues.append(Queue(qos.cnp_priority, "STRICT_CNP", ""))
    pool = device.physical_ports * device.port_speed_gbps * BUFFER_BYTES_PER_GBPS
    shared_headroom = qos.headroom_bytes * len(ports)
    return SonicConfig(
        device=device, type=DEVICE_TYPES[device.role], platform=platform, hwsku=hwsku, ports=ports,
        qos_map=MAP, ecn_profile=ECN_PROFILE, tc_to_queue=tuple((tc, tc) for tc in range(QUEUES)),
        tc_to_pg=tuple((tc, tc if tc in lossless else 0) for tc in range(QUEUES)),
        buffer_pgs=(("0", "ingress_lossy_profile"), *((str(pg), "ingress_lossless_profile") for pg in lossless)),
        buffer_queues=tuple(sorted([(str(queue), "egress_lossless_profile") for queue in lossless] + [
            (queues, "egress_lossy_profile")
            for queues in _ranges([queue for queue in range(QUEUES) if queue not in lossless])])),
        queues=tuple(sorted(queues, key=lambda queue: queue.index)),
        schedulers=tuple(sorted(schedulers, key=lambda scheduler: scheduler.name)),
        buffers=Buffers(pool=pool, shared_pool=pool - shared_headroom, shared_headroom=shared_headroom,
                        xon=2 * qos.mtu, xoff=qos.headroom_bytes, lossless_pg=2 * qos.mtu + qos.headroom_bytes,
                        lossy_queue=qos.mtu),
        pfc_enable=",".join(map(str, lossless)), pfc_wd_poll_ms=min(PFC_WD_POLL_MS, qos.pfc_watchdog_detection_ms)
    )


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

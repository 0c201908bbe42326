"""Arista EOS's view of a device model: interface names and speeds, the DSCP map lines, units, the watchdog
times and the ECMP hash fields (``ip load-sharing ... fields``). No seed line: no public Arista source documents a
seed command (pyavd's eos_cli_config_gen has no key for ``ip load-sharing``), and a line EOS rejects fails the whole
configuration push, so EOS picks its own seed.

The load-balancing mode (catalog ``targets.eos``, which says on which platforms each runs):

* ``adaptive`` is dynamic load balancing on the ECMP groups, ``ip hardware fib load-balance distribution dynamic``
  (Arista TOI EOS-4.24.2F; pyavd's ``ip_hardware`` template);
* ``cluster`` is cluster load balancing (Arista TOI EOS-4.32.2F; pyavd's ``load_balance`` cluster template): a
  ``load-balance cluster`` block with routed forwarding, flows placed round-robin on the uplinks, and on a leaf the
  server ports as its host port group (CLB learns RoCE flows where they enter from the hosts; a spine keeps its
  hash);
* ``spray`` and ``ecmp`` add nothing: the switch hashes what the NICs send.

A platform whose hash-field line no source gives (catalog ``switches.<model>.hash_line_unknown``: Arista's 7800R,
Jericho) gets no ``ip load-sharing`` line and hashes as EOS does there by default; summary.md says so.

The management side (:mod:`designer.networks.management`, when the design has one) puts ``Management1`` (the
management port of Arista's fixed switches, AVD's default ``mgmt_interface``) in the management VRF with its address,
the default route through the management gateway in that VRF, and the NTP, syslog and DNS servers reached through it.

``designer.verify.pyavd_eos`` reads the same values to build Arista's own rendering of the device."""

from __future__ import annotations

from typing import Any

from designer.backend.model import DeviceConfig, Interface
from designer.catalog import TargetModel
from designer.networks.management import Management
from designer.targets import TARGETS

QOS_PROFILE = "ROCE"
"""The EOS ``qos profile`` (trust, PFC, queues, ECN) every fabric and server port applies as its service profile."""
LOAD_SHARING = "trident"
"""The ``ip load-sharing`` platform keyword of Arista's Broadcom Strata switches (Trident, Tomahawk)."""
LOAD_SHARING_FIELDS = {
    "source-ip": "source-ip",
    "destination-ip": "destination-ip",
    "source-port": "source-port",
    "destination-port": "destination-port",
}
"""``ip load-sharing trident fields ip`` keyword of each hash field; the IP protocol has none (it is not a field of
that command) and the RoCE queue pair neither (the catalog's ``targets.eos`` does not offer it)."""
HOST_PORT_GROUP = "GPU-NICS"
"""The cluster load balancing port group of a leaf's server ports."""
DSCPS_PER_LINE = 8
"""DSCP values per ``qos map dscp`` line; all 64 are mapped so no DSCP keeps EOS's default class."""
SHARED_BLOCKS = {
    "eos/qos.j2": (
        "qos",
        "dscp_map",
        "qos_profile",
        "ecn_min",
        "ecn_max",
        "watchdog_timeout",
        "watchdog_recovery",
        "watchdog_polling",
    ),
    "eos/policy.j2": ("policy",),
}
"""The templates that read only these variables of the view, rendered once per distinct value
(:func:`designer.render.views.shared_blocks`): the QoS maps and profile, and the route policy."""


def threshold(size: int) -> tuple[int, str]:
    """An ECN threshold in EOS's units: whole ``kbytes`` (1,024 bytes) when exact, else ``bytes``."""
    return (size // 1024, "kbytes") if size % 1024 == 0 else (size, "bytes")


def description(interface: Interface) -> str:
    """An interface's or BGP session's description: the peer and its port as the peer names it on EOS
    (``leaf-p0-0 Ethernet1/5``; a server's port by its ``nicN`` name)."""
    return f"{interface.peer_device} {interface.peer_os_port_name('eos')}"


def view(device: DeviceConfig, management: Management | None = None, *, limits: TargetModel) -> dict[str, Any]:
    """The variables of ``templates/eos/``: each interface as (EOS name, EOS speed, description, interface), each
    BGP session as (neighbor, description), and the switch's ``management`` side (None: none to write) with the
    name of its management port; ``limits``: EOS's entry of the design's catalog."""
    qos = device.qos
    by_name = {interface.name: interface for interface in device.interfaces}
    return {
        "device": device,
        "qos": qos,
        "policy": device.bgp.policy,
        "interfaces": [
            (
                device.os_port_name("eos", interface),
                f"{interface.speed_gbps}g-{interface.lanes}",
                description(interface),
                interface,
            )
            for interface in device.interfaces
        ],
        "neighbors": [(neighbor, description(by_name[neighbor.interface])) for neighbor in device.bgp.neighbors],
        "neighbor_ports": device.unnumbered_ports("eos"),
        "dscp_map": [
            (dscps[start : start + DSCPS_PER_LINE], tc)
            for tc, dscps in qos.tc_dscps
            for start in range(0, len(dscps), DSCPS_PER_LINE)
        ],
        "mtu": min(device.mtu, limits.max_mtu),
        "qos_profile": QOS_PROFILE,
        "ecn_min": threshold(qos.ecn_min_bytes),
        "ecn_max": threshold(qos.ecn_max_bytes),
        "watchdog_timeout": seconds(qos.pfc_watchdog_detection_ms),
        "watchdog_recovery": seconds(qos.pfc_watchdog_restoration_ms),
        # EOS wants the poll at most half the shorter of the two times.
        "load_sharing": ()
        if "eos" in device.load_balancing.hash_line_unknown
        else (
            f"ip load-sharing {LOAD_SHARING} fields ip "
            + " ".join(
                LOAD_SHARING_FIELDS[field] for field in device.load_balancing.fields if field in LOAD_SHARING_FIELDS
            ),
        ),
        "watchdog_polling": seconds(min(qos.pfc_watchdog_detection_ms, qos.pfc_watchdog_restoration_ms) / 2),
        "dynamic_load_balancing": device.load_balancing.mode == "adaptive",
        "cluster": cluster(device),
        "management": management,
        "management_port": TARGETS["eos"].management_port,
    }


def cluster(device: DeviceConfig) -> dict[str, str] | None:
    """Cluster load balancing on a leaf (mode ``cluster``): the host port group's name and its server ports as one
    EOS range (``Ethernet1/1,2/1``); None in any other mode and on a switch without server ports."""
    hosts = [device.os_port_name("eos", interface) for interface in device.interfaces if interface.role == "server"]
    if device.load_balancing.mode != "cluster" or not hosts:
        return None
    return {
        "group": HOST_PORT_GROUP,
        "interfaces": "Ethernet" + ",".join(name.removeprefix("Ethernet") for name in hosts),
    }


def seconds(milliseconds: float) -> int | float:
    """A time in seconds as EOS writes it: whole seconds as an integer (``1``), else a decimal (``0.2``)."""
    value = milliseconds / 1000
    return int(value) if value.is_integer() else value

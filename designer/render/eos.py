"""Arista EOS's view of a device model: interface names, the DSCP map lines, units and the watchdog times."""

from __future__ import annotations

from typing import Any

from designer.catalog import catalog
from designer.model import DeviceConfig, Interface

QOS_PROFILE = "ROCE"
"""The EOS ``qos profile`` (trust, PFC, queues, ECN) every fabric and server port applies as its service profile."""
DSCPS_PER_LINE = 8
"""DSCP values per ``qos map dscp`` line; all 64 are mapped so no DSCP keeps EOS's default class."""


def interface_name(interface: Interface) -> str:
    """``Ethernet{port}`` or, on a broken-out port, ``Ethernet{port}/{first lane from 1}`` (EOS numbering)."""
    if interface.breakout == 1:
        return f"Ethernet{interface.port}"
    return f"Ethernet{interface.port}/{interface.first_lane + 1}"


def size(size: int, kilo: str, plain: str) -> str:
    """A byte count in whole KB (1,024 bytes) when exact, else in bytes, with the OS's unit words."""
    return f"{size // 1024}{kilo}" if size % 1024 == 0 else f"{size}{plain}"


def view(device: DeviceConfig) -> dict[str, Any]:
    """The variables of ``templates/eos/``."""
    qos = device.qos
    return {
        "device": device,
        "interfaces": [(interface_name(interface), interface) for interface in device.interfaces],
        "dscp_map": [(dscps[start:start + DSCPS_PER_LINE], tc) for tc, dscps in qos.tc_dscps
                     for start in range(0, len(dscps), DSCPS_PER_LINE)],
        "mtu": min(device.mtu, catalog().targets["eos"].max_mtu),
        "qos_profile": QOS_PROFILE,
        "ecn_min": size(qos.ecn_min_bytes, " kbytes", " bytes"),
        "ecn_max": size(qos.ecn_max_bytes, " kbytes", " bytes"),
        "watchdog_timeout": f"{qos.pfc_watchdog_detection_ms / 1000:g}",
        "watchdog_recovery": f"{qos.pfc_watchdog_restoration_ms / 1000:g}",
        # EOS wants the poll at most half the shorter of the two times.
        "watchdog_polling": f"{min(qos.pfc_watchdog_detection_ms, qos.pfc_watchdog_restoration_ms) / 2000:g}",
    }

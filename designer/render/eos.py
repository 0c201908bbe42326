"""Arista EOS's view of a device model: interface names and speeds, the DSCP map lines, units, the watchdog
times and the ECMP hash fields (``ip load-sharing ... fields``). No seed line: no public Arista source documents a
seed command (pyavd's eos_cli_config_gen has no key for ``ip load-sharing``), and a line EOS rejects fails the whole
configuration push, so EOS picks its own seed.
``designer.verify.avd`` reads the same values to build Arista's own rendering of the device."""

from __future__ import annotations

from typing import Any

from designer.catalog import catalog
from designer.model import DeviceConfig, Interface

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
DSCPS_PER_LINE = 8
"""DSCP values per ``qos map dscp`` line; all 64 are mapped so no DSCP keeps EOS's default class."""


def interface_name(interface: Interface) -> str:
    """The EOS name of ``interface`` (:func:`port_name`)."""
    return port_name(interface.port, interface.breakout, interface.first_lane)


def port_name(cage: int, breakout: int, first_lane: int) -> str:
    """``Ethernet{cage}`` or, on a broken-out cage, ``Ethernet{cage}/{first lane from 1}`` (EOS numbering)."""
    if breakout == 1:
        return f"Ethernet{cage}"
    return f"Ethernet{cage}/{first_lane + 1}"


def threshold(size: int) -> tuple[int, str]:
    """An ECN threshold in EOS's units: whole ``kbytes`` (1,024 bytes) when exact, else ``bytes``."""
    return (size // 1024, "kbytes") if size % 1024 == 0 else (size, "bytes")


def view(device: DeviceConfig) -> dict[str, Any]:
    """The variables of ``templates/eos/``."""
    qos = device.qos
    return {
        "device": device,
        "interfaces": [
            (interface_name(interface), f"{interface.speed_gbps}g-{interface.lanes}", interface)
            for interface in device.interfaces
        ],
        "dscp_map": [
            (dscps[start : start + DSCPS_PER_LINE], tc)
            for tc, dscps in qos.tc_dscps
            for start in range(0, len(dscps), DSCPS_PER_LINE)
        ],
        "mtu": min(device.mtu, catalog().targets["eos"].max_mtu),
        "qos_profile": QOS_PROFILE,
        "ecn_min": threshold(qos.ecn_min_bytes),
        "ecn_max": threshold(qos.ecn_max_bytes),
        "watchdog_timeout": seconds(qos.pfc_watchdog_detection_ms),
        "watchdog_recovery": seconds(qos.pfc_watchdog_restoration_ms),
        # EOS wants the poll at most half the shorter of the two times.
        "load_sharing": (
            f"ip load-sharing {LOAD_SHARING} fields ip "
            + " ".join(
                LOAD_SHARING_FIELDS[field] for field in device.load_balancing.fields if field in LOAD_SHARING_FIELDS
            ),
        ),
        "watchdog_polling": seconds(min(qos.pfc_watchdog_detection_ms, qos.pfc_watchdog_restoration_ms) / 2),
    }


def seconds(milliseconds: float) -> int | float:
    """A time in seconds as EOS writes it: whole seconds as an integer (``1``), else a decimal (``0.2``)."""
    value = milliseconds / 1000
    return int(value) if value.is_integer() else value

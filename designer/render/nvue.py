"""NVIDIA Cumulus NVUE's view of a device model: threshold units and the PFC watchdog polling."""

from __future__ import annotations

from typing import Any

from designer.model import DeviceConfig
from designer.render.eos import size

WATCHDOG_ROBUSTNESS = 2
"""NVUE detects a PFC storm after this many polls; the poll interval is the detection time divided by it."""


def view(device: DeviceConfig) -> dict[str, Any]:
    """The variables of ``templates/nvue/``."""
    qos = device.qos
    return {
        "device": device,
        "ecn_min": size(qos.ecn_min_bytes, "KB", "B"),
        "ecn_max": size(qos.ecn_max_bytes, "KB", "B"),
        "watchdog_polling_ms": qos.pfc_watchdog_detection_ms // WATCHDOG_ROBUSTNESS,
        "watchdog_robustness": WATCHDOG_ROBUSTNESS,
    }

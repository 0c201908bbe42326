"""Prove EOS files against Arista's own templates: pyavd's ``eos_cli_config_gen`` renders the same design.

:func:`structured_config` builds an AVD structured config (the ``eos_cli_config_gen`` schema) from the design's
device model, never from our EOS text; pyavd (Apache-2.0, Arista Networks; ``pip install pyavd``) validates it
and renders the EOS CLI with Arista's templates. :func:`compare` then reads our file: every line must appear
in Arista's rendering under the same parents (the top level, ``interface``, ``qos profile`` and its
``tx-queue``, ``router bgp`` and its ``address-family``, ``router bfd``), in any order. A line Arista's
templates do not produce is a defect, reported with its line number; so is a line of Arista's rendering that
our file lacks (a part of the design left out). Comment (``!``) lines and the final ``end`` are not
configuration. The values come from the EOS view (:mod:`designer.render.eos`), so the proof
is about syntax and placement; free-text keys of the schema (the ``qos map dscp`` lines and ``bgp bestpath``
default) prove only the command that frames them, and the ``ip load-sharing`` lines, which the schema has no key
for, go in as raw CLI (``eos_cli``): for them the proof is only that they are all there, at the top level.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

from designer.errors import PrerequisiteError
from designer.model import DeviceConfig, QueuePolicy
from designer.render import eos

INSTALL = "pip install pyavd"
INDENT = 3
"""Spaces per level in EOS's configuration text."""


def structured_config(device: DeviceConfig) -> dict[str, Any]:
    """The device as an AVD structured config (``eos_cli_config_gen`` keys), from the design's device model."""
    view = eos.view(device)
    qos, bgp = device.qos, device.bgp
    profile: dict[str, Any] = {
        "name": view["qos_profile"],
        "trust": "dscp",
        "priority_flow_control": {
            "enabled": True,
            "priorities": [{"priority": priority, "no_drop": True} for priority in qos.pfc_priorities],
        },
        "tx_queues": [_tx_queue(queue, view, qos.ecn_probability) for queue in qos.queues],
    }
    config: dict[str, Any] = {
        "hostname": device.hostname,
        "service_routing_protocols_model": "multi-agent",
        "ip_routing": True,
        "qos": {
            "map": {"dscp": [f"{' '.join(map(str, dscps))} to traffic-class {tc}" for dscps, tc in view["dscp_map"]]}
        },
        "qos_profiles": [profile],
        "loopback_interfaces": [{"name": "Loopback0", "description": "router-id", "ip_address": device.loopback}],
        "ethernet_interfaces": [
            {
                "name": name,
                "description": interface.description,
                "mtu": view["mtu"],
                "speed": speed,
                "switchport": {"enabled": False},
                "ip_address": interface.address,
                "service_profile": view["qos_profile"],
            }
            for name, speed, interface in view["interfaces"]
        ],
        "router_bgp": {
            "as": str(bgp.asn),
            "router_id": bgp.router_id,
            "bgp": {"default": {"ipv4_unicast": False}},
            "timers": {"keepalive_time": bgp.keepalive, "hold_time": bgp.hold},
            "maximum_paths": {"paths": bgp.maximum_paths, "ecmp": bgp.maximum_paths},
            "bgp_defaults": ["bgp bestpath as-path multipath-relax"] if bgp.multipath_relax else [],
            "neighbors": [
                {
                    "ip_address": neighbor.address,
                    "remote_as": str(neighbor.remote_asn),
                    "description": neighbor.description,
                    "maximum_routes": 0,
                    **({"bfd": True} if bgp.bfd else {}),
                }
                for neighbor in bgp.neighbors
            ],
            "aggregate_addresses": [{"prefix": prefix, "summary_only": True} for prefix in bgp.aggregates],
            "address_family_ipv4": {
                "neighbors": [{"ip_address": neighbor.address, "activate": True} for neighbor in bgp.neighbors],
                "networks": [{"prefix": prefix} for prefix in bgp.networks],
            },
        },
    }
    # eos_cli_config_gen (pyavd 6.4) has no key for ``ip load-sharing``: the lines go in as raw root-level CLI, so
    # the comparison proves their place and that none is missing, not their syntax.
    config["eos_cli"] = "\n".join(view["load_sharing"])
    if view["dynamic_load_balancing"]:
        config["ip_hardware"] = {"fib": {"load_balance_distribution": {"dynamic": {"enabled": True}}}}
    if view["cluster"]:
        config["load_balance"] = {
            "cluster": {
                "forwarding_type": "routed ipv4",
                "load_balance_method_flow_round_robin": True,
                "port_groups": [{"group": view["cluster"]["group"], "interface": view["cluster"]["interfaces"]}],
            }
        }
    if qos.pfc_watchdog:
        profile["priority_flow_control"]["watchdog"] = {"enabled": True}
        config["priority_flow_control"] = {
            "watchdog": {
                "action": qos.pfc_watchdog_action,
                "timeout": view["watchdog_timeout"],
                "recovery_time": view["watchdog_recovery"],
                "polling_interval": view["watchdog_polling"],
            }
        }
    if bgp.bfd:
        config["router_bfd"] = {
            "interval": bgp.bfd.interval_ms,
            "min_rx": bgp.bfd.interval_ms,
            "multiplier": bgp.bfd.multiplier,
        }
    return config


def _tx_queue(queue: QueuePolicy, view: dict[str, Any], probability: int) -> dict[str, Any]:
    """One ``tx-queue`` of the QoS profile."""
    entry: dict[str, Any] = {"id": queue.index, "priority": "priority strict" if queue.strict else "no priority"}
    if not queue.strict:
        entry["bandwidth_percent"] = queue.weight
    if queue.rate_percent:
        entry["shape"] = {"rate": f"{queue.rate_percent} percent"}
    if queue.ecn:
        (low, unit), (high, _) = view["ecn_min"], view["ecn_max"]
        entry["random_detect"] = {
            "ecn": {"threshold": {"units": unit, "min": low, "max": high, "max_probability": probability}}
        }
    return entry


def pyavd() -> ModuleType:
    """The pyavd package, or :class:`PrerequisiteError` saying how to install it."""
    try:
        return importlib.import_module("pyavd")
    except ImportError:
        raise PrerequisiteError(
            f"pyavd is not installed; comparing them with Arista's own rendering needs it: {INSTALL}"
        ) from None


def arista_rendering(device: DeviceConfig) -> str:
    """pyavd's EOS CLI for the device; :class:`PrerequisiteError` without pyavd, ``ValueError`` naming the
    schema violations when the structured config is not valid AVD input (a bug here, not in the design)."""
    arista = pyavd()
    result = arista.validate_structured_config(structured_config(device))
    violations = result.validation_result.violations
    if violations or result.validated_data is None:
        raise ValueError("; ".join(f"{'.'.join(map(str, item.path))}: {item.message}" for item in violations))
    return arista.get_device_config(result.validated_data)


def contexts(text: str) -> Iterator[tuple[int, tuple[str, ...], str]]:
    """Each configuration line of EOS text: its number, its parent lines (outermost first) and the line itself,
    stripped. Comment lines (``!``), blank lines and ``end`` are left out."""
    parents: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("!") or line == "end":
            continue
        depth = (len(raw) - len(raw.lstrip(" "))) // INDENT
        del parents[depth:]
        yield number, tuple(parents), line
        parents.append(line)


def stray_lines(ours: str, arista: str) -> list[tuple[int, str]]:
    """Our lines (number, and the line with its parents) that Arista's rendering lacks in the same place."""
    known = {(parents, line) for _, parents, line in contexts(arista)}
    return [
        (number, " > ".join((*parents, line)))
        for number, parents, line in contexts(ours)
        if (parents, line) not in known
    ]


def differences(ours: str, arista: str) -> list[str]:
    """Every line of ours that Arista's rendering lacks in the same place, then every line of Arista's rendering
    that ours lacks (a part of the design our file leaves out)."""
    return [f"line {number}: {line} is not in Arista's rendering" for number, line in stray_lines(ours, arista)] + [
        f"missing {line} (Arista's rendering has it)" for _, line in stray_lines(arista, ours)
    ]


def compare(device: DeviceConfig, text: str) -> list[str]:
    """How ``text`` (our EOS file for ``device``) differs from Arista's rendering of the same design."""
    return differences(text, arista_rendering(device))

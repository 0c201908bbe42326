"""Prove EOS files against Arista's own templates: pyavd's ``eos_cli_config_gen`` renders the same design.

:func:`structured_config` builds an AVD structured config (the ``eos_cli_config_gen`` schema) from the design's
device model, never from our EOS text; pyavd (Apache-2.0, Arista Networks; ``pip install pyavd``) validates it
and renders the EOS CLI with Arista's templates. :func:`compare` then reads our file: every line must appear
in Arista's rendering under the same parents (the top level, ``interface``, ``qos profile`` and its
``tx-queue``, ``ip prefix-list``, ``route-map``, ``router bgp`` with its peer groups and its ``address-family``,
``router bfd``), in any order. A line Arista's
templates do not produce is a defect, reported with its line number; so is a line of Arista's rendering that
our file lacks (a part of the design left out). Comment (``!``) lines and the final ``end`` are not
configuration. The values come from the EOS view (:mod:`designer.render.eos`), so the proof
is about syntax and placement; free-text keys of the schema (the ``qos map dscp`` lines and ``bgp bestpath``
default) prove only the command that frames them, and the ``ip load-sharing`` lines, which the schema has no key
for, go in as raw CLI (``eos_cli``): for them the proof is only that they are all there, at the top level.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from designer.backend.model import Bgp, DeviceConfig, Qos, QueuePolicy, RoutePolicy
from designer.catalog import TargetModel
from designer.errors import PrerequisiteError
from designer.networks.management import Management
from designer.render import eos

INSTALL = "pip install pyavd"
INDENT = 3
"""Spaces per level in EOS's configuration text."""


def structured_config(
    device: DeviceConfig, limits: TargetModel, management: Management | None = None
) -> dict[str, Any]:
    """The device as an AVD structured config (``eos_cli_config_gen`` keys), from the design's device model, EOS's
    entry of the design's catalog (``limits``) and the switch's management side (None: none)."""
    view = eos.view(device, management, limits=limits)
    qos, bgp = device.qos, device.bgp
    config: dict[str, Any] = {
        "hostname": device.hostname,
        "service_routing_protocols_model": "multi-agent",
        # AVD's underlay_rfc5549 (eos_designs' base ip_routing): IPv4 routes over IPv6 next hops.
        **(
            {"ip_routing_ipv6_interfaces": True, "ipv6_unicast_routing": True}
            if bgp.unnumbered
            else {"ip_routing": True}
        ),
        "qos": {
            "map": {"dscp": [f"{' '.join(map(str, dscps))} to traffic-class {tc}" for dscps, tc in view["dscp_map"]]}
        },
        "qos_profiles": [_qos_profile(qos, view)],
        "loopback_interfaces": [{"name": "Loopback0", "description": "router-id", "ip_address": device.loopback}],
        "ethernet_interfaces": _ethernet_interfaces(view),
        "router_bgp": _router_bgp(bgp, view),
        "prefix_lists": _prefix_lists(bgp.policy),
        "ip_community_lists": [
            {"name": name, "entries": [{"action": "permit", "communities": [community]}]}
            for name, community in bgp.policy.community_lists
        ],
        "route_maps": _route_maps(bgp.policy),
        # eos_cli_config_gen (pyavd 6.4) has no key for ``ip load-sharing``: the lines go in as raw root-level CLI,
        # so the comparison proves their place and that none is missing, not their syntax.
        "eos_cli": "\n".join(view["load_sharing"]),
    }
    if view["dynamic_load_balancing"]:
        config["ip_hardware"] = {"fib": {"load_balance_distribution": {"dynamic": {"enabled": True}}}}
    if view["cluster"]:
        config["load_balance"] = _load_balance(view["cluster"])
    if qos.pfc_watchdog:
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
    if management is not None:
        config |= _management(management, view["management_port"])
    return _as_network_switch(device, config)


def _qos_profile(qos: Qos, view: dict[str, Any]) -> dict[str, Any]:
    """The QoS profile of the fabric ports (``qos_profiles``): DSCP trust, PFC on the lossless priorities (with its
    watchdog where the design runs one) and the transmit queues."""
    pfc: dict[str, Any] = {
        "enabled": True,
        "priorities": [{"priority": priority, "no_drop": True} for priority in qos.pfc_priorities],
    }
    if qos.pfc_watchdog:
        pfc["watchdog"] = {"enabled": True}
    return {
        "name": view["qos_profile"],
        "trust": "dscp",
        "priority_flow_control": pfc,
        "tx_queues": [_tx_queue(queue, view, qos.ecn_probability) for queue in qos.queues],
    }


def _ethernet_interfaces(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Every fabric port, routed, with its address (or IPv6 link-local, unnumbered) and the QoS profile
    (``ethernet_interfaces``)."""
    return [
        {
            "name": name,
            "description": description,
            "mtu": view["mtu"],
            "speed": speed,
            "switchport": {"enabled": False},
            **({"ip_address": interface.address} if interface.address else {"ipv6_enable": True}),
            "service_profile": view["qos_profile"],
        }
        for name, speed, description, interface in view["interfaces"]
    ]


def _router_bgp(bgp: Bgp, view: dict[str, Any]) -> dict[str, Any]:
    """BGP (``router_bgp``): the switch's AS, timers and multipath, its peer groups, its neighbors, aggregates and
    the IPv4 address family."""
    return {
        "as": str(bgp.asn),
        "router_id": bgp.router_id,
        "bgp": {"default": {"ipv4_unicast": False}},
        "timers": {"keepalive_time": bgp.keepalive, "hold_time": bgp.hold},
        "maximum_paths": {"paths": bgp.maximum_paths, "ecmp": bgp.maximum_paths},
        "bgp_defaults": ["bgp bestpath as-path multipath-relax"] if bgp.multipath_relax else [],
        "peer_groups": [
            {
                "name": group.name,
                "maximum_routes": 0,
                "route_map_in": group.import_map,
                "route_map_out": group.export_map,
                **({"bfd": True} if bgp.bfd else {}),
            }
            for group in bgp.peer_groups
        ],
        **_bgp_neighbors(bgp, view),
        "aggregate_addresses": [
            *({"prefix": prefix, "summary_only": True} for prefix in bgp.aggregates),
            *({"prefix": prefix} for prefix in bgp.pool_aggregates),
        ],
        "address_family_ipv4": {
            "peer_groups": [
                {
                    "name": group.name,
                    "activate": True,
                    # AVD's underlay_rfc5549 (structured_config_utils underlay): IPv6 next hops for IPv4.
                    **(
                        {"next_hop": {"address_family_ipv6": {"enabled": True, "originate": True}}}
                        if bgp.unnumbered
                        else {}
                    ),
                }
                for group in bgp.peer_groups
            ],
            "networks": [{"prefix": prefix} for prefix in bgp.networks],
        },
    }


def _bgp_neighbors(bgp: Bgp, view: dict[str, Any]) -> dict[str, Any]:
    """The BGP neighbors: unnumbered, AVD's underlay_rfc5549 (eos_designs' underlay router_bgp), one neighbor
    interface per link (``neighbor_interfaces``); else one neighbor per address (``neighbors``)."""
    if bgp.unnumbered:
        return {
            "neighbor_interfaces": [
                {
                    "name": view["neighbor_ports"][neighbor.interface],
                    "peer_group": neighbor.peer_group,
                    "remote_as": str(neighbor.remote_asn),
                    "description": description,
                }
                for neighbor, description in view["neighbors"]
            ]
        }
    return {
        "neighbors": [
            {
                "ip_address": neighbor.address,
                "peer_group": neighbor.peer_group,
                "remote_as": str(neighbor.remote_asn),
                "description": description,
            }
            for neighbor, description in view["neighbors"]
        ]
    }


def _prefix_lists(policy: RoutePolicy) -> list[dict[str, Any]]:
    """The routing policy's prefix lists (``prefix_lists``), their rules numbered by tens."""
    return [
        {
            "name": prefix_list.name,
            "sequence_numbers": [
                {"sequence": 10 * number, "action": f"permit {rule.prefix}" + (f" le {rule.le}" if rule.le else "")}
                for number, rule in enumerate(prefix_list.rules, 1)
            ],
        }
        for prefix_list in policy.prefix_lists
    ]


def _route_maps(policy: RoutePolicy) -> list[dict[str, Any]]:
    """The routing policy's route maps (``route_maps``), their entries numbered by tens."""
    return [
        {
            "name": route_map.name,
            "sequence_numbers": [
                {
                    "sequence": 10 * number,
                    "type": "permit" if entry.permit else "deny",
                    "match": [
                        *([f"ip address prefix-list {entry.prefix_list}"] if entry.prefix_list else []),
                        *([f"community {entry.community_list}"] if entry.community_list else []),
                    ],
                    **({"set": [f"community {entry.set_community}"]} if entry.set_community else {}),
                }
                for number, entry in enumerate(route_map.entries, 1)
            ],
        }
        for route_map in policy.route_maps
    ]


def _load_balance(cluster: dict[str, Any]) -> dict[str, Any]:
    """The cluster load balancing of the view's ``cluster`` (``load_balance``): its flows round-robin over its
    port group."""
    return {
        "cluster": {
            "forwarding_type": "routed ipv4",
            "load_balance_method_flow_round_robin": True,
            "port_groups": [{"group": cluster["group"], "interface": cluster["interfaces"]}],
        }
    }


def _as_network_switch(device: DeviceConfig, config: dict[str, Any]) -> dict[str, Any]:
    """What a switch of a network beside the backend differs in (a backend switch has none of it): no QoS where it
    runs none, no BFD in a peer group without it (a leaf's servers) and, unnumbered, its servers' sessions by
    address (AVD's ``neighbors``), as a border leaf its core's, beside the switches' by interface
    (``neighbor_interfaces``)."""
    if not device.roce_qos:
        for key in ("qos", "qos_profiles", "priority_flow_control"):
            config.pop(key, None)
        for interface in config["ethernet_interfaces"]:
            interface.pop("service_profile", None)
    bgp, groups = config["router_bgp"], {group.name: group for group in device.bgp.peer_groups}
    for group in bgp["peer_groups"]:
        if not groups[group["name"]].bfd:
            group.pop("bfd", None)
    for group in bgp["address_family_ipv4"]["peer_groups"]:
        if not groups[group["name"]].unnumbered:
            group.pop("next_hop", None)
    servers = [neighbor for neighbor in device.bgp.neighbors if neighbor.address] if device.bgp.unnumbered else []
    if servers:
        descriptions = {interface.name: interface for interface in device.interfaces}
        by_address = {neighbor.peer_group for neighbor in servers}
        bgp["neighbor_interfaces"] = [
            entry for entry in bgp["neighbor_interfaces"] if entry["peer_group"] not in by_address
        ]
        bgp["neighbors"] = [
            {
                "ip_address": neighbor.address,
                "peer_group": neighbor.peer_group,
                "remote_as": str(neighbor.remote_asn),
                "description": eos.description(descriptions[neighbor.interface]),
            }
            for neighbor in servers
        ]
    return config


def _management(management: Management, port: str) -> dict[str, Any]:
    """The management side as eos_cli_config_gen keys (pyavd 6.4's schema): the VRF, the management interface in it
    (with its address), the default route through the management gateway, and the NTP, syslog and DNS servers
    reached through it."""
    vrf = management.vrf
    config: dict[str, Any] = {
        "vrfs": [{"name": vrf}],
        "management_interfaces": [
            {"name": port, "vrf": vrf, **({"ip_address": management.address} if management.address else {})}
        ],
    }
    if management.gateway:
        config["static_routes"] = [{"vrf": vrf, "prefix": "0.0.0.0/0", "next_hop": management.gateway}]
    if management.ntp:
        config["ntp"] = {"vrf": vrf, "servers": [{"name": server} for server in management.ntp]}
    if management.syslog:
        config["logging"] = {"vrfs": [{"name": vrf, "hosts": [{"name": server} for server in management.syslog]}]}
    if management.dns:
        config["ip_name_server"] = {
            "vrfs": [{"name": vrf, "servers": [{"ip_address": server} for server in management.dns]}]
        }
    if management.domain:
        config["dns_domain"] = management.domain
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


def pyavd(purpose: str = "comparing them with Arista's own rendering") -> ModuleType:
    """The pyavd package, or :class:`PrerequisiteError` saying how to install it and what ``purpose`` needs it."""
    try:
        return importlib.import_module("pyavd")
    except ImportError:
        raise PrerequisiteError(f"pyavd is not installed; {purpose} needs it: {INSTALL}") from None


def arista_rendering(device: DeviceConfig, limits: TargetModel, management: Management | None = None) -> str:
    """pyavd's EOS CLI for the device and its management side; :class:`PrerequisiteError` without pyavd,
    ``ValueError`` naming the schema violations when the structured config is not valid AVD input (a bug here, not
    in the design)."""
    arista = pyavd()
    result = arista.validate_structured_config(structured_config(device, limits, management))
    violations = result.validation_result.violations
    if violations or result.validated_data is None:
        raise ValueError("; ".join(f"{'.'.join(map(str, item.path))}: {item.message}" for item in violations))
    text: str = arista.get_device_config(result.validated_data)
    return text


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


def compare(device: DeviceConfig, text: str, limits: TargetModel, management: Management | None = None) -> list[str]:
    """How ``text`` (our EOS file for ``device``, with its ``management`` side) differs from Arista's rendering of
    the same design (``limits``: EOS's entry of its catalog)."""
    return differences(text, arista_rendering(device, limits, management))


INTERFACE_SETTINGS = ("ip", "mtu", "speed", "service-profile")
"""The settings of a routed interface :func:`fabric_of` reads (``ip`` is ``ip address``), in this order."""


def fabric_of(text: str) -> dict[str, Any]:
    """What makes a switch's EOS configuration part of a fabric: its BGP ASN, every routed interface (name:
    address, MTU, speed and QoS service profile) and every BGP neighbor (address: remote ASN). Descriptions,
    order, peer groups, the management interface (out of band, not the fabric's) and other defaults are left
    out."""
    routed: dict[str, dict[str, str]] = {}
    neighbors: dict[str, str] = {}
    asn = None
    for _, parents, line in contexts(text):
        words = line.split()
        if (
            parents
            and parents[0].startswith("interface ")
            and not parents[0].startswith("interface Management")
            and words[0] in INTERFACE_SETTINGS
            and (words[0] != "ip" or words[1] == "address")
        ):
            routed.setdefault(parents[0].removeprefix("interface "), {})[words[0]] = words[-1]
        elif parents and parents[0].startswith("router bgp "):
            asn = parents[0].split()[2]
            if len(parents) == 1 and (match := re.fullmatch(r"neighbor (\S+) remote-as (\S+)", line)):
                neighbors[match[1]] = match[2]
    return {
        "asn": asn,
        "neighbors": neighbors,
        "routed": {
            name: {key: settings[key] for key in INTERFACE_SETTINGS if key in settings}
            for name, settings in routed.items()
            if "ip" in settings
        },
    }


def fabric_differences(ours: Path, arista: Path) -> list[str]:
    """Each switch whose configuration in ``arista`` (pyavd's) is not the same part of the same fabric as its
    file in ``ours`` (designer's ``configs/eos``), with what differs; a switch only one side wrote is one too."""
    found = []
    for name in sorted({path.name for path in ours.glob("*.cfg")} | {path.name for path in arista.glob("*.cfg")}):
        if not (ours / name).is_file() or not (arista / name).is_file():
            found.append(f"{name}: only {'pyavd' if (arista / name).is_file() else 'designer'} wrote it")
            continue
        mine, theirs = fabric_of((ours / name).read_text()), fabric_of((arista / name).read_text())
        found += [
            f"{name}: {part}: designer {_only(mine[part], theirs[part])}, pyavd {_only(theirs[part], mine[part])}"
            for part in mine
            if mine[part] != theirs[part]
        ]
    return found


def _only(these: Any, those: Any) -> Any:
    """What ``these`` has that ``those`` lacks (dictionaries: the differing entries)."""
    if isinstance(these, dict):
        return {key: value for key, value in these.items() if those.get(key) != value}
    return these

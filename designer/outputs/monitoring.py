"""``monitoring/``: Prometheus scrape jobs and alert rules for what the design says must be true, written when the
intent asks for them (``outputs: {monitoring: true}``).

* ``monitoring/prometheus.yml``: a scrape job per exporter kind, a target per device: ``frr-exporter`` (Debian's
  prometheus-frr-exporter, port 9342) on every switch, ``node-exporter`` (prometheus-node-exporter, port 9100) on every
  switch and server. A target is the device's name and the exporter's port, the one placeholder a site fills
  (resolve each name to its management address: DNS, or a relabel rule); its labels are the design's
  (``hostname``, ``role``, ``plane``, ``pod``, ``rail``, ``rack``, ``network``).
* ``monitoring/rules/bgp.yml``: per switch, a rule for each switch it peers with, over the BGP sessions the design
  gives the two (a label matcher on the peers): ``frr_bgp_peer_state`` other than 1 (Established) for the hold time
  fires ``DesignedBgpSessionDown``, naming both ends and their ASNs. Growth adds rules and changes none. The metric
  and its labels (``peer``, ``peer_as``, ``local_as``, ``afi``, ``safi``, ``vrf``; 1 Established, 0 Down, 2
  administratively down) are what Debian's prometheus-frr-exporter 1.1.4 exports, read from it against real FRR in
  the lab.
* ``monitoring/rules/links.yml``: per switch, a rule for each device it is cabled to, over those ports:
  ``node_network_carrier`` 0 (node_exporter's netclass collector: the carrier of ``/sys/class/net/<port>``) fires
  ``DesignedLinkDown``, naming both ends of the cable.
* ``monitoring/rules/scrapes.yml``: a device that stops answering a job's scrape (``up`` 0 for a minute) fires
  ``DeviceNotScraped``.

The rules name the ports and peers as a target whose card says ``monitored`` names them (FRR on Linux, ``swpN``);
the other targets are not monitored yet, and summary.md says so.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from designer.backend.model import DeviceConfig
from designer.design import Design
from designer.targets import TARGETS

FRR_EXPORTER_PORT = 9342
"""prometheus-frr-exporter's default listen port (its ``--web.listen-address``)."""
NODE_EXPORTER_PORT = 9100
"""prometheus-node-exporter's default listen port."""
SCRAPE_DOWN_FOR = "1m"


def monitored_target(design: Design) -> str | None:
    """The design's target whose port names the rules use (a card with ``monitored``), None without one: then no
    monitoring file is written."""
    return next((target for target in design.intent.targets if TARGETS[target].monitored), None)


def monitoring_files_written(design: Design) -> bool:
    """Whether the design has a target whose names the rules use."""
    return monitored_target(design) is not None


def monitoring_files(design: Design) -> dict[str, bytes]:
    """The monitoring files of ``design``, by path; none when no monitored target is rendered."""
    target = monitored_target(design)
    if target is None:
        return {}
    switches = list(design.configs)
    return {
        "monitoring/prometheus.yml": _yaml(_prometheus(design), _HEADER),
        "monitoring/rules/bgp.yml": _yaml({"groups": [_bgp_group(device, target) for device in switches]}),
        "monitoring/rules/links.yml": _yaml(
            {"groups": [group for device in switches if (group := _link_group(device, target))]}
        ),
        "monitoring/rules/scrapes.yml": _yaml({"groups": [_scrape_group()]}),
    }


def not_monitored(design: Design) -> tuple[str, ...]:
    """The design's targets the rules do not name exactly."""
    return tuple(target for target in design.intent.targets if not TARGETS[target].monitored)


_HEADER = (
    "# Scrape jobs of the design's devices. Each target is the device's name and the exporter's port: resolve every\n"
    "# name to its management address (DNS, or a relabel rule) before Prometheus reads this file.\n"
)


def _prometheus(design: Design) -> dict[str, Any]:
    """The scrape configuration: a job per exporter, a static target with the design's labels per device."""
    labels = _device_labels(design)
    switches = [config.hostname for config in design.configs]
    servers = [device.name for device in design.fabric.devices[design.fabric.switch_count :]]
    return {
        "global": {"scrape_interval": "15s", "evaluation_interval": "15s"},
        "rule_files": ["rules/*.yml"],
        "scrape_configs": [
            _job("frr-exporter", switches, FRR_EXPORTER_PORT, labels),
            _job("node-exporter", [*switches, *servers], NODE_EXPORTER_PORT, labels),
        ],
    }


def _job(name: str, hosts: list[str], port: int, labels: dict[str, dict[str, str]]) -> dict[str, Any]:
    return {
        "job_name": name,
        "static_configs": [{"targets": [f"{host}:{port}"], "labels": dict(labels[host])} for host in hosts],
    }


def _device_labels(design: Design) -> dict[str, dict[str, str]]:
    """Each backend device's labels, by name: where the design puts it."""
    racks = design.physical.racks
    labels = {}
    for index, device in enumerate(design.fabric.devices):
        found = {
            "hostname": device.name,
            "role": device.role,
            "plane": device.plane,
            "pod": device.pod,
            "rail": device.rail,
            "rack": racks[design.physical.device_rack[index]].name,
            "network": "backend",
        }
        labels[device.name] = {key: str(value) for key, value in found.items() if value != -1}
    return labels


def _bgp_group(device: DeviceConfig, target: str) -> dict[str, Any]:
    """One switch's rules: one per switch it peers with, over the sessions the design gives them (so growth adds
    rules and changes none)."""
    ports = device.unnumbered_ports(target)
    peers: dict[tuple[str, int], list[str]] = {}
    for neighbor in device.bgp.neighbors:
        peer = neighbor.address or ports.get(neighbor.interface, neighbor.interface)
        peers.setdefault((neighbor.peer_device, neighbor.remote_asn), []).append(peer)
    rules = [
        {
            "alert": "DesignedBgpSessionDown",
            "expr": f'frr_bgp_peer_state{{hostname="{device.hostname}", peer=~`{_either(addresses)}`}} != 1',
            "for": f"{device.bgp.hold}s",
            "labels": {"severity": "critical", "switch": device.hostname, "peer_switch": name},
            "annotations": {
                "summary": (
                    f"{device.hostname} (AS {device.asn}): the designed BGP session to {name} (AS {asn}) over "
                    "{{ $labels.peer }} is not established"
                ),
            },
        }
        for (name, asn), addresses in peers.items()
    ]
    return {"name": device.hostname, "rules": rules}


def _link_group(device: DeviceConfig, target: str) -> dict[str, Any] | None:
    """One switch's rules, one per device it is cabled to, over those cables' ports; None without any."""
    ends: dict[str, list[tuple[str, str]]] = {}
    for interface in device.interfaces:
        far = interface.peer_os_port_names.get(target, interface.peer_interface)
        ends.setdefault(interface.peer_device, []).append((device.os_port_name(target, interface), far))
    if not ends:
        return None
    rules = [
        {
            "alert": "DesignedLinkDown",
            "expr": (
                f'node_network_carrier{{hostname="{device.hostname}", device=~`{_either([p for p, _ in cables])}`}}'
                " == 0"
            ),
            "labels": {"severity": "critical", "switch": device.hostname, "peer_device": peer},
            "annotations": {
                "summary": (
                    f"{device.hostname} {{{{ $labels.device }}}} has no carrier: the designed cable to {peer} "
                    + _mapped("device", {port: far for port, far in cables})
                    + " is down"
                ),
            },
        }
        for peer, cables in ends.items()
    ]
    return {"name": device.hostname, "rules": rules}


def _scrape_group() -> dict[str, Any]:
    return {
        "name": "scrapes",
        "rules": [
            {
                "alert": "DeviceNotScraped",
                "expr": 'up{job=~"frr-exporter|node-exporter"} == 0',
                "for": SCRAPE_DOWN_FOR,
                "labels": {"severity": "critical"},
                "annotations": {"summary": "{{ $labels.hostname }} stopped answering the {{ $labels.job }} scrapes"},
            }
        ],
    }


def _either(values: list[str]) -> str:
    """A regular expression matching exactly the ``values``, for a raw (backquoted) PromQL string: Prometheus
    anchors a label matcher at both ends."""
    return "|".join(re.escape(value) for value in values)


def _mapped(label: str, names: dict[str, str]) -> str:
    """A template expression giving, for the alert's ``label`` value, the design's name of what it leads to (Go
    templates' raw strings hold the patterns; ``reReplaceAll`` is Prometheus's template function)."""
    steps = "".join(f' | reReplaceAll `^{re.escape(value)}$` "{name}"' for value, name in names.items())
    return f"{{{{ $labels.{label}{steps} }}}}"


def _yaml(data: dict[str, Any], header: str = "") -> bytes:
    return (header + yaml.safe_dump(data, sort_keys=False, width=1 << 16, allow_unicode=False)).encode()

"""``monitoring/gnmi/<os>.yaml``: the gNMI subscriptions for the RoCE counters on exactly the design's ports, per
target whose card documents the paths (:class:`designer.targets.GnmiPaths`), in gnmic's configuration format.

A subscription holds the paths of one set of ports (every cabled port of a switch, as the OS names it), each path
of a lossless counter once per PFC priority of the design's QoS profile; switches with the same ports share it, so
a fabric of thousands of switches has a few subscriptions, and each switch is a target bound to its own. A
subscription's name is its port count and a digest of its paths: the same ports give the same name in every build.
Targets are the device's name and the OS's default gNMI port, the placeholder a site resolves (as
``monitoring/prometheus.yml``'s are). A collector (gnmic, telegraf's gNMI input) turns the updates into metrics at
the site; the counters are covered by these subscriptions only, not by the alert rules (summary.md says so).
"""

from __future__ import annotations

import hashlib
from json.encoder import encode_basestring_ascii as quote  # a JSON string, as json.dumps writes it, is YAML

from designer.backend.model import DeviceConfig
from designer.design import Design
from designer.targets import TARGETS, GnmiPaths, per_switch

SAMPLE_INTERVAL = "10s"


def gnmi_files(design: Design) -> dict[str, bytes]:
    """The subscription file of each of the design's targets that has gNMI paths, by path."""
    return {
        f"monitoring/gnmi/{target}.yaml": _subscriptions(design, target, paths).encode()
        for target in per_switch(design.intent.targets)
        if (paths := TARGETS[target].gnmi) is not None
    }


def gnmi_targets(design: Design) -> tuple[str, ...]:
    """The design's targets that get a subscription file."""
    return tuple(target for target in per_switch(design.intent.targets) if TARGETS[target].gnmi is not None)


def _subscriptions(design: Design, target: str, gnmi: GnmiPaths) -> str:
    """The gnmic configuration: one subscription per set of ports, one target per switch."""
    named: dict[tuple[str, ...], str] = {}
    subscriptions: list[str] = []
    targets: list[str] = []
    for device in design.configs:
        ports = tuple(device.os_port_name(target, interface) for interface in device.interfaces)
        if ports not in named:
            paths = _paths(device, ports, gnmi)
            digest = hashlib.sha256("\n".join(paths).encode()).hexdigest()[:10]
            named[ports] = name = f"roce-{len(ports)}-ports-{digest}"
            subscriptions.append(_subscription(name, paths, gnmi.target))
        targets.append(
            f"  {quote(device.hostname)}:\n    address: {quote(f'{device.hostname}:{gnmi.port}')}\n"
            f"    subscriptions: [{named[ports]}]\n"
        )
    return "".join(
        [
            f"# gNMI subscriptions of the RoCE counters of every designed port, for gnmic "
            f"(gnmic --config {target}.yaml subscribe).\n",
            f"# Paths: {gnmi.source}.\n",
            "# Each target is the switch's name and the OS's default gNMI port: resolve every name to its management\n",
            "# address, and give the credentials and TLS settings of the site.\n",
            "subscriptions:\n",
            *subscriptions,
            "targets:\n",
            *targets,
        ]
    )


def _paths(device: DeviceConfig, ports: tuple[str, ...], gnmi: GnmiPaths) -> list[str]:
    """Every path of ``ports``: those naming ``{priority}`` once per PFC priority of the switch's profile."""
    priorities = device.qos.pfc_priorities
    return [
        path.format(port=port, priority=priority)
        for port in ports
        for path in gnmi.paths
        for priority in (priorities if "{priority}" in path else (None,))
    ]


def _subscription(name: str, paths: list[str], target: str) -> str:
    lines = "".join(f"    - {quote(path)}\n" for path in paths)
    prefix_target = f"    target: {target}\n" if target else ""
    return (
        f"  {name}:\n{prefix_target}    mode: stream\n    stream-mode: sample\n"
        f"    sample-interval: {SAMPLE_INTERVAL}\n    paths:\n{lines}"
    )

"""``monitoring/``: Prometheus scrape jobs and alert rules for what the design says must be true, written when the
intent asks for them (``outputs: {monitoring: true}``).

* ``monitoring/prometheus.yml``: a scrape job per exporter kind, a target per device: ``frr-exporter`` (Debian's
  prometheus-frr-exporter, port 9342) on every switch, ``node-exporter`` (prometheus-node-exporter, port 9100) on every
  switch and server. A target is the device's name and the exporter's port, the one placeholder a site fills
  (resolve each name to its management address: DNS, or a relabel rule); its labels are the design's
  (``hostname``, ``role``, ``plane``, ``pod``, ``rail``, ``rack``, ``network``).
* ``monitoring/rules/bgp.yml``: a group per switch holding one rule over the BGP sessions it has with the tier
  above (a label matcher on those peers): ``frr_bgp_peer_state`` other than 1 (Established) for the hold time fires
  ``DesignedBgpSessionDown``, naming both ends and their ASNs. The metric and its labels (``peer``, ``peer_as``,
  ``local_as``, ``afi``, ``safi``, ``vrf``; 1 Established, 0 Down, 2 administratively down) are what Debian's
  prometheus-frr-exporter 1.1.4 exports, read from it against real FRR in the lab.
* ``monitoring/rules/links.yml``: a group per switch and server holding one rule over its cables to the tier above
  (a server's NICs, a leaf's uplinks, ...): ``node_network_carrier`` 0 (node_exporter's netclass collector: the
  carrier of ``/sys/class/net/<port>``) fires ``DesignedLinkDown``, naming both ends of the cable.
* ``monitoring/rules/scrapes.yml``: a device that stops answering a job's scrape (``up`` 0 for a minute) fires
  ``DeviceNotScraped``.
* ``monitoring/rules/lossless.yml``: for a target whose card documents its lossless class's drop counters
  (``lossless_metrics.drops``: Cumulus Linux's OpenTelemetry names), any increase on a designed port fires
  ``LosslessClassDrops``: the QoS profile makes the priority lossless. Written with or without the monitored target,
  as are the gNMI subscriptions (:mod:`designer.outputs.gnmi`); the dashboards (:mod:`designer.outputs.dashboards`)
  come with the scrape jobs.

Each session and cable is watched from its lower end, whose peers above are fixed by the plan: growing inside it
adds groups and changes none, and a rule per device (not per session) keeps a 131,072-GPU design's rules to one
group per device. A device that fails whole is seen by the rules of the devices below it and its own scrapes. The
rules name the ports and peers as a target whose card says ``monitored`` names them (FRR on Linux, ``swpN``); the
other targets are not monitored yet, and summary.md says so. The files are written line by line (YAML single-quoted
scalars), as a design of that size needs.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.backend.hosts import HostConfig
from designer.backend.model import DeviceConfig
from designer.design import Design
from designer.intent.switch_spec import SWITCH_TIERS
from designer.outputs.dashboards import dashboard_files
from designer.outputs.gnmi import gnmi_files
from designer.targets import TARGETS, per_switch

FRR_EXPORTER_PORT = 9342
"""prometheus-frr-exporter's default listen port (its ``--web.listen-address``)."""
NODE_EXPORTER_PORT = 9100
"""prometheus-node-exporter's default listen port."""
SCRAPE_DOWN_FOR = "1m"
REGEX_ESCAPES = str.maketrans({char: "\\" + char for char in "()[]{}?*+-|^$\\.&~# \t\n\r\v\f"})
"""What :func:`re.escape` escapes, as a translation table (``str.translate`` runs it in one pass)."""
SCRAPE_GROUP = (
    "- name: scrapes\n"
    "  rules:\n"
    "  - alert: DeviceNotScraped\n"
    "    expr: 'up{job=~\"frr-exporter|node-exporter\"} == 0'\n"
    f"    for: {SCRAPE_DOWN_FOR}\n"
    "    labels:\n"
    "      severity: critical\n"
    "    annotations:\n"
    "      summary: '{{ $labels.hostname }} stopped answering the {{ $labels.job }} scrapes'\n"
)


def monitored_target(design: Design) -> str | None:
    """The design's target whose port names the rules use (a card with ``monitored``), None without one: then no
    monitoring file is written."""
    return next((target for target in design.intent.targets if TARGETS[target].monitored), None)


def monitoring_files(design: Design) -> dict[str, bytes]:
    """The monitoring files of ``design``, by path: the gNMI subscriptions of its targets that document them, and
    the scrape jobs and rules when a monitored target is rendered."""
    target = monitored_target(design)
    if target is None:
        return {**gnmi_files(design), **_lossless_file(design)}
    tiers = {config.hostname: SWITCH_TIERS.index(config.role) for config in design.configs}
    links = [_link_group(device, target, tiers) for device in design.configs]
    return {
        "monitoring/prometheus.yml": _prometheus(design).encode(),
        "monitoring/rules/bgp.yml": _groups(_bgp_group(device, target, tiers) for device in design.configs),
        "monitoring/rules/links.yml": _groups([*links, *map(_nic_group, design.hosts)]),
        "monitoring/rules/scrapes.yml": _groups([SCRAPE_GROUP]),
        **_lossless_file(design),
        **gnmi_files(design),
        **dashboard_files(design, target),
    }


def lossless_rule_targets(design: Design) -> tuple[str, ...]:
    """The design's targets whose lossless class's drops ``monitoring/rules/lossless.yml`` watches."""
    return tuple(
        target
        for target in per_switch(design.intent.targets)
        if (metrics := TARGETS[target].lossless_metrics) is not None and metrics.drops
    )


def not_monitored(design: Design) -> tuple[str, ...]:
    """The design's targets the rules do not name exactly."""
    return tuple(target for target in design.intent.targets if not TARGETS[target].monitored)


_HEADER = (
    "# Scrape jobs of the design's devices. Each target is the device's name and the exporter's port: resolve every\n"
    "# name to its management address (DNS, or a relabel rule) before Prometheus reads this file.\n"
)


def _prometheus(design: Design) -> str:
    """The scrape configuration: a job per exporter, a static target with the design's labels per device."""
    labels = _device_labels(design)
    switches = [config.hostname for config in design.configs]
    servers = [device.name for device in design.fabric.devices[design.fabric.switch_count :]]
    return "".join(
        [
            _HEADER,
            "global:\n  scrape_interval: 15s\n  evaluation_interval: 15s\n",
            "rule_files:\n- rules/*.yml\n",
            "scrape_configs:\n",
            _job("frr-exporter", switches, FRR_EXPORTER_PORT, labels),
            _job("node-exporter", [*switches, *servers], NODE_EXPORTER_PORT, labels),
        ]
    )


def _job(name: str, hosts: list[str], port: int, labels: dict[str, str]) -> str:
    targets = "".join(f"  - targets: [{_quoted(f'{host}:{port}')}]\n    labels: {labels[host]}\n" for host in hosts)
    return f"- job_name: {name}\n  static_configs:\n{targets}"


def _device_labels(design: Design) -> dict[str, str]:
    """Each backend device's labels (a YAML flow mapping), by name: where the design puts it."""
    racks = design.physical.racks
    labels = {}
    for index, device in enumerate(design.fabric.devices):
        found = (
            ("hostname", device.name),
            ("role", device.role),
            ("plane", device.plane),
            ("pod", device.pod),
            ("rail", device.rail),
            ("rack", racks[design.physical.device_rack[index]].name),
            ("network", "backend"),
        )
        pairs = ", ".join(f"{key}: {_quoted(str(value))}" for key, value in found if value != -1)
        labels[device.name] = f"{{{pairs}}}"
    return labels


def _bgp_group(device: DeviceConfig, target: str, tiers: dict[str, int]) -> str:
    """The switch's rule over its sessions with the tier above (empty without any: the top tier's are watched from
    below)."""
    ports = device.unnumbered_ports(target)
    tier = tiers[device.hostname]
    peers: dict[str, list[str]] = {}
    named: dict[str, str] = {}
    for neighbor in device.bgp.neighbors:
        if tiers.get(neighbor.peer_device, -1) > tier:
            peer = neighbor.address or ports.get(neighbor.interface, neighbor.interface)
            peers.setdefault(neighbor.peer_device, []).append(peer.translate(REGEX_ESCAPES))
            named[neighbor.peer_device] = f"{neighbor.peer_device} (AS {neighbor.remote_asn})"
    if not peers:
        return ""
    every = [peer for addresses in peers.values() for peer in addresses]
    name = device.hostname
    return _rule(
        name,
        "DesignedBgpSessionDown",
        f'frr_bgp_peer_state{{hostname="{name}", peer=~`{_either(every)}`}} != 1',
        f"{device.bgp.hold}s",
        ("switch", name, "peer_switch", _mapped("peer", peers, dict(zip(peers, peers, strict=True)))),
        f"{name} (AS {device.asn}): the designed BGP session to {_mapped('peer', peers, named)} over "
        "{{ $labels.peer }} is not established",
    )


def _link_group(device: DeviceConfig, target: str, tiers: dict[str, int]) -> str:
    """The switch's rule over its cables to the tier above (empty without any)."""
    tier = tiers[device.hostname]
    ports: dict[str, list[str]] = {}
    far: dict[str, str] = {}
    for interface in device.interfaces:
        if tiers.get(interface.peer_device, -1) > tier:
            port = device.os_port_name(target, interface).translate(REGEX_ESCAPES)
            ports.setdefault(interface.peer_device, []).append(port)
            far[port] = f"{interface.peer_device} {interface.peer_os_port_names.get(target, interface.peer_interface)}"
    return _carrier_rule(device.hostname, "switch", ports, far)


def _nic_group(host: HostConfig) -> str:
    """The server's rule over its backend NICs' cables to their leaves (with hwplb, every plane's)."""
    ports: dict[str, list[str]] = {}
    far: dict[str, str] = {}
    for nic in host.nics:
        name = nic.name.translate(REGEX_ESCAPES)
        ports.setdefault(" and ".join(leaf for leaf, _ in nic.leaves), []).append(name)
        far[name] = " and ".join(f"{leaf} {port}" for leaf, port in nic.leaves)
    return _carrier_rule(host.hostname, "server", ports, far)


def _carrier_rule(name: str, kind: str, ports: dict[str, list[str]], far: dict[str, str]) -> str:
    """``DesignedLinkDown`` on the ``ports`` of device ``name`` (a ``kind``; each port as a regular expression), by
    the device each leads to; ``far`` names each cable's other end."""
    if not ports:
        return ""
    every = [port for group in ports.values() for port in group]
    return _rule(
        name,
        "DesignedLinkDown",
        f'node_network_carrier{{hostname="{name}", device=~`{_either(every)}`}} == 0',
        "",
        (kind, name, "peer_device", _mapped("device", ports, dict(zip(ports, ports, strict=True)))),
        f"{name} {{{{ $labels.device }}}} has no carrier: the designed cable to "
        f"{_mapped('device', {port: [port] for port in far}, far)} is down",
    )


def _rule(group: str, alert: str, expr: str, hold: str, labels: tuple[str, str, str, str], summary: str) -> str:
    """A group of one alerting rule, as YAML lines."""
    near, name, peer, peer_name = labels
    return (
        f"- name: {_quoted(group)}\n  rules:\n  - alert: {alert}\n    expr: {_quoted(expr)}\n"
        + (f"    for: {hold}\n" if hold else "")
        + f"    labels:\n      severity: critical\n      {near}: {_quoted(name)}\n      {peer}: {_quoted(peer_name)}\n"
        f"    annotations:\n      summary: {_quoted(summary)}\n"
    )


def _groups(groups: Iterable[str]) -> bytes:
    """A rule file of the ``groups`` (YAML lines each; the empty ones left out)."""
    text = "".join(groups)
    return (f"groups:\n{text}" if text else "groups: []\n").encode()


def _lossless_file(design: Design) -> dict[str, bytes]:
    """``monitoring/rules/lossless.yml`` when a target of the design documents the counters of the lossless class's
    drops (its card's ``lossless_metrics.drops``): a group per such target, a rule per counter on the ports the
    design gives its switches. The threshold is the QoS profile's: its lossless priority drops nothing."""
    if not design.configs:
        return {}
    qos = design.configs[0].qos
    groups = []
    for target in lossless_rule_targets(design):
        metrics = TARGETS[target].lossless_metrics
        assert metrics is not None
        ports = dict.fromkeys(
            device.os_port_name(target, interface).translate(REGEX_ESCAPES)
            for device in design.configs
            if device.roce_qos
            for interface in device.interfaces
        )
        names = dict(metrics.names)
        rules = "".join(
            f"  - alert: LosslessClassDrops\n"
            f"    expr: {_quoted(f'increase({metric}{{interface=~`{_either(list(ports))}`}}[1m]) > 0')}\n"
            f"    labels:\n      severity: critical\n      os: {target}\n      counter: {metric}\n"
            f"    annotations:\n      summary: {_quoted(_drop_summary(names[metric], qos.lossless_priority))}\n"
            for metric in metrics.drops
        )
        groups.append(f"- name: {_quoted(f'lossless-{target}')}\n  rules:\n{rules}")
    return {"monitoring/rules/lossless.yml": _groups(groups)} if groups else {}


def _drop_summary(counter: str, priority: int) -> str:
    return (
        "{{ $labels.interface }} ({{ $labels.instance }}) dropped packets of the lossless class in the last minute "
        f"({counter[0].lower()}{counter[1:]}): the QoS profile makes priority {priority} lossless, it must drop none"
    )


def _quoted(text: str) -> str:
    """``text`` as a YAML single-quoted scalar."""
    return "'" + text.replace("'", "''") + "'"


def _either(values: list[str]) -> str:
    """A regular expression matching exactly one of ``values`` (each escaped with :data:`REGEX_ESCAPES`), for a raw
    (backquoted) PromQL string: Prometheus anchors a label matcher at both ends."""
    return "|".join(values)


def _mapped(label: str, groups: dict[str, list[str]], names: dict[str, str]) -> str:
    """A template expression giving, for the alert's ``label`` value, ``names`` of the group of ``groups`` it is in
    (Go templates' raw strings hold the patterns; ``reReplaceAll`` is Prometheus's template function)."""
    steps = "".join(f' | reReplaceAll `^(?:{_either(values)})$` "{names[key]}"' for key, values in groups.items())
    return f"{{{{ $labels.{label}{steps} }}}}"

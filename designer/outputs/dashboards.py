"""``monitoring/dashboards/*.json``: Grafana dashboards of the design, built with Grafana's own Foundation SDK
(PyPI ``grafana-foundation-sdk``), over the metrics ``monitoring/prometheus.yml`` scrapes.

* ``fabric.json``: per tier and plane, the BGP sessions established and the ports with carrier, each beside the
  number the design has (red below it), and the traffic each tier sends.
* ``rails.json``: per rail, the leaves' ports with carrier beside the design's count, and each rail's traffic.
* ``lossless.json``: the lossless class, on the metric names the design's OSes document (their cards'
  ``lossless_metrics``: Cumulus Linux's OpenTelemetry export names PFC pauses per switch priority, ECN marks and
  no-buffer discards per traffic class, priority-group buffer discards); without any, a panel says where the
  counters are (``monitoring/gnmi/``).

Every panel reads the Prometheus a dashboard variable names (``datasource``), the one thing a site picks. The
metric names are those the rules use (``frr_bgp_peer_state``, ``node_network_carrier``) and node_exporter's netdev
collector's ``node_network_transmit_bytes_total``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from grafana_foundation_sdk.builders.dashboard import Dashboard, DatasourceVariable, Row, ThresholdsConfig
from grafana_foundation_sdk.builders.prometheus import Dataquery
from grafana_foundation_sdk.builders.stat import Panel as Stat
from grafana_foundation_sdk.builders.text import Panel as Text
from grafana_foundation_sdk.builders.timeseries import Panel as Timeseries
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.dashboard import DataSourceRef, Threshold, ThresholdsMode

from designer.design import Design
from designer.intent.switch_spec import SWITCH_TIERS
from designer.targets import TARGETS, per_switch

SOURCE = DataSourceRef(type_val="prometheus", uid="${datasource}")


def dashboard_files(design: Design, target: str) -> dict[str, bytes]:
    """The dashboards of ``design``, by path, for the ports and peers as ``target`` names them."""
    return {
        f"monitoring/dashboards/{name}.json": _json(dashboard)
        for name, dashboard in (
            ("fabric", _fabric(design, target)),
            ("rails", _rails(design, target)),
            ("lossless", _lossless(design)),
        )
    }


def _fabric(design: Design, target: str) -> Dashboard:
    """Sessions and carriers per tier and plane against the design's counts; traffic per tier and plane."""
    sessions: Counter[tuple[str, int]] = Counter()
    ports: Counter[tuple[str, int]] = Counter()
    for config in design.configs:
        sessions[config.role, config.plane] += len(config.bgp.neighbors)
        ports[config.role, config.plane] += len(config.interfaces)
    board = _board(design, "fabric", "the fabric by tier and plane")
    board = board.with_row(Row("BGP sessions established, of the design's"))
    for (role, plane), count in sorted(sessions.items(), key=_tier_order):
        board = board.with_panel(
            _against(f"{role}, plane {plane}", f'frr_bgp_peer_state{{role="{role}", plane="{plane}"}} == 1', count)
        )
    board = board.with_row(Row("Ports with carrier, of the design's cabled ports"))
    port = _port_matcher(target)
    for (role, plane), count in sorted(ports.items(), key=_tier_order):
        board = board.with_panel(
            _against(
                f"{role}, plane {plane}",
                f'node_network_carrier{{role="{role}", plane="{plane}", device=~"{port}"}} == 1',
                count,
            )
        )
    return board.with_row(Row("Traffic")).with_panel(
        _traffic(
            "Sent per tier and plane",
            f'sum by (role, plane) (rate(node_network_transmit_bytes_total{{role!="server", device=~"{port}"}}'
            "[$__rate_interval])) * 8",
            "{{role}} plane {{plane}}",
        )
    )


def _rails(design: Design, target: str) -> Dashboard:
    """The leaves' carriers per rail against the design's counts; traffic per rail."""
    ports: Counter[int] = Counter()
    for config, device in zip(design.configs, design.fabric.devices[: design.fabric.switch_count], strict=True):
        if config.role == "leaf" and device.rail != -1:
            ports[device.rail] += len(config.interfaces)
    port = _port_matcher(target)
    board = _board(design, "rails", "per rail").with_row(Row("Leaf ports with carrier, of the design's"))
    for rail, count in sorted(ports.items()):
        board = board.with_panel(
            _against(
                f"rail {rail}", f'node_network_carrier{{role="leaf", rail="{rail}", device=~"{port}"}} == 1', count
            )
        )
    return board.with_row(Row("Traffic")).with_panel(
        _traffic(
            "Sent by each rail's leaves",
            f'sum by (rail) (rate(node_network_transmit_bytes_total{{role="leaf", device=~"{port}"}}'
            "[$__rate_interval])) * 8",
            "rail {{rail}}",
        )
    )


def _lossless(design: Design) -> Dashboard:
    """The lossless class's counters where their names are documented (NVUE's OpenTelemetry export)."""
    board = _board(design, "lossless", "the lossless class")
    qos = design.configs[0].qos if design.configs else None
    profile = (
        f"The design's profile: RoCE on priority {qos.lossless_priority}, PFC on {list(qos.pfc_priorities)}, "
        f"ECN from {qos.ecn_min} to {qos.ecn_max} {qos.ecn_unit}, "
        f"PFC watchdog after {qos.pfc_watchdog_detection_ms} ms."
        if qos
        else ""
    )
    documented = [
        (target, metrics)
        for target in per_switch(design.intent.targets)
        if (metrics := TARGETS[target].lossless_metrics) is not None
    ]
    if not documented:
        return board.with_panel(
            Text()
            .title("Where the lossless counters are")
            .content(
                "No metric names of these counters are documented for the design's OSes: collect them with the "
                f"subscriptions of `monitoring/gnmi/`. {profile}"
            )
        )
    for target, metrics in documented:
        for metric, title in metrics.names:
            board = board.with_panel(
                _traffic(
                    f"{title} ({target})",
                    f"sum by (interface) (rate({metric}[$__rate_interval]))",
                    "{{interface}}",
                    "pps",
                ).description(f"{metrics.source}: {metric}. {profile}")
            )
    return board


def _board(design: Design, kind: str, about: str) -> Dashboard:
    """An empty dashboard of ``design`` with the Prometheus variable; its uid comes from the design's name."""
    uid = hashlib.sha256(f"{design.intent.name}/{kind}".encode()).hexdigest()[:16]
    return (
        Dashboard(f"{design.intent.name}: {about}")
        .uid(uid)
        .tags(["designer", design.intent.name])
        .time("now-1h", "now")
        .refresh("30s")
        .with_variable(DatasourceVariable("datasource").label("Prometheus").type("prometheus"))
    )


def _against(title: str, expr: str, designed: int) -> Stat:
    """A count of the series ``expr`` selects, red below the ``designed`` number and green at it."""
    return (
        Stat()
        .title(f"{title}: {designed} designed")
        .datasource(SOURCE)
        .with_target(Dataquery().expr(f"count({expr}) or vector(0)").instant())
        .thresholds(
            ThresholdsConfig()
            .mode(ThresholdsMode.ABSOLUTE)
            .steps([Threshold(value=None, color="red"), Threshold(value=float(designed), color="green")])
        )
    )


def _traffic(title: str, expr: str, legend: str, unit: str = "bps") -> Timeseries:
    return (
        Timeseries()
        .title(title)
        .datasource(SOURCE)
        .unit(unit)
        .with_target(Dataquery().expr(expr).legend_format(legend))
    )


def _port_matcher(target: str) -> str:
    """A PromQL regular expression of the ports ``target`` names (its lab kind's pattern, double-escaped for a
    double-quoted PromQL string)."""
    lab = TARGETS[target].lab
    return (lab.ports if lab else ".+").replace("\\", "\\\\")


def _tier_order(item: tuple[tuple[str, int], int]) -> tuple[int, int]:
    (role, plane), _ = item
    return (SWITCH_TIERS.index(role), plane)


def _json(dashboard: Dashboard) -> bytes:
    return (json.dumps(dashboard.build(), cls=JSONEncoder, sort_keys=True, indent=2) + "\n").encode()

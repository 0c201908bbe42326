"""NVIDIA Cumulus Linux NVUE's view of a device model: the release's key forms, port breakouts, the PFC
watchdog's polls and the CNP shaper (facts from NVIDIA's documentation, ``tests/vendor/nvue/``).

* Cumulus Linux 5.15 renamed the boolean leaves: ``enable: on`` became ``state: enabled`` and plain
  ``on``/``off`` became ``enabled``/``disabled`` (BGP, the address family, aggregates, path selection, RoCE),
  ``interface ... ip address`` became ``ipv4 address``, and per-neighbour BFD timers gave way to a
  ``router bfd profile``. QoS leaves written ``enable``/``disable`` (PFC, ECN, the interface watchdog) did not
  change. :func:`forms` gives the spelling of the release chosen in the intent.
* A port run as several links is configured on its parent, ``swpN``: ``link breakout <n>x`` with the lanes per
  link; the links themselves are ``swpNs0`` ... ``swpNs<n-1>``.
* NVUE's watchdog has no detection time: it polls every 100-5000 ms and declares a storm after 1-1000 polls,
  and restores PFC after a poll without pause frames. :func:`watchdog_polls` picks the pair whose product is
  the detection time, with the poll closest to the restoration time.
* ECN thresholds and shaper rates are plain integers (bytes; kbit/s).
* The management side (:mod:`designer.networks.management`): ``eth0`` with its address and gateway in the
  management VRF (``interface eth0 ip vrf``, from 5.15 ``interface eth0 vrf``), and the NTP, syslog and DNS servers,
  which moved from ``service <name> <vrf>`` to ``system <name>``: syslog in 5.13, NTP and DNS in 5.15 (NVIDIA's
  NVUE command reference; the releases' schemas in nvueschema agree).
* Load balancing: ``system forwarding ecmp-hash <field>`` turns each hash field on (the others keep NVUE's
  defaults), ``system forwarding hash-seed`` takes the switch's seed (0-4294967295), and dynamic load balancing
  is adaptive routing: ``router adaptive-routing`` and the same leaf on every fabric port of the ECMP groups.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, NamedTuple, cast

from designer.backend.model import DeviceConfig
from designer.catalog import TargetModel
from designer.networks.management import Management
from designer.targets import TARGETS

STATE_RELEASE = (5, 15)
"""First Cumulus Linux release that writes ``state: enabled``, ``ipv4 address`` and BFD profiles."""
SYSTEM_SYSLOG_RELEASE = (5, 13)
"""First Cumulus Linux release that keeps the syslog servers under ``system syslog server`` (each naming its VRF)."""
SYSTEM_NTP_DNS_RELEASE = (5, 15)
"""First Cumulus Linux release that keeps NTP (``system ntp server``, ``system ntp vrf``) and DNS (``system dns
server``, each naming its VRF; ``system dns search``) under ``system``."""
BFD_PROFILE = "fabric"
"""The BFD profile every fabric session uses on releases with profiles."""
CNP_SHAPER = "cnp-cap"
"""The egress shaper profile that caps the CNP queue when the QoS profile asks for it."""
KBPS_PER_GBPS = 1_000_000
ECMP_HASH_FIELDS = {
    "source-ip": "source-ip",
    "destination-ip": "destination-ip",
    "ip-protocol": "ip-protocol",
    "source-port": "source-port",
    "destination-port": "destination-port",
}
"""NVUE's ``system forwarding ecmp-hash`` leaf of each hash field (tests/vendor/nvue/paths-5.x.csv); NVUE has
none for the RoCE queue pair, which the catalog's ``targets.nvue`` therefore does not offer."""
SHARED_BLOCKS = {
    "nvue/qos.j2": ("qos", "forms", "cnp_shapers", "watchdog_polling_ms", "watchdog_robustness"),
    "nvue/policy.j2": ("policy",),
}
"""The templates that read only these variables of the view, rendered once per distinct value
(:func:`designer.render.views.shared_blocks`): the QoS maps and policies, and the route policy."""


class ManagedService(NamedTuple):
    """One service of the management side as a release writes it: its name (``ntp``, ``syslog``, ``dns``), its
    servers, the VRF each server names (empty: none), the VRF the service runs in or is keyed by (empty: none), and
    its search domains."""

    name: str
    servers: tuple[str, ...]
    server_vrf: str
    vrf: str
    search: tuple[str, ...]


@dataclass(frozen=True)
class Forms:
    """How one Cumulus Linux release spells what the templates write."""

    state: str
    """The key that turns a feature on: ``enable`` (up to 5.14) or ``state`` (5.15 and later)."""
    on: str
    off: str
    ip: str
    """The interface's IPv4 container: ``ip`` or ``ipv4``."""
    bfd_profile: str | None
    """The BFD profile the sessions name (5.15 and later), or None for per-neighbour timers."""


def release_number(release: str) -> tuple[int, int]:
    """``"5.10"`` as ``(5, 10)``, to compare releases."""
    major, minor = release.split(".")
    return int(major), int(minor)


def forms(release: str) -> Forms:
    """The key forms of Cumulus Linux ``release``."""
    if release_number(release) >= STATE_RELEASE:
        return Forms("state", "enabled", "disabled", "ipv4", BFD_PROFILE)
    return Forms("enable", "on", "off", "ip", None)


@cache
def watchdog_polls(
    detection_ms: int, restoration_ms: int, poll_ms: tuple[int, int], polls: tuple[int, int]
) -> tuple[int, int]:
    """NVUE's polling interval (ms) and robustness (polls) for a detection time: their product is the detection
    time, each within NVUE's ranges (``poll_ms``, ``polls``: its catalog entry's), the poll as close to the
    restoration time as that allows (the longer of two equally close). Intent validation refuses detection times
    below the shortest poll."""
    (shortest, longest), (fewest, most) = poll_ms, polls
    pairs = [
        (detection_ms // polls, polls)
        for polls in range(fewest, most + 1)
        if detection_ms % polls == 0 and shortest <= detection_ms // polls <= longest
    ]
    return min(pairs, key=lambda pair: (abs(pair[0] - restoration_ms), -pair[0]))


def breakouts(device: DeviceConfig) -> list[tuple[str, str, int]]:
    """Each broken-out parent port the device uses: its name, the NVUE mode (``2x``) and the lanes per link."""
    parents: dict[int, tuple[str, str, int]] = {}
    for interface in device.interfaces:
        if interface.breakout > 1 and interface.port not in parents:
            parents[interface.port] = (f"swp{interface.port}", f"{interface.breakout}x", interface.lanes)
    return [parents[port] for port in sorted(parents)]


def cnp_shapers(device: DeviceConfig) -> dict[int, tuple[str, int, int]]:
    """The egress shaper profile capping the CNP queue for each port speed the device runs: its name (one speed:
    ``cnp-cap``; several: ``cnp-cap-400g`` and so on), the port's rate and the cap, in kb/s."""
    speeds = sorted({interface.speed_gbps for interface in device.interfaces})
    percent = device.qos.cnp_rate_percent or 0
    return {
        speed: (
            CNP_SHAPER if len(speeds) == 1 else f"{CNP_SHAPER}-{speed}g",
            speed * KBPS_PER_GBPS,
            speed * KBPS_PER_GBPS * percent // 100,
        )
        for speed in speeds
    }


def view(
    device: DeviceConfig,
    release: str | None = None,
    management: Management | None = None,
    *,
    limits: TargetModel,
) -> dict[str, Any]:
    """The variables of ``templates/nvue/`` for Cumulus Linux ``release`` (default: the catalog's) and the switch's
    ``management`` side (None: none to write); ``limits``: NVUE's entry of the design's catalog."""
    if limits.pfc_watchdog_poll_ms is None or limits.pfc_watchdog_polls is None:
        raise ValueError("the catalog's nvue target needs pfc_watchdog_poll_ms and pfc_watchdog_polls")
    release = release or cast(str, limits.default_release)  # the shipped catalog gives one
    qos = device.qos
    polling, robustness = (
        watchdog_polls(
            qos.pfc_watchdog_detection_ms,
            qos.pfc_watchdog_restoration_ms,
            limits.pfc_watchdog_poll_ms,
            limits.pfc_watchdog_polls,
        )
        if qos.pfc_watchdog
        else (None, None)
    )
    shapers = cnp_shapers(device) if qos.cnp_rate_percent else {}
    return {
        "device": device,
        "qos": qos,
        "policy": device.bgp.policy,
        "release": release,
        "forms": forms(release),
        "breakouts": breakouts(device),
        "interfaces": [(device.os_port_name("nvue", interface), interface) for interface in device.interfaces],
        "neighbor_ports": device.unnumbered_ports("nvue"),
        "watchdog_polling_ms": polling,
        "watchdog_robustness": robustness,
        "cnp_shapers": shapers,
        "ecmp_hash": [ECMP_HASH_FIELDS[field] for field in device.load_balancing.fields],
        "hash_seed": device.load_balancing.seed,
        "adaptive_routing": device.load_balancing.mode == "adaptive",
        "management": management,
        "management_port": TARGETS["nvue"].management_port,
        "management_vrf_in_ip": release_number(release) < STATE_RELEASE,
        **management_services(management, release),
    }


def management_services(management: Management | None, release: str) -> dict[str, list[ManagedService]]:
    """The NTP, syslog and DNS servers of the management side in the places ``release`` keeps them (see the module
    notes): ``system_services`` under ``system``, ``vrf_services`` under ``service``, each with servers only."""
    found: dict[str, list[ManagedService]] = {"system_services": [], "vrf_services": []}
    if management is None:
        return found
    number, vrf = release_number(release), management.vrf
    search = (management.domain,) if management.domain else ()
    for name, servers, moved, server_vrf, service_vrf, domains in (
        ("ntp", management.ntp, SYSTEM_NTP_DNS_RELEASE, "", vrf, ()),
        ("syslog", management.syslog, SYSTEM_SYSLOG_RELEASE, vrf, "", ()),
        ("dns", management.dns, SYSTEM_NTP_DNS_RELEASE, vrf, "", search),
    ):
        if servers and number >= moved:
            found["system_services"].append(ManagedService(name, servers, server_vrf, service_vrf, domains))
        elif servers:
            found["vrf_services"].append(ManagedService(name, servers, "", vrf, domains))
    return found

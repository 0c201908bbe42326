"""The frontend network in the lab: its leaves, border leaves and spines as FRR routers beside the backend's, and
its GPU servers, where they are dual-homed with ``bgp``, as routers of their own running the ``frr.conf`` the build
wrote for them (``servers/<server>/frr.conf``: routing on the host).

Everything comes from ``design.json``'s ``network_devices`` and ``network_links`` (checked by
:mod:`designer.built`). The frontend switches' configurations are the lab's own, made here from those rows as the
design describes each switch: its loopback, its /31s, a session to every cabled peer with the peer's ASN, its
loopback and (a leaf) its server block announced, ECMP across equal AS-path lengths. The servers' configurations are
the build's, unchanged; their ports get the /31 addresses the design gives them (what their ``networks.yaml``
sets), pushed before their own file as lab-only lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from designer.catalog import catalog

NETWORK = "frontend"
TIERS = {"server": -1, "leaf": 0, "border_leaf": 0, "spine": 1}
"""The frontend's devices the lab runs, by their design.json role, with their tier: a server running BGP sits
below the leaves, a border leaf beside them."""
LAB_TIERS = ("server_leaf", "leaf_spine")
"""The frontend's links the lab wires."""
ROLE_PREFIX = "frontend_"
"""A frontend router's role in the lab is its design role after this (``frontend_leaf``), apart from the backend's."""
SLICE_GROUPS = 2
"""A slice keeps the frontend's border leaves, its spines and its first leaf groups with their servers."""


def host_config(server: str) -> str:
    """Where the build wrote a server's BGP (routing on the host)."""
    return f"servers/{server}/frr.conf"


def devices(data: Mapping[str, Any], whole: bool) -> list[dict[str, Any]]:
    """The frontend rows of ``network_devices`` the lab runs: every switch and BGP server, or in a slice the border
    leaves, the spines and the first :data:`SLICE_GROUPS` leaf groups with their servers."""
    return [
        row
        for row in data.get("network_devices", ())
        if row["network"] == NETWORK
        and row["role"] in TIERS
        and (whole or row["role"] in ("border_leaf", "spine") or row.get("group", 0) < SLICE_GROUPS)
    ]


def links(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The frontend rows of ``network_links`` between its devices (the core uplinks leave the lab)."""
    return [row for row in data.get("network_links", ()) if row["network"] == NETWORK and row["tier"] in LAB_TIERS]


@dataclass(frozen=True)
class Port:
    """A cabled port of a frontend switch in the lab: its address, the peer's address and ASN (None on a server port
    whose server is not a router: a bridge in the lab), and whether a server is at the far end."""

    name: str
    address: str
    peer: str | None
    peer_asn: int | None
    to_server: bool


def switch_config(name: str, asn: int, loopback: str, announces: Sequence[str], ports: Sequence[Port]) -> str:
    """The lab's FRR configuration of a frontend switch, from its design.json row and its cabled ``ports``."""
    lines = ["frr defaults datacenter", f"hostname {name}", "ip forwarding", "!", "interface lo"]
    lines += [f" ip address {loopback}/32", "exit", "!"]
    for port in ports:
        lines += [f"interface {port.name}", f" ip address {port.address}/31", "exit", "!"]
    peers = [port for port in ports if port.peer is not None]
    lines += [
        f"router bgp {asn}",
        f" bgp router-id {loopback}",
        " no bgp ebgp-requires-policy",
        " no bgp default ipv4-unicast",
        " bgp bestpath as-path multipath-relax",
        " timers bgp 3 9",
        *(f" neighbor {port.peer} remote-as {port.peer_asn}" for port in peers),
        " address-family ipv4 unicast",
        f"  network {loopback}/32",
    ]
    if len(announces) > 1:
        lines += [f"  network {_network(port.address)}" for port in ports if port.to_server]
        lines += [f"  aggregate-address {block} summary-only" for block in announces[1:]]
    lines += [f"  neighbor {port.peer} activate" for port in peers]
    widest = catalog().targets["frr"].max_ecmp_paths or len(peers)
    lines += [f"  maximum-paths {min(widest, max(1, len(peers)))}", " exit-address-family", "exit", ""]
    return "\n".join(lines)


def _network(address: str) -> str:
    """The /31 an address of a link belongs to."""
    *head, last = address.split(".")
    return ".".join([*head, str(int(last) & ~1)]) + "/31"

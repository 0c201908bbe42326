"""The frontend network in the lab: its leaves, border leaves and spines as FRR routers beside the backend's, and
its GPU servers, where they are dual-homed with ``bgp``, as routers of their own running the ``frr.conf`` the build
wrote for them (``servers/<server>/frr.conf``: routing on the host).

The routers and their wiring come from ``design.json``'s ``network_devices`` and ``network_links`` (checked by
:mod:`designer.readback.built`); every configuration is the build's, loaded unchanged as the backend's are: a switch's
``configs/frr/<switch>.conf`` (the shared device model and templates), a server's ``servers/<server>/frr.conf``.
A server's ports get the /31 addresses the design gives them (what its ``networks.yaml`` sets), pushed before its
own file as lab-only lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

NETWORK = "frontend"
LEVELS = {"server": -1, "leaf": 0, "border_leaf": 0, "spine": 1}
"""The frontend's devices the lab runs, by their design.json role, with their tier: a server running BGP sits
below the leaves, a border leaf beside them."""
LAB_LINKS = ("server_leaf", "leaf_spine")
"""The frontend's links the lab wires."""
CORE_TIER = "core_uplink"
"""A border leaf's uplink to the data-centre core (design.json's tier name), which the lab leaves out."""
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
        and row["role"] in LEVELS
        and (whole or row["role"] in ("border_leaf", "spine") or row.get("group", 0) < SLICE_GROUPS)
    ]


def links(data: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The frontend rows of ``network_links`` between its devices, and its core uplinks: the core is no router of
    the lab, so a border leaf's sessions to it are peers outside the lab, not neighbors beyond the design."""
    tiers = (*LAB_LINKS, CORE_TIER)
    return [row for row in data.get("network_links", ()) if row["network"] == NETWORK and row["tier"] in tiers]

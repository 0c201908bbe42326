"""Render every GPU server's files of the networks beside the backend, from its
:class:`~designer.networks.hosts.NetworkHost`: ``servers/<server>/networks.yaml`` (netplan: the ports, their /31s
and routes) and, where a network is dual-homed with BGP, ``servers/<server>/frr.conf`` (the host's BGP). Templates
are found like the other server templates (``templates/hosts/``, user overrides first)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from designer.networks.hosts import NetworkHost
from designer.render.environment import Renderer
from designer.render.servers import HOSTS_FOLDER, host_folder

NETPLAN = f"{HOSTS_FOLDER}/networks.yaml.j2"
FRR = f"{HOSTS_FOLDER}/networks-frr.conf.j2"


def rendered_network_hosts(hosts: Iterable[NetworkHost], renderer: Renderer) -> Iterator[tuple[str, bytes]]:
    """(output path, bytes) of every file of every server in ``hosts``, one at a time."""
    for host in hosts:
        folder = host_folder(host.hostname)
        yield f"{folder}/networks.yaml", renderer.render_template(NETPLAN, {"host": host}, host.hostname).encode()
        if host.bgp:
            yield f"{folder}/frr.conf", renderer.render_template(FRR, {"host": host}, host.hostname).encode()

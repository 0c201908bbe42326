"""Render every server's backend files from its :class:`~designer.hosts.HostConfig`, one template per feature.

Files go to ``servers/<server>/``: ``netplan.yaml`` (format netplan) or ``<nic>.nmconnection`` per NIC (format
nmconnection), ``sysctl.conf``, ``nic-qos.sh`` (NVIDIA NICs only), ``nccl.env`` and ``lldpd.conf`` (LLDP on the
backend NICs, for ``designer audit``); on an InfiniBand backend only ``nccl.env``. Templates are found like the
switch templates (user overrides first, under ``hosts/``) and get ``host`` (and ``nic`` for a per-NIC file).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from designer.hosts import HostConfig
from designer.render.environment import Renderer

HOSTS_FOLDER = "hosts"
"""The folder of the server templates, beside each network OS's (``templates/hosts/``)."""
SERVER_FILES = {
    "sysctl.conf": f"{HOSTS_FOLDER}/sysctl.conf.j2",
    "nic-qos.sh": f"{HOSTS_FOLDER}/nic-qos.sh.j2",
    "nccl.env": f"{HOSTS_FOLDER}/nccl.env.j2",
    "lldpd.conf": f"{HOSTS_FOLDER}/lldpd.conf.j2",
}
"""Files every server gets whatever the format, by file name: their templates."""
INFINIBAND_FILES = {"nccl.env": f"{HOSTS_FOLDER}/nccl-infiniband.env.j2"}
"""A server's only file on an InfiniBand backend: its HCAs have no address, route, sysctl or PFC to set (the subnet
manager assigns LIDs and routes), and rdma-ndd's node descriptions name them to ``designer audit``, not LLDP."""
NVIDIA_FILES = ("nic-qos.sh",)
"""Files written with NVIDIA's NIC tools (``mlnx_qos``, mlx5 sysfs): only for NICs that take them."""
FORMAT_TEMPLATES = {"netplan": f"{HOSTS_FOLDER}/netplan.yaml.j2", "nmconnection": f"{HOSTS_FOLDER}/nmconnection.j2"}
"""The template of each addressing format (netplan: one file per server; nmconnection: one per NIC)."""


def host_folder(hostname: str) -> str:
    """Where a server's files go in the outputs."""
    return f"servers/{hostname}"


def host_files(host: HostConfig) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(output path, template, variables) of each file of ``host``."""
    folder = host_folder(host.hostname)
    if host.technology == "infiniband":
        for name, template in INFINIBAND_FILES.items():
            yield f"{folder}/{name}", template, {"host": host}
        return
    if host.format == "netplan":
        yield f"{folder}/netplan.yaml", FORMAT_TEMPLATES["netplan"], {"host": host}
    else:
        for nic in host.nics:
            yield f"{folder}/{nic.name}.nmconnection", FORMAT_TEMPLATES["nmconnection"], {"host": host, "nic": nic}
    for name, template in SERVER_FILES.items():
        if name in NVIDIA_FILES and not host.nvidia_qos:
            continue  # never NVIDIA's tools on another vendor's NIC
        yield f"{folder}/{name}", template, {"host": host}


def render_hosts(hosts: Iterable[HostConfig], user_templates: Path | None = None) -> dict[str, bytes]:
    """Every file of every server in ``hosts``, by output path."""
    return dict(rendered_hosts(hosts, Renderer(user_templates)))


def rendered_hosts(hosts: Iterable[HostConfig], renderer: Renderer) -> Iterator[tuple[str, bytes]]:
    """What :func:`render_hosts` returns, one (output path, bytes) at a time, so that a writer holds one file."""
    for host in hosts:
        for path, template, variables in host_files(host):
            yield path, renderer.render_template(template, variables, host.hostname).encode()

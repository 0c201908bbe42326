"""Render every server's backend files from its :class:`~designer.backend.hosts.HostConfig`, one template per feature.

Files go to ``servers/<server>/``: ``netplan.yaml`` (format netplan) or ``<nic>.nmconnection`` per NIC (format
nmconnection), ``sysctl.conf``, ``nic-qos.sh`` (NVIDIA NICs only), ``nccl.env`` and ``lldpd.conf`` (LLDP on the
backend NICs, for ``designer audit``); on an InfiniBand backend only ``nccl.env``. Templates are found like the
switch templates (user overrides first, under ``hosts/``) and get ``host`` (and ``nic`` for a per-NIC file).

Every server of a design differs from the others only in its name and its NICs' ports, addresses, gateways, leaves
and connection UUIDs (:mod:`designer.backend.hosts` builds the rest from the design alone). So with the shipped
templates each file is rendered once per :class:`Shape` (one for every tray or server alike, with a marker in place of
each of those values) and filled in for each server with its own values (:class:`HostShapes`); a build with user
templates renders every server's files in full, as its templates may do anything with those values.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from designer.backend.hosts import HostConfig, HostNic
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


def host_files(host: HostConfig) -> Iterator[tuple[str, str, int | None]]:
    """(output path, template, NIC) of each file of ``host``: the index of the NIC a per-NIC file is for, else
    None."""
    folder = host_folder(host.hostname)
    if host.technology == "infiniband":
        for name, template in INFINIBAND_FILES.items():
            yield f"{folder}/{name}", template, None
        return
    if host.format == "netplan":
        yield f"{folder}/netplan.yaml", FORMAT_TEMPLATES["netplan"], None
    else:
        for index, nic in enumerate(host.nics):
            yield f"{folder}/{nic.name}.nmconnection", FORMAT_TEMPLATES["nmconnection"], index
    for name, template in SERVER_FILES.items():
        if name in NVIDIA_FILES and not host.nvidia_qos:
            continue  # never NVIDIA's tools on another vendor's NIC
        yield f"{folder}/{name}", template, None


def variables(host: HostConfig, nic: int | None) -> dict[str, Any]:
    """A server file's template variables: ``host``, and ``nic`` for a per-NIC file."""
    return {"host": host} if nic is None else {"host": host, "nic": host.nics[nic]}


def render_hosts(hosts: Iterable[HostConfig], user_templates: Path | None = None) -> dict[str, bytes]:
    """Every file of every server in ``hosts``, by output path."""
    return dict(rendered_hosts(hosts, Renderer(user_templates)))


def rendered_hosts(hosts: Iterable[HostConfig], renderer: Renderer) -> Iterator[tuple[str, bytes]]:
    """What :func:`render_hosts` returns, one (output path, bytes) at a time, so that a writer holds one file: from
    each file's :class:`Shape` with the shipped templates, else each rendered in full."""
    if renderer.overridden:
        for host in hosts:
            for path, template, nic in host_files(host):
                yield path, renderer.render_template(template, variables(host, nic), host.hostname).encode()
        return
    shapes = HostShapes(renderer)
    for host in hosts:
        yield from shapes.files(host)


def _marker(number: int) -> str:
    """The marker standing for a server's ``number``-th own value in a shape: no template writes NUL characters."""
    return f"\x00value{number}\x00"


class Shape(NamedTuple):
    """A server with a marker in place of each value that is its own (:func:`_marker`; an empty value stays
    empty, so that a template tests it as it would the server's), and those values in marker order."""

    host: HostConfig
    values: tuple[str, ...]

    @classmethod
    def of(cls, host: HostConfig) -> Shape:
        """``host``'s shape: its name, then each NIC's port, address, gateway, connection UUID and leaves marked."""
        values = [host.hostname]

        def marked(value: str) -> str:
            if not value:
                return value
            values.append(value)
            return _marker(len(values) - 1)

        nics = tuple(
            HostNic(
                nic.name,
                nic.rdma,
                marked(nic.port),
                nic.planes,
                nic.rail,
                marked(nic.address),
                marked(nic.gateway),
                tuple((marked(leaf), marked(port)) for leaf, port in nic.leaves),
                nic.table,
                marked(nic.uuid),
                nic.sysctl,
                nic.plane_pfs,
            )
            for nic in host.nics
        )
        shaped = HostConfig(
            _marker(0),
            host.format,
            host.mtu,
            host.prefix_length,
            host.backend,
            nics,
            host.sysctls,
            host.qos,
            host.nccl,
            host.adaptive_routing,
            host.spray,
            host.technology,
            host.nic,
        )
        return cls(shaped, tuple(values))


class HostShapes:
    """Each server file rendered once per shape and template, kept as a format string with a field for each
    marker (None when the template changed a marker or a value, so that the file is rendered in full for every
    server); the shape's first server is also rendered in full, and its filled-in file must be the same text."""

    def __init__(self, renderer: Renderer):
        self.renderer = renderer
        self.forms: dict[HostConfig, dict[tuple[str, int | None], str | None]] = {}
        """Per shape, each file's format string by template and NIC."""

    def files(self, host: HostConfig) -> Iterator[tuple[str, bytes]]:
        """(output path, bytes) of each file of ``host``: its shape's text with its values."""
        shape = Shape.of(host)
        forms = self.forms.setdefault(shape.host, {})
        for path, template, nic in host_files(host):
            if (template, nic) not in forms:
                forms[template, nic] = self._form(template, nic, shape, host)
            form = forms[template, nic]
            if form is None:
                yield path, self.renderer.render_template(template, variables(host, nic), host.hostname).encode()
            else:
                yield path, form.format(*shape.values).encode()

    def _form(self, template: str, nic: int | None, shape: Shape, host: HostConfig) -> str | None:
        """The format string of ``template`` rendered for ``shape``: each marker a numbered field; None when a
        marker did not come through whole, or when filling it in for ``host`` (the shape's first server) does not
        give that server's file rendered in full (a template that transformed a value, not its marker)."""
        text = self.renderer.render_template(template, variables(shape.host, nic), shape.values[0])
        form = text.replace("{", "{{").replace("}", "}}")
        for number in range(len(shape.values)):
            form = form.replace(_marker(number), f"{{{number}}}")
        if "\x00" in form:
            return None
        whole = self.renderer.render_template(template, variables(host, nic), host.hostname)
        return form if form.format(*shape.values) == whole else None

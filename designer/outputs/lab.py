"""``lab/clab.yml``: the design's fabric as a containerlab topology for Docker hosts, every switch one node of the
intent's ``lab`` kind booting designer's own files for that kind's target.

* ``linux`` (the default): the same lab as ``designer verify`` builds. One node per switch running the FRR image,
  bind-mounting its generated ``configs/frr/<hostname>.conf`` (paths are relative to the topology file) and a
  ``daemons`` file that starts bgpd (and bfdd when the design uses BFD), with the kernel settings of its
  ``configs/sysctl/<hostname>.conf`` (multipath hash policy and seed) as the node's ``sysctls`` (containerlab's
  documented node option: Docker sets them in the container's network namespace); each leaf's server ports are
  bridges, like in ``designer verify``.
* A network OS image the team brings (``arista_ceos``, ``nvidia_cumulusvx``): each node's ``startup-config`` is its
  configuration for the kind's target, and each leaf's server ports are containerlab ``dummy`` links, so the OS
  finds every port its configuration names.

One link per switch-to-switch cable in cabling order, each end named by the design's port as the kind's image
names its interfaces (containerlab's ``docs/manual/kinds/``): cEOS takes ``Ethernet1/5`` as ``eth1_5``, the FRR
and Cumulus VX nodes the configuration's own ``swpN``. Written by hand, not by a YAML library, so it stays fast and
byte-stable at 400k links.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from json.encoder import encode_basestring_ascii as quote  # a JSON string, as json.dumps writes it, is YAML

from designer.design import Design
from designer.fabric import SERVER_LEAF
from designer.intent.lab import LabSpec
from designer.model import DeviceConfig
from designer.ports import os_port_names
from designer.render.linux import sysctls
from designer.targets import config_path

EOS_PORT = re.compile(r"Ethernet(\d+(?:/\d+)*)")


def lab_files(design: Design) -> dict[str, bytes]:
    """``lab/clab.yml``, and for FRR nodes the ``lab/daemons`` file it mounts into every node; nothing when the
    intent has no lab."""
    lab = design.intent.lab
    if lab is None:
        return {}
    files = {"lab/clab.yml": clab_yaml(design, lab).encode()}
    if lab.kind == "linux":
        files["lab/daemons"] = daemons(any(device.bgp.bfd is not None for device in design.configs)).encode()
    return files


def daemons(bfd: bool) -> str:
    """FRR's ``/etc/frr/daemons``: zebra always, bgpd, and bfdd only when the configs ask for BFD."""
    lines = [
        "# FRR daemons for the designer lab (containerlab); zebra always runs.",
        "bgpd=yes",
        f"bfdd={'yes' if bfd else 'no'}",
        "vtysh_enable=yes",
        'zebra_options="  -A 127.0.0.1 -s 90000000"',
        'bgpd_options="   -A 127.0.0.1"',
        'bfdd_options="   -A 127.0.0.1"',
        "",
    ]
    return "\n".join(lines)


def ceos_interface(port: str) -> str:
    """The interface a cEOS node names an EOS port by: ``Ethernet1`` is ``eth1``, ``Ethernet1/5`` ``eth1_5``
    (containerlab's ``docs/manual/kinds/ceos.md``: underscores stand for the slashes of a broken-out port)."""
    match = EOS_PORT.fullmatch(port)
    if match is None:
        raise ValueError(f"{port!r} is not an EOS front-panel port (EthernetN or EthernetN/L)")
    return "eth" + match.group(1).replace("/", "_")


INTERFACES: dict[str, Callable[[str], str]] = {
    "linux": str,
    "arista_ceos": ceos_interface,
    "nvidia_cumulusvx": str,
}
"""How each kind's nodes name a port of its target's files (the kinds of :data:`designer.targets.LAB_KINDS`)."""


def _frr_node(name: str, config: DeviceConfig, server_ports: list[str]) -> list[str]:
    """An FRR ``linux`` node: its FRR file and the daemons file mounted, its kernel settings, its server ports as
    bridges."""
    lines = [
        "      kind: linux",
        "      binds:",
        f"        - {quote(f'../configs/frr/{name}.conf:/etc/frr/frr.conf')}",
        f"        - {quote('daemons:/etc/frr/daemons')}",
        "      sysctls:",
        *(f"        {quote(key)}: {value}" for key, value in sysctls(config)),
    ]
    if server_ports:
        ports = " ".join(server_ports)
        lines += [
            "      exec:",
            "        - "
            + quote(f"sh -c 'for port in {ports}; do ip link add $port type bridge && ip link set $port up; done'"),
        ]
    return lines


def clab_yaml(design: Design, lab: LabSpec) -> str:
    """The topology: nodes in device order, links in cabling order, then each leaf's server ports (nodes of an
    image the team brings)."""
    fabric = design.fabric
    devices = fabric.devices
    names = os_port_names(design.intent, fabric)[lab.target]
    interface = INTERFACES[lab.kind]
    server_ports: dict[int, list[int]] = {}
    for tier, leaf, port, _, _ in fabric.links[: fabric.server_link_count]:
        if tier == SERVER_LEAF:
            server_ports.setdefault(leaf, []).append(port)
    server_names = {  # in port order: swp2 before swp10
        leaf: [names[leaf][port] for port in sorted(ports)] for leaf, ports in sorted(server_ports.items())
    }
    configs = {config.hostname: config for config in design.configs}
    lines = [
        f"# containerlab topology of {design.intent.name}, generated by designer: "
        "'containerlab deploy -t clab.yml' from this folder.",
        f"name: {quote(design.intent.name)}",
        "topology:",
        "  kinds:",
        f"    {lab.kind}:",
        f"      image: {quote(lab.image)}",
        "  nodes:",
    ]
    for index, device in enumerate(fabric.switches()):
        lines.append(f"    {quote(device.name)}:")
        if lab.kind == "linux":
            lines += _frr_node(device.name, configs[device.name], server_names.get(index, []))
        else:
            lines += [
                f"      kind: {lab.kind}",
                f"      startup-config: {quote('../' + config_path(lab.target, device.name))}",
            ]
    lines.append("  links:")
    for _, upper, upper_port, lower, lower_port in fabric.links[fabric.server_link_count :]:
        a = f"{devices[upper].name}:{interface(names[upper][upper_port])}"
        b = f"{devices[lower].name}:{interface(names[lower][lower_port])}"
        lines.append(f"    - endpoints: [{quote(a)}, {quote(b)}]")
    if lab.kind != "linux":
        for leaf, ports in server_names.items():
            node = quote(devices[leaf].name)
            lines += (
                f"    - {{type: dummy, endpoint: {{node: {node}, interface: {quote(interface(port))}}}}}"
                for port in ports
            )
    return "\n".join(lines) + "\n"

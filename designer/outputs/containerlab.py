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
* ``sonic-vs``, which has no startup configuration in containerlab (``nodes/sonic/sonic.go``): each node
  bind-mounts its ``config_db.json`` where the image's ``start.sh`` loads one from (``/var/sonic/config_db.json``),
  its FRR file as bgpd's own (the image starts FRR's daemons one by one, each from its file), and the lane map of
  its ports as the ``lanemap.ini.orig`` that ``start.sh`` filters into the virtual SAI's lane map
  (``SAI_VS_INTERFACE_LANE_MAP_FILE`` of its ``sai.profile``): ``ethN`` is the N-th port of the PORT table in
  lane order, whatever the switch's SKU names it (sonic-buildimage ``platform/vs/docker-sonic-vs/start.sh``).

One link per switch-to-switch cable in cabling order, each end named by the design's port as the kind's image
names its interfaces (containerlab's ``docs/manual/kinds/``): cEOS takes ``Ethernet1/5`` as ``eth1_5``, the FRR
and Cumulus VX nodes the configuration's own ``swpN``, SONiC-VS ``ethN`` by lane order. Written by hand, not by a
YAML library, so it stays fast and byte-stable at 400k links.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from json.encoder import encode_basestring_ascii as quote  # a JSON string, as json.dumps writes it, is YAML

from designer.backend.model import DeviceConfig
from designer.backend.port_names import os_port_names
from designer.backend.wiring import SERVER_LEAF
from designer.design import Design
from designer.intent.lab_section import LabSpec
from designer.render.linux import sysctls
from designer.render.sonic import port_lanes
from designer.targets import TARGETS, config_files, config_path

EOS_PORT = re.compile(r"Ethernet(\d+(?:/\d+)*)")
SONIC_VS_PLATFORM = "/usr/share/sonic/device/x86_64-kvm_x86_64-r0"
"""The platform folder of the docker-sonic-vs image: its device data holds a copy of every SKU there, each with a
``lanemap.ini`` giving ``ethN`` the lanes of the N-th port of the SKU's ``port_config.ini`` (sonic-buildimage
``src/sonic-device-data/src/generate_vs_hwsku.py``); the image's ``start.sh`` keeps that file as
``lanemap.ini.orig`` and makes the virtual SAI's lane map from it."""
SONIC_VS_HWSKU = "Force10-S6000"
"""The image's own SKU (its Dockerfile's ``HWSKU``), for a switch whose SKU the design does not name."""


def lab_files(design: Design) -> dict[str, bytes]:
    """``lab/clab.yml``, and for FRR nodes the ``lab/daemons`` file it mounts into every node; nothing when the
    intent has no lab."""
    lab = design.intent.lab
    if lab is None:
        return {}
    lane_maps = sonic_vs_lane_maps(design) if lab.kind == "sonic-vs" else {}
    files = {"lab/clab.yml": clab_yaml(design, lab, lane_maps).encode()}
    if lab.kind == "linux":
        files["lab/daemons"] = daemons(any(device.bgp.bfd is not None for device in design.configs)).encode()
    files.update((path, text.encode()) for path, text in dict(lane_maps.values()).items())
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
"""How each kind's nodes name a port of its target's files (the kinds of :data:`designer.targets.LAB_KINDS`), where
the name alone tells (SONiC-VS: :func:`sonic_vs_lane_maps`)."""


def sonic_vs_lane_maps(design: Design) -> dict[str, tuple[str, str]]:
    """Each switch's lane map for a SONiC-VS node, by hostname: its file (``lab/sonic-vs/<role>.lanemap.ini``,
    shared by the switches alike) and its text, ``ethN:<lanes>`` for the N-th port of its ``config_db.json`` PORT
    table (``lanemap.ini``'s format, sonic-buildimage ``device/virtual/x86_64-kvm_x86_64-r0/*/lanemap.ini``)."""
    paths: dict[str, str] = {}  # lane map text -> its file
    maps: dict[str, tuple[str, str]] = {}
    for config in design.configs:
        text = "".join(f"eth{index}:{lanes}\n" for index, (_, lanes) in enumerate(port_lanes(config), start=1))
        if text not in paths:
            alike = sum(path.startswith(f"lab/sonic-vs/{config.role}.") for path in paths.values())
            paths[text] = (
                f"lab/sonic-vs/{config.role}.{alike + 1}.lanemap.ini"
                if alike
                else (f"lab/sonic-vs/{config.role}.lanemap.ini")
            )
        maps[config.hostname] = (paths[text], text)
    return maps


def _sonic_vs_node(config: DeviceConfig, lane_map: str, target: str) -> list[str]:
    """A SONiC-VS node: its config_db.json, FRR file and lane map mounted where the image's ``start.sh`` and
    supervisord read them (read-only: the image writes its own copies), on the image's copy of the switch's SKU
    when the design names one (its ``HWSKU``, whose folder the image's device data holds for every SKU); ``target``
    is the kind's."""
    hwsku = config.sku.hwsku if config.sku and config.facts and config.facts.sonic else SONIC_VS_HWSKU
    config_db = config_path(target, config.hostname)
    companions = config_files(target, config.hostname, config.bgp.unnumbered)[1:]
    # its own FRR file (unnumbered), else the one of the target it needs for BGP
    frr = companions[0][0] if companions else config_path(TARGETS[target].needs[0][0], config.hostname)
    binds = (
        f"../{config_db}:/var/sonic/config_db.json:ro",
        f"../{frr}:/etc/frr/bgpd.conf:ro",
        f"{lane_map.removeprefix('lab/')}:{SONIC_VS_PLATFORM}/{hwsku}/lanemap.ini.orig:ro",
    )
    return [
        "      kind: sonic-vs",
        *([f"      env: {{HWSKU: {quote(hwsku)}}}"] if hwsku != SONIC_VS_HWSKU else []),
        "      binds:",
        *(f"        - {quote(bind)}" for bind in binds),
    ]


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


def clab_yaml(design: Design, lab: LabSpec, lane_maps: dict[str, tuple[str, str]]) -> str:
    """The topology: nodes in device order, links in cabling order, then each leaf's server ports (nodes of an
    image the team brings); ``lane_maps`` are SONiC-VS nodes' (:func:`sonic_vs_lane_maps`)."""
    fabric = design.fabric
    devices = fabric.devices
    names = os_port_names(design.intent, fabric)[lab.target]
    interface = _interface_namer(design, lab, lane_maps)
    server_ports: dict[int, list[int]] = {}
    for tier, leaf, port, _, _ in fabric.links[: fabric.server_link_count]:
        if tier == SERVER_LEAF:
            server_ports.setdefault(leaf, []).append(port)
    server_names = {  # in port order: swp2 before swp10
        leaf: [names[leaf][port] for port in sorted(ports)] for leaf, ports in sorted(server_ports.items())
    }
    lines = [
        f"# containerlab topology of {design.intent.name}, generated by designer: "
        "'containerlab deploy -t clab.yml' from this folder.",
        f"name: {quote(design.intent.name)}",
        "topology:",
        "  kinds:",
        f"    {lab.kind}:",
        f"      image: {quote(lab.image)}",
        "  nodes:",
        *_node_lines(design, lab, lane_maps, server_names),
        "  links:",
    ]
    for _, upper, upper_port, lower, lower_port in fabric.links[fabric.server_link_count :]:
        a = f"{devices[upper].name}:{interface(upper, names[upper][upper_port])}"
        b = f"{devices[lower].name}:{interface(lower, names[lower][lower_port])}"
        lines.append(f"    - endpoints: [{quote(a)}, {quote(b)}]")
    if lab.kind != "linux":
        for leaf, ports in server_names.items():
            node = quote(devices[leaf].name)
            lines += (
                f"    - {{type: dummy, endpoint: {{node: {node}, interface: {quote(interface(leaf, port))}}}}}"
                for port in ports
            )
    return "\n".join(lines) + "\n"


def _interface_namer(design: Design, lab: LabSpec, lane_maps: dict[str, tuple[str, str]]) -> Callable[[int, str], str]:
    """The lab's name of a device's port (by the target's name of it): a SONiC-VS node's ``ethN`` by the port's
    place in its switch's lane map (the same for switches alike), else the lab kind's."""
    if not lane_maps:
        named = INTERFACES[lab.kind]

        def interface(_device: int, port: str) -> str:
            return named(port)

        return interface
    devices = design.fabric.devices
    configs = {config.hostname: config for config in design.configs}
    interfaces = {
        path: dict(zip((name for name, _ in port_lanes(configs[hostname])), _eth_names(text), strict=True))
        for hostname, (path, text) in reversed(lane_maps.items())
    }

    def lane_mapped(device: int, port: str) -> str:
        return interfaces[lane_maps[devices[device].name][0]][port]

    return lane_mapped


def _node_lines(
    design: Design, lab: LabSpec, lane_maps: dict[str, tuple[str, str]], server_names: dict[int, list[str]]
) -> list[str]:
    """Each switch's node: an FRR container (with its ``server_names`` ports), a SONiC-VS node with its lane map, or
    the kind's node with its startup configuration."""
    configs = {config.hostname: config for config in design.configs}
    lines = []
    for index, device in enumerate(design.fabric.switches()):
        lines.append(f"    {quote(device.name)}:")
        if lab.kind == "linux":
            lines += _frr_node(device.name, configs[device.name], server_names.get(index, []))
        elif lane_maps:
            lines += _sonic_vs_node(configs[device.name], lane_maps[device.name][0], lab.target)
        else:
            lines += [
                f"      kind: {lab.kind}",
                f"      startup-config: {quote('../' + config_path(lab.target, device.name))}",
            ]
    return lines


def _eth_names(lane_map: str) -> list[str]:
    """The interfaces of a lane map, in its order."""
    return [line.partition(":")[0] for line in lane_map.splitlines()]

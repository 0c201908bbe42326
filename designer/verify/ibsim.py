"""The design's cables as an ibsim net file: the InfiniBand fabric the design describes, for the simulator.

ibsim (Debian ``ibsim-utils``) reads ``Switch <ports> "<id>" # "<node description>"`` and ``Hca <ports> "<id>"``
records, each followed by ``[<port>] "<peer id>"[<peer port>]`` lines, and numbers the nodes' GUIDs upwards from
the last ``switchguid=`` or ``caguid=`` line (ibsim's ``sim_net.c``). An HCA's id is its node description as a
host sets it, ``<hostname> <rdma device>``; a switch's id is the design's name, but its node description is the
one ``description`` gives every switch alike, as unmanaged switches report, so nothing that reads the simulated
fabric can learn a switch's name from it. A switch's IB port ``n`` is the design's logical port ``n - 1``.
"""

from __future__ import annotations

from collections.abc import Iterable

from designer.backend.wiring import natural
from designer.infiniband.ibnetdiscover import DesignNames

SWITCH_GUIDS = 0x0002C90300000000
"""The first switch's GUID in the simulated fabric (the NVIDIA/Mellanox OUI 00:02:c9, as ibsim's own examples)."""
HCA_GUIDS = 0x0002C90400000000
"""The first HCA's node GUID; ibsim gives each node two GUIDs (node, then port), so HCAs step by two."""
UNMANAGED = "MF0;switch:MQM9790/U1"
"""The node description every simulated switch reports: the same for all, as an unmanaged switch's firmware sets."""


def net_file(design: DesignNames, leave_out: Iterable[str] = (), description: str = UNMANAGED) -> str:
    """The ibsim net file of every cable of ``design``; the switches in ``leave_out`` are simulated with no
    cable (a switch that failed)."""
    gone = set(leave_out)
    switches = sorted((name for name, role in design.roles.items() if role != "server"), key=natural)
    servers = sorted((name for name, role in design.roles.items() if role == "server"), key=natural)
    lines = [f"switchguid=0x{SWITCH_GUIDS:x}"]
    for switch in switches:
        lines.append(f'Switch {len(design.ports[switch])} "{switch}" # "{description}"')
        if switch not in gone:
            lines.extend(
                f'[{number}] "{_node(design, peer)}"[{_port(design, peer)}]'
                for number, name in enumerate(design.ports[switch], 1)
                if (peer := design.peers.get((switch, name))) and peer[0] not in gone
            )
        lines.append("")
    lines.append(f"caguid=0x{HCA_GUIDS:x}")
    for server in servers:
        for index, device in enumerate(design.rdma_devices):
            peer = design.peers.get((server, f"nic{index}"))
            lines.append(f'Hca 1 "{server} {device}"')
            if peer and peer[0] not in gone:
                lines.append(f'[1] "{peer[0]}"[{_port(design, peer)}]')
            lines.append("")
    return "\n".join(lines)


def first_hca(design: DesignNames) -> str:
    """The id of the first HCA of the net file, where the subnet manager and the diagnostics attach (``SIM_HOST``)."""
    server = min((name for name, role in design.roles.items() if role == "server"), key=natural)
    return f"{server} {design.rdma_devices[0]}"


def _node(design: DesignNames, end: tuple[str, str]) -> str:
    device, port = end
    if design.roles[device] == "server":
        return f"{device} {design.rdma_devices[int(port.removeprefix('nic'))]}"
    return device


def _port(design: DesignNames, end: tuple[str, str]) -> int:
    device, port = end
    if design.roles[device] == "server":
        return 1
    return list(design.ports[device]).index(port) + 1

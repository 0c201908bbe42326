"""The lab's cabling as LLDP reports it: lldpd (Debian ``lldpd``) in every namespace of the lab, what each prints
(``lldpcli -f json0 show neighbors``) audited against design.json as ``designer audit`` audits a real fabric.

Each lldpd sends every second under the device's design name; a server's backend NICs send their interface
names as port IDs, as the servers' ``lldpd.conf`` sets them up. The control sockets and configurations live in
the run's folder (``lldpd/``, readable by lldpd's unprivileged half); the lab's teardown stops every process in
its namespaces, lldpd included.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Mapping
from typing import Any

from designer.audit.compare import Audit, Link, audit, link
from designer.audit.names import PortNames
from designer.audit.readers import Cable, read_lldpd
from designer.audit.report import text
from designer.verify import frontend
from designer.verify.lab import Lab
from designer.verify.report import Check, check

PROGRAMS = ("lldpd", "lldpcli")
INSTALL = "apt-get install -y lldpd"
POLL_SECONDS = 0.5


def installed() -> bool:
    """Whether lldpd and lldpcli are on the PATH."""
    return all(shutil.which(program) for program in PROGRAMS)


def lab_cables(running: Lab, design: Mapping[str, Any]) -> list[Link]:
    """The design's cables between devices that have a namespace in the lab (routers, the frontend's among them,
    sampled servers' NICs)."""
    backend = {router.name for router in running.topology.routers if not router.role.startswith(frontend.ROLE_PREFIX)}
    front = {router.name for router in running.topology.routers} - backend
    nics = {(nic.server, nic.port) for nic in running.hosts}
    cables = []
    for rows, routers in ((design["links"], backend), (frontend.links(design), front)):
        for row in rows:
            one, other = (row["a"][0], row["a"][1]), (row["z"][0], row["z"][1])
            if all(end[0] in routers or end in nics for end in (one, other)):
                cables.append(link(one, other))
    return cables


class Lldp:
    """lldpd in every namespace of a running lab."""

    def __init__(self, running: Lab) -> None:
        self.folder = running.folder / "lldpd"
        self.spaces = dict(zip((router.name for router in running.topology.routers), running.namespaces, strict=True))
        self.spaces.update(running.servers)
        self.nics: dict[str, dict[str, str]] = {}
        """Each server's NIC links: OS name (a plane link's own with hwplb) -> the design's port name."""
        for nic in running.hosts:
            self.nics.setdefault(nic.server, {})[nic.link] = nic.port
        self.daemons: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        """One lldpd per namespace, in the foreground of a child process (the teardown stops it)."""
        self.folder.mkdir(mode=0o755)
        for device, space in sorted(self.spaces.items()):
            lines = [
                f"configure system hostname {device}",
                "configure lldp tx-interval 1",
                *(f"configure ports {name} lldp portidsubtype local {name}" for name in self.nics.get(device, ())),
            ]
            config = self.folder / f"{device}.conf"
            config.write_text("\n".join(lines) + "\n")
            command = ["ip", "netns", "exec", space, "lldpd", "-d", "-u", str(self.socket(device)), "-O", str(config)]
            self.daemons.append(subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))

    def socket(self, device: str) -> str:
        return str(self.folder / f"{device}.socket")

    def neighbors(self, device: str) -> bytes | None:
        """What ``device``'s lldpd prints (None before it listens)."""
        shown = subprocess.run(
            ["lldpcli", "-u", self.socket(device), "-f", "json0", "show", "neighbors"],
            capture_output=True,
            check=False,
            timeout=10,
        )
        return shown.stdout if shown.returncode == 0 else None

    def reports(self, expected: Mapping[str, int], limit: float) -> dict[str, tuple[str, list[Cable]]]:
        """Each device's cables as its lldpd reports them, once every device hears ``expected`` neighbours (or at
        ``limit`` seconds, with what they heard by then)."""
        deadline = time.monotonic() + limit
        while True:
            heard: dict[str, tuple[str, list[Cable]]] = {}
            for device in sorted(self.spaces):
                printed = self.neighbors(device)
                heard[device] = ("lldpd", read_lldpd(device, json.loads(printed)) if printed else [])
            if time.monotonic() > deadline or all(len(heard[device][1]) >= count for device, count in expected.items()):
                return heard
            time.sleep(POLL_SECONDS)

    def reap(self) -> None:
        """Collect the exit of every lldpd (after the teardown stopped them)."""
        for daemon in self.daemons:
            daemon.wait(10)


def audit_lab(lldp: Lldp, cables: list[Link], limit: float) -> Audit:
    """What the lab's lldpd report, audited against ``cables`` (the design's, :func:`lab_cables`)."""
    expected: dict[str, int] = {}
    ports: dict[str, dict[str, str]] = {}
    for cable in cables:
        for device, port in cable:
            expected[device] = expected.get(device, 0) + 1
            ports.setdefault(device, {})[port] = port
    switches = {device: names for device, names in ports.items() if device not in lldp.nics}
    return audit(cables, lldp.reports(expected, limit), PortNames({"eos": {}, "lldpd": switches}, lldp.nics))


def cabling_check(name: str, found: Audit) -> Check:
    """The healthy phase's check of the lab's cabling."""
    lines = text(name, found).splitlines()
    return check(
        "healthy",
        "cabling as designed (LLDP)",
        f"{found.matched} of {found.in_scope} cables reported by lldpd in {len(found.devices)} namespaces as designed",
        lines[1:-1],
    )

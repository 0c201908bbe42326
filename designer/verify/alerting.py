"""``designer verify --monitoring``: the design's own monitoring files (``monitoring/``, written with ``outputs:
{monitoring: true}``) run against the lab, with Debian's exporters and a real Prometheus.

Each router gets a prometheus-frr-exporter reading its daemons' sockets (its run folder) and a
prometheus-node-exporter inside its network namespace (so it sees the router's ports); both serve on a socket of
127.0.0.1 made before they start and handed to them by systemd's socket-activation protocol (``LISTEN_FDS``), so
Prometheus, on 127.0.0.1 outside the namespaces, reaches each one without a port chosen by guessing. The lab's
``prometheus.yml`` is the design's with each target resolved to its exporter's socket (a site resolves them to
management addresses) and the devices the lab does not run (the servers) left out; it scrapes every second.

Then: with the fabric healthy no alert fires; with the first spine's links down every alert of that spine's
sessions and cables fires and no other; once they are back every alert resolves. The report says which fired and
when.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from designer.errors import PrerequisiteError
from designer.verify.lab import Lab
from designer.verify.report import Check, check

PROGRAMS = ("prometheus", "prometheus-frr-exporter", "prometheus-node-exporter")
INSTALL = "apt-get install prometheus prometheus-frr-exporter prometheus-node-exporter"
CONFIG = "monitoring/prometheus.yml"
POLL_SECONDS = 1.0
ACTIVATE = (
    "import os, sys\n"
    "fd = int(sys.argv[1])\n"
    "if fd != 3:\n"
    "    os.dup2(fd, 3)\n"
    "    os.close(fd)\n"
    "os.environ.update(LISTEN_FDS='1', LISTEN_PID=str(os.getpid()))\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)
"""Hands a listening socket to the command that follows as systemd's socket activation does: descriptor 3, with
``LISTEN_FDS`` and ``LISTEN_PID`` (the command keeps this process's id through exec)."""
EXPORTERS = {
    "frr-exporter": lambda folder, namespace: [
        "prometheus-frr-exporter",
        "--web.systemd-socket",
        f"--frr.socket.dir-path={folder}",
    ],
    "node-exporter": lambda folder, namespace: [
        "ip",
        "netns",
        "exec",
        namespace,
        "prometheus-node-exporter",
        "--web.systemd-socket",
        "--collector.disable-defaults",
        "--collector.netclass",
    ],
}
"""The command of each scrape job's exporter for a router's run folder and namespace."""


def prerequisites(files: dict[str, bytes]) -> None:
    """:class:`PrerequisiteError` without the programs, or without the design's monitoring files."""
    absent = [program for program in PROGRAMS if shutil.which(program) is None]
    if absent:
        raise PrerequisiteError(f"verify --monitoring needs {', '.join(absent)}: {INSTALL}")
    if CONFIG not in files:
        raise PrerequisiteError(
            "verify --monitoring runs the design's monitoring files: build it with outputs: {monitoring: true} "
            "(and frr among the targets)"
        )


class Watch:
    """The exporters of every router and a Prometheus running the design's rules over them."""

    def __init__(self, running: Lab, files: dict[str, bytes]) -> None:
        self.running, self.files = running, files
        self.folder = Path(tempfile.mkdtemp(prefix="designer-monitoring-"))
        self.processes: list[subprocess.Popen[bytes]] = []
        self.logs: list[str] = []
        """What wrote each log file of the folder, by its number."""
        self.url = ""

    def __enter__(self) -> Watch:
        try:
            self._start()
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.folder, ignore_errors=True)

    def _start(self) -> None:
        running = self.running
        names = {router.name: index for index, router in enumerate(running.topology.routers)}
        listening: dict[tuple[str, str], str] = {}
        for job, command in EXPORTERS.items():
            for name, index in names.items():
                listening[job, name] = self._serve(
                    command(running.dirs[index], running.namespaces[index]), f"the {job} exporter of {name}"
                )
        config = yaml.safe_load(self.files[CONFIG])
        config["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s", "scrape_timeout": "1s"}
        for job in config["scrape_configs"]:
            entries = [entry for entry in job["static_configs"] if entry["labels"]["hostname"] in names]
            for entry in entries:
                entry["targets"] = [listening[job["job_name"], entry["labels"]["hostname"]]]
            job["static_configs"] = entries
        (self.folder / "rules").mkdir()
        for path, data in self.files.items():
            if path.startswith("monitoring/rules/"):
                (self.folder / "rules" / Path(path).name).write_bytes(data)
        (self.folder / "prometheus.yml").write_text(yaml.safe_dump(config, sort_keys=False))
        port = _free_port()
        self.processes.append(
            subprocess.Popen(
                [
                    "prometheus",
                    f"--config.file={self.folder / 'prometheus.yml'}",
                    f"--storage.tsdb.path={self.folder / 'data'}",
                    f"--web.listen-address=127.0.0.1:{port}",
                ],
                stdout=subprocess.DEVNULL,
                stderr=self._log("prometheus"),
            )
        )
        self.url = f"http://127.0.0.1:{port}"

    def _log(self, what: str) -> int:
        """A new file of the watch's folder for the messages of the next process, ``what`` (:meth:`messages`)."""
        self.logs.append(what)
        return os.open(self.folder / f"{len(self.logs) - 1}.log", os.O_WRONLY | os.O_CREAT, 0o600)

    def messages(self) -> list[str]:
        """The last message of each process that wrote one, for a report of what did not start."""
        return [
            f"{self.logs[int(log.stem)]}: {lines[-1]}"
            for log in sorted(self.folder.glob("*.log"), key=lambda path: int(path.stem))
            if (lines := log.read_text(errors="replace").splitlines())
        ]

    def _serve(self, command: list[str], what: str) -> str:
        """Start ``command`` (``what`` it is, for its messages) on a listening socket of 127.0.0.1 of its own (socket
        activation); the socket's address."""
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        host, port = listener.getsockname()
        fd = listener.fileno()
        self.processes.append(
            subprocess.Popen(
                [sys.executable, "-I", "-c", ACTIVATE, str(fd), *command],
                pass_fds=(fd,),
                stdout=subprocess.DEVNULL,
                stderr=self._log(what),
            )
        )
        listener.close()
        return f"{host}:{port}"

    def query(self, path: str) -> Any:
        """The ``data`` of Prometheus's HTTP API answer at ``path``; None while it does not answer."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as answer:
                return json.loads(answer.read())["data"]
        except OSError:
            return None

    def targets_up(self) -> tuple[int, int]:
        """(targets scraped, targets in all)."""
        data = self.query("/api/v1/targets") or {"activeTargets": []}
        targets = data["activeTargets"]
        return sum(target["health"] == "up" for target in targets), len(targets)

    def firing(self) -> list[dict[str, str]]:
        """The labels of every firing alert."""
        data = self.query("/api/v1/alerts") or {"alerts": []}
        return [alert["labels"] for alert in data["alerts"] if alert["state"] == "firing"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def watch_alerts(running: Lab, files: dict[str, bytes], target: int, limit: float) -> list[Check]:
    """Run the design's rules against the lab: none fires while healthy; with ``target``'s links down exactly the
    alerts of its sessions and cables fire (each watched from its lower end); back up, all resolve."""
    lab = running.topology
    name = lab.routers[target].name
    routers = lab.routers
    expected = {
        ("DesignedBgpSessionDown", routers[s.router].name, routers[s.peer].name)
        for s in lab.sessions()
        if target in (s.router, s.peer) and routers[s.router].tier < routers[s.peer].tier
    }
    expected |= {
        ("DesignedLinkDown", routers[wire.lower].name, routers[wire.upper].name)
        for wire in lab.wires
        if target in (wire.lower, wire.upper)
    }
    checks = []
    with Watch(running, files) as watch:
        start = time.monotonic()
        up, total = 0, 0
        while time.monotonic() - start < limit:
            up, total = watch.targets_up()
            if total and up == total:
                break
            time.sleep(POLL_SECONDS)
        time.sleep(3 * POLL_SECONDS)  # a few evaluations of every rule over a healthy fabric
        healthy = watch.firing()
        checks.append(
            check(
                "monitoring",
                "healthy: no alert fires",
                f"{up} of {total} exporter targets scraped, {len(healthy)} alerts firing",
                ([] if total and up == total else [f"only {up} of {total} targets answer", *watch.messages()[:3]])
                + [f"{alert['alertname']}: {_about(alert)}" for alert in healthy],
            )
        )
        checks.append(_dashboards_read_the_design(watch, files))
        running.set_links(target, up=False)
        down_at = time.monotonic()
        fired: set[tuple[str, str, str]] = set()
        stray: list[str] = []
        while time.monotonic() - down_at < limit:
            alerts = watch.firing()
            fired = {_key(alert) for alert in alerts}
            stray = [f"{alert['alertname']}: {_about(alert)}" for alert in alerts if name not in _key(alert)[1:]]
            if expected <= fired or stray:
                break
            time.sleep(POLL_SECONDS)
        seconds = time.monotonic() - down_at
        missing = sorted(expected - fired)
        checks.append(
            check(
                "monitoring",
                f"{name} down: its alerts fire",
                f"{len(fired & expected)} of {len(expected)} alerts of {name}'s sessions and cables firing after "
                f"{seconds:.0f} s, none of another device: "
                + ", ".join(f"{alert} {near} -> {far}" for alert, near, far in sorted(fired & expected)),
                [f"{alert} {near} -> {far} did not fire" for alert, near, far in missing] + stray,
            )
        )
        running.set_links(target, up=True)
        back_at = time.monotonic()
        left = watch.firing()
        while left and time.monotonic() - back_at < limit:
            time.sleep(POLL_SECONDS)
            left = watch.firing()
        checks.append(
            check(
                "monitoring",
                f"{name} restored: its alerts resolve",
                f"every alert resolved {time.monotonic() - back_at:.0f} s after {name}'s links came back",
                [f"{alert['alertname']}: {_about(alert)} still firing" for alert in left],
            )
        )
    return checks


def _dashboards_read_the_design(watch: Watch, files: dict[str, bytes]) -> Check:
    """Every count panel of the switches' dashboards (``fabric``, ``rails``) reads, from the healthy lab, the
    number of sessions or ports the design has (its green threshold)."""
    wrong, read = [], 0
    for name in ("fabric", "rails"):
        dashboard = json.loads(files[f"monitoring/dashboards/{name}.json"])
        for panel in dashboard["panels"]:
            if panel["type"] != "stat":
                continue
            expr = panel["targets"][0]["expr"]
            designed = panel["fieldConfig"]["defaults"]["thresholds"]["steps"][-1]["value"]
            answer = watch.query("/api/v1/query?" + urllib.parse.urlencode({"query": expr})) or {"result": []}
            values = [float(sample["value"][1]) for sample in answer["result"]]
            read += 1
            if values != [designed]:
                wrong.append(f"{name}: {panel['title']}: Prometheus reads {values}")
    return check(
        "monitoring",
        "healthy: the dashboards read the design's counts",
        f"{read - len(wrong)} of {read} count panels of the fabric and rails dashboards at their designed number",
        wrong,
    )


def _key(alert: dict[str, str]) -> tuple[str, str, str]:
    """(alert, switch, the device at the far end) of a firing alert's labels."""
    return (
        alert["alertname"],
        alert.get("switch", alert.get("hostname", "")),
        alert.get("peer_switch", alert.get("peer_device", "")),
    )


def _about(alert: dict[str, str]) -> str:
    _, near, far = _key(alert)
    return f"{near} -> {far}" + (f" ({alert['peer']})" if "peer" in alert else "")

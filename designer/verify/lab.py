"""Build and tear down the lab: one network namespace and one FRR (zebra + bgpd) per switch.

Everything a run creates carries its run id: namespaces ``dv-<run>-<hostname>`` and the folder
``/run/designer-verify/<run>/`` (one sub-folder per router with its frr.conf, vty sockets, zserv
socket, pid files and logs). The folder is created before the first namespace and removed after the
last one, and records the owning process, so a later run can sweep what a killed run left behind
without ever touching another live run's lab or anything it did not create.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from secrets import token_hex
from typing import TypeVar

from designer.errors import PrerequisiteError
from designer.verify import sandbox
from designer.verify.topology import HostNic, Topology

RUN_ROOT = Path("/run/designer-verify")
NETNS = Path("/run/netns")
"""Where ``ip netns add`` keeps each namespace (a bind mount of its nsfs file)."""
PREFIX = "dv-"
FRR_BIN = Path("/usr/lib/frr")
PROGRAMS = ("ip", "unshare", "vtysh", "ping", "traceroute")
INSTALL = "apt-get install -y frr iproute2 iputils-ping traceroute util-linux"
GC_THRESH = ("gc_thresh1", "gc_thresh2", "gc_thresh3")
SYSCTL = Path("/proc/sys/net/ipv4/neigh/default")
LAB_ONLY = ("no zebra nexthop kernel enable",)
"""Lab-only configuration, pushed before each router's own frr.conf (which is loaded unchanged). With kernel
nexthop objects, FRR 8.4 leaves the shrunken ECMP group in the kernel after a failed link comes back (2 of 4 next
hops on the 2-tier test lab while bgpd has all 4), so the lab installs routes with their next hops inline."""
BFD = re.compile(r"^\s*(neighbor \S+ bfd|bfd)\b", re.MULTILINE)
"""A config that asks for BFD also gets bfdd; otherwise each router runs zebra and bgpd only."""
STOP_SECONDS = 5.0
STARTING_SECONDS = 60.0
"""A run folder without its owner file yet is being created by another run for this long, not an orphan."""
START_SECONDS = 20.0
T = TypeVar("T")
R = TypeVar("R")
WORKERS = 4
"""Short-lived processes (vtysh, ip, tc, ping) the lab runs at once."""
TRAPPED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
"""Signals that stop a run: each tears the lab down first (Ctrl-C, kill, a closed terminal, Ctrl-\\)."""
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""One word of an ``ip -batch`` line or a namespace name: lab names are built from checked design.json fields
(:mod:`designer.readback.built`), and this is checked again before iproute2 reads them."""
SANDBOX = Path(sandbox.__file__)
"""The program every daemon and vtysh of the lab starts through (:mod:`designer.verify.sandbox`)."""
SANDBOX_KERNEL = (5, 12)
"""The first Linux with ``mount_setattr``, which the sandbox makes the machine's file systems read-only with."""
SYSCTLS = (
    "import json, sys\n"
    "for parts, value in json.loads(sys.argv[1]):\n"
    "    with open('/proc/sys/' + '/'.join(parts), 'w') as handle:\n"
    "        handle.write(str(value))\n"
)
"""Run in a namespace: write each checked (path parts below /proc/sys, integer) pair. /proc/sys/net is the
namespace's own, so a router's or a server's settings never reach the machine's."""
READ_SYSCTLS = (
    "import json, sys\n"
    "values = []\nfor parts in json.loads(sys.argv[1]):\n"
    "    with open('/proc/sys/' + '/'.join(parts)) as handle:\n"
    "        values.append(int(handle.read()))\n"
    "print(json.dumps(values))\n"
)
"""Run in a namespace: the integer in each checked path below /proc/sys."""
HASH_SEED = Path("/proc/sys/net/ipv4/fib_multipath_hash_seed")
"""Present from Linux 6.11 (per namespace; the file of this process's namespace says whether the kernel has it)."""
COUNTED = "10001"
"""The HTB class (1:1; tc reads a bare hex handle as major:minor) that UDP datagrams to port 4791 go through on
every lab port: its packet counter counts RoCEv2 packets and nothing else (BGP, ARP and ICMP cross the same
links)."""
Progress = Callable[[str], None]


def check_prerequisites() -> None:
    """Root, FRR's zebra and bgpd, iproute2, ping and traceroute; otherwise say what to install."""
    missing = [name for name in PROGRAMS if shutil.which(name) is None]
    missing += [str(FRR_BIN / daemon) for daemon in ("zebra", "bgpd") if not (FRR_BIN / daemon).exists()]
    problems = []
    if os.geteuid() != 0:
        problems.append("it needs root to create network namespaces: run it as root (sudo designer verify ...)")
    release = tuple(int(part) for part in re.findall(r"[0-9]+", os.uname().release)[:2])
    if release < SANDBOX_KERNEL:
        problems.append(
            f"it needs Linux {'.'.join(map(str, SANDBOX_KERNEL))} or later to wall FRR off from the "
            f"machine's files (mount_setattr); this kernel is {os.uname().release}"
        )
    if missing:
        problems.append(f"missing {', '.join(missing)}: install them with '{INSTALL}' (Debian/Ubuntu)")
    if problems:
        raise PrerequisiteError("designer verify cannot run: " + "; ".join(problems))


def available_mib() -> int:
    """MemAvailable of this machine, in MiB."""
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    return 0


def ip_batch(commands: Iterable[str], namespace: str | None = None, force: bool = False, program: str = "ip") -> None:
    """Run iproute2 commands in one process (in ``namespace`` if given); raise on the first failure, or with
    ``force`` after trying every command. ``program`` is ``ip`` or ``tc`` (same batch syntax)."""
    lines = list(commands)
    words = [word for line in lines for word in line.split(" ")] + ([namespace] if namespace else [])
    unsafe = [word for word in words if not TOKEN.fullmatch(word)]
    if unsafe:
        raise ValueError(f"refusing to pass {unsafe[0]!r} to iproute2: only letters, digits, '.', '_' and '-'")
    text = "".join(f"{line}\n" for line in lines)
    if not text:
        return
    argv = [program, *(["-n", namespace] if namespace else []), *(["-force"] if force else []), "-batch", "-"]
    result = subprocess.run(argv, input=text, capture_output=True, text=True, check=False)
    if result.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed: {result.stderr.strip()}")


def ip(namespace: str, *arguments: str) -> None:
    """One iproute2 command in ``namespace`` as an argument vector (values that hold '/' cannot go through
    :func:`ip_batch`); raises with iproute2's message when it fails."""
    if not TOKEN.fullmatch(namespace):
        raise ValueError(f"refusing namespace {namespace!r}")
    result = subprocess.run(["ip", "-n", namespace, *arguments], capture_output=True, text=True, check=False)
    if result.returncode:
        raise RuntimeError(f"ip -n {namespace} {' '.join(arguments)} failed: {result.stderr.strip()}")


def in_namespace(namespace: str, code: str, argument: object, timeout: float = 60) -> str:
    """Run the Python ``code`` (a constant of this package) in ``namespace`` with ``argument`` as JSON in argv[1];
    its standard output. Values are arguments, never code or shell text."""
    if not TOKEN.fullmatch(namespace):
        raise ValueError(f"refusing namespace {namespace!r}")
    result = subprocess.run(
        ["ip", "netns", "exec", namespace, sys.executable, "-I", "-c", code, json.dumps(argument)],
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    if result.returncode:
        raise RuntimeError(f"in {namespace}: {result.stderr.strip().splitlines()[-1:] or ['failed']}")
    return result.stdout


def set_sysctls(namespace: str, settings: Sequence[tuple[tuple[str, ...], int]]) -> None:
    """Write each (path parts below /proc/sys, integer) in ``namespace``; the parts are checked words."""
    unsafe = [part for parts, _ in settings for part in parts if not TOKEN.fullmatch(part)]
    if unsafe or any(type(value) is not int for _, value in settings):
        raise ValueError(f"refusing sysctl {unsafe[:1] or settings}")
    if settings:
        in_namespace(namespace, SYSCTLS, [[list(parts), value] for parts, value in settings])


def read_sysctls(namespace: str, paths: Sequence[tuple[str, ...]]) -> list[int]:
    """The value of each (path parts below /proc/sys) in ``namespace``; the parts are checked words."""
    unsafe = [part for parts in paths for part in parts if not TOKEN.fullmatch(part)]
    if unsafe:
        raise ValueError(f"refusing sysctl {unsafe[0]!r}")
    return json.loads(in_namespace(namespace, READ_SYSCTLS, [list(parts) for parts in paths])) if paths else []


def seeds_supported() -> bool:
    """Whether this kernel has ``net.ipv4.fib_multipath_hash_seed`` (Linux 6.11 and later)."""
    return HASH_SEED.exists()


def parse_class_packets(text: str) -> int:
    """Packets sent through the HTB class of ``tc -s class show`` (its ``Sent N bytes M pkt`` line)."""
    match = re.search(r"Sent [0-9]+ bytes ([0-9]+) pkt", text)
    if match is None:
        raise RuntimeError(f"no packet counter in tc's answer: {text.strip()[:200]!r}")
    return int(match.group(1))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _own_pid(pid_file: Path, folder: Path) -> int | None:
    """The pid in ``pid_file`` if that process is still the daemon started from ``folder``."""
    try:
        pid = int(pid_file.read_text().split()[0])
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, ValueError, IndexError):
        return None
    return pid if str(folder) in command else None


def gather(items: Iterable[T], read: Callable[[T], R]) -> list[R]:
    """``read`` over ``items``, :data:`WORKERS` at a time. An interrupt (a trapped signal) drops the reads not yet
    started, so the teardown waits only for the few running."""
    pool = ThreadPoolExecutor(max_workers=WORKERS)
    try:
        return list(pool.map(read, items))
    finally:
        pool.shutdown(cancel_futures=True)


def _namespaces(run: str) -> list[str]:
    """This run's namespaces that exist now (this designer never makes a name ``TOKEN`` refuses)."""
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False).stdout
    return sorted(
        name
        for line in listing.splitlines()
        if (name := line.split(" ")[0]).startswith(f"{PREFIX}{run}-") and TOKEN.fullmatch(name)
    )


def _members(run: str) -> list[int]:
    """Every process in one of this run's network namespaces (found by the namespace itself, not by pid files,
    which FRR may overwrite)."""
    spaces = set()
    for name in _namespaces(run):
        with contextlib.suppress(OSError):
            found = os.stat(NETNS / name)
            spaces.add((found.st_dev, found.st_ino))
    members = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            space = os.stat(entry / "ns" / "net") if entry.name.isdigit() else None
            if space and (space.st_dev, space.st_ino) in spaces:
                members.append(int(entry.name))
    return sorted(members)


def _stop(folder: Path) -> None:
    """SIGTERM every daemon started under ``folder`` (by pid file) and every process in the run's namespaces, then
    SIGKILL what is left."""
    pids = sorted(
        {pid for pid_file in folder.glob("*/*.pid") if (pid := _own_pid(pid_file, folder))} | set(_members(folder.name))
    )
    for pid in pids:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in pids:
        if _alive(pid):
            _signal(pid, signal.SIGKILL)


def _signal(pid: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, number)


def _restore_sysctls(folder: Path) -> None:
    """Put back the ARP thresholds saved in ``folder`` if they still hold the values this run set."""
    saved = folder / "gc_thresh"
    if not saved.exists():
        return
    for line in saved.read_text().splitlines():
        name, before, ours = line.split()
        path = SYSCTL / name
        if path.read_text().strip() == ours:
            path.write_text(before)


def _remove_run(folder: Path) -> None:
    """Stop the daemons, delete the namespaces, restore sysctls and remove the folder of one run."""
    try:
        _stop(folder)
        ip_batch((f"netns del {name}" for name in _namespaces(folder.name)), force=True)
    finally:
        _restore_sysctls(folder)
        shutil.rmtree(folder, ignore_errors=True)


def sweep_orphans(progress: Progress) -> None:
    """Remove the labs of earlier runs whose owning process is gone (killed before its own teardown)."""
    if not RUN_ROOT.is_dir():
        return
    for folder in sorted(RUN_ROOT.iterdir()):
        try:
            owner = int((folder / "owner").read_text())
        except (OSError, ValueError):
            owner = 0
        starting = not owner and time.time() - folder.stat().st_mtime < STARTING_SECONDS
        if starting or (owner and _alive(owner)):
            continue
        progress(f"removing the lab of an interrupted run ({folder.name})")
        _remove_run(folder)


class Lab:
    """The running lab. Use as a context manager: leaving it, by any path, tears everything down."""

    def __init__(self, topology: Topology, progress: Progress, hosts: Sequence[HostNic] = ()):
        self.topology = topology
        self.progress = progress
        self.hosts = tuple(hosts)
        """Server NICs wired as veths into a namespace per server (the other server ports are bridges)."""
        self.run = token_hex(3)
        self.folder = RUN_ROOT / self.run
        self.namespaces = [f"{PREFIX}{self.run}-{router.name}" for router in topology.routers]
        self.servers = {nic.server: f"{PREFIX}{self.run}-{nic.server}" for nic in self.hosts}
        """Each sampled server's namespace: its own, or the router's when the server is one (frontend BGP)."""
        self.dirs = [self.folder / router.name for router in topology.routers]
        self.daemons: list[tuple[str, ...]] = [
            ("zebra", "bgpd", "bfdd") if BFD.search(config) else ("zebra", "bgpd") for config in topology.configs
        ]
        self._previous_handlers: dict[int, object] = {}

    def __enter__(self) -> Lab:
        self._trap_signals()
        try:
            self.folder.mkdir(parents=True)
            (self.folder / "owner").write_text(str(os.getpid()))
            self._raise_arp_limits()
            self._wire()
            self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *_: object) -> None:
        for number in self._previous_handlers:
            signal.signal(number, signal.SIG_IGN)
        try:
            self.progress(
                f"tearing down {len(self.namespaces)} routers"
                + (f" and {len(self.servers)} servers" if self.servers else "")
            )
            _remove_run(self.folder)
        finally:
            for number, handler in self._previous_handlers.items():
                signal.signal(number, handler)  # type: ignore[arg-type]
            self._previous_handlers.clear()

    def _trap_signals(self) -> None:
        """Every signal in :data:`TRAPPED` raises KeyboardInterrupt, so the teardown in ``__exit__`` always runs."""

        def interrupt(number: int, _frame: object) -> None:
            raise KeyboardInterrupt(f"signal {number}")

        try:
            for number in TRAPPED:
                self._previous_handlers[number] = signal.signal(number, interrupt)
        except ValueError:  # not the main thread: the caller handles signals
            self._previous_handlers.clear()

    def _raise_arp_limits(self) -> None:
        """The kernel's ARP table is shared by all namespaces; make room for both ends of every wire."""
        needed = self.topology.arp_entries()
        current = {name: int((SYSCTL / name).read_text()) for name in GC_THRESH}
        if current["gc_thresh3"] > 2 * needed:
            return
        wanted = {"gc_thresh1": needed, "gc_thresh2": 2 * needed, "gc_thresh3": 4 * needed}
        rows = []
        for name in GC_THRESH:
            value = max(current[name], wanted[name])
            rows.append(f"{name} {current[name]} {value}\n")
            (SYSCTL / name).write_text(str(value))
        (self.folder / "gc_thresh").write_text("".join(rows))
        self.progress(
            f"raised net.ipv4.neigh.default.gc_thresh1-3 to "
            f"{', '.join(row.split()[2] for row in rows)} (restored afterwards)"
        )

    def _wire(self) -> None:
        """Namespaces, a veth pair per wire named after both ports, a bridge per server port, all up."""
        topology, spaces = self.topology, self.namespaces
        self.progress(
            f"creating {len(spaces) + len(self.servers)} namespaces ({PREFIX}{self.run}-*) and "
            f"{len(topology.wires) + len(self.hosts)} links"
        )
        ip_batch(f"netns add {name}" for name in dict.fromkeys([*spaces, *self.servers.values()]))
        ip_batch(
            f"link add {wire.upper_port} netns {spaces[wire.upper]} type veth peer name {wire.lower_port} "
            f"netns {spaces[wire.lower]}"
            for wire in topology.wires
        )
        ip_batch(
            f"link add {nic.leaf_port} netns {spaces[nic.leaf]} type veth peer name {nic.link} "
            f"netns {self.servers[nic.server]}"
            for nic in self.hosts
        )
        ports: list[list[str]] = [[] for _ in spaces]
        for wire in topology.wires:
            ports[wire.upper].append(wire.upper_port)
            ports[wire.lower].append(wire.lower_port)
        wired = {(nic.leaf, nic.leaf_port) for nic in self.hosts}
        for nic in self.hosts:
            ports[nic.leaf].append(nic.leaf_port)
        for server in set(self.servers.values()) - set(spaces):
            ip_batch(["link set lo up"], server)
        for router, name in enumerate(spaces):
            bridges = [port for port, _ in topology.server_ports[router] if (router, port) not in wired]
            ip_batch(
                [
                    "link set lo up",
                    *(f"link add {port} type bridge" for port in bridges),
                    *(f"link set {port} up" for port in ports[router] + bridges),
                ],
                name,
            )

    def _start(self) -> None:
        """Start FRR in every namespace under its own hostname (forwarding is the frr.conf's own business)."""
        most: tuple[str, ...] = max(self.daemons, key=len)
        self.progress(f"starting FRR ({' + '.join(most)}) in {len(self.namespaces)} namespaces")
        for router, (name, folder) in enumerate(zip(self.namespaces, self.dirs, strict=True)):
            daemons = self._router_files(router, folder)
            started = subprocess.run(
                [
                    "ip",
                    "netns",
                    "exec",
                    name,
                    "unshare",
                    "--uts",
                    "--mount",
                    "--",
                    sys.executable,
                    "-I",
                    "-S",
                    str(SANDBOX),
                    "start",
                    self.topology.routers[router].name,
                    str(folder),
                    json.dumps(daemons),
                ],
                capture_output=True,
                text=True,
                check=False,
            )
            if started.returncode:
                raise RuntimeError(
                    f"FRR could not start on {folder.name}: "
                    f"{(started.stderr.strip().splitlines() or ['no message'])[-1]}"
                )
        self._wait_started()

    def _router_files(self, router: int, folder: Path) -> list[list[str]]:
        """Write ``router``'s frr.conf and vtysh.conf into its new ``folder``, owned by frr; the command line of each
        of its daemons."""
        folder.mkdir()
        (folder / "frr.conf").write_text(self.topology.configs[router])
        (folder / "vtysh.conf").write_text(f"username {sandbox.USER} nopassword\n")
        shutil.chown(folder, "frr", "frr")
        for file in folder.iterdir():
            shutil.chown(file, "frr", "frr")
        common = [
            "-d",
            "-P",
            "0",
            "-f",
            "/dev/null",
            "-u",
            "frr",
            "-g",
            "frr",
            "--vty_socket",
            str(folder),
            "-z",
            f"{folder}/zserv.api",
        ]
        return [
            [str(FRR_BIN / daemon), *common, "-i", f"{folder}/{daemon}.pid", "--log", f"file:{folder}/{daemon}.log"]
            for daemon in self.daemons[router]
        ]

    def _wait_started(self) -> None:
        """Wait (bounded) until every router's daemons answer on their vty sockets; :class:`RuntimeError` naming the
        first that does not."""
        deadline = time.monotonic() + START_SECONDS
        waiting = list(range(len(self.dirs)))
        while waiting and time.monotonic() < deadline:
            waiting = [
                router
                for router in waiting
                if not all((self.dirs[router] / f"{daemon}.vty").exists() for daemon in self.daemons[router])
            ]
            time.sleep(0.05 if waiting else 0)
        if waiting:
            raise RuntimeError(
                f"FRR did not start in {START_SECONDS:.0f} s on {self.dirs[waiting[0]].name}; "
                f"see the logs in {self.dirs[waiting[0]]}"
            )

    def load_configs(self) -> list[str]:
        """Push the lab-only lines (and a router's own, :attr:`Topology.lab_lines`), then every frr.conf unchanged
        with ``vtysh -b``; returns one problem per router whose configuration was refused."""
        self.progress(f"loading {len(self.dirs)} frr.conf files")

        def load(router: int) -> str:
            own = self.topology.lab_lines[router] if self.topology.lab_lines else ()
            lines = ("configure terminal", *LAB_ONLY, *own)
            lab_only = [argument for line in lines for argument in ("-c", line)]
            for step in (lab_only, ["-b"]):
                result = subprocess.run(
                    self.vtysh(router) + step, capture_output=True, text=True, check=False, timeout=120
                )
                output = (result.stdout + result.stderr).strip()
                if result.returncode or "% " in output:
                    return f"{self.dirs[router].name}: vtysh exit {result.returncode}: {' '.join(output.split())[:300]}"
            return ""

        return [problem for problem in gather(range(len(self.dirs)), load) if problem]

    def configure(self, router: int, lines: Sequence[str]) -> str:
        """Enter ``lines`` in configuration mode on ``router``; the problem bgpd or vtysh reported, or nothing."""
        arguments = [argument for line in ("configure terminal", *lines) for argument in ("-c", line)]
        result = subprocess.run(
            self.vtysh(router) + arguments, capture_output=True, text=True, check=False, timeout=120
        )
        output = (result.stdout + result.stderr).strip()
        return (
            f"vtysh exit {result.returncode}: {' '.join(output.split())[:300]}"
            if result.returncode or "% " in output
            else ""
        )

    def vtysh(self, router: int) -> list[str]:
        """The command line that runs vtysh on ``router``'s daemons, arguments to follow: in the router's network
        namespace, a mount namespace sealed by :mod:`~designer.verify.sandbox` and a PID namespace of its own, as
        the frr user (vtysh runs commands of a config file itself, ``output file`` among them)."""
        return [
            "ip",
            "netns",
            "exec",
            self.namespaces[router],
            "unshare",
            "--mount",
            "--pid",
            "--fork",
            "--kill-child",
            "--",
            sys.executable,
            "-I",
            "-S",
            str(SANDBOX),
            "vtysh",
            str(self.dirs[router]),
        ]

    def apply_kernel(self) -> None:
        """Write every router's own kernel settings file (checked: :attr:`Topology.sysctls`) under its namespace's
        /proc/sys. Without the hash seed in this kernel the seed lines are left out (the caller says so)."""
        for router, settings in enumerate(self._kernel()):
            set_sysctls(self.namespaces[router], settings)

    def kernel_problems(self) -> list[str]:
        """Every router's kernel settings read back from its namespace's /proc/sys: one problem per value that
        differs from its file's."""
        problems = []
        for router, settings in enumerate(self._kernel()):
            found = read_sysctls(self.namespaces[router], [parts for parts, _ in settings])
            problems += [
                f"{self.topology.routers[router].name}: {'.'.join(parts)} reads {value} in its namespace, "
                f"its configs/sysctl file says {want}"
                for (parts, want), value in zip(settings, found, strict=True)
                if value != want
            ]
        return problems

    def _kernel(self) -> list[list[tuple[tuple[str, ...], int]]]:
        seeds = seeds_supported()
        return [
            [
                (tuple(key.split(".")), value)
                for key, value in settings or ()
                if seeds or key != "net.ipv4.fib_multipath_hash_seed"
            ]
            for settings in self.topology.sysctls
        ]

    def memory_mib(self) -> int:
        """Memory of the lab's FRR daemons now, in MiB: their proportional set size (shared libraries counted
        once across them), found by pid file."""
        total = 0
        for pid_file in sorted(self.folder.glob("*/*.pid")):
            pid = _own_pid(pid_file, self.folder)
            with contextlib.suppress(OSError):
                status = Path(f"/proc/{pid}/smaps_rollup").read_text() if pid else ""
                total += sum(int(line.split()[1]) for line in status.splitlines() if line.startswith("Pss:"))
        return total // 1024

    def set_links(self, router: int, up: bool) -> None:
        """Take every fabric link of ``router`` down (its peers lose carrier) or bring them back up."""
        ports = [wire.upper_port for wire in self.topology.wires if wire.upper == router]
        ports += [wire.lower_port for wire in self.topology.wires if wire.lower == router]
        ip_batch((f"link set {port} {'up' if up else 'down'}" for port in ports), self.namespaces[router])

    def ports(self) -> list[tuple[str, str]]:
        """(namespace, interface) of both ends of every fabric wire and every server NIC link of the lab."""
        spaces = self.namespaces
        ends = [(spaces[wire.upper], wire.upper_port) for wire in self.topology.wires]
        ends += [(spaces[wire.lower], wire.lower_port) for wire in self.topology.wires]
        ends += [(spaces[nic.leaf], nic.leaf_port) for nic in self.hosts]
        ends += [(self.servers[nic.server], nic.link) for nic in self.hosts]
        return ends

    def count_roce(self) -> None:
        """An HTB class on every port (:meth:`ports`) that UDP datagrams to port 4791 go through, so its packet
        counter counts RoCEv2 packets sent out of that port and nothing else."""
        by_namespace: dict[str, list[str]] = {}
        for namespace, port in self.ports():
            by_namespace.setdefault(namespace, []).append(port)
        for namespace, ports in by_namespace.items():
            ip_batch(
                [
                    line
                    for port in ports
                    for line in (
                        f"qdisc add dev {port} root handle 1 htb",
                        f"class add dev {port} parent 10000 classid {COUNTED} htb rate 400gbit quantum 60000",
                        f"filter add dev {port} parent 10000 protocol ip u32 match ip protocol 17 0xff match ip "
                        "dport 4791 "
                        f"0xffff classid {COUNTED}",
                    )
                ],
                namespace,
                program="tc",
            )

    def roce_packets(self) -> dict[tuple[str, str], int]:
        """RoCEv2 packets sent so far out of every port: (namespace, interface) -> packets."""
        ends = self.ports()

        def read(end: tuple[str, str]) -> int:
            result = subprocess.run(
                ["tc", "-s", "-n", end[0], "class", "show", "dev", end[1], "classid", COUNTED],
                capture_output=True,
                text=True,
                check=False,
                timeout=30,
            )
            return parse_class_packets(result.stdout)

        return dict(zip(ends, gather(ends, read), strict=True))

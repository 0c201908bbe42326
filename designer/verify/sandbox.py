"""The walls around the FRR that designer runs: daemons and vtysh write nowhere but a folder of their own.

Network namespaces do not isolate the file system, and a router's frr.conf can make FRR write files
(``log file PATH``, ``dump bgp all PATH``) and vtysh open them (``output file PATH``, reached after an ``end``
line). So every daemon and every vtysh the lab runs, and every vtysh ``designer validate-configs`` runs, starts
through this program, run with ``python -I -S`` in a new mount namespace of its own (``unshare --mount``:
private propagation, so nothing done here reaches the machine's mounts). Before anything of FRR starts, it:

* makes every file system read-only (``mount_setattr`` on ``/``, recursively: Linux 5.12 or later);
* lays empty tmpfs over ``/run``, ``/var``, ``/tmp`` and ``/etc/frr``, what FRR would otherwise read or
  write outside the lab (the machine's own FRR config, runtime and log folders, syslog and other sockets),
  with ``/var/run`` pointing at ``/run`` and a ``/var/tmp`` as Linux lays them out;
* gives ``/dev`` only ``null``, ``zero``, ``full``, ``random`` and ``urandom`` (the machine's own, bound after
  checking each is that device; no ``/dev/log``), read-only;
* for vtysh, which runs in a PID namespace of its own, mounts that namespace's own ``/proc``, read-only: the
  machine's would show every process, and ``/proc/PID/root`` or ``cwd`` of a process of the same user leads
  into its writable view;
* binds the router's folder (``/run/designer-verify/<run>/<hostname>/``) back writable at its own path: the
  only place written here that the machine sees, and one the teardown deletes;
* for the daemons, binds the network namespace's own ``/proc/sys/net`` back writable (zebra writes
  ``ip forwarding`` there; it is the namespace's, not the machine's).

``start HOSTNAME FOLDER DAEMONS`` then sets the hostname (in the UTS namespace ``unshare --uts`` made) and
starts each daemon's command line (a JSON list of argument vectors; the daemons detach and keep this view).
``vtysh FOLDER ARGUMENT...`` gives up privileges (:func:`drop`) and runs ``vtysh --vty_socket FOLDER
--config_dir FOLDER ARGUMENT...``. ``check SECONDS`` binds no folder back: it lays the configs it reads on
stdin in a read-only tmpfs, gives up privileges and runs ``vtysh -C`` on each, printing the verdicts. vtysh's own
commands (``output file``, ``copy``, ``write``) are then held by the same walls. ``check`` also runs for an
ordinary user, inside ``unshare --user --map-root-user``: a user namespace in which it is root, which may build
these walls over its own mount namespace but reaches nothing the user could not. Names and command lines are
arguments, never code or shell text. Standard library only: it runs as a script.
"""

from __future__ import annotations

import ctypes
import os
import pwd
import stat
import sys

MASKED = {"/run": "0755", "/var": "0755", "/tmp": "1777", "/etc/frr": "0755"}
"""Folders hidden under an empty tmpfs, with its mode."""
DEVICES = {"null": 3, "zero": 5, "full": 7, "random": 8, "urandom": 9}
"""The memory devices (major 1) the sandbox's /dev holds, by minor number (Linux's devices.txt)."""
USER = "frr"
SYSCALL_MOUNT_SETATTR = 442
"""The same number on every architecture but alpha (new system calls share one table since Linux 5.1)."""
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
MOUNT_ATTR_RDONLY = 0x1
MS_BIND, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1000, 0x2, 0x4, 0x8
PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE = 38, 4
CLONE_NEWUSER = 0x10000000
CHECKED = "/run/designer-vtysh"
"""Where ``check`` lays the configs it is given, on a tmpfs of its own under the masked /run, made read-only."""


class MountAttr(ctypes.Structure):
    """``struct mount_attr`` of <linux/mount.h>."""

    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def seal(folder: str | None, writable_net: bool, own_proc: bool = False) -> None:
    """Make this mount namespace's view: everything read-only, :data:`MASKED` empty, ``folder`` if any (and with
    ``writable_net`` the namespace's /proc/sys/net) writable; with ``own_proc`` a read-only /proc of this PID
    namespace's own (the machine's shows every process, and ``/proc/PID/root`` of one leads to its writable view)."""
    libc = ctypes.CDLL(None, use_errno=True)
    keep = [(folder, os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC))] if folder else []
    if writable_net:
        keep.append(("/proc/sys/net", os.open("/proc/sys/net", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)))
    _set_attributes(libc, "/", MOUNT_ATTR_RDONLY, 0, AT_RECURSIVE)
    masked = [path for path in MASKED if os.path.isdir(path) and not os.path.islink(path)]
    for path in masked:
        _mount(libc, "tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, f"mode={MASKED[path]},size=16m")
    if "/var" in masked:
        os.symlink("/run", "/var/run")
        os.mkdir("/var/tmp")
        os.chmod("/var/tmp", 0o1777)
    _devices(libc)
    if own_proc:
        _mount(libc, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        _set_attributes(libc, "/proc", MOUNT_ATTR_RDONLY, 0, 0)
    for path, descriptor in keep:
        os.makedirs(path, exist_ok=True)
        _mount(libc, f"/proc/self/fd/{descriptor}", path, None, MS_BIND, None)
        _set_attributes(libc, path, 0, MOUNT_ATTR_RDONLY, 0)
        os.close(descriptor)


def _devices(libc: ctypes.CDLL) -> None:
    """A read-only /dev of its own holding only the memory devices of :data:`DEVICES`: the machine's own, bound
    (a user namespace may not make device files), once each is checked to be that device."""
    devices = {}
    for name, minor in DEVICES.items():
        devices[name] = os.open(f"/dev/{name}", os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
        found = os.fstat(devices[name])
        if not stat.S_ISCHR(found.st_mode) or found.st_rdev != os.makedev(1, minor):
            raise OSError(f"/dev/{name} is not the memory device 1:{minor}")
    _mount(libc, "tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")
    for name, descriptor in devices.items():
        os.close(os.open(f"/dev/{name}", os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o666))
        _mount(libc, f"/proc/self/fd/{descriptor}", f"/dev/{name}", None, MS_BIND, None)
        os.close(descriptor)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, f"/dev/{name}")
    _set_attributes(libc, "/dev", MOUNT_ATTR_RDONLY, 0, 0)


def _mount(libc: ctypes.CDLL, source: str, target: str, kind: str | None, flags: int, data: str | None) -> None:
    if libc.mount(
        source.encode(), target.encode(), kind.encode() if kind else None, flags, data.encode() if data else None
    ):
        number = ctypes.get_errno()
        raise OSError(number, f"mount {source} on {target}: {os.strerror(number)}")


def _set_attributes(libc: ctypes.CDLL, path: str, add: int, clear: int, flags: int) -> None:
    attributes = MountAttr(add, clear, 0, 0)
    if libc.syscall(
        SYSCALL_MOUNT_SETATTR, AT_FDCWD, path.encode(), flags, ctypes.byref(attributes), ctypes.sizeof(attributes)
    ):
        number = ctypes.get_errno()
        raise OSError(number, f"mount_setattr {path}: {os.strerror(number)} (Linux 5.12 or later is needed)")


def start(hostname: str, folder: str, daemons: list[list[str]]) -> None:
    """Seal the view (:func:`seal`), set the hostname and start each daemon (each detaches)."""
    import subprocess  # here, not above: a vtysh, started far more often, does without its import time

    seal(folder, writable_net=True)
    name = hostname.encode()
    if ctypes.CDLL(None, use_errno=True).sethostname(name, len(name)):
        raise OSError(ctypes.get_errno(), "sethostname")
    for argv in daemons:
        subprocess.run(argv, check=True)


def vtysh(folder: str, arguments: list[str]) -> None:
    """Seal the view, give up privileges (:func:`drop`) and run vtysh on ``folder``'s sockets."""
    seal(folder, writable_net=False, own_proc=True)
    program = _vtysh()
    drop()
    os.execv(program, ["vtysh", "--vty_socket", folder, "--config_dir", folder, *arguments])


def check(seconds: float) -> None:
    """Seal the view, lay each config of the JSON list on stdin (texts as Latin-1, one character a byte) in a
    read-only folder of its own, give up privileges (:func:`drop`) and run ``vtysh -C`` on each; print a JSON
    list of [exit code, stdout, stderr], the exit code null when vtysh took longer than ``seconds``."""
    import json
    import subprocess

    configs = json.load(sys.stdin)
    seal(None, writable_net=False, own_proc=True)
    os.mkdir(CHECKED)
    libc = ctypes.CDLL(None, use_errno=True)
    _mount(libc, "tmpfs", CHECKED, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0755")
    for name, data in [("vtysh.conf", ""), *((f"{number}.conf", text) for number, text in enumerate(configs))]:
        with open(os.path.join(CHECKED, name), "wb") as handle:  # vtysh reads vtysh.conf first: empty, defaults
            handle.write(data.encode("latin-1"))
    _set_attributes(libc, CHECKED, MOUNT_ATTR_RDONLY, 0, 0)
    program = _vtysh()
    drop()
    results: list[list[object]] = []
    for number in range(len(configs)):
        try:
            run = subprocess.run(
                [program, "--config_dir", CHECKED, "-C", "-f", f"{CHECKED}/{number}.conf"],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=seconds,
                check=False,
            )
        except subprocess.TimeoutExpired:
            results.append([None, "", ""])
        else:
            results.append([run.returncode, run.stdout, run.stderr])
    json.dump(results, sys.stdout)


def _vtysh() -> str:
    """The path of vtysh, found before privileges are given up."""
    return next(
        path for directory in os.get_exec_path() if os.access(path := os.path.join(directory, "vtysh"), os.X_OK)
    )


def drop() -> None:
    """Give up every privilege for what runs next, with ``no_new_privs``, and stay out of reach of what this
    process starts (not dumpable: its /proc/PID/fd cannot be opened by them): as the machine's root become
    :data:`USER` without capabilities; as the root of a user namespace (an ordinary user's sandbox) enter one more
    user namespace, which maps no user and holds no capability over this view or anything of the machine."""
    libc = ctypes.CDLL(None, use_errno=True)
    with open("/proc/self/uid_map") as handle:
        initial = handle.read().split() == ["0", "0", "4294967295"]
    if initial:
        user = pwd.getpwnam(USER)
        os.setgroups([])
        os.setresgid(user.pw_gid, user.pw_gid, user.pw_gid)
        os.setresuid(user.pw_uid, user.pw_uid, user.pw_uid)
    elif libc.unshare(CLONE_NEWUSER):
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) or libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0):
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE)")


def main(argv: list[str]) -> None:
    if argv[:1] == ["start"] and len(argv) == 4:
        import json

        start(argv[1], argv[2], json.loads(argv[3]))
    elif argv[:1] == ["vtysh"] and len(argv) >= 2:
        vtysh(argv[1], argv[2:])
    elif argv[:1] == ["check"] and len(argv) == 2:
        check(float(argv[1]))
    else:
        raise SystemExit("usage: sandbox.py start HOSTNAME FOLDER DAEMONS | vtysh FOLDER ARGUMENT... | check SECONDS")


if __name__ == "__main__":
    main(sys.argv[1:])

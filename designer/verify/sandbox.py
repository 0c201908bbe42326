"""The walls around what the lab runs: FRR daemons and vtysh write nowhere but their router's folder.

Network namespaces do not isolate the file system, and a router's frr.conf can make FRR write files
(``log file PATH``, ``dump bgp all PATH``) and vtysh open them as root (``output file PATH``). So every
daemon and every vtysh the lab runs starts through this program, run with ``python -I -S`` in a new mount
namespace of its own (``unshare --mount``: private propagation, so nothing done here reaches the machine's
mounts). Before anything of FRR starts, it:

* makes every file system read-only (``mount_setattr`` on ``/``, recursively: Linux 5.12 or later);
* lays empty tmpfs over ``/run``, ``/var``, ``/tmp`` and ``/etc/frr``, what FRR would otherwise read or
  write outside the lab (the machine's own FRR config, runtime and log folders, syslog and other sockets),
  with ``/var/run`` pointing at ``/run`` and a ``/var/tmp`` as Linux lays them out;
* gives ``/dev`` only ``null``, ``zero``, ``full``, ``random`` and ``urandom`` (no ``/dev/log``), read-only;
* binds the router's folder (``/run/designer-verify/<run>/<hostname>/``) back writable at its own path: the
  only place written here that the machine sees, and one the teardown deletes;
* for the daemons, binds the network namespace's own ``/proc/sys/net`` back writable (zebra writes
  ``ip forwarding`` there; it is the namespace's, not the machine's).

``start HOSTNAME FOLDER DAEMONS`` then sets the hostname (in the UTS namespace ``unshare --uts`` made) and
starts each daemon's command line (a JSON list of argument vectors; the daemons detach and keep this view).
``vtysh FOLDER ARGUMENT...`` drops to the ``frr`` user with no capabilities and ``no_new_privs`` and runs
``vtysh --vty_socket FOLDER --config_dir FOLDER ARGUMENT...``: its own commands (``output file``, ``copy``,
``write``), which a config file reaches after an ``end`` line, are then held by the same walls. Names and
command lines are arguments, never code or shell text. Standard library only: it runs as a script.
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
PR_SET_NO_NEW_PRIVS = 38


class MountAttr(ctypes.Structure):
    """``struct mount_attr`` of <linux/mount.h>."""

    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64), ("propagation", ctypes.c_uint64),
                ("userns_fd", ctypes.c_uint64)]


def seal(folder: str, writable_net: bool) -> None:
    """Make this mount namespace's view: everything read-only, :data:`MASKED` empty, ``folder`` (and with
    ``writable_net`` the namespace's /proc/sys/net) writable."""
    libc = ctypes.CDLL(None, use_errno=True)
    keep = [(folder, os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC))]
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
    for path, descriptor in keep:
        os.makedirs(path, exist_ok=True)
        _mount(libc, f"/proc/self/fd/{descriptor}", path, None, MS_BIND, None)
        _set_attributes(libc, path, 0, MOUNT_ATTR_RDONLY, 0)
        os.close(descriptor)


def _devices(libc: ctypes.CDLL) -> None:
    """A read-only /dev of its own holding only the memory devices of :data:`DEVICES`."""
    _mount(libc, "tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")
    for name, minor in DEVICES.items():
        os.mknod(f"/dev/{name}", stat.S_IFCHR | 0o666, os.makedev(1, minor))
        os.chmod(f"/dev/{name}", 0o666)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"/dev/{name}")
    _set_attributes(libc, "/dev", MOUNT_ATTR_RDONLY, 0, 0)


def _mount(libc: ctypes.CDLL, source: str, target: str, kind: str | None, flags: int, data: str | None) -> None:
    if libc.mount(source.encode(), target.encode(), kind.encode() if kind else None, flags,
                  data.encode() if data else None):
        number = ctypes.get_errno()
        raise OSError(number, f"mount {source} on {target}: {os.strerror(number)}")


def _set_attributes(libc: ctypes.CDLL, path: str, add: int, clear: int, flags: int) -> None:
    attributes = MountAttr(add, clear, 0, 0)
    if libc.syscall(SYSCALL_MOUNT_SETATTR, AT_FDCWD, path.encode(), flags, ctypes.byref(attributes),
                    ctypes.sizeof(attributes)):
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
    """Seal the view, become :data:`USER` without capabilities and run vtysh on ``folder``'s sockets."""
    seal(folder, writable_net=False)
    user = pwd.getpwnam(USER)
    program = next(path for directory in os.get_exec_path() if os.access(path := os.path.join(directory, "vtysh"),
                                                                          os.X_OK))  # as root: it imports
    os.setgroups([])
    os.setresgid(user.pw_gid, user.pw_gid, user.pw_gid)
    os.setresuid(user.pw_uid, user.pw_uid, user.pw_uid)
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    os.execv(program, ["vtysh", "--vty_socket", folder, "--config_dir", folder, *arguments])


def main(argv: list[str]) -> None:
    if argv[:1] == ["start"] and len(argv) == 4:
        import json

        start(argv[1], argv[2], json.loads(argv[3]))
    elif argv[:1] == ["vtysh"] and len(argv) >= 2:
        vtysh(argv[1], argv[2:])
    else:
        raise SystemExit("usage: sandbox.py start HOSTNAME FOLDER DAEMONS | vtysh FOLDER ARGUMENT...")


if __name__ == "__main__":
    main(sys.argv[1:])

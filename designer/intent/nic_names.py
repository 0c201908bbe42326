"""The Linux interface names a backend NIC may have: one rule for the intent, ``design.json`` and ``designer verify``.

Linux takes an interface name of 1-15 bytes (``IFNAMSIZ`` 16 with its NUL), not ``.`` or ``..``, without '/', ':'
or whitespace (``dev_valid_name``, net/core/dev.c); a '%' makes it pick a number instead (``dev_alloc_name``). Some
names it takes, or leaves to other files, mean something else (:data:`RESERVED`). On top of the kernel's rule the
name is lower-case ASCII starting with a letter, so no shell, YAML reader, sysctl file or ``ip -batch`` line reads it
as more than one name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

PATTERN = r"^[a-z][a-z0-9_.-]{0,14}$"
"""At most 15 characters (IFNAMSIZ), nothing a shell or a file path could read as anything but a name."""
RESERVED = {
    "all": (
        "/proc/sys/net/ipv4/conf/all holds the settings of every interface, and Linux refuses an interface of that name"
    ),
    "default": (
        "/proc/sys/net/ipv4/conf/default holds the settings of interfaces to come, and Linux refuses an "
        "interface of that name"
    ),
    "lo": "it is the loopback interface every Linux network namespace has",
    "bonding_masters": (
        "it is the bonding driver's control file in /sys/class/net, which an interface of that name hides"
    ),
    **dict.fromkeys(
        ("y", "n", "yes", "no", "on", "off", "true", "false", "null"),
        "a YAML reader takes it for a boolean or null, not a name, as the key of netplan.yaml's interface",
    ),
}
"""Names that match :data:`PATTERN` but are no NIC's, with the reason: ``all`` and ``default`` are refused by the
kernel (``sysctl_dev_name_is_allowed``, include/net/ip.h, checked in ``devinet_sysctl_register``: EINVAL), ``lo``
exists in every network namespace (EEXIST), ``bonding_masters`` is a file of ``/sys/class/net`` while the bonding
driver is loaded (drivers/net/bonding/bond_sysfs.c), and the YAML 1.1 booleans and null (which PyYAML, netplan's
reader among others, resolves as such) would not name an interface in netplan.yaml."""
VALID = "1-15 lower-case letters, digits, '_', '.' or '-', starting with a letter (enp24s0np0)"
"""What a valid name is, for error messages."""
_MATCH = re.compile(PATTERN)


def nic_name_problem(name: object) -> str:
    """What is wrong with ``name`` as a backend NIC's Linux interface name; empty when it is one."""
    if not isinstance(name, str) or not _MATCH.fullmatch(name):
        return f"{_shown(name)} is not a Linux interface name the server files can carry; use {VALID}"
    if name in RESERVED:
        return f"{name!r} is not a NIC's name: {RESERVED[name]}; give the NIC's own name (enp24s0np0)"
    return ""


def _shown(value: object) -> str:
    """``value`` as Python writes it (control characters escaped), cut at 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def server_interfaces(row: Mapping[str, Any]) -> tuple[str, ...]:
    """A server's backend interfaces as its OS names them, from its ``design.json`` row, in port order: one per NIC
    port, or on a multiplane NIC one per plane link (swplb: its ``nics``; hwplb: its plane PFs, ``plane_nics``)."""
    return tuple(row.get("plane_nics") or row.get("nics", ()))

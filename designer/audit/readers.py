"""Discovery files as plain cables ``(device, port, peer_device, peer_port)``, in the names the device reported.

One reader per format, each a function of the device the file belongs to (its file name) and the parsed file;
:func:`read` detects the format. A reader raises :class:`Unreadable` with what is wrong, and the caller names the
file. Formats (one file per device, what it printed):

* ``eos``: Arista EOS ``show lldp neighbors | json``: ``{"lldpNeighbors": [{"port", "neighborDevice",
  "neighborPort", "ttl"}, ...]}`` (EOS's eAPI output; the ``tables*`` counters beside it are ignored).
* ``lldpd``: ``lldpcli -f json0 show neighbors`` (lldpd 1.0, run by SONiC, Cumulus Linux and the servers):
  ``{"lldp": [{"interface": [{"name", "chassis": [{"name": [{"value"}]}], "port": [{"id": [{"type", "value"}],
  "descr": [{"value"}]}]}]}]}``; ``json0`` keeps every list a list whatever the number of neighbours
  (lldpcli(8)). The peer's port is its port ID when that is an interface name, else its port description (lldpd's
  default port ID is a MAC address with the interface name as description; SONiC sends the port alias as a
  locally assigned ID and the port's description, which opens with the design's name).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from designer.readback.built import shown

Cable = tuple[str, str, str, str]
"""``(device, port, peer_device, peer_port)``: one neighbour one device reports on one of its ports."""
Reader = Callable[[str, Any], list[Cable]]
Where = tuple[str | int, ...]
"""A field path in a discovery file, as :class:`~designer.errors.Problem` has it."""


class Unreadable(Exception):
    """A discovery file that is not what its format says, or in no known format: the field at fault and why."""

    def __init__(self, where: Where, message: str):
        super().__init__(message)
        self.where = where
        self.message = message


@dataclass(frozen=True)
class Format:
    """One discovery format: its name, the OS family whose port names it reports, and its reader."""

    name: str
    names: str
    """``eos`` or ``lldpd``: which of :mod:`designer.audit.names`' tables holds the device's own port names."""
    reader: Reader


def _text(value: Any, where: Where) -> str:
    if not isinstance(value, str) or not value or len(value) > 255:
        raise Unreadable(where, f"expected a name (a string of 1 to 255 characters), found {shown(value)}")
    return value


def _list(value: Any, where: Where) -> list[Any]:
    if not isinstance(value, list):
        raise Unreadable(where, f"expected a list, found {shown(value)}")
    return value


def _object(value: Any, where: Where) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Unreadable(where, f"expected an object, found {shown(value)}")
    return value


def read_eos(device: str, document: Any) -> list[Cable]:
    """EOS ``show lldp neighbors | json``."""
    cables = []
    if isinstance(document["lldpNeighbors"], dict):
        raise Unreadable(
            ("lldpNeighbors",), "a table by port ('show lldp neighbors detail'?); give 'show lldp neighbors | json'"
        )
    for number, entry in enumerate(_list(document["lldpNeighbors"], ("lldpNeighbors",))):
        where: Where = ("lldpNeighbors", number)
        entry = _object(entry, where)
        cables.append(
            (
                device,
                _text(entry.get("port"), (*where, "port")),
                _text(entry.get("neighborDevice"), (*where, "neighborDevice")),
                _text(entry.get("neighborPort"), (*where, "neighborPort")),
            )
        )
    return cables


def _first(holder: dict[str, Any], key: str, where: Where) -> dict[str, Any]:
    """The first item of ``holder[key]``: lldpd's json0 form keeps every field a list."""
    items = _list(holder.get(key), (*where, key))
    if not items:
        raise Unreadable((*where, key), "expected at least one item, found none")
    return _object(items[0], (*where, key, 0))


def _value(holder: dict[str, Any], key: str, where: Where) -> str:
    """The ``value`` of the first item of ``holder[key]``."""
    return _text(_first(holder, key, where).get("value"), (*where, key, 0, "value"))


def read_lldpd(device: str, document: Any) -> list[Cable]:
    """lldpd's ``lldpcli -f json0 show neighbors``."""
    cables = []
    if not isinstance(document["lldp"], list):
        raise Unreadable(
            ("lldp",), "not a list: 'lldpcli -f json' changes shape with the neighbours; give 'lldpcli -f json0'"
        )
    for agent, section in enumerate(document["lldp"]):
        interfaces = _object(section, ("lldp", agent)).get("interface", [])
        for number, entry in enumerate(_list(interfaces, ("lldp", agent, "interface"))):
            where: Where = ("lldp", agent, "interface", number)
            entry = _object(entry, where)
            port, port_at = _first(entry, "port", where), (*where, "port", 0)
            by_name = _first(port, "id", port_at).get("type") == "ifname"
            cables.append(
                (
                    device,
                    _text(entry.get("name"), (*where, "name")),
                    _value(_first(entry, "chassis", where), "name", (*where, "chassis", 0)),
                    _value(port, "id" if by_name else "descr", port_at),
                )
            )
    return cables


FORMATS = {"lldpNeighbors": Format("eos", "eos", read_eos), "lldp": Format("lldpd", "lldpd", read_lldpd)}
"""Each JSON format by the top-level key that marks it."""
KNOWN = "EOS 'show lldp neighbors | json' or lldpd 'lldpcli -f json0 show neighbors'"


def detect(document: Any) -> Format:
    """The format of a parsed discovery file."""
    keys = [key for key in FORMATS if isinstance(document, dict) and key in document]
    if len(keys) != 1:
        found = (
            f"an object with keys {', '.join(map(shown, sorted(document)[:5])) or '(none)'}"
            if isinstance(document, dict)
            else shown(document)
        )
        raise Unreadable((), f"not in a known format ({KNOWN}): found {found}")
    return FORMATS[keys[0]]

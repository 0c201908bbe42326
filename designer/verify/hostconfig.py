"""Read a server's generated host files back, strictly, for ``designer verify --traffic``.

A built folder holds ``servers/<server>/netplan.yaml`` (netplan v2: per backend NIC its /31, MTU, a route table
with the leaf as gateway and a ``from <address>`` rule), or with ``hosts: {format: nmconnection}`` one
NetworkManager keyfile per NIC, ``servers/<server>/<nic>.nmconnection`` (the same as ``address1``, ``mtu``,
``routeN`` with ``routeN_options=table=N`` and ``routing-ruleN``), and ``servers/<server>/sysctl.conf``
(sysctl.d lines). Both address formats give the same :class:`HostConfig`.
The lab runs as root and turns these values into ``ip`` argument vectors and writes under ``/proc/sys`` of a
server's namespace, so every value is checked here first: interface names are Linux interface names the design
gives that server, addresses are dotted IPv4 addresses with the documented prefix, tables are user tables
(1-252, 256 and above), MTUs are 68-9216, and only the network sysctls a host needs on a GPU fabric are accepted,
each within its kernel range. Anything else is an :class:`~designer.errors.InputError` naming the file and field.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from designer.errors import InputError, Problem, Source
from designer.errors import Path as ErrorPath
from designer.intent.nic_names import nic_name_problem
from designer.intent.yaml_source import decode, load_yaml

MTU_RANGE = (68, 9216)
RESERVED_TABLES = frozenset((0, 253, 254, 255))
"""unspec, default, main and local: a NIC's own table is none of them."""
MAX_TABLE = 2**32 - 1
PER_INTERFACE = {
    "arp_ignore": (0, 8),
    "arp_announce": (0, 2),
    "rp_filter": (0, 2),
    "arp_filter": (0, 1),
    "accept_local": (0, 1),
}
"""``net.ipv4.conf.<all|default|nic>.<key>`` keys verify applies, with the kernel's value range."""
GLOBAL = {"net.ipv4.fib_multipath_hash_policy": (0, 3), "net.ipv4.ip_forward": (0, 1)}
ROUTER = {"net.ipv4.fib_multipath_hash_policy": (0, 3), "net.ipv4.fib_multipath_hash_seed": (0, 2**32 - 1)}
"""The keys of an FRR router's sysctl file (:mod:`designer.render.linux`), with the kernel's range."""
SYSCTL_LINE = re.compile(r"\s*(?P<key>[^=\s]+)\s*=\s*(?P<value>\S*)\s*")
NETPLAN_NIC_KEYS = {
    "addresses",
    "mtu",
    "routes",
    "routing-policy",
    "dhcp4",
    "dhcp6",
    "optional",
    "match",
    "set-name",
    "link-local",
    "accept-ra",
}
"""Keys a NIC may have; verify applies the first four (the others do not change routing between NICs)."""
KEYFILE_KEYS = {
    "connection": {"id", "uuid", "type", "interface-name", "autoconnect", "autoconnect-priority"},
    "ethernet": {"mtu"},
    "ipv4": {"method", "address1", "never-default", "may-fail", "ignore-auto-routes", "ignore-auto-dns"},
    "ipv6": {"method"},
}
"""Sections and keys a NIC's keyfile may have besides ``routeN``, ``routeN_options`` and ``routing-ruleN`` (names
from NetworkManager's keyfile format); verify applies the address, MTU, routes and rules, and the rest must not
change routing between NICs (IPv4 method ``manual``, IPv6 off)."""
KEYFILE_LISTS = re.compile(r"(?P<list>route|routing-rule)(?P<number>[1-9][0-9]{0,2})(?P<options>_options)?")
KEYFILE_LINE = re.compile(r"(?P<key>[A-Za-z0-9_-]+)\s*=\s*(?P<value>[^\\]*?)\s*")
"""``key=value`` as GLib's key file reads it (no locale suffix; no escapes, which no value verify takes needs)."""
KEYFILE_RULE = re.compile(r"priority (?P<priority>[0-9]{1,5}) from (?P<source>\S+) table (?P<table>[0-9]{1,10})")
"""``ipv4.routing-rules`` as nm-settings-nmcli(5) writes it (``priority N from ADDRESS table N``)."""
KEYFILE_ROUTE = re.compile(r"(?P<to>[^,]+),(?P<via>[^,]+)(?:,(?P<metric>[0-9]{1,10}))?")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass(frozen=True, slots=True)
class Route:
    to: str
    """A network in CIDR form (``default`` is written ``0.0.0.0/0``)."""
    via: str
    table: int


@dataclass(frozen=True, slots=True)
class Nic:
    """One backend NIC of a server as its netplan file configures it."""

    name: str
    address: str
    prefix: int
    mtu: int | None
    routes: tuple[Route, ...]
    rules: tuple[tuple[str, int, int | None], ...]
    """``from <address> table <n> [priority <p>]`` rules as (address, table, priority or None)."""


@dataclass(frozen=True, slots=True)
class HostConfig:
    """A server's backend NICs and sysctls, every value checked."""

    nics: tuple[Nic, ...]
    sysctls: tuple[tuple[str, int], ...]
    """(key as written, value) in file order."""


def parse_host(files: dict[str, bytes], names: tuple[str, ...]) -> HostConfig:
    """A server's host files, checked: ``files`` maps the path of its address files (its ``netplan.yaml``, or its
    ``<nic>.nmconnection`` keyfiles in NIC order) and then of its sysctl file to their bytes; ``names`` are the NIC
    OS names the design gives the server. A bad file is an :class:`InputError` at its file and line, every
    problem of that file at once."""
    *addressing, (sysctl_where, sysctl) = files.items()
    nics: list[Nic] = []
    for where, data in addressing:
        if where.endswith(".nmconnection"):
            nic, source, problems = parse_keyfile(where, data, names)
            found: tuple[Nic, ...] = (nic,) if nic is not None else ()
        else:
            found, source, problems = parse_netplan(where, data, names)
        if problems:
            raise InputError(problems, source, about=where)
        nics += found
    sysctls, problems = parse_sysctl(sysctl, names)
    if problems:
        raise InputError(problems, Source(sysctl_where, {}), about=sysctl_where)
    return HostConfig(tuple(nics), sysctls)


def parse_netplan(where: str, data: bytes, names: tuple[str, ...]) -> tuple[tuple[Nic, ...], Source, list[Problem]]:
    """The NICs of a netplan v2 file, the lines of its fields and every problem found (``names``: the interfaces
    the server has). YAML is read by the intent's safe reader (plain data only, bounded)."""
    document = load_yaml(decode(data, where), where)
    problems = list(document.problems)
    network = document.data.get("network") if isinstance(document.data, dict) else None
    if not isinstance(network, dict) or network.get("version") != 2 or not isinstance(network.get("ethernets"), dict):
        problems.append(Problem(("network",), "a netplan file is {network: {version: 2, ethernets: {<nic>: ...}}}"))
        return (), document.source, problems
    nics = []
    for name, body in network["ethernets"].items():
        path: ErrorPath = ("network", "ethernets", name)
        if nic_name_problem(name) or name not in names:
            problems.append(
                Problem(path, f"{_shown(name)} is not a NIC of this server; its NICs are {', '.join(names) or 'none'}")
            )
            continue
        if not isinstance(body, dict):
            problems.append(Problem(path, "a NIC's settings are a mapping"))
            continue
        nic = _nic(name, body, path, problems)
        if nic is not None:
            nics.append(nic)
    return tuple(nics), document.source, problems


def _nic(name: str, body: dict[str, Any], path: ErrorPath, problems: list[Problem]) -> Nic | None:
    """The NIC ``name`` of a netplan file (its ``body`` at ``path``), or None with its problems recorded."""
    before = len(problems)
    unknown = sorted(str(key) for key in body if key not in NETPLAN_NIC_KEYS)
    if unknown:
        problems.append(
            Problem(
                path,
                f"unknown key(s) {', '.join(map(_shown, unknown))}; a NIC may have "
                f"{', '.join(sorted(NETPLAN_NIC_KEYS))}",
            )
        )
    addresses = body.get("addresses")
    interface = None
    if not (isinstance(addresses, list) and len(addresses) == 1 and isinstance(addresses[0], str)):
        problems.append(Problem((*path, "addresses"), "one address with its prefix, e.g. [10.2.0.1/31]"))
    else:
        interface = _interface(addresses[0])
        if interface is None:
            problems.append(
                Problem(
                    (*path, "addresses"),
                    f"{_shown(addresses[0])} is not an IPv4 address with a /31 or /30 prefix, e.g. 10.2.0.1/31",
                )
            )
    mtu = body.get("mtu")
    if mtu is not None and not (type(mtu) is int and MTU_RANGE[0] <= mtu <= MTU_RANGE[1]):
        problems.append(Problem((*path, "mtu"), f"{_shown(mtu)} is not an MTU from {MTU_RANGE[0]} to {MTU_RANGE[1]}"))
    routes, rules = _netplan_routes(body, path, problems), _netplan_rules(body, path, problems)
    if len(problems) > before or interface is None:
        return None
    return Nic(name, str(interface.ip), interface.network.prefixlen, mtu, routes, rules)


def _netplan_routes(body: dict[str, Any], path: ErrorPath, problems: list[Problem]) -> tuple[Route, ...]:
    """A netplan NIC's ``routes``: each to a network or default, via an IPv4 address, in a table."""
    routes = []
    for number, route in enumerate(_list(body, "routes", path, problems)):
        where = (*path, "routes", number)
        fields = route if isinstance(route, dict) else {}
        to, via, table = _network(fields.get("to")), _address(fields.get("via")), _table(fields.get("table"))
        if set(fields) - {"to", "via", "table", "on-link", "metric"} or None in (to, via, table):
            problems.append(
                Problem(
                    where,
                    f"{_shown(route)} is not {{to: <network or default>, via: <IPv4 "
                    "address>, table: <1-252 or 256-4294967295>}",
                )
            )
        else:
            routes.append(Route(str(to), str(via), int(table or 0)))
    return tuple(routes)


def _netplan_rules(
    body: dict[str, Any], path: ErrorPath, problems: list[Problem]
) -> tuple[tuple[str, int, int | None], ...]:
    """A netplan NIC's ``routing-policy``: each from an address to a table, with its priority or None."""
    rules = []
    for number, rule in enumerate(_list(body, "routing-policy", path, problems)):
        where = (*path, "routing-policy", number)
        fields = rule if isinstance(rule, dict) else {}
        source, table, priority = _source(fields.get("from")), _table(fields.get("table")), fields.get("priority")
        if (
            set(fields) - {"from", "table", "priority"}
            or source is None
            or table is None
            or not (priority is None or (type(priority) is int and 1 <= priority <= 32765))
        ):
            problems.append(
                Problem(
                    where,
                    f"{_shown(rule)} is not {{from: <IPv4 address>, table: <1-252 or "
                    "256-4294967295>, priority: <1-32765> (optional)}",
                )
            )
        else:
            rules.append((source, table, priority))
    return tuple(rules)


def parse_keyfile(where: str, data: bytes, names: tuple[str, ...]) -> tuple[Nic | None, Source, list[Problem]]:
    """The NIC of a NetworkManager keyfile ``<nic>.nmconnection``, the line of each key and every problem found
    (``names``: the interfaces the server has; the file's NIC is the one its name says)."""
    source = Source(where, {})
    try:
        text = data.decode()
    except UnicodeDecodeError as error:
        return None, source, [Problem((), "not UTF-8 text", data[: error.start].count(b"\n") + 1)]
    sections, lines, problems = _keyfile(text)
    source = Source(where, lines)
    name = where.rsplit("/", 1)[-1].removesuffix(".nmconnection")
    if name not in names or nic_name_problem(name):
        problems.append(
            Problem((), f"{_shown(name)} is not a NIC of this server; its NICs are {', '.join(names) or 'none'}", 1)
        )
        return None, source, problems
    problems.extend(_keyfile_key_problems(sections, name))
    ipv4 = sections.get("ipv4", {})
    interface = _interface(ipv4.get("address1", ""))
    if interface is None:
        problems.append(
            Problem(
                ("ipv4", "address1"),
                f"{_shown(ipv4.get('address1'))} is not an IPv4 address with a /31 or /30 prefix, e.g. 10.2.0.1/31",
            )
        )
    mtu_text = sections.get("ethernet", {}).get("mtu")
    mtu = int(mtu_text) if mtu_text is not None and re.fullmatch(r"[0-9]{1,5}", mtu_text) else None
    if mtu_text is not None and not (mtu is not None and MTU_RANGE[0] <= mtu <= MTU_RANGE[1]):
        problems.append(
            Problem(("ethernet", "mtu"), f"{_shown(mtu_text)} is not an MTU from {MTU_RANGE[0]} to {MTU_RANGE[1]}")
        )
    routes, rules = _keyfile_routes(ipv4, problems), _keyfile_rules(ipv4, problems)
    if problems or interface is None:
        return None, source, problems
    return Nic(name, str(interface.ip), interface.network.prefixlen, mtu, routes, rules), source, problems


def _keyfile_key_problems(sections: dict[str, dict[str, str]], name: str) -> list[Problem]:
    """The keyfile's connection and IP method keys against what a backend NIC ``name`` must have: an Ethernet
    connection on the interface, manual IPv4, no IPv6 routes, true or false flags and a priority from -999 to
    999."""
    problems = []
    connection = sections.get("connection", {})
    wanted = {("connection", "type"): "ethernet", ("connection", "interface-name"): name, ("ipv4", "method"): "manual"}
    for (section, key), value in wanted.items():
        if sections.get(section, {}).get(key) != value:
            problems.append(Problem((section, key), f"{_shown(sections.get(section, {}).get(key))} is not {value!r}"))
    if "uuid" in connection and not UUID.fullmatch(connection["uuid"]):
        problems.append(Problem(("connection", "uuid"), f"{_shown(connection['uuid'])} is not a UUID"))
    if sections.get("ipv6", {}).get("method", "disabled") not in ("disabled", "ignore", "link-local"):
        problems.append(
            Problem(("ipv6", "method"), "the backend NIC has no IPv6 routes: disabled, ignore or link-local")
        )
    for section, key in (
        ("connection", "autoconnect"),
        *(("ipv4", key) for key in ("never-default", "may-fail", "ignore-auto-routes", "ignore-auto-dns")),
    ):
        if sections.get(section, {}).get(key, "true") not in ("true", "false"):
            problems.append(Problem((section, key), f"{_shown(sections[section][key])} is not true or false"))
    priority = connection.get("autoconnect-priority", "0")
    if not re.fullmatch(r"-?[0-9]{1,3}", priority) or not -999 <= int(priority) <= 999:
        problems.append(Problem(("connection", "autoconnect-priority"), f"{_shown(priority)} is not -999 to 999"))
    return problems


def _keyfile(text: str) -> tuple[dict[str, dict[str, str]], dict[ErrorPath, int], list[Problem]]:
    """A keyfile's sections (keys and values), the line of each section and key, and every line that is not one
    of :data:`KEYFILE_KEYS` (or a numbered route or rule) written once."""
    sections: dict[str, dict[str, str]] = {}
    lines: dict[ErrorPath, int] = {}
    problems: list[Problem] = []
    section = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("[") and line.rstrip().endswith("]"):
            section = line.strip()[1:-1]
            if section not in KEYFILE_KEYS or section in sections:
                problems.append(
                    Problem(
                        (),
                        f"{_shown(line.strip())}: {'a second ' if section in sections else ''}"
                        f"section; a NIC's keyfile has [{'], ['.join(KEYFILE_KEYS)}] once each",
                        number,
                    )
                )
                section = None
                continue
            sections[section], lines[(section,)] = {}, number
            continue
        match = KEYFILE_LINE.fullmatch(line)
        if section is None or match is None:
            problems.append(Problem((), f"{_shown(line.strip())}: not a key=value line of a known section", number))
            continue
        key, value = match["key"], match["value"]
        listed = KEYFILE_LISTS.fullmatch(key)
        known = key in KEYFILE_KEYS[section] or (
            section == "ipv4" and listed is not None and not (listed["list"] == "routing-rule" and listed["options"])
        )
        if not known or key in sections[section]:
            problems.append(
                Problem(
                    (section, key),
                    f"{'written twice' if known else 'unknown key'}; [{section}] may "
                    f"have {', '.join(sorted(KEYFILE_KEYS[section]))}"
                    + (", routeN, routeN_options, routing-ruleN" if section == "ipv4" else ""),
                    number,
                )
            )
            continue
        sections[section][key], lines[(section, key)] = value, number
    return sections, lines, problems


def _keyfile_routes(ipv4: dict[str, str], problems: list[Problem]) -> tuple[Route, ...]:
    """``routeN=<network>,<gateway>[,<metric>]`` with ``routeN_options=table=<n>[,onlink=true|false]``, by N."""
    routes = []
    numbers = sorted(
        {int(match["number"]) for key in ipv4 if (match := KEYFILE_LISTS.fullmatch(key)) and match["list"] == "route"}
    )
    for number in numbers:
        key = f"route{number}"
        match = KEYFILE_ROUTE.fullmatch(ipv4.get(key, ""))
        to, via = (_network(match["to"]), _address(match["via"])) if match else (None, None)
        options = dict(option.partition("=")[::2] for option in ipv4.get(f"{key}_options", "").split(","))
        table = _table(int(options["table"])) if re.fullmatch(r"[0-9]{1,10}", options.get("table", "")) else None
        if to is None or via is None:
            problems.append(Problem(("ipv4", key), f"{_shown(ipv4.get(key))} is not <network>,<IPv4 gateway>"))
        elif (
            table is None
            or set(options) - {"table", "onlink"}
            or options.get("onlink", "true") not in ("true", "false")
        ):
            problems.append(
                Problem(
                    ("ipv4", f"{key}_options"),
                    f"{_shown(ipv4.get(key + '_options'))} is not table=<1-252 or 256-4294967295>[,onlink=true|false]",
                )
            )
        else:
            routes.append(Route(to, via, table))
    return tuple(routes)


def _keyfile_rules(ipv4: dict[str, str], problems: list[Problem]) -> tuple[tuple[str, int, int | None], ...]:
    """``routing-ruleN=priority <p> from <address> table <n>``, by N."""
    rules = []
    numbers = sorted(
        {
            int(match["number"])
            for key in ipv4
            if (match := KEYFILE_LISTS.fullmatch(key)) and match["list"] == "routing-rule"
        }
    )
    for number in numbers:
        key = f"routing-rule{number}"
        match = KEYFILE_RULE.fullmatch(ipv4[key])
        source = _source(match["source"]) if match else None
        table = _table(int(match["table"])) if match else None
        priority = int(match["priority"]) if match else 0
        if source is None or table is None or not 1 <= priority <= 32765:
            problems.append(
                Problem(
                    ("ipv4", key),
                    f"{_shown(ipv4[key])} is not priority <1-32765> from <IPv4 "
                    "address> table <1-252 or 256-4294967295>",
                )
            )
        else:
            rules.append((source, table, priority))
    return tuple(rules)


def parse_sysctl(data: bytes, names: tuple[str, ...]) -> tuple[tuple[tuple[str, int], ...], list[Problem]]:
    """The ``key = value`` lines of a server's sysctl.d file (``#`` and ``;`` start comments) and every problem
    found."""
    settings, problems = _sysctl_lines(
        data,
        lambda key: _limits(key, names),
        f"{', '.join(GLOBAL)} and net.ipv4.conf.<all|default|nic>.<{'|'.join(PER_INTERFACE)}>",
    )
    return tuple((key, value) for key, value, _ in settings), problems


def parse_router_sysctl(where: str, data: bytes) -> tuple[tuple[str, int], ...]:
    """An FRR router's sysctl.d file (``configs/sysctl/<hostname>.conf``), checked: only the keys the designer
    writes there (:data:`ROUTER`), each once and within the kernel's range; else an :class:`InputError` at its
    line, every problem of the file at once."""
    settings, problems = _sysctl_lines(data, ROUTER.get, " and ".join(ROUTER))
    seen: set[str] = set()
    for key, _, number in settings:
        if key in seen:
            problems.append(Problem((key,), "written twice; each setting once", number))
        seen.add(key)
    if problems:
        raise InputError(problems, Source(where, {}), about=where)
    return tuple((key, value) for key, value, _ in settings)


def _sysctl_lines(
    data: bytes, limits_of: Callable[[str], tuple[int, int] | None], accepted: str
) -> tuple[list[tuple[str, int, int]], list[Problem]]:
    """The settings (key, value, line) of a sysctl.d file whose keys ``limits_of`` knows (their value range), and
    every problem."""
    try:
        text = data.decode()
    except UnicodeDecodeError as error:
        return [], [Problem((), "not UTF-8 text", data[: error.start].count(b"\n") + 1)]
    settings, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip()[0] in "#;":
            continue
        match = SYSCTL_LINE.fullmatch(line)
        key = match["key"].lstrip("-") if match else ""
        limits = limits_of(key)
        if match is None or limits is None:
            problems.append(
                Problem((), f"{_shown(line.strip())[:80]}: verify applies only {accepted} = <integer>", number)
            )
            continue
        value = match["value"]
        if not re.fullmatch(r"[0-9]{1,10}", value) or not limits[0] <= int(value) <= limits[1]:
            problems.append(
                Problem((key,), f"{_shown(value)} is not an integer from {limits[0]} to {limits[1]}", number)
            )
            continue
        settings.append((key, int(value), number))
    return settings, problems


def _limits(key: str, names: tuple[str, ...]) -> tuple[int, int] | None:
    """The value range of ``key`` if verify applies it (``net.ipv4.conf.<nic>`` only for the server's NICs)."""
    if key in GLOBAL:
        return GLOBAL[key]
    parts = sysctl_path(key)
    if (
        len(parts) == 5
        and parts[:3] == ("net", "ipv4", "conf")
        and parts[4] in PER_INTERFACE
        and (parts[3] in ("all", "default") or parts[3] in names)
    ):
        return PER_INTERFACE[parts[4]]
    return None


def sysctl_path(key: str) -> tuple[str, ...]:
    """The parts of ``key``'s file below ``/proc/sys``, read as sysctl.d(5) and procps ``sysctl`` read it: when its
    first separator is '/', only '/' separates (``net/ipv4/conf/eth0.100/rp_filter``); when it is '.', dots separate
    and a '/' stands for a dot inside a part (``net.ipv4.conf.eth0/100.rp_filter``)."""
    first = next((character for character in key if character in "./"), ".")
    return tuple(key.split("/") if first == "/" else (part.replace("/", ".") for part in key.split(".")))


def _list(body: dict[str, Any], key: str, path: ErrorPath, problems: list[Problem]) -> list[Any]:
    value = body.get(key, [])
    if not isinstance(value, list):
        problems.append(Problem((*path, key), f"a list, not {_shown(value)}"))
        return []
    return value


def _interface(text: str) -> ipaddress.IPv4Interface | None:
    if not re.fullmatch(r"[0-9]{1,3}(\.[0-9]{1,3}){3}/3[01]", text):
        return None
    try:
        return ipaddress.IPv4Interface(text)
    except ValueError:
        return None


def _address(value: object) -> str | None:
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{1,3}(\.[0-9]{1,3}){3}", value):
        return None
    try:
        return str(ipaddress.IPv4Address(value))
    except ValueError:
        return None


def _source(value: object) -> str | None:
    """A rule's ``from``: an address, optionally written as a /32."""
    if isinstance(value, str) and value.endswith("/32"):
        value = value[:-3]
    return _address(value)


def _network(value: object) -> str | None:
    if value == "default":
        return "0.0.0.0/0"
    if not isinstance(value, str) or not re.fullmatch(r"[0-9]{1,3}(\.[0-9]{1,3}){3}/[0-9]{1,2}", value):
        return None
    try:
        return str(ipaddress.IPv4Network(value))
    except ValueError:
        return None


def _table(value: object) -> int | None:
    ok = type(value) is int and 1 <= value <= MAX_TABLE and value not in RESERVED_TABLES
    return value if ok else None  # type: ignore[return-value]


def _shown(value: object) -> str:
    return repr(value)[:60]

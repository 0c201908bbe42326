"""Read back what ``designer build`` wrote (``design.json``, ``manifest.json``) without trusting it.

``designer diff``, ``designer verify`` and ``designer check OUTPUT`` read folders that anyone may have edited
(a pull request can change committed outputs). Everything they use is checked here first: the file is a
regular file (not a link, a folder or a device), UTF-8 JSON, the keys they read have the expected types,
switch and server names are those :mod:`designer.backend.wiring` and :mod:`designer.networks` make, ports are
``swpN``/``swpNsL``/``nicN`` (``feN``, ``stN``, ``ibN`` in the networks beside the backend), a server's
``nics`` are names :mod:`designer.intent.nic_names` accepts, every
address is a dotted IPv4 address outside 0/8, 127/8 and 224/3 with each link one /31 (the upper end even) or, on a
switch-to-switch link of an unnumbered underlay, null at both ends and in the subnet,
ASNs are integers from 1 to 4294967294; an InfiniBand design (its summary names ``subnet_managers``) has no
addresses, subnets or ASNs at all. ``designer verify`` turns names into namespace, folder and host names
and runs as root, so nothing reaches it unchecked.

A bad file is an :class:`~designer.errors.InputError` (exit 2) naming the file, the line and the field.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, cast

from designer.backend.wiring import LINK_TIERS
from designer.errors import InputError, Problem, Source
from designer.files import Refused, output_cap, read_below
from designer.findings import SEVERITIES, Finding
from designer.intent.configs import BALANCING_ALIASES, BALANCING_MODES
from designer.intent.fields import safe_name
from designer.intent.nic_names import nic_name_problem
from designer.intent.site_catalog import SiteCatalogs, folder_catalogs
from designer.intent.switch_spec import SWITCH_TIERS
from designer.json_text import string_scanner
from designer.networks.sizing import PREFIXES as NETWORK_PREFIXES
from designer.outputs.folder import INTENT_FILE, SITE_CATALOG_FILE

if TYPE_CHECKING:
    from designer.intent import Intent

DESIGN_FILE = "design.json"
MANIFEST_FILE = "manifest.json"
NAMES = {
    "leaf": (
        re.compile(r"p[0-9]{1,4}-su[0-9]{1,6}-(r[0-9]{1,4}-leaf|rack[0-9]{1,4}-leaf[01]?)"),
        "p{plane}-su{su}-r{rail}-leaf, or p{plane}-su{su}-rack{k}-leaf (with a second switch a rack -leaf0, -leaf1)",
    ),
    "spine": (
        re.compile(r"p[0-9]{1,4}-(pod[0-9]{1,6}-)?spine[0-9]{1,6}"),
        "p{plane}-spine{i} or p{plane}-pod{pod}-spine{i}",
    ),
    "super_spine": (re.compile(r"p[0-9]{1,4}-g[0-9]{1,6}-ss[0-9]{1,6}"), "p{plane}-g{group}-ss{i}"),
    "server": (
        re.compile(r"su[0-9]{1,6}-srv[0-9]{1,6}|sys[0-9]{1,6}-tray[0-9]{1,3}"),
        "su{su}-srv{i}, or sys{system}-tray{tray} for a rack-scale system's tray",
    ),
}
"""Device names by role, as :func:`designer.backend.wiring.wire` makes them (ASCII digits; at most 25 characters)."""
NETWORK_NAMES = {
    **{
        (network, role): re.compile(f"{prefix}-{pattern}")
        for network, prefix in NETWORK_PREFIXES.items()
        for role, pattern in (
            ("leaf", "g[0-9]{1,6}-leaf[0-9]{1,2}"),
            ("border_leaf", "border[0-9]{1,4}"),
            ("storage_leaf", "sg[0-9]{1,6}-leaf[0-9]{1,2}"),
            ("spine", "spine[0-9]{1,4}"),
        )
    },
    **{(network, "server"): NAMES["server"][0] for network in NETWORK_PREFIXES},
    **{(network, "storage"): re.compile("storage[0-9]{1,6}") for network in NETWORK_PREFIXES},
    ("oob", "management"): re.compile("(r[0-9]{1,4}-[0-9]{1,4}|sys[0-9]{1,6})-mgmt[0-9]{1,3}"),
    ("oob", "oob_spine"): re.compile("oob-spine[0-9]{1,4}"),
}
"""Device names of the networks beside the backend by network and role, as :mod:`designer.networks` makes them."""
TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""A device or port name of an out-of-band cable (a backend device, a PDU, a management switch)."""
SWITCH_PORT = re.compile(r"swp[1-9][0-9]{0,3}(s[0-9]{1,2})?")
SERVER_PORT = re.compile(r"nic[0-9]{1,3}(s[0-9])?")
PORTS = {
    False: (SWITCH_PORT, "switch port name (swpN or swpNsL)"),
    True: (SERVER_PORT, "server port name (nicN, or nicNsP for plane P of a multiplane NIC port)"),
}
"""Port names by end (server or not): at most 10 characters, within Linux's 15 for an interface name."""
REFUSED_FIRST_OCTETS = frozenset((0, 127, *range(224, 256)))
"""Addresses refused anywhere in a design: 0.0.0.0/8, 127.0.0.0/8 (loopback), 224.0.0.0/3 (multicast, reserved)."""
ASN_RANGE = (1, 4_294_967_294)
MAX_DEPTH = 16
"""Deepest nesting accepted in a finding's evidence (the checks write 3 levels)."""
MAX_PROBLEMS = 20
"""Problems listed per file; the rest are counted."""
CHANGED = (
    "the file's sha256 differs: it was changed after 'designer build'; rebuild the folder with 'designer build INTENT'"
)

Rule = Callable[[Any], str]
"""What is wrong with a value ("" when it is valid)."""


def read_regular(path: Path) -> bytes:
    """The bytes of ``path`` if it is a regular file (not a link, a folder, a FIFO or a device)."""
    return read_inside(path.parent, (path.name,))


def read_inside(folder: Path, parts: tuple[str, ...]) -> bytes:
    """A regular file below ``folder`` reached through real folders only (no link leads out), no larger than the
    cap of its kind (:func:`~designer.files.output_cap`)."""
    try:
        return read_below(folder, parts, output_cap(parts))
    except Refused as error:
        raise _file_error(error.path, f"{error.reason}; a built output holds regular files only") from None
    except OSError as error:
        raise _file_error(folder.joinpath(*parts), f"cannot be read: {error.strerror or error}") from None


def read_built_design(folder: Path) -> dict[str, Any]:
    """``folder``'s ``design.json``, checked (see :func:`parse_design`) once its sha256 is the one ``manifest.json``
    records: a design edited after ``designer build`` is refused, as ``designer check`` refuses it."""
    path = folder / DESIGN_FILE
    data = read_regular(path)
    read_manifest(folder).check({DESIGN_FILE: data})
    return parse_design(str(path), data)


def parse_design(where: str, data: bytes) -> dict[str, Any]:
    """A built ``design.json`` from its bytes; every key that diff, verify and check read is checked.
    ``where`` names the file in the problems."""
    text, value = _json(where, data)
    problems = design_problems(value)
    if problems:
        raise _error(where, text, problems)
    return cast(dict[str, Any], value)  # design_problems refuses anything but a JSON object


def folder_intent(folder: Path) -> Intent | None:
    """The intent ``folder`` was built from: its ``intent.yaml`` with the site catalog entries the build kept
    beside it (:func:`built_catalogs`), each as the manifest records it; None without an intent.yaml.
    :class:`InputError` for a file changed after the build, or an intent this designer refuses."""
    from designer.validation import validated_intent

    raw = built_intent(folder)
    return None if raw is None else validated_intent(folder / INTENT_FILE, raw, built_catalogs(folder))


def output_findings(folder: Path) -> tuple[list[Finding], str]:
    """The findings the build recorded in ``folder/design.json`` and the design's name, after checking every
    file against ``manifest.json`` (a folder edited after ``designer build`` is refused)."""
    if not (folder / MANIFEST_FILE).exists() and not (folder / DESIGN_FILE).exists():
        raise InputError(
            [
                Problem(
                    (),
                    f"{folder} is not an output folder (no {MANIFEST_FILE} or {DESIGN_FILE}); "
                    "give an intent file or a folder written by 'designer build'",
                )
            ],
            about=str(folder),
        )
    manifest_path, design_path = folder / MANIFEST_FILE, folder / DESIGN_FILE
    text, manifest = _json(str(manifest_path), read_regular(manifest_path))
    problems = manifest_problems(folder, manifest)
    if problems:
        raise _error(str(manifest_path), text, problems)
    data = read_regular(design_path)
    design = parse_design(str(design_path), data)
    from designer.checks import CHECKS  # the checks and all they model, imported only for a folder's findings

    known = {module.ID for module in CHECKS}
    rows = design.get("findings", [])
    unknown = [
        Problem(
            ("findings", number, "check"),
            f"{shown(row['check'])} is not a check of this designer; known checks: {', '.join(sorted(known))}",
        )
        for number, row in enumerate(rows)
        if row["check"] not in known
    ]
    if unknown:
        raise _error(str(design_path), data.decode(), unknown)
    findings = [
        Finding(row["check"], row["severity"], row["message"], row["subject"], row.get("evidence", {})) for row in rows
    ]
    return findings, design["name"]


def built_intent(folder: Path) -> bytes | None:
    """The bytes of the intent ``folder`` was built from (``intent.yaml``), once their sha256 is the
    ``intent_sha256`` that ``manifest.json`` records; None when the folder has no intent.yaml (built by a designer
    that did not keep it). Anything else (a link, an edited file, a manifest without the hash) is refused."""
    if not (folder / INTENT_FILE).exists() and not (folder / INTENT_FILE).is_symlink():
        return None
    manifest_path = folder / MANIFEST_FILE
    if not manifest_path.exists() and not manifest_path.is_symlink():
        read_manifest(folder)  # the input error of a folder designer build did not write
    text, manifest = _json(str(manifest_path), read_regular(manifest_path))
    recorded = manifest.get("intent_sha256") if isinstance(manifest, dict) else None
    if not (isinstance(recorded, str) and re.fullmatch(r"[0-9a-f]{64}", recorded)):
        raise _error(
            str(manifest_path),
            text,
            [
                Problem(
                    ("intent_sha256",),
                    (
                        f"{shown(recorded)} is not a sha256 (64 hexadecimal digits); rebuild the folder with "
                        "'designer build INTENT'"
                    ),
                )
            ],
        )
    data = read_inside(folder, (INTENT_FILE,))
    if hashlib.sha256(data).hexdigest() != recorded:
        raise _file_error(
            folder / INTENT_FILE,
            (
                f"its sha256 differs from the intent_sha256 {MANIFEST_FILE} records: it was changed after 'designer "
                "build'; rebuild the folder with 'designer build INTENT'"
            ),
        )
    return data


def built_catalogs(folder: Path) -> SiteCatalogs | None:
    """The site catalog entries ``folder``'s design used (``site-catalog.yaml``, once its sha256 is the one
    ``manifest.json`` records for it), to rebuild its design from the folder alone; None when its intent named no
    site catalog. An edited or missing file in the manifest is refused."""
    path = folder / SITE_CATALOG_FILE
    if not path.exists() and not path.is_symlink():
        return None
    data = read_inside(folder, (SITE_CATALOG_FILE,))
    read_manifest(folder).check({SITE_CATALOG_FILE: data})
    try:
        text = data.decode()
    except UnicodeDecodeError:
        raise _file_error(path, "is not UTF-8 text; rebuild the folder with 'designer build INTENT'") from None
    return folder_catalogs(text, str(path), ((SITE_CATALOG_FILE, hashlib.sha256(data).hexdigest()),))


def manifest_problems(folder: Path, manifest: object) -> list[Problem]:
    """Every file ``manifest.json`` lists is a regular file inside ``folder`` with that sha256."""
    hashes, problems = _listed(manifest)
    for relative, digest in hashes.items():
        path = ("files", relative)
        try:
            data = read_inside(folder, PurePosixPath(relative).parts)
        except InputError as error:
            problems.append(Problem(path, error.problems[0].message))
            continue
        if hashlib.sha256(data).hexdigest() != digest:
            problems.append(Problem(path, CHANGED))
    return problems


@dataclass(frozen=True)
class Manifest:
    """A folder's ``manifest.json``, checked: the sha256 it records for each file (see :func:`read_manifest`)."""

    where: str
    text: str
    hashes: dict[str, str]

    def check(self, files: Mapping[str, bytes]) -> None:
        """Raise an :class:`InputError` naming every one of ``files`` (relative path -> the bytes read) that the
        manifest does not list or whose sha256 differs from the one it records."""
        problems = [
            Problem(
                ("files", relative),
                CHANGED
                if relative in self.hashes
                else ("not listed: the build did not write it; rebuild the folder with 'designer build INTENT'"),
            )
            for relative, data in files.items()
            if self.hashes.get(relative) != hashlib.sha256(data).hexdigest()
        ]
        if problems:
            raise _error(self.where, self.text, problems)


def read_manifest(folder: Path) -> Manifest:
    """``folder/manifest.json``, a regular file whose every entry is a path inside the folder and a sha256, without
    reading the files it lists (a folder that has none was not written by ``designer build``: an input error)."""
    path = folder / MANIFEST_FILE
    if not path.exists() and not path.is_symlink():
        raise _file_error(
            path,
            "missing: the folder was not written by 'designer build' (which lists every file "
            "with its sha256 there); rebuild it with 'designer build INTENT'",
        )
    text, manifest = _json(str(path), read_regular(path))
    hashes, problems = _listed(manifest)
    if problems:
        raise _error(str(path), text, problems)
    return Manifest(str(path), text, hashes)


def _listed(manifest: object) -> tuple[dict[str, str], list[Problem]]:
    """The sha256 ``manifest.json`` records for each file whose entry is valid, and a problem for every other."""
    if not isinstance(manifest, dict) or not isinstance(manifest.get("files"), dict):
        return {}, [Problem((), "a manifest.json is a JSON object whose 'files' maps each file to its sha256")]
    files: dict[str, object] = manifest["files"]
    problems = [] if DESIGN_FILE in files else [Problem(("files",), f"{DESIGN_FILE} is not listed")]
    hashes = {}
    for relative, digest in files.items():
        path = ("files", relative)
        parts = PurePosixPath(relative).parts
        if not relative or PurePosixPath(relative).is_absolute() or ".." in parts or "\\" in relative:
            problems.append(Problem(path, f"{shown(relative)} is not a path inside the folder"))
        elif not (isinstance(digest, str) and re.fullmatch(r"[0-9a-f]{64}", digest)):
            problems.append(Problem(path, f"{shown(digest)} is not a sha256 (64 hexadecimal digits)"))
        else:
            hashes[relative] = digest
    return hashes, problems


def design_problems(data: object) -> list[Problem]:
    """What is wrong with a parsed ``design.json`` (empty when diff, verify and check can read it)."""
    if not isinstance(data, dict):
        return [Problem((), f"a design.json is a JSON object with name, summary, devices and links, not {_kind(data)}")]
    problems = _fields(
        data,
        (),
        {"name": _design_name, "summary": _is(dict), "devices": _is(list), "links": _is(list)},
        optional={
            "findings": _is(list),
            "networks": _is(dict),
            "network_devices": _is(list),
            "network_links": _is(list),
        },
    )
    addressed = True
    if isinstance(data.get("summary"), dict):
        addressed = "subnet_managers" not in data["summary"]  # an InfiniBand design has no addresses or ASNs
        problems += _summary(data["summary"], addressed)
    roles: dict[str, str] = {}
    if isinstance(data.get("devices"), list):
        problems += _devices(data["devices"], roles, addressed)
    if isinstance(data.get("links"), list):
        problems += _links(data["links"], roles, addressed)
    if isinstance(data.get("findings"), list):
        problems += _findings(data["findings"])
    network_roles: dict[str, tuple[str, str]] = {}
    if isinstance(data.get("network_devices"), list):
        problems += _network_devices(data["network_devices"], network_roles)
    if isinstance(data.get("network_links"), list):
        problems += _network_links(data["network_links"], network_roles, roles)
    return problems


# ---- the parts of design.json --------------------------------------------------------------------------------


def _summary(summary: dict[str, Any], addressed: bool) -> list[Problem]:
    path = ("summary",)
    return _fields(
        summary,
        path,
        {
            "tiers": _choice((2, 3)),
            "gpus": _count,
            **({"asns": _count} if addressed else {}),
            "switches": _counts(SWITCH_TIERS),
            "links": _counts(LINK_TIERS),
            "sizing": _counts(("spines_per_pod", "leaf_spine_parallel_links", "scalable_units_per_pod")),
        },
        optional={"bisection_tbps": _number_or_null, "checks": _counts(("passed", "failed", "warnings"))},
    )


def _devices(rows: list[Any], roles: dict[str, str], addressed: bool) -> list[Problem]:
    """Every device row (a switch with its ASN, loopback and announcements when the design is ``addressed``);
    ``roles`` gets each valid name's role, for the links."""
    problems = []
    for number, row in enumerate(rows):
        path: tuple[str | int, ...] = ("devices", number)
        if not isinstance(row, dict):
            problems.append(Problem(path, f"a device is a JSON object, not {_kind(row)}"))
            continue
        role = row.get("role")
        if role not in NAMES:
            problems.append(
                Problem((*path, "role"), f"{shown(role)} is not a role; expected leaf, spine, super_spine or server")
            )
            continue
        required: dict[str, Rule] = {"name": _device_name(role), "model": _is(str)}
        if role != "server":
            required.update(plane=_count)
            required.update(dict(asn=_asn, loopback=_address, announces=_networks) if addressed else {})
            required.update({key: _count for key in {"leaf": ("pod", "su"), "spine": ("pod",)}.get(role, ())})
        problems += _fields(
            row,
            path,
            required,
            optional={
                "pod": _count,
                "su": _count,
                "load_balancing": _balancing,
                "nics": _nic_names,
                "plane_nics": _nic_names,
            },
        )
        name = row.get("name")
        if isinstance(name, str) and not _device_name(role)(name):
            if name in roles:
                problems.append(Problem((*path, "name"), f"{shown(name)} is a second device of that name"))
            roles[name] = role
    return problems


def _links(rows: list[Any], roles: dict[str, str], addressed: bool) -> list[Problem]:
    """Every link row: both ends known devices with valid ports, one /31 with the upper end even (when the design
    is ``addressed``; else each end is only [device, port] and there is no subnet). Written for speed (a 131k-GPU
    design has 400k links): ports already seen are not matched again."""
    if not addressed:
        return _unaddressed_links(rows, roles)
    problems: list[Problem] = []
    rules: dict[str, Rule] = {"tier": _choice(LINK_TIERS), "a": _end, "z": _end, "subnet": _subnet}
    ports: set[tuple[bool, str]] = set()
    for path, row in _well_formed(rows, rules, problems):
        unnumbered = row["tier"] != "server_leaf" and (row["a"][2], row["z"][2], row["subnet"]) == (None, None, None)
        addresses = []
        for side, server in (("a", False), ("z", row["tier"] == "server_leaf")):
            name, port, address = row[side]
            addresses.append(None if unnumbered else _ipv4(address))
            if addresses[-1] is None and not unnumbered:
                problems.append(Problem((*path, side, 2), _address(address)))
            problems += _end_problems((*path, side), roles, ports, name, port, server)
        problems += _pair(row, path, *addresses)
    return problems


def _pair(row: dict[str, Any], path: tuple[str | int, ...], upper: int | None, lower: int | None) -> list[Problem]:
    """A link's two addresses (as integers, None when absent): one /31 with the upper end even and subnet a/31."""
    if upper is None or lower is None or not (upper % 2 or lower != upper + 1 or row["subnet"] != f"{row['a'][2]}/31"):
        return []
    return [
        Problem(
            path,
            f"{row['a'][2]} - {row['z'][2]} ({shown(row['subnet'])}) is not one /31 "
            "with the upper end (a) even and subnet a/31",
        )
    ]


def _network_devices(rows: list[Any], roles: dict[str, tuple[str, str]]) -> list[Problem]:
    """Every row of ``network_devices``; ``roles`` gets each valid name's network and role, for the links."""
    problems = []
    for number, row in enumerate(rows):
        path: tuple[str | int, ...] = ("network_devices", number)
        if not isinstance(row, dict):
            problems.append(Problem(path, f"a device is a JSON object, not {_kind(row)}"))
            continue
        network, role = row.get("network"), row.get("role")
        if not isinstance(network, str) or not isinstance(role, str) or (network, role) not in NETWORK_NAMES:
            problems.append(
                Problem(
                    path,
                    f"{shown(network)} {shown(role)} is not a network and role of one; expected one of "
                    + ", ".join(f"{known} {kind}" for known, kind in NETWORK_NAMES),
                )
            )
            continue
        required: dict[str, Rule] = {"name": _matches(NETWORK_NAMES[network, role], f"{network} {role}")}
        if role not in ("server", "storage", "management", "oob_spine"):
            required.update(model=_is(str))
        if network != "oob" and role != "storage":
            required.update(asn=_asn, loopback=_address, announces=_networks)
        if role != "server":
            required.update(rack=_is(str), unit=_count)
        if network == "oob":
            required.update(address=_address)
        problems += _fields(row, path, required, optional={"group": _count, "index": _count})
        name = row.get("name")
        if isinstance(name, str) and not required["name"](name):
            if name in roles:
                problems.append(Problem((*path, "name"), f"{shown(name)} is a second device of that name"))
            roles[name] = (network, role)
    return problems


def _network_links(rows: list[Any], roles: dict[str, tuple[str, str]], backend: dict[str, str]) -> list[Problem]:
    """Every row of ``network_links``: a leaf-spine network's ends devices of that network with valid ports and one
    /31 (the upper end even); the ends of an out-of-band cable plain names and ports without addresses, a core
    uplink's the same or, peering with the core, one /31 (:func:`_core_pair`)."""
    from designer.networks.physical import CORE_TIER  # the networks' physical plan, imported only for their links

    problems: list[Problem] = []
    for number, row in enumerate(rows):
        path: tuple[str | int, ...] = ("network_links", number)
        if not isinstance(row, dict):
            problems.append(Problem(path, f"a link is a JSON object, not {_kind(row)}"))
            continue
        wrong = _fields(
            row,
            path,
            {"network": _choice((*NETWORK_PREFIXES, "oob")), "tier": _is(str), "a": _end, "z": _end},
            optional={"subnet": _subnet},
        )
        if wrong:
            problems += wrong
            continue
        network, core = row["network"], row["tier"] == CORE_TIER
        addresses = []
        for side in ("a", "z"):
            wrong, address = _network_end(row, side, path, core, roles, backend)
            problems += wrong
            addresses.append(address)
        if network != "oob" and not core:
            problems += _pair(row, path, *addresses)
        elif row["tier"] == "oob_uplink":
            problems += _oob_pair(row, path)
        elif core:
            problems += _core_pair(row, path)
    return problems


def _network_end(
    row: dict[str, Any],
    side: str,
    path: tuple[str | int, ...],
    core: bool,
    roles: dict[str, tuple[str, str]],
    backend: dict[str, str],
) -> tuple[list[Problem], int | None]:
    """The problems of one end (``side``) of a row of ``network_links`` (``core``: a core uplink), and its address
    as an integer (None: none, or not one)."""
    name, port, address = row[side]
    network = row["network"]
    if network == "oob" and row["tier"] != "oob_uplink":
        if not (TOKEN.fullmatch(name) and TOKEN.fullmatch(port)) or address is not None:
            return [Problem((*path, side), f"{shown(row[side])} is not [device, port, null]")], None
        return [], None
    if network == "oob" or core:
        if not (TOKEN.fullmatch(name) and TOKEN.fullmatch(port)) or (address is not None and _ipv4(address) is None):
            return [Problem((*path, side), f"{shown(row[side])} is not [device, port, null or an IPv4 address]")], None
        return [], _ipv4(address)
    number = _ipv4(address)
    problems = [] if number is not None else [Problem((*path, side, 2), _address(address))]
    found = roles.get(name)
    if found is None or found[0] != network:
        if backend.get(name) != "server":  # a GPU server is in every network it has ports in
            return [
                *problems,
                Problem((*path, side, 0), f"{shown(name)} is not a device of this design's {network}"),
            ], number
        found = (network, "server")
    server = found[1] in ("server", "storage")
    pattern = re.compile(f"{NETWORK_PREFIXES[network]}[0-9]{{1,3}}") if server else SWITCH_PORT
    if not pattern.fullmatch(port):
        wanted = f"{NETWORK_PREFIXES[network]}N" if server else "swpN or swpNsL"
        problems.append(Problem((*path, side, 1), f"{shown(port)} is not a port name ({wanted})"))
    return problems, number


def _oob_pair(row: dict[str, Any], path: tuple[str | int, ...]) -> list[Problem]:
    """A management switch's uplink: both addresses null (a build from before they were written), or one /31 with the
    OOB spine's end (a) even."""
    spine, switch = (row[side][2] for side in ("a", "z"))
    if spine is None and switch is None and row.get("subnet") is None:
        return []
    return _pair(row, path, _ipv4(spine), _ipv4(switch)) or (
        [Problem(path, "an uplink has both addresses or neither")] if spine is None or switch is None else []
    )


def _core_pair(row: dict[str, Any], path: tuple[str | int, ...]) -> list[Problem]:
    """A core uplink's two addresses: both null (the frontend has no ``core``), or one /31 with the core's end (z)
    even, the border leaf's (a) the next address and subnet z/31."""
    border, core = (row[side][2] for side in ("a", "z"))
    if border is None and core is None and row.get("subnet") is None:
        return []
    low, high = _ipv4(core), _ipv4(border)
    if low is not None and high is not None and not low % 2 and high == low + 1 and row.get("subnet") == f"{core}/31":
        return []
    return [
        Problem(
            path,
            f"{shown(border)} - {shown(core)} ({shown(row.get('subnet'))}) is not one /31 with the core's end (z) "
            "even, the border leaf's (a) the next address and subnet z/31, nor three nulls",
        )
    ]


def _unaddressed_links(rows: list[Any], roles: dict[str, str]) -> list[Problem]:
    """Every link row of a design without addresses (InfiniBand): both ends ``[device, port]``, known devices with
    valid ports."""
    problems: list[Problem] = []
    rules: dict[str, Rule] = {"tier": _choice(LINK_TIERS), "a": _port_end, "z": _port_end}
    ports: set[tuple[bool, str]] = set()
    for path, row in _well_formed(rows, rules, problems):
        for side, server in (("a", False), ("z", row["tier"] == "server_leaf")):
            name, port = row[side]
            problems += _end_problems((*path, side), roles, ports, name, port, server)
    return problems


def _well_formed(
    rows: list[Any], rules: dict[str, Rule], problems: list[Problem]
) -> Iterator[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """Each link row that is an object whose fields of ``rules`` are all well-formed, with its path; what is wrong
    with every other row goes to ``problems``."""
    for number, row in enumerate(rows):
        path: tuple[str | int, ...] = ("links", number)
        if not isinstance(row, dict):
            problems.append(Problem(path, f"a link is a JSON object, not {_kind(row)}"))
        elif any(rule(row.get(key)) for key, rule in rules.items()):
            problems += _fields(row, path, rules)
        else:
            yield path, row


def _end_problems(
    path: tuple[str | int, ...], roles: dict[str, str], ports: set[tuple[bool, str]], name: str, port: str, server: bool
) -> list[Problem]:
    """What is wrong with a link end: its device not one of the design's of its kind, or its port not a port name
    (``ports`` gets each valid name, so it is matched once)."""
    role = roles.get(name)
    if role is None or (role == "server") != server:
        wanted = "server" if server else "switch"
        return [Problem((*path, 0), f"{shown(name)} is not a {wanted} of this design's devices")]
    if (server, port) not in ports:
        pattern, scheme = PORTS[server]
        if not pattern.fullmatch(port):
            return [Problem((*path, 1), f"{shown(port)} is not a {scheme}")]
        ports.add((server, port))
    return []


def _findings(rows: list[Any]) -> list[Problem]:
    problems = []
    for number, row in enumerate(rows):
        path: tuple[str | int, ...] = ("findings", number)
        if not isinstance(row, dict):
            problems.append(Problem(path, f"a finding is a JSON object, not {_kind(row)}"))
            continue
        problems += _fields(
            row,
            path,
            {"check": _is(str), "severity": _choice(SEVERITIES), "subject": _is(str), "message": _is(str)},
            optional={"evidence": _evidence},
        )
    return problems


# ---- rules -------------------------------------------------------------------------------------------------------


def _fields(
    row: dict[str, Any], path: tuple[str | int, ...], required: dict[str, Rule], optional: dict[str, Rule] | None = None
) -> list[Problem]:
    problems = [Problem(path, f"{key} is missing") for key in required if key not in row]
    for key, rule in {**required, **(optional or {})}.items():
        if key in row and (wrong := rule(row[key])):
            problems.append(Problem((*path, key), wrong))
    return problems


def _is(kind: type) -> Rule:
    names: dict[type, str] = {dict: "a JSON object", list: "a list", str: "a string"}
    return lambda value: "" if isinstance(value, kind) else f"{shown(value)} is not {names[kind]}"


def _choice(allowed: tuple[object, ...]) -> Rule:
    return lambda value: (
        ""
        if value in allowed and type(value) in {type(item) for item in allowed}
        else (f"{shown(value)} is not one of {', '.join(map(str, allowed))}")
    )


def _balancing(value: object) -> str:
    """A switch's ``load_balancing``: mode, hash and a seed (what the traffic proof and scripts read)."""
    from designer.backend.model import HASH_FIELDS  # the device model, imported only for a design.json's switches

    if not isinstance(value, dict):
        return f"{shown(value)} is not a JSON object"
    rules = {
        "mode": _choice((*BALANCING_MODES, *BALANCING_ALIASES)),
        "hash": _choice(tuple(HASH_FIELDS)),
        "seed": _count,
    }
    return "; ".join(
        f"{key} is missing" if key not in value else f"{key}: {wrong}"
        for key, rule in rules.items()
        if key not in value or (wrong := rule(value[key]))
    )


def _nic_names(value: object) -> str:
    """A server's ``nics``: its NICs' Linux interface names in port order, each valid and no two alike."""
    if not isinstance(value, list):
        return f"{shown(value)} is not a list of interface names"
    wrong = next((problem for name in value if (problem := nic_name_problem(name))), "")
    twice = next((name for number, name in enumerate(value) if name in value[:number]), None)
    return wrong or (f"{shown(twice)} is listed twice; each NIC port has its own name" if twice else "")


def _count(value: object) -> str:
    return "" if type(value) is int and value >= 0 else f"{shown(value)} is not a whole number >= 0"


def _counts(keys: tuple[str, ...]) -> Rule:
    def rule(value: object) -> str:
        if not isinstance(value, dict):
            return f"{shown(value)} is not a JSON object with {', '.join(keys)}"
        wrong = [key for key in keys if _count(value.get(key))]
        return f"{', '.join(wrong)}: missing or not a whole number >= 0" if wrong else ""

    return rule


def _number_or_null(value: object) -> str:
    return "" if value is None or type(value) in (int, float) else f"{shown(value)} is not a number"


def _asn(value: object) -> str:
    low, high = ASN_RANGE
    return (
        ""
        if type(value) is int and low <= value <= high
        else (f"{shown(value)} is not an ASN (an integer from {low} to {high})")
    )


def _design_name(value: object) -> str:
    try:
        safe_name(value if isinstance(value, str) else "")
    except ValueError:
        return f"{shown(value)} is not a design name (1-63 letters, digits, '.', '_' or '-')"
    return ""


def _device_name(role: str) -> Rule:
    pattern, scheme = NAMES[role]
    return lambda value: (
        ""
        if isinstance(value, str) and pattern.fullmatch(value)
        else (f"{shown(value)} is not a {role.replace('_', '-')} name ({scheme})")
    )


def _matches(pattern: re.Pattern[str], what: str) -> Rule:
    return lambda value: (
        "" if isinstance(value, str) and pattern.fullmatch(value) else f"{shown(value)} is not a {what} name"
    )


def _address(value: object) -> str:
    return (
        ""
        if _ipv4(value) is not None
        else (f"{shown(value)} is not a dotted IPv4 address outside 0/8, 127/8 and 224/3")
    )


def _networks(value: object) -> str:
    if not isinstance(value, list):
        return f"{shown(value)} is not a list of IPv4 prefixes"
    for item in value:
        address, _, length = item.partition("/") if isinstance(item, str) else ("", "", "")
        first = _ipv4(address)
        bits = int(length) if length.isascii() and length.isdigit() and len(length) <= 2 else -1
        if first is None or not 8 <= bits <= 32 or first & ((1 << (32 - bits)) - 1):
            return f"{shown(item)} is not an IPv4 prefix a.b.c.d/8-32 without host bits, outside 0/8, 127/8 and 224/3"
    return ""


def _end(value: object) -> str:
    if (
        isinstance(value, list)
        and len(value) == 3
        and isinstance(value[0], str)
        and isinstance(value[1], str)
        and (value[2] is None or isinstance(value[2], str))
    ):
        return ""
    return f"{shown(value)} is not [device, port, address]"


def _port_end(value: object) -> str:
    """A link end of a design without addresses: ``[device, port]``."""
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], str):
        return ""
    return f"{shown(value)} is not [device, port]"


def _subnet(value: object) -> str:
    """A link's subnet: its /31 as text, or null (an unnumbered switch-to-switch link)."""
    return "" if value is None or isinstance(value, str) else f"{shown(value)} is not a /31 as text or null"


def _evidence(value: object) -> str:
    if not isinstance(value, dict):
        return f"{shown(value)} is not a JSON object"
    return "" if _depth(value) <= MAX_DEPTH else f"is nested deeper than {MAX_DEPTH} levels"


def _depth(value: object, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return max((_depth(item, level + 1) for item in items), default=level)


def _ipv4(value: object) -> int | None:
    """The address as an integer, if ``value`` is a canonical dotted IPv4 address outside the refused ranges."""
    if not isinstance(value, str) or not value.isascii():
        return None
    try:
        number = int.from_bytes(socket.inet_pton(socket.AF_INET, value), "big")
    except (OSError, ValueError):
        return None
    return None if number >> 24 in REFUSED_FIRST_OCTETS else number


# ---- files, JSON and error messages ------------------------------------------------------------------------


def _json(where: str, data: bytes) -> tuple[str, object]:
    """The text and the JSON value of a file's bytes, or an error with the line at fault."""
    try:
        text = data.decode()
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise InputError(
            [
                Problem(
                    (),
                    f"not UTF-8 text (byte 0x{data[error.start]:02x}); is it a design written by 'designer build'?",
                    line,
                )
            ],
            Source(where, {}),
            about=where,
        ) from None
    try:
        return text, json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            [Problem((), f"not valid JSON: {error.msg} (column {error.colno})", error.lineno)],
            Source(where, {}),
            about=where,
        ) from None
    except RecursionError:
        raise InputError(
            [Problem((), "JSON nested too deeply to read; a design.json is a few levels deep")],
            Source(where, {}),
            about=where,
        ) from None
    except ValueError:  # a number of more digits than Python converts
        raise InputError(
            [Problem((), f"a number of more than {LONGEST_NUMBER:,} digits; a built file has none", long_number(text))],
            Source(where, {}),
            about=where,
        ) from None


LONGEST_NUMBER = 4300
"""The most digits Python converts to a number (``sys.get_int_max_str_digits``' default); no built file comes near."""


def long_number(text: str) -> int:
    """The line of the first number in ``text`` of more than :data:`LONGEST_NUMBER` digits (1 when there is none)."""
    found = re.search(rf"\d{{{LONGEST_NUMBER + 1},}}", text)
    return text.count("\n", 0, found.start()) + 1 if found else 1


def _error(where: str, text: str, problems: list[Problem]) -> InputError:
    """The first :data:`MAX_PROBLEMS` problems located in the file, then how many more there are (at its last
    line)."""
    source = Source(where, dict(json_lines(text)))
    shown = sorted(problems, key=lambda problem: problem.line or source.line_of(problem.path))[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        shown.append(
            Problem(
                (), f"and {len(problems) - MAX_PROBLEMS:,} more problems like these", text.rstrip("\n").count("\n") + 1
            )
        )
    return InputError(shown, source, about=where)


def _file_error(path: Path, message: str) -> InputError:
    return InputError([Problem((str(path),), message)], about=str(path))


def json_lines(text: str, depth: int = 3) -> Iterator[tuple[tuple[str | int, ...], int]]:
    """The line of each key down to ``depth`` levels and of each row of a list above that (design.json keeps one
    row per line); deeper paths take their parent's line. ``text`` is valid JSON."""
    decoder, scan = json.JSONDecoder(), string_scanner()
    counted, line = 0, 1

    def at(position: int) -> int:
        nonlocal counted, line
        line += text.count("\n", counted, position)
        counted = position
        return line

    def skip(position: int) -> int:
        while position < len(text) and text[position] in " \t\r\n":
            position += 1
        return position

    def walk(position: int, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], int]]:
        """Yield the lines inside the value at ``position``; the caller reads on from the value's end."""
        yield path, at(position)
        opening = text[position]
        if (
            opening not in "{["
            or (opening == "{" and len(path) >= depth)
            or (opening == "[" and len(path) >= depth - 1)
        ):
            return
        position, number = skip(position + 1), 0
        while text[position] not in "}]":
            key: str | int = number
            if opening == "{":
                key, position = scan(text, position + 1)
                position = skip(skip(position) + 1)
            yield from walk(position, (*path, key))
            _, position = decoder.raw_decode(text, position)
            position, number = skip(position), number + 1
            if text[position] == ",":
                position = skip(position + 1)

    yield from walk(skip(0), ())


def _kind(value: object) -> str:
    return {
        dict: "a JSON object",
        list: "a list",
        str: "a string",
        bool: "true/false",
        type(None): "null",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def shown(value: object) -> str:
    """A value as JSON (control characters and non-ASCII escaped, so a message cannot rewrite the terminal),
    cut at 60 characters."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = type(value).__name__
    return text if len(text) <= 60 else text[:57] + "..."

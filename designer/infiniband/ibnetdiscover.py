"""Read ``ibnetdiscover`` output (infiniband-diags) and name what it found as the design names it.

``ibnetdiscover`` prints one record per node: ``Switch <ports> "S-<guid>" # "<node description>" ...`` or ``Ca
<ports> "H-<guid>" # "<node description>"``, then one line per connected port, ``[<port>](<port guid>)
"<peer id>"[<peer port>] ...``, between ``vendid=``, ``devid=``, ``sysimgguid=``, ``switchguid=`` and ``caguid=``
lines and ``#`` comments (ibnetdiscover(8); ibsim reads the same format as its net file).

A host channel adapter is known by its node description, ``<hostname> <rdma device>`` (rdma-ndd's default); its
RDMA device's place in the design's list (``hosts.rdma_devices``) gives its NIC port ``nic<i>``. A switch is known
by where it sits, never by its description (an unmanaged switch such as the QM9790 has none the design can set): a
leaf is the design's peer of most of its HCAs' cables, a spine the design's peer of most of its named leaves'
cables, and so on up, so one miswired cable does not rename a switch. A switch's IB port ``n`` is the design's
logical port ``n - 1``, named as the switch's vendor names it where the catalog says (NVIDIA's Quantum-2: ports 1
to 64 are ``1/1/1``, ``1/1/2``, ... ``1/32/2``). What the design cannot name keeps its GUID (``0x<16 hex
digits>``) and port number.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

from designer.errors import InputError, Problem

Cable = tuple[str, str, str, str]
"""``(device, port, peer_device, peer_port)`` in the design's names, the upper end first as in ``cabling.csv``."""
End = tuple[int, int]
"""A discovered port: ``(node guid, port number)``."""

MAX_PROBLEMS = 20
"""Problems listed for one file; the rest are counted."""
_HEADER = re.compile(r'(Switch|Ca|Hca|Rt)\s+(\d+)\s+"([SHR])-([0-9A-Fa-f]{1,16})"(?:\s+#\s*"([^"]*)")?')
_PORT = re.compile(r'\[(\d{1,5})\](?:\([0-9A-Fa-f]+\))?\s+"([SHR])-([0-9A-Fa-f]{1,16})"\[(\d{1,5})\]')
_SETTING = re.compile(r"(vendid|devid|sysimgguid|switchguid|caguid|hcaguids|rtguid)=\S+")
_LINE = re.compile(
    r"^[^\S\n]*(?:"
    r'\[(\d{1,5})\](?:\([0-9A-Fa-f]+\))?[^\S\n]+"[SHR]-([0-9A-Fa-f]{1,16})"\[(\d{1,5})\].*'
    r'|(Switch|Ca|Hca|Rt)[^\S\n]+\d+[^\S\n]+"[SHR]-([0-9A-Fa-f]{1,16})"(?:[^\S\n]+#[^\S\n]*"([^"\n]*)")?.*'
    r"|(?:#.*|(?:vendid|devid|sysimgguid|switchguid|caguid|hcaguids|rtguid)=\S+[^\S\n]*|)$"
    r"|(.+))",
    re.M,
)
"""Every line of ``ibnetdiscover`` output, one match a line (the lines joined by ``\\n``): a port line's local port,
peer GUID and peer port; a record's kind, GUID and node description; nothing for a comment, a node's setting or a
blank line; the line itself when it is none of these. The same lines as :data:`_PORT`, :data:`_HEADER` and
:data:`_SETTING` read one at a time, in one pass over the text."""
CHUNK = 1 << 21
"""Characters read by one :data:`_LINE` pass: the matches of a whole 131k-GPU discovery at once would double its
memory."""
OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e"
"""The ASCII characters other than ``\\n`` that end a line for :meth:`str.splitlines`."""
BLOCK = 1 << 12
"""Characters :func:`looks_like` splits into lines at a time (to the end of the line they end in)."""
_KINDS = {"Switch": "switch", "Ca": "ca", "Hca": "ca", "Rt": "router"}
RANKS = {"super_spine": 3, "spine": 2, "leaf": 1, "server": 0}
"""How high a role sits: a cable names its upper end first."""


class Node(NamedTuple):
    """One node ``ibnetdiscover`` found: switch, channel adapter or router, with its node description."""

    guid: int
    kind: str
    description: str


@dataclass(frozen=True)
class Discovery:
    """What ``ibnetdiscover`` printed: every node by GUID and every cable once, its lower end first, in the order the
    text gives them."""

    nodes: Mapping[int, Node]
    cables: tuple[tuple[End, End], ...]


def parse(where: str, text: str) -> Discovery:
    """The nodes and cables of ``ibnetdiscover`` output ``text``; :class:`InputError` naming ``where`` and the line
    of every line that is no part of it, or when it holds no node at all."""
    nodes: dict[int, Node] = {}
    peers: dict[End, End] = {}
    port_lines = 0
    problems: list[Problem] = []
    guid = -1
    for number, (local, peer_guid, peer_port, kind, node_guid, description, other) in enumerate(_rows(text), 1):
        if local:
            if guid < 0:
                problems.append(_problem(where, number, "a port line before any Switch or Ca record"))
                continue
            peers[guid, int(local)] = (int(peer_guid, 16), int(peer_port))
            port_lines += 1
        elif kind:
            guid = int(node_guid, 16)
            nodes[guid] = Node(guid, _KINDS[kind], description)
        elif other:
            problems.append(_problem(where, number, f"{_shown(other.strip())} is not a line of ibnetdiscover output"))
    if len(peers) < port_lines:  # a port given twice: the same cable again, or a second one
        problems = sorted([*problems, *_second_peers(where, text)], key=lambda problem: problem.line or 0)
    if not nodes and not problems:
        problems.append(_problem(where, 1, "holds no Switch or Ca record"))
    if problems:
        raise _error(where, problems)
    # each cable once, from its lower end or, when the peer's record does not name this end back, from this one
    cables = tuple(
        (end, peer) if end < peer else (peer, end)
        for end, peer in peers.items()
        if end < peer or peers.get(peer) != end
    )
    return Discovery(nodes, cables)


def _rows(text: str) -> Iterator[tuple[str, ...]]:
    """One :data:`_LINE` match a line of ``text``, its lines as :meth:`str.splitlines` gives them, read
    :data:`CHUNK` characters at a time (to the end of a line): only a text with line breaks other than ``\\n`` is
    split into lines and joined again."""
    if not text.isascii() or any(other in text for other in OTHER_BREAKS):
        text = "\n".join(text.splitlines())
    start = 0
    while start < len(text):
        end = text.find("\n", start + CHUNK)
        end = len(text) if end < 0 else end
        yield from _LINE.findall(text, start, end)
        start = end + 1


def _second_peers(where: str, text: str) -> list[Problem]:
    """A problem at each port line of ``text`` that cables a port to another peer than the line before it for that
    port."""
    peers: dict[End, End] = {}
    line_of: dict[End, int] = {}
    problems = []
    guid = -1
    for number, (local, peer_guid, peer_port, kind, node_guid, *_) in enumerate(_rows(text), 1):
        if kind:
            guid = int(node_guid, 16)
        if not local or guid < 0:
            continue
        end, peer = (guid, int(local)), (int(peer_guid, 16), int(peer_port))
        if peers.setdefault(end, peer) != peer:
            problems.append(
                _problem(
                    where,
                    number,
                    f"port {end[1]} of 0x{end[0]:016x} is cabled to a second peer (line {line_of[end]} gives "
                    "another); each port has one cable",
                )
            )
            peers[end] = peer
        line_of[end] = number
    return problems


def looks_like(text: str) -> bool:
    """Whether ``text`` opens as ``ibnetdiscover`` output does (a ``#`` comment, a node record, a port line or a
    node's setting), so a discovery file can be told from JSON before it is read as either."""
    start = 0
    while start < len(text):  # a block of whole lines at a time: the first line with text is near the top
        end = text.find("\n", start + BLOCK)
        end = len(text) if end < 0 else end + 1
        line = next((line.strip() for line in text[start:end].splitlines() if line.strip()), "")
        if line:
            return line.startswith("#") or any(pattern.match(line) for pattern in (_HEADER, _PORT, _SETTING))
        start = end
    return False


@dataclass(frozen=True)
class DesignNames:
    """What the design calls things: each device's role, each switch's logical port names (IB port ``n`` is
    ``ports[n - 1]``), each cable's two ends, and the servers' RDMA devices in NIC order; ``vendor_ports`` names
    the same ports of the switches whose vendor names them otherwise, in the same order (a Quantum-2's ``1/1/1``
    for the design's ``swp1s0``): a discovery's cables are named with those."""

    roles: Mapping[str, str]
    ports: Mapping[str, Sequence[str]]
    peers: Mapping[tuple[str, str], tuple[str, str]]
    rdma_devices: Sequence[str]
    vendor_ports: Mapping[str, Sequence[str]] = field(default_factory=dict)
    name: str = ""
    """The design's name."""

    def switch_ports(self, switch: str) -> Sequence[str]:
        """The ports of ``switch`` as its vendor names them (the design's own names where the vendor's are not
        known), IB port ``n`` at ``n - 1``."""
        return self.vendor_ports.get(switch) or self.ports.get(switch, ())

    def port_name(self, switch: str, number: int) -> str:
        """IB port ``number`` of ``switch`` as its vendor names it, or the number as text for a port the design
        does not have."""
        names = self.switch_ports(switch)
        return names[number - 1] if 0 < number <= len(names) else str(number)

    def reported(self, end: tuple[str, str]) -> tuple[str, str]:
        """A designed cable end ``(device, port)`` as a discovery names it: a switch port by its vendor's name."""
        device, port = end
        renamed = self._renamed.get(device)
        return end if renamed is None else (device, renamed[port])

    @cached_property
    def _renamed(self) -> dict[str, dict[str, str]]:
        """The vendor's name of each port by the design's, per switch with vendor names; one table per layout."""
        layouts: dict[tuple[int, int], dict[str, str]] = {}
        renamed = {}
        for device, names in self.vendor_ports.items():
            own = self.ports[device]
            key = (id(own), id(names))
            renamed[device] = layouts.get(key) or layouts.setdefault(key, dict(zip(own, names, strict=True)))
        return renamed


@dataclass(frozen=True)
class Named:
    """A discovery in the design's names: the switches and HCAs it could name, by GUID, and every cable."""

    switches: Mapping[int, str]
    hcas: Mapping[int, tuple[str, int]]
    """An HCA's server and NIC index."""
    cables: tuple[Cable, ...]


def named(discovery: Discovery, design: DesignNames) -> Named:
    """Name the HCAs by their node descriptions, then the switches by where they sit, tier by tier upwards, then
    every cable."""
    devices = {name: index for index, name in enumerate(design.rdma_devices)}
    roles, peers = design.roles, design.peers
    hcas: dict[int, tuple[str, int]] = {}
    for node in discovery.nodes.values():
        if node.kind == "ca":
            host, _, device = node.description.partition(" ")
            if device in devices and roles.get(host) == "server":
                hcas[node.guid] = (host, devices[device])
    cabled = _switch_cables(discovery)
    toward = _Toward({}, {})
    for guid, (host, index) in hcas.items():
        if (designed := peers.get((host, f"nic{index}"))) is not None:
            toward.hcas[guid] = designed[0]
    switches: dict[int, str] = {}
    fresh: Iterable[int] = hcas
    while fresh:  # one tier more each round: leaves from their HCAs, spines from their leaves, ...
        taken = set(switches.values())
        before = set(switches)
        for _count, guid, name in sorted(_votes(cabled, fresh, toward, switches)):
            if guid not in switches and name not in taken:
                switches[guid] = name
                taken.add(name)
        fresh = set(switches) - before
        for guid in fresh:
            name = switches[guid]
            toward.switches[guid] = tuple(
                designed[0] if (designed := peers.get((name, port))) is not None else None
                for port in design.ports.get(name, ())
            )
    return Named(switches, hcas, tuple(sorted(_cables(discovery, design, hcas, switches))))


@dataclass(frozen=True)
class _Toward:
    """The device the design cables to each named node's port: to a named HCA (whatever its port), and to each
    port of a named switch, IB port ``n`` at ``n - 1`` (None where the design cables none)."""

    hcas: dict[int, str]
    switches: dict[int, tuple[str | None, ...]]


@dataclass(frozen=True)
class _Cabled:
    """Each switch's discovered cables as ``(peer guid, peer port)``, and the switches cabled to each node."""

    peers: Mapping[int, list[End]]
    near: Mapping[int, list[int]]


def _switch_cables(discovery: Discovery) -> _Cabled:
    peers: dict[int, list[End]] = {}
    near: defaultdict[int, list[int]] = defaultdict(list)
    for guid, node in discovery.nodes.items():
        if node.kind == "switch":
            peers[guid] = []
    for end, far in discovery.cables:
        guid, peer = end[0], far[0]
        if (ports := peers.get(guid)) is not None:
            ports.append(far)
            near[peer].append(guid)
        if (ports := peers.get(peer)) is not None:
            ports.append(end)
            near[guid].append(peer)
    return _Cabled(peers, near)


def _votes(
    cabled: _Cabled, fresh: Iterable[int], toward: _Toward, switches: Mapping[int, str]
) -> list[tuple[int, int, str]]:
    """For each unnamed switch cabled to a node named in the last round (``fresh``: a switch cabled to none has
    voted already, and every name it could take is taken), each design switch that the design cables to the named
    ports it is cabled to, with the number of such cables: ``(-count, guid, name)``, strongest first."""
    candidates = {guid for node in fresh for guid in cabled.near.get(node, ()) if guid not in switches}
    count: Counter[tuple[int, str]] = Counter()
    hcas, toward_switches = toward.hcas, toward.switches
    for guid in candidates:
        for peer, peer_port in cabled.peers[guid]:
            name = hcas.get(peer)
            if name is None and (designed := toward_switches.get(peer)) is not None and 0 < peer_port <= len(designed):
                name = designed[peer_port - 1]
            if name is not None:
                count[guid, name] += 1
    return [(-votes, guid, name) for (guid, name), votes in count.items()]


def _cables(
    discovery: Discovery, design: DesignNames, hcas: Mapping[int, tuple[str, int]], switches: Mapping[int, str]
) -> list[Cable]:
    """Every discovered cable in the design's names, the upper end first: a named switch's port as its vendor names
    it (:meth:`DesignNames.port_name`), a named HCA's port 1 as its NIC, any other port by GUID and port number."""
    ranks = {name: RANKS.get(role, 0) for name, role in design.roles.items()}
    nics = {guid: (-ranks.get(host, 0), host, f"nic{index}") for guid, (host, index) in hcas.items()}
    ports = {guid: (-ranks.get(name, 0), name, design.switch_ports(name)) for guid, name in switches.items()}

    def end_name(guid: int, port: int) -> tuple[int, str, str]:
        """A port's rank (the higher the smaller) and name."""
        if port == 1 and (nic := nics.get(guid)) is not None:
            return nic
        switch = ports.get(guid)
        if switch is None:
            return 0, f"0x{guid:016x}", str(port)
        rank, name, names = switch
        return rank, name, names[port - 1] if 0 < port <= len(names) else str(port)

    cables: list[Cable] = []
    append = cables.append
    for end, far in discovery.cables:
        a, b = end_name(*end), end_name(*far)
        append((a[1], a[2], b[1], b[2]) if a <= b else (b[1], b[2], a[1], a[2]))
    return cables


def _problem(where: str, line: int, message: str) -> Problem:
    return Problem(("line",), message, line=line, file=where)


def _error(where: str, problems: list[Problem]) -> InputError:
    shown = problems[:MAX_PROBLEMS]
    if len(problems) > MAX_PROBLEMS:
        shown.append(_problem(where, problems[MAX_PROBLEMS].line or 1, f"and {len(problems) - MAX_PROBLEMS} more"))
    hint = "give the output of 'ibnetdiscover > FILE' (infiniband-diags), unedited"
    return InputError(
        [Problem(p.path, f"{p.message}; {hint}", p.line, p.file) for p in shown],
        about=f"{where} (not ibnetdiscover output)",
    )


def _shown(line: str) -> str:
    text = repr(line)
    return text if len(text) <= 60 else text[:57] + "..."

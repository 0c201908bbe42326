"""What the devices report against the design: matched, missing, extra and miswired cables, and the swaps that
fix crossed pairs.

A cable is a pair of ends ``(device, port)`` in the design's names. A designed cable is in scope when at least one
of its devices reported; one end seeing the other is enough (LLDP may run one way only). A reported cable whose ends
the design does not cable (at neither end) is extra; one that joins a designed end to anything but its designed peer
is miswired, shown with the designed cables of its ends. Two miswired cables that the design has crossed (``a-d``
and ``c-b`` where the design has ``a-b`` and ``c-d``) are fixed by swapping the plugs in ``b`` and ``d`` (or, at the
other end, in ``a`` and ``c``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from designer.audit.names import FAMILIES, PortNames, design_port
from designer.audit.readers import Cable

End = tuple[str, str]
"""``(device, port)``, the port in the design's name when the device's name for it is known."""
Link = tuple[End, End]
"""A cable's two ends, in sorted order."""


@dataclass(frozen=True)
class Miswire:
    """A reported cable and the designed cables of its ends."""

    found: Link
    designed: tuple[Link, ...]


@dataclass(frozen=True)
class Swap:
    """Two plugs whose exchange fixes two miswired cables; ``other_end`` is the same fix at the far ends."""

    ends: Link
    other_end: Link
    fixes: tuple[Link, Link]


@dataclass(frozen=True)
class Audit:
    """Every finding of one audit, in sorted order, with the counts of the cables in scope."""

    devices: tuple[str, ...]
    """The devices that reported."""
    in_scope: int
    matched: int
    missing: tuple[Link, ...]
    extra: tuple[Link, ...]
    miswired: tuple[Miswire, ...]
    swaps: tuple[Swap, ...]
    outside: tuple[End, ...]
    """Ports that reported a neighbour but are not backend ports of the design (management, frontend): ignored."""
    reported_as: Mapping[End, str]
    """The name a device reported for an end, where it differs from the design's."""

    @property
    def clean(self) -> bool:
        """Whether the cabling matches the design."""
        return not (self.missing or self.extra or self.miswired)


def link(one: End, other: End) -> Link:
    """A cable's ends in sorted order."""
    return (one, other) if one <= other else (other, one)


def audit(
    designed: Collection[Link],
    reports: Mapping[str, tuple[str, Sequence[Cable]]],
    names: PortNames,
) -> Audit:
    """Compare ``reports`` (each reporting device's name family and cables) with the ``designed`` cables (each a
    :func:`link`)."""
    peer: dict[End, End] = {}
    for one, other in designed:
        peer[one], peer[other] = other, one
    reported_as: dict[End, str] = {}
    matched_ends, wrong, outside = _matched(reports, peer, names, reported_as)
    found = sorted(wrong)
    extra = tuple(pair for pair in found if pair[0] not in peer and pair[1] not in peer)
    miswired = tuple(
        Miswire(pair, tuple(sorted({link(one, peer[one]) for one in pair if one in peer})))
        for pair in found
        if pair[0] in peer or pair[1] in peer
    )
    scope = {pair for pair in designed if pair[0][0] in reports or pair[1][0] in reports}
    missing: tuple[Link, ...] = ()
    if len(matched_ends) < len(scope):  # a designed cable in scope that no report matched
        seen = matched_ends | {peer[one] for one in matched_ends} | {one for pair in wrong for one in pair}
        missing = tuple(sorted(pair for pair in scope if pair[0] not in seen and pair[1] not in seen))
    for device, port in (one for pair in missing for one in pair if one[0] in reports):
        if name := names.reported_name(reports[device][0], device, port):
            reported_as[(device, port)] = name
    return Audit(
        tuple(sorted(reports)),
        len(scope),
        len(matched_ends),
        missing,
        extra,
        miswired,
        _swaps([miswire.found for miswire in miswired], peer),
        tuple(sorted(outside)),
        reported_as,
    )


def _matched(
    reports: Mapping[str, tuple[str, Sequence[Cable]]],
    peer: Mapping[End, End],
    names: PortNames,
    reported_as: dict[End, str],
) -> tuple[set[End], set[Link], set[End]]:
    """Each reported cable against the design (``peer``: each designed end's other end): the lower end of each
    that is designed, those that are not, and the ends the design cannot name; each port reported under another
    name than the design's goes in ``reported_as``."""
    known = (
        {device for device, _ in peer}
        | set(names.servers)
        | {device for table in names.switches.values() for device in table}
    )
    tables = {device: names.table(family, device) for device, (family, _) in reports.items()}
    matched_ends: set[End] = set()
    wrong: set[Link] = set()
    outside: set[End] = set()
    for device, (family, cables) in sorted(reports.items()):
        for _, port, peer_device, peer_port in cables:
            local, named = _reported_end(tables, names, reported_as, family, device, port)
            if not named:
                outside.add(local)
                continue
            if peer_device not in known and peer_device.partition(".")[0] in known:
                peer_device = peer_device.partition(".")[0]  # a fully qualified system name
            remote, named = _reported_end(tables, names, reported_as, family, peer_device, peer_port)
            designed_peer = peer.get(local)
            if not named and designed_peer and designed_peer[0] == peer_device:
                remote = designed_peer  # the right device, under a port ID the design cannot name (a MAC address)
            if remote == designed_peer:
                matched_ends.add(local if local <= remote else remote)
            else:
                wrong.add(link(local, remote))
    return matched_ends, wrong, outside


def _reported_end(
    tables: Mapping[str, Mapping[str, str]],
    names: PortNames,
    reported_as: dict[End, str],
    family: str,
    device: str,
    port: str,
) -> tuple[End, bool]:
    """The end a device reports, in the design's port name when known; and whether the name is known. A peer
    that did not report is read in the reporter's names first, then in any other family's if they agree."""
    table = tables.get(device)
    if table is not None:
        known_port = design_port(table, port)
    else:
        known_port = names.design_port(family, device, port)
        if known_port is None:
            others = {names.design_port(other, device, port) for other in FAMILIES if other != family} - {None}
            known_port = others.pop() if len(others) == 1 else None
    if known_port is None:
        return (device, port), False
    if known_port != port:
        reported_as[(device, known_port)] = port
    return (device, known_port), True


def _swaps(wrong: Sequence[Link], peer: Mapping[End, End]) -> tuple[Swap, ...]:
    """The crossed pairs among the ``wrong`` cables: ``a-d`` and ``c-b`` where the design has ``a-b`` and
    ``c-d``. The plugs to swap are those on one device when either pair is (a server's two NICs), else the
    pair that sorts first."""
    found_peer: dict[End, End] = {}
    for one, other in wrong:
        found_peer[one], found_peer[other] = other, one
    swaps: dict[tuple[Link, Link], Swap] = {}
    for a, d in [*wrong, *((other, one) for one, other in wrong)]:
        b = peer.get(a)
        c = found_peer.get(b) if b else None
        if b is None or c is None or peer.get(c) != d:
            continue
        first, second = sorted((link(a, d), link(c, b)))
        near, far = link(b, d), link(a, c)
        if (near[0][0] != near[1][0], near) > (far[0][0] != far[1][0], far):
            near, far = far, near
        swaps.setdefault((first, second), Swap(near, far, (first, second)))
    return tuple(swaps[key] for key in sorted(swaps))

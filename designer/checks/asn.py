"""asn: the numbering scheme holds, no leaf shares an ASN with a spine or super-spine, every ASN private.

``rfc7938``: every leaf its own ASN, the spines of one pod (and plane) one shared ASN that no other
pod uses, the super-spines of a plane one shared ASN. ``unique``: every switch its own. In either
scheme the two ends of every switch link have different ASNs (the same ASN would make it iBGP, and
the fabric's routes would silently vanish).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence

from designer.backend.wiring import SERVER_LEAF, Device
from designer.checks.base import capped
from designer.design import Wired
from designer.findings import Finding
from designer.intent.fields import private_asns

ID = "asn"
DESCRIPTION = "ASN scheme respected, no leaf/spine ASN collision, every ASN private"
SEVERITY = "error"
TECHNOLOGIES = ("ethernet",)
"""The fabrics it proves something of: an InfiniBand fabric has no ASNs."""


def check(design: Wired) -> Iterable[Finding]:
    if design.allocation is None:  # an InfiniBand fabric (TECHNOLOGIES): no ASNs
        return
    fabric, asns = design.fabric, design.allocation.asns
    switches = fabric.switches()
    yield from capped(ID, "error", _numbering_problems(design, asns))
    same_ends = [
        (
            f"{switches[upper].name} - {switches[lower].name}",
            f"both ends have ASN {asns[upper]}: the session would be iBGP",
        )
        for tier, upper, _, lower, _ in fabric.links
        if tier != SERVER_LEAF and asns[upper] == asns[lower]
    ]
    yield from capped(ID, "error", sorted(set(same_ends)))
    by_role: defaultdict[str, set[int]] = defaultdict(set)
    for device, asn in zip(switches, asns, strict=True):
        by_role[device.role].add(asn)
    yield Finding(
        ID,
        "info",
        f"scheme {design.intent.routing.asn_scheme}: "
        + ", ".join(
            f"{role.replace('_', '-')} {min(numbers)}-{max(numbers)} ({len(numbers):,} ASNs)"
            for role, numbers in by_role.items()
        ),
        "asns",
        evidence={
            role: {"first": min(numbers), "last": max(numbers), "count": len(numbers)}
            for role, numbers in by_role.items()
        },
    )


def _numbering_problems(design: Wired, asns: Sequence[int]) -> list[tuple[str, str]]:
    """Every switch's ASN that is not private, every spine group (or plane's super-spines) that should share one
    ASN under ``rfc7938`` and does not, and every ASN held by switches that must not share it."""
    switches = design.fabric.switches()
    shared = design.intent.routing.asn_scheme == "rfc7938"
    groups: dict[tuple[object, ...], set[int]] = defaultdict(set)
    holders: dict[int, list[int]] = defaultdict(list)
    problems: list[tuple[str, str]] = []
    for index, device in enumerate(switches):
        asn = asns[index]
        holders[asn].append(index)
        if not private_asns(asn):
            problems.append((device.name, f"ASN {asn} is not private (64512-65534 or 4200000000-4294967294)"))
        if shared and device.role == "spine":
            groups["spine", device.plane, device.pod].add(asn)
        elif shared and device.role == "super_spine":
            groups["super_spine", device.plane].add(asn)
    for key, numbers in sorted(groups.items(), key=lambda item: str(item[0])):
        if len(numbers) > 1:
            problems.append((_group_name(key), f"should share one ASN under rfc7938, has {sorted(numbers)}"))
    for asn, members in sorted(holders.items()):
        expected = _sharers(switches, members[0], shared)
        if len(members) > 1 and any(_sharers(switches, member, shared) != expected for member in members):
            names = ", ".join(switches[member].name for member in members[:4])
            more = f" and {len(members) - 4} more" if len(members) > 4 else ""
            roles = sorted({switches[member].role.replace("_", "-") for member in members})
            problems.append(
                (
                    switches[members[0]].name,
                    f"ASN {asn} is held by {len(members)} switches that must "
                    f"not share it ({'/'.join(roles)}): {names}{more}",
                )
            )
    return problems


def _sharers(switches: Sequence[Device], index: int, shared: bool) -> tuple[object, ...]:
    """Switches with the same key may share an ASN; any other sharing is a collision."""
    device = switches[index]
    if shared and device.role == "spine":
        return ("spine", device.plane, device.pod)
    if shared and device.role == "super_spine":
        return ("super_spine", device.plane)
    return ("alone", index)


def _group_name(key: tuple[object, ...]) -> str:
    return f"p{key[1]}-pod{key[2]} spines" if key[0] == "spine" else f"p{key[1]} super-spines"

"""sessions: every BGP neighbor statement in the device model has its reciprocal on the peer.

For a neighbor ``n`` on device ``D`` with peer ``P``: ``n.remote_asn`` is ``P``'s ASN, ``P`` has a
neighbor at ``D``'s local address whose ``remote_asn`` is ``D``'s ASN and whose local address is
``n.address``, and the local address is one of ``D``'s interfaces. Unnumbered, the ends are the two ports in place of
the two addresses (:attr:`~designer.backend.model.Neighbor.near`, :attr:`~designer.backend.model.Neighbor.far`). Every
fabric interface carries a
session (an interface without one would receive ECMP traffic it cannot route), and every switch has
one neighbor per switch link of the fabric.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from designer.backend.model import DeviceConfig, Neighbor
from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding

ID = "sessions"
DESCRIPTION = "every BGP neighbor has its reciprocal (addresses and ASNs match) in the device model"
SEVERITY = "error"
TECHNOLOGIES = ("ethernet",)
"""The fabrics it proves something of: an InfiniBand fabric has no BGP sessions."""


def check(design: Built) -> Iterable[Finding]:
    configs = design.configs
    by_name = {config.hostname: config for config in configs}
    sessions: dict[str, dict[tuple[str, str], Neighbor]] = {}
    for config in configs:
        statements = sessions.setdefault(config.hostname, {})
        for neighbor in config.bgp.neighbors:
            address, _, peer_device, _, _, _, _, peer_interface = neighbor
            statements[peer_device, address or peer_interface] = neighbor
    links: Counter[int] = Counter()  # switch links per switch, from the shared count of links per switch pair
    for (upper, lower), count in design.facts.switch_pairs.items():
        links[upper] += count
        links[lower] += count
    devices = design.fabric.devices
    problems: list[tuple[str, str]] = [
        (config.hostname, f"{len(config.bgp.neighbors)} BGP neighbors for {links[index]} switch links")
        for index, config in enumerate(configs)
        if config.hostname == devices[index].name and len(config.bgp.neighbors) != links[index]
    ]
    for config in configs:
        problems += _switch_problems(config, by_name, sessions)
    yield from capped(ID, "error", problems)
    count = sum(map(len, sessions.values()))
    yield Finding(
        ID,
        "info",
        f"{count:,} neighbor statements on {len(configs):,} switches, {count // 2:,} sessions",
        "bgp",
        evidence={"neighbors": count, "switches": len(configs)},
    )


def _switch_problems(
    config: DeviceConfig, by_name: dict[str, DeviceConfig], sessions: dict[str, dict[tuple[str, str], Neighbor]]
) -> list[tuple[str, str]]:
    """The sessions of one switch its peer does not state back (``sessions``: every switch's neighbor statements by
    peer and far end), and its fabric interfaces with no session."""
    hostname, asn = config.hostname, config.bgp.asn
    addresses = [interface.address.partition("/")[0] or interface.name for interface in config.interfaces]
    local = set(addresses)
    speaking: set[str] = set()
    problems: list[tuple[str, str]] = []
    for neighbor in config.bgp.neighbors:
        # the fields unpacked at once: a statement's ends (``near``, ``far``) without a property call each
        address, remote_asn, peer_device, interface, _, local_address, _, peer_interface = neighbor
        near = local_address or interface
        speaking.add(near)
        peer = by_name.get(peer_device)
        back = sessions[peer_device].get((hostname, near)) if peer is not None else None
        if (
            peer is not None
            and back is not None
            and near in local
            and remote_asn == peer.bgp.asn
            and back.remote_asn == asn
            and (back.local_address or back.interface) == (address or peer_interface)
        ):
            continue  # the usual case, told apart without formatting any text
        problems.extend(_unmatched(config, neighbor, peer, back, local))
    if not speaking.issuperset(
        address for address, interface in zip(addresses, config.interfaces, strict=True) if interface.role == "fabric"
    ):
        problems.extend(
            (
                f"{hostname}:{interface.name}",
                f"fabric interface {interface.address or interface.name} to {interface.peer_device} has no BGP session",
            )
            for address, interface in zip(addresses, config.interfaces, strict=True)
            if interface.role == "fabric" and address not in speaking
        )
    return problems


def _unmatched(
    config: DeviceConfig, neighbor: Neighbor, peer: DeviceConfig | None, back: Neighbor | None, local: set[str]
) -> list[tuple[str, str]]:
    """What is wrong with one neighbor statement of ``config`` whose peer (``peer``, with ``back`` its statement
    towards ``config``) does not answer it as it should."""
    subject = f"{config.hostname} neighbor {neighbor.far}"
    if peer is None:
        return [(subject, f"peer {neighbor.peer_device!r} is not a switch of the design")]
    problems = []
    if neighbor.near not in local:
        problems.append((subject, f"local end {neighbor.near} is none of its interfaces"))
    if neighbor.remote_asn != peer.bgp.asn:
        problems.append((subject, f"remote-as {neighbor.remote_asn}, but {peer.hostname} has ASN {peer.bgp.asn}"))
    if back is None:
        problems.append((subject, f"{peer.hostname} has no neighbor {neighbor.near} back"))
    elif back.remote_asn != config.bgp.asn or back.near != neighbor.far:
        problems.append(
            (
                subject,
                f"{peer.hostname}'s neighbor {neighbor.near} says remote-as "
                f"{back.remote_asn} from {back.near}; expected remote-as "
                f"{config.bgp.asn} from {neighbor.far}",
            )
        )
    return problems

"""addressing: every address unique, both ends of each /31 in one subnet, pools disjoint and wide enough.

With hwplb multiplane every plane repeats the server /31s of plane 0 (one address per NIC port in all its planes,
each plane a separate fabric), so a server link's addresses need only be unique within its plane.

Reads the allocation (what the configs are rendered from): the loopback of every switch and both ends
of every link (every server link only, with an unnumbered underlay: switch-to-switch links have no addresses
then, and the fabric_p2p pool is reported unused); then the device model, so that no address is configured twice
on the switches either. Pool utilisation is reported as evidence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Iterator, Sequence
from itertools import pairwise

from designer.backend.allocate import Allocation, Pool, ip
from designer.backend.model import DeviceConfig
from designer.backend.wiring import SERVER_LEAF, Device, Link
from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding

ID = "addressing"
DESCRIPTION = "addresses unique, both ends of every /31 in one subnet, pools disjoint, utilisation"
SEVERITY = "error"
TECHNOLOGIES = ("ethernet",)
"""The fabrics it proves something of: an InfiniBand fabric has no IP addresses."""
IPV4 = (1 << 32) - 1
"""The address of an entry of the address list: a server link's may be moved above IPv4 by its plane."""


def check(design: Built) -> Iterable[Finding]:
    fabric, allocation = design.fabric, design.allocation
    if allocation is None:  # an InfiniBand fabric (TECHNOLOGIES): nothing addressed
        return
    pools = {pool.name: pool for pool in allocation.pools()}
    fabric_pool = pools["fabric_p2p"]
    unnumbered = design.intent.routing.underlay == "unnumbered"
    links: Sequence[Link] = fabric.links
    if unnumbered:
        links = [link for link in links if link[0] == SERVER_LEAF]
        numbers: Sequence[int] = [number for number, link in enumerate(fabric.links) if link[0] == SERVER_LEAF]
        pools.pop("fabric_p2p")
    else:
        numbers = range(len(links))
    ends = list(map(allocation.link_addresses, numbers))
    yield from capped(ID, "error", _outside_pools(design, allocation, links, ends))
    addresses = _addresses(design, allocation, links, ends)
    duplicated = _duplicated(addresses)
    if duplicated:
        yield from capped(ID, "error", _assigned_twice(design, allocation, links, addresses, duplicated))
    yield from capped(ID, "error", _configured_twice(design, allocation))
    yield from _pool_findings(pools, fabric_pool, unnumbered)
    yield Finding(
        ID,
        "info",
        f"{len(addresses):,} addresses, all unique"
        if not duplicated
        else f"{len(addresses):,} addresses, {len(duplicated):,} assigned more than once",
        "addresses",
        evidence={"addresses": len(addresses), "duplicated": len(duplicated)},
    )


def _outside_pools(
    design: Built, allocation: Allocation, links: Sequence[Link], ends: Sequence[tuple[int, int]]
) -> list[tuple[str, str]]:
    """Each loopback outside its pool, and each link whose ends are not one /31 of its pool: where, and what."""
    devices = design.fabric.devices
    problems: list[tuple[str, str]] = []
    pools = {pool.name: pool for pool in allocation.pools()}
    for index, address in enumerate(allocation.loopbacks):
        if not _inside(pools["loopbacks"], address):
            problems.append((devices[index].name, f"loopback {ip(address)} is outside {pools['loopbacks'].cidr}"))
    server_pool, fabric_pool = pools["server_p2p"], pools["fabric_p2p"]
    for (tier, upper, upper_port, lower, _), (even, odd) in zip(links, ends, strict=True):
        pool = server_pool if tier == SERVER_LEAF else fabric_pool
        if even % 2 or odd != even + 1 or not pool.first <= even < odd < pool.first + pool.size:
            if even % 2 or odd != even + 1:
                problems.append(
                    (
                        _name(devices, upper, upper_port),
                        f"{ip(even)} and {ip(odd)} (to "
                        f"{devices[lower].name}) are not the two ends of "
                        "one /31 (upper end even, lower end odd)",
                    )
                )
            if not (pool.first <= even < pool.first + pool.size and pool.first <= odd < pool.first + pool.size):
                problems.append(
                    (_name(devices, upper, upper_port), f"{ip(even)}/31 is outside {pool.name} {pool.cidr}")
                )
    return problems


def _shared(design: Built, allocation: Allocation) -> bool:
    """Whether the planes share the server /31s (hwplb multiplane: each plane repeats plane 0's)."""
    return allocation.numbering.address_planes < design.fabric.plan.planes


def _addresses(
    design: Built, allocation: Allocation, links: Sequence[Link], ends: Sequence[tuple[int, int]]
) -> list[int]:
    """Every loopback, then both ends of every link, a server link's moved above IPv4 by its plane when the planes
    share the server /31s (they count within their plane only)."""
    ends_from = len(allocation.loopbacks)
    addresses = [*allocation.loopbacks, *(address for pair in ends for address in pair)]
    if _shared(design, allocation):
        devices = design.fabric.devices
        for number in range(design.fabric.server_link_count):  # the server links come first
            scope = (devices[links[number][1]].plane + 1) << 32
            addresses[ends_from + 2 * number] += scope
            addresses[ends_from + 2 * number + 1] += scope
    return addresses


def _assigned_twice(
    design: Built,
    allocation: Allocation,
    links: Sequence[Link],
    addresses: Sequence[int],
    duplicated: Counter[Hashable],
) -> list[tuple[str, str]]:
    """Each switch or port whose address (of :func:`_addresses`) is ``duplicated``, with how many times."""
    devices = design.fabric.devices
    owners = [
        *((index, -1) for index in range(len(allocation.loopbacks))),
        *(
            end
            for _, upper, upper_port, lower, lower_port in links
            for end in ((upper, upper_port), (lower, lower_port))
        ),
    ]
    return [
        (_name(devices, device, port), f"{ip(address & IPV4)} is assigned {duplicated[address]} times")
        for address, (device, port) in zip(addresses, owners, strict=True)
        if address in duplicated
    ]


def _configured_twice(design: Built, allocation: Allocation) -> list[tuple[str, str]]:
    """Each switch interface whose address is configured more than once on the switches, with how many times."""
    shared = _shared(design, allocation)

    def configured(config: DeviceConfig) -> list[str]:
        """The addresses configured on the switch's interfaces, a server link's prefixed with its plane when the
        planes share the server /31s."""
        scope = f"plane {config.plane} " if shared else ""
        return [
            scope + interface.ip if interface.role == "server" else interface.ip
            for interface in config.interfaces
            if interface.address
        ]

    on_switches = [address for config in design.configs for address in configured(config)]
    on_switches += (config.loopback.partition("/")[0] for config in design.configs)
    twice = _duplicated(on_switches)
    if not twice:
        return []
    return [
        (f"{config.hostname}:{interface.name}", f"{interface.address} is configured {twice[address]} times")
        for config in design.configs
        for interface, address in zip(
            (interface for interface in config.interfaces if interface.address), configured(config), strict=True
        )
        if address in twice
    ]


def _pool_findings(pools: dict[str, Pool], fabric_pool: Pool, unnumbered: bool) -> Iterator[Finding]:
    """Pools that overlap, the fabric's /31s unused when ``unnumbered``, and every pool's use (``pools``: those in
    use)."""
    ordered = sorted(pools.values(), key=lambda pool: pool.first)
    for low, high in pairwise(ordered):
        if high.first < low.first + low.size:
            yield Finding(ID, "error", f"{low.name} {low.cidr} overlaps {high.name} {high.cidr}", high.name)
    if unnumbered:
        yield Finding(
            ID,
            "info",
            f"fabric_p2p {fabric_pool.cidr}: unused, the underlay is unnumbered (switch-to-switch links take no "
            "addresses)",
            "fabric_p2p",
            evidence={"cidr": fabric_pool.cidr, "used": 0, "size": fabric_pool.size, "utilisation": 0.0},
        )
    for pool in pools.values():
        severity = "error" if pool.used > pool.size else "info"
        yield Finding(
            ID,
            severity,
            f"{pool.name} {pool.cidr}: {pool.used:,} of {pool.size:,} addresses used ({pool.utilisation():.1%})",
            pool.name,
            evidence={
                "cidr": pool.cidr,
                "used": pool.used,
                "size": pool.size,
                "utilisation": round(pool.utilisation(), 6),
            },
        )


def _duplicated(values: Sequence[Hashable]) -> Counter[Hashable]:
    """The values found more than once, with their counts (a set proves the usual case: no value twice)."""
    if len(set(values)) == len(values):
        return Counter()
    return Counter({value: count for value, count in Counter(values).items() if count > 1})


def _inside(pool: Pool, address: int) -> bool:
    return bool(pool.first <= address < pool.first + pool.size)


def _name(devices: Sequence[Device], device: int, port: int) -> str:
    return devices[device].name if port < 0 else f"{devices[device].name}:{devices[device].port_name(port)}"

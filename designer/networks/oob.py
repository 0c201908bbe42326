"""Size, wire and address the out-of-band network from its own spec and the management ports of every rack.

* Every rack of the hall has the same number of management switches, enough for the most management ports a rack
  of its kind holds in the envelope (:attr:`RackPorts.ports` lists every position, built or not), so a rack filling
  up inside the envelope adds cables and moves none. Position ``p`` of a rack is port ``p % ports`` of its
  management switch ``p // ports``, named ``{rack}-mgmt{k}``. A rack-scale system's rack brings its own management
  switches (:attr:`RackPorts.switches`): they are its access switches, and none is added to it. Rack ``r``'s
  switch ``k`` has the structural number ``r * stride + k``, ``stride`` the most switches a rack has.
* Every management switch sends all its uplinks to the OOB spines ``oob-spine{j}``, striped by the switch's
  structural number ``rack ordinal * switches per rack + k``; the spine count is the smallest that divides the
  uplinks and gives the spines ports for every management switch of the envelope. A hall with more management
  switches than a spine has ports gets groups of as many spines as a switch has uplinks, each group serving as
  many switches as a spine has ports (switch ``n`` in group ``n // ports``).
* Addresses, one per device: management switch ``n`` owns the aligned block ``pool + n*block`` (``block`` the power
  of two holding its ports, its gateway and the block's network and broadcast addresses); its gateway is the
  block's first host, position ``p`` the host ``2 + p``. The switch-to-spine /31s follow every block of the
  envelope, then the spines' loopbacks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from netaddr import IPNetwork

from designer.backend.allocate import Pool, default_pools, ip
from designer.backend.sizing import ecmp_divisor
from designer.backend.wiring import Stripes
from designer.errors import InputError, Problem
from designer.intent.networks_section import OobSpec

MANAGEMENT_PORT = "mgmt"
"""The name of a switch's management port (``oob.csv``'s ``port``); a server's host management port and a managed
power part's port are named alike."""


@dataclass(frozen=True)
class Managed:
    """One management port to cable: its device and the port's name on it (``bmc``, ``eth0``, ``mgmt``)."""

    device: str
    port: str


@dataclass(frozen=True)
class RackPorts:
    """The management ports of one rack: its name, its structural number in the hall of the envelope, and every
    position a management port can take in it (None: nothing built there yet)."""

    rack: str
    ordinal: int
    ports: tuple[Managed | None, ...]
    switches: tuple[str, ...] = ()
    """The rack's own management switches (a rack-scale system's), its access switches in that order; empty: the
    network places its own, ``{rack}-mgmt{k}``."""


@dataclass(frozen=True)
class Access:
    """One management cable: the management switch (its index in :attr:`OobDesign.switches`), its port, the device
    and port at the other end, and the device's management address."""

    switch: int
    port: int
    managed: Managed
    address: int


@dataclass(frozen=True)
class OobDesign:
    """The out-of-band network: its switches, access cables, uplinks and addresses."""

    switches: tuple[str, ...]
    """Management switches rack by rack, then the OOB spines."""
    spines: int
    switches_per_rack: int
    """Management switches the network adds to a rack that brings none."""
    block: int
    pool: Pool
    access: tuple[Access, ...]
    uplinks: tuple[tuple[int, int, int, int], ...]
    """``(spine, spine port, management switch, its uplink)``, indices into :attr:`switches`."""
    gateways: tuple[int, ...]
    """Each management switch's gateway address (its own management address), then each spine's loopback."""
    uplink_evens: tuple[int, ...]
    """The spine end's (even) address of every uplink /31, in uplink order."""
    racks: tuple[str, ...] = ()
    """The rack of each management switch, in :attr:`switches` order."""

    def subnet(self, switch: int) -> str:
        """The management subnet of management switch ``switch``."""
        return f"{ip(self.gateways[switch] - 1)}/{33 - self.block.bit_length()}"


def design_oob(spec: OobSpec, racks: Sequence[RackPorts], envelope_racks: int, taken: Sequence[Pool]) -> OobDesign:
    """The out-of-band network of ``racks`` (the racks built now) in a hall of ``envelope_racks`` racks; its default
    pool clear of ``taken``. :class:`InputError` when the spine or the pool cannot hold the envelope."""
    switch = spec.switch
    positions = max((len(rack.ports) for rack in racks if not rack.switches), default=0)
    per_rack = max(1, math.ceil(positions / switch.ports))
    stride = max([per_rack, *(len(rack.switches) for rack in racks)])
    _refuse_crowded(spec, racks)
    envelope_switches = envelope_racks * stride
    radix = _spine_radix(spec)
    groups = math.ceil(envelope_switches / radix)
    per_group = (
        switch.uplinks
        if groups > 1
        else ecmp_divisor(
            switch.uplinks, max(min(2, switch.uplinks), math.ceil(envelope_switches * switch.uplinks / radix))
        )
    )
    spines = groups * per_group
    block = 1 << math.ceil(math.log2(switch.ports + 3))
    pool = _pool(spec, envelope_switches * block + 2 * envelope_switches * switch.uplinks + spines, taken)
    names, numbers, homes, access = _access(spec, racks, per_rack, stride, pool.first, block)
    managers = len(names)
    names.extend(f"oob-spine{index}" for index in range(spines))
    uplink_base = pool.first + envelope_switches * block
    uplinks, evens = [], []
    stripes = Stripes(switch.uplinks // per_group, 1, per_group, radix)
    held = radix // (switch.uplinks // per_group)
    for index, number in enumerate(numbers):
        for uplink in range(switch.uplinks):
            group, local = divmod(number, held)
            spine, port = stripes.place(uplink, local)
            uplinks.append((managers + group * per_group + spine, port, index, uplink))
            evens.append(uplink_base + 2 * (number * switch.uplinks + uplink))
    loopback_base = uplink_base + 2 * envelope_switches * switch.uplinks
    gateways = [pool.first + number * block + 1 for number in numbers] + [
        loopback_base + index for index in range(spines)
    ]
    used = len(access) + managers + 2 * len(uplinks) + spines
    return OobDesign(
        tuple(names),
        spines,
        per_rack,
        block,
        Pool(**{**vars(pool), "used": used}),
        tuple(access),
        tuple(uplinks),
        tuple(gateways),
        tuple(evens),
        tuple(homes),
    )


def _refuse_crowded(spec: OobSpec, racks: Sequence[RackPorts]) -> None:
    """:class:`InputError` when a rack that brings its own management switches has more ports to cable than they
    hold."""
    ports = spec.switch.ports
    if crowded := [rack for rack in racks if rack.switches and len(rack.ports) > len(rack.switches) * ports]:
        rack = crowded[0]
        raise InputError(
            [
                Problem(
                    ("networks", "oob"),
                    f"rack {rack.rack} has {len(rack.ports)} management ports to cable, but its own "
                    f"{len(rack.switches)} management switch{'es' if len(rack.switches) > 1 else ''} "
                    f"{'have' if len(rack.switches) > 1 else 'has'} {len(rack.switches) * ports} ports; "
                    "declare fewer (host_management, managed_per_rack) or give the system more management switches "
                    "in a site catalog",
                )
            ]
        )


def _spine_radix(spec: OobSpec) -> int:
    """The OOB spine's ports at the management switches' uplink speed; :class:`InputError` when it cannot run it."""
    radix = spec.spine.radix(spec.switch.uplink_speed)
    if radix == 0:
        raise InputError(
            [
                Problem(
                    ("networks", "oob", "spine"),
                    f"{spec.spine.model} ports cannot run the management switches' {spec.switch.uplink_speed}G "
                    "uplinks; give networks.oob.spine a switch whose ports run them",
                )
            ]
        )
    return radix


def _access(
    spec: OobSpec, racks: Sequence[RackPorts], per_rack: int, stride: int, first: int, block: int
) -> tuple[list[str], list[int], list[str], list[Access]]:
    """The access switches of ``racks`` (their own, else ``per_rack`` each, numbered ``stride`` to a rack) with each
    one's number and rack, and every management port cabled to them with its address (a ``block`` of the pool from
    ``first`` to each switch)."""
    ports = spec.switch.ports
    names: list[str] = []
    numbers: list[int] = []
    homes: list[str] = []
    access: list[Access] = []
    for rack in racks:
        for local in range(len(rack.switches) or per_rack):
            number = rack.ordinal * stride + local
            names.append(rack.switches[local] if rack.switches else f"{rack.rack}-mgmt{local}")
            numbers.append(number)
            homes.append(rack.rack)
            for port in range(ports):
                position = local * ports + port
                managed = rack.ports[position] if position < len(rack.ports) else None
                if managed is not None:
                    access.append(Access(len(names) - 1, port, managed, first + number * block + 2 + port))
    return names, numbers, homes, access


def _pool(spec: OobSpec, needed: int, taken: Sequence[Pool]) -> Pool:
    """The management pool: the intent's, or the lowest free block of 10.0.0.0/8 beside ``taken`` that holds
    ``needed`` addresses."""
    if spec.pool is not None:
        network = IPNetwork(spec.pool)
        if network.size < needed:
            raise InputError(
                [
                    Problem(
                        ("networks", "oob", "pool"),
                        f"{network} holds {network.size:,} addresses but the management network's envelope needs "
                        f"{needed:,}; use a /{32 - math.ceil(math.log2(needed))} or larger",
                    )
                ]
            )
        return Pool("management", str(network.cidr), int(network.first), network.size, 0, needed)
    blocks = {f"taken {index}": (pool.first, pool.size) for index, pool in enumerate(taken)}
    # default_pools lays out the three pools of a network; the management pool takes the place of the first.
    laid_out = default_pools({"fabric_p2p": needed, "server_p2p": 1, "loopbacks": 1}, blocks)
    if "fabric_p2p" not in laid_out:
        raise InputError(
            [Problem(("networks", "oob"), "no free block of 10.0.0.0/8 holds the management addresses; give pool")]
        )
    first, size = laid_out["fabric_p2p"]
    return Pool("management", f"{ip(first)}/{33 - size.bit_length()}", first, size, 0, needed, given=False)

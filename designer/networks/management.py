"""The management side of every switch, whatever its network and OS: the management VRF, the management port's
address and gateway from the out-of-band plan, and the intent's NTP, syslog and DNS servers (``management``).

* A switch's management port is its access port on its rack's management switch (:mod:`designer.networks.oob`):
  its address is that port's host in the switch's block, and its gateway the block's first host, the management
  switch's own address (``oob.csv``'s ``gateway`` column), so both come from structure and keep still as the hall
  fills up.
* Without an out-of-band network the switches get no address and no route (DHCP or ZTP gives the port one), and the
  services still apply; with neither a server nor an out-of-band network, there is nothing to configure and the
  configurations stay as they were.
* A switch of any network (backend, frontend, storage) is looked up by its name, so a view takes the management of
  a device from the :class:`SwitchManagement` of its design alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from designer.backend.allocate import ip
from designer.intent.networks_section import ManagementSpec
from designer.networks.oob import MANAGEMENT_PORT, OobDesign


@dataclass(frozen=True)
class Management:
    """The management side of one switch: the VRF its management port sits in, the port's address with its prefix
    length and its default gateway (both empty without an out-of-band network), and the servers it uses."""

    vrf: str
    address: str
    gateway: str
    ntp: tuple[str, ...]
    syslog: tuple[str, ...]
    dns: tuple[str, ...]
    domain: str


@dataclass(frozen=True)
class SwitchManagement:
    """The management side of the switches of one design: the intent's section and each switch's management
    address (with its prefix length) and gateway, by switch name."""

    spec: ManagementSpec
    addresses: Mapping[str, tuple[str, str]]

    def __call__(self, hostname: str) -> Management | None:
        """The management side of the switch ``hostname``; None when there is nothing to configure (no server in
        the intent's section and no management address)."""
        spec = self.spec
        address, gateway = self.addresses.get(hostname, ("", ""))
        if not (address or spec.ntp or spec.syslog or spec.dns or spec.domain):
            return None
        return Management(spec.vrf, address, gateway, spec.ntp, spec.syslog, spec.dns, spec.domain or "")


def switch_management(spec: ManagementSpec, oob: OobDesign | None) -> SwitchManagement:
    """The management side of every switch from the intent's ``management`` section and the out-of-band network
    (None: not declared)."""
    if oob is None:
        return SwitchManagement(spec, {})
    length = 33 - oob.block.bit_length()
    return SwitchManagement(
        spec,
        {
            access.managed.device: (f"{ip(access.address)}/{length}", ip(oob.gateways[access.switch]))
            for access in oob.access
            if access.managed.port == MANAGEMENT_PORT
        },
    )

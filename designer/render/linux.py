"""The Linux kernel's view of a device model, for the FRR target: the routing daemons take the configuration, the
kernel forwards, so the multipath hash is kernel settings (a sysctl.d file beside each frr.conf).

* ``net.ipv4.fib_multipath_hash_policy`` 1 hashes layer 4: source and destination address, IP protocol and both
  ports, which takes in the UDP source port RoCEv2 varies per queue pair (0 hashes layer 3 only, and every flow
  between two NICs then takes one path).
* ``net.ipv4.fib_multipath_hash_seed`` (kernel 6.11 and later; a u32, where 0 asks the kernel for a random seed)
  is the switch's seed. Both are documented in the kernel's Documentation/networking/ip-sysctl.rst.
"""

from __future__ import annotations

from typing import Any

from designer.backend.model import DeviceConfig

HASH_POLICY = {"five-tuple": 1}
"""``fib_multipath_hash_policy`` of each hash choice the kernel can express (catalog: ``targets.frr``)."""
SHARED_BLOCKS = {"frr/policy.j2": ("policy",)}
"""The templates that read only these variables of the view, rendered once per distinct value
(:func:`designer.render.views.shared_blocks`): the route policy (SONiC's FRR file includes it too)."""


def sysctls(device: DeviceConfig) -> list[tuple[str, int]]:
    """The kernel settings of one router, as (key, value)."""
    balancing = device.load_balancing
    return [
        ("net.ipv4.fib_multipath_hash_policy", HASH_POLICY[balancing.hash]),
        ("net.ipv4.fib_multipath_hash_seed", balancing.seed),
    ]


def view(device: DeviceConfig) -> dict[str, Any]:
    """The variables of ``templates/frr/``: the device model, its route policy, its kernel settings for
    ``sysctl.conf.j2``, and no port names of another OS (``ports``: FRR's are the designer's own)."""
    return {"device": device, "policy": device.bgp.policy, "sysctls": sysctls(device), "ports": {}}

"""load-balancing: ECMP on consecutive tiers hashes differently, and the hash reads layer 4.

* A switch hashes a flow onto one of its equal-cost next hops. When the switch below and the switch above it use
  the same hash function with the same seed, the flows that reached the upper switch all landed on one value of
  the lower switch's hash, so they land on one next hop again: the second hop is polarized and most of its paths
  stay idle. Every switch-to-switch link must therefore join two different seeds (a seed per tier, or per switch).
* A RoCEv2 flow's entropy is its UDP source port (one per queue pair); a hash without both layer-4 ports puts
  every flow between two NICs on one path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from designer.backend.wiring import SERVER_LEAF
from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding

ID = "load-balancing"
DESCRIPTION = "different hash seeds on the two ends of every switch link, and a hash that reads layer 4"
SEVERITY = "error"
TECHNOLOGIES = ("ethernet",)
"""The fabrics it proves something of: an InfiniBand fabric has no ECMP hashing."""


def check(design: Built) -> Iterable[Finding]:
    configs, devices = design.configs, design.fabric.devices
    problems = [
        (
            config.hostname,
            f"the ECMP hash reads {', '.join(config.load_balancing.fields)}: without both "
            "layer-4 ports every flow between two NICs takes one path",
        )
        for config in configs
        if not config.load_balancing.layer4
    ]
    polarized: Counter[tuple[str, str, int]] = Counter()
    example: dict[tuple[str, str, int], str] = {}
    for tier, upper, _, lower, _ in design.fabric.links:
        if tier == SERVER_LEAF:
            continue
        seed = configs[lower].load_balancing.seed
        if configs[upper].load_balancing.seed == seed:
            key = (devices[lower].role, devices[upper].role, seed)
            polarized[key] += 1
            example.setdefault(key, f"{devices[lower].name} - {devices[upper].name}")
    for (lower_role, upper_role, seed), count in sorted(polarized.items()):
        problems.append(
            (
                example[lower_role, upper_role, seed],
                (
                    f"{count:,} {lower_role}-{upper_role} link{'s' if count != 1 else ''} join two switches hashing "
                    f"with seed {seed}: the {upper_role} sends the {lower_role}'s flows down one choice again "
                    "(polarization); give each tier its own seed (load_balancing.seeds)"
                ),
            )
        )
    yield from capped(ID, SEVERITY, problems)
    seeds: dict[str, set[int]] = {}
    for config in configs:
        seeds.setdefault(config.role, set()).add(config.load_balancing.seed)
    modes = sorted({(config.load_balancing.mode, config.load_balancing.hash) for config in configs})
    yield Finding(
        ID,
        "info",
        f"{', '.join(f'{mode} on {hashed}' for mode, hashed in modes)}; seeds "
        + ", ".join(f"{role} {_seeds(values)}" for role, values in seeds.items())
        + f"; {len(polarized):,} polarized tier pairs",
        evidence={
            "hash": [hashed for _, hashed in modes],
            "polarized_links": sum(polarized.values()),
            "distinct_seeds": {role: len(values) for role, values in seeds.items()},
        },
    )


def _seeds(values: set[int]) -> str:
    """One seed as itself, many as a count."""
    return str(next(iter(values))) if len(values) == 1 else f"{len(values):,} different"

"""The design's headline numbers: the ``designer plan --format json`` contract and its text form.

The JSON keys are a public contract read by CI scripts: add keys, never rename or remove them.
"""

from __future__ import annotations

from typing import Any

from designer.checks import counts, evidence
from designer.design import Design


def summary(design: Design) -> dict[str, Any]:
    """Headline numbers of a design, all planes together."""
    plan, allocation = design.plan, design.allocation
    links = plan.link_counts()
    return {
        "name": design.intent.name,
        "tiers": plan.tiers,
        "planes": plan.planes,
        "rails": plan.rails,
        "servers": plan.servers,
        "gpus": plan.gpus,
        "nic_ports": plan.servers * plan.rails * plan.planes,
        "nic_speed_gbps": plan.link_speed,
        "switches": plan.switch_counts(),
        "links": links,
        "bandwidth_tbps": plan.bandwidth_tbps(),
        "p2p_subnets": sum(links.values()),
        "loopbacks": allocation.loopback_pool.used,
        "asns": len(set(allocation.asns)),
        "sizing": {
            "leaf_radix": plan.leaf_radix,
            "spine_radix": plan.spine_radix,
            "super_spine_radix": plan.super_radix if plan.tiers == 3 else None,
            "servers_per_su": plan.servers_per_su,
            "scalable_units": plan.sus,
            "pods": plan.pods,
            "scalable_units_per_pod": plan.sus_per_pod,
            "spines_per_pod": plan.spines_per_pod,
            "leaf_spine_parallel_links": plan.leaf_spine_parallel,
            "super_spine_groups": plan.groups,
            "super_spines_per_group": plan.supers_per_group,
            "spine_super_spine_parallel_links": plan.spine_super_parallel,
        },
        "pools": {pool.name: {"cidr": pool.cidr, "size": pool.size, "used": pool.used}
                  for pool in allocation.pools()},
        "power_kw": design.physical.power_kw(design.intent.facility.pue),
        "racks": design.physical.rack_counts(),
        "warnings": list(plan.warnings),
        "checks": counts(design.findings),
        "bisection_tbps": evidence(design.findings, "bisection-bandwidth", "bisection_tbps"),
    }


def summary_text(data: dict[str, Any]) -> str:
    """A few lines a person reads at the terminal."""
    switches, links, bandwidth = data["switches"], data["links"], data["bandwidth_tbps"]
    lines = [
        f"{data['name']}: {data['gpus']:,} GPUs on {data['servers']:,} servers, {data['planes']} plane(s) x "
        f"{data['rails']} rails at {data['nic_speed_gbps']}G, {data['tiers']} tiers",
        f"switches: {switches['leaf']:,} leaf, {switches['spine']:,} spine, {switches['super_spine']:,} super-spine",
    ]
    lines += [f"{tier.replace('_', '-')} links: {count:,} ({bandwidth[tier]:,.1f} Tb/s one way)"
              for tier, count in links.items() if count]
    lines.append(f"/31 subnets: {data['p2p_subnets']:,}; ASNs: {data['asns']:,}")
    racks, power = data["racks"], data["power_kw"]
    lines.append(f"racks: {racks['compute']:,} compute + {racks['network']:,} network in {racks['rows']:,} rows; "
                 f"power: {power['total']:,.1f} kW IT, {power['facility']:,.1f} kW facility")
    checks = data["checks"]
    lines.append(f"checks: {checks['passed']} passed, {checks['failed']} failed, {checks['warnings']} with warnings; "
                 f"bisection {data['bisection_tbps']:,.1f} Tb/s")
    lines += [f"warning: {warning}" for warning in data["warnings"]]
    return "\n".join(lines)

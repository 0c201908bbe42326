"""The design's headline numbers (the ``designer plan --format json`` contract and its text form) and
``summary.md``, what a reviewer reads first.

The JSON keys are a public contract read by CI scripts: add keys, never rename or remove them.
"""

from __future__ import annotations

from typing import Any

from designer.checks import counts, evidence
from designer.checks import formats as checks_format
from designer.design import Design
from designer.outputs import workloads


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
        "workloads": [workloads.contract(result) for result in design.workloads],
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
    for row in data["workloads"]:
        ecmp = row["ecmp"]
        at_p50 = ("" if ecmp["time_s_p50"] is None else
                  f", {ecmp['time_s_p50']:,.3f} s at ECMP p50 ({ecmp['efficiency_p50']:.1%})")
        lines.append(f"workload {row['name']}: {row['collective']} on {row['gpus']:,} GPUs, "
                     f"{row['ideal']['time_s']:,.3f} s ideal{at_p50} (designer analyze)")
    lines += [f"warning: {warning}" for warning in data["warnings"]]
    return "\n".join(lines)


def summary_markdown(design: Design) -> str:
    """What a reviewer reads first: counts, tiers, hardware, pools and their use, warnings."""
    data = summary(design)
    intent, plan = design.intent, design.plan
    sizing = data["sizing"]
    lines = [f"# {intent.name}", ""]
    if intent.description:
        lines += [intent.description, ""]
    lines += [
        "| | |", "|---|---|",
        f"| GPUs | {data['gpus']:,} ({data['servers']:,} x {intent.server.model}, {plan.gpus_per_server} GPUs each) |",
        f"| Backend NIC ports | {data['nic_ports']:,} at {plan.link_speed}G |",
        f"| Planes x rails | {plan.planes} x {plan.rails} |",
        f"| Tiers | {plan.tiers} (non-blocking, 1:1 at every tier) |",
        f"| Scalable units | {plan.sus} of {plan.servers_per_su} servers |",
    ]
    if plan.tiers == 3:
        lines.append(f"| Pods per plane | {plan.pods} of {sizing['scalable_units_per_pod']} scalable units |")
    lines += ["", "## Switches", "", "| role | count | model | logical ports | breakout |", "|---|---:|---|---:|---:|"]
    radix = {"leaf": plan.leaf_radix, "spine": plan.spine_radix, "super_spine": plan.super_radix}
    for role, count in data["switches"].items():
        if count:
            spec = intent.switch(role)
            lines.append(f"| {role.replace('_', '-')} | {count:,} | {spec.model} ({spec.ports} x {spec.speed}G) | "
                         f"{radix[role]} | {spec.breakout(plan.link_speed)} x {plan.link_speed}G |")
    lines += ["", "## Links", "", "| tier | links | Tb/s one way | parallel links per switch pair |",
              "|---|---:|---:|---:|"]
    parallel = {"server_leaf": 1, "leaf_spine": plan.leaf_spine_parallel,
                "spine_super_spine": plan.spine_super_parallel}
    for tier, count in data["links"].items():
        if count:
            lines.append(f"| {tier.replace('_', '-')} | {count:,} | {data['bandwidth_tbps'][tier]:,.1f} | "
                         f"{parallel[tier]} |")
    lines += ["", f"Spines per {'plane' if plan.tiers == 2 else 'pod'}: {plan.spines_per_pod}; each leaf has "
                  f"{plan.leaf_uplinks} uplinks."]
    if plan.tiers == 3:
        lines.append(f"Super-spines per plane: {plan.supers_per_plane} in {plan.groups} groups of "
                     f"{plan.supers_per_group}; each spine has {plan.spine_uplinks} uplinks.")
    lines += ["", "## Address pools", "", "| pool | prefix | used | size | use |", "|---|---|---:|---:|---:|"]
    for pool in design.allocation.pools():
        lines.append(f"| {pool.name} | {pool.cidr} | {pool.used:,} | {pool.size:,} | {pool.utilisation():.1%} |")
    lines += ["", "## ASNs", "", f"Scheme: {intent.routing.asn_scheme}; {data['asns']:,} ASNs in use.", "",
              "| role | first | last |", "|---|---:|---:|"]
    for role in ("leaf", "spine", "super_spine"):
        numbers = [asn for device, asn in zip(design.fabric.switches(), design.allocation.asns, strict=True)
                   if device.role == role]
        if numbers:
            lines.append(f"| {role.replace('_', '-')} | {min(numbers)} | {max(numbers)} |")
    power, racks = data["power_kw"], data["racks"]
    lines += ["", "## Racks and power", "",
              f"{racks['compute']:,} compute racks of {design.physical.servers_per_rack} servers and "
              f"{racks['network']:,} network racks in {racks['rows']:,} rows; {power['compute']:,.1f} kW compute + "
              f"{power['network']:,.1f} kW network = {power['total']:,.1f} kW IT, {power['facility']:,.1f} kW with PUE "
              f"{intent.facility.pue:g} (`power.md`, `floorplan.svg`, `bom.csv`)."]
    lines += ["", "## Checks", "", f"{data['checks']['passed']} passed, {data['checks']['failed']} failed, "
              f"{data['checks']['warnings']} with warnings; bisection {data['bisection_tbps']:,.1f} Tb/s "
              "(`designer check` lists every finding; `design.json` has them with their evidence).", ""]
    lines += checks_format.markdown(design.findings)
    lines += workloads.markdown(design.workloads)
    lines += ["", "## Warnings", ""]
    lines += [f"- {warning}" for warning in data["warnings"]] or ["None."]
    lines += ["", "## Switch configurations", "", *_configs_lines(design)]
    lines += ["", "## Files", "",
              "- `design.json`: the whole design for scripts",
              "- `cabling.csv`: one row per link, both ends, estimated length and medium",
              "- `racks.csv`: every rack: row, position, role, kW and its devices (`name@unit`)",
              "- `power.md`: power per rack, row, scalable unit and in total, with PUE; flagged racks",
              "- `bom.csv`: switches, servers, transceivers by type, cables by type and length",
              "- `floorplan.svg`: the rows of racks colored by kW, and one compute and one network rack elevation",
              *(["- `workloads.svg`: time per collective of every workload, and the busiest switch's uplinks"]
                if design.workloads else []),
              "- `addressing.csv`: every interface address",
              "- `asn.csv`: every switch's ASN",
              f"- `configs/<os>/<hostname>.<ext>`: every switch's configuration for {', '.join(design.intent.targets)}",
              "- `manifest.json`: intent hash, tool version and sha256 of every file", ""]
    return "\n".join(lines)


def _configs_lines(design: Design) -> list[str]:
    """What every switch configuration says about routing and lossless QoS, in two lines."""
    qos, routing = design.intent.qos, design.intent.routing
    widths = sorted({device.bgp.maximum_paths for device in design.configs})
    paths = f"{widths[0]} to {widths[-1]}" if len(widths) > 1 else f"{widths[0]}"
    unit = "%" if qos.ecn_unit == "percent" else " bytes"
    bfd = f"every {routing.bfd.interval_ms} ms" if routing.bfd.enabled else "off"
    ecn = (f"ECN marking from {qos.ecn_min:,}{unit} to {qos.ecn_max:,}{unit} ({qos.ecn_probability}% at the top)"
           if qos.ecn else "ECN off")
    watchdog = f"{qos.pfc_watchdog_detection_ms} ms" if qos.pfc_watchdog else "off"
    return [
        f"Targets: {', '.join(design.intent.targets)}. BGP: eBGP on every switch-to-switch /31, maximum-paths "
        f"{paths} (the ECMP width), multipath-relax, timers {routing.timers.keepalive}/{routing.timers.hold} s, "
        f"BFD {bfd}.",
        "",
        f"QoS profile {qos.profile}: DSCP {qos.roce_dscp} to priority {qos.roce_priority}, lossless with PFC; CNP DSCP "
        f"{qos.cnp_dscp} to strict priority {qos.cnp_priority}; {ecn}; PFC watchdog {watchdog}; MTU {qos.mtu}.",
    ]

"""The design's headline numbers (the ``designer plan --format json`` contract and its text form) and
``summary.md``, what a reviewer reads first.

The JSON keys are a public contract read by CI scripts: add keys, never rename or remove them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from designer.analysis.workload import HASHED
from designer.backend.allocate import Allocation, ip
from designer.backend.model import Headroom
from designer.backend.physical.placement import servers_per_rack
from designer.backend.sizing import Plan
from designer.backend.wiring import LINK_TIERS
from designer.checks import applicable, counts, evidence
from designer.checks import formats as checks_format
from designer.design import Design
from designer.intent import Intent
from designer.intent.fields import ratio_text
from designer.intent.switch_spec import SWITCH_TIERS
from designer.outputs import workload_report
from designer.outputs.gnmi import gnmi_targets
from designer.outputs.hardware import hardware_lines, nic_balancing_line
from designer.outputs.labels import HTML_LABELS
from designer.outputs.markdown import markdown_inline, markdown_text
from designer.outputs.monitoring import lossless_rule_targets, monitored_target, not_monitored
from designer.outputs.tier_review import tier_markdown, tier_text, tiers_built
from designer.targets import TARGETS, per_switch


def summary(design: Design) -> dict[str, Any]:
    """Headline numbers of a design, all planes together; the underlay, addresses and ASNs only for a fabric that
    has them (not InfiniBand)."""
    plan = design.plan
    links = plan.link_counts()
    return {
        "name": design.intent.name,
        **({"subnet_managers": list(design.intent.subnet_managers)} if design.intent.subnet_managers else {}),
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
        **_addressing(design),
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
            **_vendor_su(design.intent),
        },
        **_pools(design),
        "power_kw": design.physical.power_kw(design.intent.facility.pue),
        "racks": design.physical.rack_counts(),
        "warnings": list(plan.warnings),
        "growth": growth(plan),
        "tiers_built": tiers_built(design),
        "checks": counts(design.findings, applicable(design.intent.technology)),
        "bisection_tbps": evidence(design.findings, "bisection-bandwidth", "bisection_tbps"),
        "workloads": [workload_report.contract(result) for result in design.workloads],
    }


def _vendor_su(intent: Intent) -> dict[str, Any]:
    """The scalable unit the system's vendor names, beside designer's (``servers_per_su``: a leaf group); nothing
    where the catalog gives none."""
    system = intent.system
    if system is None or not system.vendor_su:
        return {}
    return {
        "vendor_scalable_unit": {
            "systems": system.vendor_su,
            "gpus": system.vendor_su * system.gpus,
            "source": system.vendor_su_source,
        }
    }


def _addressing(design: Design) -> dict[str, Any]:
    """The summary's underlay and its counts of /31s, loopbacks and ASNs; nothing without an allocation."""
    allocation = design.allocation
    if allocation is None:
        return {}
    underlay = design.intent.routing.underlay
    return {
        "underlay": underlay,
        "p2p_subnets": sum(  # with hwplb a NIC port's plane links share their /31
            count // (design.plan.planes // allocation.numbering.address_planes) if tier == "server_leaf" else count
            for tier, count in design.plan.link_counts().items()
            if tier == "server_leaf" or underlay != "unnumbered"
        ),
        "loopbacks": allocation.loopback_pool.used,
        "asns": len(set(allocation.asns)),
    }


def _pools(design: Design) -> dict[str, Any]:
    """The summary's address pools (a switch-to-switch pool unused under an unnumbered underlay); nothing without an
    allocation."""
    allocation = design.allocation
    if allocation is None:
        return {}
    unused = {"fabric_p2p"} if design.intent.routing.underlay == "unnumbered" else set()
    return {
        "pools": {
            pool.name: {
                "cidr": pool.cidr,
                "size": pool.size,
                "used": 0 if pool.name in unused else pool.used,
                "planned": 0 if pool.name in unused else pool.planned,
            }
            for pool in allocation.pools()
        }
    }


def growth(plan: Plan) -> dict[str, Any]:
    """The envelope the design is planned for and how far its cabling holds."""
    limit, reason = plan.cabling_limit()
    return {
        "max_servers": plan.max_servers,
        "max_gpus": plan.max_servers * plan.gpus_per_server,
        "tiers": plan.tiers,
        "scalable_units": plan.envelope_sus,
        "pods": plan.envelope_pods,
        "switches": plan.envelope_switch_counts(),
        "links": plan.envelope_link_counts(),
        "spine_up_ports_reserved": plan.tiers == 3 and not plan.super_tier,
        "cabling_limit_servers": limit,
        "cabling_limit": reason,
    }


def design_grows(data: dict[str, Any]) -> bool:
    """Whether the summarized design plans for more servers than it builds."""
    return bool(data["growth"]["max_servers"] > data["servers"])


def summary_text(data: dict[str, Any]) -> str:
    """A few lines a person reads at the terminal."""
    switches, links, bandwidth = data["switches"], data["links"], data["bandwidth_tbps"]
    lines = [
        f"{data['name']}: {data['gpus']:,} GPUs on {data['servers']:,} servers, {data['planes']} plane(s) x "
        f"{data['rails']} rails at {data['nic_speed_gbps']}G, {data['tiers']} tiers",
        f"switches: {switches['leaf']:,} leaf, {switches['spine']:,} spine, {switches['super_spine']:,} super-spine",
    ]
    lines += [
        f"{tier.replace('_', '-')} links: {count:,} ({bandwidth[tier]:,.1f} Tb/s one way)"
        for tier, count in links.items()
        if count
    ]
    lines += tier_text(data["tiers_built"], design_grows(data))
    if managers := data.get("subnet_managers"):
        lines.append(f"routed by the subnet manager ({', '.join(managers)}): no /31s, ASNs or BGP")
    else:
        lines.append(f"/31 subnets: {data['p2p_subnets']:,}; ASNs: {data['asns']:,}")
    sizing = data["sizing"]
    if vendor := sizing.get("vendor_scalable_unit"):
        lines.append(
            f"scalable units: {sizing['scalable_units']:,} (designer: {sizing['servers_per_su']:,} trays a leaf "
            f"group); SU of {vendor['source']}: {vendor['systems']:,} systems = {vendor['gpus']:,} GPUs"
        )
    racks, power = data["racks"], data["power_kw"]
    lines.append(
        f"racks: {racks['compute']:,} compute + {racks['network']:,} network in {racks['rows']:,} rows; "
        f"power: {power['total']:,.1f} kW IT, {power['facility']:,.1f} kW facility"
    )
    checks = data["checks"]
    lines.append(
        f"checks: {checks['passed']} passed, {checks['failed']} failed, {checks['warnings']} with warnings; "
        f"bisection {data['bisection_tbps']:,.1f} Tb/s"
    )
    envelope = data["growth"]
    if envelope["max_servers"] > data["servers"]:
        lines.append(
            f"growth: planned for {envelope['max_servers']:,} servers ({envelope['max_gpus']:,} GPUs, "
            f"{envelope['tiers']} tiers); growing inside that only adds"
        )
    lines.append(
        f"growth: this cabling holds up to {envelope['cabling_limit_servers']:,} servers ({envelope['cabling_limit']})"
    )
    for row in data["workloads"]:
        ecmp = row["ecmp"]
        at_p50 = (
            ""
            if ecmp["time_s_p50"] is None
            else f", {ecmp['time_s_p50']:,.3f} s at {'ECMP p50' if ecmp['model'] == HASHED else 'p50 spread'} "
            f"({ecmp['efficiency_p50']:.1%})"
        )
        lines.append(
            f"workload {row['name']}: {row['collective']} on {row['gpus']:,} GPUs, "
            f"{row['ideal']['time_s']:,.3f} s ideal{at_p50} (designer analyze)"
        )
    lines += [f"warning: {warning}" for warning in data["warnings"]]
    return "\n".join(lines)


def _units_row(intent: Intent, plan: Plan) -> str:
    """summary.md's count of scalable units in designer's one meaning (leaf groups), and beside it the unit the
    system's vendor names where the catalog gives one."""
    what = "trays" if intent.system else "servers"
    racks = plan.servers_per_su // plan.rack_servers if plan.rack_style else 0
    each = (
        f"{racks} rack{'s' if racks > 1 else ''} of {plan.rack_servers}, {plan.per_rack} switch(es) each"
        if plan.rack_style
        else "one leaf per rail and plane"
    )
    row = f"{plan.sus} (designer: {plan.servers_per_su} {what} a leaf group, {each})"
    system = intent.system
    if system is None or not system.vendor_su:
        return row
    vendor = markdown_inline(system.vendor_su_source)
    return row + f" — SU of {vendor}: {system.vendor_su} {system.name} racks = {system.vendor_su * system.gpus:,} GPUs"


def summary_markdown(design: Design, moved: Sequence[str] = ()) -> str:
    """What a reviewer reads first: counts, tiers, hardware, pools and their use, warnings; ``moved`` is the section
    on existing items changed since the build this one replaces (:class:`designer.readback.diff.Previous`)."""
    data = summary(design)
    intent, allocation = design.intent, design.allocation
    lines = [*_overview_lines(design, data), "", *hardware_lines(intent, design.plan), *_switch_lines(design, data)]
    lines += ["", *_link_lines(design, data), ""]
    lines += [*tier_markdown(data["tiers_built"], design_grows(data)), ""]
    if allocation is None:
        lines += _subnet_manager_lines(design)
    else:
        lines += [*_pool_lines(design, allocation), "", *_asn_lines(design, allocation, data["asns"])]
        lines += ["", *_numbering_lines(design, allocation)]
    lines += ["", *_rack_lines(design, data), "", *_growth_lines(design)]
    lines += ["", *moved] if moved else []
    lines += ["", *_check_lines(design, data), *workload_report.markdown(design.workloads)]
    lines += ["", "## Warnings", "", *([f"- {warning}" for warning in data["warnings"]] or ["None."])]
    if intent.targets:
        lines += ["", "## Switch configurations", "", *_configs_lines(design)]
    lines += ["", *_file_lines(design), ""]
    return "\n".join(lines)


def _overview_lines(design: Design, data: dict[str, Any]) -> list[str]:
    """The title, the intent's description and the table of counts: GPUs, NIC ports, planes, tiers, units, pods."""
    intent, plan = design.intent, design.plan
    sizing = data["sizing"]
    lines = [f"# {intent.name}", ""]
    if text := markdown_text(intent.description):
        lines += [text, ""]
    lines += [
        "| | |",
        "|---|---|",
        f"| GPUs | {data['gpus']:,} ({data['servers']:,} x {intent.server.model}, {plan.gpus_per_server} GPUs each) |",
        f"| Backend NIC ports | {data['nic_ports']:,} at {plan.link_speed}G |",
        f"| Planes x rails | {plan.planes} x {plan.rails} |",
        f"| Tiers | {plan.tiers} ({_blocking(intent, plan)}"
        + ("; pod 0 built, super-spines with the second pod" if plan.tiers == 3 and not plan.super_tier else "")
        + ") |",
        f"| Scalable units | {_units_row(intent, plan)} |",
    ]
    if plan.tiers == 3:
        lines.append(f"| Pods per plane | {plan.pods} of {sizing['scalable_units_per_pod']} scalable units |")
    return lines


def _blocking(intent: Intent, plan: Plan) -> str:
    """Whether the leaves send up as much bandwidth as the envelope's servers use down, and the declared tapers
    of the tiers (without one, every tier above the leaves is 1:1 by construction)."""
    if plan.rack_style:
        down = min(plan.rack_servers, plan.max_servers) * plan.rails // plan.per_rack * plan.link_speed
    else:
        down = min(plan.servers_per_su, plan.max_servers) * plan.link_speed
    up = plan.leaf_uplinks * plan.leaf_spine_speed
    built = plan.built_tapers()
    if intent.choices.tapers:
        return "tapered as declared: " + ", ".join(
            f"{role.replace('_', '-')} {ratio_text(intent.choices.taper(role) or 1)} (built {ratio_text(ratio)})"
            for role, ratio in built.items()
        )
    if down == up:
        return "non-blocking, 1:1 at every tier"
    if down < up:
        return f"non-blocking: the leaves send {up / down:.2f} times the bandwidth up that their servers use down"
    return f"the leaves {down / up:.2f}:1 oversubscribed (fabric.leaf.uplinks), 1:1 above them"


def _switch_lines(design: Design, data: dict[str, Any]) -> list[str]:
    """## Switches: each role's count, model, logical ports and breakout."""
    intent, plan = design.intent, design.plan
    lines = ["## Switches", "", "| role | count | model | logical ports | breakout |", "|---|---:|---|---:|---:|"]
    radix = {"leaf": plan.leaf_radix, "spine": plan.spine_radix, "super_spine": plan.super_radix}
    speeds = dict(zip(SWITCH_TIERS, plan.link_speeds, strict=True))
    ups = {"leaf": plan.leaf_spine_speed, "spine": plan.spine_super_speed if plan.tiers == 3 else plan.leaf_spine_speed}
    for role, count in data["switches"].items():
        if count:
            spec, down = intent.switch(role), speeds[role]
            up = ups.get(role, down)
            breakout = f"{spec.breakout(down)} x {down}G" + (
                f" down, {spec.breakout(up)} x {up}G up" if up != down else ""
            )
            lines.append(
                f"| {role.replace('_', '-')} | {count:,} | {spec.model} ({spec.ports} x {spec.speed}G) | "
                f"{radix[role]} | {breakout} |"
            )
    return lines


def _link_lines(design: Design, data: dict[str, Any]) -> list[str]:
    """## Links: each tier's links, bandwidth and parallel links, then the spines and super-spines they reach."""
    plan = design.plan
    lines = [
        "## Links",
        "",
        "| tier | links | Tb/s one way | parallel links per switch pair |",
        "|---|---:|---:|---:|",
    ]
    parallel = {
        "server_leaf": 1,
        "leaf_spine": plan.leaf_spine_parallel,
        "spine_super_spine": plan.spine_super_parallel,
    }
    for tier, count in data["links"].items():
        if count:
            lines.append(
                f"| {tier.replace('_', '-')} | {count:,} | {data['bandwidth_tbps'][tier]:,.1f} | {parallel[tier]} |"
            )
    lines += [
        "",
        f"Spines per {'plane' if plan.tiers == 2 else 'pod'}: {plan.spines_per_pod}; each leaf has "
        f"{plan.leaf_uplinks} uplinks.",
    ]
    if plan.super_tier:
        lines.append(
            f"Super-spines per plane: {plan.supers_per_plane} in {plan.groups} groups of "
            f"{plan.supers_per_group}; each spine has {plan.spine_uplinks} uplinks."
        )
    elif plan.tiers == 3:
        lines.append(
            f"No super-spines yet: each spine's {plan.spine_uplinks} up-ports are reserved for the "
            f"{plan.envelope_supers_per_plane} super-spines per plane ({plan.spines_per_pod} groups of "
            f"{plan.supers_per_group}) that come with the second pod."
        )
    return lines


def _pool_lines(design: Design, allocation: Allocation) -> list[str]:
    """## Address pools: each pool's prefix, use and size (the fabric's /31s unused when unnumbered)."""
    lines = [
        "## Address pools",
        "",
        "| pool | prefix | used | planned | size | use |",
        "|---|---|---:|---:|---:|---:|",
    ]
    unnumbered = design.intent.routing.underlay == "unnumbered"
    for pool in allocation.pools():
        default = "" if pool.given else " (default)"
        if unnumbered and pool.name == "fabric_p2p":
            lines.append(f"| {pool.name} | {pool.cidr}{default} | unused: unnumbered underlay | | {pool.size:,} | |")
            continue
        lines.append(
            f"| {pool.name} | {pool.cidr}{default} | {pool.used:,} | {pool.planned:,} | {pool.size:,} | "
            f"{pool.utilisation():.1%} |"
        )
    return [*lines, "", "Planned: what the envelope needs once built in full; a default pool is sized for it."]


def _asn_lines(design: Design, allocation: Allocation, asns: int) -> list[str]:
    """## ASNs: the scheme, how many are in use and each role's first and last."""
    lines = [
        "## ASNs",
        "",
        f"Scheme: {design.intent.routing.asn_scheme}; {asns:,} ASNs in use.",
        "",
        "| role | first | last |",
        "|---|---:|---:|",
    ]
    for role in SWITCH_TIERS:
        numbers = [
            asn for device, asn in zip(design.fabric.switches(), allocation.asns, strict=True) if device.role == role
        ]
        if numbers:
            lines.append(f"| {role.replace('_', '-')} | {min(numbers)} | {max(numbers)} |")
    return lines


def _rack_lines(design: Design, data: dict[str, Any]) -> list[str]:
    """## Racks and power: the racks, rows and power in total, their share, the hall and the estimated draws."""
    power, racks = data["power_kw"], data["racks"]
    return [
        "## Racks and power",
        "",
        f"{racks['compute']:,} compute racks of {design.physical.servers_per_rack} servers and "
        f"{racks['network']:,} network racks in {racks['rows']:,} rows; {power['compute']:,.1f} kW compute + "
        f"{power['network']:,.1f} kW network = {power['total']:,.1f} kW IT, {power['facility']:,.1f} kW with PUE "
        f"{design.intent.facility.pue:g} (`power.md`, `floorplan.svg`, `bom.csv`).",
        *_rack_share_lines(design),
        *_hall_lines(design),
        *_estimated_power_lines(design),
    ]


def _check_lines(design: Design, data: dict[str, Any]) -> list[str]:
    """## Checks: how many passed, failed and warned, the bisection, then each check's line."""
    return [
        "## Checks",
        "",
        f"{data['checks']['passed']} passed, {data['checks']['failed']} failed, "
        f"{data['checks']['warnings']} with warnings; bisection {data['bisection_tbps']:,.1f} Tb/s "
        "(`designer check` lists every finding; `design.json` has them with their evidence).",
        "",
        *checks_format.markdown(design.findings, applicable(design.intent.technology)),
    ]


def _file_lines(design: Design) -> list[str]:
    """## Files: what each file of the folder holds (those this design writes)."""
    intent = design.intent
    return [
        "## Files",
        "",
        "- `design.json`: the whole design for scripts",
        "- `cabling.csv`: one row per link, both ends, estimated length and medium, its cable ID and both ends' "
        "rack and unit",
        "- `labels.csv`: the text of both ends' labels of every cable",
        "- `labels.html`: the labels to print, rack by rack (each rack from a new page), 21 to an A4 sheet"
        + (
            f" (the racks whose labels fit in {HTML_LABELS:,}, of {labels:,}; every label is in `labels.csv`)"
            if (labels := 2 * len(design.fabric.links)) > HTML_LABELS
            else ""
        ),
        "- `racks.csv`: every rack: row, position, role, kW and its devices (`name@unit`)",
        "- `power.md`: power per rack, row, scalable unit and in total, with PUE; flagged racks",
        "- `bom.csv`: switches, servers, transceivers by type, cables by type and length",
        "- `floorplan.svg`: the rows of racks colored by kW, and one compute and one network rack elevation",
        "- `topology.svg`: one plane's tiers and the bundles between them, with their links and speeds",
        *(
            ["- `workloads.svg`: time per collective of every workload, and the busiest switch's uplinks"]
            if design.workloads
            else []
        ),
        *(
            [
                "- `addressing.csv`: every interface address",
                "- `asn.csv`: every switch's ASN",
                f"- `configs/<os>/<hostname>.<ext>`: every switch's configuration for {', '.join(intent.targets)}",
            ]
            if intent.targets
            else []
        ),
        *(
            f"- `{path}`: the subnet manager's configuration ({TARGETS[target].label}, and UFM, which embeds it)"
            for target in intent.subnet_managers
            for path, _ in TARGETS[target].fabric_files
        ),
        "- `intent.yaml`: the intent this folder was built from, byte for byte",
        *(
            f"- `configs/{companion.folder}/<hostname>.{companion.extension}`: {companion.about}"
            for target in intent.targets
            for companion in TARGETS[target].companions
            if intent.routing.underlay == "unnumbered" or not companion.unnumbered_only
        ),
        *_monitoring_lines(design),
        "- `manifest.json`: intent hash, tool version and sha256 of every file",
        *_left_out(design),
    ]


def _monitoring_lines(design: Design) -> list[str]:
    """The monitoring files' lines: what the rules and the subscriptions cover, and what they leave out and why
    (docs/monitoring.md)."""
    if not design.intent.outputs.monitoring:
        return []
    subscribed, missing = gnmi_targets(design), not_monitored(design)
    rules = (
        [
            "- `monitoring/prometheus.yml`: scrape jobs (frr and node exporters) with a target per device, to resolve "
            "to its management address; `monitoring/rules/`: an alert for every designed BGP session, cable and "
            "scrape",
            *(
                [
                    f"- not monitored by rules: {', '.join(missing)} (the rules name ports and peers as FRR on Linux "
                    "does, as the frr target)"
                ]
                if missing
                else []
            ),
        ]
        if monitored_target(design)
        else ["- `monitoring/rules/`: not written: they name ports and peers as the frr target does, not a target"]
    )
    lossless = lossless_rule_targets(design)
    qos = design.configs[0].qos if design.configs else None
    tc = qos.priority_queues[qos.lossless_priority] if qos else 0
    return [
        *rules,
        *(
            f"- `monitoring/rules/lossless.yml`: an alert for any drop of the lossless class on {target} "
            f"({metrics.source}; export the lossless traffic class: `{metrics.export.format(traffic_class=tc)}`)"
            for target in lossless
            if (metrics := TARGETS[target].lossless_metrics) is not None
        ),
        *(
            [
                f"- `monitoring/gnmi/`: gNMI subscriptions (gnmic) of the RoCE counters on every designed port for "
                f"{', '.join(subscribed)}: PFC pauses per lossless priority, queue drops and ECN marks where the OS "
                "documents them, port discards; "
                + (
                    f"on {', '.join(t for t in subscribed if t not in lossless)} these counters are covered by the "
                    "subscriptions only, not by alert rules (no exporter the rules run on documents them)"
                    if any(t not in lossless for t in subscribed)
                    else "the rules cover the lossless class's drops"
                )
            ]
            if subscribed
            else []
        ),
        *(
            [f"- no gNMI subscriptions for {', '.join(unsubscribed)}: no gNMI paths of its counters are documented"]
            if (unsubscribed := [t for t in per_switch(design.intent.targets) if t not in subscribed])
            else []
        ),
    ]


def _left_out(design: Design) -> list[str]:
    """The line naming the optional parts the intent's ``outputs`` section leaves out, if any."""
    chosen = design.intent.outputs
    left = [
        *(["the server files (`servers/`)"] if not chosen.servers else []),
        *(["the containerlab lab (`lab/`)"] if not chosen.lab and design.intent.lab is not None else []),
    ]
    return [f"- not written, as the intent's `outputs` says: {' and '.join(left)}"] if left else []


def written_lines(sizes: dict[str, tuple[int, int]], folder: Path, first: str) -> str:
    """What ``designer build`` says it wrote: the files and megabytes (10^6 bytes) of each part, largest first
    (``sizes``: files and bytes by part, as :func:`designer.outputs.folder.sizes_by_part` gives them), then of all."""
    files, size = sum(count for count, _ in sizes.values()), sum(size for _, size in sizes.values())
    width = max((len(part) for part in sizes), default=0)
    return "\n".join(
        [
            *(
                f"  {part:<{width}}  {count:>7,} files  {part_size / 1e6:>7,.1f} MB"
                for part, (count, part_size) in sorted(sizes.items(), key=lambda item: (-item[1][1], item[0]))
            ),
            f"wrote {files:,} files, {size / 1e6:,.1f} MB, to {folder}; {first}",
        ]
    )


def _growth_lines(design: Design) -> list[str]:
    """The envelope, what of it is built, and how far the design grows without re-patching."""
    plan, data = design.plan, growth(design.plan)
    built = plan.servers / plan.max_servers
    if plan.max_servers > plan.servers:
        lines = [
            f"Planned for {plan.max_servers:,} servers ({data['max_gpus']:,} GPUs, `growth`): "
            f"{plan.envelope_sus:,} scalable units per plane"
            + (f" in {plan.envelope_pods:,} pods" if plan.tiers == 3 else "")
            + f", {plan.tiers} tiers; "
            f"{built:.1%} of it is built. Spine counts, super-spine groups, pools, ASN ranges and the hall come "
            "from the envelope, so growing up to it only adds devices, links, ports and BGP neighbors: no name, "
            "loopback, ASN, /31, cable or rack of what exists moves."
        ]
    else:
        lines = [
            "No `growth` envelope: the design is planned for its own size. Set `growth: {max_servers: N}` "
            "before growing, so that adding scalable units moves nothing that exists."
        ]
    if plan.tiers == 3 and not plan.super_tier:
        lines += [
            "",
            f"Only pod 0 of {plan.envelope_pods} is built: the {plan.spine_uplinks} up-ports of each spine "
            "are reserved for the super-spines, which come with the second pod.",
        ]
    beyond = (
        "leaves re-patch to more spines, or the fabric crosses to 3 tiers."
        if plan.tiers == 2
        else "spines re-patch to more super-spines."
    )
    holds = (
        f"This cabling (every cable between the same two ports) holds up to {data['cabling_limit_servers']:,} "
        f"servers ({data['cabling_limit']})."
    )
    if data["cabling_limit_servers"] > plan.max_servers:
        holds += (
            " Growing the envelope up to that re-patches no cable but renumbers what sits after the leaves "
            "(spine and super-spine loopbacks, the spine-super-spine /31s, planes after the first) and "
            "re-plans the hall; beyond it, " + beyond
        )
    else:
        holds += " That is the envelope: beyond it, " + beyond
    lines += ["", holds]
    return ["## Growth", "", *lines]


def _rack_share_lines(design: Design) -> list[str]:
    """Why a compute rack holds fewer servers than its power budget and units allow: the networks' switches at its
    top (nothing when it holds as many)."""
    held, fits = design.physical.servers_per_rack, servers_per_rack(design.intent)
    if held >= fits:
        return []
    facility = design.intent.facility
    return [
        "",
        f"A compute rack holds {held} servers where its {facility.rack_power_kw:g} kW budget and "
        f"{facility.rack_units} units would hold {fits}: the top-of-rack and management switches of the networks "
        "beside the backend stand in it too (`racks.csv`).",
    ]


def _hall_lines(design: Design) -> list[str]:
    """The rows' length and what it was chosen for, where the central rows stand, and each tier's longest run."""
    physical, facility = design.physical, design.intent.facility
    row = physical.row
    if row.given:
        why = f"Rows of {row.racks} racks, as the intent gives them (`facility.racks_per_row`)"
    else:
        why = (
            f"Rows of {row.racks} racks, chosen among rows of 1 to {row.limit} racks (`facility.max_racks_per_row`) "
            f"for the shortest longest run (about {row.estimated_m:g} m along the trays from a leaf rack to a "
            "compute rack of its scalable unit or to a central rack; the shorter row on a tie): "
            + (
                f"a scalable unit's {row.block} racks stand in one row"
                if row.block <= row.racks
                else f"a scalable unit's {row.block} racks fill rows of their own"
                if row.block % row.racks == 0
                else f"a scalable unit's {row.block} racks wrap into the next one's row (no length keeps them apart)"
            )
            + ". Set `facility.racks_per_row` to keep a hall as it is built"
        )
    central = sorted({rack.row for rack in physical.racks if rack.su < 0})
    where = (
        f"; the spines stand in the central row{'s' if len(central) > 1 else ''} "
        f"{', '.join(str(number) for number in central)} of rows 0 to {physical.rows - 1}"
        if central
        else ""
    )
    longest: dict[int, int] = {}
    for (tier, *_), length in zip(design.fabric.links, physical.link_length_dm, strict=True):
        if length > longest.get(tier, -1):
            longest[tier] = length
    runs = ", ".join(
        f"{LINK_TIERS[tier].replace('_', '-')} {length / 10:g} m" for tier, length in sorted(longest.items())
    )
    return ["", f"{why}{where}. Longest run per tier, slack ({facility.slack_m:g} m) included: {runs}."]


def _estimated_power_lines(design: Design) -> list[str]:
    """A note naming the backend's switch models whose power is the catalog's estimate, not the vendor's figure."""
    models = sorted(
        {
            model
            for model in (
                design.intent.switch(role).model for role, count in design.plan.switch_counts().items() if count
            )
            if (known := design.intent.catalog.switches.get(model)) is not None and known.power_estimated
        }
    )
    if not models:
        return []
    return [
        "",
        f"The power of {', '.join(models)} is the catalog's planning estimate: the vendor's published typical and "
        "maximum figures could not be cited (`designer/catalog.yaml` says where they were looked for).",
    ]


def _numbering_lines(design: Design, allocation: Allocation) -> list[str]:
    """The formulas that give every loopback, /31 and ASN from a switch's or link's coordinates, with this
    design's strides and pool starts (its ``allocation``) filled in, so a reviewer can compute any of them by hand."""
    rows = [*_address_formulas(design, allocation), *_asn_formulas(design, allocation)]
    return [
        "## Numbering",
        "",
        f"Every loopback, /31 and ASN follows from the switch's or link's coordinates, with the strides of the "
        f"envelope ({design.plan.max_servers:,} servers); growth inside it moves none of them. A leaf uplink is its "
        "port counted from its first spine-facing port, a spine uplink likewise from its first super-spine-facing "
        "port, a slot the server's index in its scalable unit.",
        "",
        "| what | from |",
        "|---|---|",
        *(f"| {what} | {formula} |" for what, formula in rows),
    ]


def _address_formulas(design: Design, allocation: Allocation) -> list[tuple[str, str]]:
    """The ordinal of each tier's switches, then the formula of each loopback and /31 from them."""
    plan, numbers = design.plan, allocation.numbering
    loopback, server, fabric = allocation.loopback_pool.first, allocation.server_p2p.first, allocation.fabric_p2p.first
    rows = [
        (
            "leaf ordinal",
            f"plane x {numbers.leaves} + SU x {numbers.leaves_per_su} + "
            + ("leaf of its unit" if plan.rack_style else "rail"),
        ),
        ("spine ordinal", f"plane x {numbers.spines} + pod x {numbers.spines_per_pod} + i"),
    ]
    if plan.tiers == 3:
        rows.append(("super-spine ordinal", f"plane x {numbers.supers} + group x {numbers.supers_per_group} + i"))
    rows += [
        ("leaf loopback", f"{ip(loopback)} + leaf ordinal"),
        ("spine loopback", f"{ip(loopback + numbers.planes * numbers.leaves)} + spine ordinal"),
    ]
    if plan.tiers == 3:
        rows.append(
            (
                "super-spine loopback",
                f"{ip(loopback + numbers.planes * (numbers.leaves + numbers.spines))} + super-spine ordinal",
            )
        )
    rows.append(("server /31 (leaf even, NIC odd)", f"{ip(server)} + leaf ordinal x {numbers.server_block} + 2 x slot"))
    numbered = design.intent.routing.underlay == "numbered"
    if numbered:
        rows.append(
            ("leaf-spine /31 (spine even)", f"{ip(fabric)} + 2 x (leaf ordinal x {numbers.leaf_uplinks} + uplink)")
        )
    if plan.tiers == 3 and numbered:
        rows.append(
            (
                "spine-super-spine /31 (super-spine even)",
                f"{ip(fabric + numbers.spine_super_base)} + 2 x (spine ordinal x {numbers.spine_uplinks} + uplink)",
            )
        )
    return rows


def _asn_formulas(design: Design, allocation: Allocation) -> list[tuple[str, str]]:
    """The formula of each tier's ASNs (a plane's or pod's spines share one under ``rfc7938``)."""
    numbers, starts = allocation.numbering, allocation.asn_starts
    shared = design.intent.routing.asn_scheme == "rfc7938"
    rows = [
        ("leaf ASN", f"{starts['leaf']} + leaf ordinal"),
        (
            "spine ASN",
            f"{starts['spine']} + plane x {numbers.pods} + pod" if shared else f"{starts['spine']} + spine ordinal",
        ),
    ]
    if design.plan.tiers == 3:
        rows.append(
            (
                "super-spine ASN",
                f"{starts['super_spine']} + plane" if shared else f"{starts['super_spine']} + super-spine ordinal",
            )
        )
    return rows


def _configs_lines(design: Design) -> list[str]:
    """What every switch configuration says about routing and lossless QoS, in two lines."""
    qos, routing = design.intent.qos, design.intent.routing
    widths = sorted({device.bgp.maximum_paths for device in design.configs})
    paths = f"{widths[0]} to {widths[-1]}" if len(widths) > 1 else f"{widths[0]}"
    unit = "%" if qos.ecn_unit == "percent" else " bytes"
    bfd = f"every {routing.bfd.interval_ms} ms" if routing.bfd.enabled else "off"
    ecn = (
        f"ECN marking from {qos.ecn_min:,}{unit} to {qos.ecn_max:,}{unit} ({qos.ecn_probability}% at the top)"
        if qos.ecn
        else "ECN off"
    )
    watchdog = f"{qos.pfc_watchdog_detection_ms} ms" if qos.pfc_watchdog else "off"
    return [
        f"Targets: {', '.join(design.intent.targets)}. BGP: eBGP on every switch-to-switch "
        + (
            "link, unnumbered (over the link's IPv6 link-local address, IPv4 routes with IPv6 next hops, RFC 8950; "
            "no switch-to-switch addresses)"
            if routing.underlay == "unnumbered"
            else "/31 (numbered underlay)"
        )
        + f", maximum-paths "
        f"{paths} (the ECMP width), multipath-relax, timers {routing.timers.keepalive}/{routing.timers.hold} s, "
        f"BFD {bfd}.",
        "",
        f"QoS profile {qos.profile}: DSCP {qos.roce_dscp} to priority {qos.roce_priority}, lossless with PFC; CNP DSCP "
        f"{qos.cnp_dscp} to strict priority {qos.cnp_priority}; {ecn}; PFC watchdog {watchdog}; MTU {qos.mtu}.",
        "",
        _seeds_line(design),
        "",
        *([nics, ""] if (nics := nic_balancing_line(design.intent)) else []),
        _headroom_line(design),
        *_management_lines(design),
    ]


def _management_lines(design: Design) -> list[str]:
    """Where each target puts the switches' management side (nothing when there is none: no server in the intent's
    ``management`` section and no out-of-band network)."""
    spec, oob = design.intent.networks.management, design.intent.networks.oob
    if not (oob or spec.ntp or spec.syslog or spec.dns):
        return []
    ports = [TARGETS[name] for name in design.intent.targets if TARGETS[name].management_port]
    others = [
        TARGETS[name].label
        for name in design.intent.targets
        if TARGETS[name].template and not TARGETS[name].management_port
    ]
    services = [
        f"{what} {', '.join(servers)}"
        for what, servers in (("NTP", spec.ntp), ("syslog", spec.syslog), ("DNS", spec.dns))
        if servers
    ]
    if ports:
        named = ", ".join(f"{target.label} {target.management_port}" for target in ports)
        line = (
            f"Management: the management port ({named}) in VRF {spec.vrf}"
            + (
                ", with its address and gateway from `oob.csv`"
                if oob
                else ", addressed by DHCP (no out-of-band network)"
            )
            + (f"; {'; '.join(services)}" if services else "")
            + (f" (search {spec.domain})" if spec.domain else "")
            + "."
        )
    else:
        writing = ", ".join(target.name for target in TARGETS.values() if target.management_port)
        line = f"Management: none written; only targets with a management port write it ({writing})."
    if others:
        line += (
            f" {', '.join(others)} configure{'s' if len(others) == 1 else ''} none of it: the management port, its "
            "VRF, NTP, syslog and DNS of a Linux router are the host's, not the routing daemons'."
        )
    return ["", line]


def _seeds_line(design: Design) -> str:
    """Which targets take each switch's hash seed from the design and which pick their own (catalog ``seed_range``
    null: designer writes no seed for them)."""
    targets = [design.intent.catalog.targets[name] for name in sorted(design.intent.targets)]
    written = ", ".join(target.label for target in targets if target.load_balancing.seed_range)
    own = [target.label for target in targets if not target.load_balancing.seed_range]
    line = f"Hash seeds ({design.intent.load_balancing.seeds})"
    if written:
        line += f": written for {written}"
    if own:
        line += (
            f"; {', '.join(own)} {'picks its' if len(own) == 1 else 'pick their'} own (designer writes no seed "
            f"for {'it' if len(own) == 1 else 'them'}), so the load-balancing check's seeds hold for "
            f"{written or 'none of the targets'}"
        )
    unknown = sorted(
        {(target, config.model) for config in design.configs for target in config.load_balancing.hash_line_unknown}
    )
    for target, model in unknown:
        line += (
            f". Hash fields: {design.intent.catalog.targets[target].label} writes none on {model}, as no source at "
            "hand gives that platform's five-tuple hash line; it hashes as that OS does there by default, so "
            "check that the default hash reads the UDP source port (a RoCE flow's only entropy)"
        )
    return line + "."


def _headroom_line(design: Design) -> str:
    """Where each switch model's PFC headroom comes from (its vendor's lookup or the first-order estimate), with
    the cable lengths it is sized for and the xoff it reserves."""
    rooms: dict[tuple[str, int], dict[int, Headroom]] = {}
    for config in design.configs:
        for interface in config.interfaces:
            found = rooms.setdefault((config.model, interface.speed_gbps), {})
            found.setdefault(id(interface.headroom), interface.headroom)
    speeds = sorted({speed for _, speed in rooms})
    parts = []
    for (switch, speed), found in sorted(rooms.items()):
        model = switch if len(speeds) == 1 else f"{switch} at {speed}G"
        vendor = sorted({(room.cable_m, room.xoff) for room in found.values() if room.vendor})
        if vendor:
            parts.append(
                f"{model} from its vendor's lookup (catalog `switch_facts`): "
                + ", ".join(f"{xoff:,} bytes at {cable} m" for cable, xoff in vendor)
            )
        estimated = sorted({(room.cable_m, room.xoff) for room in found.values() if not room.vendor})
        if estimated:
            parts.append(
                f"{model} first-order estimate, not a vendor figure (2 x (5 ns/m x cable + "
                f"{design.intent.qos.pfc_response_ns:,} ns) x line rate + 2 x MTU): "
                f"{min(x for _, x in estimated):,}-{max(x for _, x in estimated):,} bytes for cables of "
                f"{estimated[0][0]}-{estimated[-1][0]} m"
            )
    ports = "/".join(f"{speed}G" for speed in speeds) or f"{design.plan.link_speed}G"
    return f"PFC headroom (xoff) per lossless {ports} port: {'; '.join(parts) or 'none'}."


SUBNET_MANAGER_FILES = (
    ("configs/opensm/opensm.conf", "opensm.conf", "opensm.conf"),
    ("configs/opensm/partitions.conf", "partitions.conf", "partitions.conf"),
    ("root_guids.conf (designer audit --sm-files)", "root_guids.conf", "the file root_guid_file names"),
    ("node-name-map (designer audit --sm-files)", "node-name-map", "ib-node-name-map"),
)
"""Each subnet manager file of an InfiniBand design, its name under OpenSM's /etc/opensm/ and under NVIDIA UFM
Enterprise's /opt/ufm/files/conf/opensm/ (UFM Enterprise User Manual, "Appendix - SM Default Files")."""


def _subnet_manager_lines(design: Design) -> list[str]:
    """The section of an InfiniBand design: no addresses or ASNs, the subnet manager's files and where OpenSM and
    UFM, which embeds OpenSM, read them."""
    return [
        "## Subnet manager",
        "",
        "InfiniBand: no IP addressing, BGP, PFC or ECN; the subnet manager assigns every port a LID and routes the "
        f"fat tree with ftree. {design.intent.planes} plane{'s' if design.intent.planes != 1 else ''}, each its own "
        "subnet with its own subnet manager and the same files.",
        "",
        "| file | OpenSM: /etc/opensm/ | NVIDIA UFM Enterprise: /opt/ufm/files/conf/opensm/ |",
        "|---|---|---|",
        *(f"| `{file}` | {opensm} | {ufm} |" for file, opensm, ufm in SUBNET_MANAGER_FILES),
        "",
        "The GUID-keyed files come from the fabric as discovered (`ibnetdiscover > FILE`), never from the design.",
    ]

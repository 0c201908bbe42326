"""An SVG of the logical topology: the tiers of one plane and the bundles of links between them.

One panel stands for every plane, marked "x N planes": the planes are identical by construction (each is sized
alone and wired the same), so a panel per plane would repeat one picture N times and grow with the planes.
Leaves are drawn by scalable unit (one leaf per rail, or its racks' switches), spines by pod, super-spines by group;
each bundle is labelled with its links and their speed. At most :data:`SHOWN` boxes a tier are drawn, then one box
with what is left and its totals, so the picture is the same size at 1,024 GPUs and at 131,072. It reads the plan only:
counts, never the list of links.
"""

from __future__ import annotations

from html import escape

from designer.backend.sizing import Plan

SHOWN = 3
"""Boxes drawn per tier before the one that sums up the rest."""
LEFT, SLOT_W, BOX_W, BOX_H = 170, 230, 200, 46
TOP, ROW_H = 96, 150
WIDTH = LEFT + (SHOWN + 1) * SLOT_W + 10
BETWEEN = {
    "server_leaf": "servers to leaves",
    "leaf_spine": "leaves to spines",
    "spine_super_spine": "spines to super-spines",
}
FILLS = {"super_spine": "#9ecae1", "spine": "#c6dbef", "leaf": "#deebf7", "server": "#f0f0f0"}


def topology_svg(name: str, plan: Plan) -> str:
    """The logical topology of one plane of ``plan`` (the design ``name``) as one SVG document."""
    rows = _rows(plan)
    height = TOP + len(rows) * ROW_H + 60
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
        'font-family="sans-serif" font-size="11">',
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        *_header(name, plan),
    ]
    y_of = {role: TOP + index * ROW_H for index, (role, _) in enumerate(rows)}
    for role, boxes in rows:
        parts += _tier(plan, role, boxes, y_of[role])
    parts += _bundles(plan, y_of)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _header(name: str, plan: Plan) -> list[str]:
    """The title (one plane drawn, "x N planes") and the totals of every plane."""
    planes = f"one plane drawn, x {plan.planes} planes" if plan.planes > 1 else "1 plane"
    alike = "; the planes are identical, each a separate fabric" if plan.planes > 1 else ""
    return [
        f'<text x="10" y="22" font-size="16" font-weight="bold">{escape(name)}: logical topology, {planes}</text>',
        f'<text x="10" y="40">{plan.gpus:,} GPUs on {plan.servers:,} servers, {plan.tiers} tiers, {plan.rails} '
        f"rails{alike}; counts below are per plane</text>",
        f'<text x="10" y="56">{"all " if plan.planes > 1 else ""}{_counted(plan.planes, "plane")}: '
        f"{_all_planes(plan)}</text>",
    ]


def _all_planes(plan: Plan) -> str:
    switches = plan.switch_counts()
    links = plan.link_counts()
    if plan.tiers == 2:
        return (
            f"{switches['leaf']:,} leaves, {switches['spine']:,} spines; {links['server_leaf']:,} server links, "
            f"{links['leaf_spine']:,} leaf-spine links"
        )
    return (
        f"{switches['leaf']:,} leaves, {switches['spine']:,} spines, {switches['super_spine']:,} super-spines; "
        f"{links['server_leaf']:,} server links, {links['leaf_spine']:,} leaf-spine links, "
        f"{links['spine_super_spine']:,} spine-super-spine links"
    )


def _counted(count: int, one: str, many: str = "") -> str:
    """``1 plane``, ``8 planes`` (``many``: the plural when it is not ``one`` with an s)."""
    return f"{count:,} {one if count == 1 else many or one + 's'}"


def _servers_in_su(plan: Plan, su: int) -> int:
    """Servers of scalable unit ``su`` (the last one may be partial)."""
    return min(plan.servers_per_su, plan.servers - su * plan.servers_per_su)


def _rows(plan: Plan) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each tier drawn, top first: its role and its boxes (first line, second line)."""
    rows: list[tuple[str, list[tuple[str, str]]]] = []
    if plan.tiers == 3:
        groups = [(f"group {group}", f"{plan.supers_per_group} super-spines") for group in range(plan.groups)]
        rows.append(("super_spine", _capped(groups, ("group", "groups"), plan.groups - SHOWN, plan.supers_per_group)))
    if plan.tiers == 2:
        spines = [("spines", f"{plan.spines_per_pod}, every leaf to every spine")]
    else:
        spines = _capped(
            [(f"pod {pod}", f"{plan.spines_per_pod} spines") for pod in range(plan.pods)],
            ("pod", "pods"),
            plan.pods - SHOWN,
            plan.spines_per_pod,
        )
    rows.append(("spine", spines))
    each = f"{plan.per_rack} a rack" if plan.rack_style else "one per rail"
    sus = [(f"SU {su}", f"{plan.leaves_per_su} leaves, {each}") for su in range(plan.sus)]
    rows.append(("leaf", _capped(sus, ("SU", "SUs"), plan.sus - SHOWN, plan.leaves_per_su)))
    servers = [(f"SU {su}", _counted(_servers_in_su(plan, su), "server")) for su in range(min(plan.sus, SHOWN))]
    if plan.sus > SHOWN:
        rest = plan.servers - SHOWN * plan.servers_per_su
        servers.append((f"... {_counted(plan.sus - SHOWN, 'more SU')}", _counted(rest, "server")))
    rows.append(("server", servers))
    return rows


def _capped(
    boxes: list[tuple[str, str]], what: tuple[str, str], more: int, switches_each: int
) -> list[tuple[str, str]]:
    """The first :data:`SHOWN` boxes, then one for the ``more`` left (``switches_each`` switches in each)."""
    if more <= 0:
        return boxes
    return [
        *boxes[:SHOWN],
        (
            f"... {_counted(more, 'more ' + what[0], 'more ' + what[1])}",
            _counted(more * switches_each, "switch", "switches"),
        ),
    ]


def _tier(plan: Plan, role: str, boxes: list[tuple[str, str]], y: int) -> list[str]:
    """A tier's label with its count per plane, and its boxes."""
    counts = {
        "super_spine": plan.supers_per_plane,
        "spine": plan.spines_per_plane,
        "leaf": plan.leaves_per_plane,
        "server": plan.servers,
    }
    where = f"in all, {plan.rails} NICs in each plane" if role == "server" else "per plane"
    label = {"super_spine": "super-spines", "spine": "spines", "leaf": "leaves", "server": "servers"}[role]
    parts = [
        f'<g class="tier" data-role="{role}" data-count="{counts[role]}">',
        f'<text x="10" y="{y + 20}" font-weight="bold">{label}</text>',
        f'<text x="10" y="{y + 36}">{counts[role]:,} {where}</text>',
    ]
    if role == "super_spine" and not plan.super_tier:
        parts.append(
            f'<text x="{LEFT}" y="{y + 28}" fill="#666666">none yet: they come with the second pod '
            f"({plan.envelope_supers_per_plane:,} per plane planned); the spines' up-ports are reserved</text>"
        )
    for slot, (first, second) in enumerate(boxes):
        x = LEFT + slot * SLOT_W
        dashed = ' stroke-dasharray="4 3"' if first.startswith("...") else ""
        parts += [
            f'<rect x="{x}" y="{y}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="{FILLS[role]}" '
            f'stroke="#3182bd"{dashed}/>',
            f'<text x="{x + BOX_W / 2:g}" y="{y + 19}" text-anchor="middle" font-weight="bold">{escape(first)}</text>',
            f'<text x="{x + BOX_W / 2:g}" y="{y + 35}" text-anchor="middle">{escape(second)}</text>',
        ]
    parts.append("</g>")
    return parts


def _bundles(plan: Plan, y_of: dict[str, int]) -> list[str]:
    """The bundles of the boxes drawn: servers to their SU's leaves, an SU's leaves to the spines of its pod, a
    pod's spines to the super-spines (spine ``j`` of every pod to group ``j``, so drawn to the middle of the
    groups); each with its links and speed."""
    speed, up_speed, super_speed = plan.link_speeds
    shown_sus = range(min(plan.sus, SHOWN))
    parts = [
        _bundle("server_leaf", f"SU {su}", _servers_in_su(plan, su) * plan.rails, speed, su, su, y_of, "server", "leaf")
        for su in shown_sus
    ]
    parts += [
        _bundle(
            "leaf_spine",
            f"SU {su}",
            plan.leaves_per_su * plan.leaf_uplinks,
            up_speed,
            su,
            0 if plan.tiers == 2 else su // plan.sus_per_pod,
            y_of,
            "leaf",
            "spine",
        )
        for su in shown_sus
    ]
    if plan.super_tier:
        parts += [
            _bundle(
                "spine_super_spine",
                f"pod {pod}",
                plan.spines_per_pod * plan.spine_uplinks,
                super_speed,
                pod,
                (min(plan.groups, SHOWN + 1) - 1) / 2,
                y_of,
                "spine",
                "super_spine",
            )
            for pod in range(min(plan.pods, SHOWN))
        ]
    return parts


def _bundle(
    tier: str, source: str, links: int, speed: int, lower: int, upper: float, y_of: dict[str, int], low: str, up: str
) -> str:
    """One bundle: a line from the box in slot ``lower`` of tier ``low`` up to slot ``upper`` of tier ``up`` (the
    middle of the tier's boxes when it is halfway between two)."""
    x1 = LEFT + lower * SLOT_W + BOX_W / 2
    x2 = LEFT + upper * SLOT_W + BOX_W / 2
    y1, y2 = y_of[low], y_of[up] + BOX_H
    label = f"{links:,} x {speed}G"
    return (
        f'<g class="bundle" data-tier="{tier}" data-from="{escape(source)}" data-links="{links}" '
        f'data-speed="{speed}"><title>{escape(source)}, {BETWEEN[tier]}: {label}</title>'
        f'<line x1="{x1:g}" y1="{y1}" x2="{x2:g}" y2="{y2}" stroke="#08519c" stroke-width="3"/>'
        f'<text x="{(x1 + x2) / 2 + 6:g}" y="{(y1 + y2) / 2 + 4:g}" fill="#08519c">{label}</text></g>'
    )

"""ecmp-balance: equal links to every next hop, equal path counts between leaves, groups the hardware holds.

* Every leaf has the same number of links to every spine of its pod and plane, and every 3-tier spine
  the same to every super-spine of its group (otherwise ECMP weights differ and hashing overloads the
  thinner next hops).
* The number of equal-cost shortest paths between two leaves of a plane is the same for every pair in
  one pod, and for every pair in different pods. It is computed from structure: a leaf's vector of
  links per spine position ``m`` and a spine's links per super-spine ``u`` give
  ``sum_j m_a[j] * m_b[j]`` in one pod and ``sum_j m_a[j] * (u_Aj . u_Bj) * m_b[j]`` across pods, over
  the few distinct vectors only (one in a healthy fabric), so it costs nothing at 100k GPUs. Leaf
  pairs are then counted on the switch graph itself (breadth-first, parallel links are distinct
  paths): every pair of a small fabric, a seeded sample of a large one; they must agree, which also
  catches links the structure does not expect.
* The ECMP group of a switch (its uplinks; for the top tier, its parallel links to one neighbor) must
  fit the hardware limit ``checks.ecmp_max_width``, and, once the device model exists, its BGP
  ``maximum-paths`` must be at least that width.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from designer.analysis.maxflow import SEED
from designer.backend.wiring import Device, Fabric
from designer.checks.base import capped
from designer.design import Built
from designer.findings import Finding

ID = "ecmp-balance"
DESCRIPTION = "equal links to every next hop, equal path counts between leaves, ECMP groups within the hardware"
SEVERITY = "error"
ALL_PAIRS_LEAVES = 64
"""Up to this many leaves per plane, every pair's path count is confirmed on the graph (one breadth-first
search per leaf); above it, a seeded sample of ``SAMPLE_PAIRS`` pairs (about 0.1 s each at 32k GPUs)."""
SAMPLE_PAIRS = 4

Vector = tuple[int, ...]
Signature = tuple[tuple[tuple[int, int], ...], ...]
"""Per member of a vector, its uplinks as (upper switch, links to it)."""


def check(design: Built) -> Iterable[Finding]:
    fabric, pairs = design.fabric, design.facts.switch_pairs
    pod_spines: dict[tuple[int, int], list[int]] = defaultdict(list)
    group_supers: dict[tuple[int, int], list[int]] = defaultdict(list)
    for index, device in enumerate(fabric.switches()):
        if device.role == "spine":
            pod_spines[device.plane, device.pod].append(index)
        elif device.role == "super_spine":
            group_supers[device.plane, device.group].append(index)
    uneven, leaf_vectors, spine_vectors = _uplink_vectors(design, pod_spines, group_supers)
    yield from capped(ID, "error", uneven)
    yield from _path_findings(design, *_path_counts(fabric, leaf_vectors, spine_vectors, pod_spines))
    yield from _confirm_on_graph(fabric, pairs, leaf_vectors, spine_vectors, pod_spines)
    yield from _width_findings(design)


def _uplink_vectors(
    design: Built, pod_spines: dict[tuple[int, int], list[int]], group_supers: dict[tuple[int, int], list[int]]
) -> tuple[list[tuple[str, str]], dict[int, Vector], dict[int, tuple[tuple[int, int], ...]]]:
    """Each leaf's links to each spine of its pod and each spine's to each super-spine of its group (with the
    super-spine): the switches whose links up are unequal or leave their pod or group, the leaves' vectors and the
    spines'."""
    fabric, pairs, up = design.fabric, design.facts.switch_pairs, design.facts.uplinks
    uneven: list[tuple[str, str]] = []
    leaf_vectors: dict[int, Vector] = {}
    spine_vectors: dict[int, tuple[tuple[int, int], ...]] = {}
    for index, device in enumerate(fabric.switches()):
        if device.role == "leaf":
            above, what = pod_spines[device.plane, device.pod], "spine of its pod"
        elif device.role == "spine" and design.plan.super_tier:
            above, what = group_supers[device.plane, device.group], "super-spine of its group"
        else:
            continue
        vector = tuple(pairs[upper, index] for upper in above)
        if len(set(vector)) > 1 or 0 in vector:
            shape = ", ".join(
                f"{n} x {links} link{'s' if links != 1 else ''}"
                for links, n in sorted(Counter(vector).items(), reverse=True)
            )
            uneven.append((device.name, f"unequal links to each {what}: {shape}"))
        if sum(vector) != up[index]:
            uneven.append((device.name, f"{up[index] - sum(vector)} uplinks go outside its {what.split(' of ')[0]}s"))
        if device.role == "leaf":
            leaf_vectors[index] = vector
        else:
            spine_vectors[index] = tuple((upper, pairs[upper, index]) for upper in above)
    return uneven, leaf_vectors, spine_vectors


def _path_findings(
    design: Built, same_pod: dict[int, tuple[str, str]], cross_pod: dict[int, tuple[str, str]]
) -> Iterator[Finding]:
    """Whether the leaf pairs in one pod, and in different pods, all have the equal-cost path count the plan gives."""
    plan = design.plan
    expected = {
        "one pod": plan.spines_per_pod * plan.leaf_spine_parallel**2,
        "different pods": plan.spines_per_pod
        * plan.leaf_spine_parallel**2
        * plan.supers_per_group
        * plan.spine_super_parallel**2,
    }
    for scope, found in (("one pod", same_pod), ("different pods", cross_pod)):
        if not found:
            continue
        if len(found) > 1 or expected[scope] not in found:
            detail = "; ".join(f"{count} paths between {a} and {b}" for count, (a, b) in sorted(found.items()))
            yield Finding(
                ID,
                "error",
                f"leaf pairs in {scope} have unequal equal-cost path counts (the plan gives "
                f"{expected[scope]}): {detail}",
                scope,
                evidence={"paths": sorted(found)},
            )
        else:
            yield Finding(
                ID,
                "info",
                f"every leaf pair in {scope} has {expected[scope]} equal-cost shortest paths",
                scope,
                evidence={"paths": expected[scope]},
            )


def _width_findings(design: Built) -> Iterator[Finding]:
    """Each switch whose ECMP group is wider than the hardware's limit or than its BGP maximum-paths; the widest."""
    fabric = design.fabric
    devices = fabric.devices
    width = _widths(fabric, design.facts.switch_pairs, design.facts.uplinks)
    limit = design.intent.checks.ecmp_max_width
    too_wide = [
        (
            devices[index].name,
            f"ECMP group of {links} next hops exceeds the hardware limit of {limit} (checks.ecmp_max_width)",
        )
        for index, links in enumerate(width)
        if links > limit
    ]
    yield from capped(ID, "error", too_wide)
    paths = {config.hostname: config.bgp.maximum_paths for config in design.configs}
    short = [
        (devices[index].name, f"BGP maximum-paths {paths[devices[index].name]} is below its ECMP width {links}")
        for index, links in enumerate(width)
        if paths.get(devices[index].name, links) < links
    ]
    yield from capped(ID, "error", short)
    widest = max(width, default=0)
    yield Finding(
        ID,
        "info",
        f"widest ECMP group {widest} (hardware limit {limit})",
        "ecmp width",
        evidence={"max_width": widest, "limit": limit},
    )


def _widths(fabric: Fabric, pairs: Counter[tuple[int, int]], up: tuple[int, ...]) -> list[int]:
    """ECMP width per switch, in device order: its uplinks, or for the top tier its links to one neighbor."""
    width = list(up[: fabric.switch_count])
    for (upper, _), links in pairs.items():
        if up[upper] == 0:
            width[upper] = max(width[upper], links)
    return width


def _path_counts(
    fabric: Fabric,
    leaf_vectors: dict[int, Vector],
    spine_vectors: dict[int, tuple[tuple[int, int], ...]],
    pod_spines: dict[tuple[int, int], list[int]],
) -> tuple[dict[int, tuple[str, str]], dict[int, tuple[str, str]]]:
    """Distinct path counts between leaf pairs, in one pod and across pods, each with an example pair."""
    devices = fabric.devices
    pod_signature = {key: tuple(spine_vectors.get(spine, ()) for spine in spines) for key, spines in pod_spines.items()}
    classes: dict[tuple[int, int, Vector], list[int]] = {}
    for leaf, vector in leaf_vectors.items():
        device = devices[leaf]
        classes.setdefault((device.plane, device.pod, vector), []).append(leaf)
    same: dict[int, tuple[str, str]] = {}
    cross: dict[int, tuple[str, str]] = {}
    by_shape: dict[tuple[int, tuple[Any, ...], Vector], list[int]] = {}
    for (plane, pod, vector), leaves in classes.items():
        by_shape.setdefault((plane, pod_signature[plane, pod], vector), []).append(leaves[0])
    keys = list(classes)
    for number, key in enumerate(keys):
        for other in keys[number:]:
            if key[:2] != other[:2] or (key == other and len(classes[key]) < 2):
                continue
            a, b = classes[key][0], classes[other][0] if key != other else classes[key][1]
            count = sum(x * y for x, y in zip(key[2], other[2], strict=True))
            same.setdefault(count, (devices[a].name, devices[b].name))
    shapes = list(by_shape)
    for number, shape in enumerate(shapes):
        for other_shape in shapes[number:]:
            if shape[0] != other_shape[0]:
                continue
            first, second = _different_pods(devices, by_shape[shape], by_shape[other_shape])
            if first is None or second is None:
                continue
            count = _cross_count(shape[2], shape[1], other_shape[2], other_shape[1])
            cross.setdefault(count, (devices[first].name, devices[second].name))
    return same, cross


def _different_pods(devices: Sequence[Device], first: list[int], second: list[int]) -> tuple[int | None, int | None]:
    """One leaf from each list, in different pods, when the lists allow it."""
    for a in first:
        for b in second:
            if devices[a].pod != devices[b].pod:
                return a, b
    return None, None


def _cross_count(vector_a: Vector, signature_a: Signature, vector_b: Vector, signature_b: Signature) -> int:
    total = 0
    for m_a, m_b, ups_a, ups_b in zip(vector_a, vector_b, signature_a, signature_b, strict=False):
        common = dict(ups_b)
        total += m_a * m_b * sum(links * common.get(upper, 0) for upper, links in ups_a)
    return total


def _confirm_on_graph(
    fabric: Fabric,
    pairs: Counter[tuple[int, int]],
    leaf_vectors: dict[int, Vector],
    spine_vectors: dict[int, tuple[tuple[int, int], ...]],
    pod_spines: dict[tuple[int, int], list[int]],
) -> Iterable[Finding]:
    """Count the shortest paths between leaves of different rails on the switch graph itself: every pair
    when a plane has at most ``ALL_PAIRS_LEAVES`` leaves, else a seeded sample; each count must match the
    structure."""
    devices = fabric.devices
    leaves = sorted(leaf_vectors)
    adjacency: list[list[tuple[int, int]]] = [[] for _ in devices]
    for (upper, lower), links in pairs.items():  # path counts are sums: the order adds nothing
        adjacency[upper].append((lower, links))
        adjacency[lower].append((upper, links))

    chosen, everything = _leaf_pairs(fabric, leaves)
    wrong = []
    for a, b in chosen:
        counted = shortest_path_count(adjacency, a, b)
        if devices[a].pod == devices[b].pod:
            structure = sum(x * y for x, y in zip(leaf_vectors[a], leaf_vectors[b], strict=True))
        else:
            signature = {
                pod: tuple(spine_vectors.get(spine, ()) for spine in pod_spines[devices[a].plane, pod])
                for pod in (devices[a].pod, devices[b].pod)
            }
            structure = _cross_count(
                leaf_vectors[a], signature[devices[a].pod], leaf_vectors[b], signature[devices[b].pod]
            )
        if counted != structure:
            wrong.append(
                (
                    f"{devices[a].name} to {devices[b].name}",
                    f"{counted} equal-cost shortest paths on the "
                    f"graph, {structure} from the structure: links "
                    "the design does not expect",
                )
            )
    yield from capped(ID, "error", wrong)
    if chosen:
        kind = "leaf pairs" if fabric.plan.rack_style else "leaf pairs of different rails"
        scope = f"all {len(chosen):,} {kind}" if everything else f"a sample of {len(chosen)} {kind}"
        yield Finding(
            ID,
            "info",
            f"path counts confirmed on the graph for {scope}",
            "graph",
            evidence={
                "pairs": len(chosen),
                "all": everything,
                "wrong": len(wrong),
                **({} if everything else {"sample": [[devices[a].name, devices[b].name] for a, b in chosen]}),
            },
        )


def _leaf_pairs(fabric: Fabric, leaves: list[int]) -> tuple[list[tuple[int, int]], bool]:
    """The pairs of ``leaves`` of one plane and different rails (with rack-style cabling, any two) whose paths are
    counted on the graph, and whether they are all of them (a plane of at most ``ALL_PAIRS_LEAVES`` leaves) rather
    than a seeded sample."""
    devices = fabric.devices
    racks = fabric.plan.rack_style

    def eligible(a: int, b: int) -> bool:
        return devices[a].plane == devices[b].plane and (racks or devices[a].rail != devices[b].rail)

    if len(leaves) <= ALL_PAIRS_LEAVES * fabric.plan.planes:
        return [(a, b) for number, a in enumerate(leaves) for b in leaves[number + 1 :] if eligible(a, b)], True
    chooser = random.Random(SEED)
    drawn = (sorted(chooser.sample(leaves, 2)) for _ in range(SAMPLE_PAIRS * 8))
    return sorted({(a, b) for a, b in drawn if eligible(a, b)})[:SAMPLE_PAIRS], False


def shortest_path_count(adjacency: list[list[tuple[int, int]]], source: int, target: int) -> int:
    """Shortest paths between ``source`` and ``target`` (0: not connected); parallel links multiply (each is its own
    path). Breadth-first from both ends, a whole level at a time from the smaller frontier, until they meet. When
    the level just reached first touches the other search, every node it touches lies on the other search's last
    level (a nearer one would have met an earlier level), so each shortest path crosses the two levels at exactly one
    such node, and the count sums, over those nodes, the paths from each end to the node."""
    if source == target:
        return 1
    ways: tuple[dict[int, int], dict[int, int]] = ({source: 1}, {target: 1})
    frontiers = [[source], [target]]
    while frontiers[0] and frontiers[1]:
        side = 0 if len(frontiers[0]) <= len(frontiers[1]) else 1
        mine, theirs = ways[side], ways[1 - side]
        reached: dict[int, int] = {}
        for node in frontiers[side]:
            through = mine[node]
            for neighbor, links in adjacency[node]:
                if neighbor not in mine:
                    reached[neighbor] = reached.get(neighbor, 0) + through * links
        mine.update(reached)
        frontiers[side] = list(reached)
        if met := [node for node in reached if node in theirs]:
            return sum(reached[node] * theirs[node] for node in met)
    return 0

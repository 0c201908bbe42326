"""Growth inside the envelope only adds: after each step every existing name, loopback, ASN, cable end, address,
rack and unit is unchanged, and existing switches' FRR and EOS configurations only gain lines.

Two growth paths: 32 -> 1,024 DGX H100 on 64 x 400G switches planned for 1,024 (3 tiers from the start: pod 0,
then super-spines with the second pod), and 64 -> 256 DGX B300 (2 planes) planned for 512; and the H100 path again
with an unnumbered underlay, where SONiC's own FRR file (interface neighbors by SONiC's port names) only gains too.
"""

from __future__ import annotations

import shutil
from collections.abc import Collection, Iterator
from functools import cache
from itertools import pairwise
from typing import Any, NamedTuple

import pytest

from designer.backend.allocate import ip
from designer.backend.sizing import size
from designer.backend.wiring import LEAF_SPINE, SPINE_SUPER
from designer.design import Design
from designer.errors import InputError
from designer.outputs.labels import labels_html
from designer.outputs.summary import summary_markdown
from designer.outputs.tables import cabling_rows
from designer.readback.diff import lost_lines
from designer.render import rendered
from designer.render.environment import Renderer
from designer.validation import validated_intent
from tests.conftest import ROOT
from tests.helpers import build_text
from tests.prerequisites import FRR_LAB, needs
from tests.test_intent_errors import run_cli
from tests.test_labels import parsed
from tests.test_physical import Placed, placed_text

H100_STEPS = (32, 64, 96, 128, 256, 288, 512, 1024)
B300_STEPS = (64, 128, 256)
TWO_TIER_STEPS = (32, 64, 128)
UNNUMBERED_STEPS = (32, 64, 288, 1024)
GAINING = ("frr", "eos")
"""Targets whose configuration of an existing switch may only gain lines as the fabric grows."""
UNNUMBERED = "routing: {underlay: unnumbered}\n"


def intent(
    servers: int,
    server: str = "dgx-h100",
    envelope: int | None = 1024,
    leaf: str = "generic-64x400g",
    name: str = "growth",
    extra: str = "",
) -> str:
    growth = f"growth: {{max_servers: {envelope}}}\n" if envelope else ""
    return (
        f"name: {name}\ncompute: {{servers: {servers}, server: {server}}}\n{growth}"
        f"fabric: {{leaf: {{model: {leaf}}}}}\ntargets: [frr, eos]\n{extra}"
    )


@cache
def built(servers: int, server: str = "dgx-h100", envelope: int | None = 1024, extra: str = "") -> Design:
    """Every stage but the servers' host settings (no test here reads them; the intents have no workloads)."""
    return build_text(intent(servers, server, envelope, extra=extra), seeds=2, hosts=False)


@cache
def placed(
    servers: int, server: str = "dgx-h100", envelope: int | None = 1024, extra: str = "", models: bool = False
) -> Placed:
    """Only the stages up to the physical plan (with the device models when ``models``): what a test that reads no
    finding reads."""
    return placed_text(intent(servers, server, envelope, extra=extra), models)


FILES: dict[tuple[int, tuple[str, ...]], tuple[Design | Placed, dict[str, bytes], set[str]]] = {}
"""The files rendered so far of each design of this module and targets (by the design's id, held beside them so
that an id is never another design's), and the switches they are of."""


def configs(
    design: Design | Placed, targets: tuple[str, ...] = GAINING, only: Collection[str] | None = None
) -> dict[str, bytes]:
    """The files of ``targets`` of every switch of ``design`` (with ``only``: of at least the switches it names, all
    a grown design's files are looked up by), each switch rendered once."""
    held = FILES.get((id(design), targets))
    if held is None or held[0] is not design:
        held = FILES[id(design), targets] = (design, {}, set())
    _, files, done = held
    todo = [
        config for config in design.configs if config.hostname not in done and (only is None or config.hostname in only)
    ]
    files.update(rendered(todo, targets, Renderer()))
    done.update(config.hostname for config in todo)
    return dict(files)


def switches(design: Design | Placed) -> set[str]:
    return {config.hostname for config in design.configs}


def unnumbered_configs(design: Design, only: Collection[str] | None = None) -> dict[str, bytes]:
    """The FRR, EOS and SONiC FRR files of the unnumbered H100 path (SONiC's config_db.json is one JSON line per
    table, so its growth is not a matter of lines)."""
    files = configs(design, (*GAINING, "sonic"), only)
    return {path: data for path, data in files.items() if not path.startswith("configs/sonic/")}


@pytest.fixture(scope="module", autouse=True)
def release() -> Iterator[None]:
    """The designs of this module, their files and views are let go once its tests have run."""
    yield
    for memo in (built, placed):
        memo.cache_clear()
    FILES.clear()
    VIEWS.clear()


def devices(design: Design | Placed) -> dict[str, dict[str, Any]]:
    """Every device by name: its coordinates, loopback and ASN (switches of an addressed fabric), rack and unit."""
    physical, allocation = design.physical, design.allocation
    rows = {}
    for index, device in enumerate(design.fabric.devices):
        row: dict[str, Any] = {
            "coordinates": device[1:8],
            "rack": physical.racks[physical.device_rack[index]].name,
            "unit": physical.device_unit[index],
            "model": device.model,
        }
        if index < design.fabric.switch_count and allocation is not None:
            row.update(loopback=ip(allocation.loopbacks[index]), asn=allocation.asns[index])
        rows[device.name] = row
    return rows


def cables(design: Design | Placed) -> dict[tuple[str, str], tuple[str, str, str, float]]:
    """Every link by its upper end: the lower end, the /31 (none on InfiniBand) and the cable's length."""
    names, allocation = design.fabric.devices, design.allocation
    result = {}
    for number, (_, upper, upper_port, lower, lower_port) in enumerate(design.fabric.links):
        result[names[upper].name, names[upper].port_name(upper_port)] = (
            names[lower].name,
            names[lower].port_name(lower_port),
            ip(allocation.link_addresses(number)[0]) if allocation is not None else "",
            design.physical.link_length_dm[number] / 10,
        )
    return result


def racks(design: Design | Placed) -> dict[str, tuple[int, int]]:
    return {rack.name: (rack.row, rack.position) for rack in design.physical.racks}


def cable_ids(design: Design | Placed) -> dict[str, tuple[Any, ...]]:
    """Every cable by its ID: both ends' device, port, rack and unit (the text of its labels), of each of its legs
    (a multiplane NIC port's cable has one leg per plane)."""
    header, rows = cabling_rows(design)
    fields = [header.index(name) for name in ("a_device", "a_port", "a_rack", "a_unit", "z_device", "z_port")]
    fields += [header.index(name) for name in ("z_rack", "z_unit")]
    legs: dict[str, list[tuple[Any, ...]]] = {}
    for row in rows:
        legs.setdefault(row[header.index("cable_id")], []).append(tuple(row[field] for field in fields))
    devices = design.fabric.devices
    plane_links = [
        (lower, port)
        for _, _, _, lower, port in design.fabric.links
        if devices[lower].role == "server" and devices[lower].uplink_breakout > 1
    ]
    nic_ports = {(lower, devices[lower].place(port)[0]) for lower, port in plane_links}
    assert len(legs) == len(design.fabric.links) - len(plane_links) + len(nic_ports)  # one ID per cable
    return {cable: tuple(sorted(ends)) for cable, ends in legs.items()}


def rack_labels(design: Design | Placed) -> dict[str, set[str]]:
    """The text of every label ``labels.html`` prints, by the rack whose section holds it."""
    header, rows = cabling_rows(design)
    html = labels_html(design.intent.name, (header, list(rows)), (rack.name for rack in design.physical.racks))
    return {rack: {label for sheet in sheets for label in sheet} for rack, sheets in parsed(html).sections}


class Views(NamedTuple):
    """What :func:`assert_only_added` compares of one design."""

    devices: dict[str, dict[str, Any]]
    cables: dict[tuple[str, str], tuple[str, str, str, float]]
    racks: dict[str, tuple[int, int]]
    header: list[str]
    rows: set[tuple[Any, ...]]
    cable_ids: dict[str, tuple[Any, ...]]
    labels: dict[str, set[str]]


VIEWS: dict[int, tuple[Design | Placed, Views]] = {}
"""Each design's views, made once (a design of a growth path is compared both with the one before and after)."""


def views(design: Design | Placed) -> Views:
    held = VIEWS.get(id(design))
    if held is not None and held[0] is design:
        return held[1]
    header, rows = cabling_rows(design)
    made = Views(
        devices(design),
        cables(design),
        racks(design),
        header,
        set(map(tuple, rows)),
        cable_ids(design),
        rack_labels(design),
    )
    VIEWS[id(design)] = (design, made)
    return made


def assert_only_added(
    old: Design | Placed, new: Design | Placed, old_files: dict[str, bytes], new_files: dict[str, bytes]
) -> None:
    was, now = views(old), views(new)
    before, after = was.devices, now.devices
    changed = {name: (row, after.get(name)) for name, row in before.items() if after.get(name) != row}
    assert not changed, f"{len(changed)} existing devices changed, e.g. {next(iter(changed.items()))}"
    links_before, links_after = was.cables, now.cables
    moved = {end: (link, links_after.get(end)) for end, link in links_before.items() if links_after.get(end) != link}
    assert not moved, f"{len(moved)} existing links changed, e.g. {next(iter(moved.items()))}"
    assert set(was.racks.items()) <= set(now.racks.items())
    assert was.header[3:6] == ["a_port", "a_port_frr", "a_port_eos"]  # every OS's port names stay where they were
    assert was.rows <= now.rows
    ids_before, ids_after = was.cable_ids, now.cable_ids
    renumbered = {
        cable: (row, ids_after.get(cable)) for cable, row in ids_before.items() if ids_after.get(cable) != row
    }
    assert not renumbered, f"{len(renumbered)} existing cable IDs moved, e.g. {next(iter(renumbered.items()))}"
    labels_before, labels_after = was.labels, now.labels
    for rack in labels_before.keys() & labels_after.keys():  # both sheets print it (whole racks up to the cap)
        assert labels_before[rack] <= labels_after[rack], f"a label printed for {rack} changed or moved"
    for path, data in old_files.items():
        lost = lost_lines(data.decode(), new_files[path].decode(), path)
        assert not lost, f"{path} lost or changed {len(lost)} lines, e.g. {lost[:3]}"


@pytest.mark.parametrize(("old", "new"), list(pairwise(H100_STEPS)))
def test_h100_growth_inside_the_envelope_only_adds(old: int, new: int) -> None:
    before, after = built(old), built(new)
    assert_only_added(before, after, configs(before), configs(after, only=switches(before)))
    assert after.plan.servers == new and not [f for f in after.findings if f.severity == "error"]


@pytest.mark.parametrize(("old", "new"), list(pairwise(UNNUMBERED_STEPS)))
def test_unnumbered_growth_inside_the_envelope_only_adds(old: int, new: int) -> None:
    """Interface neighbors come from ports, which growth never moves: an existing switch's sessions and files only
    gain, across the second pod and its super-spines too."""
    old_design, new_design = built(old, extra=UNNUMBERED), built(new, extra=UNNUMBERED)
    before, after = unnumbered_configs(old_design), unnumbered_configs(new_design, switches(old_design))
    assert any(path.startswith("configs/sonic-frr/") for path in before)
    assert_only_added(old_design, new_design, before, after)
    assert all(config.bgp.unnumbered for config in new_design.configs)
    assert not [f for f in new_design.findings if f.severity == "error"]


@pytest.mark.parametrize(("old", "new"), list(pairwise(B300_STEPS)))
def test_b300_two_planes_growth_inside_the_envelope_only_adds(old: int, new: int) -> None:
    before, after = placed(old, "dgx-b300", 512, models=True), placed(new, "dgx-b300", 512, models=True)
    assert_only_added(before, after, configs(before), configs(after, only=switches(before)))


@pytest.mark.parametrize(("old", "new"), list(pairwise(TWO_TIER_STEPS)))
def test_two_tier_growth_inside_the_envelope_only_adds(old: int, new: int) -> None:
    before, after = placed(old, envelope=256, models=True), placed(new, envelope=256, models=True)
    assert_only_added(before, after, configs(before), configs(after, only=switches(before)))
    assert after.plan.spines_per_plane == 32


def test_optics_everywhere_growth_keeps_every_cable_its_medium_and_label() -> None:
    """With ``facility.media: optics`` the cabling rows (media included), cable IDs, racks and labels of what exists
    only gain when the fabric grows inside its envelope, as with copper."""
    optics = "facility: {media: optics}\n"
    old, new = placed(32, envelope=256, extra=optics), placed(64, envelope=256, extra=optics)
    assert_only_added(old, new, {}, {})
    assert {new.physical.medium_name(number) for number in range(len(new.fabric.links))} <= {"multimode", "singlemode"}


def test_the_path_crosses_from_pod_0_to_super_spines() -> None:
    """32 to 128 servers are pod 0 of the 3-tier fabric (spine up-ports reserved), 256 adds the super-spines."""
    names = {name for name in devices(built(32))}
    assert "p0-pod0-spine31" in names and not any("-ss" in name for name in names)
    assert built(128).plan.switch_counts() == {"leaf": 32, "spine": 32, "super_spine": 0}
    assert built(256).plan.switch_counts() == {"leaf": 64, "spine": 64, "super_spine": 128}
    assert built(32).plan.warnings == (
        "pod 0 holds 1 of 4 scalable units; its spines are built in full so it can grow by leaves alone",
    )
    summary = summary_markdown(built(32))
    assert "| Tiers | 3 (non-blocking, 1:1 at every tier; pod 0 built, super-spines with the second pod) |" in summary
    assert (
        "No super-spines yet: each spine's 32 up-ports are reserved for the 128 super-spines per plane (32 groups "
        "of 4) that come with the second pod."
    ) in summary


@pytest.mark.parametrize(("server", "envelope"), [("dgx-h100", 1024), ("dgx-b300", 512)])
def test_the_envelope_built_in_full_is_the_design_without_growth(server: str, envelope: int) -> None:
    planned = built(envelope) if server == "dgx-h100" else placed(envelope, server, envelope, models=True)
    plain = placed(envelope, server, None, models=True)
    assert devices(planned) == devices(plain)
    assert cables(planned) == cables(plain)
    assert racks(planned) == racks(plain)
    assert planned.configs == plain.configs


def test_without_growth_the_envelope_is_todays_size() -> None:
    plan = placed(128, envelope=None).plan
    assert (plan.max_servers, plan.tiers, plan.spines_per_plane, plan.cabling_limit()[0]) == (128, 2, 16, 128)


def test_the_envelope_in_gpus() -> None:
    text = intent(32, envelope=None).replace("fabric:", "growth: {max_gpus: 8192}\nfabric:")
    assert devices(placed_text(text)) == devices(built(32))


def test_envelope_errors_name_the_field_and_the_limit() -> None:
    with pytest.raises(InputError, match=r"growth\.max_servers: 64 servers is below the 128 servers of compute"):
        build_text(intent(128, envelope=64))
    with pytest.raises(
        InputError,
        match=r"growth\.max_servers: 3 tiers hold at most 64 pods \(8,192 servers\) with "
        r"64-port super-spines; the envelope of 8,320 servers needs 65 pods",
    ):
        build_text(intent(128, envelope=8320))


@needs(FRR_LAB)
def test_pod_0_of_a_three_tier_envelope_converges_in_frr() -> None:
    """The spines of pod 0 run with their up-ports reserved: every leaf reaches every other, in real FRR."""
    intent = ROOT / "tests" / "intents" / "verify-pod0.yaml"
    plan = size(validated_intent(intent))
    assert (plan.tiers, plan.switch_counts()) == (3, {"leaf": 4, "spine": 4, "super_spine": 0})
    code, out, err = run_cli("verify", str(intent), "--no-failures")
    assert code == 0, out + err
    assert "PASS kernel settings loaded: 8 of 8 routers" in out
    assert "PASS foreign prefix refused" in out
    checks = 9 if shutil.which("lldpd") else 8  # the cabling (LLDP) is not covered without lldpd
    assert out.rstrip().endswith(f"result: PASS ({checks} of {checks} checks passed)")


def patch(design: Design | Placed, tier: int) -> dict[tuple[str, str], tuple[str, str]]:
    """The cables of one tier: upper end to lower end, by device and port name."""
    names = design.fabric.devices
    return {
        (names[upper].name, names[upper].port_name(upper_port)): (names[lower].name, names[lower].port_name(port))
        for kind, upper, upper_port, lower, port in design.fabric.links
        if kind == tier
    }


def kept(old: dict[tuple[str, str], tuple[str, str]], new: dict[tuple[str, str], tuple[str, str]]) -> int:
    return sum(1 for end, peer in old.items() if new.get(end) == peer)


@pytest.mark.parametrize(
    ("envelope", "tier", "kept_cables"),
    [
        (256, LEAF_SPINE, 512),  # 16 spines with 2 links to each leaf become 32 with one: half stay
        (512, LEAF_SPINE, 512),  # and crossing to 3 tiers (pod 0 of 32 spines, renamed) keeps them too
    ],
)
def test_growing_the_envelope_moves_the_fewest_cables(envelope: int, tier: int, kept_cables: int) -> None:
    old, new = placed(128, envelope=None), placed(128, envelope=envelope)
    renamed = {device.name: device.name for device in new.fabric.devices}
    renamed.update({f"p0-spine{index}": f"p0-pod0-spine{index}" for index in range(32)} if envelope == 512 else {})
    before = {
        (renamed[upper], port): (renamed[lower], lower_port)
        for (upper, port), (lower, lower_port) in patch(old, tier).items()
    }
    assert len(before) == 1024 and kept(before, patch(new, tier)) == kept_cables


def test_doubling_the_super_spines_keeps_half_their_cables() -> None:
    """Two pods planned for 8 (4 super-spines per group, 8 links to each spine) and for 16 (8, 4 links)."""
    old, new = built(256), placed(256, envelope=2048)
    assert (old.plan.supers_per_group, new.plan.supers_per_group) == (4, 8)
    assert kept(patch(old, SPINE_SUPER), patch(new, SPINE_SUPER)) == 2048 // 2

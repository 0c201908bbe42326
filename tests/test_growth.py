"""Growth inside the envelope only adds: after each step every existing name, loopback, ASN, cable end, address,
rack and unit is unchanged, and existing switches' FRR and EOS configurations only gain lines.

Two growth paths: 32 -> 1,024 DGX H100 on 64 x 400G switches planned for 1,024 (3 tiers from the start: pod 0,
then super-spines with the second pod), and 64 -> 256 DGX B300 (2 planes) planned for 512; and the H100 path again
with an unnumbered underlay, where SONiC's own FRR file (interface neighbors by SONiC's port names) only gains too.
"""

from __future__ import annotations

import shutil
from functools import cache
from itertools import pairwise
from typing import Any

import pytest

from designer.allocate import ip
from designer.design import Design
from designer.diff import lost_lines
from designer.errors import InputError
from designer.fabric import LEAF_SPINE, SPINE_SUPER
from designer.outputs.labels import labels_html
from designer.outputs.summary import summary_markdown
from designer.outputs.tables import cabling_rows
from designer.pipeline import build
from designer.render import render_configs
from tests.conftest import ROOT
from tests.helpers import build_text
from tests.prerequisites import FRR_LAB, needs
from tests.test_intent_errors import run_cli
from tests.test_labels import parsed

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
    return build_text(intent(servers, server, envelope, extra=extra))


@cache
def configs(servers: int, server: str = "dgx-h100", envelope: int | None = 1024) -> dict[str, bytes]:
    return render_configs(built(servers, server, envelope).configs, GAINING)


@cache
def unnumbered_configs(servers: int) -> dict[str, bytes]:
    """The FRR, EOS and SONiC FRR files of the unnumbered H100 path (SONiC's config_db.json is one JSON line per
    table, so its growth is not a matter of lines)."""
    files = render_configs(built(servers, extra=UNNUMBERED).configs, (*GAINING, "sonic"))
    return {path: data for path, data in files.items() if not path.startswith("configs/sonic/")}


def devices(design: Design) -> dict[str, dict[str, Any]]:
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


def cables(design: Design) -> dict[tuple[str, str], tuple[str, str, str, float]]:
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


def racks(design: Design) -> dict[str, tuple[int, int]]:
    return {rack.name: (rack.row, rack.position) for rack in design.physical.racks}


def cable_ids(design: Design) -> dict[str, tuple[Any, ...]]:
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


def rack_labels(design: Design) -> dict[str, set[str]]:
    """The text of every label ``labels.html`` prints, by the rack whose section holds it."""
    header, rows = cabling_rows(design)
    html = labels_html(design.intent.name, (header, list(rows)), (rack.name for rack in design.physical.racks))
    return {rack: {label for sheet in sheets for label in sheet} for rack, sheets in parsed(html).sections}


def assert_only_added(old: Design, new: Design, old_files: dict[str, bytes], new_files: dict[str, bytes]) -> None:
    before, after = devices(old), devices(new)
    changed = {name: (row, after.get(name)) for name, row in before.items() if after.get(name) != row}
    assert not changed, f"{len(changed)} existing devices changed, e.g. {next(iter(changed.items()))}"
    links_before, links_after = cables(old), cables(new)
    moved = {end: (link, links_after.get(end)) for end, link in links_before.items() if links_after.get(end) != link}
    assert not moved, f"{len(moved)} existing links changed, e.g. {next(iter(moved.items()))}"
    assert set(racks(old).items()) <= set(racks(new).items())
    header, old_rows = cabling_rows(old)
    assert header[3:6] == ["a_port", "a_port_frr", "a_port_eos"]  # every OS's port names stay where they were
    new_rows = cabling_rows(new)[1]
    assert set(map(tuple, old_rows)) <= set(map(tuple, new_rows))
    ids_before, ids_after = cable_ids(old), cable_ids(new)
    renumbered = {
        cable: (row, ids_after.get(cable)) for cable, row in ids_before.items() if ids_after.get(cable) != row
    }
    assert not renumbered, f"{len(renumbered)} existing cable IDs moved, e.g. {next(iter(renumbered.items()))}"
    labels_before, labels_after = rack_labels(old), rack_labels(new)
    for rack in labels_before.keys() & labels_after.keys():  # both sheets print it (whole racks up to the cap)
        assert labels_before[rack] <= labels_after[rack], f"a label printed for {rack} changed or moved"
    for path, data in old_files.items():
        lost = lost_lines(data.decode(), new_files[path].decode(), path)
        assert not lost, f"{path} lost or changed {len(lost)} lines, e.g. {lost[:3]}"


@pytest.mark.parametrize(("old", "new"), list(pairwise(H100_STEPS)))
def test_h100_growth_inside_the_envelope_only_adds(old: int, new: int) -> None:
    assert_only_added(built(old), built(new), configs(old), configs(new))
    assert built(new).plan.servers == new and not [f for f in built(new).findings if f.severity == "error"]


@pytest.mark.parametrize(("old", "new"), list(pairwise(UNNUMBERED_STEPS)))
def test_unnumbered_growth_inside_the_envelope_only_adds(old: int, new: int) -> None:
    """Interface neighbors come from ports, which growth never moves: an existing switch's sessions and files only
    gain, across the second pod and its super-spines too."""
    before, after = unnumbered_configs(old), unnumbered_configs(new)
    assert any(path.startswith("configs/sonic-frr/") for path in before)
    assert_only_added(built(old, extra=UNNUMBERED), built(new, extra=UNNUMBERED), before, after)
    assert all(config.bgp.unnumbered for config in built(new, extra=UNNUMBERED).configs)
    assert not [f for f in built(new, extra=UNNUMBERED).findings if f.severity == "error"]


@pytest.mark.parametrize(("old", "new"), list(pairwise(B300_STEPS)))
def test_b300_two_planes_growth_inside_the_envelope_only_adds(old: int, new: int) -> None:
    assert_only_added(
        built(old, "dgx-b300", 512),
        built(new, "dgx-b300", 512),
        configs(old, "dgx-b300", 512),
        configs(new, "dgx-b300", 512),
    )


@pytest.mark.parametrize(("old", "new"), list(pairwise(TWO_TIER_STEPS)))
def test_two_tier_growth_inside_the_envelope_only_adds(old: int, new: int) -> None:
    assert_only_added(
        built(old, envelope=256), built(new, envelope=256), configs(old, envelope=256), configs(new, envelope=256)
    )
    assert built(new, envelope=256).plan.spines_per_plane == 32


def test_optics_everywhere_growth_keeps_every_cable_its_medium_and_label() -> None:
    """With ``facility.media: optics`` the cabling rows (media included), cable IDs, racks and labels of what exists
    only gain when the fabric grows inside its envelope, as with copper."""
    optics = "facility: {media: optics}\n"
    old, new = built(32, envelope=256, extra=optics), built(64, envelope=256, extra=optics)
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
    planned, plain = built(envelope, server, envelope), built(envelope, server, None)
    assert devices(planned) == devices(plain)
    assert cables(planned) == cables(plain)
    assert racks(planned) == racks(plain)
    assert planned.configs == plain.configs


def test_without_growth_the_envelope_is_todays_size() -> None:
    plan = built(128, envelope=None).plan
    assert (plan.max_servers, plan.tiers, plan.spines_per_plane, plan.cabling_limit()[0]) == (128, 2, 16, 128)


def test_the_envelope_in_gpus() -> None:
    text = intent(32, envelope=None).replace("fabric:", "growth: {max_gpus: 8192}\nfabric:")
    assert devices(build_text(text)) == devices(built(32))


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
    plan = build(intent).plan
    assert (plan.tiers, plan.switch_counts()) == (3, {"leaf": 4, "spine": 4, "super_spine": 0})
    code, out, err = run_cli("verify", str(intent), "--no-failures")
    assert code == 0, out + err
    assert "PASS kernel settings loaded: 8 of 8 routers" in out
    assert "PASS foreign prefix refused" in out
    checks = 9 if shutil.which("lldpd") else 8  # the cabling (LLDP) is not covered without lldpd
    assert out.rstrip().endswith(f"result: PASS ({checks} of {checks} checks passed)")


def patch(design: Design, tier: int) -> dict[tuple[str, str], tuple[str, str]]:
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
    old, new = built(128, envelope=None), built(128, envelope=envelope)
    renamed = {device.name: device.name for device in new.fabric.devices}
    renamed.update({f"p0-spine{index}": f"p0-pod0-spine{index}" for index in range(32)} if envelope == 512 else {})
    before = {
        (renamed[upper], port): (renamed[lower], lower_port)
        for (upper, port), (lower, lower_port) in patch(old, tier).items()
    }
    assert len(before) == 1024 and kept(before, patch(new, tier)) == kept_cables


def test_doubling_the_super_spines_keeps_half_their_cables() -> None:
    """Two pods planned for 8 (4 super-spines per group, 8 links to each spine) and for 16 (8, 4 links)."""
    old, new = built(256), built(256, envelope=2048)
    assert (old.plan.supers_per_group, new.plan.supers_per_group) == (4, 8)
    assert kept(patch(old, SPINE_SUPER), patch(new, SPINE_SUPER)) == 2048 // 2

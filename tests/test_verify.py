"""designer verify: expected ECMP widths against the plan, slices, the containerlab topology, reports, folders
held to their manifest, and real FRR labs in network namespaces (2 tiers, 3 tiers, failure injection, a broken
config, the walls around FRR and vtysh, teardown)."""

from __future__ import annotations

import csv
import hashlib
import io
import ipaddress
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from functools import cache
from pathlib import Path
from secrets import token_hex

import pytest
import yaml

from designer.design import Design
from designer.errors import PrerequisiteError
from designer.outputs.build import design_files
from designer.outputs.design_json import design_json
from designer.outputs.folder import write
from designer.pipeline import build
from designer.verify import lab as lab_module
from designer.verify import run as run_module
from designer.verify.lab import Lab, sweep_orphans
from designer.verify.probe import kernel_routes
from designer.verify.report import Check, VerifyReport, as_json, check, junit, text
from designer.verify.run import verify
from designer.verify.topology import Topology, expected_routes, paths_to, topology
from tests.conftest import ROOT
from tests.helpers import build_design
from tests.prerequisites import AS_ROOT, FRR_LAB, LLDPD, needs
from tests.test_intent_errors import run_cli

INTENTS = ROOT / "tests" / "intents"
VENDOR = ROOT / "tests" / "vendor"
TWO_TIER, THREE_TIER = INTENTS / "verify-2tier.yaml", INTENTS / "verify-3tier.yaml"


@cache
def _built(intent: Path) -> dict[str, bytes]:
    return design_files(build(intent))


def built_files(intent: Path = TWO_TIER) -> dict[str, bytes]:
    """The files ``intent`` builds (built once a run), in a dict of the caller's own to edit."""
    return dict(_built(intent))


@cache
def sized(servers: int) -> Design:
    """The cluster.yaml-like design of ``servers`` DGX H100 (built once a run)."""
    return build_design(servers=servers)


@cache
def skeleton(servers: int) -> Topology:
    """The lab of a cluster.yaml-like design, with empty configs (widths need only the wiring)."""
    return skeleton_of(sized(servers))


def skeleton_of(design: Design, whole: bool = True) -> Topology:
    files = {"design.json": design_json(design)}
    files.update({f"configs/frr/{device.name}.conf": b"" for device in design.fabric.switches()})
    return topology(files, whole)


def widths_to(lab: Topology, destination: int, failed: frozenset[int] = frozenset()) -> tuple[list, list]:
    up, down = lab.neighbors()
    return paths_to(lab, destination, failed, up, down)


def named(lab: Topology, name: str) -> int:
    return next(index for index, router in enumerate(lab.routers) if router.name == name)


# ---- expected ECMP widths, from the wiring, held to the plan -------------------------------------------------


def test_two_tier_widths_are_the_leaf_uplinks_and_shrink_by_the_parallel_links() -> None:
    design = sized(128)  # 32 leaves, 16 spines, 2 parallel links each
    plan = design.plan
    lab = skeleton(128)
    assert lab.design_width() == plan.leaf_uplinks == plan.spines_per_pod * plan.leaf_spine_parallel == 32
    leaves = lab.leaves()
    spine = named(lab, "p0-spine0")
    for destination in leaves[:3]:
        distance, width = widths_to(lab, destination)
        assert {width[leaf] for leaf in leaves if leaf != destination} == {plan.leaf_uplinks}
        assert {distance[leaf] for leaf in leaves if leaf != destination} == {2}
        assert width[spine] == plan.leaf_spine_parallel and distance[spine] == 1
        _, degraded = widths_to(lab, destination, frozenset({spine}))
        assert {degraded[leaf] for leaf in leaves if leaf != destination} == {
            plan.leaf_uplinks - plan.leaf_spine_parallel
        }


def test_three_tier_widths_follow_the_plan_under_spine_and_super_spine_failure() -> None:
    design = sized(512)  # 4 pods of 32 leaves and 32 spines, 64 super-spines
    plan = design.plan
    assert plan.tiers == 3 and plan.pods == 4
    lab = skeleton(512)
    leaves = lab.leaves()
    pod0 = [leaf for leaf in leaves if lab.routers[leaf].pod == 0]
    pod1 = [leaf for leaf in leaves if lab.routers[leaf].pod == 1]
    spine = named(lab, "p0-pod0-spine0")
    super_spine = named(lab, "p0-g0-ss0")
    pod1_spine0 = named(lab, "p0-pod1-spine0")
    distance, width = widths_to(lab, pod0[0])
    assert {width[leaf] for leaf in pod0[1:] + pod1} == {plan.spines_per_pod}
    assert distance[pod0[1]] == 2 and distance[pod1[0]] == 4
    assert width[pod1_spine0] == plan.spine_uplinks == plan.supers_per_group * plan.spine_super_parallel
    # one spine of pod 0 down: every leaf loses exactly one next hop towards pod 0, none towards pod 1
    _, degraded = widths_to(lab, pod0[0], frozenset({spine}))
    assert {degraded[leaf] for leaf in pod0[1:] + pod1} == {plan.spines_per_pod - 1}
    _, towards_pod1 = widths_to(lab, pod1[0], frozenset({spine}))
    assert {towards_pod1[leaf] for leaf in pod1[1:]} == {plan.spines_per_pod}
    assert {towards_pod1[leaf] for leaf in pod0} == {plan.spines_per_pod - 1}
    # one super-spine down: spine 0 of the other pods loses its parallel links to it, the leaves keep their width
    _, degraded = widths_to(lab, pod0[0], frozenset({super_spine}))
    assert degraded[pod1_spine0] == plan.spine_uplinks - plan.spine_super_parallel
    assert {degraded[leaf] for leaf in pod1} == {plan.spines_per_pod}


def test_expected_routes_hold_every_other_leafs_loopback_and_server_subnets() -> None:
    lab = topology(built_files())
    routes = expected_routes(lab)
    first, last = lab.leaves()[0], lab.leaves()[-1]
    spines = [index for index, router in enumerate(lab.routers) if router.role == "spine"]
    assert set(routes[first]) == {prefix for leaf in lab.leaves() if leaf != first for prefix in lab.prefixes(leaf)} | {
        f"{lab.routers[spine].loopback}/32" for spine in spines
    }
    # each spine directly: one next hop per parallel link
    assert {routes[first][f"{lab.routers[spine].loopback}/32"] for spine in spines} == {2}
    loopback, block = lab.prefixes(last)  # the server /31s are announced as one block
    assert loopback == f"{lab.routers[last].loopback}/32"
    servers = [ipaddress.ip_address(address) for _, address in lab.server_ports[last]]
    assert len(servers) == 4 and all(address in ipaddress.ip_network(block) for address in servers)
    assert ipaddress.ip_network(block).num_addresses == 8
    assert {routes[first][prefix] for leaf in lab.leaves() if leaf != first for prefix in lab.prefixes(leaf)} == {4}
    assert f"{lab.routers[last].loopback}/32" in routes[first]
    assert expected_routes(lab, frozenset({named(lab, "p0-spine0")}))[first][lab.prefixes(last)[0]] == 2


# ---- slices, memory, prerequisites -----------------------------------------------------------------------------


def test_three_tier_slice_is_one_pod_whole_plus_one_leaf_per_rail_of_the_next() -> None:
    design = sized(512)
    whole, part = skeleton(512), skeleton_of(design, whole=False)
    roles = {role: [router for router in part.routers if router.role == role] for role in ("leaf", "spine")}
    assert sum(router.pod == 0 for router in roles["leaf"]) == design.plan.leaves_per_pod
    assert sorted(router.su for router in roles["leaf"] if router.pod == 1) == [design.plan.sus_per_pod] * 8
    assert {router.pod for router in roles["spine"]} == {0, 1} and len(roles["spine"]) == 2 * design.plan.spines_per_pod
    assert sum(router.role == "super_spine" for router in part.routers) == design.plan.supers_per_plane
    assert part.coverage.startswith("slice: pod 0 of plane 0 complete (32 leaves)")
    assert "one leaf per rail of pod 1" in part.coverage
    assert part.memory_mib() < whole.memory_mib()
    # a pod-1 spine's sessions to pod-1 leaves outside the slice are listed, not expected
    assert any(name.startswith("p0-su5-") for name in part.outside.values())
    assert all(wire.upper < len(part.routers) and wire.lower < len(part.routers) for wire in part.wires)
    # the sliced leaves keep their full width: the plan's width holds in the slice too
    pod0 = [index for index, router in enumerate(part.routers) if router.role == "leaf" and router.pod == 0]
    _, width = widths_to(part, pod0[0])
    assert width[pod0[1]] == design.plan.spines_per_pod


def test_memory_estimate_and_refusal(monkeypatch: pytest.MonkeyPatch) -> None:
    lab = topology(built_files())
    # 6 routers at 20 MiB, 32 peers (4 per leaf, 8 per spine) at 0.75 MiB; 10 prefixes (6 loopbacks, 4 leaf
    # server blocks) held once per peer, twice on the leaves: (4 x 8 + 2 x 8) x 10 paths at 0.25 KiB
    assert lab.memory_mib() == round(6 * 20 + 32 * 0.75 + 480 * 0.25 / 1024) == 144
    bigger = skeleton(128)  # 32 leaves of 32 uplinks, 16 spines; 48 loopbacks, 32 server blocks
    assert (
        bigger.memory_mib()
        == round(48 * 20 + (32 * 32 + 16 * 64) * 0.75 + (32 * 64 + 16 * 64) * 80 * 0.25 / 1024)
        == 2_556
    )
    monkeypatch.setattr(run_module, "check_prerequisites", lambda: None)
    monkeypatch.setattr(run_module, "available_mib", lambda: 100)
    with pytest.raises(PrerequisiteError, match=r"needs about 144 MiB but only 100 MiB .* use --slice"):
        verify(built_files())


def test_without_root_it_says_what_to_run_and_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "traceroute" else f"/usr/bin/{name}")
    code, out, err = run_cli("verify", str(TWO_TIER))
    assert code == 2 and out == ""
    assert "run it as root" in err
    assert "missing traceroute: install them with 'apt-get install -y frr iproute2 iputils-ping traceroute" in err


def test_a_kernel_without_mount_setattr_is_a_missing_prerequisite(monkeypatch: pytest.MonkeyPatch) -> None:
    """The lab's walls need mount_setattr (Linux 5.12, man 2 mount_setattr); an older kernel is exit 2, not a lab
    without walls."""
    machine = os.uname()
    older = os.uname_result((*machine[:2], "5.10.0-28-amd64", *machine[3:]))
    monkeypatch.setattr(os, "uname", lambda: older)
    code, out, err = run_cli("verify", str(TWO_TIER))
    assert (code, out) == (2, "")
    assert (
        "needs Linux 5.12 or later to wall FRR off from the machine's files (mount_setattr); this kernel is "
        "5.10.0-28-amd64" in err
    )


def test_a_lab_test_is_told_to_install_a_missing_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Root, FRR and every program but ping present: what the lab tests lack is ping, and its package (they skip
    saying so, or fail under CI: tests/test_tiers.py)."""
    for folder, names in ((tmp_path / "bin", lab_module.PROGRAMS), (tmp_path / "frr", ("zebra", "bgpd"))):
        folder.mkdir()
        for name in names:
            if name != "ping":
                (folder / name).touch(mode=0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setattr(lab_module, "FRR_BIN", tmp_path / "frr")
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    reason = FRR_LAB.missing()
    assert reason is not None
    assert "missing ping: install them with 'apt-get install -y frr iproute2 iputils-ping" in reason
    assert "root" not in reason


def test_an_output_without_frr_configs_is_refused(tmp_path: Path) -> None:
    files = built_files()
    write({path: data for path, data in files.items() if not path.startswith("configs/frr/")}, tmp_path / "out")
    code, _, err = run_cli("verify", str(tmp_path / "out"))
    assert code == 2 and "no FRR config for 6 switch(es)" in err and "targets" in err


# ---- a tampered output folder is refused before anything starts ------------------------------------------------


def signed(folder: Path) -> Path:
    """``folder`` with its manifest.json listing every file's sha256 as the file is now: an edit signed into the
    manifest (anyone who may edit a folder may rewrite it), which only verify's own checks of what it reads and the
    lab's walls can stop."""
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"] = {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink() and path.name != "manifest.json"
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return folder


def _tampered(folder: Path, old: str, new: object, rename_config: bool = False) -> Path:
    """A built copy of the 2-tier lab whose design.json has every JSON string ``old`` replaced by ``new``, signed."""
    write(built_files(), folder)
    design = folder / "design.json"
    design.write_text(design.read_text().replace(json.dumps(old), json.dumps(new)))
    if rename_config:
        (folder / "configs" / "frr" / f"{old}.conf").rename(folder / "configs" / "frr" / f"{new}.conf")
    return signed(folder)


def _traces_of(marker: str, folder: Path) -> list[str]:
    """Anything a run left that carries ``marker``: a file named PWNED under ``folder``, a router folder of a lab,
    a namespace, a process."""
    found = [str(path) for path in folder.rglob("PWNED")]
    if lab_module.RUN_ROOT.is_dir():
        found += [str(path) for path in lab_module.RUN_ROOT.glob("*/*") if marker in path.name]
    if shutil.which("ip"):
        found += [name for name in _namespaces() if marker in name]
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(str(cmdline))
        except OSError:
            continue
    return found


@pytest.mark.parametrize(
    ("edited", "added"),
    [
        ("configs/frr/p0-su0-r0-leaf.conf", "log file {log} debugging\n"),
        ("configs/sysctl/p0-spine1.conf", "# a comment\n"),
        ("design.json", "\n"),
    ],
)
def test_a_file_edited_after_the_build_is_refused_naming_it(edited: str, added: str, tmp_path: Path) -> None:
    """Every file verify reads must have the sha256 the folder's manifest.json records, as 'designer check' holds the
    whole folder to it. Before, a ``log file`` line appended to a leaf's frr.conf ran: exit 0, "configs loaded 6 of
    6", and FRR, run as root's lab, created the log file wherever the line said (issue: Hardening)."""
    folder, log = tmp_path / "out", tmp_path / "x.log"
    write(built_files(), folder)
    path = folder / edited
    path.write_bytes(path.read_bytes() + added.format(log=log).encode())
    code, out, err = run_cli("verify", str(folder))
    assert (code, out) == (2, ""), err
    assert re.match(
        rf"{re.escape(str(folder))}/manifest\.json:\d+: files\.{re.escape(edited)}: the file's sha256 "
        r"differs: it was changed after 'designer build'",
        err,
    ), err
    assert err.rstrip().endswith(f"1 error in {folder}/manifest.json; nothing was written.")
    assert "creating" not in err and not log.exists()


def test_a_file_the_manifest_does_not_list_or_a_folder_without_one_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    write(built_files(), folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    del manifest["files"]["configs/frr/p0-spine0.conf"]
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))
    code, _, err = run_cli("verify", str(folder))
    assert code == 2 and "files.configs/frr/p0-spine0.conf: not listed: the build did not write it" in err, err
    (folder / "manifest.json").unlink()
    code, _, err = run_cli("verify", str(folder))
    assert code == 2 and err.startswith(
        f"{folder}/manifest.json: missing: the folder was not written by 'designer build'"
    ), err


@pytest.mark.parametrize(
    "bad",
    [
        "p0-spine1;id>PWNED;true",
        "p0-spine1\nnetns del dv-victim",
        "p0-spine1 ",
        "p\u0661-spine1",
        "../../../../tmp/PWNED",
    ],
)
def test_a_tampered_device_name_is_refused_before_anything_starts(
    bad: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # where a shell injection would have written PWNED
    folder = _tampered(tmp_path / "out", "p0-spine1", bad, rename_config="/" not in bad)
    code, out, err = run_cli("verify", str(folder))
    assert (code, out) == (2, "")
    lines = (folder / "design.json").read_text().splitlines()
    first = err.splitlines()[0]
    where, line, field, message = first.split(": ", 1)[0].rsplit(":", 1) + first.split(": ", 2)[1:]
    assert where == f"{folder}/design.json" and field.startswith("devices[") and field.endswith("].name")
    assert message.startswith(json.dumps(bad)) and "is not a spine name (p{plane}-spine{i}" in message
    assert json.dumps(bad) in lines[int(line) - 1]
    assert err.rstrip().endswith(f"in {folder}/design.json; nothing was written.")
    assert _traces_of("PWNED", tmp_path) == [] and _traces_of("p0-spine1;", tmp_path) == []
    assert not (tmp_path / "PWNED").exists() and not Path("/tmp/PWNED").exists()


@pytest.mark.parametrize(
    ("old", "new", "field", "says"),
    [
        ("swp1", "swp1;reboot", ".a[1]", "is not a switch port name"),
        ("10.0.0.4", "-c1", ".a[2]", "is not a dotted IPv4 address"),
        ("10.255.0.5", "127.0.0.1", ".loopback", "outside 0/8, 127/8 and 224/3"),
        ("10.255.0.5/32", "10.255.0.5/32 -x", ".announces", "is not an IPv4 prefix"),
        ("spine", "spine\n", ".role", "is not a role"),
    ],
)
def test_tampered_ports_addresses_and_roles_are_refused(
    old: str, new: str, field: str, says: str, tmp_path: Path
) -> None:
    folder = _tampered(tmp_path / "out", old, new)
    code, _, err = run_cli("verify", str(folder))
    assert code == 2 and "Traceback" not in err
    assert re.search(rf"design\.json:\d+: (devices|links)\[\d+\]{re.escape(field)}: .*{says}", err), err


def test_an_asn_that_is_not_an_integer_and_a_link_that_is_not_a_31_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    write(built_files(), folder)
    text = (folder / "design.json").read_text()
    text = re.sub(r'"asn": (\d+),', r'"asn": "\1; id",', text, count=1)
    text = text.replace('"z": ["p0-su0-r0-leaf", "swp7", "10.0.0.5"]', '"z": ["p0-su0-r0-leaf", "swp7", "10.0.0.9"]')
    (folder / "design.json").write_text(text)
    code, _, err = run_cli("verify", str(signed(folder)))
    assert code == 2
    assert re.search(r"devices\[\d+\]\.asn: \"\d+; id\" is not an ASN \(an integer from 1 to 4294967294\)", err)
    assert re.search(r"links\[\d+\]: 10\.0\.0\.4 - 10\.0\.0\.9 .* is not one /31", err)
    assert err.rstrip().splitlines()[-1] == f"2 errors in {folder}/design.json; nothing was written."


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"{", "design.json:1: (top-level): not valid JSON: Expecting property name enclosed in double quotes"),
        (b"{}", "design.json:1: (top-level): devices is missing"),
        (b"[]", "a design.json is a JSON object with name, summary, devices and links, not a list"),
        (b"\xff\xfe", "design.json:1: (top-level): not UTF-8 text (byte 0xff)"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    ],
)
def test_a_design_json_that_is_not_a_design_is_exit_2(content: bytes, says: str, tmp_path: Path) -> None:
    folder = tmp_path / "out"
    write(built_files(), folder)
    (folder / "design.json").write_bytes(content)
    code, out, err = run_cli("verify", str(signed(folder)))
    assert (code, out) == (2, "") and says in err and "Traceback" not in err


def test_links_and_special_files_in_an_output_folder_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    write(built_files(), folder)
    config = folder / "configs" / "frr" / "p0-spine0.conf"
    config.unlink()
    config.symlink_to("/etc/passwd")
    code, _, err = run_cli("verify", str(folder))
    assert code == 2 and f"{config}: is a symbolic link; a built output holds regular files only" in err
    config.unlink()
    os.mkfifo(config)  # reading it would block forever
    code, _, err = run_cli("verify", str(folder))
    assert code == 2 and f"{config}: is a special file" in err
    config.unlink()
    (folder / "configs").rename(tmp_path / "elsewhere")
    (folder / "configs").symlink_to(tmp_path / "elsewhere")
    code, _, err = run_cli("verify", str(folder))
    assert code == 2 and f"{folder / 'configs'}: is a symbolic link" in err


def test_a_config_that_is_not_utf8_is_exit_2(tmp_path: Path) -> None:
    files = built_files()
    files["configs/frr/p0-spine0.conf"] += b"\n! \xff\n"
    code, _, err = run_cli("verify", str(_written(files, tmp_path / "out")))
    lines = files["configs/frr/p0-spine0.conf"].count(b"\n")
    assert code == 2 and f"configs/frr/p0-spine0.conf: line {lines}: not UTF-8 text (byte 0xff)" in err
    assert err.rstrip().endswith("1 error in the FRR configs; nothing was written.")


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (
            b"kernel.core_pattern = |/bin/sh",
            "'kernel.core_pattern = |/bin/sh': verify applies only "
            "net.ipv4.fib_multipath_hash_policy and net.ipv4.fib_multipath_hash_seed",
        ),
        (
            b"net.ipv4.fib_multipath_hash_policy = 4",
            "net.ipv4.fib_multipath_hash_policy: '4' is not an integer from 0 to 3",
        ),
        (b"net.ipv4.fib_multipath_hash_seed = 4294967296", "'4294967296' is not an integer from 0 to 4294967295"),
        (b"net.ipv4.fib_multipath_hash_seed = -1", "'-1' is not an integer from 0 to 4294967295"),
        (b"net.ipv4.fib_multipath_hash_seed = 1;reboot", "'1;reboot' is not an integer"),
        (b"net.ipv4.fib_multipath_hash_seed = $(reboot)", "'$(reboot)' is not an integer"),
        (b"net.ipv4.fib_multipath_hash_seed = 7", "net.ipv4.fib_multipath_hash_seed: written twice; each setting once"),
        (b"net/ipv4/../../kernel/modprobe = 1", "verify applies only"),
    ],
)
def test_a_tampered_router_sysctl_file_is_exit_2_at_its_line_before_anything_starts(
    line: bytes, says: str, tmp_path: Path
) -> None:
    files = built_files()
    path = "configs/sysctl/p0-spine1.conf"
    files[path] += line + b"\n"
    code, out, err = run_cli("verify", str(_written(files, tmp_path / "out")))
    number = files[path].count(b"\n")
    assert (code, out) == (2, ""), err
    assert err.startswith(f"{path}:{number}: ") and says in err.splitlines()[0], err
    assert err.rstrip().endswith(f"in {path}; nothing was written.") and "creating" not in err


def _written(files: dict[str, bytes], folder: Path) -> Path:
    """``files`` written into ``folder`` with each edit signed into its manifest (:func:`signed`)."""
    write(files, folder)
    return signed(folder)


def test_iproute2_never_gets_a_word_it_did_not_expect() -> None:
    for line in ("link add swp1;id type bridge", "netns add dv-1-a\nnetns del b", "link set -x up"):
        with pytest.raises(ValueError, match="refusing to pass"):
            lab_module.ip_batch([line])
    with pytest.raises(ValueError, match="refusing to pass"):
        lab_module.ip_batch(["link set lo up"], namespace="dv-1-a;id")


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT])
def test_every_stopping_signal_interrupts_the_lab_so_it_is_torn_down(number: int) -> None:
    running = Lab(skeleton(32), lambda _: None)
    before = signal.getsignal(number)
    running._trap_signals()
    try:
        assert set(running._previous_handlers) == {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT}
        with pytest.raises(KeyboardInterrupt, match=f"signal {int(number)}"):
            os.kill(os.getpid(), number)
            time.sleep(5)  # the handler raises as soon as the signal arrives
    finally:
        for trapped, handler in running._previous_handlers.items():
            signal.signal(trapped, handler)  # type: ignore[arg-type]
    assert signal.getsignal(number) == before


def test_arp_thresholds_are_raised_for_the_lab_and_restored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in (("gc_thresh1", 128), ("gc_thresh2", 512), ("gc_thresh3", 1024)):
        (tmp_path / name).write_text(f"{value}\n")
    monkeypatch.setattr(lab_module, "SYSCTL", tmp_path)
    lab = skeleton(512)  # 8,192 wires: 16,384 ARP entries
    running = Lab(lab, lambda _: None)
    running.folder = tmp_path / "run"
    running.folder.mkdir()
    running._raise_arp_limits()
    assert int((tmp_path / "gc_thresh3").read_text()) > 2 * lab.arp_entries()
    assert int((tmp_path / "gc_thresh1").read_text()) >= 128
    lab_module._restore_sysctls(running.folder)
    assert [(tmp_path / name).read_text().strip() for name in lab_module.GC_THRESH] == ["128", "512", "1024"]


# ---- containerlab topology --------------------------------------------------------------------------------------


def test_clab_topology_mounts_each_config_and_wires_the_cabling() -> None:
    files = built_files(INTENTS / "small-2tier.yaml")
    clab = yaml.safe_load(files["lab/clab.yml"])
    nodes = clab["topology"]["nodes"]
    cabling = list(csv.DictReader(io.StringIO(files["cabling.csv"].decode())))
    switch_links = [row for row in cabling if row["tier"] != "server_leaf"]
    assert set(nodes) == {
        path.removeprefix("configs/frr/").removesuffix(".conf") for path in files if path.startswith("configs/frr/")
    }
    for name, node in nodes.items():
        source, target = node["binds"][0].split(":")
        assert target == "/etc/frr/frr.conf" and source == f"../configs/frr/{name}.conf"
        assert source.removeprefix("../") in files
        assert node["binds"][1] == "daemons:/etc/frr/daemons"
    assert [link["endpoints"] for link in clab["topology"]["links"]] == [
        [f"{row['a_device']}:{row['a_port']}", f"{row['z_device']}:{row['z_port']}"] for row in switch_links
    ]
    assert "bfdd=yes" in files["lab/daemons"].decode()  # small-2tier asks for BFD
    leaf_exec = nodes["p0-su0-r0-leaf"]["exec"][0]
    assert "for port in swp1s0 swp1s1 swp2s0 swp2s1;" in leaf_exec and "type bridge" in leaf_exec
    assert "bfdd=no" in built_files()["lab/daemons"].decode()
    for name, node in nodes.items():
        lines = files[f"configs/sysctl/{name}.conf"].decode().splitlines()
        settings = dict(line.split(" = ") for line in lines if line and not line.startswith("#"))
        assert node["sysctls"] == {key: int(value) for key, value in settings.items()}
        assert set(settings) == {"net.ipv4.fib_multipath_hash_policy", "net.ipv4.fib_multipath_hash_seed"}
    seeds: dict[str, set[int]] = {}
    for name, node in nodes.items():
        seeds.setdefault(name.rsplit("-", 1)[-1].rstrip("0123456789"), set()).add(
            node["sysctls"]["net.ipv4.fib_multipath_hash_seed"]
        )
    assert seeds == {"leaf": {1}, "spine": {2}}  # the default seed rule: one seed per tier


def test_clab_topology_is_valid_against_containerlabs_schema() -> None:
    import jsonschema

    validator = jsonschema.Draft7Validator(json.loads((VENDOR / "containerlab" / "clab.schema.json").read_text()))
    for intent in (INTENTS / "small-2tier.yaml", THREE_TIER):
        clab = yaml.safe_load(built_files(intent)["lab/clab.yml"])
        assert [error.message for error in validator.iter_errors(clab)] == []
        node = next(iter(clab["topology"]["nodes"].values()))
        node["sysctl"] = node.pop("sysctls")  # a misspelt node option is caught
        assert list(validator.iter_errors(clab))


# ---- reports --------------------------------------------------------------------------------------------------


def sample_report() -> VerifyReport:
    report = VerifyReport("lab", "whole fabric: 6 switches", 6, 32, 136, 4)
    report.checks += [
        Check("healthy", "bgp sessions", True, "32 of 32"),
        Check("p0-spine0 down", "kernel routes", False, "4 of 5", ("leaf: 10.255.0.3/32 missing",)),
    ]
    report.converged_seconds.update({"healthy": 2.5, "p0-spine0 down": None})
    return report


def test_reports_say_what_failed_in_text_json_and_junit() -> None:
    report = sample_report()
    assert not report.passed
    body = text(report)
    assert "healthy: converged in 2.5 s" in body and "p0-spine0 down: did not converge in time" in body
    assert "FAIL kernel routes: 4 of 5" in body and "- leaf: 10.255.0.3/32 missing" in body
    assert body.rstrip().endswith("result: FAIL (1 of 2 checks passed)")
    assert json.loads(as_json(report))["passed"] is False
    suite = ElementTree.fromstring(junit(report)).find("testsuite")
    assert suite is not None and suite.get("tests") == "2" and suite.get("failures") == "1"
    failure = suite.find("testcase[@name='p0-spine0 down: kernel routes']/failure")
    assert failure is not None and failure.text == "leaf: 10.255.0.3/32 missing"


def test_a_check_keeps_a_thousand_problems_and_counts_the_rest() -> None:
    many = check("healthy", "kernel routes", "0 of 144 routers", [f"route {number}" for number in range(1500)])
    assert not many.passed and len(many.problems) == 1001
    assert many.problems[-2:] == ("route 999", "... and 500 more")
    assert check("healthy", "ping", "1 of 1", []).passed


# ---- real FRR labs --------------------------------------------------------------------------------------------


@needs(FRR_LAB, LLDPD)
def test_two_tier_lab_converges_and_survives_a_spine_failure() -> None:
    report = verify(built_files(), progress=lambda _: None)
    assert report.passed, text(report)
    phases = list(report.converged_seconds)
    assert phases == ["healthy", "p0-spine0 down", "p0-spine0 restored"]
    assert all(seconds is not None for seconds in report.converged_seconds.values())
    summaries = {(check.phase, check.name): check.summary for check in report.checks}
    assert summaries["healthy", "bgp sessions"] == (
        "32 of 32 session ends Established with the designed peer ASNs (16 sessions, seen from both routers)"
    )
    assert report.sessions == 16 and report.measured_mib and report.measured_mib > 6
    assert summaries["healthy", "kernel routes"].endswith("leaf widths 4")
    assert summaries["healthy", "kernel settings loaded"].startswith("6 of 6 routers run their configs/sysctl file")
    assert summaries["healthy", "cabling as designed (LLDP)"] == (
        "16 of 16 cables reported by lldpd in 6 namespaces as designed"
    )
    assert "8 towards p0-spine0 down" in summaries["p0-spine0 down", "bgp sessions"]
    # 4 leaves x 3 other leaves x 2 prefixes (loopback, server block) shrink from 4 to 2 next hops
    assert summaries["p0-spine0 down", "kernel routes"].endswith("ECMP shrinks 4 -> 2 on 24 routes")
    assert summaries["p0-spine0 restored", "kernel routes"].endswith("leaf widths 4")


@needs(FRR_LAB)
def test_each_router_runs_its_own_sysctl_file_and_a_changed_value_is_caught() -> None:
    files = built_files()
    seed = "net.ipv4.fib_multipath_hash_seed"
    files["configs/sysctl/p0-spine1.conf"] = files["configs/sysctl/p0-spine1.conf"].replace(
        f"{seed} = 2".encode(), f"{seed} = 4242".encode()
    )
    lab = topology(files)
    spine = [router.name for router in lab.routers].index("p0-spine1")
    parts = tuple(seed.split("."))
    machine = Path("/proc/sys", *parts).read_text() if lab_module.seeds_supported() else ""
    with Lab(lab, lambda _: None) as running:
        running.apply_kernel()
        assert running.kernel_problems() == []
        if lab_module.seeds_supported():
            assert lab_module.read_sysctls(running.namespaces[spine], [parts]) == [4242]
            assert Path("/proc/sys", *parts).read_text() == machine  # the machine's own value is untouched
        lab_module.set_sysctls(running.namespaces[spine], [(("net", "ipv4", "fib_multipath_hash_policy"), 0)])
        assert running.kernel_problems() == [
            "p0-spine1: net.ipv4.fib_multipath_hash_policy reads 0 in its namespace, its configs/sysctl file says 1"
        ]


@needs(FRR_LAB)
def test_three_tier_lab_with_spine_and_super_spine_failure_from_the_command_line() -> None:
    code, out, err = run_cli("verify", str(THREE_TIER), "--format", "junit")
    assert code == 0, out + err
    suite = ElementTree.fromstring(out).find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    names = [case.get("name") for case in suite.findall("testcase")]
    for phase in ("healthy", "p0-pod0-spine0 down", "p0-pod0-spine0 restored", "p0-g0-ss0 down", "p0-g0-ss0 restored"):
        assert f"{phase}: kernel routes" in names and f"{phase}: ping" in names
    outputs = {case.get("name"): case.findtext("system-out") for case in suite.findall("testcase")}
    # a spine of pod 0 down: each of the 4 leaves loses one of 2 next hops towards pod 0's leaves (or from them)
    assert "ECMP shrinks 2 -> 1" in outputs["p0-pod0-spine0 down: kernel routes"]
    assert "ECMP shrinks 2 -> 1" in outputs["p0-g0-ss0 down: kernel routes"]
    assert "2 of 2 sampled paths have the expected hop count" in outputs["healthy: traceroute"]
    assert "verification passed" in err


def unnumbered(intent: Path, tmp_path: Path, extra: str = "") -> Path:
    """``intent`` with an unnumbered underlay (and ``extra`` routing keys), written beside the test."""
    path = tmp_path / f"{intent.stem}-unnumbered.yaml"
    path.write_text(intent.read_text() + f"routing: {{underlay: unnumbered{extra}}}\n")
    return path


@needs(FRR_LAB)
def test_unnumbered_three_tier_lab_converges_and_survives_spine_and_super_spine_failure(tmp_path: Path) -> None:
    """RFC 8950 in the lab: no IPv4 address on any switch-to-switch veth, sessions over IPv6 link-local addresses,
    every expected IPv4 route installed with its full ECMP width through IPv6 next hops, the foreign prefix refused,
    and the same failures as the numbered lab."""
    files = design_files(build(unnumbered(THREE_TIER, tmp_path)))
    write(files, tmp_path / "out")
    code, out, err = run_cli("verify", str(tmp_path / "out"), "--format", "junit")
    assert code == 0, out + err
    suite = ElementTree.fromstring(out).find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    outputs = {case.get("name"): case.findtext("system-out") for case in suite.findall("testcase")}
    assert "Established with the designed peer ASNs" in outputs["healthy: bgp sessions"]
    assert "foreign prefix refused" in " ".join(outputs)
    assert "ECMP shrinks 2 -> 1" in outputs["p0-pod0-spine0 down: kernel routes"]
    assert "ECMP shrinks 2 -> 1" in outputs["p0-g0-ss0 down: kernel routes"]
    leaf = files["configs/frr/p0-su0-r0-leaf.conf"].decode()
    assert " neighbor swp3 interface peer-group SPINES\n" in leaf and "10.0." not in leaf


@needs(FRR_LAB)
def test_unnumbered_two_tier_lab_with_unique_asns_routes_through_ipv6_next_hops(tmp_path: Path) -> None:
    """The unique ASN scheme leaves the policy alone to keep routes valley-free. FRR 8.4's zebra installs an IPv4
    route learnt over an IPv6 link-local next hop as ``via 169.254.0.1 dev <port> onlink``, with a permanent
    neighbor entry holding the peer's MAC (FRR user guide, "BGP", RFC 5549 / interface peers): every next hop of
    the leaf's routes is that, one per uplink port."""
    lab = topology(design_files(build(unnumbered(TWO_TIER, tmp_path, ", asn_scheme: unique"))))
    assert all(wire.upper_address is None and wire.lower_address is None for wire in lab.wires)
    with Lab(lab, lambda _: None) as running:
        assert running.load_configs() == []
        leaf = [router.name for router in lab.routers].index("p0-su0-r0-leaf")
        expected, own = expected_routes(lab)[leaf], set(lab.prefixes(leaf))  # its aggregate is a blackhole route

        def learnt() -> dict[str, int]:
            return {
                prefix: hops for prefix, hops in kernel_routes(running.namespaces[leaf]).items() if prefix not in own
            }

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and learnt() != expected:
            time.sleep(1)
        assert learnt() == expected and set(expected.values()) == {2, 4}  # a spine's loopback: its 2 links
        shown = subprocess.run(
            ["ip", "-n", running.namespaces[leaf], "-j", "route", "show", "proto", "bgp"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        hops = [hop for route in json.loads(shown) if route["dst"] not in own for hop in route.get("nexthops", [])]
        assert len(hops) == sum(expected.values())
        assert {(hop["gateway"], "onlink" in hop["flags"]) for hop in hops} == {("169.254.0.1", True)}
        assert {hop["dev"] for hop in hops} == {"swp5", "swp6", "swp7", "swp8"}


@needs(FRR_LAB)
def test_a_wrong_peer_asn_fails_naming_the_session(tmp_path: Path) -> None:
    files = built_files()
    leaf = "configs/frr/p0-su0-r0-leaf.conf"
    config = files[leaf].decode()
    assert " neighbor 10.0.0.0 remote-as 4201000000\n" in config
    files[leaf] = config.replace(
        " neighbor 10.0.0.0 remote-as 4201000000\n", " neighbor 10.0.0.0 remote-as 4200000099\n"
    ).encode()
    code, out, _ = run_cli("verify", str(_written(files, tmp_path / "broken")), "--timeout", "8")
    assert code == 1
    assert "FAIL bgp sessions: 30 of 32 session ends Established" in out
    assert (
        "p0-su0-r0-leaf swp5 -> p0-spine0 (10.0.0.0, AS 4201000000): configured with remote-as 4200000099, "
        "the design says 4201000000"
    ) in out
    assert "p0-spine0 swp1 -> p0-su0-r0-leaf (10.0.0.1, AS 4200000000): " in out
    assert "failure injection: skipped because the healthy fabric did not converge" in out
    assert out.rstrip().splitlines()[-1].startswith("result: FAIL")


@needs(FRR_LAB)
def test_verify_on_a_signed_folder_whose_config_logs_outside_the_lab_changes_nothing_outside(tmp_path: Path) -> None:
    """The issue's run, with the edit signed into the manifest: a leaf's frr.conf ends with ``log file`` lines for
    the machine's /tmp and /etc/frr. Before the walls, verify passed and FRR created both files on the machine
    (issue: Hardening). Now the line for /tmp is taken in the router's private /tmp, the one for /etc/frr is refused
    by the private /etc/frr (``configs loaded`` names it), and /tmp and /etc/frr of the machine are as they were."""
    token = token_hex(4)
    log, etc = Path(f"/tmp/dv-{token}.log"), Path(f"/etc/frr/dv-{token}.log")
    files = built_files()
    files["configs/frr/p0-su0-r0-leaf.conf"] += f"log file {log} debugging\n".encode()
    files["configs/frr/p0-su1-r0-leaf.conf"] += f"log file {etc} debugging\n".encode()
    before = _snapshot(etc.parent)
    try:
        code, out, _ = run_cli("verify", str(_written(files, tmp_path / "out")), "--no-failures", "--timeout", "30")
        assert not log.exists() and _snapshot(etc.parent) == before
        assert code == 1 and "FAIL configs loaded: 5 of 6 routers took their frr.conf" in out, out
        assert f"p0-su1-r0-leaf: vtysh exit 13: can't open logfile {etc}" in out
        assert "PASS bgp sessions" in out and "PASS kernel routes" in out
    finally:
        log.unlink(missing_ok=True)
        etc.unlink(missing_ok=True)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@needs(AS_ROOT)
def test_the_sandbox_leaves_only_the_routers_folder_writable(tmp_path: Path) -> None:
    """What the lab starts sees the machine read-only, with private tmpfs over /tmp, /var, /run and /etc/frr and a
    /dev of five memory devices: a shell started as a router's daemon (as root, which no daemon stays) writes its
    router's folder, which the machine sees, and otherwise only the private tmpfs (the path to the folder is made
    again there), which it does not."""
    token = token_hex(4)
    folder = tmp_path / "p0-spine0"
    folder.mkdir()
    targets = [Path(where) / f"dv-{token}" for where in ("/etc", "/tmp", "/var/tmp", "/run", "/dev", tmp_path)]
    script = "".join(f"(echo x > {target}) 2>/dev/null && echo wrote {target}; " for target in targets)
    script += f"echo x > {folder}/inside && ls /dev && hostname"
    try:
        result = subprocess.run(
            [
                "unshare",
                "--uts",
                "--mount",
                "--",
                sys.executable,
                "-I",
                "-S",
                str(lab_module.SANDBOX),
                "start",
                "p0-spine0",
                str(folder),
                json.dumps([["sh", "-c", script]]),
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.split("\n") == [
            *(f"wrote {target}" for target in targets[1:4] + targets[5:]),
            "fd",
            "full",
            "null",
            "random",
            "stderr",
            "stdin",
            "stdout",
            "urandom",
            "zero",
            "p0-spine0",
            "",
        ]
        assert [target for target in targets if target.exists()] == []
        assert (folder / "inside").read_text() == "x\n"
    finally:
        for target in targets:
            target.unlink(missing_ok=True)


@needs(FRR_LAB)
def test_a_signed_config_that_writes_outside_the_lab_leaves_the_machine_unchanged() -> None:
    """A config that matches its manifest can still ask FRR to write anywhere: ``log file PATH`` makes zebra and
    bgpd append to PATH, and after an ``end`` line vtysh runs its own ``output file PATH`` (FRR 8.4's vtysh, run
    by ``vtysh -b``). Network namespaces share the machine's files, so before the lab had walls the log file was
    created in the machine's /etc/frr and /tmp, and vtysh, run as root, created any file (issue: Hardening). Now
    FRR takes the lines inside the lab's own view: zebra reports the log file and it holds zebra's lines in the
    router's private /tmp, the private /etc/frr refuses it, and the machine's paths stay absent."""
    token = token_hex(4)
    log, output, etc = Path(f"/tmp/dv-{token}.log"), Path(f"/tmp/dv-{token}.out"), Path(f"/etc/frr/dv-{token}.log")
    files = built_files()
    files["configs/frr/p0-su0-r0-leaf.conf"] += f"log file {log} debugging\nend\noutput file {output}\n".encode()
    files["configs/frr/p0-su1-r0-leaf.conf"] += f"log file {etc} debugging\n".encode()
    lab = topology(files)
    leaf = named(lab, "p0-su0-r0-leaf")
    try:
        with Lab(lab, lambda _: None) as running:
            refused = running.load_configs()
            assert [path for path in (log, output, etc) if path.exists()] == []
            logging = subprocess.run(
                [*running.vtysh(leaf), "-c", "show logging"], capture_output=True, text=True, check=True
            ).stdout
            zebra = (running.dirs[leaf] / "zebra.pid").read_text().split()[0]
            inside = subprocess.run(["nsenter", "-t", zebra, "-m", "cat", str(log)], capture_output=True, text=True)
        assert f"filename {log}" in logging and "ZEBRA" in inside.stdout, (logging, inside)
        assert [problem.split(":")[0] for problem in refused] == ["p0-su1-r0-leaf"], refused
        assert f"can't open logfile {etc}" in refused[0]
    finally:
        for path in (log, output, etc):
            path.unlink(missing_ok=True)


@needs(FRR_LAB)
def test_interrupt_tears_down_every_namespace_and_daemon() -> None:
    lab = topology(built_files())
    with pytest.raises(KeyboardInterrupt), Lab(lab, lambda _: None) as running:
        pids = [int((folder / "bgpd.pid").read_text()) for folder in running.dirs]
        assert set(running.namespaces) <= set(_namespaces())
        hostnames = [
            subprocess.run(
                ["nsenter", "-t", str(pid), "-u", "hostname"], capture_output=True, text=True, check=True
            ).stdout.strip()
            for pid in pids
        ]
        assert hostnames == [router.name for router in lab.routers]
        raise KeyboardInterrupt
    assert not set(running.namespaces) & set(_namespaces())
    assert not running.folder.exists()
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)


@needs(FRR_LAB)
def test_teardown_stops_daemons_whose_pid_files_were_overwritten() -> None:
    """The pid files sit in the router's folder, which FRR may write (``dump bgp all PATH`` truncates PATH, and
    ``/proc/self/fd`` reaches the pid file bgpd keeps open), so teardown does not rest on them: it stops every
    process in the run's namespaces. Before, a daemon whose pid file no longer held its pid kept running."""
    lab = topology(built_files())
    with Lab(lab, lambda _: None) as running:
        pids = [
            int((folder / f"{daemon}.pid").read_text().split()[0])
            for folder in running.dirs
            for daemon in ("zebra", "bgpd")
        ]
        for folder in running.dirs:
            (folder / "bgpd.pid").write_bytes(b"\x00\x00\x00\x0cMRT")
    alive = [pid for pid in pids if Path(f"/proc/{pid}").exists()]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert alive == []


@needs(FRR_LAB)
def test_orphan_sweep_removes_only_labs_whose_owner_is_gone(tmp_path: Path) -> None:
    orphan, live = lab_module.RUN_ROOT / "0rphan", lab_module.RUN_ROOT / "1ive00"
    for folder, owner in ((orphan, _dead_pid()), (live, os.getpid())):
        folder.mkdir(parents=True)
        (folder / "owner").write_text(str(owner))
        subprocess.run(["ip", "netns", "add", f"dv-{folder.name}-x"], check=True)
    try:
        sweep_orphans(lambda _: None)
        assert "dv-0rphan-x" not in _namespaces() and not orphan.exists()
        assert "dv-1ive00-x" in _namespaces() and live.exists()
    finally:
        subprocess.run(["ip", "netns", "del", "dv-1ive00-x"], check=False)
        shutil.rmtree(live, ignore_errors=True)


def _namespaces() -> list[str]:
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    return [line.split(" ")[0] for line in listing.splitlines()]


def _dead_pid() -> int:
    process = subprocess.Popen(["true"])
    process.wait()
    return process.pid


@needs(FRR_LAB)
def test_a_slice_runs_one_pod_whole_and_lists_what_it_leaves_out() -> None:
    code, out, err = run_cli(
        "verify", str(INTENTS / "verify-slice.yaml"), "--slice", "--no-failures", "--format", "json"
    )
    report = json.loads(out)
    assert code == 0, out + err
    assert report["coverage"].startswith("slice: pod 0 of plane 0 complete (4 leaves)")
    assert report["coverage"].endswith("12 of 14 switches (6 leaves, 4 spines, 2 super-spines)")
    # the pod-1 spines' sessions to the 2 leaves outside the slice: 2 spines x 2 leaves, both ends listed once
    outside = [item for item in report["not_covered"] if item.endswith("peer outside the slice")]
    assert len(outside) == 4 and all("p0-su3-" in item for item in outside)
    routes = next(check for check in report["checks"] if check["name"] == "kernel routes")
    assert routes["passed"] and routes["summary"].startswith("12 of 12 routers")


def test_sampled_pairs_stay_in_one_plane_and_reach_the_next_pod() -> None:
    two_planes = skeleton_of(build_design(servers=64, server="dgx-b300"))
    assert {two_planes.routers[leaf].plane for leaf in two_planes.leaves()} == {0, 1}
    pairs = run_module.sample_pairs(two_planes)
    assert pairs and all(two_planes.routers[b].plane == 0 for _, b in pairs)
    three_tier = skeleton(512)
    (a, same), (_, other) = run_module.sample_pairs(three_tier)
    assert three_tier.routers[same].pod == three_tier.routers[a].pod == 0 and three_tier.routers[other].pod == 1


def test_two_tier_slice_keeps_every_spine_and_two_scalable_units() -> None:
    design = sized(128)  # 4 scalable units of 8 leaves, 16 spines
    part = skeleton_of(design, whole=False)
    assert sorted({router.su for router in part.routers if router.role == "leaf"}) == [0, 1]
    assert sum(router.role == "leaf" for router in part.routers) == 2 * design.plan.rails
    assert sum(router.role == "spine" for router in part.routers) == design.plan.spines_per_plane
    assert part.coverage == (
        "slice: scalable unit(s) 0, 1 of plane 0 with every spine; 32 of 48 switches (16 leaves, 16 spines)"
    )
    _, width = widths_to(part, part.leaves()[0])
    assert width[part.leaves()[-1]] == design.plan.leaf_uplinks


@pytest.fixture(scope="module")
def two_tier_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The 2-tier lab's build, written once for the module's runs of the command line."""
    folder = tmp_path_factory.mktemp("verify") / "out"
    write(built_files(), folder)
    return folder


@needs(FRR_LAB)
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGHUP, signal.SIGQUIT])
def test_ctrl_c_hangup_or_quit_on_the_command_line_tears_the_lab_down_and_exits_130(
    number: int, two_tier_folder: Path
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "designer.cli", "verify", str(two_tier_folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert process.stderr is not None
    prefix = ""
    for line in process.stderr:
        if "namespaces (dv-" in line:
            prefix = line.split("namespaces (", 1)[1].split("*", 1)[0]
        if "loading" in line:
            break
    assert prefix and any(name.startswith(prefix) for name in _namespaces())
    process.send_signal(number)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "interrupted; the lab was torn down" in err
    assert not any(name.startswith(prefix) for name in _namespaces())
    assert not (lab_module.RUN_ROOT / prefix.removeprefix("dv-").rstrip("-")).exists()

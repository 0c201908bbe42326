"""InfiniBand designs (``fabric.technology: infiniband``) and the ``opensm`` target: what a build writes (golden files
of an NDR SuperPOD-shaped design, no addressing, the servers' NCCL environment), and the generated ``opensm.conf``
and ``partitions.conf`` run as written by the real OpenSM on the fabric the design describes as ibsim simulates it,
read back with infiniband-diags.

Sources: OpenSM's option names (``opensm -c FILE`` writes every option; linux-rdma/opensm, opensm/osm_subnet.c), its
partition file format (linux-rdma/opensm, doc/partition-config.txt: P_Keys are 15 bits, 0x7fff the default
partition's, a full member's key read back with the high bit set), its log line "<engine> tables configured on all
switches" (opensm/osm_ucast_mgr.c) and "SUBNET UP"; ``ibroute``, ``smpquery pkeys`` and ``ibnetdiscover`` of
infiniband-diags; NVIDIA's QM97XX user manual (each OSFP cage is 2 logical InfiniBand ports of up to 400G).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest

from designer.backend.sizing import size
from designer.backend.wiring import Device, wire
from designer.cli import main
from designer.infiniband.ibnetdiscover import named, parse
from designer.infiniband.sm_files import ROOTS, design_names, sm_files
from designer.outputs.build import review_files
from designer.outputs.tables import cabling_rows
from designer.readback.built import folder_intent, read_built_design
from designer.render.servers import render_hosts
from designer.verify.subnet import (
    forwarding,
    read_subnet_files,
    run,
    uplink_spread,
    verify_subnet,
)
from tests.conftest import ROOT, check_golden
from tests.helpers import build_text
from tests.prerequisites import IBSIM, needs
from tests.test_growth import cable_ids, cables, devices
from tests.test_infiniband import engine, every_hca_reaches_every_other, simulated
from tests.test_intent_errors import run_cli

GOLDEN = ROOT / "tests" / "golden" / "superpod-ndr"
SUPERPOD = ROOT / "intents" / "superpod-ndr.yaml"


def built_folder(tmp_path_factory: pytest.TempPathFactory, intent: Path) -> Path:
    folder = tmp_path_factory.mktemp("opensm") / intent.stem
    assert main(["build", str(intent), "-o", str(folder)]) == 0
    return folder


@pytest.fixture(scope="module")
def superpod(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """intents/superpod-ndr.yaml built: 128 DGX H100 in 4 scalable units, 32 QM9790 leaves and 16 spines."""
    return built_folder(tmp_path_factory, SUPERPOD)


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/intents/small-ib.yaml built: 4 leaves with 4 HCAs and 4 uplinks each, 2 spines, one partition."""
    return built_folder(tmp_path_factory, ROOT / "tests" / "intents" / "small-ib.yaml")


@pytest.mark.parametrize(
    "relative",
    ["configs/opensm/opensm.conf", "configs/opensm/partitions.conf", "servers/su0-srv0/nccl.env", "summary.md"],
)
def test_an_ndr_design_writes_its_golden_files(superpod: Path, relative: str, update_golden: bool) -> None:
    check_golden(GOLDEN / relative, (superpod / relative).read_text(), update_golden)


def test_an_infiniband_design_has_no_addressing_and_its_servers_only_nccl(superpod: Path) -> None:
    """No addresses, ASNs or switch configurations: the subnet manager's two files; each server gets only its NCCL
    environment, its HCAs in rail order (the DGX H100's RDMA devices of its OSFP ports, in the catalog)."""
    files = {str(path.relative_to(superpod)) for path in superpod.rglob("*") if path.is_file()}
    assert not {"addressing.csv", "asn.csv"} & files
    assert sorted(path for path in files if path.startswith("configs/")) == [
        "configs/opensm/opensm.conf",
        "configs/opensm/partitions.conf",
    ]
    servers = [path for path in files if path.startswith("servers/")]
    assert len(servers) == 128 and all(path.endswith("/nccl.env") for path in servers)
    nccl = (superpod / "servers" / "su3-srv31" / "nccl.env").read_text()
    assert 'NCCL_IB_HCA="=mlx5_0:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_9:1,mlx5_10:1,mlx5_11:1"' in nccl
    assert "GID_INDEX" not in nccl and "NCCL_IB_TC" not in nccl  # RoCE's: an IB HCA is reached by its LID
    summary = (superpod / "summary.md").read_text()
    assert "## Address pools" not in summary and "## ASNs" not in summary
    assert "| `configs/opensm/partitions.conf` | partitions.conf | partitions.conf |" in summary


NOT_ON_INFINIBAND = frozenset(
    {"loopback", "loopbacks", "asn", "asns", "announces", "bgp", "load_balancing", "qos", "headroom"}
    | {"underlay", "p2p_subnets", "pools", "subnet"}
)
"""What design.json says of an addressed, BGP-routed, lossless Ethernet fabric only."""


def keys_of(value: object) -> set[str]:
    """Every key of every object inside ``value``."""
    if isinstance(value, dict):
        return set(value).union(*map(keys_of, value.values()))
    if isinstance(value, list):
        return set().union(*map(keys_of, value))
    return set()


def test_an_infiniband_design_json_has_no_addresses_asns_or_bgp(
    superpod: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The allocation stage allocates nothing for an InfiniBand fabric and the switches have no device model, so
    design.json has no loopback, ASN, announcement, BGP, QoS or pool, and a cable's ends are only (device, port):
    the subnet manager gives every port a LID. The folder still reads back: ``designer diff`` of it and a copy finds
    nothing changed."""
    design = read_built_design(superpod)
    assert not keys_of(design) & NOT_ON_INFINIBAND
    assert {len(row["a"]) for row in design["links"]} == {len(row["z"]) for row in design["links"]} == {2}
    switch = next(row for row in design["devices"] if row["role"] == "leaf")
    assert set(switch) == {"name", "role", "model", "plane", "pod", "su", "rail", "index", "rack", "unit"}
    shutil.copytree(superpod, tmp_path / "copy")
    monkeypatch.chdir(superpod.parent)
    code, out, _ = run_cli("diff", superpod.name, str(tmp_path / "copy"), "--fail-on", "existing-change")
    assert code == 0 and "### Existing items changed: 0" in out and "ASNs" not in out


QUANTUM_2_PORT = re.compile(r"1/([1-9]|[12][0-9]|3[0-2])/[12]")
"""A Quantum-2 port as NVIDIA names it, 1/<cage 1-32>/<port 1-2> (NVIDIA MLNX-OS User Manual, InfiniBand Interface:
Quantum-2 systems add the cage level, 2 ports a cage, "interface ib 1/3/1 and interface ib 1/3/2" being ports 1 and
2 of cage 3)."""


def test_an_ndr_design_names_its_switch_ports_as_nvidia_does(superpod: Path) -> None:
    """cabling.csv and design.json's os_ports give a QM9790's ports as NVIDIA names them: every switch end is
    1/<cage>/<port>, a leaf's 64 ports each once (its first HCA on 1/1/1), never the designer's own swpNsL, which
    stays design.json's key of a cable's end."""
    rows = list(csv.DictReader((superpod / "cabling.csv").read_text().splitlines()))
    ends = [(row[f"{end}_device"], row[f"{end}_port"]) for row in rows for end in "az"]
    switch_ports = [port for device, port in ends if not device.startswith("su")]
    assert len(switch_ports) == 3 * 1024 and all(QUANTUM_2_PORT.fullmatch(port) for port in switch_ports)
    assert (rows[0]["a_device"], rows[0]["a_port"], rows[0]["z_port"]) == ("p0-su0-r0-leaf", "1/1/1", "nic0")
    leaf = [port for device, port in ends if device == "p0-su31-r7-leaf" or device == "p0-su3-r7-leaf"]
    assert sorted(leaf) == sorted(f"1/{cage}/{port}" for cage in range(1, 33) for port in (1, 2))
    first = read_built_design(superpod)["links"][0]
    assert first["a"] == ["p0-su0-r0-leaf", "swp1s0"] and first["os_ports"] == {"opensm": ["1/1/1", "nic0"]}


def test_an_ibnetdiscover_port_number_is_read_as_nvidias_port_name(superpod: Path) -> None:
    """ibnetdiscover numbers a Quantum-2's 64 ports 1 to 64, two a cage in cage order: port 1 is 1/1/1, 2 is 1/1/2,
    64 is 1/32/2; a number the switch does not have stays a number. An HCA's port stays nic<i>."""
    design = design_names(superpod)
    names = [design.port_name("p0-su0-r0-leaf", number) for number in (1, 2, 3, 63, 64, 65)]
    assert names == ["1/1/1", "1/1/2", "1/2/1", "1/32/1", "1/32/2", "65"]
    assert design.reported(("p0-spine15", "swp32s1")) == ("p0-spine15", "1/32/2")
    assert design.reported(("su0-srv0", "nic0")) == ("su0-srv0", "nic0")


@needs(IBSIM)
def test_the_audit_of_a_discovered_ndr_fabric_names_quantum_2_ports(superpod: Path, tmp_path: Path) -> None:
    """The NDR design under ibsim, discovered by the real ibnetdiscover: as designed the audit matches every cable;
    with the spine ends of two leaves' first uplinks swapped, it names the two cables by NVIDIA's port names at both
    switches (the leaves' 1/17/1, where each leaf's uplinks start, and the spines' ports)."""
    design = design_names(superpod)
    with simulated(design, tmp_path) as (env, _):
        (tmp_path / "fabric.txt").write_text(run(env, "ibnetdiscover"))
    code, out, err = run_cli("audit", str(superpod), str(tmp_path / "fabric.txt"))
    assert (code, err, out.splitlines()[-1]) == (0, "", "the cabling matches the design")
    first, second = ("p0-su0-r0-leaf", "swp17s0"), ("p0-su0-r1-leaf", "swp17s0")
    first_peer, second_peer = design.peers[first], design.peers[second]
    swapped = {**design.peers, first: second_peer, second_peer: first, second: first_peer, first_peer: second}
    (tmp_path / "swapped").mkdir()
    with simulated(dataclasses.replace(design, peers=swapped), tmp_path / "swapped") as (env, _):
        (tmp_path / "swapped.txt").write_text(run(env, "ibnetdiscover"))
    code, out, err = run_cli("audit", str(superpod), str(tmp_path / "swapped.txt"))
    assert (code, err) == (1, "")
    miswired = {line.split(" (designed")[0] for line in out.splitlines() if line.startswith("miswired: ")}
    assert all(QUANTUM_2_PORT.fullmatch(design.reported(peer)[1]) for peer in (first_peer, second_peer))
    assert miswired == {
        f"miswired: {' '.join(design.reported(second_peer))} -- p0-su0-r0-leaf 1/17/1",
        f"miswired: {' '.join(design.reported(first_peer))} -- p0-su0-r1-leaf 1/17/1",
    }


def test_summary_says_the_quantum_2_power_is_an_estimate(superpod: Path) -> None:
    """NVIDIA's published QM9700/QM9790 power could not be cited (designer/catalog.yaml says where it was looked
    for): summary.md names the model whose power is the catalog's planning estimate, rather than pass it off as the
    vendor's figure; a design of switches whose power the catalog does not flag says nothing of it."""
    summary = (superpod / "summary.md").read_text()
    assert "The power of nvidia-qm9790 is the catalog's planning estimate" in summary
    assert "planning estimate" not in (ROOT / "outputs" / "reference-h100-512" / "summary.md").read_text()


def test_the_published_superpod_counts_hold(superpod: Path) -> None:
    """NVIDIA's DGX SuperPOD scalable unit: 32 DGX, one QM9700-class leaf per rail (8), every leaf's 32 downlinks
    matched by 32 uplinks; four SUs in two tiers need 16 spines of 64 ports."""
    summary = (superpod / "summary.md").read_text()
    assert "| leaf | 32 | nvidia-qm9790 (32 x 800G) | 64 | 2 x 400G |" in summary
    assert "| spine | 16 | nvidia-qm9790 (32 x 800G) | 64 | 2 x 400G |" in summary
    assert "| Scalable units | 4 (designer: 32 servers a leaf group, one leaf per rail and plane) |" in summary


# ---- the generated files under the real OpenSM ------------------------------------------------------------------


def sweep(env: dict[str, str], folder: Path, conf: Path, log: Path) -> str:
    """One sweep of OpenSM (``opensm -o``) with ``conf`` and the build's partitions.conf (``-P``: the file
    opensm.conf names by its installed path); the routing engine it routed with, once the subnet is up."""
    partitions = folder / "configs" / "opensm" / "partitions.conf"
    routed = engine(env, conf, log, "-P", str(partitions))
    assert "SUBNET UP" in log.read_text()
    return routed


@needs(IBSIM)
def test_the_generated_configuration_routes_the_fabric_with_ftree(small: Path, tmp_path: Path) -> None:
    """As written: ftree, the subnet up, every HCA a LID, every leaf's forwarding table spreading the other leaves'
    HCAs evenly over all its uplinks, every HCA in the intent's partition as a full member, every pair routed."""
    design = design_names(small)
    conf = small / "configs" / "opensm" / "opensm.conf"
    with simulated(design, tmp_path) as (env, _):
        assert sweep(env, small, conf, tmp_path / "opensm.log") == "ftree"
        peers, hca_lids, tables = forwarding(env)
        assert len(hca_lids) == 16 and len(set(hca_lids.values())) == 16
        spread = uplink_spread(peers, hca_lids, tables)
        assert len(spread) == 4  # the leaves
        for leaf, counts in spread.items():
            assert sorted(counts.values()) == [3, 3, 3, 3], (hex(leaf), counts)  # 12 remote HCAs on 4 uplinks
        for lid in sorted(hca_lids.values()):
            table = run(env, "smpquery", "pkeys", str(lid))
            assert re.search(r"0xffff 0x8002", table), table  # default and training (0x0002), full members
        every_hca_reaches_every_other(env, design)


@needs(IBSIM)
def test_with_the_root_guid_file_ftree_outlives_a_spine(small: Path, tmp_path: Path) -> None:
    """The generated opensm.conf with its root_guid_file line uncommented, pointing at the file written from the
    discovery: after a spine fails the re-sweep is still ftree and every pair is still routed."""
    design = design_names(small)
    with simulated(design, tmp_path) as (env, console):
        roots = sm_files(named(parse("ibnetdiscover", run(env, "ibnetdiscover")), design), design)[ROOTS]
        (tmp_path / ROOTS).write_text(roots)
        text = (small / "configs" / "opensm" / "opensm.conf").read_text()
        assert "# root_guid_file /etc/opensm/root_guids.conf\n" in text
        conf = tmp_path / "with-roots.conf"
        conf.write_text(
            text.replace("# root_guid_file /etc/opensm/root_guids.conf", f"root_guid_file {tmp_path / ROOTS}")
        )
        assert sweep(env, small, conf, tmp_path / "whole.log") == "ftree"
        console('Unlink "p0-spine1"')
        assert sweep(env, small, conf, tmp_path / "failed.log") == "ftree"
        every_hca_reaches_every_other(env, design)


@needs(IBSIM)
def test_the_ndr_superpod_is_routed_and_balanced(superpod: Path, tmp_path: Path) -> None:
    """The whole NDR design (48 switches, 1,024 HCAs, within ibsim's 256 switches and 13,312 ports): ftree, every
    leaf's 992 remote HCAs spread 31 to each of its 32 uplinks."""
    design = design_names(superpod)
    with simulated(design, tmp_path) as (env, _):
        assert sweep(env, superpod, superpod / "configs" / "opensm" / "opensm.conf", tmp_path / "opensm.log") == "ftree"
        peers, hca_lids, tables = forwarding(env)
        assert len(hca_lids) == 1024
        spread = uplink_spread(peers, hca_lids, tables)
        assert len(spread) == 32
        assert {count for counts in spread.values() for count in counts.values()} == {31}
        assert all(len(counts) == 32 for counts in spread.values())


def superpod_of(servers: int) -> str:
    """intents/superpod-ndr.yaml with ``servers`` built now, planned for its 128 (growth by scalable unit)."""
    text = SUPERPOD.read_text().replace("  servers: 128\n", f"  servers: {servers}\n") + "growth: {max_servers: 128}\n"
    assert f"servers: {servers}" in text
    return text


@pytest.mark.parametrize(("old", "new"), [(32, 64), (64, 128)])
def test_an_infiniband_fabric_grows_by_scalable_units_and_only_adds(old: int, new: int) -> None:
    """Every existing switch and server keeps its name, rack and unit, every cable its ends and ID, every cabling
    row stays; the subnet manager's files do not change (nothing in them counts the fabric) and an existing server's
    NCCL environment neither."""
    before, after = build_text(superpod_of(old)), build_text(superpod_of(new))
    devices_before, cables_before = devices(before), cables(before)
    assert {name: row for name, row in devices(after).items() if name in devices_before} == devices_before
    assert {end: link for end, link in cables(after).items() if end in cables_before} == cables_before
    assert set(cable_ids(before).items()) <= set(cable_ids(after).items())
    assert set(map(tuple, cabling_rows(before)[1])) <= set(map(tuple, cabling_rows(after)[1]))
    files_before, files_after = (dict(review_files(design, lambda _: None)) for design in (before, after))
    for path in ("configs/opensm/opensm.conf", "configs/opensm/partitions.conf"):
        assert files_before[path] == files_after[path]
    assert render_hosts(before.hosts[:8]) == render_hosts(after.hosts[:8])


# ---- designer verify of an InfiniBand design ---------------------------------------------------------------------


@needs(IBSIM)
def test_verify_runs_the_design_under_ibsim_and_opensm(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(small), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(check["phase"], check["name"], check["passed"]) for check in report["checks"]] == [
        ("healthy", "subnet up", True),
        ("healthy", "every HCA has a LID", True),
        ("healthy", "leaf forwarding tables balanced over the uplinks", True),
        ("p0-spine0 down", "re-sweep with the root GUID file", True),
        ("p0-spine0 down", "every HCA pair routed", True),
    ]
    assert report["coverage"] == "the whole fabric: 6 switches, 16 HCAs"


@needs(IBSIM)
def test_verify_fails_a_configuration_that_does_not_route_with_ftree(small: Path) -> None:
    """The same fabric with opensm.conf asking for up/down routing: the subnet comes up, but not by ftree, in both
    sweeps, and the report says so (exit 1 from the command)."""
    files = read_subnet_files(small)
    files["configs/opensm/opensm.conf"] = files["configs/opensm/opensm.conf"].replace(
        b"routing_engine ftree", b"routing_engine updn"
    )
    report = verify_subnet("small-ib", design_names(small), devices_of(small), files)
    assert not report.passed
    assert [check.problems for check in report.failed()] == [("OpenSM routed with updn, not ftree",)] * 2


@needs(IBSIM)
@pytest.mark.parametrize(
    ("intent", "limits", "coverage", "left"),
    [
        (
            "small-ib",
            (4, 1000),
            "a slice: 4 switches, 8 HCAs",
            ["scalable units 1 to 1: beyond ibsim's 4 switches and 1,000 ports"],
        ),
        (
            "small-ib-3tier",
            (8, 1000),
            "a slice: 8 switches, 16 HCAs",
            ["pods 1 to 1 and the super-spines: beyond ibsim's 8 switches and 1,000 ports"],
        ),
    ],
)
def test_a_fabric_beyond_ibsims_limits_is_verified_as_a_slice(
    small: Path, tmp_path: Path, intent: str, limits: tuple[int, int], coverage: str, left: list[str]
) -> None:
    """With limits this small, the 2-tier fabric is cut to its first scalable unit under every spine, the 3-tier
    one to pod 0 without the super-spines: each still a fat tree that OpenSM routes with ftree, every check passing,
    and the report names what was left out."""
    folder = small if intent == "small-ib" else built_3tier_ib(tmp_path)
    report = verify_subnet(intent, design_names(folder), devices_of(folder), read_subnet_files(folder), limits)
    assert (report.coverage, report.not_covered) == (coverage, left)
    assert report.passed, report.failed()


def built_3tier_ib(tmp_path: Path) -> Path:
    """tests/intents/small-3tier.yaml (2 pods of 4 leaves and 4 spines, 4 super-spines) as an InfiniBand fabric
    (without its qos section, which only an Ethernet fabric has)."""
    text = (ROOT / "tests" / "intents" / "small-3tier.yaml").read_text().split("qos:")[0]
    intent = tmp_path / "small-ib-3tier.yaml"
    intent.write_text(text.replace("fabric:\n", "fabric:\n  technology: infiniband\n", 1))
    folder = tmp_path / "built"
    assert main(["build", str(intent), "-o", str(folder)]) == 0
    return folder


def devices_of(folder: Path) -> tuple[Device, ...]:
    """The devices of the fabric built in ``folder``."""
    intent = folder_intent(folder)
    assert intent is not None
    return wire(intent, size(intent)).devices


def test_check_and_plan_of_an_infiniband_design_leave_out_what_it_has_not(superpod: Path) -> None:
    """``designer check`` of the folder and of the intent list only the checks that prove something of an
    InfiniBand fabric (no addressing, ASN, BGP session, QoS or hashing check), and ``designer plan`` says who routes
    it instead of counting /31s and ASNs."""
    for source in (superpod, SUPERPOD):
        code, out, _ = run_cli("check", str(source))
        outcomes = [line.split(":")[0] for line in out.splitlines() if line.endswith(": passed")]
        assert code == 0 and out.splitlines()[-1] == "superpod-ndr: 9 passed, 0 failed, 0 with warnings"
        assert not {"addressing", "asn", "sessions", "qos", "load-balancing"} & set(outcomes)
        assert {"oversubscription", "bisection-bandwidth", "failure-impact", "cable-reach"} <= set(outcomes)
    code, out, _ = run_cli("plan", str(SUPERPOD))
    assert code == 0 and "routed by the subnet manager (opensm): no /31s, ASNs or BGP" in out


@needs(IBSIM)
def test_validate_configs_reads_the_opensm_files_with_opensms_own_parsers(superpod: Path, tmp_path: Path) -> None:
    """The build's files pass OpenSM's option and partition parsers; an unknown option, a value out of range, an
    unknown partition flag and a line that defines no partition are each named as OpenSM words them."""
    code, out, _ = run_cli("validate-configs", str(superpod))
    assert code == 0, out
    assert out.splitlines() == [
        "ok      configs/opensm/opensm.conf (opensm)",
        "ok      configs/opensm/partitions.conf (opensm)",
    ]
    folder = tmp_path / "edited"
    shutil.copytree(superpod, folder)
    with (folder / "configs" / "opensm" / "opensm.conf").open("a") as conf:
        conf.write("routing_engin ftree\nlmc 9\n")
    with (folder / "configs" / "opensm" / "partitions.conf").open("a") as partitions:
        partitions.write("storage=0x0005, ipob : ALL_CAS=full ;\nnot a partition\n")
    code, out, _ = run_cli("validate-configs", str(folder))
    assert code == 1
    assert 'Unrecognized token: "routing_engin"; Invalid Cached Option Value:lmc = 9' in out
    assert "PARSE WARN: line 5: unrecognized partition flag 'ipob' - ignored" in out
    assert "PARSE ERROR: line 6: no partition definition found" in out


@pytest.mark.parametrize(
    ("command", "said"),
    [
        (["export", "avd", "{folder}", "-o", "{target}"], "AVD and ANTA take Ethernet fabrics of EOS switches"),
        (["sync", "nautobot", "{folder}", "--url", "http://127.0.0.1:9", "--token", "t", "--dry-run"], "sync for now"),
    ],
)
def test_what_takes_ethernet_designs_only_refuses_an_infiniband_one(
    superpod: Path, tmp_path: Path, command: list[str], said: str
) -> None:
    """Exit 2 with the reason, and nothing written."""
    target = tmp_path / "export"
    words = [word.format(folder=superpod, target=target) for word in command]
    code, out, err = run_cli(*words)
    assert (code, out) == (2, "") and said in err, err
    assert not target.exists()

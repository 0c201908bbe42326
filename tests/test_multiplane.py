"""ConnectX-8 multiplane: one NIC port serving several planes (``compute.multiplane``) in NVIDIA's two host modes.

Sources the tests hold the code to (designer/catalog.yaml cites each): NVIDIA Enterprise RA "NVL72 AI factory"
(GB300: 4 ConnectX-8 800G per tray, each splitting into 2 planes of 400G); NVIDIA Network Operator 26.7, "Software
Multiplane Spectrum-X Quick Start" (swplb: each SuperNIC split into one PF per plane, the software stack balancing
the planes; 2 planes on B300 and GB300, 4 on B300 only) and "Hardware Multiplane Spectrum-X Quick Start" (hwplb: a
NIC LAG and hardware plane load balancing, each rail keeping one address pool); NCCL's environment variables
documentation (``NCCL_IB_MERGE_NICS`` fuses the ports of one NIC into one NCCL device).
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

from designer.backend.allocate import ip
from designer.backend.wiring import SERVER_LEAF
from designer.catalog import catalog
from designer.checks import addressing
from designer.design import Design
from designer.outputs.physical_review import bom_rows
from designer.outputs.summary import summary_markdown
from designer.outputs.tables import addressing_rows, cabling_rows, csv_bytes
from designer.pipeline import build
from designer.render import render_configs
from designer.render.servers import render_hosts
from designer.verify.parsers import check_frr
from tests.conftest import ROOT, check_golden
from tests.helpers import build_text
from tests.prerequisites import VALIDATORS, needs
from tests.test_growth import GAINING, assert_only_added
from tests.test_intent_errors import run_cli
from tests.test_sonic import sonic_configs, sonic_yang

GOLDEN = ROOT / "tests" / "golden"
INTENTS = ROOT / "tests" / "intents"
MODES = ("hwplb", "swplb")
RAILS = 4
"""ConnectX-8 NIC ports of a GB300 compute tray."""


def test_the_catalog_gives_connectx8_its_plane_counts_and_modes() -> None:
    shipped = catalog()
    cx8 = shipped.nics["nvidia-cx8"]
    assert (cx8.speed, cx8.planes, set(cx8.plane_modes)) == (800, (1, 2, 4), {"swplb", "hwplb"})
    assert shipped.nics["nvidia-cx7"].planes == (1,)
    assert shipped.systems["gb300-nvl72"].multiplane == (2,)  # quad plane is B300 only


def test_a_site_system_may_allow_four_planes_of_200g(tmp_path: Path) -> None:
    (tmp_path / "site.yaml").write_text("systems:\n  gb300-nvl72: {multiplane: [2, 4]}\n")
    (tmp_path / "intent.yaml").write_text(
        "name: site\ncatalog: site.yaml\ncompute: {system: gb300-nvl72, systems: 1, multiplane: {planes: 4}}\n"
        "fabric: {leaf: {model: nvidia-sn5600}}\ntargets: [frr]\n"
    )
    code, out, err = run_cli("plan", str(tmp_path / "intent.yaml"), "--format", "json")
    assert (code, err) == (0, ""), err
    plan = json.loads(out)
    assert plan["planes"] == 4 and plan["nic_ports"] == 18 * 4 * 4


@cache
def multiplane(mode: str) -> Design:
    return build(INTENTS / f"gb300-nvl72-{mode}.yaml")


def tray_rows(design: Design, table: str = "cabling") -> list[dict[str, str]]:
    """The rows of cabling.csv (or addressing.csv) that reach the first tray, as column: value."""
    header, rows = {"cabling": cabling_rows, "addressing": addressing_rows}[table](design)
    named = [dict(zip(header, map(str, row), strict=True)) for row in rows]
    column = "z_device" if table == "cabling" else "device"
    return [row for row in named if row[column] == "sys0-tray0"]


@pytest.mark.parametrize("mode", MODES)
def test_a_nic_port_is_one_cable_with_a_link_per_plane(mode: str) -> None:
    design = multiplane(mode)
    assert (design.plan.planes, design.plan.rails, design.plan.link_speed) == (2, RAILS, 400)
    cables: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in tray_rows(design):
        cables[row["cable_id"]].append(row)
    assert sorted(cables) == [f"sys0-tray0/nic{rail}" for rail in range(RAILS)]
    for rail in range(RAILS):
        legs = cables[f"sys0-tray0/nic{rail}"]
        assert sorted((row["plane"], row["a_device"], row["z_port"], row["speed_gbps"]) for row in legs) == [
            ("0", f"p0-su0-r{rail}-leaf", f"nic{rail}s0", "400"),
            ("1", f"p1-su0-r{rail}-leaf", f"nic{rail}s1", "400"),
        ]
        assert len({row["medium"] for row in legs}) == 1  # one cable: one medium


def test_a_nic_port_fanning_out_to_broken_out_leaf_ports_takes_optics_with_one_module() -> None:
    design = multiplane("hwplb")  # 16 x 800G leaves at 400G: each leaf port also fans out to two trays
    devices, links, physical = design.fabric.devices, design.fabric.links, design.physical
    media = physical.medium_names()
    server_media = {media[physical.link_medium[n]] for n, link in enumerate(links) if link[0] == SERVER_LEAF}
    assert server_media <= {"multimode", "singlemode"}  # no copper cable splits at both ends
    bom = {(row[0], row[1]): row[3] for row in bom_rows(physical)[1]}
    assert not [item for _, item in bom if " to 2 x 400G" in item]
    # every port of this design is 800G running 2 x 400G: one twin-port module in each physical port an optical
    # link reaches, a tray's NIC port counted once for its two plane links
    optical_ports = {
        (device, devices[device].place(port)[0])
        for number, (_, upper, upper_port, lower, lower_port) in enumerate(links)
        if media[physical.link_medium[number]] in ("multimode", "singlemode")
        for device, port in ((upper, upper_port), (lower, lower_port))
    }
    modules = sum(count for (category, item), count in bom.items() if item.endswith("twin-port 2 x 400G"))
    assert modules == len(optical_ports)
    nic_ports = {(device, port) for device, port in optical_ports if devices[device].role == "server"}
    assert len(nic_ports) == design.intent.servers * RAILS == 72 * 4


def test_a_nic_port_on_whole_leaf_ports_is_one_splitter_where_copper_reaches() -> None:
    design = multiplane("swplb")  # 32 x 400G leaves: the NIC port's two legs end in whole leaf ports
    physical, links = design.physical, design.fabric.links
    media = physical.medium_names()
    copper_ports = {
        (lower, port % RAILS)
        for number, (tier, _, _, lower, port) in enumerate(links)
        if tier == SERVER_LEAF and media[physical.link_medium[number]] in ("dac", "aec")
    }
    splitters = sum(
        row[3] for row in bom_rows(physical)[1] if row[0] == "cable" and row[1].endswith("800G to 2 x 400G")
    )
    assert copper_ports and splitters == len(copper_ports)


def test_hwplb_gives_a_rail_one_interface_and_the_same_31_in_every_plane() -> None:
    design = multiplane("hwplb")
    host = design.hosts[0]
    assert [nic.name for nic in host.nics] == [f"nic{rail}" for rail in range(RAILS)]
    assert [nic.planes for nic in host.nics] == [(0, 1)] * RAILS
    addresses: dict[str, set[str]] = defaultdict(set)
    for row in tray_rows(design, "addressing"):
        addresses[row["interface"][:4]].add(row["address"])
    for nic in host.nics:  # both plane links of a NIC port hold its one address
        assert addresses[nic.name] == {f"{nic.address}/31"}
    leaves = {config.hostname: config for config in design.configs}
    for nic in host.nics:
        (p0, port0), (p1, port1) = nic.leaves
        gateway = [
            {i.address for i in leaves[leaf].interfaces if i.name == port} for leaf, port in ((p0, port0), (p1, port1))
        ]
        assert gateway[0] == gateway[1] == {f"{nic.gateway}/31"}
    assert not [finding for finding in design.findings if finding.severity == "error"]
    files = render_hosts(design.hosts[:1])
    nccl = files["servers/sys0-tray0/nccl.env"].decode()
    assert 'NCCL_IB_HCA="=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1"' in nccl and "MERGE_NICS" not in nccl


HWPLB_QOS = json.loads((ROOT / "tests/vendor/nvidia-nic/spectrum-x-hwplb-qos.json").read_text())
"""What NVIDIA's NIC Configuration Operator sets on every plane PF and on the first alone with hwplb (Spectrum-X
profile RA3.0, commit 632f129; tests/vendor/nvidia-nic/README.md)."""


def run_nic_qos(script: str, pcis: dict[str, list[str]], tmp_path: Path) -> tuple[list[str], Path]:
    """Run ``script`` against a sysfs tree under ``tmp_path`` holding, per PCI function of ``pcis`` (address: its
    network interfaces), the interface with its ``device`` link, as Linux lays them out; ``mlnx_qos``, ``cma_roce_tos``,
    ``mlxconfig`` and ``mlxreg`` only log their arguments. The logged calls and the tree."""
    sysfs, tools = tmp_path / "sys", tmp_path / "bin"
    (sysfs / "class/net").mkdir(parents=True)
    tools.mkdir()
    for pci, interfaces in pcis.items():
        for interface in interfaces:
            folder = sysfs / "bus/pci/devices" / pci / "net" / interface
            for role in ("roce_np/enable", "roce_rp/enable"):
                (folder / "ecn" / role).mkdir(parents=True)
            (folder / "device").symlink_to("../..")
            (sysfs / "class/net" / interface).symlink_to(folder)
    log = tmp_path / "calls"
    for tool in ("mlnx_qos", "cma_roce_tos", "mlxconfig", "mlxreg"):
        (tools / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> {log}\n')
        (tools / tool).chmod(0o755)
    path = tmp_path / "nic-qos.sh"
    path.write_text(script.replace("/sys/", f"{sysfs}/"))
    env = {"PATH": f"{tools}:/usr/bin:/bin"}
    result = subprocess.run(["sh", str(path)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    return log.read_text().splitlines(), sysfs / "class/net"


def test_hwplb_sets_qos_on_every_plane_pf_and_ecn_on_the_first_as_nvidia_does(tmp_path: Path) -> None:
    """With hwplb a NIC's plane PFs are PCI functions beside the interface's own (PF0 + n), each with a netdev of its
    own: the script finds them from the interface, sets trust DSCP, PFC and the CNP DSCP on each (NVIDIA's operator
    sets them on every port) and the congestion control of both points on PF0 alone (``hwplbFirstPortOnly``)."""
    design = multiplane("hwplb")
    script = render_hosts(design.hosts[:1])["servers/sys0-tray0/nic-qos.sh"].decode()
    nics = design.hosts[0].nics
    pcis = {
        f"0000:{0x1A + 16 * index:02x}:00.{function}": [nic.name if function == 0 else f"pf{index}p{function}"]
        for index, nic in enumerate(nics)
        for function in nic.plane_functions
    }
    calls, net = run_nic_qos(script, pcis, tmp_path)
    pfc = ",".join(HWPLB_QOS["every_plane_pf"]["pfc"])
    for index, nic in enumerate(nics):
        pfs = [nic.name, *(f"pf{index}p{function}" for function in nic.plane_functions[1:])]
        assert len(pfs) == len(nic.planes) == 2
        for pf in pfs:
            assert f"mlnx_qos -i {pf} --trust {HWPLB_QOS['every_plane_pf']['trust-mode']} --pfc {pfc}" in calls
            assert (net / pf / "ecn/roce_np/cnp_dscp").read_text() == f"{design.intent.qos.cnp_dscp}\n"
            enabled = {path.parent.parent.name for path in (net / pf / "ecn").glob("*/enable/*")}
            assert enabled == ({"roce_np", "roce_rp"} if pf == nic.name else set())  # rp_enabled, np_enabled
        assert calls.count(f"cma_roce_tos -d {nic.rdma} -t {design.intent.qos.roce_dscp << 2}") == 1
    assert sorted(HWPLB_QOS["first_plane_pf_only"]) == ["np_enabled", "rp_enabled"]


def test_swplb_sets_qos_and_ecn_on_each_plane_pf_of_its_own(tmp_path: Path) -> None:
    """With swplb each plane PF is an interface of the design with its RDMA device: each gets every setting."""
    design = multiplane("swplb")
    script = render_hosts(design.hosts[:1])["servers/sys0-tray0/nic-qos.sh"].decode()
    nics = design.hosts[0].nics
    assert not any(nic.plane_functions for nic in nics)
    calls, net = run_nic_qos(script, {f"0000:1a:00.{index}": [nic.name] for index, nic in enumerate(nics)}, tmp_path)
    for nic in nics:
        assert sum(call.startswith(f"mlnx_qos -i {nic.name} --trust dscp") for call in calls) == 1
        assert {path.parent.parent.name for path in (net / nic.name / "ecn").glob("*/enable/*")} == {
            "roce_np",
            "roce_rp",
        }


def test_swplb_gives_every_plane_its_own_interface_and_31() -> None:
    design = multiplane("swplb")
    host = design.hosts[0]
    assert len(host.nics) == 2 * RAILS and len({nic.address for nic in host.nics}) == 2 * RAILS
    assert [(nic.planes, nic.rail) for nic in host.nics] == [((p,), r) for p in range(2) for r in range(RAILS)]
    nccl = render_hosts(design.hosts[:1])["servers/sys0-tray0/nccl.env"].decode()
    assert "NCCL_IB_MERGE_NICS=1" in nccl and nccl.count("mlx5_") == 2 * RAILS
    assert not [finding for finding in design.findings if finding.severity == "error"]


def test_hwplb_is_the_default_and_halves_the_server_pool() -> None:
    text = (INTENTS / "gb300-nvl72-hwplb.yaml").read_text()
    default = build_text(text.replace(", mode: hwplb}", "}"))
    assert default.intent.server.multiplane is not None and default.intent.server.multiplane.mode == "hwplb"
    swplb = build_text(text.replace("mode: hwplb", "mode: swplb"))
    assert default.allocation.server_p2p.planned * 2 == swplb.allocation.server_p2p.planned


@pytest.mark.parametrize("mode", MODES)
def test_multiplane_designs_match_the_golden_files(mode: str, update_golden: bool) -> None:
    design = multiplane(mode)
    folder = GOLDEN / f"gb300-nvl72-{mode}"
    text = summary_markdown(design)
    section = text[text.index("## Systems, NVLink and NICs") : text.index("## Switches")]
    check_golden(folder / "summary-hardware.md", section, update_golden)
    check_golden(folder / "bom.csv", csv_bytes(*bom_rows(design.physical)).decode(), update_golden)
    header, _ = cabling_rows(design)
    rows = [[row[column] for column in header] for row in tray_rows(design)]
    check_golden(folder / "cabling-sys0-tray0.csv", csv_bytes(header, rows).decode(), update_golden)
    for relative, data in render_hosts(design.hosts[:1]).items():
        check_golden(folder / relative, data.decode(), update_golden)


@needs(*VALIDATORS)
def test_the_leaves_of_both_planes_pass_sonic_yang_and_frr(tmp_path: Path) -> None:
    """Each plane's leaves carry the same server /31s (hwplb); every switch's config_db.json validates against
    SONiC's YANG models (designer/data/sonic-yang, sonic-buildimage) and the first leaf of each plane's FRR file
    passes FRR's own parser (``vtysh -C``)."""
    design = multiplane("hwplb")
    yang = sonic_yang()
    for config in sonic_configs(design).values():
        yang.check(config)
    files = render_configs(design.configs, ["frr"])
    paths = []
    for leaf in ("p0-su0-r0-leaf", "p1-su0-r0-leaf"):
        path = tmp_path / f"{leaf}.conf"
        path.write_bytes(files[f"configs/frr/{leaf}.conf"])
        paths.append((path, str(path)))
    texts = [path.read_text() for path, _ in paths]
    towards_trays = [
        re.findall(r"^interface \S+\n description sys\S+ nic\S+\n ip address (\S+)$", text, re.M) for text in texts
    ]
    assert len(towards_trays[0]) == 16 and towards_trays[0] == towards_trays[1]  # the same /31s, a plane each
    assert [verdict.error for verdict in check_frr(paths)] == ["", ""]


@cache
def grown(mode: str, systems: int) -> Design:
    """GB300 racks with two planes per NIC port inside an envelope of 8 systems (scalable units of 4 systems)."""
    return build_text(
        f"name: growth\ncompute: {{system: gb300-nvl72, systems: {systems}, multiplane: {{planes: 2, mode: {mode}}}}}\n"
        "growth: {max_systems: 8}\n"
        "fabric: {leaf: {ports: 16, speed: 800G}, spine: {ports: 64, speed: 800G}}\ntargets: [frr, eos]\n"
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("old", "new"), [(1, 3), (3, 8)])
def test_multiplane_racks_added_inside_the_envelope_only_add(mode: str, old: int, new: int) -> None:
    before, after = grown(mode, old), grown(mode, new)
    assert_only_added(before, after, render_configs(before.configs, GAINING), render_configs(after.configs, GAINING))
    old_files, new_files = render_hosts(before.hosts), render_hosts(after.hosts)
    assert {path: new_files[path] for path in old_files} == old_files  # no existing server's files change


def test_diff_reads_a_multiplane_build_and_shows_only_the_added_rack(tmp_path: Path) -> None:
    """design.json names a tray's plane links nic<i>s<plane>; diff validates them as it reads the folder."""
    old, new = tmp_path / "old", tmp_path / "new"
    intent = (INTENTS / "gb300-nvl72-hwplb.yaml").read_text().replace("[frr, sonic, eos, nvue]", "[frr, eos]")
    for folder, systems in ((old, 3), (new, 4)):
        path = tmp_path / f"{folder.name}.yaml"
        path.write_text(intent.replace("systems: 4,", f"systems: {systems},"))
        assert run_cli("build", str(path), "-o", str(folder))[0] == 0
    code, out, err = run_cli("diff", str(old), str(new), "--fail-on", "existing-change")
    assert (code, err) == (0, ""), err
    assert "| GPUs | 216 | 288 | +72 |" in out
    assert '"nic0s1"' in (new / "design.json").read_text()


def test_the_addressing_check_still_finds_a_31_used_twice_inside_one_plane() -> None:
    design = multiplane("hwplb")
    assert not [finding for finding in addressing.check(design) if finding.severity == "error"]
    links, devices = design.fabric.links, design.fabric.devices
    plane1 = [n for n, link in enumerate(links) if link[0] == SERVER_LEAF and devices[link[1]].plane == 1]
    evens = list(design.allocation.evens)
    evens[plane1[1]] = evens[plane1[0]]  # two trays' links in plane 1 on one /31
    broken = dataclasses.replace(design, allocation=dataclasses.replace(design.allocation, evens=evens))
    errors = [finding.message for finding in addressing.check(broken) if finding.severity == "error"]
    even, odd = map(ip, design.allocation.link_addresses(plane1[0]))
    assert errors == [f"{even} is assigned 2 times", f"{odd} is assigned 2 times"] * 2


def test_the_addressing_check_scopes_only_server_interfaces_to_their_plane_in_the_device_model() -> None:
    design = multiplane("hwplb")
    configs = list(design.configs)
    in_plane = {plane: [n for n, config in enumerate(configs) if config.plane == plane] for plane in (0, 1)}
    plane0, (first, second) = in_plane[0][0], in_plane[1][:2]

    def with_address(n: int, role: str, address: str) -> None:
        config = configs[n]
        at = next(i for i, interface in enumerate(config.interfaces) if interface.role == role)
        interfaces = list(config.interfaces)
        interfaces[at] = interfaces[at]._replace(address=address)
        configs[n] = dataclasses.replace(config, interfaces=tuple(interfaces))

    def errors() -> list[str]:
        broken = dataclasses.replace(design, configs=tuple(configs))
        return [finding.message for finding in addressing.check(broken) if finding.severity == "error"]

    server = next(interface for interface in configs[first].interfaces if interface.role == "server").address
    with_address(second, "server", server)  # a server /31 twice inside plane 1
    assert errors() == [f"{server} is configured 2 times"] * 2
    configs = list(design.configs)
    fabric = next(interface for interface in configs[first].interfaces if interface.role == "fabric").address
    with_address(plane0, "fabric", fabric)  # a fabric /31 of plane 1 again in plane 0: the planes share none
    assert errors() == [f"{fabric} is configured 2 times"] * 2

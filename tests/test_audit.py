"""designer audit: LLDP reports from EOS and lldpd against a built design (matching, missing, extra and miswired
cables, the swap that fixes a crossed pair at the server end), bad discovery files, and real lldpd in network
namespaces reporting a server cabled as designed and with its two NICs crossed.

The readers are proven on what the programs print: EOS from NAPALM's captured eAPI output, lldpd from Debian's
lldpd 1.0.16 (``tests/vendor/lldp/``, with their sources) and, where lldpd is installed, from lldpd running here."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from secrets import token_hex
from typing import Any

import pytest

from designer.audit.compare import audit
from designer.audit.names import PortNames, server_ports, switch_port_names
from designer.audit.readers import read_eos, read_lldpd
from designer.readback.built import parse_design
from designer.verify.cabling import Lldp, audit_lab, cabling_check, lab_cables
from designer.verify.lab import Lab, ip_batch
from designer.verify.topology import HostNic, topology
from designer.verify.traffic import sample
from tests.conftest import ROOT
from tests.prerequisites import AS_ROOT, FRR_LAB, LLDPD, needs
from tests.test_intent_errors import run_cli
from tests.test_verify import built_files

VENDOR = ROOT / "tests" / "vendor" / "lldp"
INTENT = ROOT / "tests" / "intents" / "small-2tier.yaml"
DESCRIPTION = re.compile(r"^interface (\S+)\n   description (\S+) (\S+)$", re.MULTILINE)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """small-2tier (leaves of 800G cages broken out into 2 x 400G: EOS ``Ethernet1/1`` and ``Ethernet1/5``)."""
    folder = tmp_path_factory.mktemp("audit") / "small-2tier"
    code, _, err = run_cli("build", str(INTENT), "-o", str(folder))
    assert code == 0, err
    return folder


def designed_peers(folder: Path) -> dict[tuple[str, str], tuple[str, str]]:
    design = json.loads((folder / "design.json").read_text())
    peers = {}
    for row in design["links"]:
        a, z = (row["a"][0], row["a"][1]), (row["z"][0], row["z"][1])
        peers[a], peers[z] = z, a
    return peers


def eos_names(folder: Path) -> dict[tuple[str, str], str]:
    """Each switch port's EOS name, from design.json's links (``os_ports``), checked against the EOS configurations
    the build wrote: the interface at each switch end of a link describes the other end as ``P p``, its device and
    the name it has there (its EOS name; a server's ``nicN``)."""
    design = json.loads((folder / "design.json").read_text())
    described = {
        (config.stem, *found)
        for config in sorted((folder / "configs" / "eos").glob("*.cfg"))
        for found in DESCRIPTION.findall(config.read_text())
    }
    names, expected = {}, set()
    for row in design["links"]:
        (a, a_port, _), (z, z_port, _), (a_eos, z_eos) = row["a"], row["z"], row["os_ports"]["eos"]
        names[a, a_port] = a_eos
        expected.add((a, a_eos, z, z_eos))
        if row["tier"] != "server_leaf":
            names[z, z_port] = z_eos
            expected.add((z, z_eos, a, a_eos))
    assert described == expected
    return names


def nic_names(folder: Path) -> dict[str, list[str]]:
    """Each server's Linux names in port order: its ``nics``, or with hwplb its plane PFs' (``plane_nics``)."""
    design = json.loads((folder / "design.json").read_text())
    return {row["name"]: row.get("plane_nics", row["nics"]) for row in design["devices"] if row["role"] == "server"}


def lldpd_entry(port: str, peer: str, peer_port: str, by_name: bool) -> dict[str, Any]:
    """One neighbour as ``lldpcli -f json0`` prints it (the shape of tests/vendor/lldp/)."""
    port_id = {"type": "ifname", "value": peer_port} if by_name else {"type": "mac", "value": "02:00:00:00:00:01"}
    return {
        "name": port,
        "via": "LLDP",
        "chassis": [{"id": [{"type": "mac", "value": "02:00:00:00:00:02"}], "name": [{"value": peer}]}],
        "port": [{"id": [port_id], "descr": [{"value": peer_port}], "ttl": [{"value": "120"}]}],
    }


def reports(folder: Path, crossed: tuple[str, str] = ("", "")) -> dict[str, dict[str, Any]]:
    """What every switch (EOS) and server (lldpd, as its lldpd.conf sets it up) prints when cabled as designed,
    or with the plugs in the two ends ``crossed`` (``device port``, design names) swapped."""
    peers, eos, nics = designed_peers(folder), eos_names(folder), nic_names(folder)
    ports = server_ports(folder)
    cabled = dict(peers)
    if crossed[0]:
        (a_device, a_port), (b_device, b_port) = (end.split() for end in crossed)
        a, b = (a_device, a_port), (b_device, b_port)
        cabled[a], cabled[b] = peers[b], peers[a]
        cabled[peers[a]], cabled[peers[b]] = b, a

    def os_name(end: tuple[str, str]) -> str:
        device, port = end
        return nics[device][ports[device].index(port)] if device in nics else eos[end]

    files: dict[str, dict[str, Any]] = {}
    for (device, port), (peer, peer_port) in sorted(cabled.items()):
        shown = os_name((peer, peer_port))
        if device in nics:
            entries = files.setdefault(device, {"lldp": [{"interface": []}]})["lldp"][0]["interface"]
            entries.append(lldpd_entry(os_name((device, port)), peer, shown, by_name=True))
        else:
            rows = files.setdefault(device, {"lldpNeighbors": []})["lldpNeighbors"]
            rows.append({"port": os_name((device, port)), "neighborDevice": peer, "neighborPort": shown, "ttl": 120})
    return files


def write(files: dict[str, dict[str, Any]], folder: Path) -> list[str]:
    folder.mkdir(exist_ok=True)
    for device, document in files.items():
        (folder / f"{device}.json").write_text(json.dumps(document, indent=2))
    return [str(folder / f"{device}.json") for device in sorted(files)]


def test_eos_reader_reads_what_eos_prints() -> None:
    document = json.loads((VENDOR / "eos-show-lldp-neighbors.json").read_text())
    assert read_eos("leaf1", document) == [
        ("leaf1", "Ethernet1", "precise64", "0800.274f.332d"),
        ("leaf1", "Ethernet2", "precise64", "0800.27ca.c5be"),
    ]


def test_lldpd_reader_reads_what_lldpd_prints() -> None:
    """A peer sending its interface name as port ID gives that name; one sending lldpd's default (a MAC address)
    gives its port description, lldpd's interface name."""
    by_name = json.loads((VENDOR / "lldpd-json0-ifname-port-id.json").read_text())
    by_mac = json.loads((VENDOR / "lldpd-json0-mac-port-id.json").read_text())
    assert read_lldpd("leafA", by_name) == [("leafA", "swp1", "su0-srv0", "enp24s0np0")]
    assert read_lldpd("su0-srv0", by_mac) == [("su0-srv0", "enp24s0np0", "leafA", "swp1")]


def test_cabling_as_designed_matches(built: Path, tmp_path: Path) -> None:
    files = write(reports(built), tmp_path / "lldp")
    code, out, err = run_cli("audit", str(built), *files)
    links = len(json.loads((built / "design.json").read_text())["links"])
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        f"audit of small-2tier: {len(files)} devices reported, {links} designed cables in scope: {links} match, "
        "0 missing, 0 extra, 0 miswired"
    )
    assert out.splitlines()[-1] == "the cabling matches the design"


def test_server_end_miswire_is_found_with_its_swap(built: Path, tmp_path: Path) -> None:
    """NIC 0 of su0-srv0 in the rail-1 leaf and NIC 1 in the rail-0 leaf: both cables miswired, and one swap
    (the server's two plugs) fixes both; the EOS side shows its own port names."""
    files = write(reports(built, ("su0-srv0 nic0", "su0-srv0 nic1")), tmp_path / "lldp")
    code, out, _ = run_cli("audit", str(built), *files)
    assert code == 1
    assert (
        "swap: the plugs in su0-srv0 nic0 and su0-srv0 nic1 (or, at the other end, in p0-su0-r0-leaf swp1s0 "
        "(Ethernet1/1) and p0-su0-r1-leaf swp1s0 (Ethernet1/1)) fixes p0-su0-r0-leaf swp1s0 (Ethernet1/1) -- "
        "su0-srv0 nic1 and p0-su0-r1-leaf swp1s0 (Ethernet1/1) -- su0-srv0 nic0" in out
    )
    assert (
        "miswired: p0-su0-r0-leaf swp1s0 (Ethernet1/1) -- su0-srv0 nic1 (designed: p0-su0-r0-leaf swp1s0 "
        "(Ethernet1/1) -- su0-srv0 nic0; p0-su0-r1-leaf swp1s0 (Ethernet1/1) -- su0-srv0 nic1)" in out
    )
    assert out.splitlines()[-1] == "2 cables to fix"
    code, out, _ = run_cli("audit", str(built), *files, "--format", "json")
    report = json.loads(out)
    assert (code, report["cables"]["miswired"], report["cables"]["missing"], report["cables"]["extra"]) == (1, 2, 0, 0)
    assert report["swaps"][0]["ends"] == [
        {"device": "su0-srv0", "port": "nic0"},
        {"device": "su0-srv0", "port": "nic1"},
    ]


def test_the_server_side_alone_sees_the_server_end_miswire(built: Path, tmp_path: Path) -> None:
    """Only the server's own report (lldpd on its backend NICs): the leaves it reaches tell the miswire."""
    everything = reports(built, ("su0-srv0 nic0", "su0-srv0 nic1"))
    files = write({"su0-srv0": everything["su0-srv0"]}, tmp_path / "lldp")
    code, out, _ = run_cli("audit", str(built), *files)
    assert code == 1
    assert out.splitlines()[0] == (
        "audit of small-2tier: 1 device reported, 2 designed cables in scope: 0 match, 0 missing, 0 extra, 2 miswired"
    )
    assert "swap: the plugs in su0-srv0 nic0 and su0-srv0 nic1" in out


def multiplane_example(factory: pytest.TempPathFactory, mode: str, hosts: str = "") -> Path:
    """The shipped multiplane example (intents/gb300-nvl72-multiplane.yaml) built in ``mode``, with a ``hosts``
    section when given."""
    folder = factory.mktemp(f"audit-{mode}")
    intent = folder / f"{mode}.yaml"
    text = (ROOT / "intents" / "gb300-nvl72-multiplane.yaml").read_text()
    assert "multiplane: {planes: 2, mode: hwplb}" in text
    intent.write_text(text.replace("mode: hwplb", f"mode: {mode}") + (f"hosts: {hosts}\n" if hosts else ""))
    code, _, err = run_cli("build", str(intent), "-o", str(folder / "out"))
    assert code == 0, err
    return folder / "out"


@pytest.fixture(scope="module")
def swplb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each tray's ConnectX-8 ports serve two planes, each plane link its own PF and Linux interface (``nic0s0``,
    ``nic0s1``)."""
    return multiplane_example(tmp_path_factory, "swplb")


@pytest.fixture(scope="module")
def hwplb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``mode: hwplb`` with its plane PFs named as NVIDIA's NIC Configuration Operator's ``netDevicePrefix``
    ``net_%nic_id%_%plane_id%_%rail_id%`` names them (its README), the rails' interfaces being plane 0's PFs."""
    rails = [f"net_{rail}_0_{rail}" for rail in range(4)]
    planes = rails + [f"net_{rail}_1_{rail}" for rail in range(4)]
    return multiplane_example(
        tmp_path_factory, "hwplb", f"{{nics: [{', '.join(rails)}], plane_nics: [{', '.join(planes)}]}}"
    )


@pytest.mark.parametrize(("mode", "plane0", "plane1"), [("swplb", "", ""), ("hwplb", " (net_0_0_0)", " (net_0_1_0)")])
def test_plane_links_are_audited_as_cables_of_their_own(
    mode: str, plane0: str, plane1: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """As designed every plane link matches; plane 0 and plane 1 of one NIC port crossed at the tray (each plane's
    PF reports its own leaf over LLDP: an interface of its own with swplb, a PF behind the rail's with hwplb) is two
    miswired cables and the swap of the tray's two plane plugs."""
    folder: Path = request.getfixturevalue(mode)
    ports = server_ports(folder)["sys0-tray0"]
    assert ports[:5] == ("nic0s0", "nic1s0", "nic2s0", "nic3s0", "nic0s1")
    files = write(reports(folder), tmp_path / "as-designed")
    code, out, _ = run_cli("audit", str(folder), *files)
    links = len(json.loads((folder / "design.json").read_text())["links"])
    assert code == 0, out
    assert f"{links} match, 0 missing, 0 extra, 0 miswired" in out.splitlines()[0]
    files = write(reports(folder, ("sys0-tray0 nic0s0", "sys0-tray0 nic0s1")), tmp_path / "crossed")
    code, out, _ = run_cli("audit", str(folder), *files)
    assert code == 1
    assert out.splitlines()[0].endswith("0 missing, 0 extra, 2 miswired")
    assert (
        f"swap: the plugs in sys0-tray0 nic0s0{plane0} and sys0-tray0 nic0s1{plane1} (or, at the other end, in "
        "p0-su0-r0-leaf swp1s0 (Ethernet1/1) and p1-su0-r0-leaf swp1s0 (Ethernet1/1)) fixes p0-su0-r0-leaf swp1s0 "
        f"(Ethernet1/1) -- sys0-tray0 nic0s1{plane1} and p1-su0-r0-leaf swp1s0 (Ethernet1/1) -- sys0-tray0 "
        f"nic0s0{plane0}" in out
    )


def test_hwplb_tray_runs_lldpd_on_every_plane_pf(hwplb: Path) -> None:
    """The tray's lldpd.conf sends each plane PF's name as its port ID (the rail's interface being plane 0's)."""
    conf = (hwplb / "servers" / "sys0-tray0" / "lldpd.conf").read_text()
    lines = [line for line in conf.splitlines() if line.startswith("configure ports")]
    assert lines[:2] == [
        "configure ports net_0_0_0 lldp portidsubtype local net_0_0_0",
        "configure ports net_0_1_0 lldp portidsubtype local net_0_1_0",
    ]
    assert len(lines) == 8


def test_hwplb_tray_alone_finds_its_planes_crossed(hwplb: Path, tmp_path: Path) -> None:
    """The tray's own report alone (lldpd on its plane PFs) names the crossing."""
    files = reports(hwplb, ("sys0-tray0 nic0s0", "sys0-tray0 nic0s1"))
    code, out, _ = run_cli("audit", str(hwplb), *write({"sys0-tray0": files["sys0-tray0"]}, tmp_path / "tray"))
    assert code == 1
    assert "swap: the plugs in sys0-tray0 nic0s0 (net_0_0_0) and sys0-tray0 nic0s1 (net_0_1_0)" in out


def test_hwplb_default_names_the_plane_pfs_from_the_rails_interfaces(tmp_path: Path) -> None:
    """The shipped example as it is: plane 0's PF is the rail's interface (nic0), the others placeholders (nic0s1);
    its lldpd.conf runs on both and the audit finds plane 0 and plane 1 crossed at the tray."""
    out = tmp_path / "out"
    code, _, err = run_cli("build", str(ROOT / "intents" / "gb300-nvl72-multiplane.yaml"), "-o", str(out))
    assert code == 0, err
    assert nic_names(out)["sys0-tray0"] == ["nic0", "nic1", "nic2", "nic3", "nic0s1", "nic1s1", "nic2s1", "nic3s1"]
    conf = (out / "servers" / "sys0-tray0" / "lldpd.conf").read_text()
    assert "configure ports nic0 lldp portidsubtype local nic0\nconfigure ports nic0s1 lldp" in conf
    code, text, _ = run_cli("audit", str(out), *write(reports(out), tmp_path / "as-designed"))
    assert code == 0, text
    crossed = reports(out, ("sys0-tray0 nic0s0", "sys0-tray0 nic0s1"))
    code, text, _ = run_cli("audit", str(out), *write(crossed, tmp_path / "crossed"))
    assert code == 1
    assert "swap: the plugs in sys0-tray0 nic0s0 (nic0) and sys0-tray0 nic0s1 " in text


@pytest.mark.parametrize(
    ("hosts", "expected"),
    [
        (
            "{plane_nics: [a0, a1]}",
            "hosts.plane_nics: 2 names for a server with 8 backend NIC ports; give one plane PF's Linux name per",
        ),
        (
            "{plane_nics: [nic0, nic1, nic2, pf3, nic0s1, nic1s1, nic2s1, nic3s1]}",
            "hosts.plane_nics[3]: 'pf3' is plane 0 of NIC port 3, whose PF is the port's interface itself (PF0, "
            "holding its address), 'nic3' in nics; give 'nic3'",
        ),
        (
            "{plane_nics: [nic0]}",
            "hosts.plane_nics: names the plane PFs of a NIC port with compute.multiplane mode hwplb, which this "
            "intent does not have",
        ),
    ],
)
def test_bad_plane_pf_names_are_explained(tmp_path: Path, hosts: str, expected: str) -> None:
    text = (ROOT / "intents" / "gb300-nvl72-multiplane.yaml").read_text()
    if "[nic0]" in hosts:
        text = text.replace("mode: hwplb", "mode: swplb")
    intent = tmp_path / "intent.yaml"
    intent.write_text(f"{text}hosts: {hosts}\n")
    code, _, err = run_cli("build", str(intent), "-o", str(tmp_path / "out"))
    assert code == 2
    assert expected in err
    assert f"intent.yaml:{len(text.splitlines()) + 1}:" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize(("mode", "reported"), [("swplb", ""), ("hwplb", " (net_0_1_0)")])
def test_plane_links_crossed_at_the_leaves_are_found(
    mode: str, reported: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """Two trays' plane links crossed at the leaf end (tray 0's plane 0 in tray 1's plane-1 leaf port and back):
    both named, with the swap at the leaves, whether each plane is an interface (swplb) or a PF behind the rail's
    (hwplb, the plane PF's name beside the design's)."""
    folder: Path = request.getfixturevalue(mode)
    peers = designed_peers(folder)
    first, second = peers["sys0-tray0", "nic0s0"], peers["sys0-tray1", "nic0s1"]
    assert first[0].startswith("p0-") and second[0].startswith("p1-")
    crossed = (f"{first[0]} {first[1]}", f"{second[0]} {second[1]}")
    code, out, _ = run_cli("audit", str(folder), *write(reports(folder, crossed), tmp_path / "lldp"))
    assert code == 1
    assert f"miswired: {first[0]} {first[1]} (Ethernet1/1) -- sys0-tray1 nic0s1{reported} (designed: " in out
    assert f"swap: the plugs in {first[0]} {first[1]} (Ethernet1/1) and {second[0]} {second[1]} (" in out


def test_a_cable_nobody_reports_is_missing(built: Path, tmp_path: Path) -> None:
    files = reports(built)
    leaf = files["p0-su0-r0-leaf"]["lldpNeighbors"]
    gone = next(row for row in leaf if row["neighborDevice"] == "p0-spine1")
    leaf.remove(gone)
    spine = files["p0-spine1"]["lldpNeighbors"]
    spine.remove(
        next(row for row in spine if row["neighborPort"] == gone["port"] and row["port"] == gone["neighborPort"])
    )
    code, out, _ = run_cli("audit", str(built), *write(files, tmp_path / "lldp"))
    assert code == 1
    missing = [line for line in out.splitlines() if line.startswith("missing: ")]
    assert len(missing) == 1
    assert re.fullmatch(
        rf"missing: p0-spine1 swp\d+ \({gone['neighborPort']}\) -- p0-su0-r0-leaf swp\d+s\d \({gone['port']}\)",
        missing[0],
    ), missing


def test_port_name_tables_are_made_once_per_port_layout(built: Path) -> None:
    """Every switch of one port layout (the leaves, the spines) shares one table per name family, and each table
    maps every EOS or Linux name the layout's ports have to the design's."""
    design = json.loads((built / "design.json").read_text())
    roles = {row["name"]: row["role"] for row in design["devices"] if row["role"] != "server"}
    tables = switch_port_names(built)
    for family, by_switch in tables.items():
        assert set(by_switch) == set(roles), family
        for role in set(roles.values()):
            shared = {id(by_switch[name]) for name, its_role in roles.items() if its_role == role}
            assert len(shared) == 1, (family, role)
    for row in design["links"]:
        for (device, port, _), eos in zip((row["a"], row["z"]), row["os_ports"]["eos"], strict=True):
            if device in roles:
                assert tables["eos"][device][eos] == port


def names(switches: dict[str, dict[str, str]], servers: dict[str, dict[str, str]] | None = None) -> PortNames:
    return PortNames({"eos": switches, "lldpd": switches}, servers or {})


def test_extra_and_outside_ports() -> None:
    """A cable between two ports the design leaves empty is extra; a neighbour on a port outside the backend (a
    management port) is not audited, only listed."""
    found = audit(
        [(("a", "swp1"), ("b", "swp1"))],
        {
            "a": (
                "eos",
                [("a", "swp1", "b", "swp1"), ("a", "swp2", "b", "swp2"), ("a", "Management1", "oob", "ge-0/0/1")],
            )
        },
        names({"a": {"swp1": "swp1", "swp2": "swp2"}, "b": {"swp1": "swp1", "swp2": "swp2"}}),
    )
    assert (found.matched, found.extra, found.missing, found.miswired) == (1, ((("a", "swp2"), ("b", "swp2")),), (), ())
    assert found.outside == (("a", "Management1"),)


def test_unnamed_peer_port_and_qualified_names() -> None:
    """A peer known by a MAC port ID counts when it is the designed device; a fully qualified system name is the
    device's; a neighbour the design does not have is a miswire of the designed end."""
    designed = [(("a", "swp1"), ("b", "swp1")), (("a", "swp2"), ("c", "swp1"))]
    table = names({"a": {"swp1": "swp1", "swp2": "swp2"}, "b": {"swp1": "swp1"}, "c": {"swp1": "swp1"}})
    found = audit(designed, {"a": ("lldpd", [("a", "swp1", "b.example.net", "02:00:00:00:00:01")])}, table)
    assert (found.in_scope, found.matched, found.missing) == (2, 1, ((("a", "swp2"), ("c", "swp1")),))
    found = audit(designed, {"a": ("lldpd", [("a", "swp2", "rogue", "eth0")])}, table)
    assert [item.found for item in found.miswired] == [(("a", "swp2"), ("rogue", "eth0"))]
    assert found.miswired[0].designed == ((("a", "swp2"), ("c", "swp1")),)


def test_bad_discovery_files_are_explained_at_once(built: Path, tmp_path: Path) -> None:
    folder = tmp_path / "lldp"
    folder.mkdir()
    (folder / "leaf9.json").write_text('{"lldpNeighbors": []}')
    (folder / "p0-spine0.json").write_text("show lldp neighbors\n")
    (folder / "p0-spine1.json").write_text('{\n  "interfaces": {}\n}\n')
    (folder / "p0-su0-r0-leaf.json").write_text('{\n  "lldpNeighbors": [\n    {"port": "Ethernet1/1"}\n  ]\n}\n')
    (folder / "su0-srv0.json").write_text('{\n  "lldp": {\n    "interface": {}\n  }\n}\n')
    files = sorted(str(path) for path in folder.iterdir())
    code, out, err = run_cli("audit", str(built), *files)
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f'{folder}/leaf9.json:1: (top-level): the design has no device "leaf9"; name each file after the device '
        "that printed it, as the design names it (e.g. p0-su0-r0-leaf.json)",
        f"{folder}/p0-spine0.json:1: (top-level): in no known format: neither JSON (EOS 'show lldp neighbors | json' "
        "or lldpd 'lldpcli -f json0 show neighbors') nor ibnetdiscover output ('ibnetdiscover > FILE'); give what "
        "the device printed, unedited",
        f"{folder}/p0-spine1.json:1: (top-level): not in a known format (EOS 'show lldp neighbors | json' or lldpd "
        "'lldpcli -f json0 show neighbors'): found an object with keys \"interfaces\"",
        f"{folder}/p0-su0-r0-leaf.json:3: lldpNeighbors[0].neighborDevice: expected a name (a string of 1 to 255 "
        "characters), found null",
        f"{folder}/su0-srv0.json:2: lldp: not a list: 'lldpcli -f json' changes shape with the neighbours; give "
        "'lldpcli -f json0'",
        "5 errors in the discovery files; nothing was written.",
    ]


# Real lldpd: three network namespaces, two leaves running lldpd's defaults as SONiC and Cumulus Linux do, one
# server running the lldpd.conf the build wrote for it.

LLDPD_PROGRAM = shutil.which("lldpd")
LLDPCLI_PROGRAM = shutil.which("lldpcli")


class Namespaces:
    """Network namespaces ``au-<run>-<n>`` joined by veth pairs, each running lldpd with its own control socket
    and configuration in ``/run/designer-audit-<run>/`` (lldpd's unprivileged half reads them there: a test's
    temporary folder is root's alone); everything is removed on exit."""

    def __init__(self) -> None:
        self.run = token_hex(3)
        self.folder = Path(f"/run/designer-audit-{self.run}")
        self.spaces: dict[str, str] = {}
        self.daemons: list[subprocess.Popen[bytes]] = []

    def __enter__(self) -> Namespaces:
        self.folder.mkdir(mode=0o755)
        return self

    def __exit__(self, *_: object) -> None:
        for daemon in self.daemons:
            daemon.terminate()
            daemon.wait(10)
        for space in self.spaces.values():
            subprocess.run(["ip", "netns", "del", space], check=False)
        shutil.rmtree(self.folder)

    def add(self, device: str) -> None:
        self.spaces[device] = f"au-{self.run}-{len(self.spaces)}"
        subprocess.run(["ip", "netns", "add", self.spaces[device]], check=True)

    def cable(self, one: tuple[str, str], other: tuple[str, str]) -> None:
        (a, a_port), (z, z_port) = one, other
        subprocess.run(
            [
                "ip",
                "link",
                "add",
                a_port,
                "netns",
                self.spaces[a],
                "type",
                "veth",
                "peer",
                "name",
                z_port,
                "netns",
                self.spaces[z],
            ],
            check=True,
        )
        for device, port in (one, other):
            subprocess.run(["ip", "-n", self.spaces[device], "link", "set", port, "up"], check=True)

    def lldpd(self, device: str, configuration: str) -> None:
        """lldpd in ``device``'s namespace, sending every second, with ``configuration`` (lldpcli commands)."""
        config = self.folder / f"{device}.conf"
        config.write_text(f"configure lldp tx-interval 1\n{configuration}")
        self.daemons.append(
            subprocess.Popen(
                [
                    "ip",
                    "netns",
                    "exec",
                    self.spaces[device],
                    LLDPD_PROGRAM or "lldpd",
                    "-d",
                    "-u",
                    str(self.socket(device)),
                    "-O",
                    str(config),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )

    def socket(self, device: str) -> Path:
        return self.folder / f"{device}.socket"

    def neighbors(self, device: str) -> bytes | None:
        """What ``lldpcli -f json0 show neighbors`` prints in ``device``'s namespace (None before lldpd listens)."""
        shown = subprocess.run(
            [LLDPCLI_PROGRAM or "lldpcli", "-u", str(self.socket(device)), "-f", "json0", "show", "neighbors"],
            capture_output=True,
        )
        return shown.stdout if shown.returncode == 0 else None


def lldpd_lab(
    built: Path,
    folder: Path,
    crossed: bool,
    server: str = "su0-srv0",
    leaves: tuple[tuple[str, str], ...] = (("p0-su0-r0-leaf", "swp1s0"), ("p0-su0-r1-leaf", "swp1s0")),
) -> Iterator[list[str]]:
    """``server`` and the two ``leaves`` of its first two Linux names (its NICs, or a hwplb tray's plane PFs) with
    real lldpd, those interfaces named as its files name them and cabled to the leaves' ports as designed, or
    crossed; yields the discovery files once every device has heard its neighbours."""
    nics = (
        nic_names(built)[server][:2] if server == "su0-srv0" else [nic_names(built)[server][index] for index in (0, 4)]
    )
    with Namespaces() as lab:
        for device in (server, *(leaf for leaf, _ in leaves)):
            lab.add(device)
        for nic, leaf in zip(nics, reversed(leaves) if crossed else leaves, strict=True):
            lab.cable((server, nic), leaf)
        for leaf, _ in leaves:
            lab.lldpd(leaf, f"configure system hostname {leaf}\n")
        lab.lldpd(server, (built / "servers" / server / "lldpd.conf").read_text())
        deadline = time.monotonic() + 30
        while True:
            heard = {device: lab.neighbors(device) for device in lab.spaces}
            if all(
                text and len(json.loads(text)["lldp"][0].get("interface", [])) == 2 - (device != server)
                for device, text in heard.items()
            ):
                break
            assert time.monotonic() < deadline, heard
            time.sleep(0.5)
        files = []
        for device, text in heard.items():
            (folder / f"{device}.json").write_bytes(text or b"")
            files.append(str(folder / f"{device}.json"))
        yield files


@needs(LLDPD, AS_ROOT)
@pytest.mark.parametrize("crossed", [False, True], ids=["as-designed", "crossed-at-the-server"])
def test_real_lldpd_reports_are_audited(built: Path, tmp_path: Path, crossed: bool) -> None:
    """The server's lldpd.conf, loaded by a real lldpd, sends its NIC names as port IDs; the leaves run lldpd's
    defaults (a MAC port ID, the interface name as description). The audit of what the three lldpd print finds
    the two cables as designed, or the crossed pair and its swap."""
    for files in lldpd_lab(built, tmp_path, crossed):
        server = json.loads(Path(files[0]).read_text())["lldp"][0]["interface"]
        leaf = json.loads(Path(files[1]).read_text())["lldp"][0]["interface"]
        assert leaf[0]["port"][0]["id"][0] == {"type": "local", "value": leaf[0]["port"][0]["descr"][0]["value"]}
        assert server[0]["port"][0]["id"][0]["type"] == "mac"
        code, out, _ = run_cli("audit", str(built), *files, "--format", "json")
        report = json.loads(out)
        if crossed:
            assert (code, report["cables"]["miswired"], report["cables"]["matched"]) == (1, 2, 0)
            assert report["swaps"][0]["ends"] == [
                {"device": "su0-srv0", "port": "nic0"},
                {"device": "su0-srv0", "port": "nic1"},
            ]
        else:
            links = json.loads((built / "design.json").read_text())["links"]
            scope = [
                row for row in links if {row["a"][0], row["z"][0]} & {"su0-srv0", "p0-su0-r0-leaf", "p0-su0-r1-leaf"}
            ]
            assert (code, report["cables"]) == (
                1,  # the leaves' other cables are not in the lab: missing
                {"in_scope": len(scope), "matched": 2, "missing": len(scope) - 2, "extra": 0, "miswired": 0},
            )


@needs(LLDPD, AS_ROOT)
@pytest.mark.parametrize("crossed", [False, True], ids=["as-designed", "crossed-at-the-tray"])
def test_real_lldpd_on_a_hwplb_trays_plane_pfs(hwplb: Path, tmp_path: Path, crossed: bool) -> None:
    """A hwplb tray's lldpd.conf, loaded by a real lldpd, runs on nic0's two plane PFs (net_0_0_0, net_0_1_0, each
    a veth to its plane's leaf) and sends their names as port IDs: the audit finds both plane links as designed, or
    crossed with the swap of the tray's two plane plugs."""
    leaves = (("p0-su0-r0-leaf", "swp1s0"), ("p1-su0-r0-leaf", "swp1s0"))
    for files in lldpd_lab(hwplb, tmp_path, crossed, "sys0-tray0", leaves):
        leaf = json.loads(Path(files[1]).read_text())["lldp"][0]["interface"]
        assert leaf[0]["port"][0]["id"][0] == {"type": "local", "value": "net_0_1_0" if crossed else "net_0_0_0"}
        code, out, _ = run_cli("audit", str(hwplb), *files, "--format", "json")
        report = json.loads(out)
        assert code == 1  # the tray's other plane links are not in the lab: missing
        counts = (report["cables"]["matched"], report["cables"]["miswired"])
        assert counts == ((0, 2) if crossed else (2, 0)), out
        if crossed:
            assert report["swaps"][0]["ends"] == [
                {"device": "sys0-tray0", "port": "nic0s0", "reported_as": "net_0_0_0"},
                {"device": "sys0-tray0", "port": "nic0s1", "reported_as": "net_0_1_0"},
            ]


# designer verify's lab: lldpd in every namespace of a real FRR lab with sampled servers.

VERIFY_TWO_TIER = ROOT / "tests" / "intents" / "verify-2tier.yaml"


def crossed_at_the_server(hosts: list[HostNic]) -> list[HostNic]:
    """The sampled NICs with the first server's first two NICs plugged into each other's leaf ports."""
    first = hosts[0]
    second = next(nic for nic in hosts if nic.server == first.server and nic.port == "nic1")
    assert first.port == "nic0"
    crossed = {
        first: dataclasses.replace(first, leaf=second.leaf, leaf_port=second.leaf_port),
        second: dataclasses.replace(second, leaf=first.leaf, leaf_port=first.leaf_port),
    }
    return [crossed.get(nic, nic) for nic in hosts]


@needs(FRR_LAB, LLDPD)
@pytest.mark.parametrize("crossed", [False, True], ids=["as-designed", "crossed-at-the-server"])
def test_the_verify_lab_audits_what_lldpd_reports(crossed: bool) -> None:
    """The lab of verify-2tier with its sampled servers (as ``designer verify --traffic`` wires them): lldpd in
    all 10 namespaces reports the 16 fabric and 8 server cables as designed, or, with two NICs of one server
    crossed, those two cables miswired and the swap of the server's plugs."""
    files = built_files(VERIFY_TWO_TIER)
    design = parse_design("design.json", files["design.json"])
    lab = topology(files)
    hosts = sample(design, lab)
    lldp = None
    with Lab(lab, lambda _: None, crossed_at_the_server(hosts) if crossed else hosts) as running:
        for nic in running.hosts:  # as the server's netplan file would (designer verify --traffic applies it)
            ip_batch([f"link set {nic.link} up"], running.servers[nic.server])
        lldp = Lldp(running)
        lldp.start()
        cables = lab_cables(running, design)
        found = audit_lab(lldp, cables, 60)
        assert Path(lldp.folder).is_dir()
    lldp.reap()
    assert not lldp.folder.exists()  # the teardown removed the run's folder, lldpd's sockets with it
    assert (len(cables), found.in_scope, len(found.devices)) == (24, 24, 10)
    if not crossed:
        assert (found.matched, found.clean) == (24, True), found
        return
    server = hosts[0].server
    leaves = [lab.routers[nic.leaf].name for nic in hosts if nic.server == server]
    assert (found.matched, len(found.miswired), found.missing, found.extra) == (22, 2, (), ())
    assert found.swaps[0].ends == ((server, "nic0"), (server, "nic1"))
    assert {device for device, _ in found.swaps[0].other_end} == set(leaves)
    check = cabling_check(lab.name, found)
    assert not check.passed and check.problems[0].startswith(f"swap: the plugs in {server} nic0 and {server} nic1")


def test_a_discovery_file_too_large_or_a_link_is_not_read(built: Path, tmp_path: Path) -> None:
    """Each file is capped before its first byte is read (64 MiB, docs/outputs.md) and read only as a regular file."""
    folder = tmp_path / "lldp"
    folder.mkdir()
    with open(folder / "p0-spine0.json", "wb") as sparse:
        sparse.truncate(65 << 20)
    (folder / "p0-spine1.json").symlink_to("/etc/hostname")
    code, out, err = run_cli("audit", str(built), str(folder / "p0-spine0.json"), str(folder / "p0-spine1.json"))
    assert (code, out) == (2, "")
    assert err.splitlines() == [
        f"{folder}/p0-spine0.json:1: (top-level): 68,157,440 bytes, larger than the 64 MiB a discovery file may hold; "
        "it was not read",
        f"{folder}/p0-spine1.json:1: (top-level): is a symbolic link",
        "2 errors in the discovery files; nothing was written.",
    ]

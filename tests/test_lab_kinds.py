"""The containerlab export on the network OS images a team brings (the intent's ``lab``): each kind's topology is
valid against containerlab's own schema, boots designer's startup configuration for its target, names every cabled
port as containerlab's documentation of the kind says the image names it, and only gains lines as the fabric grows.

Sources (tests/vendor/containerlab/, BSD-3-Clause, srl-labs/containerlab): ``clab.schema.json``, the kinds'
documentation ``ceos.md``, ``nvidia_cumulusvx.md``, ``sonic-vs.md`` and the Cumulus VX node's ``cumulusvx.go``;
(tests/vendor/sonic-vs/, Apache-2.0, sonic-net/sonic-buildimage) the virtual switch's ``lanemap.ini`` and
``sai.profile``, and (tests/vendor/sonic/) the SN5600 SKUs' ports in ``port_config.ini`` order.
"""

from __future__ import annotations

import csv
import io
import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from designer.outputs.build import design_files
from designer.outputs.containerlab import ceos_interface
from designer.readback.diff import lost_lines
from designer.targets import LAB_KINDS
from designer.verify.report import text
from designer.verify.run import verify
from tests.conftest import ROOT
from tests.helpers import build_text
from tests.prerequisites import FRR_LAB, needs
from tests.test_growth import intent as growth_intent
from tests.test_intent_errors import run_cli
from tests.test_site_catalog import INTENT, SWITCHES, write_site

CONTAINERLAB = ROOT / "tests" / "vendor" / "containerlab"
INTENTS = ROOT / "tests" / "intents"
CEOS = 'lab: {kind: arista_ceos, image: "ceos:4.32.0F"}\n'
CUMULUS_VX = 'lab: {kind: nvidia_cumulusvx, image: "vrnetlab/nvidia_cumulusvx:5.12.1"}\n'
SONIC_VS = 'lab: {kind: sonic-vs, image: "docker-sonic-vs:202505"}\n'
SONIC_VS_SKU_INTENT = """\
name: sonic-vs-sn5600
compute: {servers: 16, server: dgx-h100}
fabric: {tiers: 2, leaf: {model: nvidia-sn5600}, spine: {model: nvidia-sn5600}}
targets: [frr, sonic]
"""


def with_lab(path: str, targets: str, lab: str) -> str:
    """A test intent of tests/intents/ with other targets and a lab section."""
    return (INTENTS / path).read_text() + f"targets: {targets}\n{lab}"


@cache
def files(intent: str) -> dict[str, bytes]:
    return design_files(build_text(intent))


def topology(intent: str) -> dict[str, Any]:
    return yaml.safe_load(files(intent)["lab/clab.yml"])


def validator() -> Any:
    import jsonschema

    return jsonschema.Draft7Validator(json.loads((CONTAINERLAB / "clab.schema.json").read_text()))


def cabled_ends(built: dict[str, bytes], column: str) -> set[tuple[str, str]]:
    """Every switch port with a cable, as (device, port) in the naming of cabling.csv's ``column`` (port_eos)."""
    rows = csv.DictReader(io.StringIO(built["cabling.csv"].decode()))
    return {
        (row[f"{end}_device"], row[f"{end}_{column}"])
        for row in rows
        for end in ("a", "z")
        if not (end == "z" and row["tier"] == "server_leaf")  # the z end of a server cable is the server's NIC
    }


def topology_ends(clab: dict[str, Any]) -> list[tuple[str, str]]:
    """Every interface the topology gives a node: both ends of each link and each dummy link's one end."""
    ends = []
    for link in clab["topology"]["links"]:
        if "endpoints" in link:
            ends += [tuple(end.split(":")) for end in link["endpoints"]]
        else:
            ends.append((link["endpoint"]["node"], link["endpoint"]["interface"]))
    return ends


def test_every_kind_is_one_containerlab_knows_and_each_topology_is_valid_against_its_schema() -> None:
    schema = json.loads((CONTAINERLAB / "clab.schema.json").read_text())
    assert set(LAB_KINDS) <= set(schema["definitions"]["node-config"]["properties"]["kind"]["enum"])
    check = validator()
    for intent in (
        with_lab("small-2tier.yaml", "[frr, eos]", CEOS),
        with_lab("small-3tier.yaml", "[eos]", CEOS),
        with_lab("verify-2tier.yaml", "[nvue]", CUMULUS_VX),
        with_lab("verify-3tier.yaml", "[frr, nvue]", CUMULUS_VX),
        with_lab("small-2tier.yaml", "[frr, sonic]", SONIC_VS),
        with_lab("small-unnumbered.yaml", "[frr, sonic]", SONIC_VS),
    ):
        clab = topology(intent)
        assert [error.message for error in check.iter_errors(clab)] == []
        dummy = next(link for link in clab["topology"]["links"] if "type" in link)
        dummy["type"] = "dumy"  # a misspelt link type is caught
        assert list(check.iter_errors(clab))


def test_ceos_interfaces_are_the_documented_underscore_form_of_the_eos_ports() -> None:
    """containerlab's ceos.md: links to ``ceos1:eth1_1`` and ``ceos2:eth2_1_1`` are ``Ethernet1/1`` and
    ``Ethernet2/1/1``; ``eth1`` is the first data interface, Ethernet1."""
    doc = (CONTAINERLAB / "ceos.md").read_text()
    assert '- endpoints: ["ceos1:eth1_1", "ceos2:eth2_1_1"]' in doc
    assert "equivalent to `ceos1:Ethernet1/1` connected to `ceos2:Ethernet2/1/1`" in doc
    assert [ceos_interface(port) for port in ("Ethernet1/1", "Ethernet2/1/1", "Ethernet1", "Ethernet64/8")] == [
        "eth1_1",
        "eth2_1_1",
        "eth1",
        "eth64_8",
    ]
    with pytest.raises(ValueError, match="not an EOS front-panel port"):
        ceos_interface("Management1")


def test_ceos_nodes_boot_their_eos_file_and_every_cabled_port_is_an_interface() -> None:
    intent = with_lab("small-2tier.yaml", "[frr, eos]", CEOS)
    built, clab = files(intent), topology(intent)
    assert clab["topology"]["kinds"] == {"arista_ceos": {"image": "ceos:4.32.0F"}}
    nodes = clab["topology"]["nodes"]
    assert set(nodes) == {path[len("configs/eos/") : -len(".cfg")] for path in built if path.startswith("configs/eos/")}
    for name, node in nodes.items():
        assert node == {"kind": "arista_ceos", "startup-config": f"../configs/eos/{name}.cfg"}
    assert "lab/daemons" not in built  # FRR's daemons file is for linux nodes
    ends = topology_ends(clab)
    assert len(ends) == len(set(ends))  # no interface is wired twice
    expected = {(device, ceos_interface(port)) for device, port in cabled_ends(built, "port_eos")}
    assert set(ends) == expected
    for name in nodes:  # each cabled interface of the startup config is one the node has
        config = built[f"configs/eos/{name}.cfg"].decode()
        configured = {ceos_interface(port) for port in re.findall(r"^interface (Ethernet\S+)$", config, re.M)}
        assert {interface for node, interface in ends if node == name} <= configured


def test_cumulus_vx_nodes_boot_their_nvue_file_on_whole_swp_ports() -> None:
    """containerlab's nvidia_cumulusvx.md: interfaces are ``swpN`` as the NVUE configuration names them; its node
    (cumulusvx.go) maps ``swp(?P<port>\\d+)`` to the VM's N-th NIC, so a broken-out swpNsL cannot be one."""
    node_source = (CONTAINERLAB / "cumulusvx.go").read_text()
    assert 'kindNames          = []string{"nvidia_cumulusvx"}' in node_source
    declared = re.search(r"InterfaceRegexp = regexp.MustCompile\(`([^`]+)`\)", node_source)
    assert declared is not None
    port = re.compile(declared.group(1))
    assert "should be named as `swpN`" in (CONTAINERLAB / "nvidia_cumulusvx.md").read_text()
    intent = with_lab("verify-3tier.yaml", "[frr, nvue]", CUMULUS_VX)
    built, clab = files(intent), topology(intent)
    for name, node in clab["topology"]["nodes"].items():
        assert node == {"kind": "nvidia_cumulusvx", "startup-config": f"../configs/nvue/{name}.yaml"}
        assert f"configs/nvue/{name}.yaml" in built
    ends = topology_ends(clab)
    assert set(ends) == cabled_ends(built, "port_nvue")
    for _, interface in ends:
        match = port.fullmatch(interface)
        assert match and int(match.group("port")) >= 1, interface


def lane_map_lines(text: str) -> list[tuple[str, str]]:
    """A lane map's (interface, lanes), as the virtual switch's ``lanemap.ini`` lines are: ``ethN:<lanes>``."""
    return [tuple(line.split(":")) for line in text.splitlines()]  # type: ignore[misc]


def test_sonic_vs_lane_maps_are_the_virtual_switchs_own_format_and_order_for_a_known_sku() -> None:
    """sonic-buildimage's device data copies every SKU into the virtual platform with a ``lanemap.ini`` giving
    ``ethN`` the lanes of the N-th port of the SKU's ``port_config.ini`` (``generate_vs_hwsku.py``); the switches of
    an SN5600 design on the O128 SKU get exactly that map, read from the SKU's ports (tests/vendor/sonic/ports.csv,
    in port_config.ini order), and the format of the image's own map (tests/vendor/sonic-vs/lanemap.ini)."""
    line = re.compile(r"eth[1-9]\d*:\d+(,\d+)*")
    vendored = (ROOT / "tests" / "vendor" / "sonic-vs" / "lanemap.ini").read_text().splitlines()
    assert vendored and all(line.fullmatch(row) for row in vendored)
    assert (
        "SAI_VS_INTERFACE_LANE_MAP_FILE=/usr/share/sonic/hwsku/lanemap.ini"
        in (ROOT / "tests" / "vendor" / "sonic-vs" / "sai.profile").read_text()
    )
    with (ROOT / "tests" / "vendor" / "sonic" / "ports.csv").open() as table:
        o128 = [row["lanes"] for row in csv.DictReader(table) if row["hwsku"] == "Mellanox-SN5600-O128"]
    expected = "".join(f"eth{n}:{lanes}\n" for n, lanes in enumerate(o128, start=1))
    built = files(SONIC_VS_SKU_INTENT + SONIC_VS)
    maps = {path: text.decode() for path, text in built.items() if path.startswith("lab/sonic-vs/")}
    assert maps and all(text == expected for text in maps.values()), sorted(maps)
    clab = topology(SONIC_VS_SKU_INTENT + SONIC_VS)
    for name, node in clab["topology"]["nodes"].items():
        assert node["env"] == {"HWSKU": "Mellanox-SN5600-O128"}
        db = json.loads(built[f"configs/sonic/{name}.json"])
        assert db["DEVICE_METADATA"]["localhost"]["hwsku"] == "Mellanox-SN5600-O128"
        lane_map = next(bind.split(":")[0] for bind in node["binds"] if bind.endswith("lanemap.ini.orig:ro"))
        assert maps[f"lab/{lane_map}"] == expected


def test_sonic_vs_nodes_mount_their_files_where_the_image_reads_them_and_every_cabled_port_is_its_eth() -> None:
    """docker-sonic-vs's ``start.sh`` (sonic-buildimage ``platform/vs/docker-sonic-vs/start.sh``) loads
    ``/var/sonic/config_db.json`` and keeps ``<SKU>/lanemap.ini.orig``; containerlab's sonic-vs kind has no startup
    configuration (sonic-vs.md: ``eth1`` is the first front-panel port, configured by hand). Each node mounts its
    config_db.json, its FRR file (SONiC's own when unnumbered) and its lane map; ``ethN`` of every cabled port is
    the place of that port in the PORT table of its config_db.json, the order the lane map follows."""
    assert "Data interface `eth1` mapped to `Ethernet0` port" in (CONTAINERLAB / "sonic-vs.md").read_text()
    for intent, frr in (
        (with_lab("small-2tier.yaml", "[frr, sonic]", SONIC_VS), "frr"),
        (with_lab("small-unnumbered.yaml", "[frr, sonic]", SONIC_VS), "sonic-frr"),
    ):
        built, clab = files(intent), topology(intent)
        nodes = clab["topology"]["nodes"]
        assert set(nodes) == {
            path[len("configs/sonic/") : -len(".json")] for path in built if path.startswith("configs/sonic/")
        }
        interfaces: dict[str, dict[str, str]] = {}
        for name, node in nodes.items():
            assert node["kind"] == "sonic-vs" and "env" not in node  # a generic switch: the image's own SKU
            config_db, bgpd, lane_map = node["binds"]
            assert config_db == f"../configs/sonic/{name}.json:/var/sonic/config_db.json:ro"
            assert bgpd == f"../configs/{frr}/{name}.conf:/etc/frr/bgpd.conf:ro"
            assert f"configs/{frr}/{name}.conf" in built
            path, target, mode = lane_map.split(":")
            assert target == "/usr/share/sonic/device/x86_64-kvm_x86_64-r0/Force10-S6000/lanemap.ini.orig"
            assert mode == "ro"
            ports = json.loads(built[f"configs/sonic/{name}.json"])["PORT"]
            rows = lane_map_lines(built[f"lab/{path}"].decode())
            assert [lanes for _, lanes in rows] == [entry["lanes"] for entry in ports.values()]
            assert [eth for eth, _ in rows] == [f"eth{n}" for n in range(1, len(ports) + 1)]
            interfaces[name] = dict(zip(ports, (eth for eth, _ in rows), strict=True))
        ends = topology_ends(clab)
        assert len(ends) == len(set(ends))
        assert set(ends) == {(device, interfaces[device][port]) for device, port in cabled_ends(built, "port_sonic")}


@needs(FRR_LAB)
def test_the_linux_kind_is_still_the_default_and_still_runs_in_designer_verify() -> None:
    intent = with_lab("verify-2tier.yaml", "[frr, eos]", CEOS)
    built = files(intent)
    assert "lab/clab.yml" in built and "lab/daemons" not in built
    report = verify(built, progress=lambda _: None)  # the FRR lab runs the frr files, whatever the export's kind
    assert report.passed, text(report)
    default = topology((INTENTS / "verify-2tier.yaml").read_text())
    assert {node["kind"] for node in default["topology"]["nodes"].values()} == {"linux"}


@pytest.mark.parametrize("lab", [CEOS, SONIC_VS, ""])
def test_the_lab_only_gains_lines_as_the_fabric_grows(lab: str) -> None:
    """Nodes keep their names, files and links as the fabric grows inside its envelope; the FRR nodes' bridge line
    of a leaf whose scalable unit fills is the one line that grows (it lists the leaf's server ports)."""
    targets = "targets: [frr, sonic]" if lab == SONIC_VS else "targets: [frr, eos]"
    before, after = (
        files(growth_intent(servers).replace("targets: [frr, eos]", targets) + lab)["lab/clab.yml"].decode()
        for servers in (32, 64)
    )
    lost = lost_lines(before, after, "lab/clab.yml")
    assert all("type bridge" in line for line in lost), lost[:3]
    if lab:
        assert lost == []


def test_a_site_catalog_naming_ports_the_image_has_no_interface_for_is_refused_at_load(tmp_path: Path) -> None:
    """A site's platform may name its EOS ports its own way (catalog ``port_names``); cEOS only has interfaces for
    EthernetN and EthernetN/L, so such a lab is refused (exit 2, nothing written), and accepted once named so."""
    switches = SWITCHES.replace(
        "power_w_optics: 2100}",
        'power_w_optics: 2100, port_names: {eos: {whole: "Et{cage}", broken_out: "Et{cage}/{lane}"}}}',
    )
    intent = write_site(tmp_path, INTENT + CEOS, switches)
    code, _, err = run_cli("build", str(intent), "-o", str(tmp_path / "out"))
    assert code == 2 and not (tmp_path / "out").exists()
    assert (
        "lab.kind: Arista cEOS has interfaces for ports named EthernetN or EthernetN/L (as ethN, ethN_L), not " in err
    )
    assert "the leaves' Et1/5 or the spines' Et1/5;" in err
    write_site(tmp_path, INTENT + CEOS, switches.replace('"Et{cage}', '"Ethernet{cage}'))
    code, _, err = run_cli("build", str(intent), "-o", str(tmp_path / "out"))
    assert code == 0, err
    clab = yaml.safe_load((tmp_path / "out" / "lab" / "clab.yml").read_text())
    assert {end.split(":")[1] for end in clab["topology"]["links"][0]["endpoints"]} <= {
        f"eth{n}_{k}" for n in range(1, 33) for k in (1, 5)
    }

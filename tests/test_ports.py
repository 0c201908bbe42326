"""Port names as each network OS names them: the catalog's naming rules against the vendors' own port lists, the
tables and design.json of one target and of several, the configurations agreeing with them, and a site catalog
naming its own platform's ports."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from designer.backend.port_names import layout_names, serdes_lanes, uniform_places
from designer.catalog import catalog
from designer.intent.site_catalog import PortNamingDoc
from designer.outputs.tables import addressing_rows, cabling_rows
from designer.render import render_configs
from tests.conftest import ROOT
from tests.helpers import build_text
from tests.test_intent_errors import run_cli
from tests.test_site_catalog import write_site

SONIC_PORTS = ROOT / "tests" / "vendor" / "sonic" / "ports.csv"
"""Every port of five SONiC SKUs as their port_config.ini files list them (sonic-net/sonic-buildimage, Apache-2.0;
tests/vendor/sonic/README.md)."""
SKU_LAYOUTS = {
    "ACS-SN5600": ("nvidia-sn5600", 1),
    "Mellanox-SN5600-O128": ("nvidia-sn5600", 2),
    "Mellanox-SN5600-V256": ("nvidia-sn5600", 4),
    "ACS-MSN4700": ("nvidia-sn4700", 1),
    "Mellanox-SN4700-O32": ("nvidia-sn4700", 1),
}
"""Each SKU of ports.csv: the catalog switch it runs on and how many links each front-panel port carries."""

BROKEN_OUT = """\
name: ports
compute: {servers: 16, server: dgx-h100}
fabric: {leaf: {model: nvidia-sn5600}}
targets: [TARGETS]
"""
"""64 x 800G switches run as 128 x 400G: every port broken out in two."""


def sonic_sku_ports() -> dict[str, list[str]]:
    """The front-panel ports of each SKU in ports.csv, in the vendor's order (extra ports beyond the cages left out)."""
    ports: dict[str, list[str]] = {}
    with SONIC_PORTS.open() as rows:
        for row in csv.DictReader(rows):
            model, _ = SKU_LAYOUTS[row["hwsku"]]
            if int(row["index"]) <= catalog().switches[model].ports:
                ports.setdefault(row["hwsku"], []).append(row["port"])
    return ports


@pytest.mark.parametrize("hwsku", sorted(SKU_LAYOUTS))
def test_sonic_names_every_port_as_the_vendors_port_config(hwsku: str) -> None:
    model, breakout = SKU_LAYOUTS[hwsku]
    switch = catalog().switches[model]
    names = layout_names(
        catalog().port_naming("sonic", model),
        uniform_places(switch.ports * breakout, breakout),
        serdes_lanes(switch.speed, breakout),
    )
    assert list(names) == sonic_sku_ports()[hwsku]


def test_eos_and_nvue_name_broken_out_ports_as_their_vendors() -> None:
    """EOS numbers a link by its first lane in the port (Ethernet1/1 and Ethernet1/5 for the 2 x 400G of an 8-lane
    port); NVUE numbers the links of swpN from 0 (NVIDIA's NVUE reference: a 4x breakout of swp1 gives swp1s0 to
    swp1s3)."""
    eos, nvue = catalog().port_naming("eos", "nvidia-sn5600"), catalog().port_naming("nvue", "nvidia-sn5600")
    assert layout_names(eos, uniform_places(4, 2), 8) == ("Ethernet1/1", "Ethernet1/5", "Ethernet2/1", "Ethernet2/5")
    assert layout_names(eos, uniform_places(8, 4), 8)[:4] == (
        "Ethernet1/1",
        "Ethernet1/3",
        "Ethernet1/5",
        "Ethernet1/7",
    )
    assert layout_names(eos, uniform_places(2, 1), 8) == ("Ethernet1", "Ethernet2")
    assert layout_names(nvue, uniform_places(8, 4), 8)[4:] == ("swp2s0", "swp2s1", "swp2s2", "swp2s3")
    assert layout_names(nvue, uniform_places(2, 1), 8) == ("swp1", "swp2")


def test_one_target_names_every_table_as_that_os() -> None:
    design = build_text(BROKEN_OUT.replace("TARGETS", "eos"))
    header, rows = cabling_rows(design)
    table = [dict(zip(header, row, strict=True)) for row in rows]
    assert header[3] == "a_port" and header[5] == "z_port" and "a_port_eos" not in header
    ports = {row["a_port"] for row in table} | {row["z_port"] for row in table if row["tier"] != "server_leaf"}
    assert ports and all(re.fullmatch(r"Ethernet\d+/[15]", port) for port in ports)
    header, rows = addressing_rows(design)
    interfaces = {row[1] for row in rows}
    assert "lo" in interfaces and not any(name.startswith("swp") for name in interfaces)
    nic = design.hosts[0].nics[1]  # the server files say which leaf port each NIC is cabled to
    assert nic.leaves == (("p0-su0-r1-leaf", "Ethernet1/1"),)


def test_several_targets_give_the_canonical_name_and_each_os_in_its_own_column() -> None:
    design = build_text(BROKEN_OUT.replace("TARGETS", "sonic, frr, eos, nvue"))
    header, rows = cabling_rows(design)
    assert header[3:8] == ["a_port", "a_port_sonic", "a_port_frr", "a_port_eos", "a_port_nvue"]
    first = dict(zip(header, next(iter(rows)), strict=True))
    assert (first["a_port"], first["a_port_sonic"], first["a_port_frr"], first["a_port_eos"]) == (
        "swp1s0",
        "Ethernet0",
        "swp1s0",
        "Ethernet1/1",
    )
    assert first["z_port"] == first["z_port_eos"] == "nic0"  # a server's port has no OS naming
    header, _ = addressing_rows(design)
    assert header[:6] == ["device", "interface", "interface_sonic", "interface_frr", "interface_eos", "interface_nvue"]


def test_design_json_names_each_os_port_as_its_configuration_does(tmp_path: Path) -> None:
    """Every link end's os_ports name is an interface the device's own configuration configures with that link's
    address: the EOS file's ``interface`` block, the SONiC file's INTERFACE table and the NVUE file's interface."""
    intent = tmp_path / "ports.yaml"
    intent.write_text(BROKEN_OUT.replace("TARGETS", "sonic, frr, eos, nvue"))
    out = tmp_path / "out"
    code, _, err = run_cli("build", str(intent), "-o", str(out))
    assert code in (0, 1), err
    links = json.loads((out / "design.json").read_text())["links"]
    configs = {}
    checked = 0
    for link in links:
        for side, end in (("a", 0), ("z", 1)):
            device, canonical, address = link[side]
            if device.startswith("su"):
                assert {names[end] for names in link["os_ports"].values()} == {canonical}
                continue
            for target, extension in (("eos", "cfg"), ("sonic", "json"), ("nvue", "yaml")):
                path = out / "configs" / target / f"{device}.{extension}"
                text = configs.setdefault(path, path.read_text())
                name = link["os_ports"][target][end]
                if target == "eos":
                    assert (
                        f"interface {name}\n" in text
                        and f"ip address {address}/31" in text.split(f"interface {name}\n")[1].split("!")[0]
                    )
                elif target == "sonic":
                    assert f"{name}|{address}/31" in json.loads(text)["INTERFACE"]
                else:
                    assert re.search(rf"\n +{re.escape(name)}:\n(?: .*\n)*? +{re.escape(address)}/31: {{}}", text)
                checked += 1
    assert checked > 100


def test_the_device_models_name_ports_for_every_view() -> None:
    design = build_text(BROKEN_OUT.replace("TARGETS", "eos"))
    files = render_configs(design.configs, ["eos"])
    leaf = design.configs[0]
    assert leaf.os_port_names["eos"][:2] == ("Ethernet1/1", "Ethernet1/5")
    assert "interface Ethernet1/5\n" in files[f"configs/eos/{leaf.hostname}.cfg"].decode()


def site_switch(port_names: str) -> str:
    """A site catalog with one switch of 32 x 800G whose ports its platform names by ``port_names`` (YAML lines)."""
    return (
        "switches:\n  acme-th5-32x800g:\n    ports: 32\n    speed: 800G\n    rack_units: 1\n    power_w: 900\n"
        "    power_w_optics: 2100\n    port_names:\n" + port_names
    )


def test_a_site_catalog_names_its_own_platforms_ports_end_to_end(tmp_path: Path) -> None:
    """A platform that numbers even an unbroken port by lane, as a modular EOS switch's fixed ports do, says so in
    the site catalog; the build's tables and configurations take it."""
    intent = write_site(
        tmp_path, intent=BROKEN_OUT.replace("TARGETS", "eos").replace("nvidia-sn5600", "acme-th5-32x800g")
    )
    (tmp_path / "hw" / "switches.yaml").write_text(
        site_switch(
            '      eos: {whole: "Ethernet{cage}/1", broken_out: "Ethernet{cage}/{lane}"}\n'
            '      sonic: {whole: "Ethernet{serdes}", broken_out: "Eth{cage}-{subport}"}\n'
        )
    )
    intent.write_text(intent.read_text().replace("name: ports\n", "name: ports\ncatalog: hw/switches.yaml\n"))
    out = tmp_path / "out"
    code, _, err = run_cli("build", str(intent), "-o", str(out))
    assert code in (0, 1), err
    rows = list(csv.DictReader((out / "cabling.csv").open()))
    assert rows[0]["a_port"] == "Ethernet1/1"
    assert "interface Ethernet1/1\n" in (out / "configs" / "eos" / f"{rows[0]['a_device']}.cfg").read_text()


def test_a_bad_port_naming_is_reported_at_its_line(tmp_path: Path) -> None:
    switches = site_switch(
        '      eos: {whole: "Ethernet{port}", broken_out: "Ethernet{cage}/{lane}"}\n'
        '      frr: {whole: "eth{cage}", broken_out: "eth{cage}.{subport}"}\n'
    ) + (
        "targets:\n"
        '  sonic: {port_names: {whole: "Ethernet0", broken_out: "Ethernet{cage}"}}\n'
        '  eos: {port_names: {whole: "Et {cage}", broken_out: "Et{cage}/{lane!r}"}}\n'
    )
    intent = write_site(tmp_path, switches=switches)
    out = tmp_path / "out"
    code, stdout, err = run_cli("build", str(intent), "-o", str(out))
    assert (code, stdout, out.exists()) == (2, "", False)
    assert "Traceback" not in err
    where = str(tmp_path / "hw" / "switches.yaml")
    lines = err.splitlines()
    assert any(
        line.startswith(f"{where}:9: switches.acme-th5-32x800g.port_names.eos.whole: {{port}} is not a field")
        for line in lines
    ), err
    assert any(
        line.startswith(f"{where}:10: switches.acme-th5-32x800g.port_names.frr: frr's port names are not a site's")
        for line in lines
    ), err
    assert any(
        line.startswith(f"{where}:12: targets.sonic.port_names: ") and "whole: names every" in line for line in lines
    )
    assert any(line.startswith(f"{where}:13: targets.eos.port_names.whole: gives no interface name") for line in lines)
    assert any(line.startswith(f"{where}:13: targets.eos.port_names.broken_out: {{lane!r}} is not") for line in lines)


def test_a_chassis_names_its_ports_by_line_card_slot_and_port_on_the_card() -> None:
    """Arista's 7808R3: 36 ports to a line card (netbox-community devicetype-library DCS-7800R3A-36D-LC:
    Ethernet<slot>/<port>/1), line cards from slot 3; a fixed switch's rule is untouched by the card fields."""
    chassis = catalog().port_naming("eos", "arista-7808r3")
    assert chassis.name(0, 0, 1, 8, 0, 0) == "Ethernet3/1/1"
    assert chassis.name(35, 0, 1, 8, 280, 35) == "Ethernet3/36/1"
    assert chassis.name(36, 0, 1, 8, 288, 36) == "Ethernet4/1/1"
    assert chassis.name(287, 1, 2, 4, 2300, 575) == "Ethernet10/36/5"
    assert catalog().port_naming("eos", "arista-7060x6-64pe").name(1, 1, 2, 4, 12, 3) == "Ethernet2/5"


def test_a_site_rule_may_name_chassis_ports_by_card_but_not_every_port_alike() -> None:
    PortNamingDoc(whole="Ethernet{card}/{card_port}/1", broken_out="Ethernet{card}/{card_port}/{lane}")
    with pytest.raises(ValidationError, match="whole: names every port alike"):
        PortNamingDoc(whole="Ethernet{card}/1", broken_out="Ethernet{card}/{card_port}/{lane}")
    with pytest.raises(ValidationError, match="broken_out: names two links alike"):
        PortNamingDoc(whole="Ethernet{card}/{card_port}/1", broken_out="Ethernet{card}/{lane}")

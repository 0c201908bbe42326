"""Site catalogs: a site's own hardware laid over the shipped catalog, used end to end, carried in the output
folder so that the folder alone reproduces the design, and every problem of a site file reported at its line."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from designer.intent import parse_intent
from designer.pipeline import build
from designer.readback.built import built_catalogs
from designer.validation import validated_intent
from designer.verify.parsers import built_devices
from tests.conftest import ROOT
from tests.prerequisites import NVUESCHEMA, PYAVD, VTYSH, needs
from tests.test_intent_errors import run_cli

INTENT = """\
name: site-hw
catalog: [hw/switches.yaml, hw/overrides.yaml]
compute: {servers: 16, server: acme-gpu-8x400}
fabric:
  tiers: 2
  leaf: {model: acme-th5-32x800g}
targets: [frr, eos, nvue]
"""
SWITCHES = """\
# Our own switch and server, in designer/catalog.yaml's format.
switches:
  acme-th5-32x800g: {ports: 32, speed: 800G, rack_units: 1, power_w: 900, power_w_optics: 2100}
servers:
  acme-gpu-8x400:
    gpus: 8
    nics: 8
    nic_speed: 400G
    planes: 1
    power_kw: 11.5
    rack_units: 6
    nic_names: [ens1np0, ens2np0, ens3np0, ens4np0, ens5np0, ens6np0, ens7np0, ens8np0]
media:
  aoc: {label: active optical cable (AOC), optical: true, reach_m: {default: 30}, power_w: {400: 7, 800: 12}}
"""
OVERRIDES = """\
# A later file wins field by field: the switch's measured power, and the site's racks.
switches:
  acme-th5-32x800g: {power_w_optics: 1900}
facility: {rack_power_kw: 25, cooling: liquid}
"""


def write_site(folder: Path, intent: str = INTENT, switches: str = SWITCHES, overrides: str = OVERRIDES) -> Path:
    (folder / "hw").mkdir(parents=True, exist_ok=True)
    (folder / "hw" / "switches.yaml").write_text(switches)
    (folder / "hw" / "overrides.yaml").write_text(overrides)
    path = folder / "site.yaml"
    path.write_text(intent)
    return path


def test_a_site_switch_server_and_medium_design_end_to_end(tmp_path: Path) -> None:
    design = build(write_site(tmp_path))
    leaf = design.intent.leaf
    assert (leaf.model, leaf.ports, leaf.speed, leaf.power_w, leaf.power_w_optics) == (
        "acme-th5-32x800g",
        32,
        800,
        900,
        1900,
    )  # the later file's power_w_optics wins, the rest is kept
    assert (design.intent.server.model, design.intent.server.power_kw, design.intent.server.rack_units) == (
        "acme-gpu-8x400",
        11.5,
        6,
    )
    assert design.intent.hosts.nics[0] == "ens1np0"
    assert (design.intent.facility.rack_power_kw, design.intent.facility.cooling) == (25, "liquid")
    assert [name for name, _ in design.intent.facility.reach_m] == ["dac", "aec", "aoc", "multimode", "singlemode"]
    names = design.physical.medium_names()
    assert "aoc" in {names[medium] for medium in design.physical.link_medium}  # 7-30 m runs: before multimode
    # 32 x 800G broken out to 64 x 400G: 32 down, 32 up; one scalable unit of 32 servers has a leaf per rail (8)
    assert design.plan.switch_counts()["leaf"] == 8
    assert not [finding for finding in design.findings if finding.severity == "error"]


@needs(PYAVD, NVUESCHEMA, VTYSH)
def test_the_folder_carries_the_site_entries_and_reproduces_the_design_alone(tmp_path: Path) -> None:
    """validate-configs rebuilds the device models from the folder's intent.yaml: with the site files gone, the
    folder's site-catalog.yaml must give the same design (and Arista's own renderer, pyavd, then checks the EOS
    files of the site switch, as for every shipped one)."""
    intent = write_site(tmp_path / "repo")
    out = tmp_path / "repo" / "out"
    code, _, err = run_cli("build", str(intent), "-o", str(out))
    assert code == 0, err
    document = json.loads((out / "design.json").read_text())
    files = {entry["file"]: entry["sha256"] for entry in document["site_catalogs"]}
    assert list(files) == ["hw/switches.yaml", "hw/overrides.yaml"]
    import hashlib

    assert files["hw/switches.yaml"] == hashlib.sha256(SWITCHES.encode()).hexdigest()
    manifest = json.loads((out / "manifest.json").read_text())
    assert "site-catalog.yaml" in manifest["files"]
    moved = tmp_path / "elsewhere" / "out"
    moved.parent.mkdir()
    shutil.copytree(out, moved)
    shutil.rmtree(tmp_path / "repo")
    devices, _, _ = built_devices(moved)
    built = build(write_site(tmp_path / "again"))
    assert {name: device.interfaces for name, device in devices.items()} == {
        config.hostname: config.interfaces for config in built.configs
    }
    code, report, err = run_cli("validate-configs", str(moved))
    assert code == 0, report + err
    assert "pyavd:" in report and "nvue-openapi:" in report  # both read the release and models from the folder


@needs(PYAVD)
def test_an_edited_site_catalog_in_a_folder_is_refused(tmp_path: Path) -> None:
    intent = write_site(tmp_path)
    out = tmp_path / "out"
    assert run_cli("build", str(intent), "-o", str(out))[0] == 0
    path = out / "site-catalog.yaml"
    path.write_text(path.read_text().replace("900", "901"))
    from designer.errors import InputError

    with pytest.raises(InputError, match=r"site-catalog\.yaml.*changed after 'designer build'"):
        built_devices(out)


def test_a_huge_site_catalog_in_a_folder_is_refused_unread(tmp_path: Path) -> None:
    """Every file of a built folder is read within the cap of its kind (designer/files.py)."""
    intent = write_site(tmp_path)
    out = tmp_path / "out"
    assert run_cli("build", str(intent), "-o", str(out))[0] == 0
    os.truncate(out / "site-catalog.yaml", 3 << 30)  # a sparse 3 GB file: reading it whole would take 3 GB
    from designer.errors import InputError

    with pytest.raises(InputError, match=r"3,221,225,472 bytes, larger than the 1 MiB a site catalog may hold"):
        built_catalogs(out)


def test_a_shipped_entry_is_overridden_field_by_field(tmp_path: Path) -> None:
    intent = write_site(
        tmp_path,
        intent="""\
name: override
catalog: hw/switches.yaml
compute: {servers: 32, server: dgx-h100}
fabric: {leaf: {model: generic-64x400g}}
""",
        switches="switches:\n  generic-64x400g: {power_w_optics: 1234}\n",
    )
    shipped = parse_intent(
        "name: o\ncompute: {servers: 32, server: dgx-h100}\nfabric: {leaf: {model: generic-64x400g}}\n"
    ).leaf
    leaf = validated_intent(intent).leaf
    assert (leaf.ports, leaf.speed, leaf.power_w) == (shipped.ports, shipped.speed, shipped.power_w)
    assert (shipped.power_w_optics, leaf.power_w_optics) == (1650, 1234)


def test_every_problem_of_every_site_file_is_reported_at_its_line(tmp_path: Path) -> None:
    intent = write_site(
        tmp_path,
        switches="""\
switches:
  acme-th5-32x800g: {ports: 0, speed: 800G, rack_units: 1, power_w: 900, power_w_optics: 2100}
  half-known: {ports: 64}
servers:
  acme-gpu-8x400: {gpus: 8, nics: 8, nic_speed: 333G, planes: 1, power_kw: 11.5, rack_units: 6, colour: red}
""",
        overrides="facility: {cooling: water}\n",
    )
    out = tmp_path / "out"
    code, stdout, err = run_cli("build", str(intent), "-o", str(out))
    assert (code, stdout, out.exists()) == (2, "", False)
    assert "Traceback" not in err
    lines = err.splitlines()
    switches, overrides = str(tmp_path / "hw" / "switches.yaml"), str(tmp_path / "hw" / "overrides.yaml")
    assert f"{switches}:2: switches.acme-th5-32x800g.ports: Input should be greater than 0 (got 0)" in lines
    assert any(
        line.startswith(f"{switches}:5: servers.acme-gpu-8x400.nic_speed: 333G is not a link speed") for line in lines
    )
    assert any(line.startswith(f"{switches}:5: servers.acme-gpu-8x400.colour: unknown key") for line in lines)
    assert any(line.startswith(f"{overrides}:1: facility.cooling: Input should be 'air' or 'liquid'") for line in lines)
    assert lines[-1].endswith("nothing was written.")


def test_a_new_entry_must_be_whole_and_a_missing_file_is_named(tmp_path: Path) -> None:
    intent = write_site(
        tmp_path,
        intent=INTENT.replace("hw/overrides.yaml", "hw/missing.yaml"),
        switches=SWITCHES + "  half-known: {ports: 64}\n".replace("  half", "  half"),
    )
    code, _, err = run_cli("plan", str(intent))
    assert code == 2
    assert f"{tmp_path / 'hw' / 'missing.yaml'}:1: (top-level): no such file; give the path of a site catalog" in err
    intent = write_site(tmp_path, switches=SWITCHES.replace("switches:\n", "switches:\n  half-known: {ports: 64}\n"))
    code, _, err = run_cli("plan", str(intent))
    assert code == 2
    assert (  # at the entry in the site file that gives it
        f"{tmp_path / 'hw' / 'switches.yaml'}:3: switches.half-known: a new switch needs speed, rack_units, power_w, "
        "power_w_optics" in err
    )
    assert len(err.splitlines()) == 2  # the models the broken catalog defines are not reported unknown


def test_an_unknown_model_lists_the_site_models_too(tmp_path: Path) -> None:
    intent = write_site(tmp_path, intent=INTENT.replace("acme-th5-32x800g}", "acme-th5-32x800}"))
    code, _, err = run_cli("plan", str(intent))
    assert code == 2
    assert "fabric.leaf.model: unknown switch model 'acme-th5-32x800'; known models: " in err
    assert "acme-th5-32x800g" in err


def test_a_site_may_state_where_its_switch_runs_adaptive_routing(tmp_path: Path) -> None:
    """NVUE renders adaptive routing only on switches the catalog lists for it (catalog targets.nvue); a site that
    runs Spectrum-4 under its own model name says so in its catalog."""
    intent = """\
name: ar
catalog: hw/switches.yaml
compute: {servers: 32, server: dgx-h100}
fabric: {leaf: {model: site-sn5600}}
targets: [nvue]
load_balancing: {mode: adaptive}
"""
    switches = (
        "switches:\n  site-sn5600: {ports: 64, speed: 800G, rack_units: 2, power_w: 1200, power_w_optics: 2950}\n"
    )
    code, _, err = run_cli("plan", str(write_site(tmp_path, intent=intent, switches=switches)))
    assert code == 2 and "adaptive (only on nvidia-sn5600 with 200G/400G links)" in err
    switches += "targets:\n  nvue: {load_balancing: {platforms: {adaptive: [nvidia-sn5600, site-sn5600]}}}\n"
    code, _, err = run_cli("plan", str(write_site(tmp_path, intent=intent, switches=switches)))
    assert code == 0, err


def test_a_site_whose_release_lacks_bgp_unnumbered_has_the_underlay_refused(tmp_path: Path) -> None:
    """Every shipped target runs routing.underlay: unnumbered; a site catalog that lists only numbered for one (an
    older release on its switches) has an unnumbered intent refused at the field, with what each target runs."""
    intent = """\
name: un
catalog: hw/switches.yaml
compute: {servers: 32, server: dgx-h100}
fabric: {leaf: {model: generic-64x400g}}
targets: [frr, nvue]
routing: {underlay: unnumbered}
"""
    code, _, err = run_cli("plan", str(write_site(tmp_path, intent=intent, switches="switches: {}\n")))
    assert code == 0, err
    switches = "switches: {}\ntargets:\n  nvue: {underlays: [numbered]}\n"
    code, _, err = run_cli("plan", str(write_site(tmp_path, intent=intent, switches=switches)))
    assert code == 2
    assert (
        "site.yaml:6: routing.underlay: nvue cannot run a unnumbered underlay on this site's platforms (catalog "
        "targets.<os>.underlays; each target runs: FRR numbered, unnumbered; NVUE numbered); choose an underlay every "
        "target runs or drop nvue from targets"
    ) in err


def test_the_intent_schema_lets_an_editor_take_a_site_model() -> None:
    """Model names are open in the intent's JSON Schema (the shipped ones are its examples): only the loader knows
    the site catalogs an intent names, and it refuses an unknown model at its line
    (test_an_unknown_model_lists_the_site_models_too)."""
    import jsonschema

    schema = json.loads((ROOT / "intents" / "intent.schema.json").read_text())
    intent = {"name": "x", "compute": {"servers": 1, "server": "acme-gpu"}, "fabric": {"leaf": {"model": "acme"}}}
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(intent)) == []


def test_the_committed_site_catalog_schema_is_what_designer_prints() -> None:
    code, out, err = run_cli("schema", "--catalog")
    assert (code, err) == (0, "")
    assert out == (ROOT / "intents" / "catalog.schema.json").read_text(), (
        "intents/catalog.schema.json is stale: run 'designer schema --catalog > intents/catalog.schema.json'"
    )


HOSTILE = """\
switches:
  acme-th5-32x800g: {ports: 32, speed: 800G, rack_units: 1, power_w: 900, power_w_optics: 2100}
servers:
  acme-gpu-8x400: {gpus: 8, nics: 8, nic_speed: 400G, planes: 1, power_kw: 11.5, rack_units: 6, nic: evil,
                   nic_names: [ens1np0, ens2np0, ens3np0, ens4np0, ens5np0, ens6np0, ens7np0, ens8np0]}
nics:
  evil: {vendor: acme, label: "<script>alert(1)</script>\\n## forged", ports: 1, speed: 400, planes: [1],
         driver: "x`y", rdma_names: "rx_{}", host_qos: vendor, qos_tools: "[t](javascript:alert(1))",
         source: "*bold* <b>"}
media:
  aoc: {label: "=HYPERLINK(\\"http://x\\")\\rforged,row", optical: true, reach_m: {default: 30},
        power_w: {400: 7, 800: 12}}
"""
"""A site catalog whose free text would forge lines of summary.md and rows of bom.csv, or run as a formula."""


def test_site_catalog_text_is_escaped_in_summary_md_and_neutralised_in_every_csv(tmp_path: Path) -> None:
    intent = write_site(tmp_path, INTENT + "facility: {media: optics}\n", HOSTILE, "facility: {cooling: liquid}\n")
    out = tmp_path / "out"
    code, _, err = run_cli("build", str(intent), "-o", str(out))
    assert code == 0, err
    summary = (out / "summary.md").read_text()
    assert "\\<script>alert(1)\\</script>\\\\n## forged (evil), driver x\\`y" in summary
    assert "\\[t\\](javascript:alert(1))" in summary and "source: \\*bold\\* \\<b>." in summary
    assert not re.search(r"(?<!\\)<script>", summary)
    assert not any(line.startswith("## forged") for line in summary.splitlines())
    bom = (out / "bom.csv").read_bytes()
    assert b'cable,"\'=HYPERLINK(""http://x"")\rforged,row fiber",' in bom
    rows = list(csv.reader(io.StringIO(bom.decode(), newline="")))
    assert all(len(row) == 4 for row in rows)  # no row forged by the carriage return or the comma
    assert not any(cell.startswith("=") for row in rows for cell in row)


def test_a_new_medium_without_a_default_reach_is_reported_not_a_traceback(tmp_path: Path) -> None:
    switches = SWITCHES.replace("reach_m: {default: 30}", "reach_m: {400: 30}")
    code, out, err = run_cli("build", str(write_site(tmp_path, switches=switches)), "-o", str(tmp_path / "out"))
    assert (code, out) == (2, "") and "Traceback" not in err
    assert "media.aoc.reach_m: needs a default reach for the speeds it does not list" in err


def test_a_site_servers_nic_and_rdma_names_follow_the_rules_of_hosts(tmp_path: Path) -> None:
    switches = SWITCHES.replace(
        "nic_names: [ens1np0, ens2np0, ens3np0, ens4np0, ens5np0, ens6np0, ens7np0, ens8np0]",
        "nic_names: [ens1np0, ens1np0, ens3np0, ens4np0, ens5np0, ens6np0, ens7np0, ens8np0]\n"
        "    rdma_devices: [mlx5_0, mlx5_1]",
    )
    code, out, err = run_cli("build", str(write_site(tmp_path, switches=switches)), "-o", str(tmp_path / "out"))
    assert (code, out) == (2, "") and "Traceback" not in err
    assert "servers.acme-gpu-8x400.nic_names[1]: 'ens1np0' is listed twice; each NIC port has its own Linux" in err
    assert "servers.acme-gpu-8x400.rdma_devices: 2 names for a server with 8 backend NIC ports" in err
    yes = SWITCHES.replace("ens8np0]", 'ens8np0", "yes"]'.replace('ens8np0"', "ens7np1")).replace("[ens1np0, ", "[")
    code, _, err = run_cli("build", str(write_site(tmp_path / "yes", switches=yes)), "-o", str(tmp_path / "out"))
    assert code == 2 and "'yes' is not a NIC's name: a YAML reader takes it for a boolean or null" in err, err


def test_a_site_switch_without_what_a_tier_takes_from_it_is_refused_at_its_lines(tmp_path: Path) -> None:
    """A port runs whole or broken out into at most 8 links (an 800G OSFP port: 1 x 800G to 8 x 100G, as NVIDIA's
    SN5600 and Juniper's OSFP800 port tables give), so a 400G port runs no 800G link; a chassis is whole line cards
    (Arista 7800R3: 36 ports a card, 7800R3 Platform Architecture white paper, Table 1). Every problem at once, at
    its line of the site file, exit 2, nothing written."""
    switches = SWITCHES.replace(
        "switches:\n",
        "switches:\n"
        "  acme-a: {ports: 32, speed: 400G, rack_units: 1, power_w: 900, power_w_optics: 2100,\n"
        "           link_speeds: [800, 200]}\n"
        "  acme-b: {ports: 32, speed: 800G, rack_units: 1, power_w: 900, power_w_optics: 2100, first_line_card: 3}\n"
        "  acme-c: {ports: 100, speed: 400G, rack_units: 10, power_w: 9000, power_w_optics: 16000,\n"
        "           line_card_ports: 36}\n",
    )
    out = tmp_path / "out"
    code, stdout, err = run_cli("build", str(write_site(tmp_path, switches=switches)), "-o", str(out))
    assert (code, stdout, out.exists()) == (2, "", False)
    assert "Traceback" not in err
    site = tmp_path / "hw" / "switches.yaml"
    lines = err.splitlines()
    assert lines[:3] == [
        f"{site}:4: switches.acme-a.link_speeds: 800G is not a speed its 400G ports run at (a port runs whole or "
        "broken out into at most 8 links); valid: 50G, 100G, 200G, 400G",
        f"{site}:5: switches.acme-b.first_line_card: only a chassis has line cards; give line_card_ports (the ports "
        "of one card) beside it, or remove first_line_card",
        f"{site}:7: switches.acme-c.line_card_ports: 36 ports a line card do not fill the chassis's 100 ports "
        "(ports: 100) with whole cards; valid: a divisor of 100, such as 20, 25, 50, 100",
    ]
    assert lines[3:] == ["3 errors in the intent; nothing was written."]


def test_a_chassis_is_refused_for_an_os_that_would_name_its_ports_without_the_line_card(tmp_path: Path) -> None:
    """EOS names a 7800R3 chassis's ports Ethernet<slot>/<port>/1 (netbox-community devicetype-library
    DCS-7800R3A-36D-LC); an OS whose naming of a chassis has no {card} would write a fixed switch's names (swp1 to
    swp288) that no line card has: refused at the tier's model, naming each OS and the fix, while a site chassis
    given EOS names with {card} builds."""
    switches = SWITCHES.replace(
        "switches:\n",
        "switches:\n"
        "  acme-chassis: {ports: 144, speed: 400G, rack_units: 10, power_w: 9000, power_w_optics: 16000,\n"
        "                 line_card_ports: 36}\n",
    )
    intent = INTENT.replace(
        "  leaf: {model: acme-th5-32x800g}\n", "  leaf: {model: acme-th5-32x800g}\n  spine: {model: acme-chassis}\n"
    )
    code, stdout, err = run_cli("plan", str(write_site(tmp_path, intent=intent, switches=switches)))
    assert (code, stdout) == (2, "") and "Traceback" not in err
    lines = err.splitlines()
    assert [line.split(" names its ports")[0] for line in lines[:-1]] == [
        f"{tmp_path / 'site.yaml'}:7: fabric.spine.model: acme-chassis is a chassis of 36-port line cards, and {os}"
        for os in ("eos", "frr", "nvue")
    ]
    assert lines[0].endswith(
        "give switches.acme-chassis.port_names.eos with {card} and {card_port} in a site catalog (as EOS names a "
        "7800R3's: Ethernet{card}/{card_port}/1), or drop eos from targets"
    )
    named = switches.replace(
        "line_card_ports: 36}",
        'line_card_ports: 36,\n                 port_names: {eos: {whole: "Ethernet{card}/{card_port}/1",\n'
        '                                    broken_out: "Ethernet{card}/{card_port}/{lane}"}}}',
    )
    only_eos = intent.replace("targets: [frr, eos, nvue]", "targets: [eos]")
    design = build(write_site(tmp_path / "named", intent=only_eos, switches=named))
    spine = next(device for device in design.configs if device.model == "acme-chassis")
    assert spine.os_port_names["eos"][:2] == ("Ethernet1/1/1", "Ethernet1/2/1")
    assert spine.os_port_names["eos"][36] == "Ethernet2/1/1"


def test_the_configs_and_the_cables_follow_the_catalog_the_design_is_made_with() -> None:
    """One catalog path: the renderer gives each view its OS's entry of the design's catalog (EOS's MTU limit, NVUE's
    watchdog ranges and default release) and the bill of materials orders cables from its lengths, so an entry the
    shipped catalog does not have shows in the files."""
    from designer.backend.physical.cables import ordered_length
    from designer.catalog import catalog
    from designer.pipeline import design
    from designer.render import Renderer

    built = design(
        parse_intent(
            "name: t\ncompute: {servers: 8, server: dgx-h100}\nfabric: {leaf: {model: generic-64x400g}}\n"
            "targets: [eos, nvue, frr]\nqos: {mtu: 9216}\n"
        )
    )
    shipped = catalog()
    targets = dict(shipped.targets)
    targets["eos"] = dataclasses.replace(targets["eos"], max_mtu=9100)
    targets["nvue"] = dataclasses.replace(targets["nvue"], pfc_watchdog_poll_ms=(50, 50), default_release="5.10")
    site = dataclasses.replace(shipped, targets=targets, cable_lengths_m=(0.5, 3.5))
    device = built.configs[0]
    assert "mtu 9214" in Renderer().render("eos", device)
    assert "mtu 9100" in Renderer(hardware=site).render("eos", device)
    shipped_nvue, site_nvue = Renderer().render("nvue", device), Renderer(hardware=site).render("nvue", device)
    assert "polling-interval: 50" in site_nvue and "polling-interval: 50" not in shipped_nvue
    assert ("enable: on" in site_nvue, "enable: on" in shipped_nvue) == (True, False)  # 5.10's forms, 5.15's
    assert (ordered_length(21, shipped), ordered_length(21, site)) == (25, 35)


@needs(PYAVD)
def test_arista_s_rendering_and_the_avd_export_read_the_design_s_catalog_too() -> None:
    """pyavd's comparison (validate-configs) and the AVD export take EOS's limits from the design's catalog, as the
    renderer does: an EOS file written under a site's 9,100-byte MTU limit matches Arista's rendering of the design
    with that catalog and not with the shipped one, and the export's fabric MTU is the site's."""
    from designer.catalog import catalog
    from designer.export.avd import fabric_settings
    from designer.pipeline import design
    from designer.render import Renderer
    from designer.verify import pyavd_eos

    built = design(
        parse_intent(
            "name: t\ncompute: {servers: 8, server: dgx-h100}\nfabric: {leaf: {model: generic-64x400g}}\n"
            "targets: [eos]\nqos: {mtu: 9216}\n"
        )
    )
    shipped = catalog()
    site = dataclasses.replace(
        shipped, targets={**shipped.targets, "eos": dataclasses.replace(shipped.targets["eos"], max_mtu=9100)}
    )
    device = built.configs[0]
    text = Renderer(hardware=site).render("eos", device)
    assert pyavd_eos.compare(device, text, site.targets["eos"]) == []
    assert pyavd_eos.compare(device, text, shipped.targets["eos"]) != []
    catalogs = dataclasses.replace(built.intent.catalogs, catalog=site)
    on_site = dataclasses.replace(built, intent=dataclasses.replace(built.intent, catalogs=catalogs))
    assert (fabric_settings(built)["p2p_uplinks_mtu"], fabric_settings(on_site)["p2p_uplinks_mtu"]) == (9214, 9100)

"""EOS files against Arista's own templates: pyavd's ``eos_cli_config_gen`` renders each switch of the design
from an AVD structured config built from the device model (``designer/verify/pyavd_eos.py``), and every line of our
file must appear in that rendering under the same parents (and every line of it in ours). Plus the two EOS
defects an audit found: the aggregate's level and the watchdog on the ports."""

from __future__ import annotations

import importlib.util
import pickle
import re
import sys
from functools import cache
from pathlib import Path

import pytest

from designer.cli import main
from designer.design import Design
from designer.pipeline import build
from designer.render import render_configs
from designer.verify import pyavd_eos
from tests.conftest import ROOT
from tests.helpers import EOS_LIMITS, build_text, intent_text
from tests.prerequisites import PYAVD, VALIDATORS, needs

HAVE_PYAVD = importlib.util.find_spec("pyavd") is not None
NEED_PYAVD = "Arista's templates are needed: pip install pyavd (or pip install '.[test]')"
DESIGNS = {
    "small-2tier": lambda: build(ROOT / "tests" / "intents" / "small-2tier.yaml"),
    "small-3tier": lambda: build(ROOT / "tests" / "intents" / "small-3tier.yaml"),
    "juniper, 5% CNP cap": lambda: build_text(
        intent_text(servers=4, extra="qos: {profile: juniper, queue_bytes: 3145728}")
    ),
    "odd thresholds, 1 s watchdog": lambda: build_text(
        intent_text(
            servers=4,
            extra=(
                "qos: {ecn_min: 150001, ecn_max: 1500001, pfc_watchdog_detection_ms: 1000, "
                "pfc_watchdog_restoration_ms: 3000}\nrouting: {server_subnets: each}"
            ),
        )
    ),
    "watchdog and ecn off": lambda: build_text(intent_text(servers=4, extra="qos: {ecn: false, pfc_watchdog: false}")),
    # BGP unnumbered, as AVD's underlay_rfc5549 renders it: ``ip routing ipv6 interfaces``, ``ipv6 enable`` on the
    # fabric ports, ``neighbor interface EthernetN peer-group ... remote-as ...`` and IPv6 next hops for IPv4.
    "unnumbered, 3 tiers": lambda: build_text(
        (ROOT / "tests" / "intents" / "small-3tier.yaml").read_text() + "routing: {underlay: unnumbered}\n"
    ),
}


@cache
def eos_files(name: str) -> tuple[Design, dict[str, str]]:
    design = DESIGNS[name]()
    files = render_configs(design.configs, ["eos"])
    return design, {device.hostname: files[f"configs/eos/{device.hostname}.cfg"].decode() for device in design.configs}


@needs(PYAVD)
@pytest.mark.parametrize("name", DESIGNS)
def test_every_eos_file_is_what_aristas_templates_render_for_the_design(name: str) -> None:
    design, texts = eos_files(name)
    for device in design.configs:
        assert pyavd_eos.compare(device, texts[device.hostname], EOS_LIMITS) == [], device.hostname


@needs(PYAVD)
def test_an_unnumbered_eos_switch_peers_by_interface_with_no_fabric_address() -> None:
    """The unnumbered lines themselves, so the comparison above cannot pass on a file without them."""
    design, texts = eos_files("unnumbered, 3 tiers")
    spine = next(device for device in design.configs if device.role == "spine")
    text = texts[spine.hostname]
    assert "ip routing ipv6 interfaces\n" in text and "\nip routing\n" not in text
    neighbors = re.findall(r"^   neighbor interface (Ethernet\S+) peer-group (\S+) remote-as (\d+)$", text, re.M)
    assert len(neighbors) == len(spine.bgp.neighbors) > 0
    assert {group for _, group, _ in neighbors} == {"LEAVES", "SUPER-SPINES"}
    assert "      neighbor SUPER-SPINES next-hop address-family ipv6 originate\n" in text
    fabric_ports = [interface for interface in spine.interfaces if interface.role == "fabric"]
    assert text.count("   ipv6 enable\n") == len(fabric_ports) and "ip address 10.0." not in text


@needs(PYAVD)
def test_the_comparison_names_a_line_arista_would_not_write_and_one_it_would() -> None:
    design, texts = eos_files("small-2tier")
    leaf = design.configs[0]
    lines = texts[leaf.hostname].splitlines()
    aggregate = next(number for number, line in enumerate(lines) if "aggregate-address" in line)
    moved = lines[:aggregate] + lines[aggregate + 1 :]
    moved.append("      " + lines[aggregate].strip())  # under address-family ipv4, where EOS does not take it
    assert pyavd_eos.compare(leaf, "\n".join(moved), EOS_LIMITS) == [
        f"line {len(moved)}: router bgp {leaf.asn} > address-family ipv4 > {lines[aggregate].strip()} is not in "
        "Arista's rendering",
        f"missing router bgp {leaf.asn} > {lines[aggregate].strip()} (Arista's rendering has it)",
    ]
    without = "\n".join(line for line in lines if line != "   priority-flow-control pause watchdog")
    assert pyavd_eos.compare(leaf, without, EOS_LIMITS) == [
        "missing qos profile ROCE > priority-flow-control pause watchdog (Arista's rendering has it)"
    ]


@needs(PYAVD)
def test_the_structured_config_uses_only_keys_of_arista_schema() -> None:
    import pyavd

    for name in DESIGNS:
        design, _ = eos_files(name)
        result = pyavd.validate_structured_config(pyavd_eos.structured_config(design.configs[0], EOS_LIMITS))
        assert not result.validation_result.violations and result.validated_data is not None, name
        assert not result.validation_result.deprecations, name


def test_contexts_follow_eos_indentation() -> None:
    text = (
        "! comment\nrouter bgp 1\n   neighbor 1.1.1.1 remote-as 2\n   !\n   address-family ipv4\n"
        "      network 10.0.0.0/31\ninterface Ethernet1\n   mtu 9214\nend\n"
    )
    assert list(pyavd_eos.contexts(text)) == [
        (2, (), "router bgp 1"),
        (3, ("router bgp 1",), "neighbor 1.1.1.1 remote-as 2"),
        (5, ("router bgp 1",), "address-family ipv4"),
        (6, ("router bgp 1", "address-family ipv4"), "network 10.0.0.0/31"),
        (7, (), "interface Ethernet1"),
        (8, ("interface Ethernet1",), "mtu 9214"),
    ]


def test_the_aggregate_is_announced_at_router_bgp_level() -> None:
    # EOS takes aggregate-address in router bgp (or a VRF), not under address-family ipv4.
    design, texts = eos_files("small-2tier")
    for device in design.configs:
        text = texts[device.hostname]
        block = text[text.index("router bgp") :]
        aggregates = re.findall(r"^( *)aggregate-address (\S+) summary-only$", block, re.MULTILINE)
        assert aggregates == [("   ", prefix) for prefix in device.bgp.aggregates], device.hostname
        if aggregates:
            assert block.index("aggregate-address") < block.index("address-family ipv4")


def test_the_pfc_watchdog_is_on_for_every_port_through_the_qos_profile() -> None:
    for name, on in (("small-2tier", True), ("watchdog and ecn off", False)):
        design, texts = eos_files(name)
        for device in design.configs:
            text = texts[device.hostname]
            profile = text[text.index("qos profile ROCE") :].split("\n!\n")[0]
            assert ("\n   priority-flow-control pause watchdog\n" in profile) is on, device.hostname
            assert text.count("   service-profile ROCE\n") == len(device.interfaces)


@needs(*VALIDATORS)
def test_validate_configs_compares_eos_files_with_the_design_of_the_folders_intent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    intent = ROOT / "tests" / "intents" / "small-2tier.yaml"
    output = tmp_path / "out"
    assert main(["build", str(intent), "-o", str(output)]) == 0
    assert (output / "intent.yaml").read_bytes() == intent.read_bytes()  # the exact bytes, hashed in the manifest
    switches = len(build(intent).configs)
    monkeypatch.setitem(sys.modules, "pyavd", None)  # pyavd not installed: counted, not failed
    capsys.readouterr()
    main(["validate-configs", str(output)])
    assert (
        f"not checked: {switches} eos files (pyavd is not installed; comparing them with Arista's own rendering "
        "needs it: pip install pyavd)" in capsys.readouterr().out
    )
    monkeypatch.undo()
    (output / "configs" / "sonic").rename(tmp_path / "sonic")  # this test is about EOS; no libyang or vtysh needed
    (output / "configs" / "frr").rename(tmp_path / "frr")
    assert main(["validate-configs", str(output)]) == 0  # no --intent: the folder holds its intent
    out = capsys.readouterr().out
    assert f"pyavd: {switches} of {switches} files valid" in out and "eos files" not in out
    leaf = output / "configs" / "eos" / "p0-su0-r0-leaf.cfg"
    original = leaf.read_text()
    leaf.write_text(original.replace("   service-profile ROCE\n", "   service-profile ROCEV2\n", 1))
    assert main(["validate-configs", str(output)]) == 1
    out = capsys.readouterr().out
    assert re.search(
        r"INVALID configs/eos/p0-su0-r0-leaf\.cfg \(pyavd\): line \d+: interface Ethernet1/1 > "
        r"service-profile ROCEV2 is not in Arista's rendering; missing interface Ethernet1/1 > "
        r"service-profile ROCE \(Arista's rendering has it\)",
        out,
    ), out
    leaf.write_text(original)
    copy = output / "intent.yaml"
    copy.write_bytes(copy.read_bytes().replace(b"servers:", b"servers: ", 1))  # edited after the build: refused
    assert main(["validate-configs", str(output)]) == 2
    assert f"{copy}: its sha256 differs from the intent_sha256 manifest.json records" in capsys.readouterr().err
    copy.unlink()
    copy.symlink_to(intent)  # a link, even to the right bytes, is not read
    assert main(["validate-configs", str(output)]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    copy.unlink()  # a folder built before designer kept its intent: said, not failed
    assert main(["validate-configs", str(output)]) == 0
    assert (
        f"not checked: {switches} eos files ({output} has no intent.yaml (an older designer built it); rebuild "
        "it with 'designer build INTENT')" in capsys.readouterr().out
    )


RAW_FORMS = {
    "ip load-sharing trident fields ip": re.compile(
        r"ip load-sharing trident fields ip( (source-ip|destination-ip|source-port|destination-port))+"
    ),
}
"""Lines pyavd cannot render, by the form a public Arista source documents: the ``fields`` form of EOS's selectable
hashing fields (Arista TOI "Selectable hashing fields", EOS-4.20.1F, arista.com/en/support/toi/tag/hashing)."""


@needs(PYAVD)
def test_lines_aristas_templates_cannot_render_are_of_a_form_arista_documents() -> None:
    """pyavd 6.4.0's eos_cli_config_gen schema (``eos_cli_config_gen.schema.pickle``) has no key that renders
    ``ip load-sharing``: its only load-balancing key is ``load_balance.policies.sand_profiles`` (Jericho), beside
    ``port_channel.load_balance_trident_udf``. Such lines go to the switch as raw CLI (``eos_cli``), unproven by
    Arista's templates, and a line EOS rejects fails the whole configuration push, so each must be of a form a
    public source documents: ``ip load-sharing trident seed N`` is not (no Arista manual, TOI or AVD key names
    it), and EOS picks its own seed."""
    import pyavd._eos_cli_config_gen.schema as schema_package

    schema = pickle.loads((Path(schema_package.__file__).parent / "eos_cli_config_gen.schema.pickle").read_bytes())
    assert not [key for key in schema["keys"] if "load_sharing" in key or "hash_seed" in key]
    assert list(schema["keys"]["load_balance"]["keys"]["policies"]["keys"]) == ["sand_profiles"]
    for name in DESIGNS:
        design, _ = eos_files(name)
        for device in design.configs:
            raw = pyavd_eos.structured_config(device, EOS_LIMITS)["eos_cli"].splitlines()
            assert raw and all(any(form.fullmatch(line) for form in RAW_FORMS.values()) for line in raw), raw

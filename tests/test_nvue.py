"""NVUE files against NVIDIA's own command reference: every generated ``startup.yaml``, flattened into the
``nv set`` paths it stands for, must use only paths and value forms that ``tests/vendor/nvue/paths-5.x.csv``
(transcribed from NVIDIA's documentation, sources in its README) lists for the chosen Cumulus Linux release;
and against NVIDIA's NVUE OpenAPI schema of that release (PyPI ``nvueschema``, :mod:`designer.verify.nvue_openapi`):
paths and value types. Plus the defects an audit found: breakouts, ECN units, the watchdog's polling range,
release key forms and the CNP cap."""

from __future__ import annotations

import csv
import ipaddress
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest
import yaml

from designer.catalog import catalog
from designer.design import Design
from designer.pipeline import build, validated_intent
from designer.render import Renderer, rendered
from designer.render.nvue import watchdog_polls
from designer.verify.nvue_openapi import nvueschema_releases as schema_releases
from designer.verify.nvue_openapi import problems as schema_problems
from tests.conftest import ROOT
from tests.helpers import build_text, intent_text
from tests.prerequisites import NVUESCHEMA, needs
from tests.test_intent_errors import run_cli

PATHS = ROOT / "tests" / "vendor" / "nvue" / "paths-5.x.csv"
RELEASES = catalog().targets["nvue"].releases
PLACEHOLDERS = {
    "<swp>": r"swp\d+(s\d+)?",
    "<if>": r"swp\d+(s\d+)?|lo|eth\d+",
    "<id>": r"\d+\.\d+\.\d+\.\d+|swp\d+(s\d+)?",
    "<ip|swp>": r"\d+\.\d+\.\d+\.\d+|swp\d+(s\d+)?",
    "<prefix>": r"[0-9a-fA-F.:]+/\d+",
    "<ipv4-prefix>": r"\d+\.\d+\.\d+\.\d+/\d+",
    "<mode>": r"[1248]x|disabled|loopback",
    "<tc-list>": r"\d(,\d)*",
    "<sp>": r"\d",
    "<dscp-list>": r"\d{1,2}(,\d{1,2})*",
}
"""What a placeholder in a path of the table stands for; any other ``<...>`` is one word."""


@dataclass(frozen=True)
class Row:
    """One row of the table: a path pattern, its value form and the releases it holds for."""

    path: tuple[str, ...]
    form: str
    first: tuple[int, int]
    last: tuple[int, int]

    def holds_for(self, release: tuple[int, int]) -> bool:
        return self.first <= release <= self.last


def _release(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


def _releases(text: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """``5.x``, ``5.6+`` or ``5.0-5.14`` (comments may follow) as the first and last release."""
    match = re.match(r"(5\.x)|(5\.\d+)\+|(5\.\d+)-(5\.\d+)", text)
    assert match, f"unreadable releases column {text!r}"
    if match[1]:
        return (5, 0), (5, 99)
    if match[2]:
        return _release(match[2]), (5, 99)
    return _release(match[3]), _release(match[4])


def _tokens(path: str) -> tuple[str, ...]:
    """A path of the table as tokens; ``<ip|swp>`` stays one token."""
    return tuple(re.findall(r"<[^>]+>|\S+", path))


@cache
def table() -> tuple[Row, ...]:
    with PATHS.open() as handle:
        return tuple(
            Row(_tokens(row["path"]), row["value_form"], *_releases(row["releases"])) for row in csv.DictReader(handle)
        )


def accepts(form: str, value: str | None) -> bool:
    """Whether ``value`` (None for no value) has the form ``form`` (grammar in tests/vendor/nvue/README.md)."""
    form = re.sub(r"\s+\([^()]*\)$", "", form) if form != "(no value)" else form
    if value is None:
        return form == "(no value)"
    for alternative in form.split("|"):
        if (match := re.fullmatch(r"(\d+)-(\d+)", alternative)) and value.isdigit():
            if int(match[1]) <= int(value) <= int(match[2]):
                return True
        elif alternative.startswith("<") and alternative.endswith(">"):
            if value.strip():
                return True
        elif alternative == "integer":
            if value.isdigit():
                return True
        elif alternative in ("IPv4 address", "IPv4 prefix", "IPv4 or IPv6 prefix"):
            try:
                parsed = ipaddress.ip_interface(value) if "prefix" in alternative else ipaddress.ip_address(value)
            except ValueError:
                continue
            if ("/" in value) == ("prefix" in alternative) and (parsed.version == 4 or "IPv6" in alternative):
                return True
        elif alternative == value:
            return True
    return False


@cache
def _token_matches(pattern: str, token: str) -> bool:
    if not pattern.startswith("<"):
        return pattern == token
    return re.fullmatch(PLACEHOLDERS.get(pattern, r"[^\s]+"), token) is not None


def row_accepts(row: Row, path: tuple[str, ...], value: str | None) -> bool:
    """Whether ``row`` stands for the ``nv set`` path and value: the value is the leaf's, or the path's last
    token when the leaf is empty (an id such as a prefix, or a keyword written as a key)."""
    readings = [(path, value)] + ([(path[:-1], path[-1])] if value is None else [])
    for tokens, leaf in readings:
        if len(tokens) != len(row.path) or not all(map(_token_matches, row.path, tokens)):
            continue
        if row.path[-1].startswith("<") and value is None and tokens == path:
            if accepts(row.form, tokens[-1]):
                return True
        elif accepts(row.form, leaf):
            return True
    return False


def flatten(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str | None]]:
    """Every leaf of an NVUE ``set`` tree as an ``nv set`` path and its value (None for an empty mapping)."""
    if isinstance(node, dict) and node:
        for key, child in node.items():
            yield from flatten(child, (*path, str(key)))
    else:
        yield path, None if node == {} else str(node)


BASE_LOADER = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's loaders, with libyaml's parser where PyYAML has it."""


def safe_load(text: str) -> Any:
    """``text`` as :func:`yaml.safe_load` reads it (YAML 1.1: ``on`` is true)."""
    return yaml.load(text, Loader=SAFE_LOADER)


def _document(text: str) -> dict[str, Any]:
    """The ``set`` tree of a startup.yaml, every value as written (YAML 1.1 would turn ``on`` into true)."""
    (document,) = yaml.load(text, Loader=BASE_LOADER)
    return document["set"]


def set_paths(text: str) -> list[tuple[tuple[str, ...], str | None]]:
    """The ``nv set`` paths of a startup.yaml and their values."""
    return list(flatten(_document(text)))


@cache
def rows_for(release: str) -> dict[tuple[int, str], tuple[Row, ...]]:
    """The rows that hold for ``release``, by path length and first word."""
    rows: dict[tuple[int, str], list[Row]] = {}
    for row in table():
        if row.holds_for(_release(release)):
            rows.setdefault((len(row.path), row.path[0]), []).append(row)
    return {key: tuple(group) for key, group in rows.items()}


def unknown_paths(text: str, release: str) -> list[str]:
    """The ``nv set`` lines of ``text`` that the table does not list, with that value form, for ``release``."""
    rows = rows_for(release)

    def known(path: tuple[str, ...], value: str | None) -> bool:
        candidates = rows.get((len(path), path[0]), ()) + rows.get((len(path) - 1, path[0]), ())
        return any(row_accepts(row, path, value) for row in candidates)

    return [
        " ".join((*path, *([value] if value is not None else [])))
        for path, value in set_paths(text)
        if not known(path, value)
    ]


@cache
def renderer(release: str | None = None) -> Renderer:
    """The NVUE renderer of ``release`` (None: the default release), each template compiled once for every design
    (a shared block's text is kept by its template and the values of its variables)."""
    return Renderer(options={"nvue": {"release": release}} if release else None)


def nvue_files(design: Design, release: str | None = None) -> dict[str, str]:
    return {path: data.decode() for path, data in rendered(design.configs, ["nvue"], renderer(release))}


JUNIPER = "qos: {profile: juniper, queue_bytes: 3145728}"
DESIGNS = {
    "small-2tier": lambda: build(ROOT / "tests" / "intents" / "small-2tier.yaml"),
    "small-3tier": lambda: build(ROOT / "tests" / "intents" / "small-3tier.yaml"),
    "juniper on sn5600": lambda: build_text(
        intent_text(servers=4, leaf="{model: nvidia-sn5600}", extra=f"{JUNIPER}\nrouting: {{bfd: {{enabled: true}}}}")
    ),
    "watchdog and ecn off": lambda: build_text(intent_text(servers=4, extra="qos: {ecn: false, pfc_watchdog: false}")),
    # BGP unnumbered: each fabric port is the neighbor (type unnumbered), with no address (NVIDIA Cumulus Linux user
    # guide, "Border Gateway Protocol - BGP", BGP unnumbered: nv set vrf default router bgp neighbor swp51
    # remote-as ...); 3 tiers with broken-out leaf ports (swpNs0).
    "unnumbered, 3 tiers": lambda: build_text(
        (ROOT / "tests" / "intents" / "small-3tier.yaml").read_text() + "routing: {underlay: unnumbered}\n"
    ),
    "adaptive routing, seed per switch": lambda: build_text(
        intent_text(
            servers=4,
            leaf="{model: nvidia-sn5600, speed: 400G}",
            extra="targets: [nvue]\nload_balancing: {mode: dynamic, seeds: per-switch}",
        )
    ),
}


@cache
def design_of(name: str) -> Design:
    return DESIGNS[name]()


@cache
def first_of_each_role(name: str, release: str) -> dict[str, str]:
    """The NVUE files of the first switch of each role of design ``name`` for ``release``, by output path."""
    first = {device.role: device for device in reversed(design_of(name).configs)}
    return {path: data.decode() for path, data in rendered(first.values(), ["nvue"], renderer(release))}


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("name", DESIGNS)
def test_every_startup_yaml_uses_only_paths_of_nvidias_reference(name: str, release: str) -> None:
    design = design_of(name)
    files = first_of_each_role(name, release)  # the first switch of each role
    assert len(files) == len({device.role for device in design.configs})
    for path, text in files.items():
        assert unknown_paths(text, release) == [], path


def test_every_switch_of_a_design_passes_the_path_check() -> None:
    for path, text in nvue_files(design_of("small-3tier")).items():
        assert unknown_paths(text, catalog().targets["nvue"].default_release) == [], path


def test_the_path_check_refuses_what_the_reference_does_not_have() -> None:
    text = next(iter(nvue_files(design_of("small-2tier"), "5.14").values()))
    assert unknown_paths(text, "5.14") == []
    assert "qos roce enable on" in unknown_paths(text, "5.15")  # 5.15 renamed it
    broken = re.sub(r"robustness: \d+", "robustness: 0", re.sub(r"polling-interval: \d+", "polling-interval: 75", text))
    broken = re.sub(r"min-threshold: \d+", "min-threshold: 150KB", broken)
    assert set(unknown_paths(broken, "5.14")) >= {
        "qos pfc-watchdog polling-interval 75",
        "qos pfc-watchdog robustness 0",
        "qos congestion-control default-global traffic-class 3 min-threshold 150KB",
    }
    assert "interface swp1s0 link speed 450G" in unknown_paths(text.replace("400G", "450G", 1), "5.14")


def test_a_broken_out_port_is_declared_on_its_parent() -> None:
    # An SN5600 leaf (64 x 800G) serving 400G NICs runs every cage as 2 x 400G: swpNs0 and swpNs1.
    design = design_of("juniper on sn5600")
    files = nvue_files(design)
    for device in design.configs:
        interfaces = _document(files[f"configs/nvue/{device.hostname}.yaml"])["interface"]
        subports = {name for name in interfaces if re.fullmatch(r"swp\d+s\d+", name)}
        assert subports, device.hostname
        for name in subports:
            parent = re.match(r"swp\d+", name)[0]
            assert interfaces[parent]["link"]["breakout"] == {"2x": {"lanes-per-port": "4"}}, (device.hostname, name)
        parents = {name for name, body in interfaces.items() if "breakout" in body.get("link", {})}
        assert parents == {re.match(r"swp\d+", name)[0] for name in subports}


def test_ecn_thresholds_are_plain_byte_counts() -> None:
    for name in ("small-2tier", "juniper on sn5600"):
        design = design_of(name)
        qos = design.configs[0].qos
        text = nvue_files(design)[f"configs/nvue/{design.configs[0].hostname}.yaml"]
        (ecn,) = _document(text)["qos"]["congestion-control"]["default-global"]["traffic-class"].values()
        assert (ecn["min-threshold"], ecn["max-threshold"]) == (str(qos.ecn_min_bytes), str(qos.ecn_max_bytes))
    assert design_of("juniper on sn5600").configs[0].qos.ecn_min_bytes % 1024  # once written "1730150B"


NVUE_POLLS = ((100, 5000), (1, 1000))
"""NVUE's ranges of the PFC watchdog's polling interval (ms) and robustness (polls), as the nvue card gives them."""


def test_the_nvue_card_gives_the_watchdog_ranges() -> None:
    nvue = catalog().targets["nvue"]
    assert (nvue.pfc_watchdog_poll_ms, nvue.pfc_watchdog_polls) == NVUE_POLLS


@pytest.mark.parametrize(
    ("detection", "restoration", "expected"),
    [
        (200, 200, (200, 1)),
        (150, 200, (150, 1)),
        (200, 100, (100, 2)),
        (300, 100, (100, 3)),
        (5000, 200, (200, 25)),
        (100, 60_000, (100, 1)),
        (4999, 100, (4999, 1)),
    ],
)
def test_the_watchdog_polls_within_nvues_range(detection: int, restoration: int, expected: tuple[int, int]) -> None:
    assert watchdog_polls(detection, restoration, *NVUE_POLLS) == expected


def test_every_detection_time_nvue_takes_has_exact_polls() -> None:
    for detection in range(100, 5001, 7):
        for restoration in (100, detection, 5000):
            polling, robustness = watchdog_polls(detection, restoration, *NVUE_POLLS)
            assert 100 <= polling <= 5000 and 1 <= robustness <= 1000 and polling * robustness == detection


def test_a_150_ms_watchdog_polls_every_150_ms_on_nvue() -> None:
    design = build_text(intent_text(servers=4, extra="qos: {pfc_watchdog_detection_ms: 150}"))
    text = nvue_files(design)[f"configs/nvue/{design.configs[0].hostname}.yaml"]
    assert _document(text)["qos"]["pfc-watchdog"] == {"polling-interval": "150", "robustness": "1"}  # was 75


def test_a_watchdog_nvue_cannot_poll_is_refused_naming_the_field_and_range(tmp_path: Any) -> None:
    intent = tmp_path / "intent.yaml"
    intent.write_text(intent_text(servers=4, extra="targets: [frr, nvue]\nqos: {pfc_watchdog_detection_ms: 60}"))
    for command, extra in (("plan", ()), ("check", ()), ("build", ("-o", str(tmp_path / "out")))):
        code, out, err = run_cli(command, str(intent), *extra)
        assert (code, out) == (2, ""), command
        assert (
            f"{intent}:9: qos.pfc_watchdog_detection_ms: 60 ms is below NVUE's PFC watchdog minimum of 100 ms; "
            "use 100-5000 ms or drop nvue from targets"
        ) in err
    assert not (tmp_path / "out").exists()
    intent.write_text(intent_text(servers=4, extra="targets: [frr, eos]\nqos: {pfc_watchdog_detection_ms: 60}"))
    assert run_cli("plan", str(intent))[0] == 0


@pytest.mark.parametrize(
    ("release", "on", "state", "ip"),
    [
        ("5.6", "on", "enable", "ip"),
        ("5.14", "on", "enable", "ip"),
        ("5.15", "enabled", "state", "ipv4"),
        ("5.18", "enabled", "state", "ipv4"),
        ("5.19", "enabled", "state", "ipv4"),
    ],
)
def test_each_release_gets_its_own_key_forms(release: str, on: str, state: str, ip: str) -> None:
    design = design_of("small-2tier")
    config = _document(nvue_files(design, release)[f"configs/nvue/{design.configs[0].hostname}.yaml"])
    bgp = config["vrf"]["default"]["router"]["bgp"]
    assert config["router"]["bgp"][state] == bgp[state] == bgp["address-family"]["ipv4-unicast"][state] == on
    assert config["qos"]["roce"][state] == bgp["path-selection"]["multipath"]["aspath-ignore"] == on
    assert {body["summary-only"] for body in bgp["address-family"]["ipv4-unicast"]["aggregate-route"].values()} == {on}
    assert set(config["interface"]["lo"]) == {"type", ip}
    group = next(iter(bgp["peer-group"].values()))  # BFD is the peer group's, shared by its sessions
    assert not any("bfd" in neighbor for neighbor in bgp["neighbor"].values())
    if state == "state":  # 5.15 moved BFD timers into a profile
        assert group["bfd"] == {"profile": "fabric"}  # no state here: the 5.15+ schema has only the profile
        assert config["router"]["bfd"] == {
            "state": "enabled",
            "profile": {"fabric": {"detect-multiplier": "3", "min-rx-interval": "300", "min-tx-interval": "300"}},
        }
    else:
        assert group["bfd"] == {
            "enable": "on",
            "detect-multiplier": "3",
            "min-rx-interval": "300",
            "min-tx-interval": "300",
        }
        assert "bfd" not in config["router"]


def test_the_release_is_an_intent_choice_with_a_default(tmp_path: Any) -> None:
    assert catalog().targets["nvue"].default_release in RELEASES
    design = build_text(intent_text(servers=4, extra='target_options: {nvue: {release: "5.10"}}'))
    assert design.intent.target_options.nvue.release == "5.10"
    intent = tmp_path / "intent.yaml"
    for value, message in (
        (
            "5.10",
            'write the release as text in quotes, for example release: "5.10"; unquoted, '
            "YAML reads it as the number 5.1",
        ),
        (
            '"6.0"',
            f"'6.0' is not a Cumulus Linux release designer writes NVUE files for; use one "
            f"of {RELEASES[0]} to {RELEASES[-1]}",
        ),
    ):
        intent.write_text(intent_text(servers=4, extra=f"target_options: {{nvue: {{release: {value}}}}}"))
        code, _, err = run_cli("plan", str(intent))
        assert code == 2 and f"{intent}:8: target_options.nvue.release: {message}" in err


def test_the_built_files_say_their_release(tmp_path: Any) -> None:
    intent = tmp_path / "intent.yaml"
    intent.write_text(intent_text(servers=4, extra='targets: [nvue]\ntarget_options: {nvue: {release: "5.14"}}'))
    assert run_cli("build", str(intent), "-o", str(tmp_path / "out"))[0] == 0
    text = next((tmp_path / "out" / "configs" / "nvue").iterdir()).read_text()
    assert "NVIDIA Cumulus Linux 5.14 NVUE startup configuration" in text.splitlines()[0]
    assert unknown_paths(text, "5.14") == [] and unknown_paths(text, "5.15") != []


def test_the_juniper_cnp_cap_is_a_shaper_on_every_port() -> None:
    design = design_of("juniper on sn5600")
    qos = design.configs[0].qos
    assert qos.cnp_rate_percent == 5
    files = nvue_files(design)
    for device in design.configs:
        config = _document(files[f"configs/nvue/{device.hostname}.yaml"])
        speed_kbps = device.interfaces[0].speed_gbps * 1_000_000
        assert config["qos"]["egress-shaper"] == {
            "cnp-cap": {
                "port-max-rate": str(speed_kbps),
                "traffic-class": {str(qos.cnp_priority): {"max-rate": str(speed_kbps * 5 // 100)}},
            }
        }
        links = [
            body for name, body in config["interface"].items() if "address" in body.get("ipv4", {}) and name != "lo"
        ]
        assert len(links) == len(device.interfaces)
        assert all(body["qos"]["egress-shaper"] == {"profile": "cnp-cap"} for body in links)
    plain = design_of("small-2tier")
    config = _document(nvue_files(plain)[f"configs/nvue/{plain.configs[0].hostname}.yaml"])
    assert "egress-shaper" not in config["qos"]


def test_a_bfd_interval_the_nvue_release_cannot_configure_is_refused(tmp_path: Any) -> None:
    intent = tmp_path / "intent.yaml"
    bfd = "routing: {bfd: {enabled: true, interval_ms: 20}}"
    intent.write_text(
        intent_text(servers=4, extra=f'targets: [frr, nvue]\ntarget_options: {{nvue: {{release: "5.12"}}}}\n{bfd}')
    )
    for command, extra in (("plan", ()), ("check", ()), ("build", ("-o", str(tmp_path / "out")))):
        code, out, err = run_cli(command, str(intent), *extra)
        assert (code, out) == (2, ""), command
        assert (
            f"{intent}:10: routing.bfd.interval_ms: 20 ms is outside the BFD intervals NVUE 5.12 can configure "
            '(50-60000 ms); use 50-60000 ms, set target_options.nvue.release: "5.15" or later, or drop nvue '
            "from targets"
        ) in err, err
    assert not (tmp_path / "out").exists()
    for release, code in (("5.14", 2), ("5.15", 0), ("5.18", 0)):
        intent.write_text(
            intent_text(
                servers=4, extra=f'targets: [frr, nvue]\ntarget_options: {{nvue: {{release: "{release}"}}}}\n{bfd}'
            )
        )
        assert run_cli("plan", str(intent))[0] == code, release
    intent.write_text(intent_text(servers=4, extra=f"targets: [frr, nvue]\n{bfd.replace('20', '50')}"))
    assert run_cli("plan", str(intent))[0] == 0
    intent.write_text(intent_text(servers=4, extra=f"targets: [frr, eos]\n{bfd}"))
    assert run_cli("plan", str(intent))[0] == 0


@pytest.mark.parametrize(("release", "on", "state"), [("5.14", "on", "enable"), ("5.18", "enabled", "state")])
def test_the_hash_reads_the_five_tuple_with_the_switch_seed_and_adaptive_routing_runs_on_the_fabric_ports(
    release: str, on: str, state: str
) -> None:
    design = design_of("adaptive routing, seed per switch")
    on = safe_load(on)  # YAML 1.1 reads the 5.14 form as a boolean, as it reads every other "on" we write
    for device, text in zip(design.configs, nvue_files(design, release).values(), strict=True):
        document = safe_load(text)[0]["set"]
        forwarding = document["system"]["forwarding"]
        assert forwarding["ecmp-hash"] == {
            field: on for field in ("source-ip", "destination-ip", "ip-protocol", "source-port", "destination-port")
        }
        assert forwarding["hash-seed"] == device.load_balancing.seed
        assert document["router"]["adaptive-routing"] == {state: on}
        adaptive = {
            name
            for name, interface in document["interface"].items()
            if interface.get("router", {}).get("adaptive-routing") == {state: on}
        }
        assert adaptive == {interface.name for interface in device.interfaces if interface.role == "fabric"}
        assert adaptive


def test_ecmp_alone_writes_no_adaptive_routing() -> None:
    text = next(iter(nvue_files(design_of("small-2tier")).values()))
    assert "adaptive-routing" not in text and "hash-seed: 1" in text


@needs(NVUESCHEMA)
@pytest.mark.parametrize("release", [release for release in RELEASES if release != "5.19"])
@pytest.mark.parametrize("name", DESIGNS)
def test_every_startup_yaml_passes_nvidias_openapi_schema_of_its_release(name: str, release: str) -> None:
    """NVIDIA publishes an OpenAPI specification of NVUE for every Cumulus Linux release; nvueschema 0.1.0 carries
    it for 5.0-5.18 (not 5.19). The first switch of each role, every design, every release it has: no problem.
    Before: ``lanes-per-port: 4`` (the schema's enum is the texts '1', '2', '4', '8'), integer map keys under
    ``qos`` (dscp, switch-priority, traffic-class) and, from 5.15, ``state`` under a BGP neighbor's ``bfd`` (5.15
    and later attach a profile only: CumulusNetworks/docs content/cumulus-linux-515/Layer-3/
    Bidirectional-Forwarding-Detection-BFD.md, "nv set vrf default router bgp neighbor swp51 bfd profile BFD1",
    and ``nv show ... neighbor swp51 bfd`` shows only ``profile``)."""
    assert release in schema_releases()
    for path, text in first_of_each_role(name, release).items():
        assert schema_problems(text, release) == [], path


def test_an_unnumbered_nvue_switch_peers_by_port_and_its_fabric_ports_have_no_address() -> None:
    design = design_of("unnumbered, 3 tiers")
    leaf = next(device for device in design.configs if device.role == "leaf")
    document = safe_load(nvue_files(design)[f"configs/nvue/{leaf.hostname}.yaml"])[0]["set"]
    neighbors = document["vrf"]["default"]["router"]["bgp"]["neighbor"]
    uplinks = [interface for interface in leaf.interfaces if interface.role == "fabric"]
    assert sorted(neighbors) == sorted(leaf.os_port_name("nvue", interface) for interface in uplinks)
    assert all(re.fullmatch(r"swp\d+s\d", name) for name in neighbors)  # the leaf's 800G ports run 2 x 400G
    assert {(body["type"], body["peer-group"]) for body in neighbors.values()} == {("unnumbered", "SPINES")}
    spine_asns = {device.asn for device in design.configs if device.role == "spine"}
    assert {body["remote-as"] for body in neighbors.values()} <= spine_asns
    interfaces = document["interface"]
    assert all("ipv4" not in interfaces[name] for name in neighbors)  # 5.18's key (before 5.15: ip)
    servers = [leaf.os_port_name("nvue", interface) for interface in leaf.interfaces if interface.role == "server"]
    assert all(interfaces[name]["ipv4"]["address"] for name in servers)


def test_numbers_nvue_keeps_as_text_are_quoted() -> None:
    """The form nvued writes itself: ``nv config save`` quotes numeric map keys in /etc/nvue.d/startup.yaml
    (CumulusNetworks/docs content/cumulus-linux-514/Network-Virtualization/VXLAN-Devices.md: ``vlan: '10':``,
    ``vni: '10':``); NVIDIA's 5.5 automation workshop (the nvidia.nvue Ansible collection reading a 5.5.1 switch)
    shows ``qos mapping default-global pcp '0': switch-priority: 0`` and ``egress-queue-mapping ... '0':``. The
    schema types lanes-per-port as an enum of texts ('1', '2', '4', '8'), the NVUE command reference as
    ``lanes-per-port (1|2|4|8)`` (content/nvue-reference/Set-and-Unset-Commands/QoS.md)."""
    design = design_of("juniper on sn5600")
    text = nvue_files(design)[f"configs/nvue/{design.configs[0].hostname}.yaml"]
    document = safe_load(text)[0]["set"]
    qos = document["qos"]
    assert list(qos["mapping"]["default-global"]["dscp"]) == [str(dscp) for dscp in range(64)]
    assert list(qos["egress-queue-mapping"]["default-global"]["switch-priority"]) == [str(sp) for sp in range(8)]
    assert all(isinstance(key, str) for key in qos["pfc"]["default-global"]["switch-priority"])
    for table in ("congestion-control", "egress-scheduler"):
        assert all(isinstance(key, str) for key in qos[table]["default-global"]["traffic-class"]), table
    assert all(isinstance(key, str) for key in qos["egress-shaper"]["cnp-cap"]["traffic-class"])
    breakout = next(
        body["link"]["breakout"] for body in document["interface"].values() if "breakout" in body.get("link", {})
    )
    assert breakout == {"2x": {"lanes-per-port": "4"}}
    assert qos["mapping"]["default-global"]["dscp"]["26"] == {"switch-priority": 3}  # values stay integers


@needs(NVUESCHEMA)
@pytest.mark.parametrize("intent", ["small-2tier", "small-3tier", "small-unnumbered"])
def test_every_golden_nvue_file_passes_nvidias_openapi_schema(intent: str) -> None:
    """The golden files (tests/golden/, the default release) against NVIDIA's NVUE schema of that release."""
    release = catalog().targets["nvue"].default_release
    assert release in schema_releases()
    files = sorted((ROOT / "tests" / "golden" / intent / "nvue").glob("*.yaml"))
    assert len(files) >= 2
    for path in files:
        assert schema_problems(path.read_text(), release) == [], path


@needs(NVUESCHEMA)
def test_the_shipped_nvue_files_pass_nvidias_openapi_schema_of_their_release() -> None:
    """outputs/cluster-a/configs/nvue: every switch, against the schema of the release its intent.yaml names."""
    folder = ROOT / "outputs" / "cluster-a"
    release = validated_intent(folder / "intent.yaml").target_options.nvue.release
    assert release in schema_releases()
    files = sorted((folder / "configs" / "nvue").glob("*.yaml"))
    assert len(files) == 64
    assert {path.name: schema_problems(path.read_text(), release) for path in files} == {
        path.name: [] for path in files
    }


@needs(NVUESCHEMA)
def test_the_schema_check_names_the_line_and_path_of_a_wrong_type_and_of_an_unknown_key() -> None:
    design = design_of("small-2tier")
    text = nvue_files(design, "5.18")[f"configs/nvue/{design.configs[0].hostname}.yaml"]
    assert schema_problems(text, "5.18") == []
    lines = text.splitlines()
    mtu = next(number for number, line in enumerate(lines, 1) if line.strip() == "mtu: 9216")
    speed = next(number for number, line in enumerate(lines, 1) if line.strip().startswith("speed:"))
    broken = lines.copy()
    broken[mtu - 1] = broken[mtu - 1].replace("9216", "'9216'")  # text where the schema has an integer
    broken[speed - 1] = broken[speed - 1].replace("speed:", "sped:")  # a key the schema does not have
    found = schema_problems("\n".join(broken) + "\n", "5.18")
    assert len(found) == 2, found
    assert found[0].startswith(f"line {speed}: interface swp1s0 link sped: not in NVIDIA's NVUE schema"), found
    assert found[1].startswith(f"line {mtu}: interface swp1s0 link mtu: Input should be a valid integer"), found
    assert '(found "9216")' in found[1]
    assert schema_problems(text.replace("aspath-ignore: enabled", "aspath-ignore: on"), "5.18") == [
        f"line {lines.index('                aspath-ignore: enabled') + 1}: vrf default router bgp path-selection "
        "multipath aspath-ignore: Input should be 'enabled' or 'disabled' (found \"on\")"
    ]
    assert schema_problems(text.replace("- set:", "- sett:"), "5.18") == [
        "line 1: not a list of one '- set:' tree (optionally after a '- header:'); found sett"
    ]
    (not_yaml,) = schema_problems("- set:\n    system:\n      hostname: x\n     bad: 2\n", "5.18")
    assert not_yaml.startswith("line 4: not YAML: "), not_yaml


@needs(NVUESCHEMA)
def test_on_and_off_are_text_as_in_nvidias_own_startup_files() -> None:
    """NVIDIA's startup.yaml examples of the releases that spell it so write ``enable: on`` plain (VXLAN-Devices.md
    above: ``flooding: enable: on``): NVUE reads it as the text 'on', not YAML 1.1's boolean true."""
    design = design_of("small-2tier")
    text = nvue_files(design, "5.14")[f"configs/nvue/{design.configs[0].hostname}.yaml"]
    assert "enable: on" in text and schema_problems(text, "5.14") == []
    assert schema_problems(text.replace("enable: on", "enable: true", 1), "5.14")[0].endswith(
        "Input should be 'on' or 'off' (found true)"
    )

"""routing.underlay: unnumbered in the files a reviewer and a script read (addressing.csv, summary.md, design.json),
in what reads design.json back (design.json's checks, designer diff), and in the device model's checks (addressing,
sessions). The configurations themselves are proven per OS: test_avd (pyavd's underlay_rfc5549), test_nvue (NVIDIA's
schema), test_sonic (SONiC's YANG and vtysh), test_verify (the FRR lab)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from functools import cache

from designer.design import Design
from designer.outputs.build import design_files
from designer.outputs.tables import UNNUMBERED
from designer.readback.built import design_problems
from designer.readback.diff import existing_changes
from tests.conftest import ROOT
from tests.helpers import build_text
from tests.test_checks import found

SMALL = (ROOT / "tests" / "intents" / "small-3tier.yaml").read_text()


@cache
def files(underlay: str) -> tuple[Design, dict[str, bytes]]:
    design = build_text(SMALL + f"routing: {{underlay: {underlay}}}\n")
    return design, design_files(design)


def test_addressing_csv_says_unnumbered_for_switch_links_and_keeps_server_and_loopback_addresses() -> None:
    _, written = files("unnumbered")
    rows = list(csv.DictReader(io.StringIO(written["addressing.csv"].decode())))
    by_use: dict[str, set[str]] = {}
    for row in rows:
        by_use.setdefault(row["use"], set()).add(row["address"])
    assert by_use["leaf_spine"] == by_use["spine_super_spine"] == {UNNUMBERED}
    assert all(address.endswith("/31") for address in by_use["server_leaf"])
    assert all(address.endswith("/32") for address in by_use["loopback"])
    numbered = list(csv.DictReader(io.StringIO(files("numbered")[1]["addressing.csv"].decode())))
    assert len(numbered) == len(rows) and not any(UNNUMBERED in row["address"] for row in numbered)


def test_summary_and_design_json_name_the_underlay_and_the_unused_pool() -> None:
    _, written = files("unnumbered")
    summary = written["summary.md"].decode()
    assert "eBGP on every switch-to-switch link, unnumbered (over the link's IPv6 link-local address" in summary
    assert "| fabric_p2p | 10.0.0.0/15 (default) | unused: unnumbered underlay |" in summary
    assert "leaf-spine /31" not in summary and "server /31" in summary
    assert "`configs/sonic-frr/<hostname>.conf`" in summary
    data = json.loads(written["design.json"])
    assert data["summary"]["underlay"] == "unnumbered"
    assert data["summary"]["pools"]["fabric_p2p"]["used"] == 0
    assert data["summary"]["p2p_subnets"] == data["summary"]["links"]["server_leaf"]
    switch_links = [link for link in data["links"] if link["tier"] != "server_leaf"]
    assert switch_links and all(
        (link["a"][2], link["z"][2], link["subnet"]) == (None, None, None) for link in switch_links
    )
    numbered = files("numbered")[1]
    assert "/31 (numbered underlay)" in numbered["summary.md"].decode()
    assert "configs/sonic-frr" not in numbered["summary.md"].decode()
    assert json.loads(numbered["design.json"])["summary"]["underlay"] == "numbered"


def test_design_json_takes_a_null_switch_link_but_not_half_of_one_nor_a_null_server_link() -> None:
    data = json.loads(files("unnumbered")[1]["design.json"])
    assert design_problems(data) == []
    switch = next(number for number, link in enumerate(data["links"]) if link["tier"] == "leaf_spine")
    server = next(number for number, link in enumerate(data["links"]) if link["tier"] == "server_leaf")
    data["links"][switch]["a"][2] = "10.0.0.0"
    data["links"][server]["z"][2] = None
    data["links"][server]["subnet"] = None
    problems = {(problem.path, problem.message.split(" is ")[0]) for problem in design_problems(data)}
    assert problems == {(("links", switch, "z", 2), "null"), (("links", server, "z", 2), "null")}


def test_a_diff_from_numbered_to_unnumbered_names_every_switch_link_changing_underlay() -> None:
    before = json.loads(files("numbered")[1]["design.json"])
    after = json.loads(files("unnumbered")[1]["design.json"])
    changes = existing_changes(before, after)
    switch_links = sum(1 for link in before["links"] if link["tier"] != "server_leaf")
    group = next(group for group in changes.groups if group.title.startswith("links changing underlay"))
    assert group.count == switch_links
    assert any("10.0.0.0/31 -> unnumbered" in line for line in group.lines)


def test_the_checks_pass_an_unnumbered_design_and_the_sessions_check_still_catches_a_wrong_session() -> None:
    design, _ = files("unnumbered")
    assert [finding.message for finding in design.findings if finding.severity == "error"] == []
    pool = [finding for finding in found(design, "addressing", "info") if finding.subject == "fabric_p2p"]
    assert [finding.message for finding in pool] == [
        "fabric_p2p 10.0.0.0/15: unused, the underlay is unnumbered (switch-to-switch links take no addresses)"
    ]
    config = design.configs[0]
    neighbor = config.bgp.neighbors[0]
    assert (neighbor.address, neighbor.local_address) == ("", "")
    wrong = neighbor._replace(peer_interface="swp9")
    changed = replace(config, bgp=replace(config.bgp, neighbors=(wrong, *config.bgp.neighbors[1:])))
    errors = found(replace(design, configs=[changed, *design.configs[1:]]), "sessions")
    peer = next(other for other in design.configs if other.hostname == neighbor.peer_device)
    assert [(finding.subject, finding.message) for finding in errors] == [
        (
            f"{config.hostname} neighbor swp9",
            f"{peer.hostname}'s neighbor {neighbor.interface} says remote-as {config.asn} from "
            f"{neighbor.peer_interface}; expected remote-as {config.asn} from swp9",
        ),
        (
            f"{peer.hostname} neighbor {neighbor.interface}",
            f"{config.hostname} has no neighbor {neighbor.peer_interface} back",
        ),
    ]

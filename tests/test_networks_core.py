"""The frontend's border leaves peer with the data-centre core (``networks.frontend.core``): every core uplink a /31
at a structural place in the border leaf's own block, the core the even end; one eBGP session per uplink with the
core's ASN in every target, taking the default route and announcing the frontend's pools; the addressing table and
design.json list the /31s, and growth inside the envelope moves none of them.

The vendors' own checks of these files run in tests/test_networks_configs.py, whose example (the shipped
enterprise-four-networks intent) has a ``core``: FRR's parser reads every fe-border file, pyavd renders the same
EOS configuration from the same structured config, nvueschema takes every startup.yaml and SONiC's YANG every
config_db.json. Here each of those files is shown to hold the core's sessions, so that those proofs cover them."""

from __future__ import annotations

import csv
import io
import json
import re

from designer.backend.allocate import ip
from designer.design import Design, quiet
from designer.intent import parse_intent
from designer.outputs.build import design_files, review_files
from designer.pipeline import design
from designer.verify.topology import topology
from tests.conftest import ROOT
from tests.test_networks_configs import EXAMPLE, built, example_text

CORE_ASN = 65100
"""The core's ASN in the shipped example (intents/enterprise-four-networks.yaml)."""
CORE_UPLINKS = 4
FRONTEND = ROOT / "tests" / "intents" / "verify-frontend.yaml"
CORE_LINE = "    core: {asn: 65100}"


def core_rows(files: dict[str, bytes]) -> list[list[str]]:
    """network-addressing.csv's rows of the core uplinks."""
    rows = list(csv.reader(io.StringIO(files["network-addressing.csv"].decode())))
    return [row for row in rows if row[-1] == "core_uplink"]


def border_leaves(result: Design) -> list[tuple[int, str]]:
    """Each frontend border leaf's device index and name."""
    assert result.networks is not None
    frontend = result.networks.data[0]
    assert frontend.spec.name == "frontend" and frontend.spec.core_asn == CORE_ASN
    return [
        (number, device.name) for number, device in enumerate(frontend.fabric.switches()) if "border" in device.name
    ]


def test_each_core_uplink_takes_the_31_at_its_border_leafs_block_start_plus_twice_its_number() -> None:
    result, files = built()
    assert result.networks is not None
    allocation = result.networks.data[0].allocation
    server_pool = next(pool for pool in allocation.pools if pool.name == "server_p2p")
    expected = []
    for number, name in border_leaves(result):
        start = server_pool.first + number * allocation.server_block  # border leaves come first: leaf n owns block n
        for uplink in range(CORE_UPLINKS):
            core, leaf = ip(start + 2 * uplink), ip(start + 2 * uplink + 1)
            port = f"swp{uplink + 1}"
            expected += [
                ["frontend", name, port, f"{leaf}/31", "core", f"uplink{uplink}", core, "core_uplink"],
                ["frontend", "core", f"uplink{uplink}", f"{core}/31", name, port, leaf, "core_uplink"],
            ]
    assert core_rows(files) == expected
    document = json.loads(files["design.json"])
    assert document["networks"]["frontend"]["core"] == {"asn": CORE_ASN}
    links = [link for link in document["network_links"] if link["tier"] == "core_uplink"]
    assert [(link["a"], link["z"], link["subnet"]) for link in links] == [
        ([border, port, leaf.split("/")[0]], ["core", core_port, core], f"{core}/31")
        for _, border, port, leaf, _, core_port, core, _ in expected[::2]
    ]


def test_growing_servers_inside_the_envelope_moves_no_core_uplink() -> None:
    small, small_files = built(32)
    large, large_files = built(64)
    assert len(small.network_configs) < len(large.network_configs)
    assert core_rows(small_files) == core_rows(large_files) != []


def test_every_target_peers_each_border_leaf_with_the_core_on_every_uplink() -> None:
    """One session per uplink to the core's (even) end with the core's ASN, in the CORE peer group, whose policy
    takes only the default route and announces only the frontend's pools, aggregated without suppressing them."""
    result, files = built()
    configs = {config.hostname: config for config in result.network_configs}
    pools = result.networks.data[0].allocation.pools if result.networks else ()
    aggregates = sorted(pool.cidr for pool in pools if pool.name in ("loopbacks", "server_p2p"))
    for _, name in border_leaves(result):
        peers = [row[6] for row in core_rows(files) if row[1] == name]
        assert len(peers) == CORE_UPLINKS
        frr = files[f"configs/frr/{name}.conf"].decode()
        assert re.findall(r"^ neighbor (\S+) remote-as 65100$", frr, re.MULTILINE) == peers
        assert all(f" neighbor {peer} peer-group CORE\n" in frr for peer in peers)
        assert "ip prefix-list DEFAULT-ROUTE seq 10 permit 0.0.0.0/0\n" in frr
        announced = re.findall(r"^ip prefix-list NETWORK-POOLS seq \d+ permit (\S+)$", frr, re.MULTILINE)
        assert sorted(announced) == aggregates
        assert sorted(re.findall(r"^  aggregate-address (\S+)$", frr, re.MULTILINE)) == aggregates
        assert "  neighbor CORE route-map CORE-IN in\n  neighbor CORE route-map CORE-OUT out\n" in frr
        eos = files[f"configs/eos/{name}.cfg"].decode()
        assert all(f"   neighbor {peer} remote-as {CORE_ASN}\n" in eos for peer in peers)
        assert all(f"   neighbor {peer} peer group CORE\n" in eos for peer in peers)
        assert sorted(re.findall(r"^   aggregate-address (\S+)$", eos, re.MULTILINE)) == aggregates
        nvue = files[f"configs/nvue/{name}.yaml"].decode()
        for peer in peers:
            assert f"              {peer}:\n                type: numbered\n                peer-group: CORE\n" in nvue
        for aggregate in aggregates:
            assert re.search(rf"^ +{re.escape(aggregate)}:\n +summary-only: (off|disabled)$", nvue, re.MULTILINE)
        sonic = json.loads(files[f"configs/sonic/{name}.json"])
        config = configs[name]
        core_ports = [config.os_port_name("sonic", iface) for iface in config.interfaces if iface.role == "core"]
        leaf_ends = [row[3] for row in core_rows(files) if row[1] == name]
        assert [key for key in sonic["INTERFACE"] if "|" in key and key.split("|")[0] in core_ports] == [
            f"{port}|{address}" for port, address in zip(core_ports, leaf_ends, strict=True)
        ]


def test_without_a_core_the_uplinks_are_only_cabled() -> None:
    """Leaving ``core`` out, the border leaves keep their cabled uplinks with no address and no session."""
    text = example_text(32, "", shipped=False)
    assert CORE_LINE in text
    result = design(parse_intent(text.replace(CORE_LINE, ""), str(EXAMPLE)), quiet)
    files = dict(review_files(result, quiet))
    assert core_rows(files) == []
    links = [link for link in json.loads(files["design.json"])["network_links"] if link["tier"] == "core_uplink"]
    assert links and all(link["a"][2] is None and link["z"][2] is None and link["subnet"] is None for link in links)
    for config in result.network_configs:
        assert all(neighbor.peer_group != "CORE" for neighbor in config.bgp.neighbors), config.hostname
        assert not config.bgp.pool_aggregates and all(iface.role != "core" for iface in config.interfaces)


def test_the_lab_takes_a_border_leafs_core_sessions_for_peers_outside_it() -> None:
    """designer verify runs no core: the border leaf's session to it is a peer outside the lab (reported as not
    covered), not a neighbor beyond the design's cabling."""
    text = FRONTEND.read_text().replace("    core_uplinks: 1\n", "    core_uplinks: 1\n    core: {asn: 65100}\n")
    assert "core: {asn: 65100}" in text
    files = design_files(design(parse_intent(text, str(FRONTEND)), quiet))
    (border_end, _) = core_rows(files)  # one uplink: the border leaf's row, then the core's
    core = border_end[6]
    lab = topology(files)
    assert lab.outside[core] == "core"
    assert f" neighbor {core} remote-as 65100\n" in files["configs/frr/fe-border0.conf"].decode()

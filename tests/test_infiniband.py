"""The InfiniBand reader, ``designer audit`` of ``ibnetdiscover`` output and the subnet manager's GUID-keyed files
(``designer audit --sm-files``), proven on the fabric the design describes as ibsim simulates it, discovered by the
real ``ibnetdiscover`` and routed by the real OpenSM, and offline on a capture of ``ibnetdiscover`` under ibsim.

Sources: ibsim's net file format and console commands (linux-rdma/ibsim, ibsim/sim_net.c, ibsim/sim_cmd.c);
ibnetdiscover(8) of infiniband-diags; OpenSM's ``root_guid_file`` and the fat-tree routing engine's fallback to
min-hop when it cannot find the roots of a fat tree that is no longer pure (OpenSM's manual, "Fat-tree Routing
Algorithm"; linux-rdma/opensm, opensm/osm_ucast_ftree.c ``fabric_load_roots``, opensm/osm_ucast_mgr.c prints
"<engine> tables configured on all switches").
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import product
from pathlib import Path

import pytest

from designer.backend.wiring import natural
from designer.cli import main
from designer.errors import InputError
from designer.infiniband import ibnetdiscover
from designer.infiniband.ibnetdiscover import DesignNames, Named, looks_like, named, parse
from designer.infiniband.sm_files import NAME_MAP, ROOTS, design_names, sm_files
from designer.readback.built import read_built_design
from designer.verify import subnet
from designer.verify.subnet import forwarding, run, unreached
from tests.conftest import ROOT
from tests.prerequisites import IBSIM, declared, needs
from tests.test_intent_errors import run_cli

CANNED = ROOT / "tests" / "canned" / "infiniband-diags-44-ibnetdiscover-small-2tier.txt"


def build(tmp_path_factory: pytest.TempPathFactory, intent: str) -> Path:
    folder = tmp_path_factory.mktemp("ib") / intent
    assert main(["build", str(ROOT / "tests" / "intents" / f"{intent}.yaml"), "-o", str(folder)]) == 0
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/intents/small-2tier.yaml built: 4 leaves of 8 ports (4 x 800G broken out), 2 spines, 8 servers with
    two NICs each, so two parallel cables from each leaf to each spine."""
    return build(tmp_path_factory, "small-2tier")


@pytest.fixture(scope="module")
def built_3tier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/intents/small-3tier.yaml built: 2 pods of 4 leaves and 4 spines, 4 super-spines, 16 servers."""
    return build(tmp_path_factory, "small-3tier")


def designed_cables(folder: Path) -> list[tuple[str, str, str, str]]:
    """The cables of design.json, upper end first, as cabling.csv lists them."""
    return sorted((*link["a"][:2], *link["z"][:2]) for link in read_built_design(folder)["links"])


def test_canned_discovery_names_every_cable_as_the_design(built: Path) -> None:
    design = design_names(built)
    found = named(parse(str(CANNED), CANNED.read_text()), design)
    assert found.cables == tuple(designed_cables(built))
    assert sorted(found.switches.values()) == sorted(name for name, role in design.roles.items() if role != "server")
    assert len(found.hcas) == 16


def test_switches_are_named_by_where_they_sit_not_by_description(built: Path) -> None:
    """Every switch of the discovery reports the same description, so only its place can name it; the names hold
    whatever order the records come in."""
    records = CANNED.read_text().split("\n\n")
    reversed_text = "\n\n".join(records[::-1])
    design = design_names(built)
    assert named(parse("reversed", reversed_text), design).cables == tuple(designed_cables(built))


def test_a_discovery_reads_the_same_whatever_its_line_breaks_and_spans(
    built: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows or old Mac line breaks (a capture copied through another machine) read as the plain text does, as
    str.splitlines splits them; a text read a few characters at a time (spans ending at a line's end) reads as
    in one piece, its problems at the same lines; a file opening with more blank lines than looks_like reads at a
    time is still told from JSON."""
    text = CANNED.read_text()
    whole = parse("plain", text)
    assert parse("crlf", text.replace("\n", "\r\n")) == whole == parse("cr", text.replace("\n", "\r"))
    broken = text.replace("[5]\t", "junk\n[5]\t", 2) + '\n[1]\t"S-0002c90300000001"[1]\n'
    with pytest.raises(InputError) as raised:
        parse("broken", broken)
    problems = [(problem.line, problem.message) for problem in raised.value.problems]
    monkeypatch.setattr(ibnetdiscover, "CHUNK", 7)
    assert parse("spans", text) == whole
    with pytest.raises(InputError) as raised:
        parse("broken", broken)
    assert [(problem.line, problem.message) for problem in raised.value.problems] == problems
    junk = [number for number, line in enumerate(broken.splitlines(), 1) if line == "junk"]
    assert [line for line, _ in problems] == [*junk, broken.count("\n")] and len(junk) == 2
    assert looks_like("\n" * (ibnetdiscover.BLOCK * 3) + text)
    assert not looks_like("\n" * (ibnetdiscover.BLOCK * 3) + '{"lldp": []}')
    assert named(parse("spans", text), design_names(built)).cables == tuple(designed_cables(built))


def test_what_the_design_cannot_name_keeps_its_guid_and_port(built: Path) -> None:
    """An HCA whose description names no server of the design (a host renamed, rdma-ndd not running) is shown by
    its node GUID; the leaf above it is still named by its other HCAs."""
    text = CANNED.read_text().replace('"su1-srv3 mlx5_1"', '"localhost mlx5_1"')
    found = named(parse(str(CANNED), text), design_names(built))
    expected = set(designed_cables(built))
    assert expected - set(found.cables) == {("p0-su1-r1-leaf", "swp2s1", "su1-srv3", "nic1")}
    assert set(found.cables) - expected == {("p0-su1-r1-leaf", "swp2s1", "0x0002c9040000001e", "1")}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('#\n{"lldp": {"interface": []}}\n', 'x.txt:2: line: \'{"lldp": {"interface": []}}\' is not a line of'),
        ("# only a comment\n\n", "x.txt:1: line: holds no Switch or Ca record"),
        ('[1]\t"S-0000000000000001"[2]\n', "x.txt:1: line: a port line before any Switch or Ca record"),
        (
            'Switch\t4 "S-0000000000000001"\n[1]\t"S-0000000000000002"[1]\n[1]\t"S-0000000000000003"[1]\n',
            "x.txt:3: line: port 1 of 0x0000000000000001 is cabled to a second peer (line 2 gives another)",
        ),
    ],
)
def test_text_that_is_not_ibnetdiscover_output_is_refused_with_its_line(
    built: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    expected: str,
) -> None:
    discovery = tmp_path / "x.txt"
    discovery.write_text(text)
    target = tmp_path / "sm"
    monkeypatch.chdir(tmp_path)
    assert main(["audit", str(built), "x.txt", "--sm-files", str(target)]) == 2
    error = capsys.readouterr().err
    assert error.startswith(expected), error
    assert "give the output of 'ibnetdiscover > FILE'" in error
    assert not target.exists()


def test_problems_are_listed_in_line_order_the_first_twenty_shown() -> None:
    """A port cabled twice is reported at its line among the lines that are no part of the output, the first
    twenty in line order (a port line repeated as it was is no problem)."""
    text = (
        'Switch\t4 "S-0000000000000001"\n[1]\t"S-0000000000000002"[1]\n[1]\t"S-0000000000000002"[1]\n'
        + "".join(f"bogus {number}\n" for number in range(4, 9))
        + '[1]\t"S-0000000000000003"[1]\n'
        + "".join(f"bogus {number}\n" for number in range(10, 40))
    )
    with pytest.raises(InputError) as raised:
        parse("x.txt", text)
    lines = [problem.line for problem in raised.value.problems]
    assert lines == [*range(4, 24), 24], lines
    assert "line 3 gives another" in raised.value.problems[5].message
    assert raised.value.problems[-1].message.startswith("and 16 more")


def test_audit_sm_files_writes_the_root_guids_and_the_name_map(built: Path, tmp_path: Path) -> None:
    target = tmp_path / "sm"
    code, out, err = run_cli("audit", str(built), str(CANNED), "--sm-files", str(target))
    assert (code, out.splitlines()[-1]) == (0, "the cabling matches the design"), err
    roots = (target / ROOTS).read_text().splitlines()
    # the spines' GUIDs as the canned discovery gives them (S-0002c90300000000 and ...01 are p0-spine0 and 1)
    assert roots[1:] == ["0x0002c90300000000  # p0-spine0", "0x0002c90300000001  # p0-spine1"]
    names = (target / NAME_MAP).read_text().splitlines()
    assert '0x0002c90300000002 "p0-su0-r0-leaf"' in names
    assert '0x0002c90400000000 "su0-srv0 mlx5_0"' in names
    assert len(names) == 1 + 6 + 16
    assert run_cli("audit", str(built), str(CANNED), "--sm-files", str(target))[0] == 0  # its own folder: replaced
    (target / "mine.txt").write_text("not designer's")
    code, out, err = run_cli("audit", str(built), str(CANNED), "--sm-files", str(target))
    assert (code, out) == (2, "") and "mine.txt" in err
    assert (target / "mine.txt").read_text() == "not designer's"


def test_the_node_name_map_is_in_natural_order_of_the_whole_names() -> None:
    """The map lists every node by its whole name in natural order (su1-srv9 before su1-srv10, mlx5_2 before
    mlx5_10, whatever the order of hosts.rdma_devices), a name two GUIDs answer to in the order found; the root
    GUID file the top switches in the same order."""
    hosts = ["su1-srv10", "su1-srv9", "su10-srv0", "su1-srv9x"]
    devices = ("mlx5_10", "mlx5_2", "ib0")
    design = DesignNames(
        {"p0-spine10": "spine", "p0-spine9": "spine", "p0-su1-leaf": "leaf", **{host: "server" for host in hosts}},
        {},
        {},
        devices,
    )
    hcas = {0x100 + number: (host, index) for number, (host, index) in enumerate(product(hosts, range(3)))}
    hcas[0x99] = ("su1-srv9", 1)  # a second HCA reporting the same description
    found = Named({0x3: "p0-spine10", 0x2: "p0-su1-leaf", 0x1: "p0-spine9"}, hcas, ())
    files = sm_files(found, design)
    names = [line.split(" ", 1) for line in files[NAME_MAP].splitlines()[1:]]
    expected = sorted(
        [*((f"0x{guid:016x}", f'"{name}"') for guid, name in found.switches.items())]
        + [(f"0x{guid:016x}", f'"{host} {devices[index]}"') for guid, (host, index) in hcas.items()],
        key=lambda item: natural(item[1]),
    )
    assert names == [list(item) for item in expected]
    assert names[names.index(["0x0000000000000104", '"su1-srv9 mlx5_2"']) + 1] == [
        "0x0000000000000099",
        '"su1-srv9 mlx5_2"',
    ]
    assert [line.split("# ")[1] for line in files[ROOTS].splitlines()[1:]] == ["p0-spine9", "p0-spine10"]


def test_audit_of_the_canned_discovery_matches_the_design(built: Path) -> None:
    """The capture of ibnetdiscover under ibsim running the design (tests/canned/): every designed cable found, by
    the 6 switches and 8 servers it names; the JSON report counts the same."""
    code, out, err = run_cli("audit", str(built), str(CANNED))
    assert (code, err) == (0, "")
    assert out == (
        "audit of small-2tier: 14 devices reported, 32 designed cables in scope: 32 match, 0 missing, 0 extra, "
        "0 miswired\nthe cabling matches the design\n"
    )
    code, out, _ = run_cli("audit", str(built), str(CANNED), "--format", "json")
    report = json.loads(out)
    assert code == 0
    assert report["cables"] == {"in_scope": 32, "matched": 32, "missing": 0, "extra": 0, "miswired": 0}
    assert len(report["devices"]) == 14


def test_audit_names_two_hcas_cabled_into_each_others_leaf_ports(built: Path, tmp_path: Path) -> None:
    """Two HCAs' node descriptions exchanged in the capture is two cables crossed at the leaf (each HCA is known
    by its description): exit 1, both cables miswired by name and the swap that fixes them."""
    text = CANNED.read_text()
    crossed = text.replace('"su0-srv0 mlx5_0"', '"swapped"').replace('"su1-srv3 mlx5_0"', '"su0-srv0 mlx5_0"')
    discovery = tmp_path / "fabric.txt"
    discovery.write_text(crossed.replace('"swapped"', '"su1-srv3 mlx5_0"'))
    design = design_names(built)
    first, second = ("su0-srv0", "nic0"), ("su1-srv3", "nic0")
    first_leaf, second_leaf = design.peers[first], design.peers[second]
    assert crossed_pair(built, discovery) == (
        f"swap: the plugs in {' '.join(first_leaf)} and {' '.join(second_leaf)} (or, at the other end, in "
        f"su0-srv0 nic0 and su1-srv3 nic0) fixes {' '.join(first_leaf)} -- su1-srv3 nic0 and "
        f"{' '.join(second_leaf)} -- su0-srv0 nic0"
    )


def crossed_pair(built: Path, discovery: Path) -> str:
    """The swap line of ``designer audit`` of a discovery with one crossed pair: exit 1, two cables miswired."""
    code, out, err = run_cli("audit", str(built), str(discovery))
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[0].endswith("30 match, 0 missing, 0 extra, 2 miswired")
    assert lines[-1] == "2 cables to fix"
    return lines[1]


def test_ibnetdiscover_output_is_audited_alone_and_sm_files_needs_it(built: Path, tmp_path: Path) -> None:
    lldp = tmp_path / "p0-spine0.json"
    lldp.write_text('{"lldpNeighbors": []}\n')
    code, out, err = run_cli("audit", str(built), str(CANNED), str(lldp))
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == (
        f"{CANNED}:1: (top-level): ibnetdiscover output covers the whole fabric: give it as the only discovery file, "
        "not with 1 other"
    )
    code, out, err = run_cli("audit", str(built), str(lldp), "--sm-files", str(tmp_path / "sm"))
    assert (code, out) == (2, "")
    assert "--sm-files: needs ibnetdiscover output of an InfiniBand fabric" in err
    assert not (tmp_path / "sm").exists()


def test_a_file_in_no_known_format_is_refused(built: Path, tmp_path: Path) -> None:
    text = tmp_path / "p0-spine0.json"
    text.write_text("Switch ports: 8\n")
    code, out, err = run_cli("audit", str(built), str(text))
    assert (code, out) == (2, "")
    assert err.splitlines()[0] == (
        f"{text}:1: (top-level): in no known format: neither JSON (EOS 'show lldp neighbors | json' or lldpd "
        "'lldpcli -f json0 show neighbors') nor ibnetdiscover output ('ibnetdiscover > FILE'); give what the device "
        "printed, unedited"
    )


# ---- the live fabric: ibsim, ibnetdiscover, OpenSM -------------------------------------------------------------


@contextmanager
def simulated(design: DesignNames, folder: Path) -> Iterator[tuple[dict[str, str], Callable[[str], None]]]:
    """ibsim running the net file of ``design`` (written into ``folder``), as ``designer verify`` runs it: the
    environment under which ``ibsim-run`` reaches it, and a function typing a command at its console (``Unlink
    "<node>"`` takes a switch out, ``Unlink "<node>"[<port>]`` one cable). Its callers declare IBSIM."""
    declared(IBSIM)
    with subnet.simulated(design, folder) as simulation:
        yield simulation


@needs(IBSIM)
def test_discovered_fabric_is_the_design(built: Path, tmp_path: Path) -> None:
    design = design_names(built)
    with simulated(design, tmp_path) as (env, _):
        (tmp_path / "fabric.txt").write_text(run(env, "ibnetdiscover"))
    found = named(parse("ibnetdiscover", (tmp_path / "fabric.txt").read_text()), design)
    assert found.cables == tuple(designed_cables(built))
    code, out, err = run_cli("audit", str(built), str(tmp_path / "fabric.txt"))
    assert (code, err, out.splitlines()[-1]) == (0, "", "the cabling matches the design")


@needs(IBSIM)
def test_two_swapped_cables_differ_at_exactly_their_ends(built: Path, tmp_path: Path) -> None:
    """Swap the spine ends of two leaves' first uplinks (p0-su0-r0-leaf swp3s0 and p0-su1-r1-leaf swp3s0, 800G
    cages broken out): the discovery differs from the design in those two cables and nothing else."""
    design = design_names(built)
    first, second = ("p0-su0-r0-leaf", "swp3s0"), ("p0-su1-r1-leaf", "swp3s0")
    first_peer, second_peer = design.peers[first], design.peers[second]
    swapped = {**design.peers, first: second_peer, second_peer: first, second: first_peer, first_peer: second}
    with simulated(dataclasses.replace(design, peers=swapped), tmp_path) as (env, _):
        (tmp_path / "fabric.txt").write_text(run(env, "ibnetdiscover"))
    found = named(parse("ibnetdiscover", (tmp_path / "fabric.txt").read_text()), design)
    expected = set(designed_cables(built))
    assert expected - set(found.cables) == {(*first_peer, *first), (*second_peer, *second)}
    assert set(found.cables) - expected == {(*second_peer, *first), (*first_peer, *second)}
    assert first_peer[0] == second_peer[0]  # both on one spine: the plugs to swap there
    assert crossed_pair(built, tmp_path / "fabric.txt") == (
        f"swap: the plugs in {' '.join(first_peer)} and {' '.join(second_peer)} (or, at the other end, in "
        f"{' '.join(first)} and {' '.join(second)}) fixes {' '.join(first_peer)} -- {' '.join(second)} "
        f"and {' '.join(second_peer)} -- {' '.join(first)}"
    )


@needs(IBSIM)
def test_root_guid_file_keeps_ftree_routing_after_failures(built: Path, tmp_path: Path) -> None:
    """With the root GUID file written from the discovery, OpenSM routes the fabric with ftree, then again with a
    spine removed and a leaf uplink cut, and every HCA reaches every other; without the file the cut uplink makes
    ftree give up and OpenSM falls back to min-hop (why the file exists)."""
    design = design_names(built)
    with simulated(design, tmp_path) as (env, console):
        files = sm_files(named(parse("ibnetdiscover", run(env, "ibnetdiscover")), design), design)
        with_roots, without = ftree_conf(tmp_path, files[ROOTS]), ftree_conf(tmp_path / "none", "")
        assert engine(env, with_roots, tmp_path / "whole.log") == "ftree"
        every_hca_reaches_every_other(env, design)
        console('Unlink "p0-spine1"')
        console('Unlink "p0-su0-r0-leaf"[5]')
        assert engine(env, without, tmp_path / "without.log") == "minhop"
        assert engine(env, with_roots, tmp_path / "failed.log") == "ftree"
        every_hca_reaches_every_other(env, design)


@needs(IBSIM)
def test_three_tiers_are_named_up_to_the_super_spines_which_root_the_fat_tree(
    built_3tier: Path, tmp_path: Path
) -> None:
    """In three tiers the spines are named by their leaves and the super-spines by their spines; the root GUID file
    holds the super-spines, and with it OpenSM routes with ftree after a super-spine is removed."""
    design = design_names(built_3tier)
    with simulated(design, tmp_path) as (env, console):
        found = named(parse("ibnetdiscover", run(env, "ibnetdiscover")), design)
        assert found.cables == tuple(designed_cables(built_3tier))
        files = sm_files(found, design)
        roots = [line.split("# ")[1] for line in files[ROOTS].splitlines()[1:]]
        assert roots == ["p0-g0-ss0", "p0-g1-ss0", "p0-g2-ss0", "p0-g3-ss0"]  # design.json's super-spines
        assert roots == [name for name, role in design.roles.items() if role == "super_spine"]
        with_roots = ftree_conf(tmp_path, files[ROOTS])
        assert engine(env, with_roots, tmp_path / "whole.log") == "ftree"
        every_hca_reaches_every_other(env, design)
        console('Unlink "p0-g0-ss0"')
        assert engine(env, with_roots, tmp_path / "failed.log") == "ftree"
        every_hca_reaches_every_other(env, design)


def ftree_conf(folder: Path, roots: str) -> Path:
    """An OpenSM configuration in ``folder`` routing with ftree, with ``roots`` as its root GUID file (none when
    empty)."""
    folder.mkdir(exist_ok=True)
    conf = folder / "opensm.conf"
    conf.write_text("routing_engine ftree\n")
    if roots:
        (folder / ROOTS).write_text(roots)
        conf.write_text(f"routing_engine ftree\nroot_guid_file {folder / ROOTS}\n")
    return conf


def engine(env: dict[str, str], conf: Path, log: Path, *options: str) -> str:
    """The routing engine OpenSM routed the simulated fabric with, in one sweep (``opensm -o``) with ``conf`` and
    any more command-line ``options``."""
    run(env, "opensm", "-F", str(conf), *options, "-o", "-f", str(log))
    lines = [line for line in log.read_text().splitlines() if "tables configured on all switches" in line]
    return lines[-1].split("-> osm_ucast_mgr_process: ")[1].split()[0]


def every_hca_reaches_every_other(env: dict[str, str], design: DesignNames) -> None:
    """Every HCA reaches every other: followed hop by hop through the linear forwarding tables OpenSM set, as
    ``dump_fts`` reads them from each switch, over the cables ``ibnetdiscover`` finds."""
    peers, hca_lids, tables = forwarding(env)
    assert len(hca_lids) == sum(role == "server" for role in design.roles.values()) * len(design.rdma_devices)
    assert unreached(peers, hca_lids, tables) == []


def test_an_audit_of_a_discovery_imports_none_of_the_builds_stages(built: Path, tmp_path: Path) -> None:
    """The folder's intent is read and checked (designer.validation) without the pipeline, the checks or the device
    model behind them: a fresh interpreter runs the whole command and lists what it imported."""
    script = (
        "import sys; from designer.cli import main; "
        f"code = main(['audit', {str(built)!r}, {str(CANNED)!r}, '--sm-files', {str(tmp_path / 'sm')!r}]); "
        "print(sorted(name for name in sys.modules if name.startswith('designer.')), code, file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    imported, code = result.stderr.strip().splitlines()[-1].rsplit(" ", 1)
    assert code == "0" and (tmp_path / "sm" / ROOTS).is_file()
    assert "'designer.validation'" in imported
    for stage in (
        "designer.pipeline",
        "designer.checks",
        "designer.backend.model",
        "designer.analysis",
        "designer.backend.hosts",
    ):
        assert f"'{stage}'" not in imported

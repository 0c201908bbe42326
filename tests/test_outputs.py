"""Output files: byte-for-byte determinism, manifest integrity, the drift gate and the plan contract."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import string
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from designer.design import Design
from designer.outputs.build import build_and_check, check_design, design_files, write_design
from designer.outputs.folder import drift, write
from designer.outputs.markdown import markdown_text
from designer.outputs.summary import summary_markdown
from designer.outputs.tables import CHUNK_ROWS, csv_bytes
from designer.render import TemplateError
from tests.conftest import ROOT
from tests.helpers import build_design, build_text, intent_text, part_sizes
from tests.test_intent_errors import run_cli

EXAMPLE = ROOT / "intents" / "cluster.yaml"
SMALL_INTENT = ROOT / "tests" / "intents" / "small-2tier.yaml"
PLAN_KEYS = {
    "name",
    "tiers",
    "planes",
    "rails",
    "servers",
    "gpus",
    "nic_ports",
    "switches",
    "links",
    "bandwidth_tbps",
    "p2p_subnets",
    "asns",
    "warnings",
}


def small_cluster(folder: Path) -> Path:
    """intents/cluster.yaml shrunk to 16 servers (its envelope and workloads alike), written into ``folder``: every
    section of the shipped example, at an eighth of its size."""
    text = EXAMPLE.read_text()
    for shipped, small in (
        ("servers: 128\n", "servers: 16\n"),
        ("max_servers: 256 ", "max_servers: 32 "),
        ("gpus: 1024\n", "gpus: 128\n"),
        ("gpus: 512 ", "gpus: 64 "),
    ):
        assert shipped in text, shipped
        text = text.replace(shipped, small)
    path = folder / "cluster.yaml"
    path.write_text(text)
    return path


def build_in_subprocess(intent: Path, target: Path, seed: str) -> None:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    subprocess.run(
        [sys.executable, "-m", "designer.cli", "build", str(intent), "-o", str(target)],
        check=True,
        env=env,
        capture_output=True,
    )


@pytest.fixture(scope="module")
def small_design() -> Design:
    """A 32-server 2-tier design of 32-port leaves, read by several tests."""
    return build_design(servers=32, leaf="{model: generic-32x400g}")


@pytest.fixture(scope="module")
def small_files(small_design: Design) -> dict[str, bytes]:
    """Every output file of ``small_design``."""
    return design_files(small_design)


def test_same_intent_same_bytes_under_any_hash_seed(tmp_path: Path) -> None:
    """The shipped example's sections, at a smaller size (:func:`small_cluster`), in two processes."""
    intent = small_cluster(tmp_path)
    build_in_subprocess(intent, tmp_path / "a", "1")
    build_in_subprocess(intent, tmp_path / "b", "4242")
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file())
    files_b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file())
    assert files_a == files_b and len(files_a) >= 6
    for relative in files_a:
        assert (tmp_path / "a" / relative).read_bytes() == (tmp_path / "b" / relative).read_bytes(), relative


def test_manifest_hashes_every_file(small_files: dict[str, bytes]) -> None:
    files = small_files
    manifest = json.loads(files["manifest.json"])
    assert set(manifest["files"]) == set(files) - {"manifest.json"}
    for path, digest in manifest["files"].items():
        assert hashlib.sha256(files[path]).hexdigest() == digest
    assert len(manifest["intent_sha256"]) == 64


def test_cabling_and_addressing_tables_agree_with_the_design() -> None:
    """A 3-tier fabric of 32 servers: every tier of link in the tables."""
    design = build_design(servers=32, leaf="{model: generic-32x400g}", fabric_extra="tiers: 3")
    files = design_files(design)
    cabling = list(csv.DictReader(files["cabling.csv"].decode().splitlines()))
    assert len(cabling) == len(design.fabric.links)
    assert {row["tier"] for row in cabling} == {"server_leaf", "leaf_spine", "spine_super_spine"}
    addressing = list(csv.DictReader(files["addressing.csv"].decode().splitlines()))
    assert len(addressing) == design.fabric.switch_count + 2 * len(design.fabric.links)
    interfaces = {(row["device"], row["interface"]): row for row in addressing}
    assert len(interfaces) == len(addressing)  # each interface addressed once
    for row in cabling[:50] + cabling[-50:]:
        a, z = interfaces[row["a_device"], row["a_port"]], interfaces[row["z_device"], row["z_port"]]
        assert a["peer_address"] == z["address"].split("/")[0] and z["peer_address"] == a["address"].split("/")[0]
    asn_rows = list(csv.DictReader(files["asn.csv"].decode().splitlines()))
    assert len(asn_rows) == design.fabric.switch_count
    document = json.loads(files["design.json"])
    assert len(document["devices"]) == len(design.fabric.devices)
    assert len(document["links"]) == len(design.fabric.links)
    assert document["links"][0]["subnet"] == "10.16.0.0/31"


def test_csv_bytes_is_what_the_csv_module_writes() -> None:
    values = ["a", "", "b,c", 'say "hi"', "two\nlines", None, 7, -3, 2.5, True, " spaced ", "caf\u00e9"]
    tables = [
        (
            [values[(seed * 7 + column) % len(values)] for column in range(width)],
            [[values[(seed * row + column * 5) % len(values)] for column in range(width)] for row in range(rows)],
        )
        for seed in range(60)
        for width in (1, 2, 4)
        for rows in (0, 3)
    ]
    plain = [[f"r{row}", row, 2.5] for row in range(2 * CHUNK_ROWS + 5)]  # chunks of rows with nothing to quote,
    tables += [
        (["a", "b", "c"], plain),  # then one value each that needs quoting
        (["a", "b", "c"], [*plain, ["x,y", "z"]]),  # (a short row whose comma makes it look
        (["a", "b", "c"], [*plain[:CHUNK_ROWS], ["", "", None], *plain]),  # as wide as the others)
        (["a", "b", "c"], [*plain, ['"q"', 1, 2]]),
        (["a", "b"], [["x", "None"], ["y", "two\nlines"]]),
    ]
    for header, rows in tables:
        expected = io.StringIO()
        writer = csv.writer(expected, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        assert csv_bytes(header, rows) == expected.getvalue().encode(), (header, rows)


def test_csv_bytes_quotes_a_carriage_return_and_neutralises_formulas() -> None:
    """OWASP's CSV injection rule: a text cell a spreadsheet would run as a formula (=, +, -, @, tab, carriage return
    first) starts with an apostrophe; a carriage return is quoted, so it ends no row (the csv module quotes only what
    holds its line terminator, here a new line). Numbers are left alone."""
    table = csv_bytes(["a", "b", "c"], [["=1+1", "cr\rhere", -3], ["@x", "+y", "-z"], ["plain", "\tt", 4]])
    assert table == b"a,b,c\n'=1+1,\"cr\rhere\",-3\n'@x,'+y,'-z\nplain,'\tt,4\n"
    assert list(csv.reader(io.StringIO(table.decode(), newline=""))) == [
        ["a", "b", "c"],
        ["'=1+1", "cr\rhere", "-3"],
        ["'@x", "'+y", "'-z"],
        ["plain", "'\tt", "4"],
    ]


def test_write_replaces_the_folder_and_drift_sees_every_difference(
    tmp_path: Path, small_files: dict[str, bytes]
) -> None:
    files = small_files
    target = tmp_path / "cluster"
    older = {"stale.txt": b"from an older build\n"}
    write({**older, "manifest.json": json.dumps({"tool": "designer", "files": {"stale.txt": ""}}).encode()}, target)
    write(files, target)
    assert not (target / "stale.txt").exists()
    assert drift(files, target) == []
    (target / "summary.md").write_text("edited by hand")
    (target / "cabling.csv").unlink()
    (target / "notes.txt").write_text("extra")
    assert drift(files, target) == ["missing: cabling.csv", "changed: summary.md", "extra: notes.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["cluster"]  # no staging folders left behind


def test_builds_last_line_says_to_read_summary_md_first(tmp_path: Path) -> None:
    target = tmp_path / "out"
    code, out, err = run_cli("build", str(SMALL_INTENT), "-o", str(target))
    assert (code, err) == (0, "")
    files = [path for path in target.rglob("*") if path.is_file()]
    megabytes = sum(path.stat().st_size for path in files) / 1e6
    assert out.splitlines()[-1] == (
        f"wrote {len(files):,} files, {megabytes:,.1f} MB, to {target}; read {target / 'summary.md'} first"
    )
    assert (target / "summary.md").is_file()


def test_build_check_is_the_drift_gate(tmp_path: Path) -> None:
    target = tmp_path / "out"
    assert run_cli("build", "--check", str(SMALL_INTENT), "-o", str(target))[0] == 1
    assert run_cli("build", str(SMALL_INTENT), "-o", str(target))[0] == 0
    code, out, _ = run_cli("build", "--check", str(SMALL_INTENT), "-o", str(target))
    assert code == 0 and "matches" in out
    (target / "asn.csv").write_text("device,role,plane,pod,asn\n")
    code, _, err = run_cli("build", "--check", str(SMALL_INTENT), "-o", str(target))
    assert code == 1 and "changed: asn.csv" in err


@pytest.mark.parametrize("intent", sorted((ROOT / "intents").glob("*.yaml")), ids=lambda path: path.stem)
def test_committed_outputs_match_every_shipped_intent(intent: Path) -> None:
    """The shipped outputs/ are what the code generates now (regenerate with designer build and commit)."""
    name = yaml.safe_load(intent.read_text())["name"]
    committed = ROOT / "outputs" / name
    if not committed.is_dir():
        pytest.fail(f"outputs/{name} is missing: run 'designer build intents/{intent.name}' and commit it")
    code, _, err = run_cli("build", "--check", str(intent), "-o", str(committed))
    assert code == 0, err


def test_plan_json_contract() -> None:
    code, out, _ = run_cli("plan", str(EXAMPLE), "--format", "json")
    data = json.loads(out)
    assert code == 0 and set(data) >= PLAN_KEYS
    assert data["switches"] == {"leaf": 32, "spine": 32, "super_spine": 0}  # the spines of the envelope
    assert data["links"] == {"server_leaf": 1024, "leaf_spine": 1024, "spine_super_spine": 0}
    assert data["bandwidth_tbps"]["leaf_spine"] == pytest.approx(409.6)
    assert (data["gpus"], data["nic_ports"], data["p2p_subnets"], data["asns"]) == (1024, 1024, 2048, 33)
    assert data["growth"] == {
        "max_servers": 256,
        "max_gpus": 2048,
        "tiers": 2,
        "scalable_units": 8,
        "pods": 1,
        "switches": {"leaf": 64, "spine": 32, "super_spine": 0},
        "links": {"server_leaf": 2048, "leaf_spine": 2048, "spine_super_spine": 0},
        "spine_up_ports_reserved": False,
        "cabling_limit_servers": 256,
        "cabling_limit": "64-port spines, 1 link(s) to each leaf",
    }
    assert data["pools"]["fabric_p2p"] == {"cidr": "10.0.0.0/15", "size": 131072, "used": 2048, "planned": 4096}


def test_plan_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli("plan", str(EXAMPLE))
    assert code == 0 and "1,024 GPUs" in out
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_workers_write_the_same_files_as_the_in_memory_build(
    tmp_path: Path, workers: int, small_design: Design, small_files: dict[str, bytes]
) -> None:
    """Configurations rendered by forked workers that write their own files: the same bytes as design_files, and
    the files and bytes by part they tell the same as the files on disk."""
    design, files = small_design, small_files
    sizes = write_design(design, tmp_path, workers=workers)
    on_disk = {str(path.relative_to(tmp_path)): path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    assert on_disk == files
    assert sizes == part_sizes(tmp_path)  # told by the writers, the same as each file's stat
    assert sum(count for count, _ in sizes.values()) == len(on_disk)


def test_a_template_error_in_a_worker_stops_the_build_with_its_message(tmp_path: Path, small_design: Design) -> None:
    overrides = tmp_path / "templates" / "frr"
    overrides.mkdir(parents=True)
    (overrides / "interfaces.j2").write_text("{{ 1 // 0 }}\n")
    design = small_design
    with pytest.raises(TemplateError) as caught:
        write_design(design, tmp_path / "out", tmp_path / "templates", workers=2)
    assert "interfaces.j2:1" in str(caught.value) and "ZeroDivisionError" in str(caught.value)


def test_build_check_lists_what_drift_lists_of_the_files_made_in_memory(
    tmp_path: Path, small_design: Design, small_files: dict[str, bytes]
) -> None:
    """``build --check`` renders and compares the switch and server files in forked workers (``build_and_check``,
    ``check_design``): its list must be drift's over ``design_files`` after a config, a server file, a review file
    and the manifest are changed or removed and files and folders are added."""
    design, files = small_design, small_files
    target = tmp_path / "out"
    write(files, target)
    assert check_design(design, target, workers=2) == [] == drift(files, target)
    config = next(path for path in files if path.startswith("configs/sonic/"))
    server = next(path for path in files if path.startswith("servers/"))
    (target / config).write_text("{}\n")
    (target / server).unlink()
    (target / "cabling.csv").write_text("edited\n")
    (target / "manifest.json").write_text("{}\n")
    (target / "configs" / "eos" / "extra.cfg").write_text("mine\n")
    (target / "notes").mkdir()
    (target / "notes" / "a.md").write_text("mine\n")
    (target / "configs-old").mkdir()  # after configs/ as paths sort (by their parts), before it as strings do
    (target / "configs-old" / "x.cfg").write_text("mine\n")
    listed = check_design(design, target, workers=2)
    assert listed == drift(files, target) == build_and_check(design.intent, target, workers=2)[1]
    extra = [
        f"extra: {path.relative_to(target)}"
        for path in sorted(target.rglob("*"))
        if path.is_file() and str(path.relative_to(target)) not in files
    ]
    assert extra == ["extra: configs/eos/extra.cfg", "extra: configs-old/x.cfg", "extra: notes/a.md"]
    # a folder the build did not write is named once, as the build's refusal names it
    assert listed[-3:] == ["extra: configs/eos/extra.cfg", "extra: configs-old/", "extra: notes/"]
    changed = [f"changed: {config}", f"missing: {server}", "changed: cabling.csv", "changed: manifest.json"]
    assert listed[:-3] == sorted(changed, key=lambda line: line.split(": ")[1])


DESCRIPTION = (
    "# not a heading\n"
    "[a link](https://example.com) ![an image](x.png) <b>not bold</b> `not code` **not strong** _not em_ *no*\n"
    "| not | a table |\n"
    "|---|---|\n- not a list\n"
    "  2. not a numbered list, ~~not struck~~\n"
    "> not a quote\n"
    "    not code\nnot a heading either\n"
    "===\n&amp; stays &amp;, a \\* keeps its backslash, <!-- shown --> <https://example.com>\n"
    "\n\n[x]: /not-a-definition\n"
    "<div>a second paragraph, not HTML</div>\n"
    "```\nwww.example.com and ops@example.com show their own address, 1,024 GPUs, rail-optimized"
)


class _Shown(HTMLParser):
    """The paragraphs GitHub shows for a piece of HTML (``<br>`` a line break), and every element that is not a
    paragraph, a line break or a link that shows its own address."""

    def __init__(self) -> None:
        super().__init__()
        self.paragraphs: list[str] = []
        self.other: list[str] = []
        self.link: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "p":
            self.paragraphs.append("")
        elif tag == "br":
            self.paragraphs[-1] += "\n"
        elif tag == "a":
            self.link = [str(dict(attrs).get("href")), ""]
        else:
            self.other.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            href, text = self.link
            if unquote(href).removeprefix("mailto:").removeprefix("http://") != text:
                self.other.append(f"a href={href} showing {text}")
            self.link = []

    def handle_data(self, data: str) -> None:
        if self.link:
            self.link[1] += data
        if self.paragraphs:
            self.paragraphs[-1] += data.replace("\n", "")

    def handle_comment(self, data: str) -> None:
        self.other.append(f"<!--{data}-->")


def shown_by_github(markdown: str) -> _Shown:
    """What GitHub shows of ``markdown``: rendered by ``cmarkgfm`` (the bindings to GitHub's own cmark-gfm) with
    GitHub's extensions (tables, autolinks, strikethrough, the tag filter, task lists) and raw HTML let through, so
    any HTML would show as a tag."""
    from cmarkgfm import github_flavored_markdown_to_html
    from cmarkgfm.cmark import Options

    shown = _Shown()
    shown.feed(github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE))
    return shown


def paragraphs_of(text: str) -> list[str]:
    """The paragraphs of ``text`` as written: its lines without leading and trailing spaces, blank lines between."""
    blocks = re.split(r"\n\s*\n", "\n".join(line.strip() for line in text.splitlines()).strip())
    return [block for block in blocks if block]


MARKDOWN_PIECES = (
    "\n",
    "\n\n",
    "    ",
    "\t",
    "0.",
    "9)",
    "#",
    "> ",
    "- ",
    "+ ",
    "* ",
    "---",
    "===",
    "***",
    "|",
    "|-|",
    ":-:",
    "```",
    "~~~",
    "~~",
    "`",
    "**",
    "_",
    "[a](b)",
    "![a](b)",
    "[a]: b",
    "[^1]",
    "<b>",
    "<div>",
    "<!--",
    "-->",
    "<a@b>",
    "&amp;",
    "&#42;",
    "\\",
    "[ ]",
    "[!NOTE]",
)
"""Pieces of Markdown and HTML syntax (no letters that could spell an address GitHub links by itself)."""


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(MARKDOWN_PIECES) | st.text(string.punctuation + " \t\n\r09ab", max_size=3), max_size=12
    ).map("".join)
)
def test_any_text_of_markdowns_characters_is_shown_as_written(text: str) -> None:
    """Pieces of Markdown and HTML, ASCII punctuation, digits, spaces and line breaks in any order: rendered as GitHub
    renders it, only paragraphs and line breaks, showing the text as written."""
    shown = shown_by_github(markdown_text(text))
    assert shown.other == [] and shown.paragraphs == paragraphs_of(text)


def test_the_description_is_shown_as_text_in_summary_md() -> None:
    """GitHub renders summary.md in a pull request with cmark-gfm (:func:`shown_by_github`): the description's
    Markdown and HTML stay text there, every line on its own line (leading spaces dropped), blank lines between
    paragraphs. Only an address GitHub links by itself may become a link, showing that address; nothing else."""
    described = f"name: test\ndescription: {json.dumps(DESCRIPTION)}\n"
    markdown = summary_markdown(build_text(intent_text(servers=32).replace("name: test\n", described)))
    head, table = markdown.split("\n| |", 1)
    shown = shown_by_github(head)
    assert shown.other == ["h1"] and shown.paragraphs == paragraphs_of(DESCRIPTION)
    assert markdown.startswith("# test\n\n") and table.startswith(" |\n|---|---|\n| GPUs |")


def test_the_shipped_outputs_are_first_builds() -> None:
    """Each shipped folder is what a first build of its intent writes (the README's first command and .ci/run compare
    them byte for byte): built over an earlier build, its summary.md would list what moved since."""
    summaries = sorted((ROOT / "outputs").glob("*/summary.md"))
    assert len(summaries) == 6
    assert [path for path in summaries if "since the previous build" in path.read_text()] == []

"""A first intent: the commented starter ``designer init`` writes, and the examples that ship in the package.

The starter is laid out from a few choices (GPUs, server model, switch model, network OS), each checked against the
catalog, so what it writes builds as written; the examples are curated intents in ``designer/examples/``."""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from designer.catalog import Catalog
from designer.errors import Problem
from designer.intent.fields import safe_name
from designer.intent.yaml_source import short
from designer.targets import TARGETS, of_technology

SWITCH_OSES = of_technology("ethernet")
"""The network OSes a starter intent can name: it designs an Ethernet fabric."""

DEFAULT_GPUS = 1024
DEFAULT_SERVER = "dgx-h100"
DEFAULT_SWITCH = "generic-64x400g"
DEFAULT_TARGET = "frr"
"""The default network OS: one target, and the one ``designer verify`` runs in its lab."""
DEFAULT_FILE = "cluster.yaml"
MAX_STARTER_GPUS = 131_072


@dataclass(frozen=True)
class Choices:
    """What a starter intent is made from."""

    gpus: int = DEFAULT_GPUS
    server: str = DEFAULT_SERVER
    switch: str = DEFAULT_SWITCH
    target: str = DEFAULT_TARGET
    name: str = "cluster"


def examples() -> dict[str, str]:
    """The shipped example intents by name, each with the first line of its header comment."""
    found = {}
    for entry in sorted(files("designer").joinpath("examples").iterdir(), key=lambda entry: entry.name):
        if entry.name.endswith(".yaml"):
            first = entry.read_text().splitlines()[0]
            found[entry.name.removesuffix(".yaml")] = first.lstrip("# ").strip()
    return found


def example_text(name: str) -> str:
    """The text of the shipped example ``name`` (one of :func:`examples`)."""
    return files("designer").joinpath("examples", f"{name}.yaml").read_text()


def choice_problems(choices: Choices, hardware: Catalog) -> list[Problem]:
    """What is wrong with ``choices``, each with what would be valid; empty when a starter can be written."""
    problems = []
    try:
        safe_name(choices.name)
    except ValueError as error:
        problems.append(Problem(("name",), str(error)))
    server = hardware.servers.get(choices.server)
    if server is None and choices.server in hardware.systems:
        example = (
            f"designer init --example {choices.server} writes an intent of it"
            if choices.server in examples()
            else f"an intent names it as compute.system: {choices.server} (docs/rack-scale.md)"
        )
        problems.append(Problem(("server",), f"{choices.server} is a rack-scale system, not a server model: {example}"))
    elif server is None:
        problems.append(
            Problem(
                ("server",),
                f"unknown server model {short(choices.server)}; use one of {', '.join(hardware.servers)}",
            )
        )
    if choices.switch not in hardware.switches:
        problems.append(
            Problem(
                ("switch",), f"unknown switch model {short(choices.switch)}; use one of {', '.join(hardware.switches)}"
            )
        )
    if choices.target not in SWITCH_OSES:
        known = ", ".join(SWITCH_OSES)
        problems.append(Problem(("target",), f"unknown network OS {short(choices.target)}; use one of {known}"))
    if choices.gpus < 0:
        problems.append(Problem(("gpus",), f"not a number of GPUs; use a whole number, e.g. {DEFAULT_GPUS}"))
    elif server is not None and not (0 < choices.gpus <= MAX_STARTER_GPUS and choices.gpus % server.gpus == 0):
        problems.append(
            Problem(
                ("gpus",),
                f"{choices.gpus} GPUs do not fill whole {choices.server} servers of {server.gpus} GPUs up to "
                f"{MAX_STARTER_GPUS:,}; use a multiple of {server.gpus}, e.g. {DEFAULT_GPUS}",
            )
        )
    return problems


def starter(choices: Choices, hardware: Catalog, file_name: str) -> str:
    """The commented starter intent for ``choices`` (already free of :func:`choice_problems`), to be written as
    ``file_name``."""
    server, switch = hardware.servers[choices.server], hardware.switches[choices.switch]
    servers = choices.gpus // server.gpus
    needs = TARGETS[choices.target].needs
    targets = ", ".join(dict.fromkeys([*(need for need, _ in needs), choices.target]))
    planes = f"{server.planes} plane{'s' if server.planes != 1 else ''}"
    lines = [
        f"# {choices.gpus:,} GPUs on {servers:,} {choices.server} servers ({server.nics} x {server.nic_speed}G NIC "
        f"ports each, {planes}),",
        f"# {choices.switch} switches ({switch.ports} x {switch.speed}G), {choices.target} configurations.",
        f"# Next: designer build {file_name}, then read outputs/{choices.name}/summary.md.",
        "# Every field: designer schema prints the intent's JSON Schema (an editor can use it).",
        f"name: {choices.name}",
        f"description: {choices.gpus:,} GPUs, rail-optimized, non-blocking",
        "compute:",
        f"  servers: {servers}",
        "  # a catalog model: fills gpus_per_server, nics_per_server, nic_speed and server_power_kw",
        f"  server: {choices.server}",
        "growth:",
        "  # the envelope: spines, pools, ASNs and racks are planned for it, so growing inside it moves nothing",
        f"  max_servers: {2 * servers}",
        "fabric:",
        f"  planes: {server.planes}",
        "  # 2 or 3; auto takes the fewest tiers that hold the envelope without oversubscription",
        "  tiers: auto",
        f"  leaf: {{model: {choices.switch}}}",
        f"  spine: {{model: {choices.switch}}}",
        "routing:",
        "  # RFC 7938: every leaf its own ASN, the spines of a pod share one, the super-spines of a plane one",
        "  asn_scheme: rfc7938",
        f"# the network OSes to write configurations for: any of {', '.join(SWITCH_OSES)}",
        *(f"# {choices.target} needs {need}: {why}" for need, why in needs),
        f"targets: [{targets}]",
        "# what a build writes beside the review files and the configurations: servers: false leaves out the",
        "# per-server NIC files (most of a large build's files), lab: false the containerlab topology",
        "outputs: {servers: true, lab: true}",
        f"# what the fabric does to a training job: designer analyze {file_name}",
        "workloads:",
        "  - name: data-parallel",
        f"    gpus: {choices.gpus}",
        "    placement: packed",
        "    collective: allreduce",
        "    model: {parameters: 70e9, bytes_per_parameter: 2}",
    ]
    return "\n".join(lines) + "\n"


def free_path(path: Path) -> Problem | None:
    """Why ``path`` cannot take a new intent (it exists: ``init`` never overwrites a file; its folder does not
    exist), or None."""
    if path.exists() or path.is_symlink():
        return Problem(("output",), f"{path} exists; designer init never overwrites a file: give another path")
    if not path.parent.is_dir():
        return Problem(
            ("output",), f"{path.parent} is not a folder; designer init writes into an existing one: create it first"
        )
    return None

"""Command line: ``designer build``, ``designer plan``, ``designer explore``, ``designer check``, ``designer analyze``,
``designer diff``, ``designer verify``, ``designer audit``, ``designer export``, ``designer sync``,
``designer init``.
Exit 0 success, 1 a check failed, 2 bad input."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from designer import __version__
from designer.errors import InputError, OutputError, PrerequisiteError, TemplateError

if TYPE_CHECKING:
    from designer.design import Design, Progress
    from designer.intent import Intent
    from designer.intent.starter import Choices
    from designer.outputs.folder import PartSizes

    Commands = argparse._SubParsersAction[argparse.ArgumentParser]
    """The parser's commands, each added by a function of its own."""

# Each command imports the stages it runs when it runs (pydantic, networkx, Jinja2 and libyang are not
# free to import), so `designer schema` or `designer diff` does not pay for rendering or the lab.

EXIT_OK, EXIT_CHECK_FAILED, EXIT_INPUT = 0, 1, 2
DRIFT_LINES = 20
"""Differing files listed by ``build --check``; the rest are counted."""
PROGRESS_GPUS = 16_384
"""From this many GPUs on, build, plan and check report their stages on stderr even when it is no terminal."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    return _run(argv, [])


def console() -> NoReturn:
    """The ``designer`` command: :func:`main` on the process's arguments, then the process ends without freeing
    what the command built, as mypy does (freeing a 131,072-GPU design object by object takes about a second;
    the operating system takes the memory back at once). Every file is closed by then; stdout and stderr are
    flushed here."""
    kept: list[object] = []
    code = _run(None, kept)
    with contextlib.suppress(BrokenPipeError):  # the reader stopped early: the rest is dropped, as main does
        sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _run(argv: Sequence[str] | None, kept: list[object]) -> int:
    """Parse ``argv`` and run its command; the command appends what it built to ``kept`` (the caller decides
    whether it is freed)."""
    args = _parser().parse_args(argv)
    args.kept = kept
    # A command builds hundreds of thousands of acyclic records and exits; the cyclic collector would only
    # rescan them again and again (3x slower at 131k GPUs), so it is paused while the command runs.
    collecting = gc.isenabled()
    gc.disable()
    try:
        code: int = args.run(args)
        return code
    except (InputError, PrerequisiteError, TemplateError, OutputError) as error:
        print(str(error), file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        # The reader (``| head``) stopped early; say nothing more, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    finally:
        if collecting:
            gc.enable()


def _parser() -> argparse.ArgumentParser:
    """The command line's parser: every command with its arguments."""
    parser = argparse.ArgumentParser(
        prog="designer", description=("Design a non-blocking rail-optimized GPU backend fabric from a YAML intent.")
    )
    parser.add_argument("--version", action="version", version=f"designer {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _build_command(commands)
    _plan_command(commands)
    _explore_command(commands)
    _check_command(commands)
    _analyze_command(commands)
    _diff_command(commands)
    _validate_configs_command(commands)
    _verify_command(commands)
    _init_command(commands)
    _audit_command(commands)
    _export_command(commands)
    _sync_command(commands)
    _schema_command(commands)
    return parser


def _build_command(commands: Commands) -> None:
    """The ``build`` command and its arguments."""
    command = commands.add_parser("build", help="build the design and write outputs/<name>/")
    command.add_argument("intent", type=Path, help="the intent YAML file")
    command.add_argument(
        "-o", "--output", type=Path, help="write the design into this folder (default: outputs/<name>)"
    )
    command.add_argument(
        "--templates",
        type=Path,
        metavar="DIR",
        help="search this folder of Jinja2 templates "
        "before the shipped ones (default: templates/ beside the intent, if any)",
    )
    command.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if the committed outputs differ from what the intent gives now",
    )
    command.set_defaults(run=_build)


def _plan_command(commands: Commands) -> None:
    """The ``plan`` command and its arguments."""
    command = commands.add_parser("plan", help="print the design's headline numbers; writes nothing")
    command.add_argument("intent", type=Path, help="the intent YAML file")
    command.add_argument("--format", choices=("text", "json"), default="text")
    command.set_defaults(run=_plan)


def _explore_command(commands: Commands) -> None:
    """The ``explore`` command and its arguments."""
    command = commands.add_parser(
        "explore",
        help="compare the designs an intent allows (switches, power, cables, optics, job time); writes nothing "
        "unless -o",
    )
    command.add_argument("intent", type=Path, help="the intent YAML file")
    command.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="PATH=V1,V2",
        help="try each value at this dotted intent path, e.g. fabric.leaf.model=nvidia-sn5600,generic-64x800g "
        "(repeatable; default: what the intent leaves open)",
    )
    command.add_argument("--format", choices=("table", "json"), default="table")
    command.add_argument(
        "-o", "--output", type=Path, metavar="DIR", help="write each passing candidate's intent and explore.svg here"
    )
    command.set_defaults(run=_explore)


def _check_command(commands: Commands) -> None:
    """The ``check`` command and its arguments."""
    command = commands.add_parser(
        "check",
        help="run every check of the design (1:1, ECMP, bisection, addressing, "
        "ASNs, ports, sessions, QoS, failure impact, physical); writes nothing",
    )
    command.add_argument(
        "intent",
        type=Path,
        metavar="INTENT|OUTPUT_DIR",
        help=(
            "the intent YAML file, or a folder written by 'designer build' (its recorded findings, after checking "
            "its files against manifest.json)"
        ),
    )
    command.add_argument(
        "--format",
        choices=("text", "json", "junit"),
        default="text",
        help="text: one line per finding, then each check's outcome; json: every finding with "
        "its evidence; junit: one XML test case per check, for CI",
    )
    command.set_defaults(run=_check)


def _analyze_command(commands: Commands) -> None:
    """The ``analyze`` command and its arguments."""
    command = commands.add_parser(
        "analyze",
        help="what the fabric does to each workload of the intent: "
        "collective time, ECMP collisions, failures, dollars; writes nothing",
    )
    command.add_argument("intent", type=Path, help="the intent YAML file (with a workloads section)")
    command.add_argument("--format", choices=("text", "json"), default="text")
    command.add_argument(
        "--seeds",
        type=_seeds,
        metavar="N",
        help="runs per hash, each with its own QP numbers and hash seeds (default 32; fewer "
        "when the analysis budget says so)",
    )
    command.set_defaults(run=_analyze)


def _diff_command(commands: Commands) -> None:
    """The ``diff`` command and its arguments."""
    command = commands.add_parser(
        "diff",
        help="what changed between two built designs: devices, links, addresses, BGP sessions, QoS, counts and checks",
    )
    command.add_argument("old", help="an output folder (outputs/<name> or outputs) or a git revision")
    command.add_argument("new", help="an output folder or a git revision")
    command.add_argument(
        "--path", default="outputs", help="with git revisions: the folder holding the designs (default: outputs)"
    )
    command.add_argument(
        "--fail-on",
        choices=("existing-change",),
        help="exit 1 when anything that existed "
        "changed (renamed, readdressed, re-patched, moved, a configuration line lost or edited)",
    )
    command.set_defaults(run=_diff)


def _validate_configs_command(commands: Commands) -> None:
    """The ``validate-configs`` command and its arguments."""
    command = commands.add_parser(
        "validate-configs",
        help=(
            "check a built output's switch configs with the real parsers (SONiC YANG via libyang, FRR vtysh -C, "
            "Arista's EOS templates via pyavd, rendering the design of the folder's own intent.yaml)"
        ),
    )
    command.add_argument("output", type=Path, help="a built output folder, e.g. outputs/cluster-a")
    command.add_argument(
        "--yang-dir",
        type=Path,
        help=("SONiC YANG models (default: $DESIGNER_SONIC_YANG, else the models that ship with designer)"),
    )
    command.set_defaults(run=_validate_configs)


def _verify_command(commands: Commands) -> None:
    """The ``verify`` command and its arguments."""
    command = commands.add_parser(
        "verify",
        help=(
            "run the design's FRR configs in real routers, one network namespace per switch, and prove it converges "
            "(needs root and frr)"
        ),
    )
    command.add_argument(
        "target",
        type=Path,
        metavar="INTENT|OUTPUT_DIR",
        help="an intent file (built in memory) or a folder written by 'designer build'",
    )
    command.add_argument(
        "--slice",
        action="store_true",
        help=(
            "run a representative part of a large fabric: one pod (2 tiers: one scalable unit) whole with its "
            "spines and super-spines, plus one leaf per rail of the next"
        ),
    )
    command.add_argument(
        "--format",
        choices=("text", "json", "junit"),
        default="text",
        help="report format on stdout; progress goes to stderr",
    )
    command.add_argument(
        "--no-failures",
        dest="failures",
        action="store_false",
        help="skip failure injection (a spine, and with 3 tiers a super-spine, down and back)",
    )
    command.add_argument(
        "--timeout",
        type=_timeout,
        metavar="SECONDS",
        help="longest wait for each phase to converge (default: 60 s + 1 s per router)",
    )
    command.add_argument(
        "--traffic",
        action="store_true",
        help=(
            "also give sampled servers namespaces configured from their host files, prove each NIC reaches its rail "
            "through its own leaf, and send RoCEv2 flows to compare the kernel's ECMP hash with the workload model"
        ),
    )
    command.add_argument(
        "--monitoring",
        action="store_true",
        help=(
            "also run the design's monitoring files (outputs.monitoring) against the lab: its exporters and a real "
            "Prometheus, with a spine down and back"
        ),
    )
    command.set_defaults(run=_verify)


def _init_command(commands: Commands) -> None:
    """The ``init`` command and its arguments."""
    command = commands.add_parser(
        "init",
        help=(
            "write a commented starter intent that builds as written (asks on a terminal; flags; else the default "
            "1,024-GPU DGX H100 cluster), or a shipped example; never overwrites a file"
        ),
    )
    command.add_argument(
        "path", nargs="?", type=Path, help="the file to write (default: cluster.yaml, or <example>.yaml)"
    )
    command.add_argument("--gpus", type=int, metavar="N", help="GPUs in the cluster (default 1024)")
    command.add_argument("--server", metavar="MODEL", help="a catalog server model (default dgx-h100)")
    command.add_argument("--switch", metavar="MODEL", help="a catalog switch model (default generic-64x400g)")
    command.add_argument("--target", metavar="OS", help="the network OS to write configurations for (default frr)")
    command.add_argument("--name", help="the design's name (default cluster)")
    command.add_argument("--list", action="store_true", help="list the shipped examples")
    command.add_argument("--example", metavar="NAME", help="write the shipped example NAME (see --list)")
    command.set_defaults(run=_init)


def _audit_command(commands: Commands) -> None:
    """The ``audit`` command and its arguments."""
    command = commands.add_parser(
        "audit",
        help=(
            "compare the cabling the devices report (LLDP, or InfiniBand's ibnetdiscover) with a built design: every "
            "missing, extra and miswired cable by name, and the swaps that fix crossed pairs; writes nothing but "
            "--sm-files"
        ),
    )
    command.add_argument("output", type=Path, metavar="OUTPUT_DIR", help="a folder written by 'designer build'")
    command.add_argument(
        "files",
        type=Path,
        nargs="+",
        metavar="FILE",
        help=(
            "what one device printed, named after the device as the design names it (leaf1.json holds leaf1's): "
            "EOS 'show lldp neighbors | json' or lldpd 'lldpcli -f json0 show neighbors' (switches and servers); "
            "or, for an InfiniBand fabric, one file of what 'ibnetdiscover > FILE' wrote"
        ),
    )
    command.add_argument("--format", choices=("text", "json"), default="text")
    command.add_argument(
        "--sm-files",
        type=Path,
        metavar="DIR",
        help=(
            "also write OpenSM's GUID-keyed files from the ibnetdiscover file into DIR (new, empty, or written here "
            "before): the root GUID file of the design's top switches and a node-name map"
        ),
    )
    command.set_defaults(run=_audit)


def _export_command(commands: Commands) -> None:
    """The ``export`` command and its arguments."""
    command = commands.add_parser(
        "export",
        help=(
            "write a built design in another tool's input format (avd: Arista AVD's eos_designs inputs; anta: "
            "ANTA's test catalog and inventory, made by pyavd)"
        ),
    )
    command.add_argument(
        "format",
        choices=("avd", "anta"),
        help="avd: an Ansible inventory with group and host variables; anta: catalog.yml and inventory.yml",
    )
    command.add_argument("output", type=Path, metavar="OUTPUT_DIR", help="a folder written by 'designer build'")
    command.add_argument(
        "-o",
        "--to",
        type=Path,
        required=True,
        metavar="DIR",
        help="the export folder (new, empty or an earlier export)",
    )
    command.set_defaults(run=_export)


def _sync_command(commands: Commands) -> None:
    """The ``sync`` command and its arguments."""
    command = commands.add_parser(
        "sync",
        help="write a built design into a source of truth (Nautobot): racks, device types, devices, cables, "
        "prefixes, addresses, ASNs; only objects it tagged are ever changed",
    )
    command.add_argument("backend", choices=("nautobot",), help="the source of truth")
    command.add_argument("output", type=Path, help="a built output folder, e.g. outputs/cluster-a")
    command.add_argument("--url", required=True, help="the server, e.g. https://nautobot.example.com")
    command.add_argument(
        "--token",
        default=os.environ.get("NAUTOBOT_TOKEN"),
        help="an API token (default: $NAUTOBOT_TOKEN, which keeps it out of the process list)",
    )
    command.add_argument(
        "--dry-run", action="store_true", help="print what would be created, updated and deleted; change nothing"
    )
    command.add_argument(
        "--prune", action="store_true", help="delete the tagged objects of this design that the design no longer has"
    )
    command.set_defaults(run=_sync)


def _schema_command(commands: Commands) -> None:
    """The ``schema`` command and its arguments."""
    command = commands.add_parser(
        "schema", help=("print the intent's JSON Schema (for editors: intents/intent.schema.json is this output)")
    )
    command.add_argument(
        "--catalog",
        action="store_true",
        help=("print a site catalog's JSON Schema instead (intents/catalog.schema.json)"),
    )
    command.set_defaults(run=_schema)


def _build(args: argparse.Namespace) -> int:
    from designer.outputs.build import build_and_write
    from designer.outputs.folder import claim
    from designer.outputs.summary import summary, summary_text, written_lines
    from designer.readback.diff import Previous
    from designer.validation import validated_intent

    intent = validated_intent(args.intent)
    target = args.output or Path("outputs") / intent.name
    progress = _progress(intent)
    if args.check:
        return _build_check(args, intent, target, progress)
    with claim(target) as folder:
        previous = Previous.of(target)
        done: list[tuple[Design, PartSizes]] = []
        folder.fill(
            lambda staging: done.append(
                build_and_write(intent, staging, args.templates, progress, previous.section if previous else None)
            )
        )
    built, sizes = done[0]
    args.kept.append(built)
    print(summary_text(summary(built)))
    if not intent.targets_named:
        took = ", ".join((*intent.targets, *intent.subnet_managers))
        print(f"targets: {took} (the defaults: the intent names no targets)")
    if previous and previous.moved:
        print(
            f"existing items changed since the previous build: {previous.moved:,}"
            + (f" ({previous.cause})" if previous.cause else "")
            + "; summary.md lists them"
        )
    first = f"read {target / 'summary.md'} first"
    print(written_lines(sizes, target, first))
    return _build_errors(built, target, first)


def _build_check(args: argparse.Namespace, intent: Intent, target: Path, progress: Progress | None) -> int:
    """``build --check``: the exit code of comparing the committed folder with what the intent gives now (its
    differences on stderr)."""
    from designer.outputs.build import build_and_check
    from designer.pipeline import design
    from designer.readback.diff import Previous

    previous = Previous.of(target)
    if target.is_dir():
        built, differences = build_and_check(
            intent, target, args.templates, progress, previous.section if previous else None
        )
    else:
        built, differences = design(intent, progress), [f"missing: {target}/"]
    args.kept.append(built)
    if differences:
        print(
            f"{target} is out of date with {args.intent}; run 'designer build {args.intent}' and commit:",
            file=sys.stderr,
        )
        shown = differences[:DRIFT_LINES]
        more = [f"and {len(differences) - DRIFT_LINES:,} more"] if len(differences) > DRIFT_LINES else []
        print("\n".join(f"  {line}" for line in [*shown, *more]), file=sys.stderr)
        return EXIT_CHECK_FAILED
    print(f"{target} matches {args.intent}")
    return EXIT_OK


def _build_errors(built: Design, target: Path, first: str) -> int:
    """The exit code of a written build: its error findings and the checks that failed on stderr, if any."""
    from designer.checks import formats as check_formats
    from designer.checks import status

    errors = [finding for finding in built.findings if finding.severity == "error"]
    if errors:
        failed = [check for check, result in status(errors).items() if result == "failed"]
        print("\n".join(check_formats.line(finding) for finding in errors), file=sys.stderr)
        print(
            f"designer build: {len(failed)} check{'s' if len(failed) != 1 else ''} failed ({', '.join(failed)}); "
            f"the outputs were written to {target}: {first}",
            file=sys.stderr,
        )
        return EXIT_CHECK_FAILED
    return EXIT_OK


def _plan(args: argparse.Namespace) -> int:
    from designer.outputs.summary import summary, summary_text
    from designer.pipeline import design
    from designer.validation import validated_intent

    intent = validated_intent(args.intent)
    built = design(intent, _progress(intent), hosts=False)
    args.kept.append(built)
    data = summary(built)
    print(json.dumps(data, indent=2) if args.format == "json" else summary_text(data))
    return EXIT_OK


def _explore(args: argparse.Namespace) -> int:
    from designer.explore import explore
    from designer.explore import report as formats
    from designer.outputs.folder import EXPLORE, claim

    found = explore(args.intent, args.vary)
    if args.output:
        with claim(args.output, EXPLORE, [args.intent]) as folder:
            folder.write(formats.written(found, args.output, args.intent))
    print(formats.as_json(found) if args.format == "json" else formats.table(found))
    return EXIT_OK if found.candidates else EXIT_CHECK_FAILED


def _check(args: argparse.Namespace) -> int:
    from designer.checks import CHECKS, applicable
    from designer.checks import formats as check_formats
    from designer.pipeline import design
    from designer.readback.built import folder_intent, output_findings
    from designer.validation import validated_intent

    checks = CHECKS
    if args.intent.is_dir():
        findings, name = output_findings(args.intent)
        if folder := folder_intent(args.intent):
            checks = applicable(folder.technology)
    else:
        intent = validated_intent(args.intent)
        built = design(intent, _progress(intent), hosts=False)
        args.kept.append(built)
        findings, name, checks = list(built.findings), built.intent.name, applicable(intent.technology)
    if args.format == "json":
        print(check_formats.json_report(findings, name, checks))
    elif args.format == "junit":
        print(check_formats.junit(findings, name, checks), end="")
    else:
        print(check_formats.text(findings, name, checks))
    return EXIT_CHECK_FAILED if any(finding.severity == "error" for finding in findings) else EXIT_OK


def _seeds(value: str) -> int:
    """``--seeds``: a whole number of runs from 1 to 10,000."""
    if not value.isdigit() or not 1 <= int(value) <= 10_000:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of runs from 1 to 10000")
    return int(value)


def _timeout(value: str) -> float:
    """``verify --timeout``: seconds, a number from 1 to 86,400 (a day)."""
    try:
        seconds = float(value)
    except ValueError:
        seconds = math.nan
    if not 1 <= seconds <= 86_400:  # nan and the infinities fail it too
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds from 1 to 86400")
    return seconds


def _analyze(args: argparse.Namespace) -> int:
    from designer.analysis.workload import SEEDS
    from designer.errors import Problem
    from designer.outputs import workload_report as workload_formats
    from designer.pipeline import workloads
    from designer.validation import validated_intent

    intent = validated_intent(args.intent)
    seeds = args.seeds or SEEDS
    if not intent.workloads:
        raise InputError(
            [
                Problem(
                    ("workloads",),
                    "the intent has no workloads to analyze; add a workloads section, e.g. [{name: job, bytes: 700GB}]",
                )
            ],
            intent.source,
        )
    results = workloads(intent, _progress(intent), seeds)
    runs = results[0].seeds  # the same for every workload: seeds, or fewer within the analysis budget
    if args.format == "json":
        print(
            json.dumps(
                {
                    "name": intent.name,
                    "runs": runs,
                    "workloads": [workload_formats.detail(result) for result in results],
                },
                indent=2,
            )
        )
    else:
        print(workload_formats.text(intent.name, results, runs, intent.system.name if intent.system else "server"))
    return EXIT_OK


def _progress(intent: Intent) -> Progress | None:
    """Each stage on stderr as ``[  3.1s] wiring 393,216 links`` when stderr is a terminal or the fabric is large
    (``PROGRESS_GPUS``); stdout stays what it was."""
    if not (sys.stderr.isatty() or intent.gpus >= PROGRESS_GPUS):
        return None
    start = time.monotonic()

    def report(stage: str) -> None:
        print(f"[{time.monotonic() - start:5.1f}s] {stage}", file=sys.stderr, flush=True)

    return report


def _diff(args: argparse.Namespace) -> int:
    from designer.readback.diff import load, review

    text, changed = review(load(args.old, args.path), load(args.new, args.path))
    print(text, end="")
    return EXIT_CHECK_FAILED if args.fail_on == "existing-change" and changed else EXIT_OK


def _sync(args: argparse.Namespace) -> int:
    from designer.sync import nautobot
    from designer.sync.inventory import folder_inventory

    if not args.token:
        raise PrerequisiteError("designer sync: give the API token with --token or in $NAUTOBOT_TOKEN")
    api = nautobot.Api(args.url, args.token)
    objects = folder_inventory(args.output)
    if warning := api.plain_text_warning():
        print(warning, file=sys.stderr)
    plan = nautobot.sync(objects, api, dry_run=args.dry_run, prune=args.prune)
    if plan.conflicts:
        print("\n".join(plan.conflicts), file=sys.stderr)
        print(
            f"designer sync: {len(plan.conflicts)} conflict(s) with what Nautobot holds; nothing was written",
            file=sys.stderr,
        )
        return EXIT_INPUT
    print(plan.report(args.dry_run, args.prune))
    return EXIT_OK


def _validate_configs(args: argparse.Namespace) -> int:
    from designer.verify.parsers import validate_output

    report = validate_output(args.output, args.yang_dir)
    print(report.text())
    for problem in report.missing:
        print(problem, file=sys.stderr)
    if report.invalid:
        return EXIT_CHECK_FAILED
    return EXIT_INPUT if report.missing else EXIT_OK


def _verify(args: argparse.Namespace) -> int:
    from designer.backend.sizing import size
    from designer.backend.wiring import wire
    from designer.infiniband.sm_files import names_of
    from designer.outputs.build import design_files
    from designer.pipeline import design
    from designer.readback.built import folder_intent
    from designer.validation import validated_intent
    from designer.verify.report import FORMATS
    from designer.verify.run import read_output, verify
    from designer.verify.subnet import read_subnet_files, verify_subnet

    try:
        intent = folder_intent(args.target) if args.target.is_dir() else validated_intent(args.target)
        if intent is not None and intent.subnet_managers:
            files = (
                read_subnet_files(args.target)
                if args.target.is_dir()
                else design_files(design(intent, _progress(intent), hosts=False))
            )
            fabric = wire(intent, size(intent))
            report = verify_subnet(intent.name, names_of(intent, fabric), fabric.devices, files)
        else:
            if args.target.is_dir():
                files = read_output(args.target, args.traffic, not args.slice, args.monitoring)
            else:
                files = design_files(design(validated_intent(args.target)))
            report = verify(
                files,
                whole=not args.slice,
                failures=args.failures,
                timeout=args.timeout,
                traffic=args.traffic,
                monitoring=args.monitoring,
            )
    except KeyboardInterrupt:
        print("designer verify: interrupted; the lab was torn down", file=sys.stderr)
        return 130  # the shell's code for a run stopped by Ctrl-C
    print(FORMATS[args.format](report), end="")
    return EXIT_OK if report.passed else EXIT_CHECK_FAILED


def _audit(args: argparse.Namespace) -> int:
    from designer.audit.report import FORMATS
    from designer.audit.run import audit_output

    name, found = audit_output(args.output, args.files, args.sm_files)
    if args.sm_files is not None:
        print(f"wrote OpenSM's root GUID file and node-name map to {args.sm_files}", file=sys.stderr)
    print(FORMATS[args.format](name, found), end="")
    return EXIT_OK if found.clean else EXIT_CHECK_FAILED


def _export(args: argparse.Namespace) -> int:
    from designer.export.anta import anta_files
    from designer.export.avd import built_design, export_files, write_export

    built = built_design(args.output)
    makers = {"avd": (export_files, "Arista AVD eos_designs inputs"), "anta": (anta_files, "an ANTA catalog")}
    make, what = makers[args.format]
    written = write_export(built, args.to, args.format, make(built), args.output)
    print(f"wrote {written} files to {args.to} ({what})")
    return EXIT_OK


def _schema(args: argparse.Namespace) -> int:
    from designer.intent import schema, site_catalog

    json_schema = site_catalog.json_schema if args.catalog else schema.json_schema
    print(json.dumps(json_schema(), indent=2, ensure_ascii=False))
    return EXIT_OK


def _init(args: argparse.Namespace) -> int:
    from designer.catalog import catalog
    from designer.errors import Problem
    from designer.intent.starter import (
        DEFAULT_FILE,
        Choices,
        choice_problems,
        example_text,
        examples,
        free_path,
        starter,
    )

    shipped = examples()
    if args.list:
        width = max(map(len, shipped))
        print("\n".join(f"{name:<{width}}  {about}" for name, about in shipped.items()))
        return EXIT_OK
    if args.example is not None:
        if args.example not in shipped:
            unknown = Problem(("example",), f"unknown example {args.example!r}; use one of {', '.join(shipped)}")
            raise InputError([unknown], about="designer init")
        path = args.path or Path(f"{args.example}.yaml")
        text = example_text(args.example)
    else:
        given = {key: getattr(args, key) for key in ("gpus", "server", "switch", "target", "name")}
        flags = {key: value for key, value in given.items() if value is not None}
        choices = Choices(**flags) if flags or not sys.stdin.isatty() else _ask(Choices())
        hardware = catalog()
        if problems := choice_problems(choices, hardware):
            raise InputError(problems, about="designer init's choices")
        path = args.path or Path(DEFAULT_FILE)
        text = starter(choices, hardware, path.name)
    if problem := free_path(path):
        raise InputError([problem], about="designer init")
    with open(path, "x", encoding="utf-8") as file:  # "x": a file that appeared meanwhile is not overwritten
        file.write(text)
    print(f"wrote {path}; next: designer build {path}")
    return EXIT_OK


def _ask(defaults: Choices) -> Choices:
    """The starter's choices asked on the terminal, each answered by Enter with its default."""
    from designer.catalog import catalog
    from designer.intent.starter import SWITCH_OSES, Choices

    hardware = catalog()

    def ask(question: str, default: str, among: Sequence[str] = ()) -> str:
        listed = f" ({', '.join(among)})" if among else ""
        try:
            return input(f"{question}{listed} [{default}]: ").strip() or default
        except EOFError:  # the input ended: every question left takes its default
            print(file=sys.stderr)
            return default

    gpus = ask("GPUs", str(defaults.gpus))
    return Choices(
        gpus=int(gpus) if gpus.isdigit() and len(gpus) <= 9 else -1,
        server=ask("server model", defaults.server, list(hardware.servers)),
        switch=ask("switch model", defaults.switch, list(hardware.switches)),
        target=ask("network OS", defaults.target, SWITCH_OSES),
        name=ask("design name", defaults.name),
    )


if __name__ == "__main__":
    console()

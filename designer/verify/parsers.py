"""Prove generated configs with the real parsers: SONiC's YANG models through libyang, FRR's ``vtysh -C``, and
Arista's own EOS templates (pyavd, :mod:`designer.verify.pyavd_eos`) rendering the same design.

* SONiC: a ``config_db.json`` is a map of tables (``PORT``, ``INTERFACE``, ...) to keys to fields, all
  strings. SONiC's YANG models describe the same data as ``sonic-<module>:sonic-<module>`` containers
  holding one container per table with ``<TABLE>_LIST`` lists keyed by the YANG list keys. The
  translation is generic, read from the models (as SONiC's own ``sonic-yang-mgmt`` does): a table is
  the container of that name under a module's top container; a ``|``-separated key goes to the list
  of the table with as many keys; a key naming a container (``DEVICE_METADATA|localhost``) fills it;
  a list whose only non-key child is a key/value list (``DSCP_TO_TC_MAP``) takes the fields as its
  entries; each value is typed by its leaf (numbers up to 32 bits, booleans, the rest strings as
  RFC 7951 asks). libyang then checks types, ranges, patterns, enums, leafrefs and ``must`` rules
  and reports the first error, which is mapped back to the config_db table, key and field.
* FRR: ``vtysh --config_dir DIR -C -f frr.conf`` parses the file offline with FRR's own command
  grammar; it exits 2 and prints the line of every bad command. A config reaches vtysh's own commands after an
  ``end`` line (``output file PATH``), so vtysh runs only behind :mod:`designer.verify.sandbox`'s walls.
* The FRR routers' kernel settings (``configs/sysctl/``): every line ``key = integer``, and every key a setting of
  the running kernel (``/proc/sys``); a key this kernel lacks makes the check a missing prerequisite, not a
  verdict.
* NVUE: every ``startup.yaml`` against NVIDIA's NVUE OpenAPI schema of the Cumulus Linux release the folder's
  intent names (:mod:`designer.verify.nvue_openapi`): paths and value types.
"""

from __future__ import annotations

import json
import os
import pwd
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from designer.backend.model import DeviceConfig
from designer.catalog import TargetModel
from designer.errors import InputError, PrerequisiteError
from designer.files import CONFIG, oversized, read_file, sonic_yang_models
from designer.networks.management import Management, SwitchManagement
from designer.outputs.folder import INTENT_FILE
from designer.pipeline import device_models, management_of_switches
from designer.readback.built import folder_intent
from designer.targets import validators
from designer.verify import nvue_openapi, pyavd_eos
from designer.verify.hostconfig import parse_router_sysctl, sysctl_path
from designer.verify.lab import SANDBOX
from designer.verify.opensm_check import opensm_problems
from designer.verify.sandbox import USER as FRR_USER

INSTALL = "apt-get install frr libyang2-dev && pip install libyang==2.8.0"
YANG_ENV = "DESIGNER_SONIC_YANG"
SONIC, FRR, AVD, SYSCTL, NVUE = "sonic-yang", "vtysh", "pyavd", "/proc/sys", "nvue-openapi"
OPENSM = "opensm"
_NUMBERS = frozenset({"int8", "int16", "int32", "uint8", "uint16", "uint32"})
_LOCATION = re.compile(r"^/[^/]+/(?P<table>[^/\[]+)(?:/(?P<node>[^/\[]+)(?P<keys>(?:\[[^\]]*\])*))?(?:/(?P<rest>.*))?$")
_INTEGER = re.compile(r"-?\d+")
_PREDICATE = re.compile(r"\[[^=\]]+='([^']*)'\]")
_VTYSH_LINE = re.compile(r"^line \d+: ")


@dataclass(frozen=True)
class Verdict:
    """What one parser said about one file: ``error`` is empty when the file is valid."""

    path: str
    parser: str
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


class ConfigDbError(Exception):
    """A config_db.json that SONiC's YANG models reject, located at its table, key and field."""

    def __init__(self, message: str, table: str = "", key: str = "", field: str = ""):
        self.table, self.key, self.field, self.message = table, key, field, message
        where = "|".join(part for part in (table, key) if part)
        where += f" {field}" if field else ""
        super().__init__(f"{where}: {message}" if where else message)


def default_yang_dir() -> Path:
    """``$DESIGNER_SONIC_YANG``, else the models that ship with designer (``designer/data/sonic-yang``)."""
    return Path(os.environ.get(YANG_ENV) or sonic_yang_models())


@dataclass(frozen=True)
class _Node:
    """A table's list or container, read from the models once: its keys and fields with their JSON kinds."""

    name: str
    keys: tuple[tuple[str, str], ...]
    leaves: dict[str, tuple[bool, str]]
    pairs: tuple[str, tuple[str, str], tuple[str, str]] | None
    """A map list (``DSCP_TO_TC_MAP``): its inner list, whose entries are the config_db fields as key/value."""


@dataclass(frozen=True)
class _Table:
    top: str
    lists: tuple[_Node, ...]
    containers: dict[str, _Node]


class SonicYang:
    """SONiC's YANG models, loaded once into one libyang context; checks config_db documents against them."""

    def __init__(self, yang_dir: Path):
        try:
            import libyang
        except (ImportError, OSError):  # the binding, or the C library it loads, is missing
            raise PrerequisiteError(f"validating SONiC config_db.json needs the libyang binding: {INSTALL}") from None
        files = sorted(Path(yang_dir).glob("*.yang"))
        if not files:
            raise PrerequisiteError(
                f"no SONiC YANG models (*.yang) in {yang_dir}; pass --yang-dir DIR or set "
                f"{YANG_ENV} to the sonic-yang folder"
            )
        libyang.configure_logging(True)  # errors then carry the data path of the offending node
        self._ly = libyang
        self._context = libyang.Context(str(yang_dir))
        # Load every model before reading any schema node: loading a module may recompile the others.
        modules = [self._context.load_module(file.stem).name() for file in files]
        self._containers: dict[str, tuple[str, Any]] = {}
        for name in modules:
            module = self._context.get_module(name)
            top: Any = next(iter(module.children(types=(libyang.SNode.CONTAINER,))), None)
            if top is not None:
                for table in top.children(types=(libyang.SNode.CONTAINER,)):
                    self._containers[table.name()] = (f"{module.name()}:{top.name()}", table)
        self._tables: dict[str, _Table] = {}
        self._lists: set[str] = set()

    def _table(self, table: str) -> _Table:
        """The shape of ``table``, read from its schema on first use."""
        if table not in self._tables:
            if table not in self._containers:
                raise ConfigDbError("no SONiC YANG model describes this table", table)
            top, container = self._containers[table]
            kinds = self._ly.SNode
            shape = _Table(
                top,
                tuple(self._node(item) for item in container.children(types=(kinds.LIST,))),
                {item.name(): self._node(item) for item in container.children(types=(kinds.CONTAINER,))},
            )
            self._tables[table] = shape
            self._lists.update(node.name for node in shape.lists)
        return self._tables[table]

    def _node(self, schema: Any) -> _Node:
        kinds = self._ly.SNode
        key_leaves = schema.keys() if schema.keyword() == "list" else ()
        keys = tuple((leaf.name(), _kind(leaf.type())) for leaf in key_leaves)
        leaves = {
            child.name(): (child.nodetype() == kinds.LEAFLIST, _kind(child.type()))
            for child in schema.children(types=(kinds.LEAF, kinds.LEAFLIST))
        }
        inner = list(schema.children(types=(kinds.LIST,)))
        pairs = None
        if keys and len(inner) == 1 and set(leaves) == {name for name, _ in keys}:
            members = [(leaf.name(), _kind(leaf.type())) for leaf in inner[0].children(types=(kinds.LEAF,))]
            if len(members) == 2:
                pairs = (inner[0].name(), members[0], members[1])
        return _Node(schema.name(), keys, leaves, pairs)

    def check(self, config: Mapping[str, Mapping[str, Any]]) -> None:
        """Raise :class:`ConfigDbError` for the first thing the models reject in ``config``."""
        document = self.to_yang(config)
        try:
            tree = self._context.parse_data_mem(json.dumps(document), "json", strict=True, no_state=True)
        except self._ly.LibyangError as error:
            raise _located(str(error), self._lists) from None
        if tree is not None:
            tree.free()

    def to_yang(self, config: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
        """The config_db tables as SONiC YANG JSON (RFC 7951), one top container per module."""
        document: dict[str, dict[str, Any]] = {}
        for table in sorted(config):
            shape = self._table(table)
            document.setdefault(shape.top, {})[table] = _entries(table, shape, config[table])
        return document


def _entries(table: str, shape: _Table, entries: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, fields in entries.items():
        if not isinstance(fields, Mapping):
            raise ConfigDbError(f"an entry must be an object of fields, not {json.dumps(fields)}", table, key)
        if key in shape.containers:
            out[key] = _fields(shape.containers[key], fields, table, key)
            continue
        values = key.split("|")
        node = next((node for node in shape.lists if len(node.keys) == len(values)), None)
        if node is None:
            shapes = " or ".join("|".join(name for name, _ in node.keys) for node in shape.lists)
            raise ConfigDbError(
                f"the key has {len(values)} part(s); the model takes {shapes or 'no keyed entries'}", table, key
            )
        entry = {name: _convert(kind, value) for (name, kind), value in zip(node.keys, values, strict=True)}
        if node.pairs is not None:
            inner, (name, name_kind), (value, value_kind) = node.pairs
            entry[inner] = [
                {name: _convert(name_kind, field), value: _convert(value_kind, data)} for field, data in fields.items()
            ]
        else:
            entry.update(_fields(node, fields, table, key))
        out.setdefault(node.name, []).append(entry)
    return out


def _fields(node: _Node, fields: Mapping[str, Any], table: str, key: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for field, data in fields.items():
        leaf = node.leaves.get(field)
        if leaf is None:
            out[field] = data  # libyang names the unknown field
            continue
        is_list, kind = leaf
        if not is_list:
            out[field] = _convert(kind, data)
            continue
        items = data.split(",") if isinstance(data, str) else data
        if not isinstance(items, list):
            raise ConfigDbError(
                f"expected a list or a comma-separated string, not {json.dumps(data)}", table, key, field
            )
        out[field] = [_convert(kind, item) for item in items]
    return out


def _kind(leaf_type: Any) -> str:
    """How RFC 7951 JSON writes a YANG type: ``int`` (up to 32 bits), ``bool`` or ``text`` (everything else)."""
    base = leaf_type.basename()
    if base == "leafref":
        return _kind(leaf_type.leafref_type())
    if base == "union":
        return "int" if any(_kind(member) == "int" for member in leaf_type.union_types()) else "text"
    return "int" if base in _NUMBERS else "bool" if base == "boolean" else "text"


def _convert(kind: str, data: Any) -> Any:
    """A config_db value (text there) as JSON of its kind; left as text when it does not fit (libyang says why)."""
    text = str(data).lower() if isinstance(data, bool) else str(data)
    if kind == "bool" and text in ("true", "false"):
        return text == "true"
    if kind == "int" and _INTEGER.fullmatch(text):
        return int(text)
    return text


def _located(text: str, lists: Iterable[str] = ()) -> ConfigDbError:
    """Turn a libyang error ("...: Data location "/mod:top/TABLE/LIST[k='v']/leaf"...") into table, key, field.

    ``lists`` are the YANG list names: one without key predicates (its key itself is invalid) is no key."""
    message, _, where = text.partition(": Data location ")
    message = message.removeprefix("failed to parse data tree: ").rstrip(".")
    path = re.sub(r"^\"(.*?)\"(, line number \d+)?\.?$", r"\1", where.strip())
    match = _LOCATION.match(path) if path else None
    if match is None:
        return ConfigDbError(message)
    keys = _PREDICATE.findall(match["keys"] or "")
    node = match["node"] or ""
    key = "|".join(keys) if keys else ("" if node in lists else node)
    rest = match["rest"] or ""
    inner = _PREDICATE.findall(rest)
    field = inner[0] if inner else rest.rsplit("/", 1)[-1]
    return ConfigDbError(message, match["table"], key, field)


def line_of(text: str, error: ConfigDbError) -> int:
    """Best-effort line of the offending table/key/field in a pretty-printed config_db.json (0 when not found)."""
    wanted = [json.dumps(part) + ":" for part in (error.table, error.key, error.field) if part]
    found, lines = 0, text.splitlines()
    for number, line in enumerate(lines, 1):
        if wanted and line.lstrip().startswith(wanted[0]):
            found = number
            wanted.pop(0)
    return found


def check_config_db(yang: SonicYang, path: Path, label: str) -> Verdict:
    """Validate one config_db.json file; the error names line, table, key and field."""
    text = read_file(path, CONFIG).decode()
    try:
        yang.check(json.loads(text))
    except json.JSONDecodeError as error:
        return Verdict(label, SONIC, f"line {error.lineno}: not JSON: {error.msg}")
    except ConfigDbError as error:
        line = line_of(text, error)
        return Verdict(label, SONIC, f"line {line}: {error}" if line else str(error))
    return Verdict(label, SONIC)


FILES_PER_WORKER = 64
"""A worker process loads the models once (about half a second), so it only pays off over this many files."""
_loaded: dict[Path, SonicYang] = {}
"""The models each worker process has loaded, by folder."""


def check_config_dbs(paths: list[tuple[Path, str]], yang_dir: Path, workers: int | None = None) -> list[Verdict]:
    """Validate each (file, label); a large set is shared among processes (default: one per CPU, at least
    :data:`FILES_PER_WORKER` files each), each loading the models once. Verdicts keep the input order."""
    yang = SonicYang(yang_dir)  # raises PrerequisiteError here, before any worker starts
    if workers is None:
        workers = min(os.cpu_count() or 1, len(paths) // FILES_PER_WORKER)
    if workers < 2:
        return [check_config_db(yang, path, label) for path, label in paths]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(partial(_check_in_worker, yang_dir), paths, chunksize=max(1, len(paths) // (4 * workers))))


def _check_in_worker(yang_dir: Path, item: tuple[Path, str]) -> Verdict:
    if yang_dir not in _loaded:
        _loaded[yang_dir] = SonicYang(yang_dir)
    return check_config_db(_loaded[yang_dir], *item)


def vtysh() -> str:
    """Path of FRR's vtysh, or raise :class:`PrerequisiteError` saying what to install."""
    found = shutil.which("vtysh")
    if found is None:
        raise PrerequisiteError(f"checking frr.conf files needs FRR's vtysh: {INSTALL}")
    return found


VTYSH_TIMEOUT_S = 60
"""vtysh parses a switch's frr.conf in tens of milliseconds; a minute means it hangs."""
USERNS = (
    "Debian: sysctl kernel.unprivileged_userns_clone=1; Ubuntu 23.10 or later: sysctl "
    "kernel.apparmor_restrict_unprivileged_userns=0"
)
"""Where a distribution keeps ordinary users from making user namespaces, and the setting that allows it."""


def check_frr(paths: Iterable[tuple[Path, str]], workers: int | None = None) -> list[Verdict]:
    """``vtysh -C`` over each (file, label), behind the walls of :func:`~designer.verify.sandbox.check` (a config
    reaches vtysh's own commands, ``output file PATH`` among them, after an ``end`` line); a failure keeps vtysh's
    ``line N: % ...`` messages. The files are shared among sandboxes (default: one per CPU), each sealed once.
    :class:`PrerequisiteError` without vtysh, without FRR's user (as root: vtysh drops to it), or when the walls
    cannot be built or the check does not answer."""
    vtysh()
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(FRR_USER)
        except KeyError:
            raise PrerequisiteError(
                f"checking frr.conf files as root runs vtysh as the {FRR_USER} user, which this "
                "machine lacks; Debian's frr package creates it: apt-get install frr"
            ) from None
    items = list(paths)
    count = max(1, min(workers or os.cpu_count() or 1, len(items)))
    shares = [items[len(items) * share // count : len(items) * (share + 1) // count] for share in range(count)]
    with ThreadPoolExecutor(max_workers=count) as pool:
        return [verdict for verdicts in pool.map(_check_frr_walled, shares) for verdict in verdicts]


def walled_check(ordinary_user: bool, python: str | None = None) -> list[str]:
    """The command line of :func:`~designer.verify.sandbox.check` (configs as a JSON list of Latin-1 texts on
    stdin): in mount, PID and network namespaces of its own and, for an ordinary user, a user namespace in which
    it is root; run by ``python`` (default: this one)."""
    user = ["--user", "--map-root-user"] if ordinary_user else []
    return [
        "unshare",
        *user,
        "--mount",
        "--pid",
        "--net",
        "--fork",
        "--kill-child",
        "--",
        python or sys.executable,
        "-I",
        "-S",
        str(SANDBOX),
        "check",
        str(VTYSH_TIMEOUT_S),
    ]


def _check_frr_walled(items: list[tuple[Path, str]]) -> list[Verdict]:
    """One sandbox's share: its files' verdicts, in order."""
    if not items:
        return []
    if shutil.which("unshare") is None:
        raise PrerequisiteError(
            "checking frr.conf files runs vtysh behind read-only walls, which need util-linux's "
            "unshare: apt-get install util-linux"
        )
    configs = json.dumps([read_file(path, CONFIG).decode("latin-1") for path, _ in items])
    limit = VTYSH_TIMEOUT_S * (len(items) + 1)
    try:
        run = subprocess.run(
            walled_check(os.geteuid() != 0), input=configs, capture_output=True, text=True, check=False, timeout=limit
        )
    except subprocess.TimeoutExpired:
        raise PrerequisiteError(
            f"checking frr.conf files runs vtysh behind read-only walls (designer/verify/"
            f"sandbox.py), which did not answer within {limit:g} s for {len(items)} files; "
            "run it again, and if it hangs again, check FRR's vtysh by hand"
        ) from None
    try:
        results = json.loads(run.stdout) if run.returncode == 0 else None
    except json.JSONDecodeError:
        results = None
    if not isinstance(results, list) or len(results) != len(items):
        why = (run.stderr.strip().splitlines() or [f"exit code {run.returncode}"])[-1]
        hint = (
            ""
            if os.geteuid() == 0
            else (f"; as an ordinary user they need an unprivileged user namespace ({USERNS}), else run it as root")
        )
        raise PrerequisiteError(
            f"checking frr.conf files runs vtysh behind read-only walls "
            f"(designer/verify/sandbox.py), which could not be built: {why}{hint}"
        )
    return [_frr_verdict(label, *result) for (_, label), result in zip(items, results, strict=True)]


def _frr_verdict(label: str, code: int | None, stdout: str, stderr: str) -> Verdict:
    """vtysh's verdict on one file: its exit code (None: it did not finish) and output."""
    if code is None:
        return Verdict(label, FRR, f"vtysh did not finish within {VTYSH_TIMEOUT_S} s")
    if code == 0:
        return Verdict(label, FRR)
    lines = [line for line in (stderr + stdout).splitlines() if _VTYSH_LINE.match(line)]
    return Verdict(label, FRR, "; ".join(lines) or f"vtysh exited {code}: {(stderr or stdout).strip()}")


def check_sysctls(paths: Iterable[tuple[Path, str]], proc: Path = Path("/proc/sys")) -> list[Verdict]:
    """Each (sysctl.d file, label) read as verify applies it (:func:`~designer.verify.hostconfig.parse_router_sysctl`:
    only the hash policy and seed, once each, in the kernel's range); :class:`PrerequisiteError` when a key is not
    a setting of the kernel at ``proc`` (an older kernel: the hash seed came with Linux 6.11)."""
    verdicts = []
    for path, label in paths:
        try:
            settings = parse_router_sysctl(label, read_file(path, CONFIG))
        except InputError as error:
            verdicts.append(Verdict(label, SYSCTL, "; ".join(error.render().splitlines()[:-1])))
            continue
        for key, _ in settings:
            if not (proc.joinpath(*sysctl_path(key))).is_file():
                raise PrerequisiteError(
                    f"checking {label} needs a kernel with {key} (this one, "
                    f"{os.uname().release}, has no {proc.joinpath(*sysctl_path(key))})"
                )
        verdicts.append(Verdict(label, SYSCTL, ""))
    return verdicts


MAX_STRAY_LINES = 5
"""Problems of one EOS or NVUE file listed (lines that differ from Arista's rendering, paths NVIDIA's schema
rejects); the rest are counted."""


def check_eos(
    paths: list[tuple[Path, str]],
    devices: Mapping[str, DeviceConfig],
    limits: TargetModel,
    management: Callable[[str], Management | None] | None = None,
    workers: int | None = None,
) -> list[Verdict]:
    """Compare each (EOS file, label) with pyavd's rendering of its switch (by file name) from the design, EOS's
    entry of its catalog (``limits``) and the switch's ``management`` side (:mod:`designer.verify.pyavd_eos`); a
    large set is shared among processes. Verdicts keep the input order."""
    pyavd_eos.pyavd()  # raises PrerequisiteError here, before any worker starts
    items = [
        (path, label, devices.get(path.stem), limits, management(path.stem) if management else None)
        for path, label in paths
    ]
    if workers is None:
        workers = min(os.cpu_count() or 1, len(items) // FILES_PER_WORKER)
    if workers < 2:
        return [_eos_verdict(item) for item in items]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(_eos_verdict, items, chunksize=max(1, len(items) // (4 * workers))))


def _eos_verdict(item: tuple[Path, str, DeviceConfig | None, TargetModel, Management | None]) -> Verdict:
    path, label, device, limits, management = item
    if device is None:
        return Verdict(label, AVD, "the design has no switch of this name")
    try:
        problems = pyavd_eos.compare(device, read_file(path, CONFIG).decode(), limits, management)
    except ValueError as error:
        return Verdict(label, AVD, f"the design's AVD structured config is not valid input: {error}")
    return Verdict(label, AVD, _listed(problems))


def _listed(problems: list[str]) -> str:
    """The first :data:`MAX_STRAY_LINES` problems, then how many more."""
    more = [f"and {len(problems) - MAX_STRAY_LINES} more"] if len(problems) > MAX_STRAY_LINES else []
    return "; ".join([*problems[:MAX_STRAY_LINES], *more])


def check_nvue(paths: list[tuple[Path, str]], release: str, workers: int | None = None) -> list[Verdict]:
    """Each (startup.yaml, label) against NVIDIA's NVUE schema of Cumulus Linux ``release``
    (:func:`designer.verify.nvue_openapi.problems`); a large set is shared among processes, forked after the schema is
    loaded. Verdicts keep the input order."""
    nvue_openapi.schema(release)
    if workers is None:
        workers = min(os.cpu_count() or 1, len(paths) // FILES_PER_WORKER)
    if workers < 2:
        return [_nvue_verdict(release, item) for item in paths]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(partial(_nvue_verdict, release), paths, chunksize=max(1, len(paths) // (4 * workers))))


def _nvue_verdict(release: str, item: tuple[Path, str]) -> Verdict:
    path, label = item
    return Verdict(label, NVUE, _listed(nvue_openapi.problems(read_file(path, CONFIG).decode(), release)))


@dataclass(frozen=True)
class Report:
    """Every verdict over a built output, plus the files left unchecked (count and why, per OS)."""

    verdicts: list[Verdict]
    unchecked: dict[str, tuple[int, str]]
    missing: list[str]

    @property
    def invalid(self) -> list[Verdict]:
        return [verdict for verdict in self.verdicts if not verdict.ok]

    def text(self) -> str:
        """One line per file, then a count per parser and what was left unchecked."""
        lines = [
            f"{'ok' if verdict.ok else 'INVALID':8}{verdict.path} ({verdict.parser})"
            + ("" if verdict.ok else f": {verdict.error}")
            for verdict in self.verdicts
        ]
        for parser in (SONIC, FRR, AVD, NVUE, SYSCTL):
            checked = [verdict for verdict in self.verdicts if verdict.parser == parser]
            if checked:
                valid = sum(verdict.ok for verdict in checked)
                lines.append(f"{parser}: {valid} of {len(checked)} files valid")
        lines += [f"not checked: {count} {name} files ({why})" for name, (count, why) in self.unchecked.items()]
        return "\n".join(lines)


def validate_output(folder: Path, yang_dir: Path | None = None) -> Report:
    """Run every available parser over ``folder/configs``; prerequisites that are missing go to ``missing``. A file
    larger than a switch configuration may be is an input error, before any parser reads one.

    With pyavd, EOS files are compared with Arista's rendering of the design rebuilt from the folder's own
    ``intent.yaml`` (:func:`built_devices`)."""
    configs = folder / "configs"
    if not configs.is_dir():
        raise PrerequisiteError(f"{folder} has no configs/ folder; build it first with 'designer build INTENT'")
    by_os = {
        child.name: sorted(path for path in child.iterdir() if path.is_file())
        for child in sorted(configs.iterdir())
        if child.is_dir()
    }
    if too_large := oversized((path for paths in by_os.values() for path in paths), CONFIG):
        raise InputError(too_large, about=str(configs))
    verdicts: list[Verdict] = []
    missing: list[str] = []
    unchecked: dict[str, tuple[int, str]] = {}
    for name, validator in validators().items():
        if paths := by_os.pop(name, []):
            check: Validator = globals()[validator]
            try:
                verdicts += check(folder, [(path, str(path.relative_to(folder))) for path in paths], yang_dir)
            except PrerequisiteError as error:
                missing.append(str(error))
            except Unchecked as error:
                unchecked[name] = (len(paths), str(error))
    unchecked.update({name: (len(paths), "no offline parser") for name, paths in by_os.items() if paths})
    return Report(verdicts, unchecked, missing)


class Unchecked(Exception):
    """Files that cannot be checked offline, and why (their check's tool is there; something else is not)."""


Validator = Callable[[Path, list[tuple[Path, str]], Path | None], list[Verdict]]
"""A target's offline check (:attr:`designer.targets.Target.validator`): the output folder, its files as (path,
label) and the SONiC YANG folder asked for (None: the packaged models) to a verdict per file."""


def sonic_files(folder: Path, paths: list[tuple[Path, str]], yang_dir: Path | None) -> list[Verdict]:
    """SONiC's config_db.json files against SONiC's YANG models."""
    return check_config_dbs(paths, yang_dir or default_yang_dir())


def frr_files(folder: Path, paths: list[tuple[Path, str]], yang_dir: Path | None) -> list[Verdict]:
    """FRR's files through vtysh (:func:`check_frr`)."""
    return check_frr(paths)


def sysctl_files(folder: Path, paths: list[tuple[Path, str]], yang_dir: Path | None) -> list[Verdict]:
    """The FRR routers' sysctl.d files against the running kernel's settings (:func:`check_sysctls`)."""
    return check_sysctls(paths)


def eos_files(folder: Path, paths: list[tuple[Path, str]], yang_dir: Path | None) -> list[Verdict]:
    """EOS files against pyavd's rendering of the design rebuilt from the folder (:func:`built_devices`);
    :class:`Unchecked` without pyavd or an intent.yaml."""
    try:
        devices, management, limits = built_devices(folder)
    except PrerequisiteError as error:
        raise Unchecked(str(error)) from None
    return check_eos(paths, devices, limits, management)


def nvue_files(folder: Path, paths: list[tuple[Path, str]], yang_dir: Path | None) -> list[Verdict]:
    """NVUE files against NVIDIA's schema of the release they are written for; :class:`Unchecked` when nvueschema
    has no schema of it or the folder does not say it."""
    release, why = nvue_release(folder)
    if not release:
        raise Unchecked(why)
    return check_nvue(paths, release)


def opensm_files(folder: Path, paths: list[tuple[Path, str]], yang_dir: Path | None) -> list[Verdict]:
    """The subnet manager's files through OpenSM's own parsers (:func:`opensm_problems`)."""
    return [Verdict(label, OPENSM, error) for label, error in opensm_problems(paths)]


def nvue_release(folder: Path) -> tuple[str, str]:
    """The Cumulus Linux release the NVUE files of ``folder`` are written for (``target_options.nvue.release`` of its
    ``intent.yaml``) and "", or "" and why they cannot be checked (no intent.yaml; no schema of that release).
    :class:`PrerequisiteError` without nvueschema; :class:`InputError` for an intent.yaml changed after the build."""
    releases = nvue_openapi.nvueschema_releases()
    intent = folder_intent(folder)
    if intent is None:
        return (
            "",
            f"{folder} has no {INTENT_FILE} naming their release (an older designer built it); rebuild it "
            "with 'designer build INTENT'",
        )
    release = intent.target_options.nvue.release
    if release not in releases:
        return "", f"nvueschema has no NVUE schema for Cumulus Linux {release} (it has {releases[0]}-{releases[-1]})"
    return release, ""


def built_devices(folder: Path) -> tuple[dict[str, DeviceConfig], SwitchManagement, TargetModel]:
    """The device models, by name, of the design ``folder`` was built from, rebuilt from its ``intent.yaml``, the
    switches' management side and EOS's entry of the design's catalog. :class:`PrerequisiteError` without pyavd
    (asked first: rebuilding takes time) or without an intent.yaml; :class:`InputError` for an intent.yaml changed
    after the build, or one this designer refuses."""
    pyavd_eos.pyavd()
    intent = folder_intent(folder)
    if intent is None:
        raise PrerequisiteError(
            f"{folder} has no {INTENT_FILE} (an older designer built it); rebuild it with 'designer build INTENT'"
        )
    devices = {device.hostname: device for device in device_models(intent)}
    return devices, management_of_switches(intent), intent.catalog.targets["eos"]

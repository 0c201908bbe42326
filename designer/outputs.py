"""Turn a design into its review files and write them atomically.

``design_files`` returns every file as bytes (same design, same bytes); ``claim`` takes an output
folder before a build (refusing one that holds anything but a previous build's files, locking out
other builds) and its ``write`` swaps the new folder in with one atomic exchange, so a failed,
interrupted or killed build leaves the previous outputs whole; ``drift`` compares a committed
folder with what the design produces now.
"""

from __future__ import annotations

import contextlib
import csv
import ctypes
import errno
import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO, Any

from designer import __version__
from designer.allocate import ip
from designer.checks import formats as checks_format
from designer.design import Design, Progress, quiet
from designer.fabric import TIERS
from designer.floorplan import floorplan_svg
from designer.physical.tables import bom_rows, power_markdown, racks_rows
from designer.render import render_configs, user_templates_for
from designer.report import summary
from designer.verify.clab import lab_files

MANIFEST = "manifest.json"
AT_FDCWD, RENAME_EXCHANGE = -100, 2
"""From Linux's <fcntl.h> and <linux/fs.h>: paths relative to the working folder; swap two paths."""


def design_files(design: Design, templates: Path | None = None, progress: Progress | None = None) -> dict[str, bytes]:
    """Every output file of the design, by relative path, ending with the manifest of their hashes.

    ``templates`` is a folder of user templates searched before the shipped ones (default: a
    ``templates/`` folder beside the intent, if there is one). ``progress`` hears of the tables, then the configs.
    """
    say = progress or quiet
    say("writing the summary, design.json and tables")
    files = {
        "summary.md": summary_markdown(design).encode(),
        "design.json": design_json(design).encode(),
        "cabling.csv": _csv(*cabling_rows(design)),
        "addressing.csv": _csv(*addressing_rows(design)),
        "asn.csv": _csv(*asn_rows(design)),
        "racks.csv": _csv(*racks_rows(design.physical, design.fabric.devices, design.intent.facility.rack_power_kw)),
        "power.md": power_markdown(design.intent.name, design.physical, design.intent.facility).encode(),
        "bom.csv": _csv(*bom_rows(design.physical)),
        "floorplan.svg": floorplan_svg(design.intent, design.fabric.devices, design.physical).encode(),
    }
    say(f"rendering the configurations of {len(design.configs):,} switches for {', '.join(design.intent.targets)}")
    files.update(render_configs(design.configs, design.intent.targets,
                                user_templates_for(design.intent.source.filename, templates)))
    files.update(lab_files(design) if "frr" in design.intent.targets else {})
    manifest = {
        "name": design.intent.name,
        "tool": "designer",
        "version": __version__,
        "intent_sha256": design.intent.sha256,
        "files": {path: hashlib.sha256(data).hexdigest() for path, data in sorted(files.items())},
    }
    files[MANIFEST] = (json.dumps(manifest, indent=2) + "\n").encode()
    return dict(sorted(files.items()))


class OutputError(Exception):
    """The output folder cannot be written as asked; the message names it and says what to do."""


class Claim:
    """The right to replace one output folder, held by :func:`claim` for as long as its ``with`` block runs."""

    def __init__(self, folder: Path):
        self.folder = folder
        """Where the outputs go, symbolic links resolved."""
        self.written = False

    def write(self, files: dict[str, bytes]) -> None:
        """Replace the folder with exactly ``files``: written beside it, then exchanged with it in one step (what
        interrupted builds of the folder left beside it is deleted first)."""
        try:
            _remove_leftovers(self.folder)
            _replace(files, self.folder)
        except OSError as error:
            raise OutputError(_explain(error, self.folder)) from None
        self.written = True


@contextmanager
def claim(target: Path) -> Iterator[Claim]:
    """Take ``target`` for one build, before any work: refuse a folder a build must not replace (see
    :func:`refusal`) and lock it against other builds (``.NAME.lock`` beside it). Raises :class:`OutputError`.
    Folders created on the way to ``target`` are removed again when nothing was written."""
    try:
        folder = target.resolve()
    except (OSError, RuntimeError) as error:  # RuntimeError: a loop of symbolic links (Python 3.11 and 3.12)
        raise OutputError(f"cannot write {target}: {error}") from None
    created: list[Path] = []
    try:
        problem = refusal(folder)
        if problem:
            raise OutputError(problem + (f" ({target} is a symbolic link to it)" if target.is_symlink() else ""))
        created = _make_folders(folder.parent)
        lock = _lock(folder)
    except OutputError:
        _remove_empty(created)
        raise
    except OSError as error:
        _remove_empty(created)
        raise OutputError(_explain(error, folder)) from None
    held = Claim(folder)
    try:
        yield held
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(lock.name)
        lock.close()
        if not held.written:
            _remove_empty(created)


def write(files: dict[str, bytes], target: Path) -> None:
    """Replace the output folder ``target`` with exactly ``files`` (:func:`claim`, then :meth:`Claim.write`)."""
    with claim(target) as folder:
        folder.write(files)


def refusal(folder: Path) -> str | None:
    """Why a build must not replace ``folder``, or ``None`` when it may: it is missing, empty, or written by a
    previous build (its ``manifest.json`` says tool ``designer``) and holding nothing its manifest does not list."""
    if not folder.exists():
        return None
    if not folder.is_dir():
        return f"cannot write {folder}: it is a file, not a folder; choose another folder with -o"
    if os.path.ismount(folder):
        return (f"cannot write {folder}: it is a mount point, which a build cannot replace; choose a folder "
                f"inside it with -o {folder / 'NAME'}")
    entries = sorted(folder.iterdir())
    if not entries:
        return None
    listed = _listed(folder)
    if listed is None:
        return (f"refusing to replace {folder}: it is not an output folder of designer (no manifest.json written "
                f"by designer) and holds {_few(entries, folder)}; a build replaces its whole folder, so choose a "
                "new or empty one with -o")
    foreign = _unlisted(folder, listed)
    if foreign:
        return (f"refusing to replace {folder}: it holds {_few(foreign, folder)}, which the build that wrote it did "
                "not (they are not in its manifest.json); a build replaces its whole folder, so move them elsewhere "
                "first")
    return None


def _listed(folder: Path) -> set[str] | None:
    """The files ``folder/manifest.json`` lists, with the manifest itself; ``None`` unless designer wrote it."""
    try:
        manifest = json.loads((folder / MANIFEST).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("tool") != "designer" or not isinstance(
            manifest.get("files"), dict):
        return None
    return {*manifest["files"], MANIFEST}


def _unlisted(folder: Path, listed: set[str]) -> list[Path]:
    """Everything in ``folder`` that is neither a listed file nor a folder on the way to one (symbolic links
    included: a build writes none); a foreign folder counts once, without its contents."""
    parents = {str(PurePosixPath(path).parent) for path in listed}
    parents |= {str(parent) for path in parents for parent in PurePosixPath(path).parents}
    foreign = []
    for root, folders, names in os.walk(folder):
        here = Path(root)
        folders.sort()
        for name in list(folders):
            path = here / name
            if path.is_symlink() or path.relative_to(folder).as_posix() not in parents:
                foreign.append(path)
                folders.remove(name)
        foreign += [here / name for name in sorted(names)
                    if (here / name).is_symlink() or (here / name).relative_to(folder).as_posix() not in listed]
    return sorted(foreign)


def _few(paths: list[Path], folder: Path, shown: int = 5) -> str:
    """A handful of ``paths`` inside ``folder`` (folders end in ``/``), then how many more."""
    names = [path.relative_to(folder).as_posix() + ("/" if path.is_dir() and not path.is_symlink() else "")
             for path in paths[:shown]]
    more = [f"{len(paths) - shown:,} more"] if len(paths) > shown else []
    return ", ".join([*names, *more])


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones created, outermost first."""
    missing = []
    for path in (folder, *folder.parents):
        if path.is_dir():
            break
        if path.exists():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path))
        missing.insert(0, path)
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def _remove_empty(folders: list[Path]) -> None:
    """Remove ``folders`` (innermost last in the list) where they are still empty."""
    for path in reversed(folders):
        with contextlib.suppress(OSError):
            path.rmdir()


def _lock(folder: Path) -> IO[bytes]:
    """Hold ``.NAME.lock`` beside ``folder`` (flock) until it is closed; :func:`claim` deletes it before closing.
    Another holder means another build is writing the folder."""
    path = folder.parent / f".{folder.name}.lock"
    while True:
        lock = path.open("ab")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise OutputError(f"cannot write {folder}: another build is writing this folder (it holds {path}); "
                              "wait for it to finish") from None
        except OSError:
            lock.close()
            raise
        with contextlib.suppress(FileNotFoundError):
            if os.stat(path).st_ino == os.fstat(lock.fileno()).st_ino:
                return lock
        lock.close()  # the build before us deleted the file after we opened it: lock the new one


def _leftover(folder: Path, name: str) -> bool:
    """Whether ``name`` beside ``folder`` is the staging or retired folder of an interrupted build of it."""
    return re.fullmatch(rf"\.{re.escape(folder.name)}\.(new|old)-[a-z0-9_]{{8}}", name) is not None


def _remove_leftovers(folder: Path) -> None:
    """Delete the staging and retired folders that killed builds of ``folder`` left beside it (only folders)."""
    for path in sorted(folder.parent.iterdir()):
        if _leftover(folder, path.name) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)


def _replace(files: dict[str, bytes], target: Path) -> None:
    """Write ``files`` into a staging folder beside ``target`` and put it in place of ``target``, if it may still
    be replaced (:func:`refusal`).

    Where ``renameat2(RENAME_EXCHANGE)`` exists (Linux 3.15 with glibc 2.28, on ext4, xfs, btrfs, tmpfs...),
    the two folders swap in one step and ``target`` is always a whole build. Elsewhere two renames do it, and a
    kill between them leaves ``target`` missing, the previous build whole in ``.NAME.old-*/previous``.
    """
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.new-", dir=target.parent))
    try:
        for relative, data in files.items():
            path = staging / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        staging.chmod(0o755)
        problem = refusal(target)  # again: someone may have put files into it while the build ran
        if problem:
            raise OutputError(problem)
        if not target.exists():
            os.rename(staging, target)
        elif not _exchange(staging, target):
            retired = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
            os.rename(target, retired / "previous")
            os.rename(staging, target)
            shutil.rmtree(retired)
    finally:
        if staging.exists():
            shutil.rmtree(staging)  # after an exchange it holds the previous build


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically with Linux ``renameat2(RENAME_EXCHANGE)``; ``False`` where the C library, the
    kernel or the file system cannot."""
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE) == 0:
        return True
    number = ctypes.get_errno()
    if number in (errno.ENOSYS, errno.EINVAL):
        return False
    raise OSError(number, os.strerror(number), str(second))


def _explain(error: OSError, folder: Path) -> str:
    """What went wrong writing ``folder``, for a person: the system's reason, the path and what to do."""
    hints = {
        errno.EBUSY: "a mount point (or a folder in use) cannot be replaced; choose a folder inside it",
        errno.EROFS: "the file system is read-only; choose a folder on a writable one",
        errno.EACCES: "choose a folder you may write in",
        errno.EPERM: "choose a folder you may write in",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.ENAMETOOLONG: "choose a shorter folder name (a build adds 14 characters to it for its staging folder)",
        errno.ENOSPC: "the disk is full",
    }
    where = f" ({error.filename})" if error.filename and Path(error.filename) != folder else ""
    hint = f"; {hints[error.errno]}" if error.errno in hints else ""
    return f"cannot write {folder}: {error.strerror or error}{where}{hint}"


def drift(files: dict[str, bytes], target: Path) -> list[str]:
    """Paths that differ between ``files`` and the folder ``target`` (changed, missing or extra)."""
    on_disk = {str(path.relative_to(target)): path for path in sorted(target.rglob("*")) if path.is_file()}
    changed = [relative for relative, data in files.items()
               if relative not in on_disk or on_disk[relative].read_bytes() != data]
    extra = [relative for relative in on_disk if relative not in files]
    return [f"changed: {path}" if path in on_disk else f"missing: {path}" for path in changed] + [
        f"extra: {path}" for path in extra]


def design_json(design: Design) -> str:
    """The whole design for scripts, one device or link per line so that diffs stay readable."""
    fabric, allocation = design.fabric, design.allocation
    devices = fabric.devices
    device_rows = []
    for index, device in enumerate(devices):
        row: dict[str, Any] = {"name": device.name, "role": device.role, "model": device.model}
        row.update({key: value for key in ("plane", "pod", "su", "rail", "group", "index")
                    if (value := getattr(device, key)) >= 0})
        if index < fabric.switch_count:
            row.update(loopback=ip(allocation.loopbacks[index]), asn=allocation.asns[index],
                       announces=list(design.configs[index].bgp.announced))
        row.update(rack=design.physical.racks[design.physical.device_rack[index]].name,
                   unit=design.physical.device_unit[index])
        device_rows.append(row)
    link_rows = []
    for number, (tier, upper, upper_port, lower, lower_port) in enumerate(fabric.links):
        even, odd = allocation.link_addresses(number)
        link_rows.append({
            "tier": TIERS[tier],
            "a": [devices[upper].name, devices[upper].port_name(upper_port), ip(even)],
            "z": [devices[lower].name, devices[lower].port_name(lower_port), ip(odd)],
            "subnet": f"{ip(even)}/31",
            "length_m": design.physical.link_length_dm[number] / 10,
            "medium": design.physical.medium_name(number),
        })
    head = {"name": design.intent.name, "tool_version": __version__, "intent_sha256": design.intent.sha256,
            "summary": summary(design)}
    return _json_document(head, {"findings": checks_format.rows(design.findings), "devices": device_rows,
                                 "links": link_rows, "racks": rack_rows(design)})


def rack_rows(design: Design) -> list[dict[str, Any]]:
    """Every rack for design.json: where it stands, role, SU (-1 central), draw in kW and devices (units: devices)."""
    devices = design.fabric.devices
    return [{"name": rack.name, "row": rack.row, "position": rack.position, "role": rack.role, "su": rack.su,
             "kw": rack.kw, "devices": [devices[index].name for index in rack.devices]}
            for rack in design.physical.racks]


def _json_document(head: dict[str, Any], tables: dict[str, list[dict[str, Any]]]) -> str:
    """Pretty JSON for ``head``, then each table as a list with one compact object per line."""
    parts = [f"  {json.dumps(key)}: {json.dumps(value, indent=2).replace(chr(10), chr(10) + '  ')}"
             for key, value in head.items()]
    for key, rows in tables.items():
        body = ",\n".join(f"    {json.dumps(row, separators=(', ', ': '))}" for row in rows)
        parts.append(f"  {json.dumps(key)}: [\n{body}\n  ]" if rows else f"  {json.dumps(key)}: []")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def cabling_rows(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per link: both ends, speed, tier, estimated length and medium (see designer.physical.cables)."""
    devices, speed, physical = design.fabric.devices, design.plan.link_speed, design.physical
    header = ["tier", "plane", "a_device", "a_port", "z_device", "z_port", "speed_gbps", "length_m", "medium"]
    rows = ([TIERS[tier], devices[upper].plane, devices[upper].name, devices[upper].port_name(upper_port),
             devices[lower].name, devices[lower].port_name(lower_port), speed,
             f"{physical.link_length_dm[number] / 10:.1f}", physical.medium_name(number)]
            for number, (tier, upper, upper_port, lower, lower_port) in enumerate(design.fabric.links))
    return header, rows


def addressing_rows(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per addressed interface: loopbacks first, then both ends of every link."""
    fabric, allocation = design.fabric, design.allocation
    devices = fabric.devices
    header = ["device", "interface", "address", "peer_device", "peer_interface", "peer_address", "use"]

    def rows() -> Iterable[list[Any]]:
        for index, device in enumerate(fabric.switches()):
            yield [device.name, "lo", f"{ip(allocation.loopbacks[index])}/32", "", "", "", "loopback"]
        for number, (tier, upper, upper_port, lower, lower_port) in enumerate(fabric.links):
            even, odd = allocation.link_addresses(number)
            use = TIERS[tier]
            up_name, up_port = devices[upper].name, devices[upper].port_name(upper_port)
            low_name, low_port = devices[lower].name, devices[lower].port_name(lower_port)
            yield [up_name, up_port, f"{ip(even)}/31", low_name, low_port, ip(odd), use]
            yield [low_name, low_port, f"{ip(odd)}/31", up_name, up_port, ip(even), use]

    return header, rows()


def asn_rows(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """One row per switch: its ASN and where it sits."""
    header = ["device", "role", "plane", "pod", "asn"]
    rows = ([device.name, device.role, device.plane, device.pod if device.pod >= 0 else "", asn]
            for device, asn in zip(design.fabric.switches(), design.allocation.asns, strict=True))
    return header, rows


def _csv(header: list[str], rows: Iterable[list[Any]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode()


def summary_markdown(design: Design) -> str:
    """What a reviewer reads first: counts, tiers, hardware, pools and their use, warnings."""
    data = summary(design)
    intent, plan = design.intent, design.plan
    sizing = data["sizing"]
    lines = [f"# {intent.name}", ""]
    if intent.description:
        lines += [intent.description, ""]
    lines += [
        "| | |", "|---|---|",
        f"| GPUs | {data['gpus']:,} ({data['servers']:,} x {intent.server.model}, {plan.gpus_per_server} GPUs each) |",
        f"| Backend NIC ports | {data['nic_ports']:,} at {plan.link_speed}G |",
        f"| Planes x rails | {plan.planes} x {plan.rails} |",
        f"| Tiers | {plan.tiers} (non-blocking, 1:1 at every tier) |",
        f"| Scalable units | {plan.sus} of {plan.servers_per_su} servers |",
    ]
    if plan.tiers == 3:
        lines.append(f"| Pods per plane | {plan.pods} of {sizing['scalable_units_per_pod']} scalable units |")
    lines += ["", "## Switches", "", "| role | count | model | logical ports | breakout |", "|---|---:|---|---:|---:|"]
    radix = {"leaf": plan.leaf_radix, "spine": plan.spine_radix, "super_spine": plan.super_radix}
    for role, count in data["switches"].items():
        if count:
            spec = intent.switch(role)
            lines.append(f"| {role.replace('_', '-')} | {count:,} | {spec.model} ({spec.ports} x {spec.speed}G) | "
                         f"{radix[role]} | {spec.breakout(plan.link_speed)} x {plan.link_speed}G |")
    lines += ["", "## Links", "", "| tier | links | Tb/s one way | parallel links per switch pair |",
              "|---|---:|---:|---:|"]
    parallel = {"server_leaf": 1, "leaf_spine": plan.leaf_spine_parallel,
                "spine_super_spine": plan.spine_super_parallel}
    for tier, count in data["links"].items():
        if count:
            lines.append(f"| {tier.replace('_', '-')} | {count:,} | {data['bandwidth_tbps'][tier]:,.1f} | "
                         f"{parallel[tier]} |")
    lines += ["", f"Spines per {'plane' if plan.tiers == 2 else 'pod'}: {plan.spines_per_pod}; each leaf has "
                  f"{plan.leaf_uplinks} uplinks."]
    if plan.tiers == 3:
        lines.append(f"Super-spines per plane: {plan.supers_per_plane} in {plan.groups} groups of "
                     f"{plan.supers_per_group}; each spine has {plan.spine_uplinks} uplinks.")
    lines += ["", "## Address pools", "", "| pool | prefix | used | size | use |", "|---|---|---:|---:|---:|"]
    for pool in design.allocation.pools():
        lines.append(f"| {pool.name} | {pool.cidr} | {pool.used:,} | {pool.size:,} | {pool.utilisation():.1%} |")
    lines += ["", "## ASNs", "", f"Scheme: {intent.routing.asn_scheme}; {data['asns']:,} ASNs in use.", "",
              "| role | first | last |", "|---|---:|---:|"]
    for role in ("leaf", "spine", "super_spine"):
        numbers = [asn for device, asn in zip(design.fabric.switches(), design.allocation.asns, strict=True)
                   if device.role == role]
        if numbers:
            lines.append(f"| {role.replace('_', '-')} | {min(numbers)} | {max(numbers)} |")
    power, racks = data["power_kw"], data["racks"]
    lines += ["", "## Racks and power", "",
              f"{racks['compute']:,} compute racks of {design.physical.servers_per_rack} servers and "
              f"{racks['network']:,} network racks in {racks['rows']:,} rows; {power['compute']:,.1f} kW compute + "
              f"{power['network']:,.1f} kW network = {power['total']:,.1f} kW IT, {power['facility']:,.1f} kW with PUE "
              f"{intent.facility.pue:g} (`power.md`, `floorplan.svg`, `bom.csv`)."]
    lines += ["", "## Checks", "", f"{data['checks']['passed']} passed, {data['checks']['failed']} failed, "
              f"{data['checks']['warnings']} with warnings; bisection {data['bisection_tbps']:,.1f} Tb/s "
              "(`designer check` lists every finding; `design.json` has them with their evidence).", ""]
    lines += checks_format.markdown(design.findings)
    lines += ["", "## Warnings", ""]
    lines += [f"- {warning}" for warning in data["warnings"]] or ["None."]
    lines += ["", "## Switch configurations", "", *_configs_lines(design)]
    lines += ["", "## Files", "",
              "- `design.json`: the whole design for scripts",
              "- `cabling.csv`: one row per link, both ends, estimated length and medium",
              "- `racks.csv`: every rack: row, position, role, kW and its devices (`name@unit`)",
              "- `power.md`: power per rack, row, scalable unit and in total, with PUE; flagged racks",
              "- `bom.csv`: switches, servers, transceivers by type, cables by type and length",
              "- `floorplan.svg`: the rows of racks colored by kW, and one compute and one network rack elevation",
              "- `addressing.csv`: every interface address",
              "- `asn.csv`: every switch's ASN",
              f"- `configs/<os>/<hostname>.<ext>`: every switch's configuration for {', '.join(design.intent.targets)}",
              "- `manifest.json`: intent hash, tool version and sha256 of every file", ""]
    return "\n".join(lines)


def _configs_lines(design: Design) -> list[str]:
    """What every switch configuration says about routing and lossless QoS, in two lines."""
    qos, routing = design.intent.qos, design.intent.routing
    widths = sorted({device.bgp.maximum_paths for device in design.configs})
    paths = f"{widths[0]} to {widths[-1]}" if len(widths) > 1 else f"{widths[0]}"
    unit = "%" if qos.ecn_unit == "percent" else " bytes"
    bfd = f"every {routing.bfd.interval_ms} ms" if routing.bfd.enabled else "off"
    ecn = (f"ECN marking from {qos.ecn_min:,}{unit} to {qos.ecn_max:,}{unit} ({qos.ecn_probability}% at the top)"
           if qos.ecn else "ECN off")
    watchdog = f"{qos.pfc_watchdog_detection_ms} ms" if qos.pfc_watchdog else "off"
    return [
        f"Targets: {', '.join(design.intent.targets)}. BGP: eBGP on every switch-to-switch /31, maximum-paths "
        f"{paths} (the ECMP width), multipath-relax, timers {routing.timers.keepalive}/{routing.timers.hold} s, "
        f"BFD {bfd}.",
        "",
        f"QoS profile {qos.profile}: DSCP {qos.roce_dscp} to priority {qos.roce_priority}, lossless with PFC; CNP DSCP "
        f"{qos.cnp_dscp} to strict priority {qos.cnp_priority}; {ecn}; PFC watchdog {watchdog}; MTU {qos.mtu}.",
    ]

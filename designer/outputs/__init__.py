"""Turn a design into its review files: every file as bytes, same design, same bytes.

One module per kind of file: ``tables`` (cabling, addressing, ASNs), ``physical`` (racks, power, BOM),
``summary`` (summary.md and the plan contract), ``design_json``, ``floorplan``, ``lab`` (containerlab),
``workloads`` (the workload analysis: contract, details, text, workloads.svg);
``folder`` claims the output folder and writes it atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from designer import __version__
from designer.design import Design, Progress, quiet
from designer.hosts import HostConfig
from designer.model import DeviceConfig
from designer.outputs.design_json import design_json
from designer.outputs.floorplan import floorplan_svg
from designer.outputs.folder import MANIFEST, write_files
from designer.outputs.lab import lab_files
from designer.outputs.physical import bom_rows, power_markdown, racks_rows
from designer.outputs.summary import summary_markdown
from designer.outputs.tables import addressing_rows, asn_rows, cabling_rows, csv_bytes
from designer.outputs.workers import in_workers
from designer.outputs.workloads import svg as workloads_svg
from designer.render import render_configs, user_templates_for
from designer.render.hosts import render_hosts

Since = Callable[[str], list[str]]
"""From a new design.json, summary.md's lines on what changed since the build it replaces."""


def design_files(design: Design, templates: Path | None = None, progress: Progress | None = None,
                 since: Since | None = None) -> dict[str, bytes]:
    """Every output file of the design, by relative path, ending with the manifest of their hashes.

    ``templates`` is a folder of user templates searched before the shipped ones (default: a
    ``templates/`` folder beside the intent, if there is one). ``progress`` hears of the tables, then the configs.
    ``since`` gives, from the new design.json, summary.md's lines on what changed since the build being replaced.
    """
    say = progress or quiet
    files = review_files(design, say, since)
    say(f"rendering the configurations of {len(design.configs):,} switches for {', '.join(design.intent.targets)}")
    user_templates = user_templates_for(design.intent.source.filename, templates)
    files.update(render_configs(design.configs, design.intent.targets, user_templates,
                                design.intent.target_options.model_dump()))
    say(f"rendering the backend NIC files of {len(design.hosts):,} servers")
    files.update(render_hosts(design.hosts, user_templates))
    files[MANIFEST] = manifest(design, {path: _sha256(data) for path, data in files.items()})
    return dict(sorted(files.items()))


def write_design(design: Design, folder: Path, templates: Path | None = None, progress: Progress | None = None,
                 since: Since | None = None, workers: int | None = None) -> int:
    """Write every output file of the design into the empty ``folder``, the same bytes as :func:`design_files`;
    returns how many. The configurations are rendered by ``workers`` processes (default: one per core), each
    writing its own share of the files and reporting only their hashes."""
    say = progress or quiet
    files = review_files(design, say, since)
    write_files(files, folder)
    hashes = {path: _sha256(data) for path, data in files.items()}
    say(f"rendering and writing the configurations of {len(design.configs):,} switches for "
        f"{', '.join(design.intent.targets)} and the backend NIC files of {len(design.hosts):,} servers")
    user_templates = user_templates_for(design.intent.source.filename, templates)
    options = design.intent.target_options.model_dump()
    hashes.update(in_workers(workers or os.cpu_count() or 1, lambda worker, count: _write_configs(
        design.configs[worker::count], design.intent.targets, user_templates, options, folder,
        design.hosts[worker::count])))
    write_files({MANIFEST: manifest(design, hashes)}, folder)
    return len(hashes) + 1


def review_files(design: Design, say: Progress, since: Since | None = None) -> dict[str, bytes]:
    """The files a reviewer reads beside the configurations: summary, design.json, tables, plan, lab."""
    say("writing the summary, design.json and tables")
    document = design_json(design)
    return {
        "summary.md": summary_markdown(design, since(document) if since else []).encode(),
        "design.json": document.encode(),
        "cabling.csv": csv_bytes(*cabling_rows(design)),
        "addressing.csv": csv_bytes(*addressing_rows(design)),
        "asn.csv": csv_bytes(*asn_rows(design)),
        "racks.csv": csv_bytes(*racks_rows(design.physical, design.fabric.devices,
                                           design.intent.facility.rack_power_kw)),
        "power.md": power_markdown(design.intent.name, design.physical, design.intent.facility).encode(),
        "bom.csv": csv_bytes(*bom_rows(design.physical)),
        "floorplan.svg": floorplan_svg(design.intent, design.fabric.devices, design.physical).encode(),
        **(lab_files(design) if "frr" in design.intent.targets else {}),
        **({"workloads.svg": workloads_svg(design.intent.name, design.workloads).encode()} if design.workloads
           else {}),
    }


def manifest(design: Design, hashes: dict[str, str]) -> bytes:
    """``manifest.json``: the design's name, the tool and its version, the intent's hash and every file's."""
    record = {
        "name": design.intent.name,
        "tool": "designer",
        "version": __version__,
        "intent_sha256": design.intent.sha256,
        "files": dict(sorted(hashes.items())),
    }
    return (json.dumps(record, indent=2) + "\n").encode()


def _write_configs(configs: Sequence[DeviceConfig], targets: Sequence[str], user_templates: Path | None,
                   options: Mapping[str, Mapping[str, Any]], folder: Path,
                   hosts: Sequence[HostConfig]) -> dict[str, str]:
    """Render and write ``configs`` for every target and the files of ``hosts`` below ``folder``; their hashes by
    relative path."""
    files = render_configs(configs, targets, user_templates, options)
    files.update(render_hosts(hosts, user_templates))
    write_files(files, folder)
    return {path: _sha256(data) for path, data in files.items()}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()

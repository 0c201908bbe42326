"""Turn a design into its review files: every file as bytes, same design, same bytes.

One module per kind of file: ``tables`` (cabling, addressing, ASNs), ``physical`` (racks, power, BOM),
``summary`` (summary.md and the plan contract), ``design_json``, ``floorplan``, ``lab`` (containerlab),
``workloads`` (the workload analysis: contract, details, text, workloads.svg);
``folder`` claims the output folder and writes it atomically.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from designer import __version__
from designer.design import Design, Progress, quiet
from designer.outputs.design_json import design_json
from designer.outputs.floorplan import floorplan_svg
from designer.outputs.folder import MANIFEST
from designer.outputs.lab import lab_files
from designer.outputs.physical import bom_rows, power_markdown, racks_rows
from designer.outputs.summary import summary_markdown
from designer.outputs.tables import addressing_rows, asn_rows, cabling_rows, csv_bytes
from designer.outputs.workloads import svg as workloads_svg
from designer.render import render_configs, user_templates_for


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
        "cabling.csv": csv_bytes(*cabling_rows(design)),
        "addressing.csv": csv_bytes(*addressing_rows(design)),
        "asn.csv": csv_bytes(*asn_rows(design)),
        "racks.csv": csv_bytes(*racks_rows(design.physical, design.fabric.devices,
                                           design.intent.facility.rack_power_kw)),
        "power.md": power_markdown(design.intent.name, design.physical, design.intent.facility).encode(),
        "bom.csv": csv_bytes(*bom_rows(design.physical)),
        "floorplan.svg": floorplan_svg(design.intent, design.fabric.devices, design.physical).encode(),
    }
    if design.workloads:
        files["workloads.svg"] = workloads_svg(design.intent.name, design.workloads).encode()
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

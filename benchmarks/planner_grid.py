"""Build every intent of the planner's grid and count those that fail their own checks (none should).

The grid: four-network designs of DGX H100 on 64 x 400G leaves over sizes, target sets, each network beside the
backend on and off, each dual-homing mode and rack power budgets (tests/test_planner.py builds a sample of it in
the unit tier and runs one of its designs in the lab). Each intent is validated and designed in this process (one
stage after another, one workload seed); the table gives how many were built, refused at plan time and failed a
check, and the time. ``--every N`` builds every N-th intent only. Exits 1 when any intent is refused or fails.

    python benchmarks/planner_grid.py [--every 1] [--write]
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

SIZES = (8, 16, 40, 64, 128)
TARGETS = (["sonic", "frr"], ["eos"], ["nvue"])
DUAL_HOMING = ("none", "bgp")
FACILITIES: tuple[dict[str, Any], ...] = (
    {"rack_power_kw": 41},
    {"rack_power_kw": 22},
    {"rack_power_kw": 60, "cooling": "liquid"},
)


def grid() -> list[dict[str, Any]]:
    """Four-network intents over sizes, targets, each network on and off, each dual-homing mode and rack budgets."""
    intents = []
    shapes = itertools.product(SIZES, TARGETS, DUAL_HOMING, (True, False), (True, False), FACILITIES)
    for servers, targets, homing, storage, oob, facility in shapes:
        networks: dict[str, Any] = {
            "frontend": {"nics_per_server": 2, "nic_speed": "200G", "dual_homing": homing, "oversubscription": "3:1"}
        }
        if storage:
            networks["storage"] = {
                "nics_per_server": 2,
                "nic_speed": "200G",
                "oversubscription": 1,
                "lossless": True,
                "storage_nodes": {"count": 4, "nics_per_server": 2, "nic_speed": "400G"},
            }
        if oob:
            networks["oob"] = {}
        intents.append(
            {
                "name": f"grid-{servers}-{targets[0]}-{homing}-{int(storage)}{int(oob)}-{facility['rack_power_kw']}",
                "compute": {"servers": servers, "server": "dgx-h100"},
                "fabric": {"leaf": {"model": "generic-64x400g"}},
                "facility": facility,
                "targets": targets,
                "networks": networks,
            }
        )
    return intents


def write(folder: Path, intent: dict[str, Any]) -> Path:
    """``intent`` as a YAML file in ``folder``, named after it."""
    path = folder / f"{intent['name']}.yaml"
    path.write_text(yaml.safe_dump(intent, sort_keys=False))
    return path


def failed_checks(path: Path) -> list[str]:
    """The errors of building the intent at ``path``: its refusal at plan time, or each failed check."""
    from designer.errors import InputError
    from designer.pipeline import design
    from designer.validation import validated_intent

    try:
        checked = validated_intent(path)
    except InputError as error:
        return [f"refused: {error}"]
    built = design(checked, seeds=1, processes=1)
    return [f"{finding.check}: {finding.message}" for finding in built.findings if finding.severity == "error"]


def main() -> int:
    from common import publish  # a script beside it, imported as one (the tests import this file as a module)

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=1, help="build every N-th intent of the grid")
    parser.add_argument("--write", action="store_true", help="replace the table in benchmarks/README.md")
    args = parser.parse_args()
    intents = grid()[:: max(1, args.every)]
    failures: list[tuple[str, list[str]]] = []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        for intent in intents:
            if problems := failed_checks(write(Path(folder), intent)):
                failures.append((intent["name"], problems))
    seconds = time.perf_counter() - start
    refused = sum(1 for _, problems in failures if problems[0].startswith("refused"))
    lines = [
        f"{'Every' if args.every == 1 else f'Every {args.every}th'} intent of the grid ({len(grid())} in all), each "
        "designed in one process, one stage after another.",
        "",
        "| intents | built, every check passed | refused at plan time | a check failed | seconds |",
        "|---:|---:|---:|---:|---:|",
        f"| {len(intents)} | {len(intents) - len(failures)} | {refused} | {len(failures) - refused} | {seconds:.1f} |",
    ]
    publish("\n".join(lines), "planner_grid", args.write)
    for name, problems in failures:
        print(f"{name}: {'; '.join(problems)}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

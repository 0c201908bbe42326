"""``validate-configs`` of the OpenSM files: each read by OpenSM's own parsers, which take a bad line with a warning
and go on with their default, so that their warnings are the check.

``opensm.conf`` through its option parser (``opensm -F FILE -c OUT`` reads the file, writes every option and exits;
it prints "Unrecognized token" for an unknown option and "Invalid Cached Option Value" for a value out of range,
opensm/osm_subnet.c); ``partitions.conf`` through its partition parser, which runs only on a subnet: one sweep of a
one-switch, one-HCA fabric under ibsim, whose log has "PARSE ERROR" and "PARSE WARN" lines for what it could not
read (opensm/osm_prtn_config.c).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from designer.errors import PrerequisiteError
from designer.infiniband.ibnetdiscover import DesignNames
from designer.verify.subnet import INSTALL, TOOLS, run, simulated

OPTION_PROBLEMS = re.compile(r"^\s*(Unrecognized token: .*|Invalid Cached Option Value:.*)$", re.M)
PARTITION_PROBLEMS = re.compile(r"(PARSE (?:ERROR|WARN)[^\n]*)")
ONE_SWITCH = DesignNames(
    {"switch": "leaf", "host": "server"},
    {"switch": ("port1", "port2")},
    {("switch", "port1"): ("host", "nic0"), ("host", "nic0"): ("switch", "port1")},
    ("mlx5_0",),
)
"""The smallest subnet: one switch and one HCA, for OpenSM to read a partition file on."""


def opensm_problems(paths: list[tuple[Path, str]]) -> list[tuple[str, str]]:
    """Each file of ``paths`` (path, label) with what OpenSM's parser said against it ("" when nothing)."""
    if missing := [tool for tool in TOOLS if shutil.which(tool) is None]:
        raise PrerequisiteError(f"checking the OpenSM files needs {', '.join(missing)}: {INSTALL}")
    found = []
    with tempfile.TemporaryDirectory(prefix="designer-opensm-") as work:
        folder = Path(work)
        for path, label in paths:
            if path.name == "partitions.conf":
                problems = _partition_problems(path, folder)
            else:
                done = subprocess.run(
                    ["opensm", "-F", str(path), "-c", str(folder / "dump.conf")],
                    capture_output=True,
                    text=True,
                    timeout=60,
                    cwd=folder,
                )
                problems = [line.strip() for line in OPTION_PROBLEMS.findall(done.stdout + done.stderr)]
            found.append((label, "; ".join(problems)))
    return found


def _partition_problems(path: Path, folder: Path) -> list[str]:
    """What OpenSM's partition parser logged reading ``path`` in one sweep of :data:`ONE_SWITCH`."""
    conf, log = folder / "minimal.conf", folder / "partitions.log"
    conf.write_text("routing_engine minhop\nlog_flags 0x0f\n")  # with verbose lines: the parser's warnings
    with simulated(ONE_SWITCH, folder) as (env, _):
        run(env, "opensm", "-F", str(conf), "-P", str(path), "-o", "-f", str(log))
    return PARTITION_PROBLEMS.findall(log.read_text())

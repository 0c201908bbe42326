"""OpenSM's view of an InfiniBand fabric: the variables of ``opensm.conf`` and ``partitions.conf``.

OpenSM reads ``opensm.conf`` as ``<option> <value>`` lines and ``#`` comments (``opensm -c FILE`` writes every
option with its default; linux-rdma/opensm, opensm/osm_subnet.c) and ``partitions.conf`` as ``<name>=<pkey>[,flag]
: <ports>=<membership> ;`` definitions (linux-rdma/opensm, doc/partition-config.txt). Nothing here is keyed by a
GUID: the files work on any fabric cabled as designed, and the GUID-keyed ones come from its discovery
(``designer audit --sm-files``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

DEFAULT_PKEY = 0x7FFF
"""The default partition's key: OpenSM creates it whatever the file says (doc/partition-config.txt)."""
TOP = {2: "spines", 3: "super-spines"}
"""The switches at the top of the fat tree of each tier count: the roots ftree finds or reads."""


def view(
    tiers: int,
    planes: int,
    lmc: int,
    sweep_interval_s: int,
    qos: bool,
    partitions: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The template variables of a ``tiers``-tier fat tree of ``planes`` planes (each its own subnet, with its own
    subnet manager), with the intent's ``target_options.opensm``."""
    return {
        "tiers": tiers,
        "top": TOP[tiers],
        "planes_note": (
            f": each of its {planes} planes is a subnet of its own, run by its own subnet manager with this same file"
            if planes > 1
            else ""
        ),
        "lmc": lmc,
        "sweep_interval": sweep_interval_s,
        "qos": "TRUE" if qos else "FALSE",
        "qos_note": "" if qos else ": off, one traffic class",
        "partitions": [
            {
                "name": partition["name"],
                "pkey": f"0x{partition['pkey']:04x}",
                "membership": partition["membership"],
            }
            for partition in partitions
        ],
        "default_pkey": f"0x{DEFAULT_PKEY:04x}",
    }

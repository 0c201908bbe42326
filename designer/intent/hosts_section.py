"""The ``hosts:`` section resolved: the format of the server files and every backend NIC's names.

Names come from the intent, else from the catalog's server model, else are placeholders (``nic<i>``, or
``nic<i>s<plane>`` with swplb multiplane and for hwplb's plane PFs past PF0, and the RDMA device names of the NIC's
driver: ``mlx5_<i>``, ``ionic_<i>``, ``bnxt_re<i>``); a list the intent gives must name every NIC port of the server
once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    Field,
    WithJsonSchema,
)

from designer.catalog import ServerModel
from designer.errors import Problem
from designer.intent.fields import (
    Section,
)
from designer.intent.nic_names import PATTERN as NIC_NAME_PATTERN
from designer.intent.nic_names import RESERVED as RESERVED_NIC_NAMES
from designer.intent.nic_names import nic_name_problem
from designer.intent.yaml_source import short


@dataclass(frozen=True)
class HostSpec:
    """How the server files are written and what the backend NICs are called, in NIC (port) order."""

    format: str
    nics: tuple[str, ...]
    """Linux interface name of each backend NIC port."""
    rdma_devices: tuple[str, ...]
    """RDMA device name of each backend NIC port."""
    placeholders: bool
    """Some names are placeholders (neither the intent nor the catalog gave them)."""
    plane_nics: tuple[str, ...] = ()
    """With hwplb multiplane, the Linux interface name of each plane PF in port order (plane 0 of every rail first,
    each the rail's interface itself, PF0); empty otherwise."""


def resolve_hosts(
    doc: HostsDoc,
    known: ServerModel | None,
    nics: int | None,
    intact: Callable[..., bool],
    problems: list[Problem],
    rdma_names: str = "mlx5_{}",
    planes_per_port: int = 1,
    plane_pfs: int = 0,
) -> HostSpec:
    """The names of the ``nics`` NIC ports of a server of catalog model ``known`` (None: not a catalog model, not
    known, or carrying another NIC than the one its names are for), with a problem for each list of the intent
    that does not name every port once; ``rdma_names`` is the NIC driver's RDMA device naming (catalog ``nics``).
    With ``planes_per_port`` interfaces to each NIC port (swplb multiplane), the placeholders are the design's names
    of the plane links, ``nic<port>s<plane>``; with ``plane_pfs`` plane PFs behind each NIC port's one interface
    (hwplb), the plane PFs' names: plane 0's is the port's interface (PF0), the others' placeholders the plane links'
    names (``nic<port>s<plane>``)."""
    count = nics or 0
    rails = count // planes_per_port
    names = []
    if doc.plane_nics is not None and not plane_pfs and intact(("hosts", "plane_nics")):
        problems.append(
            Problem(
                ("hosts", "plane_nics"),
                "names the plane PFs of a NIC port with compute.multiplane mode hwplb, which this intent does not "
                "have; remove it (with swplb, nics names each plane's interface)",
            )
        )
    for field, placeholders, listed in (
        (
            "nics",
            [
                f"nic{index % rails}s{index // rails}" if planes_per_port > 1 else f"nic{index}"
                for index in range(count)
            ],
            known.nic_names if known else (),
        ),
        ("rdma_devices", [rdma_names.format(index) for index in range(count)], known.rdma_devices if known else ()),
    ):
        given = getattr(doc, field)
        if given is not None and intact(("hosts", field)) and nics is not None:
            problems.extend(_list_problems(field, given, count))
        if given is not None:
            names.append((tuple(given), False))
        elif len(listed) == count:
            names.append((tuple(listed), False))
        else:
            names.append((tuple(placeholders), True))
    (nic_names, nic_placeholders), (rdma_devices, rdma_placeholders) = names
    plane_nics = _plane_nics(doc, nic_names, nics, plane_pfs, intact, problems) if plane_pfs else ()
    return HostSpec(
        doc.format,
        nic_names,
        rdma_devices,
        nic_placeholders or rdma_placeholders or (plane_pfs > 0 and doc.plane_nics is None),
        plane_nics,
    )


def _plane_nics(
    doc: HostsDoc,
    nic_names: tuple[str, ...],
    nics: int | None,
    plane_pfs: int,
    intact: Callable[..., bool],
    problems: list[Problem],
) -> tuple[str, ...]:
    """The names of the ``plane_pfs`` plane PFs behind each of the ``nics`` NIC ports (hwplb; None: not known),
    with a problem for each the intent names wrong."""
    count = nics or 0
    links = count * plane_pfs
    if doc.plane_nics is not None and intact(("hosts", "plane_nics")) and nics is not None:
        problems.extend(_list_problems("plane_nics", doc.plane_nics, links))
        problems.extend(
            Problem(
                ("hosts", "plane_nics", index),
                f"{given!r} is plane 0 of NIC port {index}, whose PF is the port's interface itself (PF0, holding "
                f"its address), {nic_names[index]!r} in nics; give {nic_names[index]!r}",
            )
            for index, given in enumerate(doc.plane_nics[: min(count, len(nic_names))])
            if given != nic_names[index]
        )
    return (
        tuple(doc.plane_nics)
        if doc.plane_nics is not None
        else (*nic_names, *(f"nic{index % count}s{index // count}" for index in range(count, links)))
    )


def _list_problems(field: str, given: list[str], count: int) -> list[Problem]:
    return [
        Problem(("hosts", field) if index is None else ("hosts", field, index), message)
        for index, message in naming_problems(field, given, count)
    ]


def naming_problems(field: str, given: Sequence[str], count: int) -> list[tuple[int | None, str]]:
    """What is wrong with a list of ``count`` NIC ports' names (``field``: ``nics``, ``rdma_devices`` or
    ``plane_nics``), the intent's ``hosts`` or a site catalog server's: its length, and each name listed twice (at
    its index)."""
    what = {"nics": "Linux interface name", "rdma_devices": "RDMA device name", "plane_nics": "plane PF's Linux name"}[
        field
    ]
    problems: list[tuple[int | None, str]] = []
    if len(given) != count:
        problems.append(
            (
                None,
                f"{len(given)} names for a server with {count} backend NIC ports; give one {what} per NIC port, "
                f"{count} in all, in NIC (rail) order",
            )
        )
    problems.extend(
        (index, f"{name!r} is listed twice; each NIC port has its own {what}")
        for index, name in enumerate(given)
        if name in given[:index]
    )
    return problems


RDMA_NAME_PATTERN = r"^[a-z][a-z0-9_]{0,62}$"
"""An RDMA device name (``mlx5_0``): below the kernel's 64-character limit, letters, digits and '_' only."""


def _named(pattern: str, what: str, example: str) -> Any:
    """A list item that must match ``pattern``, with the JSON Schema saying so."""

    def check(name: str) -> str:
        if not re.fullmatch(pattern, name):
            raise ValueError(f"{short(name)} is not {what}; use {example}")
        return name

    return Annotated[str, AfterValidator(check), WithJsonSchema({"type": "string", "pattern": pattern})]


def _nic_name(name: str) -> str:
    if problem := nic_name_problem(name):
        raise ValueError(problem)
    return name


NicName = Annotated[
    str,
    AfterValidator(_nic_name),
    WithJsonSchema({"type": "string", "pattern": NIC_NAME_PATTERN, "not": {"enum": sorted(RESERVED_NIC_NAMES)}}),
]
if TYPE_CHECKING:
    RdmaName = str
else:
    RdmaName = _named(
        RDMA_NAME_PATTERN, "an RDMA device name", "lower-case letters, digits and '_', starting with a letter (mlx5_0)"
    )


class HostsDoc(Section):
    """The server side of every backend link: the files written per server under ``servers/``."""

    format: Literal["netplan", "nmconnection"] = Field(
        "netplan",
        description=(
            "How the NIC addresses, routes and rules are written: netplan (one netplan.yaml per server) or "
            "nmconnection (one NetworkManager keyfile per NIC)."
        ),
    )
    nics: list[NicName] | None = Field(
        None,
        description=(
            "The backend NICs' Linux interface names in NIC order (rail order), one per NIC port of the server. "
            "Default: the catalog server model's, else nic0, nic1, ..."
        ),
    )
    plane_nics: list[NicName] | None = Field(
        None,
        description=(
            "With compute.multiplane mode hwplb: the Linux interface names of every NIC port's plane PFs (PF n is "
            "the rail interface's PCI function + n), in port order as swplb numbers them (plane 0 of every rail, "
            "each the rail's interface of nics, then plane 1, ...), so that lldpd runs on each and designer audit "
            "maps them to their plane links. Default: nics, then nic0s1, nic1s1, ..."
        ),
    )
    rdma_devices: list[RdmaName] | None = Field(
        None,
        description=(
            "The backend NICs' RDMA device names in NIC order (NCCL_IB_HCA), one per NIC port. Default: the catalog "
            "server model's, else the NIC driver's names: mlx5_0, ... (NVIDIA), ionic_0, ... (AMD), bnxt_re0, ... "
            "(Broadcom)"
        ),
    )

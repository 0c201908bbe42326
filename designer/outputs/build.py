"""Every file of a build: the review files, the switch and server files (rendered and written in forked workers)
and the manifest of their hashes, as bytes in memory or written into an output folder."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from designer import __version__
from designer.backend.hosts import HostConfig
from designer.backend.model import DeviceConfig
from designer.design import Design, Progress, quiet
from designer.intent import Intent
from designer.networks.cluster import ClusterNetworks
from designer.networks.hosts import network_hosts
from designer.networks.management import SwitchManagement
from designer.outputs.containerlab import lab_files
from designer.outputs.design_json import design_json
from designer.outputs.floorplan import floorplan_svg
from designer.outputs.folder import (
    INTENT_FILE,
    MANIFEST,
    SITE_CATALOG_FILE,
    PartSizes,
    differences,
    file_matches,
    sizes_by_part,
    write_files,
)
from designer.outputs.labels import label_rows, labels_html
from designer.outputs.monitoring import monitoring_files
from designer.outputs.network_tables import addressing_rows as network_addressing_rows
from designer.outputs.network_tables import (
    bom_with_networks,
    cabling_with_networks,
    oob_rows,
    power_section,
    racks_with_networks,
)
from designer.outputs.physical_review import bom_rows, power_markdown, racks_rows
from designer.outputs.summary import summary_markdown
from designer.outputs.tables import addressing_rows, asn_rows, cabling_rows, csv_bytes
from designer.outputs.topology_svg import topology_svg
from designer.outputs.workload_report import svg as workloads_svg
from designer.pipeline import design as run_stages
from designer.render import Renderer, rendered, rendered_fabric, user_templates_for
from designer.render.network_servers import rendered_network_hosts
from designer.render.servers import HOSTS_FOLDER, rendered_hosts
from designer.workers import Background, in_workers

Since = Callable[[bytes], list[str]]
"""From a new design.json, summary.md's lines on what changed since the build it replaces."""
Share = Callable[[int, int], Iterator[tuple[str, bytes]]]
"""``share(worker, count)``: the ``worker``-th of ``count`` shares of the switch and server files, rendered one
(relative path, bytes) at a time."""


def design_files(
    design: Design, templates: Path | None = None, progress: Progress | None = None, since: Since | None = None
) -> dict[str, bytes]:
    """Every output file of the design, by relative path, ending with the manifest of their hashes.

    ``templates`` is a folder of user templates searched before the shipped ones (default: a
    ``templates/`` folder beside the intent, if there is one). ``progress`` hears of the tables, then the configs.
    ``since`` gives, from the new design.json, summary.md's lines on what changed since the build being replaced.
    """
    say = progress or quiet
    files = dict(review_files(design, say, since, templates))
    say(
        f"rendering the configurations of {len(design.configs):,} switches for {', '.join(design.intent.targets)} "
        f"and the backend NIC files of {len(design.hosts):,} servers"
    )
    files.update(_design_share(design, templates)(0, 1))
    files[MANIFEST] = manifest(design, {path: _sha256(data) for path, data in files.items()})
    return dict(sorted(files.items()))


def build_and_write(
    intent: Intent,
    folder: Path,
    templates: Path | None = None,
    progress: Progress | None = None,
    since: Since | None = None,
    workers: int | None = None,
) -> tuple[Design, PartSizes]:
    """Run every stage on ``intent`` and write its files into the empty ``folder`` (the bytes of
    :func:`design_files`); returns the design and the files and bytes written, by part. The switch configurations
    and the server files are rendered and written by ``workers`` forked processes (default: one per core) from the
    moment the device models and host settings are made, while this process runs the checks and writes the review
    files."""
    with contextlib.ExitStack() as stack:
        built, rendering = _stages_beside(
            intent,
            progress,
            stack,
            workers,
            "rendering and writing",
            lambda configs, hosts, management, networks: _files_part(
                _each_share(configs, hosts, management, networks, intent, templates), folder
            ),
        )
        return built, write_design(built, folder, templates, progress, since, workers, rendering)


def build_and_check(
    intent: Intent,
    folder: Path,
    templates: Path | None = None,
    progress: Progress | None = None,
    since: Since | None = None,
    workers: int | None = None,
) -> tuple[Design, list[str]]:
    """Run every stage on ``intent`` and list what differs between its files and the folder ``folder``
    (:func:`check_design`); the switch configurations and the server files are rendered and compared by ``workers``
    forked processes from the moment the device models and host settings are made, beside the checks."""
    with contextlib.ExitStack() as stack:
        built, comparing = _stages_beside(
            intent,
            progress,
            stack,
            workers,
            "rendering and comparing",
            lambda configs, hosts, management, networks: _compare_part(
                _each_share(configs, hosts, management, networks, intent, templates), folder
            ),
        )
        return built, check_design(built, folder, templates, progress, since, workers, comparing)


def _stages_beside(
    intent: Intent,
    progress: Progress | None,
    stack: contextlib.ExitStack,
    workers: int | None,
    doing: str,
    part_for: Callable[
        [Sequence[DeviceConfig], Sequence[HostConfig], SwitchManagement, ClusterNetworks | None],
        Callable[[int, int], dict[str, Any]],
    ],
) -> tuple[Design, Background]:
    """Every stage on ``intent``, with ``part_for(configs, hosts, management, networks)`` started in ``workers``
    forked processes (default: one per core) as soon as the device models, host settings, the switches' management
    side and the networks beside the backend exist; the design and those workers (their clean-up entered into
    ``stack``)."""
    say = progress or quiet
    started: list[Background] = []

    def modelled(
        configs: tuple[DeviceConfig, ...],
        hosts: tuple[HostConfig, ...],
        management: SwitchManagement,
        networks: ClusterNetworks | None,
    ) -> None:
        beside = ", with their files in the networks beside it," if networks else ""
        say(
            f"{doing} the configurations of {len(configs):,} switches for {', '.join(intent.targets)} and the "
            f"backend NIC files of {len(hosts):,} servers{beside} beside the checks"
        )
        count = workers or os.cpu_count() or 1
        part = part_for(configs, hosts, management, networks)
        started.append(stack.enter_context(Background(range(count), count, part)))

    return run_stages(intent, progress, modelled=modelled), started[0]


def write_design(
    design: Design,
    folder: Path,
    templates: Path | None = None,
    progress: Progress | None = None,
    since: Since | None = None,
    workers: int | None = None,
    rendering: Background | None = None,
) -> PartSizes:
    """Write every output file of the design into the empty ``folder``, the same bytes as :func:`design_files`;
    returns the files and bytes written, by part (told by the writers: no file is read back). The switch
    configurations and the server files are rendered by ``workers`` processes (default: one per core), each
    writing its own share of the files and reporting only their hashes and sizes, or were started already
    (``rendering``, from :func:`build_and_write`)."""
    say = progress or quiet
    written = _write(review_files(design, say, since, templates), folder)
    if rendering is None:
        say(
            f"rendering and writing the configurations of {len(design.configs):,} switches for "
            f"{', '.join(design.intent.targets)} and the backend NIC files of {len(design.hosts):,} servers"
        )
        written.update(
            in_workers(
                workers or os.cpu_count() or 1,
                _files_part(_design_share(design, templates), folder),
            )
        )
    else:
        say("waiting for the configurations and server files")
        written.update(rendering.results())
    listed = manifest(design, {path: digest for path, (digest, _) in written.items()})
    write_files({MANIFEST: listed}, folder)
    return sizes_by_part([*((path, size) for path, (_, size) in written.items()), (MANIFEST, len(listed))])


def review_files(
    design: Design, say: Progress, since: Since | None = None, templates: Path | None = None
) -> Iterator[tuple[str, bytes]]:
    """The files a reviewer reads beside the configurations, one (relative path, bytes) at a time so that only one
    is held at once: summary, design.json, tables, plan, lab, the subnet manager's files of an InfiniBand fabric
    (from ``templates`` first, as the configurations); with networks beside the backend, the tables hold them too
    (:mod:`designer.outputs.network_tables`) and their addresses follow (their switches' and servers' files are rendered
    with the backend's, :func:`_each_share`)."""
    say("writing the summary, design.json and tables")
    document = design_json(design)
    changes = since(document) if since else []
    yield "design.json", document
    del document
    yield "summary.md", summary_markdown(design, changes).encode()
    yield INTENT_FILE, design.intent.text.encode("utf-8", "surrogatepass")
    if design.intent.catalogs.files:
        yield SITE_CATALOG_FILE, design.intent.catalogs.text().encode()
    subnet_managers = design.intent.subnet_managers
    if subnet_managers:
        fabric = {"tiers": design.plan.tiers, "planes": design.intent.planes}
        yield from rendered_fabric(subnet_managers, fabric, _renderer(design.intent, templates))
    racks_header, racks = racks_table(design)
    rack_rows = list(racks)
    yield from _cable_files(design, [row[0] for row in rack_rows])
    if design.allocation is not None:  # an InfiniBand fabric has neither
        yield "addressing.csv", csv_bytes(*addressing_rows(design))
        yield "asn.csv", csv_bytes(*asn_rows(design))
    yield "racks.csv", csv_bytes(racks_header, rack_rows)
    power = power_markdown(design.intent.name, design.physical, design.intent.facility, design.intent.system)
    if design.networks:
        power += power_section(design.networks, design.physical, design.intent.facility)
    yield "power.md", power.encode()
    yield "bom.csv", csv_bytes(*bom_table(design))
    yield (
        "floorplan.svg",
        floorplan_svg(
            design.intent,
            design.fabric.devices,
            design.physical,
            design.networks.physical if design.networks else None,
        ).encode(),
    )
    yield "topology.svg", topology_svg(design.intent.name, design.plan).encode()
    if design.intent.outputs.lab:
        yield from lab_files(design).items()
    if design.intent.outputs.monitoring:
        yield from monitoring_files(design).items()
    if design.workloads:
        yield "workloads.svg", workloads_svg(design.intent.name, design.workloads).encode()
    if design.networks:
        yield "network-addressing.csv", csv_bytes(*network_addressing_rows(design.networks))
        if design.networks.physical.oob:
            yield "oob.csv", csv_bytes(*oob_rows(design.networks))


def _cable_files(design: Design, racks: list[str]) -> Iterator[tuple[str, bytes]]:
    """``cabling.csv`` and both label files, from one list of the cables (a 131k-GPU design has some 400,000),
    freed once they are written; ``racks``: the rack names in order, for the printable labels."""
    cabling_header, cables = cabling_table(design)
    cabling = (cabling_header, list(cables))
    yield "cabling.csv", csv_bytes(*cabling)
    yield "labels.csv", csv_bytes(*label_rows(cabling))
    yield "labels.html", labels_html(design.intent.name, cabling, racks).encode()


def cabling_table(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """``cabling.csv``: the backend's cables, and with networks beside it every network's under a network column."""
    rows = cabling_rows(design)
    return cabling_with_networks(design.networks, rows) if design.networks else rows


def racks_table(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """``racks.csv``: the backend's racks, with what the networks beside it add."""
    budget = design.intent.facility.rack_power_kw
    rows = racks_rows(design.physical, design.fabric.devices, budget)
    return racks_with_networks(design.networks, rows, budget) if design.networks else rows


def bom_table(design: Design) -> tuple[list[str], Iterable[list[Any]]]:
    """``bom.csv``: the backend's parts, with a network column and the networks' parts when they are declared."""
    rows = bom_rows(design.physical)
    return bom_with_networks(design.networks, rows) if design.networks else rows


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


def _write(files: Iterable[tuple[str, bytes]], folder: Path) -> dict[str, tuple[str, int]]:
    """Write ``files`` (relative path, bytes) below ``folder``, one file at a time; their hashes and sizes by
    relative path."""
    written: dict[str, tuple[str, int]] = {}

    def hashed() -> Iterator[tuple[str, bytes]]:
        for path, data in files:
            written[path] = (_sha256(data), len(data))
            yield path, data

    write_files(hashed(), folder)
    return written


def check_design(
    design: Design,
    folder: Path,
    templates: Path | None = None,
    progress: Progress | None = None,
    since: Since | None = None,
    workers: int | None = None,
    comparing: Background | None = None,
) -> list[str]:
    """What differs between the files of the design (:func:`design_files`) and the folder ``folder``, as
    :func:`~designer.outputs.folder.drift` lists it. The switch configurations and the server files are rendered and
    compared with the folder's by ``workers`` processes (default: one per core), each reporting only its files'
    hashes and whether they match, or were started already (``comparing``, from :func:`build_and_check`)."""
    say = progress or quiet
    reviewed = {
        path: (_sha256(data), file_matches(folder, path, data))
        for path, data in review_files(design, say, since, templates)
    }
    if comparing is None:
        say(
            f"rendering the configurations of {len(design.configs):,} switches for "
            f"{', '.join(design.intent.targets)} and the backend NIC files of {len(design.hosts):,} servers and "
            f"comparing them with {folder}"
        )
        compared = in_workers(
            workers or os.cpu_count() or 1,
            _compare_part(_design_share(design, templates), folder),
        )
    else:
        say("waiting for the configurations and server files")
        compared = comparing.results()
    hashes = {path: digest for path, (digest, _) in (*reviewed.items(), *compared.items())}
    matches = {path: same for path, (_, same) in (*reviewed.items(), *compared.items())}
    matches[MANIFEST] = file_matches(folder, MANIFEST, manifest(design, hashes))
    return differences(matches, folder)


def _compare_part(share: Share, folder: Path) -> Callable[[int, int], dict[str, tuple[str, bool]]]:
    """``part(worker, count)``: the ``worker``-th of ``count`` shares of the files (:func:`_each_share`), each
    compared with the one below ``folder``; each file's hash and whether it matches, by relative path."""
    return lambda worker, count: {
        path: (_sha256(data), file_matches(folder, path, data)) for path, data in share(worker, count)
    }


def _files_part(share: Share, folder: Path) -> Callable[[int, int], dict[str, tuple[str, int]]]:
    """``part(worker, count)``: the ``worker``-th of ``count`` shares of the files (:func:`_each_share`), written
    below ``folder``; the files' hashes and sizes by relative path."""
    return lambda worker, count: _write(share(worker, count), folder)


def _design_share(design: Design, templates: Path | None) -> Share:
    """:func:`_each_share` of a whole design: every switch's (the backend's, then the networks'), every server's."""
    configs = (*design.configs, *design.network_configs)
    return _each_share(configs, design.hosts, design.management, design.networks, design.intent, templates)


def _each_share(
    configs: Sequence[DeviceConfig],
    hosts: Sequence[HostConfig],
    management: SwitchManagement,
    networks: ClusterNetworks | None,
    intent: Intent,
    templates: Path | None,
) -> Share:
    """``share(worker, count)``: every ``count``-th of ``configs`` rendered (for the intent's targets, with their
    ``management`` side), then of ``hosts`` with the same servers' files in the ``networks`` beside the backend (none
    when the intent's ``outputs.servers`` is off), from the ``worker``-th, one (relative path, bytes) at a time. The
    templates are compiled here, once, before the workers are forked."""
    renderer = _renderer(intent, templates, management)
    renderer.compile_templates(intent.targets, HOSTS_FOLDER)
    servers = intent.outputs.servers
    return lambda worker, count: itertools.chain(
        rendered(configs[worker::count], intent.targets, renderer),
        rendered_hosts(hosts[worker::count] if servers else (), renderer),
        rendered_network_hosts(network_hosts(networks, worker, count) if networks and servers else (), renderer),
    )


def _renderer(intent: Intent, templates: Path | None, management: SwitchManagement | None = None) -> Renderer:
    """The build's one Jinja environment: the user's templates (``templates``, else a ``templates/`` folder beside
    the intent) searched before the shipped ones, the intent's target options and the switches' ``management``
    side."""
    return Renderer(
        user_templates_for(intent.source.filename, templates),
        intent.target_options.view_arguments(),
        management,
        intent.catalog,
    )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()

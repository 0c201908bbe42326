"""The network OSes designer writes configurations for: one card each, ``designer/targets/<name>.yaml``.

A card holds everything about its OS: its label, whether an intent without ``targets`` takes it (``default``), its
entry template and file extension, its view (``designer/render/<view>.py``), the companion files beside each
configuration, the targets it needs beside it, its offline check (a function of ``designer.verify.parsers``), its
options section (``target_options.<name>``, a model of the intent's schema), its names for the loopback and the
management port, the containerlab kind that boots its files, and its ``capabilities``: what its configuration can
express (ECMP width, MTU, watchdog times, load balancing, underlays, how it names ports), the catalog's ``targets``
entry, which site catalogs may adjust. An OS is its card, its view and its templates (``templates/<os>/``); the
intent's schema and rules, the renderer, the build, the summary and ``validate-configs`` read the cards, and no
stage decides by an OS's name. This module imports nothing of the stages, so the intent's schema can read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


@dataclass(frozen=True)
class Companion:
    """A second file per device that an OS needs beside its configuration: ``configs/<folder>/<hostname>.<ext>``
    from ``template``, with the same view; ``about`` says what it holds (summary.md lists it)."""

    folder: str
    template: str
    extension: str
    about: str
    validator: str = ""
    """Its offline check, as :attr:`Target.validator`."""
    unnumbered_only: bool = False
    """Written only for a device of an unnumbered underlay (``routing.underlay``)."""


@dataclass(frozen=True)
class LabKind:
    """A containerlab node kind the lab export (``lab/clab.yml``) can run every switch as: the target whose files
    its nodes boot, its image when containerlab's users share one (empty: each team brings its own, the intent names
    it) and the port names of the target its image has interfaces for (``ports``, a regular expression, described
    by ``port_names``), as containerlab's ``docs/manual/kinds/<kind>.md`` describes the kind."""

    kind: str
    label: str
    target: str
    image: str
    ports: str
    port_names: str


@dataclass(frozen=True)
class GnmiPaths:
    """What a collector subscribes to on a switch of the OS for the RoCE counters (``monitoring/gnmi/<os>.yaml``):
    ``paths`` per designed port, each with ``{port}`` (the OS's port name) and, for a counter per lossless priority,
    ``{priority}`` (one path per PFC priority); ``target`` is the gNMI prefix target the paths need (SONiC's
    database), ``port`` the OS's default gNMI port, ``source`` where the paths are documented."""

    port: int
    paths: tuple[str, ...]
    source: str
    target: str = ""


@dataclass(frozen=True)
class LosslessMetrics:
    """The metric names an OS documents for its lossless class's counters (``monitoring/dashboards/lossless.json``):
    ``names`` as (metric, what it counts), each with the ``interface`` label naming the port; ``source`` where."""

    source: str
    names: tuple[tuple[str, str], ...]
    drops: tuple[str, ...] = ()
    """Those of ``names`` counting packets of the exported traffic class dropped (the lossless class's rules)."""
    export: str = ""
    """How the switch is told to export the lossless class's counters, ``{traffic_class}`` its traffic class."""


@dataclass(frozen=True)
class Target:
    """One network OS, as its card gives it (the fields a card may leave out have their defaults here)."""

    name: str
    label: str
    view: str
    template: str = ""
    """Its entry template, one configuration per switch (empty: a subnet manager's ``fabric_files`` instead)."""
    extension: str = ""
    """The module (``designer.render.<view>``) whose ``View`` (a view made per rendering, which may remember what it
    made for the devices before) or ``view`` (a function) turns a device model into the template's variables."""
    companions: tuple[Companion, ...] = ()
    needs: tuple[tuple[str, str], ...] = ()
    """Targets it cannot be written without, each with the reason."""
    fixed_port_names: str = ""
    """Why a site catalog may not change how it names ports (its ``port_names`` in the catalog); empty: it may."""
    validator: str = ""
    """The function of ``designer.verify.parsers`` that checks its files offline (``validate-configs``): given the
    output folder, its files as (path, label) and the SONiC YANG folder asked for, it returns a verdict per file,
    raises ``PrerequisiteError`` for a missing tool and ``Unchecked`` when the files cannot be checked. Empty: no
    offline check."""
    options: str = ""
    """The model of its ``target_options.<name>`` section in ``designer.intent.target_options_section`` (empty: it
    takes none)."""
    loopback: str = "lo"
    """The name its configuration gives the loopback interface (templates/<os>/, SONiC's LOOPBACK_INTERFACE)."""
    discovery: str = "lldpd"
    """Whose LLDP report names its ports (``designer audit``'s name family): ``lldpd``, which runs on the OS and
    reports the kernel's interface names, or ``eos``, EOS's own LLDP agent."""
    technology: str = "ethernet"
    """The fabric it configures (the intent's ``fabric.technology``): ``ethernet`` or ``infiniband``."""
    fabric_files: tuple[tuple[str, str], ...] = ()
    """For a target that configures the fabric as a whole rather than each switch (a subnet manager): its files, as
    (output path, template), written once per design; it then has no per-switch ``template``."""
    qos: bool = True
    """Its configuration writes the RoCE QoS (PFC, ECN, queues): a network that must be lossless needs it."""
    port_names: tuple[str, ...] = ()
    """How the ports of a switch it manages are named when neither the catalog's entry of the target (a subnet
    manager has none) nor the switch model's (``switches.<model>.port_names.<target>``) says: the ``whole`` and
    ``broken_out`` patterns of :class:`designer.catalog.PortNaming`."""
    management_port: str = ""
    """The name its configuration gives the switch's out-of-band management port (empty: it configures none, the
    intent's ``management`` section is not its to write)."""
    management_vrf: str = ""
    """The one name the OS allows its management VRF (empty: any name the intent's ``management.vrf`` gives)."""
    catalog_limits: bool = False
    """Whether its view writes within limits of its catalog entry (the MTU, the watchdog's polls): the renderer
    then gives the view that entry, from the catalog the design is made with, as ``limits``."""
    monitored: bool = False
    """Whether ``outputs.monitoring``'s rules name ports and peers as it does (:mod:`designer.outputs.monitoring`):
    the switch runs FRR on Linux, with the FRR and node exporters beside it."""
    default: bool = False
    """Whether an intent that names no ``targets`` takes it (with the other defaults of its technology). The shipped
    OSes are; a new card is not, so adding an OS changes no existing design."""
    lab: LabKind | None = None
    """The containerlab kind whose nodes boot its files in ``lab/clab.yml`` (None: no kind does)."""
    gnmi: GnmiPaths | None = None
    """The gNMI paths of its RoCE counters (None: the OS documents none, ``monitoring/gnmi/`` has no file for it)."""
    lossless_metrics: LosslessMetrics | None = None
    """The documented metric names of its lossless class's counters (None: none are documented)."""
    capabilities: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    """What its configuration can express, in the catalog's ``targets`` format (:class:`designer.catalog.TargetModel`):
    the shipped catalog's entry for it, which a site catalog lays its own over field by field (empty: none, as a
    subnet manager's)."""


CARDS = ("sonic", "frr", "eos", "nvue", "opensm")
"""The shipped cards, in the order messages, schemas and the default targets list them."""


def card(path: Path) -> Target:
    """The target a card describes (its name is the file's): YAML of :class:`Target`'s fields, ``companions`` as a
    list of :class:`Companion` fields, ``needs`` and ``fabric_files`` as mappings, ``lab`` as :class:`LabKind`'s
    fields without its kind's target, ``gnmi`` as :class:`GnmiPaths`'s fields, ``lossless_metrics`` as a source and
    a mapping of names."""
    fields: dict[str, Any] = yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    name = path.stem
    lab = fields.pop("lab", None)
    gnmi = fields.pop("gnmi", None)
    lossless = fields.pop("lossless_metrics", None)
    return Target(
        name,
        **{
            **fields,
            "companions": tuple(Companion(**companion) for companion in fields.get("companions", ())),
            "needs": tuple(fields.get("needs", {}).items()),
            "fabric_files": tuple(fields.get("fabric_files", {}).items()),
            "port_names": (fields["port_names"]["whole"], fields["port_names"]["broken_out"])
            if "port_names" in fields
            else (),
            "lab": LabKind(lab["kind"], lab["label"], name, lab["image"], lab["ports"], lab["port_names"])
            if lab
            else None,
            "gnmi": GnmiPaths(**{**gnmi, "paths": tuple(gnmi["paths"])}) if gnmi else None,
            "lossless_metrics": LosslessMetrics(
                lossless["source"],
                tuple(lossless["names"].items()),
                tuple(lossless.get("drops", ())),
                lossless.get("export", ""),
            )
            if lossless
            else None,
        },
    )


TARGETS: dict[str, Target] = {name: card(Path(__file__).with_name(f"{name}.yaml")) for name in CARDS}
"""Every network OS and subnet manager designer writes for, by the name an intent's ``targets`` uses."""
NAMES = tuple(TARGETS)
TECHNOLOGIES = ("ethernet", "infiniband")
"""The fabrics designer designs (``fabric.technology``), the default first."""


def of_technology(technology: str) -> tuple[str, ...]:
    """The targets that configure a fabric of ``technology``, in card order."""
    return tuple(name for name, target in TARGETS.items() if target.technology == technology)


def defaults(technology: str) -> tuple[str, ...]:
    """The targets an intent of ``technology`` that names none takes: the default cards of its technology."""
    return tuple(name for name in of_technology(technology) if TARGETS[name].default)


def per_switch(targets: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Those of ``targets`` that write a configuration per switch (the network OSes), in their order."""
    return tuple(target for target in targets if TARGETS[target].template)


def per_fabric(targets: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Those of ``targets`` that configure the fabric as a whole (the subnet managers), in their order."""
    return tuple(target for target in targets if TARGETS[target].fabric_files)


def config_path(target: str, hostname: str) -> str:
    """Where a device's configuration goes in the outputs: ``configs/<os>/<hostname>.<ext>``."""
    return f"configs/{target}/{hostname}.{TARGETS[target].extension}"


def config_files(target: str, hostname: str, unnumbered: bool = False) -> list[tuple[str, str]]:
    """Every file of a device for ``target``, as (output path, template): its configuration, then its companions
    (the FRR router's kernel settings: ``configs/sysctl/<hostname>.conf``, a sysctl.d file), those of an
    ``unnumbered`` underlay only for one."""
    entry = TARGETS[target]
    return [
        (config_path(target, hostname), entry.template),
        *(
            (f"configs/{companion.folder}/{hostname}.{companion.extension}", companion.template)
            for companion in entry.companions
            if unnumbered or not companion.unnumbered_only
        ),
    ]


LAB_KINDS: dict[str, LabKind] = dict(
    sorted(
        ((target.lab.kind, target.lab) for target in TARGETS.values() if target.lab),
        key=lambda item: (item[0] != "linux", item[0]),
    )
)
"""Every containerlab kind the lab export writes, by the name containerlab's topology files use (from the cards'
``lab``): ``linux`` (FRR, the routers ``designer verify`` runs), the default, first."""


def validators() -> dict[str, str]:
    """Each folder under ``configs/`` that has an offline check, with the check's name: every target's and every
    companion's, in record order."""
    return {
        folder: validator
        for target in TARGETS.values()
        for folder, validator in (
            (target.name, target.validator),
            *((companion.folder, companion.validator) for companion in target.companions),
        )
        if validator
    }

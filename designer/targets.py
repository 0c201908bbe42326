"""The network OSes designer writes configurations for: one record each.

The intent's schema and rules, the renderer, the build and the summary read these records; no stage decides by an
OS's name. An OS is its record here, its view (``designer/render/<view>.py``), its templates (``templates/<os>/``)
and its entry in ``designer/catalog.yaml``'s ``targets`` (what its configuration can express: ECMP width, MTU,
watchdog times, load balancing), which site catalogs may adjust; its options (``target_options``) and its offline
check (``validate-configs``) are still written beside the schema and the other parsers.
This module is data only: it imports nothing of the stages, so the intent's schema can read it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Companion:
    """A second file per device that an OS needs beside its configuration: ``configs/<folder>/<hostname>.<ext>``
    from ``template``, with the same view; ``about`` says what it holds (summary.md lists it)."""

    folder: str
    template: str
    extension: str
    about: str


@dataclass(frozen=True)
class Target:
    """One network OS: its entry template and file extension, the module of its view, the companion files beside
    each configuration, the targets it needs beside it (and why), and whether its files run the FRR lab."""

    name: str
    template: str
    extension: str
    view: str
    """The module (``designer.render.<view>``) whose ``View`` (a view made per rendering, which may remember what it
    made for the devices before) or ``view`` (a function) turns a device model into the template's variables."""
    companions: tuple[Companion, ...] = ()
    needs: tuple[tuple[str, str], ...] = ()
    """Targets it cannot be written without, each with the reason."""
    lab: bool = False
    """Its files run in ``designer verify``'s FRR lab and the containerlab export (``lab/``)."""
    fixed_port_names: str = ""
    """Why a site catalog may not change how it names ports (its ``port_names`` in the catalog); empty: it may."""


TARGETS: dict[str, Target] = {
    "sonic": Target(
        "sonic",
        "sonic/config_db.json.j2",
        "json",
        "sonic",
        needs=(("frr", "sonic runs BGP from the FRR configuration beside its config_db.json (split-unified mode)"),),
    ),
    "frr": Target(
        "frr",
        "frr/frr.conf.j2",
        "conf",
        "linux",
        companions=(
            Companion(
                "sysctl",
                "frr/sysctl.conf.j2",
                "conf",
                "each FRR router's kernel settings (multipath hash policy and seed)",
            ),
        ),
        lab=True,
        fixed_port_names="the FRR lab's interfaces are the designer's own swpN and swpNsL (design.json's ports)",
    ),
    "eos": Target("eos", "eos/eos.cfg.j2", "cfg", "eos"),
    "nvue": Target(
        "nvue",
        "nvue/startup.yaml.j2",
        "yaml",
        "nvue",
        fixed_port_names="Cumulus Linux names a broken-out port's links after their parent, swpNs0 to swpNs<n-1>",
    ),
}
"""Every network OS designer writes for, by the name an intent's ``targets`` uses, in the order of the default."""
NAMES = tuple(TARGETS)


def config_path(target: str, hostname: str) -> str:
    """Where a device's configuration goes in the outputs: ``configs/<os>/<hostname>.<ext>``."""
    return f"configs/{target}/{hostname}.{TARGETS[target].extension}"


def config_files(target: str, hostname: str) -> list[tuple[str, str]]:
    """Every file of a device for ``target``, as (output path, template): its configuration, then its companions
    (the FRR router's kernel settings: ``configs/sysctl/<hostname>.conf``, a sysctl.d file)."""
    entry = TARGETS[target]
    return [
        (config_path(target, hostname), entry.template),
        *(
            (f"configs/{companion.folder}/{hostname}.{companion.extension}", companion.template)
            for companion in entry.companions
        ),
    ]


def with_lab(targets: tuple[str, ...] | list[str]) -> bool:
    """Whether any of ``targets`` runs the FRR lab (then a build writes ``lab/``)."""
    return any(TARGETS[target].lab for target in targets)

"""The network OSes designer writes configurations for: one record each.

The intent's schema and rules, the renderer, the build, the summary and ``validate-configs`` read these records; no
stage decides by an OS's name. An OS is its record here, its view (``designer/render/<view>.py``), its templates
(``templates/<os>/``) and its entry in ``designer/catalog.yaml``'s ``targets`` (what its configuration can express:
ECMP width, MTU, watchdog times, load balancing, how it names ports), which site catalogs may adjust. A record names
its options section (``target_options.<os>``, a model of the intent's schema) and its offline check (a function of
``designer.verify.parsers``) by name.
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
    validator: str = ""
    """Its offline check, as :attr:`Target.validator`."""
    unnumbered_only: bool = False
    """Written only for a device of an unnumbered underlay (``routing.underlay``)."""


@dataclass(frozen=True)
class Target:
    """One network OS: its name in messages, its entry template and file extension, the module of its view, the
    companion files beside each configuration, the targets it needs beside it (and why), whether its files run the
    FRR lab, its offline check, its options section and whether a site may rename its ports."""

    name: str
    label: str
    template: str
    extension: str
    view: str
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
    """The model of its ``target_options.<name>`` section in ``designer.intent.schema`` (empty: it takes none)."""
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


TARGETS: dict[str, Target] = {
    "sonic": Target(
        "sonic",
        "SONiC",
        "sonic/config_db.json.j2",
        "json",
        "sonic",
        companions=(
            Companion(
                "sonic-frr",
                "frr/frr.conf.j2",
                "conf",
                "each SONiC switch's FRR configuration with SONiC's port names, for an unnumbered underlay (its "
                "neighbors are ports)",
                validator="frr_files",
                unnumbered_only=True,
            ),
        ),
        needs=(("frr", "sonic runs BGP from the FRR configuration beside its config_db.json (split-unified mode)"),),
        validator="sonic_files",
        options="SonicOptionsDoc",
        loopback="Loopback0",
        management_port="eth0",
        management_vrf="mgmt",
    ),
    "frr": Target(
        "frr",
        "FRR",
        "frr/frr.conf.j2",
        "conf",
        "linux",
        companions=(
            Companion(
                "sysctl",
                "frr/sysctl.conf.j2",
                "conf",
                "each FRR router's kernel settings (multipath hash policy and seed)",
                validator="sysctl_files",
            ),
        ),
        qos=False,
        fixed_port_names="the FRR lab's interfaces are the designer's own swpN and swpNsL (design.json's ports)",
        validator="frr_files",
    ),
    "eos": Target(
        "eos",
        "EOS",
        "eos/eos.cfg.j2",
        "cfg",
        "eos",
        validator="eos_files",
        loopback="Loopback0",
        discovery="eos",
        management_port="Management1",
    ),
    "nvue": Target(
        "nvue",
        "NVUE",
        "nvue/startup.yaml.j2",
        "yaml",
        "nvue",
        fixed_port_names="Cumulus Linux names a broken-out port's links after their parent, swpNs0 to swpNs<n-1>",
        validator="nvue_files",
        options="NvueOptionsDoc",
        management_port="eth0",
        management_vrf="mgmt",
    ),
    "opensm": Target(
        "opensm",
        "OpenSM",
        "",
        "",
        "opensm",
        validator="opensm_files",
        options="OpensmOptionsDoc",
        technology="infiniband",
        fabric_files=(
            ("configs/opensm/opensm.conf", "opensm/opensm.conf.j2"),
            ("configs/opensm/partitions.conf", "opensm/partitions.conf.j2"),
        ),
        port_names=("{number}", "{number}"),  # the switch's port numbers, as ibnetdiscover and OpenSM give them
    ),
}
"""Every network OS and subnet manager designer writes for, by the name an intent's ``targets`` uses."""
NAMES = tuple(TARGETS)
TECHNOLOGIES = ("ethernet", "infiniband")
"""The fabrics designer designs (``fabric.technology``), the default first."""


def of_technology(technology: str) -> tuple[str, ...]:
    """The targets that configure a fabric of ``technology``, in record order: an intent's default ``targets``."""
    return tuple(name for name, target in TARGETS.items() if target.technology == technology)


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


LAB_KINDS: dict[str, LabKind] = {
    "linux": LabKind(
        "linux",
        "FRR in a Linux container",
        "frr",
        "quay.io/frrouting/frr:8.4.1",  # FRR 8.4, the release the configs are proven against (Debian 12's 8.4.4)
        r"swp\d+(s\d+)?",
        "swpN or swpNsL",
    ),
    "arista_ceos": LabKind(
        "arista_ceos", "Arista cEOS", "eos", "", r"Ethernet\d+(/\d+)*", "EthernetN or EthernetN/L (as ethN, ethN_L)"
    ),
    "nvidia_cumulusvx": LabKind(
        "nvidia_cumulusvx", "NVIDIA Cumulus VX", "nvue", "", r"swp\d+", "swpN only (one per virtual NIC, no breakout)"
    ),
    "sonic-vs": LabKind(
        "sonic-vs", "SONiC-VS", "sonic", "", r"Ethernet\d+", "EthernetN (each as ethN, in the PORT table's lane order)"
    ),
}
"""Every containerlab kind the lab export writes, by the name containerlab's topology files use; ``linux`` (FRR,
the routers ``designer verify`` runs) is the default."""


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

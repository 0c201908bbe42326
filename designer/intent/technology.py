"""The rules of the fabric's technology (``fabric.technology``): an Ethernet fabric is routed by its switches, an
InfiniBand fabric by its subnet manager, so each takes its own targets and switches, and an InfiniBand intent has no
use for the Ethernet-only sections (IP addressing, BGP, PFC and ECN, ECMP hashing). Its partitions are checked here
too: each key and name once, the default partition's key left to the default."""

from __future__ import annotations

from collections.abc import Callable
from string import Formatter

from designer.catalog import Catalog
from designer.errors import Problem
from designer.intent.schema import IntentDoc
from designer.intent.switch_spec import SWITCH_TIERS
from designer.intent.target_options_section import PartitionDoc
from designer.targets import TARGETS, defaults, of_technology, per_switch

ETHERNET_ONLY = {
    "addressing": "an InfiniBand fabric has no IP addressing: the subnet manager assigns every port a LID",
    "routing": "an InfiniBand fabric runs no BGP: the subnet manager computes every switch's forwarding table",
    "qos": "an InfiniBand fabric has no PFC or ECN: its links are lossless by credit-based flow control",
    "load_balancing": "an InfiniBand fabric has no ECMP hashing: the subnet manager's routing engine spreads the "
    "destinations over the uplinks",
}
"""The intent's sections that only an Ethernet fabric reads, each with the reason an InfiniBand fabric does not."""


def default_targets(doc: IntentDoc) -> list[str]:
    """The intent's targets, or the default targets of its fabric's technology when it names none."""
    return list(doc.targets) if doc.targets is not None else list(defaults(doc.fabric.technology))


def technology_problems(
    doc: IntentDoc, targets: list[str], hardware: Catalog, intact: Callable[..., bool]
) -> list[Problem]:
    """Every target, catalog switch and section that does not fit the fabric's technology, and the partitions'
    keys and names given twice."""
    technology = doc.fabric.technology
    label = _label(technology)
    problems = [
        Problem(
            ("targets", index),
            f"{target!r} configures an {_label(TARGETS[target].technology)} fabric and this fabric is {label} "
            f"(fabric.technology); use {', '.join(of_technology(technology))}",
        )
        for index, target in enumerate(targets)
        if TARGETS[target].technology != technology
    ]
    for tier in SWITCH_TIERS:
        switch = getattr(doc.fabric, tier)
        model = hardware.switches.get(switch.model) if switch is not None and switch.model else None
        if model is not None and model.technology != technology and intact(("fabric", tier, "model")):
            fitting = [name for name, known in hardware.switches.items() if known.technology == technology]
            examples = ", ".join(fitting) or "a site catalog entry"
            problems.append(
                Problem(
                    ("fabric", tier, "model"),
                    f"{model.name} is an {_label(model.technology)} switch and this fabric is {label} "
                    f"(fabric.technology); use an {label} switch such as {examples}",
                )
            )
    if technology == "infiniband":
        problems.extend(
            Problem((section,), f"{why}; remove the {section} section, or set fabric.technology: ethernet")
            for section, why in ETHERNET_ONLY.items()
            if section in doc.model_fields_set
        )
    problems.extend(
        Problem(
            ("target_options", name),
            f"configures {TARGETS[name].label}, which this {label} fabric does not run; remove it",
        )
        for name in doc.target_options.model_fields_set
        if TARGETS[name].technology != technology
    )
    if intact(("target_options", "opensm")):
        problems.extend(partition_problems(doc.target_options.opensm.partitions))
    return problems


def partition_problems(partitions: list[PartitionDoc]) -> list[Problem]:
    """A partition key or name given twice (OpenSM merges two definitions of one key under the first one's name), or
    the default partition's name taken."""
    problems = []
    for field in ("pkey", "name"):
        first: dict[object, str] = {"default": "the default partition's"} if field == "name" else {}
        for index, partition in enumerate(partitions):
            value = partition.pkey if field == "pkey" else partition.name.lower()
            if value in first:
                shown = f"0x{partition.pkey:04x}" if field == "pkey" else repr(partition.name)
                problems.append(
                    Problem(
                        ("target_options", "opensm", "partitions", index, field),
                        f"{shown} is {first[value]} {field} already; give each partition its own",
                    )
                )
            else:
                first[value] = f"partitions[{index}]'s"
    return problems


def link_speed_problems(tier: str, model: str, speeds: tuple[int, ...], hardware: Catalog) -> list[Problem]:
    """A link speed of ``tier`` (Gb/s, down and up) that its catalog switch ``model`` does not run."""
    known = hardware.switches.get(model)
    if known is None or not known.link_speeds:
        return []
    runs = ", ".join(f"{speed}G" for speed in known.link_speeds)
    return [
        Problem(
            ("fabric", tier),
            f"{model} runs its ports at {runs}, not {speed}G; use NICs or uplinks of one of those speeds",
        )
        for speed in sorted(set(speeds))
        if speed not in known.link_speeds
    ]


def chassis_naming_problems(
    doc: IntentDoc, targets: list[str], hardware: Catalog, intact: Callable[..., bool]
) -> list[Problem]:
    """A chassis (a catalog switch of line cards) in a tier that a network OS of ``targets`` names without the line
    card: its configuration would name the chassis's ports as a fixed switch's, which no such OS does."""
    problems = []
    for tier in SWITCH_TIERS:
        switch = getattr(doc.fabric, tier)
        model = hardware.switches.get(switch.model) if switch is not None and switch.model else None
        if model is None or not model.line_card_ports or not intact(("fabric", tier, "model")):
            continue
        for target in per_switch(targets):
            naming = hardware.port_naming(target, model.name)
            fields = {part[1] for pattern in (naming.whole, naming.broken_out) for part in Formatter().parse(pattern)}
            if "card" not in fields:
                problems.append(
                    Problem(
                        ("fabric", tier, "model"),
                        f"{model.name} is a chassis of {model.line_card_ports}-port line cards, and {target} names "
                        f"its ports without the line card ({naming.whole}); give switches.{model.name}.port_names."
                        f"{target} with {{card}} and {{card_port}} in a site catalog (as EOS names a 7800R3's: "
                        f"Ethernet{{card}}/{{card_port}}/1), or drop {target} from targets",
                    )
                )
    return problems


def _label(technology: str) -> str:
    return {"ethernet": "Ethernet", "infiniband": "InfiniBand"}[technology]

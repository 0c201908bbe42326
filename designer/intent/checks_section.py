"""The ``checks`` section as written: the thresholds the design must meet."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import (
    Field,
)

from designer.intent.fields import (
    Ratio,
    Section,
    record_of,
)


class ChecksDoc(Section):
    """Thresholds of the checks (``designer check``): what the design must meet to pass."""

    oversubscription: Ratio = Field(
        1.0,
        description=(
            "Downlink to uplink ratio tolerated on a switch of a tier with no declared taper "
            "(fabric.oversubscription), in the same notation: above 1:1 and up to it a warning, beyond it an error."
        ),
    )
    ecmp_max_width: int = Field(
        256, ge=1, le=65_536, description=("Next hops one ECMP group may hold in the switch hardware.")
    )
    failure_min_bisection: float = Field(
        0.5,
        ge=0,
        le=1,
        description=("Fraction of full bisection that must remain with any one spine, super-spine, leaf or link down."),
    )
    failure_max_gpus: int | None = Field(
        None, ge=0, description=("GPUs that may lose a rail through one failure (null: reported only).")
    )


@dataclass(frozen=True)
class CheckLimits:
    """What the design must meet to pass ``designer check``."""

    oversubscription: float
    ecmp_max_width: int
    failure_min_bisection: float
    failure_max_gpus: int | None


def check_limits(doc: ChecksDoc) -> CheckLimits:
    """The ``checks`` section as the stages read it."""
    return record_of(CheckLimits, doc)

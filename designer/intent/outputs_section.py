"""The ``outputs`` section as written: the optional parts a build writes."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import (
    Field,
)

from designer.intent.fields import (
    Section,
    record_of,
)


class OutputsDoc(Section):
    """What a build writes beside the review files (summary, design.json, tables, pictures) and the switch
    configurations of ``targets``: the parts a large design may leave out to keep its pull requests reviewable."""

    servers: bool = Field(
        True,
        description=(
            "Write servers/<server>/, every GPU server's backend NIC files (one folder per server: most of a large "
            "build's files). designer verify --traffic needs them."
        ),
    )
    lab: bool = Field(
        True,
        description="Write lab/, designer verify's FRR lab as a containerlab topology (when frr is a target).",
    )
    monitoring: bool = Field(
        False,
        description=(
            "Write monitoring/: Prometheus scrape jobs for every device, alert rules for every designed BGP "
            "session, cable and scrape and Grafana dashboards (when frr is a target), and gNMI subscriptions of "
            "the RoCE counters of every designed port (docs/monitoring.md)."
        ),
    )


@dataclass(frozen=True)
class OutputChoices:
    """Which optional parts a build writes: the server files, the lab, the monitoring files."""

    servers: bool
    lab: bool
    monitoring: bool


def output_choices(doc: OutputsDoc) -> OutputChoices:
    """The ``outputs`` section as the stages read it."""
    return record_of(OutputChoices, doc)

"""The ``addressing`` and ``routing`` sections as written: the IPv4 pools and the eBGP underlay."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import (
    Field,
)

from designer.intent.fields import (
    Asn,
    Pool,
    Section,
    record_of,
)


class AddressingDoc(Section):
    """IPv4 pools: switch-to-switch /31s, leaf-to-NIC /31s and switch loopback /32s."""

    fabric_p2p: Pool | None = Field(
        None,
        description=(
            "Pool of the switch-to-switch /31s (default: laid out for the growth envelope, 10.0.0.0/15 while it "
            "is large enough); unused, and refused, with routing.underlay: unnumbered."
        ),
    )
    server_p2p: Pool | None = Field(
        None,
        description=(
            "Pool of the leaf-to-NIC /31s: an aligned block per leaf, sized for a full scalable unit (default: laid "
            "out for the envelope, 10.2.0.0/15 while it is large enough)."
        ),
    )
    loopbacks: Pool | None = Field(
        None,
        description=(
            "Pool of the switch loopback /32s (default: laid out for the envelope, 10.255.0.0/20 while it is large "
            "enough)."
        ),
    )


class BfdDoc(Section):
    """BFD on every fabric BGP session (off unless enabled)."""

    enabled: bool = Field(False, description="Run BFD on every fabric BGP session.")
    interval_ms: int = Field(300, ge=10, le=60_000, description="Transmit and receive interval, in milliseconds.")
    multiplier: int = Field(3, ge=2, le=255, description="Missed packets before a session is declared down.")


class TimersDoc(Section):
    """BGP keepalive and hold times in seconds; the hold time must be at least three keepalives."""

    keepalive: int = Field(3, ge=1, le=21_845, description="Seconds between keepalives.")
    hold: int = Field(
        9, ge=3, le=65_535, description="Seconds without a keepalive before a session drops (>= 3 x keepalive)."
    )


class RoutingDoc(Section):
    """eBGP underlay numbering (RFC 7938)."""

    asn_scheme: Literal["rfc7938", "unique"] = Field(
        "rfc7938",
        description=(
            "rfc7938: every leaf its own ASN, a pod's spines one, a plane's super-spines one; unique: every switch "
            "its own."
        ),
    )
    leaf_asn_start: Asn = Field(4_200_000_000, description="First leaf ASN, in a private range.")
    spine_asn_start: Asn | None = Field(
        None, description=("First spine ASN (default: leaf_asn_start + 1,000,000, whatever the fabric's size).")
    )
    super_spine_asn_start: Asn | None = Field(
        None, description=("First super-spine ASN (default: leaf_asn_start + 2,000,000).")
    )
    underlay: Literal["numbered", "unnumbered"] = Field(
        "numbered",
        description=(
            "numbered: a /31 on every switch-to-switch link (RFC 3021); unnumbered: each session runs over the link's "
            "IPv6 link-local address and carries IPv4 routes with IPv6 next hops (RFC 8950), so switch-to-switch "
            "links take no addresses (loopbacks and server links keep theirs)."
        ),
    )
    server_subnets: Literal["aggregate", "each"] = Field(
        "aggregate",
        description=("How a leaf announces its server /31s: one prefix per leaf (summary only), or every /31."),
    )
    bfd: BfdDoc = Field(BfdDoc(), description="BFD on the fabric BGP sessions.")
    timers: TimersDoc = Field(TimersDoc(), description="BGP keepalive and hold times.")


@dataclass(frozen=True)
class AddressPools:
    """The backend's IPv4 pools as the intent gives them (None: laid out for the growth envelope)."""

    fabric_p2p: str | None
    server_p2p: str | None
    loopbacks: str | None


@dataclass(frozen=True)
class Bfd:
    """BFD on every fabric BGP session."""

    enabled: bool
    interval_ms: int
    multiplier: int


@dataclass(frozen=True)
class BgpTimers:
    """BGP keepalive and hold times, in seconds."""

    keepalive: int
    hold: int


@dataclass(frozen=True)
class RoutingSpec:
    """The eBGP underlay: ASN numbering (None: the default start above ``leaf_asn_start``), sessions and timers."""

    asn_scheme: str
    leaf_asn_start: int
    spine_asn_start: int | None
    super_spine_asn_start: int | None
    underlay: str
    server_subnets: str
    bfd: Bfd
    timers: BgpTimers


def address_pools(doc: AddressingDoc) -> AddressPools:
    """The ``addressing`` section as the stages read it."""
    return record_of(AddressPools, doc)


def routing_spec(doc: RoutingDoc) -> RoutingSpec:
    """The ``routing`` section as the stages read it."""
    return record_of(RoutingSpec, doc, bfd=record_of(Bfd, doc.bfd), timers=record_of(BgpTimers, doc.timers))

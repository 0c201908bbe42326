"""An audit as text for a person (one line per finding, by name) or JSON for scripts."""

from __future__ import annotations

import json
from typing import Any

from designer.audit.compare import Audit, End, Link
from designer.errors import printable

SHOWN_OUTSIDE = 5
"""Ports outside the backend named in the text; the rest are counted."""


def _end(audit: Audit, end: End) -> str:
    """``device port``, with the name the device reported when it differs: ``p0-su0-r0-leaf swp1 (Ethernet1)``;
    whatever the devices reported is escaped (:func:`~designer.errors.printable`)."""
    reported = audit.reported_as.get(end)
    return printable(f"{end[0]} {end[1]}" + (f" ({reported})" if reported else ""))


def _cable(audit: Audit, cable: Link) -> str:
    return f"{_end(audit, cable[0])} -- {_end(audit, cable[1])}"


def text(name: str, audit: Audit) -> str:
    """The audit as lines: the counts, then every miswired, missing and extra cable and every swap."""
    wrong = len(audit.missing) + len(audit.extra) + len(audit.miswired)
    lines = [
        f"audit of {printable(name)}: {len(audit.devices)} device{'s' if len(audit.devices) != 1 else ''} reported, "
        f"{audit.in_scope} designed cable{'s' if audit.in_scope != 1 else ''} in scope: {audit.matched} match, "
        f"{len(audit.missing)} missing, {len(audit.extra)} extra, {len(audit.miswired)} miswired"
    ]
    for swap in audit.swaps:
        lines.append(
            f"swap: the plugs in {_end(audit, swap.ends[0])} and {_end(audit, swap.ends[1])} "
            f"(or, at the other end, in {_end(audit, swap.other_end[0])} and {_end(audit, swap.other_end[1])}) "
            f"fixes {_cable(audit, swap.fixes[0])} and {_cable(audit, swap.fixes[1])}"
        )
    for miswire in audit.miswired:
        designed = "; ".join(_cable(audit, cable) for cable in miswire.designed)
        lines.append(f"miswired: {_cable(audit, miswire.found)} (designed: {designed})")
    lines += [f"missing: {_cable(audit, cable)}" for cable in audit.missing]
    lines += [f"extra: {_cable(audit, cable)} (the design cables neither end)" for cable in audit.extra]
    if audit.outside:
        shown = ", ".join(printable(f"{device} {port}") for device, port in audit.outside[:SHOWN_OUTSIDE])
        more = f" and {len(audit.outside) - SHOWN_OUTSIDE} more" if len(audit.outside) > SHOWN_OUTSIDE else ""
        lines.append(f"not audited: neighbours on ports outside the backend design: {shown}{more}")
    lines.append("the cabling matches the design" if not wrong else f"{wrong} cable{'s' if wrong != 1 else ''} to fix")
    return "\n".join(lines) + "\n"


def _json_end(audit: Audit, end: End) -> dict[str, str]:
    reported = audit.reported_as.get(end)
    return {"device": end[0], "port": end[1], **({"reported_as": reported} if reported else {})}


def _json_cable(audit: Audit, cable: Link) -> dict[str, Any]:
    return {"a": _json_end(audit, cable[0]), "z": _json_end(audit, cable[1])}


def json_report(name: str, audit: Audit) -> str:
    """The audit as one JSON document (``--format json``)."""
    document = {
        "design": name,
        "devices": list(audit.devices),
        "cables": {
            "in_scope": audit.in_scope,
            "matched": audit.matched,
            "missing": len(audit.missing),
            "extra": len(audit.extra),
            "miswired": len(audit.miswired),
        },
        "missing": [_json_cable(audit, cable) for cable in audit.missing],
        "extra": [_json_cable(audit, cable) for cable in audit.extra],
        "miswired": [
            {
                "found": _json_cable(audit, item.found),
                "designed": [_json_cable(audit, cable) for cable in item.designed],
            }
            for item in audit.miswired
        ],
        "swaps": [
            {
                "ends": [_json_end(audit, end) for end in swap.ends],
                "other_end": [_json_end(audit, end) for end in swap.other_end],
                "fixes": [_json_cable(audit, cable) for cable in swap.fixes],
            }
            for swap in audit.swaps
        ],
        "outside": [{"device": device, "port": port} for device, port in audit.outside],
    }
    return json.dumps(document, indent=2) + "\n"


FORMATS = {"text": text, "json": json_report}

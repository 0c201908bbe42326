"""Nautobot as a consumer of the design's objects (:mod:`designer.sync.inventory`), through its REST API.

Safe on a production Nautobot: every object the sync creates carries the tag :data:`TAG`; an object it needs that
already exists (a manufacturer, a device type, a role, a platform, an ASN) is reused by its natural key and never
changed, and one that does not fit (a device type with other interfaces, a role not for devices) stops the sync
before it writes anything. Only tagged objects of this design's location and namespace are updated, and deleted
only with ``prune``. Objects are read and written in bulk (one list per request), so a second sync of the same
design only reads. Nautobot's objects: locations (of the location type :data:`LOCATION_TYPE`), racks, device
types with interface templates (a device gets its interfaces from them), devices, cables, a namespace with a
prefix per pool, IP addresses assigned to interfaces; ASNs and routing instances through the BGP Models app
(``nautobot-bgp-models``)."""

from __future__ import annotations

import ipaddress
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, cast

from designer.errors import PrerequisiteError, printable
from designer.files import SOURCE_OF_TRUTH, MiB
from designer.sync.inventory import KINDS, SHARED, Inventory, Item, Ref, is_design_namespace

TAG = "designer"
RECORD_KIND = "design_record"
"""The kind of the note recording that a design was synced: written last."""
LOCATION_TYPE = "Site"
RECORD = re.compile(r"design\.json sha256 ([0-9a-f]{64})")
"""What names a design in the note recording that it was synced (:mod:`designer.sync.inventory`'s record)."""
BATCH = 250
"""Objects per bulk request."""
PARALLEL = 2
"""Bulk requests of one kind in flight at once: a Nautobot served by several processes (as in production) works on
them together; one with a single process answers them in turn."""
TIMEOUT_S = 900
"""Longest wait for one whole answer: a bulk write of a few hundred objects takes Nautobot minutes on a busy
server."""
PAGES = 100
"""The most pages of one list, before :func:`sync` raises it for the design's size."""
CHUNK = 1 << 16
"""Bytes read of an answer at a time (its deadline and size are checked between them)."""
EXCERPT = 300
"""Characters of the server's own words (or a link) a message shows."""
INTERFACE_TYPES = {
    1: "1000base-t",
    10: "10gbase-x-sfpp",
    25: "25gbase-x-sfp28",
    50: "50gbase-x-sfp56",
    100: "100gbase-x-qsfp28",
    200: "200gbase-x-qsfp56",
    400: "400gbase-x-osfp",
    800: "800gbase-x-osfp",
}
"""Nautobot's interface type (nautobot/dcim/choices.py, InterfaceTypeChoices) of a port of each speed in Gb/s: a 1G
port is a management port or a BMC's, copper (1000BASE-T)."""
CABLE_TYPES = {"dac": "dac-passive", "aec": "dac-active", "multimode": "mmf", "singlemode": "smf", "cat6": "cat6"}
"""Nautobot's cable type (CableTypeChoices) of each of the design's media; an AEC is an active copper cable, a
management port's cable Category 6 twisted pair."""
STATUS = {"cable": "Connected"}
"""The status each kind's objects get; every other kind's is ``Active``."""
WRITE_ONLY = {"ip_address": ("tags", "namespace")}
"""Fields the sync writes but does not compare: tags (checked apart), an address's namespace (served as its parent)."""
PATHS = {
    "site": "dcim/locations",
    "design_record": "extras/notes",
    "rack": "dcim/racks",
    "manufacturer": "dcim/manufacturers",
    "platform": "dcim/platforms",
    "role": "extras/roles",
    "device_type": "dcim/device-types",
    "device": "dcim/devices",
    "cable": "dcim/cables",
    "namespace": "ipam/namespaces",
    "prefix": "ipam/prefixes",
    "ip_address": "ipam/ip-addresses",
    "autonomous_system": "plugins/bgp/autonomous-systems",
    "routing_instance": "plugins/bgp/routing-instances",
}
TAGGED_TYPES = [
    "dcim.location",
    "dcim.rack",
    "dcim.devicetype",
    "dcim.device",
    "dcim.cable",
    "ipam.namespace",
    "ipam.prefix",
    "ipam.ipaddress",
    "nautobot_bgp_models.autonomoussystem",
    "nautobot_bgp_models.bgproutinginstance",
]
"""The content types of every object the sync tags (manufacturers, platforms and roles take no tags in Nautobot:
the sync only ever creates them)."""
GRAPHQL = "graphql/"
"""Nautobot's GraphQL API: read-only, and a list read there serializes only the fields asked for (a REST list of
interfaces works out each row's cable peer, connected endpoint and address count: about 30 times the time)."""
INTERFACES = "query ($location: [String]) { devices(location: $location) { name interfaces { id name } } }"
"""The interfaces of a location's devices, by device name."""


class Api:
    """Nautobot's REST API at ``url`` with ``token``: JSON in and out. The token goes to ``url``'s origin only (a
    redirect or a ``next`` link elsewhere is refused), each request is bounded in time (``timeout_s`` for the
    whole answer, however slowly it comes) and size (:data:`~designer.files.SOURCE_OF_TRUTH`), a list in pages
    (``pages`` at most, no page twice); an unreachable server, a refused token or request, and an answer that is
    not what the API gives are a :class:`PrerequisiteError` naming what went wrong, with the server's own words
    shortened, escaped and the token masked."""

    def __init__(self, url: str, token: str, timeout_s: float = TIMEOUT_S, pages: int = PAGES):
        self.origin = _origin(url)
        self.base = url.rstrip("/") + "/api/"
        self.token = token
        self.timeout_s = timeout_s
        self.pages = pages
        """The most pages one list may take (:func:`sync` raises it for a large design)."""
        self.writes = 0
        self.opener = urllib.request.build_opener(_SameOrigin(self.origin))

    def plain_text_warning(self) -> str | None:
        """Why sending the token over ``url`` is unsafe, or None: plain ``http://`` to a host that is not this
        machine's loopback."""
        scheme, host, _ = self.origin
        if scheme == "http" and not _loopback(host):
            return (
                f"designer sync: {self.base} is plain http to {host}: the token crosses the network in clear text; "
                "use https"
            )
        return None

    def call(self, method: str, path: str, body: Any = None) -> Any:
        """One request; the decoded answer (None when empty)."""
        url = path if "://" in path else self.base + path
        if _origin(url, "a link Nautobot answered") != self.origin:
            raise PrerequisiteError(
                f"Nautobot answered a link to another host ({self._shown(url)}); designer sends the token only to "
                f"{self.base}: check --url"
            )
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            url,
            data=data,
            method=method,
            headers={
                "Authorization": f"Token {self.token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
        )
        if method != "GET" and path != GRAPHQL:
            self.writes += 1
        text = self._answer(request, method, path)
        if not text:
            return None
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise PrerequisiteError(
                f"Nautobot answered {self._shown(text[:EXCERPT].decode(errors='replace'))} to {method} "
                f"{self._shown(path)}: not JSON, as its API answers; check --url"
            ) from None

    def _answer(self, request: urllib.request.Request, method: str, path: str) -> bytes:
        """What Nautobot answered ``request`` (``method path``), at most what the source of truth may hold in time;
        :class:`PrerequisiteError` saying why there is no answer."""
        deadline = time.monotonic() + self.timeout_s
        try:
            with self.opener.open(request, timeout=self.timeout_s) as answer:
                text = _bounded(answer, deadline)
        except urllib.error.HTTPError as error:
            if error.code in (401, 403):
                raise PrerequisiteError(
                    f"Nautobot at {self.base} refused the token ({error.code}): give a valid API token with --token "
                    "(a user who may add, change and delete these objects)"
                ) from None
            try:
                detail = _bounded(error, deadline)[:EXCERPT].decode(errors="replace")
            except (PrerequisiteError, OSError):
                detail = ""
            raise PrerequisiteError(
                f"Nautobot refused {method} {self._shown(path)} ({error.code}): {self._shown(detail)}"
            ) from None
        except (TimeoutError, _Late):
            raise PrerequisiteError(
                f"Nautobot at {self.base} did not answer {method} {self._shown(path)} within {self.timeout_s:g} s; "
                "what it wrote meanwhile stays, and the next sync completes it"
            ) from None
        except _TooLarge:
            raise PrerequisiteError(
                f"Nautobot answered {method} {self._shown(path)} with more than the "
                f"{SOURCE_OF_TRUTH.limit // MiB:,} MiB {SOURCE_OF_TRUTH.kind} may hold; it was not read"
            ) from None
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise PrerequisiteError(
                f"cannot reach Nautobot at {self.base}: {self._shown(str(reason))}; check --url (http[s]://HOST[:PORT])"
            ) from None
        return text

    def _shown(self, text: str) -> str:
        """``text`` for a message: the token masked, control characters escaped, at most :data:`EXCERPT`."""
        return _excerpt(text.replace(self.token, "<token>") if self.token else text)

    def _expect(self, answer: Any, kind: type | tuple[type, ...], method: str, path: str, what: str) -> Any:
        """``answer`` when it is a ``kind``; else a :class:`PrerequisiteError` saying what was expected."""
        if not isinstance(answer, kind):
            raise self._unexpected(answer, method, path, what)
        return answer

    def _unexpected(self, answer: Any, method: str, path: str, what: str) -> PrerequisiteError:
        """The error for an ``answer`` to ``method path`` that is not ``what`` the API gives."""
        return PrerequisiteError(
            f"Nautobot answered {self._shown(json.dumps(answer)[:EXCERPT])} to {method} {self._shown(path)}: "
            f"expected {what}"
        )

    def every(self, path: str, *, relations: bool = False, **query: str | list[str]) -> list[dict[str, Any]]:
        """Every object at ``path`` matching ``query``, page by page, without nested objects: ids for pointers,
        and of the many-to-many fields only tags and content types (``relations``: every many-to-many field, each
        a list of ids, e.g. an address's interfaces)."""
        query = {**query, "limit": "1000", "depth": "0", **({"exclude_m2m": "false"} if relations else {})}
        page: str | None = f"{path}/?{urllib.parse.urlencode(query, doseq=True)}"
        found: list[dict[str, Any]] = []
        seen: set[str] = set()
        while page:
            if page in seen or len(seen) == self.pages:
                raise PrerequisiteError(
                    f"Nautobot's list {self._shown(path)} goes on past {len(seen):,} pages"
                    + (" and links back to one of them" if page in seen else "")
                    + f" ({self._shown(page)}): expected the list of one design's objects"
                )
            seen.add(page)
            answer = self._expect(self.call("GET", page), dict, "GET", page, "a page: an object with its results")
            results = self._expect(answer.get("results"), list, "GET", page, "a page whose results are a list")
            for row in results:
                self._expect(row, dict, "GET", page, "a list of objects, each with its id")
                self._expect(row.get("id"), str, "GET", page, "a list of objects, each with its id")
            found += results
            page = self._expect(answer.get("next"), (str, type(None)), "GET", page, "a next link or null")
        return found

    def query(self, text: str, **variables: Any) -> dict[str, Any]:
        """The data of one GraphQL read (:data:`GRAPHQL`); :class:`PrerequisiteError` for a read Nautobot refuses."""
        answer = self._expect(
            self.call("POST", GRAPHQL, {"query": text, "variables": variables}),
            dict,
            "POST",
            GRAPHQL,
            "an object with data or errors",
        )
        if answer.get("errors"):
            errors = answer["errors"]
            first = (
                errors[0].get("message", errors)
                if isinstance(errors, list) and errors and isinstance(errors[0], dict)
                else errors
            )
            raise PrerequisiteError(f"Nautobot refused a GraphQL read: {self._shown(str(first))}")
        data: dict[str, Any] = self._expect(answer.get("data"), dict, "POST", GRAPHQL, "an object with data")
        return data

    def create(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """One object made at ``path``: Nautobot's answer, the new object with its id."""
        made = self._expect(self.call("POST", path, body), dict, "POST", path, "the object made, with its id")
        self._expect(made.get("id"), str, "POST", path, "the object made, with its id")
        return cast(dict[str, Any], made)

    def bulk(self, method: str, path: str, bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``bodies`` in requests of :data:`BATCH`, :data:`PARALLEL` at a time; what Nautobot answers for them, in
        their order (each object without its many-to-many fields: the sync needs only the ids back)."""
        batches = [bodies[start : start + BATCH] for start in range(0, len(bodies), BATCH)]

        def one(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
            answer = self.call(method, f"{path}/?exclude_m2m=true", batch)
            if method == "DELETE" and answer is None:
                return []
            what = f"a list of {len(batch)} objects, each with its id"
            rows = self._expect(answer, list, method, path, what)
            if len(rows) != len(batch) or not all(
                isinstance(row, dict) and isinstance(row.get("id"), str) for row in rows
            ):
                raise self._unexpected(answer, method, path, what)
            return cast(list[dict[str, Any]], rows)

        with ThreadPoolExecutor(PARALLEL) as requests:
            return [row for rows in requests.map(one, batches) for row in rows]


def _excerpt(text: str) -> str:
    """``text`` for a message: control characters escaped (:func:`~designer.errors.printable`), at most
    :data:`EXCERPT` characters."""
    escaped = printable(text)
    return escaped if len(escaped) <= EXCERPT else escaped[:EXCERPT] + "..."


class _Late(Exception):
    """An answer still coming in at its deadline."""


class _TooLarge(Exception):
    """An answer larger than :data:`~designer.files.SOURCE_OF_TRUTH`."""


def _bounded(answer: Any, deadline: float) -> bytes:
    """The body of ``answer`` (an HTTP response), read in chunks until its end, refused past ``deadline`` (a slow
    trickle too) or past :data:`~designer.files.SOURCE_OF_TRUTH`."""
    chunks, size = [], 0
    read = getattr(answer, "read1", answer.read)  # what has come, without waiting for a whole chunk
    while chunk := read(CHUNK):
        size += len(chunk)
        if size > SOURCE_OF_TRUTH.limit:
            raise _TooLarge
        if time.monotonic() > deadline:
            raise _Late
        chunks.append(chunk)
    return b"".join(chunks)


def _origin(url: str, what: str = "--url") -> tuple[str, str, int]:
    """The scheme, host and port of ``url``; :class:`PrerequisiteError` for one that is not an http(s) URL of a host
    (with user and password in it too: the token is the only secret sync sends)."""
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError:
        parts, port = None, None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or parts.username is not None:
        raise PrerequisiteError(
            f"{what} '{_excerpt(url)}' is not an http(s) URL of a Nautobot without user or password in it: give "
            "http[s]://HOST[:PORT] (the token goes with --token or $NAUTOBOT_TOKEN)"
        )
    return parts.scheme, parts.hostname.lower(), port or (443 if parts.scheme == "https" else 80)


def _loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback (localhost, 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Follows a redirect within ``origin`` only: one to another host, port or scheme would carry the token there."""

    def __init__(self, origin: tuple[str, str, int]):
        self.origin = origin

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        try:
            target = _origin(newurl, "the redirect")
        except PrerequisiteError:
            target = ("", "", 0)
        if target != self.origin:
            raise PrerequisiteError(
                f"Nautobot redirected {req.get_method()} to another host ({_excerpt(newurl)}); designer sends the "
                f"token only to {self.origin[0]}://{self.origin[1]}:{self.origin[2]}: give the URL it redirects to "
                "with --url"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


@dataclass
class Plan:
    """What a sync creates, updates and deletes, per kind (natural keys), and what stops it."""

    creates: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    updates: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    deletes: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)

    def report(self, dry_run: bool, prune: bool) -> str:
        """Counts and a few examples of each change, kind by kind (``dry_run``: what would change)."""
        lines = []
        for verb, changes in (("create", self.creates), ("update", self.updates), ("delete", self.deletes)):
            for kind in KINDS:
                keys = changes.get(kind, [])
                if keys:
                    examples = ", ".join("/".join(map(str, key)) for key in keys[:3])
                    more = f" and {len(keys) - 3:,} more" if len(keys) > 3 else ""
                    label = f"would {verb}" if dry_run else f"{verb}d"
                    if verb == "delete" and not prune:
                        label = "kept (gone from the design; --prune deletes them)"
                    lines.append(f"{label} {len(keys):,} {kind}: {examples}{more}")
        return "\n".join(lines) or "no change"


def sync(inventory: Inventory, api: Api, *, dry_run: bool, prune: bool) -> Plan:
    """Bring Nautobot to ``inventory``: plan every change first (read only), stop on a conflict, then write in
    kind order (``dry_run``: only plan). Returns the plan."""
    api.pages = max(api.pages, 2 * len(inventory.items) // 1000 + PAGES)  # a page holds 1,000 objects
    state = _State(api, inventory)
    plan = state.plan()
    if plan.conflicts or dry_run:
        return plan
    state.write(plan, prune)
    return plan


class _State:
    """What Nautobot holds for one design, read once, and the ids of the design's objects there."""

    def __init__(self, api: Api, inventory: Inventory):
        self.api = api
        self.inventory = inventory
        self.ids: dict[Ref, str] = {}
        self.existing: dict[str, dict[tuple[Any, ...], dict[str, Any]]] = {}
        self.statuses: dict[str, str] = {}
        self.tag_id = ""
        self.tag_types: set[str] = set()
        self.location_type = ""
        self.template_names: dict[str, set[str]] = {}
        """The interface templates of the design's device types that Nautobot has, by device type id."""
        self.templates_made: dict[tuple[Any, ...], set[str]] = {}
        """Device types of the sync's own that a stopped sync left without all their interface templates."""
        self.interface_ids: dict[tuple[str, str], str] = {}
        """Every interface of the design's location, by device and interface name."""
        self.assigned: set[tuple[str, str]] = set()
        """Which address is on which interface already (address id, interface id)."""

    def plan(self) -> Plan:
        plan = Plan()
        statuses = {status["name"]: status for status in self.api.every("extras/statuses")}
        for name in sorted({"Active", *STATUS.values()}):
            if name not in statuses:
                plan.conflicts.append(f"Nautobot has no status {name!r}: add it (for every kind of object)")
            else:
                self.statuses[name] = statuses[name]["id"]
        tags = self.api.every("extras/tags", name=TAG)
        if tags:
            self.tag_id, self.tag_types = tags[0]["id"], set(tags[0]["content_types"])
        types = self.api.every("dcim/location-types", name=LOCATION_TYPE)
        if types:
            self.location_type = types[0]["id"]
            missing = {"dcim.rack", "dcim.device"} - set(types[0]["content_types"])
            if missing:
                plan.conflicts.append(
                    f"location type {LOCATION_TYPE!r} does not allow {', '.join(sorted(missing))}: allow them or "
                    "rename that location type"
                )
        plan.conflicts += self._overlaps()
        for kind in KINDS:
            self._plan_kind(kind, plan)
        return plan

    def _overlaps(self) -> list[str]:
        """The design's devices whose lowest units are one unit of a rack (Nautobot holds one device a rack, unit and
        face, and would refuse the second halfway through the writes)."""
        holders: dict[tuple[Any, ...], str] = {}
        problems = []
        for device in self.inventory.of("device"):
            if not device.fields["position"]:
                continue  # in its rack at no unit
            unit = (*device.fields["rack"].key, device.fields["position"])
            other = holders.setdefault(unit, device.key[1])
            if other != device.key[1]:
                problems.append(
                    f"devices {other} and {device.key[1]} both stand at unit {unit[2]} of rack {unit[1]}, which "
                    "Nautobot refuses; place them apart in the design (racks.csv) and rebuild"
                )
        return problems

    def _plan_kind(self, kind: str, plan: Plan) -> None:
        found = self._read(kind)
        self.existing[kind] = found
        wanted = {item.key: item for item in self.inventory.of(kind)}
        for key, item in wanted.items():
            there = found.get(key)
            if there is None:
                plan.creates.setdefault(kind, []).append(key)
                continue
            self.ids[item.ref] = there["id"]
            if kind in SHARED:
                problem = self._incompatible(item, there)
                if problem:
                    plan.conflicts.append(f"{kind} {'/'.join(map(str, key))} exists in Nautobot but {problem}")
            elif kind == "cable" and not self._ours(there) and self._between_own_devices(key):
                plan.updates.setdefault(kind, []).append(key)  # a sync stopped between making it and tagging it
            elif not self._ours(there):
                plan.conflicts.append(
                    f"{kind} {'/'.join(map(str, key))} exists in Nautobot without the tag {TAG!r}: the sync never "
                    "changes what it did not create; rename or remove it"
                )
            elif self._differs(item, there):
                plan.updates.setdefault(kind, []).append(key)
        if kind not in SHARED:
            plan.deletes[kind] = sorted(key for key, there in found.items() if key not in wanted and self._ours(there))

    def _between_own_devices(self, cable: tuple[Any, ...]) -> bool:
        """Whether both ends of the design's ``cable`` are on devices the sync made (tagged)."""
        name, a_device, _, z_device, _ = cable
        return all(self._ours(self.existing["device"].get((name, device), {})) for device in (a_device, z_device))

    def _ours(self, there: dict[str, Any]) -> bool:
        return any(_id(tag) == self.tag_id for tag in there.get("tags", ()))

    def _read(self, kind: str) -> dict[tuple[Any, ...], dict[str, Any]]:
        """What Nautobot holds of ``kind`` for this design, by natural key (empty before its location exists)."""
        name = self.inventory.name
        site = self.ids.get(Ref("site", (name,)))
        if kind == "site":
            return {(row["name"],): row for row in self.api.every(PATHS[kind], name=name)}
        if kind == "design_record":
            return self._read_records(site)
        if kind in ("manufacturer", "platform", "role", "autonomous_system"):
            return self._read_shared(kind)
        if kind == "device_type":
            return self._read_device_types()
        if kind == "namespace":
            return self._read_namespaces()
        if kind in ("rack", "device"):
            rows = self.api.every(PATHS[kind], location=site) if site is not None else []
            return {(name, row["name"]): row for row in rows}
        if kind == "cable":
            return self._read_cables(site)
        if kind in ("prefix", "ip_address"):
            return self._read_addressing(kind)
        if kind == "routing_instance":
            return self._read_routing_instances()
        raise ValueError(kind)

    def _read_shared(self, kind: str) -> dict[tuple[Any, ...], dict[str, Any]]:
        """Every manufacturer, platform, role or autonomous system (``kind``) Nautobot holds, whichever design uses
        it, by name (an autonomous system by its number)."""
        key = "asn" if kind == "autonomous_system" else "name"
        return {(row[key],): row for row in self.api.every(PATHS[kind])}

    def _read_device_types(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        """The device types of the design's manufacturers, by (maker, model); the interface templates of those the
        design has are kept in ``template_names``."""
        makers = {
            self.ids[Ref("manufacturer", key)]: key[0]
            for key in self._keys("manufacturer")
            if Ref("manufacturer", key) in self.ids
        }
        rows = self.api.every(PATHS["device_type"], manufacturer=list(makers)) if makers else []
        found = {(makers[_id(row["manufacturer"])], row["model"]): row for row in rows}
        wanted = sorted(found[key]["id"] for key in self._keys("device_type") if key in found)
        for row in self.api.every("dcim/interface-templates", device_type=wanted) if wanted else []:
            self.template_names.setdefault(_id(row["device_type"]), set()).add(row["name"])
        return found

    def _read_addressing(self, kind: str) -> dict[tuple[Any, ...], dict[str, Any]]:
        """The prefixes or IP addresses (``kind``) in the design's namespaces, by namespace name; the interfaces
        each address is on are kept in ``assigned``."""
        namespaces = {there["id"]: key[0] for key, there in self.existing["namespace"].items()}
        if not namespaces:
            return {}
        if kind == "prefix":
            rows = self.api.every(PATHS[kind], namespace=sorted(namespaces))
            return {(namespaces[_id(row["namespace"])], row["prefix"]): row for row in rows}
        rows = self.api.every(PATHS[kind], relations=True, namespace=sorted(namespaces))  # with their interfaces
        self.assigned = {(row["id"], _id(interface)) for row in rows for interface in row["interfaces"]}
        parents = {there["id"]: key[0] for key, there in self.existing["prefix"].items()}  # an address's namespace
        return {(parents[_id(row["parent"])], row["address"]): row for row in rows}

    def _read_namespaces(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        """The design's namespaces, and with hwplb one per plane (:mod:`designer.sync.inventory`), by name."""
        name = self.inventory.name
        rows = self.api.every(PATHS["namespace"], name__isw=name)
        return {(row["name"],): row for row in rows if is_design_namespace(name, row["name"])}

    def _read_records(self, site: str | None) -> dict[tuple[Any, ...], dict[str, Any]]:
        """The records of the designs synced: the location's notes, by the design.json hash each records."""
        rows = self.api.every(f"dcim/locations/{site}/notes") if site else []
        return {(self.inventory.name, match[1]): row for row in rows if (match := RECORD.search(row["note"]))}

    def _read_routing_instances(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        """The BGP routing instances of the design's devices, by the device's natural key."""
        devices = {there["id"]: key for key, there in self.existing["device"].items()}
        rows = self.api.every(PATHS["routing_instance"]) if devices else []
        return {devices[_id(row["device"])]: row for row in rows if _id(row["device"]) in devices}

    def _read_cables(self, site: str | None) -> dict[tuple[Any, ...], dict[str, Any]]:
        """The location's cables between two of its interfaces, by the ends' device and interface names."""
        if site is None:
            return {}
        self._read_interfaces(site)
        ends = {interface: end for end, interface in self.interface_ids.items()}
        return {
            (self.inventory.name, *ends[row["termination_a_id"]], *ends[row["termination_b_id"]]): row
            for row in self.api.every(PATHS["cable"], location_id=site)
            if row["termination_a_id"] in ends and row["termination_b_id"] in ends
        }

    def _keys(self, kind: str) -> list[tuple[Any, ...]]:
        return [item.key for item in self.inventory.of(kind)]

    def _incompatible(self, item: Item, there: dict[str, Any]) -> str:
        """Why an existing shared object cannot serve as ``item`` ("" when it can)."""
        if item.kind == "role" and "dcim.device" not in there.get("content_types", ()):
            return "is not a role for devices; add dcim.device to its content types"
        if item.kind == "device_type":
            have = sorted(self.template_names.get(there["id"], ()))
            want = sorted(port.name for port in item.fields["ports"])
            if self._ours(there) and set(have) < set(want):  # a sync stopped between the type and its interfaces
                self.templates_made[item.key] = set(have)
                return ""
            if have != want:
                only_there = sorted(set(have) - set(want))[:5]
                only_here = sorted(set(want) - set(have))[:5]
                return (
                    f"its interfaces differ from the design's: Nautobot has {', '.join(only_there) or 'none else'}, "
                    f"the design has {', '.join(only_here) or 'none else'} "
                    f"({len(have)} interfaces there, {len(want)} in the design)"
                )
        return ""

    def _differs(self, item: Item, there: dict[str, Any]) -> bool:
        """Whether a tagged object differs from what the design says (in the fields Nautobot serves back)."""
        body = self._body(item, dry=True)
        return any(
            not _same(there.get(name), value)
            for name, value in body.items()
            if name not in WRITE_ONLY.get(item.kind, ("tags",))
        )

    def _body(self, item: Item, dry: bool = False) -> dict[str, Any]:
        """The object's fields as Nautobot's API takes them (ids for pointers)."""
        ref, tags, active = self._resolver(dry), [{"id": self.tag_id}], self.statuses.get("Active", "")
        if item.kind in ("site", "design_record", "rack"):
            return self._location_body(item, ref, tags, active)
        if item.kind in ("manufacturer", "platform", "role", "device_type", "device", "cable"):
            return self._device_body(item, ref, tags, active)
        return self._address_body(item, ref, tags, active)

    def _location_body(
        self, item: Item, ref: Callable[[Ref], str | None], tags: list[dict[str, str]], active: str
    ) -> dict[str, Any]:
        """The body of the design's location, its record (a note on it) or a rack."""
        fields, kind = item.fields, item.kind
        if kind == "site":
            return {
                "name": self.inventory.name,
                "location_type": self.location_type,
                "status": active,
                "description": fields["description"],
                "tags": tags,
            }
        if kind == "design_record":
            return {
                "assigned_object_type": "dcim.location",
                "assigned_object_id": ref(fields["site"]),
                "note": fields["text"],
            }
        if kind == "rack":
            return {
                "name": item.key[1],
                "location": ref(fields["site"]),
                "status": active,
                "u_height": fields["units"],
                "comments": fields["comments"],
                "tags": tags,
            }
        raise ValueError(kind)

    def _device_body(
        self, item: Item, ref: Callable[[Ref], str | None], tags: list[dict[str, str]], active: str
    ) -> dict[str, Any]:
        """The body of a manufacturer, platform, role, device type, device or cable."""
        fields, kind = item.fields, item.kind
        if kind in ("manufacturer", "platform"):
            return {"name": item.key[0]}
        if kind == "role":
            return {"name": item.key[0], "content_types": ["dcim.device"]}
        if kind == "device_type":
            return {
                "manufacturer": ref(fields["manufacturer"]),
                "model": item.key[1],
                "u_height": fields["units"],
                "tags": tags,
            }
        if kind == "device":
            return {
                "name": item.key[1],
                "device_type": ref(fields["device_type"]),
                "role": ref(fields["role"]),
                "location": ref(fields["site"]),
                "rack": ref(fields["rack"]),
                "position": fields["position"],
                "face": "front" if fields["position"] else None,
                "status": active,
                "platform": ref(fields["platform"]) if fields["platform"] else None,
                "tags": tags,
            }
        if kind == "cable":
            return {
                "status": self.statuses.get(STATUS["cable"], ""),
                "length": round(fields["length_m"] * 100),  # Nautobot keeps whole numbers: centimetres
                "length_unit": "cm",
                "type": CABLE_TYPES[fields["medium"]],
                "tags": tags,
            }
        raise ValueError(kind)

    def _address_body(
        self, item: Item, ref: Callable[[Ref], str | None], tags: list[dict[str, str]], active: str
    ) -> dict[str, Any]:
        """The body of a namespace, prefix, IP address, autonomous system or BGP routing instance."""
        fields, kind = item.fields, item.kind
        if kind == "namespace":
            return {"name": item.key[0], "tags": tags}
        if kind == "prefix":
            return {
                "prefix": item.key[1],
                "namespace": ref(fields["namespace"]),
                "type": "network",
                "status": active,
                "description": fields["description"],
                "tags": tags,
            }
        if kind == "ip_address":
            return {
                "address": item.key[1],
                "namespace": ref(fields["namespace"]),
                "type": "host",
                "status": active,
                "tags": tags,
            }
        if kind == "autonomous_system":
            return {"asn": item.key[0], "status": active, "tags": tags}
        if kind == "routing_instance":
            return {
                "device": ref(fields["device"]),
                "autonomous_system": ref(fields["asn"]),
                "router_id": ref(fields["router_id"]),
                "status": active,
                "tags": tags,
            }
        raise ValueError(kind)

    def _resolver(self, dry: bool) -> Callable[[Ref], str | None]:
        def resolve(ref: Ref) -> str | None:
            if ref in self.ids or not dry:
                return self.ids[ref]
            return None

        return resolve

    def write(self, plan: Plan, prune: bool) -> None:
        """Create the tag when missing, then every kind's creates and updates in order, then (``prune``) the
        deletes in reverse order, and last the record that the design was synced: a sync stopped on the way leaves
        no record claiming it, and the next one completes it."""
        self._ensure_tag()
        for kind in KINDS:
            if kind != RECORD_KIND:
                self._write_kind(kind, plan)
        if prune:
            for kind in reversed(KINDS):
                stale = plan.deletes.get(kind, [])
                if stale:
                    self.api.bulk("DELETE", PATHS[kind], [{"id": self.existing[kind][key]["id"]} for key in stale])
        self._write_kind(RECORD_KIND, plan)

    def _write_kind(self, kind: str, plan: Plan) -> None:
        """The creates and updates of one kind (cables: their interfaces read first; device types: their interface
        templates; addresses: put on their interfaces)."""
        items = {item.key: item for item in self.inventory.of(kind)}
        creates = plan.creates.get(kind, [])
        if kind == "cable":
            if plan.creates.get("device"):  # their interfaces, made from their device types
                self._read_interfaces(self.ids[Ref("site", (self.inventory.name,))])
            self._create_cables([items[key] for key in creates])
        elif creates:
            made = self.api.bulk("POST", PATHS[kind], [self._body(items[key]) for key in creates])
            for key, row in zip(creates, made, strict=True):
                self.ids[Ref(kind, key)] = row["id"]
        if kind == "device_type":
            self._create_templates([items[key] for key in [*creates, *self.templates_made]])
        updates = plan.updates.get(kind, [])
        if updates:
            bodies = [{"id": self.ids[Ref(kind, key)], **self._body(items[key])} for key in updates]
            self.api.bulk("PATCH", PATHS[kind], bodies)
        if kind == "ip_address":
            self._assign_addresses()

    def _ensure_tag(self) -> None:
        """The tag (for every kind the sync tags) and the location type, made when Nautobot lacks them."""
        if not self.tag_id:
            made = self.api.create(
                "extras/tags/", {"name": TAG, "content_types": TAGGED_TYPES, "description": "written by designer sync"}
            )
            self.tag_id = made["id"]
            self.tag_types = set(made.get("content_types") or TAGGED_TYPES)
        if set(TAGGED_TYPES) - self.tag_types:
            self.api.call(
                "PATCH", f"extras/tags/{self.tag_id}/", {"content_types": sorted(set(TAGGED_TYPES) | self.tag_types)}
            )
        if not self.location_type:
            made = self.api.create(
                "dcim/location-types/", {"name": LOCATION_TYPE, "content_types": ["dcim.rack", "dcim.device"]}
            )
            self.location_type = made["id"]

    def _create_templates(self, device_types: Iterable[Item]) -> None:
        """The interface templates of new device types, and those missing from the sync's own device types."""
        bodies = []
        for item in device_types:
            made = self.templates_made.get(item.key, set())
            for port in (port for port in item.fields["ports"] if port.name not in made):
                body = {
                    "device_type": self.ids[item.ref],
                    "name": port.name,
                    "type": "virtual" if port.virtual else INTERFACE_TYPES[port.speed_gbps],
                }
                if not port.virtual:
                    body["speed"] = port.speed_gbps * 1_000_000
                if port.management:
                    body["mgmt_only"] = True
                bodies.append(body)
        self.api.bulk("POST", "dcim/interface-templates", bodies)

    def _read_interfaces(self, site: str) -> None:
        """Every interface of the location ``site``, by device and interface name."""
        devices = self.api.query(INTERFACES, location=[site]).get("devices") or []
        try:
            self.interface_ids = {
                (device["name"], interface["name"]): interface["id"]
                for device in devices
                for interface in device["interfaces"]
            }
        except (KeyError, TypeError):
            raise self.api._unexpected(devices, "POST", GRAPHQL, "each device with its name and interfaces") from None

    def _interface(self, device: str, name: str) -> str:
        """The id of ``device``'s interface ``name``; :class:`PrerequisiteError` when Nautobot has none such (a
        device made without the interfaces of its device type)."""
        found = self.interface_ids.get((device, name))
        if found is None:
            raise PrerequisiteError(
                f"Nautobot holds {device} without its interface {name}: the device was made without the interfaces "
                "of its device type; delete the device (or add the interface) and sync again"
            )
        return found

    def _create_cables(self, cables: list[Item]) -> None:
        bodies = []
        for item in cables:
            _, a_device, a_port, z_device, z_port = item.key
            bodies.append(
                {
                    "termination_a_type": "dcim.interface",
                    "termination_a_id": self._interface(a_device, a_port),
                    "termination_b_type": "dcim.interface",
                    "termination_b_id": self._interface(z_device, z_port),
                    **self._body(item),
                }
            )
        made = self.api.bulk("POST", PATHS["cable"], bodies)
        for item, row in zip(cables, made, strict=True):
            self.ids[item.ref] = row["id"]
        # Nautobot 3.2 answers a new cable with its tags but stores it without them: a second request sets them
        self.api.bulk("PATCH", PATHS["cable"], [{"id": row["id"], "tags": [{"id": self.tag_id}]} for row in made])

    def _assign_addresses(self) -> None:
        """Put every address on its interface (``ip-address-to-interface``), those not there yet."""
        addresses = {self.ids[item.ref]: item for item in self.inventory.of("ip_address")}
        bodies = []
        for address_id, item in addresses.items():
            interface = self._interface(item.fields["device"].key[1], item.fields["interface"])
            if (address_id, interface) not in self.assigned:
                bodies.append({"ip_address": address_id, "interface": interface})
        self.api.bulk("POST", "ipam/ip-address-to-interface", bodies)


def _id(value: Any) -> Any:
    """An object's id from the API's reference to it (a dict with ``id``, or the id itself)."""
    return value["id"] if isinstance(value, dict) else value


def _same(there: Any, wanted: Any) -> bool:
    """Whether Nautobot's value of a field (a reference, a choice, a decimal as text) is the wanted one."""
    if isinstance(there, dict):
        there = there.get("id", there.get("value"))
    if isinstance(wanted, (int, float)) and not isinstance(wanted, bool) and isinstance(there, (str, int, float)):
        try:
            return float(there) == float(wanted)
        except ValueError:
            return False
    return bool(there == wanted)

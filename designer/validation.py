"""An intent checked in full before anything is built from it: the rules of its file, then those that need its
sized fabric (limits, pool sizes, ASN ranges, the networks beside the backend). Reading a built folder's intent
needs this and none of the stages after it (:mod:`designer.pipeline`)."""

from __future__ import annotations

from pathlib import Path

from designer.backend.allocate import address_problems
from designer.backend.sizing import size
from designer.errors import InputError, Problem
from designer.intent import Intent, SiteCatalogs, read_intent
from designer.networks.cluster import network_problems, rack_problems, top_kept


def validated_intent(path: str | Path, raw: bytes | None = None, catalogs: SiteCatalogs | None = None) -> Intent:
    """The intent at ``path`` (or its bytes ``raw``, read already), or :class:`InputError` with every problem: those
    of the file and, when its fabric can be sized, those of the sized fabric (limits, pool sizes, ASN ranges, what
    the targets can express). ``catalogs``: the site catalogs already read (a built folder's), instead of the files
    the intent names."""
    loaded = read_intent(path, raw, catalogs)
    if loaded.problems or loaded.intent is None:
        later = _sized_problems(loaded.intent) if loaded.intent else []
        raise InputError(
            [*loaded.problems, *(problem for problem in later if loaded.intact(problem.path))], loaded.source
        )
    if problems := _sized_problems(loaded.intent):
        raise InputError(problems, loaded.source)
    return loaded.intent


def _sized_problems(intent: Intent) -> list[Problem]:
    """The input rules that need the sized fabric (its limits, the pool sizes, the ASN ranges), checked on the
    counts before anything is wired."""
    try:
        plan = size(intent)
    except InputError as error:
        return list(error.problems)
    kept = top_kept(intent)
    networks = network_problems(intent.networks, intent.servers, intent.max_servers, kept.servers_per_rack)
    return [*address_problems(intent, plan), *networks, *(rack_problems(intent) if not networks else [])]

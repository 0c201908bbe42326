"""JSON text at the speed a 131,072-GPU build needs: the json module's C encoder and string scanner where CPython
has them, its pure-Python ones elsewhere, the same text either way (tests/test_json_text.py holds both to it).

``json.dumps`` sets an encoder up anew for every call, which costs more than encoding a small SONiC entry; the
encoder here is set up once. Reading ``design.json`` back names the line of every value, which walks the text key
by key with the scanner that ``json`` itself uses for strings."""

from __future__ import annotations

import json
from collections.abc import Callable
from json import decoder, encoder
from typing import Any

C_MAKE_ENCODER: Callable[..., Any] | None = getattr(encoder, "c_make_encoder", None)
"""CPython's C encoder factory (None on a Python without the ``_json`` accelerator)."""
C_SCANSTRING: Callable[[str, int], tuple[str, int]] | None = getattr(decoder, "c_scanstring", None)
"""CPython's C string scanner (None likewise)."""

quote: Callable[[str], str] = encoder.encode_basestring_ascii
"""A string as a JSON string in ASCII, quotes included (json picks its C version where it has one)."""


def compact_encoder(make: Callable[..., Any] | None = C_MAKE_ENCODER) -> Callable[[Any], str]:
    """A function giving a value as one line of JSON (ASCII, ``", "`` and ``": "``), as ``json.dumps`` with those
    separators writes it; anything but JSON's own types is refused, as ``json.dumps`` does. ``make``: the C encoder
    factory, or None for json's pure-Python encoder."""
    if make is None:
        return json.JSONEncoder(separators=(", ", ": ")).encode
    default = json.JSONEncoder().default
    chunks = make(None, default, quote, None, ": ", ", ", False, False, True)
    return lambda value: "".join(chunks(value, 0))


def string_scanner(
    scan: Callable[[str, int], tuple[str, int]] | None = C_SCANSTRING,
) -> Callable[[str, int], tuple[str, int]]:
    """A function reading the JSON string whose opening quote is just before ``position`` in ``text``: its value
    and the position after its closing quote. ``scan``: the C scanner, or None for json's pure-Python one."""
    return scan if scan is not None else decoder.py_scanstring  # type: ignore[attr-defined]  # json's own, untyped

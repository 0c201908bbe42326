"""designer/json_text.py: CPython's C encoder and string scanner, and the pure-Python ones a Python without the
``_json`` accelerator falls back to, give the same text and values, which are json's own."""

from __future__ import annotations

import json

import pytest

from designer.json_text import C_MAKE_ENCODER, C_SCANSTRING, compact_encoder, string_scanner

VALUES = [
    {"admin_status": "up", "mtu": "9100", "lanes": "0,1,2,3", "speed": 400000},
    {"profile": "[BUFFER_PROFILE|ingress_lossless_profile]", "pfc_enable": "3,4", "weight": 0.25, "on": True},
    {"description": 'Sch\u00f6ne \u201cGr\u00fc\u00dfe\u201d \U0001f600 \\ " \n\t', "empty": {}, "none": None},
    {"nested": {"list": [1, -2, 3.5e-07, "x", [], [{}]], "big": 2**64}, "": ""},
]


@pytest.mark.parametrize("value", VALUES)
def test_the_compact_encoder_writes_what_json_dumps_writes_with_or_without_c(value: object) -> None:
    expected = json.dumps(value, separators=(", ", ": "))
    assert compact_encoder(None)(value) == expected
    assert C_MAKE_ENCODER is not None  # CPython: the fast path is the one a build takes
    assert compact_encoder()(value) == expected


def test_the_encoder_refuses_what_json_refuses_either_way() -> None:
    for encode in (compact_encoder(), compact_encoder(None)):
        with pytest.raises(TypeError, match="not JSON serializable"):
            encode({"set": {1, 2}})


@pytest.mark.parametrize(
    "value", ["plain", "Sch\u00f6ne \u201cGr\u00fc\u00dfe\u201d", 'a "quoted" \\ key', "\U0001f600 \u2028"]
)
def test_the_string_scanner_reads_what_json_reads_with_or_without_c(value: str) -> None:
    text = json.dumps({value: 1}, ensure_ascii=False) + " " + json.dumps({value: 2})
    second = text.index("{", 1) + 2
    assert C_SCANSTRING is not None
    for scan in (string_scanner(), string_scanner(None)):
        assert scan(text, 2) == (value, 2 + len(json.dumps(value, ensure_ascii=False)) - 1)
        assert scan(text, second)[0] == value

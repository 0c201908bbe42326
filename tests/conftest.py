"""Shared test helpers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def need(condition: bool, reason: str) -> None:
    """Skip the calling test when ``condition`` is false, with ``reason``; under CI (CI=true) fail instead,
    because CI installs everything the tests need and a silent skip would hide a missing proof."""
    if condition:
        return
    if IN_CI:
        pytest.fail(f"required under CI: {reason}")
    pytest.skip(reason)

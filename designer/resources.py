"""Where the data shipped with designer is: the Jinja2 templates and SONiC's YANG models.

Every file is package data found through :mod:`importlib.resources`, so a wheel, an sdist and an editable
install (``pip install -e .``) all find it from any directory. The repository's top-level ``templates/``
is the package ``designer._templates`` (``package-dir`` in pyproject.toml)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def shipped_templates() -> Path:
    """The folder of the shipped templates (the repository's ``templates/``)."""
    return Path(str(files("designer._templates")))


def sonic_yang_models() -> Path:
    """The folder of SONiC's YANG models that ship with designer (``designer/data/sonic-yang``)."""
    return Path(str(files("designer").joinpath("data", "sonic-yang")))

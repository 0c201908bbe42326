"""designer: a GPU backend fabric, from a short YAML intent to a proven design.

``designer.build(path)`` runs every stage on an intent file and returns the :class:`Design`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Design", "__version__", "build"]

if TYPE_CHECKING:
    from designer.design import Design
    from designer.pipeline import build


def __getattr__(name: str) -> Any:
    """``build`` and ``Design`` are imported on first use, so ``import designer`` (and the command line) stays
    light until a stage is needed."""
    if name == "build":
        from designer.pipeline import build

        return build
    if name == "Design":
        from designer.design import Design

        return Design
    raise AttributeError(f"module 'designer' has no attribute {name!r}")

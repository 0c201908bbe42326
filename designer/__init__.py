"""designer: a GPU backend fabric, from a short YAML intent to a proven design."""

__version__ = "0.1.0"

from designer.design import Design
from designer.pipeline import build

__all__ = ["Design", "__version__", "build"]

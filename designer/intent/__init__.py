"""The intent stage: YAML in, a validated and fully specified :class:`Intent` out."""

from designer.intent.resolve import Intent, Loaded, ServerSpec, parse_intent, read_intent
from designer.intent.site_catalog import SiteCatalogs
from designer.intent.switch_spec import SwitchSpec

__all__ = ["Intent", "Loaded", "ServerSpec", "SiteCatalogs", "SwitchSpec", "parse_intent", "read_intent"]

"""The intent stage: YAML in, a validated and fully specified :class:`Intent` out."""

from designer.intent.resolve import Intent, ServerSpec, SwitchSpec, load_intent, parse_intent

__all__ = ["Intent", "ServerSpec", "SwitchSpec", "load_intent", "parse_intent"]

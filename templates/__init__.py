"""The shipped Jinja2 templates, one folder per target OS; installed as package data of ``designer._templates``."""

"""Readers of a written design folder: the folder read back and checked before use, and what changed between two."""

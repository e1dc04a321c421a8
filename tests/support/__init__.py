"""Helpers shared by the test modules (import as ``from support import ...``)."""

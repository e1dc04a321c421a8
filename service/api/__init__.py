"""The HTTP layer: one blueprint per game, problem+json errors, shared helpers."""

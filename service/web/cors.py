"""Cross-origin access for browser clients (flask-cors), off unless configured.

``CORS_ORIGINS`` (``REFEREE_CORS_ORIGINS``) is a comma-separated list of
origins (``https://play.example.org,https://localhost:5173``) or ``*``.  Empty
(the default): no CORS headers at all, so browsers keep other sites' pages
from reading the API.

Credentials (cookies) are never allowed: the API authenticates with bearer
tokens a page sends explicitly.  The headers a client needs to read
(``ETag``, ``Retry-After``, ``RateLimit-*``) are exposed, and the ones it sends
(``Authorization``, ``Content-Type``, ``Idempotency-Key``, ``If-None-Match``)
are allowed.
"""

from __future__ import annotations

from collections.abc import Iterable

from flask import Flask
from flask_cors import CORS

EXPOSE_HEADERS = ["ETag", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]
ALLOW_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match"]
METHODS = ["GET", "HEAD", "POST", "OPTIONS"]
MAX_AGE = 600  # seconds a browser may cache a preflight answer


def origins(value: str | Iterable[str] | None) -> list[str]:
    """The configured origins as a list (``["*"]`` for any); empty when CORS is off."""
    if not value:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    items = [item.strip().rstrip("/") for item in items if item and item.strip()]
    return ["*"] if "*" in items else items


def init_app(app: Flask) -> None:
    allowed = origins(app.config.get("CORS_ORIGINS"))
    if not allowed:
        return
    CORS(
        app,
        origins="*" if allowed == ["*"] else allowed,
        methods=METHODS,
        allow_headers=ALLOW_HEADERS,
        expose_headers=EXPOSE_HEADERS,
        supports_credentials=False,
        max_age=MAX_AGE,
        send_wildcard=allowed == ["*"],
        vary_header=True,
    )

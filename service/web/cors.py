"""Cross-origin access for browser clients (flask-cors), off unless ``REFEREE_CORS_ORIGINS`` lists origins
(or ``*``): with none, browsers keep other sites' pages from reading the API.

Credentials (cookies) are never allowed: the API authenticates with bearer tokens a page sends
explicitly. The headers a client reads and sends are exposed and allowed (the lists below).
"""

from __future__ import annotations

from collections.abc import Iterable

from flask import Flask
from flask_cors import CORS

from service import config

EXPOSE_HEADERS = ["ETag", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]
ALLOW_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match", "Referee-App-Key"]
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
    allowed = origins(config.settings(app).cors_origins)
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

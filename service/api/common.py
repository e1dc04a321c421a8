"""Pieces every API blueprint shares: the store, bearer tokens, seat checks, ETags."""

from __future__ import annotations

import time
from typing import Any

from flask import current_app, request

from .. import auth
from ..errors import Forbidden, Unauthorized
from ..store import Store


IDEMPOTENCY_KEY_PARAMETER = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
    "description": "Makes the request safe to retry: the same key with the same body returns the "
    "first response (for a create: the same id and tokens) for 24 hours; with another body it is "
    "refused (idempotency_key_reused).",
    "example": "6f1c2b9e-3d4a-4c8e-9b1f-2a7d5e8c0f13",
}


def store() -> Store:
    return current_app.extensions["referee_store"]


def now() -> float:
    return round(time.time(), 3)


def bearer_hash() -> str | None:
    """SHA-256 of the bearer token in the Authorization header, if any.

    Tokens are accepted only there (never in a query string or body), so they
    do not end up in access logs or browser history.
    """
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    token = token.strip()
    if len(token) > 256 or not token.isascii():
        return None
    return auth.token_hash(token)


def new_tokens(seats: int) -> tuple[str, list[str], dict[str, Any]]:
    """Fresh host and seat tokens, and the hashes to store."""
    host = auth.new_token()
    seat_tokens = [auth.new_token() for _ in range(seats)]
    hashes = {"host": auth.token_hash(host), "seats": [auth.token_hash(t) for t in seat_tokens]}
    return host, seat_tokens, hashes


def identify(doc_auth: dict[str, Any], presented: str | None) -> str:
    """Who the presented token belongs to in this game: ``host`` or ``seat:N``.

    Raises Unauthorized when there is no token or it is not one of this game's.
    Every stored hash is compared (constant time each), so timing does not say
    which seat a token was close to.
    """
    if presented is None:
        raise Unauthorized("this operation needs an Authorization: Bearer <token> header", code="missing_token")
    who = None
    if auth.same_hash(presented, doc_auth["host"]):
        who = "host"
    for seat, stored in enumerate(doc_auth["seats"]):
        if auth.same_hash(presented, stored):
            who = f"seat:{seat}"
    if who is None:
        raise Unauthorized("the bearer token is not valid for this game", code="invalid_token")
    return who


def require_seat(who: str, seat: int) -> None:
    if who != f"seat:{seat}":
        raise Forbidden(
            f"this token belongs to {who.replace(':', ' ')}, not seat {seat}",
            code="not_your_seat",
        )


def etag_for(version: int) -> str:
    return f'"v{version}"'


def not_modified(version: int) -> bool:
    """True when the client's If-None-Match already names this version (poll without a body)."""
    return etag_for(version) in request.headers.get("If-None-Match", "")

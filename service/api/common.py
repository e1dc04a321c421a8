"""Pieces every API blueprint shares: the store, bearer tokens, seat checks, ETags."""

from __future__ import annotations

import time
from typing import Any, Callable

from flask import current_app, make_response, request

from .. import auth
from ..errors import Forbidden, StaleVersion, Unauthorized
from ..store import Change, Record, Store

# Error statuses each kind of operation documents (names of flask-smorest's registered responses).
ERRORS = {
    "create": (400, 413, 415, 422, 429, 503),
    "read": (304, 404, 429, 503),
    "seat_read": (304, 401, 403, 404, 429, 503),
    "act": (400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
}
RESPONSE_NAMES = {
    304: "NOT_MODIFIED",
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    409: "CONFLICT",
    413: "REQUEST_ENTITY_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "UNPROCESSABLE_ENTITY",
    429: "TOO_MANY_REQUESTS",
    503: "SERVICE_UNAVAILABLE",
}


def error_responses(blp, kind: str) -> Callable:
    """Document the problem+json responses an operation of ``kind`` can give."""

    def decorate(func: Callable) -> Callable:
        for status in ERRORS[kind]:
            func = blp.alt_response(status, response=RESPONSE_NAMES[status])(func)
        return func

    return decorate


IDEMPOTENCY_KEY_PARAMETER = {
    "in": "header",
    "name": "Idempotency-Key",
    "required": False,
    # No example: a published key is one every client copies (and a fuzzer reuses with other bodies).
    "schema": {"type": "string", "minLength": 16, "maxLength": 255, "pattern": "^[!-~][ -~]{14,253}[!-~]$"},
    "description": "Makes the request safe to retry: the same key with the same body returns the "
    "first response (for a create: the same id and tokens; header Idempotent-Replayed: true) for 24 "
    "hours, even when the first attempt's answer was lost to a fault; with another body it is refused "
    "(idempotency_key_reused). 16 to 255 printable ASCII characters, not guessable: a fresh random "
    "UUID per request (a shorter key: invalid_idempotency_key).",
}


def client_scope(name: str) -> str:
    """An idempotency scope private to the calling client (its address, as the rate limiter sees it):
    a create's replay holds the game's tokens, so another client reusing the same key must not get it."""
    from ..ratelimit import client_id

    return f"{name}:{client_id(request.remote_addr)}"


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


def etag_for(version: int, tag: str = "") -> str:
    return f'"v{version}{tag}"'


def not_modified(version: int, tag: str = "") -> bool:
    """True when the client's If-None-Match already names this version (poll without a body)."""
    return etag_for(version, tag) in request.headers.get("If-None-Match", "")


def conditional(data: dict[str, Any], version: int, schema, tag: str = "") -> Any:
    """A view as a response with its ETag; 304 without a body when the client already has it.

    ``tag`` distinguishes views of one version that differ with time (a deadline that passed
    makes ``enforce_deadline`` legal without any new version).
    """
    if not_modified(version, tag):
        response = make_response("", 304)
    else:
        response = make_response(schema.dump(data))
    response.headers["ETag"] = etag_for(version, tag)
    return response


Transition = Callable[[Record, str, float], "Change | None"]


def act(kind: str, id: str, body: dict[str, Any], transition: Transition,
        respond: Callable[[Record], dict[str, Any]], may_act: Callable[[str, Record], None]) -> dict[str, Any]:
    """The one write path of every game: authorize, apply on the current state, store atomically.

    ``may_act(who, record)`` raises when the token's holder may not make this move;
    ``transition(record, who, at)`` returns the :class:`Change` to store, or
    ``None`` for an exact repeat (nothing changes, same answer).  A lost race
    is retried on the new state; ``body["version"]``, when sent, pins the
    version the move was decided on.  With an ``Idempotency-Key`` header the
    move runs at most once per key and a retry gets the first answer back.
    """
    from . import idempotency

    presented = bearer_hash()
    # Who may do this is settled before anything else (the idempotency record, the version):
    # a caller without the right token learns nothing but 401/403.
    first = store().load(kind, id)
    may_act(identify(first.doc["auth"], presented), first)
    expected = body.get("version")

    def guarded(record: Record) -> Change | None:
        who = identify(record.doc["auth"], presented)
        may_act(who, record)
        if expected is not None and record.version != expected:
            raise StaleVersion(
                f"you acted on version {expected} but the current version is {record.version}",
                current_version=record.version,
            )
        return transition(record, who, now())

    # With an Idempotency-Key the answer is stored by the same atomic save as the move.
    return idempotency.move(kind, id, presented, {"path": request.path, "body": body}, guarded, respond,
                            pinned=expected is not None)



"""Pieces every API blueprint shares: the blueprint class, documented errors, the store, bearer
tokens and seat checks. Views as responses are :mod:`service.api.views`; moves, :mod:`service.api.moves`."""

from __future__ import annotations

import time
from copy import deepcopy
from http import HTTPStatus
from typing import Any, Callable

import flask_smorest
from flask import current_app, request
from flask_smorest.utils import resolve_schema_instance
from marshmallow import missing
from webargs.flaskparser import FlaskParser

from service.api import apps, auth, ratelimit
from service.errors import Forbidden, InvalidOptions, NotFound, Unauthorized
from service.games.protocol import Referee, S
from service.storage.store import Record, Store, not_found

# Error statuses each kind of operation documents (flask-smorest registers one response per HTTPStatus).
ERRORS = {
    "create": (400, 413, 415, 422, 429, 503),
    "read": (304, 404, 429, 503),
    "seat_read": (304, 401, 403, 404, 429, 503),
    "hint": (401, 403, 404, 409, 429, 503),
    "act": (400, 401, 403, 404, 409, 413, 415, 422, 429, 503),
    "app": (401, 403, 422, 429, 503),
}


#: Where ``service.web.app``'s ``_json_only`` leaves a request's JSON body once it has parsed it.
PARSED_BODY = "referee.parsed_body"


class _Parser(FlaskParser):
    """webargs' Flask parser, taking the body ``_json_only`` already parsed (as webargs parses it:
    the UTF-8 text with the json module) instead of parsing it a second time."""

    def _raw_load_json(self, req):
        parsed = req.environ.get(PARSED_BODY, missing)
        if parsed is missing:
            return super()._raw_load_json(req)
        return parsed


class Blueprint(flask_smorest.Blueprint):
    """flask-smorest's Blueprint, minus two per-request costs that only repeat work.

    * ``arguments`` hands webargs the schema *instance*: given a class, webargs builds a new
      ``Schema`` on every request (~6 % of a move's CPU); the spec is the same either way.
    * its parser reads the JSON body ``_json_only`` parsed (:data:`PARSED_BODY`): one parse a move.
    """

    ARGUMENTS_PARSER = _Parser()

    def arguments(self, schema, *args, **kwargs):
        return super().arguments(resolve_schema_instance(schema), *args, **kwargs)


def error_responses(kind: str) -> Callable:
    """Document the problem+json responses an operation of ``kind`` can give.

    The ``_apidoc`` entries ``blp.alt_response(status, response=NAME)`` would write, without its
    wrapper around the view (one more ``ensure_sync`` per status on every request).
    """

    def decorate(func: Callable) -> Callable:
        doc = deepcopy(getattr(func, "_apidoc", {}))
        responses = doc.setdefault("response", {}).setdefault("responses", {})
        for status in ERRORS[kind]:
            responses.setdefault(status, []).append(HTTPStatus(status).name)
        func._apidoc = doc  # type: ignore[attr-defined]
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


#: A create's security: none, or an app's key (service.api.apps: its limits, and its list of games).
CREATE_SECURITY: list[dict[str, list[str]]] = [{}, {"appKey": []}]

#: OpenAPI links every create answers with besides its game's own: where an app that created it with
#: its key finds it again (both take the same ``Referee-App-Key``).
APP_LINKS = {
    "ListAppGames": {"operationId": "listAppGames", "parameters": {},
                     "description": "Your app's games, newest first (send the same Referee-App-Key)."},
    "WatchAppGames": {"operationId": "watchAppGames", "parameters": {},
                      "description": "Every change of your app's games on one stream (the same Referee-App-Key)."},
}


def client_scope(name: str) -> str:
    """An idempotency scope private to the calling client (its app, else its address, as the rate
    limiter sees it): a create's replay holds the game's tokens, so another client reusing the same
    key must not get it."""
    return f"{name}:{ratelimit.current_client()}"


def store() -> Store:
    return current_app.extensions["referee_store"]


def now() -> float:
    return round(time.time(), 3)


def bearer_hash() -> str | None:
    """SHA-256 of the bearer token in the Authorization header, if any.

    Tokens are accepted only there (never in a query string or body), so they
    do not end up in access logs or browser history.
    """
    header = request.environ.get("HTTP_AUTHORIZATION", "")  # the header, as the server passed it
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > 256 or not token.isascii():
        return None
    return auth.token_hash(token)


def create_game(kind: str, referee: Referee[Any], options: dict[str, Any], key: str) -> dict[str, Any]:
    """A new game of ``kind`` made by its ``referee`` from the create request's ``options``, as the
    create answers it: its id, the host's token and the seats' (shown once: only their hashes are
    kept; ``None`` for a seat the referee plays), and its public view under ``key``."""
    id = auth.new_game_id()
    at = now()
    names = options.get("names", [])
    doc, entries = referee.create(id, {k: v for k, v in options.items() if k != "names"}, at)
    seats = referee.seat_count(doc)
    if len(names) > seats:
        raise InvalidOptions(f"{len(names)} names for {seats} seats", code="invalid_names")
    doc["names"] = [*names, *[None] * (seats - len(names))]  # the record's, shown in every view
    bots = {int(seat) for seat in doc.get("bots", {})}  # the seats the referee plays: no token
    host = auth.new_token()
    seat_tokens = [None if seat in bots else auth.new_token() for seat in range(seats)]
    doc["auth"] = {"host": auth.token_hash(host),
                   "seats": [None if t is None else auth.token_hash(t) for t in seat_tokens]}
    app = apps.note_game(kind, id, at)  # the app whose key created it, if any: its index lists it
    if app is not None:
        doc["app"] = app
    record = store().create(kind, id, doc, entries, apps.stream_entry(kind, id, doc, "created", entries))
    return {"id": record.id, "host_token": host, "seat_tokens": seat_tokens, key: view(referee, record)}


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
        if stored is not None and auth.same_hash(presented, stored):
            who = f"seat:{seat}"
    if who is None:
        raise Unauthorized("the bearer token is not valid for this game", code="invalid_token")
    return who


def require_seat_exists(referee: Referee[Any], record: Record, seat: int, thing: str = "game") -> None:
    """A seat the game does not have is no resource: 404 ``no_such_seat`` (to a caller with a token of
    the game; without one, the 401 comes first), as ``/seats/00`` matches no route."""
    if not 0 <= seat < referee.seat_count(record.doc):
        raise NotFound(f"this {thing} has no seat {seat}", code="no_such_seat")


def require_seat(who: str, seat: int, referee: Referee[Any], record: Record) -> None:
    """``who`` holds the token of ``seat``, a seat of the game (else 404 ``no_such_seat``, then 403)."""
    require_seat_exists(referee, record, seat)
    if who != f"seat:{seat}":
        raise Forbidden(
            f"this token belongs to {who.replace(':', ' ')}, not seat {seat}",
            code="not_your_seat",
        )


def state_of(record: Record, load: Callable[[dict[str, Any]], S]) -> S:
    """The game's state object of ``record``, parsed by ``load`` unless the record holds one; a
    shared record keeps it (parsed once for every read of the same stored bytes)."""
    state = record.state
    if state is None:
        state = load(record.doc)
        if record.shared:
            record.state = state
    return state


def view(referee: Referee[Any], record: Record, seat: int | None = None) -> dict[str, Any]:
    """The public view (``seat`` None) or a seat's of ``record``, as the game's ``referee`` builds it."""
    return referee.view(record.doc, record.version, seat, now(), state_of(record, referee.load))


def transcript(kind: str, id: str, referee: Referee[Any]) -> dict[str, Any]:
    """The public transcript: what the public may read of it is the game's observer's decision."""
    record = fetched(kind, id, shared=False)
    return referee.transcript(record.doc, record.version, store().transcript(kind, id, record))


def fetched(kind: str, id: str, shared: bool = True) -> Record:
    """The game's record for a request that reads it, with the request's rate-limit hit counted in
    the same round trip (a 429 over a limit). ``shared``: a view's (:meth:`Store.read`); else the
    caller's own record (:meth:`Store.load`)."""
    record = ratelimit.carried(lambda hit: store().fetch(kind, id, shared=shared, rider=hit))
    return record or not_found(kind, id)

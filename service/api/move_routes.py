"""The one way every game writes its moves: a table of :class:`MoveRoute` rows — path, operationId,
summary, request and answer schemas, how the body becomes the game's action — that :func:`add_moves`
turns into routes, each making its move through the one write path (:func:`service.api.moves.act`).
Gops, Gofo (``service/api/gops.py``, ``gofo.py``) and a game served from its contract alone
(:mod:`service.api.generic`) declare theirs so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

import marshmallow as ma
from flask.views import MethodView

from service.api import common, moves
from service.games.contract import Action, Applied
from service.games.protocol import Referee
from service.storage.records import Record

#: Who may make a move: raise (Forbidden) unless ``who`` may move ``seat`` (None: a move of no seat) here.
Authorize = Callable[[str, Record, int | None], None]
#: What a move answers: the body for the record the move left, as ``seat`` (None: the public) sees it.
Answer = Callable[[Record, int | None], dict[str, Any]]


@dataclass(frozen=True)
class MoveRoute:
    """One kind of move as its route: ``path`` under the game (``seats/<seat:seat>/commit``; a path
    without a seat is a move any token of the game may make), the spec's ``operation_id``, ``summary``
    and ``description``, the request ``schema`` (the body is optional when it has no field but
    ``version``) and its ``example``, the ``answer`` schema, the Flask ``endpoint`` (metrics and logs name
    it; the operationId unless given) and ``action``: the game's action from the body, the seat and the
    state the move is made on; ``None``: the move enforces a passed deadline."""

    path: str
    operation_id: str
    summary: str
    schema: type[ma.Schema]
    answer: type[ma.Schema]
    action: Callable[[dict[str, Any], int | None, Any], Action] | None
    example: dict[str, Any] | None = None
    description: str | None = None
    endpoint: str = ""


class RoutedMove(moves.Move):
    """A move of ``route`` by ``seat`` with the request's ``body``, on a game of ``referee``."""

    def __init__(self, referee: Referee[Any], route: MoveRoute, body: dict[str, Any], seat: int | None,
                 authorize: Authorize, answer: Answer) -> None:
        self.referee, self.route, self.body, self.seat = referee, route, body, seat
        self._authorize, self._answer = authorize, answer

    def authorize(self, who: str, record: Record) -> None:
        self._authorize(who, record, self.seat)

    def apply(self, record: Record, who: str, at: float) -> Applied | None:
        # A record a move gets (never a shared one) holds a state object only when it is the move's
        # own to change (Store.latest): applied to in place, not parsed again.
        state = self.referee.load(record.doc) if record.shared or record.state is None else record.state
        if self.route.action is None:  # (Gops: also where a match of bots plays its next game)
            return self.referee.enforce(record.doc, record.version, who, at, state)
        action = self.route.action(self.body, self.seat, state)
        return self.referee.play(record.doc, record.version, who, at, self.seat, action, state)

    def answer(self, record: Record) -> dict[str, Any]:
        return self._answer(record, self.seat)


def add_moves(blp: common.Blueprint, kind: str, referee: Referee[Any], routes: Iterable[MoveRoute], *,
              game: str = "game_id", authorize: Authorize | None = None, answer: Answer | None = None) -> None:
    """One route on ``blp`` for each of ``routes``, under ``/<game>/``: it decodes the body with the
    route's schema and makes the move through :func:`service.api.moves.act`.  ``authorize``: by
    default a seat's move needs that seat's token and a move of no seat any token of the game;
    ``answer``: by default the view of the move's seat."""
    authorize = authorize or partial(_seat_token, referee)
    answer = answer or partial(common.view, referee)
    for route in routes:
        _add_move(blp, kind, game, referee, route, authorize, answer)


def _seat_token(referee: Referee[Any], who: str, record: Record, seat: int | None) -> None:
    if seat is not None:
        common.require_seat(who, seat, referee, record)


def _add_move(blp: common.Blueprint, kind: str, game: str, referee: Referee[Any], route: MoveRoute,
              authorize: Authorize, answer: Answer) -> None:
    described = {} if route.description is None else {"description": route.description}
    takes_body = bool(set(route.schema._declared_fields) - {"version"})

    @blp.doc(operationId=route.operation_id, summary=route.summary, security=[{"bearerAuth": []}],
             parameters=[common.IDEMPOTENCY_KEY_PARAMETER], **described)
    @blp.arguments(route.schema, required=takes_body, example=route.example)
    @blp.response(200, route.answer)
    @common.error_responses("act")
    def post(self: MethodView, body: dict[str, Any], seat: int | None = None, **ids: str):
        body = body or {}
        (id,) = ids.values()
        return moves.act(kind, id, body, RoutedMove(referee, route, body, seat, authorize, answer))

    endpoint = route.endpoint or route.operation_id
    blp.route(f"/<string:{game}>/{route.path}", endpoint=endpoint)(type(endpoint, (MethodView,), {"post": post}))

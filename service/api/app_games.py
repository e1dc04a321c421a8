"""``GET /v1/apps/me/games``: the games an app created with its key, newest first, a page at a time
(the index: :mod:`service.storage.apps`; the key: :mod:`service.api.apps`)."""

from __future__ import annotations

import base64
import binascii
from typing import Any

import marshmallow as ma
from flask.views import MethodView
from marshmallow import fields, validate

from service.api import apps, common
from service.errors import InvalidAction, Unauthorized
from service.games.registry import GAMES
from service.storage.apps import MEMBER_PATTERN, Listed

STATES = ("waiting", "in_play", "finished")
#: At most this many batches of ``limit`` games are looked at for one page (a filter may skip many).
SCAN_BATCHES = 5

blp = common.Blueprint("apps", __name__, url_prefix="/v1/apps",
                       description=f"Apps: the games created with an app's key (the {apps.HEADER} header).")





class AppGamesQuerySchema(ma.Schema):
    game = fields.String(validate=validate.OneOf(list(GAMES)), metadata={
        "description": "Only games of this kind."})
    state = fields.String(validate=validate.OneOf(STATES), metadata={
        "description": "Only games in this state: waiting (no move yet), in_play, finished."})
    since = fields.Float(validate=validate.Range(min=0, max=1e11), metadata={
        "description": "Only games created at or after this Unix time (seconds)."})
    until = fields.Float(validate=validate.Range(min=0, max=1e11), metadata={
        "description": "Only games created before this Unix time (seconds)."})
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=100), metadata={
        "description": "Most games in the page."})
    cursor = fields.String(validate=validate.Length(max=200), metadata={
        "description": "The next_cursor of the page before (the same filters)."})


class AppGameSchema(ma.Schema):
    game = fields.String(required=True, metadata={"description": "The game's kind (gops, gofo)."})
    id = fields.String(required=True)
    created = fields.Float(required=True, metadata={"description": "Unix time it was created (ms precision)."})
    state = fields.String(required=True, validate=validate.OneOf(STATES))
    version = fields.Integer(required=True, metadata={"description": "Its current version."})
    href = fields.String(required=True, metadata={"description": "Its public view, e.g. /v1/gops/games/ID."})


class AppGamesSchema(ma.Schema):
    games = fields.List(fields.Nested(AppGameSchema), required=True)
    next_cursor = fields.String(required=True, allow_none=True, metadata={
        "description": "Pass as cursor for the next page; null: no more games."})


@blp.route("/me/games")
class AppGames(MethodView):
    @blp.doc(operationId="listAppGames", summary="The games your app created",
             security=[{"appKey": []}])
    @blp.arguments(AppGamesQuerySchema, location="query", as_kwargs=True)
    @blp.response(200, AppGamesSchema)
    @common.error_responses("app")
    def get(self, limit: int, game: str | None = None, state: str | None = None, since: float | None = None,
            until: float | None = None, cursor: str | None = None):
        """The games (and tables) created with your app's key, newest first.

        A page holds at most ``limit`` games; pass its ``next_cursor`` as ``cursor`` (with the same
        filters) for the next. Pages do not shift while games are created: the next page starts
        below the last game sent. With a filter a page may hold fewer than ``limit`` games and
        still have a ``next_cursor``: follow it until it is null. Games that expired are gone."""
        app = apps.current()
        if app is None:
            raise Unauthorized(f"send your app's {apps.HEADER} header", code="app_key_required")
        below = _member(cursor) if cursor else None
        kinds = [game] if game else list(GAMES)
        found: list[dict[str, Any]] = []
        more = True
        for _ in range(SCAN_BATCHES):
            batch = apps.apps().page(app.name, kinds, below, limit, since, until)
            more = len(batch) == limit
            for listed, summary in zip(batch, common.store().summaries([(x.kind, x.id) for x in batch])):
                below = listed.member
                if summary is None:
                    _forget(app.name, listed)
                    continue
                version, finished = summary
                listed_state = "finished" if finished else "waiting" if version == 1 else "in_play"
                if state is None or state == listed_state:
                    found.append(_item(listed, listed_state, version))
                if len(found) == limit:
                    more = True
                    break
            if len(found) == limit or not more:
                break
        return {"games": found, "next_cursor": _cursor(below) if more and below else None}


def _forget(name: str, listed: Listed) -> None:
    apps.apps().drop_games(name, [listed])


def _item(listed: Listed, state: str, version: int) -> dict[str, Any]:
    return {"game": listed.kind, "id": listed.id, "created": listed.created, "state": state, "version": version,
            "href": f"/v1/{listed.kind}/{GAMES[listed.kind].collection}/{listed.id}"}


def _cursor(member: str) -> str:
    return base64.urlsafe_b64encode(member.encode()).decode().rstrip("=")


def _member(cursor: str) -> str:
    try:
        member = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        member = ""
    if not MEMBER_PATTERN.fullmatch(member):
        raise InvalidAction("the cursor is not one a page of this list gave", code="invalid_cursor")
    return member



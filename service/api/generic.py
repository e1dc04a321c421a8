"""The HTTP surface any game gets from its contract alone: a game registered without an API module of
its own (``GameDefinition.blueprint`` None) is served here, under ``/v1/<name>/<collection>``: create,
the public and seat views, one ``actions`` route decoded by the game's codec, the deadline, the
transcript and the event streams.

Its moves are declared as Gops' and Gofo's are: :class:`service.api.move_routes.MoveRoute` rows.

Everything goes through the same pieces as the two games' own modules (the write path, views,
idempotency, the rate limiter, events). The views are documented as open objects: a game that wants
its views typed in the spec writes its own API module with schemas, as Gops and Gofo do.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import marshmallow as ma
from flask.views import MethodView

from service.api import common, events, idempotency, views
from service.api.move_routes import MoveRoute, add_moves
from service.games.contract import GameDefinition
from service.games.protocol import Referee


class AsBuilt(ma.Schema):
    """Any JSON object, as the game's observer built it."""

    class Meta:
        unknown = ma.INCLUDE

    @ma.post_dump(pass_original=True)
    def _as_built(self, data: dict[str, Any], original: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return dict(original)


class Created(ma.Schema):
    id = ma.fields.String(required=True)
    host_token = ma.fields.String(required=True)
    seat_tokens = ma.fields.List(ma.fields.String(), required=True)
    view = ma.fields.Dict(required=True, metadata={"description": "The public view."})


class ActionSchema(AsBuilt):
    """One action: ``{"type": ...}`` with its fields, as the game's codec reads it."""

    type = ma.fields.String(required=True, metadata={"description": "The action's type (the seat view's legal actions say which)."})


def blueprint_for(game: GameDefinition) -> common.Blueprint:
    """The flask-smorest blueprint of ``game`` from its contract (module docstring)."""
    kind, title = game.name, game.title
    blp = common.Blueprint(kind, __name__, url_prefix=f"/v1/{kind}/{game.collection}",
                           description=f"{title}: served from its game contract (service.api.generic).")
    referee = game.part("referee")
    view = partial(common.view, referee)  # (record, seat=None)
    _create_and_read(blp, game, referee, view)  # (the routes in this order: the spec's)
    _moves(blp, game, referee)
    _records(blp, game, referee, view)
    return blp


def _created_links(camel: str) -> dict[str, dict[str, Any]]:
    """Where the created game's id leads (OpenAPI links: SDK docs and stateful fuzzers follow them)."""
    game_id = {"game_id": "$response.body#/id"}
    seat_0 = {**game_id, "seat": 0}
    return {
        "GetPublic": {"operationId": f"get{camel}", "parameters": game_id},
        "GetSeatView": {"operationId": f"get{camel}SeatView", "parameters": seat_0,
                        "description": "Seat 0's view (send seat_tokens[0] as the bearer token)."},
        "Act": {"operationId": f"act{camel}", "parameters": seat_0,
                "description": "Seat 0 makes a move (send seat_tokens[0] as the bearer token)."},
        "EnforceDeadline": {"operationId": f"enforce{camel}Deadline", "parameters": game_id},
        "GetTranscript": {"operationId": f"get{camel}Transcript", "parameters": game_id},
        "Watch": {"operationId": f"watch{camel}", "parameters": game_id},
        **common.APP_LINKS,
    }


def _create_and_read(blp: common.Blueprint, game: GameDefinition, referee: Referee[Any], view: Callable[..., Any]) -> None:
    """Create one; read its public view, or a seat's."""
    kind, title, camel = game.name, game.title, game.name.capitalize()
    links = _created_links(camel)

    @blp.route("")
    class Collection(MethodView):
        @blp.doc(operationId=f"create{camel}", summary=f"Create a {title} {game.thing}",
                 parameters=[common.IDEMPOTENCY_KEY_PARAMETER], security=common.CREATE_SECURITY,
                 responses={201: {"links": links}})
        @blp.arguments(AsBuilt, required=False)
        @blp.response(201, Created)
        @common.error_responses("create")
        def post(self, body: dict[str, Any]):
            """Create one from the game's options; its id, the public view, and the tokens (shown once)."""
            body = body or {}
            return idempotency.once(common.client_scope(f"{kind}-create"), body,
                                    lambda: common.create_game(kind, referee, body, "view")), 201

    @blp.route("/<string:game_id>")
    class Public(MethodView):
        @blp.doc(operationId=f"get{camel}", summary="Read the public view")
        @blp.response(200, AsBuilt)
        @common.error_responses("read")
        def get(self, game_id: str):
            """What anyone with the id may see."""
            record = common.fetched(kind, game_id)
            return views.shared_view(record, None, lambda: view(record), AsBuilt)

    @blp.route("/<string:game_id>/seats/<seat:seat>")
    class Seat(MethodView):
        @blp.doc(operationId=f"get{camel}SeatView", summary="Read one seat's view",
                 security=[{"bearerAuth": []}])
        @blp.response(200, AsBuilt)
        @common.error_responses("seat_read")
        def get(self, game_id: str, seat: int):
            """What this seat may see, with its legal actions."""
            record = common.fetched(kind, game_id)
            common.require_seat(common.identify(record.doc["auth"], common.bearer_hash()), seat, referee, record)
            return views.shared_view(record, seat, lambda: view(record, seat), AsBuilt, referee.etag_tag)


def _moves(blp: common.Blueprint, game: GameDefinition, referee: Referee[Any]) -> None:
    """A seat's action, decoded by the game's codec; any token's request to enforce a passed deadline."""
    camel, codec = game.name.capitalize(), game.part("actions").CODEC
    add_moves(blp, game.name, referee, [
        MoveRoute("seats/<seat:seat>/actions", f"act{camel}", "Make a move", ActionSchema, AsBuilt,
                  lambda body, seat, state: codec.from_dict({k: v for k, v in body.items() if k != "version"}),
                  endpoint="Act"),
        MoveRoute("deadline", f"enforce{camel}Deadline", "Enforce a passed deadline", AsBuilt, AsBuilt, None,
                  endpoint="Deadline"),
    ])


def _records(blp: common.Blueprint, game: GameDefinition, referee: Referee[Any], view: Callable[..., Any]) -> None:
    """The transcript, and the live updates of new versions."""
    kind, camel = game.name, game.name.capitalize()

    @blp.route("/<string:game_id>/transcript")
    class Transcript(MethodView):
        @blp.doc(operationId=f"get{camel}Transcript", summary="Read the transcript")
        @blp.response(200, AsBuilt)
        @common.error_responses("read")
        def get(self, game_id: str):
            """Every applied action, as the public may see it."""
            return common.transcript(kind, game_id, referee)

    over = lambda data: data.get("phase") == "over"  # noqa: E731
    viewer = events.viewers(view, AsBuilt, AsBuilt, over, referee.etag_tag)

    @blp.route("/<string:game_id>/events")
    class Events(MethodView):
        @blp.doc(operationId=f"watch{camel}", summary="Watch its new versions (Server-Sent Events, or a long poll)",
                 parameters=[events.LAST_EVENT_ID_PARAMETER, events.IF_NONE_MATCH_PARAMETER],
                 security=[{}, {"bearerAuth": []}])
        @blp.arguments(events.EventsQuerySchema, location="query", as_kwargs=True)
        def get(self, game_id: str, **query: Any):
            """Every new version as it happens, as the caller may see it (a seat's token: its view)."""
            return events.serve(kind, game_id, query, viewer)

"""The Gops HTTP API under ``/v1/gops``: thin views — parse, authorize, load, apply, store, respond."""

from __future__ import annotations

from functools import partial
from typing import Any

from flask.views import MethodView

from service.games import commitments, gops
from service.errors import Forbidden
from service.games.gops import referee, solver
from service.storage.store import Record
from service.api import common, idempotency, moves, names, views
from service.api.move_routes import MoveRoute, add_moves
from service.api.schemas import NameSchema
from service.api.gops_schemas import (
    CommitSchema,
    CreatedGopsGameSchema,
    CreateGopsGameSchema,
    EmptyActionSchema,
    GopsGameSchema,
    GopsHintSchema,
    GopsSeatViewSchema,
    RankSchema,
    RevealSchema,
)
from service.games.gops.schemas import GopsTranscriptSchema

KIND = referee.KIND

blp = common.Blueprint(
    "gops",
    __name__,
    url_prefix="/v1/gops/games",
    description="Gops (Goofspiel): create games and matches, commit and reveal bids, read views and transcripts.",
)

SALT_EXAMPLE = "7c1d6f3a9b2e4c8d0a5f1e3b7d9c2a4e6f8b0d1c3e5a7f9b2d4c6e8a0b1c3d5e"
COMMITMENT_EXAMPLE = commitments.bid_commitment("Xk3_9fQa2LmZ", 1, 0, [9], SALT_EXAMPLE)


# Where the created game's id leads (OpenAPI links: SDK docs and stateful fuzzers follow them).
_ID = {"game_id": "$response.body#/id"}
CREATE_LINKS = {
    "GetGame": {"operationId": "getGopsGame", "parameters": _ID,
                "description": "The public state of the game just created."},
    "GetTranscript": {"operationId": "getGopsTranscript", "parameters": _ID},
    "GetSeatView": {"operationId": "getGopsSeatView", "parameters": {**_ID, "seat": 0},
                    "description": "Seat 0's view (send seat_tokens[0] as the bearer token)."},
    "CommitBid": {"operationId": "commitGopsBid", "parameters": {**_ID, "seat": 0}},
    "RevealBid": {"operationId": "revealGopsBid", "parameters": {**_ID, "seat": 0}},
    "ChoosePrize": {"operationId": "chooseGopsPrize", "parameters": {**_ID, "seat": 0}},
    "Resign": {"operationId": "resignGopsSeat", "parameters": {**_ID, "seat": 0}},
    "NameSeat": {"operationId": "nameGopsSeat", "parameters": {**_ID, "seat": 0}},
    "GetHint": {"operationId": "getGopsHint", "parameters": {**_ID, "seat": 0},
                "description": "Seat 0's hint (send seat_tokens[0] as the bearer token)."},
    "Watch": {"operationId": "watchGopsGame", "parameters": _ID,
              "description": "The game's new versions as they happen."},
    "ReportPrize": {"operationId": "reportGopsPrize", "parameters": _ID},
    "EnforceDeadline": {"operationId": "enforceGopsDeadline", "parameters": _ID},
    **common.APP_LINKS,
}


# ------------------------------------------------------------------ helpers


def _state(record: Record) -> gops.Gops:
    return common.state_of(record, referee.load)


_view = partial(common.view, referee)  # (record, seat=None)


def _view_answer(record: Record, seat: int | None, schema, tag_of=None):
    """The view of ``record`` for ``seat`` as a response, serialized once per stored bytes, seat
    and what of the clock it shows (:func:`service.api.views.shared_view`)."""
    state, now = _state(record), common.now()
    return views.shared_view(record, (seat, referee.view_clock(state, seat, now)),
                              lambda: referee.view(record.doc, record.version, seat, now, state), schema, tag_of)


def _authorize(who: str, record: Record, seat: int | None) -> None:
    """A seat's move needs its token; a move of no seat, any seat still in the game or the host."""
    if seat is not None:
        common.require_seat(who, seat, referee, record)
    elif who.startswith("seat:") and referee.seat_out(record.doc, int(who[5:])):
        raise Forbidden(f"seat {who[5:]} is out of the game: its token can no longer act", code="seat_out")


class GopsRename(names.Rename):
    """A seat names itself (:mod:`service.api.names`), while it is in the game; a finished game's
    names are final."""

    def authorize(self, who: str, record: Record) -> None:
        common.require_seat(who, self.seat, referee, record)
        if referee.seat_out(record.doc, self.seat):
            raise Forbidden(f"seat {self.seat} is out of the game: its token can no longer act", code="seat_out")

    def over(self, record: Record) -> bool:
        return _state(record).over

    def entry(self, record: Record, who: str, at: float) -> dict[str, Any]:
        game = _state(record).game
        return referee.entry(record.version + 1, at, who, self.action, game.number, game.round)


# -------------------------------------------------------------------- views


@blp.route("")
class Games(MethodView):
    @blp.doc(operationId="createGopsGame", summary="Create a Gops game or match",
             parameters=[common.IDEMPOTENCY_KEY_PARAMETER], security=common.CREATE_SECURITY,
             responses={201: {"links": CREATE_LINKS}})
    @blp.arguments(
        CreateGopsGameSchema,
        required=False,
        examples={
            "classic": {"summary": "Two players, 13 cards each, ties carry the prize over", "value": {"profile": "classic"}},
            "three_players_split": {
                "summary": "Three players, ties split the pot, 10-minute deadlines",
                "value": {"profile": "standard", "options": {"players": 3, "resolution": "split", "deadline_seconds": 600}},
            },
            "match_to_92": {
                "summary": "Play games until someone reaches 92 points",
                "value": {"profile": "classic", "match": {"format": "target", "target": 92}},
            },
        },
    )
    @blp.response(201, CreatedGopsGameSchema)
    @common.error_responses("create")
    def post(self, body: dict[str, Any]):
        """Create a game (or a match) from a profile plus options.

        Returns the id, the public state, and one bearer token per seat plus one
        for the host.  Tokens are shown only here: the referee keeps only their
        hashes.  With a shuffled prize order the order's commitment is in
        ``game.prize_commitment`` before any bid.

        Send an ``Idempotency-Key`` header (e.g. a UUID) to make retries
        safe: the same key with the same body returns the same game and
        tokens instead of creating another.
        """
        return idempotency.once(common.client_scope("gops-create"), body, lambda: _create(body)), 201


def _create(body: dict[str, Any]) -> dict[str, Any]:
    referee.check_options(body)  # a refused create draws no game id
    return common.create_game(KIND, referee, body, "game")


@blp.route("/<string:game_id>")
class Game(MethodView):
    @blp.doc(operationId="getGopsGame", summary="Read a game's public state")
    @blp.response(200, GopsGameSchema)
    @common.error_responses("read")
    def get(self, game_id: str):
        """What anyone with the game id may see: hands (spent bids are public), prizes, scores, history.

        Send ``If-None-Match`` with the last ETag to poll cheaply (304 when unchanged).
        """
        return _view_answer(common.fetched(KIND, game_id), None, GopsGameSchema)


@blp.route("/<string:game_id>/seats/<seat:seat>")
class SeatView(MethodView):
    @blp.doc(operationId="getGopsSeatView", summary="Read one seat's own view, with what it may do next",
             security=[{"bearerAuth": []}])
    @blp.response(200, GopsSeatViewSchema)
    @common.error_responses("seat_read")
    def get(self, game_id: str, seat: int):
        """The public state plus this seat's own unresolved reveal and its legal actions."""
        record = common.fetched(KIND, game_id)
        who = common.identify(record.doc["auth"], common.bearer_hash())
        common.require_seat(who, seat, referee, record)
        return _view_answer(record, seat, GopsSeatViewSchema, referee.etag_tag)


HINT_EXAMPLE = {"exact": True, "value": -2.3333333333333335,
                "actions": [{"cards": [1], "probability": 0.5555555555555556},
                            {"cards": [3], "probability": 0.4444444444444444}]}


@blp.route("/<string:game_id>/seats/<seat:seat>/hint")
class Hint(MethodView):
    @blp.doc(operationId="getGopsHint", summary="What the equilibrium would bid: the seat's mix and value",
             security=[{"bearerAuth": []}])
    @blp.response(200, GopsHintSchema, example=HINT_EXAMPLE)
    @common.error_responses("hint")
    def get(self, game_id: str, seat: int):
        """The seat's equilibrium bid mix and what the game is worth to it from here.

        In the commit phase, worked out from this seat's view alone (its hand, its rivals' remaining
        cards — public, as every spent bid is —, the prizes not yet seen, the prize in the middle when
        the seat may see it, the carried pot). For two seats bidding one card for one prize at a time,
        prizes shuffled or reported, face up or blind: the seat's equilibrium of the zero-sum game of
        point difference — level 8's —, exact wherever level 8 is (``exact``: the last 7 rounds when a tie
        sets the prize aside and the prize is shown), before that this round's matrix game with the
        later rounds estimated. Any other rules: the level-8 bot's mix and an estimate
        (``exact`` false; with three or more seats ``value`` is the seat's own expected points).
        Outside the commit phase: ``hint_unavailable`` (409).

        The example: hand A, 3 against 2, 3, the prize 5 up and 4 to come: bid the ace 5 times in
        9; the seat can expect to end 21/9 points behind from here.
        """
        record = common.fetched(KIND, game_id)
        who = common.identify(record.doc["auth"], common.bearer_hash())
        common.require_seat(who, seat, referee, record)
        return solver.hint(_view(record, seat))


@blp.route("/<string:game_id>/seats/<seat:seat>/name")
class NameSeat(MethodView):
    @blp.doc(operationId="nameGopsSeat", parameters=[common.IDEMPOTENCY_KEY_PARAMETER], summary="Set your name",
             security=[{"bearerAuth": []}])
    @blp.arguments(NameSchema, example={"name": "Ana"})
    @blp.response(200, GopsSeatViewSchema)
    @common.error_responses("act")
    def post(self, body: dict[str, Any], game_id: str, seat: int):
        """Set or change this seat's name, shown to everyone in views and transcripts (up to 24
        characters; spaces around it are dropped). Until the game is over."""
        return moves.act(KIND, game_id, body, GopsRename(referee, seat, body["name"]))


@blp.route("/<string:game_id>/transcript")
class Transcript(MethodView):
    @blp.doc(operationId="getGopsTranscript", summary="Read the full transcript")
    @blp.response(200, GopsTranscriptSchema)
    @common.error_responses("read")
    def get(self, game_id: str):
        """Every applied action in order, with the time and who made it.

        Secrets are withheld (null) until they become public: the round's
        commitments until every seat has committed, its reveals until the
        round is over, the shuffled prize order until the game is over.  Once
        the game is over the transcript is complete and re-verifiable offline.
        """
        return common.transcript(KIND, game_id, referee)


#: The moves, one route each (:func:`service.api.move_routes.add_moves`).
MOVES = [
    MoveRoute("seats/<seat:seat>/commit", "commitGopsBid", "Commit to a secret bid", CommitSchema, GopsSeatViewSchema,
              lambda body, seat, state: gops.Commit(seat, body["round"], body["commitment"],
                                                    referee.game_number(state, body.get("game_id"))),
              {"round": 1, "commitment": COMMITMENT_EXAMPLE}, endpoint="CommitBid",
              description="A commitment cannot change; sending the identical one again changes\n"
                          "nothing.  When every seat has committed the phase becomes ``reveal``."),
    MoveRoute("seats/<seat:seat>/reveal", "revealGopsBid", "Reveal a committed bid", RevealSchema, GopsSeatViewSchema,
              lambda body, seat, state: gops.Reveal(seat, body["round"], tuple(body["cards"]), body["salt"],
                                                    referee.game_number(state, body.get("game_id"))),
              {"round": 1, "cards": [9], "salt": SALT_EXAMPLE}, endpoint="RevealBid",
              description="The referee recomputes the hash and keeps your reveal from the other\n"
                          "seats until every seat has revealed; then the round resolves."),
    MoveRoute("seats/<seat:seat>/choose", "chooseGopsPrize", "Take a prize from the open row", RankSchema,
              GopsSeatViewSchema, lambda body, seat, state: gops.ChoosePrize(seat, body["rank"]), {"rank": 13},
              endpoint="ChoosePrize"),
    MoveRoute("seats/<seat:seat>/resign", "resignGopsSeat", "Resign", EmptyActionSchema, GopsSeatViewSchema,
              lambda body, seat, state: gops.Resign(seat), {}, endpoint="ResignSeat"),
    MoveRoute("prize", "reportGopsPrize", "Report the prize turned up at the table", RankSchema, GopsGameSchema,
              lambda body, seat, state: gops.ReportPrize(body["rank"]), {"rank": 8}, endpoint="ReportPrize",
              description="The host or any seat may report; the referee checks it is a prize not yet seen."),
    # Every seat that has not acted forfeits; with no person left, the bots play the match's next game.
    MoveRoute("deadline", "enforceGopsDeadline", "Enforce a passed deadline", EmptyActionSchema, GopsGameSchema,
              None, {}, endpoint="EnforceDeadline"),
]
add_moves(blp, KIND, referee, MOVES, authorize=_authorize)

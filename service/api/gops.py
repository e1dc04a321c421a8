"""The Gops HTTP API under ``/v1/gops``: thin views — parse, authorize, load, apply, store, respond."""

from __future__ import annotations

import secrets
from typing import Any, Callable

from flask.views import MethodView
from flask_smorest import Blueprint

from .. import auth, commitments, gops
from ..errors import Forbidden, IllegalAction
from ..store import Change, Record
from . import common, idempotency
from .gops_schemas import (
    CommitSchema,
    CreatedGopsGameSchema,
    CreateGopsGameSchema,
    EmptyActionSchema,
    GopsGameSchema,
    GopsSeatViewSchema,
    GopsTranscriptSchema,
    RankSchema,
    RevealSchema,
)

KIND = "gops"

blp = Blueprint(
    "gops",
    __name__,
    url_prefix="/v1/gops/games",
    description="Gops (Goofspiel): create games and matches, commit and reveal bids, read views and transcripts.",
)

_system_random = secrets.SystemRandom()

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
    "ReportPrize": {"operationId": "reportGopsPrize", "parameters": _ID},
    "EnforceDeadline": {"operationId": "enforceGopsDeadline", "parameters": _ID},
}


# ------------------------------------------------------------------ helpers


def _deal(state: gops.Gops, at: float, entries: list[dict[str, Any]], version: int) -> None:
    """Supply chance: a shuffled prize order (OS randomness) and the salt of its commitment."""
    while state.needs_chance:
        order = list(range(1, state.rules.ranks + 1))
        _system_random.shuffle(order)
        action = gops.DealPrizes(tuple(order), commitments.new_salt())
        game = state.game.number
        state.apply(action, at)
        entries.append(_entry(version, at, "referee", action, game))


def _entry(version: int, at: float, by: str, action: gops.Action | dict, game: int, round: int = 1) -> dict[str, Any]:
    data = action if isinstance(action, dict) else gops.action_to_dict(action)
    return {"version": version, "at": at, "by": by, "game": game, "round": round, "action": data}


def _view(record: Record, seat: int | None = None) -> dict[str, Any]:
    state = gops.Gops.from_dict(record.doc["state"])
    data = gops.view(state, seat, common.now())
    data["version"] = record.version
    return data


def _game_number(state: gops.Gops, body: dict[str, Any]) -> int | None:
    """The game (number) a commit or reveal names with its optional ``game_id``."""
    named = body.get("game_id")
    if named is None:
        return None
    if named == state.game.game_id:
        return state.game.number
    prefix = f"{state.id}-"
    if state.match.format != "single" and named.startswith(prefix) and named[len(prefix):].isdigit():
        return int(named[len(prefix):])
    raise IllegalAction(f"{named!r} is not a game of {state.id}", code="wrong_game", game_id=state.game.game_id)


def _act(game_id: str, body: dict[str, Any], make: Callable[[gops.Gops], gops.Action],
         seat: int | None = None, host_allowed: bool = False) -> dict[str, Any]:
    def may_act(who: str, record: Record) -> None:
        if seat is not None:
            common.require_seat(who, seat)
        elif who == "host" and not host_allowed:
            raise Forbidden("the host token cannot make this move", code="host_not_allowed")
        elif who.startswith("seat:"):
            state = record.doc["state"]
            out = int(who[5:])
            if out in state["resigned"] or str(out) in state["game"]["forfeited"]:
                raise Forbidden(f"seat {out} is out of the game: its token can no longer act", code="seat_out")

    def transition(record: Record, who: str, at: float) -> Change | None:
        state = gops.Gops.from_dict(record.doc["state"])
        action = make(state)
        game, round_ = state.game.number, state.game.round
        if not state.apply(action, at):
            return None  # an exact repeat: nothing changes, same answer
        version = record.version + 1
        entries = [_entry(version, at, who, action, game, round_)]
        _deal(state, at, entries, version)
        doc = dict(record.doc, state=state.to_dict(), updated_at=at)
        return Change(doc, entries, finished=state.over)

    return common.act(KIND, game_id, body, transition, lambda record: _view(record, seat), may_act)


# -------------------------------------------------------------------- views


@blp.route("")
class Games(MethodView):
    @blp.doc(operationId="createGopsGame", summary="Create a Gops game or match",
             parameters=[common.IDEMPOTENCY_KEY_PARAMETER],
             responses={201: {"links": CREATE_LINKS}})
    @blp.arguments(
        CreateGopsGameSchema,
        required=False,
        examples={
            "classic": {"summary": "Two players, ties carry over (seed 000)", "value": {"profile": "classic"}},
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
    @common.error_responses(blp, "create")
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
        response, replayed = idempotency.once(common.client_scope("gops-create"), body, lambda: _create(body))
        return response, 201, {"Idempotent-Replayed": "true" if replayed else "false"}


def _create(body: dict[str, Any]) -> dict[str, Any]:
    rules = gops.make_rules(body["profile"], **body["options"])
    match = gops.make_match_rules(**body["match"])
    game_id = auth.new_game_id()
    at = common.now()
    state = gops.Gops.new(game_id, rules, match, now=at)
    entries = [_entry(1, at, "host", {"type": "create", "rules": rules.to_dict(), "match": match.to_dict()}, 1)]
    _deal(state, at, entries, 1)
    host, seat_tokens, hashes = common.new_tokens(rules.players)
    doc = {"kind": KIND, "state": state.to_dict(), "auth": hashes, "created_at": at, "updated_at": at}
    record = common.store().create(KIND, game_id, doc, entries)
    return {"id": game_id, "host_token": host, "seat_tokens": seat_tokens, "game": _view(record)}


@blp.route("/<string:game_id>")
class Game(MethodView):
    @blp.doc(operationId="getGopsGame", summary="Read a game's public state")
    @blp.response(200, GopsGameSchema)
    @common.error_responses(blp, "read")
    def get(self, game_id: str):
        """What anyone with the game id may see: hands (spent bids are public), prizes, scores, history.

        Send ``If-None-Match`` with the last ETag to poll cheaply (304 when unchanged).
        """
        record = common.store().load(KIND, game_id)
        return common.conditional(_view(record), record.version, GopsGameSchema())


@blp.route("/<string:game_id>/seats/<seat:seat>")
class SeatView(MethodView):
    @blp.doc(operationId="getGopsSeatView", summary="Read one seat's own view, with what it may do next",
             security=[{"bearerAuth": []}])
    @blp.response(200, GopsSeatViewSchema)
    @common.error_responses(blp, "seat_read")
    def get(self, game_id: str, seat: int):
        """The public state plus this seat's own unresolved reveal and its legal actions."""
        record = common.store().load(KIND, game_id)
        who = common.identify(record.doc["auth"], common.bearer_hash())
        common.require_seat(who, seat)
        data = _view(record, seat)
        late = any(a["type"] == "enforce_deadline" for a in data["legal_actions"])
        return common.conditional(data, record.version, GopsSeatViewSchema(), "-late" if late else "")


@blp.route("/<string:game_id>/seats/<seat:seat>/commit")
class CommitBid(MethodView):
    @blp.doc(operationId="commitGopsBid", parameters=[common.IDEMPOTENCY_KEY_PARAMETER], summary="Commit to a secret bid", security=[{"bearerAuth": []}])
    @blp.arguments(CommitSchema, example={"round": 1, "commitment": COMMITMENT_EXAMPLE})
    @blp.response(200, GopsSeatViewSchema)
    @common.error_responses(blp, "act")
    def post(self, body: dict[str, Any], game_id: str, seat: int):
        """Send ``sha256("gops-bid-v1|<game_id>|<round>|<seat>|<cards>|<salt>")`` as lowercase hex.

        A commitment cannot change; sending the identical one again changes
        nothing.  When every seat has committed the phase becomes ``reveal``.
        """
        return _act(game_id, body, lambda state: gops.Commit(
            seat, body["round"], body["commitment"], _game_number(state, body)), seat=seat)


@blp.route("/<string:game_id>/seats/<seat:seat>/reveal")
class RevealBid(MethodView):
    @blp.doc(operationId="revealGopsBid", parameters=[common.IDEMPOTENCY_KEY_PARAMETER], summary="Reveal a committed bid", security=[{"bearerAuth": []}])
    @blp.arguments(RevealSchema, example={"round": 1, "cards": [9], "salt": SALT_EXAMPLE})
    @blp.response(200, GopsSeatViewSchema)
    @common.error_responses(blp, "act")
    def post(self, body: dict[str, Any], game_id: str, seat: int):
        """Send the cards and salt you committed to.

        The referee recomputes the hash and keeps your reveal from the other
        seats until every seat has revealed; then the round resolves.
        """
        return _act(game_id, body, lambda state: gops.Reveal(
            seat, body["round"], tuple(body["cards"]), body["salt"], _game_number(state, body)), seat=seat)


@blp.route("/<string:game_id>/seats/<seat:seat>/choose")
class ChoosePrize(MethodView):
    @blp.doc(operationId="chooseGopsPrize", parameters=[common.IDEMPOTENCY_KEY_PARAMETER], summary="Take a prize from the open row", security=[{"bearerAuth": []}])
    @blp.arguments(RankSchema, example={"rank": 13})
    @blp.response(200, GopsSeatViewSchema)
    @common.error_responses(blp, "act")
    def post(self, body: dict[str, Any], game_id: str, seat: int):
        """With open prizes, the round's winner takes one prize of their choice (one per pick owed)."""
        return _act(game_id, body, lambda state: gops.ChoosePrize(seat, body["rank"]), seat=seat)


@blp.route("/<string:game_id>/seats/<seat:seat>/resign")
class ResignSeat(MethodView):
    @blp.doc(operationId="resignGopsSeat", parameters=[common.IDEMPOTENCY_KEY_PARAMETER], summary="Resign", security=[{"bearerAuth": []}])
    @blp.arguments(EmptyActionSchema, required=False, example={})
    @blp.response(200, GopsSeatViewSchema)
    @common.error_responses(blp, "act")
    def post(self, body: dict[str, Any], game_id: str, seat: int):
        """Leave the game (and the rest of the match). The seat wins nothing more;
        with one seat left the game ends and that seat wins."""
        return _act(game_id, body or {}, lambda state: gops.Resign(seat), seat=seat)


@blp.route("/<string:game_id>/prize")
class ReportPrize(MethodView):
    @blp.doc(operationId="reportGopsPrize", parameters=[common.IDEMPOTENCY_KEY_PARAMETER], summary="Report the prize turned up at the table",
             security=[{"bearerAuth": []}])
    @blp.arguments(RankSchema, example={"rank": 8})
    @blp.response(200, GopsGameSchema)
    @common.error_responses(blp, "act")
    def post(self, body: dict[str, Any], game_id: str):
        """With prize order ``reported``: the card just turned up from the physical prize pile.

        The host or any seat may report; the referee checks it is a prize not yet seen.
        """
        data = _act(game_id, body, lambda state: gops.ReportPrize(body["rank"]), host_allowed=True)
        return data


@blp.route("/<string:game_id>/deadline")
class EnforceDeadline(MethodView):
    @blp.doc(operationId="enforceGopsDeadline", parameters=[common.IDEMPOTENCY_KEY_PARAMETER], summary="Enforce a passed deadline", security=[{"bearerAuth": []}])
    @blp.arguments(EmptyActionSchema, required=False, example={})
    @blp.response(200, GopsGameSchema)
    @common.error_responses(blp, "act")
    def post(self, body: dict[str, Any], game_id: str):
        """Once the phase's deadline has passed, any seat or the host may ask the referee to
        enforce it: every seat that has not acted forfeits."""
        return _act(game_id, body or {}, lambda state: gops.EnforceDeadline(), host_allowed=True)


@blp.route("/<string:game_id>/transcript")
class Transcript(MethodView):
    @blp.doc(operationId="getGopsTranscript", summary="Read the full transcript")
    @blp.response(200, GopsTranscriptSchema)
    @common.error_responses(blp, "read")
    def get(self, game_id: str):
        """Every applied action in order, with the time and who made it.

        Secrets are withheld (null) until they become public: the round's
        commitments until every seat has committed, its reveals until the
        round is over, the shuffled prize order until the game is over.  Once
        the game is over the transcript is complete and re-verifiable offline.
        """
        store = common.store()
        record = store.load(KIND, game_id)
        state = gops.Gops.from_dict(record.doc["state"])
        entries = [e for e in store.transcript(KIND, game_id) if e["version"] <= record.version]
        # What the public may read is the observer's decision (gops.transcript), not this view's.
        return {"id": game_id, "kind": KIND, "version": record.version, **gops.transcript(state, entries)}

"""The Gofo HTTP API under ``/v1/gofo/tables``: a table, its hands, one endpoint per kind of move.

Thin: what a move does to a stored table is :mod:`service.games.gofo.referee`'s; what anyone may
see of it, :mod:`service.games.gofo.observer`'s. At a tabletop table (real cards) the host token may
act for any seat: one phone refereeing a real table.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from flask.views import MethodView

from service.games import gofo
from service.errors import Forbidden
from service.games.gofo import hint, referee
from service.storage.store import Record
from service.api import common, idempotency, moves, names, views
from service.api.move_routes import MoveRoute, add_moves
from service.api.schemas import NameSchema
from service.api.gofo_schemas import (
    AmountSchema,
    CreatedGofoTableSchema,
    CreateGofoTableSchema,
    DeclareSchema,
    DiscardSchema,
    EnterSchema,
    GofoDeadlineAnswerSchema,
    GofoHintSchema,
    GofoMoveAnswerSchema,
    GofoSeatViewSchema,
    GofoTableSchema,
    InaugurateSchema,
    LedgerSchema,
    NoBodySchema,
    OpenSchema,
    ShowSchema,
)
from service.games.gofo.schemas import GofoTranscriptSchema

KIND = referee.KIND

blp = common.Blueprint(
    "gofo",
    __name__,
    url_prefix="/v1/gofo/tables",
    description="Gofo (Bengolea): tables, hands dealt by the referee or played with real cards, bets, pots and the ledger.",
)

_ID = {"table_id": "$response.body#/id"}
_TO_ACT = {**_ID, "seat": "$response.body#/table/hand/to_act"}
_TO_INAUGURATE = {**_ID, "seat": "$response.body#/table/inaugurations_pending/0"}


_view = partial(common.view, referee)  # (record, seat=None)


def _view_answer(record: Record, seat: int | None, schema):
    """The view of ``record`` for ``seat`` as a response (:func:`service.api.views.shared_view`): a
    Gofo view takes nothing from the clock (its deadlines are instants), so the seat is the whole key."""
    return views.shared_view(record, seat, lambda: _view(record, seat), schema)


def _require_seat_or_tabletop_host(who: str, record: Record, seat: int) -> None:
    """A seat's own token; at a tabletop table the host's token too (one phone for the table)."""
    common.require_seat_exists(referee, record, seat, "table")
    if who == "host":
        if referee.host_acts_for_seats(record.doc):
            return
        raise Forbidden("at a dealt table the host cannot act for a seat", code="host_not_allowed")
    common.require_seat(who, seat, referee, record)


def _authorize(who: str, record: Record, seat: int | None) -> None:
    """A seat's move needs its token (at a tabletop table the host's will do); the deadline, any token."""
    if seat is not None:
        _require_seat_or_tabletop_host(who, record, seat)


class GofoRename(names.Rename):
    """A seat names itself (:mod:`service.api.names`); at a tabletop table the host may name any seat."""

    def over(self, record: Record) -> bool:
        return False  # a session has no end: names may change between any two hands

    def entry(self, record: Record, who: str, at: float) -> dict[str, Any]:
        hand = record.doc["state"]["hand_number"]
        return referee.entry(record.version + 1, at, who, self.seat, hand, self.action)

    def authorize(self, who: str, record: Record) -> None:
        _require_seat_or_tabletop_host(who, record, self.seat)


def _answer(record: Record, seat: int | None) -> dict[str, Any]:
    """The answer to a move: the view, who acts next (its legal actions if the caller may see them)
    and the result of a hand the move ended (``referee.move_answer`` decides)."""
    caller = common.identify(record.doc["auth"], common.bearer_hash()) if common.bearer_hash() else None
    return referee.move_answer(record.doc, record.version, seat, caller, record.state)


#: The moves, one route each (:func:`service.api.move_routes.add_moves`): a seat's, then the deadline.
MOVES = [
    MoveRoute("seats/<seat:seat>/open", "gofoOpen", "Open the hand (mano bets the apertura)",
              OpenSchema, GofoMoveAnswerSchema, lambda b, seat, state: gofo.Open(b["amount"]), {"amount": 2},
              "Mano bets the opening before looking; it must be below every resto."),
    MoveRoute("seats/<seat:seat>/look", "gofoLook", "Look at your first two cards", NoBodySchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Look(), {},
              "Dealt mode: reveals your two cards to you; you can no longer enter blind."),
    MoveRoute("seats/<seat:seat>/enter", "gofoEnter", "Enter the hand, seen or blind", EnterSchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Enter(b["blind"]), {"blind": True},
              "Put in the opening. Entering blind (without looking) lets you raise the opening."),
    MoveRoute("seats/<seat:seat>/decline", "gofoDecline", "Decline the hand", NoBodySchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Decline(), {}, "Stay out of this hand, losing nothing."),
    MoveRoute("seats/<seat:seat>/raise", "gofoRaise", "Raise the opening", AmountSchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Raise(b["amount"]), {"amount": 4},
              "Raise the opening by an amount within legal_actions' range."),
    MoveRoute("seats/<seat:seat>/pass", "gofoPass", "Pass the chance to raise", NoBodySchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Pass(), {}, "Do not raise (the opening, or refichar after a corte)."),
    MoveRoute("seats/<seat:seat>/ver", "gofoVer", "Ver: match the bet", NoBodySchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Ver(), {},
              "Match the bet in force (all-in if your resto is short: side pots follow)."),
    MoveRoute("seats/<seat:seat>/no-ver", "gofoNoVer", "No ver: fold", NoBodySchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.NoVer(), {}, "Fold, losing what you have put in."),
    MoveRoute("seats/<seat:seat>/voy", "gofoVoy", "Voy: pass without betting", NoBodySchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Voy(), {}, "Speak without betting."),
    MoveRoute("seats/<seat:seat>/corta", "gofoCorta", "Corta: bet after the deal", AmountSchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Corta(b["amount"]), {"amount": 5},
              "Cut: bet any amount of your resto; one more discard follows the betting, then the canto."),
    MoveRoute("seats/<seat:seat>/refiche", "gofoRefiche", "Refichar: raise after a corte",
              AmountSchema, GofoMoveAnswerSchema, lambda b, seat, state: gofo.Refiche(b["amount"]), {"amount": 5},
              "At least the previous bet or raise, unless it is all your resto (jugado)."),
    MoveRoute("seats/<seat:seat>/discard", "gofoDiscard", "Discard and draw", DiscardSchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Discard(tuple(b.get("cards") or ()), b.get("count")), {"cards": ["3o", "4c"]},
              "Throw 0–5 cards and receive as many. Tabletop: send the count, or the face-up cards."),
    MoveRoute("seats/<seat:seat>/show", "gofoShow", "Show your five cards at the canto",
              ShowSchema, GofoMoveAnswerSchema, lambda b, seat, state: gofo.Show(tuple(b["cards"])), {"cards": ["6e", "7e", "11e", "12e", "3o"]},
              "Tabletop: enter your five cards; the referee checks them."),
    MoveRoute("seats/<seat:seat>/declare", "gofoDeclare", "Declare your points at the canto",
              DeclareSchema, GofoMoveAnswerSchema, lambda b, seat, state: gofo.Declare(b["points"]), {"points": 27},
              "Tabletop: declare points; a winner must then show cards worth exactly that. Declaring again corrects "
              "your declaration (out of turn too) until someone has shown cards."),
    MoveRoute("seats/<seat:seat>/muck", "gofoMuck", "Muck: concede at the canto", NoBodySchema, GofoMoveAnswerSchema,
              lambda b, seat, state: gofo.Muck(), {},
              "Tabletop canto: give up your claim to every pot (out of turn too), your cards unseen; your chips stay "
              "in the pots they fed. The last claimant left takes every pot without showing."),
    MoveRoute("seats/<seat:seat>/reshuffle", "gofoReportReshuffle", "Report that the pile was reshuffled",
              NoBodySchema, GofoMoveAnswerSchema, lambda b, seat, state: gofo.Reshuffle(None), {},
              "Tabletop: the dealer reports that the real pile was shuffled into a new stock."),
    MoveRoute("seats/<seat:seat>/inaugurate", "gofoInaugurate", "Choose the front of your new caja",
              InaugurateSchema, GofoMoveAnswerSchema, lambda b, seat, state: gofo.Inaugurate(b["front"]), {"front": 30},
              "A table with inauguration chosen, between hands: a seat that took a new caja puts 2× or 3× the refill "
              "(at most the caja; legal_actions' fronts) in front for its first hand. The next hand begins once every "
              "such seat has chosen; until then any other move is refused (inauguration_pending)."),
    # Silence moves a seat whose turn ran out as it moves a player at a real table: no ver, pass, voy,
    # decline, stand pat; a silent mano opens 1 chip; a silent seat inaugurating a new caja puts
    # inauguration_front in front if it is allowed, else the smallest front.
    MoveRoute("deadline", "enforceGofoDeadline", "Move a seat whose time ran out", NoBodySchema,
              GofoDeadlineAnswerSchema, None, {}, endpoint="EnforceDeadline"),
]


# ----------------------------------------------------------------- routes


@blp.route("")
class Tables(MethodView):
    @blp.doc(operationId="createGofoTable", summary="Open a Gofo table",
             parameters=[common.IDEMPOTENCY_KEY_PARAMETER], security=common.CREATE_SECURITY,
             responses={201: {"links": {
                 "GetTable": {"operationId": "getGofoTable", "parameters": _ID},
                 "GetSeatView": {"operationId": "getGofoSeatView", "parameters": {**_ID, "seat": 0},
                                 "description": "Seat 0's view (send seat_tokens[0] as the bearer token)."},
                 "GetLedger": {"operationId": "getGofoLedger", "parameters": _ID},
                 "GetTranscript": {"operationId": "getGofoTranscript", "parameters": _ID},
                 "EnforceDeadline": {"operationId": "enforceGofoDeadline", "parameters": _ID},
                 "NameSeat": {"operationId": "nameGofoSeat", "parameters": {**_ID, "seat": 0},
                              "description": "Seat 0 names itself (send seat_tokens[0] as the bearer token)."},
                 "GetHint": {"operationId": "getGofoHint", "parameters": _TO_ACT,
                             "description": "The odds of the seat whose turn it is."},
                 "Watch": {"operationId": "watchGofoTable", "parameters": _ID,
                           "description": "The table's new versions as they happen."},
                 **{f"Move{op[4:]}": {"operationId": op, "parameters": _TO_ACT,
                                      "description": "The seat whose turn it is makes this move."}
                    for op in (route.operation_id for route in MOVES[:-1]) if op != "gofoInaugurate"},
                 "MoveInaugurate": {"operationId": "gofoInaugurate", "parameters": _TO_INAUGURATE,
                                    "description": "Between hands (inauguration chosen): the first seat still to "
                                                   "choose the front of its new caja makes this move."},
                 **common.APP_LINKS,
             }}})
    @blp.arguments(CreateGofoTableSchema, required=False, examples={
        "five_dealt": {"summary": "Five players, the referee deals", "value": {"seats": 5, "caja": 100, "refill": 10}},
        "six_tabletop": {"summary": "Six players with real cards", "value": {"seats": 6, "caja": 200, "refill": 20, "initial_front": 50, "mode": "tabletop"}},
        "chosen_inauguration": {"summary": "A new caja's first front chosen by its player (2× or 3× the refill)", "value": {"seats": 4, "caja": 100, "refill": 10, "inauguration": "chosen"}},
    })
    @blp.response(201, CreatedGofoTableSchema)
    @common.error_responses("create")
    def post(self, body: dict[str, Any]):
        """Open a table: seats, chips (caja, front, refill) and the mode.

        The first dealer is drawn by cards at once (highest deals; ties draw
        again) and the first hand begins.  Returns one bearer token per seat
        and one for the host, shown only here.
        """
        return idempotency.once(common.client_scope("gofo-create"), body,
                                lambda: common.create_game(KIND, referee, body, "table")), 201


@blp.route("/<string:table_id>")
class TableView(MethodView):
    @blp.doc(operationId="getGofoTable", summary="Read a table's public view")
    @blp.response(200, GofoTableSchema)
    @common.error_responses("read")
    def get(self, table_id: str):
        """Stacks, pots, bets, face-up discards and whose turn it is; never a hidden card."""
        record = common.fetched(KIND, table_id)
        return _view_answer(record, None, GofoTableSchema)


@blp.route("/<string:table_id>/seats/<seat:seat>")
class SeatView(MethodView):
    @blp.doc(operationId="getGofoSeatView", summary="Read one seat's view, with its legal actions",
             security=[{"bearerAuth": []}])
    @blp.response(200, GofoSeatViewSchema)
    @common.error_responses("seat_read")
    def get(self, table_id: str, seat: int):
        """The public view plus this seat's cards (dealt mode) and exactly what it may do now,
        with the allowed bet range."""
        record = common.fetched(KIND, table_id)
        who = common.identify(record.doc["auth"], common.bearer_hash())
        _require_seat_or_tabletop_host(who, record, seat)
        return _view_answer(record, seat, GofoSeatViewSchema)


HINT_EXAMPLE = {
    "phase": "speaking", "cards": ["5o", "11o", "12o", "4c", "7e"], "value": 22, "discards": None,
    "bet": {"to_call": 0, "pot": 8, "pot_odds": 0.0, "win_chance": 0.4125, "win_chance_margin": 0.0482, "rivals": 3},
    "suggestion": {"type": "corta", "amount": 4},
}


@blp.route("/<string:table_id>/seats/<seat:seat>/hint")
class Hint(MethodView):
    @blp.doc(operationId="getGofoHint", summary="The seat's odds: its hand's value, each discard's prospects, pot odds",
             security=[{"bearerAuth": []}])
    @blp.response(200, GofoHintSchema, example=HINT_EXAMPLE)
    @common.error_responses("hint")
    def get(self, table_id: str, seat: int):
        """For the seat to act at a dealt table, from its own view only (the cards it has not seen
        are sampled): the hand's value now; at a discard, the throws the strongest bot weighs with the
        expected value after the draws and the chance to improve; where chips are at stake, the pot
        odds and the chance to win the strongest bot weighed its move on; and that bot's move.  Estimates
        are sampled from a seed derived from the seat's view, so the same position always gets the
        same answer; each carries the half-width of its 95 % interval (``…_margin``).  Not the seat's turn, or a tabletop table:
        ``hint_unavailable`` (409)."""
        record = common.fetched(KIND, table_id)
        who = common.identify(record.doc["auth"], common.bearer_hash())
        _require_seat_or_tabletop_host(who, record, seat)  # at a tabletop table: then hint_unavailable
        return hint.hint(_view(record, seat))


@blp.route("/<string:table_id>/ledger")
class Ledger(MethodView):
    @blp.doc(operationId="getGofoLedger", summary="Read the chip ledger")
    @blp.response(200, LedgerSchema)
    @common.error_responses("read")
    def get(self, table_id: str):
        """Each seat's front, chips behind, cajas taken and balance, and every finished hand's result."""
        record = common.fetched(KIND, table_id, shared=False)
        return referee.ledger(record.doc, record.version)


@blp.route("/<string:table_id>/transcript")
class Transcript(MethodView):
    @blp.doc(operationId="getGofoTranscript", summary="Read the table's transcript")
    @blp.response(200, GofoTranscriptSchema)
    @common.error_responses("read")
    def get(self, table_id: str):
        """Every applied action with who made it.  The deck order of the hand in progress is
        withheld; finished hands' orders and salts are in ``deals`` to check their commitments."""
        return common.transcript(KIND, table_id, referee)


@blp.route("/<string:table_id>/seats/<seat:seat>/name")
class NameSeat(MethodView):
    @blp.doc(operationId="nameGofoSeat", summary="Set your name", security=[{"bearerAuth": []}],
             parameters=[common.IDEMPOTENCY_KEY_PARAMETER])
    @blp.arguments(NameSchema, example={"name": "Ana"})
    @blp.response(200, GofoSeatViewSchema)
    @common.error_responses("act")
    def post(self, body: dict[str, Any], table_id: str, seat: int):
        """Set or change this seat's name, shown to everyone in views, the ledger and the transcript (up
        to 24 characters; spaces around it are dropped). At a tabletop table the host may name any seat."""
        return moves.act(KIND, table_id, body, GofoRename(referee, seat, body["name"]))


add_moves(blp, KIND, referee, MOVES, game="table_id", authorize=_authorize, answer=_answer)

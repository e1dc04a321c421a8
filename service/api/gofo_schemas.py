"""Marshmallow schemas of the Gofo API: one request schema per kind of move, and the views.

Every move has its own endpoint and its own schema (no ``oneOf``), so SDK
generators give each a typed method.  Requests refuse unknown fields.
"""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.games.gofo.cards import DECK
from service.games.gofo.hand import MODES
from service.games.gofo.rules import INAUGURATIONS
from service.api.schemas import BotSchema, VersionedSchema, bots_field, doc, names_field
from service.games.gofo.schemas import (  # (the transcript's own schemas, which the verifier loads with too)
    CARD_DOC, Card, DealRevealSchema, DiscardRecordSchema, HandResultSchema, PotSchema, TableOptionsSchema, cards_field,
)


CARD_COMPONENT = {"type": "string", "enum": list(DECK), "description": CARD_DOC}


def card_ref(converter, field, ret=None, **kwargs) -> dict:
    """apispec attribute function: a :class:`Card` field is ``$ref: Card`` (plus nullable)."""
    if isinstance(field, Card):
        ret.clear()
        ref = {"$ref": "#/components/schemas/Card"}
        return {"allOf": [ref], "nullable": True} if field.allow_none else ref
    return {}


# ----------------------------------------------------------------- requests


class LedgerList(fields.List):
    """One integer per seat of a resumed session; an empty list loads as None: not given.

    The number of seats is another field, which the schema cannot size an array by: an SDK that
    sends every array it models, empty when unset, sends what "not given" means.
    """

    def _deserialize(self, value, attr, data, **kwargs):
        loaded = super()._deserialize(value, attr, data, **kwargs)
        return loaded or None


def _ledger(text: str) -> LedgerList:
    return LedgerList(fields.Integer(strict=True), allow_none=True, **doc(text))


class CreateGofoTableSchema(ma.Schema):
    seats = fields.Integer(strict=True, load_default=5, validate=validate.Range(min=2, max=6), **doc("Players at the table, 2–6 (at most 5 play a hand)."))
    caja = fields.Integer(strict=True, load_default=100, validate=validate.Range(min=1, max=1_000_000), **doc("Chips in one caja (each player starts with one)."))
    refill = fields.Integer(strict=True, load_default=10, validate=validate.Range(min=1, max=1_000_000), **doc("The agreed reposición: chips moved from behind to the front when the front is empty."))
    initial_front = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=1_000_000), **doc("Chips put al frente before the first hand (default 3× the refill)."))
    inauguration_front = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=1, max=1_000_000), **doc("Front of a new caja's first hand (default: initial_front)."))
    mode = fields.String(load_default="dealt", validate=validate.OneOf(MODES), **doc("dealt: the referee shuffles and deals; tabletop: real cards on a real table."))
    inauguration = fields.String(allow_none=True, validate=validate.OneOf(INAUGURATIONS), **doc(
        "fixed (default): a seat that takes a new caja puts inauguration_front in front for its first hand. "
        "chosen: it chooses 2× or 3× the refill (each at most the caja) with the inaugurate move, and the next "
        "hand begins once every seat that took a new caja has chosen."))
    first_dealer = fields.Integer(strict=True, allow_none=True, **doc(
        "Tabletop only: the seat that won the first-dealer draw made by hand at the real table (highest card "
        "deals, ties draw again). The referee then draws nothing and the first hand begins with this dealer; "
        "it is recorded in the create entry's options. None (default): the referee draws. With fronts (a resumed "
        "session) also at a dealt table: the seat that deals the next hand."))
    fronts = _ledger(
        "Resume a session begun on paper: each seat's front now (at least 1), one entry per seat. Give behinds, "
        "cajas and first_dealer (the next dealer) with it; fronts + behinds must equal cajas taken × caja "
        "(chips_not_conserved). Null, [] or absent: not a resumed session.")
    behinds = _ledger("Resume a session: each seat's chips behind now (0 up to below a caja), one entry per seat. "
                      "Null, [] or absent: not given.")
    cajas = _ledger("Resume a session: the cajas each seat has taken so far, the first included (at least 1), one "
                    "entry per seat. Null, [] or absent: not given.")
    turn_seconds = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=5, max=86400), **doc(
        "Seconds a seat has to move once it is its turn; after that anyone at the table may enforce the "
        "deadline and the seat makes the move a silent player makes (no ver, pass, voy, decline, stand pat; "
        "a silent mano opens 1). None (default): no deadline."))
    names = names_field()
    bots = bots_field()


class OpenSchema(VersionedSchema):
    amount = fields.Integer(strict=True, required=True, validate=validate.Range(min=1), **doc("The opening (apertura): below the smallest resto at the table."))


class EnterSchema(VersionedSchema):
    blind = fields.Boolean(required=True, truthy={True}, falsy={False}, **doc("true: enter de ciego, without looking (and earn the right to raise the opening)."))


class AmountSchema(VersionedSchema):
    amount = fields.Integer(strict=True, required=True, validate=validate.Range(min=1), **doc("Chips added above the bet in force; see legal_actions for the allowed range."))


class DiscardSchema(VersionedSchema):
    cards = cards_field("The cards thrown (dealt mode: required, 0–5 of your cards; tabletop: optional face-up cards).", load_default=list, validate=validate.Length(max=5))
    count = fields.Integer(strict=True, allow_none=True, validate=validate.Range(min=0, max=5), **doc("Tabletop: how many cards were thrown (when the cards are not reported)."))


class InaugurateSchema(VersionedSchema):
    front = fields.Integer(strict=True, required=True, validate=validate.Range(min=1), **doc(
        "The chips put in front for the new caja's first hand: one of legal_actions' fronts (2× or 3× the refill, at most the caja)."))


class ShowSchema(VersionedSchema):
    cards = cards_field("Your five cards, entered at the canto (tabletop).", required=True, validate=validate.Length(equal=5))


class DeclareSchema(VersionedSchema):
    points = fields.Integer(strict=True, required=True, validate=validate.Range(min=7, max=30), **doc("The points you declare at the canto (tabletop); a winner must then show cards worth exactly that."))


class NoBodySchema(VersionedSchema):
    pass


# ---------------------------------------------------------------- responses


class LedgerSeatSchema(ma.Schema):
    seat = fields.Integer(required=True)
    front = fields.Integer(required=True, **doc("Chips al frente (the resto between hands)."))
    behind = fields.Integer(required=True, **doc("Chips atrás: only refill the front."))
    cajas = fields.Integer(required=True, **doc("Cajas taken so far (the first included)."))
    balance = fields.Integer(required=True, **doc("Chips won (+) or lost (−) so far: what is settled at the end."))


class BetSchema(ma.Schema):
    context = fields.String(required=True, **doc("opening (raising the opening) or corte (betting after a corte)."))
    bettor = fields.Integer(required=True)
    level = fields.Integer(required=True, **doc("Chips each player must have put in to stay."))
    last_raise = fields.Integer(required=True, **doc("The last bet or raise: the minimum refiche."))
    stage = fields.String(required=True, **doc("answer (ver / no ver) or refiche."))
    closed = fields.Boolean(required=True, **doc("An all-in refiche closed raising."))


class CantoSchema(ma.Schema):
    stage = fields.String(required=True)
    declared = fields.List(fields.Integer(allow_none=True), required=True)
    cards = fields.List(fields.List(Card(), allow_none=True), required=True)


class GofoLegalActionSchema(ma.Schema):
    type = fields.String(required=True, validate=validate.OneOf(
        ["look", "open", "enter", "decline", "raise", "pass", "ver", "no_ver", "voy", "corta",
         "refiche", "discard", "show", "declare", "muck", "reshuffle", "inaugurate"]))
    min = fields.Integer(**doc("Smallest allowed amount (or number of cards to discard)."))
    max = fields.Integer(**doc("Largest allowed amount (or number of cards to discard)."))
    blind = fields.Boolean(**doc("enter: whether this is the blind way to enter."))
    cards = fields.List(Card(), **doc("discard: the cards you may throw."))
    fronts = fields.List(fields.Integer(), **doc("inaugurate: the fronts you may put out of your new caja, smallest first."))


class GofoHandSchema(ma.Schema):
    mode = fields.String(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(
        ["shuffle", "opening", "entering", "raising", "betting", "speaking", "discard", "reshuffle", "canto", "over"]))
    dealer = fields.Integer(required=True)
    mano = fields.Integer(required=True)
    to_act = fields.Integer(allow_none=True, required=True, **doc("Whose turn it is."))
    chance = fields.String(allow_none=True, required=True)
    opening = fields.Integer(required=True)
    round = fields.Integer(required=True, **doc("Speaking round (1–4)."))
    after_corte = fields.Boolean(required=True)
    final_discard = fields.Boolean(required=True)
    keep_right = fields.Boolean(required=True)
    status = fields.List(fields.String(), required=True, **doc("Per seat: out, pending, in, declined or folded."))
    blind = fields.List(fields.Boolean(), required=True)
    looked = fields.List(fields.Boolean(), required=True)
    stacks = fields.List(fields.Integer(), required=True, **doc("Each seat's front when the hand began."))
    committed = fields.List(fields.Integer(), required=True, **doc("Chips each seat has put in this hand."))
    resto = fields.List(fields.Integer(), required=True, **doc("Chips each seat can still bet."))
    pots = fields.List(fields.Nested(PotSchema), required=True)
    bet = fields.Nested(BetSchema, allow_none=True, required=True)
    discards = fields.List(fields.Nested(DiscardRecordSchema), required=True)
    kept = fields.List(fields.List(Card()), required=True)
    kept_count = fields.List(fields.Integer(), required=True)
    result = fields.Nested(HandResultSchema, allow_none=True, required=True)
    card_counts = fields.List(fields.Integer(), **doc("Dealt mode: cards in each hand."))
    stock_count = fields.Integer(**doc("Dealt mode: cards left in the stock."))
    pile_count = fields.Integer(**doc("Dealt mode: cards in the discard pile."))
    known_out = fields.List(Card(), **doc(
        "Tabletop: the cards thrown face up in this hand known to be out of play (in the pile since the last "
        "reported reshuffle, or kept to a player's right); a face-up discard or a canto naming one is refused "
        "(duplicate_card). Cards thrown before a reshuffle went back into the stock and are not listed."))
    canto = fields.Nested(CantoSchema)
    turn_deadline_at = fields.Float(allow_none=True, **doc("Unix time after which the seat to act may be moved by the deadline (tables with turn_seconds)."))
    deck_commitment = fields.String(allow_none=True, **doc("Dealt mode: sha256(gofo-deck-v2|<hand_id>|<28 card leaves>|<reshuffle key hash>), published before the deal (see DealReveal)."))
    hand_id = fields.String(**doc("The id the deck commitment names: <table id>-<hand number>."))


class GofoSeatHandSchema(GofoHandSchema):
    seat = fields.Integer(required=True)
    legal_actions = fields.List(fields.Nested(GofoLegalActionSchema), required=True)
    my_cards = fields.List(Card(), **doc("Dealt mode: the cards you may see (none before you look)."))
    my_value = fields.Integer(allow_none=True, **doc("Dealt mode: the value of your five cards."))


class DrawCommitmentSchema(ma.Schema):
    round = fields.Integer(required=True, **doc("Draw round, from 1 (ties draw again)."))
    seats = fields.List(fields.Integer(), required=True, **doc("The seats that drew, in order."))
    commitment = fields.String(required=True, **doc("sha256(gofo-draw-v1|<table id>|<round>|<draw deck>|<salt>); the seats took its top cards."))


class GofoTableInfoSchema(ma.Schema):
    options = fields.Nested(TableOptionsSchema, required=True)
    dealer = fields.Integer(allow_none=True, required=True)
    hand_number = fields.Integer(required=True)
    seats = fields.List(fields.Nested(LedgerSeatSchema), required=True)
    draws = fields.List(fields.List(fields.List(fields.Raw())), required=True, **doc("The first-dealer draw: rounds of [seat, card] pairs."))
    draw_seats = fields.List(fields.Integer(), required=True)
    draw_commitments = fields.List(fields.Nested(DrawCommitmentSchema), **doc("The first-dealer draw's committed decks, one per round."))
    last_result = fields.Nested(HandResultSchema, allow_none=True, required=True)
    inaugurations_pending = fields.List(fields.Integer(), **doc(
        "inauguration chosen: the seats that took a new caja and have not chosen its first front yet (empty: none). "
        "While any is pending the next hand has not begun (hand is null) and those seats show front 0."))
    inauguration_fronts = fields.List(fields.Integer(), **doc("inauguration chosen: the fronts a new caja may be inaugurated with, smallest first."))
    inauguration_deadline_at = fields.Float(allow_none=True, **doc(
        "inauguration chosen, a table with turn_seconds: Unix time after which the first pending seat may be moved by the deadline (null: none pending or no deadline)."))
    last_deal = fields.Nested(DealRevealSchema, allow_none=True, required=True, **doc("Dealt mode: the previous hand's deck commitment opened at every card it made public."))


class GofoTableSchema(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    table = fields.Nested(GofoTableInfoSchema, required=True)
    hand = fields.Nested(GofoHandSchema, allow_none=True, required=True)
    names = fields.List(fields.String(allow_none=True), required=True, **doc(
        "Each seat's name, null when it has none (POST …/seats/{seat}/name sets one)."))
    bots = fields.List(fields.Nested(BotSchema), required=True, **doc(
        "The seats the referee plays, and at what level, by seat (empty: every seat is a person's)."))


class GofoSeatViewSchema(GofoTableSchema):
    hand = fields.Nested(GofoSeatHandSchema, allow_none=True, required=True)


class GofoNextSchema(ma.Schema):
    seat = fields.Integer(allow_none=True, required=True, **doc("The seat to act next (null: the referee's chance moves, e.g. a shuffle)."))
    legal_actions = fields.List(fields.Nested(GofoLegalActionSchema), allow_none=True, required=True, **doc(
        "That seat's legal actions, shown to its own token and, at a tabletop table, to the host's; null "
        "for anyone else (at a dealt table they can depend on the seat's hidden cards)."))


class GofoMoveAnswerMixin(ma.Schema):
    next = fields.Nested(GofoNextSchema, required=True, **doc("Who acts next, and what they may do."))
    hand_result = fields.Nested(HandResultSchema, allow_none=True, required=True, **doc(
        "When this move ended a hand: its result, as table.last_result publishes it (null otherwise)."))


class GofoMoveAnswerSchema(GofoSeatViewSchema, GofoMoveAnswerMixin):
    """The answer to a seat's move: the seat's view, who acts next, and the result of a hand it ended."""


class GofoDeadlineAnswerSchema(GofoTableSchema, GofoMoveAnswerMixin):
    """The answer to an enforced deadline: the public view, who acts next, and the result of a hand it ended."""


class GofoHintDiscardSchema(ma.Schema):
    cards = fields.List(Card(), required=True, **doc("The cards to throw (none: stand pat)."))
    expected_value = fields.Float(required=True, **doc(
        "The hand's expected value at the canto after this discard and the later ones (each keeping its best suit)."))
    expected_value_margin = fields.Float(required=True, **doc(
        "expected_value is an estimate from sampled draws: the half-width of its 95 % interval "
        "(0 when nothing is left to chance: standing pat at the last discard)."))
    improve = fields.Float(required=True, **doc("The chance the hand ends worth more than it is now."))
    improve_margin = fields.Float(required=True, **doc(
        "improve is an estimate from sampled draws: the half-width of its 95 % interval."))


class GofoHintBetSchema(ma.Schema):
    to_call = fields.Integer(required=True, **doc("Chips the seat must put in to match the bet in force (0: none)."))
    pot = fields.Integer(required=True, **doc("Chips in the middle now."))
    pot_odds = fields.Float(required=True, **doc(
        "to_call / (pot + to_call): the chance to win at which calling breaks even."))
    win_chance = fields.Float(required=True, **doc(
        "The estimated chance that this hand ends best among the seats still able to win, as the strongest "
        "bot weighed it for its suggestion (sampled from the cards this seat has not seen, a rival's bet read "
        "as strength, sampling stopped once the move was clear; when cutting is possible, as if it cut: one "
        "discard left)."))
    win_chance_margin = fields.Float(required=True, **doc(
        "win_chance is an estimate from sampled deals: the half-width of its 95 % interval."))
    rivals = fields.Integer(required=True, **doc("Other seats still able to win the hand (in, or still to enter)."))


class GofoHintSchema(ma.Schema):
    """Estimates sampled from the cards the seat has not seen, drawn from a seed derived from the seat's
    view: the same position gives the seat the same answer; each estimate carries its 95 % margin."""

    phase = fields.String(required=True, **doc("The hand's phase the hint is for."))
    cards = fields.List(Card(), required=True, **doc("The seat's cards it can see now."))
    value = fields.Integer(allow_none=True, required=True, **doc("The hand's value now (null until the seat sees five cards)."))
    discards = fields.List(fields.Nested(GofoHintDiscardSchema), allow_none=True, required=True, **doc(
        "At a discard: the throws worth weighing (for each suit held, keep its 1 to 4 highest cards and throw "
        "the rest; stand pat; throw all, within the legal most), the best expected value first (null elsewhere)."))
    bet = fields.Nested(GofoHintBetSchema, allow_none=True, required=True, **doc(
        "Where chips are at stake (entering, raising, speaking, answering a bet): the pot odds and the chance "
        "to win (null elsewhere)."))
    suggestion = fields.Dict(required=True, **doc(
        "The move the strongest bot (level 8) would make now; at a discard, the first of discards."))


class CreatedGofoTableSchema(ma.Schema):
    id = fields.String(required=True)
    host_token = fields.String(required=True, **doc("Bearer token of the host (shown once). At a tabletop table it may act for any seat."))
    seat_tokens = fields.List(fields.String(allow_none=True), required=True, **doc(
        "Bearer token of each seat (shown once); null for a seat the referee plays (a bot)."))
    table = fields.Nested(GofoTableSchema, required=True)


class LedgerSchema(ma.Schema):
    id = fields.String(required=True)
    version = fields.Integer(required=True)
    hands_played = fields.Integer(required=True)
    seats = fields.List(fields.Nested(LedgerSeatSchema), required=True)
    results = fields.List(fields.Nested(HandResultSchema), required=True, **doc("Every finished hand, in order."))
    names = fields.List(fields.String(allow_none=True), required=True, **doc("Each seat's name (null: none)."))



"""The Gofo transcript as published (``GET /v1/gofo/tables/{id}/transcript``): plain marshmallow schemas.

The API dumps a transcript through :class:`GofoTranscriptSchema` and documents it in the spec (the
table views reuse the options, hand result and deal schemas); the offline verifier
(:mod:`service.games.gofo.verifier`) loads a transcript through it before checking the game.  Each
entry's ``action`` is the action as applied: the rules engine reads it (``actions.action_from_dict``).
"""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.games.gofo.cards import DECK
from service.games.schemas import Flag, Number, Whole, doc

CARD = validate.OneOf(DECK, error="not a Gofo card (rank 3-7, 11 or 12, then suit o/c/e/b, e.g. 11e)")
CARD_DOC = "A card: rank 3–7, 11 (caballo) or 12 (rey), then the suit o (oros), c (copas), e (espadas), b (bastos); e.g. 11e."


class Card(fields.String):
    """A Gofo card; documented once as the ``Card`` component (one enum type in generated SDKs)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(validate=CARD, **kwargs)


def cards_field(text: str, **kwargs) -> fields.List:
    """A list of cards, described."""
    return fields.List(Card(), **kwargs, **doc(text))


class TableOptionsSchema(ma.Schema):
    turn_seconds = Whole(allow_none=True)
    seats = Whole(required=True)
    caja = Whole(required=True)
    refill = Whole(required=True)
    initial_front = Whole(required=True)
    inauguration_front = Whole(required=True)
    mode = fields.String(required=True)
    inauguration = fields.String(**doc("chosen: seats that take a new caja choose its first front (absent: fixed, inauguration_front)."))
    first_dealer = Whole(**doc("Tabletop: the first dealer reported from the real table's draw; a resumed session: the dealer of its first hand here (absent: the referee drew)."))
    fronts = fields.List(Whole(), **doc("A resumed session: each seat's front when it was resumed (absent: initial_front each)."))
    behinds = fields.List(Whole(), **doc("A resumed session: each seat's chips behind when it was resumed."))
    cajas = fields.List(Whole(), **doc("A resumed session: the cajas each seat had taken when it was resumed."))


class PotSchema(ma.Schema):
    amount = Whole(required=True)
    eligible = fields.List(Whole(), required=True, **doc("Seats that may win this pot."))
    winner = Whole(**doc("Once paid: the seat that won it."))


class DiscardRecordSchema(ma.Schema):
    round = Whole(required=True)
    seat = Whole(required=True)
    count = Whole(required=True)
    cards = cards_field("The face-up discarded cards (null if not reported at a real table).", allow_none=True, required=True)
    kept = Flag(required=True, **doc("Kept face up to the player's right (2–3 players left after a corte)."))


class RestockSchema(ma.Schema):
    count = Whole(required=True, **doc("Cards the pile held when it was shuffled into a new stock."))
    clean = Flag(required=True, **doc("The pile held only cards thrown face up (no folded or declined hand)."))
    drawers = fields.List(Whole(), required=True, **doc("Seats that drew from the stock this reshuffle made."))


class HandResultSchema(ma.Schema):
    reason = fields.String(required=True, **doc("canto, or uncontested (everyone folded to a bet)."))
    pots = fields.List(fields.Nested(PotSchema), required=True)
    payouts = fields.List(Whole(), required=True)
    shown = fields.List(fields.List(Card(), allow_none=True), required=True, **doc("The hands shown at the canto (null: not shown)."))
    values = fields.List(Whole(allow_none=True), required=True)
    net = fields.List(Whole(), required=True, **doc("Chips won (+) or lost (−) by each seat in this hand."))
    hand = Whole(**doc("Hand number at the table."))
    stacks = fields.List(Whole(), **doc("Each seat's front when the hand began."))
    dealer = Whole()
    mano = Whole()
    discards = fields.List(fields.Nested(DiscardRecordSchema))
    kept = fields.List(fields.List(Card()))
    reshuffles = fields.List(fields.Nested(RestockSchema), **doc("Dealt mode: each time the stock ran out and the pile was reshuffled."))


class CardOpeningSchema(ma.Schema):
    position = Whole(required=True, **doc("Position in the deck, 0 = top card."))
    card = Card(required=True)
    salt = fields.String(required=True)


class ReshuffleKeySchema(ma.Schema):
    number = Whole(required=True, **doc("Which reshuffle of the hand (from 1)."))
    key = fields.String(required=True, **doc("Its key: the reshuffle is derived_shuffle(reshuffle_seed(hand_id, number, key), the sorted pile)."))


class DealRevealSchema(ma.Schema):
    hand = Whole(required=True)
    hand_id = fields.String(required=True)
    commitment = fields.String(required=True, **doc("The deck_commitment published before the deal."))
    leaves = fields.List(fields.String(), required=True, **doc(
        "One per deck position: sha256(gofo-card-v1|<hand_id>|<position>|<card>|<salt>)."))
    reshuffle_key_hash = fields.String(required=True, **doc("sha256(gofo-reshuffle-keys-v2|<hand_id>|<reshuffle_key_leaves joined by commas>)."))
    reshuffle_key_leaves = fields.List(fields.String(), required=True, **doc(
        "One per possible reshuffle k = 1..20: sha256(gofo-reshuffle-key-v2|<hand_id>|<k>|<key k>)."))
    openings = fields.List(fields.Nested(CardOpeningSchema), required=True, **doc(
        "The positions of the cards first shown face up by the seat they were dealt to, unless that seat drew "
        "from a reshuffle that held a folded hand. Every other position stays closed: a folded hand is never "
        "shown, nor where a card that came back from it was dealt."))
    reshuffle_keys = fields.List(fields.Nested(ReshuffleKeySchema), required=True, **doc(
        "The keys of the reshuffles whose pile held only face-up discards and whose drawers all showed at the "
        "canto; the others stay closed."))


class DrawRevealSchema(ma.Schema):
    round = Whole(required=True)
    commitment = fields.String(required=True)
    order = fields.List(Card(), required=True, **doc("The committed draw deck, top first."))
    salt = fields.String(required=True)


class GofoTranscriptEntrySchema(ma.Schema):
    timeout = Flag(**doc("The referee moved this seat because its time ran out."))
    version = Whole(required=True)
    at = Number(required=True)
    by = fields.String(required=True, **doc("host, seat:N, bot:N (a seat the referee plays) or referee."))
    seat = Whole(allow_none=True, required=True, **doc("The seat the engine applied it for (null: chance)."))
    hand = Whole(required=True)
    action = fields.Dict(required=True, **doc("The action; a deck or reshuffle order is withheld (null) until the hand is over, then shows only the opened cards (see DealReveal)."))
    draw = fields.Nested(DrawRevealSchema, **doc("dealer_draw: the committed draw deck it was made from, opened."))


class GofoTranscriptSchema(ma.Schema):
    id = fields.String(required=True)
    kind = fields.String(required=True)
    version = Whole(required=True)
    options = fields.Nested(TableOptionsSchema, required=True)
    entries = fields.List(fields.Nested(GofoTranscriptEntrySchema), required=True)
    deals = fields.List(fields.Nested(DealRevealSchema), required=True, **doc("Finished hands' deck commitments, opened at every card each made public."))
    turn_seconds = Whole(allow_none=True, required=True, **doc("The table's turn deadline, if any."))
    names = fields.List(fields.String(allow_none=True), required=True, **doc("Each seat's name (null: none)."))
    hands_finished = Whole(required=True, **doc("Hands played to the end; entries after them belong to the hand in progress."))
    results = fields.List(fields.Nested(HandResultSchema), required=True, **doc("Every finished hand's result, in order."))

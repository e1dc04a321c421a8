"""The Gops transcript as published (``GET /v1/gops/games/{id}/transcript``): plain marshmallow schemas.

The API dumps a transcript through :class:`GopsTranscriptSchema` and documents it in the spec (the
game views reuse the rules, match and result schemas); the offline verifier
(:mod:`service.games.gops.verifier`) loads a transcript through it before checking the game.  Each
entry's ``action`` is the action as applied: the rules engine reads it (``actions.action_from_dict``).
"""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from service.games.schemas import Flag, Number, Whole, doc


class RulesSchema(ma.Schema):
    players = Whole(required=True)
    ranks = Whole(required=True)
    resolution = fields.String(required=True)
    unclaimed = fields.String(required=True)
    prize_order = fields.String(required=True)
    explicit_order = fields.List(Whole(), required=True)
    visibility = fields.String(required=True)
    dealer_seat = Whole(allow_none=True, required=True)
    bid_cards = Whole(required=True)
    open_prizes = Whole(required=True)
    deadline_seconds = Whole(allow_none=True, required=True)


class MatchRulesSchema(ma.Schema):
    format = fields.String(required=True)
    games = Whole(allow_none=True, required=True)
    target = Whole(allow_none=True, required=True)
    tiebreak = fields.String(required=True)


class RoundRecordSchema(ma.Schema):
    round = Whole(required=True)
    bids = fields.Dict(keys=fields.String(), values=fields.List(Whole()), required=True, **doc("Seat (as a string) to the cards it bid."))
    winners = fields.List(Whole(), required=True, **doc("Seats that won the pot (several with split; none when nobody took anything)."))
    illegal = fields.Dict(keys=fields.String(), values=fields.String(), **doc(
        "Seat to why the bid it committed to and opened was illegal (card_not_in_hand, duplicate_card, "
        "wrong_card_count, no_such_rank); that seat's lowest card(s) were played instead, as bids shows."))
    pot = fields.List(Whole(), **doc("Prizes in the pot (one prize at a time)."))
    shares = fields.Dict(keys=fields.String(), values=fields.String(), **doc("Seat to the exact points it got (a fraction such as 9/2 with split)."))
    carried = Flag(**doc("The pot stayed in the middle for the next winner."))
    set_aside = Flag(**doc("The pot was set aside, worth nothing."))
    row = fields.List(Whole(), **doc("Open prizes: the row when the round resolved."))
    picks = Whole(**doc("Open prizes: how many the winner may take (1 + carried rounds; the row is refilled between picks)."))
    chosen = fields.List(Whole(), **doc("Open prizes: what the winner took."))


class GameResultSchema(ma.Schema):
    game = Whole(required=True)
    game_id = fields.String(required=True)
    termination = fields.String(required=True, **doc("completed, or forfeit when at most one seat was left."))
    scores = fields.List(fields.String(), required=True, **doc("Exact score per seat, as an integer or fraction string."))
    unclaimed = Whole(required=True, **doc("Points of prizes turned up that nobody won."))
    winners = fields.List(Whole(), required=True)
    prize_commitment = fields.String(allow_none=True, required=True)
    prize_order = fields.List(Whole(), allow_none=True, required=True)
    prize_salt = fields.String(allow_none=True, required=True)
    history = fields.List(fields.Nested(RoundRecordSchema), **doc("Games of a match: every round of that game."))


class MatchResultSchema(ma.Schema):
    format = fields.String(required=True)
    games_played = Whole(required=True)
    winners = fields.List(Whole(), required=True)
    totals = fields.List(fields.String(), required=True, **doc("Exact total points per seat over the match."))
    wins = fields.List(Whole(), required=True, **doc("Games won outright per seat."))


class TranscriptResultSchema(MatchResultSchema):
    games = fields.List(fields.Nested(GameResultSchema), required=True, **doc(
        "Every game's result with its prize commitment, order and salt, and its rounds."))


class TranscriptEntrySchema(ma.Schema):
    version = Whole(required=True)
    at = Number(required=True, **doc("Unix time the referee applied it."))
    by = fields.String(required=True, **doc("host, seat:N or referee."))
    game = Whole(required=True, **doc("Game number within the match (1 for a single game)."))
    round = Whole(required=True, **doc("Round in progress when the action was applied."))
    action = fields.Dict(required=True, **doc("The action as applied; secrets withheld until revealed."))


class GopsTranscriptSchema(ma.Schema):
    id = fields.String(required=True)
    kind = fields.String(required=True)
    version = Whole(required=True)
    complete = Flag(required=True, **doc("True once the game is over and nothing is withheld."))
    rules = fields.Nested(RulesSchema, required=True)
    match = fields.Nested(MatchRulesSchema, required=True)
    entries = fields.List(fields.Nested(TranscriptEntrySchema), required=True)
    result = fields.Nested(TranscriptResultSchema, allow_none=True, required=True)
    names = fields.List(fields.String(allow_none=True), required=True, **doc("Each seat's name (null: none)."))

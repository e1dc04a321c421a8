"""Marshmallow schemas of the Gops API: they validate requests and document the spec.

Requests refuse unknown fields (marshmallow's default ``RAISE``).  A create's
``match`` is one schema per format (:class:`Variants`: a ``oneOf`` with a
discriminator on ``format``), so the spec allows exactly what is accepted.
Responses are plain objects and maps (no ``oneOf``) so SDK generators handle them.
"""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from service.games import gops
from service.api.schemas import BotSchema, FullMatch, VersionedSchema, bots_field, doc, names_field
from service.games.gops.schemas import (  # (the transcript's own schemas, which the verifier loads with too)
    GameResultSchema, MatchResultSchema, MatchRulesSchema, RoundRecordSchema, RulesSchema,
)


HEX64 = FullMatch(r"^[0-9a-f]{64}$", error="must be 64 lowercase hex characters")
RANK = validate.Range(min=1, max=gops.MAX_RANKS)


# ----------------------------------------------------------------- requests


class GopsOptionsSchema(ma.Schema):
    players = fields.Integer(strict=True, validate=validate.Range(min=2, max=7), **doc("Number of seats, 2–7 (classic: 2)."))
    ranks = fields.Integer(strict=True, validate=validate.Range(min=1, max=13), **doc("Ranks A..n used by every hand and the prizes (default 13)."))
    resolution = fields.String(validate=validate.OneOf(gops.RESOLUTIONS), **doc("Tie resolution: none, split or highest_unique."))
    unclaimed = fields.String(validate=validate.OneOf(gops.UNCLAIMED), **doc("What happens to a pot nobody wins: carryover or discard."))
    prize_order = fields.String(validate=validate.OneOf(gops.PRIZE_ORDERS), **doc("shuffled (committed by hash, default), ascending, descending, explicit, or reported at the table."))
    explicit_order = fields.List(fields.Integer(strict=True, validate=RANK), **doc("With prize_order explicit: every rank once, in order."))
    visibility = fields.String(validate=validate.OneOf(gops.VISIBILITIES), **doc("open (default), blind, or dealer_sees_prize."))
    dealer_seat = fields.Integer(strict=True, validate=validate.Range(min=0, max=6), **doc("With dealer_sees_prize: the seat that sees the prize."))
    bid_cards = fields.Integer(strict=True, validate=validate.Range(min=1, max=13), **doc("Cards per bid (multi-card bids: 2); strength is their sum."))
    open_prizes = fields.Integer(strict=True, validate=validate.Range(min=1, max=13), **doc("Prizes face up at once; above 1 the round's winner chooses."))
    deadline_seconds = fields.Integer(strict=True, validate=validate.Range(min=1, max=604800), allow_none=True, **doc("Seconds each seat has to act in a phase; then the deadline may be enforced."))


class SingleMatchSchema(ma.Schema):
    format = fields.String(required=True, validate=validate.OneOf(["single"]), **doc("single: one game."))


class CumulativeMatchSchema(ma.Schema):
    format = fields.String(required=True, validate=validate.OneOf(["cumulative"]), **doc(
        "cumulative: a fixed number of games; the highest total over them wins."))
    games = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=50), **doc("Games to play, 1–50."))


class BestOfMatchSchema(ma.Schema):
    format = fields.String(required=True, validate=validate.OneOf(["best_of"]), **doc(
        "best_of: the first to win a majority of the games wins."))
    games = fields.Integer(strict=True, validate=validate.OneOf([3, 5]), **doc("Best of 3 or best of 5 (absent: 3)."))
    tiebreak = fields.String(load_default="extra_game", validate=validate.OneOf(gops.TIEBREAKS), **doc(
        "Still level after the agreed games: extra_game (play on until one seat has more wins) or "
        "total_points (the highest total over the match)."))


class TargetMatchSchema(ma.Schema):
    format = fields.String(required=True, validate=validate.OneOf(["target"]), **doc(
        "target: games until a running total reaches the target."))
    target = fields.Integer(strict=True, validate=validate.Range(min=1, max=10000), allow_none=True, **doc(
        "The running total that ends the match, 1–10000 (null or absent: 92)."))


class Variants(fields.Field):
    """An object that is one of several schemas, chosen by the value of its field ``tag``.

    Loaded by the schema its ``tag`` names; documented (:func:`variants_ref`) as the component
    ``component``: a ``oneOf`` of the variants with a discriminator on ``tag``, so that generated
    SDKs type each variant with exactly its fields.
    """

    def __init__(self, tag: str, variants: dict[str, type[ma.Schema]], component: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.tag, self.component = tag, component
        self.variants = {name: schema() for name, schema in variants.items()}

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, dict):
            raise ma.ValidationError("Invalid input type.")
        if value.get(self.tag) is None:
            raise ma.ValidationError({self.tag: ["Missing data for required field."]})
        schema = self.variants.get(value[self.tag]) if isinstance(value[self.tag], str) else None
        if schema is None:
            raise ma.ValidationError({self.tag: [f"Must be one of: {', '.join(self.variants)}."]})
        return schema.load(value)


def variants_ref(converter, field, ret=None, **kwargs) -> dict:
    """apispec attribute function: a :class:`Variants` field refers to its ``oneOf`` component."""
    if not isinstance(field, Variants):
        return {}
    components = converter.spec.components
    if field.component not in components.schemas:
        refs = {name: converter.resolve_nested_schema(type(schema)) for name, schema in field.variants.items()}
        components.schema(field.component, {
            "oneOf": list(refs.values()),
            "discriminator": {"propertyName": field.tag,
                              "mapping": {name: ref["$ref"] for name, ref in refs.items()}},
        })
    return {"allOf": [{"$ref": f"#/components/schemas/{field.component}"}]}


class CreateGopsGameSchema(ma.Schema):
    profile = fields.String(load_default="standard", validate=validate.OneOf(list(gops.PROFILES)), **doc("classic (2 players, ties carry over) or standard (ties discarded)."))
    options = fields.Nested(GopsOptionsSchema, load_default=dict, **doc("Overrides of the profile."))
    match = Variants("format", {"single": SingleMatchSchema, "cumulative": CumulativeMatchSchema,
                                "best_of": BestOfMatchSchema, "target": TargetMatchSchema},
                     "GopsMatch", load_default=lambda: {"format": "single"}, **doc(
        "Several games as one match: one of the four formats, each with exactly its own fields "
        "(absent: a single game)."))
    bots = bots_field()
    names = names_field()


class GameBoundSchema(VersionedSchema):
    game_id = fields.String(validate=FullMatch(r"^[A-Za-z0-9_-]{1,64}$"), **doc(
        "Optional: the game_id this move is for. In a match, send it so that a late retry of a move "
        "from a finished game is recognised (same answer, nothing changes) instead of landing in the next game."))


class CommitSchema(GameBoundSchema):
    round = fields.Integer(strict=True, required=True, validate=validate.Range(min=1), **doc("The current round (from 1)."))
    commitment = fields.String(required=True, validate=HEX64, **doc("lowercase hex SHA-256 of gops-bid-v1|<game_id>|<round>|<seat>|<cards>|<salt>."))


class RevealSchema(GameBoundSchema):
    round = fields.Integer(strict=True, required=True, validate=validate.Range(min=1), **doc("The round being revealed."))
    cards = fields.List(fields.Integer(strict=True, validate=RANK), required=True, validate=validate.Length(min=1, max=13), **doc("The committed ranks, in the order hashed."))
    salt = fields.String(required=True, validate=HEX64, **doc("The 32-byte salt as 64 lowercase hex characters."))


class RankSchema(VersionedSchema):
    rank = fields.Integer(strict=True, required=True, validate=RANK, **doc("A rank: A=1 … K=13."))


class EmptyActionSchema(VersionedSchema):
    pass


# ---------------------------------------------------------------- responses


class RevealedBidSchema(ma.Schema):
    cards = fields.List(fields.Integer(), required=True)
    salt = fields.String(required=True)


class LegalActionSchema(ma.Schema):
    type = fields.String(required=True, validate=validate.OneOf(
        ["commit", "reveal", "choose_prize", "report_prize", "enforce_deadline", "resign"]))
    round = fields.Integer(**doc("commit/reveal: the round to name."))
    cards = fields.Integer(**doc("commit: how many cards the bid has."))
    hand = fields.List(fields.Integer(), **doc("commit: the ranks still in hand."))
    ranks = fields.List(fields.Integer(), **doc("choose_prize/report_prize: the ranks allowed."))
    picks = fields.Integer(**doc("choose_prize: prizes still to take."))


class GopsGameSchema(ma.Schema):
    id = fields.String(required=True, **doc("The game (or match) id used in URLs."))
    game_id = fields.String(required=True, **doc("The id of the game being played, used in commitments (equals id for a single game; id-N for game N of a match)."))
    version = fields.Integer(required=True, **doc("Increases by one with every applied change."))
    game_number = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(["deal", "prize", "commit", "reveal", "choose", "over"]))
    round = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    rules = fields.Nested(RulesSchema, required=True)
    match = fields.Nested(MatchRulesSchema, required=True)
    hands = fields.List(fields.List(fields.Integer()), required=True, **doc("Ranks still in each seat's hand (spent bids are public)."))
    row = fields.List(fields.Integer(allow_none=True), required=True, **doc("Prizes face up in the middle; null for a prize hidden from you."))
    carry = fields.List(fields.Integer(), required=True, **doc("Tied prizes waiting for the next winner."))
    carried_rounds = fields.Integer(required=True)
    pot_value = fields.Integer(allow_none=True, required=True, **doc("Points the current round is worth, if you may know it."))
    prizes_left = fields.Integer(required=True)
    turned = fields.List(fields.Integer(allow_none=True), required=True)
    scores = fields.List(fields.String(), required=True, **doc("Exact score per seat, as an integer or fraction string such as 9/2."))
    won = fields.List(fields.List(fields.Integer()), required=True)
    set_aside = fields.List(fields.Integer(), required=True)
    committed = fields.List(fields.Integer(), required=True, **doc("Seats that have committed this round."))
    commitments = fields.Dict(keys=fields.String(), values=fields.String(), required=True, **doc(
        "This round's commitments, seat to hash: only your own until every seat has committed, then all "
        "(so nobody can test guesses against a rival's commitment before locking their own)."))
    revealed = fields.List(fields.Integer(), required=True)
    awaiting = fields.List(fields.Integer(), required=True, **doc("Seats the current phase waits for."))
    forfeited = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    chooser = fields.Integer(allow_none=True, required=True)
    picks_owed = fields.Integer(required=True)
    deadline_at = fields.Float(allow_none=True, required=True, **doc("Unix time when the current phase's deadline passes."))
    history = fields.List(fields.Nested(RoundRecordSchema), required=True)
    prize_commitment = fields.String(allow_none=True, required=True, **doc("SHA-256 of gops-prizes-v1|<game_id>|<order>|<salt>, published before any bid."))
    prize_order = fields.List(fields.Integer(), allow_none=True, required=True)
    prize_salt = fields.String(allow_none=True, required=True)
    game_result = fields.Nested(GameResultSchema, allow_none=True, required=True)
    games = fields.List(fields.Nested(GameResultSchema), required=True)
    resigned = fields.List(fields.Integer(), required=True)
    result = fields.Nested(MatchResultSchema, allow_none=True, required=True)
    bots = fields.List(fields.Nested(BotSchema), required=True, **doc(
        "The seats the referee plays, and at what level (empty: every seat is a person's)."))
    names = fields.List(fields.String(allow_none=True), required=True, **doc(
        "Each seat's name, null when it has none (POST …/seats/{seat}/name sets one)."))


class GopsSeatViewSchema(GopsGameSchema):
    seat = fields.Integer(required=True)
    my_reveal = fields.Nested(RevealedBidSchema, allow_none=True, required=True, **doc("Your own reveal this round (others' stay hidden until all reveal)."))
    legal_actions = fields.List(fields.Nested(LegalActionSchema), required=True)


class HintActionSchema(ma.Schema):
    cards = fields.List(fields.Integer(), required=True, **doc("A legal bid: the cards it plays."))
    probability = fields.Float(required=True, **doc("How often the equilibrium bids it (0 to 1; they sum to 1)."))


class GopsHintSchema(ma.Schema):
    exact = fields.Boolean(required=True, **doc(
        "The exact equilibrium of the two-seat point-difference game, as level 8 plays it (for rules the "
        "solver covers: true once at most 7 cards are left in each hand when a tie sets the prize aside "
        "and the prize is shown; when a tie carries the pot, once at most 3 are left or the hands share "
        "no card; blind, once at most 3 are left); false: an estimate — for covered rules this round's "
        "matrix game with the later rounds valued by a fitted estimate, for any other rules the level-8 "
        "bot's mix."))
    value = fields.Float(required=True, **doc(
        "Two seats: the points this seat can expect to win from this round on (the pot included) minus "
        "those its rival wins. Three or more seats: the points this seat can expect to win from here."))
    actions = fields.List(fields.Nested(HintActionSchema), required=True, **doc(
        "Bids with the probability the equilibrium (or the level-8 bot) plays them, lowest card first: "
        "every legal bid for rules the solver covers, else only those it plays."))


class CreatedGopsGameSchema(ma.Schema):
    id = fields.String(required=True)
    host_token = fields.String(required=True, **doc("Bearer token of the host (shown once)."))
    seat_tokens = fields.List(fields.String(allow_none=True), required=True, **doc(
        "Bearer token of each seat, by seat number (shown once); null for a seat the referee plays (a bot)."))
    game = fields.Nested(GopsGameSchema, required=True)



"""Marshmallow schemas of the Gops API: they validate requests and document the spec.

Requests refuse unknown fields (marshmallow's default ``RAISE``).  A create's
``match`` is one schema per format (:class:`Variants`: a ``oneOf`` with a
discriminator on ``format``), so the spec allows exactly what is accepted.
Responses are plain objects and maps (no ``oneOf``) so SDK generators handle them.
"""

from __future__ import annotations

import re

import marshmallow as ma
from marshmallow import fields, validate

from service.games import gops


class FullMatch(validate.Regexp):
    """``validate.Regexp`` that must match the whole string.

    The pattern is documented as written (``^...$``, ECMA-262 semantics in the
    spec) while Python's ``$`` would also accept a trailing newline.
    """

    def __call__(self, value):
        if not isinstance(value, str) or self.regex.fullmatch(value) is None:
            raise ma.ValidationError(self._format_error(value))
        return value


HEX64 = FullMatch(r"^[0-9a-f]{64}$", error="must be 64 lowercase hex characters")
RANK = validate.Range(min=1, max=gops.MAX_RANKS)


def _doc(text: str, **extra) -> dict:
    return {"metadata": {"description": text, **extra}}


# ----------------------------------------------------------------- requests


class GopsOptionsSchema(ma.Schema):
    players = fields.Integer(strict=True, validate=validate.Range(min=2, max=7), **_doc("Number of seats, 2–7 (classic: 2)."))
    ranks = fields.Integer(strict=True, validate=validate.Range(min=1, max=13), **_doc("Ranks A..n used by every hand and the prizes (default 13)."))
    resolution = fields.String(validate=validate.OneOf(gops.RESOLUTIONS), **_doc("Tie resolution: none, split or highest_unique."))
    unclaimed = fields.String(validate=validate.OneOf(gops.UNCLAIMED), **_doc("What happens to a pot nobody wins: carryover or discard."))
    prize_order = fields.String(validate=validate.OneOf(gops.PRIZE_ORDERS), **_doc("shuffled (committed by hash, default), ascending, descending, explicit, or reported at the table."))
    explicit_order = fields.List(fields.Integer(strict=True, validate=RANK), **_doc("With prize_order explicit: every rank once, in order."))
    visibility = fields.String(validate=validate.OneOf(gops.VISIBILITIES), **_doc("open (default), blind, or dealer_sees_prize."))
    dealer_seat = fields.Integer(strict=True, validate=validate.Range(min=0, max=6), **_doc("With dealer_sees_prize: the seat that sees the prize."))
    bid_cards = fields.Integer(strict=True, validate=validate.Range(min=1, max=13), **_doc("Cards per bid (multi-card bids: 2); strength is their sum."))
    open_prizes = fields.Integer(strict=True, validate=validate.Range(min=1, max=13), **_doc("Prizes face up at once; above 1 the round's winner chooses."))
    deadline_seconds = fields.Integer(strict=True, validate=validate.Range(min=1, max=604800), allow_none=True, **_doc("Seconds each seat has to act in a phase; then the deadline may be enforced."))


class SingleMatchSchema(ma.Schema):
    format = fields.String(required=True, validate=validate.OneOf(["single"]), **_doc("single: one game."))


class CumulativeMatchSchema(ma.Schema):
    format = fields.String(required=True, validate=validate.OneOf(["cumulative"]), **_doc(
        "cumulative: a fixed number of games; the highest total over them wins."))
    games = fields.Integer(strict=True, required=True, validate=validate.Range(min=1, max=50), **_doc("Games to play, 1–50."))


class BestOfMatchSchema(ma.Schema):
    format = fields.String(required=True, validate=validate.OneOf(["best_of"]), **_doc(
        "best_of: the first to win a majority of the games wins."))
    games = fields.Integer(strict=True, validate=validate.OneOf([3, 5]), **_doc("Best of 3 or best of 5 (absent: 3)."))
    tiebreak = fields.String(load_default="extra_game", validate=validate.OneOf(gops.TIEBREAKS), **_doc(
        "Still level after the agreed games: extra_game (play on until one seat has more wins) or "
        "total_points (the highest total over the match)."))


class TargetMatchSchema(ma.Schema):
    format = fields.String(required=True, validate=validate.OneOf(["target"]), **_doc(
        "target: games until a running total reaches the target."))
    target = fields.Integer(strict=True, validate=validate.Range(min=1, max=10000), allow_none=True, **_doc(
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


class BotSchema(ma.Schema):
    """One seat the referee plays (both games' create bodies take a list of these)."""

    seat = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=6), **_doc(
        "The seat the referee plays (0-based, a seat of the game; its entry in seat_tokens is null)."))
    level = fields.Integer(required=True, strict=True, validate=validate.Range(min=1, max=8), **_doc(
        "1 (weakest) to 8 (strongest): docs/bots.md has the table of what each level does."))


NAME_LENGTH = 24
# What a name never holds: control characters, line and paragraph separators, invisible format
# characters (zero-width, direction overrides, the byte-order mark; beyond the first 65,536 code points
# the hieroglyph, shorthand and musical format controls and the tag characters, which can carry hidden
# text) and the Hangul fillers (letters drawn blank). (Lone surrogates never reach it: a body holding
# one is not JSON text, service.web.app.)
_RANGES = ((0x00, 0x1F), (0x7F, 0x9F), (0xAD, 0xAD), (0x61C, 0x61C), (0x115F, 0x1160), (0x180E, 0x180E),
           (0x200B, 0x200F), (0x2028, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFEFF, 0xFEFF),
           (0xFFA0, 0xFFA0), (0xFFF9, 0xFFFB))
_ASTRAL = ((0x13430, 0x1343F), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE007F))


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    """The characters of ``ranges`` as a regex class's body, written as the characters themselves (not
    \\u escapes), none of them special in a class."""
    return "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in ranges)


# The published pattern names only characters below U+FFFF, so every regex engine reads it alike (an
# ECMA-262 engine without the u flag, schemathesis, SDK generators): the characters past U+FFFF a name
# never holds are refused by a second check, and the field's description says so.
NAME_PATTERN = f"^[^{_class(_RANGES)}]*[^\\s{_class(_RANGES)}][^{_class(_RANGES)}]*$"
NAME_RULE = ("1 to 24 characters, not only spaces (those around it are dropped); no control or invisible "
             "characters: those below U+FFFF as the pattern says, and none of the hieroglyph, shorthand or "
             "musical format controls or tag characters (U+13430-1343F, U+1BCA0-1BCA3, U+1D173-1D17A, "
             "U+E0000-E007F).")
_HIDDEN_ASTRAL = re.compile(f"[{_class(_ASTRAL)}]")


def _no_hidden_astral(name: str) -> None:
    if _HIDDEN_ASTRAL.search(name):
        raise ma.ValidationError("a name holds no invisible character (tag or format characters)")


class PlayerName(fields.String):
    """A player's name as people type it: up to 24 characters of text (no control characters), kept
    without the spaces around it. Clients show it as text: escaping is theirs, as for any string."""

    def __init__(self, **kwargs):
        super().__init__(validate=[validate.Length(min=1, max=NAME_LENGTH), FullMatch(NAME_PATTERN), _no_hidden_astral],
                         **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        super()._deserialize(value, attr, data, **kwargs)  # its type
        return value

    def deserialize(self, value, attr=None, data=None, **kwargs):
        name = super().deserialize(value, attr, data, **kwargs)  # checked as sent, then kept without spaces around
        return name.strip() if isinstance(name, str) else name


def names_field() -> fields.List:
    return fields.List(PlayerName(allow_none=True, **_doc(f"A name, or null for a seat without one. {NAME_RULE}")),
                       validate=validate.Length(max=7), **_doc(
        "Optional player names by seat (null or left out: no name); a seat may set or change its own "
        "later (POST …/seats/{seat}/name). Shown to everyone in views and transcripts."))


class NameSchema(ma.Schema):
    name = PlayerName(required=True, **_doc(f"The seat's name. {NAME_RULE}"))


def bots_field() -> fields.List:
    return fields.List(fields.Nested(BotSchema), load_default=list, validate=validate.Length(max=7), **_doc(
        "Seats the referee plays itself, each at a level; any number of seats, each at most once. A bot "
        "moves as soon as its move is due, in the request that made it due."))


class CreateGopsGameSchema(ma.Schema):
    profile = fields.String(load_default="standard", validate=validate.OneOf(list(gops.PROFILES)), **_doc("classic (2 players, ties carry over) or standard (ties discarded)."))
    options = fields.Nested(GopsOptionsSchema, load_default=dict, **_doc("Overrides of the profile."))
    match = Variants("format", {"single": SingleMatchSchema, "cumulative": CumulativeMatchSchema,
                                "best_of": BestOfMatchSchema, "target": TargetMatchSchema},
                     "GopsMatch", load_default=lambda: {"format": "single"}, **_doc(
        "Several games as one match: one of the four formats, each with exactly its own fields "
        "(absent: a single game)."))
    bots = bots_field()
    names = names_field()


class VersionedSchema(ma.Schema):
    version = fields.Integer(strict=True, validate=validate.Range(min=1), **_doc("Optional: the state version this move was decided on; if the game has moved on the move is refused with stale_version."))


class GameBoundSchema(VersionedSchema):
    game_id = fields.String(validate=FullMatch(r"^[A-Za-z0-9_-]{1,64}$"), **_doc(
        "Optional: the game_id this move is for. In a match, send it so that a late retry of a move "
        "from a finished game is recognised (same answer, nothing changes) instead of landing in the next game."))


class CommitSchema(GameBoundSchema):
    round = fields.Integer(strict=True, required=True, validate=validate.Range(min=1), **_doc("The current round (from 1)."))
    commitment = fields.String(required=True, validate=HEX64, **_doc("lowercase hex SHA-256 of gops-bid-v1|<game_id>|<round>|<seat>|<cards>|<salt>."))


class RevealSchema(GameBoundSchema):
    round = fields.Integer(strict=True, required=True, validate=validate.Range(min=1), **_doc("The round being revealed."))
    cards = fields.List(fields.Integer(strict=True, validate=RANK), required=True, validate=validate.Length(min=1, max=13), **_doc("The committed ranks, in the order hashed."))
    salt = fields.String(required=True, validate=HEX64, **_doc("The 32-byte salt as 64 lowercase hex characters."))


class RankSchema(VersionedSchema):
    rank = fields.Integer(strict=True, required=True, validate=RANK, **_doc("A rank: A=1 … K=13."))


class EmptyActionSchema(VersionedSchema):
    pass


# ---------------------------------------------------------------- responses


class RulesSchema(ma.Schema):
    players = fields.Integer(required=True)
    ranks = fields.Integer(required=True)
    resolution = fields.String(required=True)
    unclaimed = fields.String(required=True)
    prize_order = fields.String(required=True)
    explicit_order = fields.List(fields.Integer(), required=True)
    visibility = fields.String(required=True)
    dealer_seat = fields.Integer(allow_none=True, required=True)
    bid_cards = fields.Integer(required=True)
    open_prizes = fields.Integer(required=True)
    deadline_seconds = fields.Integer(allow_none=True, required=True)


class MatchRulesSchema(ma.Schema):
    format = fields.String(required=True)
    games = fields.Integer(allow_none=True, required=True)
    target = fields.Integer(allow_none=True, required=True)
    tiebreak = fields.String(required=True)


class RevealedBidSchema(ma.Schema):
    cards = fields.List(fields.Integer(), required=True)
    salt = fields.String(required=True)


class RoundRecordSchema(ma.Schema):
    round = fields.Integer(required=True)
    bids = fields.Dict(keys=fields.String(), values=fields.List(fields.Integer()), required=True, **_doc("Seat (as a string) to the cards it bid."))
    winners = fields.List(fields.Integer(), required=True, **_doc("Seats that won the pot (several with split; none when nobody took anything)."))
    illegal = fields.Dict(keys=fields.String(), values=fields.String(), **_doc(
        "Seat to why the bid it committed to and opened was illegal (card_not_in_hand, duplicate_card, "
        "wrong_card_count, no_such_rank); that seat's lowest card(s) were played instead, as bids shows."))
    pot = fields.List(fields.Integer(), **_doc("Prizes in the pot (one prize at a time)."))
    shares = fields.Dict(keys=fields.String(), values=fields.String(), **_doc("Seat to the exact points it got (a fraction such as 9/2 with split)."))
    carried = fields.Boolean(**_doc("The pot stayed in the middle for the next winner."))
    set_aside = fields.Boolean(**_doc("The pot was set aside, worth nothing."))
    row = fields.List(fields.Integer(), **_doc("Open prizes: the row when the round resolved."))
    picks = fields.Integer(**_doc("Open prizes: how many the winner may take (1 + carried rounds; the row is refilled between picks)."))
    chosen = fields.List(fields.Integer(), **_doc("Open prizes: what the winner took."))


class GameResultSchema(ma.Schema):
    game = fields.Integer(required=True)
    game_id = fields.String(required=True)
    termination = fields.String(required=True, **_doc("completed, or forfeit when at most one seat was left."))
    scores = fields.List(fields.String(), required=True, **_doc("Exact score per seat, as an integer or fraction string."))
    unclaimed = fields.Integer(required=True, **_doc("Points of prizes turned up that nobody won."))
    winners = fields.List(fields.Integer(), required=True)
    prize_commitment = fields.String(allow_none=True, required=True)
    prize_order = fields.List(fields.Integer(), allow_none=True, required=True)
    prize_salt = fields.String(allow_none=True, required=True)
    history = fields.List(fields.Nested(RoundRecordSchema), **_doc("Games of a match: every round of that game."))


class MatchResultSchema(ma.Schema):
    format = fields.String(required=True)
    games_played = fields.Integer(required=True)
    winners = fields.List(fields.Integer(), required=True)
    totals = fields.List(fields.String(), required=True, **_doc("Exact total points per seat over the match."))
    wins = fields.List(fields.Integer(), required=True, **_doc("Games won outright per seat."))


class TranscriptResultSchema(MatchResultSchema):
    games = fields.List(fields.Nested(GameResultSchema), required=True, **_doc(
        "Every game's result with its prize commitment, order and salt, and its rounds."))


class LegalActionSchema(ma.Schema):
    type = fields.String(required=True, validate=validate.OneOf(
        ["commit", "reveal", "choose_prize", "report_prize", "enforce_deadline", "resign"]))
    round = fields.Integer(**_doc("commit/reveal: the round to name."))
    cards = fields.Integer(**_doc("commit: how many cards the bid has."))
    hand = fields.List(fields.Integer(), **_doc("commit: the ranks still in hand."))
    ranks = fields.List(fields.Integer(), **_doc("choose_prize/report_prize: the ranks allowed."))
    picks = fields.Integer(**_doc("choose_prize: prizes still to take."))


class GopsGameSchema(ma.Schema):
    id = fields.String(required=True, **_doc("The game (or match) id used in URLs."))
    game_id = fields.String(required=True, **_doc("The id of the game being played, used in commitments (equals id for a single game; id-N for game N of a match)."))
    version = fields.Integer(required=True, **_doc("Increases by one with every applied change."))
    game_number = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(["deal", "prize", "commit", "reveal", "choose", "over"]))
    round = fields.Integer(required=True)
    rounds = fields.Integer(required=True)
    rules = fields.Nested(RulesSchema, required=True)
    match = fields.Nested(MatchRulesSchema, required=True)
    hands = fields.List(fields.List(fields.Integer()), required=True, **_doc("Ranks still in each seat's hand (spent bids are public)."))
    row = fields.List(fields.Integer(allow_none=True), required=True, **_doc("Prizes face up in the middle; null for a prize hidden from you."))
    carry = fields.List(fields.Integer(), required=True, **_doc("Tied prizes waiting for the next winner."))
    carried_rounds = fields.Integer(required=True)
    pot_value = fields.Integer(allow_none=True, required=True, **_doc("Points the current round is worth, if you may know it."))
    prizes_left = fields.Integer(required=True)
    turned = fields.List(fields.Integer(allow_none=True), required=True)
    scores = fields.List(fields.String(), required=True, **_doc("Exact score per seat, as an integer or fraction string such as 9/2."))
    won = fields.List(fields.List(fields.Integer()), required=True)
    set_aside = fields.List(fields.Integer(), required=True)
    committed = fields.List(fields.Integer(), required=True, **_doc("Seats that have committed this round."))
    commitments = fields.Dict(keys=fields.String(), values=fields.String(), required=True, **_doc(
        "This round's commitments, seat to hash: only your own until every seat has committed, then all "
        "(so nobody can test guesses against a rival's commitment before locking their own)."))
    revealed = fields.List(fields.Integer(), required=True)
    awaiting = fields.List(fields.Integer(), required=True, **_doc("Seats the current phase waits for."))
    forfeited = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    chooser = fields.Integer(allow_none=True, required=True)
    picks_owed = fields.Integer(required=True)
    deadline_at = fields.Float(allow_none=True, required=True, **_doc("Unix time when the current phase's deadline passes."))
    history = fields.List(fields.Nested(RoundRecordSchema), required=True)
    prize_commitment = fields.String(allow_none=True, required=True, **_doc("SHA-256 of gops-prizes-v1|<game_id>|<order>|<salt>, published before any bid."))
    prize_order = fields.List(fields.Integer(), allow_none=True, required=True)
    prize_salt = fields.String(allow_none=True, required=True)
    game_result = fields.Nested(GameResultSchema, allow_none=True, required=True)
    games = fields.List(fields.Nested(GameResultSchema), required=True)
    resigned = fields.List(fields.Integer(), required=True)
    result = fields.Nested(MatchResultSchema, allow_none=True, required=True)
    bots = fields.List(fields.Nested(BotSchema), required=True, **_doc(
        "The seats the referee plays, and at what level (empty: every seat is a person's)."))
    names = fields.List(fields.String(allow_none=True), required=True, **_doc(
        "Each seat's name, null when it has none (POST …/seats/{seat}/name sets one)."))


class GopsSeatViewSchema(GopsGameSchema):
    seat = fields.Integer(required=True)
    my_reveal = fields.Nested(RevealedBidSchema, allow_none=True, required=True, **_doc("Your own reveal this round (others' stay hidden until all reveal)."))
    legal_actions = fields.List(fields.Nested(LegalActionSchema), required=True)


class HintActionSchema(ma.Schema):
    cards = fields.List(fields.Integer(), required=True, **_doc("A legal bid: the cards it plays."))
    probability = fields.Float(required=True, **_doc("How often the equilibrium bids it (0 to 1; they sum to 1)."))


class GopsHintSchema(ma.Schema):
    exact = fields.Boolean(required=True, **_doc(
        "The exact equilibrium of the two-seat point-difference game (true once at most 5 cards are left "
        "in each hand, for rules the solver covers); false: an estimate — for covered rules this round's "
        "matrix game with the later rounds valued as if both seats bid at random, for any other rules "
        "the level-8 bot's mix."))
    value = fields.Float(required=True, **_doc(
        "Two seats: the points this seat can expect to win from this round on (the pot included) minus "
        "those its rival wins. Three or more seats: the points this seat can expect to win from here."))
    actions = fields.List(fields.Nested(HintActionSchema), required=True, **_doc(
        "Bids with the probability the equilibrium (or the level-8 bot) plays them, lowest card first: "
        "every legal bid for rules the solver covers, else only those it plays."))


class CreatedGopsGameSchema(ma.Schema):
    id = fields.String(required=True)
    host_token = fields.String(required=True, **_doc("Bearer token of the host (shown once)."))
    seat_tokens = fields.List(fields.String(allow_none=True), required=True, **_doc(
        "Bearer token of each seat, by seat number (shown once); null for a seat the referee plays (a bot)."))
    game = fields.Nested(GopsGameSchema, required=True)


class TranscriptEntrySchema(ma.Schema):
    version = fields.Integer(required=True)
    at = fields.Float(required=True, **_doc("Unix time the referee applied it."))
    by = fields.String(required=True, **_doc("host, seat:N or referee."))
    game = fields.Integer(required=True, **_doc("Game number within the match (1 for a single game)."))
    round = fields.Integer(required=True, **_doc("Round in progress when the action was applied."))
    action = fields.Dict(required=True, **_doc("The action as applied; secrets withheld until revealed."))


class GopsTranscriptSchema(ma.Schema):
    id = fields.String(required=True)
    kind = fields.String(required=True)
    version = fields.Integer(required=True)
    complete = fields.Boolean(required=True, **_doc("True once the game is over and nothing is withheld."))
    rules = fields.Nested(RulesSchema, required=True)
    match = fields.Nested(MatchRulesSchema, required=True)
    entries = fields.List(fields.Nested(TranscriptEntrySchema), required=True)
    result = fields.Nested(TranscriptResultSchema, allow_none=True, required=True)
    names = fields.List(fields.String(allow_none=True), required=True, **_doc("Each seat's name (null: none)."))

"""The fixed parameters of a Gops game or match: :class:`Rules`, :class:`MatchRules`, the profiles.

Everything here is validated once, at creation (:func:`make_rules`, :func:`make_match_rules`), and
never changes mid-game.  The named choices are :class:`enum.StrEnum`\\ s, so they compare equal to
(and serialize as) the plain strings of the API and the stored documents.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import Any

from service.errors import InvalidOptions

MIN_PLAYERS, MAX_PLAYERS = 2, 7
MAX_RANKS = 13


class Resolution(enum.StrEnum):
    """Who wins a round when bids tie (``shared/rules/gops.md``)."""

    NONE = "none"
    SPLIT = "split"
    HIGHEST_UNIQUE = "highest_unique"


class Unclaimed(enum.StrEnum):
    """What happens to a prize nobody wins."""

    CARRYOVER = "carryover"
    DISCARD = "discard"


class PrizeOrder(enum.StrEnum):
    SHUFFLED = "shuffled"
    ASCENDING = "ascending"
    DESCENDING = "descending"
    EXPLICIT = "explicit"
    REPORTED = "reported"

    @property
    def fixed(self) -> bool:
        """A public order known from the rules alone (ascending, descending, explicit)."""
        return self in (PrizeOrder.ASCENDING, PrizeOrder.DESCENDING, PrizeOrder.EXPLICIT)


class Visibility(enum.StrEnum):
    OPEN = "open"
    BLIND = "blind"
    DEALER_SEES_PRIZE = "dealer_sees_prize"


class MatchFormat(enum.StrEnum):
    SINGLE = "single"
    CUMULATIVE = "cumulative"
    BEST_OF = "best_of"
    TARGET = "target"


class Tiebreak(enum.StrEnum):
    EXTRA_GAME = "extra_game"
    TOTAL_POINTS = "total_points"


RESOLUTIONS = tuple(Resolution)
UNCLAIMED = tuple(Unclaimed)
PRIZE_ORDERS = tuple(PrizeOrder)
VISIBILITIES = tuple(Visibility)
TIEBREAKS = tuple(Tiebreak)

PROFILES: dict[str, dict[str, Any]] = {
    # 000: two players, a tie leaves the pot in the middle for the next winner.
    "classic": {"players": 2, "resolution": "none", "unclaimed": "carryover"},
    # 002 standard rule: a tied prize is discarded.
    "standard": {"resolution": "none", "unclaimed": "discard"},
}

RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"}


def rank_name(rank: int) -> str:
    """``1 -> 'A'``, ``10 -> '10'``, ``13 -> 'K'``."""
    return RANK_NAMES.get(rank, str(rank))


def _whole_numbers(rules: Any, *names: str) -> None:
    """An ``invalid_options`` refusal unless each named field is a whole number or None (the API's
    schemas guarantee it; a transcript read by the verifier or a direct engine caller may not)."""
    for name in names:
        value = getattr(rules, name)
        if value is not None and (type(value) is not int):
            raise InvalidOptions(f"{name} must be a whole number")


def _choice(enum_type: type[enum.StrEnum], value: Any, what: str) -> Any:
    """``value`` as a member of ``enum_type``, or an ``invalid_options`` refusal."""
    try:
        return enum_type(value)
    except ValueError:
        raise InvalidOptions(f"{what} must be one of {', '.join(enum_type)}") from None


@dataclass(frozen=True)
class Rules:
    """The fixed parameters of one Gops game (never change mid-game)."""

    players: int = 2
    ranks: int = MAX_RANKS
    resolution: Resolution = Resolution.NONE
    unclaimed: Unclaimed = Unclaimed.DISCARD
    prize_order: PrizeOrder = PrizeOrder.SHUFFLED
    explicit_order: tuple[int, ...] = ()
    visibility: Visibility = Visibility.OPEN
    dealer_seat: int | None = None
    bid_cards: int = 1
    open_prizes: int = 1
    deadline_seconds: int | None = None

    # What follows from the fields, worked out once per instance (the rules never change; the
    # same stored rules load as the same instance, see from_dict).

    @cached_property
    def rounds(self) -> int:
        """Rounds in one game: every card bid once, ⌊n/k⌋ with k-card bids."""
        return self.ranks // self.bid_cards

    @cached_property
    def total_points(self) -> int:
        return self.ranks * (self.ranks + 1) // 2

    @cached_property
    def blind_reported(self) -> bool:
        """Blind at a real table: the face-down prize is reported after the bids."""
        return self.prize_order == PrizeOrder.REPORTED and self.visibility == Visibility.BLIND

    @cached_property
    def prize_public(self) -> bool:
        """Does everyone see each prize as it is turned up or reported (visibility ``open``)?"""
        return self.visibility == Visibility.OPEN

    def validate(self) -> Rules:
        """These rules with their choices as enums, or an ``invalid_options`` refusal."""
        bad = InvalidOptions
        _whole_numbers(self, "players", "ranks", "bid_cards", "open_prizes", "dealer_seat", "deadline_seconds")
        if not MIN_PLAYERS <= self.players <= MAX_PLAYERS:
            raise bad(f"players must be between {MIN_PLAYERS} and {MAX_PLAYERS}")
        if not 1 <= self.ranks <= MAX_RANKS:
            raise bad(f"ranks must be between 1 and {MAX_RANKS} (A..n)")
        if (type(self.resolution) is Resolution and type(self.unclaimed) is Unclaimed
                and type(self.prize_order) is PrizeOrder):
            typed = self  # already typed (validated before): no copy
        else:
            typed = replace(
                self,
                resolution=_choice(Resolution, self.resolution, "resolution"),
                unclaimed=_choice(Unclaimed, self.unclaimed, "unclaimed"),
                prize_order=_choice(PrizeOrder, self.prize_order, "prize_order"),
            )
        if typed.prize_order == PrizeOrder.EXPLICIT:
            if sorted(self.explicit_order) != list(range(1, self.ranks + 1)):
                raise bad(f"explicit_order must list every rank 1..{self.ranks} exactly once")
        elif self.explicit_order:
            raise bad("explicit_order is only allowed with prize_order 'explicit'")
        if type(typed.visibility) is not Visibility:
            typed = replace(typed, visibility=_choice(Visibility, self.visibility, "visibility"))
        if typed.visibility == Visibility.DEALER_SEES_PRIZE:
            if self.dealer_seat is None or not 0 <= self.dealer_seat < self.players:
                raise bad("dealer_sees_prize needs dealer_seat, a seat of this game")
        elif self.dealer_seat is not None:
            raise bad("dealer_seat is only allowed with visibility 'dealer_sees_prize'")
        if not 1 <= self.bid_cards <= self.ranks:
            raise bad("bid_cards must be between 1 and ranks")
        if not 1 <= self.open_prizes <= self.ranks:
            raise bad("open_prizes must be between 1 and ranks")
        if self.open_prizes > 1 and typed.visibility != Visibility.OPEN:
            raise bad("open prizes are face up: they cannot be combined with a hidden prize")
        if self.deadline_seconds is not None and not 1 <= self.deadline_seconds <= 7 * 86400:
            raise bad("deadline_seconds must be between 1 and 604800 (a week)")
        return typed

    @cached_property
    def _stored(self) -> dict[str, Any]:
        stored = {f.name: getattr(self, f.name) for f in fields(self)}
        for name in ("resolution", "unclaimed", "prize_order", "visibility"):
            stored[name] = str(stored[name])  # plain strings in documents, whatever the caller passed
        return stored

    def to_dict(self) -> dict[str, Any]:
        """The stored form (a fresh dict each time; every move writes the rules, every view shows them)."""
        data = dict(self._stored)
        data["explicit_order"] = list(self.explicit_order)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rules as stored (trusted: made by :meth:`validate`); the choices become enums again.

        The same stored rules give the same (immutable) instance: every move of a game parses
        them (:data:`_PARSED`)."""
        key = (cls, *((k, type(v), tuple(v) if type(v) is list else v) for k, v in data.items()))
        parsed = _recall(key)
        if parsed is None:
            data = dict(data)
            data["explicit_order"] = tuple(data.get("explicit_order") or ())
            parsed = cls(**data)
            try:
                parsed = replace(parsed, resolution=Resolution(parsed.resolution),
                                 unclaimed=Unclaimed(parsed.unclaimed), prize_order=PrizeOrder(parsed.prize_order),
                                 visibility=Visibility(parsed.visibility))
            except ValueError:
                pass  # not valid rules: validate() says why
            _remember(key, parsed)
        return parsed


@dataclass(frozen=True)
class MatchRules:
    """How several games make one match (``single`` = just one game)."""

    format: MatchFormat = MatchFormat.SINGLE
    games: int | None = None
    target: int | None = None
    tiebreak: Tiebreak = Tiebreak.EXTRA_GAME

    def validate(self) -> MatchRules:
        _whole_numbers(self, "games", "target")
        if type(self.format) is MatchFormat and type(self.tiebreak) is Tiebreak:
            typed = self  # already typed: no copy
        else:
            typed = replace(self, format=_choice(MatchFormat, self.format, "match format"),
                            tiebreak=_choice(Tiebreak, self.tiebreak, "tiebreak"))
        if typed.format == MatchFormat.CUMULATIVE:
            if self.games is None or not 1 <= self.games <= 50:
                raise InvalidOptions("a cumulative match needs games between 1 and 50")
        elif typed.format == MatchFormat.BEST_OF:
            if self.games not in (3, 5):
                raise InvalidOptions("best_of is best of 3 or best of 5 games")
        elif self.games is not None:
            raise InvalidOptions("games is only allowed with cumulative or best_of matches")
        if typed.format == MatchFormat.TARGET:
            if self.target is None or not 1 <= self.target <= 10_000:
                raise InvalidOptions("a target match needs a target between 1 and 10000")
        elif self.target is not None:
            raise InvalidOptions("target is only allowed with a target match")
        return typed

    def to_dict(self) -> dict[str, Any]:
        return {"format": str(self.format), "games": self.games, "target": self.target,
                "tiebreak": str(self.tiebreak)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchRules:
        """Match rules as stored; the same stored form gives the same (immutable) instance."""
        key = (cls, *((k, type(v), v) for k, v in data.items()))
        parsed = _recall(key)
        if parsed is None:
            parsed = cls(**data)
            try:
                parsed = replace(parsed, format=MatchFormat(parsed.format), tiebreak=Tiebreak(parsed.tiebreak))
            except ValueError:
                pass  # not valid: validate() says why
            _remember(key, parsed)
        return parsed


#: Stored rules and match rules (their items, with each value's type: 2, 2.0 and True are equal
#: keys otherwise) -> the instance they parse to.
#: Few distinct rule sets are in play at once; bounded all the same (any creator picks options).
_PARSED: dict[tuple, Any] = {}
_PARSED_LIMIT = 1024


def _recall(key: tuple) -> Any:
    try:
        return _PARSED.get(key)
    except TypeError:  # an unhashable value (not stored rules: a transcript to verify): parsed, not kept
        return None


def _remember(key: tuple, parsed: Any) -> None:
    if len(_PARSED) >= _PARSED_LIMIT:
        _PARSED.clear()
    try:
        _PARSED[key] = parsed
    except TypeError:  # unhashable (see _recall): not kept
        pass


def make_rules(profile: str = "standard", **options: Any) -> Rules:
    """Rules from a named profile plus options; options override the profile.

    >>> make_rules("classic").unclaimed
    <Unclaimed.CARRYOVER: 'carryover'>
    >>> make_rules("classic").unclaimed == "carryover"
    True
    >>> make_rules("classic", players=3)
    Traceback (most recent call last):
    ...
    service.errors.InvalidOptions: the classic profile is a 2-player game
    """
    if profile not in PROFILES:
        raise InvalidOptions(
            f"unknown profile {profile!r}; profiles are {', '.join(PROFILES)}",
            code="unknown_profile",
        )
    base = dict(PROFILES[profile])
    if profile == "classic" and options.get("players", 2) != 2:
        raise InvalidOptions("the classic profile is a 2-player game")
    unknown = set(options) - set(Rules.__dataclass_fields__)
    if unknown:
        raise InvalidOptions(f"unknown options: {', '.join(sorted(unknown))}")
    base.update({k: v for k, v in options.items() if v is not None})
    if "explicit_order" in base:
        base["explicit_order"] = tuple(base["explicit_order"])
    return Rules(**base).validate()


def make_match_rules(
    format: str = "single",
    games: int | None = None,
    target: int | None = None,
    tiebreak: str = "extra_game",
) -> MatchRules:
    if format == "target" and target is None:
        target = 92  # "92 Makes Game" (004)
    if format == "best_of" and games is None:
        games = 3
    return MatchRules(format=format, games=games, target=target, tiebreak=tiebreak).validate()

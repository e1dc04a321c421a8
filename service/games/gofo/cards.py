"""The Spanish 28-card Gofo deck and its card codes.

A card is a short string ``"<rank><suit>"``: rank one of 3, 4, 5, 6, 7, 11 (caballo), 12 (rey);
suit one of ``o`` (oros), ``c`` (copas), ``e`` (espadas), ``b`` (bastos).

>>> card_value("11e"), card_value("12o"), card_value("3b")
(8, 9, 3)
>>> len(DECK)
28
"""

from __future__ import annotations

from typing import Any, Iterable, Protocol, Sequence

from service.errors import InvalidAction

SUITS: tuple[str, ...] = ("o", "c", "e", "b")
RANKS: tuple[int, ...] = (3, 4, 5, 6, 7, 11, 12)
RANK_VALUES: dict[int, int] = {3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 11: 8, 12: 9}

#: The deck in canonical order (suit by suit, rank ascending).
DECK: tuple[str, ...] = tuple(f"{r}{s}" for s in SUITS for r in RANKS)
_DECK_SET = frozenset(DECK)
_INDEX = {c: i for i, c in enumerate(DECK)}


class RandomLike(Protocol):
    """What the chance helpers need: ``random.Random`` and ``secrets.SystemRandom`` both fit."""

    def sample(self, population: Sequence[Any], k: int) -> list[Any]: ...


def is_card(code: object) -> bool:
    """True if ``code`` is the code of a card of the Gofo deck."""
    return isinstance(code, str) and code in _DECK_SET


def parse_card(code: object) -> str:
    """Return ``code`` if it names a Gofo card, else raise ``InvalidAction(code="bad_card")``."""
    if not is_card(code):
        raise InvalidAction(f"not a card of the Gofo deck: {code!r}", code="bad_card")
    return code  # type: ignore[return-value]


def parse_cards(codes: Iterable[object], *, distinct: bool = True) -> list[str]:
    """Parse several card codes; with ``distinct`` refuse repeats (``duplicate_card``)."""
    if isinstance(codes, (str, bytes)) or not isinstance(codes, Iterable):
        raise InvalidAction("cards must be a list of card codes", code="bad_card")
    cards = [parse_card(c) for c in codes]
    if distinct and len(set(cards)) != len(cards):
        raise InvalidAction("the same card is named twice", code="duplicate_card")
    return cards


def card_suit(code: str) -> str:
    return code[-1]


def card_value(code: str) -> int:
    """Value of one card: 3–7 face value, caballo (11) 8, rey (12) 9."""
    return RANK_VALUES[int(parse_card(code)[:-1])]


def sort_cards(cards: Iterable[str]) -> list[str]:
    """Cards in canonical deck order (used wherever a set of cards is listed publicly).

    Anything that is not a card code sorts after the cards, by its text (the offline verifier
    replays hands with stand-ins for cards nobody saw)."""
    return sorted(cards, key=lambda c: (_INDEX.get(c, len(_INDEX)), str(c)))


# --- chance helpers: the randomness is injected, never drawn here ------------------------------

def new_deck_order(rng: RandomLike) -> list[str]:
    """A shuffled deck, e.g. ``new_deck_order(secrets.SystemRandom())``."""
    return list(rng.sample(DECK, len(DECK)))


def shuffled(rng: RandomLike, cards: Iterable[str]) -> list[str]:
    """A random order of ``cards`` (for a reshuffle of the pile)."""
    cards = sort_cards(cards)
    return list(rng.sample(cards, len(cards)))


def draw_cards(rng: RandomLike, k: int) -> list[str]:
    """``k`` distinct cards drawn from the spread deck (the first-dealer draw)."""
    return list(rng.sample(DECK, k))

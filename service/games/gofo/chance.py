"""The referee's chance for a Gofo table and its commitments: the first-dealer draw, each hand's
deck, the reshuffles.

Pure: randomness comes in as an ``rng`` and salts from a ``new_salt`` callable.
:mod:`service.games.gofo.referee` keeps the secret records made here (``doc["deals"]``,
``doc["draws"]``); what of them anyone may see is :mod:`service.games.gofo.observer`'s.

Each draw round is made from a committed 28-card draw deck.  A hand's deck is committed before the
deal as one salted leaf per position and one leaf per possible reshuffle key, so each reshuffle
(``derived_shuffle(reshuffle_seed(hand_id, k, key_k), sorted pile)``) is fixed before the deal.
Hash formats: :mod:`service.games.commitments`; the scheme in full: ``docs/verify.md``.
"""

from __future__ import annotations

from typing import Any, Callable

from service.games import commitments, entropy

from service.games.gofo.actions import Action, DealerDraw, Reshuffle, Shuffle
from service.games.gofo.cards import DECK, RandomLike, draw_cards, new_deck_order, shuffled, sort_cards
from service.games.gofo.rules import MAX_PLAYERS_IN_HAND, SPEAKING_ROUNDS

# A reshuffle happens inside a discard, at most once each (the pile then holds the discarder's own
# cards, enough for his draw); a hand has at most four discard rounds of at most five players.
MAX_RESHUFFLES = SPEAKING_ROUNDS * MAX_PLAYERS_IN_HAND


# ------------------------------------------------------------------ the first-dealer draw


def new_draw(table_id: str, round_number: int, seats: list[int], rng: RandomLike,
             new_salt: Callable[[], str]) -> dict[str, Any]:
    """One round of the first-dealer draw: a committed draw deck whose top cards go to ``seats``."""
    order = new_deck_order(rng)
    salt = new_salt()
    return {"round": round_number, "seats": list(seats), "order": order, "salt": salt,
            "cards": order[:len(seats)],
            "commitment": commitments.draw_commitment(table_id, round_number, order, salt)}


def draw_checks_out(table_id: str, draw: dict[str, Any], cards: list[str]) -> str | None:
    """Why a revealed draw round does not match its commitment or the cards drawn (``None``: it does)."""
    order, salt = draw.get("order"), draw.get("salt")
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(DECK) or len(order) != len(DECK):
        return "the draw deck is not the 28 cards"
    if not isinstance(salt, str) or not commitments.SALT_PATTERN.match(salt):
        return "the draw salt is not 64 lowercase hex characters"
    actual = commitments.draw_commitment(table_id, draw.get("round"), order, salt)
    expected = draw.get("commitment")
    if not isinstance(expected, str) or not commitments.matches(actual, expected):
        return f"the draw deck and salt hash to {actual[:16]}…, not to the commitment {str(expected)[:16]}…"
    if list(cards) != order[:len(cards)]:
        return f"the cards drawn {list(cards)} are not the top {len(cards)} of the committed draw deck"
    return None


# ------------------------------------------------------------------ a hand's deck


def hand_id(table_id: str, number: int) -> str:
    return f"{table_id}-{number}"


def new_deal(hid: str, number: int, order: list[str], new_salt: Callable[[], str]) -> dict[str, Any]:
    """The referee's secret record of one hand's deck, with the commitment it publishes."""
    salts = [new_salt() for _ in order]
    leaves = [commitments.card_leaf(hid, i, card, salts[i]) for i, card in enumerate(order)]
    keys = [new_salt() for _ in range(MAX_RESHUFFLES)]
    key_leaves = [commitments.reshuffle_key_leaf(hid, k, key) for k, key in enumerate(keys, 1)]
    key_hash = commitments.reshuffle_key_hash(hid, key_leaves)
    return {"hand": number, "hand_id": hid, "order": order, "salts": salts, "leaves": leaves,
            "reshuffle_keys": keys, "reshuffle_key_leaves": key_leaves, "reshuffle_key_hash": key_hash,
            "reshuffles": [], "commitment": commitments.deck_commitment(hid, leaves, key_hash)}


def reshuffle_order(deal: dict[str, Any], pile: list[str]) -> list[str]:
    """The next reshuffle of ``deal``'s hand, derived from its committed key (and recorded)."""
    k = len(deal["reshuffles"]) + 1
    # a hand dealt before per-reshuffle keys (one ``reshuffle_key``) goes on with that key
    keys = deal.get("reshuffle_keys") or [deal["reshuffle_key"]] * MAX_RESHUFFLES
    seed = commitments.reshuffle_seed(deal["hand_id"], k, keys[k - 1])
    order = commitments.derived_shuffle(seed, sort_cards(pile))
    deal["reshuffles"].append(order)
    return order


def supply_chance(table: Any, table_id: str, deals: dict[str, Any], draws: list[dict[str, Any]],
                  rng: RandomLike | None = None,
                  new_salt: Callable[[], str] | None = None) -> tuple[Any, list[tuple[int, Any]]]:
    """Answer every chance request of ``table`` (a :class:`service.games.gofo.table.Table`): the
    first-dealer draw, each hand's shuffle (committed in ``deals`` before any card is seen), the
    reshuffles (derived from the committed keys).  Returns the table (changed in place) and the
    chance actions applied, in order, each with the hand number it was applied in; ``deals`` and
    ``draws`` (the secret records) are updated in place.  ``rng`` and ``new_salt`` default to the
    service's one source (:func:`service.games.entropy.source`, :func:`service.games.commitments.new_salt`)."""
    rng = rng if rng is not None else entropy.source()
    new_salt = new_salt if new_salt is not None else commitments.new_salt
    applied: list[tuple[int, Any]] = []
    while table.to_act() is None and (request := table.chance_request()) is not None:
        kind = request["kind"]
        number = table.hand_number
        if kind == "dealer_draw":
            draw = new_draw(table_id, len(draws) + 1, request["seats"], rng, new_salt)
            draws.append(draw)
            action: Any = DealerDraw(tuple(draw["cards"]))
        elif kind == "shuffle":
            order = new_deck_order(rng)
            deals[str(number)] = new_deal(hand_id(table_id, number), number, order, new_salt)
            action = Shuffle(tuple(order))
        elif kind == "reshuffle":
            action = Reshuffle(tuple(reshuffle_order(deals[str(number)], request["cards"])))
        else:  # pragma: no cover - the engine asks for nothing else
            raise ValueError(f"unknown chance request {kind!r}")
        table.apply(action)
        applied.append((number, action))
    return table, applied


def chance_action(request: dict[str, Any], rng: RandomLike) -> Action:
    """The chance action answering ``request`` with the injected ``rng``, no commitments
    (``random.Random(seed)`` in tests and benchmarks; the service uses :func:`supply_chance`)."""
    kind = request["kind"]
    if kind == "dealer_draw":
        return DealerDraw(tuple(draw_cards(rng, len(request["seats"]))))
    if kind == "shuffle":
        return Shuffle(tuple(new_deck_order(rng)))
    if kind == "reshuffle":
        return Reshuffle(tuple(shuffled(rng, request["cards"])))
    raise ValueError(f"unknown chance request {kind!r}")

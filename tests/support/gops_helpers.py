"""Shared helpers for the Gops engine tests: drive a game through commit–reveal.

Nothing here knows the engine's internals beyond its public API
(``make_rules``, ``Gops``, the action classes, ``view``) and the commitment
format of ``shared/rules/gops.md``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from service.games import commitments
from service.games import gops as G


def det_salt(*parts: object) -> str:
    """A deterministic, well-formed salt (64 lowercase hex chars) for tests."""
    return hashlib.sha256("|".join(str(p) for p in ("test-salt", *parts)).encode()).hexdigest()


def as_cards(bid: int | Sequence[int]) -> tuple[int, ...]:
    return (bid,) if isinstance(bid, int) else tuple(bid)


def spec_commitment(game_id: str, rnd: int, seat: int, cards: Sequence[int], salt: str) -> str:
    """The commitment computed straight from the spec text (independent of service.games.commitments)."""
    msg = f"gops-bid-v1|{game_id}|{rnd}|{seat}|{','.join(str(c) for c in cards)}|{salt}"
    return hashlib.sha256(msg.encode("utf-8")).hexdigest()


def new_game(id: str = "g1", profile: str = "standard", match: G.MatchRules | None = None,
             now: float = 0.0, **options: Any) -> G.Gops:
    return G.Gops.new(id, G.make_rules(profile, **options), match, now=now)


class Driver:
    """Applies actions to a state and records ``(action dict, time)`` for replay."""

    def __init__(self, state: G.Gops, now: float = 0.0) -> None:
        self.state = state
        self.now = now
        self.log: list[tuple[dict[str, Any], float]] = []

    # --- raw
    def do(self, action: Any, now: float | None = None) -> bool:
        """Apply ``action``: what ``apply`` says (False: an exact repeat, which changed nothing)."""
        at = self.now if now is None else now
        changed = self.state.apply(action, now=at)
        self.log.append((G.action_to_dict(action), at))
        return changed

    @property
    def g(self) -> G.Game:
        return self.state.game

    # --- chance / prizes
    def deal(self, order: Sequence[int] | None = None, salt: str | None = None) -> bool:
        order = list(order) if order is not None else list(range(1, self.state.rules.ranks + 1))
        salt = salt or det_salt("deal", self.state.game.game_id)
        return self.do(G.DealPrizes(order=tuple(order), salt=salt))

    def report(self, rank: int) -> bool:
        return self.do(G.ReportPrize(rank=rank))

    # --- bids
    def commit(self, seat: int, cards: int | Sequence[int], salt: str | None = None,
               rnd: int | None = None) -> tuple[str, str]:
        cards = as_cards(cards)
        rnd = self.g.round if rnd is None else rnd
        salt = salt or det_salt(self.g.game_id, rnd, seat)
        c = commitments.bid_commitment(self.g.game_id, rnd, seat, cards, salt)
        self.do(G.Commit(seat=seat, round=rnd, commitment=c))
        return c, salt

    def reveal(self, seat: int, cards: int | Sequence[int], salt: str | None = None,
               rnd: int | None = None) -> bool:
        cards = as_cards(cards)
        rnd = self.g.round if rnd is None else rnd
        salt = salt or det_salt(self.g.game_id, rnd, seat)
        return self.do(G.Reveal(seat=seat, round=rnd, cards=cards, salt=salt))

    def bid_round(self, bids: dict[int, int | Sequence[int]] | Sequence[int | Sequence[int]],
                  report: int | None = None) -> None:
        """Commit then reveal one bid per seat (a dict seat -> cards, or a list by seat).

        With prize order ``reported`` and a hidden prize, ``report`` is reported
        after the reveals; with an open reported prize, report it first.
        """
        if not isinstance(bids, dict):
            bids = dict(enumerate(bids))
        rnd = self.g.round
        if self.state.game.phase == "prize" and report is not None:
            self.report(report)
            report = None
        for seat, cards in bids.items():
            self.commit(seat, cards, rnd=rnd)
        for seat, cards in bids.items():
            self.reveal(seat, cards, rnd=rnd)
        if report is not None and self.state.game.phase == "prize":
            self.report(report)

    def choose(self, seat: int, rank: int) -> bool:
        return self.do(G.ChoosePrize(seat=seat, rank=rank))


def play_game(driver: Driver, rounds: Iterable[Sequence[int | Sequence[int]]],
              choose=max) -> Driver:
    """Play the given bids round after round (each entry: a bid per seat).

    Deals the prizes (identity order) if the game needs chance; in the choose
    step the chooser takes ``choose(row)`` until no picks are owed.
    """
    for bids in rounds:
        if driver.state.needs_chance:
            driver.deal()
        driver.bid_round(bids)
        while driver.state.phase == "choose":
            driver.choose(driver.g.chooser, choose(driver.g.row))
    return driver


def mirror_rounds(ranks: int, players: int = 2) -> list[list[int]]:
    """Everyone bids rank r in round r: every round is a tie."""
    return [[r] * players for r in range(1, ranks + 1)]


def expect_error(state: G.Gops, action: Any, code: str, now: float = 0.0, exc: type | None = None):
    """Apply ``action``; assert it raises a RefereeError with ``code`` and leaves the state unchanged."""
    import pytest

    from service.errors import RefereeError

    before = state.to_dict()
    with pytest.raises(exc or RefereeError) as info:
        state.apply(action, now=now)
    assert info.value.code == code, (info.value.code, info.value.detail)
    assert state.to_dict() == before
    return info.value

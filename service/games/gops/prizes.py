"""The Gops prize row: dealing, turning up and reporting prizes, resolving a round, choosing.

A mixin of :class:`service.games.gops.state.Gops` (``_check_*`` refuses and changes nothing, ``_do_*``
applies a checked move in place).  With one prize in the middle the round's winner takes it and
its carried pot; with open prizes (``open_prizes > 1``) the winner chooses, one pick per round
won plus one per carried round, and the row is refilled between picks.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from service.games import commitments
from service.errors import IllegalAction, InvalidAction, NotYourTurn
from service.games.gops import chance, clock
from service.games.gops.actions import ChoosePrize, DealPrizes, ReportPrize
from service.games.gops.records import Phase, frac_str, seal, whole_score as _whole
from service.games.gops.rules import MAX_RANKS, PrizeOrder, Resolution, Unclaimed, Visibility, rank_name

if TYPE_CHECKING:
    from service.games.gops.state import Gops

    _Base = Gops
else:
    _Base = object

Events = list[dict[str, Any]]
# Enum members as module globals: in Python 3.11 reading a member off its class (``Phase.COMMIT``)
# costs ~0.2 µs, a global ~0.02 µs, and the hot paths compare phases on every action.
_DEAL, _PRIZE, _COMMIT, _CHOOSE = Phase.DEAL, Phase.PRIZE, Phase.COMMIT, Phase.CHOOSE
_HIGHEST_UNIQUE, _SPLIT, _CARRYOVER = Resolution.HIGHEST_UNIQUE, Resolution.SPLIT, Unclaimed.CARRYOVER


class PrizeRow(_Base):
    # ------------------------------------------------------------ chance: the shuffled order

    def _check_deal_prizes(self, action: DealPrizes, now: float) -> None:
        self._require_phase(_DEAL)
        if sorted(action.order) != list(range(1, self.rules.ranks + 1)):
            raise InvalidAction("the prize order must list every rank once", code="invalid_prize_order")
        commitments.check_salt(action.salt)

    def _do_deal_prizes(self, action: DealPrizes, now: float, events: Events) -> None:
        g = self.game
        g.pile = list(action.order)
        g.prize_order = list(action.order)
        g.prize_salt = action.salt
        g.prize_commitment = chance.commit_order(g.game_id, g.prize_order, action.salt)
        events.append({"type": "prizes_shuffled", "game": g.number, "commitment": g.prize_commitment})
        self._start_round(now, events)

    # ------------------------------------------------------------ the table reports a prize

    def _reportable(self) -> list[int]:
        return [r for r in range(1, self.rules.ranks + 1) if r not in self.game.turned]

    def _prize_public(self) -> bool:
        return self.rules.visibility == Visibility.OPEN

    def _check_report_prize(self, action: ReportPrize, now: float) -> None:
        self._require_phase(_PRIZE)
        rank = action.rank
        if not isinstance(rank, int) or not 1 <= rank <= self.rules.ranks:
            raise InvalidAction(f"{rank!r} is not a rank of this game (1..{self.rules.ranks})", code="no_such_rank")
        if rank in self.game.turned:
            raise IllegalAction(f"the prize {rank_name(rank)} has already been turned up", code="prize_already_seen")

    def _do_report_prize(self, action: ReportPrize, now: float, events: Events) -> None:
        g = self.game
        g.turned.append(action.rank)
        g.row.append(action.rank)
        events.append({"type": "prize_reported", "round": g.round,
                       "rank": action.rank if self._prize_public() else None})
        if g.chooser is not None:  # open prizes: the row refilled between a winner's picks
            if self._row_full():
                self._enter_phase(_CHOOSE, now, events)
        elif g.reveals and not self.awaiting():  # blind: the bids are in, resolve now
            self._resolve(now, events)
        elif self._row_full():
            self._enter_phase(_COMMIT, now, events)

    def _row_full(self) -> bool:
        return len(self.game.row) >= self.rules.open_prizes or len(self.game.turned) >= self.rules.ranks

    # ------------------------------------------------------------ the winner chooses

    def _check_choose_prize(self, action: ChoosePrize, now: float) -> None:
        g = self.game
        self._check_seat(action.seat)
        self._require_phase(_CHOOSE)
        if action.seat != g.chooser:
            raise NotYourTurn(f"seat {g.chooser} chooses the prize this round, not seat {action.seat}")
        if action.rank not in g.row:
            raise IllegalAction(f"{rank_name(action.rank)} is not in the open prizes row", code="prize_not_in_row")

    def _do_choose_prize(self, action: ChoosePrize, now: float, events: Events) -> None:
        g = self.game
        g.row.remove(action.rank)
        g.won[action.seat].append(action.rank)
        g.scores[action.seat] += action.rank
        last = g.history[-1]  # records are never changed once made: this one is replaced
        g.history[-1] = {**last, "chosen": [*last.get("chosen", ()), action.rank]}
        g.picks_owed -= 1
        events.append({"type": "prize_chosen", "round": g.round, "seat": action.seat, "rank": action.rank})
        # The row is refilled from the pile between picks, so a winner owed more picks than the row
        # held (carried rounds) still takes every one of them.  After the last pick nothing more is
        # turned up until the next round starts (and nothing at all after the last round).
        if g.picks_owed > 0 and not self._fill_row(now, events):
            return  # a reported order: the table turns the next prize up, then the chooser goes on
        if g.picks_owed <= 0 or not g.row:  # done, or no prize left anywhere to take
            g.picks_owed = 0
            g.chooser = None
            self._next_round(now, events)

    # ------------------------------------------------------------ rounds

    def _enter_phase(self, phase: Phase, now: float, events: Events) -> None:
        g = self.game
        g.phase = phase
        g.deadline_at = clock.deadline(self.rules, phase, now) if self.rules.deadline_seconds else None
        events.append({"type": "phase", "phase": _PHASE_TEXT[phase], "round": g.round, "deadline_at": g.deadline_at})

    def _start_round(self, now: float, events: Events) -> None:
        g = self.game
        g.commitments, g.reveals = {}, {}
        if g.round > self._rounds:
            self._end_game(now, events)
            return
        if not self._blind_reported:
            if not self._fill_row(now, events):
                return
            if not g.row:
                self._end_game(now, events)
                return
        self._enter_phase(_COMMIT, now, events)

    def _fill_row(self, now: float, events: Events) -> bool:
        """Turn prizes up until the row holds ``open_prizes`` of them (or every prize is up).

        With a reported order the table turns them up: the game enters the
        ``prize`` phase and this returns False (the report goes on).
        """
        g = self.game
        open_prizes, ranks = self.rules.open_prizes, self.rules.ranks
        while len(g.row) < open_prizes and len(g.turned) < ranks:
            if self._reported:
                self._enter_phase(_PRIZE, now, events)
                return False
            prize = g.pile.pop(0)
            g.turned.append(prize)
            g.row.append(prize)
            events.append(
                {"type": "prize_turned", "round": g.round, "rank": prize if self._prize_shown else None}
            )
        return True

    def _next_round(self, now: float, events: Events) -> None:
        self.game.round += 1
        self._start_round(now, events)

    def _resolve(self, now: float, events: Events) -> None:
        """Every bid is in (and the prize known): who wins the round, and what they take."""
        g = self.game
        seats = sorted(g.reveals)
        reveals = g.reveals
        # The commitments and reveals themselves are in the log; the record keeps their seals.
        committed = g.commitments  # (the same seats as the reveals: a seat that leaves takes both)
        record: dict[str, Any] = {"round": g.round, "sealed": {str(s): seal(committed[s]) for s in seats}}
        self._settle({s: reveals[s].cards for s in seats}, record, now, events)

    def _settle(self, opened: dict[int, tuple[int, ...]], record: dict[str, Any], now: float,
                events: Events) -> None:
        """The round's bids (``opened``: each seat's opened cards, by seat) decide it: the round
        record (``record``, begun by the caller) is completed, the pot or the choice awarded and
        the game moves on.  The one resolution of the rules (:meth:`_resolve` and
        :meth:`~service.games.gops.state.Gops.play_bids` call it)."""
        g = self.game
        rules = self.rules
        one_card = rules.bid_cards == 1
        hands = g.hands
        strength: dict[int, int] = {}  # each seat's bid: the sum of its cards
        bids: dict[str, list[int]] = {}  # the record's: by seat (as text), the cards played
        illegal: dict[str, str] = {}
        for s, cards in opened.items():
            hand = hands[s]  # (each seat's bid is checked against, and spent from, its own hand only)
            if one_card and len(cards) == 1 and type(card := cards[0]) is int and card in hand:
                bid = [card]  # a legal one-card bid (hands hold only ranks of the game)
                strength[s] = card
            else:
                bid = list(cards)
                problem = self.bid_problem(s, bid)
                if problem is not None:  # an opened but illegal bid: forfeited to the seat's lowest card(s)
                    bid = self.forfeited_bid(s)
                    illegal[str(s)] = problem.code
                strength[s] = sum(bid)
            bids[str(s)] = bid
            for c in bid:
                hand.remove(c)
        winners = self._winners(strength)
        record["bids"] = bids
        record["winners"] = winners
        if illegal:
            record["illegal"] = illegal
        if rules.open_prizes == 1:
            self._award_pot(record, winners)
            events.append(_round_event(record))
            g.history.append(record)
            self._next_round(now, events)
            return
        # Open prizes: a single winner chooses from the row.  A tie (also under ``split``, which
        # cannot split a choice) takes nothing, so the record names no winner.
        record["row"] = list(g.row)
        if len(winners) == 1:
            g.chooser = winners[0]
            # Every pick owed is taken: the row is refilled between picks (see _do_choose_prize).
            g.picks_owed = 1 + g.carried_rounds
            g.carried_rounds = 0
            record["picks"] = g.picks_owed
        else:
            record["winners"] = []
            if rules.unclaimed == _CARRYOVER:
                g.carried_rounds += 1
                record["carried"] = True
        events.append(_round_event(record))
        g.history.append(record)
        if g.chooser is not None and g.picks_owed > 0:
            self._enter_phase(_CHOOSE, now, events)
        else:
            self._next_round(now, events)

    def _award_pot(self, record: dict[str, Any], winners: list[int]) -> None:
        """One prize in the middle: the winner(s) take it and the carried pot; a tie carries it
        over (``carryover``, not after the last round) or sets it aside."""
        g = self.game
        pot = g.carry + g.row
        g.row, g.carry = [], []
        record["pot"] = pot
        if len(winners) == 1:  # the whole pot, an integer: no Fraction arithmetic
            s = winners[0]
            share = sum(pot)
            score = g.scores[s]
            g.scores[s] = _whole(score.numerator + share) if score.denominator == 1 else score + share
            g.won[s].extend(pot)
            record["shares"] = {str(s): str(share)}
        elif winners:
            share = Fraction(sum(pot), len(winners))
            for s in winners:
                g.scores[s] += share
            record["shares"] = {str(s): frac_str(share) for s in winners}
        elif self.rules.unclaimed == _CARRYOVER and g.round < self._rounds:
            g.carry = pot
            record["carried"] = True
        else:
            g.set_aside.extend(pot)
            record["set_aside"] = True

    def _winners(self, strength: dict[int, int]) -> list[int]:
        """The round's winners by bid strength under the rules' tie resolution ([] : nobody)."""
        if not strength:
            return []
        resolution = self.rules.resolution
        if resolution == _HIGHEST_UNIQUE:
            counts = Counter(strength.values())
            unique = [v for v, n in counts.items() if n == 1]
            if not unique:
                return []
            best = max(unique)
            return [s for s, v in strength.items() if v == best]
        best = max(strength.values())
        top = [s for s, v in strength.items() if v == best]
        if resolution == _SPLIT or len(top) == 1:
            return top
        return []


_PHASE_TEXT = {phase: str(phase) for phase in Phase}

def _round_event(record: dict[str, Any]) -> dict[str, Any]:
    """The ``round_resolved`` event of a round record: ``public_record`` of it, after the type."""
    event = {"type": "round_resolved", **record}
    event.pop("sealed", None)
    return event

"""The state machine: a running total, whose turn it is, the winner."""

from __future__ import annotations

from typing import Any

from service.errors import GameOver, IllegalAction, NotYourTurn
from service.games.contract import Action, LegalAction

from .actions import Say
from .rules import Options


class Race:
    def __init__(self, options: Options, total: int = 0, turn: int = 0, winner: int | None = None) -> None:
        self.options, self.total, self.turn, self.winner = options, total, turn, winner

    @property
    def over(self) -> bool:
        return self.winner is not None

    def legal_actions(self, seat: int | None) -> list[LegalAction]:
        if self.over or seat != self.turn:
            return []
        return [LegalAction("say", min=1, max=min(self.options.max_step, self.options.target - self.total))]

    def verify(self, action: Any, *, seat: int | None = None, now: float = 0.0) -> None:
        if self.over:
            raise GameOver("the race is over")
        if not isinstance(action, Say):
            raise IllegalAction(f"no {action.TYPE} in a race")
        if seat != self.turn:
            raise NotYourTurn(f"it is seat {self.turn}'s turn")
        if not 1 <= action.amount <= min(self.options.max_step, self.options.target - self.total):
            raise IllegalAction(f"say 1 to {min(self.options.max_step, self.options.target - self.total)}",
                                code="amount_out_of_range")

    def is_legal(self, action: Any, *, seat: int | None = None, now: float = 0.0) -> bool:
        try:
            self.verify(action, seat=seat, now=now)
        except IllegalAction:
            return False
        return True

    def apply(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> bool:
        self.verify(action, seat=seat, now=now)
        assert isinstance(action, Say)  # verify refuses any other action
        self.total += action.amount
        if self.total == self.options.target:
            self.winner = seat
        else:
            self.turn = (self.turn + 1) % self.options.players
        return True

    def to_dict(self) -> dict[str, Any]:
        return {"options": vars(self.options), "total": self.total, "turn": self.turn, "winner": self.winner}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Race:
        return cls(Options(**data["options"]), data["total"], data["turn"], data["winner"])

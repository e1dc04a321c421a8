"""Its one action: say how much to add."""

from __future__ import annotations

from dataclasses import dataclass

from service.games.contract import Action, ActionCodec


@dataclass(frozen=True)
class Say(Action):
    TYPE = "say"
    amount: int


CODEC = ActionCodec([Say])

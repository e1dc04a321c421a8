"""Helpers that play Gofo over HTTP, move by move, the way a table app would."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from support.gops_http import Created

PATHS = {"no_ver": "no-ver"}


@dataclass
class GofoTable(Created):
    """A created Gofo table and its tokens, with a move method for the seat to act."""

    COLLECTION = "/v1/gofo/tables"

    def hand(self) -> dict[str, Any]:
        return self.public()["hand"]

    def to_act(self) -> int:
        return self.hand()["to_act"]

    def move(self, seat: int, kind: str, token: str | None = None, **body) -> tuple[int, Any]:
        return self.http.post(f"{self.base}/seats/{seat}/{PATHS.get(kind, kind)}", body, token or self.seat_tokens[seat])

    def play(self, kind: str, **body) -> dict[str, Any]:
        """The seat to act makes this move; it must be accepted."""
        seat = self.to_act()
        status, data = self.move(seat, kind, **body)
        assert status == 200, (seat, kind, body, data)
        return data

    def legal(self, seat: int) -> dict[str, dict[str, Any]]:
        """The seat's legal actions by type (enter: 'enter_blind' / 'enter_seen')."""
        out = {}
        for action in self.seat_view(seat)["hand"]["legal_actions"]:
            key = action["type"]
            if key == "enter":
                key = "enter_blind" if action.get("blind") else "enter_seen"
            out[key] = action
        return out

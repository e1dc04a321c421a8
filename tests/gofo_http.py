"""Helpers that play Gofo over HTTP, move by move, the way a table app would."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gops_http import Http

PATHS = {"no_ver": "no-ver"}


@dataclass
class GofoTable:
    http: Http
    id: str
    host_token: str
    seat_tokens: list[str]
    created: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, http: Http, body: dict[str, Any]) -> "GofoTable":
        status, data = http.post("/v1/gofo/tables", body)
        assert status == 201, data
        return cls(http, data["id"], data["host_token"], data["seat_tokens"], data)

    @property
    def base(self) -> str:
        return f"/v1/gofo/tables/{self.id}"

    def public(self) -> dict[str, Any]:
        status, data = self.http.get(self.base)
        assert status == 200, data
        return data

    def seat_view(self, seat: int, token: str | None = None) -> dict[str, Any]:
        status, data = self.http.get(f"{self.base}/seats/{seat}", token or self.seat_tokens[seat])
        assert status == 200, data
        return data

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

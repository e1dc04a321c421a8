"""What everyone may see: nothing in a race is hidden; a seat also gets its legal actions."""

from __future__ import annotations

from typing import Any

from .state import Race


def view(state: Race, version: int, seat: int | None) -> dict[str, Any]:
    out = {"version": version, "phase": "over" if state.over else "play", "total": state.total,
           "target": state.options.target, "turn": None if state.over else state.turn, "winner": state.winner}
    if seat is not None:
        out["seat"] = seat
        out["legal_actions"] = [legal.to_dict() for legal in state.legal_actions(seat)]
    return out

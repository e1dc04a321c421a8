"""The stored record of one race and the moves on it (the contract's referee functions)."""

from __future__ import annotations

from typing import Any

from service.games.contract import Action, Applied

from . import clock, observer
from .actions import CODEC
from .rules import Options
from .state import Race

KIND = "race"


def create(id: str, options: dict[str, Any], at: float) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    state = Race(Options.from_dict(options or {}))
    doc = {"id": id, "state": state.to_dict()}
    return doc, [{"version": 1, "at": at, "by": "referee", "action": {"type": "create", "options": vars(state.options)}}]


def load(doc: dict[str, Any]) -> Race:
    return Race.from_dict(doc["state"])


def seat_count(doc: dict[str, Any]) -> int:
    return doc["state"]["options"]["players"]


def play(doc: dict[str, Any], version: int, who: str, at: float, seat: int | None, action: Action,
         state: Race | None = None) -> Applied | None:
    state = state if state is not None else load(doc)
    state.apply(action, seat=seat, now=at)
    entry = {"version": version + 1, "at": at, "by": who, "action": {**CODEC.to_dict(action), "seat": seat},
             "total": state.total}
    return Applied({**doc, "state": state.to_dict()}, [entry], state.over, state)


def enforce(doc: dict[str, Any], version: int, who: str, at: float, state: Race | None = None) -> Applied | None:
    raise clock.no_deadline()


def view(doc: dict[str, Any], version: int, seat: int | None, now: float, state: Race | None = None) -> dict[str, Any]:
    return observer.view(state if state is not None else load(doc), version, seat)


def etag_tag(seat_view: dict[str, Any]) -> str:
    return ""


def transcript(doc: dict[str, Any], version: int, entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": KIND, "id": doc["id"], "version": version, "entries": entries}

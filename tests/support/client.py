"""The one way the tests speak to the referee over HTTP.

``bearer(token)`` is the ``Authorization`` header a seat or host token is sent in.

``Http`` adapts the Flask test client (``FlaskHttp``) or a live server (``LiveHttp``, a requests
session) to ``post`` / ``get`` answering ``(status, json)``, so the same game-playing code runs
in-process and against gunicorn.

``GopsGame.create(http, body)`` and ``GofoTable.create(http, body)`` create a Gops game or a Gofo
table and keep its tokens; both read the same way (``public``, ``seat_view``, ``transcript``,
``events``) and take a seat's move with ``move(seat, name, body)``; each adds the moves of its game
in its own words (Gops: ``commit``, ``reveal``, ``play_round``; Gofo: ``play``, ``legal``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

from service.games import commitments


def bearer(token: str | None) -> dict[str, str]:
    """The Authorization header of a seat or host token (no header without one)."""
    return {"Authorization": f"Bearer {token}"} if token else {}


class Http:
    def post(self, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        raise NotImplementedError

    def get(self, path: str, token: str | None = None) -> tuple[int, Any]:
        raise NotImplementedError

    def text(self, path: str, token: str | None = None) -> tuple[int, str]:
        """GET ``path`` read whole as text (an event stream ends when the game does, or at its cap)."""
        raise NotImplementedError


class FlaskHttp(Http):
    def __init__(self, client) -> None:
        self.client = client

    def post(self, path, body=None, token=None):
        r = self.client.post(path, json=body if body is not None else {}, headers=bearer(token))
        return r.status_code, r.get_json(silent=True)

    def get(self, path, token=None):
        r = self.client.get(path, headers=bearer(token))
        return r.status_code, r.get_json(silent=True)

    def text(self, path, token=None):
        r = self.client.get(path, headers=bearer(token))
        return r.status_code, r.get_data(as_text=True)


class LiveHttp(Http):
    def __init__(self, base_url: str, session=None) -> None:
        import requests

        self.base = base_url
        self.session = session or requests.Session()

    def post(self, path, body=None, token=None):
        r = self.session.post(self.base + path, json=body if body is not None else {}, headers=bearer(token), timeout=30)
        return r.status_code, (r.json() if r.content else None)

    def get(self, path, token=None):
        r = self.session.get(self.base + path, headers=bearer(token), timeout=30)
        return r.status_code, (r.json() if r.content else None)

    def text(self, path, token=None):
        r = self.session.get(self.base + path, headers=bearer(token), timeout=30)
        return r.status_code, r.text


def new_salt() -> str:
    return secrets.token_hex(32)


@dataclass
class Created:
    """A game or table created over HTTP, its tokens, and the reads and moves every game has."""

    COLLECTION: ClassVar[str] = ""  # e.g. "/v1/gops/games"
    MOVE_PATHS: ClassVar[dict[str, str]] = {}  # a move's name -> its path segment, where they differ

    http: Http
    id: str
    host_token: str
    seat_tokens: list[str]
    created: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, http: Http, body: dict[str, Any]):
        status, data = http.post(cls.COLLECTION, body)
        assert status == 201, data
        return cls(http, data["id"], data["host_token"], data["seat_tokens"], data)

    @property
    def base(self) -> str:
        return f"{self.COLLECTION}/{self.id}"

    def move(self, seat: int, name: str, body: dict[str, Any] | None = None, token: str | None = None) -> tuple[int, Any]:
        """Seat ``seat`` sends move ``name`` with its own token (or ``token``): ``(status, body)``."""
        path = self.MOVE_PATHS.get(name, name)
        return self.http.post(f"{self.base}/seats/{seat}/{path}", body or {}, token or self.seat_tokens[seat])

    def public(self) -> dict[str, Any]:
        status, data = self.http.get(self.base)
        assert status == 200, data
        return data

    def seat_view(self, seat: int, token: str | None = None) -> dict[str, Any]:
        status, data = self.http.get(f"{self.base}/seats/{seat}", token or self.seat_tokens[seat])
        assert status == 200, data
        return data

    def transcript(self) -> dict[str, Any]:
        status, data = self.http.get(f"{self.base}/transcript")
        assert status == 200, data
        return data

    def events(self, seat: int | None = None) -> str:
        """The event stream, read whole as text: the public one, or seat ``seat``'s with its token."""
        status, text = self.http.text(f"{self.base}/events", None if seat is None else self.seat_tokens[seat])
        assert status == 200, text
        return text


@dataclass
class GopsGame(Created):
    """A created Gops game and its tokens, with one method per move."""

    COLLECTION = "/v1/gops/games"

    def commit(self, seat: int, round_: int, cards: list[int], salt: str, game_id: str | None = None, **extra):
        game_id = game_id or self.public()["game_id"]
        commitment = commitments.bid_commitment(game_id, round_, seat, cards, salt)
        return self.move(seat, "commit", {"round": round_, "commitment": commitment, "game_id": game_id, **extra})

    def reveal(self, seat: int, round_: int, cards: list[int], salt: str, **extra):
        return self.move(seat, "reveal", {"round": round_, "cards": cards, "salt": salt, **extra})

    def play_round(self, bids: dict[int, list[int]]) -> dict[str, Any]:
        """Every seat in ``bids`` commits, then reveals; returns the last response's body."""
        state = self.public()
        round_, game_id = state["round"], state["game_id"]
        salts = {seat: new_salt() for seat in bids}
        for seat, cards in bids.items():
            status, data = self.commit(seat, round_, cards, salts[seat], game_id=game_id)
            assert status == 200, data
        data = None
        for seat, cards in bids.items():
            status, data = self.reveal(seat, round_, cards, salts[seat])
            assert status == 200, data
        return data

    def play_to_end(self, strategy: Callable[[dict[str, Any], int], list[int]], max_steps: int = 2000) -> dict[str, Any]:
        """Play with ``strategy(public_state, seat) -> cards`` until the game or match is over."""
        for _ in range(max_steps):
            state = self.public()
            if state["phase"] == "over":
                return state
            if state["phase"] == "commit":
                self.play_round({seat: strategy(state, seat) for seat in state["awaiting"]})
            elif state["phase"] == "choose":
                seat = state["chooser"]
                status, data = self.move(seat, "choose", {"rank": max(state["row"])})
                assert status == 200, data
            else:
                raise AssertionError(f"unexpected phase {state['phase']}")
        raise AssertionError("the game did not end")


@dataclass
class GofoTable(Created):
    """A created Gofo table and its tokens; ``play`` is the move of the seat to act."""

    COLLECTION = "/v1/gofo/tables"
    MOVE_PATHS = {"no_ver": "no-ver"}

    def hand(self) -> dict[str, Any]:
        return self.public()["hand"]

    def to_act(self) -> int:
        return self.hand()["to_act"]

    def play(self, kind: str, **body) -> dict[str, Any]:
        """The seat to act makes this move; it must be accepted."""
        seat = self.to_act()
        status, data = self.move(seat, kind, body)
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


def lowest(state: dict[str, Any], seat: int) -> list[int]:
    k = state["rules"]["bid_cards"]
    return sorted(state["hands"][seat])[:k]


def match_prize(state: dict[str, Any], seat: int) -> list[int]:
    """Bid the prize's value when still in hand (the predictable bot of 000 §06), else the lowest card."""
    hand = state["hands"][seat]
    prize = state["row"][0] if state["row"] else None
    if prize in hand and state["rules"]["bid_cards"] == 1:
        return [prize]
    return lowest(state, seat)


def seat_biased(state: dict[str, Any], seat: int) -> list[int]:
    """Seat s bids its (s+1)-th highest card: different seats usually bid different values."""
    hand = sorted(state["hands"][seat], reverse=True)
    k = state["rules"]["bid_cards"]
    start = min(seat, len(hand) - k)
    return hand[start : start + k]

"""The Gops side of the bad-input sweep (tests/test_bad_input.py): a game to fuzz, its paths, and
plausible moves that carry it through every phase (commit, reveal, choose, a reported prize, a match)."""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import redis
from hypothesis import strategies as st

from service.games import commitments
from support.client import bearer
from support.store import snapshot
from support.sweep import (
    ID_NASTIES,
    SEAT_NASTIES,
    Body,
    Operation,
    bodies,
    check,
    headers,
    near_miss,
    operations_under,
)

OPERATIONS = operations_under("/v1/gops/")
POST_OPS = [o for o in OPERATIONS if o.method == "POST"]


@dataclass
class World:
    client: Any
    raw: redis.Redis
    id: str
    host: str
    tokens: list[str]
    bids: dict[tuple[int, int], tuple[list[int], str]] = field(default_factory=dict)
    poisoned: set[tuple[int, int, str]] = field(default_factory=set)
    kind: str = "gops"

    @property
    def base(self) -> str:
        return f"/v1/gops/games/{self.id}"

    def public(self) -> dict[str, Any]:
        r = self.client.get(self.base)
        assert r.status_code == 200, r.get_data()
        return r.get_json()


# Deterministic prize orders: the sequences' draws depend on the game's course, and hypothesis
# needs the same draws to give the same game when it replays or shrinks an example.
GAME_SETUPS = [
    {"profile": "classic", "options": {"ranks": 4, "prize_order": "descending"}},
    {"profile": "standard", "options": {"players": 3, "ranks": 3, "resolution": "split", "prize_order": "ascending"}},
    {"profile": "standard", "options": {"ranks": 4, "open_prizes": 2, "prize_order": "explicit", "explicit_order": [2, 4, 1, 3]}},
    {"profile": "standard", "options": {"ranks": 3, "prize_order": "reported"}},
    {"profile": "standard", "options": {"ranks": 3, "prize_order": "reported", "visibility": "blind"}},
    {"profile": "standard", "options": {"ranks": 4, "bid_cards": 2, "prize_order": "ascending"}},
    {"profile": "classic", "options": {"ranks": 3, "deadline_seconds": 600, "prize_order": "descending"},
     "match": {"format": "best_of", "games": 3}},
]
# One request at a fresh game does not depend on the game's course: shuffled orders are fine there.
SINGLE_SETUPS = [*GAME_SETUPS, {"profile": "classic"}, {"profile": "standard", "options": {"players": 7}}]


def new_world(client, raw, setup: dict[str, Any]) -> World:
    raw.flushdb()
    r = client.post("/v1/gops/games", json=setup)
    assert r.status_code == 201, r.get_data()
    data = r.get_json()
    return World(client, raw, data["id"], data["host_token"], data["seat_tokens"])


@st.composite
def paths(draw, world: World, op: Operation, players: int) -> tuple[str, bool, int | None]:
    """The request path; whether it targets ``op`` as routed; the seat if any."""
    routed = True
    game_id = urllib.parse.quote(world.id, safe="")
    if "{game_id}" in op.template and draw(st.integers(0, 4)) == 0:
        routed = False
        choice = draw(st.one_of(st.sampled_from(ID_NASTIES), st.text(min_size=1, max_size=30)))
        game_id = choice if draw(st.booleans()) and choice in ID_NASTIES else urllib.parse.quote(choice, safe="")
    seat: int | None = draw(st.integers(0, players - 1))
    seat_text = str(seat)
    if "{seat}" in op.template and draw(st.integers(0, 4)) == 0:
        seat_text = draw(st.one_of(st.sampled_from(SEAT_NASTIES), st.integers().map(str)))
        # werkzeug's int converter takes any run of decimal digits ("00", "１"): still this route.
        seat = int(seat_text) if seat_text.isdecimal() else None
        routed = routed and seat is not None
    path = op.template.replace("{game_id}", game_id).replace("{seat}", seat_text)
    return path, routed, seat


def plausible_move(world: World, state: dict[str, Any], draw) -> tuple[str, dict[str, Any], str] | None:
    """A legal-looking move for the current phase (so the fuzz sees every phase)."""
    phase, round_ = state["phase"], state["round"]
    awaiting = state["awaiting"]
    if phase == "commit" and awaiting:
        seat = draw(st.sampled_from(awaiting))
        hand = state["hands"][seat]
        k = state["rules"]["bid_cards"]
        cards = draw(st.permutations(hand))[:k]
        salt = draw(st.text("0123456789abcdef", min_size=64, max_size=64))
        world.bids[(state["game_number"], round_, seat)] = (cards, salt)
        commitment = commitments.bid_commitment(state["game_id"], round_, seat, cards, salt)
        return f"{world.base}/seats/{seat}/commit", {"round": round_, "commitment": commitment}, world.tokens[seat]
    if phase == "reveal" and awaiting:
        seat = draw(st.sampled_from(awaiting))
        bid = world.bids.get((state["game_number"], round_, seat))
        if bid is None:
            return None
        cards, salt = bid
        return f"{world.base}/seats/{seat}/reveal", {"round": round_, "cards": cards, "salt": salt}, world.tokens[seat]
    if phase == "choose" and state["chooser"] is not None:
        seat = state["chooser"]
        return f"{world.base}/seats/{seat}/choose", {"rank": draw(st.sampled_from(state["row"]))}, world.tokens[seat]
    if phase == "prize":
        left = [r for r in range(1, state["rules"]["ranks"] + 1) if r not in state["turned"]]
        if left:
            return f"{world.base}/prize", {"rank": draw(st.sampled_from(left))}, world.host
    return None


def fuzz_one(world: World, draw, players: int) -> None:
    op = draw(st.sampled_from(OPERATIONS))
    method = op.method if draw(st.integers(0, 9)) else draw(st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]))
    path, routed, seat = draw(paths(world, op, players))
    body = draw(bodies(op if method == "POST" else None)) if method != "GET" else Body(None, None, None, "none")
    hdrs = draw(headers(world, seat))
    check(world, op, method, path, routed, body, hdrs, snapshot(world.raw))


def one_request(client, raw, draw) -> None:
    """One adversarial request at any operation of a fresh game (any setup)."""
    world = new_world(client, raw, draw(st.sampled_from(SINGLE_SETUPS)))
    fuzz_one(world, draw, len(world.tokens))


def action_sequence(client, raw, draw) -> None:
    """Plausible moves, near misses, resignations, deadlines and garbage, interleaved."""
    world = new_world(client, raw, draw(st.sampled_from(GAME_SETUPS)))
    players = len(world.tokens)
    for _ in range(draw(st.integers(5, 40))):
        kind = draw(st.sampled_from(["move", "move", "near", "near", "fuzz", "fuzz", "resign", "deadline"]))
        state = world.public()
        if kind in ("move", "near"):
            move = plausible_move(world, state, draw)
            if move is None:
                continue
            path, payload, token = move
            op = next(o for o in POST_OPS if path.endswith(o.template.rsplit("/", 1)[1]))
            if kind == "near":
                payload = draw(near_miss(payload, state["version"]))
            body = Body(json.dumps(payload).encode(), "application/json", payload, kind)
            response = check(world, op, "POST", path, True, body, bearer(token),
                             snapshot(world.raw))
            seat_round = (state["game_number"], state["round"], path.split("/seats/")[-1].split("/")[0])
            if kind == "near" and response.status_code == 200 and path.endswith("/commit"):
                world.poisoned.add(seat_round)  # a near-miss commitment may be unrevealable
            if kind == "move" and state["phase"] != "over" and seat_round not in world.poisoned:
                assert response.status_code == 200, response.get_data()
        elif kind in ("resign", "deadline") and draw(st.integers(0, 5)) == 0:
            seat = draw(st.integers(0, players - 1))
            suffix = f"/seats/{seat}/resign" if kind == "resign" else "/deadline"
            op = next(o for o in POST_OPS if o.template.endswith(suffix.rsplit("/", 1)[1]))
            token = world.tokens[seat] if kind == "resign" else world.host
            body = Body(b"{}", "application/json", {}, kind)
            check(world, op, "POST", world.base + suffix, True, body, bearer(token),
                  snapshot(world.raw))
        else:
            fuzz_one(world, draw, players)

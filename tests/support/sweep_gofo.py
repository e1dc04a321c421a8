"""The Gofo side of the bad-input sweep (tests/test_bad_input.py): a table to fuzz, its paths, and
random legal moves (taken from the seat's ``legal_actions``) and near misses of them that keep dealt and
tabletop tables progressing through every phase and over several hands."""

from __future__ import annotations

import json
import random
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import redis
from hypothesis import strategies as st

from service.games.gofo.cards import DECK
from support.client import bearer
from support.store import snapshot, stored_doc
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
from support.sweep import assert_store_consistent as assert_versions_consistent

TABLES = "/v1/gofo/tables"


OPERATIONS = operations_under("/v1/gofo/")
POST_OPS = [o for o in OPERATIONS if o.method == "POST"]
MOVE_OPS = {o.template.rsplit("/", 1)[1]: o for o in POST_OPS if "{seat}" in o.template}


# ------------------------------------------------------------ the world


@dataclass
class World:
    client: Any
    raw: redis.Redis
    id: str
    host: str
    tokens: list[str]
    mode: str
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    kind: str = "gofo"

    @property
    def base(self) -> str:
        return f"{TABLES}/{self.id}"

    def public(self) -> dict[str, Any]:
        r = self.client.get(self.base)
        assert r.status_code == 200, r.get_data()
        return r.get_json()

    def seat_view(self, seat: int) -> dict[str, Any]:
        r = self.client.get(f"{self.base}/seats/{seat}", headers=bearer(self.tokens[seat]))
        assert r.status_code == 200, r.get_data()
        return r.get_json()


SETUPS = [
    {"seats": 5},
    {"seats": 2, "caja": 30, "refill": 5, "initial_front": 6},
    {"seats": 3, "caja": 20, "refill": 2, "initial_front": 3, "inauguration_front": 4},
    {"seats": 6, "turn_seconds": 600},
    {"seats": 3, "mode": "tabletop", "caja": 40, "refill": 5},
    {"seats": 5, "mode": "tabletop", "turn_seconds": 5},
]


def new_world(client, raw, setup: dict[str, Any], seed: int = 0) -> World:
    raw.flushdb()
    r = client.post(TABLES, json=setup)
    assert r.status_code == 201, r.get_data()
    data = r.get_json()
    return World(client, raw, data["id"], data["host_token"], data["seat_tokens"],
                 setup.get("mode", "dealt"), random.Random(seed))


def assert_store_consistent(world: World) -> None:
    assert_versions_consistent(world)
    assert stored_doc(world.raw, "gofo", world.id)["state"]["options"]["seats"] == len(world.tokens)


def checked(world: World, op: Operation, method: str, path: str, routed: bool, body: Body,
            hdrs: dict[str, str]):
    response = check(world, op, method, path, routed, body, hdrs, snapshot(world.raw))
    assert_store_consistent(world)
    return response


# ------------------------------------------------------------ strategies


@st.composite
def paths(draw, world: World, op: Operation) -> tuple[str, bool, int | None]:
    """The request path; whether it targets ``op`` as routed; the seat if any."""
    routed = True
    table_id = urllib.parse.quote(world.id, safe="")
    if "{table_id}" in op.template and draw(st.integers(0, 4)) == 0:
        routed = False
        choice = draw(st.one_of(st.sampled_from(ID_NASTIES + ["referee:gofo:{x}", world.id + "x", world.id[:-1],
                                                               world.id.lower(), world.id.upper()]),
                                st.text(min_size=1, max_size=30)))
        if choice == world.id:
            routed = True
        table_id = choice if draw(st.booleans()) and choice in ID_NASTIES else urllib.parse.quote(choice, safe="")
    seat: int | None = draw(st.integers(0, len(world.tokens) - 1))
    seat_text = str(seat)
    if "{seat}" in op.template and draw(st.integers(0, 4)) == 0:
        seat_text = draw(st.one_of(st.sampled_from(SEAT_NASTIES + ["6", "5", "100"]), st.integers().map(str)))
        seat = int(seat_text) if seat_text.isdecimal() else None
        routed = routed and seat is not None
    path = op.template.replace("{table_id}", table_id).replace("{seat}", seat_text)
    return path, routed, seat


def _generable(node: Any) -> Any:
    """The request schema as ``support.sweep.from_schema`` can draw from: it draws at most 4 array
    items, so ``minItems`` above 4 (a shown hand: exactly 5 cards) is capped there (the drawn body is
    then a near miss the spec refuses; ``plausible_move`` sends real 5-card hands)."""
    if isinstance(node, list):
        return [_generable(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _generable(v) for k, v in node.items()}
    if isinstance(out.get("minItems"), int) and out["minItems"] > 4:
        out["minItems"] = 4
    return out


@dataclass
class _Generation:
    body_schema: dict[str, Any] | None


GENERATION = {o.name: _Generation(_generable(o.body_schema)) for o in OPERATIONS}


def fuzz_one(world: World, draw) -> None:
    op = draw(st.sampled_from(OPERATIONS))
    method = op.method if draw(st.integers(0, 9)) else draw(st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]))
    path, routed, seat = draw(paths(world, op))
    body = draw(bodies(GENERATION[op.name] if method == "POST" else None)) if method != "GET" else Body(None, None, None, "none")
    hdrs = draw(headers(world, seat))
    checked(world, op, method, path, routed, body, hdrs)


def plausible_move(world: World, public: dict[str, Any], draw) -> tuple[int, str, dict[str, Any]] | None:
    """A legal move of the seat to act (or a look by someone who may look), from its legal_actions."""
    hand = public["hand"]
    if hand is None or hand["to_act"] is None:
        return None
    seat = hand["to_act"]
    legal = world.seat_view(seat)["hand"]["legal_actions"]
    if not legal:
        return None
    action = draw(st.sampled_from(legal))
    kind = action["type"]
    if kind in ("open", "raise", "corta", "refiche"):
        hi = min(action["max"], action["min"] + 5)
        return seat, kind, {"amount": draw(st.integers(action["min"], hi))}
    if kind == "enter":
        return seat, kind, {"blind": bool(action.get("blind"))}
    if kind == "discard":
        if world.mode == "dealt":
            cards = list(action["cards"])
            n = draw(st.integers(0, min(action["max"], len(cards))))
            return seat, kind, {"cards": draw(st.permutations(cards))[:n]}
        return seat, kind, {"count": draw(st.integers(0, action["max"]))}
    if kind == "declare":
        return seat, kind, {"points": draw(st.integers(action["min"], action["max"]))}
    if kind == "show":
        return seat, kind, {"cards": draw(st.permutations(DECK))[:5]}
    return seat, kind.replace("_", "-"), {}


@st.composite
def gofo_near_miss(draw, payload: dict[str, Any], version: int) -> dict[str, Any]:
    """``support.sweep.near_miss``; card lists get card-shaped mistakes (its list mutations are numeric)."""
    if "cards" not in payload or draw(st.integers(0, 2)) == 0:
        rest = {k: v for k, v in payload.items() if k != "cards"}
        if rest:
            return {**draw(near_miss(rest, version)), **({"cards": payload["cards"]} if "cards" in payload else {})}
        return draw(st.sampled_from([{"version": version}, {"version": version - 1}, {"x": 1}, {"version": None},
                                     {"version": 1.0}, {**payload, "count": 9}]))
    cards = list(payload["cards"])
    other = [c for c in DECK if c not in cards]
    bad = draw(st.sampled_from([
        cards + cards[:1], cards[::-1], cards[1:], cards + [draw(st.sampled_from(other))],
        [c.upper() for c in cards], [c + " " for c in cards], [draw(st.sampled_from(other))] * len(cards),
        cards + ["13o"], [1, 2], None, "3o", [None], cards * 3, [{"card": c} for c in cards],
    ]))
    out = {**payload, "cards": bad}
    if draw(st.booleans()):
        out["count"] = draw(st.sampled_from([len(cards), len(cards) + 1, -1, None, 5.0, "2"]))
    return out


def one_request(client, raw, draw) -> None:
    """One adversarial request at any Gofo operation of a fresh table (any setup)."""
    world = new_world(client, raw, draw(st.sampled_from(SETUPS)))
    fuzz_one(world, draw)


def action_sequence(client, raw, draw) -> None:
    """Legal moves, near misses, deadlines and garbage, interleaved: every phase of dealt and tabletop
    hands (and the hands after them)."""
    world = new_world(client, raw, draw(st.sampled_from(SETUPS)))
    for _ in range(draw(st.integers(10, 60))):
        kind = draw(st.sampled_from(["move", "move", "move", "move", "near", "near", "fuzz", "fuzz", "deadline"]))
        public = world.public()
        if kind in ("move", "near"):
            move = plausible_move(world, public, draw)
            if move is None:
                continue
            seat, name, payload = move
            op = MOVE_OPS[name]
            token = world.tokens[seat]
            if world.mode == "tabletop" and draw(st.booleans()):
                token = world.host  # one phone refereeing the real table
            if kind == "near":
                payload = draw(gofo_near_miss(payload, public["version"]))
            body = Body(json.dumps(payload).encode(), "application/json", payload, kind)
            path = op.template.replace("{table_id}", world.id).replace("{seat}", str(seat))
            response = checked(world, op, "POST", path, True, body, bearer(token))
            if kind == "move" and name not in ("show", "declare"):
                assert response.status_code == 200, (name, payload, response.get_data())
        elif kind == "deadline":
            op = next(o for o in POST_OPS if o.template.endswith("/deadline"))
            token = draw(st.sampled_from([world.host, *world.tokens]))
            body = Body(b"{}", "application/json", {}, kind)
            checked(world, op, "POST", world.base + "/deadline", True, body, bearer(token))
        else:
            fuzz_one(world, draw)

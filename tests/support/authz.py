"""The scenes of the authorization matrix (tests/test_authz.py): one game or table of each game caught
mid-play beside unrelated ones, the operations that take a token (from the generated spec), and what
no refusal may show.

A scene answers the matrix's questions the same way for both games: its ``ops``; the seat whose
token is right (``actor``) and ``other_seats``; ``foreign_tokens`` (of other games and tables);
``unknown_ids`` and who asks for them (``unknown_callers``); who may use a table operation and what
the rules answer then (``table_callers``, ``table_refusal``); and ``assert_nothing_secret``.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from typing import Any, ClassVar

from service.games import commitments
from service.games.gofo.cards import DECK
from service.openapi import generate
from support.client import bearer
from support.store import stored_doc

SPEC = generate()


@dataclass(frozen=True)
class Op:
    name: str
    method: str
    template: str  # {game_id} or {table_id}, {seat}
    body: dict | None
    seat_op: bool  # a seat's own (tabletop: or the host) vs anyone at the game or table

    def path(self, id: str, seat: int) -> str:
        return re.sub(r"\{(game|table)_id\}", id, self.template).replace("{seat}", str(seat))


def token_operations(collection: str, bodies: dict[str, dict[str, Any]]) -> list[Op]:
    """Every operation under ``collection``/{id} that needs a token, with a plausible body per move
    (``bodies``, by the path's last segment; the matrix refuses before the rules look at it)."""
    ops = []
    for template, item in SPEC["paths"].items():
        if not re.match(re.escape(collection) + r"/\{\w+\}", template):
            continue
        for method, op in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            security = op.get("security", [])
            if not any("bearerAuth" in s for s in security) or {} in security:
                continue  # no token needed (a spectator's stream): tests/test_events.py authorizes it
            suffix = template.rsplit("/", 1)[1]
            seat_op = "{seat}" in template
            body = None if method == "get" else bodies.get(suffix, {} if not seat_op else None)
            ops.append(Op(op["operationId"], method.upper(), template, body, seat_op))
    return ops


def assert_problem(response, status: int, code: str) -> None:
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert body["status"] == status and body["code"] == code
    assert body["type"] == f"https://referee.example/problems/{code}"
    if status == 401:
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="referee"'


def _post(client, path, body, token=None):
    r = client.post(path, json=body, headers=bearer(token))
    assert r.status_code == 200, (path, body, r.get_json())
    return r.get_json()


# ---------------------------------------------------------------------- Gops


GAMES = "/v1/gops/games"
GOPS_BODIES: dict[str, dict[str, Any]] = {
    "commit": {"round": 1, "commitment": "ab" * 32}, "reveal": {"round": 1, "cards": [1], "salt": "cd" * 32},
    "choose": {"rank": 13}, "resign": {}, "prize": {"rank": 13}, "deadline": {}, "name": {"name": "Ana"},
}
GOPS_OPS = token_operations(GAMES, GOPS_BODIES)


@dataclass
class GopsScene:
    """A 3-seat game mid-round plus an unrelated game.

    Round 1 of game ``a``: every seat committed; seat 0 revealed (its cards and
    salt are secret until seat 1 reveals); seat 2 resigned; seat 1 is awaited.
    """

    a: dict
    b: dict
    secret_salt: str
    secret_card: int
    prize_order: list[int]
    prize_salt: str

    game: ClassVar[str] = "gops"
    ops: ClassVar[list[Op]] = GOPS_OPS
    actor: ClassVar[int] = 1
    other_seats: ClassVar[tuple[int, ...]] = (0, 2)
    table_callers: ClassVar[tuple[str, ...]] = ("host", "seat0", "seat1")

    @property
    def id(self) -> str:
        return self.a["id"]

    def seat(self, n: int) -> str:
        return self.a["seat_tokens"][n]

    @property
    def host(self) -> str:
        return self.a["host_token"]

    def token_of(self, who: str) -> str:
        return self.host if who == "host" else self.seat(int(who[-1]))

    def foreign_tokens(self) -> list[str]:
        return [self.b["host_token"], *self.b["seat_tokens"]]

    def unknown_ids(self) -> list[str]:
        return ["NoSuchGame99"]

    def unknown_callers(self) -> list[dict[str, str]]:
        return [{}, bearer(self.seat(1)), bearer(self.host)]

    def table_refusal(self, op: Op) -> str:
        """What the rules answer an authorized table operation at the scene: no prize to report in
        this order; the deadline has not passed."""
        return "wrong_phase" if op.template.endswith("/prize") else "deadline_not_passed"

    def token_hashes(self) -> list[str]:
        tokens = [self.a["host_token"], *self.a["seat_tokens"], self.b["host_token"], *self.b["seat_tokens"]]
        return [hashlib.sha256(t.encode()).hexdigest() for t in tokens]

    def assert_nothing_secret(self, response, may_see_seat0_reveal: bool = False) -> None:
        raw = response.get_data(as_text=True)
        if not may_see_seat0_reveal:
            assert self.secret_salt not in raw
        assert self.prize_salt not in raw
        assert json.dumps(self.prize_order) not in raw and ",".join(map(str, self.prize_order)) not in raw
        for digest in self.token_hashes():
            assert digest not in raw
        for token in [self.host, *self.a["seat_tokens"], self.b["host_token"], *self.b["seat_tokens"]]:
            assert token not in raw
        for value in response.headers.values():
            assert self.secret_salt not in value and self.prize_salt not in value
        body = response.get_json(silent=True)
        if isinstance(body, dict) and "game_id" in body:  # a state: check the structure too
            assert body["prize_order"] is None and body["prize_salt"] is None
            if not may_see_seat0_reveal:
                assert body.get("my_reveal") is None


def gops_scene(client, redis_client) -> GopsScene:
    created = client.post(GAMES, json={"profile": "standard", "options": {"players": 3, "deadline_seconds": 600}})
    assert created.status_code == 201
    a = created.get_json()
    b = client.post(GAMES, json={"profile": "classic"}).get_json()
    game_id = a["game"]["game_id"]
    hands = a["game"]["hands"]
    salts = [secrets.token_hex(32) for _ in range(3)]
    cards = [hands[0][5], hands[1][6], hands[2][7]]
    for seat in range(3):
        commitment = commitments.bid_commitment(game_id, 1, seat, [cards[seat]], salts[seat])
        _post(client, f"{GAMES}/{a['id']}/seats/{seat}/commit", {"round": 1, "commitment": commitment},
              a["seat_tokens"][seat])
    _post(client, f"{GAMES}/{a['id']}/seats/0/reveal", {"round": 1, "cards": [cards[0]], "salt": salts[0]},
          a["seat_tokens"][0])
    state = _post(client, f"{GAMES}/{a['id']}/seats/2/resign", {}, a["seat_tokens"][2])
    assert state["phase"] == "reveal" and state["awaiting"] == [1] and state["resigned"] == [2]
    doc = stored_doc(redis_client, "gops", a["id"])
    game = doc["state"]["game"]
    return GopsScene(a, b, salts[0], cards[0], game["prize_order"], game["prize_salt"])


# ---------------------------------------------------------------------- Gofo


TABLES = "/v1/gofo/tables"
CARDS = set(DECK)
CARD_IN_TEXT = re.compile(r"(?<![\w-])(?:1[12]|[3-7])[ocbe](?![\w-])")
GOFO_BODIES: dict[str, dict[str, Any]] = {
    "open": {"amount": 1}, "look": {}, "enter": {"blind": False}, "decline": {}, "raise": {"amount": 1},
    "pass": {}, "ver": {}, "no-ver": {}, "voy": {}, "corta": {"amount": 1}, "refiche": {"amount": 1},
    "discard": {"cards": []}, "show": {"cards": ["6e", "7e", "11e", "12e", "4o"]}, "declare": {"points": 20},
    "muck": {}, "reshuffle": {}, "inaugurate": {"front": 20}, "deadline": {}, "name": {"name": "Ana"},
}
GOFO_OPS = token_operations(TABLES, GOFO_BODIES)


def cards_in(node: Any, skip_draws: bool = True) -> set[str]:
    """Every card named anywhere in a JSON value (as a value or inside a text); the first-dealer
    draw (``table.draws``, its own deck) left out."""
    found: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if skip_draws and key == "draws":
                continue
            found |= cards_in(value, skip_draws)
    elif isinstance(node, list):
        for value in node:
            found |= cards_in(value, skip_draws)
    elif isinstance(node, str):
        if node in CARDS:
            found.add(node)
        else:
            found |= {c for c in CARD_IN_TEXT.findall(node) if c in CARDS}
    return found


@dataclass
class GofoScene:
    """A 5-seat dealt table mid-hand, a 3-seat tabletop table, and unrelated tables.

    Dealt table ``a``, hand 1: mano opened, everyone entered (one blind), the blind entrant raised,
    ``folded`` saw his two cards and folded, everyone else saw; speaking round 1 (all voy), each live
    seat threw two cards face up; speaking round 2 awaits ``to_act`` (mano).
    """

    a: dict
    t: dict  # tabletop
    b: dict  # another dealt table
    g: dict  # a Gops game
    to_act: int
    folded: int
    folded_cards: list[str]
    doc: dict  # the stored document of ``a`` at the scene

    game: ClassVar[str] = "gofo"
    ops: ClassVar[list[Op]] = GOFO_OPS
    table_callers: ClassVar[tuple[str, ...]] = ("host", "seat0", "to_act", "folded")

    @property
    def id(self) -> str:
        return self.a["id"]

    @property
    def actor(self) -> int:
        return self.to_act

    @property
    def other_seats(self) -> list[int]:
        return [seat for seat in range(5) if seat != self.to_act]

    def seat(self, n: int) -> str:
        return self.a["seat_tokens"][n]

    @property
    def host(self) -> str:
        return self.a["host_token"]

    def token_of(self, who: str) -> str:
        return {"host": self.host, "seat0": self.seat(0), "to_act": self.seat(self.to_act),
                "folded": self.seat(self.folded)}[who]

    def foreign_tokens(self) -> list[str]:
        """Tokens of another Gofo table (dealt or tabletop, host or seat) and of a Gops game."""
        return [self.b["host_token"], *self.b["seat_tokens"], self.t["host_token"], *self.t["seat_tokens"],
                self.g["host_token"], *self.g["seat_tokens"]]

    def unknown_ids(self) -> list[str]:
        """No such table; a Gops game's id is not a Gofo table."""
        return ["NoSuchTable99", self.g["id"]]

    def unknown_callers(self) -> list[dict[str, str]]:
        return [{}, bearer(self.seat(self.to_act)), bearer(self.host), bearer(self.g["seat_tokens"][0])]

    def table_refusal(self, op: Op) -> str:
        """What the rules answer an authorized table operation at the scene: the deadline has not passed."""
        return "deadline_not_passed"

    def all_tokens(self) -> list[str]:
        return [self.host, *self.a["seat_tokens"], *self.foreign_tokens()]

    def face_up(self) -> set[str]:
        hand = self.doc["state"]["hand"]
        return {c for d in hand["discard_log"] for c in (d["cards"] or [])} | {c for k in hand["kept"] for c in k}

    def hidden_cards(self) -> set[str]:
        """Every card of table ``a`` no caller of a refusal may see: all hands, the stock, the pile
        (folded hands) except what was thrown face up."""
        hand = self.doc["state"]["hand"]
        cards = {c for h in hand["hands"] for c in h} | set(hand["stock"]) | set(hand["pile"]) | set(self.folded_cards)
        return cards - self.face_up()

    def secret_strings(self) -> list[str]:
        """Salts and keys of the hand in progress, token hashes, the tokens themselves."""
        deal = self.doc["deals"]["1"]
        out = [*deal["salts"], *deal["reshuffle_keys"], *self.all_tokens()]
        out += [hashlib.sha256(t.encode()).hexdigest() for t in self.all_tokens()]
        out.append(",".join(deal["order"]))
        out.append(json.dumps(deal["order"]))
        return out

    def assert_nothing_secret(self, response, may_see: set[str] = frozenset()) -> None:
        raw = response.get_data(as_text=True)
        for secret in self.secret_strings():
            assert secret not in raw
        for value in response.headers.values():
            assert not CARD_IN_TEXT.search(value) or not (set(CARD_IN_TEXT.findall(value)) & self.hidden_cards())
        body = response.get_json(silent=True)
        if isinstance(body, dict) and isinstance(body.get("entries"), list):  # a transcript
            body = {**body, "entries": [e for e in body["entries"] if e["action"]["type"] != "dealer_draw"]}
        leaked = cards_in(body) & (self.hidden_cards() - set(may_see))
        assert not leaked, f"the response shows cards the caller may not see: {sorted(leaked)}"


def gofo_scene(client, redis_client) -> GofoScene:
    created = client.post(TABLES, json={"seats": 5, "turn_seconds": 600})
    assert created.status_code == 201
    a = created.get_json()
    t = client.post(TABLES, json={"seats": 3, "mode": "tabletop"}).get_json()
    b = client.post(TABLES, json={"seats": 5}).get_json()
    g = client.post(GAMES, json={"profile": "classic"}).get_json()
    base, tokens = f"{TABLES}/{a['id']}", a["seat_tokens"]

    def hand():
        return client.get(base).get_json()["hand"]

    def play(move, **body):
        seat = hand()["to_act"]
        return seat, _post(client, f"{base}/seats/{seat}/{move}", body, tokens[seat])

    def legal(seat):
        view = client.get(f"{base}/seats/{seat}", headers=bearer(tokens[seat])).get_json()
        return {x["type"] for x in view["hand"]["legal_actions"]}

    mano = hand()["mano"]
    order = [(mano + k) % 5 for k in range(5)]
    play("open", amount=1)
    play("enter", blind=False)
    play("enter", blind=True)
    _, view = play("enter", blind=False)
    folded_cards = view["hand"]["my_cards"]
    assert len(folded_cards) == 2
    play("enter", blind=False)
    play("pass")  # mano does not raise; the blind entrant does
    play("raise", amount=1)
    while hand()["phase"] in ("raising", "betting"):
        seat = hand()["to_act"]
        moves = legal(seat)
        play("no-ver" if seat == order[3] and "no_ver" in moves else "ver" if "ver" in moves else "pass")
    while hand()["phase"] == "speaking":
        play("voy")
    while hand()["phase"] == "discard":
        seat = hand()["to_act"]
        mine = client.get(f"{base}/seats/{seat}", headers=bearer(tokens[seat])).get_json()["hand"]["my_cards"]
        play("discard", cards=mine[:2])
    h = hand()
    assert h["phase"] == "speaking" and h["round"] == 2 and h["to_act"] == mano
    assert h["status"][order[3]] == "folded" and len(h["discards"]) == 4
    doc = stored_doc(redis_client, "gofo", a["id"])
    assert not set(folded_cards) & {c for d in h["discards"] for c in d["cards"]}
    return GofoScene(a, t, b, g, mano, order[3], folded_cards, doc)

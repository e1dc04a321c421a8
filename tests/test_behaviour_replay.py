"""Behaviour replay: every HTTP exchange of seeded whole games of both games, byte for byte.

``tests/behaviour/exchanges.json`` holds, for each scenario below, every request a client made
(method, path, the headers that matter, body) and what the referee answered (status, ``ETag``,
``Content-Type``, ``Idempotent-Replayed``, the body's exact bytes): whole Gops games and matches in
every profile option and match format the create schema accepts, and Gofo tables dealt and
tabletop over several hands, with refused moves, stale versions and wrong tokens among them.  It was
recorded from the code as it was before ``service/`` was restructured (3a09792); this test sends the
same requests to the code as it is and demands the same answers, so a restructure that changes any
byte a client can see fails here, at the first exchange that differs, with a diff.

The app is driven only over HTTP (conftest's ``client`` fixture: a fresh app on an emptied store
for each scenario) inside ``support.chance.seeded_referee``: no ``service.*`` module is imported
here, so the recording survives modules moving.  Everything in an answer is a function of the seed and the requests
made so far — ids, salts, prize orders and decks come from the seeded entropy, and the clock is
frozen (``tick=0``) — with one exception, normalised (:class:`Session`):

* **bearer tokens** are drawn from ``secrets`` on purpose (``service/auth.py``: never from the
  seeded source, so a test seed can never mint a guessable token).  Each distinct token is named
  ``<token-N>`` in the order it is first handed out (the host's token, then each seat's, per
  created game or table), in the bodies and in the ``Authorization`` headers; replaying, the
  placeholders are bound to the tokens this run handed out.

Not normalised, because they are not recorded: ``X-Request-Id`` (``os.urandom`` unless the
client sends one) and the security/caching headers, which say nothing about the games.  Nothing
else needed normalising: recording twice in separate processes (different ``PYTHONHASHSEED``)
gives the same file byte for byte.

A JSON body is kept in the fixture as JSON (readable, one exchange per line) with ``enc`` naming
how its exact bytes are spelled (``json``: compact with a trailing newline, as views are sent;
``problem``: the json module's defaults, as problem+json is sent); any other body (an event
stream) is kept as ``text``.  Either way the comparison is of the exact characters.

The clock is frozen rather than ticking per reading, so an answer does not depend on how many
times the code reads the clock (an implementation detail a restructure may well change).  Where
a scenario needs time to pass (deadlines), it starts a new *segment*: a new ``seeded_referee``
block with its own seed and a later frozen instant.

Regenerate (only when a change of behaviour is intended, and say so in the commit)::

    REFEREE_RECORD_BEHAVIOUR=1 python -m pytest tests/test_behaviour_replay.py

Recording plays each scenario with the client strategies below, then replays what it recorded on
an emptied store and refuses to write a recording that does not replay.  Only the selected
scenarios are re-recorded; the others are kept as they were.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import hashlib
import json
import os
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.chance import START, seeded_referee

FIXTURE = Path(__file__).parent / "behaviour" / "exchanges.json"
RECORD = os.environ.get("REFEREE_RECORD_BEHAVIOUR", "") not in ("", "0")
RECORDED_FROM = "3a09792"

GOPS = "/v1/gops/games"
GOFO = "/v1/gofo/tables"

# The response headers recorded: what a client reads besides the body.
RESPONSE_HEADERS = ("ETag", "Content-Type", "Idempotent-Replayed")

# How a JSON body is written, so that the fixture can hold it as JSON (readable) and still be
# compared byte for byte: the encoding that gives back the exact bytes is named with it.  A body
# that neither gives back is kept as text.
ENCODINGS: dict[str, Callable[[Any], str]] = {
    # views and answers: compact, keys as sent, UTF-8, a trailing newline
    "json": lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n",
    # problem+json: the json module's default separators, ASCII escapes, no newline
    "problem": lambda value: json.dumps(value),
}


# ------------------------------------------------------------------------- the wire


class Session:
    """Sends recorded-form requests through the Flask test client; answers in recorded form.

    Recorded form = tokens as ``<token-N>`` placeholders (see the module docstring).  Requests are
    sent exactly as recorded: a JSON body as compact JSON (``application/json``), a ``body_text``
    as those characters with the recorded headers."""

    def __init__(self, client) -> None:
        self.client = client
        self.real: dict[str, str] = {}  # placeholder -> token handed out in this run
        self.names: dict[str, str] = {}  # token -> placeholder

    def _to_real(self, text: str) -> str:
        if "<token-" in text:
            for name, token in self.real.items():
                text = text.replace(name, token)
        return text

    def _to_names(self, text: str) -> str:
        for token, name in self.names.items():
            text = text.replace(token, name)
        return text

    def _learn_tokens(self, text: str) -> None:
        """Name the tokens a create (or its idempotent replay) hands out: host first, then seats."""
        if '"host_token"' not in text:
            return
        try:
            data = json.loads(text)
        except ValueError:
            return
        if not isinstance(data, dict):
            return
        tokens = [data.get("host_token"), *(data.get("seat_tokens") or [])]
        for token in tokens:
            if isinstance(token, str) and token not in self.names:
                name = f"<token-{len(self.names) + 1}>"
                self.names[token], self.real[name] = name, token

    def send(self, request: dict[str, Any]) -> dict[str, Any]:
        headers = {k: self._to_real(v) for k, v in request.get("headers", {}).items()}
        kwargs: dict[str, Any] = {}
        if "body" in request:
            kwargs["data"] = self._to_real(json.dumps(request["body"], ensure_ascii=False, separators=(",", ":")))
            kwargs["content_type"] = "application/json"
        elif "body_text" in request:
            kwargs["data"] = self._to_real(request["body_text"])
        response = self.client.open(self._to_real(request["path"]), method=request["method"], headers=headers, **kwargs)
        raw = response.get_data()
        text = raw.decode("utf-8")
        self._learn_tokens(text)
        text = self._to_names(text)
        answer: dict[str, Any] = {"status": response.status_code}
        recorded_headers = {name: response.headers[name] for name in RESPONSE_HEADERS if name in response.headers}
        if recorded_headers:
            answer["headers"] = recorded_headers
        answer.update(encode_body(text))
        return answer


def encode_body(text: str) -> dict[str, Any]:
    """A body in recorded form: ``{"body": value, "enc": name}`` when an encoding gives back the
    exact text, else ``{"text": text}`` (nothing for an empty body)."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {"text": text}
    for name, encode in ENCODINGS.items():
        if encode(value) == text:
            return {"body": value, "enc": name}
    return {"text": text}


def body_text(answer: dict[str, Any]) -> str:
    if "text" in answer:
        return answer["text"]
    if "body" in answer:
        return ENCODINGS[answer["enc"]](answer["body"])
    return ""


class Reply:
    """What a driver sees of an answer: status, the body parsed (tokens as placeholders), headers."""

    def __init__(self, answer: dict[str, Any]) -> None:
        self.status = answer["status"]
        self.headers = answer.get("headers", {})
        self.etag = self.headers.get("ETag")
        self.text = body_text(answer)
        try:
            self.json = json.loads(self.text) if self.text else None
        except ValueError:
            self.json = None

    @property
    def code(self) -> str | None:
        return self.json.get("code") if isinstance(self.json, dict) else None


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


# ----------------------------------------------------------------------- recording


class Recorder:
    """Plays a scenario: every request goes through a :class:`Session` and is recorded."""

    def __init__(self, client) -> None:
        self.session = Session(client)
        self.segments: list[dict[str, Any]] = []
        self._block = contextlib.ExitStack()

    def segment(self, seed: int, clock: float = START) -> None:
        """From here on: ``seeded_referee(seed, start=clock, tick=0)`` (a fresh block, not nested)."""
        assert not self.segments or clock >= self.segments[-1]["clock"], "time never goes back"
        self._block.close()
        self._block = contextlib.ExitStack()
        self._block.enter_context(seeded_referee(seed, start=clock, tick=0))
        self.segments.append({"seed": seed, "clock": clock, "exchanges": []})

    def close(self) -> None:
        self._block.close()

    def call(self, method: str, path: str, body: Any = None, *, token: str | None = None,
             headers: dict[str, str] | None = None, body_text: str | None = None, no_body: bool = False) -> Reply:
        request: dict[str, Any] = {"method": method, "path": path}
        sent_headers = {**bearer(token), **(headers or {})}
        if sent_headers:
            request["headers"] = sent_headers
        if body_text is not None:
            request["body_text"] = body_text
        elif method == "POST" and not no_body:
            request["body"] = {} if body is None else body
        answer = self.session.send(request)
        self.segments[-1]["exchanges"].append({"request": request, "response": answer})
        return Reply(answer)

    def get(self, path: str, token: str | None = None, **kwargs) -> Reply:
        return self.call("GET", path, token=token, **kwargs)

    def post(self, path: str, body: Any = None, token: str | None = None, **kwargs) -> Reply:
        return self.call("POST", path, body, token=token, **kwargs)

    def refused(self, reply: Reply, status: int, code: str) -> Reply:
        """A refusal the scenario means to record: it must be the one it says."""
        assert (reply.status, reply.code) == (status, code), (reply.status, reply.text)
        return reply

    def text(self) -> str:
        return json.dumps(self.segments, ensure_ascii=False, separators=(",", ":"))


SCENARIOS: dict[str, tuple[str, Callable[[Recorder], None]]] = {}


def scenario(name: str, about: str):
    def register(play: Callable[[Recorder], None]):
        SCENARIOS[name] = (about, play)
        return play

    return register


# ------------------------------------------------------------------------ Gops client


def salt_from(rng: random.Random) -> str:
    return f"{rng.getrandbits(256):064x}"


def bid_commitment(game_id: str, round_: int, seat: int, cards: list[int], salt: str) -> str:
    """README, *Commitments*: sha256 of gops-bid-v1|<game_id>|<round>|<seat>|<cards>|<salt>."""
    message = f"gops-bid-v1|{game_id}|{round_}|{seat}|{','.join(map(str, cards))}|{salt}"
    return hashlib.sha256(message.encode("utf-8")).hexdigest()


Strategy = Callable[[dict[str, Any], int, random.Random], list[int]]


def random_bid(state: dict[str, Any], seat: int, rng: random.Random) -> list[int]:
    return sorted(rng.sample(sorted(state["hands"][seat]), state["rules"]["bid_cards"]))


def echo_bid(state: dict[str, Any], seat: int, rng: random.Random) -> list[int]:
    """Random, but often the same card as the seat before it (ties: carry-over, splits, no winner)."""
    k = state["rules"]["bid_cards"]
    previous = state["hands"][seat - 1] if seat else []
    mine = sorted(state["hands"][seat])
    shared = [c for c in mine if c in previous]
    if k == 1 and shared and rng.random() < 0.45:
        return [rng.choice(shared)]
    return sorted(rng.sample(mine, k))


def prize_bid(state: dict[str, Any], seat: int, rng: random.Random) -> list[int]:
    """The prize's value when still in hand (the predictable bot), else a random card."""
    hand = state["hands"][seat]
    prize = state["row"][0] if state["row"] else None
    if state["rules"]["bid_cards"] == 1 and prize in hand:
        return [prize]
    return random_bid(state, seat, rng)


class GopsGame:
    """A Gops game or match created over HTTP, played the way a client app plays it."""

    def __init__(self, rec: Recorder, body: dict[str, Any], rng: random.Random, headers=None) -> None:
        reply = rec.post(GOPS, body, headers=headers)
        assert reply.status == 201, reply.text
        self.rec, self.rng = rec, rng
        self.id: str = reply.json["id"]
        self.host: str = reply.json["host_token"]
        self.seats: list[str] = reply.json["seat_tokens"]
        self.state: dict[str, Any] = reply.json["game"]
        self.salts: dict[tuple[str, int, int], tuple[list[int], str]] = {}
        self.reported: dict[str, list[int]] = {}

    @property
    def base(self) -> str:
        return f"{GOPS}/{self.id}"

    def seen(self, reply: Reply) -> Reply:
        if reply.status == 200:
            self.state = reply.json
        return reply

    def public(self) -> Reply:
        return self.seen(self.rec.get(self.base))

    def view(self, seat: int, token: str | None = None) -> Reply:
        return self.rec.get(f"{self.base}/seats/{seat}", token or self.seats[seat])

    def commit(self, seat: int, cards: list[int], *, salt: str | None = None, round_: int | None = None,
               token: str | None = None, **extra) -> Reply:
        game_id, round_ = self.state["game_id"], round_ or self.state["round"]
        salt = salt or salt_from(self.rng)
        body = {"round": round_, "commitment": bid_commitment(game_id, round_, seat, cards, salt),
                "game_id": game_id, **extra}
        reply = self.seen(self.rec.post(f"{self.base}/seats/{seat}/commit", body, token or self.seats[seat]))
        if reply.status == 200:  # what it must reveal
            self.salts[(game_id, round_, seat)] = (cards, salt)
        return reply

    def reveal(self, seat: int, *, cards: list[int] | None = None, salt: str | None = None,
               token: str | None = None, **extra) -> Reply:
        game_id, round_ = self.state["game_id"], self.state["round"]
        committed, committed_salt = self.salts[(game_id, round_, seat)]
        body = {"round": round_, "cards": committed if cards is None else cards,
                "salt": salt or committed_salt, "game_id": game_id, **extra}
        return self.seen(self.rec.post(f"{self.base}/seats/{seat}/reveal", body, token or self.seats[seat]))

    def report(self, rank: int, token: str | None = None) -> Reply:
        game_id = self.state["game_id"]
        reply = self.seen(self.rec.post(f"{self.base}/prize", {"rank": rank}, token or self.host))
        if reply.status == 200:
            self.reported.setdefault(game_id, []).append(rank)
        return reply

    def choose(self, seat: int, rank: int, token: str | None = None) -> Reply:
        return self.seen(self.rec.post(f"{self.base}/seats/{seat}/choose", {"rank": rank}, token or self.seats[seat]))

    def resign(self, seat: int) -> Reply:
        return self.seen(self.rec.post(f"{self.base}/seats/{seat}/resign", token=self.seats[seat], no_body=True))

    # --- whole rounds and games

    def bid_round(self, strategy: Strategy, bids: dict[int, list[int]] | None = None) -> None:
        """Every seat awaited commits (``bids`` first, else ``strategy``), then every one reveals."""
        state = self.state
        seats = list(state["awaiting"])
        chosen = {seat: (bids or {}).get(seat) or strategy(state, seat, self.rng) for seat in seats}
        for seat in seats:
            assert self.commit(seat, chosen[seat]).status == 200, self.state
        for seat in seats:
            reply = self.reveal(seat)
            assert reply.status == 200, reply.text

    def unseen_prize(self) -> int:
        gone = set(self.reported.get(self.state["game_id"], []))
        return self.rng.choice([r for r in range(1, self.state["rules"]["ranks"] + 1) if r not in gone])

    def step(self, strategy: Strategy, choose: Callable[[list[int], random.Random], int] | None = None) -> bool:
        """One phase's worth of moves; False once the game (or match) is over."""
        phase = self.state["phase"]
        if phase == "over":
            return False
        if phase == "prize":
            reply = self.report(self.unseen_prize())
            assert reply.status == 200, reply.text
        elif phase == "commit":
            self.bid_round(strategy)
        elif phase == "reveal":  # bids committed before a deadline forfeited the late seats
            for seat in list(self.state["awaiting"]):
                reply = self.reveal(seat)
                assert reply.status == 200, reply.text
        elif phase == "choose":
            seat = self.state["chooser"]
            row = [r for r in self.state["row"] if r is not None]
            rank = (choose or (lambda row, rng: rng.choice(row)))(row, self.rng)
            reply = self.choose(seat, rank)
            assert reply.status == 200, reply.text
        else:
            raise AssertionError(f"unexpected phase {phase}")
        return True

    def play(self, strategy: Strategy = random_bid, rounds: int | None = None, **kwargs) -> None:
        """Play on until the game (or match) is over, or for ``rounds`` bidding rounds."""
        played = 0
        while rounds is None or played < rounds:
            bidding = self.state["phase"] == "commit"
            if not self.step(strategy, **kwargs):
                return
            played += bidding


def finish_reads(rec: Recorder, game: GopsGame) -> None:
    """What a client reads at the end: the public view, a seat's view, the transcript."""
    game.public()
    game.view(0)
    transcript = rec.get(f"{game.base}/transcript")
    assert transcript.status == 200 and transcript.json["complete"], transcript.text


def expect(text: str, *needles: str) -> None:
    """A scenario exercises what it says it does (checked when it is recorded)."""
    missing = [n for n in needles if n not in text]
    assert not missing, f"the recording never shows {missing}: the scenario proves less than it says"


# ---------------------------------------------------------------------- Gops scenarios


@scenario("gops-classic", "classic profile (2 players, ties carry over, shuffled committed prizes), one whole "
          "13-round game; idempotent create, ETags and 304, every kind of refused or repeated commit and "
          "reveal, an illegal bid opened, wrong and missing tokens, malformed bodies, the transcript, the "
          "finished game's event stream and long poll")
def gops_classic(rec: Recorder) -> None:
    rec.segment(seed=101)
    rng = random.Random(101)
    key = {"Idempotency-Key": "behaviour-replay-gops-classic-1"}
    game = GopsGame(rec, {"profile": "classic"}, rng, headers=key)
    again = rec.post(GOPS, {"profile": "classic"}, headers=key)  # a retried create: the same game and tokens
    assert again.status == 201 and again.json["id"] == game.id and again.headers["Idempotent-Replayed"] == "true"
    rec.refused(rec.post(GOPS, {"profile": "standard"}, headers=key), 422, "idempotency_key_reused")
    rec.refused(rec.post(GOPS, {"profile": "classic"}, headers={"Idempotency-Key": "short"}), 422, "invalid_idempotency_key")
    first = game.public()
    rec.get(game.base, headers={"If-None-Match": first.etag})  # 304
    game.view(0)
    rec.refused(game.view(1, token=game.seats[0]), 403, "not_your_seat")
    rec.refused(rec.get(f"{game.base}/seats/0"), 401, "missing_token")
    rec.refused(game.view(0, token="not-a-token-of-this-game"), 401, "invalid_token")
    rec.get(f"{game.base}/seats/00", token=game.seats[0])  # 404: seats are plain digits
    rec.refused(rec.get(f"{GOPS}/nosuchgame00"), 404, "game_not_found")
    # refused before any bid
    game.salts[(game.id, 1, 0)] = ([5], salt_from(rng))  # a bid never committed
    rec.refused(game.reveal(0), 409, "wrong_phase")
    rec.refused(game.commit(0, [5], round_=2), 409, "wrong_round")
    rec.refused(game.commit(0, [5], game_id="another-game"), 409, "wrong_game")
    rec.refused(game.commit(0, [5], token=game.seats[1]), 403, "not_your_seat")
    rec.refused(game.commit(0, [5], token=game.host), 403, "not_your_seat")
    rec.refused(rec.post(f"{game.base}/seats/0/commit", {"round": 1, "commitment": "abc"}, game.seats[0]), 422, "invalid_request")
    rec.refused(rec.post(f"{game.base}/seats/0/commit", {"round": 1, "commitment": "0" * 64, "bid": 3}, game.seats[0]),
                422, "invalid_request")
    rec.refused(rec.post(f"{game.base}/seats/0/commit", token=game.seats[0], body_text='{"round": 1,',
                         headers={"Content-Type": "application/json"}), 400, "malformed_json")
    rec.refused(rec.post(f"{game.base}/seats/0/commit", token=game.seats[0], body_text="round=1",
                         headers={"Content-Type": "text/plain"}), 415, "unsupported_media_type")
    rec.refused(rec.post(f"{game.base}/deadline", token=game.host), 409, "no_deadline")
    rec.refused(rec.post(f"{game.base}/prize", {"rank": 3}, game.host), 409, "wrong_phase")
    rec.refused(game.choose(0, 3), 409, "wrong_phase")
    # round 1 by hand: a repeated commit is the same answer, a different one is refused
    salt0, salt1 = salt_from(rng), salt_from(rng)
    assert game.commit(0, [7], salt=salt0).status == 200
    assert game.commit(0, [7], salt=salt0).status == 200
    rec.refused(game.commit(0, [8]), 409, "already_committed")
    game.public()
    game.view(1)
    assert game.commit(1, [7], salt=salt1).status == 200  # a tie: classic carries the prize over
    game.view(1)
    rec.refused(game.reveal(0, salt=salt_from(rng)), 409, "commitment_mismatch")
    rec.refused(game.reveal(0, cards=[8]), 409, "commitment_mismatch")
    assert game.reveal(0).status == 200
    assert game.reveal(0).status == 200  # the identical reveal again: the same answer
    game.view(1)
    assert game.reveal(1).status == 200
    assert game.state["history"][-1].get("carried"), game.state["history"][-1]
    rec.refused(game.commit(0, [1], version=1), 409, "stale_version")
    game.bid_round(echo_bid)
    # seat 1 commits to the 7 it has spent and opens it: accepted, its lowest card played instead
    game.bid_round(echo_bid, bids={1: [7]})
    assert "illegal" in game.state["history"][-1], game.state["history"][-1]
    game.play(echo_bid, rounds=5)
    seen = game.state["version"]
    assert game.commit(1, echo_bid(game.state, 1, rng), version=seen).status == 200  # the version it saw
    assert game.commit(0, echo_bid(game.state, 0, rng)).status == 200
    rec.refused(game.reveal(1, token=game.seats[0]), 403, "not_your_seat")
    assert game.reveal(1, version=seen + 2).status == 200
    assert game.reveal(0).status == 200
    game.play(echo_bid)
    finish_reads(rec, game)
    rec.refused(game.commit(0, [1]), 409, "game_over")
    rec.refused(game.resign(1), 409, "game_over")
    version = game.state["version"]
    rec.get(f"{game.base}/events")  # the finished game's stream: its final state, then the end
    rec.get(f"{game.base}/events", token=game.seats[1])  # seat 1's own view
    rec.get(f"{game.base}/events", headers={"Last-Event-ID": str(version)})  # 204: stop reconnecting
    rec.get(f"{game.base}/events?wait_for_version={version}&timeout=1")  # long poll, answered at once
    rec.get(f"{game.base}/events?wait_for_version={version}&timeout=1", token=game.seats[0])
    expect(rec.text(), '"carried":true', '"illegal":', '"termination":"completed"', "event: state")


@scenario("gops-split-three", "standard profile, 3 players, resolution split (shared pots as exact fractions), "
          "prize order ascending, 7 ranks")
def gops_split(rec: Recorder) -> None:
    rec.segment(seed=102)
    game = GopsGame(rec, {"profile": "standard", "options": {"players": 3, "resolution": "split", "ranks": 7,
                                                             "prize_order": "ascending"}}, random.Random(102))
    game.bid_round(echo_bid, bids={0: [7], 1: [7], 2: [1]})  # prize 1 shared by seats 0 and 1
    game.play(echo_bid)
    finish_reads(rec, game)
    expect(rec.text(), '"1/2"', '"shares":')


@scenario("gops-highest-unique-four", "4 players, resolution highest_unique, unclaimed pots carried over, "
          "prize order descending, 6 ranks")
def gops_highest_unique(rec: Recorder) -> None:
    rec.segment(seed=103)
    game = GopsGame(rec, {"profile": "standard", "options": {
        "players": 4, "resolution": "highest_unique", "unclaimed": "carryover", "ranks": 6,
        "prize_order": "descending"}}, random.Random(103))
    game.bid_round(echo_bid, bids={0: [3], 1: [3], 2: [5], 3: [5]})  # no bid unique: the 6 stays
    game.play(echo_bid)
    finish_reads(rec, game)
    expect(rec.text(), '"carried":true', '"highest_unique"')


@scenario("gops-multi-card-explicit", "2 players, 2-card bids over 9 ranks (4 rounds, a card left over), an "
          "explicit prize order, ties discarded; an illegal 2-card bid ([3,3]) and a wrong card count opened")
def gops_multi_card(rec: Recorder) -> None:
    rec.segment(seed=104)
    game = GopsGame(rec, {"profile": "standard", "options": {
        "ranks": 9, "bid_cards": 2, "prize_order": "explicit", "explicit_order": [5, 9, 1, 7, 3, 8, 2, 6, 4]}},
        random.Random(104))
    game.view(0)
    game.bid_round(random_bid, bids={0: [3, 3], 1: [1, 9]})
    game.bid_round(random_bid, bids={0: [4]})
    game.play(random_bid)
    finish_reads(rec, game)
    expect(rec.text(), '"duplicate_card"', '"wrong_card_count"', '"bid_cards":2')


@scenario("gops-open-prizes", "3 players, 3 prizes face up at once (the round's winner chooses, one pick more "
          "per carried tie, the row refilled between picks), ties carried over, 8 ranks; refused choices")
def gops_open_prizes(rec: Recorder) -> None:
    rec.segment(seed=105)
    rng = random.Random(105)
    game = GopsGame(rec, {"profile": "standard", "options": {
        "players": 3, "open_prizes": 3, "unclaimed": "carryover", "ranks": 8}}, rng)
    refused = False
    while game.state["phase"] != "over":
        if game.state["phase"] == "choose" and not refused:
            chooser = game.state["chooser"]
            other = (chooser + 1) % 3
            rec.refused(game.choose(other, game.state["row"][0]), 409, "not_your_turn")
            missing = next(r for r in range(1, 9) if r not in game.state["row"])
            rec.refused(game.choose(chooser, missing), 409, "prize_not_in_row")
            game.view(chooser)
            refused = True
        game.step(echo_bid)
    finish_reads(rec, game)
    assert refused
    expect(rec.text(), '"chosen":', '"picks":2', '"carried":true')


@scenario("gops-blind", "2 players, visibility blind (the prize stays face down until the bids are in), "
          "shuffled order, 6 ranks")
def gops_blind(rec: Recorder) -> None:
    rec.segment(seed=106)
    game = GopsGame(rec, {"profile": "classic", "options": {"visibility": "blind", "ranks": 6}}, random.Random(106))
    game.view(0)
    game.play(echo_bid)
    finish_reads(rec, game)
    expect(rec.text(), '"row":[null]')


@scenario("gops-dealer-sees-prize", "3 players, visibility dealer_sees_prize with seat 1 the dealer (only its "
          "view shows the prize), 5 ranks")
def gops_dealer_sees(rec: Recorder) -> None:
    rec.segment(seed=107)
    game = GopsGame(rec, {"profile": "standard", "options": {
        "players": 3, "visibility": "dealer_sees_prize", "dealer_seat": 1, "ranks": 5}}, random.Random(107))
    for _ in range(2):
        game.public()
        for seat in range(3):
            game.view(seat)
        game.bid_round(random_bid)
    game.play(random_bid)
    finish_reads(rec, game)


@scenario("gops-reported-open", "2 players, prize order reported (a real pile: each prize reported before the "
          "bids, by the host or a seat), 6 ranks; a prize reported twice, a rank out of range")
def gops_reported(rec: Recorder) -> None:
    rec.segment(seed=108)
    rng = random.Random(108)
    game = GopsGame(rec, {"profile": "classic", "options": {"prize_order": "reported", "ranks": 6}}, rng)
    game.view(0)
    rec.refused(game.commit(0, [1]), 409, "wrong_phase")
    assert game.report(4, token=game.seats[1]).status == 200  # a seat may report too
    rec.refused(game.report(5), 409, "wrong_phase")
    game.bid_round(prize_bid)
    rec.refused(game.report(4), 409, "prize_already_seen")
    rec.refused(rec.post(f"{game.base}/prize", {"rank": 7}, game.host), 422, "no_such_rank")
    rec.refused(rec.post(f"{game.base}/prize", {"rank": 2}), 401, "missing_token")
    game.play(echo_bid)
    finish_reads(rec, game)


@scenario("gops-reported-blind", "2 players, blind at a real table: prizes reported after the bids are in, "
          "ties discarded, 5 ranks")
def gops_reported_blind(rec: Recorder) -> None:
    rec.segment(seed=109)
    game = GopsGame(rec, {"profile": "standard", "options": {
        "prize_order": "reported", "visibility": "blind", "ranks": 5}}, random.Random(109))
    game.bid_round(echo_bid)
    game.view(0)
    game.public()
    game.play(echo_bid)
    finish_reads(rec, game)


@scenario("gops-deadline-resign", "4 players with a 60 s deadline: enforced too early, then (60 s later) two late "
          "seats forfeit; a forfeited seat's token refused; a resignation ends the game with one seat left")
def gops_deadline(rec: Recorder) -> None:
    rec.segment(seed=110)
    rng = random.Random(110)
    game = GopsGame(rec, {"profile": "standard", "options": {"players": 4, "ranks": 5, "deadline_seconds": 60}}, rng)
    game.bid_round(random_bid)
    game.commit(0, random_bid(game.state, 0, rng))
    game.commit(1, random_bid(game.state, 1, rng))
    rec.refused(rec.post(f"{game.base}/deadline", token=game.seats[0]), 409, "deadline_not_passed")
    rec.segment(seed=111, clock=START + 61)
    game.view(0)  # enforce_deadline is now among seat 0's legal actions
    game.public()
    reply = game.seen(rec.post(f"{game.base}/deadline", token=game.host, no_body=True))
    assert reply.status == 200, reply.text
    game.view(2)  # a forfeited seat still reads its view
    rec.refused(game.commit(2, [1]), 403, "seat_out")
    rec.refused(rec.post(f"{game.base}/deadline", token=game.host), 409, "deadline_not_passed")  # the new phase's
    game.step(random_bid)  # the two seats left reveal
    game.bid_round(random_bid)
    game.resign(1)
    rec.refused(game.resign(1), 409, "game_over")
    finish_reads(rec, game)
    expect(rec.text(), '"forfeit"', '"enforce_deadline"', '"resigned":[1]')


@scenario("gops-match-cumulative", "classic, a cumulative match of 3 games over 3 ranks (game ids <id>-N, "
          "commitments naming them; a late retry naming the finished game)")
def gops_cumulative(rec: Recorder) -> None:
    rec.segment(seed=112)
    rng = random.Random(112)
    game = GopsGame(rec, {"profile": "classic", "options": {"ranks": 3},
                          "match": {"format": "cumulative", "games": 3}}, rng)
    while game.state["game_number"] == 1:
        last = (game.state["game_id"], game.state["round"])
        game.step(echo_bid)
    # the last reveal of game 1 again, late: recognised by its game_id, nothing changes
    cards, salt = game.salts[(last[0], last[1], 1)]
    late = rec.post(f"{game.base}/seats/1/reveal", {"round": last[1], "cards": cards, "salt": salt,
                                                     "game_id": last[0]}, game.seats[1])
    assert late.status == 200 and late.json["game_number"] == 2, late.text
    game.public()
    game.play(echo_bid)
    finish_reads(rec, game)
    expect(rec.text(), '"format":"cumulative"', '-3"')


def scripted(script: dict[int, dict[int, list[int]]]) -> Strategy:
    """Bids fixed per game: ``script[game_number][seat]`` lists the cards bid round by round (a game
    not in the script: random bids)."""

    def strategy(state: dict[str, Any], seat: int, rng: random.Random) -> list[int]:
        game = script.get(state["game_number"])
        if game is None:
            return random_bid(state, seat, rng)
        return [game[seat][state["round"] - 1]]

    return strategy


# Ascending prizes 1, 2, 3: equal bids leave a 0-0 draw; [1,2,3] against [3,1,2] wins 5-1; [1,2,3]
# against [1,3,2] wins 3-2.
DRAW = {0: [1, 2, 3], 1: [1, 2, 3]}
SEAT0_5_1 = {0: [1, 2, 3], 1: [3, 1, 2]}
SEAT1_5_1 = {0: [3, 1, 2], 1: [1, 2, 3]}
SEAT1_3_2 = {0: [1, 3, 2], 1: [1, 2, 3]}


@scenario("gops-match-best-of-3", "standard, best of 3 games over 3 ascending prizes, tiebreak extra_game: a "
          "draw, a win each, so level after 3 games and an extra game is played")
def gops_best_of_3(rec: Recorder) -> None:
    rec.segment(seed=113)
    game = GopsGame(rec, {"profile": "standard", "options": {"ranks": 3, "prize_order": "ascending"},
                          "match": {"format": "best_of", "games": 3, "tiebreak": "extra_game"}}, random.Random(113))
    game.play(scripted({1: DRAW, 2: SEAT0_5_1, 3: SEAT1_5_1}))
    finish_reads(rec, game)
    assert game.state["result"]["games_played"] >= 4, game.state["result"]
    expect(rec.text(), '"format":"best_of"', '"tiebreak":"extra_game"')


@scenario("gops-match-best-of-5", "standard, best of 5 games over 3 ascending prizes, tiebreak total_points: "
          "one win each and three draws, decided by the points")
def gops_best_of_5(rec: Recorder) -> None:
    rec.segment(seed=114)
    game = GopsGame(rec, {"profile": "standard", "options": {"ranks": 3, "prize_order": "ascending"},
                          "match": {"format": "best_of", "games": 5, "tiebreak": "total_points"}}, random.Random(114))
    game.play(scripted({1: DRAW, 2: SEAT0_5_1, 3: SEAT1_3_2, 4: DRAW, 5: DRAW}))
    finish_reads(rec, game)
    result = game.state["result"]
    assert result["games_played"] == 5 and result["wins"] == [1, 1] and result["winners"] == [0], result
    expect(rec.text(), '"tiebreak":"total_points"')


@scenario("gops-match-target", "a match to a target of 8 points over 3 ranks; then a 3-player match to the "
          "default 92 ended by resignations")
def gops_target(rec: Recorder) -> None:
    rec.segment(seed=115)
    rng = random.Random(115)
    game = GopsGame(rec, {"profile": "standard", "options": {"ranks": 3},
                          "match": {"format": "target", "target": 8}}, rng)
    game.play(random_bid)
    finish_reads(rec, game)
    game = GopsGame(rec, {"profile": "standard", "options": {"players": 3, "ranks": 4}, "match": {"format": "target"}}, rng)
    game.bid_round(random_bid)
    game.resign(0)
    game.bid_round(random_bid)
    game.resign(2)
    finish_reads(rec, game)
    expect(rec.text(), '"target":8', '"target":92', '"termination":"forfeit"')


@scenario("gops-refused-creates", "create bodies the schema or the rules refuse: every problem+json a create gives")
def gops_refused_creates(rec: Recorder) -> None:
    rec.segment(seed=116)
    bodies = [
        ({"profile": "classic", "options": {"players": 3}}, "invalid_options"),
        ({"profile": "modern"}, "invalid_request"),
        ({"profile": "standard", "options": {"players": 8}}, "invalid_request"),
        ({"profile": "standard", "options": {"prize_order": "explicit", "explicit_order": [1, 2]}}, "invalid_options"),
        ({"profile": "standard", "options": {"visibility": "dealer_sees_prize"}}, "invalid_options"),
        ({"profile": "standard", "options": {"open_prizes": 2, "visibility": "blind"}}, "invalid_options"),
        ({"profile": "standard", "match": {"format": "best_of", "games": 4}}, "invalid_request"),
        ({"profile": "standard", "match": {"format": "cumulative"}}, "invalid_request"),
        ({"profile": "standard", "match": {"format": "single", "target": 50}}, "invalid_request"),
        ({"profile": "standard", "options": {"colour": "red"}}, "invalid_request"),
    ]
    for body, code in bodies:
        rec.refused(rec.post(GOPS, body), 422, code)
    reply = rec.post(GOPS, no_body=True)  # no body: the standard profile
    assert reply.status == 201, reply.text


# ------------------------------------------------------------------------ Gofo client


# How a seeded client picks among its legal moves: "long" keeps most hands going to the canto,
# "short" folds and declines (a cheap hand: every view of a dealt table after its first hand carries
# the previous deal's 28 leaves), "bold" cuts and sees cuts (all-ins and side pots).
STYLES = {
    "long": {"enter": 5, "decline": 1, "ver": 6, "no_ver": 1, "voy": 4, "corta": 1, "pass": 4, "raise": 1, "refiche": 1},
    "short": {"enter": 1, "decline": 8, "ver": 1, "no_ver": 8, "voy": 2, "corta": 4, "pass": 4, "raise": 1, "refiche": 1},
    "bold": {"enter": 8, "decline": 1, "ver": 8, "no_ver": 1, "voy": 1, "corta": 6, "pass": 2, "raise": 3, "refiche": 3},
}
DECK = [f"{rank}{suit}" for suit in "oceb" for rank in (3, 4, 5, 6, 7, 11, 12)]
CARD_VALUES = {3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 11: 8, 12: 9}


def gofo_value(cards: list[str]) -> int:
    """README / the rule book: per suit the sum of at most its four best cards; the best suit counts."""
    suits: dict[str, list[int]] = {}
    for card in cards:
        suits.setdefault(card[-1], []).append(CARD_VALUES[int(card[:-1])])
    return max(sum(sorted(v, reverse=True)[:4]) for v in suits.values())


class GofoTable:
    """A Gofo table created over HTTP, its moves made the way a table app makes them."""

    def __init__(self, rec: Recorder, body: dict[str, Any], rng: random.Random, headers=None) -> None:
        reply = rec.post(GOFO, body, headers=headers)
        assert reply.status == 201, reply.text
        self.rec, self.rng = rec, rng
        self.id: str = reply.json["id"]
        self.host: str = reply.json["host_token"]
        self.seats: list[str] = reply.json["seat_tokens"]
        self.view: dict[str, Any] = reply.json["table"]  # the last public or seat view seen
        self.next: dict[str, Any] | None = None  # the last answer's "next"
        self.tabletop = self.view["table"]["options"]["mode"] == "tabletop"
        self.shows: dict[int, list[str]] = {}
        self.hands_done = 0
        self.style = "long"

    @property
    def base(self) -> str:
        return f"{GOFO}/{self.id}"

    def public(self) -> Reply:
        reply = self.rec.get(self.base)
        if reply.status == 200:
            self.view, self.next = reply.json, None
        return reply

    def seat_view(self, seat: int, token: str | None = None) -> Reply:
        reply = self.rec.get(f"{self.base}/seats/{seat}", token or self.seats[seat])
        if reply.status == 200:
            self.view = reply.json
        return reply

    def move(self, seat: int, kind: str, body: dict[str, Any] | None = None, token: str | None = None,
             **kwargs) -> Reply:
        path = f"{self.base}/seats/{seat}/{kind.replace('_', '-')}"
        reply = self.rec.post(path, body or {}, token or (self.host if self.tabletop else self.seats[seat]), **kwargs)
        if reply.status == 200:
            self.view, self.next = reply.json, reply.json["next"]
            if reply.json["hand_result"] is not None:
                self.hands_done += 1
                self.shows = {}
        return reply

    # --- choosing moves

    def to_act(self) -> int | None:
        hand = self.view["hand"]
        if hand is None:
            pending = self.view["table"].get("inaugurations_pending") or []
            return pending[0] if pending else None
        return hand["to_act"]

    def legal(self, seat: int) -> list[dict[str, Any]]:
        """The seat's legal actions: from the last answer when it showed them, else its own view."""
        if self.next is not None and self.next["seat"] == seat and self.next["legal_actions"] is not None:
            return self.next["legal_actions"]
        reply = self.seat_view(seat, self.host if self.tabletop else None)
        assert reply.status == 200, reply.text
        return reply.json["hand"]["legal_actions"] if reply.json["hand"] else [
            {"type": "inaugurate", "fronts": reply.json["table"]["inauguration_fronts"]}]

    def show_for(self, seat: int) -> list[str]:
        """Tabletop: the five cards this seat holds at the canto (distinct, none known out)."""
        if seat not in self.shows:
            hand = self.view["hand"]
            out = set(hand.get("known_out") or []) | {c for k in hand["kept"] for c in k}
            for cards in self.shows.values():
                out |= set(cards)
            self.shows[seat] = self.rng.sample([c for c in DECK if c not in out], 5)
        return self.shows[seat]

    def choose(self, seat: int, legal: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        types = {a["type"]: a for a in legal}
        if "inaugurate" in types:
            return "inaugurate", {"front": rng.choice(types["inaugurate"]["fronts"])}
        if "declare" in types or "show" in types:
            cards = self.show_for(seat)
            if "show" in types and (self.view["hand"]["canto"]["stage"] == "show" or "declare" not in types):
                return "show", {"cards": cards}
            if "muck" in types and rng.random() < 0.15:
                return "muck", {}
            return "declare", {"points": gofo_value(cards)}
        if "reshuffle" in types and rng.random() < 0.3:
            return "reshuffle", {}
        choices = [a for a in legal if a["type"] not in ("reshuffle",)]
        weights = STYLES[self.style]
        action = rng.choices(choices, weights=[weights.get(a["type"], 1) for a in choices])[0]
        kind = action["type"]
        if kind in ("open", "raise", "refiche", "corta"):
            return kind, {"amount": rng.choice([action["min"], action["max"], rng.randint(action["min"], action["max"])])}
        if kind == "enter":
            return kind, {"blind": bool(action.get("blind"))}
        if kind == "discard":
            k = rng.choice([action["min"], action["max"], rng.randint(action["min"], action["max"])])
            if not self.tabletop:
                return kind, {"cards": rng.sample(action["cards"], k)}
            if k and rng.random() < 0.3:  # thrown face up: reported card by card
                out = set(self.view["hand"].get("known_out") or []) | {c for s in self.shows.values() for c in s}
                return kind, {"cards": rng.sample([c for c in DECK if c not in out], k)}
            return kind, {"count": k}
        return kind, {}

    def step(self) -> None:
        seat = self.to_act()
        assert seat is not None, self.view
        kind, body = self.choose(seat, self.legal(seat))
        reply = self.move(seat, kind, body)
        assert reply.status == 200, (seat, kind, body, reply.text)

    def play_hands(self, hands: int, style: str = "long", max_moves: int = 2000) -> None:
        self.style = style
        target = self.hands_done + hands
        for _ in range(max_moves):
            if self.hands_done >= target:
                return
            self.step()
        raise AssertionError("the hands did not end")


def gofo_finish_reads(rec: Recorder, table: GofoTable) -> None:
    table.public()
    rec.get(f"{table.base}/ledger")
    rec.get(f"{table.base}/transcript")


# ---------------------------------------------------------------------- Gofo scenarios


@scenario("gofo-dealt-five", "dealt, 5 seats (caja 100, refill 10): an idempotent create; a whole hand played "
          "to the canto by a seeded random client (looks, a blind entry, a corte seen all-in, draws; the "
          "emptied fronts refilled from behind); refused moves of every kind, a stale version, wrong seats and "
          "tokens, the host at a dealt table, bad discards, an idempotent move replayed and its key reused; "
          "the last deal opened in the views, ledger and transcript; long polls")
def gofo_dealt_five(rec: Recorder) -> None:
    rec.segment(seed=201)
    rng = random.Random(201)
    key = {"Idempotency-Key": "behaviour-replay-gofo-dealt-1"}
    table = GofoTable(rec, {"seats": 5, "caja": 100, "refill": 10}, rng, headers=key)
    again = rec.post(GOFO, {"seats": 5, "caja": 100, "refill": 10}, headers=key)
    assert again.status == 201 and again.json["id"] == table.id
    first = table.public()
    rec.get(table.base, headers={"If-None-Match": first.etag})  # 304
    mano = table.view["hand"]["to_act"]
    other = (mano + 1) % 5
    table.seat_view(mano)
    table.seat_view(other)
    rec.refused(table.seat_view(other, token=table.seats[mano]), 403, "not_your_seat")
    rec.refused(rec.get(f"{table.base}/seats/{other}"), 401, "missing_token")
    rec.refused(table.seat_view(9, token=table.seats[mano]), 404, "no_such_seat")
    rec.refused(rec.get(f"{GOFO}/nosuchtable0"), 404, "game_not_found")
    rec.refused(table.move(other, "open", {"amount": 2}), 409, "not_your_turn")
    rec.refused(table.move(mano, "open", {"amount": 2}, token=table.seats[other]), 403, "not_your_seat")
    rec.refused(table.move(mano, "open", {"amount": 2}, token=table.host), 403, "host_not_allowed")
    rec.refused(table.move(mano, "open", {"amount": 30}), 409, "opening_too_large")
    rec.refused(table.move(mano, "open", {"amount": 0}), 422, "invalid_request")
    rec.refused(table.move(mano, "open", {"amount": "2"}), 422, "invalid_request")
    rec.refused(table.move(mano, "ver"), 409, "wrong_phase")
    rec.refused(table.move(mano, "open", {"amount": 2}, headers={"Idempotency-Key": "tiny"}), 422,
                "invalid_idempotency_key")
    move_key = {"Idempotency-Key": "behaviour-replay-gofo-open-1"}
    assert table.move(mano, "open", {"amount": 3}, headers=move_key).status == 200
    replayed = table.move(mano, "open", {"amount": 3}, headers=move_key)
    assert replayed.headers.get("Idempotent-Replayed") == "true", replayed.headers
    rec.refused(table.move(mano, "open", {"amount": 4}, headers=move_key), 422, "idempotency_key_reused")
    version = table.view["version"]
    entrant = table.to_act()
    rec.refused(table.move(entrant, "enter", {"blind": False, "version": version - 1}), 409, "stale_version")
    assert table.move(entrant, "look", {"version": version}).status == 200
    rec.refused(table.move(entrant, "look"), 409, "already_looked")
    rec.refused(table.move(entrant, "enter", {"blind": True}), 409, "already_looked")
    refused = False
    while table.hands_done < 1:
        seat = table.to_act()
        legal = {a["type"]: a for a in table.legal(seat)}
        if "discard" in legal and not refused:
            mine = table.view["hand"]["my_cards"]
            rec.refused(table.move(seat, "discard", {"cards": mine[:1] * 2}), 422, "duplicate_card")
            stranger = next(c for c in DECK if c not in mine)
            rec.refused(table.move(seat, "discard", {"cards": [stranger]}), 409, "card_not_in_hand")
            rec.refused(table.move(seat, "discard", {"cards": ["2o"]}), 422, "invalid_request")
            refused = True
        table.step()
    gofo_finish_reads(rec, table)
    version = table.view["version"]
    rec.get(f"{table.base}/events?wait_for_version={version}&timeout=1", token=table.seats[mano])  # long poll
    rec.get(f"{table.base}/events?wait_for_version={version}&timeout=1")
    assert refused
    assert {"look", "enter", "corta", "ver", "discard"} <= moves_made(rec), moves_made(rec)
    expect(rec.text(), '"reason":"canto"', '"blind":true}', '"hand_result":{', '"last_deal":{', '"behind":60')


README_HANDS = [  # README, "A 5-player dealt hand with curl": the moves of its two hands, in turn
    # hand 1: mano opens 5, one player enters, the rest decline; mano cuts 10 and the other folds
    ("open", {"amount": 5}), ("enter", {"blind": False}), ("decline", {}), ("decline", {}), ("decline", {}),
    ("pass", {}), ("corta", {"amount": 10}), ("no_ver", {}),
    # hand 2: the short stack is mano; one enters blind and raises the opening; a corte, a refiche of 20
    # the short-stacked mano can only see all-in (a side pot), one folds; stand pat, the canto
    ("open", {"amount": 2}), ("enter", {"blind": True}), ("enter", {"blind": False}), ("enter", {"blind": False}),
    ("enter", {"blind": False}), ("pass", {}), ("raise", {"amount": 3}), ("ver", {}), ("ver", {}), ("ver", {}),
    ("ver", {}), ("pass", {}), ("pass", {}), ("pass", {}), ("pass", {}), ("voy", {}), ("corta", {"amount": 4}),
    ("ver", {}), ("ver", {}), ("ver", {}), ("ver", {}), ("pass", {}), ("pass", {}), ("refiche", {"amount": 20}),
    ("ver", {}), ("ver", {}), ("ver", {}), ("no_ver", {}), ("pass", {}), ("pass", {}),
    ("discard", {"cards": []}), ("discard", {"cards": []}), ("discard", {"cards": []}), ("discard", {"cards": []}),
]


@scenario("gofo-dealt-readme", "dealt, 5 seats (caja 100, refill 10, initial_front 30): the README's two curl hands, "
          "each move made by the seat the previous answer names (no reads between): an uncontested hand, then a "
          "blind entry raising the opening, a corte, a refiche, an all-in mano, a fold, two pots paid at the canto")
def gofo_dealt_readme(rec: Recorder) -> None:
    rec.segment(seed=209)
    table = GofoTable(rec, {"seats": 5, "caja": 100, "refill": 10, "initial_front": 30}, random.Random(209))
    for kind, body in README_HANDS:
        seat = table.next["seat"] if table.next else table.view["hand"]["to_act"]
        reply = table.move(seat, kind, body)
        assert reply.status == 200, (kind, body, reply.text)
    assert table.hands_done == 2
    rec.get(f"{table.base}/ledger")
    result = table.view["table"]["last_result"]
    assert len(result["pots"]) == 2 and result["reason"] == "canto", result


def moves_made(rec: Recorder) -> set[str]:
    """The kinds of seat moves the referee accepted in the recording so far."""
    return {ex["request"]["path"].rsplit("/", 1)[1] for seg in rec.segments for ex in seg["exchanges"]
            if ex["request"]["method"] == "POST" and "/seats/" in ex["request"]["path"]
            and ex["response"]["status"] == 200}


@scenario("gofo-dealt-reshuffle", "dealt, 4 seats: a hand in which every seat changes every card it may, so the "
          "stock runs out and the pile is reshuffled (keys committed with the deck, opened after the hand)")
def gofo_dealt_reshuffle(rec: Recorder) -> None:
    rec.segment(seed=202)
    rng = random.Random(202)
    table = GofoTable(rec, {"seats": 4}, rng)
    while table.hands_done < 1:
        seat = table.to_act()
        legal = table.legal(seat)
        preferred = [a for a in legal if a["type"] in ("voy", "discard", "enter", "ver", "open")]
        action = rng.choice(preferred or legal)
        kind = action["type"]
        body = ({"amount": action["min"]} if kind in ("open", "raise", "corta", "refiche")
                else {"blind": False} if kind == "enter"
                else {"cards": action["cards"][: action["max"]]} if kind == "discard" else {})
        assert table.move(seat, kind, body).status == 200
    gofo_finish_reads(rec, table)
    expect(rec.text(), '"reshuffles":[{', '"reshuffle_keys":[{')


@scenario("gofo-resumed-short-stacks", "dealt, 3 seats resuming a session begun on paper (fronts 3/12/30, behinds, "
          "cajas, the next dealer): an all-in and a side pot, a new caja taken (fixed inauguration front); refused "
          "creates and resumptions first")
def gofo_resumed(rec: Recorder) -> None:
    rec.segment(seed=203)
    rng = random.Random(203)
    refusals = [
        ({"seats": 3, "caja": 30, "fronts": [3, 12, 30], "behinds": [0, 20, 20], "cajas": [1, 1, 1],
          "first_dealer": 1}, "chips_not_conserved"),
        ({"seats": 3, "caja": 30, "fronts": [3, 12, 30]}, None),
        ({"seats": 3, "mode": "tabletop", "first_dealer": 3}, None),
        ({"seats": 3, "first_dealer": 0}, None),
        ({"seats": 7}, "invalid_request"),
        ({"seats": 3, "mode": "virtual"}, "invalid_request"),
        ({"seats": 3, "inauguration": "sometimes"}, "invalid_request"),
    ]
    for body, code in refusals:
        reply = rec.post(GOFO, body)
        assert reply.status == 422 and (code is None or reply.code == code), reply.text
    table = GofoTable(rec, {"seats": 3, "caja": 30, "refill": 10, "inauguration_front": 20, "fronts": [3, 12, 30],
                            "behinds": [0, 20, 25], "cajas": [1, 1, 1], "first_dealer": 1}, rng)
    while max(seat["cajas"] for seat in table.view["table"]["seats"]) < 2:  # until someone takes a new caja
        assert table.hands_done < 12, table.view["table"]["seats"]
        table.play_hands(1, style="bold")
    table.play_hands(1, style="short")
    gofo_finish_reads(rec, table)
    expect(rec.text(), '"cajas":2', '"fronts":[3,12,30]')


@scenario("gofo-chosen-inauguration", "dealt, 2 seats resumed with one front nearly gone, inauguration chosen: "
          "the seat that takes a new caja chooses 2x or 3x the refill before the next hand; other moves and "
          "a front not offered refused meanwhile")
def gofo_chosen(rec: Recorder) -> None:
    rec.segment(seed=204)
    table = GofoTable(rec, {"seats": 2, "caja": 20, "refill": 5, "inauguration": "chosen", "fronts": [2, 19],
                            "behinds": [0, 19], "cajas": [1, 1], "first_dealer": 0}, random.Random(204))
    while table.view["hand"] is not None:
        assert table.hands_done < 12
        table.style = "bold"
        table.step()
    seat = table.view["table"]["inaugurations_pending"][0]
    table.public()
    table.seat_view(seat)
    table.move(seat, "inaugurate", {"front": 7})  # not one of the fronts offered
    rec.refused(table.move(seat, "open", {"amount": 1}), 409, "inauguration_pending")
    rec.refused(table.move(1 - seat, "inaugurate", {"front": 10}), 409, "no_inauguration_pending")
    table.play_hands(1, style="short")
    gofo_finish_reads(rec, table)
    expect(rec.text(), '"inaugurations_pending":[', '"type":"inaugurate"')


@scenario("gofo-tabletop", "tabletop, 4 seats, the first dealer drawn at the real table (first_dealer 2): the "
          "host's phone moves for every seat (a seat's own token too); discards as counts or face-up cards, "
          "reported reshuffles, the canto (declare, corrections, mucks, show) over four hands; refused shows")
def gofo_tabletop(rec: Recorder) -> None:
    rec.segment(seed=205)
    rng = random.Random(205)
    table = GofoTable(rec, {"seats": 4, "caja": 60, "refill": 10, "initial_front": 20, "mode": "tabletop",
                            "first_dealer": 2}, rng)
    table.seat_view(0, token=table.host)
    mano = table.to_act()
    assert table.move(mano, "open", {"amount": 2}, token=table.seats[mano]).status == 200  # its own phone
    refused = False
    while table.hands_done < 4:
        hand = table.view["hand"]
        if hand and hand["phase"] == "canto" and hand["canto"]["stage"] == "show" and not refused:
            seat = table.to_act()
            cards = table.show_for(seat)
            wrong = [c for c in DECK if c not in cards and c not in (hand.get("known_out") or [])]
            rec.refused(table.move(seat, "show", {"cards": cards[:4] + [cards[3]]}), 422, "duplicate_card")
            rec.refused(table.move(seat, "show", {"cards": cards[:4] + ["2o"]}), 422, "invalid_request")
            other = [c for c in wrong if gofo_value(cards[:4] + [c]) != gofo_value(cards)]
            rec.refused(table.move(seat, "show", {"cards": cards[:4] + [other[0]]}), 409, "declared_value_mismatch")
            rec.refused(table.move(seat, "declare", {"points": 6}), 422, "invalid_request")
            refused = True
        if hand and hand["phase"] == "canto" and hand["canto"]["stage"] == "declare" and table.rng.random() < 0.3:
            # a declaration corrected out of turn (before anyone shows)
            declared = [s for s, p in enumerate(hand["canto"]["declared"]) if p is not None]
            if declared:
                seat = declared[0]
                table.move(seat, "declare", {"points": gofo_value(table.show_for(seat))})
        table.step()
    gofo_finish_reads(rec, table)
    assert refused
    assert {"declare", "show", "muck", "reshuffle", "discard", "corta"} <= moves_made(rec), moves_made(rec)
    expect(rec.text(), '"stage":"show"', '"count":', '"first_dealer":2', '"known_out":["')


@scenario("gofo-turn-deadline", "dealt, 3 seats with turn_seconds 30: the deadline enforced too early, then "
          "(segments 31 s apart) silent seats moved by the referee until a hand ends")
def gofo_deadline(rec: Recorder) -> None:
    rec.segment(seed=207)
    table = GofoTable(rec, {"seats": 3, "turn_seconds": 30}, random.Random(207))
    reply = rec.post(f"{table.base}/deadline", token=table.seats[0])
    assert reply.status == 409, reply.text
    clock = START
    for n in range(40):
        if table.hands_done:
            break
        clock += 31
        rec.segment(seed=208 + n, clock=clock)
        if n == 1:
            table.seat_view(table.to_act())
        reply = rec.post(f"{table.base}/deadline", token=table.host if n % 2 else table.seats[n % 3])
        assert reply.status == 200, reply.text
        table.view, table.next = reply.json, reply.json["next"]
        if reply.json["hand_result"] is not None:
            table.hands_done += 1
        if n == 0:
            table.step()  # a seat moving in time between
    table.public()
    rec.get(f"{table.base}/transcript")
    assert table.hands_done
    expect(rec.text(), '"timeout":true', '"turn_deadline_at":')


# ----------------------------------------------------------------------- the fixture


@functools.cache
def _read_fixture(mtime_ns: int) -> dict[str, Any]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def load_fixture() -> dict[str, Any]:
    if not FIXTURE.exists():
        return {"scenarios": []}
    return _read_fixture(FIXTURE.stat().st_mtime_ns)  # parsed once per version of the file


def write_fixture(scenarios: list[dict[str, Any]]) -> None:
    """One exchange per line: compact, and a diff of the file reads exchange by exchange."""
    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    out = ["{", f'"about": {line("Every HTTP exchange of seeded whole games, recorded by tests/test_behaviour_replay.py (REFEREE_RECORD_BEHAVIOUR=1); tokens as <token-N>.")},',
           f'"recorded_from": {line(RECORDED_FROM)},', '"scenarios": [']
    for i, sc in enumerate(scenarios):
        out.append("{" + f'"name": {line(sc["name"])}, "about": {line(sc["about"])}, "segments": [')
        for j, seg in enumerate(sc["segments"]):
            out.append("{" + f'"seed": {line(seg["seed"])}, "clock": {line(seg["clock"])}, "exchanges": [')
            exchanges = seg["exchanges"]
            out += [line(ex) + ("," if k < len(exchanges) - 1 else "") for k, ex in enumerate(exchanges)]
            out.append("]}" + ("," if j < len(sc["segments"]) - 1 else ""))
        out.append("]}" + ("," if i < len(scenarios) - 1 else ""))
    out += ["]", "}"]
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text("\n".join(out) + "\n", encoding="utf-8")


RECORDED: dict[str, dict[str, Any]] = {}


@pytest.fixture(scope="module", autouse=True)
def _write_recording():
    yield
    if RECORD and RECORDED:
        kept = {sc["name"]: sc for sc in load_fixture()["scenarios"]}
        kept.update(RECORDED)
        write_fixture([kept[name] for name in SCENARIOS if name in kept])


def _pretty(answer: dict[str, Any]) -> list[str]:
    text = body_text(answer)
    try:
        text = json.dumps(json.loads(text), indent=1, ensure_ascii=False)
    except ValueError:
        pass
    head = [f"status {answer['status']}", f"headers {json.dumps(answer.get('headers', {}), sort_keys=True)}"]
    return head + text.splitlines()


def replay(client, segments: list[dict[str, Any]], name: str) -> None:
    """Send every recorded request; fail at the first answer that differs, with a diff."""
    session = Session(client)
    total = sum(len(seg["exchanges"]) for seg in segments)
    n = 0
    for s, seg in enumerate(segments):
        with seeded_referee(seg["seed"], start=seg["clock"], tick=0):
            for exchange in seg["exchanges"]:
                n += 1
                want = exchange["response"]
                got = session.send(exchange["request"])
                same = (got["status"] == want["status"] and got.get("headers", {}) == want.get("headers", {})
                        and body_text(got) == body_text(want))
                if same:
                    continue
                request = exchange["request"]
                diff = list(difflib.unified_diff(_pretty(want), _pretty(got), "recorded", "now", lineterm="", n=4))
                shown = "\n".join(diff[:120]) + ("\n... (diff cut)" if len(diff) > 120 else "")
                if not diff:  # the same once pretty-printed: the bytes differ in their spelling
                    old, new = body_text(want), body_text(got)
                    at = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y), min(len(old), len(new)))
                    shown = (f"the same JSON, spelled differently from character {at} of {len(old)} (now {len(new)}):\n"
                             f"recorded: {old[max(0, at - 60):at + 60]!r}\nnow:      {new[max(0, at - 60):at + 60]!r}")
                pytest.fail(
                    f"scenario {name!r}: exchange {n} of {total} (segment {s + 1}, seed {seg['seed']}) answers "
                    f"differently from the recording\n{request['method']} {request['path']}\n"
                    f"request: {json.dumps(request, ensure_ascii=False)}\n{shown}\n"
                    "(if this change of behaviour is intended: REFEREE_RECORD_BEHAVIOUR=1 re-records; say so in the commit)",
                    pytrace=False)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_answers_are_byte_identical_to_the_recording(name, client, redis_client):
    if RECORD:
        about, play = SCENARIOS[name]
        rec = Recorder(client)
        try:
            play(rec)
        finally:
            rec.close()
        # The recording must replay: on an emptied store, the same requests get the same bytes.
        redis_client.flushdb()
        replay(client, rec.segments, name)
        RECORDED[name] = {"name": name, "about": about, "segments": rec.segments}
        return
    recorded = {sc["name"]: sc for sc in load_fixture()["scenarios"]}
    if name not in recorded:
        pytest.fail(f"scenario {name!r} was never recorded: REFEREE_RECORD_BEHAVIOUR=1 records it")
    replay(client, recorded[name]["segments"], name)


def test_the_recording_holds_exactly_these_scenarios():
    if RECORD:
        pytest.skip("recording")
    assert [sc["name"] for sc in load_fixture()["scenarios"]] == list(SCENARIOS)

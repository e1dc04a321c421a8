"""The offline transcript verifier (service/verify.py) on Gofo tables played over HTTP.

Two tables are played once per module (Flask test client on a real Valkey) with random legal moves
drawn from the seats' ``legal_actions`` (seeded, so deterministic):

* ``dealt``: five seats; random hands, one hand where everyone keeps discarding five cards (the stock
  runs out: reshuffles derived from the hand's committed reshuffle key), more random hands, then a hand
  left in progress (its deck withheld).  A finished hand opens only the deck positions of the cards it
  made public: hand 1 is won uncontested (nothing opened), hand 4 has folded hands (closed positions,
  and a reshuffle whose pile holds hidden cards);
* ``tabletop``: four seats with real cards, two of them played by the host; counts and face-up
  discards, the dealer's reported reshuffles, cantos with declared points and shown hands.

Their transcripts are exported; the untouched ones must pass (as a function and as
``python -m service.verify``), and every tampered copy must be rejected with a message that names
the problem.  The referee's secret records of the dealt table's decks (every card and salt) are
read from the store, to check what it publishes against what it knows and to play a referee that leaks.
"""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.servers import REPO_ROOT
from support.client import FlaskHttp, GofoTable

from service.games import commitments
from service import verify
from service.games.gofo import deal as deal_rules
from service.games.gofo.cards import DECK, card_value
from service.games.gofo.value import hand_value



# ------------------------------------------------------------------ playing


def amount(rng: random.Random, legal: dict[str, Any]) -> int:
    """The minimum most of the time, sometimes anything up to all-in."""
    lo, hi = legal["min"], legal["max"]
    return rng.choice([lo, lo, lo, rng.randint(lo, hi), hi])


class RandomPlayer:
    """Chooses one of the legal actions of the seat to act, at random (seeded).

    Tabletop: a few discards are reported face up (distinct cards, at most four a hand, so the
    cantos can still be dealt from the rest); at the canto each live seat gets a hand of distinct
    cards not seen elsewhere, and either shows it or declares its points (showing it if asked).
    """

    def __init__(self, rng: random.Random, tabletop: bool = False, long_hand: bool = False) -> None:
        self.rng, self.tabletop, self.long_hand = rng, tabletop, long_hand
        self.hands: dict[int, dict[int, list[str]]] = {}  # hand number -> seat -> cards for the canto
        self.face_up: dict[int, list[str]] = {}  # hand number -> cards discarded face up
        self.reported: set[int] = set()  # hands whose dealer reported a reshuffle

    def choose(self, view: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        rng, h = self.rng, view["hand"]
        number = view["table"]["hand_number"]
        legal = {("enter_blind" if a.get("blind") else "enter_seen") if a["type"] == "enter" else a["type"]: a
                 for a in h["legal_actions"]}
        if self.long_hand:  # everyone in, nobody bets, everyone throws five cards each round
            for kind in ("open", "enter_seen", "pass", "ver", "voy"):
                if kind in legal:
                    return ("enter", {"blind": False}) if kind == "enter_seen" else (
                        kind, {"amount": legal[kind]["min"]} if kind == "open" else {})
            if "discard" in legal:
                cards = legal["discard"]["cards"]
                return "discard", {"cards": cards[: legal["discard"]["max"]]}
        if "open" in legal:
            return "open", {"amount": rng.randint(legal["open"]["min"], min(legal["open"]["max"], 3))}
        if "enter_seen" in legal:
            r = rng.random()
            if r < 0.15:
                return "decline", {}
            if r < 0.45 and "enter_blind" in legal:
                return "enter", {"blind": True}
            return "enter", {"blind": False}
        if "look" in legal and rng.random() < 0.1:
            return "look", {}
        if "reshuffle" in legal and number not in self.reported and rng.random() < 0.5:
            self.reported.add(number)
            return "reshuffle", {}
        for kind, odds in (("raise", 0.2), ("refiche", 0.15), ("corta", 0.3)):
            if kind in legal and rng.random() < odds:
                return kind, {"amount": amount(rng, legal[kind])}
        for kind in ("pass", "voy"):
            if kind in legal:
                return kind, {}
        if "ver" in legal:
            return ("no_ver" if rng.random() < 0.2 else "ver"), {}
        if "discard" in legal:
            return self.discard(view, number, legal["discard"])
        if "show" in legal:
            return self.canto(view, number, legal)
        raise AssertionError(f"nothing to choose from {legal}")

    def discard(self, view: dict[str, Any], number: int, legal: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        rng = self.rng
        count = rng.randint(legal["min"], legal["max"])
        if not self.tabletop:
            return "discard", {"cards": rng.sample(legal["cards"], min(count, len(legal["cards"])))}
        thrown = self.face_up.setdefault(number, [])
        if count >= 1 and len(thrown) < 4 and rng.random() < 0.4:
            card = rng.choice([c for c in DECK if c not in thrown])
            thrown.append(card)
            return "discard", {"cards": [card]}
        return "discard", {"count": count}

    def canto(self, view: dict[str, Any], number: int, legal: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        h, seat = view["hand"], view["hand"]["seat"]
        if number not in self.hands:
            free = [c for c in DECK if c not in self.face_up.get(number, [])]
            self.rng.shuffle(free)
            live = [s for s, status in enumerate(h["status"]) if status == "in"]
            self.hands[number] = {s: free[5 * i: 5 * i + 5] for i, s in enumerate(live)}
        cards = self.hands[number][seat]
        if "declare" in legal and self.rng.random() < 0.6:
            return "declare", {"points": hand_value(cards)}
        return "show", {"cards": cards}


def play(t: GofoTable, player: RandomPlayer, *, hands: int = 0, moves: int = 0, host_seats=(),
         seen: dict[int, str] | None = None, clock: list[float] | None = None) -> dict[str, Any]:
    """Make moves until ``hands`` more hands have finished, then ``moves`` more; return the last view.
    ``seen`` collects the deck commitment each hand showed before its first move.  With a ``clock``
    (the service's patched time) a seat now and then stays silent past the turn deadline and the host
    or a seat has the referee move it."""
    view = t.public()
    target = view["table"]["hand_number"] + hands
    made = 0
    for _ in range(5000):
        number = view["table"]["hand_number"]
        if seen is not None and view["hand"].get("deck_commitment"):
            seen.setdefault(number, view["hand"]["deck_commitment"])
        if number >= target and made >= moves:
            return view
        if number >= target:
            made += 1
        if clock is not None and player.rng.random() < 0.25:
            clock[0] += 30
            status, view = t.http.post(f"{t.base}/deadline", {}, player.rng.choice([t.host_token, *t.seat_tokens]))
            assert status == 200, view
            continue
        seat = view["hand"]["to_act"]
        token = t.host_token if seat in host_seats else t.seat_tokens[seat]
        kind, body = player.choose(t.seat_view(seat, token))
        status, view = t.move(seat, kind, body, token)
        assert status == 200, (seat, kind, body, view)
    raise AssertionError("the hands did not finish")


@pytest.fixture(scope="module")
def played(redis_url):
    """name -> (transcript, deck commitments seen by the players).

    Everything is seeded, the service's chance included (its CSPRNG, salts and table ids are patched
    here), so the same hands are played on every run: the tampering tests can rely on them."""
    import redis

    from service.api import auth
    from service.games import entropy
    from service.api import common
    from service.web.app import create_app

    redis.Redis.from_url(redis_url).flushdb()  # fixed table ids below: start from an empty DB
    # Rate limits off: this module makes a few thousand requests from one client within a minute.
    client = create_app({"REDIS_URL": redis_url, "TESTING": True, "RATE_LIMIT_PER_MINUTE": 0,
                         "CREATE_LIMIT_PER_HOUR": 0}).test_client()
    http = FlaskHttp(client)
    out = {}
    ids = iter(range(1, 100))
    clock = [1_800_000_000.0]

    def tick() -> float:
        clock[0] = round(clock[0] + 0.25, 3)
        return clock[0]

    with pytest.MonkeyPatch.context() as mp, entropy.seeded(2024) as chance:
        mp.setattr(commitments, "new_salt", lambda: f"{chance.getrandbits(256):064x}")
        mp.setattr(auth, "new_game_id", lambda: f"verify-gofo-{next(ids)}")
        mp.setattr(common, "now", tick)

        t = GofoTable.create(http, {"seats": 5, "caja": 60, "refill": 10, "initial_front": 20})
        seen: dict[int, str] = {}
        rng = random.Random(20240607)
        play(t, RandomPlayer(rng), hands=2, seen=seen)
        play(t, RandomPlayer(rng, long_hand=True), hands=1, seen=seen)
        play(t, RandomPlayer(rng), hands=2, moves=4, seen=seen)
        out["dealt"] = (http.get(f"{t.base}/transcript")[1], seen)
        out["dealt_secret"] = copy.deepcopy(client.application.extensions["referee_store"].load(
            "gofo", t.id).doc["deals"])
        PLAYED_SECRET.update(out["dealt_secret"])

        t = GofoTable.create(http, {"seats": 4, "caja": 80, "refill": 10, "initial_front": 25, "mode": "tabletop"})
        player = RandomPlayer(random.Random(7), tabletop=True)
        for _ in range(12):  # until three hands are over, one of them with a canto where points were declared
            play(t, player, hands=1, host_seats=(0, 2))
            transcript = http.get(f"{t.base}/transcript")[1]
            cantos = [e["hand"] for e in transcript["entries"] if e["action"]["type"] == "declare"]
            if transcript["hands_finished"] >= 3 and cantos:
                break
        play(t, player, moves=3, host_seats=(0, 2))
        out["tabletop"] = (http.get(f"{t.base}/transcript")[1], {})

        t = GofoTable.create(http, {"seats": 3})
        out["fresh"] = (http.get(f"{t.base}/transcript")[1], {})

        # Turn deadlines: silent seats moved by the referee (timeout entries).
        t = GofoTable.create(http, {"seats": 3, "turn_seconds": 30})
        seen = {}
        play(t, RandomPlayer(random.Random(3)), hands=3, moves=2, seen=seen, clock=clock)
        out["deadlines"] = (http.get(f"{t.base}/transcript")[1], seen)
    return out


def public_cards(result: dict[str, Any]) -> set[str]:
    """Cards a finished hand made public: thrown face up, kept to the right, shown at the canto."""
    cards = {c for d in result["discards"] for c in (d["cards"] or [])}
    cards |= {c for kept in result["kept"] for c in kept}
    return cards | {c for shown in result["shown"] for c in (shown or [])}


def get(played, name):
    transcript, seen = played[name]
    return copy.deepcopy(transcript), dict(seen)


def entries_of(t, kind, **match):
    return [e for e in t["entries"] if e["action"]["type"] == kind
            and all(e.get(k) == v for k, v in match.items())]


def finished_entries(t, kind=None):
    return [e for e in t["entries"] if 1 <= e["hand"] <= t["hands_finished"]
            and (kind is None or e["action"]["type"] == kind)]


def run_cli(tmp_path: Path, transcript, seen: dict[int, str], name="t.json", extra=()):
    path = tmp_path / name
    path.write_text(json.dumps(transcript) if not isinstance(transcript, str) else transcript)
    args = [f"--deck-commitment={n}={c}" for n, c in sorted(seen.items())]
    return subprocess.run([sys.executable, "-m", "service.verify", str(path), *args, *extra],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False)


def finished_seen(t, seen):
    """The commitments of the finished hands (the one in progress is not revealed yet)."""
    return {n: c for n, c in seen.items() if n <= t["hands_finished"]}


# ------------------------------------------------------------- untouched tables


@pytest.mark.parametrize("name", ["dealt", "tabletop", "fresh", "deadlines"])
def test_untouched_transcript_passes(played, name, tmp_path):
    transcript, seen = get(played, name)
    seen = finished_seen(transcript, seen)
    report = verify.verify(transcript, seen)
    assert report.ok, report.problems
    assert report.summary.startswith(f"gofo {transcript['id']}:")
    proc = run_cli(tmp_path, transcript, seen)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith("OK: gofo ") and proc.stderr == ""
    assert f"{transcript['hands_finished']} finished hand" in lines[0]


def test_the_tables_cover_what_they_claim(played):
    """Guard the fixtures: each table really exercises what its tampering tests rely on."""
    t, seen = get(played, "dealt")
    assert t["hands_finished"] == 5 and len(t["deals"]) == 5 and len(t["results"]) == 5
    assert set(range(1, 7)) <= set(seen)  # a commitment was shown before every deal, the 6th's included
    assert [d["commitment"] for d in t["deals"]] == [seen[n] for n in range(1, 6)]
    reshuffles = finished_entries(t, "reshuffle")
    assert len(reshuffles) >= 2 and {e["hand"] for e in reshuffles} >= {3}
    # Everyone threw five cards to the end of hand 3: the referee's last reshuffle is what ended it
    # (canto and payout inside the chance step), and its result is recorded all the same.
    assert [e for e in t["entries"] if e["hand"] == 3][-1]["action"]["type"] == "reshuffle"
    assert t["results"][2]["hand"] == 3 and t["results"][2]["reason"] == "canto"
    assert sum(len(r["reshuffles"]) for r in t["results"]) == len(reshuffles)
    # some reshuffles are revealed (derived from their key), some kept closed (a folded hand went through)
    assert any(e["action"]["order"] for e in reshuffles) and any(e["action"]["order"] is None for e in reshuffles)
    assert any(d["reshuffle_keys"] for d in t["deals"])
    in_progress = [e for e in t["entries"] if e["hand"] == 6]
    assert in_progress[0]["action"] == {"type": "shuffle", "order": None} and len(in_progress) == 5
    assert any(r["reason"] == "canto" and len(r["pots"]) >= 1 for r in t["results"])
    kinds = {e["action"]["type"] for e in finished_entries(t)}
    assert {"open", "enter", "decline", "voy", "discard", "shuffle", "reshuffle"} <= kinds
    assert {e["action"]["blind"] for e in entries_of(t, "enter")} == {True, False}

    t, _ = get(played, "tabletop")
    assert t["hands_finished"] >= 3 and t["deals"] == []
    kinds = {e["action"]["type"] for e in finished_entries(t)}
    assert {"declare", "show", "discard", "reshuffle"} <= kinds
    assert {e["by"] for e in finished_entries(t)} >= {"host", "seat:1", "seat:3"}
    assert any(e["action"]["cards"] for e in finished_entries(t, "discard"))  # face up
    assert any(e["action"].get("count") is not None for e in finished_entries(t, "discard"))
    assert any(r["reason"] == "canto" for r in t["results"])

    t, _ = get(played, "fresh")
    assert t["hands_finished"] == 0 and t["deals"] == [] and t["results"] == []

    t, _ = get(played, "deadlines")
    timeouts = [e for e in finished_entries(t) if e.get("timeout")]
    assert t["hands_finished"] == 3 and len({e["action"]["type"] for e in timeouts}) >= 3
    assert {e["by"] for e in timeouts} == {"referee"}


def test_the_reshuffles_are_derived_from_the_committed_key(played):
    """Independently of the verifier: each reshuffle is derived_shuffle of the pile it reorders, from its
    own committed key; a revealed one shows its whole order, a closed one shows null."""
    t, _ = get(played, "dealt")
    secret = played["dealt_secret"]
    closed = 0
    for deal, result in zip(t["deals"], t["results"], strict=True):
        mine = secret[str(deal["hand"])]
        keys = {r["number"]: r["key"] for r in deal["reshuffle_keys"]}
        assert set(keys) == set(deal_rules.revealed_reshuffles(result))
        orders = [e["action"]["order"] for e in entries_of(t, "reshuffle", hand=deal["hand"])]
        for k, (order, full) in enumerate(zip(orders, mine["reshuffles"], strict=True), 1):
            seed = commitments.reshuffle_seed(deal["hand_id"], k, mine["reshuffle_keys"][k - 1])
            assert commitments.derived_shuffle(seed, sorted(full, key=DECK.index)) == full
            if k in keys:
                assert keys[k] == mine["reshuffle_keys"][k - 1] and order == full
            else:
                assert order is None
                closed += 1
    assert closed >= 1


def test_the_deals_open_exactly_what_the_rules_allow(played):
    """Independently of the verifier: the published deals against the referee's secret records."""
    t, _ = get(played, "dealt")
    secret = played["dealt_secret"]
    for deal, result in zip(t["deals"], t["results"], strict=True):
        mine = secret[str(deal["hand"])]
        hid = deal["hand_id"]
        assert deal["leaves"] == [commitments.card_leaf(hid, i, c, mine["salts"][i]) for i, c in enumerate(mine["order"])]
        assert deal["commitment"] == commitments.deck_commitment(hid, deal["leaves"], deal["reshuffle_key_hash"])
        assert deal["reshuffle_key_hash"] == commitments.reshuffle_key_hash(hid, deal["reshuffle_key_leaves"])
        public, opened = public_cards(result), deal_rules.opened_cards(result)
        assert opened <= public
        if all(r["clean"] for r in result["reshuffles"]):  # no folded hand came back: every public card opens
            assert opened == public
        assert {(o["position"], o["card"]) for o in deal["openings"]} == {
            (i, c) for i, c in enumerate(mine["order"]) if c in opened}
        assert "order" not in deal and "salt" not in deal and "salts" not in deal and "reshuffles" not in deal
        shuffle = entries_of(t, "shuffle", hand=deal["hand"])[0]["action"]["order"]
        assert shuffle == ([c if c in opened else None for c in mine["order"]] if opened else None)
    assert [len(d["openings"]) for d in t["deals"]][0] == 0  # hand 1: won uncontested, nothing shown
    assert any(0 < len(d["openings"]) < 28 for d in t["deals"])
    # the long hand: cards came back from folded hands, so fewer cards open than were shown
    assert any(len(d["openings"]) < len(public_cards(r)) for d, r in zip(t["deals"], t["results"]))


# -------------------------------------------------------------------- tampering


def flip_hex(text: str) -> str:
    return ("1" if text[0] != "1" else "2") + text[1:]


def swap(cards: list[str], i: int = 0, j: int = -1) -> None:
    cards[i], cards[j] = cards[j], cards[i]


def long_hand(t):
    """The dealt hand with reshuffles."""
    return entries_of(t, "reshuffle")[0]["hand"]


def partly_closed(t):
    """The first finished hand whose deck is partly closed (a folded or unshown hand), and its deal."""
    deal = [d for d in t["deals"] if 0 < len(d["openings"]) < len(DECK)][0]
    return deal["hand"], deal


def closed_positions(deal):
    opened = {o["position"] for o in deal["openings"]}
    return [i for i in range(len(DECK)) if i not in opened]


def unopened_card(deal):
    """A card the hand did not make public (a guess at a hidden card)."""
    return [c for c in DECK if c not in {o["card"] for o in deal["openings"]}][0]


def t_shuffle_order(t):
    """Two public cards of the shuffle entry swapped."""
    order = entries_of(t, "shuffle", hand=2)[0]["action"]["order"]
    known = [i for i, c in enumerate(order) if c]
    swap(order, known[0], known[-1])


def t_shuffle_moved(t):
    """A public card moved to a closed (null) position of the shuffle entry."""
    n, _ = partly_closed(t)
    order = entries_of(t, "shuffle", hand=n)[0]["action"]["order"]
    swap(order, order.index(None), next(i for i, c in enumerate(order) if c))


def t_shuffle_guess(t):
    """A masked card of the shuffle entry replaced by a guess."""
    n, deal = partly_closed(t)
    order = entries_of(t, "shuffle", hand=n)[0]["action"]["order"]
    order[order.index(None)] = unopened_card(deal)


def t_leaf(t):
    deal = t["deals"][1]
    deal["leaves"][5] = flip_hex(deal["leaves"][5])


def t_leaf_and_commitment(t):
    """A leaf rewritten and the commitment recomputed to match: the opening of that position fails."""
    deal = t["deals"][1]
    deal["leaves"][5] = flip_hex(deal["leaves"][5])
    deal["commitment"] = commitments.deck_commitment(deal["hand_id"], deal["leaves"], deal["reshuffle_key_hash"])


def t_opening_card(t):
    _, deal = partly_closed(t)
    deal["openings"][0]["card"] = unopened_card(deal)


def t_opening_salt(t):
    opening = t["deals"][partly_closed(t)[0] - 1]["openings"][-1]
    opening["salt"] = flip_hex(opening["salt"])


def t_opening_position(t):
    """An opening moved to a closed position: as if it opened a card of a folded hand there."""
    _, deal = partly_closed(t)
    deal["openings"][0]["position"] = closed_positions(deal)[0]


def t_opening_made_up(t):
    """An opening added for a hidden card, with a made-up salt."""
    _, deal = partly_closed(t)
    deal["openings"].append({"position": closed_positions(deal)[0], "card": unopened_card(deal), "salt": "ab" * 32})


def t_opening_dropped(t):
    t["deals"][partly_closed(t)[0] - 1]["openings"].pop()


def t_opening_twice(t):
    deal = t["deals"][1]
    deal["openings"].append(dict(deal["openings"][3]))


def t_deal_commitment(t):
    t["deals"][0]["commitment"] = flip_hex(t["deals"][0]["commitment"])


def revealed_key(t):
    """The deal, reshuffle number and key of the first revealed reshuffle."""
    deal = next(d for d in t["deals"] if d["reshuffle_keys"])
    return deal, deal["reshuffle_keys"][0]


def t_reshuffle_key(t):
    _, item = revealed_key(t)
    item["key"] = flip_hex(item["key"])


def t_reshuffle_key_hash(t):
    deal = t["deals"][long_hand(t) - 1]
    deal["reshuffle_key_hash"] = flip_hex(deal["reshuffle_key_hash"])


def t_reshuffle_key_everything(t):
    """Another reshuffle key, with its leaf, the key hash and the deck commitment recomputed: self-consistent,
    but the reshuffle that was made is not derived from it."""
    deal, item = revealed_key(t)
    item["key"] = flip_hex(item["key"])
    deal["reshuffle_key_leaves"][item["number"] - 1] = commitments.reshuffle_key_leaf(deal["hand_id"], item["number"],
                                                                                      item["key"])
    deal["reshuffle_key_hash"] = commitments.reshuffle_key_hash(deal["hand_id"], deal["reshuffle_key_leaves"])
    deal["commitment"] = commitments.deck_commitment(deal["hand_id"], deal["leaves"], deal["reshuffle_key_hash"])


def t_reshuffle_key_dropped(t):
    """A revealed key withheld: the reshuffle could be checked, so it must be."""
    deal, item = revealed_key(t)
    deal["reshuffle_keys"].remove(item)


def t_deal_everything(t):
    """A rewritten deal for hand 2 (every position opened): two cards swapped, their leaves, the commitment
    and the shuffle entry recomputed to agree.  Only the commitment the players saw can catch it."""
    deal, entry = t["deals"][1], entries_of(t, "shuffle", hand=2)[0]
    a, b = deal["openings"][0], deal["openings"][1]
    a["card"], b["card"] = b["card"], a["card"]
    for o in (a, b):
        deal["leaves"][o["position"]] = commitments.card_leaf(deal["hand_id"], o["position"], o["card"], o["salt"])
        entry["action"]["order"][o["position"]] = o["card"]
    deal["commitment"] = commitments.deck_commitment(deal["hand_id"], deal["leaves"], deal["reshuffle_key_hash"])


def t_deal_hand_id(t):
    t["deals"][0]["hand_id"] = t["id"] + "-9"


def t_deal_order_added(t):
    """The old format's whole deck order: would show the folded hands."""
    t["deals"][0]["order"] = list(DECK)


def t_drop_deal(t):
    t["deals"].pop()


def revealed_entry(t):
    return next(e for e in finished_entries(t, "reshuffle") if e["action"]["order"])


def closed_entry(t):
    return next(e for e in finished_entries(t, "reshuffle") if e["action"]["order"] is None)


def t_reshuffle_order(t):
    swap(revealed_entry(t)["action"]["order"])


def t_reshuffle_closed_shown(t):
    """A closed reshuffle's entry shows an order (it would tell who drew the folded cards)."""
    entry = closed_entry(t)
    entry["action"]["order"] = list(DECK[:3])


def t_reshuffle_closed_key(t, secret=None):
    """A closed reshuffle's true key revealed (its leaf opens): the rule catches it."""
    entry = closed_entry(t)
    k = entries_of(t, "reshuffle", hand=entry["hand"]).index(entry) + 1
    deal = t["deals"][entry["hand"] - 1]
    key = PLAYED_SECRET[str(entry["hand"])]["reshuffle_keys"][k - 1]
    deal["reshuffle_keys"].append({"number": k, "key": key})


PLAYED_SECRET: dict[str, Any] = {}


def t_entry_seat(t):
    e = entries_of(t, "open", hand=2)[0]
    e["seat"] = (e["seat"] + 1) % 5


def t_entry_by(t):
    e = entries_of(t, "open", hand=2)[0]
    e["by"] = f"seat:{(e['seat'] + 1) % 5}"


def t_entry_by_host(t):
    entries_of(t, "open", hand=2)[0]["by"] = "host"


def t_entry_seat_and_by(t):
    """Both fields agree, but it was not that seat's turn."""
    e = entries_of(t, "open", hand=2)[0]
    e["seat"] = (e["seat"] + 1) % 5
    e["by"] = f"seat:{e['seat']}"


def t_chance_by(t):
    entries_of(t, "shuffle", hand=2)[0]["by"] = "host"


def t_chance_seat(t):
    entries_of(t, "reshuffle")[0]["seat"] = 0


def t_amount(t):
    """One chip less in an opening that was met: legal, but every pot of that hand changes."""
    for e in finished_entries(t, "open"):
        result = t["results"][e["hand"] - 1]
        if result["reason"] == "canto":
            e["action"]["amount"] += 1 if e["action"]["amount"] == 1 else -1
            return


def t_dealer_draw(t):
    """The first-dealer draw's cards swapped: another seat deals, and the first hand's turns move."""
    cards = entries_of(t, "dealer_draw")[-1]["action"]["cards"]
    best = cards.index(max(cards, key=card_value))
    swap(cards, best, best - 1)


def t_dealer_draw_duplicate(t):
    cards = entries_of(t, "dealer_draw")[0]["action"]["cards"]
    cards[1] = cards[0]


def t_draw_commitment(t):
    draw = entries_of(t, "dealer_draw")[0]["draw"]
    draw["commitment"] = flip_hex(draw["commitment"])


def t_draw_deck(t):
    """The draw deck rewritten to agree with other cards drawn: its commitment no longer matches."""
    entry = entries_of(t, "dealer_draw")[0]
    swap(entry["draw"]["order"], 0, 27)


def t_draw_missing(t):
    del entries_of(t, "dealer_draw")[0]["draw"]


def t_timeout_early(t):
    """A timeout move dated right after the move before it: before the seat's time ran out."""
    e = timeouts(t)[0]
    i = t["entries"].index(e)
    e["at"] = t["entries"][i - 1]["at"]


def t_no_deadline(t):
    t["turn_seconds"] = None


def t_drop_entry(t):
    t["entries"].remove(entries_of(t, "enter", hand=2)[0])


def t_drop_last(t):
    t["entries"].pop()


def t_drop_shuffle(t):
    t["entries"].remove(entries_of(t, "shuffle", hand=2)[0])


def t_drop_reshuffle(t):
    t["entries"].remove(entries_of(t, "reshuffle")[-1])


def t_reorder(t):
    e = entries_of(t, "enter", hand=2)[1]
    i = t["entries"].index(e)
    t["entries"][i - 1], t["entries"][i] = t["entries"][i], t["entries"][i - 1]


def t_reorder_renumbered(t):
    """Two moves of different seats swapped and renumbered: versions look right, turns do not."""
    es = t["entries"]
    i = es.index(entries_of(t, "enter", hand=2)[1])
    es[i - 1], es[i] = es[i], es[i - 1]
    es[i - 1]["version"], es[i]["version"] = es[i]["version"], es[i - 1]["version"]
    es[i - 1]["at"], es[i]["at"] = es[i]["at"], es[i - 1]["at"]


def t_duplicate(t):
    e = entries_of(t, "enter", hand=2)[0]
    t["entries"].insert(t["entries"].index(e) + 1, copy.deepcopy(e))


def t_at_backwards(t):
    entries_of(t, "enter", hand=2)[0]["at"] = t["entries"][0]["at"] - 60


def t_entry_hand(t):
    entries_of(t, "enter", hand=2)[0]["hand"] = 3


def t_withheld(t):
    entries_of(t, "shuffle", hand=2)[0]["action"]["order"] = None


def t_result_payouts(t):
    for result in t["results"]:
        pay = result["payouts"]
        winner = pay.index(max(pay))
        other = (winner + 1) % len(pay)
        if pay[winner] > 0:
            pay[winner] -= 1
            pay[other] += 1
            return


def t_result_winner(t):
    for result in t["results"]:
        for pot in result["pots"]:
            if len(pot["eligible"]) >= 2:
                pot["winner"] = [s for s in pot["eligible"] if s != pot["winner"]][0]
                return
    raise AssertionError("no contested pot")


def t_result_values(t):
    result = [r for r in t["results"] if r["reason"] == "canto"][0]
    s = [i for i, v in enumerate(result["values"]) if v is not None][0]
    result["values"][s] += 1


def t_result_net(t):
    t["results"][0]["net"][0] += 1


def t_result_dropped(t):
    t["results"].pop()


def t_options(t):
    t["options"]["caja"] += 10


def t_options_everywhere(t):
    """Consistent options, but fronts of 3 chips: the openings and bets that were made do not fit."""
    for options in (t["options"], t["entries"][0]["action"]["options"]):
        options["initial_front"] = options["inauguration_front"] = 3


def t_hands_finished_down(t):
    t["hands_finished"] -= 1


def t_hands_finished_up(t):
    t["hands_finished"] += 1


def t_hands_finished_down_everywhere(t):
    """The last finished hand passed off as the hand in progress: deals and results shortened to match."""
    t["hands_finished"] -= 1
    t["results"].pop()
    if t["deals"]:
        t["deals"].pop()


def t_version(t):
    t["version"] += 1


def t_add_deal(t):
    t["deals"].append({"hand": 1, "hand_id": f"{t['id']}-1", "commitment": "ab" * 32, "leaves": ["ab" * 32] * 28,
                       "reshuffle_key_leaves": ["cd" * 32] * 20, "reshuffle_key_hash": "ef" * 32, "openings": [],
                       "reshuffle_keys": []})


def t_declare(t):
    e = finished_entries(t, "declare")[0]
    e["action"]["points"] = e["action"]["points"] - 1 if e["action"]["points"] > 7 else 8


def t_show(t):
    e = finished_entries(t, "show")[0]
    cards = e["action"]["cards"]
    cards[0] = [c for c in DECK if c not in cards][0]


def t_tabletop_by(t):
    [e for e in finished_entries(t) if e["by"] == "host"][0]["by"] = "referee"


def t_tabletop_reshuffle_seat(t):
    e = finished_entries(t, "reshuffle")[0]
    e["seat"] = (e["seat"] + 1) % 4
    e["by"] = f"seat:{e['seat']}"


def timeouts(t):
    return [e for e in finished_entries(t) if e.get("timeout")]


def t_timeout_action(t):
    """The referee's move for a silent seat replaced by a move the seat did not make."""
    other = {"voy": {"type": "corta", "amount": 1}, "decline": {"type": "enter", "blind": False},
             "no_ver": {"type": "ver"}, "pass": {"type": "raise", "amount": 1}}
    e = [e for e in timeouts(t) if e["action"]["type"] in other][0]
    e["action"] = other[e["action"]["type"]]


def t_timeout_flag_dropped(t):
    del timeouts(t)[0]["timeout"]


def t_timeout_by(t):
    e = timeouts(t)[0]
    e["by"] = f"seat:{e['seat']}"


def t_timeout_added(t):
    """A seat's own move relabelled as the referee's: not what silence makes."""
    e = [e for e in finished_entries(t, "enter") if not e.get("timeout")][0]
    e.update(by="referee", timeout=True)


DECK_MISMATCH = r"deals\[\d\]: the leaves and reshuffle key hash of hand \d hash to \w+…, which does not match the " \
                r"deck commitment \w+… published for hand \S+-\d \(deals\[\d\]\.commitment\)"
OPENS_NOT = r"deals\[\d\]\.openings\[\d+\]: \w+ at position \d+ with salt \w+… hashes to \w+…, not to the committed " \
            r"leaf \w+… \(leaves\[\d+\]\): the position does not open"
DERIVED = r"reshuffle \d of hand \d orders the pile as .*, but the order derived from its revealed key"
SHUFFLE = r"hand \d, shuffle\): the shuffle of hand \d shows the deck as .*, not the positions opened in deals\[\d\] " \
          r"\(each opened card at its position, null elsewhere; first difference at position \d+"
RESULT = r"hand \d: results\[\d\]\.{}: the transcript says .*, replaying the actions gives"
DIVERGES = r"(hand \d: results\[\d\]\.\w+|the rules engine refuses this action)"
TAMPERS = {
    "shuffle_order": (t_shuffle_order, SHUFFLE),
    "shuffle_moved": (t_shuffle_moved, SHUFFLE),
    "shuffle_guess": (t_shuffle_guess, SHUFFLE),
    "leaf": (t_leaf, DECK_MISMATCH),
    "leaf_opens": (t_leaf, OPENS_NOT),
    "leaf_and_commitment": (t_leaf_and_commitment, OPENS_NOT),
    "opening_card": (t_opening_card, OPENS_NOT),
    "opening_salt": (t_opening_salt, OPENS_NOT),
    "opening_position": (t_opening_position, OPENS_NOT),
    "opening_made_up": (t_opening_made_up, OPENS_NOT),
    "opening_dropped": (t_opening_dropped, r"deals\[\d\]: hand \d first showed \['\w+'\] from the deck \(results\), but it "
                                           r"is not opened: where it lay in the deck would go unchecked"),
    "opening_twice": (t_opening_twice, r"deals\[1\]\.openings\[28\]: opens position \d+ a second time"),
    "deal_commitment": (t_deal_commitment, DECK_MISMATCH),
    "reshuffle_key": (t_reshuffle_key, r"deals\[\d\]\.reshuffle_keys\[0\]: the key of reshuffle \d+ of hand \d hashes to "
                                       r"\w+…, not to the committed reshuffle_key_leaves\[\d+\]"),
    "reshuffle_key_hash": (t_reshuffle_key_hash, DECK_MISMATCH),
    "reshuffle_key_leaves": (t_reshuffle_key_hash, r"the reshuffle key leaves of hand \d hash to \w+…, not to the "
                                                   r"committed reshuffle_key_hash"),
    "reshuffle_key_dropped": (t_reshuffle_key_dropped, r"the key of reshuffle \[\d+\] of hand \d is not revealed, "
                                                       r"though nothing secret went through it"),
    "reshuffle_closed_shown": (t_reshuffle_closed_shown, r"reshuffle \d+ of hand \d is kept closed \(its key is not "
                                                         r"revealed\), but its entry shows an order"),
    "reshuffle_closed_key": (t_reshuffle_closed_key, r"reveals the key of reshuffle \[\d+\] of hand \d, which must stay "
                                                     r"closed"),
    "reshuffle_key_everything": (t_reshuffle_key_everything, DERIVED),
    "deal_hand_id": (t_deal_hand_id, r"deals\[0\]: hand_id is '\S+-9', but hand 1 of table \S+ hashes with the "
                                     r"hand id '\S+-1'"),
    "deal_order_added": (t_deal_order_added, r"deals\[0\]: carries a whole deck order, deck salt"),
    "drop_deal": (t_drop_deal, r"deals: the transcript lists 4 deals but 5 finished hands"),
    "reshuffle_order": (t_reshuffle_order, DERIVED),
    "entry_seat": (t_entry_seat, r"made by 'seat:(\d)', but a open for seat (?!\1)\d can only be made by 'seat:\d'$"),
    "entry_by": (t_entry_by, r"made by 'seat:(\d)', but a open for seat (?!\1)\d can only be made by 'seat:\d'$"),
    "entry_by_host": (t_entry_by_host, r"made by 'host', but at a dealt table the host cannot act for a seat"),
    "entry_seat_and_by": (t_entry_seat_and_by, r"hand 2, seat \d open\): the rules engine refuses this action: it "
                                               r"is seat \d's turn, not seat \d's \(not_your_turn\)"),
    "chance_by": (t_chance_by, r"hand 2, shuffle\): made by 'host', but only the referee supplies chance \(shuffle\)"),
    "chance_seat": (t_chance_seat, r"reshuffle\): recorded for seat 0, but chance \(reshuffle\) is applied for no seat"),
    "amount": (t_amount, DIVERGES),
    "dealer_draw": (t_dealer_draw, r"hand 1, seat \d open\): the rules engine refuses this action: it is seat \d's "
                                   r"turn, not seat \d's \(not_your_turn\)"),
    "dealer_draw_duplicate": (t_dealer_draw_duplicate, r"hand 0, dealer_draw\): the rules engine refuses this action: "
                                                       r"the same card is named twice \(duplicate_card\)"),
    "drop_entry": (t_drop_entry, r"entries: version \d+ missing \(an entry was dropped\)$"),
    "drop_last": (t_drop_last, r"version: the transcript says \d+ but its last entry is version \d+"),
    "drop_shuffle": (t_drop_shuffle, r"after it hand 2 needs the referee's shuffle, but the next entry is not that "
                                     r"shuffle \(it was dropped or moved\)"),
    "drop_reshuffle": (t_drop_reshuffle, r"after it hand \d needs the referee's reshuffle, but the next entry is not "
                                         r"that reshuffle"),
    "reorder": (t_reorder, r"version \d+ comes after version \d+ \(entries are out of order\)"),
    "reorder_renumbered": (t_reorder_renumbered, r"the rules engine refuses this action: it is seat \d's turn, not "
                                                 r"seat \d's \(not_your_turn\)"),
    "duplicate": (t_duplicate, r"repeats version \d+; only the referee's chance"),
    "at_backwards": (t_at_backwards, r"time goes backwards"),
    "entry_hand": (t_entry_hand, r"recorded for hand 3, but replaying the entries before it, the table is at hand 2"),
    "withheld": (t_withheld, r"hand 2, shuffle\): the shuffle order is withheld \(null\), but hand 2 is finished and "
                             r"deals\[1\] opens 28 positions"),
    "result_payouts": (t_result_payouts, RESULT.format(r"payouts")),
    "result_winner": (t_result_winner, RESULT.format(r"pots\[\d\]\.winner")),
    "result_values": (t_result_values, RESULT.format(r"values")),
    "result_net": (t_result_net, RESULT.format(r"net")),
    "result_net_sum": (t_result_net, r"hand 1: results\[0\]: the nets add up to 1, not 0 \(chips are not conserved\)"),
    "result_dropped": (t_result_dropped, r"results: the transcript lists \d hand results \(for hands \[[\d, ]+\]\) "
                                         r"but \d finished hands \(hands_finished\); no result for hand \d$"),
    "options": (t_options, r"options: the transcript's options differ from those of the create entry \(differing: "
                           r"caja"),
    "options_everywhere": (t_options_everywhere, DIVERGES),
    "hands_finished_down": (t_hands_finished_down, r"(deals|results): the transcript lists \d [\w ]+(\(for hands "
                                                   r"\[[\d, ]+\]\) )?but \d finished hands"),
    "hands_finished_up": (t_hands_finished_up, r"(deals has no usable deal for it|entries are missing at the end)"),
    "hands_finished_down_everywhere": (t_hands_finished_down_everywhere, r"(replaying every entry finishes \d hands, "
                                                                         r"but hands_finished is \d: the hand in "
                                                                         r"progress is over|recorded for hand \d, but "
                                                                         r"after the \d finished hands only hand \d "
                                                                         r"is in progress)"),
    "version": (t_version, r"version: the transcript says \d+ but its last entry is version \d+"),
    "add_deal": (t_add_deal, r"deals: a tabletop table is played with real cards, but the transcript lists 1 dealt "
                             r"deck"),
    "declare": (t_declare, DIVERGES),
    "show": (t_show, DIVERGES),
    "tabletop_by": (t_tabletop_by, r"made by 'referee', but a \w+ for seat \d can only be made by 'seat:\d' or the "
                                   r"host"),
    "tabletop_reshuffle_seat": (t_tabletop_reshuffle_seat, r"refuses this action: only the dealer reports a "
                                                           r"reshuffle, during a discard \(cannot_reshuffle\)"),
    "timeout_action": (t_timeout_action, r"the referee's timeout move for seat \d is \{.*\}, but a silent seat makes "
                                         r"\{'type': '(voy|decline|no_ver|pass)'\}"),
    "timeout_flag_dropped": (t_timeout_flag_dropped, r"made by 'referee', but a \w+ for seat \d can only be made by "
                                                     r"'seat:\d' \(the referee moves a seat only when its time ran out"),
    "timeout_by": (t_timeout_by, r"marked as a timeout, but made by 'seat:\d'; only the referee moves a seat whose "
                                 r"time ran out"),
    "draw_commitment": (t_draw_commitment, r"hand 0, dealer_draw\): draw round 1 does not check out: the draw deck and "
                                           r"salt hash to \w+…, not to the commitment"),
    "draw_deck": (t_draw_deck, r"draw round 1 does not check out: the draw deck and salt hash to"),
    "draw_missing": (t_draw_missing, r"the first-dealer draw shows no committed draw deck"),
    "timeout_early": (t_timeout_early, r"the referee moved seat \d at [\d.]+, before its deadline [\d.]+ \(30 s after the "
                                       r"move at [\d.]+\)"),
    "no_deadline": (t_no_deadline, r"marked as a timeout, but the table has no turn deadline"),
    "timeout_added": (t_timeout_added, r"the referee's timeout move for seat \d is \{'type': 'enter', 'blind': \w+\}, "
                                       r"but a silent seat makes \{'type': 'decline'\}"),
}

COMMON = ["entry_by_host", "dealer_draw", "dealer_draw_duplicate", "amount", "drop_entry", "drop_last",
          "duplicate", "at_backwards", "result_payouts", "result_winner", "result_values", "result_net",
          "result_net_sum", "result_dropped", "options", "options_everywhere", "hands_finished_down",
          "hands_finished_down_everywhere", "hands_finished_up", "version"]
APPLICABLE = {
    "dealt": COMMON + ["shuffle_order", "shuffle_moved", "shuffle_guess", "leaf", "leaf_opens",
                       "leaf_and_commitment", "opening_card", "opening_salt", "opening_position", "opening_made_up",
                       "opening_dropped", "opening_twice", "deal_commitment", "reshuffle_key", "reshuffle_key_hash",
                       "reshuffle_key_leaves", "reshuffle_key_dropped", "reshuffle_closed_shown", "reshuffle_closed_key",
                       "reshuffle_key_everything", "deal_hand_id", "deal_order_added", "drop_deal", "reshuffle_order",
                       "draw_commitment", "draw_deck", "draw_missing", "entry_seat", "entry_by", "entry_seat_and_by", "chance_by", "chance_seat", "drop_shuffle",
                       "drop_reshuffle", "reorder", "reorder_renumbered", "entry_hand", "withheld"],
    "tabletop": [c for c in COMMON if c != "entry_by_host"] + [
        "add_deal", "declare", "show", "tabletop_by", "tabletop_reshuffle_seat"],
    "deadlines": ["timeout_action", "timeout_flag_dropped", "timeout_by", "timeout_added", "timeout_early",
                  "no_deadline", "amount", "drop_entry",
                  "result_winner", "opening_salt", "shuffle_order", "shuffle_guess", "opening_position",
                  "opening_dropped"],
}
CASES = [(table, tamper) for table, tampers in APPLICABLE.items() for tamper in tampers]


@pytest.mark.parametrize("table,tamper", CASES, ids=[f"{g}-{t}" for g, t in CASES])
def test_tampered_transcript_is_rejected(played, table, tamper):
    transcript, _ = get(played, table)
    original = copy.deepcopy(transcript)
    change, expected = TAMPERS[tamper]
    change(transcript)
    assert transcript != original, "the tampering changed nothing"
    report = verify.verify(transcript)
    assert not report.ok, f"{tamper} was not detected"
    assert any(re.search(expected, p) for p in report.problems), report.problems


@pytest.mark.parametrize("tamper", ["shuffle_order", "opening_salt", "opening_made_up", "reshuffle_order",
                                    "reshuffle_key", "draw_commitment", "entry_by", "amount",
                                    "drop_entry", "result_winner", "options"])
def test_tampered_transcript_fails_on_the_command_line(played, tamper, tmp_path):
    transcript, seen = get(played, "dealt")
    change, expected = TAMPERS[tamper]
    change(transcript)
    proc = run_cli(tmp_path, transcript, finished_seen(transcript, seen))
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert all(line.startswith("FAIL: ") for line in lines) and "problem" in lines[-1]
    assert any(re.search(expected, line) for line in lines), lines


# ------------------------------------------------------------ commitments given


def test_a_rewritten_deal_is_caught_only_by_the_commitment_the_players_saw(played, tmp_path):
    transcript, seen = get(played, "dealt")
    t_deal_everything(transcript)
    report = verify.verify(transcript)
    # Self-consistent: the shuffle, the revealed order and its commitment agree; the replay goes on
    # with another deck, so only the results may give it away — the commitment seen always does.
    assert not any("deck commitment" in p for p in report.problems), report.problems
    assert not any("does not open" in p for p in report.problems), report.problems
    report = verify.verify(transcript, {2: seen[2]})
    assert any(re.search(r"deals\[1\]: the leaves and reshuffle key hash of hand 2 hash to \w+…, which does not "
                         r"match the deck commitment \w+… published for hand \S+-2 \(--deck-commitment 2\)", p)
               for p in report.problems), report.problems
    proc = run_cli(tmp_path, transcript, {2: seen[2]})
    assert proc.returncode == 1 and "(--deck-commitment 2)" in proc.stderr
    # Likewise a rewritten reshuffle key: only the commitment the players saw catches its hash.
    transcript, seen = get(played, "dealt")
    t_reshuffle_key_everything(transcript)
    assert not any("deck commitment" in p for p in verify.verify(transcript).problems)
    n = long_hand(transcript)
    assert any(f"(--deck-commitment {n})" in p for p in verify.verify(transcript, {n: seen[n]}).problems)


def test_deck_commitments_on_the_command_line(played, tmp_path):
    transcript, seen = get(played, "dealt")
    finished = finished_seen(transcript, seen)
    proc = run_cli(tmp_path, transcript, {}, extra=["--deck-commitment", seen[1]])  # HEX alone: hand 1
    assert proc.returncode == 0, proc.stderr
    proc = run_cli(tmp_path, transcript, {**finished, 2: seen[3]})
    assert proc.returncode == 1 and "(--deck-commitment 2)" in proc.stderr
    # The hand in progress: its deck is not revealed, so its commitment cannot be checked yet.
    report = verify.verify(transcript, {6: seen[6]})
    assert report.problems == ["--deck-commitment 6=…: hand 6 is not a finished hand of this transcript "
                               "(5 finished); only a finished hand's deck is revealed"]
    proc = run_cli(tmp_path, transcript, {}, extra=["--prize-commitment", seen[1]])
    assert proc.returncode == 2 and "--prize-commitment does not apply to a gofo transcript; use " \
                                    "--deck-commitment" in proc.stderr
    proc = run_cli(tmp_path, {"kind": "gops", "id": "g"}, {1: seen[1]})
    assert proc.returncode == 2 and "--deck-commitment does not apply to a gops transcript; use " \
                                    "--prize-commitment" in proc.stderr
    proc = run_cli(tmp_path, transcript, {}, extra=["--deck-commitment", "1=nothex"])
    assert proc.returncode == 2 and "64 lowercase hex" in proc.stderr
    proc = run_cli(tmp_path, transcript, {}, extra=["--deck-commitment", f"x={seen[1]}"])
    assert proc.returncode == 2 and "expected HAND=HEX, HAND a hand number" in proc.stderr
    tabletop, _ = get(played, "tabletop")
    report = verify.verify(tabletop, {1: seen[1]})
    assert report.problems == ["--deck-commitment 1=…: a tabletop table has no dealt deck to check"]


# ------------------------------------------------------------ folded hands stay secret


def test_a_referee_that_opens_a_folded_hand_is_caught(played):
    """A real leak: the referee opens a closed position with its true card and salt (read from its
    secret record).  The leaf opens, so only the rule "open exactly the public cards" catches it."""
    transcript, _ = get(played, "dealt")
    n, deal = partly_closed(transcript)
    mine = played["dealt_secret"][str(n)]
    position = closed_positions(deal)[0]
    card = mine["order"][position]
    assert card not in public_cards(transcript["results"][n - 1])
    deal["openings"].append({"position": position, "card": card, "salt": mine["salts"][position]})
    order = entries_of(transcript, "shuffle", hand=n)[0]["action"]["order"]
    order[position] = card  # the shuffle entry shows it too, consistently
    problems = verify.verify(transcript).problems
    assert not any("does not open" in p for p in problems), problems
    assert any(re.match(rf"deals\[{n - 1}\]: opens \['{card}'\], which hand {n} must keep closed", p)
               for p in problems), problems


def test_the_summary_counts_what_was_checked(played):
    transcript, _ = get(played, "dealt")
    summary = verify.verify(transcript).summary
    opened = sum(len(d["openings"]) for d in transcript["deals"])
    assert f"5 decks match their commitments, {opened} public cards opened and {5 * 28 - opened} positions kept " \
           "closed" in summary, summary
    closed = sum(e["action"]["order"] is None for e in finished_entries(transcript, "reshuffle"))
    derived = len(finished_entries(transcript, "reshuffle")) - closed
    assert f"{derived} reshuffle{'s' if derived != 1 else ''} derived from the revealed keys, {closed} reshuffle" in summary
    assert "kept closed (a folded or unshown hand went through it)" in summary


def strings(value: Any) -> set[str]:
    """Every string anywhere in a JSON value."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings(v) for v in value)) if value else set()
    return set()


def test_a_folded_hand_never_appears_in_public(redis_url):
    """A player looks at his cards and folds (declines, or no ver after a corta): once the hand is over,
    none of his cards appears in the public view, the ledger or the transcript — unless that card
    became public another way (reshuffled from the pile, then thrown or shown by someone else)."""
    from service.games import entropy
    from service.web.app import create_app

    client = create_app({"REDIS_URL": redis_url, "TESTING": True, "RATE_LIMIT_PER_MINUTE": 0,
                         "CREATE_LIMIT_PER_HOUR": 0}).test_client()
    http = FlaskHttp(client)
    checked = {"decline": 0, "no_ver": 0}
    with entropy.seeded(99):
        t = GofoTable.create(http, {"seats": 4, "caja": 100, "initial_front": 40})
        player = RandomPlayer(random.Random(5))
        for _ in range(12):
            view = t.public()
            number = view["table"]["hand_number"]
            way = "decline" if number % 2 else "no_ver"
            folder, cards = None, []
            while view["table"]["hand_number"] == number:
                seat = view["hand"]["to_act"]
                mine = t.seat_view(seat)
                legal = {a["type"] for a in mine["hand"]["legal_actions"]}
                if folder is None and "enter" in legal and "open" not in legal:
                    folder = seat
                    if way == "decline":
                        status, view = t.move(seat, "look")
                        assert status == 200, view
                        cards = t.seat_view(seat)["hand"]["my_cards"]
                        status, view = t.move(seat, "decline")
                    else:
                        status, view = t.move(seat, "enter", {"blind": False})
                    assert status == 200, view
                    continue
                if seat == folder and way == "no_ver" and "ver" in legal and not cards:
                    cards = mine["hand"]["my_cards"]
                    status, view = t.move(seat, "no_ver")
                    assert status == 200, view
                    continue
                if seat != folder and folder is not None and way == "no_ver" and not cards and "corta" in legal:
                    kind, body = "corta", {"amount": 1}  # make the folder answer a bet
                elif seat == folder and "discard" in legal:
                    kind, body = "discard", {"cards": []}  # keep the cards he will fold
                else:
                    kind, body = player.choose(mine)
                status, view = t.move(seat, kind, body)
                assert status == 200, (seat, kind, body, view)
            if not cards:
                continue  # he never had to answer a bet: try again next hand
            assert len(cards) == (2 if way == "decline" else 5)
            transcript = http.get(f"{t.base}/transcript")[1]
            ledger = http.get(f"{t.base}/ledger")[1]
            result = transcript["results"][number - 1]
            hidden = set(cards) - public_cards(result)
            assert hidden, "every card he folded became public another way"
            public = t.public()
            public["table"].pop("draws")  # the first-dealer draw (hand 0) shows cards of its own
            this_hand = [e for e in transcript["entries"] if e["hand"] >= number]
            seen = strings([public, ledger["results"][number - 1], this_hand, transcript["deals"][number - 1],
                            result])
            assert not hidden & seen, (hidden & seen, number)
            deal = transcript["deals"][number - 1]
            # nor where any of his cards lay in the deck, even one that came back and was shown
            assert not set(cards) & {o["card"] for o in deal["openings"]}
            assert len(deal["leaves"]) == 28 and "order" not in deal
            assert verify.verify(transcript).ok
            checked[way] += 1
            if min(checked.values()) >= 1:
                break
    assert min(checked.values()) >= 1, checked


# ------------------------------------------------------------ the hand in progress and garbage


def test_the_hand_in_progress_is_ignored_but_must_be_that_hand(played):
    transcript, _ = get(played, "dealt")
    in_progress = [e for e in transcript["entries"] if e["hand"] == 6]
    # Whatever its withheld deck, the hand in progress is not replayed...
    in_progress[1]["action"]["amount"] = 10 ** 6
    assert verify.verify(transcript).ok
    # ...but its entries must belong to it, and be made by the right party.
    in_progress[-1]["hand"] = 7
    in_progress[-2]["by"] = "referee"
    problems = verify.verify(transcript).problems
    assert any(re.search(r"recorded for hand 7, but after the 5 finished hands only hand 6 is in progress", p)
               for p in problems), problems
    assert any(re.search(r"made by 'referee', but a \w+ for seat \d can only be made by 'seat:\d' \(the referee "
                         r"moves a seat only when its time ran out, marked timeout\)$", p) for p in problems), problems


def test_a_tabletop_hand_in_progress_is_replayed_as_far_as_it_goes(played):
    """Nothing is withheld at a tabletop table: the moves of the hand in progress must be legal too."""
    transcript, _ = get(played, "tabletop")
    report = verify.verify(transcript)
    in_progress = transcript["hands_finished"] + 1
    assert report.ok and report.summary.endswith(f"hand {in_progress} in progress, replayed so far")
    in_progress = [e for e in transcript["entries"] if e["hand"] == in_progress]
    assert in_progress[0]["action"]["type"] == "open"
    in_progress[0]["action"]["amount"] = 10 ** 6
    problems = verify.verify(transcript).problems
    assert any(re.search(r"open\): the rules engine refuses this action: the opening must be below every front", p)
               for p in problems), problems


def test_garbage_inside_a_transcript_is_a_problem_not_a_crash(played):
    transcript, _ = get(played, "dealt")
    for mutate, expected in [
        (lambda t: t.update(entries=[]), "entries: missing or empty"),
        (lambda t: t["entries"][3].update(at="yesterday"), "missing or malformed at"),
        (lambda t: t["entries"][4].update(seat="two"), "missing or malformed seat"),
        (lambda t: t["entries"][0]["action"]["options"].update(colour="red"), "not valid Gofo table options"),
        (lambda t: t["entries"].insert(5, {"version": 3}), "not an entry object"),
        (lambda t: t["entries"][5]["action"].update(type="cheat"), "unknown action type 'cheat'"),
        (lambda t: entries_of(t, "open")[0]["action"].update(amount="lots"), "open.amount must be an integer"),
        (lambda t: t.update(id="../etc"), "is not a table id"),
        (lambda t: t.update(hands_finished="all"), "hands_finished: 'all' is not a number of hands"),
        (lambda t: t.update(deals={}), "deals: missing or not a list"),
        (lambda t: t.update(results=None), "results: missing or not a list"),
        (lambda t: t["deals"][1].update(leaves=["x"] * 28), "leaves is not a list of 28 SHA-256 digests"),
        (lambda t: t["deals"][1].update(leaves=t["deals"][1]["leaves"][:27]), "leaves is not a list of 28"),
        (lambda t: t["deals"][1].update(openings=None), "openings is not a list"),
        (lambda t: t["deals"][1]["openings"][0].update(salt="x"), r"openings\[0\]: not an opening"),
        (lambda t: t["deals"][1]["openings"][0].update(position=28), r"openings\[0\]: not an opening"),
        (lambda t: t["deals"][1]["openings"][0].update(card="13o"), r"openings\[0\]: not an opening"),
        (lambda t: t["deals"][1].update(reshuffle_keys=7), "reshuffle_keys is not a list of"),
        (lambda t: t["deals"][1].update(reshuffle_keys=[{"number": 0, "key": "ab" * 32}]), "not a reshuffle key"),
        (lambda t: t["deals"][1].update(reshuffle_key_leaves=["x"]), "reshuffle_key_leaves is not a list of 20"),
        (lambda t: t["deals"][1].update(reshuffle_key_hash=None), "reshuffle_key_hash 'None' is not a SHA-256"),
        (lambda t: entries_of(t, "dealer_draw")[0].update(draw=5), "shows no committed draw deck"),
        (lambda t: entries_of(t, "shuffle", hand=2)[0]["action"].update(order=["3o"]), "is not a list of 28 positions"),
        (lambda t: revealed_entry(t)["action"].update(order=[None]), r"orders the pile as \[None\], but the order "
                                                                     r"derived from its revealed key"),
        (lambda t: t["entries"].insert(3, dict(t["entries"][0])), "a second create entry"),
    ]:
        tampered = copy.deepcopy(transcript)
        mutate(tampered)
        problems = verify.verify(tampered).problems
        assert any(re.search(expected, p) for p in problems), (expected, problems)


def test_gofo_is_registered(played, tmp_path):
    from service.games.registry import GAMES

    assert list(GAMES) == ["gops", "gofo"]
    transcript, _ = get(played, "fresh")
    proc = run_cli(tmp_path, dict(transcript, kind="chess"), {})
    assert proc.returncode == 2 and "unknown transcript kind 'chess'; this verifier checks: gops, gofo" in proc.stderr


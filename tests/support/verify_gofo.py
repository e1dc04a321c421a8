"""Gofo tables played over HTTP for the offline verifier's tests (tests/test_verify.py), and the ways
their transcripts are tampered with.

``play_all`` plays four tables once (Flask test client on a real Valkey) with random legal moves drawn
from the seats' ``legal_actions`` (seeded, the service's chance included, so deterministic):

* ``dealt``: five seats; random hands, one hand where everyone keeps discarding five cards (the stock
  runs out: reshuffles derived from the hand's committed reshuffle key), more random hands, then a hand
  left in progress (its deck withheld).  A finished hand opens only the deck positions of the cards it
  made public: hand 1 is won uncontested (nothing opened), hand 4 has folded hands (closed positions,
  and a reshuffle whose pile holds hidden cards);
* ``tabletop``: four seats with real cards, two of them played by the host; counts and face-up
  discards, the dealer's reported reshuffles, cantos with declared points and shown hands;
* ``fresh``: a table just created;
* ``deadlines``: silent seats moved by the referee when their turn deadline passed.

The referee's secret records of the dealt table's decks (every card and salt) are read from the store,
to check what it publishes against what it knows and to play a referee that leaks.  ``TAMPERS`` names
each tampering with the problem the verifier must report; ``APPLICABLE`` says which tables each applies
to; ``CLI_GAME`` and ``CLI_TAMPERS`` are the ones also run through ``python -m service.verify``.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from service.games import commitments
from service.games.gofo.cards import DECK, card_value
from service.games.gofo.value import hand_value
from support.client import FlaskHttp, GofoTable

FLAG = "--deck-commitment"  # the command line's option for a commitment the players saw


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


def play_all(redis_url: str) -> dict[str, Any]:
    """Every table played (its own app): name -> (transcript, deck commitments seen by the players);
    ``dealt_secret``: the referee's secret records of the dealt table's decks.

    Everything is seeded, the service's chance included (its CSPRNG, salts and table ids are patched
    here), so the same hands are played on every run: the tampering tests can rely on them."""
    import redis

    from service.api import auth, common
    from service.games import entropy
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


def finished_seen(t, seen):
    """The commitments of the finished hands (the one in progress is not revealed yet)."""
    return {n: c for n, c in seen.items() if n <= t["hands_finished"]}


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
    "deal_order_added": (t_deal_order_added, r"^deals\[0\]\.order: Unknown field\.$"),
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




UNTOUCHED = ["dealt", "tabletop", "fresh", "deadlines"]  # every table's untouched transcript passes
CLI_GAME = "dealt"
CLI_TAMPERS = ["shuffle_order", "opening_salt", "opening_made_up", "reshuffle_order", "reshuffle_key",
               "draw_commitment", "entry_by", "amount", "drop_entry", "result_winner", "options"]


def given(transcript: dict[str, Any], seen: dict[int, str]) -> dict[int, str]:
    """The commitments a player gives the verifier: those of the finished hands (the deck of the hand
    in progress is not revealed yet)."""
    return finished_seen(transcript, seen)


def ok_line_mentions(played: dict[str, Any], name: str) -> str:
    """What the command line's OK line tells of an untouched table: how many hands finished."""
    return f"{played[name][0]['hands_finished']} finished hand"


GARBAGE_GAME = "dealt"
# Garbage inside a transcript, and the problem the verifier must report (never a crash).
GARBAGE = [
    (lambda t: t.update(entries=[]), "entries: missing or empty"),
    (lambda t: t["entries"][3].update(at="yesterday"), r"^entries\[3\]\.at: Not a valid number\.$"),
    (lambda t: t["entries"][4].update(seat="two"), r"^entries\[4\]\.seat: Not a valid integer\.$"),
    (lambda t: t["entries"][4].update(timeout="yes"), r"^entries\[4\]\.timeout: Not a valid boolean\.$"),
    (lambda t: t["entries"][4].update(hand=True), r"^entries\[4\]\.hand: Not a valid integer\.$"),
    (lambda t: t["entries"][0]["action"]["options"].update(colour="red"), "not valid Gofo table options"),
    (lambda t: t["entries"].insert(5, {"version": 3}), r"^entries\[5\]\.action: Missing data for required field\.$"),
    (lambda t: t["entries"][5].update(action={"seat": 0}), "not an entry object with an action and its type"),
    (lambda t: t["entries"][5]["action"].update(type="cheat"), "unknown action type 'cheat'"),
    (lambda t: entries_of(t, "open")[0]["action"].update(amount="lots"), "open.amount must be an integer"),
    (lambda t: t.update(id="../etc"), "is not a table id"),
    (lambda t: entries_of(t, "dealer_draw")[0]["action"].update(cards=5), "dealer_draw.cards must be a list"),
    (lambda t: t.update(hands_finished="all"), r"^hands_finished: Not a valid integer\.$"),
    (lambda t: t.update(hands_finished=-1), "hands_finished: -1 is not a number of hands"),
    (lambda t: t["entries"][-1].update(version=10**30), r"versions \d+\.\.999999999999999999999999999999 missing"),
    (lambda t: t.update(deals={}), r"^deals: Not a valid list\.$"),
    (lambda t: t.update(results=None), r"^results: Field may not be null\.$"),
    (lambda t: t["results"][0].update(hand=[1]), r"^results\[0\]\.hand: Not a valid integer\.$"),
    (lambda t: t["results"][0].update(hand=3), r"results: the transcript lists .* \(for hands \[3, 2"),
    (lambda t: t["results"][0]["pots"][0].update(amount="9"), r"^results\[0\]\.pots\[0\]\.amount: Not a valid integer\.$"),
    (lambda t: t["results"][0].update(shown=[["13o"]]), r"^results\[0\]\.shown\[0\]\[0\]: not a Gofo card"),
    (lambda t: t["deals"][1].update(leaves=["x"] * 28), "leaves is not a list of 28 SHA-256 digests"),
    (lambda t: t["deals"][1].update(leaves=t["deals"][1]["leaves"][:27]), "leaves is not a list of 28"),
    (lambda t: t["deals"][1].update(openings=None), r"^deals\[1\]\.openings: Field may not be null\.$"),
    (lambda t: t["deals"][1]["openings"][0].update(salt="x"), r"openings\[0\]: not an opening"),
    (lambda t: t["deals"][1]["openings"][0].update(position=28), r"openings\[0\]: not an opening"),
    (lambda t: t["deals"][1]["openings"][0].update(card="13o"), r"^deals\[1\]\.openings\[0\]\.card: not a Gofo card"),
    (lambda t: t["deals"][1].update(reshuffle_keys=7), r"^deals\[1\]\.reshuffle_keys: Not a valid list\.$"),
    (lambda t: t["deals"][1].update(reshuffle_keys=[{"number": 0, "key": "ab" * 32}]), "not a reshuffle key"),
    (lambda t: t["deals"][1].update(reshuffle_key_leaves=["x"]), "reshuffle_key_leaves is not a list of 20"),
    (lambda t: t["deals"][1].update(reshuffle_key_hash=None), r"^deals\[1\]\.reshuffle_key_hash: Field may not be null\.$"),
    (lambda t: t["deals"][1].update(reshuffle_key_hash="x"), "reshuffle_key_hash 'x' is not a SHA-256"),
    (lambda t: entries_of(t, "dealer_draw")[0].update(draw=5), r"\]\.draw: Invalid input type\.$"),
    (lambda t: entries_of(t, "dealer_draw")[0].pop("draw"), "shows no committed draw deck"),
    (lambda t: entries_of(t, "shuffle", hand=2)[0]["action"].update(order=["3o"]), "is not a list of 28 positions"),
    (lambda t: revealed_entry(t)["action"].update(order=[None]), r"orders the pile as \[None\], but the order "
                                                                 r"derived from its revealed key"),
    (lambda t: t["entries"].insert(3, dict(t["entries"][0])), "a second create entry"),
]

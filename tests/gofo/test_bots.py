"""Gofo seats the referee plays (bots), through the referee functions: whole hands at every level,
bots among scripted people, legal moves only, chips conserved, transcripts that verify, and a bot
that decides from its seat's view alone."""

from __future__ import annotations

import copy
import json
import random

import pytest

from service.errors import InvalidOptions
from service.games import entropy
from service.games.gofo import bot, observer, referee
from service.games.gofo.cards import DECK
from service.games.gofo.verifier import verify_gofo
from tests.gofo.helpers import hidden_twin, random_action

AT = 1_000.0


def _bots(seats, level):
    return [{"seat": s, "level": level} for s in seats]


def _chips(doc) -> tuple[int, int]:
    state = doc["state"]
    return sum(state["fronts"]) + sum(state["behinds"]), sum(state["cajas"]) * state["options"]["caja"]


def _check_bot_entries(entries, bots):
    for e in entries:
        if e["by"].startswith("bot:"):
            assert e["by"] == f"bot:{e['seat']}" and e["seat"] in bots


@pytest.mark.parametrize("level", range(1, 9))
@pytest.mark.parametrize("seats", [5, 6])
def test_a_table_of_bots_plays_one_hand_a_request_and_verifies(level, seats):
    """Four hands of bots; the transcript verifies offline."""
    with entropy.seeded(1000 * level + seats):
        doc, entries = referee.create("bots", {"seats": seats, "bots": _bots(range(seats), level)}, AT)
        assert doc["state"]["hand_number"] == 2 and len(doc["results"]) == 1  # the first hand played itself
        assert doc["bots"] == {str(s): level for s in range(seats)}
        assert entries[0]["action"]["bots"] == _bots(range(seats), level)
        assert {e["version"] for e in entries} == {1}
        version = 1
        for k in range(3):  # each request of anyone at the table plays the next hand, deadline or not
            applied = referee.enforce(doc, version, "host", AT + k + 1)
            version += 1
            doc, entries = applied.doc, entries + applied.entries
            assert {e["version"] for e in applied.entries} == {version}
            assert all(e["by"].startswith("bot:") or e["by"] == "referee" for e in applied.entries)
            assert len(doc["results"]) == k + 2 and doc["state"]["hand_number"] == k + 3
            assert _chips(doc)[0] == _chips(doc)[1]
    _check_bot_entries(entries, set(range(seats)))
    assert not any(e.get("timeout") for e in entries)
    report = verify_gofo(referee.transcript(doc, version, entries))
    assert report.problems == []


def _human_move(doc, version, seat, rng):
    table = referee.load(doc)
    legal = table.legal_actions(seat)
    return random_action(legal, rng)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6, 7])
def test_bots_answer_people_in_the_same_request_until_a_person_must_act(seed):
    rng = random.Random(seed)
    seats = 5 if seed % 2 else 6
    bots = {1: 8, 3: 1 + seed, 4: 5} if seats == 5 else {0: 2, 2: 8, 3: 6, 5: 4}
    with entropy.seeded(seed):
        doc, entries = referee.create("mix", {"seats": seats, "bots": [{"seat": s, "level": lv} for s, lv in bots.items()]}, AT)
        version = 1
        at = AT
        while len(doc["results"]) < 3:
            table = referee.load(doc)
            seat = table.to_act()
            assert seat is not None and seat not in bots  # the bots moved until a person must act
            at += 1
            action = _human_move(doc, version, seat, rng)
            applied = referee.play(doc, version, f"seat:{seat}", at, seat, action)
            version += 1
            assert applied.entries[0]["by"] == f"seat:{seat}"
            assert {e["version"] for e in applied.entries} == {version}
            doc, entries = applied.doc, entries + applied.entries
            assert _chips(doc)[0] == _chips(doc)[1]
    _check_bot_entries(entries, set(bots))
    assert {e["by"] for e in entries} >= {f"bot:{s}" for s in bots} | {"seat:" + str(s) for s in range(seats) if s not in bots}
    report = verify_gofo(referee.transcript(doc, version, entries))
    assert report.problems == []


def test_a_late_person_is_moved_by_the_deadline_and_the_bots_go_on():
    with entropy.seeded(7):
        doc, entries = referee.create("late", {"seats": 4, "turn_seconds": 30,
                                               "bots": _bots([1, 2, 3], 6)}, AT)
        table = referee.load(doc)
        assert table.to_act() == 0
        applied = referee.enforce(doc, 1, "host", AT + 31)
    assert applied.entries[0]["by"] == "referee" and applied.entries[0]["timeout"] is True
    assert any(e["by"].startswith("bot:") for e in applied.entries[1:]) or referee.load(applied.doc).to_act() == 0
    assert referee.load(applied.doc).to_act() in (0, None)
    after = applied.doc
    for e in applied.entries:
        if e["by"].startswith("bot:"):
            assert e["at"] == AT + 31
    assert after["turn_since"] == AT + 31  # the bots' moves restart the clock like anyone's


def test_the_views_say_which_seats_are_bots():
    with entropy.seeded(3):
        doc, _ = referee.create("views", {"seats": 5, "bots": [{"seat": 4, "level": 2}, {"seat": 1, "level": 7}]}, AT)
        plain, _ = referee.create("plain", {"seats": 5}, AT)
    for seat in (None, 0, 1):
        assert observer.record_view(doc, 1, seat)["bots"] == [{"seat": 1, "level": 7}, {"seat": 4, "level": 2}]
    assert observer.record_view(plain, 1, None)["bots"] == []
    assert plain["bots"] == {}


@pytest.mark.parametrize("options, detail", [
    ({"seats": 5, "mode": "tabletop", "bots": _bots([1], 3)}, "dealt table"),
    ({"seats": 5, "bots": [{"seat": 2, "level": 3}, {"seat": 2, "level": 5}]}, "named twice"),
    ({"seats": 4, "bots": _bots([4], 3)}, "a bot on seat 4, but the game has seats 0 to 3"),
])
def test_bad_bots_are_refused(options, detail):
    with pytest.raises(InvalidOptions) as caught:
        referee.create("bad", options, AT)
    assert caught.value.code == "invalid_bots" and detail in str(caught.value)


# ------------------------------------------------------------------ the verifier


def _bot_transcript():
    with entropy.seeded(11):
        doc, entries = referee.create("ver", {"seats": 5, "bots": _bots([0, 1, 2, 3, 4], 4)}, AT)
    return referee.transcript(doc, 1, entries)


def test_the_verifier_accepts_bot_moves_only_for_the_listed_seats():
    transcript = _bot_transcript()
    assert verify_gofo(transcript).problems == []
    unlisted = copy.deepcopy(transcript)
    unlisted["entries"][0]["action"]["bots"] = _bots([0, 1, 2, 3], 4)  # seat 4 is a person's now
    problems = verify_gofo(unlisted).problems
    assert any("does not list seat 4 among the bots" in p for p in problems), problems
    impersonated = copy.deepcopy(transcript)
    first = next(e for e in impersonated["entries"] if e["by"] == "bot:2")
    first["by"] = "seat:2"
    problems = verify_gofo(impersonated).problems
    assert any("seat 2 is played by the referee" in p for p in problems), problems


# ------------------------------------------------------------------ a bot knows only its seat


@pytest.mark.parametrize("level", [1, 3, 5, 8])
def test_a_bot_decides_the_same_whatever_it_cannot_see(level):
    """Along random hands, at every turn: a twin table whose hidden cards differ gives the seat the
    same view and the bot the same move for the same seed; the bot reads a JSON copy of the view the
    same way; the twins do differ where the seat cannot look."""
    rng = random.Random(level)
    checked = differed = 0
    for game in range(6):
        with entropy.seeded(1000 + game):
            doc, _ = referee.create(f"twin{game}", {"seats": 5}, AT)
        table = referee.load(doc)
        for _ in range(60):
            seat = table.to_act()
            if seat is None or table.hand is None:
                break
            twin = hidden_twin(table, seat, rng)
            mine = observer.record_view(doc, 1, seat, table)
            theirs = observer.record_view(doc, 1, seat, twin)
            assert mine == theirs
            differed += twin.to_dict()["hand"]["hands"] != table.to_dict()["hand"]["hands"]
            move = bot.act(mine, level, random.Random(game))
            assert bot.act(theirs, level, random.Random(game)) == move
            assert bot.act(json.loads(json.dumps(mine)), level, random.Random(game)) == move
            table.verify(move, seat=seat)
            if table.hand.phase.value == "over":
                break
            table.apply(move, seat=seat)
            checked += 1
            if table.chance_request() is not None:
                break  # a reshuffle: enough of this hand
    assert checked > 40 and differed > 20


def test_every_level_has_an_answer_in_every_phase_a_seat_acts():
    """Random legal play, and at each turn every level's move is legal there. Four tables: by the
    end of the fourth every kind of move and every (phase, legal actions, 4 or 6 seats) a seat acts
    in has come up; a fifth and sixth table (same seeds) met no new one."""
    rng = random.Random(5)
    kinds = set()
    for game in range(4):
        with entropy.seeded(2000 + game):
            doc, _ = referee.create(f"any{game}", {"seats": 6 if game % 2 else 4, "inauguration": "chosen",
                                                   "initial_front": 3, "refill": 2, "caja": 8}, AT)
        table = referee.load(doc)
        for _ in range(400):
            seat = table.to_act()
            if seat is None:
                request = table.chance_request()
                from service.games.gofo.chance import chance_action
                table.apply(chance_action(request, rng))
                continue
            seen = observer.record_view(doc, 1, seat, table)
            for level in range(1, 9):
                move = bot.act(seen, level, random.Random(level))
                table.verify(move, seat=seat)
                kinds.add(move.TYPE)
            move = bot.act(seen, 1 + rng.randrange(8), rng)
            table.apply(move, seat=seat)
    assert {"open", "look", "enter", "decline", "ver", "no_ver", "voy", "corta", "discard", "pass",
            "inaugurate"} <= kinds, kinds


def test_the_unseen_cards_are_those_the_view_does_not_show():
    from service.games.gofo import strength
    with entropy.seeded(4):
        doc, _ = referee.create("unseen", {"seats": 5}, AT)
    table = referee.load(doc)
    seat = table.to_act()
    view = observer.record_view(doc, 1, seat, table)
    assert strength.unseen_cards(view) == list(DECK)  # mano has not looked: nothing is placed


def test_the_levels_weaken_level_eights_play_step_by_step():
    """Level 1 moves at random, level 8 never does; in between the share of random moves falls
    and the estimates sharpen with every level, and the thresholds tighten towards level 8's."""
    rows = [bot.LEVELS[level] for level in range(1, 9)]
    assert rows[0].mistakes == 1.0 and rows[-1].mistakes == 0.0
    assert all(a.mistakes > b.mistakes for a, b in zip(rows, rows[1:]))
    assert all(a.samples < b.samples and a.noise > b.noise for a, b in zip(rows[1:], rows[2:]))
    assert all(a.enter < b.enter and a.call_margin < b.call_margin for a, b in zip(rows[1:], rows[2:]))
    assert rows[-1] == bot.Level(samples=rows[-1].samples, discard_samples=rows[-1].discard_samples)


# ------------------------------------------------------------------ level 8's model of the table


def _late_view(pile_count: int) -> dict:
    """A seat's view at a 5-seat hand's third discard: 11 cards thrown face up so far."""
    discards = [
        {"round": 1, "seat": 1, "count": 3, "cards": ["3o", "4o", "5o"], "kept": False},
        {"round": 1, "seat": 2, "count": 4, "cards": ["3c", "4c", "5c", "6c"], "kept": False},
        {"round": 2, "seat": 1, "count": 2, "cards": ["3e", "4e"], "kept": False},
        {"round": 2, "seat": 3, "count": 2, "cards": ["3b", "4b"], "kept": False},
    ]
    return {"hand": {"seat": 0, "mano": 1, "phase": "discard", "round": 3, "status": ["in"] * 5,
                     "my_cards": ["7o", "11o", "12o", "6e", "5b"], "discards": discards, "kept": [[]] * 5,
                     "pile_count": pile_count, "stock_count": 0, "card_counts": [5] * 5,
                     "after_corte": False, "final_discard": False}, "table": {}}


def test_discards_reshuffled_into_the_stock_can_be_drawn_again():
    """The pile holds the latest discards, as many as pile_count says; older ones went back into the
    stock with a reshuffle: the model deals them again, and draws the pile's once the stock is empty."""
    from service.games.gofo import strength
    assert sorted(strength.in_pile(_late_view(11))) == sorted(c for d in _late_view(11)["hand"]["discards"] for c in d["cards"])
    assert sorted(strength.in_pile(_late_view(4))) == sorted(["3e", "4e", "3b", "4b"])
    assert strength.in_pile(_late_view(0)) == []
    view = _late_view(2)  # 25 cards in hands, the last discard (2 cards) in the pile, 1 in the stock
    view["hand"]["stock_count"] = 1
    world = strength._World(view, [1, 2, 3, 4])
    pool = {card for card in DECK if strength._BIT[card] in world.pool}
    assert {"3o", "4o", "5o", "3c", "4c", "5c", "6c", "3e", "4e"} <= pool  # reshuffled back: in play again
    assert not {"3b", "4b", "7o", "11o", "12o", "6e", "5b"} & pool
    assert len(pool) == 21 and world.stock_left == 1 and sorted(world.pile) == sorted(strength._BIT[c] for c in ("3b", "4b"))
    hands, stock, pile = world.deal(random.Random(1), 4)
    assert len(stock) == 1 and len(pile) == 2 and hands[0] == sum(strength._BIT[c] for c in view["hand"]["my_cards"])
    assert len({*stock, *pile}) == 3 and all(h.bit_count() == 5 for h in hands)


def test_level_eight_stands_up_to_a_field_of_maniacs():
    """One level-8 seat among four that always bet the most (every deal once with it in each
    seat): it must not bleed chips.  Counting discards dead for good, it lost about 16 chips a hand."""
    from bench.bots_gofo import level_policy, play_hand
    from bench.gofo_fields import maniac
    hero = level_policy(8)
    total = hands = 0
    for deal in range(12):
        for seat in range(5):
            policies = [hero if s == seat else maniac for s in range(5)]
            rngs = [random.Random(deal * 31 + s) for s in range(5)]
            total += play_hand(9_000 + deal, policies, 30, rngs)[seat]
            hands += 1
    assert total / hands > -5, total / hands

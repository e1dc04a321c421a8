"""What a Gofo hand leaves (its discards, reshuffles, paid pots, result, the table's record of it) is
a frozen record whose stored form reads back to the same record and writes out to the same bytes,
in every form a table has stored."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from service.games.gofo import observer
from service.games.gofo.chance import chance_action
from service.games.gofo.hand import HandState
from service.games.gofo.records import DiscardRecord, HandRecord, HandResult, PaidPot, Restock
from service.games.gofo.table import Table
from .helpers import random_action

# The oldest stored form of a finished hand: no starting fronts, no reshuffles.
OLDEST = ('{"reason": "canto", "pots": [{"amount": 6, "eligible": [0, 1], "winner": 1}], "payouts": [0, 6, 0], '
          '"shown": [["1o", "3o", "4o", "6c", "7e"], ["2c", "3c", "5c", "6b", "7c"], null], "values": [28, 34, null], '
          '"net": [-3, 3, 0], "hand": 4, "dealer": 2, "mano": 0, '
          '"discards": [{"round": 1, "seat": 0, "count": 2, "cards": ["2b", "11e"], "kept": false}, '
          '{"round": 1, "seat": 1, "count": 0, "cards": [], "kept": false}], "kept": [[], [], []]}')
# The next form: the starting fronts (between mano and the discards), no reshuffles.
WITH_STACKS = OLDEST.replace('"mano": 0, ', '"mano": 0, "stacks": [20, 17, 23], ')
# A tabletop hand: a discard thrown face down (no cards), a card kept to the right, a reshuffle reported.
TABLETOP = ('{"reason": "uncontested", "pots": [{"amount": 4, "eligible": [1], "winner": 1}], "payouts": [0, 4], '
            '"shown": [null, null], "values": [null, null], "net": [-2, 2], "hand": 1, "dealer": 0, "mano": 1, '
            '"stacks": [10, 10], "discards": [{"round": 1, "seat": 1, "count": 3, "cards": null, "kept": false}, '
            '{"round": 1, "seat": 0, "count": 1, "cards": ["12e"], "kept": true}], "kept": [["12e"], []], '
            '"reshuffles": []}')


def _finished_hands(seed: int, hands: int) -> tuple[Table, list[HandRecord]]:
    """A dealt five-seat table played at random for ``hands`` hands, and the record of each."""
    rng = random.Random(seed)
    table = Table.new({"seats": 5, "mode": "dealt"})
    records: list[HandRecord] = []
    while len(records) < hands:
        request = table.chance_request()
        number = table.hand_number
        if request is not None:
            table.apply(chance_action(request, rng))
        else:
            seat = table.to_act()
            table.apply(random_action(table.legal_actions(seat), rng), seat=seat)
        if table.hand_number != number and table.last_result is not None and number >= 1:
            records.append(table.last_result)
    return table, records


@pytest.fixture(scope="module")
def played() -> tuple[Table, list[HandRecord]]:
    return _finished_hands(11, 40)


def _same_bytes(record_type, text: str) -> None:
    record = record_type.from_dict(json.loads(text))
    assert json.dumps(record.to_dict()) == text
    assert record_type.from_dict(record.to_dict()) == record


@pytest.mark.parametrize("text", [OLDEST, WITH_STACKS, TABLETOP], ids=["oldest", "with_stacks", "tabletop"])
def test_every_stored_form_of_a_hand_record_reads_back_to_the_same_bytes(text):
    _same_bytes(HandRecord, text)
    record = HandRecord.from_dict(json.loads(text))
    assert (record.stacks is None) == (text is OLDEST) and (record.reshuffles is None) == (text is not TABLETOP)


def test_a_stored_table_with_an_old_record_is_written_back_as_it_was(played):
    table, _ = played
    stored = table.to_dict()
    for text in (OLDEST, WITH_STACKS, TABLETOP):
        old = json.dumps(dict(stored, last_result=json.loads(text)))
        assert json.dumps(Table.from_dict(json.loads(old)).to_dict()) == old


def test_played_records_read_back_to_the_same_bytes_and_the_same_record(played):
    table, records = played
    assert any(r.reshuffles for r in records) and any(not x.clean for r in records for x in r.reshuffles or ())
    assert any(r.result.reason.value == "canto" for r in records)  # uncontested: the TABLETOP form
    assert any(len(r.result.pots) > 1 for r in records) and any(d.kept for r in records for d in r.discards)
    for record in records:
        _same_bytes(HandRecord, json.dumps(record.to_dict()))
        _same_bytes(HandResult, json.dumps(record.result.to_dict()))
        for part, kind in [(p, PaidPot) for p in record.result.pots] + [(d, DiscardRecord) for d in record.discards] \
                + [(r, Restock) for r in record.reshuffles or ()]:
            _same_bytes(kind, json.dumps(part.to_dict()))
    text = json.dumps(table.to_dict())
    assert json.dumps(Table.from_dict(json.loads(text)).to_dict()) == text


def test_the_record_is_what_the_hand_left_and_payouts_make_the_ledger(played):
    _, records = played
    for record in records:
        result = record.result
        assert sum(result.payouts) == sum(p.amount for p in result.pots)
        assert sum(result.net) == 0 and len(result.shown) == len(result.values) == len(record.stacks) == 5
        for pot in result.pots:
            assert pot.winner in pot.eligible
        for seat, shown in enumerate(result.shown):
            assert (shown is None) == (result.values[seat] is None)
        assert all(set(d.cards or ()) <= set(record.kept[d.seat]) for d in record.discards if d.kept)


def test_a_hand_in_progress_keeps_its_discards_and_reshuffles_as_records():
    rng = random.Random(5)
    table = Table.new({"seats": 5, "mode": "dealt"})
    while not (table.hand is not None and table.hand.restocks and table.hand.restocks[-1].drawers):
        request = table.chance_request()
        if request is not None:
            table.apply(chance_action(request, rng))
        else:
            seat = table.to_act()
            table.apply(random_action(table.legal_actions(seat), rng), seat=seat)
    hand = table.hand
    assert all(isinstance(d, DiscardRecord) for d in hand.discard_log) and hand.discard_log
    assert all(isinstance(r, Restock) for r in hand.restocks)
    text = json.dumps(hand.to_dict())
    again = HandState.from_dict(json.loads(text))
    assert json.dumps(again.to_dict()) == text and again.discard_log == hand.discard_log
    assert again.restocks == hand.restocks
    assert observer.hand_view(hand)["discards"] == json.loads(text)["discard_log"]


def test_records_are_frozen_and_a_copy_of_a_table_shares_them(played):
    table, records = played
    record = records[-1]
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.hand = 99  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.result.pots[0].winner = 3  # type: ignore[misc]
    assert isinstance(record.result.payouts, tuple) and isinstance(record.discards, tuple)
    assert Restock(7, True).drawn_by(2).drawn_by(4).drawn_by(2) == Restock(7, True, (2, 4))
    copy = Table.from_dict(table.to_dict())
    assert copy.last_result == table.last_result


def test_what_a_finished_hand_opens_is_read_from_the_record():
    """The old forms still say what their hand opens: no reshuffle, so nothing tainted."""
    record = HandRecord.from_dict(json.loads(OLDEST))
    assert observer.opened_cards(record) == {"1o", "3o", "4o", "6c", "7e", "2c", "3c", "5c", "6b", "7c", "2b", "11e"}
    assert observer.first_shown_by(record)["2b"] == 0 and observer.revealed_reshuffles(record) == []
    tabletop = HandRecord.from_dict(json.loads(TABLETOP))
    assert observer.public_cards(tabletop) == {"12e"} and observer.tainted_seats(tabletop) == set()

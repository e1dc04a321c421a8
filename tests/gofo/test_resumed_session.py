"""A table that resumes a session begun on paper: its ledger and next dealer."""

from __future__ import annotations

import pytest

from service.errors import InvalidOptions
from service.games.gofo.rules import TableOptions
from service.games.gofo.table import Table

LEDGER = {"seats": 3, "caja": 100, "fronts": [20, 145, 5], "behinds": [80, 0, 50], "cajas": [1, 1, 1], "first_dealer": 0}


def test_the_resumed_ledger_and_dealer_start_the_first_hand():
    table = Table.new(LEDGER)
    assert (table.fronts, table.behinds, table.cajas) == ([20, 145, 5], [80, 0, 50], [1, 1, 1])
    assert table.dealer == 0 and table.hand.mano == 1 and table.hand.stacks == [20, 145, 5]
    assert table.chance_request()["kind"] == "shuffle"  # dealt: the referee shuffles as usual
    assert [table.balance(s) for s in range(3)] == [0, 45, -45]
    assert Table.from_dict(table.to_dict()).to_dict() == table.to_dict()
    assert TableOptions.from_dict(table.options.to_dict()) == table.options


@pytest.mark.parametrize("change,code", [
    ({"fronts": [20, 145, 6]}, "chips_not_conserved"),
    ({"cajas": [2, 1, 1]}, "chips_not_conserved"),
    ({"cajas": None}, "bad_resumed_ledger"),
    ({"first_dealer": None}, "bad_resumed_ledger"),
    ({"behinds": [80, 0]}, "bad_resumed_ledger"),
    ({"fronts": [20, 145, True]}, "bad_option"),
])
def test_a_bad_resumed_ledger_is_refused(change, code):
    with pytest.raises(InvalidOptions) as raised:
        TableOptions.from_dict({k: v for k, v in dict(LEDGER, **change).items() if v is not None})
    assert raised.value.code == code

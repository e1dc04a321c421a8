"""A tabletop table reports the first dealer its real draw chose."""

from __future__ import annotations

import pytest

from service.errors import InvalidOptions
from service.games.gofo.rules import TableOptions
from service.games.gofo.table import Table


def test_the_reported_dealer_deals_the_first_hand_and_nothing_is_drawn():
    table = Table.new({"seats": 5, "mode": "tabletop", "first_dealer": 4})
    assert table.chance_request() is None and table.draws == [] and table.draw_seats == []
    assert table.dealer == 4 and table.hand_number == 1 and table.hand.mano == 0 and table.to_act() == 0
    assert Table.from_dict(table.to_dict()).to_dict() == table.to_dict()


def test_options_without_a_first_dealer_read_as_before():
    assert "first_dealer" not in TableOptions.from_dict({"seats": 3}).to_dict()
    assert TableOptions.from_dict({"seats": 3, "mode": "tabletop", "first_dealer": 0}).to_dict()["first_dealer"] == 0


@pytest.mark.parametrize("options,code", [
    ({"seats": 3, "first_dealer": 0}, "first_dealer_not_tabletop"),
    ({"seats": 3, "mode": "tabletop", "first_dealer": 3}, "bad_first_dealer"),
    ({"seats": 3, "mode": "tabletop", "first_dealer": -1}, "bad_first_dealer"),
    ({"seats": 3, "mode": "tabletop", "first_dealer": "0"}, "bad_option"),
])
def test_a_bad_first_dealer_is_refused(options, code):
    with pytest.raises(InvalidOptions) as raised:
        TableOptions.from_dict(options)
    assert raised.value.code == code

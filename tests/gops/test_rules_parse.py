"""Stored rules parse to one shared, immutable instance; the memo never changes what parses to what."""

from __future__ import annotations

from fractions import Fraction

import pytest

from service.games import gops
from service.games.gops.records import frac_str, parse_score
from service.games.gops.rules import MatchRules, Rules


def test_the_same_stored_rules_give_the_same_instance():
    stored = gops.make_rules("standard", players=3, resolution="split").to_dict()
    first = Rules.from_dict(stored)
    assert Rules.from_dict(dict(stored)) is first
    assert first == gops.make_rules("standard", players=3, resolution="split")
    assert first.to_dict() == stored
    match = MatchRules(format="target", target=92).validate().to_dict()
    assert MatchRules.from_dict(dict(match)) is MatchRules.from_dict(match)


def test_to_dict_is_a_fresh_dict_every_time():
    rules = gops.make_rules("classic")
    data = rules.to_dict()
    data["players"] = 9
    data["explicit_order"].append(4)
    assert rules.to_dict() == gops.make_rules("classic").to_dict()
    assert rules.to_dict()["explicit_order"] == []


def test_equal_values_of_other_types_are_other_keys():
    stored = gops.make_rules("classic").to_dict()
    assert type(Rules.from_dict(stored).players) is int
    assert type(Rules.from_dict(dict(stored, players=2.0)).players) is float
    assert Rules.from_dict(dict(stored, players=True)).players is True


def test_unhashable_values_are_parsed_not_kept():
    """What a transcript to verify may hold: parsed as before, refused by validate() with its reason."""
    rules = Rules.from_dict(dict(gops.make_rules("classic").to_dict(), explicit_order=[[1]]))
    assert rules.explicit_order == ([1],)
    with pytest.raises(Exception, match="explicit_order"):
        rules.validate()


@pytest.mark.parametrize("text", ["0", "7", "91", "92", "1000", "15/2", "-3", "1/3"])
def test_parse_score(text):
    assert parse_score(text) == Fraction(text)
    assert type(parse_score(text)) is (Fraction if "/" in text else int)
    assert frac_str(parse_score(text)) == text

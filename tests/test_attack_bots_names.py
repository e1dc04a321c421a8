"""Attacks on seats the referee plays (bots), hints and players' names, kept as regression tests.

Each test is a hostile client or a careful reviewer: bad requests are refused precisely and leave the
stored record and transcript exactly as they were; concurrent renames and moves all land (or one is
refused) with consistent versions and a transcript that still verifies; a hint is answered only where
the seat has a decision to make; bots at every level keep a game going through deadlines; and nothing
published tells a bot's committed bid before it is revealed.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from support import store as support_store
from support.client import FlaskHttp, GofoTable, GopsGame, bearer, lowest, new_salt

from service.api import common
from service.games.gofo.verifier import verify_gofo
from service.games.gops.verifier import verify_gops

GAMES = {
    "gops": (GopsGame, {"profile": "classic", "bots": [{"seat": 1, "level": 4}]}),
    "gofo": (GofoTable, {"mode": "dealt", "seats": 3, "bots": [{"seat": 1, "level": 4}, {"seat": 2, "level": 8}]}),
}


@pytest.fixture
def http(client) -> FlaskHttp:
    return FlaskHttp(client)


@pytest.fixture(params=sorted(GAMES))
def kind(request) -> str:
    return request.param


@pytest.fixture
def clock(monkeypatch) -> list[float]:
    """The referee's clock, moved on by hand: a deadline passes when the test says so."""
    now = [time.time()]
    monkeypatch.setattr(common, "now", lambda: now[0])
    return now


def _stored(redis_client, game) -> tuple:
    return support_store.stored(redis_client, "gops" if isinstance(game, GopsGame) else "gofo", game.id)


# ------------------------------------------------------------------ names


@pytest.mark.parametrize("name", [
    "\U000e0041\U000e006e\U000e0061",  # tag characters only: an invisible name
    "Ana\U000e0001\U000e0069\U000e0067\U000e006e",  # text smuggled after a visible name in tag characters
    "\u3164",  # a Hangul filler: a name that shows as blank
    "Bo\U0001d173",  # a musical format control
    "\U0001bca0x",  # a shorthand format control
])
def test_an_invisible_character_is_no_part_of_a_name(http, redis_client, kind, name):
    cls, body = GAMES[kind]
    game = cls.create(http, body)
    before = _stored(redis_client, game)
    status, problem = game.move(0, "name", {"name": name})
    assert (status, problem["code"]) == (422, "invalid_request"), problem
    assert _stored(redis_client, game) == before
    keys = redis_client.dbsize()
    status, problem = http.post(cls.COLLECTION, {**body, "names": [name]})
    assert (status, problem["code"]) == (422, "invalid_request"), problem
    assert redis_client.dbsize() == keys

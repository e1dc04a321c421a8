"""Property tests replay: inside ``support.chance.seeded_referee`` the referee deals the same way.

Hypothesis replays an example by replaying its choices, and the sweeps' strategies read what the
referee dealt (a seat's cards, the prize row).  Before every id, salt and reshuffle key came from
``service.games.entropy`` the same seed still gave other cards after a reshuffle (the key and the table id
it is derived from were fresh each time), and a replay failed with ``FlakyStrategyDefinition``.
These tests play whole dealt Gofo hands (with the stock run out) and Gops games twice with the same
seed and moves and ask for byte-identical histories, and a different seed for different ones.
"""

from __future__ import annotations

import random
from typing import Any

from support.chance import seeded_referee
from support.client import bearer

TABLES = "/v1/gofo/tables"
GAMES = "/v1/gops/games"


def _gofo_move(action: dict[str, Any], rng: random.Random) -> tuple[str, dict[str, Any]]:
    kind = action["type"]
    if kind in ("open", "raise", "corta", "refiche"):
        return kind, {"amount": action["min"]}
    if kind == "enter":
        return kind, {"blind": False}
    if kind == "discard":  # always change as many as allowed: the stock runs out, a reshuffle comes
        cards = list(action["cards"])
        return kind, {"cards": cards[: action["max"]]}
    if kind == "declare":
        return kind, {"points": action["min"]}
    return kind.replace("_", "-"), {}


def _play_gofo(client, store, seed: int, moves: int = 150) -> list[Any]:
    store.flushdb()  # the same seed makes the same table id
    rng = random.Random(1)
    with seeded_referee(seed):
        created = client.post(TABLES, json={"seats": 6}).get_json()
        table, tokens = created["id"], created["seat_tokens"]
        for _ in range(moves):
            hand = client.get(f"{TABLES}/{table}").get_json()["hand"]
            if hand is None or hand["to_act"] is None:
                break
            seat = hand["to_act"]
            auth = bearer(tokens[seat])
            legal = client.get(f"{TABLES}/{table}/seats/{seat}", headers=auth).get_json()["hand"]["legal_actions"]
            # prefer the moves that keep a hand going to the draw: voy, discarding, calling
            preferred = [a for a in legal if a["type"] in ("voy", "discard", "enter", "call", "ver", "open")]
            kind, body = _gofo_move(rng.choice(preferred or legal), rng)
            r = client.post(f"{TABLES}/{table}/seats/{seat}/{kind}", json=body, headers=auth)
            assert r.status_code == 200, r.get_data()
        host = bearer(created['host_token'])
        transcript = client.get(f"{TABLES}/{table}/transcript", headers=host).get_json()
        return [created["id"], transcript]


def test_a_seeded_gofo_table_deals_the_same_cards_again(client, redis_client):
    first, second = _play_gofo(client, redis_client, 11), _play_gofo(client, redis_client, 11)
    text = repr(first[1])
    assert "reshuffle" in text, "the hands played never ran the stock out: the test proves less than it says"
    assert first == second


def test_another_seed_deals_other_cards(client, redis_client):
    assert _play_gofo(client, redis_client, 11, moves=5) != _play_gofo(client, redis_client, 12, moves=5)


def test_a_seeded_gops_game_shuffles_the_same_prize_order_again(client, redis_client):
    def play(seed: int) -> Any:
        redis_client.flushdb()  # the same seed makes the same game id
        with seeded_referee(seed):
            created = client.post(GAMES, json={"profile": "standard", "options": {"players": 3}}).get_json()
            return created["id"], created["game"]["prize_commitment"]

    assert play(5) == play(5)
    assert play(5) != play(6)

"""A generated SDK types each Gops match format as its own model (the spec's discriminated ``oneOf``).

The Python client openapi-python-client generates from the committed spec (the ``python_sdk``
fixture, tests/support/sdk.py) creates one game of each format against a live gunicorn: the
request is built from the format's own model, with exactly its fields, and the answer's match rules
say what was asked.
"""

from __future__ import annotations


def test_python_client_creates_each_match_format_from_its_own_model(python_sdk, live_server):
    from referee_client import Client
    from referee_client.api.gops import create_gops_game
    from referee_client.models import (
        BestOfMatch,
        BestOfMatchFormat,
        BestOfMatchGames,
        BestOfMatchTiebreak,
        CreatedGopsGame,
        CreateGopsGame,
        CreateGopsGameProfile,
        CumulativeMatch,
        CumulativeMatchFormat,
        SingleMatch,
        SingleMatchFormat,
        TargetMatch,
        TargetMatchFormat,
    )

    client = Client(base_url=live_server, raise_on_unexpected_status=True)
    asked = [
        (SingleMatch(format_=SingleMatchFormat.SINGLE), ("single", None, None, "extra_game")),
        (CumulativeMatch(format_=CumulativeMatchFormat.CUMULATIVE, games=4), ("cumulative", 4, None, "extra_game")),
        (BestOfMatch(format_=BestOfMatchFormat.BEST_OF, games=BestOfMatchGames.VALUE_5,
                     tiebreak=BestOfMatchTiebreak.TOTAL_POINTS), ("best_of", 5, None, "total_points")),
        (BestOfMatch(format_=BestOfMatchFormat.BEST_OF), ("best_of", 3, None, "extra_game")),
        (TargetMatch(format_=TargetMatchFormat.TARGET, target=50), ("target", None, 50, "extra_game")),
        (TargetMatch(format_=TargetMatchFormat.TARGET), ("target", None, 92, "extra_game")),
    ]
    for match, (fmt, games, target, tiebreak) in asked:
        created = create_gops_game.sync(client=client, body=CreateGopsGame(
            profile=CreateGopsGameProfile.CLASSIC, match=match))
        assert isinstance(created, CreatedGopsGame), created
        rules = created.game.match
        assert (rules.format_, rules.games, rules.target, rules.tiebreak) == (fmt, games, target, tiebreak), match

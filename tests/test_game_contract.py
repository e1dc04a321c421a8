"""The one contract every game follows (service/games/contract.py) and the registry that lists the games."""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest

from service.errors import InvalidAction
from service.games.contract import PARTS, Action, ActionCodec
from service.games.registry import GAMES, game

SERVICE = Path(__file__).resolve().parent.parent / "service"


@dataclass(frozen=True)
class Bid(Action):
    seat: int
    cards: tuple[int, ...]
    blind: bool = False
    note: str | None = None
    TYPE: ClassVar[str] = "bid"


@dataclass(frozen=True)
class Shuffle(Action):
    order: tuple[str, ...]
    TYPE: ClassVar[str] = "shuffle"
    CHANCE: ClassVar[bool] = True


CODEC = ActionCodec([Bid, Shuffle])


def test_codec_round_trips_every_field_kind():
    bid = Bid(seat=1, cards=(3, 4), blind=True, note="x")
    data = CODEC.to_dict(bid)
    assert data == {"type": "bid", "seat": 1, "cards": [3, 4], "blind": True, "note": "x"}
    assert CODEC.from_dict(data) == bid
    assert CODEC.from_dict({"type": "bid", "seat": 0, "cards": []}) == Bid(0, ())
    assert CODEC.from_dict({"type": "shuffle", "order": ["1o"]}).CHANCE


@pytest.mark.parametrize("data, code, words", [
    ({"type": "chess", "seat": 0}, "unknown_action", "unknown action type 'chess'"),
    ([], "malformed_action", "an object with a string 'type'"),
    ({"seat": 0}, "malformed_action", "an object with a string 'type'"),
    ({"type": "bid", "cards": [1]}, "malformed_action", "bid needs 'seat'"),
    ({"type": "bid", "seat": 0, "cards": [1], "x": 1}, "malformed_action", "unexpected fields for bid: ['x']"),
    ({"type": "bid", "seat": True, "cards": [1]}, "malformed_action", "bid.seat must be an integer"),
    ({"type": "bid", "seat": "0", "cards": [1]}, "malformed_action", "bid.seat must be an integer"),
    ({"type": "bid", "seat": 0, "cards": [1, False]}, "malformed_action", "bid.cards must be a list of integers"),
    ({"type": "bid", "seat": 0, "cards": "12"}, "malformed_action", "bid.cards must be a list of integers"),
    ({"type": "bid", "seat": 0, "cards": [], "blind": 1}, "malformed_action", "bid.blind must be true or false"),
    ({"type": "bid", "seat": 0, "cards": [], "note": 5}, "malformed_action", "bid.note must be a string"),
    ({"type": "shuffle", "order": [1]}, "malformed_action", "shuffle.order must be a list of strings"),
])
def test_codec_refuses_precisely(data, code, words):
    with pytest.raises(InvalidAction) as refused:
        CODEC.from_dict(data)
    assert refused.value.code == code and words in str(refused.value)


def test_codec_needs_one_type_per_action():
    with pytest.raises(ValueError):
        ActionCodec([Bid, Bid])


def test_registry_lists_both_games_and_refuses_others():
    assert list(GAMES) == ["gops", "gofo"]
    assert game("gofo") is GAMES["gofo"]
    with pytest.raises(KeyError, match="unknown game 'chess'; this referee knows: gops, gofo"):
        game("chess")


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_package_has_every_part(name):
    definition = GAMES[name]
    assert definition.package == f"service.games.{name}"
    for part in PARTS:
        assert importlib.import_module(f"{definition.package}.{part}"), part
    codec = definition.part("actions").CODEC
    assert isinstance(codec, ActionCodec)
    assert all(issubclass(cls, Action) for cls in codec.types.values())
    assert callable(definition.verify)
    blueprint = definition.load_blueprint()
    assert blueprint.url_prefix.startswith(f"/v1/{name}/")


@pytest.mark.parametrize("name", list(GAMES))
def test_the_game_packages_do_no_io(name):
    """The engine is pure: no game package imports Flask, redis, the store or the HTTP layer."""
    banned = ("flask", "flask_smorest", "redis", "requests", "socket", "service.storage", "service.api",
              "service.web", "service.ops")
    for path in (SERVICE / "games" / name).glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = "service." + (node.module or "") if node.level == 2 else (node.module or "")
                names = [base] if node.level != 1 else []
            for imported in names:
                assert not imported.startswith(banned), f"{path.name} imports {imported}"


def test_the_http_layer_holds_no_chance_or_redaction():
    """service/api/ never draws randomness, makes a commitment or deep-copies a game document."""
    for path in (SERVICE / "api").glob("*.py"):
        if path.name == "auth.py":  # game ids come from the seeded source (tests replay them); no chance
            continue
        text = path.read_text(encoding="utf-8")
        for word in ("entropy", "SystemRandom", "new_salt", "copy.deepcopy", "import random"):
            assert word not in text, f"service/api/{path.name} uses {word}"


def test_both_engines_and_referees_follow_one_contract():
    """The same way to apply an action, one legal-action type, the same referee functions."""
    import inspect

    from service.games.contract import Applied, LegalAction
    from service.games.gofo.table import Table
    from service.games.gops.state import Gops

    for method in ("apply", "verify", "is_legal"):
        gops, gofo = inspect.signature(getattr(Gops, method)), inspect.signature(getattr(Table, method))
        assert str(gops) == str(gofo), method
        assert list(gops.parameters) == ["self", "action", "seat", "now"], method
    referees = [GAMES[name].part("referee") for name in GAMES]
    for function in ("create", "load", "seat_count", "play", "enforce", "view", "etag_tag", "transcript"):
        shapes = {tuple(list(inspect.signature(getattr(r, function)).parameters)[:8]) for r in referees}
        # (Gofo's chance may be injected by tests: rng, new_salt; each game names its record's id)
        common = [tuple("id" if p.endswith("_id") else p for p in shape if p not in ("rng", "new_salt"))
                  for shape in shapes]
        assert len(set(common)) == 1, (function, shapes)
    gops = Gops.new("c1", GAMES["gops"].part("rules").make_rules("classic", ranks=3, prize_order="ascending"))
    table = Table.new({"seats": 2, "mode": "tabletop", "first_dealer": 0, "caja": 100, "refill": 10})
    for state, seat in ((gops, 0), (table, table.to_act())):
        legal = state.legal_actions(seat)
        assert legal and all(isinstance(a, LegalAction) for a in legal)
    assert gops.legal_actions(0)[0] == {"type": "commit", "round": 1, "cards": 1, "hand": [1, 2, 3]}
    assert gops.legal_actions(0)[0].to_dict()["hand"] == [1, 2, 3]
    opening = [a for a in table.legal_actions(table.to_act()) if a.type == "open"][0]
    assert opening.min == 1 and opening.blind is None and opening["max"] >= 1
    assert Applied.__dataclass_fields__.keys() == {"doc", "entries", "finished", "state"}

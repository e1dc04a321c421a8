"""The one contract every game follows (service/games/contract.py) and the registry that lists the games."""

from __future__ import annotations

import ast
import importlib
import random
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


# ------------------------------------------------------------------ apply says whether it changed anything


def _gops_playout(rng: random.Random) -> list[bool]:
    """A two-game Gops match (a resignation in the second) through the protocol: what every
    ``apply`` returned, each commit and reveal sent twice (a retried request)."""
    from service.games import gops as G
    from service.games.commitments import bid_commitment

    state = G.Gops.new("ev", G.make_rules("classic"), G.make_match_rules("cumulative", games=2))
    said: list[bool] = []
    while not state.over:
        if state.needs_chance:
            order = list(range(1, state.rules.ranks + 1))
            rng.shuffle(order)
            said.append(state.apply(G.DealPrizes(tuple(order), "00" * 32)))
        elif state.game.round == 5 and state.game.number == 2:
            said.append(state.apply(G.Resign(1)))
        else:
            g = state.game
            bids = {s: (rng.choice(g.hands[s]),) for s in state.awaiting()}
            salt = f"{rng.getrandbits(256):064x}"
            moves = [G.Commit(s, g.round, bid_commitment(g.game_id, g.round, s, bids[s], salt), g.number)
                     for s in bids]
            # (each names its game: the retry of a game's last reveal comes once the next has begun)
            moves += [G.Reveal(s, g.round, bids[s], salt, g.number) for s in bids]
            for move in moves:
                said.append(state.apply(move))
                before = state.to_dict()
                assert state.apply(move) is False  # the retry: an exact repeat changes nothing
                assert state.to_dict() == before
    return said


def _gofo_playout(rng: random.Random) -> list[bool]:
    from gofo.helpers import random_action

    from service.games.gofo.chance import chance_action
    from service.games.gofo.table import Table

    table = Table.new({"seats": 4, "mode": "dealt"})
    said: list[bool] = []
    while table.hand_number < 4:
        request = table.chance_request()
        if request is not None:
            said.append(table.apply(chance_action(request, rng)))
        else:
            seat = table.to_act()
            said.append(table.apply(random_action(table.legal_actions(seat), rng), seat=seat))
    return said


@pytest.mark.parametrize("play", [_gops_playout, _gofo_playout], ids=["gops", "gofo"])
def test_apply_returns_true_for_every_move_it_applies(play):
    """``apply`` answers a bool: True for every move applied (the playouts), False only for an exact
    repeat (a Gops retry, above), which leaves the state as it was."""
    for seed in range(3):
        said = play(random.Random(seed))
        assert len(said) > 20 and all(answer is True for answer in said)


def test_one_top_bot_level_for_both_games_their_schema_and_the_verifier():
    """The strongest level is read from the games' level tables (service.games.levels), which list the
    same levels 1 to it; the create schema accepts exactly those, the verifier too."""
    from marshmallow import ValidationError

    from service.api.schemas import BotSchema
    from service.games.gofo import bot as gofo_bot
    from service.games.gops import bot as gops_bot
    from service.games.levels import BOT_LEVELS, TABLES, TOP_BOT_LEVEL
    from service.games.verification import Report, listed_bots

    assert TOP_BOT_LEVEL == max(gofo_bot.LEVELS) == gops_bot.LEVELS[-1].level
    assert set(TABLES) == {"gops", "gofo"} and all(list(levels) == list(BOT_LEVELS) for levels in TABLES.values())
    assert sorted(gofo_bot.LEVELS) == list(BOT_LEVELS)
    assert all(gops_bot.level_of(level) for level in BOT_LEVELS)
    with pytest.raises(ValueError):
        gops_bot.level_of(TOP_BOT_LEVEL + 1)
    assert BotSchema().load({"seat": 0, "level": TOP_BOT_LEVEL}) == {"seat": 0, "level": TOP_BOT_LEVEL}
    with pytest.raises(ValidationError):
        BotSchema().load({"seat": 0, "level": TOP_BOT_LEVEL + 1})
    report = Report("gops", "g1")
    assert listed_bots(report, "create", [{"seat": 1, "level": TOP_BOT_LEVEL}], 2, "game") == {1}
    assert listed_bots(report, "create", [{"seat": 1, "level": TOP_BOT_LEVEL + 1}], 2, "game") == set()
    assert len(report.problems) == 1 and f"level 1 to {TOP_BOT_LEVEL}" in report.problems[0]


def test_games_whose_level_tables_differ_are_refused():
    """Two games' tables must list the same levels, 1 up: a game with a level more, a gap or its own
    order is named (the import of service.games.levels fails so)."""
    from service.games.levels import same_levels

    assert same_levels({"a": (1, 2, 3), "b": [1, 2, 3]}) == range(1, 4)
    for tables in ({"a": (1, 2, 3), "b": (1, 2, 3, 4)}, {"a": (1, 2), "b": (1, 3)}, {"a": (2, 1), "b": (1, 2)}):
        with pytest.raises(ValueError, match="these list others"):
            same_levels(tables)


def test_the_play_page_offers_the_levels_1_to_the_top(app):
    """/play's level pickers offer 1 to the top level: the page names it in a meta tag bots.js reads."""
    from service.games.levels import TOP_BOT_LEVEL

    page = app.test_client().get("/play").get_data(as_text=True)
    assert f'<meta name="referee-top-bot-level" content="{TOP_BOT_LEVEL}">' in page

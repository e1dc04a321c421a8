"""Players' names: given at create or set by the seat itself, shown in every view and transcript,
length-limited, refused precisely, and final once the game is over."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest
from support.client import Created, FlaskHttp, GofoTable, GopsGame, lowest

from service.games.gofo.verifier import verify_gofo
from service.games.gops.verifier import verify_gops

GAMES = {
    "gops": (GopsGame, {"profile": "standard", "options": {"players": 3}}, "game"),
    "gofo": (GofoTable, {"mode": "dealt", "seats": 5}, "table"),
}


@pytest.fixture(params=sorted(GAMES))
def kind(request) -> str:
    return request.param


def _create(http, kind: str, **body) -> Created:
    cls, base, _ = GAMES[kind]
    return cls.create(http, {**base, **body})


def test_names_given_at_create_are_shown_everywhere(http, kind):
    game = _create(http, kind, names=["  Ana ", None, "Luis"])
    seats = len(game.seat_tokens)
    want = ["Ana", None, "Luis", *[None] * (seats - 3)]
    assert game.created[GAMES[kind][2]]["names"] == want
    assert game.public()["names"] == want
    assert game.seat_view(1)["names"] == want
    assert game.transcript()["names"] == want


def test_a_seat_names_itself_and_every_reader_sees_it(http, kind):
    game = _create(http, kind)
    version = game.public()["version"]
    status, view = game.move(1, "name", {"name": "Bea <b>&"})
    assert status == 200, view
    assert view["names"][1] == "Bea <b>&"  # kept as typed: clients show it as text
    assert game.public()["version"] == version + 1
    assert game.public()["names"][1] == "Bea <b>&" and game.transcript()["names"][1] == "Bea <b>&"
    status, again = game.move(1, "name", {"name": "Bea <b>&"})
    assert status == 200 and game.public()["version"] == version + 1  # the same name: nothing changes
    status, problem = game.move(1, "name", {"name": "Eve"}, token=game.seat_tokens[0])
    assert status == 403 and problem["code"] == "not_your_seat"
    status, problem = game.move(1, "name", {"name": "Eve"}, token=game.host_token)
    assert status == 403 and problem["code"] in ("not_your_seat", "host_not_allowed")  # a dealt table's host too


def test_the_host_names_the_seats_of_a_tabletop_table(http):
    table = GofoTable.create(http, {"mode": "tabletop", "seats": 5})
    status, view = table.move(3, "name", {"name": "Tía Marta"}, token=table.host_token)
    assert status == 200 and view["names"][3] == "Tía Marta", view


@pytest.mark.parametrize("name", ["", "   ", "x" * 25, "a\nb", "tab\there", "\u2028", "\u0105\u0006", " \x7f ",
                                  "\u200b", "\ufeff", "\u202eevil", "\u00ad", 7, None])
def test_bad_names_are_refused_and_nothing_changes(http, kind, name):
    game = _create(http, kind)
    before = game.public()
    status, problem = game.move(0, "name", {"name": name})
    assert status == 422 and problem["code"] == "invalid_request", problem
    assert game.public() == before
    status, problem = http.post(GAMES[kind][0].COLLECTION, {**GAMES[kind][1], "names": [name]})
    if name is None:  # null at create: a seat without a name
        assert status == 201, problem
    else:
        assert (status, problem["code"]) == (422, "invalid_request"), problem


# Unicode's Default_Ignorable_Code_Point set, as DerivedCoreProperties.txt lists it (Unicode 15-17).
DEFAULT_IGNORABLE = [(0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
                     (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
                     (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
                     (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF)]
BLANK = [0x2800, 0x3164, 0x115F, 0x1160, 0xFFA0]  # drawn as a blank: the Braille blank, the Hangul fillers


def _hidden() -> list[int]:
    return [c for a, b in DEFAULT_IGNORABLE for c in range(a, b + 1)] + BLANK


@pytest.mark.parametrize("name", [
    "A\u034fna\ufe0f",  # shows as "Ana": a combining grapheme joiner and an emoji variation selector
    "Ana\U000e0100",  # a variation selector past U+FFFF
    "\u17b4Ana", "An\u17b5a",  # Khmer inherent vowels, drawn as nothing
    "\u2800",  # a name of only the blank Braille pattern
    "Ana\u2800", "\u2800\u2800\u2800",
    "\u3164", "\u115f\u1160", "\uffa0",  # Hangul fillers
    "Bo\u180bb", "Ana\u2061", "A\ufff0",  # a Mongolian variation selector, an invisible operator, a reserved one
])
def test_an_invisible_or_blank_character_is_refused(http, kind, name):
    """Default-ignorable and blank characters let "A\u034fna\ufe0f" show as "Ana", another seat's
    name: refused at a rename and at a create, and nothing changes."""
    game = _create(http, kind)
    before = game.public()
    status, problem = game.move(0, "name", {"name": name})
    assert (status, problem["code"]) == (422, "invalid_request"), problem
    assert game.public() == before
    status, problem = http.post(GAMES[kind][0].COLLECTION, {**GAMES[kind][1], "names": [name]})
    assert (status, problem["code"]) == (422, "invalid_request"), problem


def test_every_default_ignorable_code_point_is_refused_by_the_validator_and_the_pattern(spec_pattern):
    """Each one alone, and between two letters, by the field that validates names; each below U+FFFF
    by the published pattern too (above it the pattern does not reach, and the description lists them)."""
    import marshmallow as ma

    from service.api.schemas import NameSchema

    schema, pattern = NameSchema(), re.compile(spec_pattern)
    for code in _hidden():
        for name in (chr(code), f"A{chr(code)}B"):
            with pytest.raises(ma.ValidationError):
                schema.load({"name": name})
            if code <= 0xFFFF:
                assert pattern.fullmatch(name) is None, hex(code)
    for name in ("Ana", "Tía Marta", "Zoë", "李雷", "Αθηνά", "❤", "A B", "😀"):  # visible names pass both
        assert schema.load({"name": name}) == {"name": name} and pattern.fullmatch(name), name


@pytest.mark.skipif(shutil.which("node") is None, reason="node checks the pattern as an ECMA-262 engine")
def test_the_published_pattern_refuses_them_in_an_ecma_engine_and_the_list_is_unicode_s(spec_pattern):
    """As a JavaScript client reads it (no u flag), the spec's pattern refuses every default-ignorable
    or blank code point below U+FFFF; and the test's list is the engine's \\p{Default_Ignorable_Code_Point}."""
    script = """
    const [pattern, hidden] = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const re = new RegExp(pattern), di = /\\p{Default_Ignorable_Code_Point}/u;
    const passed = hidden.filter(c => c <= 0xFFFF && (re.test(String.fromCodePoint(c)) || re.test("A" + String.fromCodePoint(c) + "B")));
    const unicode = [];
    for (let c = 0; c <= 0x10FFFF; c++) if (di.test(String.fromCodePoint(c))) unicode.push(c);
    console.log(JSON.stringify({passed, unicode, visible: ["Ana", "Tía Marta"].every(n => re.test(n))}));
    """
    out = subprocess.run(["node", "-e", script], input=json.dumps([spec_pattern, _hidden()]), text=True,
                         capture_output=True, check=True, timeout=120).stdout
    result = json.loads(out)
    assert result["passed"] == [] and result["visible"]
    assert set(result["unicode"]) <= set(_hidden()), sorted(set(result["unicode"]) - set(_hidden()))


@pytest.fixture(scope="module")
def spec_pattern() -> str:
    """The names pattern as the served spec publishes it."""
    from service.web.app import create_app

    spec = create_app({"REDIS_URL": "redis://127.0.0.1:1/0"}).test_client().get("/openapi.json").get_json()
    return spec["components"]["schemas"]["Name"]["properties"]["name"]["pattern"]


@pytest.mark.parametrize("raw", [b'{"name": "A\\ud800"}', b'{"name": "\\udc00x"}'])
def test_a_lone_surrogate_is_not_text(client, raw):
    game = GopsGame.create(FlaskHttp(client), {"profile": "classic"})
    response = client.post(f"{game.base}/seats/0/name", data=raw, content_type="application/json",
                           headers={"Authorization": f"Bearer {game.seat_tokens[0]}"})
    assert response.status_code == 400 and response.get_json()["code"] == "malformed_json"
    assert game.public()["names"] == [None, None]


def test_more_names_than_seats_is_refused(http, redis_client, kind):
    before = redis_client.dbsize()
    status, problem = http.post(GAMES[kind][0].COLLECTION, {**GAMES[kind][1], "names": ["a"] * 7})
    assert status == 422 and problem["code"] in ("invalid_names", "invalid_request"), problem
    assert redis_client.dbsize() == before


def test_a_rename_is_in_the_transcript_and_it_still_verifies(http):
    game = GopsGame.create(http, {"profile": "classic", "bots": [{"seat": 1, "level": 4}]})
    game.play_round({0: [3]})
    status, _ = game.move(0, "name", {"name": "Ana"})
    assert status == 200
    game.play_to_end(lowest)
    transcript = game.transcript()
    named = [e for e in transcript["entries"] if e["action"]["type"] == "name"]
    assert [(e["by"], e["action"]) for e in named] == [("seat:0", {"type": "name", "seat": 0, "name": "Ana"})]
    assert verify_gops(transcript).problems == []
    forged = json.loads(json.dumps(transcript))
    next(e for e in forged["entries"] if e["action"]["type"] == "name")["by"] = "seat:1"
    assert any("name" in p for p in verify_gops(forged).problems)


def test_a_gofo_rename_is_in_the_transcript_and_it_still_verifies(http):
    table = GofoTable.create(http, {"mode": "dealt", "seats": 5, "bots": [{"seat": s, "level": 3} for s in range(1, 5)]})
    status, _ = table.move(0, "name", {"name": "Ana"})
    assert status == 200
    transcript = table.transcript()
    assert transcript["entries"][-1]["action"] == {"type": "name", "seat": 0, "name": "Ana"}
    assert verify_gofo(transcript).problems == []


def test_a_finished_games_names_are_final(http):
    game = GopsGame.create(http, {"profile": "classic", "names": ["Ana", "Bo"]})
    game.play_to_end(lowest)
    status, problem = game.move(0, "name", {"name": "Zoe"})
    assert status == 409 and problem["code"] == "game_over", problem
    assert game.public()["names"] == ["Ana", "Bo"]

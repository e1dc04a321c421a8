"""/play, the rest of issue #38: the hint in words, the rules at hand and what each move does.

Headless Chromium at 360 px (320 px where layout is the point) on the insecure LAN-like origin of
``tests/test_play.py``, whose fixtures and helpers are used here.
"""

from __future__ import annotations

import json

import pytest
import requests

from support.client import bearer
from test_play import (  # noqa: F401 - fixtures: browser (table.local), origin, phone
    PHONE,
    browser,
    clean,
    origin,
    phone,
    rank,
    readable,
    shot,
)

pytestmark = pytest.mark.slow

SMALL = {**PHONE, "viewport": {"width": 320, "height": 700}}


def hint_on(page, origin):
    page.goto(f"{origin}/play")
    page.evaluate("localStorage.setItem('referee:hints', 'on')")


def fits(page, width):
    assert page.evaluate("document.documentElement.scrollWidth") <= width


# ------------------------------------------------------------------ 1. the hint in words

def advice(actions, words):
    """What the page should say to bid, from the referee's own hint (the largest few first)."""
    played = sorted((a for a in actions if a["probability"] > 1e-9), key=lambda a: -a["probability"])
    name = lambda a: "+".join(rank(c) for c in a["cards"])  # noqa: E731

    def pct(p):
        n = round(p * 100)
        return "<1%" if n == 0 else ">99%" if n == 100 and p < 1 else f"{n}%"
    if played[0]["probability"] >= 0.95:
        return words["one"].format(name(played[0]))
    named = [f"{name(a)}\xa0{pct(a['probability'])}" for a in played[:3]]
    rest = sum(a["probability"] for a in played[3:])
    if rest > 1e-9:
        named.append(words["others"].format(pct(rest)))
    return words["mix"].format(", ".join(named))


def answer(body):
    """A route handler answering a hint with `body`."""
    return lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(body))


WORDS = {
    "en": {"one": "Bid the {}.", "mix": "Bid at random: {}.", "others": "others\xa0{}"},
    "es": {"one": "Apuesta el {}.", "mix": "Apuesta al azar: {}.", "others": "otras\xa0{}"},
}


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_the_gops_hint_says_what_to_bid_and_what_to_expect_in_words(phone, origin, live_server, locale):
    """The referee's real hint (five cards left against its bot: exact) is said as what to bid and
    what to expect, with no game-theory words; then fixed hints for each way of saying it."""
    lang = locale[:2]
    created = requests.post(f"{live_server}/v1/gops/games", timeout=10, json={
        "profile": "classic", "options": {"ranks": 5}, "bots": [{"seat": 1, "level": 8}]}).json()
    token = created["seat_tokens"][0]
    page = phone(locale=locale)
    hint_on(page, origin)
    page.goto(f"{origin}/play#gops={created['id']}&seat=0&t={token}")
    page.wait_for_selector("#hint-advice")
    hint = requests.get(f"{live_server}/v1/gops/games/{created['id']}/seats/0/hint", headers=bearer(token), timeout=10).json()
    assert hint["exact"] is True
    assert page.inner_text("#hint-advice") == advice(hint["actions"], WORDS[lang])
    text = page.inner_text("#hint").lower()
    for jargon in ("equilibri", "nash", "mixed strateg", "estrategia mixta", "value"):
        assert jargon not in text, jargon
    assert page.inner_text("#hint-value").endswith(": exact" if lang == "en" else ": exacto")
    readable(page)

    # Each way of saying it, for hints fixed here (the page's words, not the referee's sums).
    fixed = [
        ({"exact": True, "value": 2.04, "actions": [{"cards": [13], "probability": 0.97}, {"cards": [12], "probability": 0.03}]},
         {"en": ("Bid the K.", "You can expect to end about 2 points ahead from here: exact"),
          "es": ("Apuesta el K.", "Desde aquí puedes esperar acabar alrededor de 2 puntos por delante: exacto")}),
        ({"exact": False, "value": -1.0, "actions": [{"cards": [1], "probability": 0.0}, {"cards": [12], "probability": 0.4},
                                                      {"cards": [13], "probability": 0.6}]},
         {"en": ("Bid at random: K\xa060%, Q\xa040%.", "You can expect to end about 1 point behind from here: an estimate"),
          "es": ("Apuesta al azar: K\xa060%, Q\xa040%.", "Desde aquí puedes esperar acabar alrededor de 1 punto por detrás: una estimación")}),
        ({"exact": False, "value": 0.02, "actions": [{"cards": [c], "probability": p} for c, p in ((1, 0.1), (2, 0.15), (3, 0.5), (4, 0.2), (5, 0.05))]},
         {"en": ("Bid at random: 3\xa050%, 4\xa020%, 2\xa015%, others\xa015%.", "You can expect to end about level with your rival from here: an estimate"),
          "es": ("Apuesta al azar: 3\xa050%, 4\xa020%, 2\xa015%, otras\xa015%.", "Desde aquí puedes esperar acabar más o menos empatado con tu rival: una estimación")}),
    ]
    for body, said in fixed:
        small = phone(locale=locale)
        small.set_viewport_size(SMALL["viewport"])
        hint_on(small, origin)
        small.route("**/seats/0/hint", answer(body))
        small.goto(f"{origin}/play#gops={created['id']}&seat=0&t={token}")
        small.wait_for_selector("#hint-advice")
        assert (small.inner_text("#hint-advice"), small.inner_text("#hint-value")) == said[lang]
        fits(small, 320)
        shot(small, f"night-hint-{lang}-{body['value']}")
        clean(small)
    clean(page)


GOFO_HINT = {
    "phase": "speaking", "cards": ["5o", "11o", "12o", "4c", "7e"], "value": 22, "discards": None,
    "bet": {"to_call": 3, "pot": 9, "pot_odds": 0.2512, "win_chance": 0.4125, "rivals": 2},
    "suggestion": {"type": "corta", "amount": 4},
}


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_the_gofo_hint_says_the_chance_in_words_with_the_referees_numbers(phone, origin, live_server, locale):
    """At a dealt table against the referee's bots: the move, then the chance to win and what calling
    costs in words, each the referee's own number (25.12% is 25%, not 3 / 12 = 25% worked out
    again), marked as an estimate; at 320 px too."""
    lang = locale[:2]
    table = requests.post(f"{live_server}/v1/gofo/tables", timeout=10, json={
        "mode": "dealt", "seats": 3, "bots": [{"seat": 1, "level": 8}, {"seat": 2, "level": 8}]}).json()
    token = table["seat_tokens"][0]
    page = phone(locale=locale)
    page.set_viewport_size(SMALL["viewport"])
    hint_on(page, origin)
    answered = []

    def hint(route):
        answered.append(route.request.url)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(GOFO_HINT))
    page.route("**/seats/0/hint", hint)
    page.goto(f"{origin}/play#gofo={table['id']}&seat=0&t={token}")
    page.wait_for_selector("#hint-odds")
    said = {
        "en": ("Suggested: Corta +4",
               "You win about 41% of the time against 2 rivals; calling 3 with 9 in the pot pays if you win more than 25% of the time: an estimate"),
        "es": ("Sugerencia: Corta +4",
               "Ganas alrededor del 41% de las veces contra 2 rivales; ver 3 con 9 en el pozo compensa si ganas más del 25% de las veces: una estimación"),
    }[lang]
    assert (page.inner_text("#hint-move"), page.inner_text("#hint-odds")) == said
    assert page.get_attribute("#hint-odds", "data-win") == "0.4125" and page.get_attribute("#hint-odds", "data-odds") == "0.2512"
    fits(page, 320)
    shot(page, f"night-gofo-hint-{lang}")
    assert answered
    clean(page)

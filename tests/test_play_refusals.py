"""/play says a refused move's reason in the player's language, whatever the referee's code.

Headless Chromium on the insecure LAN-like origin of ``tests/test_play.py`` (its fixtures and
helpers are used here), in English at 360 px and in Spanish at 320 px, tapping with a finger.
"""

from __future__ import annotations

import json

import pytest
import requests
from test_play import (  # noqa: F401 - fixtures: origin (table.local), phone
    origin,
    phone,
)
from test_play_gofo_again import WIDTHS, fits, tap_twice

pytestmark = pytest.mark.slow

# Codes no move of the page's own should meet, each as the referee answers it, and the page's words.
REFUSALS = [
    (404, "no_such_seat", "The table or game has no seat 5.", {
        "en": "This game has no such seat.", "es": "Esta partida no tiene ese puesto."}),
    (400, "duplicate_key", "The key 'round' appears twice in the same object.", {
        "en": "The request named the same field twice: nothing was done.",
        "es": "La petición nombró dos veces el mismo campo: no se hizo nada."}),
    (503, "queue_timeout", "The request waited too long for the worker; nothing was done.", {
        "en": "The referee had too much to do and did not start on this: nothing was done. Tap again in a moment.",
        "es": "El árbitro tenía demasiado que hacer y no empezó con esto: no se hizo nada. Vuelve a tocar en un momento."}),
]


def refuse(answer):
    """A route handler answering a request as the referee refuses it: `answer`, as problem+json."""
    return lambda route: route.fulfill(status=answer["status"], content_type="application/problem+json", body=json.dumps(answer))


@pytest.mark.parametrize("locale,width", WIDTHS)
def test_a_refusal_the_page_never_expected_is_said_in_the_players_language(phone, origin, live_server, locale, width):
    """A bid the referee refuses with no_such_seat, duplicate_key or queue_timeout (answered here in
    the referee's own problem+json) is said in the page's words, in English or Spanish — not in the
    referee's English — and the Bid button is ready again; nothing was bid."""
    lang = locale[:2]
    created = requests.post(f"{live_server}/v1/gops/games", timeout=10, json={
        "profile": "classic", "options": {"ranks": 3}, "bots": [{"seat": 1, "level": 1}]}).json()
    page = phone(locale=locale)
    page.set_viewport_size({"width": width, "height": 700})
    page.goto(f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}")
    page.wait_for_selector("#hand [data-card='2']:not([disabled])")
    for status, code, detail, words in REFUSALS:
        answer = {"type": f"https://referee.example/problems/{code}", "title": "Refused", "status": status,
                  "code": code, "detail": detail}
        page.route("**/seats/0/commit", refuse(answer))
        if page.get_attribute("#hand [data-card='2']", "aria-pressed") != "true":
            tap_twice(page, "#hand [data-card='2']")  # a double tap on a card picks it
            page.wait_for_selector("#hand [data-card='2'][aria-pressed='true']")
        tap_twice(page, "#bid")
        page.wait_for_function("w => document.getElementById('toast').textContent === w", arg=words[lang], timeout=30_000)
        page.wait_for_selector("#bid:not([disabled])")
        fits(page, width)
        page.unroute("**/seats/0/commit")
    game = requests.get(f"{live_server}/v1/gops/games/{created['id']}", timeout=10).json()
    assert game["round"] == 1 and game["phase"] == "commit"  # nothing was bid
    # The only errors: the browser's own console lines for the refused requests.
    assert all("Failed to load resource" in e for e in page.errors), page.errors
    assert page.blocked == []


@pytest.mark.parametrize("locale,width", WIDTHS)
def test_a_name_with_invisible_characters_is_refused_in_words(phone, origin, live_server, locale, width):
    """Issue #38's defect 14 on the phone: a player naming their seat "A\\u034fna\\ufe0f" (which shows
    as "Ana", another seat's name) is refused, the refusal said in the page's words (the referee's
    reason is English), and the seat keeps no name; the other seat's "Ana" is the only one."""
    lang = locale[:2]
    table = requests.post(f"{live_server}/v1/gofo/tables", timeout=10, json={
        "mode": "dealt", "seats": 2, "names": [None, "Ana"]}).json()
    page = phone(locale=locale)
    page.set_viewport_size({"width": width, "height": 700})
    page.goto(f"{origin}/play#gofo={table['id']}&seat=0&t={table['seat_tokens'][0]}")
    page.wait_for_selector("#name-form[data-named='no']")
    page.fill("#my-name", "A\u034fna\ufe0f")
    tap_twice(page, "#my-name-save")
    refused = {  # in the player's words, not the referee's English
        "en": "That name was refused: use letters, digits, spaces and signs that show (nothing invisible), "
              "at most 24 characters. Nothing was changed.",
        "es": "Ese nombre fue rechazado: usa letras, números, espacios y signos que se vean (nada invisible), "
              "a lo sumo 24 caracteres. No se cambió nada."}[lang]
    page.wait_for_function("w => document.getElementById('toast').textContent === w", arg=refused)
    assert requests.get(f"{live_server}/v1/gofo/tables/{table['id']}", timeout=10).json()["names"] == [None, "Ana"]
    assert page.inner_text("h1").endswith({"en": "Seat 1", "es": "Puesto 1"}[lang])
    assert page.get_attribute("#name-form", "data-named") == "no"
    fits(page, width)
    assert all("Failed to load resource" in e for e in page.errors), page.errors

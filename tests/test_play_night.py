"""/play, the rest of issue #38: the hint in words, the rules at hand and what each move does.

Headless Chromium at 360 px (320 px where layout is the point) on the insecure LAN-like origin of
``tests/test_play.py``, whose fixtures and helpers are used here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import requests
from support.client import bearer
from test_play import (  # noqa: F401 - fixtures: origin (table.local), phone
    PHONE,
    clean,
    origin,
    phone,
    rank,
    readable,
    ready,
    shot,
)
from test_play_gofo_again import tap_twice
from test_play_story import screen_shot  # the 360 px screens docs/play.png is made of

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

    def name(action):
        return "+".join(rank(c) for c in action["cards"])

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
    """The referee's real hint (three cards left against its bot in Classic: exact) is said as what to bid and
    what to expect, with no game-theory words; then fixed hints for each way of saying it."""
    lang = locale[:2]
    created = requests.post(f"{live_server}/v1/gops/games", timeout=10, json={
        "profile": "classic", "options": {"ranks": 3}, "bots": [{"seat": 1, "level": 8}]}).json()
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
    screen_shot(page, f"night-hint-{lang}", top="#hint-advice")

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


@pytest.mark.parametrize("locale,width", [("en-US", 360), ("es-ES", 360), ("en-US", 320), ("es-ES", 320)])
def test_the_gofo_hint_says_the_chance_in_words_with_the_referees_numbers(phone, origin, live_server, locale, width):
    """At a dealt table against the referee's bots: the move, then the chance to win and what calling
    costs in words, each the referee's own number (25.12% is 25%, not 3 / 12 = 25% worked out
    again), marked as an estimate; in both languages at 360 px and at 320 px."""
    lang = locale[:2]
    table = requests.post(f"{live_server}/v1/gofo/tables", timeout=10, json={
        "mode": "dealt", "seats": 3, "bots": [{"seat": 1, "level": 8}, {"seat": 2, "level": 8}]}).json()
    token = table["seat_tokens"][0]
    page = phone(locale=locale)
    page.set_viewport_size({"width": width, "height": 700})
    answered = []

    def hint(route):
        answered.append(route.request.url)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(GOFO_HINT))
    page.route("**/seats/0/hint", hint)
    page.goto(f"{origin}/play#gofo={table['id']}&seat=0&t={token}")
    page.wait_for_selector("#hint-toggle[aria-pressed='false']")  # off until the player switches it on
    page.tap("#hint-toggle")
    page.wait_for_selector("#hint-odds")
    said = {
        "en": ("Suggested: Corta +4",
               "You win about 41% of the time against 2 rivals; calling 3 with 9 in the pot pays if you win more than 25% of the time: an estimate"),
        "es": ("Sugerencia: Corta +4",
               "Ganas alrededor del 41% de las veces contra 2 rivales; ver 3 con 9 en el pozo compensa si ganas más del 25% de las veces: una estimación"),
    }[lang]
    assert (page.inner_text("#hint-move"), page.inner_text("#hint-odds")) == said
    assert page.get_attribute("#hint-odds", "data-win") == "0.4125" and page.get_attribute("#hint-odds", "data-odds") == "0.2512"
    fits(page, width)
    if width == 360:
        readable(page)
    shot(page, f"night-gofo-hint-{lang}-{width}")
    assert answered
    clean(page)


# ------------------------------------------------------------------ 2. the rules at hand, what each move does

OPENAPI = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"

RULES_TITLE = {"en": "How to play", "es": "Cómo se juega"}


def open_rules(page, lang, game):
    """The header's "?" opens the rules over the screen, the game on it first; "Close" closes them."""
    page.click("#rules-open")
    page.wait_for_selector("#rules:not([hidden])")
    assert page.get_attribute("#rules-open", "aria-expanded") == "true"
    assert page.get_attribute("#rules-open", "aria-label") == RULES_TITLE[lang]
    assert page.inner_text("#rules h2") == RULES_TITLE[lang]
    opened = page.eval_on_selector_all("#rules details", "els => els.filter((d) => d.open).map((d) => d.id)")
    assert opened == [f"rules-{game}"], opened
    text = page.inner_text(f"#rules-{game}")
    return text


@pytest.mark.parametrize("locale,width", [("en-US", 360), ("es-ES", 320)])
def test_how_to_play_opens_from_every_screen(phone, origin, live_server, locale, width):
    """From the home page, a Gops seat, a Gofo seat and a Gofo host's links, in English at 360 px and in
    Spanish at 320 px: the header's "?" opens the rules of the game on screen (Gops at home), in the
    page's language, within the screen's width; switching the language redraws them; "Close" closes them."""
    lang = locale[:2]
    page = phone(locale=locale)
    page.set_viewport_size({"width": width, "height": 700})
    gops = requests.post(f"{live_server}/v1/gops/games", json={"profile": "classic", "options": {"ranks": 5}}, timeout=10).json()
    gofo = requests.post(f"{live_server}/v1/gofo/tables", json={"mode": "dealt", "seats": 3}, timeout=10).json()
    screens = [
        ("home", f"{origin}/play", "#new-gops", "gops"),
        ("gops-seat", f"{origin}/play#gops={gops['id']}&seat=0&t={gops['seat_tokens'][0]}", "#hand", "gops"),
        ("gofo-seat", f"{origin}/play#gofo={gofo['id']}&seat=1&t={gofo['seat_tokens'][1]}", "#seats", "gofo"),
        ("gofo-host", f"{origin}/play#gofo={gofo['id']}&host={gofo['host_token']}", "#seats", "gofo"),
    ]
    said = {
        "en": {"gops": "The highest card takes the prize.", "gofo": "A 28-card Spanish deck"},
        "es": {"gops": "La carta más alta se lleva el premio.", "gofo": "Un mazo español de 28 cartas"},
    }
    for name, url, drawn, game in screens:
        page.goto(url)
        page.wait_for_selector(drawn)
        assert page.is_hidden("#rules")
        text = open_rules(page, lang, game)
        assert said[lang][game] in text, (name, text)
        fits(page, width)
        shot(page, f"night-rules-{lang}-{width}-{name}")
        screen_shot(page, f"night-rules-{lang}-{width}-{name}")
        if name == "gops-seat":  # the other language, redrawn in place
            page.click("#lang")
            other = "es" if lang == "en" else "en"
            page.wait_for_function("t => document.querySelector('#rules h2').textContent === t", arg=RULES_TITLE[other])
            assert said[other][game] in page.inner_text(f"#rules-{game}")
            page.click("#lang")
            page.wait_for_function("t => document.querySelector('#rules h2').textContent === t", arg=RULES_TITLE[lang])
        page.click("#rules-close")
        assert page.is_hidden("#rules") and page.get_attribute("#rules-open", "aria-expanded") == "false"
    # The header keeps its four controls on the screen whatever the live badge says.
    for mode in ("connecting", "live", "polling", "offline", "done"):
        page.evaluate("async (m) => { const { t } = await import('/play/assets/i18n.js'); document.getElementById('live').textContent = t(`live.${m}`); }", mode)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, mode
        assert page.eval_on_selector("#lang", "b => b.getBoundingClientRect().right") <= width, mode
    # Both languages say the same number of things about each game.
    counts = page.evaluate("async () => { const { RULES } = await import('/play/assets/rules.js');"
                           " return Object.fromEntries(Object.entries(RULES).map(([k, r]) => [k, [r.gops.points.length, r.gofo.points.length]])); }")
    assert counts["en"] == counts["es"] and min(counts["en"]) >= 5, counts
    readable(page)
    clean(page)


def test_every_gofo_move_has_its_words_in_both_languages(phone, origin):
    """Each move the API can offer at a Gofo table (its enum in the OpenAPI document), and entering blind,
    has a line saying what it does, in English and in Spanish (a new caja's choice has its own)."""
    types = json.loads(OPENAPI.read_text(encoding="utf-8"))["components"]["schemas"]["GofoLegalAction"]["properties"]["type"]["enum"]
    keys = [f"gofo.explain.{t}" for t in types if t != "inaugurate"] + ["gofo.explain.enter_blind"]
    page = phone()
    page.goto(f"{origin}/play")
    missing = page.evaluate("async (keys) => { const { MESSAGES } = await import('/play/assets/i18n.js');"
                            " return Object.entries(MESSAGES).flatMap(([l, m]) => keys.filter((k) => !m[k]).map((k) => `${l}:${k}`)); }", keys)
    assert missing == []
    clean(page)


EXPLAINED = """() => [...document.querySelectorAll('#actions .moves > *')].map((m) => ({
  explains: m.dataset.explains || null,
  line: m.classList.contains('explained') ? (m.querySelector(':scope > p.hint') || {}).textContent || '' : '',
  actions: [...m.querySelectorAll('[data-action]')].map((b) => b.dataset.action),
}))"""


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_every_move_button_says_what_it_does(phone, origin, live_server, locale):
    """A hand at a dealt table against two of the referee's bots, played from the first seat's phone: every
    move on screen, at every step, has its line saying what it does, in the page's language; a Gops
    seat's Bid and Resign too."""
    lang = locale[:2]
    table = requests.post(f"{live_server}/v1/gofo/tables", timeout=10, json={
        "mode": "dealt", "seats": 3, "caja": 100, "refill": 10, "initial_front": 30,
        "bots": [{"seat": 1, "level": 8}, {"seat": 2, "level": 8}]}).json()
    token, base = table["seat_tokens"][0], f"{live_server}/v1/gofo/tables/{table['id']}"
    page = phone(locale=locale)
    page.goto(f"{origin}/play#gofo={table['id']}&seat=0&t={token}")
    seen = {}
    for _ in range(240):  # hands until one has shown a Voy and a discard (a deal may show neither), at most 4
        view = requests.get(f"{base}/seats/0", headers=bearer(token), timeout=10).json()
        hands_over = view["table"]["hand_number"] - 1
        if hands_over >= 1 and {"voy", "discard"} <= set(seen) or hands_over >= 4:
            break
        ready(page, view["version"], 0)
        moves = page.evaluate(EXPLAINED)
        assert moves, view["hand"]
        for move in moves:
            assert move["explains"] and move["line"] and not move["line"].startswith("gofo."), move
            seen[move["explains"]] = move["line"]
        actions = [a for m in moves for a in m["actions"]]
        if "open" in actions:
            page.fill("#amount-open", "2")
            page.click("#actions [data-action='open']")
        elif "look" in actions:
            page.click("#actions [data-action='look']")
        else:
            pick = next((a for a in ("enter", "pass", "voy", "ver", "discard") if a in actions), None)
            assert pick, actions
            page.click(f"#actions [data-action='{pick}']" + ("[data-blind='false']" if pick == "enter" else ""))
        page.wait_for_function("v => Number(document.body.dataset.version) > v && document.body.dataset.busy !== 'yes'",
                               arg=view["version"], timeout=30_000)
    else:
        raise AssertionError("the hands did not end")
    words = {"en": {"voy": "Voy: pass without betting; you stay in the hand.", "discard": "Throw the cards you do not want face up and get as many new ones."},
             "es": {"voy": "Voy: paso sin apostar; sigues en la mano.", "discard": "Tiras boca arriba las cartas que no quieres y recibes otras tantas."}}[lang]
    assert {"voy", "discard"} <= set(seen), seen
    for move, line in words.items():
        assert seen[move] == line
    clean(page)

    gops = requests.post(f"{live_server}/v1/gops/games", json={"profile": "classic", "options": {"ranks": 3}}, timeout=10).json()
    seat = phone(locale=locale)
    seat.set_viewport_size({"width": 320, "height": 700})
    seat.goto(f"{origin}/play#gops={gops['id']}&seat=0&t={gops['seat_tokens'][0]}")
    seat.wait_for_selector("#explain-bid")
    bid = {"en": "Seals the card you picked: nobody sees it until every player has bid.",
           "es": "Sella la carta elegida: nadie la ve hasta que todos han apostado."}[lang]
    assert seat.inner_text("#explain-bid") == bid
    assert seat.inner_text("#explain-resign").startswith({"en": "Gives up this game", "es": "Abandonas esta partida"}[lang])
    fits(seat, 320)
    shot(seat, f"night-gops-moves-{lang}")
    clean(seat)


# ------------------------------------------------------------------ 3. play again

def finish(live_server, created, bids):
    """Play `created` to its end through the API: each round, every seat with a token bids `bids[seat][round]`."""
    from test_play_evening import commit, reveal
    people = [s for s, token in enumerate(created["seat_tokens"]) if token]
    for rnd in range(1, len(bids[people[0]]) + 1):
        for seat in people:
            commit(live_server, created, seat, rnd, bids[seat][rnd - 1])
        for seat in people:
            view = reveal(live_server, created, seat, rnd, bids[seat][rnd - 1])
    assert view["phase"] == "over", view["phase"]


def public(live_server, game_id):
    return requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()


def test_play_again_makes_the_same_game_with_new_links(phone, origin, live_server):
    """A finished game between two people with names, its rules chosen one by one and a best-of-3
    match: a seat's "Play again" makes a new game with the same names, rules and match, and shows the
    new join link and QR code of each seat (new tokens, each link opens its seat)."""
    created = requests.post(f"{live_server}/v1/gops/games", timeout=10, json={
        "profile": "standard", "options": {"ranks": 3, "prize_order": "descending", "unclaimed": "carryover", "deadline_seconds": 300},
        "match": {"format": "cumulative", "games": 1}, "names": ["Ana", "Bea"]}).json()
    finish(live_server, created, {0: [3, 2, 1], 1: [1, 2, 3]})
    before = public(live_server, created["id"])
    page = phone()
    page.goto(f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}")
    page.wait_for_selector("#play-again")
    assert page.inner_text("#play-again") == "Play again"
    creates = []
    page.on("request", lambda r: r.method == "POST" and r.url.endswith("/v1/gops/games") and creates.append(r.url))
    tap_twice(page, "#play-again")  # a double tap makes one game
    page.wait_for_function("id => document.body.dataset.page === 'gops-host' && !location.hash.includes(id)", arg=created["id"])
    page.wait_for_selector("#links .join")
    assert len(creates) == 1, creates
    new_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('gops')")
    after = public(live_server, new_id)
    assert new_id != created["id"] and after["phase"] != "over"
    for key in ("rules", "match", "names", "bots"):
        assert after[key] == before[key], key
    links = page.eval_on_selector_all("#links .join input.link", "els => els.map(e => e.value)")
    assert len(links) == 2 and page.locator("#links .join svg").count() == 2
    for seat, link in enumerate(links):
        fragment = dict(p.split("=", 1) for p in link.split("#", 1)[1].split("&"))
        assert fragment["gops"] == new_id and fragment["seat"] == str(seat)
        assert fragment["t"] not in created["seat_tokens"] and len(fragment["k"]) == 64
        r = requests.get(f"{live_server}/v1/gops/games/{new_id}/seats/{seat}", headers=bearer(fragment["t"]), timeout=10)
        assert r.status_code == 200 and r.json()["names"] == ["Ana", "Bea"]
    fits(page, 360)
    shot(page, "night-again-links-en")
    screen_shot(page, "night-again-links-en", top="#links")
    readable(page)
    clean(page)


def test_play_again_against_the_referee_goes_straight_to_the_new_seat(phone, origin, live_server):
    """In Spanish at 320 px, a game against the referee's bot: "Jugar otra vez" makes a new game with the
    same bot at the same level and goes straight to the player's seat of it (nobody else needs a link)."""
    created = requests.post(f"{live_server}/v1/gops/games", timeout=10, json={
        "profile": "classic", "options": {"ranks": 3}, "bots": [{"seat": 1, "level": 5}], "names": ["Ana", None]}).json()
    finish(live_server, created, {0: [1, 2, 3]})
    page = phone(locale="es-ES")
    page.set_viewport_size(SMALL["viewport"])
    page.goto(f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}")
    page.wait_for_selector("#play-again")
    assert page.inner_text("#play-again") == "Jugar otra vez"
    fits(page, 320)
    tap_twice(page, "#play-again")
    page.wait_for_function("id => document.body.dataset.page === 'gops-seat' && !location.hash.includes(id) && document.body.dataset.phase === 'commit'",
                           arg=created["id"])
    fragment = dict(p.split("=", 1) for p in page.evaluate("location.hash.slice(1)").split("&"))
    after = public(live_server, fragment["gops"])
    assert fragment["seat"] == "0" and len(fragment["k"]) == 64
    assert after["bots"] == [{"seat": 1, "level": 5}] and after["names"] == ["Ana", None]
    assert after["rules"] == public(live_server, created["id"])["rules"]
    page.wait_for_selector("#hand [data-card]:not([disabled])")
    clean(page)


# ------------------------------------------------------------------ 5. installable, and a server out of reach

NO_NETWORK = {"en": "This phone has no network", "es": "Este teléfono no tiene red"}


@pytest.mark.parametrize("locale,width", [("en-US", 360), ("es-ES", 320), ("es-ES", 360), ("en-US", 320)])
def test_a_secure_origin_keeps_the_page_and_a_lan_address_gets_no_worker(phone, offline_page, origin, live_server, locale, width):
    """At 127.0.0.1 (a secure context) the page registers its service worker, which keeps the page's own
    files — both languages' manifests among them: with the network gone, /play still opens in the
    phone's language, linking its manifest, and says the server cannot be reached. At the plain-http
    LAN-like address no worker is registered (the browser allows none there)."""
    lang = locale[:2]
    page = offline_page(live_server, locale=locale, **{**PHONE, "viewport": {"width": width, "height": 780}})
    page.goto(f"{live_server}/play")
    page.wait_for_function("() => document.body.dataset.sw === 'on'")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")  # claimed: no reload needed
    kept = page.evaluate("async () => (await caches.keys()).length ? (await (await caches.open((await caches.keys())[0])).keys()).map((r) => new URL(r.url).pathname) : []")
    for path in ("/play", "/play/assets/app.js", "/play/assets/rules.js",
                 "/play/assets/manifest.en.webmanifest", "/play/assets/manifest.es.webmanifest"):
        assert path in kept, (path, kept)
    assert not [k for k in kept if k.startswith("/v1/")]
    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("#new-gops")
    page.wait_for_selector("#offline:not([hidden])")
    assert page.inner_text("#offline").startswith(NO_NETWORK[lang])
    href = page.get_attribute("link[rel=manifest]", "href")
    assert href == f"/play/assets/manifest.{lang}.webmanifest"
    assert page.evaluate("async (u) => (await fetch(u)).ok", href)  # from the kept copy
    fits(page, width)
    shot(page, f"night-offline-{lang}-{width}")
    page.context.set_offline(False)
    page.wait_for_selector("#offline", state="hidden")
    assert page.errors == [], page.errors

    lan = phone(locale=locale)
    lan.set_viewport_size({"width": width, "height": 780})
    lan.goto(f"{origin}/play")
    lan.wait_for_function("() => document.body.dataset.sw === 'unavailable'")
    assert lan.evaluate("window.isSecureContext") is False
    fits(lan, width)
    clean(lan)


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_a_server_out_of_reach_is_said_on_screen(phone, origin, live_server, locale):
    """A Gops seat whose server stops answering (its requests fail): a line under the header says the
    server cannot be reached; the next answer takes it away. At 320 px, in English and Spanish."""
    lang = locale[:2]
    created = requests.post(f"{live_server}/v1/gops/games", json={"profile": "classic", "options": {"ranks": 3}}, timeout=10).json()
    page = phone(locale=locale)
    page.set_viewport_size(SMALL["viewport"])
    page.goto(f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}")
    page.wait_for_selector("#hand [data-card]:not([disabled])")
    assert page.is_hidden("#offline")
    page.route("**/v1/**", lambda route: route.abort("connectionrefused"))
    page.click("#hint-toggle")  # asks the referee for a hint
    page.wait_for_selector("#offline:not([hidden])")
    said = {"en": "The server cannot be reached: live play needs it.", "es": "No se puede llegar al servidor: el juego en vivo lo necesita."}[lang]
    assert page.inner_text("#offline").startswith(said)
    fits(page, 320)
    shot(page, f"night-unreachable-{lang}")
    page.unroute("**/v1/**")
    page.click("#hint-toggle")
    page.click("#hint-toggle")
    page.wait_for_selector("#offline", state="hidden")
    page.errors.clear()  # the refused requests' console lines: the point of this test
    clean(page)


# ------------------------------------------------------------------ 4. watch and share: read-only

@pytest.mark.parametrize("locale,width", [("en-US", 360), ("es-ES", 320)])
def test_a_read_only_link_replays_a_game_round_by_round(phone, origin, live_server, locale, width):
    """The end screen's read-only link opens on another phone with no seat's key: it sends no token,
    steps back and forth round by round with the chart up to that round, and checks the game's
    fairness; a game still being played is followed live, showing no sealed bid."""
    lang = locale[:2]
    created = requests.post(f"{live_server}/v1/gops/games", timeout=10, json={
        "profile": "classic", "options": {"ranks": 3, "prize_order": "ascending"}, "names": ["Ana", "Bea"]}).json()
    finish(live_server, created, {0: [3, 1, 2], 1: [1, 3, 2]})
    seat = phone(locale=locale)
    seat.goto(f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}")
    seat.wait_for_selector("#share")
    seat.click("#share summary")
    link = seat.input_value("#share-link")
    assert link == f"{origin}/play#gops={created['id']}&watch=1" and seat.locator("#share svg").count() == 1
    clean(seat)

    page = phone(locale=locale)
    page.set_viewport_size({"width": width, "height": 700})
    sent = []
    page.on("request", lambda r: sent.append(r.headers.get("authorization")))
    page.goto(link)
    page.wait_for_selector("#replay[data-at='3']")
    page.wait_for_selector("#verify [data-verdict='verified']", timeout=30_000)
    assert set(sent) == {None}, sent  # no key of any seat
    assert page.locator("#hand, #bid, #resign, #hint").count() == 0
    round_of = {"en": "Round {} of 3", "es": "Ronda {} de 3"}[lang]
    assert page.inner_text("#replay-at") == round_of.format(3)
    assert page.is_disabled("#replay-next")
    page.click("#replay-prev")
    page.click("#replay-prev")
    page.wait_for_selector("#replay[data-at='1']")
    assert page.inner_text("#replay-at") == round_of.format(1) and page.is_disabled("#replay-prev")
    # Round 1: the A, Ana's 3 against Bea's A: Ana takes it — and the chart has that one round.
    assert "Ana" in page.inner_text("#replay-outcome")
    strip = "#replay-story-chart text.strip"  # the chart's prize under each round played so far
    assert page.eval_on_selector_all(strip, "els => els.map(e => e.textContent)") == ["A"]
    page.click("#replay-next")
    page.wait_for_selector("#replay[data-at='2']")
    assert "Bea" in page.inner_text("#replay-outcome")
    assert page.eval_on_selector_all(strip, "els => els.map(e => e.textContent)") == ["A", "2"]
    fits(page, width)
    shot(page, f"night-watch-{lang}-{width}")
    screen_shot(page, f"night-watch-{lang}-{width}", top="#replay")
    if width == 360:
        readable(page)
    clean(page)

    # A game in progress: followed live, a sealed bid is not shown.
    playing = requests.post(f"{live_server}/v1/gops/games", json={"profile": "classic", "options": {"ranks": 3}}, timeout=10).json()
    watcher = phone(locale=locale)
    watcher.goto(f"{origin}/play#gops={playing['id']}&watch=1")
    watcher.wait_for_selector("#replay")
    from test_play_evening import commit, reveal
    commit(live_server, playing, 0, 1, 2)
    commit(live_server, playing, 1, 1, 3)
    reveal(live_server, playing, 0, 1, 2)
    reveal(live_server, playing, 1, 1, 3)
    watcher.wait_for_selector("#replay[data-at='1']", timeout=30_000)
    commit(live_server, playing, 0, 2, 3)
    watcher.wait_for_function("() => document.body.dataset.phase === 'commit'")
    assert watcher.get_attribute("#replay", "data-at") == "1"  # round 2 is not played until both bids are shown
    clean(watcher)


def test_the_service_worker_is_served_with_every_file_of_the_page(client):
    """/play/sw.js: JavaScript, allowed the scope /play, never cached stale, under the page's CSP, listing
    the page and every file of static/ (not the worker itself), with a digest that names this version."""
    r = client.get("/play/sw.js")
    assert r.status_code == 200 and r.mimetype == "text/javascript"
    assert r.headers["Service-Worker-Allowed"] == "/play" and r.headers["Cache-Control"] == "no-cache"
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    script = r.get_data(as_text=True)
    assert "{{" not in script
    files = json.loads(script.split("const FILES = ", 1)[1].split(";\n", 1)[0])
    static = Path(__file__).resolve().parent.parent / "service" / "web" / "play" / "static"
    expected = sorted(f"/play/assets/{p.relative_to(static).as_posix()}" for p in static.rglob("*")
                      if p.is_file() and p.name not in ("index.html", "sw.js"))
    assert files == ["/play", *expected]
    assert {"/play/assets/manifest.en.webmanifest", "/play/assets/manifest.es.webmanifest"} <= set(files)
    for url in files:
        assert client.get(url).status_code == 200, url
    assert client.get("/play/assets/sw.js").status_code == 404  # only at /play/sw.js, with its scope

"""/play on the second evening at the table (issue #38): a phone whose connection died without a word,
amounts typed out of range, several bots at one table, draws, uncalled bets, the create form, layouts
at 320 and 360 px, the showdown at a tabletop, a double tap on a card, the words of numbers and refusals.

Headless Chromium at 360 px (320 px where layout is the point) on the insecure LAN-like origin of
``tests/test_play.py``, whose fixtures and helpers are used here.
"""

from __future__ import annotations

import hashlib
import json
import re
from urllib.parse import urlsplit

import pytest
import requests

from support.client import bearer
from support.gops_helpers import spec_commitment
from support.silent_proxy import SilentProxy
from test_play import (  # noqa: F401 - fixtures: origin (table.local), phone
    PHONE,
    clean,
    create_gofo,
    origin,
    phone,
    public_table,
    ready,
    readable,
    shot,
)
from test_play_table import moves_sent, pause

pytestmark = pytest.mark.slow


def gops_game(live_server, **body):
    r = requests.post(f"{live_server}/v1/gops/games", json=body, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def commit(live_server, created, seat, rnd, card, salt="ab" * 32):
    game_id = created["game"]["game_id"]
    r = requests.post(f"{live_server}/v1/gops/games/{created['id']}/seats/{seat}/commit", timeout=10,
                      headers=bearer(created["seat_tokens"][seat]),
                      json={"game_id": game_id, "round": rnd,
                            "commitment": spec_commitment(game_id, rnd, seat, [card], salt)})
    assert r.status_code == 200, r.text
    return r.json()


def toast_text(page):
    return page.evaluate("document.getElementById('toast').hidden ? null : document.getElementById('toast').textContent")


# ------------------------------------------------------------------ 1. a connection that died silently


def at_width(page, locale):
    """English at the phone's 360 px, Spanish at 320 px: the width this page is tested at."""
    width = 320 if locale.startswith("es") else 360
    page.set_viewport_size({"width": width, "height": 700})
    return width


TIMED_OUT = {
    "en-US": "The referee did not answer (tried twice). Check the Wi-Fi, then tap again to retry.",
    "es-ES": "El árbitro no respondió (dos intentos). Revisa el Wi-Fi y vuelve a tocar para reintentar.",
}


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_a_phone_whose_connection_died_silently_reconnects_and_times_out_a_move(offline_page, live_server, locale):
    """Back on Wi-Fi: the stream's connection died without a word (no FIN, no RST). The page hears no
    keep-alive for twice the server's interval, reconnects and sees the rival's bid; a bid sent into a
    dead network is given up after its time, said in words, and goes through when tapped again."""
    proxy = SilentProxy(int(urlsplit(live_server).port))
    try:
        created = gops_game(live_server, profile="classic", options={"ranks": 3})
        page = offline_page(proxy.origin, locale=locale, **PHONE)
        width = at_width(page, locale)
        page.clock.install()
        page.goto(f"{proxy.origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}")
        page.wait_for_function("() => document.body.dataset.live === 'live' && document.querySelector('#hand [data-card]')")
        proxy.drop()                      # every open connection dies silently; new ones work
        commit(live_server, created, 1, 1, 3)
        rival = "() => document.querySelector(\"#scores tr[data-seat='1'][data-status='committed']\")"
        # The server writes a keep-alive every 15 s: 35 s of silence is a dead stream.
        page.clock.run_for(20_000)
        assert page.evaluate(rival) is None and page.evaluate("document.body.dataset.live") == "live"
        for _ in range(6):  # a reconnection may first land on another pooled, dead connection
            page.clock.run_for(20_000)
            try:
                page.wait_for_function(rival, timeout=5_000)
                break
            except Exception:  # noqa: BLE001 - not yet: more silence
                continue
        page.wait_for_function(rival, timeout=1_000)
        page.wait_for_function("() => document.body.dataset.live === 'live'")

        proxy.drop(new_too=True)          # the Wi-Fi is gone for good
        page.tap("#hand [data-card='1']")
        page.tap("#bid")
        page.wait_for_function("() => document.body.dataset.busy === 'yes' || document.querySelector('#bid:disabled')")
        said = None
        for _ in range(8):  # 10 s a try, two tries, and the 0.8 s between them: in steps of page time
            page.clock.run_for(6_000)
            try:
                page.wait_for_selector("#toast:not([hidden])", timeout=2_000)
            except Exception:  # noqa: BLE001 - not yet: more page time
                continue
            said = toast_text(page)
            break
        assert said == TIMED_OUT[locale], said
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # The stream missed its keep-alive too: given up with the request, not 35 s later.
        assert page.evaluate("document.body.dataset.live") == "offline"
        shot(page, f"evening-timeout-{locale}")
        proxy.restore()
        page.wait_for_selector("#bid:not([disabled])")
        page.tap("#bid")
        page.wait_for_function("() => document.body.dataset.phase === 'reveal' || document.body.dataset.phase === 'commit' && document.querySelector(\"#scores tr[data-seat='0'][data-status='committed']\")")
        view = requests.get(f"{live_server}/v1/gops/games/{created['id']}", timeout=10).json()
        assert view["round"] > 1 or 0 in view.get("committed", []) or view["phase"] == "reveal", view
        # The interval the page waits on is the server's setting (REFEREE_STREAM_HEARTBEAT_SECONDS).
        assert page.get_attribute("meta[name=referee-stream-heartbeat]", "content") == "15"
        assert page.blocked == []
    finally:
        proxy.close()


# ------------------------------------------------------------------ 2. an amount out of its range


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_an_opening_out_of_range_is_refused_not_changed(phone, origin, live_server, locale):
    """Tabletop Gofo: 100 typed for an opening of 1–28 is refused on the page, in words, and nothing
    is bet; what is sent is exactly what was typed."""
    host = phone(locale=locale)
    width = at_width(host, locale)
    table_id = create_gofo(host, origin, mode="tabletop")
    view = public_table(live_server, table_id)
    ready(host, view["version"], view["hand"]["to_act"])
    sent = moves_sent(host)
    lo, hi = (int(host.get_attribute("#amount-open", k)) for k in ("min", "max"))
    assert lo == 1 and hi < 100
    for typed in ("100", "2.5", ""):
        host.fill("#amount-open", typed)
        host.tap("#actions [data-action='open']")
        host.wait_for_selector("#amount-error-open:not([hidden])")
        said = host.inner_text("#amount-error-open")
        en, es = ((f"{typed} is not allowed: type", f"{typed} no vale: escribe") if typed else ("Type", "Escribe"))
        assert said == (f"{en} a whole number from 1 to {hi}. Nothing was bet." if locale == "en-US"
                        else f"{es} un número entero de 1 a {hi}. No se apostó nada."), said
    shot(host, f"evening-opening-refused-{locale}")
    readable(host)
    assert host.evaluate("document.documentElement.scrollWidth") <= width
    host.wait_for_timeout(300)  # time for a move a tap would have sent
    assert sent == []
    assert public_table(live_server, table_id)["version"] == view["version"]
    host.fill("#amount-open", "7")
    assert host.is_hidden("#amount-error-open")
    host.click("#actions [data-action='open']")
    after = public_table(live_server, table_id, after=view["version"], pages=[host])
    assert after["hand"]["opening"] == 7
    assert [b["amount"] for _, b in sent] == [7]
    clean(host)


# ------------------------------------------------------------------ 3. several bots at one table


def test_the_referees_seats_are_named_apart(phone, origin, live_server):
    """Three of the referee's seats at one Gofo table, all level 6: each is named by its seat's number
    in the seats table, and so wherever a seat is named (pots, discards, results, the ledger: all
    through the one seat label); a single bot keeps its short name."""
    created = requests.post(f"{live_server}/v1/gofo/tables", timeout=10, json={
        "seats": 4, "bots": [{"seat": s, "level": 6} for s in (1, 2, 3)]}).json()
    for locale, words in (("en-US", "🤖 Referee {} · level 6"), ("es-ES", "🤖 Árbitro {} · nivel 6")):
        page = phone(locale=locale)
        width = at_width(page, locale)
        page.goto(f"{origin}/play#gofo={created['id']}&seat=0&t={created['seat_tokens'][0]}")
        page.wait_for_selector("#seats tbody tr[data-seat='3']")
        rows = page.eval_on_selector_all("#seats tbody th", "els => els.map(e => e.firstChild.textContent)")
        assert rows[1:] == [words.format(n) for n in (2, 3, 4)], rows
        one = page.evaluate("""async () => {
          const seats = await import('/play/assets/seats.js');
          const ui = await import('/play/assets/ui.js');
          seats.showSeats({ bots: [{ seat: 1, level: 6 }], names: [] });
          return ui.seatName(1);
        }""")
        assert one == words.replace("{} ", ""), one
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        clean(page)


# ------------------------------------------------------------------ 4. a tie for the most points


def reveal(live_server, created, seat, rnd, card, salt="ab" * 32):
    r = requests.post(f"{live_server}/v1/gops/games/{created['id']}/seats/{seat}/reveal", timeout=10,
                      headers=bearer(created["seat_tokens"][seat]),
                      json={"game_id": created["game"]["game_id"], "round": rnd, "cards": [card], "salt": salt})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_tie_for_the_most_points_is_a_draw(phone, origin, live_server):
    """Every round tied and its prize set aside: 0–0, which the end screen calls a draw, not a win for both."""
    created = gops_game(live_server, profile="standard", options={"ranks": 4, "unclaimed": "discard"},
                        names=["Ana", "Bea"])
    for rnd, card in enumerate((1, 2, 3, 4), start=1):
        commit(live_server, created, 0, rnd, card)
        commit(live_server, created, 1, rnd, card)
        reveal(live_server, created, 0, rnd, card)
        view = reveal(live_server, created, 1, rnd, card)
    assert view["result"]["totals"] == ["0", "0"] and view["result"]["winners"] == [0, 1], view["result"]
    for locale, said in (("en-US", "Draw: Ana and Bea, 0 points each"), ("es-ES", "Empate: Ana y Bea, 0 puntos cada uno")):
        page = phone(locale=locale)
        width = at_width(page, locale)
        page.goto(f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}")
        page.wait_for_selector("#result")
        assert page.inner_text("#result .big-text") == said
        assert page.get_attribute("#result", "data-outcome") == "draw"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        clean(page)


# ------------------------------------------------------------------ 13. the words of numbers


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_one_point_is_singular_and_nothing_is_zero_percent(phone, origin, locale):
    page = phone(locale=locale)
    at_width(page, locale)
    page.goto(f"{origin}/play")
    page.wait_for_selector("#sha-check[data-ok=yes]")
    said = page.evaluate("""async () => {
      const i18n = await import('/play/assets/i18n.js');
      const hints = await import('/play/assets/hints.js');
      const out = {};
      for (const code of ['en', 'es']) {
        i18n.setLang(code);
        out[code] = ['−1', '+1', '1', '0', '2', '−0.5', '13/3'].map(i18n.points);
      }
      out.pct = [0, 0.001, 0.004, 0.5, 0.996, 1].map(hints.percent);
      i18n.setLang('en');
      return out;
    }""")
    assert said["en"] == ["−1 point", "+1 point", "1 point", "0 points", "2 points", "−0.5 points", "13/3 points"]
    assert said["es"] == ["−1 punto", "+1 punto", "1 punto", "0 puntos", "2 puntos", "−0.5 puntos", "13/3 puntos"]
    assert said["pct"] == ["0%", "<1%", "<1%", "50%", ">99%", "100%"]
    clean(page)


# ------------------------------------------------------------------ 8. an uncalled bet


def drive(table, choose, until):
    """Make the moves `choose(hand, seat, legal)` picks (a (move, body) pair) until `until(view)`."""
    for _ in range(200):
        view = table.view()
        if until(view):
            return view
        hand = view["hand"]
        seat = hand["to_act"]
        legal = {a["type"]: a for a in table.seat_view(seat)["hand"]["legal_actions"]}
        move, body = choose(hand, seat, legal)
        table.move(seat, move, body)
    raise AssertionError("the table did not get there")


def test_an_uncalled_bet_is_shown_returned_not_won(phone, origin, live_server):
    """Two seats: hand 1 leaves one with 10 chips fewer; in hand 2 the richer bets all it has, the
    poorer calls all-in, and the 10 nobody could call go back to the bettor: said so, in the hand's
    pots while nobody has called yet and in the last hand's result."""
    from test_play import Table

    table = Table(live_server, seats=2, caja=100, refill=10, initial_front=30)
    table.seat_view = lambda seat: table.http.get(f"{table.base}/seats/{seat}", headers=bearer(table.tokens[seat]), timeout=10).json()

    def hand_one(hand, seat, legal):
        if "open" in legal:
            return "open", {"amount": 5}
        if "enter" in legal:
            return "enter", {"blind": False}
        if "look" in legal:
            return "look", {}
        if "corta" in legal and hand["mano"] == seat:
            return "corta", {"amount": 10}
        if "no_ver" in legal:
            return "no-ver", {}
        if "voy" in legal:
            return "voy", {}
        if "pass" in legal:
            return "pass", {}
        raise AssertionError(legal)

    page = phone()
    tokens = table.tokens
    # Hand 1: the mano's corta of 10 stands uncalled until the other answers.
    view = drive(table, hand_one, lambda v: v["hand"] and v["hand"]["bet"] and v["hand"]["bet"]["level"] > 5)
    other = 1 - view["hand"]["mano"]
    page.goto(f"{origin}/play#gofo={table.id}&seat={other}&t={tokens[other]}")
    page.wait_for_selector("#pots li[data-uncalled=yes]")
    assert page.inner_text("#pots li[data-uncalled=yes]") == f"Bet not called yet: 10 (Seat {view['hand']['mano'] + 1})"
    view = drive(table, hand_one, lambda v: v["table"]["hand_number"] == 2)
    fronts = [s["front"] for s in view["table"]["seats"]]
    rich, poor = (0, 1) if fronts[0] > fronts[1] else (1, 0)
    assert fronts[rich] - fronts[poor] == 10, fronts

    def hand_two(hand, seat, legal):
        if "open" in legal:
            return "open", {"amount": 1}
        if "enter" in legal:
            return "enter", {"blind": False}
        if "look" in legal:
            return "look", {}
        for bet in ("corta", "refiche", "raise"):
            if bet in legal and seat == rich and legal[bet]["max"] > 0 and not hand["bet"]:
                return bet, {"amount": legal[bet]["max"]}
        if "ver" in legal:
            return "ver", {}
        if "voy" in legal:
            return "voy", {}
        if "pass" in legal:
            return "pass", {}
        if "discard" in legal:
            return "discard", {"cards": []}
        raise AssertionError(legal)

    view = drive(table, hand_two, lambda v: v["table"]["hand_number"] == 3)
    pots = view["table"]["last_result"]["pots"]
    assert [p["eligible"] for p in pots] == [[0, 1], [rich]] and pots[1]["amount"] == 10, pots
    for locale, said in (("en-US", "10 returned to Seat {}: nobody called that bet"),
                         ("es-ES", "10 devueltos a Puesto {}: nadie vio esa apuesta")):
        page = phone(locale=locale)
        width = at_width(page, locale)
        page.goto(f"{origin}/play#gofo={table.id}&seat={poor}&t={tokens[poor]}")
        page.wait_for_selector("#last-pots li[data-returned=yes]")
        assert page.inner_text("#last-pots li[data-returned=yes]") == said.format(rich + 1)
        assert page.locator("#last-pots li").count() == 2
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(page, f"evening-returned-{locale}")
        clean(page)


# ------------------------------------------------------------------ 12. a double tap on a card


@pytest.mark.parametrize("locale,width,bid", [("en-US", 360, "Bid 3"), ("es-ES", 320, "Apostar 3")])
def test_a_double_tap_on_a_card_picks_it(phone, origin, live_server, locale, width, bid):
    """Two taps 120 ms apart on a card (a double tap) pick it; a tap a moment later takes it back."""
    created = gops_game(live_server, profile="classic", options={"ranks": 5})
    page = phone(locale=locale)
    page.set_viewport_size({"width": width, "height": 700})
    page.clock.install()
    page.goto(f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}")
    card = "#hand [data-card='3']"
    box = None
    for _ in range(20):  # a redraw may replace the card between finding it and measuring it
        page.wait_for_selector(f"{card}:not([disabled])")
        page.eval_on_selector(card, "el => el.scrollIntoView({ block: 'center' })")  # under the finger
        box = page.locator(card).bounding_box()
        if box is not None:
            break
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    pause(page)
    page.touchscreen.tap(x, y)
    page.clock.run_for(120)
    page.touchscreen.tap(x, y)
    assert page.get_attribute(card, "aria-pressed") == "true"
    assert page.inner_text("#bid") == bid and page.is_enabled("#bid")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.clock.run_for(1000)
    page.touchscreen.tap(x, y)
    assert page.get_attribute(card, "aria-pressed") == "false"
    page.clock.resume()
    clean(page)


# ------------------------------------------------------------------ 11. the tabletop showdown


SHOWN = ["6e", "7e", "11e", "12e", "4o"]   # worth 30
OTHER = ["3b", "4b", "5b", "6b", "7c"]     # worth 18


SHOW_WORDS = {
    "en": ("Value: 18", "These cards are worth 18, not the 30 declared: pick the cards this seat shows.", "The game moved on"),
    "es": ("Valor: 18", "Estas cartas valen 18, no los 30 cantados: elige las cartas que muestra este puesto.", "La partida avanzó"),
}


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_tabletop_show_offers_only_the_declared_value_and_an_error_goes_with_the_next_move(phone, origin, live_server, locale):
    """At the canto the host picks a seat's five cards: worth other than declared, Show is not offered
    and the page says why. A refused move's error goes as soon as the next move goes through."""
    from test_play import Table

    table = Table(live_server, seats=2, mode="tabletop", caja=100, refill=10, initial_front=30)

    def act(hand, seat, legal):
        for move, body in (("open", {"amount": 1}), ("enter", {"blind": False}), ("pass", {}), ("voy", {}),
                           ("discard", {"count": 0}), ("declare", {"points": 30})):
            if move in legal:
                return move, body
        raise AssertionError(legal)

    table.seat_view = lambda seat: table.http.get(f"{table.base}/seats/{seat}", headers=bearer(table.tokens[seat]), timeout=10).json()
    view = drive(table, act, lambda v: (v["hand"] or {}).get("canto") and v["hand"]["canto"]["stage"] != "declare")
    seat = view["hand"]["to_act"]
    assert view["hand"]["canto"]["declared"][seat] == 30
    value, differs, moved_on = SHOW_WORDS[locale[:2]]
    page = phone(locale=locale)
    width = at_width(page, locale)
    page.goto(f"{origin}/play#gofo={table.id}&host={table.host}")
    page.wait_for_selector("#show-picker")
    for card in OTHER:
        page.tap(f"#show-picker [data-pick='{card}']")
    assert page.inner_text("#show-value") == value
    assert page.inner_text("#show-differs") == differs
    assert page.is_disabled("#actions [data-action='show']")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(page, f"evening-show-differs-{locale}")
    for card in OTHER:
        page.tap(f"#show-picker [data-pick='{card}']")
    for card in SHOWN:
        page.tap(f"#show-picker [data-pick='{card}']")
    assert page.locator("#show-differs").count() == 0 and page.is_enabled("#actions [data-action='show']")
    # The first Show is refused (the referee's answer replaced on its way): said; the second goes through.
    refusals = []

    def refuse(route):
        refusals.append(route.request.url)
        route.fulfill(status=409, content_type="application/problem+json",
                      body='{"type":"about:blank","title":"Conflict","status":409,"code":"stale_version","detail":"the table moved on"}')
        page.unroute("**/seats/*/show", refuse)

    page.route("**/seats/*/show", refuse)
    page.tap("#actions [data-action='show']")
    page.wait_for_selector("#toast:not([hidden])")
    assert toast_text(page).startswith(moved_on)
    page.wait_for_selector("#actions [data-action='show']:not([disabled])")
    page.tap("#actions [data-action='show']")
    after = public_table(live_server, table.id, after=view["version"], pages=[page])
    assert after["version"] > view["version"] and len(refusals) == 1
    page.wait_for_function("v => Number(document.body.dataset.version) >= v", arg=after["version"])
    # The error goes when the move's answer comes, which under load may be after the stream brought its view.
    page.wait_for_selector("#toast", state="hidden")
    assert page.blocked == [] and [e for e in page.errors if "409 (Conflict)" not in e] == []


# ------------------------------------------------------------------ 7. the game's words, and refusals in words


def test_voy_corta_refiche_are_explained_and_a_refusal_says_why(phone, origin, live_server):
    """Speaking with no bet in force: Voy and Corta say what they do, and a corte is a bet of its own
    (not "raise to"). A refused move says why in the player's words (the page's translation of
    the code), with the referee's limit on an English page."""
    from test_play import Table

    table = Table(live_server, seats=2, caja=100, refill=10, initial_front=30)
    table.seat_view = lambda seat: table.http.get(f"{table.base}/seats/{seat}", headers=bearer(table.tokens[seat]), timeout=10).json()

    def act(hand, seat, legal):
        for move, body in (("open", {"amount": 1}), ("enter", {"blind": False}), ("look", {}), ("pass", {})):
            if move in legal:
                return move, body
        raise AssertionError(legal)

    view = drive(table, act, lambda v: v["hand"]["phase"] == "speaking")
    seat = view["hand"]["to_act"]
    for locale, voy, corte, refused in (
            ("en-US", "Voy: pass without betting", "a bet of 4", "First answer the bet: see it (Ver) or fold (No ver)."),
            ("es-ES", "Voy: paso sin apostar", "una apuesta de 4", "Primero contesta la apuesta: ver o no ver.")):
        page = phone(locale=locale)
        page.goto(f"{origin}/play#gofo={table.id}&seat={seat}&t={table.tokens[seat]}")
        page.wait_for_selector("#actions [data-action='corta']")
        assert page.inner_text("#explain-voy").startswith(voy)
        assert page.inner_text("#explain-corta").startswith("Corta: ")
        page.fill("#amount-corta", "4")
        assert page.inner_text("#amount-label-corta") == corte
        assert "raise to" not in page.inner_text("#actions") and "subir a" not in page.inner_text("#actions")
        shot(page, f"evening-speaking-{locale}")
        readable(page)

        def refuse(route):
            route.fulfill(status=409, content_type="application/problem+json",
                          body='{"type":"about:blank","title":"Conflict","status":409,"code":"must_answer",'
                               '"detail":"answer the bet first: ver or no ver"}')

        page.route("**/seats/*/voy", refuse)
        page.click("#actions [data-action='voy']")
        page.wait_for_selector("#toast:not([hidden])")
        assert toast_text(page) == refused
        page.unroute("**/seats/*/voy", refuse)
        said = page.evaluate("""async () => (await import('/play/assets/ui.js')).problemText(
          { status: 409, code: 'opening_too_large', problem: { code: 'opening_too_large', detail: 'the opening may be at most 28' } })""")
        assert said == ("The opening is more than allowed — the opening may be at most 28" if locale == "en-US"
                        else "La apertura es mayor que la permitida.")
        assert page.blocked == []


# ------------------------------------------------------------------ 10. layouts at 360 and 320 px


OVERLAPS = """(sel) => {
  const boxes = [...document.querySelectorAll(`${sel} text`)].map((e) => ({ text: e.textContent, r: e.getBoundingClientRect() }))
    .filter((b) => b.r.width > 0);
  const out = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i].r, b = boxes[j].r;
    if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) out.push(`${boxes[i].text} / ${boxes[j].text}`);
  }
  return out;
}"""

# Every table inside its panel, and nothing wider than the screen.
INSIDE = """() => {
  const out = [];
  for (const table of document.querySelectorAll('table')) {
    const panel = table.closest('.panel');
    if (!panel) continue;
    const p = panel.getBoundingClientRect(), t = table.getBoundingClientRect();
    if (t.right > p.right - 2 || t.left < p.left + 2) out.push(`${table.id || table.className}: ${Math.round(t.left)}–${Math.round(t.right)} in ${Math.round(p.left)}–${Math.round(p.right)}`);
  }
  return { out, width: document.documentElement.scrollWidth };
}"""


def test_long_carries_the_chart_and_tables_fit_small_phones(phone, offline_page, origin, live_server):
    """Eleven prizes carried in a row: the page stays 360 px wide in English, the chart's labels do not
    overlap and its y-axis counts whole points; at 320 px in Spanish the score tables stay inside
    their panels, on a Gops seat and a Gofo seat."""
    created = gops_game(live_server, profile="classic", options={"ranks": 13, "prize_order": "ascending"})
    bids = [(r, r) for r in range(1, 12)] + [(12, 13), (13, 12)]
    for rnd, (a, b) in enumerate(bids, start=1):
        commit(live_server, created, 0, rnd, a)
        commit(live_server, created, 1, rnd, b)
        reveal(live_server, created, 0, rnd, a)
        view = reveal(live_server, created, 1, rnd, b)
    assert view["phase"] == "over" and len(view["history"][11]["pot"]) == 12
    link = f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}"
    page = phone()
    page.goto(link)
    page.wait_for_selector("#gops-story-chart")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert page.evaluate(OVERLAPS, "#gops-story-chart") == []
    ys = page.eval_on_selector_all("#gops-story-chart .grid text", "els => els.map(e => e.textContent)")
    assert all(re.fullmatch(r"-?\d+", y) for y in ys), ys
    shot(page, "evening-long-carry-en")
    clean(page)

    table = requests.post(f"{live_server}/v1/gofo/tables", json={"seats": 6}, timeout=10).json()
    playing = gops_game(live_server, profile="standard", options={"players": 7, "ranks": 13}, match={"format": "cumulative", "games": 2})
    commit(live_server, playing, 1, 1, 13)
    for link, what in ((link, "gops-over"), (f"{origin}/play#gops={playing['id']}&seat=0&t={playing['seat_tokens'][0]}", "gops"), (f"{origin}/play#gofo={table['id']}&seat=0&t={table['seat_tokens'][0]}", "gofo")):
        small = offline_page(origin, locale="es-ES", **{**PHONE, "viewport": {"width": 320, "height": 700}})
        small.goto(link)
        small.wait_for_selector("table.scores")
        small.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
        small.wait_for_timeout(300)
        seen = small.evaluate(INSIDE)
        assert seen["out"] == [] and seen["width"] <= 320, (what, seen)
        shot(small, f"evening-320-es-{what}")
        clean(small)


# ------------------------------------------------------------------ then: /, the manifest, the sound, My games


def test_the_root_leads_browsers_to_play_and_tells_other_clients_where_things_are(client):
    browser_like = client.get("/", headers={"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"})
    assert browser_like.status_code == 302 and browser_like.headers["Location"].endswith("/play")
    for accept in ("application/json", "*/*", None):
        r = client.get("/", headers={"Accept": accept} if accept else {})
        assert r.status_code == 200 and r.mimetype == "application/json", accept
        assert r.get_json() == {"service": "referee", "play": "/play", "docs": "/docs", "redoc": "/redoc",
                                "openapi": "/openapi.json"}


def test_a_browser_at_the_root_lands_on_play_which_names_the_docs(phone, origin):
    for locale, words in (("en-US", "For developers: the API and its documentation at /docs"),
                          ("es-ES", "Para programadores: la API y su documentación en /docs")):
        page = phone(locale=locale)
        width = at_width(page, locale)
        page.goto(f"{origin}/")
        page.wait_for_selector("#docs-link")
        assert urlsplit(page.url).path == "/play"
        assert page.inner_text("#docs-link") == words
        assert page.get_attribute("#docs-link a", "href") == "/docs"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        clean(page)


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


HOME_SCREEN = {  # what "Add to Home screen" calls the page, in the page's language (its title too)
    "en": {"name": "Referee at the table", "short_name": "Referee",
           "description": "Referee a real game of Gops or Gofo from your phones."},
    "es": {"name": "Árbitro en la mesa", "short_name": "Árbitro",
           "description": "Arbitra una partida real de Gops o Gofo desde los teléfonos."},
}


def app_manifest(page):
    """The manifest Chromium itself takes for `page` (what it would install): its URL and its fields."""
    cdp = page.context.new_cdp_session(page)
    try:
        got = cdp.send("Page.getAppManifest")
    finally:
        cdp.detach()
    assert got["errors"] == [], got["errors"]
    return urlsplit(got["url"]).path, json.loads(got["data"])


@pytest.mark.parametrize("locale,width", [("en-US", 360), ("es-ES", 320), ("es-ES", 360), ("en-US", 320)])
def test_the_page_names_a_manifest_with_icons_for_the_home_screen(phone, origin, locale, width):
    """The page links the manifest of its language: a Spanish phone adds "Árbitro en la mesa" to its
    Home screen, an English one "Referee at the table"; the language button switches it with the
    page. Either is the same app (its id, start, scope and icons)."""
    lang = locale[:2]
    other = "es" if lang == "en" else "en"
    page = phone(locale=locale)
    page.set_viewport_size({"width": width, "height": 700})
    page.goto(f"{origin}/play")
    page.wait_for_selector("#sha-check[data-ok=yes]")
    href = page.get_attribute("link[rel=manifest]", "href")
    assert href == f"/play/assets/manifest.{lang}.webmanifest"
    manifest = page.evaluate("async (u) => { const r = await fetch(u); return { type: r.headers.get('Content-Type'), body: await r.json() }; }", href)
    assert manifest["type"].startswith("application/manifest+json")
    body = manifest["body"]
    assert {k: body[k] for k in HOME_SCREEN[lang]} == HOME_SCREEN[lang] and body["lang"] == lang
    assert body["name"] == page.title()  # the name on the Home screen is the page's own title
    assert app_manifest(page) == (href, body)  # what Chromium would install
    assert body["id"] == body["start_url"] == body["scope"] == "/play" and body["display"] == "standalone"
    pngs = [i for i in body["icons"] if i["type"] == "image/png"]
    assert {i["sizes"] for i in pngs} == {"192x192", "512x512"}
    for icon in pngs:
        r = requests.get(f"{origin.replace('table.local', '127.0.0.1')}{icon['src']}", timeout=10)
        assert r.status_code == 200 and r.headers["Content-Type"] == "image/png"
        n = int(icon["sizes"].split("x")[0])
        assert png_size(r.content) == (n, n)
    assert page.evaluate("document.documentElement.scrollWidth") <= width

    # The header's language button: the page, and the app it would install, in the other language.
    page.tap("#lang")
    page.wait_for_function("l => document.documentElement.lang === l", arg=other)
    path, switched = app_manifest(page)
    assert path == f"/play/assets/manifest.{other}.webmanifest"
    assert {k: switched[k] for k in HOME_SCREEN[other]} == HOME_SCREEN[other] and switched["name"] == page.title()
    same = ("id", "start_url", "scope", "display", "background_color", "theme_color", "icons")
    assert {k: switched[k] for k in same} == {k: body[k] for k in same}
    page.reload()  # the choice is kept: so is the manifest
    page.wait_for_selector("#sha-check[data-ok=yes]")
    assert page.get_attribute("link[rel=manifest]", "href") == path
    shot(page, f"evening-manifest-{lang}-{width}")
    # The committed icons are what the generator draws.
    from service.web.play import icons
    for n in icons.SIZES:
        assert (icons.STATIC / f"icon-{n}.png").read_bytes() == icons.png(n)
    clean(page)


COUNT_NOTES = """
  window.notes = 0;
  const Context = window.AudioContext;
  if (Context) {
    const make = Context.prototype.createOscillator;
    Context.prototype.createOscillator = function () { window.notes += 1; return make.call(this); };
  }
"""


@pytest.mark.parametrize("locale, off", [("en-US", "Your-turn sound: off (tap to turn on)"),
                                         ("es-ES", "Sonido de tu turno: no (toca para ponerlo)")])
def test_the_your_turn_sound_is_off_until_turned_on(phone, origin, live_server, locale, off):
    """Off by default: a turn begins in silence. Turned on (a tap in the bar), it plays its two notes
    once, and again when the next turn begins; remembered on this phone."""
    created = gops_game(live_server, profile="classic", options={"ranks": 3})
    page = phone(locale=locale)
    width = at_width(page, locale)
    page.add_init_script(COUNT_NOTES)
    page.goto(f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}")
    page.wait_for_selector("#hand [data-card]:not([disabled])")
    assert page.evaluate("window.notes") == 0  # the turn began: no sound
    assert page.get_attribute("#sound", "aria-pressed") == "false"
    assert page.get_attribute("#sound", "aria-label") == off
    page.tap("#sound")
    assert page.get_attribute("#sound", "aria-pressed") == "true" and page.evaluate("window.notes") == 2
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.click("#hand [data-card='1']")
    page.click("#bid")
    page.wait_for_selector("#scores tr[data-seat='0'][data-status='committed']")
    commit(live_server, created, 1, 1, 2)
    reveal(live_server, created, 1, 1, 2)
    page.wait_for_selector("#last-round[data-round='1']")
    page.wait_for_function("() => window.notes === 4")  # round 2: this phone's turn again
    page.reload()
    page.wait_for_selector("#hand [data-card]:not([disabled])")
    assert page.get_attribute("#sound", "aria-pressed") == "true"
    shot(page, f"evening-sound-on-{locale}")
    readable(page)
    clean(page)


def test_my_games_lists_the_games_this_phone_created_or_joined(phone, origin, live_server):
    """A phone that opened a seat's link finds the game under My games on /play, and gets back to
    its seat in one tap; a game it created offers its links too."""
    joined = gops_game(live_server, profile="classic", options={"ranks": 3})
    table = requests.post(f"{live_server}/v1/gofo/tables", json={"seats": 3}, timeout=10).json()
    for locale, title, back in (("en-US", "My games", "Back to seat {}"), ("es-ES", "Mis partidas", "Volver al puesto {}")):
        page = phone(locale=locale)
        width = at_width(page, locale)
        page.goto(f"{origin}/play#gops={joined['id']}&seat=1&t={joined['seat_tokens'][1]}")
        page.wait_for_selector("#hand [data-card]")
        page.goto(f"{origin}/play#gofo={table['id']}&seat=2&t={table['seat_tokens'][2]}")
        page.wait_for_selector("#seats")
        page.goto(f"{origin}/play")
        page.wait_for_selector("#my-games")
        assert page.inner_text("#my-games h2") == title
        items = page.eval_on_selector_all("#my-games li", "els => els.map(e => [e.dataset.kind, e.dataset.id])")
        assert items == [["gofo", table["id"]], ["gops", joined["id"]]]  # the latest first
        assert page.locator("#my-games .saved-host").count() == 0  # joined, not created: no links to hand out
        assert page.inner_text(f"#my-games li[data-id='{joined['id']}'] .saved-seat") == back.format(2)
        shot(page, f"evening-my-games-{locale}")
        readable(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.tap(f"#my-games li[data-id='{joined['id']}'] .saved-seat")
        page.wait_for_function("() => document.body.dataset.page === 'gops-seat'")
        page.wait_for_selector("#hand [data-card]")
        assert page.inner_text("h1") in ("Gops — Seat 2", "Gops — Puesto 2")
        clean(page)

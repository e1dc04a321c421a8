"""/play at a real table, the second pass: what a redraw keeps, words for players, seating people,
a turn noticed, and the story of a game as a picture.

Each test plays as players at a table do, in headless Chromium at 360 px on an insecure LAN-like
origin (``tests/test_play.py`` sets those up: its fixtures and helpers are used here).
"""

from __future__ import annotations

import re

import pytest
import requests
from test_play import (  # noqa: F401 - fixtures: origin (table.local), phone
    ARTIFACTS,
    PHONE,
    Table,
    clean,
    create_gofo,
    create_gops,
    origin,
    phone,
    shot,
)
from test_play_small_screens import Screens

pytestmark = pytest.mark.slow


def screen_shot(page, name, top=None):
    """What the phone's screen shows (not the whole page), from `top` (a selector) if given:
    tests/artifacts/play-screen-<name>.png, the pictures docs/play.png is made of."""
    if top:
        page.eval_on_selector(top, "el => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 8)")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"play-screen-{name}.png"))


def is_open(page, selector):
    return page.eval_on_selector(selector, "d => d.open")


def gops_view(live_server, game_id):
    return requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()


# ------------------------------------------------------------------ 5. redraws keep what was opened


def test_redraws_keep_what_the_player_opened(phone, origin, live_server):
    """The host's join links stay as the host left them (closed in round 1, open after it); a
    seat's "Rounds so far" stays open when another seat bids; another language keeps the card picked."""
    host = phone()
    _, links = create_gops(host, origin, ranks=3)
    assert is_open(host, "#links")  # nobody has played: open, to hand the codes out
    host.click("#links > summary")
    p0 = phone()
    p1 = phone()
    p0.goto(links[0])
    p1.goto(links[1])
    p0.click("#hand [data-card='1']")
    p0.click("#bid")
    host.wait_for_selector("#scores tr[data-seat='0'][data-status='committed']")
    assert not is_open(host, "#links"), "a redraw opened the links the host closed"
    host.click("#links > summary")  # a late player: the host shows the codes again
    p1.click("#hand [data-card='2']")
    p1.click("#bid")
    for page in (host, p0):
        page.wait_for_selector("#last-round[data-round='1']", timeout=30_000)
    p1.click("#hand [data-card='1']")
    p1.click("#bid")
    host.wait_for_selector("#scores tr[data-seat='1'][data-status='committed']")
    assert is_open(host, "#links"), "a redraw after round 1 closed the links the host opened"

    p0.click("#history > summary")
    p0.wait_for_selector("#scores tr[data-seat='1'][data-status='committed']")
    assert is_open(p0, "#history"), "another seat's bid closed the rounds the player opened"
    p0.click("#hand [data-card='3']")
    p0.click("#lang")
    p0.wait_for_function("() => document.documentElement.lang === 'es'")
    assert p0.get_attribute("#hand [data-card='3']", "aria-pressed") == "true"
    assert p0.inner_text("#bid") == "Apostar 3" and is_open(p0, "#history")
    assert p0.inner_text("#name-form label") == "Tu nombre" and p0.inner_text("#my-name-save") == "Guardar"
    shot(p0, "story-redraw-keeps-es")
    screen_shot(p0, "gops-seat-es")
    clean(host, p0, p1)


def test_a_tap_on_a_panel_survives_a_redraw_before_its_toggle_event(phone, origin):
    """A panel's toggle event arrives a moment after the tap; a view landing in that moment redraws
    the page (on a loaded phone it often does). The tap must still count: the links stay closed after
    the host closed them, and open after the host opened them again."""
    host = phone()
    create_gops(host, origin, ranks=3)
    host.wait_for_function("() => document.body.dataset.phase === 'commit'")
    tap_then_redraw = "() => { document.querySelector('#links > summary').click(); document.getElementById('lang').click(); }"
    assert is_open(host, "#links")
    host.evaluate(tap_then_redraw)
    host.wait_for_function("() => document.documentElement.lang === 'es'")
    host.wait_for_timeout(200)  # the stale toggle event has arrived by now
    assert not is_open(host, "#links"), "the redraw reopened the links the host had just closed"
    host.evaluate(tap_then_redraw)
    host.wait_for_function("() => document.documentElement.lang === 'en'")
    host.wait_for_timeout(200)
    assert is_open(host, "#links"), "the redraw closed the links the host had just opened"
    clean(host)


# ------------------------------------------------------------------ 7. seating, one tap to play


def test_the_links_page_seats_players_in_order_and_the_creator_plays_in_one_tap(phone, origin):
    host = phone()
    table_id = create_gofo(host, origin, mode="dealt")
    seating = host.inner_text("#seating")
    screen_shot(host, "gofo-links")
    # Gofo plays in seat order, counter-clockwise (to the right): docs/rules/gofo.md [gofo-d-seats].
    assert "Seat 1 first, then Seat 2 on Seat 1's right" in seating and "counter-clockwise" in seating, seating
    first = host.eval_on_selector_all(".join input.link", "els => els.map(e => e.value)")[0]
    assert host.get_attribute("#play-as", "href") == first
    assert host.get_attribute("#play-as", "target") is None  # this tab: not a second one
    assert host.inner_text("#play-as") == "Play as Seat 1 on this phone"
    host.click("#play-as")
    host.wait_for_function("() => document.body.dataset.page === 'gofo-seat'")
    assert re.search(r"&seat=0&", host.url) and host.inner_text("h1") == "Gofo — Seat 1"
    host.click("#to-links")  # and back to the codes for the others
    host.wait_for_function("() => document.body.dataset.page === 'gofo-host'")
    assert f"#gofo={table_id}&host=" in host.url
    host.click("#lang")
    assert "hacia la derecha: sentido antihorario" in host.inner_text("#seating")
    assert host.inner_text("#play-as") == "Jugar como Puesto 1 en este teléfono"
    gops_host = phone()
    _, links = create_gops(gops_host, origin, ranks=3)
    assert gops_host.get_attribute("#play-as", "href") == links[0]
    clean(host, gops_host)


# ------------------------------------------------------------------ 8. words for players


def test_the_create_form_shows_only_what_applies_and_describes_the_choice(phone, origin):
    page = phone()
    page.goto(f"{origin}/play#new=gops")
    assert not page.is_visible("#f-games") and not page.is_visible("#f-target")  # "One game"
    page.select_option("#f-format", "best_of")
    assert page.is_visible("#f-games") and not page.is_visible("#f-target")
    page.select_option("#f-format", "target")
    assert page.is_visible("#f-target") and not page.is_visible("#f-games")
    # The hint describes the option chosen.
    assert page.inner_text("#f-prize_order-hint").startswith("The referee shuffles the prizes")
    page.select_option("#f-prize_order", "reported")
    assert page.inner_text("#f-prize_order-hint").startswith("You shuffle a real prize pile")
    # No option's words are cut off by its select, in either language, on either form.
    fits = """() => {
      const ctx = document.createElement('canvas').getContext('2d');
      const cut = [];
      for (const sel of document.querySelectorAll('select')) {
        const style = getComputedStyle(sel);
        ctx.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room = sel.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
        for (const o of sel.options) if (ctx.measureText(o.text).width > room) cut.push(`${sel.name}: ${o.text}`);
      }
      return cut;
    }"""
    cut = []
    for locale in ("en-US", "es-ES"):
        form = phone(locale=locale)
        for kind in ("gops", "gofo"):
            form.goto(f"{origin}/play#new={kind}")
            form.wait_for_selector(f"#{kind}-create-go")
            cut += [f"{locale} {kind} {c}" for c in form.evaluate(fits)]
    assert cut == [], "\n".join(cut)
    clean(page)


def test_checks_and_warnings_speak_to_players(phone, offline_page, live_server, origin):
    """What a check means first ("fair play checked"), how it was done one tap away; a host page on
    this computer's own address says phones can't reach it, and the server settings only on a tap."""
    page = phone()
    page.goto(f"{origin}/play")
    page.wait_for_selector("#sha-check[data-ok=yes]")
    assert page.inner_text("#sha-check") == "✔ This phone can seal bids and check fair play"
    page.click("#sha-check > summary")
    assert "4 published test vectors" in page.inner_text("#sha-check")

    local = offline_page(live_server, **PHONE)  # the host opened the page at 127.0.0.1
    create_gops(local, live_server, ranks=3)
    warning = local.inner_text("#loopback")
    assert warning.startswith("Phones on your Wi-Fi can't reach this address (http://127.0.0.1:"), warning
    assert "HOST=" not in warning and "REFEREE_PUBLIC_URL" not in warning
    local.click("#loopback summary")
    assert "HOST=0.0.0.0" in local.inner_text("#loopback")
    clean(page, local)


# ------------------------------------------------------------------ 9. your turn, noticed

# A phone that vibrates and keeps its screen on, recording what the page asks of it (a page on a
# LAN address has no Wake Lock: it is given one here).
PHONE_FEATURES = """
window.__vibrations = [];
window.__locks = [];
Object.defineProperty(Navigator.prototype, 'vibrate', { configurable: true,
  value(pattern) { window.__vibrations.push(pattern); return true; } });
const wakeLock = { request(type) {
  const lock = { type, released: false, release() { this.released = true; window.__locks.push('released'); return Promise.resolve(); } };
  window.__locks.push(type);
  window.__lock = lock;
  return Promise.resolve(lock);
} };
Object.defineProperty(Navigator.prototype, 'wakeLock', { configurable: true, get() { return wakeLock; } });
"""


def test_a_turn_is_noticed_once_and_the_screen_stays_awake(phone, origin, live_server):
    host = phone()
    _, links = create_gops(host, origin, ranks=3)
    p0 = phone()
    p1 = phone()
    p0.add_init_script(PHONE_FEATURES)
    p0.goto(links[0])
    p1.goto(links[1])
    p0.wait_for_selector("#hand [data-card]")
    p0.wait_for_function("() => document.title === '● Your turn — Gops'")
    assert p0.evaluate("window.__locks") == ["screen"]
    assert p0.evaluate("window.__vibrations") == []  # nobody has touched this phone yet: it may not vibrate
    p0.click("#hand [data-card='1']")
    p0.click("#bid")
    p0.wait_for_function("() => document.title === 'Gops — Referee at the table'")
    p1.click("#hand [data-card='2']")
    p1.click("#bid")
    p0.wait_for_selector("#last-round[data-round='1']", timeout=30_000)
    p0.wait_for_function("() => document.title === '● Your turn — Gops'")
    assert p0.evaluate("window.__vibrations") == [[120, 80, 120]]
    # Redraws of the same turn (another language, the other seat's bid) do not vibrate again.
    p0.click("#lang")
    assert p0.title() == "● Te toca — Gops"
    p1.click("#hand [data-card='1']")
    p1.click("#bid")
    p0.wait_for_selector("#scores tr[data-seat='1'][data-status='committed']")
    assert p0.evaluate("window.__vibrations") == [[120, 80, 120]]
    # The browser let the screen sleep (the page was hidden): shown again, the lock is taken again.
    p0.evaluate("window.__lock.released = true; document.dispatchEvent(new Event('visibilitychange'))")
    p0.wait_for_function("() => window.__locks.length === 2")
    assert p0.evaluate("window.__locks") == ["screen", "screen"]
    p0.click("#hand [data-card='2']")
    p0.click("#bid")
    p0.wait_for_selector("#last-round[data-round='2']", timeout=30_000)
    assert len(p0.evaluate("window.__vibrations")) == 2
    p0.click("#hand [data-card='3']")
    p0.click("#bid")
    p1.click("#hand [data-card='3']")
    p1.click("#bid")
    p0.wait_for_function("() => document.body.dataset.phase === 'over'", timeout=30_000)
    p0.wait_for_function("() => window.__locks[window.__locks.length - 1] === 'released'")  # the game is over
    assert p0.title() == "Gops — Árbitro en la mesa"
    clean(host, p0, p1)


# ------------------------------------------------------------------ 10. the story as a picture


def chart(page, selector):
    return page.eval_on_selector(selector, """svg => ({
      role: svg.getAttribute('role'),
      title: svg.querySelector('title').textContent,
      desc: svg.querySelector('desc').textContent,
      lines: [...svg.querySelectorAll('g.series')].map(g => ({
        seat: g.dataset.seat, points: g.querySelector('polyline').getAttribute('points').split(' ').length })),
      strip: [...svg.querySelectorAll('text.strip')].map(t => [t.textContent, t.getAttribute('fill')]),
      width: svg.getBoundingClientRect().width,
    })""")


def test_a_whole_gops_game_ends_with_its_story_as_a_chart(phone, origin, live_server):
    host = phone()
    game_id, links = create_gops(host, origin, ranks=4)
    p0 = phone()
    p1 = phone(locale="es-ES")
    p0.goto(links[0])
    p1.goto(links[1])
    for rnd, (a, b) in enumerate([(4, 1), (1, 4), (3, 2), (2, 3)], start=1):
        p0.click(f"#hand [data-card='{a}']")
        p0.click("#bid")
        p1.click(f"#hand [data-card='{b}']")
        p1.click("#bid")
        for page in (p0, p1):
            page.wait_for_selector(f"#last-round[data-round='{rnd}']", timeout=30_000)
    final = gops_view(live_server, game_id)
    for page in (p0, p1, host):
        page.wait_for_selector("#verdict[data-verdict='verified']", timeout=30_000)
        page.wait_for_selector("#gops-story svg.chart")
    assert p0.inner_text("#verdict") == "✔ Fair play checked"
    assert not is_open(p0, "#verdict-how")  # how: one tap away
    assert p1.inner_text("#verdict") == "✔ Juego limpio comprobado"
    seen = chart(p0, "#gops-story svg.chart")
    assert seen["role"] == "img" and seen["title"] == "The game, round by round"
    # One line per seat, a point per round and the start; under the rounds each prize in its taker's colour.
    assert seen["lines"] == [{"seat": "0", "points": 5}, {"seat": "1", "points": 5}]
    prizes = [r["pot"][-1] for r in final["history"]]
    winners = [r["winners"] for r in final["history"]]
    assert [text for text, _ in seen["strip"]] == [{1: "A", 11: "J", 12: "Q", 13: "K"}.get(p, str(p)) for p in prizes]
    colours = {w[0]: c for (_, c), w in zip(seen["strip"], winners) if len(w) == 1}
    assert len(set(colours.values())) == len(colours)
    # The same story in words: every round, and the final scores.
    assert seen["desc"].count("Round ") == 4 and f"Seat 1 {final['scores'][0]}, Seat 2 {final['scores'][1]}." in seen["desc"]
    legend = p0.eval_on_selector_all("#gops-story .legend li", "els => els.map(e => e.textContent.trim())")
    assert legend == [f"Seat 1: {final['scores'][0]}", f"Seat 2: {final['scores'][1]}"]
    assert chart(p1, "#gops-story svg.chart")["title"] == "La partida, ronda a ronda"
    shot(p0, "story-gops-over")
    screen_shot(p0, "gops-story", "#result")
    shot(p1, "story-gops-over-es")
    screens = Screens(phone)
    over = "() => document.querySelector('#gops-story svg.chart') && document.querySelector('#verdict')"
    screens.check("gops-seat-story", links[0], over)
    screens.check("gops-host-story", host.url, over)
    screens.assert_fit(["gops-seat-story", "gops-host-story"])
    clean(host, p0, p1)


def play_hands(table, hands):
    """Tabletop hands through the API: every seat in, voy, stand pat, mano declares the most."""
    for _ in range(400):
        if table.answer["table"]["hand_number"] > hands:
            return
        hand = table.answer["hand"]
        seat, phase = hand["to_act"], hand["phase"]
        if phase == "opening":
            name, body = "open", {"amount": 2}
        elif phase == "entering":
            name, body = "enter", {"blind": False}
        elif phase in ("raising", "betting"):
            name, body = "pass", {}
        elif phase == "speaking":
            name, body = "voy", {}
        elif phase == "discard":
            name, body = "discard", {"count": 0}
        elif phase == "canto" and hand["canto"]["stage"] == "declare":
            name, body = "declare", {"points": 30 if seat == hand["mano"] else 20}
        else:
            name, body = "muck", {}
        table.move(seat, name, body, table.host)
    raise AssertionError("the hands never ended")


def test_a_gofo_sessions_ledger_is_a_chart_of_balances(phone, origin, live_server):
    table = Table(live_server, seats=3, caja=100, refill=10, initial_front=30, mode="tabletop", first_dealer=0,
                  names=["Ana", None, "Luis <i>"])
    play_hands(table, 2)
    table.move(1, "name", {"name": "Bea"}, table.host)  # named between hands, by the table's host phone
    ledger = requests.get(f"{table.base}/ledger", timeout=10).json()
    names = ["Ana", "Bea", "Luis <i>"]
    assert ledger["names"] == names
    host = phone()
    host.goto(f"{origin}/play#gofo={table.id}&host={table.host}")
    host.wait_for_function("v => document.body.dataset.version === String(v)", arg=table.answer["version"])
    headers = host.eval_on_selector_all("#seats thead th", "els => els.map(e => e.textContent)")
    assert headers == ["", "Can bet", "Bet in", "Status", "Cards"]
    host.click("#ledger > summary")
    host.wait_for_selector("#gofo-story svg.chart")
    seen = chart(host, "#gofo-story svg.chart")
    assert seen["title"] == "Each player's balance, hand by hand" and seen["role"] == "img"
    assert seen["lines"] == [{"seat": str(s), "points": 3} for s in range(3)]
    balances = [s["balance"] for s in ledger["seats"]]
    assert seen["desc"].endswith(f"After hand 2: Ana {balances[0]}, Bea {balances[1]}, Luis <i> {balances[2]}.")
    legend = host.eval_on_selector_all("#gofo-story .legend li", "els => els.map(e => e.textContent.trim())")
    assert legend == [f"{names[s]}: {'+' if b > 0 else ''}{b}" for s, b in enumerate(balances)]
    assert host.locator("#app i").count() == 0  # a name is text, never markup
    # A move from another phone redraws the page: the ledger stays open.
    hand = table.answer["hand"]
    table.move(hand["to_act"], "open", {"amount": 2}, table.host)
    host.wait_for_function("v => document.body.dataset.version === String(v)", arg=table.answer["version"])
    assert is_open(host, "#ledger")
    host.click("#lang")
    assert host.eval_on_selector_all("#seats thead th", "els => els.map(e => e.textContent)") == [
        "", "Resto", "Apostado", "Estado", "Cartas"]
    host.wait_for_function("() => document.querySelector('#gofo-story svg.chart title')?.textContent"
                           " === 'El saldo de cada jugador, mano a mano'")
    shot(host, "story-gofo-ledger-es")
    screen_shot(host, "gofo-ledger-es", "#ledger")
    screens = Screens(phone)
    screens.check("gofo-host-story", host.url, f"() => document.body.dataset.version === '{table.answer['version']}'")
    screens.assert_fit(["gofo-host-story"])
    clean(host)

"""/play against the referee: a Gops game on one phone against a bot, the hint, and players' names.

Played as a player would, in headless Chromium at 360 px on an insecure LAN-like origin
(``tests/test_play.py`` sets those up: its fixtures and helpers are used here).
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs

import pytest
import requests
from support.client import bearer
from test_play import (  # noqa: F401 - fixtures: origin (table.local), phone
    clean,
    origin,
    phone,
    rank,
    readable,
    ready,
    shot,
)
from test_play_small_screens import Screens
from test_play_table import pause

pytestmark = pytest.mark.slow

BOT = {"en": "🤖 Referee · level {}", "es": "🤖 Árbitro · nivel {}"}
# When the referee plays several seats, each is named by its seat's number.
BOTS = {"en": "🤖 Referee {} · level {}", "es": "🤖 Árbitro {} · nivel {}"}


def fragment(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(page.url.split("#", 1)[1]).items()}


def play_against_the_referee(page, origin, *, level=None, ranks=None, name=None):
    """From the home page to the player's own seat of a new game against the referee's bot."""
    page.goto(f"{origin}/play")
    page.click("#new-referee")
    page.wait_for_selector("#referee-create-go")
    if level is not None:
        page.select_option("#f-level", str(level))
    if ranks is not None:
        page.fill("#f-ranks", str(ranks))
    if name is not None:
        page.fill("#f-name", name)
    page.click("#referee-create-go")
    page.wait_for_function("() => document.body.dataset.page === 'gops-seat' && document.body.dataset.phase === 'commit'")
    page.wait_for_selector("#hand [data-card]:not([disabled])")
    return fragment(page)


def seat_view(live_server, where):
    return requests.get(f"{live_server}/v1/gops/games/{where['gops']}/seats/{where['seat']}",
                        headers=bearer(where["t"]), timeout=10).json()


def test_a_whole_gops_game_against_the_referee(phone, origin, live_server):
    page = phone()
    page.goto(f"{origin}/play")
    assert page.inner_text("#new-referee") == "Play against the referee"
    page.click("#new-referee")
    page.wait_for_selector("#referee-create-go")
    form = page.inner_text("#referee-create")
    assert "Level 1 bids at random; level 8 plays close to the equilibrium all game, exactly in the last rounds." in form
    assert page.eval_on_selector("#f-level", "s => [s.value, s.options.length]") == ["4", 8]  # 1-8, 4 unless chosen
    shot(page, "referee-new")
    readable(page)
    where = play_against_the_referee(page, origin, level=8, ranks=5, name="Ana <b>x</b>")
    # Straight to the player's own seat (no links page): the referee plays seat 2.
    assert where["seat"] == "0" and re.fullmatch(r"[0-9a-f]{64}", where["k"])
    view = seat_view(live_server, where)
    assert view["bots"] == [{"seat": 1, "level": 8}] and view["names"] == ["Ana <b>x</b>", None]
    assert view["rules"]["ranks"] == 5 and view["rules"]["players"] == 2
    # The bot's seat is shown as the referee's, the player's by the name typed — as text.
    assert page.inner_text("#scores tr[data-seat='1'] th") == "🤖 Referee · level 8"
    assert page.inner_text("#scores tr[data-seat='0'] th") == "Ana <b>x</b> (you)"
    assert "Ana <b>x</b>" in page.inner_text("h1") and page.locator("#app b").count() == 0
    # The hint is off unless switched on: no suggestion on the screen.
    assert page.get_attribute("#hint", "data-on") == "no" and page.locator("#hint-mix").count() == 0
    shot(page, "referee-seat")
    readable(page)
    for rnd in range(1, 6):
        page.wait_for_selector("#hand [data-card]:not([disabled])")
        card = int(page.get_attribute("#hand [data-card]", "data-card"))
        page.click(f"#hand [data-card='{card}']")
        page.click("#bid")
        # The referee's answer comes in the same exchange: the round resolves without a second phone.
        page.wait_for_selector(f"#last-round[data-round='{rnd}']", timeout=30_000)
        text = page.inner_text("#last-round")
        assert f"Ana <b>x</b>: {rank(card)}" in text and "🤖 Referee · level 8: " in text, text
    page.wait_for_selector("#verdict[data-verdict='verified']", timeout=30_000)
    final = requests.get(f"{live_server}/v1/gops/games/{where['gops']}", timeout=10).json()
    assert final["phase"] == "over" and len(final["history"]) == 5
    assert page.eval_on_selector_all("#scores td.score", "els => els.map(e => e.textContent)") == final["scores"]
    assert page.locator("#hint").count() == 0 and page.locator("#name-form").count() == 0
    # The story as a picture names the players as the table does.
    legend = page.eval_on_selector_all("#gops-story .legend li", "els => els.map(e => e.textContent.trim())")
    assert legend == [f"Ana <b>x</b>: {final['scores'][0]}", f"🤖 Referee · level 8: {final['scores'][1]}"], legend
    shot(page, "referee-over")
    readable(page)
    # From the phone's saved games the host page: a join link for the player's seat only, none for the bot.
    page.goto(f"{origin}/play")
    page.click("ul.saved a")
    page.wait_for_function("() => document.body.dataset.page === 'gops-host' && document.body.dataset.phase === 'over'")
    # A finished game's links are drawn closed; the host opens them with a tap, and they stay open
    # through the redraws that follow (the live stream's first view comes after the page's own GET).
    page.click("#links summary")
    assert page.eval_on_selector_all(".join", "els => els.map(e => e.dataset.seat)") == ["0"]
    page.wait_for_function("() => document.querySelector('.join h3')?.textContent === 'Ana <b>x</b>'")  # once the view is in
    page.wait_for_timeout(300)  # let any redraw land: the panel must still be open, its heading visible
    assert page.locator(".join svg.qr").count() == 1 and page.inner_text(".join h3") == "Ana <b>x</b>"
    assert page.inner_text("#scores tr[data-seat='1'] th") == "🤖 Referee · level 8"
    clean(page)


def test_the_referee_in_spanish(phone, origin, live_server):
    page = phone(locale="es-ES")
    page.clock.install()  # the page's timers: standing still between the two taps (below)
    page.goto(f"{origin}/play")
    assert page.inner_text("#new-referee") == "Jugar contra el árbitro"
    page.click("#new-referee")
    page.wait_for_selector("#referee-create-go")
    assert page.inner_text("#referee-create h1") == "Jugar contra el árbitro"
    assert "el 8 juega cerca del equilibrio toda la partida, y exacto en las últimas rondas" in page.inner_text("#referee-create")
    # Two taps 120 ms apart on Jugar: one game, and the second tap, landing on the seat's page where
    # the card 3 is drawn, picks nothing. The page's clock stands still from the first tap, so however
    # fast or slow the game is created the second comes after the seat's page is drawn.
    creates = []
    page.on("request", lambda r: r.method == "POST" and r.url.endswith("/v1/gops/games") and creates.append(r.url))
    page.fill("#f-ranks", "3")
    jugar = page.locator("#referee-create-go").bounding_box()
    pause(page)
    page.touchscreen.tap(jugar["x"] + jugar["width"] / 2, jugar["y"] + jugar["height"] / 2)
    page.wait_for_function("() => document.body.dataset.page === 'gops-seat' && document.body.dataset.phase === 'commit'")
    page.wait_for_selector("#hand [data-card='3']")
    # The second tap: still on Jugar's place, where the card 3 is drawn now.
    card = page.locator("#hand [data-card='3']").bounding_box()
    left, right = max(jugar["x"], card["x"]), min(jugar["x"] + jugar["width"], card["x"] + card["width"])
    top, bottom = max(jugar["y"], card["y"]), min(jugar["y"] + jugar["height"], card["y"] + card["height"])
    assert left < right and top < bottom, ("the card 3 is not drawn where Jugar was", jugar, card)
    x, y = (left + right) / 2, (top + bottom) / 2
    page.clock.run_for(120)
    page.touchscreen.tap(x, y)
    page.clock.run_for(1000)
    page.clock.resume()
    under_finger = "([x, y]) => document.elementFromPoint(x, y)?.closest('[data-card]')?.dataset.card ?? null"
    assert page.evaluate(under_finger, [x, y]) == "3"  # once the page takes taps: the card 3
    page.wait_for_timeout(500)
    assert len(creates) == 1, creates
    assert page.eval_on_selector_all("#hand [aria-pressed='true']", "els => els.length") == 0
    assert page.is_disabled("#bid")
    where = fragment(page)
    assert page.inner_text("#scores tr[data-seat='1'] th") == BOT["es"].format(4)
    assert page.inner_text("#scores tr[data-seat='0'] th") == "Puesto 1 (tú)"  # no name typed
    assert seat_view(live_server, where)["names"] == [None, None]
    page.click("#hand [data-card='3']")
    page.click("#bid")
    page.wait_for_selector("#last-round[data-round='1']", timeout=30_000)
    assert f"{BOT['es'].format(4)}: " in page.inner_text("#last-round")
    # The language switched mid-game: the bot's seat in English.
    page.click("#lang")
    page.wait_for_function("() => document.body.dataset.phase === 'commit'")
    page.wait_for_selector("#scores")
    assert page.inner_text("#scores tr[data-seat='1'] th") == BOT["en"].format(4)
    clean(page)


def test_the_hint_shows_the_equilibrium_when_switched_on(phone, origin, live_server):
    page = phone()
    where = play_against_the_referee(page, origin, level=8, ranks=3)
    hint_url = f"{live_server}/v1/gops/games/{where['gops']}/seats/0/hint"
    asked = []
    page.on("request", lambda r: r.url.endswith("/seats/0/hint") and asked.append(r.url))
    assert page.inner_text("#hint-toggle") == "💡 Hint: off"
    assert page.locator("#hint-mix").count() == 0 and asked == []  # off: the referee is not even asked
    page.click("#hint-toggle")
    page.wait_for_selector("#hint-mix li")
    assert page.inner_text("#hint-toggle") == "💡 Hint: on"
    hint = requests.get(hint_url, headers=bearer(where["t"]), timeout=10).json()
    assert hint["exact"] is True  # Classic, three cards left: the exact equilibrium
    shown = page.eval_on_selector_all("#hint-mix li", "els => els.map(e => [e.dataset.cards, Number(e.dataset.probability), e.innerText])")
    played = [a for a in hint["actions"] if a["probability"] > 1e-9]
    assert [s[0] for s in shown] == [",".join(map(str, a["cards"])) for a in played]  # cards never played: left out
    assert len(played) < len(hint["actions"]) or len(played) == 3
    for (_, probability, text), action in zip(shown, played):
        assert probability == pytest.approx(action["probability"])
        pct = round(action["probability"] * 100)
        assert text.replace("\n", " ").split() == [rank(action["cards"][0]), f"{pct}%" if pct else "<1%"]
    value = page.get_attribute("#hint-value", "data-value")
    assert float(value) == pytest.approx(hint["value"]) and page.get_attribute("#hint-value", "data-exact") == "yes"
    signed = round(hint["value"], 1)
    words = page.inner_text("#hint-value")
    assert words.startswith("You can expect to end about " + ("level" if signed == 0 else f"{abs(signed):g} point"))
    assert words.endswith("ahead from here: exact" if signed > 0 else "behind from here: exact" if signed < 0 else "from here: exact")
    shot(page, "referee-hint")
    readable(page)
    # Remembered on this phone: on after a reload, one request a round.
    page.reload()
    page.wait_for_selector("#hint-mix li")
    page.click(f"#hand [data-card='{played[0]['cards'][0]}']")
    page.click("#bid")
    page.wait_for_selector("#last-round[data-round='1']", timeout=30_000)
    page.wait_for_selector("#hint-mix li")  # round 2's hint
    assert len(asked) == 3, asked
    # Off again: gone, and not asked for in the next round.
    page.click("#hint-toggle")
    assert page.locator("#hint-mix").count() == 0 and page.inner_text("#hint-toggle") == "💡 Hint: off"
    page.click("#hand [data-card]:not([disabled])")
    page.click("#bid")
    page.wait_for_selector("#last-round[data-round='2']", timeout=30_000)
    page.wait_for_selector("#hand [data-card]:not([disabled])")
    assert page.locator("#hint-mix").count() == 0 and len(asked) == 3
    clean(page)


def test_three_seats_hint_and_a_refused_hint_said_quietly(phone, origin, live_server):
    """Three seats, two of them the referee's: the hint is the level-8 bot's mix and the seat's own
    expected points, an estimate. A hint asked as the round moves on is refused (409
    hint_unavailable): the referee's reason, in small print, no error toast."""
    created = requests.post(f"{live_server}/v1/gops/games", json={
        "profile": "standard", "options": {"players": 3, "ranks": 4},
        "bots": [{"seat": 1, "level": 3}, {"seat": 2, "level": 8}]}, timeout=10).json()
    token = created["seat_tokens"][0]
    assert created["seat_tokens"][1:] == [None, None]
    page = phone(locale="es-ES")
    page.goto(f"{origin}/play")
    page.evaluate("localStorage.setItem('referee:hints', 'on')")
    page.goto(f"{origin}/play#gops={created['id']}&seat=0&t={token}")
    page.wait_for_selector("#hint-mix li")
    assert page.inner_text("#hint-toggle") == "💡 Pista: sí"
    hint = requests.get(f"{live_server}/v1/gops/games/{created['id']}/seats/0/hint", headers=bearer(token), timeout=10).json()
    assert hint["exact"] is False
    assert page.eval_on_selector_all("#hint-mix li", "els => els.map(e => e.dataset.cards)") == \
        [",".join(map(str, a["cards"])) for a in hint["actions"] if a["probability"] > 1e-9]
    words = page.inner_text("#hint-value")
    assert words == f"Desde aquí puedes esperar ganar alrededor de {round(hint['value'], 1):g} puntos más: una estimación"
    names = page.eval_on_selector_all("#scores tbody th", "els => els.map(e => e.textContent)")
    assert names == ["Puesto 1 (tú)", BOTS["es"].format(2, 3), BOTS["es"].format(3, 8)]
    # A two-seat game between people, in its reveal phase: the referee's own refusal of a hint.
    people = requests.post(f"{live_server}/v1/gops/games", json={"profile": "classic", "options": {"ranks": 3}}, timeout=10).json()
    refused = page.evaluate(REFUSED_HINT, {"id": people["id"], "tokens": people["seat_tokens"]})
    assert refused["status"] == 409 and refused["body"]["code"] == "hint_unavailable", refused
    # The same refusal for the next round's hint on this phone, as if the round had moved on meanwhile.
    page.route("**/seats/0/hint", lambda route: route.fulfill(
        status=409, content_type="application/problem+json", body=json.dumps(refused["body"])))
    page.click("#hand [data-card='1']")
    page.click("#bid")
    page.wait_for_selector("#last-round[data-round='1']", timeout=30_000)
    page.wait_for_selector("#hint-unavailable")
    assert page.inner_text("#hint-unavailable") == refused["body"]["detail"]
    assert page.get_attribute("#hint-unavailable", "data-code") == "hint_unavailable"
    assert page.evaluate("document.getElementById('toast').hidden")  # quietly: no error toast
    # The browser's own console line for the refused request is the only error.
    assert page.blocked == [] and page.errors and all("status of 409" in e for e in page.errors), page.errors


# Both seats of a fresh game commit; seat 0 asks for a hint in the reveal phase.
REFUSED_HINT = """
async ({id, tokens}) => {
  const { call } = await import('/play/assets/api.js');
  const { bidCommitment, randomHex } = await import('/play/assets/sha256.js');
  for (const seat of [0, 1]) {
    await call('POST', `/v1/gops/games/${id}/seats/${seat}/commit`, { token: tokens[seat],
      body: { round: 1, commitment: bidCommitment(id, 1, seat, [seat + 1], randomHex(32)) } });
  }
  const r = await fetch(`/v1/gops/games/${id}/seats/0/hint`, { headers: { Authorization: `Bearer ${tokens[0]}` } });
  return { status: r.status, body: await r.json() };
}
"""


def test_names_typed_at_create_and_by_a_joining_player(phone, origin, live_server):
    host = phone()
    host.goto(f"{origin}/play")
    host.click("#new-gops")
    host.select_option("#f-profile", "standard")
    host.fill("#f-players", "3")
    host.fill("#f-ranks", "3")
    host.click("#names summary")
    assert host.locator("#names input").count() == 3  # one per player, as many as the form says
    host.fill("#f-name-0", "Ana")
    host.fill("#f-name-2", "<img src=x onerror=f()>")
    host.click("#gops-create-go")
    host.wait_for_selector(".join input.link")
    links = host.eval_on_selector_all(".join input.link", "els => els.map(e => e.value)")
    game_id = re.search(r"#gops=([^&]+)&", links[0]).group(1)
    # The links are drawn before the game's first view arrives (seats unnamed until it does).
    host.wait_for_function("() => document.querySelector('.join h3')?.textContent === 'Ana'")
    assert host.eval_on_selector_all(".join h3", "els => els.map(e => e.textContent)") == \
        ["Ana", "Seat 2", "<img src=x onerror=f()>"]
    assert host.locator("#app img").count() == 0
    public = requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()
    assert public["names"] == ["Ana", None, "<img src=x onerror=f()>"]
    # Seat 2 joins without a name: the page asks for one at the top, and keeps what is typed across redraws.
    p1 = phone(locale="es-ES")
    p1.goto(links[1])
    p1.wait_for_selector("#name-form[data-named='no']")
    assert p1.inner_text("h1").endswith("Puesto 2")
    p1.click("#my-name")
    p1.keyboard.type("Be")
    commit = "async ([id, link]) => {" \
             " const { call } = await import('/play/assets/api.js');" \
             " const { bidCommitment, seatSalt } = await import('/play/assets/sha256.js');" \
             " const p = new URLSearchParams(link.split('#')[1]);" \
             " await call('POST', `/v1/gops/games/${id}/seats/0/commit`, { token: p.get('t')," \
             "   body: { round: 1, commitment: bidCommitment(id, 1, 0, [1], seatSalt(p.get('k'), id, 1, 0)) } }); }"
    host.evaluate(commit, [game_id, links[0]])
    p1.wait_for_selector("#scores tr[data-seat='0'][data-status='committed']")  # a redraw while typing
    p1.keyboard.type("a")
    assert p1.input_value("#my-name") == "Bea"
    p1.click("#my-name-save")
    p1.wait_for_selector("#name-form[data-named='yes']")
    assert p1.inner_text("h1").endswith("Bea")
    assert p1.eval_on_selector_all("#scores tbody th", "els => els.map(e => e.textContent)") == \
        ["Ana", "Bea (tú)", "<img src=x onerror=f()>"]
    # Every phone shows it: the host's too.
    host.wait_for_function("() => [...document.querySelectorAll('#scores tbody th')].some((e) => e.textContent === 'Bea')")
    assert requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()["names"][1] == "Bea"
    clean(host, p1)


def test_the_new_screens_fit_a_360_px_phone(phone, origin, live_server):
    screens = Screens(phone)
    screens.check("referee-new", f"{origin}/play#new=referee", "() => document.getElementById('referee-create-go')")
    screens.check("gops-new-names", f"{origin}/play#new=gops", "() => document.querySelectorAll('#names input').length === 2")
    screens.check("gofo-new-names", f"{origin}/play#new=gofo", "() => document.querySelectorAll('#names input').length === 5")
    created = requests.post(f"{live_server}/v1/gops/games", json={
        "profile": "classic", "options": {"ranks": 13}, "bots": [{"seat": 1, "level": 8}],
        "names": ["Maximiliana Villalobos", None]}, timeout=10).json()
    for page in screens.pages.values():
        page.goto(f"{origin}/play")
        page.evaluate("localStorage.setItem('referee:hints', 'on')")
    url = f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}"
    # 13 cards left: an estimate, with every legal bid the mix plays.
    screens.check("referee-seat-hint", url, "() => document.querySelector('#hint-mix li') && document.body.dataset.phase === 'commit'")
    unnamed = requests.post(f"{live_server}/v1/gops/games", json={
        "profile": "classic", "options": {"ranks": 13}, "bots": [{"seat": 1, "level": 1}]}, timeout=10).json()
    url = f"{origin}/play#gops={unnamed['id']}&seat=0&t={unnamed['seat_tokens'][0]}"
    screens.check("referee-seat-unnamed", url, "() => document.querySelector(\"#name-form[data-named='no']\") && document.querySelector('#hint-mix li')")
    table = requests.post(f"{live_server}/v1/gofo/tables", json={
        "seats": 4, "caja": 100, "refill": 10, "initial_front": 30,
        "bots": [{"seat": 1, "level": 5}, {"seat": 2, "level": 8}, {"seat": 3, "level": 2}]}, timeout=10).json()
    url = f"{origin}/play#gofo={table['id']}&seat=0&t={table['seat_tokens'][0]}"
    screens.check("gofo-seat-bots-hint", url, "() => document.querySelector('#hint-move, #hint-unavailable') && document.body.dataset.busy !== 'yes'")
    screens.assert_fit(["referee-new", "gops-new-names", "gofo-new-names", "referee-seat-hint", "referee-seat-unnamed", "gofo-seat-bots-hint"])


def test_names_at_a_gofo_table(phone, origin, live_server):
    host = phone(locale="es-ES")
    host.goto(f"{origin}/play")
    host.click("#new-gofo")
    host.select_option("#f-mode", "dealt")
    host.fill("#f-seats", "3")
    host.click("#names summary")
    assert host.locator("#names input").count() == 3
    host.fill("#f-name-1", "Tía Marta")
    host.click("#gofo-create-go")
    host.wait_for_selector(".join input.link")
    table_id = re.search(r"#gofo=([^&]+)&", host.url).group(1)
    assert requests.get(f"{live_server}/v1/gofo/tables/{table_id}", timeout=10).json()["names"] == [None, "Tía Marta", None]
    # The links page is drawn before the table's first view (which carries the names) arrives.
    host.wait_for_function("() => [...document.querySelectorAll('.join h3')].some((e) => e.textContent === 'Tía Marta')")
    assert host.eval_on_selector_all(".join h3", "els => els.map(e => e.textContent)") == ["Puesto 1", "Tía Marta", "Puesto 3"]
    links = host.eval_on_selector_all(".join input.link", "els => els.map(e => e.value)")
    seat = phone()
    seat.goto(links[2])
    seat.wait_for_selector("#name-form[data-named='no']")
    seat.fill("#my-name", "Ramón")
    seat.click("#my-name-save")
    seat.wait_for_selector("#name-form[data-named='yes']")
    assert seat.inner_text("h1").endswith("Ramón")
    assert seat.inner_text("#seats").count("Tía Marta") == 1 and "Ramón (you)" in seat.inner_text("#seats")
    host.wait_for_function("() => document.getElementById('seats') && document.getElementById('seats').textContent.includes('Ramón')")
    assert requests.get(f"{live_server}/v1/gofo/tables/{table_id}", timeout=10).json()["names"] == [None, "Tía Marta", "Ramón"]
    clean(host, seat)


def test_a_dealt_gofo_table_filled_with_the_referees_bots(phone, origin, live_server):
    """One player and two of the referee's bots at a dealt table, the hint on: the hand played to its end."""
    page = phone(locale="es-ES")
    page.goto(f"{origin}/play")
    page.evaluate("localStorage.setItem('referee:hints', 'on')")
    page.click("#new-gofo")
    page.select_option("#f-mode", "tabletop")
    assert page.locator("#bots").is_hidden()  # real cards: the referee cannot play a seat
    page.select_option("#f-mode", "dealt")
    page.fill("#f-seats", "3")
    page.dispatch_event("#f-seats", "input")
    assert page.eval_on_selector_all("#f-bot_seats option", "els => els.map(e => e.textContent)") == \
        ["Ninguno", "Los 1 últimos", "Los 2 últimos"]
    page.select_option("#f-bot_seats", "2")
    page.select_option("#f-bot_level", "8")
    page.fill("#f-caja", "100")
    page.fill("#f-refill", "10")
    page.fill("#f-initial_front", "30")
    page.click("#gofo-create-go")
    # One player: straight to that seat.
    page.wait_for_function("() => document.body.dataset.page === 'gofo-seat' && document.body.dataset.version")
    where = fragment(page)
    assert where["seat"] == "0"
    base = f"{live_server}/v1/gofo/tables/{where['gofo']}"
    view = requests.get(f"{base}/seats/0", headers=bearer(where["t"]), timeout=10).json()
    assert view["bots"] == [{"seat": 1, "level": 8}, {"seat": 2, "level": 8}]
    rows = page.eval_on_selector_all("#seats tbody th", "els => els.map(e => e.firstChild.textContent)")
    assert rows == ["Puesto 1", BOTS["es"].format(2, 8), BOTS["es"].format(3, 8)]
    hinted = set()
    for _ in range(60):
        view = requests.get(f"{base}/seats/0", headers=bearer(where["t"]), timeout=10).json()
        if view["table"]["hand_number"] > 1:
            break
        hand = view["hand"]
        assert hand["to_act"] == 0, hand  # the bots have answered in the same request: a person must act
        ready(page, view["version"], 0)
        actions = page.eval_on_selector_all("#actions [data-action]", "els => els.map(e => e.dataset.action)")
        page.wait_for_selector("#hint-move, #hint-unavailable")
        if page.locator("#hint-move").count():
            legal = {a["type"] for a in hand["legal_actions"]}
            assert page.get_attribute("#hint-move", "data-move") in legal
            assert page.inner_text("#hint-move").startswith("Sugerencia: ")
            if hand["phase"] == "discard":
                assert page.locator("#hint-discards tbody tr").count() >= 1
            hinted.add(hand["phase"])
        if "open" in actions:
            page.fill("#amount-open", "2")
            page.click("#actions [data-action='open']")
        elif "look" in actions:
            page.click("#actions [data-action='look']")
        elif "enter" in actions:
            page.click("#actions [data-action='enter'][data-blind='false']")
        elif "pass" in actions:
            page.click("#actions [data-action='pass']")
        elif "voy" in actions:
            page.click("#actions [data-action='voy']")
        elif "ver" in actions:
            page.click("#actions [data-action='ver']")
        elif "discard" in actions:
            page.click("#actions [data-action='discard']")
        else:
            raise AssertionError(f"no move chosen among {actions} in {hand['phase']}")
        page.wait_for_function("v => Number(document.body.dataset.version) > v && document.body.dataset.busy !== 'yes'",
                               arg=view["version"], timeout=30_000)
    else:
        raise AssertionError("the hand did not end")
    assert hinted, "no hint was shown"
    result = view["table"]["last_result"]
    assert sum(result["net"]) == 0
    page.wait_for_selector("#last-hand #deal-verdict [data-verdict='verified']", timeout=30_000)
    assert BOTS["es"].format(2, 8) in page.inner_text("#last-hand") and BOTS["es"].format(3, 8) in page.inner_text("#last-hand")
    shot(page, "gofo-bots-hand-over")
    clean(page)


#: Counts each drawing of a seat's cards (#hand added to the page), from before the page's scripts run.
COUNT_HAND_DRAWS = """
window.handDraws = 0;
new MutationObserver((records) => {
  for (const record of records) for (const node of record.addedNodes) {
    if (node.nodeType === 1 && (node.id === 'hand' || node.querySelector('#hand'))) window.handDraws += 1;
  }
}).observe(document, { childList: true, subtree: true });
"""


def test_a_view_already_shown_is_not_drawn_again(phone, origin, live_server):
    """A redraw replaces the cards under a finger, and a tap whose press and release land on two
    different buttons is lost. The live stream's first message repeats the view the page fetched
    (and repeats it again after every reconnection), so a Gops seat draws a version once: here the
    stream is one message of the same view, ending at once, so the page hears it again and again."""
    created = requests.post(f"{live_server}/v1/gops/games", timeout=10, json={
        "profile": "classic", "options": {"ranks": 3}, "bots": [{"seat": 1, "level": 1}]}).json()
    where = {"gops": created["id"], "seat": 0, "t": created["seat_tokens"][0]}
    view = seat_view(live_server, where)
    heard = []

    def same_view_again(route):
        heard.append(route.request.url)
        route.fulfill(status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-store"},
                      body=f"id: {view['version']}\nevent: state\ndata: {json.dumps(view)}\n\n")

    page = phone()
    page.add_init_script(COUNT_HAND_DRAWS)
    page.route("**/events", same_view_again)
    page.goto(f"{origin}/play#gops={where['gops']}&seat=0&t={where['t']}")
    page.wait_for_selector("#hand [data-card]:not([disabled])")
    page.wait_for_function("() => document.body.dataset.phase === 'commit'")
    while len(heard) < 3:  # the stream ends after its message and the page connects again (every 0.5 s)
        page.wait_for_timeout(200)
    assert page.evaluate("window.handDraws") == 1
    page.click("#hand [data-card='2']")
    assert page.get_attribute("#hand [data-card='2']", "aria-pressed") == "true"
    assert page.evaluate("window.handDraws") == 2  # a tap redraws (the card picked): the page is alive

"""/play at a real table: a double tap, a bid revealed from another phone, the referee's reasons shown.

Each test plays as players at a table do, in headless Chromium at 360 px on an insecure LAN-like
origin (``tests/test_play.py`` sets those up: its fixtures and helpers are used here).
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlsplit

import pytest
import requests

from test_play import (  # noqa: F401 - fixtures: origin (table.local), phone
    MOVE_POST,
    clean,
    create_gofo,
    create_gops,
    origin,
    phone,
    public_table,
    ready,
    shot,
)

pytestmark = pytest.mark.slow


def moves_sent(page):
    """The moves `page` sends from now on: [(path, body)]."""
    sent = []

    def record(request):
        path = urlsplit(request.url).path
        if request.method == "POST" and MOVE_POST.match(path):
            sent.append((path, json.loads(request.post_data or "{}")))

    page.on("request", record)
    return sent


def pause(page):
    """Stop the page's clock now: its timers (the hold on a new screen's buttons, request time-outs)
    stand still until the test moves the clock. `pause_at` takes a time not yet past, and between
    reading the page's time and pausing it a loaded machine may let a second go by: read it again."""
    for _ in range(5):
        try:
            page.clock.pause_at(page.evaluate("Date.now()") + 1000)
            return
        except Exception as error:  # noqa: BLE001 - Playwright's Error: "Cannot fast-forward to the past"
            if "past" not in str(error):
                raise
    raise AssertionError("the page's clock could not be paused")


@pytest.mark.parametrize("locale,width", [("en-US", 360), ("es-ES", 320)])
def test_a_double_tap_at_the_tabletop_host_records_one_move(phone, origin, live_server, locale, width):
    """Two taps 120 ms apart on Enter: the first enters for the seat shown, and the second does not
    land on the next seat's Enter, drawn in the same place as soon as the first move's answer came.
    In English at 360 px and in Spanish at 320 px."""
    host = phone(locale=locale)
    host.set_viewport_size({"width": width, "height": 780})
    host.clock.install()  # the page's timers: standing still from the first tap (below)
    table_id = create_gofo(host, origin, mode="tabletop")
    host.wait_for_function("() => document.body.dataset.live === 'live'")
    sent = moves_sent(host)
    view = public_table(live_server, table_id)
    ready(host, view["version"], view["hand"]["to_act"])
    host.fill("#amount-open", "2")
    host.click("#actions [data-action='open']")
    view = public_table(live_server, table_id, after=view["version"], pages=[host])
    first = view["hand"]["to_act"]
    ready(host, view["version"], first)
    enter = "#actions [data-action='enter'][data-blind='false']"
    host.wait_for_selector(f"{enter}:not([disabled])")
    # The finger goes to the middle of the screen: a tap at the viewport's edge, where a button
    # drawn at the bottom of the screen may be cut off, can land on the line under it instead.
    host.eval_on_selector(enter, "el => el.scrollIntoView({ block: 'center' })")
    box = host.locator(enter).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    under_finger = "([x, y, s]) => Boolean(document.elementFromPoint(x, y)?.closest(s))"
    # The page's clock stops, so however slow this machine is the second tap comes 120 ms (page
    # time) after the first, and after the next seat's Enter is drawn under the finger.
    pause(host)
    assert host.evaluate(under_finger, [x, y, enter]), "Enter is not under the finger"
    host.touchscreen.tap(x, y)
    # The first tap entered: its move is on its way (its answer may take long under load: the
    # page's clock waits for it, standing still).
    host.wait_for_function("f => document.body.dataset.busy === 'yes' || document.body.dataset.acting !== String(f)", arg=first)
    host.wait_for_function(
        "s => document.body.dataset.acting === String(s) && document.body.dataset.busy !== 'yes'",
        arg=(first + 1) % 3, timeout=60_000)
    assert host.evaluate(under_finger, [x, y, enter]), "the next seat's Enter is not under the finger"
    # The next seat's Enter, where the finger is: the same button, give or take the pixel the page
    # may scroll by when the lines under it are a little shorter for this seat.
    moved = host.locator(enter).bounding_box()
    assert (moved["x"], moved["width"], moved["height"]) == (box["x"], box["width"], box["height"])
    assert abs(moved["y"] - box["y"]) <= 2, (moved, box)
    host.clock.run_for(120)
    host.touchscreen.tap(x, y)
    host.clock.resume()
    host.wait_for_timeout(1000)  # time for a move a second tap would have sent
    host.wait_for_function("() => document.body.dataset.busy !== 'yes'")
    after = public_table(live_server, table_id, pages=[host])
    assert after["version"] == view["version"] + 1, "the second tap entered for the next seat"
    assert after["hand"]["to_act"] == (first + 1) % 3
    # A moment after it was drawn, the next seat's Enter takes taps.
    host.wait_for_selector(f"{enter}:not([disabled])", timeout=30_000)
    # Every move names the version its screen showed.
    assert [(p.rsplit("/", 1)[1], b) for p, b in sent] == [
        ("open", {"amount": 2, "version": view["version"] - 1}),
        ("enter", {"blind": False, "version": view["version"]}),
    ], sent
    assert host.evaluate("document.documentElement.scrollWidth") <= width
    shot(host, f"gofo-tabletop-double-tap-{locale}")
    clean(host)


def toast(page):
    page.wait_for_selector("#toast:not([hidden])")
    return page.inner_text("#toast")


def test_a_refused_game_shows_the_referees_reason(phone, origin):
    """The Gops form says what the referee would refuse before it is sent (and cannot be sent); a
    table the referee refuses shows its reason, not only the kind of refusal: the field, by its
    label, and the referee's words."""
    for locale, classic, players in (
            ("en-US", "Classic is a 2-player game: choose Standard for 3 to 7 players.", "Players: a whole number from 2 to 7."),
            ("es-ES", "La clásica es para 2 jugadores: elige Estándar para 3 a 7.", "Jugadores: un número entero de 2 a 7.")):
        page = phone(locale=locale)
        width = 320 if locale.startswith("es") else 360  # Spanish at the smaller phone
        page.set_viewport_size({"width": width, "height": 700})
        sent = []
        page.on("request", lambda r: r.method == "POST" and sent.append(r.url))
        page.goto(f"{origin}/play#new=gops")
        page.select_option("#f-profile", "classic")
        page.fill("#f-players", "3")
        assert page.inner_text("#gops-form-problem") == classic
        assert page.is_disabled("#gops-create-go")
        page.fill("#f-players", "9")
        assert page.inner_text("#gops-form-problem") == players
        page.select_option("#f-profile", "standard")
        assert page.inner_text("#gops-form-problem") == players
        page.fill("#f-players", "3")
        assert page.is_hidden("#gops-form-problem") and page.is_enabled("#gops-create-go")
        page.select_option("#f-profile", "classic")  # back to classic: 2 players again
        assert page.input_value("#f-players") == "2" and page.is_hidden("#gops-form-problem")
        assert page.is_enabled("#gops-create-go")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(page, f"gops-form-says-why-{locale}")
        assert sent == [] and page.url.endswith("#new=gops")  # no game was asked for
        assert page.blocked == []
    page = phone()
    page.goto(f"{origin}/play#new=gofo")
    page.fill("#f-seats", "9")
    page.click("#gofo-create-go")
    said = toast(page)
    assert said == "The referee refused the request — Players: Must be greater than or equal to 2 and less than or equal to 6.", said
    assert page.url.endswith("#new=gofo")


def test_the_same_card_picked_again_at_once_in_the_next_game_is_picked(phone, origin, live_server):
    """A match of one-card games: game 1 ends on a tap on the A and one on Bid, game 2 deals the A
    again, and a tap on it at once picks it. The page's clock stands still from the first tap, so
    the second comes within the double-tap time however slow the machine is; the tap on Bid between
    them makes it a choice of its own, not the first's double tap (which left the A unpicked and Bid
    disabled, as a fast match of /play's tests once did). Nor is game 1's pick still held in game 2,
    whose round is also the 1st (a tap then took it back)."""
    created = requests.post(f"{live_server}/v1/gops/games", timeout=10, json={
        "profile": "standard", "options": {"ranks": 1}, "match": {"format": "cumulative", "games": 2}}).json()
    links = [f"{origin}/play#gops={created['id']}&seat={seat}&t={token}"
             for seat, token in enumerate(created["seat_tokens"])]
    first, second = phone(), phone()
    first.clock.install()
    for page, link in ((first, links[0]), (second, links[1])):
        page.goto(link)
    for game in (1, 2):
        second.wait_for_function("g => document.querySelector('#where').textContent.includes(`game ${g}`)", arg=game)
        second.click("#hand [data-card='1']")
        second.click("#bid")
        first.wait_for_function("g => document.querySelector('#where').textContent.includes(`game ${g}`)", arg=game)
        if game == 1:
            pause(first)
        first.click("#hand [data-card='1']")
        assert first.get_attribute("#hand [data-card='1']", "aria-pressed") == "true", game
        first.click("#bid")
    for page in (first, second):
        page.wait_for_selector("#verdict[data-verdict='verified']", timeout=30_000)
    assert requests.get(f"{live_server}/v1/gops/games/{created['id']}", timeout=10).json()["result"]["games_played"] == 2
    clean(first, second)


def test_a_card_pressed_as_another_seats_bid_arrives_is_picked(phone, origin, live_server):
    """A finger is on a card when the other seat's bid arrives: the page holds the new view's redraw
    until the finger is up, so the tap still picks the card (drawn at once, the card under the finger
    was replaced and the tap was lost: Bid stayed disabled), and the bid shows right after."""
    host = phone()
    game_id, links = create_gops(host, origin, ranks=3)
    first, second = phone(), phone()
    for page, link in ((first, links[0]), (second, links[1])):
        page.goto(link)
        page.wait_for_selector("#hand [data-card='3']")
    card = second.locator("#hand [data-card='3']").bounding_box()
    second.mouse.move(card["x"] + card["width"] / 2, card["y"] + card["height"] / 2)
    second.mouse.down()
    first.click("#hand [data-card='2']")
    first.click("#bid")
    first.wait_for_selector("#scores tr[data-seat='0'][data-status='committed']")
    version = requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()["version"]
    second.wait_for_function("(v) => Number(document.body.dataset.version) >= v", arg=version)  # it has the bid
    second.mouse.up()
    second.wait_for_selector("#scores tr[data-seat='0'][data-status='committed']")  # drawn once released
    assert second.get_attribute("#hand [data-card='3']", "aria-pressed") == "true"
    assert second.is_enabled("#bid")
    second.click("#bid")
    for page in (first, second):
        page.wait_for_selector("#last-round[data-round='1']", timeout=30_000)
    assert requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()["history"][0]["bids"] == {
        "0": [2], "1": [3]}
    clean(host, first, second)


def test_a_seat_reveals_from_a_fresh_phone_holding_only_its_link(phone, origin, live_server):
    """A seat bids on one phone, which is then lost; another phone opens only the seat's link and
    reveals the bid: the salt comes from the secret in the link's fragment, which no server sees.
    A game made at /play has a deadline per phase, shown as a countdown, for the host to enforce."""
    host = phone()
    game_id, links = create_gops(host, origin, ranks=3)
    secrets = [re.search(r"&k=([0-9a-f]{64})$", link).group(1) for link in links]
    assert len(set(secrets)) == 2
    created = requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()
    assert created["rules"]["deadline_seconds"] == 300
    host.wait_for_selector("#countdown")
    assert re.fullmatch(r"Time left to play: [45]:\d\d", host.inner_text("#countdown")), host.inner_text("#countdown")
    assert host.is_disabled("#enforce")  # not before the time is up

    lost = phone()
    lost.goto(links[0])
    lost.click("#hand [data-card='2']")
    lost.click("#bid")
    lost.wait_for_selector("#scores tr[data-seat='0'][data-status='committed']")
    lost.context.close()  # the phone seat 1 bid from is gone, with its storage

    fresh = phone()
    seen = []
    fresh.on("request", lambda r: seen.append((r.url, r.post_data or "", json.dumps(r.headers))))
    fresh.goto(links[0])
    fresh.wait_for_selector("#scores tr[data-seat='0'][data-status='committed']")
    other = phone(locale="es-ES")
    other.goto(links[1])
    other.click("#hand [data-card='3']")
    other.click("#bid")
    for page in (fresh, other, host):
        page.wait_for_selector("#last-round[data-round='1']", timeout=30_000)
    round_1 = requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()["history"][0]
    assert round_1["bids"] == {"0": [2], "1": [3]}
    assert fresh.locator("#prompt.error").count() == 0
    # The secret never left the phone: in no request's address, body or headers.
    assert seen and not [s for s in seen if secrets[0] in "".join(s)]
    shot(fresh, "gops-revealed-from-a-fresh-phone")
    clean(host, fresh, other)

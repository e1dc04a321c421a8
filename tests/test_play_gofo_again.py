"""/play, Gofo watched and played again: the read-only link to a table (hand by hand, move by move,
nobody's cards) and "New table like this".

Headless Chromium on the insecure LAN-like origin of ``tests/test_play.py`` (its fixtures and
helpers are used here), in English at 360 px and in Spanish at 320 px, tapping as people do: with
a finger, twice, fast.
"""

from __future__ import annotations

import pytest
import requests
from support.client import bearer
from test_play import (  # noqa: F401 - fixtures: origin (table.local), phone
    clean,
    origin,
    phone,
    readable,
    shot,
)
from test_play_story import screen_shot

pytestmark = pytest.mark.slow

WIDTHS = [("en-US", 360), ("es-ES", 320)]

# The person's move that ends their part in a hand soonest, in that order of preference.
FOLDS = ["decline", "no_ver", "pass", "voy", "discard", "open", "enter"]


class Table:
    """A dealt Gofo table played over the API by its seats' tokens."""

    def __init__(self, live_server, **body):
        self.base = f"{live_server}/v1/gofo/tables"
        self.created = requests.post(self.base, json={"mode": "dealt", **body}, timeout=10).json()
        self.id = self.created["id"]
        self.base = f"{self.base}/{self.id}"

    def public(self):
        return requests.get(self.base, timeout=10).json()

    def seat_view(self, seat):
        return requests.get(f"{self.base}/seats/{seat}", headers=bearer(self.created["seat_tokens"][seat]), timeout=10).json()

    def transcript(self):
        return requests.get(f"{self.base}/transcript", timeout=10).json()

    def move(self, name, body=None):
        """The seat to act makes `name`; returns the answer."""
        seat = self.public()["hand"]["to_act"]
        r = requests.post(f"{self.base}/seats/{seat}/{name.replace('_', '-')}", json=body or {},
                          headers=bearer(self.created["seat_tokens"][seat]), timeout=10)
        assert r.status_code == 200, r.text
        return r.json()

    def fold_to_next_hand(self):
        """The people to act make their most passive move until the hand in progress ends."""
        hand = self.public()["table"]["hand_number"]
        for _ in range(60):
            view = self.public()
            if view["table"]["hand_number"] > hand:
                return view
            seat = view["hand"]["to_act"]
            legal = {a["type"]: a for a in self.seat_view(seat)["hand"]["legal_actions"]}
            name = next(n for n in FOLDS if n in legal)
            body = {"discard": {"cards": []}, "open": {"amount": legal.get("open", {}).get("min")},
                    "enter": {"blind": False}}.get(name, {})
            self.move(name, body)
        raise AssertionError("the hand did not end")


def hand_entries(transcript, hand):
    return [e for e in transcript["entries"] if max(1, e["hand"]) == hand]


def tap_twice(page, selector):
    """Two taps of a finger on `selector`, as fast as a double tap (no wait between them)."""
    page.eval_on_selector(selector, "el => el.scrollIntoView({ block: 'center' })")
    box = page.locator(selector).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.touchscreen.tap(x, y)
    page.touchscreen.tap(x, y)


def tap(page, selector):
    """One tap of a finger on `selector`, scrolled to the middle of the screen first."""
    page.eval_on_selector(selector, "el => el.scrollIntoView({ block: 'center' })")
    box = page.locator(selector).bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def fits(page, width):
    assert page.evaluate("document.documentElement.scrollWidth") <= width


WORDS = {
    "en": {"hand_of": "Hand {} of {}", "move_of": "Move {} of {}", "again": "New table like this"},
    "es": {"hand_of": "Mano {} de {}", "move_of": "Jugada {} de {}", "again": "Mesa nueva como esta"},
}


# ------------------------------------------------------------------ watch and share

@pytest.mark.parametrize("locale,width", WIDTHS)
def test_a_read_only_link_follows_a_gofo_table_hand_by_hand_and_move_by_move(phone, origin, live_server, locale, width):
    """A seat's page offers the table's read-only link and QR code; opened on another phone it sends
    no token, shows no seat's cards, follows the hand in progress live, and steps back hand by hand
    (a finished hand's result and the ledger's chart up to it) and move by move."""
    words = WORDS[locale[:2]]
    table = Table(live_server, seats=3, names=["Ana", "Bea", "Ceci"])
    table.fold_to_next_hand()  # hand 1 ends; hand 2 is on
    mano = table.public()["hand"]["to_act"]
    opening = next(a for a in table.seat_view(mano)["hand"]["legal_actions"] if a["type"] == "open")
    table.move("open", {"amount": opening["min"]})  # hand 2: the mano opens
    for s in range(3):  # each seat looks at its cards (a move of its own, out of turn)
        requests.post(f"{table.base}/seats/{s}/look", json={}, headers=bearer(table.created["seat_tokens"][s]), timeout=10)
    seat = phone(locale=locale)
    seat.set_viewport_size({"width": width, "height": 700})
    seat.goto(f"{origin}/play#gofo={table.id}&seat=0&t={table.created['seat_tokens'][0]}")
    seat.wait_for_selector("#share")
    tap(seat, "#share summary")
    link = seat.input_value("#share-link")
    assert link == f"{origin}/play#gofo={table.id}&watch=1" and seat.locator("#share svg").count() == 1
    fits(seat, width)
    clean(seat)

    page = phone(locale=locale)
    page.set_viewport_size({"width": width, "height": 700})
    sent = []
    page.on("request", lambda r: sent.append(r.headers.get("authorization")))
    page.goto(link)
    page.wait_for_selector("#replay[data-hand='2']")
    transcript = table.transcript()
    moves_2 = len(hand_entries(transcript, 2))
    page.wait_for_selector(f"#replay[data-hand='2'][data-move='{moves_2}']")
    assert page.inner_text("#replay-hand-at") == words["hand_of"].format(2, 2)
    assert page.inner_text("#replay-move-at") == words["move_of"].format(moves_2, moves_2)
    assert page.locator("#actions, #my-cards, #hint, #deadline").count() == 0  # nothing to play with
    # Nobody's cards: not one card a seat holds is on the watcher's screen.
    held = {c for s in range(3) for c in (table.seat_view(s)["hand"].get("my_cards") or [])}
    # (The cards of the first-dealer draw, from a deck of their own, are public: left out.)
    shown = page.eval_on_selector_all("[data-code]", "els => els.filter(e => !e.closest(\"li[data-type='dealer_draw']\")).map(e => e.dataset.code)")
    assert held and not held & set(shown), shown
    assert page.is_disabled("#replay-hand-next") and page.is_disabled("#replay-move-next")

    # Back to hand 1: shown whole, its result and the ledger's chart of that one hand.
    tap(page, "#replay-hand-prev")
    moves_1 = len(hand_entries(transcript, 1))
    page.wait_for_selector(f"#replay[data-hand='1'][data-move='{moves_1}']")
    assert page.inner_text("#replay-hand-at") == words["hand_of"].format(1, 2) and page.is_disabled("#replay-hand-prev")
    assert page.get_attribute("#replay-result", "data-hand") == "1"
    net = transcript["results"][0]["net"]
    assert page.eval_on_selector_all("#replay-result .net li", "els => els.map(e => Number(e.dataset.net))") == net
    page.wait_for_selector("#replay-story svg.chart")
    # Two fast taps on ◀: two moves back, and the result is not shown before the hand's end.
    tap_twice(page, "#replay-move-prev")
    page.wait_for_selector(f"#replay[data-hand='1'][data-move='{moves_1 - 2}']")
    assert page.locator("#replay-result").count() == 0
    assert page.locator("#replay-moves li").count() == moves_1 - 2
    assert page.locator("#replay-story svg.chart").count() == 0  # no hand finished before hand 1's end
    tap(page, "#replay-move-next")
    page.wait_for_selector(f"#replay[data-hand='1'][data-move='{moves_1 - 1}']")
    fits(page, width)
    shot(page, f"gofo-watch-{locale[:2]}-{width}")
    if width == 360:
        screen_shot(page, "gofo-watch-en-360", top="#replay")
        readable(page)

    # Back to the latest hand: followed live again, a move made elsewhere shows as it is made.
    tap(page, "#replay-hand-next")
    page.wait_for_selector(f"#replay[data-hand='2'][data-move='{moves_2}']")
    view = table.public()
    legal = {a["type"] for a in table.seat_view(view["hand"]["to_act"])["hand"]["legal_actions"]}
    table.move(next(n for n in FOLDS if n in legal and n not in ("discard", "open", "enter")))
    page.wait_for_selector(f"#replay[data-hand='2'][data-move='{moves_2 + 1}']", timeout=30_000)
    assert set(sent) == {None}, sent  # no seat's key, ever
    clean(page)


# ------------------------------------------------------------------ play again

def test_new_table_like_this_opens_the_same_table_with_new_links(phone, origin, live_server):
    """After a hand, a seat's "New table like this", tapped twice fast, makes one new table with the
    same seats, names and options, and shows each seat's new join link and QR code (new tokens:
    each player opens theirs again)."""
    table = Table(live_server, seats=3, caja=80, refill=8, initial_front=24, inauguration="chosen",
                  turn_seconds=600, names=["Ana", "Bea", None])
    page = phone()
    page.goto(f"{origin}/play#gofo={table.id}&seat=0&t={table.created['seat_tokens'][0]}")
    page.wait_for_selector("#seats")
    assert page.locator("#play-again").count() == 0  # not before a hand has ended
    table.fold_to_next_hand()
    page.wait_for_selector("#play-again")
    assert page.inner_text("#play-again") == WORDS["en"]["again"]
    creates = []
    page.on("request", lambda r: r.method == "POST" and r.url.endswith("/v1/gofo/tables") and creates.append(r.url))
    tap_twice(page, "#play-again")
    page.wait_for_function("id => document.body.dataset.page === 'gofo-host' && !location.hash.includes(id)", arg=table.id)
    page.wait_for_selector("#links .join")
    assert len(creates) == 1, creates
    new_id = page.evaluate("new URLSearchParams(location.hash.slice(1)).get('gofo')")
    before, after = table.public(), requests.get(f"{live_server}/v1/gofo/tables/{new_id}", timeout=10).json()
    assert new_id != table.id and after["table"]["hand_number"] == 1
    assert after["table"]["options"] == {k: v for k, v in before["table"]["options"].items() if k != "first_dealer"}
    assert after["names"] == ["Ana", "Bea", None] and after["bots"] == []
    links = page.eval_on_selector_all("#links .join input.link", "els => els.map(e => e.value)")
    assert len(links) == 3 and page.locator("#links .join svg").count() == 3
    for seat, link in enumerate(links):
        fragment = dict(p.split("=", 1) for p in link.split("#", 1)[1].split("&"))
        assert fragment["gofo"] == new_id and fragment["seat"] == str(seat)
        assert fragment["t"] not in table.created["seat_tokens"]
        r = requests.get(f"{live_server}/v1/gofo/tables/{new_id}/seats/{seat}", headers=bearer(fragment["t"]), timeout=10)
        assert r.status_code == 200
    # The new table's host page offers its read-only link too.
    assert page.input_value("#share-link") == f"{origin}/play#gofo={new_id}&watch=1"
    fits(page, 360)
    shot(page, "gofo-again-links-en")
    readable(page)
    clean(page)


def test_new_table_like_this_against_the_referee_goes_straight_to_the_new_seat(phone, origin, live_server):
    """In Spanish at 320 px, one person and two of the referee's seats: "Mesa nueva como esta" makes a
    table with the same bots at the same levels and goes straight to the person's seat of it."""
    table = Table(live_server, seats=3, names=["Ana", None, None], bots=[{"seat": 1, "level": 2}, {"seat": 2, "level": 3}])
    table.fold_to_next_hand()
    page = phone(locale="es-ES")
    page.set_viewport_size({"width": 320, "height": 700})
    page.goto(f"{origin}/play#gofo={table.id}&seat=0&t={table.created['seat_tokens'][0]}")
    page.wait_for_selector("#play-again")
    assert page.inner_text("#play-again") == WORDS["es"]["again"]
    fits(page, 320)
    tap_twice(page, "#play-again")
    page.wait_for_function("id => document.body.dataset.page === 'gofo-seat' && !location.hash.includes(id)", arg=table.id)
    fragment = dict(p.split("=", 1) for p in page.evaluate("location.hash.slice(1)").split("&"))
    after = requests.get(f"{live_server}/v1/gofo/tables/{fragment['gofo']}", timeout=10).json()
    assert fragment["seat"] == "0" and fragment["t"] != table.created["seat_tokens"][0]
    assert after["bots"] == [{"seat": 1, "level": 2}, {"seat": 2, "level": 3}] and after["names"] == ["Ana", None, None]
    page.wait_for_selector("#seats")
    fits(page, 320)
    clean(page)

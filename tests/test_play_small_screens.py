"""/play on a 360 px phone: every screen, in both languages, fits the width and has 48 px tap targets.

Each screen of the page — the create forms, a game's links, a Gops seat and host while bids are
sealed, revealed and once the game is over, a Gofo seat, host, tabletop canto and ledger — is
opened in English and in Spanish with every panel unfolded, and measured: nothing is wider than
the phone (the page does not scroll sideways and no element reaches past its right edge), and
every button, field and panel header is at least 48 × 48 px (what the README promises).
"""

from __future__ import annotations

import pytest
import requests

from support.client import bearer
from test_play import (  # noqa: F401 - fixtures: origin (table.local), phone
    Table,
    clean,
    create_gops,
    origin,
    phone,
    shot,
)

pytestmark = pytest.mark.slow

WIDTH = 360
TAP = 48
LOCALES = ("en-US", "es-ES")

# Every visible element reaching past the viewport, and every control smaller than a fingertip.
MEASURE = """
([width, tap]) => {
  const name = (el) => {
    const id = el.id ? `#${el.id}` : '';
    const data = Object.entries(el.dataset).map(([k, v]) => `[${k}=${v}]`).join('');
    const text = (el.value || el.textContent || '').trim().slice(0, 24);
    return `${el.tagName.toLowerCase()}${id}${data} "${text}"`;
  };
  const wide = [];
  const small = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('[hidden]') || el.closest('details:not([open]) > :not(summary)')) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === 'hidden') continue;
    const past = (b) => b.right > width + 0.5 || b.left < -0.5 || b.width > width;
    if (past(box) && !past(el.parentElement.getBoundingClientRect())) {  // the outermost only
      wide.push(`${name(el)}: ${Math.round(box.left)}–${Math.round(box.right)} px`);
    }
    // Inside the phone but past its own panel's border: a column cut off at the panel's edge.
    const panel = el.parentElement.closest('.panel');
    if (panel && el.matches('table, img, svg, input, .cards')) {
      const edge = panel.getBoundingClientRect().right - parseFloat(getComputedStyle(panel).borderRightWidth);
      if (box.right > edge + 0.5) wide.push(`${name(el)}: past its panel (${Math.round(box.right)} > ${Math.round(edge)} px)`);
    }
    if (el.matches('button, input, select, textarea, summary, a.button')
        && (box.width < tap - 0.5 || box.height < tap - 0.5)) {
      small.push(`${name(el)}: ${Math.round(box.width)} × ${Math.round(box.height)} px`);
    }
  }
  return { width: document.documentElement.scrollWidth, wide, small };
}
"""


# Every panel open (again, if a redraw closed it), and the ledger's hands read: what a player sees
# who has opened everything.
UNFOLDED = """
() => {
  const closed = [...document.querySelectorAll('details:not([open])')];
  closed.forEach((d) => { d.open = true; });
  return closed.length === 0 && document.body.dataset.busy !== 'yes'
    && (!document.getElementById('ledger') || document.querySelector('#ledger-hands ol') !== null);
}
"""


class Screens:
    """Opens screens on one phone per language and gathers what does not fit."""

    def __init__(self, phone):
        self.pages = {locale: phone(locale=locale) for locale in LOCALES}
        self.problems = []
        self.seen = []

    def check(self, name, url, ready):
        """Open `url` in both languages, wait for `ready` (a JS predicate), unfold every panel, measure."""
        for locale, page in self.pages.items():
            page.goto("about:blank")
            page.goto(url)
            page.wait_for_function(ready, timeout=30_000)
            page.wait_for_function("() => ['live', 'polling', 'done'].includes(document.body.dataset.live)"
                                   " || !/^(gops|gofo)-(seat|host)$/.test(document.body.dataset.page)")
            page.wait_for_function(UNFOLDED, timeout=30_000)
            seen = page.evaluate(MEASURE, [WIDTH, TAP])
            label = f"{name} ({locale})"
            self.seen.append(label)
            if seen["width"] > WIDTH:
                self.problems.append(f"{label}: the page is {seen['width']} px wide")
            self.problems += [f"{label}: wider than the phone: {w}" for w in seen["wide"]]
            self.problems += [f"{label}: under {TAP} px: {s}" for s in seen["small"]]
            shot(page, f"360-{name}-{locale}")

    def assert_fit(self, expected):
        assert self.seen == [f"{n} ({loc})" for n in expected for loc in LOCALES]
        assert self.problems == [], "\n".join(self.problems)
        clean(*self.pages.values())


def gops_ready(phase, seats_committed=0):
    return (f"() => document.body.dataset.phase === '{phase}' && document.querySelectorAll("
            f"\"#scores tr[data-status='committed']\").length === {seats_committed}")


def gofo_ready(version):
    return f"() => document.body.dataset.version === '{version}' && document.body.dataset.busy !== 'yes'"


def test_every_gops_screen_fits_a_360_px_phone(phone, origin, live_server):
    host = phone()
    game_id, links = create_gops(host, origin, ranks=13, players=3, profile="standard")
    host_url = host.url
    screens = Screens(phone)
    screens.check("home", f"{origin}/play", "() => document.getElementById('sha-check')")
    screens.check("gops-new", f"{origin}/play#new=gops", "() => document.getElementById('gops-create-go')")
    screens.check("gops-links", host_url, gops_ready("commit"))
    screens.check("gops-seat-commit", links[0], gops_ready("commit"))
    # Seat 1 has bid: the others are still thinking.
    bid = "async ([id, seat, card, link]) => {" \
          " const { call } = await import('/play/assets/api.js');" \
          " const { bidCommitment, seatSalt } = await import('/play/assets/sha256.js');" \
          " const p = new URLSearchParams(link.split('#')[1]);" \
          " const salt = seatSalt(p.get('k'), id, 1, seat);" \
          " await call('POST', `/v1/gops/games/${id}/seats/${seat}/commit`, { token: p.get('t')," \
          "   body: { round: 1, commitment: bidCommitment(id, 1, seat, [card], salt) } }); }"
    host.evaluate(bid, [game_id, 0, 13, links[0]])
    screens.check("gops-seat-thinking", links[1], gops_ready("commit", 1))
    screens.check("gops-host-thinking", host_url, gops_ready("commit", 1))
    host.evaluate(bid, [game_id, 1, 12, links[1]])
    host.evaluate(bid, [game_id, 2, 11, links[2]])
    screens.check("gops-host-reveal", host_url, "() => document.body.dataset.phase === 'reveal'")
    resign = "async ([id, seat, link]) => { const { call } = await import('/play/assets/api.js');" \
             " const p = new URLSearchParams(link.split('#')[1]);" \
             " await call('POST', `/v1/gops/games/${id}/seats/${seat}/resign`, { token: p.get('t'), body: {} }); }"
    for seat in (1, 2):
        host.evaluate(resign, [game_id, seat, links[seat]])
    assert requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()["phase"] == "over"
    screens.check("gops-seat-over", links[0], "() => document.body.dataset.phase === 'over'")
    screens.check("gops-host-over", host_url, "() => document.body.dataset.phase === 'over'")
    screens.assert_fit(["home", "gops-new", "gops-links", "gops-seat-commit", "gops-seat-thinking",
                        "gops-host-thinking", "gops-host-reveal", "gops-seat-over", "gops-host-over"])


def play_until(table, stop, token=None, points=(30, 25, 20)):
    """Move `table` on through the API (every seat in, voy, stand pat, declare `points`) until
    `stop(hand)`, or the first hand is over."""
    trail = []
    for _ in range(200):
        hand = table.answer["hand"]
        if stop(hand) or table.answer["table"]["hand_number"] > 1:
            return table.answer
        seat, phase = hand["to_act"], hand["phase"]
        trail.append((seat, phase, hand.get("round")))
        move = lambda name, body=None: table.move(seat, name, body or {}, token)  # noqa: E731
        if phase == "opening":
            move("open", {"amount": 2})
        elif phase == "entering":
            move("enter", {"blind": False})
        elif phase in ("raising", "betting"):
            move("pass")
        elif phase == "speaking":
            move("voy")
        elif phase == "discard":
            move("discard", {"count": 0} if token else {"cards": []})
        elif phase == "canto" and hand["canto"]["stage"] == "declare":
            move("declare", {"points": points[(seat - hand["mano"]) % len(points)]})
        else:
            raise AssertionError(f"no move chosen for {phase}")
    raise AssertionError(f"the hand never stopped where asked: {trail}")


def test_every_gofo_screen_fits_a_360_px_phone(phone, origin, live_server):
    screens = Screens(phone)
    screens.check("gofo-new", f"{origin}/play#new=gofo", "() => document.getElementById('gofo-create-go')")
    # Tabletop: one host phone records every move, from the opening to the canto and the ledger.
    table = Table(live_server, seats=3, caja=100, refill=10, initial_front=30, mode="tabletop", first_dealer=0)
    url = f"{origin}/play#gofo={table.id}&host={table.host}"
    at = lambda name: screens.check(name, url, gofo_ready(table.answer["version"]))  # noqa: E731
    at("gofo-tabletop-opening")
    play_until(table, lambda hand: hand["phase"] == "entering", table.host)
    at("gofo-tabletop-entering")
    play_until(table, lambda hand: hand["phase"] == "speaking", table.host)
    at("gofo-tabletop-speaking")
    play_until(table, lambda hand: hand["phase"] == "discard", table.host)
    at("gofo-tabletop-discard")
    play_until(table, lambda hand: hand["phase"] == "canto", table.host)
    at("gofo-tabletop-declare")
    for page in screens.pages.values():  # the points pad, the move most made, above conceding and showing
        moves = page.eval_on_selector_all("#actions .moves > *", "els => els.map(e => e.dataset.explains || e.dataset.move || e.dataset.action)")
        assert moves[0] == "declare" and "muck" in moves, moves
    play_until(table, lambda hand: hand["phase"] == "canto" and hand["canto"]["stage"] != "declare", table.host)
    at("gofo-tabletop-show")
    hand = table.answer["hand"]
    table.move(hand["to_act"], "muck", {}, table.host)
    for _ in range(3):
        hand = table.answer["hand"]
        if table.answer["table"]["hand_number"] == 2:
            break
        table.move(hand["to_act"], "muck", {}, table.host)
    assert table.answer["table"]["hand_number"] == 2
    at("gofo-tabletop-ledger")
    # Dealt: the host's links, and each seat on its own phone.
    table = Table(live_server, seats=5, caja=100, refill=10, initial_front=30, mode="dealt")
    host_url = f"{origin}/play#gofo={table.id}&host={table.host}"
    seat_url = lambda seat: f"{origin}/play#gofo={table.id}&seat={seat}&t={table.tokens[seat]}"  # noqa: E731
    screens.check("gofo-links", host_url, gofo_ready(table.answer["version"]))
    screens.check("gofo-seat-opening", seat_url(1), gofo_ready(table.answer["version"]))
    play_until(table, lambda hand: hand["phase"] == "discard")
    screens.check("gofo-seat-discard", seat_url(table.answer["hand"]["to_act"]), gofo_ready(table.answer["version"]))
    play_until(table, lambda hand: False)  # a dealt hand's canto is the referee's: on to the next hand
    screens.check("gofo-seat-ledger", seat_url(0), gofo_ready(table.answer["version"]))
    screens.check("gofo-host-ledger", host_url, gofo_ready(table.answer["version"]))
    screens.assert_fit(["gofo-new", "gofo-tabletop-opening", "gofo-tabletop-entering", "gofo-tabletop-speaking",
                        "gofo-tabletop-discard", "gofo-tabletop-declare", "gofo-tabletop-show",
                        "gofo-tabletop-ledger", "gofo-links", "gofo-seat-opening", "gofo-seat-discard",
                        "gofo-seat-ledger", "gofo-host-ledger"])

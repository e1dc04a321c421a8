"""/play, the mobile web client: served assets and headers, and whole games played in headless Chromium.

The browser tests open the page at ``http://table.local:PORT/play`` (``--host-resolver-rules`` maps the
name to the loopback live server), which Chromium does not treat as a secure context — as a phone
at ``http://192.168.1.20:8000`` would not — so ``crypto.subtle`` is missing there and every commitment
is hashed by the vendored SHA-256.  Each context is 360 px wide; key screens are saved under
``tests/artifacts/`` (gitignored).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from urllib.parse import urlsplit

from support import browser as browser_support
from support.client import bearer
import pytest
import requests

from service.web import play

pytestmark = pytest.mark.slow

STATIC = Path(play.STATIC_DIR)
ARTIFACTS = browser_support.ARTIFACTS
PHONE = {"viewport": {"width": 360, "height": 780}, "device_scale_factor": 1, "has_touch": True}
TABLE_HOST = browser_support.TABLE_HOST  # the origin a phone at the table sees (a LAN-like name)


# ------------------------------------------------------------------ served files and headers


def test_play_page_headers_and_join_base(app):
    client = app.test_client()
    r = client.get("/play")
    assert r.status_code == 200 and r.mimetype == "text/html"
    csp = r.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src 'self'" in csp
    assert "unsafe-inline" not in csp and "http" not in csp
    assert r.headers["X-Frame-Options"] == "DENY" and r.headers["Referrer-Policy"] == "no-referrer"
    page = r.get_data(as_text=True)
    assert '<meta name="referee-join-base" content="http://localhost">' in page
    # Every script and style the page names is one of ours, under /play/assets/.
    urls = re.findall(r'(?:src|href)="([^"]*)"', page)
    assert urls and all(u == "/play" or u.startswith("/play/assets/") for u in urls), urls
    # Served from the LAN address: links name that address.
    lan = client.get("/play", base_url="http://192.168.1.20:8000").get_data(as_text=True)
    assert 'content="http://192.168.1.20:8000"' in lan


def test_public_url_setting_names_the_join_base(redis_url, redis_client, monkeypatch):
    from service.config import ConfigError
    from service.web.app import create_app

    monkeypatch.setenv("REFEREE_PUBLIC_URL", "http://192.168.1.20:8000/")
    client = create_app({"REDIS_URL": redis_url, "TESTING": True}).test_client()
    assert 'content="http://192.168.1.20:8000"' in client.get("/play").get_data(as_text=True)
    monkeypatch.setenv("REFEREE_PUBLIC_URL", "javascript:alert(1)")  # not an origin: refused at the start
    with pytest.raises(ConfigError, match="REFEREE_PUBLIC_URL"):
        create_app({"REDIS_URL": redis_url, "TESTING": True})
    monkeypatch.delenv("REFEREE_PUBLIC_URL")
    # Given to create_app, not an origin: ignored.
    client = create_app({"REDIS_URL": redis_url, "TESTING": True, "PUBLIC_URL": "javascript:alert(1)"}).test_client()
    assert 'content="http://localhost"' in client.get("/play").get_data(as_text=True)
    # The setting is escaped into the attribute, never markup.
    client = create_app({"REDIS_URL": redis_url, "TESTING": True, "PUBLIC_URL": 'http://a"><script>x</script>'}).test_client()
    assert "<script>x" not in client.get("/play").get_data(as_text=True)


def test_assets_are_served_as_modules_and_nothing_else(client):
    js = client.get("/play/assets/app.js")
    assert js.status_code == 200 and js.mimetype == "text/javascript"
    assert "Content-Security-Policy" in js.headers and js.headers["Cache-Control"] == "no-cache"
    mjs = client.get("/play/assets/vendor/js-sha256@1.0.0/core.mjs")
    assert mjs.status_code == 200 and mjs.mimetype == "text/javascript"
    assert client.get("/play/assets/play.css").mimetype == "text/css"
    for bad in ("/play/assets/../__init__.py", "/play/assets/%2e%2e/__init__.py", "/play/assets/index.html",
                "/play/assets/nothing.js", "/play/assets/vendor/README.exe"):
        r = client.get(bad)
        assert r.status_code == 404 and r.mimetype == "application/problem+json", bad
    # Not an operation of the API: the spec does not list it.
    assert not [p for p in client.get("/openapi.json").get_json()["paths"] if p.startswith("/play")]


def test_vendored_files_are_unmodified_and_licensed():
    assert play.vendored_digests() == play.VENDORED
    assert "MIT License" in (STATIC / "vendor/js-sha256@1.0.0/LICENSE.txt").read_text()
    assert "Licensed under the MIT license" in (STATIC / "vendor/qrcode-generator@2.0.4/qrcode.mjs").read_text()[:600]


def test_no_asset_reaches_another_host():
    for path in STATIC.rglob("*"):
        if path.suffix not in (".js", ".mjs", ".css", ".html"):
            continue
        text = path.read_text(encoding="utf-8")
        if "vendor" not in path.parts:
            assert "subtle." not in text.replace("crypto.subtle.digest:", ""), path  # missing on http://192.168.x.x
            assert not re.search(r"""(?:fetch|import)\(\s*['"`]https?:""", text), path
            assert not re.search(r"""from\s+['"]https?:""", text), path
        assert not re.search(r"""(?:src|href)=["']https?:""", text), path
        assert "@import" not in text or path.suffix != ".css", path


def test_both_languages_are_complete():
    messages = {"en": set(), "es": set()}
    for name in ("i18n.js", "i18n_bots.js", "i18n_errors.js"):  # i18n.js merges the others' dictionaries into its own
        blocks = re.split(r"\n  (en|es): \{\n", (STATIC / name).read_text(encoding="utf-8"))
        for i in (1, 3):
            messages[blocks[i]] |= set(re.findall(r"^\s+'?([\w.]+)'?:", blocks[i + 1], re.MULTILINE))
    assert messages["en"] == messages["es"], messages["en"] ^ messages["es"]
    used = set()
    for path in STATIC.glob("*.js"):
        used |= set(re.findall(r"""\bt\(\s*'([\w.]+)'""", path.read_text(encoding="utf-8")))
    missing = used - messages["en"]
    assert not missing, missing


def test_every_error_code_is_said_in_both_languages():
    """A refusal is said in the player's language whatever its code: /play has words for every code
    of service/error_codes.py in English and in Spanish (the referee's own words are English)."""
    from service.error_codes import ErrorCode
    said = {"en": set(), "es": set()}
    for name in ("i18n.js", "i18n_errors.js"):
        blocks = re.split(r"\n  (en|es): \{\n", (STATIC / name).read_text(encoding="utf-8"))
        for i in (1, 3):
            said[blocks[i]] |= set(re.findall(r"^\s+'error\.(\w+)':", blocks[i + 1], re.MULTILINE))
    for lang, codes in said.items():
        missing = {code.value for code in ErrorCode} - codes
        assert not missing, (lang, sorted(missing))


# ------------------------------------------------------------------ in the browser


@pytest.fixture
def origin(live_server):
    return live_server.replace("127.0.0.1", TABLE_HOST)


# The pages the running test opened. A request a test routes (page.route) waits for its handler in
# Python, and Playwright runs handlers only while the test calls into it: a test that waits for the
# referee with plain HTTP (public_table) calls into it meanwhile, or a routed move would wait until
# the test gave up.
OPEN_PAGES = []


@pytest.fixture
def phone(offline_page, origin):
    OPEN_PAGES.clear()

    def open_phone(locale="en-US", **extra):
        page = offline_page(origin, locale=locale, **PHONE, **extra)
        OPEN_PAGES.append(page)
        return page

    yield open_phone
    OPEN_PAGES.clear()


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"play-{name}.png"), full_page=True)


# Every visible text's contrast with what is behind it (WCAG's ratio; disabled controls are exempt),
# and the page's width: what a phone in sunlight needs.
READABLE = """
() => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[\\s,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const behind = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.backgroundImage !== 'none') return null;  // a card back's pattern: checked by eye
      const c = parse(style.backgroundColor);
      if (c && c.a > 0.5) return c;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const low = [];
  for (const el of document.querySelectorAll('body *')) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    if (el.closest('[hidden], :disabled, option, noscript')) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === 'hidden') continue;
    const fg = parse(getComputedStyle(el).color);
    const bg = behind(el);
    if (!fg || !bg) continue;
    const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    if (ratio < 4.5) low.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}": ${ratio.toFixed(2)}`);
  }
  return { low, width: document.documentElement.scrollWidth };
}
"""


def readable(page):
    """Every visible text on `page` has at least WCAG AA contrast (4.5:1), and nothing is wider than 360 px."""
    seen = page.evaluate(READABLE)
    assert seen["low"] == [], seen["low"]
    assert seen["width"] <= 360, seen["width"]


def clean(*pages):
    for page in pages:
        assert page.blocked == [], page.blocked
        assert page.errors == [], page.errors


def test_insecure_origin_hashes_the_readme_vectors(phone, origin):
    page = phone(locale="es-AR")
    page.goto(f"{origin}/play")
    page.wait_for_selector("#sha-check[data-ok=yes]")
    assert page.evaluate("window.isSecureContext") is False
    assert page.evaluate("typeof crypto.subtle") == "undefined"
    readme = (Path(__file__).resolve().parent.parent / "docs" / "client-guide.md").read_text(encoding="utf-8")
    vectors = re.findall(r"^\| `(gops-bid-v1\\\|[^`]*)` \+ `([0-9a-f]+)`×(\d+) \| `([0-9a-f]{64})` \|$", readme, re.MULTILINE)
    assert len(vectors) == 4
    for message, unit, times, digest in vectors:
        text = message.replace("\\|", "|") + unit * int(times)
        got = page.evaluate("async (m) => (await import('/play/assets/sha256.js')).sha256hex(m)", text)
        assert got == digest
    # Spanish from the browser's language, English one tap away.
    assert page.inner_text("h1") == "Árbitro en la mesa"
    page.click("#lang")
    assert page.inner_text("h1") == "Referee at the table"
    assert page.evaluate("document.documentElement.lang") == "en"
    clean(page)


def create_gops(host, origin, *, ranks, profile="classic", prize_order=None, players=2):
    host.goto(f"{origin}/play")
    host.click("#new-gops")
    host.select_option("#f-profile", profile)
    host.fill("#f-players", str(players))
    host.fill("#f-ranks", str(ranks))
    if prize_order:
        host.select_option("#f-prize_order", prize_order)
    shot(host, "gops-create")
    host.click("#gops-create-go")
    host.wait_for_selector(".join input.link")
    links = host.eval_on_selector_all(".join input.link", "els => els.map(e => e.value)")
    assert len(links) == players
    game_id = re.search(r"#gops=([^&]+)&", links[0]).group(1)
    for seat, link in enumerate(links):
        assert link.startswith(f"{origin}/play#gops={game_id}&seat={seat}&t="), link
        assert "?" not in link  # the token rides in the fragment only
    assert host.locator(".join svg.qr").count() == players
    return game_id, links


def test_two_phones_play_a_whole_gops_game(phone, origin, live_server):
    host = phone()
    game_id, links = create_gops(host, origin, ranks=6)
    shot(host, "gops-host-links")
    readable(host)
    p0 = phone()
    p1 = phone(locale="es-ES")
    # Seat 1's phone has no live updates (as on a server without /events): it polls the seat view.
    p1.route("**/events", lambda route: route.fulfill(
        status=404, content_type="application/problem+json",
        body=json.dumps({"type": "about:blank", "title": "Not Found", "status": 404, "code": "not_found"})))
    p0.goto(links[0])
    p1.goto(links[1])
    p0.wait_for_selector("#hand [data-card]")
    p1.wait_for_selector("#hand [data-card]")
    p0.wait_for_function("() => document.body.dataset.live === 'live'")
    p1.wait_for_function("() => document.body.dataset.live === 'polling'")
    bids0 = [1, 2, 3, 4, 5, 6]
    bids1 = [6, 5, 4, 3, 2, 1]
    for rnd in range(1, 7):
        a, b = bids0[rnd - 1], bids1[rnd - 1]
        p0.click(f"#hand [data-card='{a}']")
        p0.click("#bid")
        p0.wait_for_selector("#scores tr[data-seat='0'][data-status='committed']")
        # Seat 1 sees that seat 0 has bid, and nothing of what.
        p1.wait_for_selector("#scores tr[data-seat='0'][data-status='committed']")
        assert p1.locator(f"[data-round='{rnd}']").count() == 0
        own = p0.evaluate(f"localStorage.getItem('referee:bid:{game_id}:{rnd}:0')")
        salt0 = json.loads(own)["salt"]
        assert salt0 not in p1.content() and not p1.evaluate(f"localStorage.getItem('referee:bid:{game_id}:{rnd}:0')")
        public = requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()
        assert public["commitments"] == {}  # withheld from everyone until every seat has committed
        if rnd == 1:
            shot(p0, "gops-seat-sealed")
            shot(p1, "gops-seat-bidding-es")
        p1.click(f"#hand [data-card='{b}']")
        p1.click("#bid")
        # Both reveal by themselves; the round resolves on every screen.
        for page in (p0, p1, host):
            page.wait_for_selector(f"#last-round[data-round='{rnd}']", timeout=30_000)
        text = p0.inner_text("#last-round")
        assert f"Seat 1: {rank(a)}" in text and f"Seat 2: {rank(b)}" in text
    for page in (p0, p1, host):
        page.wait_for_selector("#verdict[data-verdict='verified']", timeout=30_000)
    final = requests.get(f"{live_server}/v1/gops/games/{game_id}", timeout=10).json()
    assert final["phase"] == "over"
    scores = p0.eval_on_selector_all("#scores td.score", "els => els.map(e => e.textContent)")
    assert scores == final["scores"]
    assert p1.inner_text("#verdict") == "✔ Juego limpio comprobado"
    assert p0.locator("#transcript-1 li").count() == 6
    shot(p0, "gops-verified")
    readable(p0)
    readable(p1)
    shot(p1, "gops-verified-es")
    shot(host, "gops-host-over")
    clean(host, p0)
    # Seat 1's only console errors are the refused /events requests it then polled around.
    assert p1.blocked == [] and p1.errors and all("status of 404" in e for e in p1.errors), p1.errors


def rank(n: int) -> str:
    return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(n, str(n))


def test_verification_names_the_first_mismatch(phone, origin, live_server):
    """A finished game's transcript verifies; tampered copies are caught in the browser."""
    page = phone()
    page.goto(f"{origin}/play")
    page.wait_for_selector("#sha-check[data-ok=yes]")
    created = requests.post(f"{live_server}/v1/gops/games", json={"profile": "classic", "options": {"ranks": 3}}, timeout=10).json()
    game_id = created["id"]
    outcome = page.evaluate(PLAY_AND_VERIFY, {"id": game_id, "tokens": created["seat_tokens"]})
    assert outcome["honest"]["ok"] is True and outcome["honest"]["bids"] == 6 and outcome["honest"]["orders"] == 1
    assert outcome["bid"]["ok"] is False and "round 2" in outcome["bid"]["problem"] and "Seat 2" in outcome["bid"]["problem"]
    assert outcome["order"]["ok"] is False and "prize order" in outcome["order"]["problem"]
    clean(page)


# Plays a 3-round game through the page's own modules, then checks the transcript as is and tampered.
PLAY_AND_VERIFY = """
async ({id, tokens}) => {
  const { call } = await import('/play/assets/api.js');
  const { bidCommitment, randomHex } = await import('/play/assets/sha256.js');
  const { verifyTranscript } = await import('/play/assets/gops.js');
  const base = `/v1/gops/games/${id}`;
  for (let round = 1; round <= 3; round++) {
    const bids = [round, 4 - round].map((card, seat) => ({ seat, card, salt: randomHex(32) }));
    for (const b of bids) {
      await call('POST', `${base}/seats/${b.seat}/commit`, { token: tokens[b.seat],
        body: { round, commitment: bidCommitment(id, round, b.seat, [b.card], b.salt) } });
    }
    for (const b of bids) {
      await call('POST', `${base}/seats/${b.seat}/reveal`, { token: tokens[b.seat],
        body: { round, cards: [b.card], salt: b.salt } });
    }
  }
  const transcript = (await call('GET', `${base}/transcript`)).data;
  const honest = verifyTranscript(transcript);
  const bad = JSON.parse(JSON.stringify(transcript));
  bad.entries.find((e) => e.action.type === 'reveal' && e.action.round === 2 && e.action.seat === 1).action.salt = '00'.repeat(32);
  const order = JSON.parse(JSON.stringify(transcript));
  order.result.games[0].prize_order.reverse();
  return { honest, bid: verifyTranscript(bad), order: verifyTranscript(order) };
}
"""


# ------------------------------------------------------------------ Gofo


def create_gofo(host, origin, *, mode, seats=3, caja=100, refill=10, initial_front=30, inauguration=None):
    host.goto(f"{origin}/play")
    host.click("#new-gofo")
    host.select_option("#f-mode", mode)
    host.fill("#f-seats", str(seats))
    host.fill("#f-caja", str(caja))
    host.fill("#f-refill", str(refill))
    host.fill("#f-initial_front", str(initial_front))
    if inauguration:
        host.select_option("#f-inauguration", inauguration)
    host.click("#gofo-create-go")
    host.wait_for_function("() => document.body.dataset.page === 'gofo-host' && document.body.dataset.version === '1'")
    table_id = re.search(r"#gofo=([^&]+)&", host.url).group(1)
    return table_id


def public_table(live_server, table_id, after=0, pages=()):
    """The table's public view, once its version is past `after` (a click's request is asynchronous).
    If it never comes, what `pages` said (their last toast, their console errors) is in the failure."""
    for _ in range(300):
        view = requests.get(f"{live_server}/v1/gofo/tables/{table_id}", timeout=10).json()
        if view["version"] > after:
            return view
        if OPEN_PAGES:
            OPEN_PAGES[-1].wait_for_timeout(100)  # (runs the tests' route handlers: see OPEN_PAGES)
        else:
            time.sleep(0.1)
    said = [(page.evaluate("document.getElementById('toast').textContent"), page.errors) for page in pages]
    raise AssertionError(f"the table stayed at version {after}: {said}")


def ready(page, version, seat, *, answered=True):
    """Wait until `page` shows `version` with the moves of `seat` (its own page, or the host acting for it),
    and (`answered`) has the answer of the move it sent: it draws the screen again when that comes."""
    page.wait_for_function(
        "([v, s, a]) => document.body.dataset.version === String(v) && (!a || document.body.dataset.busy !== 'yes')"
        " && document.querySelector(`#actions[data-seat='${s}']`)",
        arg=[version, seat, answered], timeout=30_000)


# What a Gofo page asks the referee: a move (or an enforced deadline), and a view of the table or
# of one seat (GET …/tables/{id}, GET …/seats/{n}: what a second request after a move would be).
# Not counted as views: the live stream (GET …/events), which the page opens once, at load, and down
# which the referee pushes every new version — it carries what the move changed to every phone, it is
# not asked for after a move (`stream_opens` counts it, to show it was not reopened per move); the
# transcript, read once when a hand ends for the fairness check; the ledger, read when its panel is
# opened. Without the stream the page polls the view every 1.5 s: the tests check it stays live.
MOVE_POST = re.compile(r"^/v1/gofo/tables/[^/]+/(?:seats/\d+/[a-z_-]+|deadline)$")
VIEW_GET = re.compile(r"^/v1/gofo/tables/[^/]+(?:/seats/\d+)?$")


def record_requests(page):
    """Every request `page` makes from now on, in the order it made them: [(method, path)]."""
    log = []
    page.on("request", lambda r: log.append((r.method, urlsplit(r.url).path)))
    return log


def views_after_moves(log):
    """Each move `log` holds, with the views of the table or a seat the page asked for after it and
    before its next move: [(move path, [view paths])]. Between two moves there is always a user
    action (a tap sends each move), so a view here is a request the move's answer did not spare."""
    out = []
    for method, path in log:
        if method == "POST" and MOVE_POST.match(path):
            out.append((path, []))
        elif out and method == "GET" and VIEW_GET.match(path):
            out[-1][1].append(path)
    return out


def stream_opens(log):
    return sum(1 for method, path in log if method == "GET" and path.endswith("/events"))


def amount(page, move, value, level, first_bet=False):
    """Type `value` for `move` and make it, checking the words around it: a raise of the bet in force
    (both numbers, the chips added and the level reached), or (`first_bet`: a corte with no bet in
    force) a bet of its own, with the game's word explained."""
    page.fill(f"#amount-{move}", str(value))
    page.dispatch_event(f"#amount-{move}", "change")
    es = page.evaluate("document.documentElement.lang") == "es"
    to, span = ("subir a", "de +{} a +{}") if es else ("raise to", "from +{} to +{}")
    label = page.inner_text(f"#amount-label-{move}")
    lo, hi = (int(page.get_attribute(f"#amount-{move}", k)) for k in ("min", "max"))
    if first_bet:
        assert label == (f"una apuesta de {value}" if es else f"a bet of {value}"), label
        assert page.inner_text(f"#range-{move}") == (f"de {lo} a {hi}" if es else f"from {lo} to {hi}")
        assert page.inner_text(f"#explain-{move}").startswith("Corta: ")
    else:
        assert label == f"+{value} · {to} {level + value}", label  # both numbers, so nobody confuses them
        # The allowed range, both ways too: the chips added and the level they take the bet to.
        assert page.inner_text(f"#range-{move}") == f"{span.format(lo, hi)} · {to} {level + lo}–{level + hi}"
    page.click(f"#actions [data-action='{move}']")


def test_three_phones_play_a_dealt_gofo_hand(phone, origin, live_server):
    host = phone()
    table_id = create_gofo(host, origin, mode="dealt")
    links = host.eval_on_selector_all(".join input.link", "els => els.map(e => e.value)")
    assert len(links) == 3 and all(f"#gofo={table_id}&seat=" in link and "?" not in link for link in links)
    shot(host, "gofo-host-links")
    tokens = [re.search(r"&t=([^&]+)$", link).group(1) for link in links]
    pages = [phone() for _ in links]
    for page, link in zip(pages, links):
        page.goto(link)
    for page in pages:
        page.wait_for_selector("#seats")

    def cards_of(seat):
        r = requests.get(f"{live_server}/v1/gofo/tables/{table_id}/seats/{seat}",
                         headers=bearer(tokens[seat]), timeout=10).json()
        return r["hand"]["my_cards"], r["version"]

    def own_cards_only():
        """Each phone shows exactly its own visible cards: never another seat's."""
        everyone = []
        for seat, page in enumerate(pages):
            mine, version = cards_of(seat)
            page.wait_for_function("v => Number(document.body.dataset.version) >= v", arg=version)
            shown = page.eval_on_selector_all("#my-cards [data-mycard]", "els => els.map(e => e.dataset.mycard)")
            assert sorted(shown) == sorted(mine), (seat, shown, mine)
            everyone.append(set(mine))
        for a in range(3):
            for b in range(3):
                if a != b:
                    assert not everyone[a] & everyone[b]
            others = set().union(*(everyone[b] for b in range(3) if b != a))
            assert not any(f"data-mycard=\"{c}\"" in pages[a].content() for c in others)
        return everyone

    entered = 0
    speakers = 0
    checked_five = False
    version = 0
    for step in range(80):
        view = public_table(live_server, table_id, after=version, pages=pages)
        version = view["version"]
        if view["table"]["hand_number"] == 2:
            break
        hand = view["hand"]
        seat = hand["to_act"]
        page = pages[seat]
        ready(page, view["version"], seat)
        actions = page.eval_on_selector_all("#actions [data-action]", "els => els.map(e => e.dataset.action)")
        if hand["phase"] == "opening":
            # Mano opens before looking: both cards face down on that phone.
            assert page.locator("#my-cards [data-mycard]").count() == 0
            assert page.locator("#my-cards .card.back").count() == 2
            shot(page, "gofo-seat-opening")
            page.fill("#amount-open", "2")
            page.click("#actions [data-action='open']")
        elif hand["phase"] == "entering":
            if entered == 0:
                page.click("#actions [data-action='look']")
                page.wait_for_selector("#my-cards [data-mycard]")
                assert page.locator("#my-cards [data-mycard]").count() == 2  # the first two, after "look"
                ready(page, view["version"] + 1, seat)
                version += 1  # the look is a version of its own
                own_cards_only()
                page.click("#actions [data-action='enter'][data-blind='false']")
            else:
                page.click("#actions [data-action='enter'][data-blind='true']")
            entered += 1
        elif hand["phase"] == "raising":
            page.click("#actions [data-action='pass']")
        elif hand["phase"] == "speaking":
            if not checked_five:
                own_cards_only()  # five cards each now (the blind seat still sees only the last three)
                checked_five = True
            if speakers == 1:
                shot(page, "gofo-seat-corta")
                amount(page, "corta", 3, max(hand["committed"]), first_bet=True)
            else:
                page.click("#actions [data-action='voy']")
            speakers += 1
        elif hand["phase"] == "betting":
            assert page.inner_text("#bet").startswith("Bet in force:")
            page.click("#actions [data-action='ver']" if "ver" in actions else "#actions [data-action='pass']")
        elif hand["phase"] == "discard":
            throw = page.eval_on_selector("#actions [data-throw]", "e => e.dataset.throw")
            page.click(f"#actions [data-throw='{throw}']")
            page.click("#actions [data-action='discard']")
        else:
            raise AssertionError(f"unexpected phase {hand['phase']} with {actions}")
    else:
        raise AssertionError("the hand did not end")
    view = public_table(live_server, table_id)
    result = view["table"]["last_result"]
    assert sum(result["net"]) == 0
    for page in pages + [host]:
        page.wait_for_selector("#last-hand #deal-verdict [data-verdict='verified']", timeout=30_000)
        nets = page.eval_on_selector_all("#last-hand .net li", "els => els.map(e => Number(e.dataset.net))")
        assert nets == result["net"]
    host.click("#ledger summary")
    host.wait_for_selector("#ledger-hands li")
    balances = host.eval_on_selector_all("#ledger td.balance", "els => els.map(e => Number(e.textContent))")
    assert balances == [s["balance"] for s in view["table"]["seats"]]
    shot(pages[0], "gofo-seat-hand-over")
    shot(host, "gofo-host-ledger")
    clean(host, *pages)


# What a Gofo screen shows, read in one round trip once it shows version `v` (else null: wait on).
SCREEN = """
v => {
  // (and not waiting for a move's answer: it would draw the screen again under a test's fingers)
  if (document.body.dataset.version !== String(v) || document.body.dataset.busy === 'yes') return null;
  const num = (el) => (el ? Number(el.textContent) : null);
  const rows = [...document.querySelectorAll('#seats tbody tr')].map((r) => ({
    seat: Number(r.dataset.seat), resto: num(r.querySelector('td.resto')), committed: num(r.querySelector('td.committed')),
    status: r.querySelector('td.status').dataset.status, to_act: r.classList.contains('to-act') }));
  const toAct = document.querySelector('#to-act');
  const bet = document.querySelector('#bet');
  return {
    rows,
    pots: [...document.querySelectorAll('#pots li[data-pot]')].map((li) => Number(li.dataset.amount)),
    bet: bet && bet.dataset.level ? Number(bet.dataset.level) : null,
    to_act: toAct ? Number(toAct.dataset.seat) : null,
    mine: [...document.querySelectorAll('#my-cards [data-mycard]')].map((e) => e.dataset.mycard),
    backs: document.querySelectorAll('#my-cards .card.back').length,
    faces: [...document.querySelectorAll('#app [data-code]')].filter((e) => !e.closest('#last-hand')).map((e) => e.dataset.code),
    actions: [...document.querySelectorAll('#actions [data-action]')].map((e) => e.dataset.action),
    actions_for: document.querySelector('#actions') ? Number(document.querySelector('#actions').dataset.seat) : null,
    width: document.documentElement.scrollWidth,
  };
}
"""


def test_five_phones_play_a_dealt_gofo_hand(phone, origin, live_server):
    """Five seats, five phones: after every move each screen agrees with the others (and with the
    referee) on the pots, the stacks, the bet and whose turn it is, and shows its own cards only."""
    created = requests.post(f"{live_server}/v1/gofo/tables", json={"seats": 5, "caja": 100, "refill": 10, "initial_front": 30}, timeout=10).json()
    table_id, tokens = created["id"], created["seat_tokens"]
    base = f"{live_server}/v1/gofo/tables/{table_id}"
    http = requests.Session()
    pages = [phone(locale="es-AR" if seat == 3 else "en-US") for seat in range(5)]
    for seat, page in enumerate(pages):
        page.goto(f"{origin}/play#gofo={table_id}&seat={seat}&t={tokens[seat]}")

    def seat_view(seat):
        return http.get(f"{base}/seats/{seat}", headers=bearer(tokens[seat]), timeout=10).json()

    def screens_agree(view):
        """Every screen at `view`'s version: the same table as the referee's; each seat's own cards only."""
        hand = view["hand"]
        public_faces = {c for d in hand["discards"] for c in d["cards"] or []} | {c for k in hand["kept"] for c in k}
        expected = {
            "rows": [{"seat": s, "resto": hand["resto"][s], "committed": hand["committed"][s], "status": hand["status"][s],
                      "to_act": s == hand["to_act"]} for s in range(5)],
            "pots": [p["amount"] for p in hand["pots"]],
            "bet": hand["bet"]["level"] if hand["bet"] else None,
            "to_act": hand["to_act"],
        }
        states = [page.wait_for_function(SCREEN, arg=view["version"], timeout=30_000).json_value() for page in pages]
        for seat, state in enumerate(states):
            assert {k: state[k] for k in expected} == expected, (seat, state)
            mine = seat_view(seat)["hand"]["my_cards"]
            assert sorted(state["mine"]) == sorted(mine), (seat, state["mine"], mine)
            assert state["backs"] == hand["card_counts"][seat] - len(mine) if hand["status"][seat] in ("pending", "in") else True
            # Every face-up card on this screen is its own or one the whole table sees.
            assert set(state["faces"]) <= set(mine) | public_faces, (seat, set(state["faces"]) - set(mine) - public_faces)
            assert state["width"] <= 360, (seat, state["width"])  # nothing wider than the phone
        return states

    plan = {"raised": False, "cut": False, "refiched": False, "folded": False}
    version, moves = 0, 0
    for step in range(120):
        view = public_table(live_server, table_id, after=version, pages=pages)
        version = view["version"]
        if view["table"]["hand_number"] == 2:
            break
        hand = view["hand"]
        seat, phase = hand["to_act"], hand["phase"]
        rel = (seat - hand["mano"]) % 5  # the seat's place from mano decides what it plays
        states = screens_agree(view)
        page, actions = pages[seat], states[seat]["actions"]
        assert states[seat]["actions_for"] == seat and actions
        for other, state in enumerate(states):
            if other != seat:  # nobody else is offered a move in turn (looking is never in turn)
                assert set(state["actions"]) <= {"look"}, (other, state["actions"])
        moves += 1
        if phase == "opening":
            assert states[seat]["backs"] == 2 and states[seat]["mine"] == []  # mano opens before looking
            page.fill("#amount-open", "2")
            page.click("#actions [data-action='open']")
        elif phase == "entering":
            if rel in (1, 4) and "look" in actions:
                page.click("#actions [data-action='look']")
            elif rel == 2:
                page.click("#actions [data-action='enter'][data-blind='true']")
            elif rel == 3:
                page.click("#actions [data-action='decline']")
            else:
                page.click("#actions [data-action='enter'][data-blind='false']")
        elif phase == "raising":
            if rel == 2 and not plan["raised"]:
                shot(page, "gofo5-raise")
                readable(page)
                amount(page, "raise", 2, max(hand["committed"]))
                plan["raised"] = True
            else:
                page.click("#actions [data-action='pass']")
        elif phase == "speaking":
            if rel == 1 and not plan["cut"]:
                amount(page, "corta", 3, max(hand["committed"]), first_bet=True)
                plan["cut"] = True
            else:
                page.click("#actions [data-action='voy']")
        elif phase == "betting":
            if "ver" in actions:
                fold = rel == 4 and plan["cut"] and not plan["folded"]
                plan["folded"] |= fold
                page.click("#actions [data-action='no-ver']" if fold else "#actions [data-action='ver']")
            elif "refiche" in actions and rel == 0 and not plan["refiched"]:
                shot(page, "gofo5-refiche")
                amount(page, "refiche", 3, hand["bet"]["level"])
                plan["refiched"] = True
            else:
                page.click("#actions [data-action='pass']")
        elif phase == "discard":
            throw = page.eval_on_selector("#actions [data-throw]", "e => e.dataset.throw")
            page.click(f"#actions [data-throw='{throw}']")
            page.click("#actions [data-action='discard']")
        else:
            raise AssertionError(f"unexpected phase {phase} with {actions}")
    else:
        raise AssertionError("the hand did not end")
    assert all(plan.values()), plan
    final = public_table(live_server, table_id)
    result = final["table"]["last_result"]
    assert sum(result["net"]) == 0 and result["reason"] == "canto"
    entries = [e for e in http.get(f"{base}/transcript", timeout=10).json()["entries"] if e["hand"] in (0, 1)]
    for page in pages:
        page.wait_for_selector("#last-hand #deal-verdict [data-verdict='verified']", timeout=30_000)
        assert page.eval_on_selector_all("#last-hand .net li", "els => els.map(e => Number(e.dataset.net))") == result["net"]
        # The hand's record, round by round, every entry of it (the first-dealer draw included).
        assert page.locator("#hand-transcript li").count() == len(entries)
    assert pages[0].inner_text("#deal-verdict .verdict") == "✔ Fair deal checked"
    verdict = pages[0].text_content("#deal-verdict")  # how it was checked: one tap away
    draws = sum(e["action"]["type"] == "dealer_draw" for e in entries)  # a tie draws again
    assert "deck matches its commitment" in verdict and f"first-dealer draw ({draws} round(s)) matches" in verdict, verdict
    assert pages[3].inner_text("#deal-verdict .verdict") == "✔ Reparto limpio comprobado"
    titles = pages[0].eval_on_selector_all("#hand-transcript h3", "els => els.map(e => e.textContent)")
    assert titles[0] == "Opening and entering" and titles[1] == "Round 1", titles
    pages[0].click("#hand-transcript summary")
    for page in pages:
        readable(page)
    for seat, page in enumerate(pages):
        shot(page, f"gofo5-seat{seat + 1}-over")
    print(f"five phones: {moves} moves")
    clean(*pages)


def test_gofo_hand_verification_names_the_first_mismatch(phone, origin, live_server):
    """A finished dealt hand re-checks in the browser; each kind of tampering is caught and named."""
    created = requests.post(f"{live_server}/v1/gofo/tables", json={"seats": 2}, timeout=10).json()
    table_id, tokens = created["id"], created["seat_tokens"]
    base = f"{live_server}/v1/gofo/tables/{table_id}"
    http = requests.Session()
    for _ in range(60):  # the first legal of these, until the hand is over: it reaches the canto
        view = http.get(base, timeout=10).json()
        if view["table"]["hand_number"] == 2:
            break
        seat = view["hand"]["to_act"]
        auth = bearer(tokens[seat])
        legal = {a["type"] for a in http.get(f"{base}/seats/{seat}", headers=auth, timeout=10).json()["hand"]["legal_actions"]}
        move, body = next((m, b) for m, b in (("open", {"amount": 2}), ("enter", {"blind": False}), ("pass", {}), ("voy", {}),
                                               ("ver", {}), ("discard", {"cards": []})) if m in legal)
        assert http.post(f"{base}/seats/{seat}/{move}", json=body, headers=auth, timeout=10).status_code == 200
    assert view["table"]["last_result"]["reason"] == "canto"
    page = phone()
    page.goto(f"{origin}/play")
    page.wait_for_selector("#sha-check[data-ok=yes]")
    outcome = page.evaluate(VERIFY_GOFO, table_id)
    assert outcome["honest"] == {"ok": True, "cards": 10, "draws": outcome["draws"]} and outcome["draws"] >= 1
    assert outcome["seen"]["problem"] == "hand 1: the deck commitment is not the one this phone saw before the deal"
    assert outcome["leaf"]["problem"].startswith("hand 1: card at position ")
    assert outcome["salt"]["problem"] == "first-dealer draw, round 1: the draw deck does not match its commitment"
    assert outcome["cards"]["problem"] == "first-dealer draw, round 1: the cards drawn are not the top of the committed deck"
    assert outcome["unopened"]["problem"].startswith("first-dealer draw, round 9:")
    clean(page)


# Checks a finished hand with the page's own verifier, as published and tampered in each way.
VERIFY_GOFO = """
async (id) => {
  const { call } = await import('/play/assets/api.js');
  const { verifyHand } = await import('/play/assets/gofo.js');
  const base = `/v1/gofo/tables/${id}`;
  const table = (await call('GET', base)).data.table;
  const transcript = (await call('GET', `${base}/transcript`)).data;
  const deal = table.last_deal;
  const copy = (x) => JSON.parse(JSON.stringify(x));
  const check = (over = {}) => verifyHand({ tableId: id, deal, transcript, published: table.draw_commitments, seen: deal.commitment, ...over });
  const draw = (t) => t.entries.find((e) => e.action.type === 'dealer_draw');
  const leaf = copy(deal);
  leaf.openings[0].card = leaf.openings[1].card;  // a card opened as another
  const salt = copy(transcript);
  draw(salt).draw.salt = 'ab'.repeat(32);
  const cards = copy(transcript);
  draw(cards).action.cards.reverse();
  return {
    honest: await check(),
    draws: transcript.entries.filter((e) => e.action.type === 'dealer_draw').length,
    seen: await check({ seen: 'f'.repeat(64) }),
    leaf: await check({ deal: leaf }),
    salt: await check({ transcript: salt }),
    cards: await check({ transcript: cards }),
    unopened: await check({ published: [...table.draw_commitments, { round: 9, commitment: '0'.repeat(64) }] }),
  };
}
"""


TABLETOP_HANDS = [["6e", "7e", "11e", "12e", "4o"], ["6o", "7o", "11o", "12o", "3c"], ["3b", "4b", "5b", "6b", "7c"]]
TABLETOP_POINTS = [30, 30, 18]
FACE_UP = ["5e", "11c"]  # thrown face up by one seat: in none of the hands shown at the canto


def test_one_host_phone_runs_a_tabletop_gofo_hand(phone, origin, live_server):
    host = phone(locale="es-ES")
    log = record_requests(host)
    table_id = create_gofo(host, origin, mode="tabletop")
    host.wait_for_function("() => document.body.dataset.live === 'live'")
    assert host.locator(".join").count() == 0
    speakers = 0
    version = 0
    faced_up = None
    raced = False
    for step in range(80):
        view = public_table(live_server, table_id, after=version, pages=[host])
        version = view["version"]
        if view["table"]["hand_number"] == 2:
            break
        hand = view["hand"]
        seat, mano = hand["to_act"], hand["mano"]
        ready(host, view["version"], seat)
        assert host.inner_text("#actions h2") == f"Jugada de Puesto {seat + 1}"
        rel = (seat - mano) % 3  # the seat's place from mano: which real hand it holds
        actions = host.eval_on_selector_all("#actions [data-action]", "els => els.map(e => e.dataset.action)")
        phase = hand["phase"]
        if phase == "opening":
            host.fill("#amount-open", "2")
            host.click("#actions [data-action='open']")
        elif phase == "entering":
            host.click("#actions [data-action='enter'][data-blind='false']")
        elif phase == "raising":
            host.click("#actions [data-action='pass']")
        elif phase == "speaking":
            if speakers == 1:
                host.fill("#amount-corta", "2")
                host.dispatch_event("#amount-corta", "change")
                assert host.inner_text("#amount-label-corta") == "una apuesta de 2"  # the first bet: no bet in force
                host.click("#actions [data-action='corta']")
            else:
                host.click("#actions [data-action='voy']")
            speakers += 1
        elif phase == "betting":
            host.click("#actions [data-action='ver']" if "ver" in actions else "#actions [data-action='pass']")
        elif phase == "discard" and not faced_up:
            # Thrown face up: the host picks the cards with the canto's picker (no codes typed).
            host.click("#discard-faceup summary")
            assert host.is_disabled("#actions [data-action='discard'][data-faceup]")  # nothing picked yet
            for card in FACE_UP:
                host.click(f"#discard-picker [data-pick='{card}']")
            assert host.inner_text("#actions [data-action='discard'][data-faceup]") == "Tirar estas 2 boca arriba"
            shot(host, "gofo-tabletop-faceup")
            readable(host)
            host.click("#actions [data-action='discard'][data-faceup]")
            faced_up = public_table(live_server, table_id, after=version)["hand"]["discards"][-1]
            assert faced_up == {**faced_up, "seat": seat, "count": 2, "cards": FACE_UP}, faced_up
        elif phase == "discard":
            # The cards already face up on the table cannot be thrown again: greyed in the picker.
            host.wait_for_selector("#discards [data-code='5e']")
            host.click("#discard-faceup summary")
            assert all(host.is_disabled(f"#discard-picker [data-pick='{c}']") for c in FACE_UP)
            assert host.is_enabled("#discard-picker [data-pick='3e']")
            host.click("#actions [data-action='discard'][data-count='1']")  # a count: no cards tracked
        elif phase == "canto" and hand["canto"]["stage"] == "declare" and not raced:
            # The stream brings the next seat's turn before this move's answer: what the host picks
            # for that seat meanwhile must survive the answer (it used to be wiped by it).
            raced = True
            held = []
            host.route("**/seats/*/declare", lambda route: held.append(  # (table.local is Chromium's name only)
                (route, route.fetch(url=route.request.url.replace(origin, live_server)))))
            host.click(f"#actions [data-points='{TABLETOP_POINTS[rel]}']")
            host.click("#actions [data-action='declare']")
            for _ in range(300):  # the route's handler runs only while Playwright is called: until it has
                if held:         # sent the move on (public_table alone would wait for it forever)
                    break
                host.wait_for_timeout(50)
            after = public_table(live_server, table_id, after=version)
            following = after["hand"]["to_act"]
            ready(host, after["version"], following, answered=False)
            points = TABLETOP_POINTS[(following - mano) % 3]
            host.click(f"#actions [data-points='{points}']")
            assert len(held) == 1  # the answer is still on its way
            route, response = held[0]
            route.fulfill(response=response)
            host.unroute("**/seats/*/declare")
            host.wait_for_function("p => { const b = document.querySelector(`#actions [data-action='declare']`);"
                                   " return b && !b.disabled && b.textContent === `Cantar ${p}`; }", arg=points)
        elif phase == "canto" and hand["canto"]["stage"] == "declare":
            host.click(f"#actions [data-points='{TABLETOP_POINTS[rel]}']")
            host.click("#actions [data-action='declare']")
        elif phase == "canto":
            for card in TABLETOP_HANDS[rel]:
                host.click(f"#show-picker [data-pick='{card}']")
            assert host.inner_text("#show-value") == f"Valor: {TABLETOP_POINTS[rel]}"
            shot(host, "gofo-tabletop-show")
            readable(host)
            host.click("#actions [data-action='show']")
        else:
            raise AssertionError(f"unexpected phase {phase} with {actions}")
    else:
        raise AssertionError("the hand did not end")
    result = public_table(live_server, table_id)["table"]["last_result"]
    assert result["reason"] == "canto" and sum(result["net"]) == 0
    assert faced_up and FACE_UP in [d["cards"] for d in result["discards"]] and raced
    mano = result["mano"]
    assert result["pots"][0]["winner"] == mano  # 30 against 30: mano is closer
    host.wait_for_selector("#last-hand .net li")
    nets = host.eval_on_selector_all("#last-hand .net li", "els => els.map(e => Number(e.dataset.net))")
    assert nets == result["net"]
    # The move that ended the hand answered its result and the next hand's first turn: shown at once.
    final = public_table(live_server, table_id)
    ready(host, final["version"], final["hand"]["to_act"])
    assert host.get_attribute("#hand-over", "data-hand") == "1"
    shot(host, "gofo-tabletop-over")
    host.wait_for_timeout(1000)  # time for a request a late answer would make
    # One phone ran the hand, and each move's answer named the next seat's moves: after every move
    # the page asked for no view of the table or of a seat before the next move — but once. The
    # declaration whose answer the test held back: the stream brought its version, and after a
    # grace period the page asked for the next seat's view so the host need not wait.
    moves = views_after_moves(log)
    assert len(moves) >= 15, moves
    held = next(i for i, (post, _) in enumerate(moves) if post.endswith("/declare"))
    assert len(moves[held][1]) == 1 and re.search(r"/seats/\d$", moves[held][1][0]), moves[held]
    assert [m for i, m in enumerate(moves) if m[1] and i != held] == []
    assert stream_opens(log) == 1 and host.evaluate("document.body.dataset.live") == "live"
    clean(host)


class Table:
    """A Gofo table made through the API (the moves a test does not need a phone for)."""

    def __init__(self, live_server, **options):
        self.http = requests.Session()
        created = self.http.post(f"{live_server}/v1/gofo/tables", json=options, timeout=10)
        assert created.status_code == 201, created.text
        created = created.json()
        self.id, self.host, self.tokens = created["id"], created["host_token"], created["seat_tokens"]
        self.base = f"{live_server}/v1/gofo/tables/{self.id}"
        self.answer = created["table"]

    def move(self, seat, move, body=None, token=None):
        r = self.http.post(f"{self.base}/seats/{seat}/{move}", json=body or {}, timeout=10,
                           headers=bearer(token or self.tokens[seat]))
        assert r.status_code == 200, (move, r.text)
        self.answer = r.json()
        return self.answer

    def view(self):
        return self.http.get(self.base, timeout=10).json()


def test_a_reported_reshuffle_gives_face_up_discards_back_to_the_picker(phone, origin, live_server):
    """Tabletop: cards thrown face up are greyed in the picker while they lie in the pile; once the
    dealer reports that the real pile was reshuffled into the stock they may be drawn (and thrown) again."""
    table = Table(live_server, seats=3, caja=100, refill=10, initial_front=30, mode="tabletop", first_dealer=0)
    # Dealer 0, mano 1. Everyone in, everyone voy; mano throws two cards face up.
    table.move(1, "open", {"amount": 2})
    table.move(2, "enter", {"blind": False})
    table.move(0, "enter", {"blind": False})
    table.move(1, "pass")
    for seat in (1, 2, 0):
        table.move(seat, "voy")
    table.move(1, "discard", {"cards": FACE_UP})
    answer = table.move(2, "discard", {"count": 1})
    assert answer["next"]["seat"] == 0 and answer["hand"].get("known_out") == sorted(FACE_UP, key=lambda c: c[-1])
    host = phone()
    log = record_requests(host)
    host.goto(f"{origin}/play#gofo={table.id}&host={table.host}")
    ready(host, answer["version"], 0)
    host.wait_for_function("() => document.body.dataset.live === 'live'")
    host.click("#discard-faceup summary")
    assert all(host.is_disabled(f"#discard-picker [data-pick='{c}']") for c in FACE_UP)
    host.click("#actions [data-action='reshuffle']")  # the dealer (to act) reports it
    after = public_table(live_server, table.id, after=answer["version"], pages=[host])
    assert after["hand"]["known_out"] == [] and after["hand"]["to_act"] == 0
    ready(host, after["version"], 0)
    host.click("#discard-faceup summary")
    assert all(host.is_enabled(f"#discard-picker [data-pick='{c}']") for c in FACE_UP)
    shot(host, "gofo-tabletop-reshuffled")
    readable(host)
    # The dealer drew 5e from the new stock and throws it face up: the referee takes it.
    host.click("#discard-picker [data-pick='5e']")
    host.click("#actions [data-action='discard'][data-faceup]")
    thrown = public_table(live_server, table.id, after=after["version"], pages=[host])
    assert thrown["hand"]["discards"][-1]["cards"] == ["5e"] and thrown["hand"]["known_out"] == ["5e"]
    ready(host, thrown["version"], thrown["hand"]["to_act"])
    host.wait_for_timeout(1000)  # time for a request a late answer would make
    assert views_after_moves(log) == [(f"/v1/gofo/tables/{table.id}/seats/0/reshuffle", []),
                                      (f"/v1/gofo/tables/{table.id}/seats/0/discard", [])]
    assert stream_opens(log) == 1
    clean(host)


def test_the_host_phone_records_moves_out_of_turn(phone, origin, live_server):
    """Tabletop: the dealer reports a reshuffle while another seat discards; at the canto a seat that
    is not to act corrects its declaration, another concedes — all from the host's phone."""
    table = Table(live_server, seats=3, caja=100, refill=10, initial_front=30, mode="tabletop", first_dealer=0)
    table.move(1, "open", {"amount": 2}, table.host)
    table.move(2, "enter", {"blind": False}, table.host)
    table.move(0, "enter", {"blind": False}, table.host)
    table.move(1, "pass", {}, table.host)
    for seat in (1, 2, 0):
        answer = table.move(seat, "voy", {}, table.host)
    assert answer["hand"]["phase"] == "discard" and answer["next"]["seat"] == 1
    host = phone(locale="es-ES")
    log = record_requests(host)
    host.goto(f"{origin}/play#gofo={table.id}&host={table.host}")
    ready(host, answer["version"], 1)
    host.click("#out-of-turn summary")
    assert host.is_disabled("#out-of-turn [data-aside='1']")  # the seat to act moves in the panel above
    host.click("#out-of-turn [data-aside='2']")
    host.wait_for_selector("#aside-none")
    host.click("#out-of-turn [data-aside='0']")  # the dealer, while seat 1 discards
    host.click("#aside-actions [data-action='reshuffle']")
    after = public_table(live_server, table.id, after=answer["version"], pages=[host])
    assert after["hand"]["to_act"] == 1 and after["hand"]["phase"] == "discard"
    entry = table.http.get(f"{table.base}/transcript", timeout=10).json()["entries"][-1]
    assert entry["action"]["type"] == "reshuffle" and entry["seat"] == 0 and entry["by"] == "host"
    ready(host, after["version"], 1)
    host.wait_for_selector("#aside-actions[data-seat='0'] [data-action='reshuffle']")  # from the answer
    # On to the canto (the API, as the host): stand pat, voy, four rounds; seats 1 and 2 declare.
    for _ in range(30):
        hand = table.answer["hand"]
        if hand["phase"] == "canto":
            break
        seat = hand["to_act"]
        table.move(seat, "discard" if hand["phase"] == "discard" else "voy", {"count": 0} if hand["phase"] == "discard" else {}, table.host)
    table.move(1, "declare", {"points": 30}, table.host)
    answer = table.move(2, "declare", {"points": 25}, table.host)
    assert answer["next"]["seat"] == 0
    ready(host, answer["version"], 0)
    gets = len([p for m, p in log if m == "GET" and p.endswith("/seats/1")])
    host.click("#out-of-turn [data-aside='1']")  # mano said 30 but holds 27: he corrects it
    host.click("#aside-actions [data-points='27']")
    host.click("#aside-actions [data-action='declare']")
    corrected = public_table(live_server, table.id, after=answer["version"], pages=[host])
    assert corrected["hand"]["canto"]["declared"] == [None, 27, 25]
    ready(host, corrected["version"], 0)
    host.wait_for_selector("#aside-actions[data-seat='1'] [data-action='muck']")  # the answer's legal actions
    assert len([p for m, p in log if m == "GET" and p.endswith("/seats/1")]) == gets + 1  # only the tap's
    shot(host, "gofo-tabletop-out-of-turn")
    readable(host)
    host.click("#out-of-turn [data-aside='2']")  # seat 2 concedes
    host.click("#aside-actions [data-action='muck']")
    mucked = public_table(live_server, table.id, after=corrected["version"], pages=[host])
    entry = table.http.get(f"{table.base}/transcript", timeout=10).json()["entries"][-1]
    assert entry["action"]["type"] == "muck" and entry["seat"] == 2
    ready(host, mucked["version"], 0)  # seat 0 still declares, in turn
    host.wait_for_selector("#aside-none")  # seat 2 has nothing left to do
    clean(host)


def bust_hand(table, points, show):
    """Play one 2-seat hand at `table` (caja = front, nothing behind) to a bust: mano opens 1, both go
    all-in on a corte, stand pat, and (tabletop) declare `points[rel]`, the winner showing `show`."""
    for _ in range(20):
        view = table.answer
        hand = view["hand"]
        if hand is None or view["table"]["hand_number"] == 2:
            return view
        seat, phase = hand["to_act"], hand["phase"]
        token = table.host if hand["mode"] == "tabletop" else None
        legal = {a["type"]: a for a in table.http.get(f"{table.base}/seats/{seat}", timeout=10,
                                                         headers=bearer(token or table.tokens[seat])).json()["hand"]["legal_actions"]}
        if phase == "opening":
            table.move(seat, "open", {"amount": 1}, token)
        elif phase == "entering":
            table.move(seat, "enter", {"blind": False}, token)
        elif phase == "raising":
            table.move(seat, "pass", {}, token)
        elif phase == "speaking":
            table.move(seat, "corta", {"amount": legal["corta"]["max"]}, token)
        elif phase == "betting":
            table.move(seat, "ver", {}, token)
        elif phase == "discard":
            table.move(seat, "discard", {"count": 0} if token else {"cards": []}, token)
        elif phase == "canto" and hand["canto"]["stage"] == "declare":
            table.move(seat, "declare", {"points": points[(seat - hand["mano"]) % 2]}, token)
        else:
            table.move(seat, "show", {"cards": show}, token)
    raise AssertionError("the hand did not end")


def test_the_host_phone_inaugurates_a_new_caja(phone, origin, live_server):
    """inauguration chosen (what a table opened from the page asks by default): the seat that lost its
    whole caja chooses 2× or 3× the refill before the next hand, the host choosing for it at tabletop."""
    host = phone(locale="es-ES")
    log = record_requests(host)
    table_id = create_gofo(host, origin, mode="tabletop", seats=2, caja=3, refill=1, initial_front=3)
    host.wait_for_function("() => document.body.dataset.live === 'live'")
    created = public_table(live_server, table_id)
    assert created["table"]["options"]["inauguration"] == "chosen"  # the form's default
    version = 0
    for _ in range(20):  # the host runs the hand: mano opens 1, both all-in, stand pat, mano wins the canto
        view = public_table(live_server, table_id, after=version, pages=[host])
        version = view["version"]
        if view["hand"] is None:
            break
        hand = view["hand"]
        seat, phase = hand["to_act"], hand["phase"]
        ready(host, version, seat)
        rel = (seat - hand["mano"]) % 2
        if phase == "opening":
            host.fill("#amount-open", "1")
            host.click("#actions [data-action='open']")
        elif phase == "entering":
            host.click("#actions [data-action='enter'][data-blind='false']")
        elif phase == "raising":
            host.click("#actions [data-action='pass']")
        elif phase == "speaking":
            host.fill("#amount-corta", host.get_attribute("#amount-corta", "max"))  # all the resto: all in
            host.click("#actions [data-action='corta']")
        elif phase == "betting":
            host.click("#actions [data-action='ver']")
        elif phase == "discard":
            host.click("#actions [data-action='discard'][data-count='0']")
        elif phase == "canto" and hand["canto"]["stage"] == "declare":
            host.click(f"#actions [data-points='{TABLETOP_POINTS[rel]}']")
            host.click("#actions [data-action='declare']")
        else:
            for card in TABLETOP_HANDS[0]:
                host.click(f"#show-picker [data-pick='{card}']")
            host.click("#actions [data-action='show']")
    else:
        raise AssertionError("the hand did not end")
    loser = 1 - view["table"]["last_result"]["mano"]
    assert view["table"]["inaugurations_pending"] == [loser] and view["table"]["seats"][loser]["front"] == 0
    # The show's answer named the seat to inaugurate and its fronts: the buttons, at once.
    host.wait_for_selector(f"#inauguration [data-action='inaugurate'][data-seat='{loser}']")
    buttons = host.eval_on_selector_all("#inauguration [data-action='inaugurate']", "els => els.map(e => [e.dataset.front, e.textContent])")
    assert buttons == [["2", "2× — 2"], ["3", "3× — 3"]]
    assert host.inner_text("#to-act") == f"Le toca a: Puesto {loser + 1}"
    assert host.locator("#actions").count() == 0  # no hand to play until the caja is open
    shot(host, "gofo-tabletop-inauguration")
    readable(host)
    host.click(f"#inauguration [data-front='3']")
    started = public_table(live_server, table_id, after=version, pages=[host])
    assert started["table"]["inaugurations_pending"] == [] and started["table"]["hand_number"] == 2
    assert started["table"]["seats"][loser] == {**started["table"]["seats"][loser], "front": 3, "behind": 0, "cajas": 2}
    ready(host, started["version"], started["hand"]["to_act"])
    assert host.locator("#inauguration").count() == 0
    host.wait_for_timeout(1000)  # time for a request a late answer would make
    moves = views_after_moves(log)
    assert moves[-1][0].endswith(f"/seats/{loser}/inaugurate") and [m for m in moves if m[1]] == [], moves
    # English too, one tap away.
    host.click("#lang")
    host.wait_for_selector("#seats")
    assert host.inner_text("#where").startswith("Hand 2")
    clean(host)


def test_a_seat_inaugurates_its_new_caja_from_its_own_phone(phone, origin, live_server):
    """A dealt table: only the seat that took a new caja is offered the choice, on its own phone."""
    table = Table(live_server, seats=2, caja=3, refill=1, initial_front=3, inauguration="chosen")
    view = bust_hand(table, None, None)
    loser = view["table"]["inaugurations_pending"][0]
    assert view["table"]["inaugurations_pending"] == [loser] and view["hand"] is None
    pages = {seat: phone(locale="en-US" if seat == loser else "es-ES") for seat in (0, 1)}
    for seat, page in pages.items():
        page.goto(f"{origin}/play#gofo={table.id}&seat={seat}&t={table.tokens[seat]}")
        page.wait_for_selector("#inauguration")
    page = pages[loser]
    assert page.eval_on_selector_all("#inauguration [data-action='inaugurate']", "els => els.map(e => e.textContent)") == ["2× — 2", "3× — 3"]
    assert page.locator("#your-turn").count() == 1
    other = pages[1 - loser]
    assert other.locator("[data-action='inaugurate']").count() == 0
    assert other.inner_text(f"#inauguration [data-waiting='{loser}']") == f"Puesto {loser + 1} elige el frente de su caja nueva."
    shot(page, "gofo-seat-inauguration")
    readable(page)
    readable(other)
    page.click("#inauguration [data-front='2']")
    started = public_table(live_server, table.id, after=view["version"])
    assert started["table"]["seats"][loser]["front"] == 2 and started["table"]["seats"][loser]["behind"] == 1
    for seat, p in pages.items():
        p.wait_for_function("v => Number(document.body.dataset.version) >= v && !document.querySelector('#inauguration')", arg=started["version"])
        p.wait_for_selector("#my-cards")
    clean(*pages.values())


def test_host_phone_reports_the_tabletop_prize(phone, origin, live_server):
    """A real prize pile: the host taps the card turned up; the seats bid on it and the match adds up."""
    host = phone()
    host.goto(f"{origin}/play")
    host.click("#new-gops")
    host.select_option("#f-profile", "standard")
    host.fill("#f-ranks", "3")
    host.select_option("#f-prize_order", "reported")
    host.select_option("#f-format", "cumulative")
    host.fill("#f-games", "2")
    host.click("#gops-create-go")
    host.wait_for_selector(".join input.link")
    links = host.eval_on_selector_all(".join input.link", "els => els.map(e => e.value)")
    seats = [phone(), phone()]
    for page, link in zip(seats, links):
        page.goto(link)
    pile = {1: [2, 3, 1], 2: [1, 3, 2]}  # the real pile's order, game by game
    for game in (1, 2):
        for rnd, prize in enumerate(pile[game], start=1):
            for page in seats:
                page.wait_for_selector("#prize-status")  # waiting for the prize
            host.wait_for_selector(f"#report [data-report='{prize}']")
            if game == 1 and rnd == 1:
                shot(host, "gops-host-report")
            host.click(f"#report [data-report='{prize}']")
            for seat, page in enumerate(seats):
                page.wait_for_selector(f"#prize .card[data-rank='{prize}']")
                page.click(f"#hand [data-card='{prize if seat == 0 else 4 - prize}']")
                page.click("#bid")
            if not (game == 2 and rnd == 3):
                for page in seats:
                    page.wait_for_function("g => document.querySelector('#where').textContent.includes(`game ${g}`)", arg=game if rnd < 3 else game + 1)
    for page in seats + [host]:
        page.wait_for_selector("#verdict[data-verdict='verified']", timeout=30_000)
    final = requests.get(f"{live_server}/v1/gops/games/{re.search(r'#gops=([^&]+)&', links[0]).group(1)}", timeout=10).json()
    assert final["result"]["games_played"] == 2
    totals = seats[0].eval_on_selector_all("#scores td.total", "els => els.map(e => e.textContent)")
    assert totals == final["result"]["totals"]
    clean(host, *seats)


def test_seat_page_shows_a_blind_prize_and_an_open_row(phone, origin, live_server):
    def seat_link(options):
        created = requests.post(f"{live_server}/v1/gops/games", json={"profile": "standard", "options": options}, timeout=10).json()
        return f"{origin}/play#gops={created['id']}&seat=0&t={created['seat_tokens'][0]}", created

    page = phone()
    link, _ = seat_link({"players": 2, "ranks": 5, "visibility": "blind"})
    page.goto(link)
    page.wait_for_selector("#blind")
    assert page.locator("#prize .card.back").count() == 1 and page.locator("#prize [data-rank]").count() == 0
    link, created = seat_link({"players": 3, "ranks": 6, "open_prizes": 3, "prize_order": "ascending"})
    page.goto(link)
    page.wait_for_function("() => document.querySelectorAll('#prize [data-rank]').length === 3")
    assert page.eval_on_selector_all("#prize [data-rank]", "els => els.map(e => Number(e.dataset.rank))") == created["game"]["row"]
    assert page.locator("#scores tbody tr").count() == 3
    clean(page)


def test_a_late_seat_is_moved_from_another_phone(phone, origin, live_server):
    """With turn_seconds, once the time runs out another phone offers to enforce the deadline."""
    created = requests.post(f"{live_server}/v1/gofo/tables", json={"seats": 2, "turn_seconds": 5}, timeout=10).json()
    table_id, mano = created["id"], created["table"]["hand"]["to_act"]
    other = 1 - mano
    page = phone()
    page.goto(f"{origin}/play#gofo={table_id}&seat={other}&t={created['seat_tokens'][other]}")
    page.wait_for_selector("#seats")
    page.click("#enforce", timeout=30_000)
    view = public_table(live_server, table_id, after=created["table"]["version"])
    assert view["hand"]["opening"] == 1  # a silent mano opens 1
    page.wait_for_function("v => document.body.dataset.version === String(v)", arg=view["version"])
    clean(page)

"""An attacker's first hour, against the real server (gunicorn + Valkey).

* Bodies over ``REFEREE_MAX_BODY_BYTES`` are refused with 413 however they are framed: a chunked
  body (no Content-Length) used to be read up to the limit and the rest dropped, so a valid create
  followed by 20 KB of garbage made a game.
* A seat is named one way only: ``/seats/00``, Arabic-Indic or fullwidth digits, signs... are 404,
  on every seat route of both games (werkzeug's ``int`` converter took them all as seat 0).

The idempotency-under-faults tests are in tests/test_idempotency_faults.py.
"""

from __future__ import annotations

import json
import socket
from urllib.parse import quote, urlsplit

import pytest
import requests
from support.client import GofoTable, GopsGame, LiveHttp, bearer

from service import config

PROBLEM = "application/problem+json"
LIMIT = config.load().max_body_bytes  # the live server's (same environment)


# ------------------------------------------------------------------ raw HTTP


def raw_request(base: str, method: str, path: str, body: bytes | None, *, chunked: bool,
                headers: dict[str, str] | None = None, chunk_size: int = 1000,
                answer_after: int | None = None) -> tuple[int, dict[str, str], bytes]:
    """One HTTP/1.1 request on a fresh socket; the body chunked (no Content-Length) or declared.

    ``answer_after``: send only the headers and that many bytes of the body, then read the answer
    (a server refuses a body past the limit once it has seen limit + 1 bytes, or a declared length,
    and closes; a client still sending would see the close as a reset instead of the 413), then
    send the rest if the server still listens.
    """
    url = urlsplit(base)
    lines = [f"{method} {path} HTTP/1.1", f"Host: {url.netloc}", "Connection: close",
             "Content-Type: application/json", *(f"{k}: {v}" for k, v in (headers or {}).items())]
    if body is not None:
        lines.append("Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(body)}")

    def framed(data: bytes, last: bool) -> bytes:
        if not chunked:
            return data
        out = b"".join(b"%x\r\n" % len(data[i:i + chunk_size]) + data[i:i + chunk_size] + b"\r\n"
                       for i in range(0, len(data), chunk_size))
        return out + (b"0\r\n\r\n" if last else b"")

    head = ("\r\n".join(lines) + "\r\n\r\n").encode()
    body = body or b""
    first, rest = (body, b"") if answer_after is None else (body[:answer_after], body[answer_after:])
    with socket.create_connection((url.hostname, url.port), timeout=30) as sock:
        sock.sendall(head + (framed(first, last=not rest) if first or chunked and body else b""))
        received = _read_response(sock)
        if rest:
            try:
                sock.sendall(framed(rest, last=True))
            except OSError:
                pass  # refused and closed: the rest is not wanted
    head_text, _, content = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head_text.decode("latin-1").split("\r\n")
    response_headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        response_headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), response_headers, content


def _read_response(sock: socket.socket) -> bytes:
    """One response with a Content-Length (all the referee sends to these requests)."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        assert chunk, f"the server closed without an answer: {received!r}"
        received += chunk
    head, _, content = received.partition(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")[1:]
                  if line.lower().startswith(b"content-length:"))
    while len(content) < length:
        chunk = sock.recv(65536)
        assert chunk, "the server closed in the middle of its answer"
        content += chunk
    return head + b"\r\n\r\n" + content


def padded(document: dict, size: int) -> bytes:
    """``document`` as JSON, padded with spaces to exactly ``size`` bytes (still valid JSON)."""
    text = json.dumps(document).encode()
    assert len(text) <= size
    return text + b" " * (size - len(text))


def assert_too_large(status: int, headers: dict[str, str], content: bytes) -> None:
    assert status == 413, content[:500]
    assert headers["content-type"].startswith(PROBLEM), headers
    assert json.loads(content)["code"] == "body_too_large"


# ------------------------------------------------------------ bodies past the limit


def test_chunked_create_past_the_limit_is_413_not_a_truncated_create(live_server):
    # The repro: a valid create, then garbage; werkzeug read the first LIMIT bytes (valid JSON) only.
    body = padded({"seats": 3}, LIMIT) + b"garbage" * 600
    assert len(body) > 20_000
    assert_too_large(*raw_request(live_server, "POST", "/v1/gofo/tables", body, chunked=True,
                                  answer_after=LIMIT + 1))
    assert_too_large(*raw_request(live_server, "POST", "/v1/gops/games",
                                  padded({"profile": "classic"}, LIMIT) + b"x", chunked=True, answer_after=LIMIT + 1))


@pytest.mark.parametrize("chunked", [True, False], ids=["chunked", "content-length"])
def test_the_limit_is_the_same_however_the_body_is_framed(live_server, chunked):
    status, _, content = raw_request(live_server, "POST", "/v1/gofo/tables", padded({"seats": 3}, LIMIT),
                                     chunked=chunked)
    assert status == 201, content[:500]  # exactly the limit: accepted
    assert_too_large(*raw_request(live_server, "POST", "/v1/gofo/tables", padded({"seats": 3}, LIMIT + 1),
                                  chunked=chunked, answer_after=LIMIT + 1 if chunked else 0))
    status, _, content = raw_request(live_server, "POST", "/v1/gops/games", b'{"profile": "classic"}',
                                     chunked=chunked, chunk_size=3)
    assert status == 201, content[:500]


def test_chunked_move_past_the_limit_is_413_and_changes_nothing(live_server):
    game = GopsGame.create(LiveHttp(live_server), {"profile": "classic"})
    before = game.public()["version"]
    assert_too_large(*raw_request(live_server, "POST", f"{game.base}/seats/0/resign", padded({}, LIMIT * 3),
                                  chunked=True, headers=bearer(game.seat_tokens[0]), answer_after=LIMIT + 1))
    after = game.public()
    assert after["version"] == before and after["phase"] != "over"


def test_a_body_past_the_limit_is_413_whatever_the_method(live_server):
    game = GopsGame.create(LiveHttp(live_server), {"profile": "classic"})
    for chunked in (True, False):
        assert_too_large(*raw_request(live_server, "GET", game.base,
                                      b" " * (LIMIT * 2), chunked=chunked, answer_after=LIMIT + 1 if chunked else 0))


# ------------------------------------------------------------------ seat aliases

# Other spellings of seats 0 and 1 that werkzeug's int converter accepted.
ALIASES = {
    0: ["00", "000", "\u0660", "\uff10", "+0", "-0", "0x0", " 0", "0 "],
    1: ["01", "\u0661", "\uff11", "\u0967", "+1", "1.0", " 1"],
}


def seat_routes() -> list[tuple[str, str]]:
    """(method, path template) of every operation of the committed spec with a ``{seat}``."""
    from pathlib import Path

    spec = json.loads((Path(__file__).resolve().parent.parent / "openapi" / "openapi.json").read_text())
    routes = [(method.upper(), path) for path, item in spec["paths"].items() if "{seat}" in path
              for method in item if method in ("get", "post", "put", "patch", "delete")]
    assert {p.split("/")[2] for _, p in routes} == {"gops", "gofo"}
    return routes


SEAT_ROUTES = seat_routes()


@pytest.mark.parametrize(("method", "template"), SEAT_ROUTES, ids=[f"{m} {p}" for m, p in SEAT_ROUTES])
def test_seat_paths_have_one_spelling(live_server, method, template):
    http = LiveHttp(live_server)
    created = (GopsGame.create(http, {"profile": "classic"}) if "/gops/" in template
               else GofoTable.create(http, {"seats": 3}))
    ident = created.id
    version = created.public()["version"]
    session = requests.Session()

    def send(seat: int, spelling: str) -> requests.Response:
        path = template.replace("{game_id}", ident).replace("{table_id}", ident).replace(
            "{seat}", quote(spelling, safe=""))
        return session.request(method, live_server + path, json={} if method != "GET" else None, timeout=30,
                               headers=bearer(created.seat_tokens[seat]))

    for seat, spellings in ALIASES.items():
        for spelling in spellings:
            r = send(seat, spelling)
            assert r.status_code == 404, (spelling, r.status_code, r.text[:300])
            assert r.headers["Content-Type"].startswith(PROBLEM)
            assert r.json()["code"] == "not_found"
    # Nothing the aliases did changed the game...
    assert created.public()["version"] == version
    # ...and the canonical spelling reaches the seat (whatever the game then says of an empty body).
    for seat in ALIASES:
        r = send(seat, str(seat))
        assert r.status_code != 404 or r.json()["code"] not in ("not_found", "game_not_found"), r.text[:300]


# ------------------------------------------------------------------ idempotency keys


@pytest.mark.parametrize("key", ["", "k", "move-1", "x" * 15, "é" * 20, "a" * 256])
def test_an_idempotency_key_must_be_hard_to_guess(live_server, key):
    """A create's replay carries the game's tokens: a key anyone could guess (or a spec example
    everyone copies) would hand them out.  16-255 printable ASCII characters (HTTP strips spaces at
    either end of a header; the spec's pattern excludes them too)."""
    r = requests.post(f"{live_server}/v1/gofo/tables", json={"seats": 3},
                      headers={"Idempotency-Key": key.encode().decode("latin-1")}, timeout=30)
    assert r.status_code == 422, r.text
    assert r.headers["Content-Type"].startswith(PROBLEM) and r.json()["code"] == "invalid_idempotency_key"


def test_the_spec_requires_keys_of_sixteen_characters_and_shows_no_example():
    import re
    from pathlib import Path

    spec = json.loads((Path(__file__).resolve().parent.parent / "openapi" / "openapi.json").read_text())
    parameters = [p for item in spec["paths"].values() for op in item.values() if isinstance(op, dict)
                  for p in op.get("parameters", []) if p.get("name") == "Idempotency-Key"]
    assert parameters
    for parameter in parameters:
        schema = parameter["schema"]
        assert schema["minLength"] == 16 and "example" not in parameter and "examples" not in parameter
        pattern = re.compile(schema["pattern"])
        assert pattern.search("x" * 16) and not pattern.search("x" * 15) and not pattern.search(" " + "x" * 16)

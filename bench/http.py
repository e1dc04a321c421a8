"""Load from outside: many keep-alive HTTP/1.1 clients on one asyncio loop.

Each client owns one connection and plays sequentially on it (a whole Gops game as both seats,
a Gofo hand seat by seat, or a stream of reads), so *connections* is the concurrency. The
client is a few lines over asyncio streams (no HTTP library: its own CPU is part of the load
on a small machine, and it is the same for the referee and the bare handler).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

HOST = "127.0.0.1"


class HttpError(RuntimeError):
    pass


class Conn:
    """One keep-alive connection; reconnects (and resends) only when a reused one was closed."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.prefix = f"Host: {HOST}:{port}\r\n"

    async def _connect(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(self, method: str, path: str, body: Any = None, token: str | None = None,
                      headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        head = f"{method} {path} HTTP/1.1\r\n{self.prefix}"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        for name, value in (headers or {}).items():
            head += f"{name}: {value}\r\n"
        data = b""
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode()
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        raw = (head + "\r\n").encode() + data
        for attempt in (0, 1):
            fresh = self.writer is None
            if fresh:
                await self._connect()
            try:
                self.writer.write(raw)
                return await self._response()
            except (asyncio.IncompleteReadError, ConnectionError) as exc:
                self.close()
                # a kept-alive connection the server had closed: nothing was processed, resend
                if fresh or attempt or (isinstance(exc, asyncio.IncompleteReadError) and exc.partial):
                    raise HttpError(f"{method} {path}: {exc!r}") from exc
        raise AssertionError("unreachable")

    async def _response(self) -> tuple[int, bytes]:
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head[9:12])
        lower = head.lower()
        i = lower.find(b"\r\ncontent-length:")
        if i >= 0:
            j = lower.index(b"\r\n", i + 2)
            body = await self.reader.readexactly(int(lower[i + 17:j]))
        elif b"transfer-encoding: chunked" in lower:
            parts = []
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await self.reader.readexactly(size + 2)
                if size == 0:
                    break
                parts.append(chunk[:-2])
            body = b"".join(parts)
        else:
            body = b""
        if b"\r\nconnection: close" in lower:
            self.close()
        return status, body


@dataclass
class Stats:
    """What one phase measured: completed operations by label, their latencies (s), errors."""

    counts: dict[str, int] = field(default_factory=dict)
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    units: int = 0  # moves (games), GET+POST pairs (bare gofo), reads: what the rate counts
    hands: int = 0
    games: int = 0

    def add(self, label: str, seconds: float) -> None:
        self.counts[label] = self.counts.get(label, 0) + 1
        self.latencies.setdefault(label, []).append(seconds)


async def timed(stats: Stats, label: str, conn: Conn, method: str, path: str, body: Any = None,
                token: str | None = None, expect: int = 200) -> Any:
    t0 = time.perf_counter()
    status, data = await conn.request(method, path, body, token)
    stats.add(label, time.perf_counter() - t0)
    if status != expect:
        raise HttpError(f"{method} {path} -> {status}: {data[:300]!r}")
    return json.loads(data) if data else None


def bid_commitment(game_id: str, round_: int, seat: int, cards: list[int], salt: str) -> str:
    """The README's formula, computed as a client would."""
    msg = f"gops-bid-v1|{game_id}|{round_}|{seat}|{','.join(map(str, cards))}|{salt}"
    return hashlib.sha256(msg.encode()).hexdigest()


# ------------------------------------------------------------------------------ workloads
# Each takes (conn, stats, rng, stop: () -> bool) and plays until stop() says so; an operation
# under way when the phase ends still completes and counts (the rate divides by the real span).

async def gops_games(conn: Conn, stats: Stats, rng: random.Random, stop: Callable[[], bool]) -> None:
    """Whole 2-player classic games (13 ranks): per round both seats commit, then both reveal."""
    while not stop():
        created = await timed(stats, "create", conn, "POST", "/v1/gops/games", {"profile": "classic"}, expect=201)
        gid, game_id, tokens = created["id"], created["game"]["game_id"], created["seat_tokens"]
        base = f"/v1/gops/games/{gid}/seats/"
        hands = [list(range(1, 14)), list(range(1, 14))]
        for rnd in range(1, 14):
            if stop():
                return
            bids = [[hands[s].pop(rng.randrange(len(hands[s])))] for s in (0, 1)]
            salts = [secrets.token_hex(32), secrets.token_hex(32)]
            for s in (0, 1):
                body = {"round": rnd, "commitment": bid_commitment(game_id, rnd, s, bids[s], salts[s])}
                await timed(stats, "move", conn, "POST", f"{base}{s}/commit", body, tokens[s])
                stats.units += 1
            for s in (0, 1):
                state = await timed(stats, "move", conn, "POST", f"{base}{s}/reveal",
                                    {"round": rnd, "cards": bids[s], "salt": salts[s]}, tokens[s])
                stats.units += 1
        if state.get("phase") != "over":
            raise HttpError(f"game {gid} not over after 13 rounds: {state.get('phase')}")
        stats.games += 1


def gofo_choice(legal: list[dict[str, Any]], rng: random.Random) -> tuple[str, dict[str, Any]]:
    """A simple legal policy: any legal action but ``look`` (it does not pass the turn), amounts
    near the minimum, a random subset of the allowed size at a discard."""
    options = [a for a in legal if a["type"] != "look"] or legal
    act = rng.choice(options)
    kind = act["type"]
    if kind in ("open", "raise", "corta", "refiche", "declare"):
        lo, hi = act["min"], act["max"]
        return kind, {"amount" if kind != "declare" else "points": rng.randint(lo, min(hi, lo + 3))}
    if kind == "enter":
        return kind, {"blind": bool(act.get("blind"))}
    if kind == "discard":
        cards = list(act.get("cards") or [])
        k = rng.randint(0, min(act.get("max", 0), len(cards)))
        return kind, {"cards": rng.sample(cards, k)}
    return kind, {}


GOFO_TABLE = {"seats": 5, "mode": "dealt"}
GOFO_HANDS_PER_TABLE = 3
GOFO_MAX_MOVES_PER_HAND = 400


async def gofo_hands(conn: Conn, stats: Stats, rng: random.Random, stop: Callable[[], bool]) -> None:
    """Dealt 5-seat hands: the seat to act reads its seat view, picks from ``legal_actions``,
    posts the move; a unit is that GET + POST. A table plays a few hands, then a new one opens."""
    while not stop():
        created = await timed(stats, "create", conn, "POST", "/v1/gofo/tables", GOFO_TABLE, expect=201)
        tid, tokens, state = created["id"], created["seat_tokens"], created["table"]
        base = f"/v1/gofo/tables/{tid}/seats/"
        for _ in range(GOFO_HANDS_PER_TABLE):
            number = state["table"]["hand_number"]
            for _ in range(GOFO_MAX_MOVES_PER_HAND):
                if stop():
                    return
                seat = state["hand"]["to_act"]
                view = await timed(stats, "read", conn, "GET", f"{base}{seat}", token=tokens[seat])
                kind, body = gofo_choice(view["hand"]["legal_actions"], rng)
                state = await timed(stats, "move", conn, "POST", f"{base}{seat}/{kind.replace('_', '-')}",
                                    body, tokens[seat])
                stats.units += 1
                if state["table"]["hand_number"] != number:
                    stats.hands += 1
                    break
            else:
                raise HttpError(f"table {tid}: hand {number} not over after {GOFO_MAX_MOVES_PER_HAND} moves")


def bare_moves(body: dict[str, Any]):
    async def run(conn: Conn, stats: Stats, rng: random.Random, stop: Callable[[], bool]) -> None:
        path = f"/bare/c{rng.getrandbits(48):x}/move"
        while not stop():
            await timed(stats, "move", conn, "POST", path, body)
            stats.units += 1
    return run


def bare_gofo(blob: str, body: dict[str, Any]):
    """The bare counterpart of a Gofo unit: a GET of a seat-view-sized blob, then a POST."""
    async def run(conn: Conn, stats: Stats, rng: random.Random, stop: Callable[[], bool]) -> None:
        path = f"/bare/c{rng.getrandbits(48):x}/move"
        while not stop():
            await timed(stats, "read", conn, "GET", f"/bare/blob/{blob}")
            await timed(stats, "move", conn, "POST", path, body)
            stats.units += 1
    return run


def reads(path: str, token: str | None = None):
    async def run(conn: Conn, stats: Stats, rng: random.Random, stop: Callable[[], bool]) -> None:
        while not stop():
            await timed(stats, "read", conn, "GET", path, token=token)
            stats.units += 1
    return run


Workload = Callable[[Conn, Stats, random.Random, Callable[[], bool]], Awaitable[None]]


async def _phase(port: int, connections: int, workload: Workload, seconds: float, seed: int) -> tuple[Stats, float]:
    stats = Stats()
    conns = [Conn(port) for _ in range(connections)]
    await asyncio.gather(*(c._connect() for c in conns))
    t0 = time.perf_counter()
    end = t0 + seconds

    def stop() -> bool:
        return time.perf_counter() >= end

    async def client(i: int, conn: Conn) -> None:
        try:
            await workload(conn, stats, random.Random(seed * 1000 + i), stop)
        except (HttpError, OSError, asyncio.IncompleteReadError, KeyError, ValueError) as exc:
            stats.errors.append(f"{type(exc).__name__}: {exc}"[:400])

    await asyncio.gather(*(client(i, c) for i, c in enumerate(conns)))
    elapsed = time.perf_counter() - t0
    for c in conns:
        c.close()
    return stats, elapsed


def run_phase(port: int, connections: int, workload: Workload, seconds: float, seed: int = 1) -> tuple[Stats, float]:
    """Run ``connections`` clients of ``workload`` for ``seconds``; (stats, elapsed seconds)."""
    return asyncio.run(_phase(port, connections, workload, seconds, seed))


def request_once(port: int, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, bytes]:
    async def one():
        conn = Conn(port)
        try:
            return await conn.request(method, path, body, token)
        finally:
            conn.close()
    return asyncio.run(one())

"""``python -m bench.apps [--smoke]`` – what an app key lets one server do, and what following its games costs.

One real Valkey and the referee under ``deploy/gunicorn.conf.py`` unchanged, with the per-address
limits as served (creates: ``--address-limit`` an hour, the default 120; requests: the default per
minute). An app key is issued with ``python -m service.apps issue``, its creates-per-hour exactly what
the run makes with it. From one address (127.0.0.1), in one run:

1. **Creates**: ``--clients`` connections create 10 × the address's hourly create limit (1,200) with
   the key: refusals (must be 0) and the creates' p50/p99. Then, as the contrast, the same address
   creates without a key until its first refusal: how many it was allowed (the limit, 120).
2. **Following**: the app's one stream (``GET /v1/apps/me/events``) is opened, ``--games`` (1,000)
   two-seat classic Gops games are created with the key, and ``--sampled`` (20) of them also get their
   own stream (``GET /v1/gops/games/{id}/events``). ``--clients`` (8) clients then play ``--rounds``
   (8; 13 plays whole games) commit/reveal rounds on every game, round by round over their share of the
   games, each move sent with the key and its seat's token. A stream the server ends (after
   ``--stream-seconds``, at most 300) is opened again with ``Last-Event-ID``, as EventSource does. For each move on a sampled game: the time from the move's answer
   to its event on the app stream and to the first event of at least its version on the game's own
   stream (a game's stream sends the newest view, so it may skip versions; the app stream may not).
   Every created game and every move's answered version must appear on the app stream exactly once.
   Negative times are real: the event came in before the client had read the move's answer.
3. **Memory**: the gunicorn workers' RSS (summed, from /proc) and Valkey's ``used_memory`` before
   the games are created, after they are, and after they were played with every stream still open;
   per game = (after playing − before) ÷ games.

Writes ``bench/results/apps.json`` (``--out``); exits non-zero if any request failed, a create with the
key was refused, or the app stream missed or repeated an event. bench/README.md, "Apps", has a run's figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import redis

from bench import servers
from bench.http import Conn, HttpError, bid_commitment
from bench.thinking import git_describe, latency

sys.path.insert(0, str(servers.REPO / "tests"))
from support.sse_client import RawStream

RESULTS = Path(__file__).resolve().parent / "results"
GOPS = "/v1/gops/games"
TWO_SEATS = {"profile": "classic"}
APP_HEADER = "Referee-App-Key"
APP_EVENTS = "/v1/apps/me/events"
DELIVERY_WAIT = 60.0  # seconds the streams get to catch up once the last move is answered


@dataclass
class Sizes:
    address_limit: int = 120  # creates an hour per address (REFEREE_CREATE_LIMIT_PER_HOUR's default)
    creates_factor: int = 10  # the key creates this many times the address's limit
    games: int = 1000         # games followed on the app stream
    sampled: int = 20         # of which this many also have their own stream
    rounds: int = 8           # commit/reveal rounds played on every game (13: whole classic games)
    clients: int = 8          # connections creating and playing
    stream_seconds: int = 300  # each stream's ?timeout= (the most it may ask), then it is opened again

    @property
    def key_creates(self) -> int:
        return self.creates_factor * self.address_limit


SMOKE = Sizes(address_limit=5, games=24, sampled=4, rounds=2, clients=4, stream_seconds=1)


# ------------------------------------------------------------------------------ what the servers hold

def worker_rss_kib(referee: servers.Gunicorn) -> int:
    total = 0
    for pid in referee.worker_pids():
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


def memory(referee: servers.Gunicorn, valkey: redis.Redis) -> dict[str, int]:
    return {"worker_rss_kib": worker_rss_kib(referee), "redis_used_memory": int(valkey.info("memory")["used_memory"])}


def issue_key(redis_url: str, creates: int) -> tuple[str, dict[str, int]]:
    """``python -m service.apps issue``, as an operator would: creates per hour and per minute exactly
    what the run makes, requests far above what it sends."""
    limits = {"requests_per_minute": 1_000_000, "requests_per_hour": 10_000_000,
              "creates_per_minute": creates, "creates_per_hour": creates}
    options = [part for name, value in limits.items() for part in ("--" + name.replace("_", "-"), str(value))]
    done = subprocess.run([sys.executable, "-m", "service.apps", "issue", "bench", *options], cwd=servers.REPO,
                          env=dict(os.environ, REDIS_URL=redis_url), capture_output=True, text=True, timeout=60,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"python -m service.apps issue: {done.stderr}")
    return done.stdout.split()[-1], limits


# ------------------------------------------------------------------------------ streams read on the loop

class Followed:
    """An event stream read by the asyncio loop, each event stamped with when it was read. When the
    server ends it (``Sizes.stream_seconds``, 300 at most), it is opened again with
    ``Last-Event-ID``, as EventSource would, and the events go on in the same list."""

    def __init__(self, port: int, path: str, headers: dict[str, str] | None = None) -> None:
        self.port, self.path, self.headers = port, path, dict(headers or {})
        self.events: list = []
        self.arrived: list[float] = []
        self.reopened = 0
        self.done = False
        self._open(None)

    def _open(self, last_id: str | None) -> None:
        headers = dict(self.headers, **({"Last-Event-ID": last_id} if last_id else {}))
        self.stream = RawStream(servers.HOST, self.port, self.path, headers)
        asyncio.get_running_loop().add_reader(self.stream.sock, self._readable)

    def _readable(self) -> None:
        stream = self.stream
        before = len(stream.events)
        stream.read_available()
        now = time.perf_counter()
        self.events += stream.events[before:]
        self.arrived += [now] * (len(stream.events) - before)
        if stream.closed:
            asyncio.get_running_loop().remove_reader(stream.sock)
            stream.close()
            if not self.done and stream.status == 200:
                self.reopened += 1
                self._open(next((e.id for e in reversed(self.events) if e.id is not None), None))

    @property
    def versions(self) -> list[int]:
        return [int(e.id) for e in self.events if e.id is not None]

    def stamped(self) -> list[tuple[float, Any]]:
        return list(zip(self.arrived, self.events))

    def close(self) -> None:
        self.done = True
        if not self.stream.closed:
            asyncio.get_running_loop().remove_reader(self.stream.sock)
        self.stream.close()


async def until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True


# ------------------------------------------------------------------------------ the run

class Run:
    def __init__(self, port: int, key: str, sizes: Sizes) -> None:
        self.port, self.sizes = port, sizes
        self.key = {APP_HEADER: key}
        self.errors: list[str] = []

    async def request(self, conn: Conn, method: str, path: str, body: Any = None, token: str | None = None,
                      headers: dict[str, str] | None = None) -> tuple[int, Any, float]:
        t0 = time.perf_counter()
        status, data = await conn.request(method, path, body, token, headers)
        took = time.perf_counter() - t0
        return status, json.loads(data) if data else None, took

    async def creates_with_key(self, count: int) -> tuple[list[dict], list[float], Counter]:
        """``count`` creates with the key over the clients: the games, the created ones' latencies,
        every other answer's status."""
        games, took, refused = [], [], Counter()
        left = iter(range(count))

        async def client() -> None:
            conn = Conn(self.port)
            try:
                for _ in left:
                    status, body, seconds = await self.request(conn, "POST", GOPS, TWO_SEATS, headers=self.key)
                    if status == 201:
                        games.append(body)
                        took.append(seconds)
                    else:
                        refused[f"{status} {(body or {}).get('code')}"] += 1
            finally:
                conn.close()

        await asyncio.gather(*(client() for _ in range(self.sizes.clients)))
        return games, took, refused

    async def creates_without_key(self) -> dict[str, Any]:
        """Creates from the same address without the key, one at a time, until the first refusal."""
        conn = Conn(self.port)
        try:
            for made in range(self.sizes.key_creates + 1):
                status, body, _ = await self.request(conn, "POST", GOPS, TWO_SEATS)
                if status != 201:
                    return {"created": made, "first_refusal": {"status": status, "code": (body or {}).get("code")}}
            return {"created": made + 1, "first_refusal": None}
        finally:
            conn.close()

    async def play(self, games: list[dict], sampled: set[str]) -> tuple[list[tuple[str, int]], dict, list[float]]:
        """Every client plays ``rounds`` rounds on its share of the games, round by round over them.
        Returns every answered (game, version), the answer times of the sampled games' moves, and
        every move's latency."""
        answered: list[tuple[str, int]] = []
        answer_at: dict[tuple[str, int], float] = {}
        took: list[float] = []

        async def client(mine: list[dict]) -> None:
            conn = Conn(self.port)
            try:
                for rnd in range(1, self.sizes.rounds + 1):
                    for game in mine:
                        gid, tokens = game["id"], game["seat_tokens"]
                        cards, salts = {0: rnd, 1: 14 - rnd}, {0: secrets.token_hex(32), 1: secrets.token_hex(32)}
                        moves = [(f"{s}/commit", {"round": rnd, "commitment": bid_commitment(
                            game["game"]["game_id"], rnd, s, [cards[s]], salts[s])}, s) for s in (0, 1)]
                        moves += [(f"{s}/reveal", {"round": rnd, "cards": [cards[s]], "salt": salts[s]}, s)
                                  for s in (0, 1)]
                        for move, body, seat in moves:
                            status, state, seconds = await self.request(
                                conn, "POST", f"{GOPS}/{gid}/seats/{move}", body, tokens[seat], self.key)
                            if status != 200:
                                raise HttpError(f"{move} on {gid} -> {status}: {state}")
                            at = time.perf_counter()
                            took.append(seconds)
                            answered.append((gid, state["version"]))
                            if gid in sampled:
                                answer_at[(gid, state["version"])] = at
            except (HttpError, OSError, KeyError) as error:
                self.errors.append(f"{type(error).__name__}: {error}"[:400])
            finally:
                conn.close()

        n = self.sizes.clients
        await asyncio.gather(*(client(games[i::n]) for i in range(n)))
        return answered, answer_at, took


def app_stream_check(app_events: list[tuple[float, Any]], expected: list[tuple[str, int]]) -> dict[str, Any]:
    """Every expected (game, version) once on the app stream, and nothing else; ids increasing."""
    seen = Counter((e.json()["id"], e.json()["version"]) for _, e in app_events if e.event != "reset")
    want = Counter(expected)
    ids = [tuple(map(int, e.id.split("-"))) for _, e in app_events]
    return {"events": sum(seen.values()), "expected": sum(want.values()),
            "missing": sum((want - seen).values()), "duplicated": sum(c - 1 for c in seen.values() if c > 1),
            "unexpected": sum(c for k, c in seen.items() if k not in want),
            "resets": sum(1 for _, e in app_events if e.event == "reset"),
            "ids_increasing": all(a < b for a, b in pairwise(ids)),
            "kinds": dict(Counter(e.event for _, e in app_events))}


def deliveries(answer_at: dict[tuple[str, int], float], app_events: list[tuple[float, Any]],
               game_streams: dict[str, Followed]) -> tuple[list[float], list[float], int]:
    """For each sampled move: answer → its app event, answer → its game stream's first event of at
    least its version. Moves whose event never came are counted, not timed."""
    on_app = {}
    for at, e in app_events:
        on_app.setdefault((e.json()["id"], e.json()["version"]), at)
    to_app, to_game, lost = [], [], 0
    for (gid, version), answered in answer_at.items():
        on_game = next((at for at, e in game_streams[gid].stamped() if e.id is not None and int(e.id) >= version), None)
        if (gid, version) not in on_app or on_game is None:
            lost += 1
            continue
        to_app.append(on_app[(gid, version)] - answered)
        to_game.append(on_game - answered)
    return to_app, to_game, lost


def signed_latency(values: list[float]) -> dict[str, Any]:
    """latency() for values that may be negative (an event read before the move's answer)."""
    ordered = sorted(values)
    pick = (lambda q: round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1e3, 3)) if ordered else (lambda q: None)
    return {"n": len(values), "p50_ms": pick(0.5), "p99_ms": pick(0.99),
            "negative": sum(1 for v in values if v < 0)}


async def measure_async(port: int, key: str, key_limits: dict[str, int], sizes: Sizes,
                        referee: servers.Gunicorn, valkey: redis.Redis) -> dict[str, Any]:
    run = Run(port, key, sizes)
    seconds: dict[str, float] = {}

    # 1. Creates: with the key, then without.
    t0 = time.perf_counter()
    made, took, refused = await run.creates_with_key(sizes.key_creates)
    span = time.perf_counter() - t0
    without = await run.creates_without_key()
    seconds["creates"] = round(time.perf_counter() - t0, 1)
    creates = {
        "with_key": {"asked": sizes.key_creates, "created": len(made), "refused": sum(refused.values()),
                     "refusals": dict(refused), **latency(took), "per_s": round(len(made) / span, 1),
                     "key_limits": key_limits},
        "without_key": {**without, "address_limit_per_hour": sizes.address_limit},
    }

    # 2. and 3. Following.
    t0 = time.perf_counter()
    before = memory(referee, valkey)
    app_stream = Followed(port, f"{APP_EVENTS}?timeout={sizes.stream_seconds}", run.key)
    game_streams: dict[str, Followed] = {}
    try:
        if not await until(lambda: app_stream.stream.status is not None
                           and b"retry:" in app_stream.stream.raw, 30) or app_stream.stream.status != 200:
            raise RuntimeError(f"the app stream did not open: {app_stream.stream.raw[:300]!r}")
        games, _, create_refused = await run.creates_with_key(sizes.games)
        if create_refused:
            run.errors.append(f"creates of the followed games refused: {dict(create_refused)}")
        after_create = memory(referee, valkey)
        for game in games[:: max(1, len(games) // sizes.sampled)][: sizes.sampled]:
            game_streams[game["id"]] = Followed(port, f"{GOPS}/{game['id']}/events?timeout={sizes.stream_seconds}")
        if not await until(lambda: all(f.events for f in game_streams.values()), 60):
            raise RuntimeError("a game's own stream sent no first event")
        played_from = time.perf_counter()
        answered, answer_at, move_took = await run.play(games, set(game_streams))
        play_span = time.perf_counter() - played_from
        expected = [(g["id"], 1) for g in games] + answered
        last = {}
        for gid, version in answer_at:
            last[gid] = max(last.get(gid, 0), version)
        want = len(expected)
        caught_up = await until(lambda: len(app_stream.events) >= want and all(
            game_streams[g].versions and game_streams[g].versions[-1] >= v for g, v in last.items()),
            DELIVERY_WAIT)
        after_play = memory(referee, valkey)
        app_events = app_stream.stamped()
        to_app, to_game, lost = deliveries(answer_at, app_events, game_streams)
    finally:
        app_stream.close()
        for followed in game_streams.values():
            followed.close()
    seconds["following"] = round(time.perf_counter() - t0, 1)
    check = app_stream_check(app_events, expected)
    n = max(1, len(games))
    follow = {
        "games": len(games), "sampled_games": len(game_streams), "rounds": sizes.rounds,
        "moves": len(answered), "moves_per_s": round(len(answered) / play_span, 1) if play_span else None,
        "move": latency(move_took),
        "move_to_app_stream": signed_latency(to_app), "move_to_game_stream": signed_latency(to_game),
        "sampled_moves_not_delivered": lost, "caught_up": caught_up, "app_stream": check,
        "streams_reopened": {"app": app_stream.reopened, "games": sum(f.reopened for f in game_streams.values())},
    }
    memory_report = {
        "before": before, "after_create": after_create, "after_play": after_play,
        "per_game": {
            "worker_rss_kib": round((after_play["worker_rss_kib"] - before["worker_rss_kib"]) / n, 2),
            "redis_bytes": round((after_play["redis_used_memory"] - before["redis_used_memory"]) / n),
            "redis_bytes_created_not_played": round(
                (after_create["redis_used_memory"] - before["redis_used_memory"]) / n),
        },
    }
    return {"creates": creates, "following": follow, "memory": memory_report, "seconds": seconds,
            "errors": len(run.errors), "error_samples": run.errors[:5]}


def measure(sizes: Sizes, log_dir: Path) -> dict[str, Any]:
    from service.storage.embedded import start_server

    server = start_server(data_dir=log_dir / "valkey")
    env = {"REFEREE_CREATE_LIMIT_PER_HOUR": str(sizes.address_limit), "REFEREE_REDIS_TIMEOUT": "10"}
    referee = servers.Gunicorn("referee", "service.wsgi:app", server.url, log_dir, env)
    valkey = redis.Redis.from_url(server.url)
    try:
        key, limits = issue_key(server.url, sizes.key_creates + sizes.games)
        referee.start()
        return asyncio.run(measure_async(referee.port, key, limits, sizes, referee, valkey))
    finally:
        valkey.close()
        referee.stop()
        server.stop()


def failures(result: dict[str, Any]) -> list[str]:
    found = []
    if result["errors"]:
        found.append(f"{result['errors']} requests failed")
    if result["creates"]["with_key"]["refused"]:
        found.append(f"{result['creates']['with_key']['refused']} creates with the key were refused")
    check = result["following"]["app_stream"]
    if check["missing"] or check["duplicated"] or check["unexpected"] or not check["ids_increasing"]:
        found.append(f"the app stream: {check}")
    return found


def print_report(result: dict[str, Any]) -> None:
    key, bare = result["creates"]["with_key"], result["creates"]["without_key"]
    follow, per_game = result["following"], result["memory"]["per_game"]
    print(f"creates with the key: {key['created']} of {key['asked']}, refused {key['refused']}, "
          f"p50 {key['p50_ms']} ms, p99 {key['p99_ms']} ms, {key['per_s']} a second")
    print(f"creates without a key: {bare['created']} allowed, then {bare['first_refusal']}")
    print(f"following {follow['games']} games ({follow['moves']} moves, {follow['moves_per_s']} a second; "
          f"move p50 {follow['move']['p50_ms']} / p99 {follow['move']['p99_ms']} ms)")
    for name in ("move_to_app_stream", "move_to_game_stream"):
        entry = follow[name]
        print(f"  {name}: p50 {entry['p50_ms']} ms, p99 {entry['p99_ms']} ms (n {entry['n']})")
    print(f"  app stream: {follow['app_stream']}")
    print(f"memory per game: worker RSS {per_game['worker_rss_kib']} KiB, Redis {per_game['redis_bytes']} B")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.apps", description=__doc__.split("\n")[0])
    default = Sizes()
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (tests/test_bench_apps.py)")
    for name in ("address_limit", "games", "sampled", "rounds", "clients", "stream_seconds"):
        parser.add_argument("--" + name.replace("_", "-"), type=int, help=f"default {getattr(default, name)}")
    parser.add_argument("--out", default=str(RESULTS / "apps.json"))
    args = parser.parse_args(argv)

    sizes = Sizes(**asdict(SMOKE)) if args.smoke else Sizes()
    for name in ("address_limit", "games", "sampled", "rounds", "clients", "stream_seconds"):
        if getattr(args, name) is not None:
            setattr(sizes, name, getattr(args, name))

    started, load_at_start = time.monotonic(), os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="referee-apps-") as work:
        result = measure(sizes, Path(work))
    result["meta"] = {
        "command": "python -m bench.apps" + (" --smoke" if args.smoke else ""),
        "mode": "smoke" if args.smoke else "full", "sizes": {**asdict(sizes), "key_creates": sizes.key_creates},
        "gunicorn": servers.gunicorn_settings(), "git": git_describe(), "cpus": os.cpu_count(),
        "load_average_at_start": load_at_start, "load_average_at_end": os.getloadavg(),
        "seconds": round(time.monotonic() - started, 1),
    }
    result["failures"] = failures(result)
    print_report(result)
    for failure in result["failures"]:
        print(f"FAIL  {failure}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out} ({result['meta']['seconds']} s)")
    return 1 if result["failures"] else 0


if __name__ == "__main__":
    raise SystemExit(main())

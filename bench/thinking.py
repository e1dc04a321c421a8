"""``python -m bench.thinking [--smoke]`` – a bot's or a hint's thinking never stalls a table.

One real Valkey and the referee under ``deploy/gunicorn.conf.py`` with **one** gunicorn worker, so
every request shares one event loop: a request that thinks without yielding makes every other
request wait. Two probes run through the whole bench, each one client at a steady pace, in a
process of their own (so the load's client never delays them): ``GET /healthz`` and a plain Gops
move (seat 0's or seat 1's round-1 commit on a two-seat game made for it). The load comes in phases:

* ``baseline``: ``--readers`` clients (40) each reading a game's public view in a loop;
* ``hints``: ``--hinters`` clients (40) each asking its seat's hint in a loop on a two-seat
  ``standard`` game of 13 ranks with 5 cards left (8 rounds played);
* ``bot_matches``: ``--matches`` clients (4) each driving an all-bot level-8 Gops match (blind
  prizes, ``cumulative`` games): the create plays game 1, each ``POST …/deadline`` with the host
  token the next; a new match when one ends. Every such request plays a whole game of bots;
* ``bot_move``: one client playing seat 0 of two-seat ``standard`` games against a level-8 bot on
  seat 1 at the probes' pace (every commit makes the bot reveal, every reveal makes it decide its
  next bid); nothing else but the probes.

The phases run in that order ``--rounds`` times after an unrecorded warm-up pass; each figure pools
its phase's rounds. A probe belongs to the phase in which it was sent. Absolute times depend on
the machine: the targets are ratios within the run. Probe p99 in ``hints`` and in ``bot_matches``
≤ 3 × the same probe's p99 in ``baseline``; the bot-answered move's p99 ≤ 2 × the plain move's p99
in the ``bot_move`` phase (the probe runs beside it; its p99 in ``baseline`` is reported too). A
probe that sent nothing in a phase (it waited on one request the whole phase) has no p99 there,
and its target is not met.

Writes ``bench/results/thinking.json`` (``--out``); exits non-zero if any request failed. A target
missed is reported (``met`` false), not an error. bench/README.md, "Thinking", has a run's figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import secrets
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench import http, servers
from bench.http import Conn, HttpError, Stats, bid_commitment, timed

RESULTS = Path(__file__).resolve().parent / "results"
PHASES = ("baseline", "hints", "bot_matches", "bot_move")
PROBES = ("healthz", "move")

#: A probe p99 while others think ≤ this × its p99 in the baseline phase.
STALL_LIMIT = 3.0
#: The bot-answered move's p99 ≤ this × the plain move's p99.
BOT_MOVE_LIMIT = 2.0

GOPS = "/v1/gops/games"
TWO_SEATS = {"profile": "standard", "options": {"players": 2}}
RANKS = 13
HINT_ROUNDS_PLAYED = 8  # 13 ranks: 5 cards left


@dataclass
class Sizes:
    seconds: float = 10.0   # per phase and round
    rounds: int = 3
    warmup: float = 2.0     # per phase, one unrecorded pass
    readers: int = 40
    hinters: int = 40
    matches: int = 4
    match_games: int = 10   # games of each all-bot match
    pace: float = 0.04      # seconds between two requests of a probe


SMOKE = Sizes(seconds=0.6, rounds=1, warmup=0.0, readers=4, hinters=4, matches=1, match_games=2, pace=0.04)


def percentile(values: list[float], q: float) -> float | None:
    """Nearest rank, as bench.bots_speed: the value below which a share ``q`` of them lies."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def latency(values: list[float]) -> dict[str, Any]:
    p50, p99 = percentile(values, 0.5), percentile(values, 0.99)
    return {"n": len(values), "p50_ms": None if p50 is None else round(p50 * 1e3, 3),
            "p99_ms": None if p99 is None else round(p99 * 1e3, 3)}


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


# ------------------------------------------------------------------------------ games made before the phases

async def play_rounds(conn: Conn, game: dict[str, Any], rounds: int, rng: random.Random) -> dict[str, Any]:
    """Both seats of a two-seat game commit random cards, then reveal them, ``rounds`` times."""
    base, tokens, state = f"{GOPS}/{game['id']}/seats/", game["seat_tokens"], game["game"]
    for _ in range(rounds):
        rnd, bids = state["round"], {}
        for seat in (0, 1):
            bids[seat] = (rng.choice(state["hands"][seat]), secrets.token_hex(32))
            commitment = bid_commitment(state["game_id"], rnd, seat, [bids[seat][0]], bids[seat][1])
            state = await _call(conn, "POST", f"{base}{seat}/commit", {"round": rnd, "commitment": commitment},
                                tokens[seat])
        for seat in (0, 1):
            state = await _call(conn, "POST", f"{base}{seat}/reveal",
                                {"round": rnd, "cards": [bids[seat][0]], "salt": bids[seat][1]}, tokens[seat])
    return state


async def _call(conn: Conn, method: str, path: str, body: Any = None, token: str | None = None,
                expect: int = 200) -> Any:
    status, data = await conn.request(method, path, body, token)
    if status != expect:
        raise HttpError(f"{method} {path} -> {status}: {data[:300]!r}")
    return json.loads(data)


async def _make_games(port: int, sizes: Sizes, probe_games: int, seed: int) -> dict[str, Any]:
    """The game the readers read (round 7), one game per hinter (5 cards left), the probe's games."""
    conns = [Conn(port) for _ in range(8)]
    rng = random.Random(seed)

    async def create(conn: Conn) -> dict[str, Any]:
        return await _call(conn, "POST", GOPS, TWO_SEATS, expect=201)

    read_game = await create(conns[0])
    await play_rounds(conns[0], read_game, 6, rng)

    async def hint_games(i: int) -> list[dict[str, Any]]:
        made = []
        for _ in range(i, sizes.hinters, len(conns)):
            game = await create(conns[i])
            state = await play_rounds(conns[i], game, HINT_ROUNDS_PLAYED, random.Random(rng.random()))
            assert len(state["hands"][0]) == RANKS - HINT_ROUNDS_PLAYED, state["hands"]
            made.append(game)
        return made

    async def probe_pool(i: int) -> list[dict[str, Any]]:
        return [await create(conns[i]) for _ in range(i, probe_games, len(conns))]

    hinted = [g for part in await asyncio.gather(*(hint_games(i) for i in range(len(conns)))) for g in part]
    pool = [g for part in await asyncio.gather(*(probe_pool(i) for i in range(len(conns)))) for g in part]
    for conn in conns:
        conn.close()
    return {"read": read_game["id"],
            "hints": [(g["id"], i % 2, g["seat_tokens"][i % 2]) for i, g in enumerate(hinted)],
            "probe": [(g["id"], g["game"]["game_id"], g["seat_tokens"]) for g in pool]}


# ------------------------------------------------------------------------------ the probes (a process of their own)

def probe_process(pipe, stop) -> None:
    """Receives (port, pace, games); sends /healthz and plain moves at a steady pace until ``stop``
    is set; sends back ``[(probe, sent_at, seconds)]`` (``time.monotonic``: the same clock as the
    parent's phase windows), the errors, and how many games it had to create itself."""
    port, pace, games = pipe.recv()
    samples: list[tuple[str, float, float]] = []
    errors: list[str] = []
    late_games = [0]
    pending: list[tuple[str, dict[str, Any], str]] = []  # the next plain moves: (path, body, token)

    async def steady(name: str, send: Callable[[Conn], Awaitable[None]]) -> None:
        conn = Conn(port)
        next_at = time.monotonic()
        while not stop.is_set():
            now = time.monotonic()
            if next_at > now:
                await asyncio.sleep(next_at - now)
            try:
                await send(conn)
            except (HttpError, OSError, asyncio.IncompleteReadError, ValueError) as exc:
                errors.append(f"{name}: {type(exc).__name__}: {exc}"[:400])
                conn.close()
            next_at = max(next_at + pace, time.monotonic() - pace)  # steady, no burst after a stall
        conn.close()

    async def healthz(conn: Conn) -> None:
        sent_at = time.monotonic()
        status, data = await conn.request("GET", "/healthz")
        samples.append(("healthz", sent_at, time.monotonic() - sent_at))
        if status != 200:
            raise HttpError(f"GET /healthz -> {status}: {data[:300]!r}")

    async def move(conn: Conn) -> None:
        """A round-1 commit of seat 0 of a fresh two-seat game, then one of its seat 1."""
        if not pending:
            if games:
                gid, game_id, tokens = games.pop()
            else:  # the pool ran out: make a game now (untimed), and say so in the report
                late_games[0] += 1
                made = await _call(conn, "POST", GOPS, TWO_SEATS, expect=201)
                gid, game_id, tokens = made["id"], made["game"]["game_id"], made["seat_tokens"]
            for seat in (0, 1):
                commitment = bid_commitment(game_id, 1, seat, [random.randint(1, RANKS)], secrets.token_hex(32))
                pending.append((f"{GOPS}/{gid}/seats/{seat}/commit", {"round": 1, "commitment": commitment},
                                tokens[seat]))
        path, body, token = pending.pop(0)
        sent_at = time.monotonic()
        status, data = await conn.request("POST", path, body, token)
        samples.append(("move", sent_at, time.monotonic() - sent_at))
        if status != 200:
            raise HttpError(f"POST {path} -> {status}: {data[:300]!r}")

    async def both() -> None:
        await asyncio.gather(steady("healthz", healthz), steady("move", move))

    pipe.send("ready")
    asyncio.run(both())
    pipe.send((samples, errors, late_games[0]))


# ------------------------------------------------------------------------------ the load

@dataclass
class Table:
    """What a load client keeps from one phase to the next (a match under way, a game against a bot)."""

    id: str = ""
    token: str = ""
    state: dict[str, Any] = field(default_factory=dict)


Client = Callable[[Conn, Stats, random.Random, Callable[[], bool]], Awaitable[None]]


def readers(game: str) -> Client:
    async def run(conn: Conn, stats: Stats, rng: random.Random, stop: Callable[[], bool]) -> None:
        while not stop():
            await timed(stats, "read", conn, "GET", f"{GOPS}/{game}")
    return run


def hinter(game: str, seat: int, token: str) -> Client:
    async def run(conn: Conn, stats: Stats, rng: random.Random, stop: Callable[[], bool]) -> None:
        while not stop():
            answer = await timed(stats, "hint", conn, "GET", f"{GOPS}/{game}/seats/{seat}/hint", token=token)
            if not answer["actions"]:
                raise HttpError(f"hint of game {game} seat {seat}: no actions")
    return run


def bot_match(table: Table, games: int) -> Client:
    """An all-bot level-8 match, blind prizes: the create plays game 1, each deadline the next."""
    body = {"profile": "standard", "options": {"visibility": "blind"},
            "bots": [{"seat": 0, "level": 8}, {"seat": 1, "level": 8}],
            "match": {"format": "cumulative", "games": games}}

    async def run(conn: Conn, stats: Stats, rng: random.Random, stop: Callable[[], bool]) -> None:
        while not stop():
            if not table.id or table.state["result"] is not None:  # a new match: its create plays game 1
                played = 1
                made = await timed(stats, "bot_game", conn, "POST", GOPS, body, expect=201)
                table.id, table.token, table.state = made["id"], made["host_token"], made["game"]
            else:  # the next game, played by the host's deadline
                played = table.state["game_number"]
                table.state = await timed(stats, "bot_game", conn, "POST", f"{GOPS}/{table.id}/deadline", {},
                                          table.token)
            if table.state["result"] is None and table.state["game_number"] != played + 1:
                raise HttpError(f"match {table.id}: game {played} of bots was not played in its request")
            stats.games += 1
    return run


def against_bot(table: Table, pace: float) -> Client:
    """Seat 0 of two-seat standard games against a level-8 bot on seat 1, random bids, a move
    every ``pace`` seconds like the plain-move probe (so both wait on a worker woken alike)."""
    body = dict(TWO_SEATS, bots=[{"seat": 1, "level": 8}])

    async def run(conn: Conn, stats: Stats, rng: random.Random, stop: Callable[[], bool]) -> None:
        next_at = time.monotonic()

        async def paced(label: str, path: str, move: dict[str, Any]) -> dict[str, Any]:
            nonlocal next_at
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            answer = await timed(stats, label, conn, "POST", path, move, table.token)
            next_at = max(next_at + pace, time.monotonic() - pace)
            return answer

        while not stop():
            if not table.id or table.state["phase"] == "over":
                made = await _call(conn, "POST", GOPS, body, expect=201)  # the bot's first bid: not a move
                table.id, table.token, table.state = made["id"], made["seat_tokens"][0], made["game"]
            state, base = table.state, f"{GOPS}/{table.id}/seats/0"
            rnd, card, salt = state["round"], rng.choice(state["hands"][0]), secrets.token_hex(32)
            await paced("commit", f"{base}/commit",
                        {"round": rnd, "commitment": bid_commitment(state["game_id"], rnd, 0, [card], salt)})
            table.state = await paced("reveal", f"{base}/reveal", {"round": rnd, "cards": [card], "salt": salt})
            if table.state["phase"] == "over":
                stats.games += 1
    return run


async def load_phase(port: int, clients: list[Client], seconds: float, seed: int) -> tuple[Stats, float, float, float]:
    """Run the clients for ``seconds``; (stats, window start, window end, seconds until the last
    request under way at the end came back). The window is ``time.monotonic``."""
    stats = Stats()
    conns = [Conn(port) for _ in clients]
    await asyncio.gather(*(c._connect() for c in conns))
    start = time.monotonic()
    end = start + seconds

    def stop() -> bool:
        return time.monotonic() >= end

    async def one(i: int, client: Client, conn: Conn) -> None:
        try:
            await client(conn, stats, random.Random(seed * 1000 + i), stop)
        except (HttpError, OSError, asyncio.IncompleteReadError, KeyError, ValueError) as exc:
            stats.errors.append(f"{type(exc).__name__}: {exc}"[:400])

    await asyncio.gather(*(one(i, client, conn) for i, (client, conn) in enumerate(zip(clients, conns))))
    for conn in conns:
        conn.close()
    return stats, start, end, time.monotonic() - start


# ------------------------------------------------------------------------------ the run

def git_describe() -> dict[str, Any]:
    def run(*cmd: str) -> str:
        try:
            return subprocess.run(cmd, cwd=servers.REPO, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": run("git", "rev-parse", "HEAD"), "dirty_files": len(run("git", "status", "--porcelain").splitlines())}


def measure(sizes: Sizes, seed: int, log_dir: Path) -> dict[str, Any]:
    from service.storage.embedded import start_server

    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe()
    stop = context.Event()
    prober = context.Process(target=probe_process, args=(theirs, stop), daemon=True)
    prober.start()  # before any thread of ours exists (Valkey's, asyncio's)

    valkey = start_server(data_dir=log_dir / "valkey")
    referee = servers.Gunicorn("referee", "service.wsgi:app", valkey.url, log_dir,
                               dict(servers.REFEREE_ENV, WEB_CONCURRENCY="1"))
    try:
        referee.start()
        made = time.monotonic()
        phase_seconds = (sizes.warmup + sizes.rounds * sizes.seconds) * len(PHASES)
        probe_games = int(phase_seconds / sizes.pace * 0.75) + 20  # 2 moves a game; a margin for the gaps
        games = asyncio.run(_make_games(referee.port, sizes, probe_games, seed))
        setup_seconds = time.monotonic() - made
        ours.send((referee.port, sizes.pace, games["probe"]))
        assert ours.recv() == "ready"

        match_tables = [Table() for _ in range(sizes.matches)]
        bot_table = Table()
        clients: dict[str, list[Client]] = {
            "baseline": [readers(games["read"]) for _ in range(sizes.readers)],
            "hints": [hinter(*games["hints"][i]) for i in range(sizes.hinters)],
            "bot_matches": [bot_match(t, sizes.match_games) for t in match_tables],
            "bot_move": [against_bot(bot_table, sizes.pace)],
        }
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in PHASES}
        errors: list[str] = []
        passes = ([("warmup", sizes.warmup)] if sizes.warmup > 0 else []) + [(r, sizes.seconds) for r in range(sizes.rounds)]
        for number, (label, seconds) in enumerate(passes):
            for name in PHASES:
                cpu, busy = referee.worker_cpu_seconds(), servers.machine_busy()
                stats, start, end, took = asyncio.run(load_phase(referee.port, clients[name], seconds,
                                                                 seed + 100 * number + PHASES.index(name)))
                errors += [f"{name}: {e}" for e in stats.errors]
                if label != "warmup":
                    runs[name].append({"stats": stats, "window": (start, end), "elapsed": took,
                                       "worker_cpu_share": servers.worker_shares(cpu, referee.worker_cpu_seconds(), took),
                                       "machine_busy": servers.busy_share(busy, servers.machine_busy())})
        stop.set()
        samples, probe_errors, late_games = ours.recv()
        prober.join(timeout=30)
    finally:
        stop.set()
        referee.stop()
        valkey.stop()
        if prober.is_alive():
            prober.terminate()
    return report(sizes, runs, samples, errors + [f"probe {e}" for e in probe_errors],
                  {"setup_seconds": round(setup_seconds, 1), "probe_games_made": len(games["probe"]),
                   "probe_games_made_late": late_games})


def report(sizes: Sizes, runs: dict[str, list[dict[str, Any]]], samples: list[tuple[str, float, float]],
           errors: list[str], setup: dict[str, Any]) -> dict[str, Any]:
    phases: dict[str, Any] = {}
    for name in PHASES:
        windows = [run["window"] for run in runs[name]]
        probes = {}
        for probe in PROBES:
            mine = [[s for p, sent, s in samples if p == probe and lo <= sent < hi] for lo, hi in windows]
            probes[probe] = {**latency([s for part in mine for s in part]),
                             "p99_ms_by_round": [latency(part)["p99_ms"] for part in mine]}
        load: dict[str, Any] = {}
        labels = sorted({label for run in runs[name] for label in run["stats"].latencies})
        for label in labels:
            values = [s for run in runs[name] for s in run["stats"].latencies.get(label, [])]
            elapsed = sum(run["elapsed"] for run in runs[name])
            load[label] = {**latency(values), "per_s": round(len(values) / elapsed, 2) if elapsed else None}
        if name == "bot_move":  # seat 0's every move, both kinds
            values = [s for run in runs[name] for label in ("commit", "reveal")
                      for s in run["stats"].latencies.get(label, [])]
            load["move"] = latency(values)
        phases[name] = {
            "probes": probes, "load": load,
            "clients": {"baseline": sizes.readers, "hints": sizes.hinters, "bot_matches": sizes.matches,
                        "bot_move": 1}[name],
            "games_played": sum(run["stats"].games for run in runs[name]),
            "seconds": [round(run["elapsed"], 2) for run in runs[name]],
            "worker_cpu_share": [run["worker_cpu_share"] for run in runs[name]],
            "machine_busy": [run["machine_busy"] for run in runs[name]],
        }
    base = phases["baseline"]["probes"]
    for name in PHASES:
        for probe in PROBES:
            entry = phases[name]["probes"][probe]
            entry["p99_vs_baseline"] = ratio(entry["p99_ms"], base[probe]["p99_ms"])
            entry["p99_vs_baseline_by_round"] = [ratio(a, b) for a, b in zip(entry["p99_ms_by_round"],
                                                                              base[probe]["p99_ms_by_round"])]
    bot_move = phases["bot_move"]
    plain = bot_move["probes"]["move"]["p99_ms"]
    bot_move["bot_answered_vs_plain"] = {
        "p99_ratio": ratio(bot_move["load"]["move"]["p99_ms"], plain),
        "p50_ratio": ratio(bot_move["load"]["move"]["p50_ms"], bot_move["probes"]["move"]["p50_ms"]),
        "p99_ratio_vs_baseline_move": ratio(bot_move["load"]["move"]["p99_ms"], base["move"]["p99_ms"]),
    }

    targets = []
    for name in ("hints", "bot_matches"):
        for probe in PROBES:
            now = phases[name]["probes"][probe]["p99_vs_baseline"]
            targets.append({"figure": f"{probe}_p99_{name}_vs_baseline", "now": now, "target": STALL_LIMIT,
                            "met": now is not None and now <= STALL_LIMIT})
    now = bot_move["bot_answered_vs_plain"]["p99_ratio"]
    targets.append({"figure": "bot_answered_move_p99_vs_plain_move", "now": now, "target": BOT_MOVE_LIMIT,
                    "met": now is not None and now <= BOT_MOVE_LIMIT})
    return {"phases": phases, "targets": targets, "errors": len(errors), "error_samples": errors[:10],
            "setup": setup}


def print_report(result: dict[str, Any]) -> None:
    def ms(v: float | None) -> str:
        return "   -  " if v is None else f"{v:6.1f}"

    def x(v: float | None) -> str:
        return "  - " if v is None else f"{v:4.2f}"

    print(f"{'phase':12s} {'probe':8s} {'n':>5s} {'p50 ms':>7s} {'p99 ms':>7s}  p99 ÷ baseline  (by round)")
    for name, phase in result["phases"].items():
        for probe, e in phase["probes"].items():
            print(f"{name:12s} {probe:8s} {e['n']:5d} {ms(e['p50_ms'])} {ms(e['p99_ms'])}  {x(e['p99_vs_baseline']):>14s}"
                  f"  ({', '.join(map(x, e['p99_vs_baseline_by_round']))})")
    if any(e["n"] == 0 for phase in result["phases"].values() for e in phase["probes"].values()):
        print("(n 0: the probe sent nothing in that phase: it waited on one request the whole phase)")
    print(f"\n{'phase':12s} {'load':9s} {'n':>6s} {'per s':>8s} {'p50 ms':>7s} {'p99 ms':>7s}   worker's share of a core")
    for name, phase in result["phases"].items():
        for label, e in phase["load"].items():
            per_s = "" if e.get("per_s") is None else f"{e['per_s']:8.1f}"
            print(f"{name:12s} {label:9s} {e['n']:6d} {per_s:>8s} {ms(e['p50_ms'])} {ms(e['p99_ms'])}   "
                  f"{phase['worker_cpu_share']}")
    b = result["phases"]["bot_move"]["bot_answered_vs_plain"]
    print(f"\nbot-answered move ÷ plain move (bot_move phase): p50 {x(b['p50_ratio'])}, p99 {x(b['p99_ratio'])}"
          f" (p99 ÷ the baseline phase's plain move: {x(b['p99_ratio_vs_baseline_move'])})")
    print("\n== Targets ==")
    for t in result["targets"]:
        print(f"{'PASS' if t['met'] else 'FAIL'}  {t['figure']:42s} {x(t['now'])} (≤ {t['target']})")
    if result["errors"]:
        print(f"\n{result['errors']} requests failed, e.g.:", *result["error_samples"][:3], sep="\n  ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.thinking", description=__doc__.split("\n")[0])
    default = Sizes()
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (tests/test_bench_thinking.py)")
    parser.add_argument("--seconds", type=float, help=f"per phase and round (default {default.seconds})")
    parser.add_argument("--rounds", type=int, help=f"passes over the phases (default {default.rounds})")
    parser.add_argument("--readers", type=int, help=f"baseline clients (default {default.readers})")
    parser.add_argument("--hinters", type=int, help=f"hint clients (default {default.hinters})")
    parser.add_argument("--matches", type=int, help=f"all-bot match clients (default {default.matches})")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--out", default=str(RESULTS / "thinking.json"))
    args = parser.parse_args(argv)

    sizes = Sizes(**asdict(SMOKE)) if args.smoke else Sizes()
    for name in ("seconds", "rounds", "readers", "hinters", "matches"):
        if getattr(args, name) is not None:
            setattr(sizes, name, getattr(args, name))

    started, load_at_start = time.monotonic(), os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="referee-thinking-") as work:
        result = measure(sizes, args.seed, Path(work))
    result["meta"] = {
        "command": "python -m bench.thinking" + (" --smoke" if args.smoke else ""),
        "mode": "smoke" if args.smoke else "full", "sizes": asdict(sizes), "seed": args.seed,
        "gunicorn": dict(servers.gunicorn_settings(), workers=1), "git": git_describe(),
        "cpus": os.cpu_count(), "load_average_at_start": load_at_start, "load_average_at_end": os.getloadavg(),
        "seconds": round(time.monotonic() - started, 1),
    }
    print_report(result)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out} ({result['meta']['seconds']} s)")
    return 1 if result["errors"] else 0


if __name__ == "__main__":
    raise SystemExit(main())

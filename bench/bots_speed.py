"""``python -m bench.bots_speed [--games N] [--levels 8 1]`` – what a bot's reply adds to a move.

One real Valkey and the referee under ``deploy/gunicorn.conf.py``; one client, one request at a
time, so each latency is one request's. Whole two-seat classic Gops games are played in turns:

* a **plain** game: the client plays both seats; every move is timed (a commit, a reveal);
* a **bot** game per level: the client plays seat 0 against a bot on seat 1; every move of seat 0
  makes the bot's reply due in the same request (its commit makes the bot reveal; its reveal
  resolves the round and the bot decides and commits its next bid — at level 8 with the exact
  solver once 5 cards are left).

The bot games' moves are compared with the plain games' moves of the same kind played in the same
run, interleaved (the machine is shared: only ratios within one run mean anything): p50 and p99
of each kind and of both together (``move``), and their ratios. Writes ``bench/results/bots_speed.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import secrets
import statistics
import tempfile
import time
from http.client import HTTPConnection
from pathlib import Path

from service.games import commitments

from . import servers

RESULTS = Path(__file__).resolve().parent / "results"


class Client:
    def __init__(self, port: int) -> None:
        self.conn = HTTPConnection(servers.HOST, port, timeout=60)

    def call(self, method: str, path: str, body=None, token: str | None = None) -> tuple[float, dict]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        started = time.perf_counter()
        self.conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = self.conn.getresponse()
        data = response.read()
        took = time.perf_counter() - started
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:300]!r}")
        return took, json.loads(data)


def play(client: Client, rng: random.Random, bot_level: int | None, timings: dict[str, list[float]]) -> None:
    """One classic game; seat 0 (and seat 1 in a plain game) bids uniformly at random."""
    body = {"profile": "classic"}
    if bot_level is not None:
        body["bots"] = [{"seat": 1, "level": bot_level}]
    _, created = client.call("POST", "/v1/gops/games", body)
    base, tokens = f"/v1/gops/games/{created['id']}", created["seat_tokens"]
    humans = [0] if bot_level is not None else [0, 1]
    label = "plain" if bot_level is None else f"level{bot_level}"
    state = created["game"]
    while state["phase"] != "over":
        round_, bids = state["round"], {}
        for seat in humans:
            card = rng.choice(state["hands"][seat])
            salt = secrets.token_hex(32)
            bids[seat] = (card, salt)
            commitment = commitments.bid_commitment(state["game_id"], round_, seat, [card], salt)
            took, state = client.call("POST", f"{base}/seats/{seat}/commit",
                                      {"round": round_, "commitment": commitment}, tokens[seat])
            if seat == 0:
                timings[f"{label} commit"].append(took)
        for seat in humans:
            card, salt = bids[seat]
            took, state = client.call("POST", f"{base}/seats/{seat}/reveal",
                                      {"round": round_, "cards": [card], "salt": salt}, tokens[seat])
            if seat == (humans[-1]):  # the reveal that resolves the round (and opens the next)
                timings[f"{label} reveal"].append(took)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bots_speed", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games of each kind (default 40)")
    parser.add_argument("--levels", type=int, nargs="+", default=[8, 1])
    parser.add_argument("--out", default=str(RESULTS / "bots_speed.json"))
    args = parser.parse_args(argv)

    from service.storage.embedded import start_server

    work = Path(tempfile.mkdtemp(prefix="referee-bots-speed-"))
    valkey = start_server(data_dir=work / "valkey")
    referee = servers.Gunicorn("referee", "service.wsgi:app", valkey.url, work,
                               dict(servers.REFEREE_ENV, WEB_CONCURRENCY="1"))
    timings: dict[str, list[float]] = {f"{label} {kind}": [] for label in ["plain", *(f"level{n}" for n in args.levels)]
                                       for kind in ("commit", "reveal")}
    try:
        referee.start()
        client = Client(referee.port)
        rng = random.Random(2026)
        play(client, rng, None, timings)  # warm up the worker (and the solver's import) before timing
        for level in args.levels:
            play(client, rng, level, timings)
        for values in timings.values():
            values.clear()
        for _ in range(args.games):
            play(client, rng, None, timings)
            for level in args.levels:
                play(client, rng, level, timings)
    finally:
        referee.stop()
        valkey.stop()

    for label in ["plain", *(f"level{n}" for n in args.levels)]:  # every move of seat 0, both kinds
        timings[f"{label} move"] = timings[f"{label} commit"] + timings[f"{label} reveal"]
    report = {"games": args.games, "figures": {}}
    for label, values in timings.items():
        kind = label.split()[1]
        plain = timings[f"plain {kind}"]
        row = {"n": len(values), "p50_ms": percentile(values, 0.5) * 1e3, "p99_ms": percentile(values, 0.99) * 1e3,
               "mean_ms": statistics.fmean(values) * 1e3,
               "p50_ratio": percentile(values, 0.5) / percentile(plain, 0.5),
               "p99_ratio": percentile(values, 0.99) / percentile(plain, 0.99)}
        report["figures"][label] = row
        print(f"{label:16s} n={row['n']:5d}  p50 {row['p50_ms']:7.2f} ms ({row['p50_ratio']:5.2f}x)  "
              f"p99 {row['p99_ms']:7.2f} ms ({row['p99_ratio']:5.2f}x)  mean {row['mean_ms']:7.2f} ms")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

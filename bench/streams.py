"""Open event streams against moves: ``python -m bench.streams [--streams 1000] [--worker-class ...]``.

Starts a Valkey (the embedded one) and gunicorn with ``deploy/gunicorn.conf.py`` (2 workers), then:

1. plays moves on a quiet game and records their latency (no streams open);
2. opens ``--streams`` Server-Sent Events streams (``GET …/events``) on ``--games`` other games,
   from 20 loopback addresses (the per-client connection cap counts each as a client), a third
   spectators and the rest seats, and waits until every stream has its first event;
3. plays the same number of moves on the watched games while every stream is read, and records
   their latency and how long each move took to reach all of its game's streams;
4. plays moves on the quiet game again (a second baseline: the machine may be busy).

It prints one JSON object (also written to ``bench/results/streams.json`` unless ``--no-save``):
move latency p50/p95 without and with the streams, the ratio, the delivery p50/p95, and the
workers' memory before and after the streams were opened (RSS), per stream.
``--worker-class gthread`` runs the same against thread workers (2 × 4).  No run of it is recorded
in bench/results/; docs/capacity.md gives an operator's figures for 1,000 streams.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO))

from support.sse_client import RawStream, pump  # noqa: E402

from service.games import commitments  # noqa: E402
from service.storage.embedded import free_port, start_server  # noqa: E402


def start_gunicorn(redis_url: str, worker_class: str, log: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = dict(os.environ, REDIS_URL=redis_url, HOST="127.0.0.1", PORT=str(port), WEB_CONCURRENCY="2",
               GUNICORN_WORKER_CLASS=worker_class, REFEREE_RATE_LIMIT_PER_MINUTE="0",
               REFEREE_CREATE_LIMIT_PER_HOUR="0", PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "service.wsgi:app"],
                            cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=log.open("ab"),
                            stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{base}/openapi.json", timeout=2).status_code == 200:
                return proc, base
        except requests.RequestException:
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"gunicorn did not start; see {log}")


def worker_rss_kib(master: int) -> int:
    total = 0
    for pid in subprocess.run(["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True,
                              text=True).stdout.split():
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total


class Game:
    def __init__(self, base: str, session: requests.Session) -> None:
        self.base, self.session = base, session
        self.new_game()

    def new_game(self) -> None:
        base, session = self.base, self.session
        r = session.post(f"{base}/v1/gops/games", json={"profile": "standard", "options": {"players": 2}}, timeout=30)
        r.raise_for_status()
        data = r.json()
        self.id, self.tokens = data["id"], data["seat_tokens"]
        self.path = f"/v1/gops/games/{self.id}"
        self.round, self.pending = 1, []

    def next_move(self) -> tuple[str, dict, str]:
        """The next of commit 0, commit 1, reveal 0, reveal 1 (seat 0 bids upwards, seat 1 downwards)."""
        if not self.pending and self.round > 13:
            self.new_game()  # a game has 13 rounds; the quiet baseline just goes on with another
        if not self.pending:
            cards = {0: self.round, 1: 14 - self.round}
            salts = {seat: os.urandom(32).hex() for seat in (0, 1)}
            self.pending = [
                *[(f"{self.path}/seats/{s}/commit", {"round": self.round, "commitment": commitments.bid_commitment(
                    self.id, self.round, s, [cards[s]], salts[s])}, self.tokens[s]) for s in (0, 1)],
                *[(f"{self.path}/seats/{s}/reveal", {"round": self.round, "cards": [cards[s]], "salt": salts[s]},
                   self.tokens[s]) for s in (0, 1)],
            ]
            self.round += 1
        return self.pending.pop(0)

    def move(self) -> tuple[float, int]:
        path, body, token = self.next_move()
        started = time.perf_counter()
        r = self.session.post(self.base + path, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=60)
        took = time.perf_counter() - started
        r.raise_for_status()
        return took, r.json()["version"]


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"p50_ms": round(statistics.median(ordered) * 1000, 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] * 1000, 1)}


def run(streams_wanted: int, games: int, moves: int, worker_class: str, log: Path) -> dict:
    server = start_server(data_dir=log.parent / "valkey-bench-streams")
    proc, base = start_gunicorn(server.url, worker_class, log)
    host, port = base.removeprefix("http://").split(":")
    opened: list[RawStream] = []
    try:
        session = requests.Session()
        quiet = Game(base, session)
        for _ in range(8):  # warm up
            quiet.move()
        before = [quiet.move()[0] for _ in range(moves)]
        rss_before = worker_rss_kib(proc.pid)
        watched = [Game(base, session) for _ in range(games)]
        by_game: dict[str, list[RawStream]] = {g.id: [] for g in watched}
        started = time.monotonic()
        for i in range(streams_wanted):
            game = watched[i % games]
            token = [None, *game.tokens][i % 3]
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            stream = RawStream(host, int(port), f"{game.path}/events?timeout=300", headers,
                               source=f"127.0.2.{1 + i % 20}")
            opened.append(stream)
            by_game[game.id].append(stream)
        connected = pump(opened, lambda: all(s.events for s in opened), 120)
        open_seconds = time.monotonic() - started
        served = sum(1 for s in opened if s.events)
        rss_streams = worker_rss_kib(proc.pid)
        result = {"worker_class": worker_class, "streams": streams_wanted, "games": games,
                  "streams_with_first_event": served, "seconds_to_open_all": round(open_seconds, 2)}
        if not connected:
            # The thread workers: every stream holds a thread; see whether a move still gets through.
            try:
                took = Game(base, requests.Session()).move()[0]
                result["move_with_streams"] = f"{took * 1000:.0f} ms"
            except requests.RequestException as error:
                result["move_with_streams"] = f"failed: {type(error).__name__}"
            return result
        # Moves on the watched games while a thread reads every stream.
        stop = threading.Event()
        reader = threading.Thread(target=pump, args=(opened, stop.is_set, 3600))
        reader.start()
        during, delivery = [], []
        try:
            for k in range(moves):
                game = watched[k % games]
                took, version = game.move()
                during.append(took)
                reached = time.perf_counter()
                targets = by_game[game.id]
                while not all(version in s.versions or (s.versions and s.versions[-1] > version) for s in targets):
                    if time.perf_counter() - reached > 30:
                        raise RuntimeError(f"version {version} did not reach every stream of {game.id}")
                    time.sleep(0.001)
                delivery.append(took + time.perf_counter() - reached)
        finally:
            stop.set()
            reader.join()
        after = [quiet.move()[0] for _ in range(moves)]
        base_p50 = max(statistics.median(before), statistics.median(after))
        complete = all(s.versions == sorted(set(s.versions)) for s in opened)
        result.update({
            "moves_measured": moves,
            "move_without_streams": percentiles(before),
            "move_without_streams_after": percentiles(after),
            "move_with_streams": percentiles(during),
            "move_p50_ratio": round(statistics.median(during) / base_p50, 2),
            "move_to_every_stream": percentiles(delivery),
            "versions_in_order_no_repeats": complete,
            "worker_rss_mib_before": round(rss_before / 1024, 1),
            "worker_rss_mib_with_streams": round(rss_streams / 1024, 1),
            "rss_kib_per_stream": round((rss_streams - rss_before) / streams_wanted, 1),
        })
        return result
    finally:
        for s in opened:
            s.close()
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--moves", type=int, default=80)
    parser.add_argument("--worker-class", default="service.ops.serving.Worker")
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    results = REPO / "bench" / "results"
    results.mkdir(parents=True, exist_ok=True)
    log = Path(os.environ.get("TMPDIR", "/tmp")) / "referee-bench-streams.log"
    result = run(args.streams, args.games, args.moves, args.worker_class, log)
    text = json.dumps(result, indent=1)
    print(text)
    if not args.no_save:
        name = "streams.json" if args.worker_class == "service.ops.serving.Worker" else f"streams-{args.worker_class}.json"
        (results / name).write_text(text + "\n")


if __name__ == "__main__":
    main()

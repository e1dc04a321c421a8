"""A primary killed under load: ``python -m bench.failover [--games 24] [--seconds 8] [--no-save]``.

Starts a local Valkey Cluster (3 primaries, 3 replicas, node timeout 1000 ms) and two API processes
(gunicorn, ``deploy/gunicorn.conf.py``), then plays ``--games`` Gops games at once, one client thread
each, every request to one of the two processes in turn, for ``--seconds``; half way through, the
primary of one shard is SIGKILLed (its replica is promoted). Each game's client retries a request
that got ``503 store_unavailable`` or no answer, as an app would.

It reports, as one JSON object (also ``bench/results/failover.json`` unless ``--no-save``):

* ``acknowledged_moves`` and ``lost``: every move answered 200 is looked for afterwards in its
  game's transcript (at its version, with its seat and kind); ``lost`` must be 0;
* the **stall per shard**: for each game, the longest time between two of its answered moves within
  the window from the kill to its end; the p50 and max over the games on the killed shard and over
  the games on the other two, as ratios to the same games' longest gap before the kill;
* ``unavailable``: the 503s and dropped connections the clients retried, per group.

Times are wall-clock on a shared machine: read the ratios, and the two groups against each other.
"""

from __future__ import annotations

import argparse
import json
import secrets
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests
from redis.cluster import key_slot

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.servers import Gunicorn  # noqa: E402
from service.games import commitments  # noqa: E402
from service.storage.embedded import start_cluster  # noqa: E402
from service.storage.store import Store  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


class Client:
    """One game's player: requests alternate between the APIs; 503s and dropped connections retried."""

    def __init__(self, bases: list[str]) -> None:
        self.bases = bases
        self.session = requests.Session()
        self.turn = 0
        self.unavailable = 0

    def call(self, method: str, path: str, body=None, token: str | None = None, give_up: float = 60.0):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        deadline = time.monotonic() + give_up
        while True:
            base = self.bases[self.turn % len(self.bases)]
            self.turn += 1
            try:
                r = self.session.request(method, base + path, json=body, headers=headers, timeout=10)
                if r.status_code != 503:
                    return r.status_code, r.json() if r.content else None
            except requests.RequestException:
                pass
            self.unavailable += 1
            if time.monotonic() > deadline:
                raise RuntimeError(f"{method} {path}: unavailable for {give_up} s")
            time.sleep(0.05)


def play(client: Client, stop: threading.Event, acked: list[tuple[float, str, int, str, int]], errors: list[str]) -> str:
    """Play a classic game until it ends or ``stop``; every answered move: (time, game, version, kind, seat)."""
    status, game = client.call("POST", "/v1/gops/games", {"profile": "classic"})
    if status != 201:
        errors.append(f"create: {status} {game}")
        return ""
    gid, tokens, base = game["id"], game["seat_tokens"], f"/v1/gops/games/{game['id']}"
    for round_ in range(1, 14):
        if stop.is_set():
            break
        salts = {seat: secrets.token_hex(32) for seat in (0, 1)}
        cards = {0: [round_], 1: [14 - round_]}
        for kind in ("commit", "reveal"):
            for seat in (0, 1):
                body = ({"round": round_, "commitment": commitments.bid_commitment(game["game"]["game_id"], round_, seat,
                                                                                   cards[seat], salts[seat]),
                         "game_id": game["game"]["game_id"]} if kind == "commit"
                        else {"round": round_, "cards": cards[seat], "salt": salts[seat]})
                status, answer = client.call("POST", f"{base}/seats/{seat}/{kind}", body, tokens[seat])
                if status != 200:  # a retried request the first attempt had applied: the same answer, or a refusal
                    if (answer or {}).get("code") not in ("already_committed", "already_revealed", "wrong_round"):
                        errors.append(f"{kind}: {status} {answer}")
                    continue
                acked.append((time.monotonic(), gid, answer["version"], kind, seat))
    return gid


def run(games: int, seconds: float, log_dir: Path) -> dict:
    cluster = start_cluster(base_dir=log_dir / "cluster")
    apis = [Gunicorn(f"api{i}", "service.wsgi:app", cluster.url, log_dir,
                     env={"REFEREE_RATE_LIMIT_PER_MINUTE": "0", "REFEREE_CREATE_LIMIT_PER_HOUR": "0",
                          "WEB_CONCURRENCY": "1"}) for i in range(2)]
    try:
        for api in apis:
            api.start()
        bases = [f"http://127.0.0.1:{api.port}" for api in apis]
        stop = threading.Event()
        results: list[dict] = [{"acked": [], "errors": [], "id": ""} for _ in range(games)]
        clients = [Client(bases) for _ in range(games)]

        def worker(i: int) -> None:
            while not stop.is_set():
                play(clients[i], stop, results[i]["acked"], results[i]["errors"])

        threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(games)]
        for thread in threads:
            thread.start()
        time.sleep(seconds / 2)
        victim = cluster.primary_for("bench-any-key")
        # the victim's slots, read now: after the failover its replica serves them
        victim_slots = {slot for start, end, primary, *_ in cluster.client(victim).execute_command("CLUSTER", "SLOTS")
                        if int(primary[1]) == victim.port for slot in range(int(start), int(end) + 1)}
        killed_at = time.monotonic()
        victim.kill()
        time.sleep(seconds / 2)
        stop.set()
        for thread in threads:
            thread.join(120)
        ended_at = time.monotonic()

        store = Store.__new__(Store)  # only its key names
        store.prefix = "referee"
        check = Client(bases)
        lost, acknowledged = [], 0
        groups: dict[str, dict[str, list[float]]] = {"killed_shard": {"before": [], "after": []},
                                                      "other_shards": {"before": [], "after": []}}
        for result in results:
            acked = result["acked"]
            acknowledged += len(acked)
            logged: set[tuple[str, int, str, int]] = set()
            for gid in {gid for _, gid, _, _, _ in acked}:
                status, transcript = check.call("GET", f"/v1/gops/games/{gid}/transcript")
                logged |= {(gid, e["version"], e["action"]["type"], int(e["by"].partition(":")[2] or -1))
                           for e in transcript["entries"]}
            lost += [move[1:] for move in acked if move[1:] not in logged]
            # by game: the longest gap between two answered moves, before the kill and after it
            by_game: dict[str, list[float]] = {}
            for at, gid, _, _, _ in acked:
                by_game.setdefault(gid, []).append(at)
            for gid, times in by_game.items():
                group = "killed_shard" if key_slot(store.key("gops", gid).encode()) in victim_slots else "other_shards"
                before = [b - a for a, b in zip(times, times[1:]) if b < killed_at]
                after = [b - a for a, b in zip(times, times[1:]) if b >= killed_at]
                if before and after:
                    groups[group]["before"].append(max(before))
                    groups[group]["after"].append(max(after))

        def summary(group: dict[str, list[float]]) -> dict:
            if not group["after"]:
                return {"games": 0}
            return {"games": len(group["after"]),
                    "longest_gap_before_s": {"p50": round(statistics.median(group["before"]), 3),
                                             "max": round(max(group["before"]), 3)},
                    "longest_gap_after_kill_s": {"p50": round(statistics.median(group["after"]), 3),
                                                 "max": round(max(group["after"]), 3)},
                    "stall_ratio_p50": round(statistics.median(group["after"]) / statistics.median(group["before"]), 1)}

        return {
            "games_at_once": games, "seconds": seconds, "window_after_kill_s": round(ended_at - killed_at, 2),
            "acknowledged_moves": acknowledged, "lost": len(lost), "lost_examples": lost[:5],
            "killed_shard": summary(groups["killed_shard"]), "other_shards": summary(groups["other_shards"]),
            "unavailable_retries": sum(c.unavailable for c in clients),
            "victim_slots": len(victim_slots),
            "errors": [e for r in results for e in r["errors"]][:10],
        }
    finally:
        for api in apis:
            api.stop()
        cluster.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.failover", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-failover-") as tmp:
        report = run(args.games, args.seconds, Path(tmp))
    print(json.dumps(report, indent=2))
    if not args.no_save:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "failover.json").write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()

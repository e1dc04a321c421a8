"""``python -m bench.per_request`` – where a worker's CPU per request goes, by kind of request.

One real Valkey, the referee and the bare handler (bench/bare.py) under ``deploy/gunicorn.conf.py``
as ``python -m bench`` runs them. Interleaved and repeated, it measures the workers' CPU per
request (user + system, from /proc) of requests that do less and less beyond HTTP:

* ``GET /healthz`` on each app: gunicorn, gevent and the framework, no store (for the referee:
  its before/after-request hooks too);
* the bare blob GET: the same plus one Redis round trip and a view-sized body;
* the referee's Gops public and seat views (one game, just created), and a Gops move (whole games);
* the bare move (one pipeline of 3 commands).

Beside each worker figure, the Valkey server's CPU per request (the same /proc reading of its
process) and the load generator's (this process): on 2 shared cores the server's work and the
client's are the apps' work too, and a write that waits for an fsync (``appendfsync always``)
costs the server far more than a read.

The differences say what each layer costs in a worker, where the in-process profile
(``python -m bench.profile``) cannot see: gunicorn's parsing and writing, greenlet switches.
Options: ``--rounds N`` (3), ``--seconds S`` per phase (4), ``--connections C`` (16). Prints a
table; the machine's load shifts every figure, so compare rows of one run. Each row ends with the
machine's busy share in the phase and each worker's CPU per round (a share of one core): a
worker near 0 left its core idle.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from . import http, servers
from .bare import blob_key


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU used so far by one process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / servers.CLOCK_TICKS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.per_request", description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args(argv)

    import redis

    from service.storage.embedded import start_server

    work = Path(tempfile.mkdtemp(prefix="referee-per-request-"))
    valkey = start_server(data_dir=work / "valkey")
    ref = servers.Gunicorn("referee", "service.wsgi:app", valkey.url, work, servers.REFEREE_ENV)
    bare = servers.Gunicorn("bare", "bench.bare:app", valkey.url, work)
    try:
        for g in (ref, bare):
            g.spawn()
        for g in (ref, bare):
            g.wait_ready()
        status, body = http.request_once(ref.port, "POST", "/v1/gops/games", {"profile": "classic"})
        created = json.loads(body)
        gid, token = created["id"], created["seat_tokens"][0]
        status, view = http.request_once(ref.port, "GET", f"/v1/gops/games/{gid}/seats/0", None, token)
        direct = redis.Redis(host=servers.HOST, port=valkey.port)
        direct.set(blob_key("per-request"), view)
        direct.close()
        cases = [
            ("referee GET /healthz", ref, http.reads("/healthz")),
            ("bare GET /healthz", bare, http.reads("/healthz")),
            ("bare blob GET (1 round trip)", bare, http.reads("/bare/blob/per-request")),
            ("referee Gops public view", ref, http.reads(f"/v1/gops/games/{gid}")),
            ("referee Gops seat view", ref, http.reads(f"/v1/gops/games/{gid}/seats/0", token)),
            ("referee Gops move", ref, http.gops_games),
            ("bare move (1 round trip)", bare, http.bare_moves({"round": 7, "commitment": "ab" * 32})),
        ]
        cpu: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        rate: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        server: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        client: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        busy: dict[str, list[float]] = {name: [] for name, _, _ in cases}
        shares: dict[str, list[list[float]]] = {name: [] for name, _, _ in cases}
        for name, g, load in cases:
            http.run_phase(g.port, args.connections, load, min(1.0, args.seconds))  # warm
        for r in range(args.rounds):
            for name, g, load in cases:
                before, server_before = g.worker_cpu_seconds(), process_cpu_seconds(valkey.pid)
                client_before, busy_before = time.process_time(), servers.machine_busy()
                stats, elapsed = http.run_phase(g.port, args.connections, load, args.seconds, seed=r + 1)
                client_spent = time.process_time() - client_before
                after = g.worker_cpu_seconds()
                busy[name].append(servers.busy_share(busy_before, servers.machine_busy()))
                shares[name].append(servers.worker_shares(before, after, elapsed))
                spent = sum(after.values()) - sum(before.values())
                server_spent = process_cpu_seconds(valkey.pid) - server_before
                requests = sum(stats.counts.values())  # a Gops game's creates count as requests too
                if stats.errors or not requests:
                    raise RuntimeError(f"{name}: {stats.errors[:3]}")
                cpu[name].append(1000 * spent / requests)
                server[name].append(1000 * server_spent / requests)
                client[name].append(1000 * client_spent / requests)
                rate[name].append(requests / elapsed)
        print(f"CPU per request of the workers, the Valkey server and the load generator (this process), "
              f"{args.connections} connections, median of {args.rounds} rounds")
        for name, _, _ in cases:
            print(f"  {name:32s} {statistics.median(cpu[name]):6.2f} ms  Valkey {statistics.median(server[name]):6.3f} ms"
                  f"  client {statistics.median(client[name]):6.3f} ms   {statistics.median(rate[name]):7.0f} requests/s"
                  f"   machine busy {statistics.median(busy[name]):.2f}, workers' CPU {shares[name]}")
    finally:
        for g in (ref, bare):
            g.stop()
        valkey.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

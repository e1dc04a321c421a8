"""``python -m bench [--smoke] [--out PATH]`` – run every benchmark, print ratios, write JSON.

See bench/README.md for what each figure means and the figures of the last recorded run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

from . import engines, http, redis_counts, servers
from .bare import blob_key

RESULTS = Path(__file__).resolve().parent / "results"

FULL = dict(rounds=3, seconds=5.0, read_seconds=2.5, connections=[8, 16, 32], warmup=1.5,
            engine_seconds=2.0, count_games=2, count_hands=3, memory_samples=3, memory_hands=3,
            profile_moves=400)
SMOKE = dict(rounds=2, seconds=0.4, read_seconds=0.15, connections=[8], warmup=0.15,
             engine_seconds=0.2, count_games=1, count_hands=1, memory_samples=1, memory_hands=2,
             profile_moves=0)

#: the targets the request path is held to (middle column) and where we want to end, printed next to the figures.
TARGETS = {
    "moves_ratio_16": (">=", 0.5, 0.8),
    "reads_ratio_16": (">=", 0.5, 0.8),
    "cpu_ms_per_move": ("<=", 2.0, 1.3),
    "round_trips_per_commit_reveal": ("<=", 2, 1),
    "round_trips_per_commit_reveal_without_latest_record": ("<=", 2, 1),
    "memory_kib_per_finished_gops_game": ("<=", 4.0, 2.0),
    "engine_gops_rules_vs_openspiel": (">=", 0.25, 0.5),  # the engine's figure: the rules alone (OpenSpiel's workload)
}


# ------------------------------------------------------------------------------ helpers

class Sync:
    """A tiny synchronous client for setting up the read benchmarks."""

    def __init__(self, port: int) -> None:
        self.conn = HTTPConnection(servers.HOST, port, timeout=30)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None, expect: int = 200) -> tuple[Any, bytes]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        resp = self.conn.getresponse()
        data = resp.read()
        if resp.status != expect:
            raise RuntimeError(f"{method} {path} -> {resp.status}: {data[:300]!r}")
        return json.loads(data), data


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = min(len(xs) - 1, max(0, round(q / 100 * (len(xs) - 1))))
    return xs[k]


def git_describe() -> dict[str, Any]:
    def run(*cmd):
        try:
            return subprocess.run(cmd, cwd=servers.REPO, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""
    return {"commit": run("git", "rev-parse", "HEAD"), "dirty_files": len(run("git", "status", "--porcelain").splitlines())}


# --------------------------------------------------------------------------- read targets

def setup_reads(ref_port: int, direct, rng: random.Random) -> dict[str, dict[str, Any]]:
    """A Gops game in round 7 and a Gofo hand a few moves in; their views become the read
    targets, and each view's own bytes are stored as the bare GET's blob of the same size."""
    s = Sync(ref_port)
    created, _ = s.call("POST", "/v1/gops/games", {"profile": "classic"}, expect=201)
    gid, game_id, tokens = created["id"], created["game"]["game_id"], created["seat_tokens"]
    hands = [list(range(1, 14)), list(range(1, 14))]
    for rnd in range(1, 7):
        bids = [[hands[i].pop(rng.randrange(len(hands[i])))] for i in (0, 1)]
        salts = [f"{rng.getrandbits(256):064x}" for _ in (0, 1)]
        for i in (0, 1):
            s.call("POST", f"/v1/gops/games/{gid}/seats/{i}/commit",
                   {"round": rnd, "commitment": http.bid_commitment(game_id, rnd, i, bids[i], salts[i])}, tokens[i])
        for i in (0, 1):
            s.call("POST", f"/v1/gops/games/{gid}/seats/{i}/reveal", {"round": rnd, "cards": bids[i], "salt": salts[i]}, tokens[i])
    created, _ = s.call("POST", "/v1/gofo/tables", http.GOFO_TABLE, expect=201)
    tid, ttokens, state = created["id"], created["seat_tokens"], created["table"]
    for _ in range(3):  # opening and two entries: a hand under way
        seat = state["hand"]["to_act"]
        view, _ = s.call("GET", f"/v1/gofo/tables/{tid}/seats/{seat}", token=ttokens[seat])
        legal = [a for a in view["hand"]["legal_actions"] if a["type"] not in ("look", "decline")]
        kind, body = http.gofo_choice(legal, rng)
        state, _ = s.call("POST", f"/v1/gofo/tables/{tid}/seats/{seat}/{kind.replace('_', '-')}", body, ttokens[seat])
    seat = state["hand"]["to_act"]
    targets = {
        "gops_public": {"path": f"/v1/gops/games/{gid}", "token": None},
        "gops_seat": {"path": f"/v1/gops/games/{gid}/seats/0", "token": tokens[0]},
        "gofo_public": {"path": f"/v1/gofo/tables/{tid}", "token": None},
        "gofo_seat": {"path": f"/v1/gofo/tables/{tid}/seats/{seat}", "token": ttokens[seat]},
    }
    for name, target in targets.items():
        _, raw = s.call("GET", target["path"], token=target["token"])
        direct.set(blob_key(name), raw)
        target["bytes"] = len(raw)
    s.conn.close()
    return targets


# ------------------------------------------------------------------------------ HTTP load

def http_section(cfg: dict, ref: servers.Gunicorn, bare: servers.Gunicorn, targets: dict) -> dict[str, Any]:
    gops_body = {"round": 7, "commitment": "ab" * 32}
    gofo_body = {"amount": 3}
    pairs: dict[str, tuple] = {
        # name: (referee workload, bare workload, latency labels, seconds)
        "gops": (http.gops_games, http.bare_moves(gops_body), ("move",), cfg["seconds"]),
        "gofo": (http.gofo_hands, http.bare_gofo("gofo_seat", gofo_body), ("move", "read"), cfg["seconds"]),
    }
    for name, t in targets.items():
        pairs[f"read_{name}"] = (http.reads(t["path"], t["token"]), http.reads(f"/bare/blob/{name}"), ("read",), cfg["read_seconds"])

    # warm-up, not recorded: every code path once on every worker
    for ref_load, bare_load, _labels, _secs in pairs.values():
        for server, load in ((ref, ref_load), (bare, bare_load)):
            stats, _ = http.run_phase(server.port, 8, load, cfg["warmup"] if _labels != ("read",) else cfg["warmup"] / 3, seed=99)
            if stats.errors:
                raise RuntimeError(f"warm-up on {server.name}: {stats.errors[:3]}")

    raw: dict[str, dict[int, dict[str, list]]] = {}
    seed = 0
    for rnd in range(cfg["rounds"]):
        for conns in cfg["connections"]:
            for name, (ref_load, bare_load, labels, secs) in pairs.items():
                for side, server, load in (("referee", ref, ref_load), ("bare", bare, bare_load)):
                    seed += 1
                    c0, b0 = server.worker_cpu_seconds(), servers.machine_busy()
                    stats, elapsed = http.run_phase(server.port, conns, load, secs, seed=seed)
                    c1, b1 = server.worker_cpu_seconds(), servers.machine_busy()
                    cpu = sum(c1.values()) - sum(c0.values())
                    slot = raw.setdefault(name, {}).setdefault(conns, {}).setdefault(side, [])
                    slot.append({"units": stats.units, "elapsed": elapsed, "cpu": cpu, "errors": stats.errors,
                                 "workers": servers.worker_shares(c0, c1, elapsed),
                                 "busy": servers.busy_share(b0, b1),
                                 "latencies": {l: stats.latencies.get(l, []) for l in labels},
                                 "games": stats.games, "hands": stats.hands})
                    print(f"  round {rnd + 1} {name:<16} {conns:>2} conns {side:<7} {stats.units / elapsed:8.1f} units/s"
                          f"{'  ERRORS ' + str(len(stats.errors)) if stats.errors else ''}", file=sys.stderr, flush=True)

    out: dict[str, Any] = {}
    for name, by_conns in raw.items():
        out[name] = {}
        for conns, sides in by_conns.items():
            rates = {side: [r["units"] / r["elapsed"] for r in runs] for side, runs in sides.items()}
            ratios = [a / b for a, b in zip(rates["referee"], rates["bare"])]
            entry: dict[str, Any] = {"ratio": median(ratios), "ratios": [round(r, 4) for r in ratios],
                                     # max/min of the rounds: far above ~1.3, the machine was busy with something else
                                     "spread": round(max(ratios) / min(ratios), 3) if min(ratios) > 0 else None}
            for side, runs in sides.items():
                units = sum(r["units"] for r in runs)
                lat = {}
                for label in pairs[name][2]:
                    pooled = [x for r in runs for x in r["latencies"][label]]
                    lat[label] = {"p50_ms": round(1000 * percentile(pooled, 50), 2),
                                  "p99_ms": round(1000 * percentile(pooled, 99), 2), "n": len(pooled)}
                entry[side] = {
                    "units_per_s": round(median(rates[side]), 1),
                    "cpu_ms_per_unit": round(1000 * sum(r["cpu"] for r in runs) / units, 3) if units else None,
                    "latency": lat,
                    "errors": sum(len(r["errors"]) for r in runs),
                    # per round: each worker's CPU (share of a core, smallest first) and the
                    # machine's busy share; a worker near 0 left a core to the others
                    "workers_cpu_share": [r["workers"] for r in runs],
                    "machine_busy": [r["busy"] for r in runs],
                    "error_samples": [e for r in runs for e in r["errors"]][:3],
                }
                if name == "gops":
                    entry[side]["games"] = sum(r["games"] for r in runs)
                if name == "gofo":
                    entry[side]["hands"] = sum(r["hands"] for r in runs)
            entry["p99_ratio"] = round(entry["referee"]["latency"][pairs[name][2][0]]["p99_ms"]
                                       / max(entry["bare"]["latency"][pairs[name][2][0]]["p99_ms"], 1e-9), 3)
            entry["cpu_ratio"] = (round(entry["referee"]["cpu_ms_per_unit"] / entry["bare"]["cpu_ms_per_unit"], 3)
                                  if entry["referee"]["cpu_ms_per_unit"] and entry["bare"]["cpu_ms_per_unit"] else None)
            out[name][str(conns)] = entry
    out["units"] = {
        "gops": "moves (commit or reveal POSTs) of whole classic games, both seats on one connection; "
                "the game's create is in the time, not in the count; bare: POSTs",
        "gofo": "moves of dealt 5-seat hands, each = the acting seat's view GET + the move POST (table "
                "creates in the time, not the count); bare: GET of a seat-view-sized blob + POST",
        "read_*": "GETs; bare: GET of a blob of the same bytes",
    }
    out["read_targets"] = {k: {"bytes": v["bytes"], "path": v["path"].split("/v1/")[1].split("/")[0]} for k, v in targets.items()}
    return out


# ---------------------------------------------------------------------------------- main

def targets_table(report: dict) -> list[dict[str, Any]]:
    h = report["http"]
    conns = "16" if "16" in h["gops"] else sorted(h["gops"], key=int)[0]
    rc = report["redis"]
    now = {
        "moves_ratio_16": h["gops"][conns]["ratio"],
        "reads_ratio_16": min(h[k][conns]["ratio"] for k in ("read_gops_public", "read_gops_seat")),
        "cpu_ms_per_move": h["gops"][conns]["referee"]["cpu_ms_per_unit"],
        # as served, the rate limiter included (its hit rides with the load; `without_rate_limit`
        # reports the count without it)
        "round_trips_per_commit_reveal": max(rc[k]["round_trips"] for k in ("gops_commit", "gops_reveal", "gofo_move")),
        # a move on a worker that neither made nor read the game's last change: the read, then the save
        "round_trips_per_commit_reveal_without_latest_record": max(
            rc[k]["without_latest_record"]["round_trips"] if "without_latest_record" in rc[k] else rc[k]["round_trips"]
            for k in ("gops_commit", "gops_reveal", "gofo_move")),
        "memory_kib_per_finished_gops_game": report["memory"]["gops_finished_game"]["kib"],
        "engine_gops_rules_vs_openspiel": report["engine"]["gops_rules_vs_openspiel"]["ratio"],
    }
    rows = []
    for key, (op, target, end) in TARGETS.items():
        value = now[key]
        met = value >= target if op == ">=" else value <= target
        rows.append({"figure": key, "now": value, "target": f"{op} {target}", "end": f"{op} {end}", "met": met,
                     "at_connections": int(conns) if key.endswith("_16") or key == "cpu_ms_per_move" else None})
    return rows


def print_summary(report: dict) -> None:
    h = report["http"]
    p = print
    p("\n== Throughput: referee ÷ bare Flask+Redis handler (same gunicorn config) ==")
    p(f"{'workload':<18}{'conns':>6}{'ratio':>8}{'p50 ref/bare ms':>20}{'p99 ref/bare ms':>20}{'CPU ratio':>11}")
    for name in [k for k in h if k not in ("units", "read_targets")]:
        for conns, e in h[name].items():
            label = "move" if name in ("gops", "gofo") else "read"
            r, b = e["referee"]["latency"][label], e["bare"]["latency"][label]
            p(f"{name:<18}{conns:>6}{e['ratio']:>8.3f}{r['p50_ms']:>10.1f}/{b['p50_ms']:<9.1f}{r['p99_ms']:>10.1f}/{b['p99_ms']:<9.1f}"
              f"{(e['cpu_ratio'] or float('nan')):>11.2f}")
    spreads = [(e["spread"], n, c) for n in h if n not in ("units", "read_targets") for c, e in h[n].items() if e.get("spread")]
    if spreads and max(spreads)[0] > 1.5:
        worst = max(spreads)
        p(f"(noisy: the rounds of {worst[1]} at {worst[2]} connections differ {worst[0]:.1f}×; "
          "another load shared the machine, compare CPU ratios or run again)")
    p("\n== Redis per request (round trips = request/reply exchanges; commands as the server ran them) ==")
    p("(with the rate limiter as served | without it | as served on a worker without the game's latest record)")
    for label, e in report["redis"].items():
        off, unknown = e.get("without_rate_limit"), e.get("without_latest_record")
        p(f"{label:<18} round trips {e['round_trips']:>2}{' | %d' % off['round_trips'] if off else '    '}"
          f"{' | %d' % unknown['round_trips'] if unknown else '    '}  "
          f"commands {e['commands']:>3}{' | %3d' % off['commands'] if off else '      '}"
          f"{' | %3d' % unknown['commands'] if unknown else '      '}  "
          f"client: {' '.join(e['typical_client_commands'])}")
    p("\n== MEMORY USAGE ==")
    for label, e in report["memory"].items():
        p(f"{label:<28} {e['kib']:>8.2f} KiB")
    eng = report["engine"]
    p("\n== Engine-only random playouts ==")
    p(f"Gops 13-card 2-player ÷ OpenSpiel goofspiel: {eng['gops_vs_openspiel']['ratio']:.4f}  (rounds: {eng['gops_vs_openspiel']['ratios']})")
    if "gops_rules_vs_openspiel" in eng:
        p(f"Gops rules alone (play_bids, no commit–reveal) ÷ goofspiel: {eng['gops_rules_vs_openspiel']['ratio']:.4f}"
          f"  (rounds: {eng['gops_rules_vs_openspiel']['ratios']})")
        p(f"crypto floor of a protocol game: {eng['crypto_floor']['us_per_game']:.0f} µs CPU, "
          f"{eng['crypto_floor']['vs_openspiel']:.3f}× goofspiel at most")
    p(f"Gofo engine actions/s ÷ goofspiel actions/s: {eng['gofo']['actions_vs_openspiel_actions']:.4f} (a yardstick)")
    if report.get("profile"):
        p("\n== Profile of a Gops move (CPU self-time shares) ==")
        for area, share in list(report["profile"]["areas"].items())[:8]:
            p(f"  {share:6.1%}  {area}")
    p("\n== Targets ==")
    for row in report["targets"]:
        now = row["now"]
        p(f"  {row['figure']:<36} now {now if isinstance(now, int) else round(now, 4):<10} target {row['target']:<8} "
          f"{'MET' if row['met'] else 'not met'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    ap.add_argument("--smoke", action="store_true", help="tiny sizes (~20 s): checks that every part runs")
    ap.add_argument("--out", type=Path, default=RESULTS / "latest.json", help="JSON report (default bench/results/latest.json)")
    ap.add_argument("--rounds", type=int, help="A B rounds of every comparison")
    ap.add_argument("--seconds", type=float, help="seconds per game/hand load phase")
    ap.add_argument("--connections", help="comma-separated, e.g. 8,16,32")
    ap.add_argument("--no-profile", action="store_true")
    args = ap.parse_args(argv)
    cfg = dict(SMOKE if args.smoke else FULL)
    if args.rounds:
        cfg["rounds"] = args.rounds
    if args.seconds:
        cfg["seconds"] = args.seconds
    if args.connections:
        cfg["connections"] = [int(c) for c in args.connections.split(",")]
    if args.no_profile:
        cfg["profile_moves"] = 0

    import redis

    from service.storage.embedded import start_server

    started = time.time()
    report: dict[str, Any] = {
        "meta": {
            "command": "python -m bench" + (" --smoke" if args.smoke else ""),
            "mode": "smoke" if args.smoke else "full",
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "config": cfg, "gunicorn": servers.gunicorn_settings(), "git": git_describe(),
            "python": platform.python_version(), "cpus": os.cpu_count(),
            "load_average_at_start": os.getloadavg(),
            "referee_env": servers.REFEREE_ENV,
        }
    }
    workdir = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    valkey = start_server(data_dir=workdir / "valkey")  # the load phases'
    quiet = start_server(data_dir=workdir / "valkey-quiet")  # counts, memory, profile: no other client
    ref = bare = None
    try:
        report["meta"]["valkey"] = {"appendonly": True, "appendfsync": valkey.appendfsync}
        rng = random.Random(2026)
        # both gunicorns boot in parallel
        ref = servers.Gunicorn("referee", "service.wsgi:app", valkey.url, workdir, servers.REFEREE_ENV)
        bare = servers.Gunicorn("bare", "bench.bare:app", valkey.url, workdir)
        for g in (ref, bare):
            g.spawn()  # they boot while the in-process sections run (on their own Valkey)
        timings = report["meta"]["section_seconds"] = {"boot": round(time.time() - started, 1)}

        def section(name: str, what: str, fn):
            print(f"bench: {what} ...", file=sys.stderr, flush=True)
            t0 = time.time()
            report[name] = fn()
            timings[name] = round(time.time() - t0, 1)

        section("redis", "counting Redis round trips and commands",
                lambda: redis_counts.count_requests(quiet.port, rng, cfg["count_games"], cfg["count_hands"]))
        section("memory", "MEMORY USAGE", lambda: redis_counts.measure_memory(
            quiet.port, rng, cfg["memory_samples"], cfg["memory_hands"]))
        section("engine", "engine playouts", lambda: engines.run(cfg["rounds"], cfg["engine_seconds"]))
        if cfg["profile_moves"]:
            from .profile import profile_moves
            section("profile", "profiling Gops moves", lambda: profile_moves(quiet.url, cfg["profile_moves"]))
        for g in (ref, bare):
            g.wait_ready()
        direct = redis.Redis(host=servers.HOST, port=valkey.port)
        targets = setup_reads(ref.port, direct, rng)
        section("http", "HTTP load, referee vs bare, interleaved", lambda: http_section(cfg, ref, bare, targets))
        direct.close()
        report["targets"] = targets_table(report)
    finally:
        for g in (ref, bare):
            if g is not None:
                g.stop()
        valkey.cleanup()
        quiet.cleanup()
        if sys.exc_info()[0] is not None:  # failing: show what the servers said
            for log in workdir.glob("*.log"):
                print(f"--- {log.name} (tail)\n{log.read_bytes()[-2000:].decode(errors='replace')}", file=sys.stderr)
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)
    report["meta"]["seconds"] = round(time.time() - started, 1)
    report["meta"]["load_average_at_end"] = os.getloadavg()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print_summary(report)
    print(f"\nreport: {args.out}  ({report['meta']['seconds']} s)")
    failed = [(n, e) for n, by in report["http"].items() if n not in ("units", "read_targets")
              for e in by.values() for side in ("referee", "bare") if e[side]["errors"]]
    if failed:
        print(f"bench: requests failed during load: {failed[0][1]['referee']['error_samples'] or failed[0][1]['bare']['error_samples']}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

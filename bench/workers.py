"""``python -m bench.workers`` – the gunicorn worker class, measured: gevent vs gthread, one run.

Four gunicorns on one real Valkey, all ``-c deploy/gunicorn.conf.py`` with only
``GUNICORN_WORKER_CLASS`` changed: the referee and the bare handler (bench/bare.py), each once
with gevent (``service.ops.serving.Worker``, the default) and once with gthread (2 workers × 4
threads).  Interleaved A B C D and repeated; per workload and connection count it prints

* **gthread ÷ gevent** of the referee's units/s (median of the rounds) and of its CPU per unit;
* each class's referee ÷ bare ratio (the bare handler under the same class);

so the choice compares the two classes on the same machine at the same time.  A unit is what
``python -m bench`` calls one (a Gops move; a Gofo GET + move; a read).  What this does not
measure and still decides: an open event stream holds a gthread thread (8 streams stop a 2 × 4
gthread server), a greenlet under gevent (``python -m bench.streams``).

Options: ``--rounds N`` (3), ``--seconds S`` per phase (4; reads half), ``--connections 8,16,32``
(16), ``--out PATH`` (bench/results/workers.json).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from . import http, servers
from .__main__ import RESULTS, git_describe, median, setup_reads

CLASSES = {"gevent": "service.ops.serving.Worker", "gthread": "gthread"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.workers", description=__doc__)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--connections", default="16")
    ap.add_argument("--out", type=Path, default=RESULTS / "workers.json")
    args = ap.parse_args(argv)
    connections = [int(c) for c in args.connections.split(",")]

    import redis

    from service.storage.embedded import start_server

    started = time.time()
    workdir = Path(tempfile.mkdtemp(prefix="referee-bench-workers-"))
    valkey = start_server(data_dir=workdir / "valkey")
    guns: dict[tuple[str, str], servers.Gunicorn] = {}
    try:
        for cls_name, cls in CLASSES.items():
            env = {"GUNICORN_WORKER_CLASS": cls}
            guns[("referee", cls_name)] = servers.Gunicorn(f"referee-{cls_name}", "service.wsgi:app", valkey.url,
                                                           workdir, {**servers.REFEREE_ENV, **env})
            guns[("bare", cls_name)] = servers.Gunicorn(f"bare-{cls_name}", "bench.bare:app", valkey.url, workdir, env)
        for g in guns.values():
            g.spawn()
        for g in guns.values():
            g.wait_ready()
        direct = redis.Redis(host=servers.HOST, port=valkey.port)
        rng = random.Random(2026)
        targets = setup_reads(guns[("referee", "gevent")].port, direct, rng)
        direct.close()
        loads = {
            "gops": (http.gops_games, http.bare_moves({"round": 7, "commitment": "ab" * 32}), args.seconds),
            "gofo": (http.gofo_hands, http.bare_gofo("gofo_seat", {"amount": 3}), args.seconds),
            "read_gops_seat": (http.reads(targets["gops_seat"]["path"], targets["gops_seat"]["token"]),
                               http.reads("/bare/blob/gops_seat"), args.seconds / 2),
        }
        for (side, _cls), g in guns.items():  # warm-up, not recorded
            for name, (ref_load, bare_load, _s) in loads.items():
                http.run_phase(g.port, 8, ref_load if side == "referee" else bare_load, 0.8, seed=99)
        raw: dict[str, dict[int, dict[tuple[str, str], list]]] = {}
        seed = 0
        for rnd in range(args.rounds):
            for conns in connections:
                for name, (ref_load, bare_load, secs) in loads.items():
                    for key, g in guns.items():
                        seed += 1
                        c0 = g.cpu_seconds()
                        stats, elapsed = http.run_phase(g.port, conns, ref_load if key[0] == "referee" else bare_load,
                                                        secs, seed=seed)
                        cpu = g.cpu_seconds() - c0
                        if stats.errors:
                            raise RuntimeError(f"{g.name}: {stats.errors[:3]}")
                        raw.setdefault(name, {}).setdefault(conns, {}).setdefault(key, []).append(
                            {"rate": stats.units / elapsed, "cpu_ms": 1000 * cpu / max(stats.units, 1)})
                        print(f"  round {rnd + 1} {name:<15} {conns:>2} conns {g.name:<16} "
                              f"{stats.units / elapsed:8.1f} units/s", file=sys.stderr, flush=True)
    finally:
        for g in guns.values():
            g.stop()
        valkey.cleanup()
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)

    out: dict[str, Any] = {"meta": {"command": "python -m bench.workers " + " ".join(argv or sys.argv[1:]),
                                    "git": git_describe(), "rounds": args.rounds, "seconds": args.seconds,
                                    "classes": CLASSES, "gunicorn": servers.gunicorn_settings(),
                                    "elapsed_s": round(time.time() - started, 1)},
                           "results": {}}
    print("\n== gunicorn worker class: gthread ÷ gevent (referee), and each class's referee ÷ bare ==")
    print(f"{'workload':<16}{'conns':>6}{'units/s gthread/gevent':>24}{'CPU/unit gthread/gevent':>25}"
          f"{'ref/bare gevent':>17}{'ref/bare gthread':>18}")
    for name, by_conns in raw.items():
        for conns, runs in by_conns.items():
            rate = {k: [r["rate"] for r in v] for k, v in runs.items()}
            cpu = {k: median([r["cpu_ms"] for r in v]) for k, v in runs.items()}
            per_round = [t / e for t, e in zip(rate[("referee", "gthread")], rate[("referee", "gevent")])]
            entry = {
                "gthread_vs_gevent_units": round(median(per_round), 3), "rounds": [round(x, 3) for x in per_round],
                "gthread_vs_gevent_cpu_per_unit": round(cpu[("referee", "gthread")] / cpu[("referee", "gevent")], 3),
                "referee_vs_bare": {c: round(median([a / b for a, b in zip(rate[("referee", c)], rate[("bare", c)])]), 3)
                                    for c in CLASSES},
                "units_per_s": {f"{s}-{c}": round(median(v), 1) for (s, c), v in rate.items()},
                "cpu_ms_per_unit": {f"{s}-{c}": round(v, 3) for (s, c), v in cpu.items()},
            }
            out["results"].setdefault(name, {})[str(conns)] = entry
            print(f"{name:<16}{conns:>6}{entry['gthread_vs_gevent_units']:>24.3f}"
                  f"{entry['gthread_vs_gevent_cpu_per_unit']:>25.3f}"
                  f"{entry['referee_vs_bare']['gevent']:>17.3f}{entry['referee_vs_bare']['gthread']:>18.3f}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"\nreport: {args.out}  ({out['meta']['elapsed_s']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where the CPU of a Gops move goes: cProfile over many commits and reveals.

The referee app runs in this process (``create_app`` + Flask's test client, the real Valkey),
so the profile covers the whole request (werkzeug, Flask, flask-smorest, marshmallow, the
store, redis-py, the engine) but not gunicorn's socket handling. Only move requests are
profiled (creates are not). ``python -m bench.profile [MOVES]`` prints it alone.
"""

from __future__ import annotations

import cProfile
import pstats
import random
import secrets
import sys
import time
from typing import Any

#: (area, test on the profiled function's file path, or its name for built-ins); first match wins.
AREAS: list[tuple[str, tuple[str, ...]]] = [
    ("copy.deepcopy", ("/copy.py",)),
    ("json (encode/decode)", ("/json/", "json.", "<method 'encode' of '_json", "<built-in method _json")),
    ("redis-py", ("/redis/",)),
    ("socket I/O (waiting on Valkey)", ("<method 'recv", "<method 'sendall", "<method 'send'", "socket", "select")),
    ("marshmallow", ("/marshmallow/",)),
    ("flask-smorest / apispec / webargs", ("/flask_smorest/", "/apispec/", "/webargs/")),
    ("werkzeug", ("/werkzeug/",)),
    ("flask", ("/flask/",)),
    ("logging", ("/logging/",)),
    ("hashlib / hmac / secrets", ("hashlib", "_hashlib", "/hmac.py", "/secrets.py", "<built-in method _hashlib")),
    ("cryptography", ("/cryptography/",)),
    ("dataclasses (asdict, replace, fields)", ("/dataclasses.py",)),
    ("service/gops (the engine: rules, state, (de)serialisation, views)", ("/service/gops/", "/service/gops.py",
                                                                           "/service/game.py", "/service/registry.py")),
    ("service/storage/store.py", ("/service/store.py",)),
    ("service/api", ("/service/api/",)),
    ("service (other)", ("/service/",)),
]


OTHER = "other (stdlib, builtins)"


def _area(path: str, name: str) -> str:
    where = path if path != "~" else name
    for area, needles in AREAS:
        if any(n in where for n in needles):
            return area
    return OTHER


def _short(path: str) -> str:
    for marker in ("/site-packages/", "/work/main/", "/lib/python3"):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


def profile_moves(redis_url: str, moves: int = 400, top: int = 15, seed: int = 7) -> dict[str, Any]:
    from .http import bid_commitment
    from .redis_counts import _auth, _ok, referee_app

    app = referee_app(redis_url)
    client = app.test_client()
    rng = random.Random(seed)
    # the CPU time of this process only (not Valkey's, not waiting for it)
    prof = cProfile.Profile(time.process_time)
    done = 0
    plain_cpu = 0.0  # CPU of the moves made without the profiler (every other move)

    def move(path: str, body: dict, token: str) -> None:
        nonlocal done, plain_cpu
        if done % 2:
            c0 = time.process_time()
            resp = client.post(path, json=body, headers=_auth(token))
            plain_cpu += time.process_time() - c0
        else:
            prof.enable()
            resp = client.post(path, json=body, headers=_auth(token))
            prof.disable()
        _ok(resp)
        done += 1

    first = True
    while done < moves:
        created = _ok(client.post("/v1/gops/games", json={"profile": "classic"}), 201)
        gid, game_id, tokens = created["id"], created["game"]["game_id"], created["seat_tokens"]
        hands = [list(range(1, 14)), list(range(1, 14))]
        for rnd in range(1, 14):
            bids = [[hands[s].pop(rng.randrange(len(hands[s])))] for s in (0, 1)]
            salts = [secrets.token_hex(32), secrets.token_hex(32)]
            for s in (0, 1):
                body = {"round": rnd, "commitment": bid_commitment(game_id, rnd, s, bids[s], salts[s])}
                if first:  # warm-up game, not profiled
                    _ok(client.post(f"/v1/gops/games/{gid}/seats/{s}/commit", json=body, headers=_auth(tokens[s])))
                else:
                    move(f"/v1/gops/games/{gid}/seats/{s}/commit", body, tokens[s])
            for s in (0, 1):
                body = {"round": rnd, "cards": bids[s], "salt": salts[s]}
                if first:
                    _ok(client.post(f"/v1/gops/games/{gid}/seats/{s}/reveal", json=body, headers=_auth(tokens[s])))
                else:
                    move(f"/v1/gops/games/{gid}/seats/{s}/reveal", body, tokens[s])
        first = False

    profiled = (done + 1) // 2
    stats = pstats.Stats(prof)
    total = sum(tt for (_cc, _nc, tt, _ct, _callers) in stats.stats.values())
    areas: dict[str, float] = {}
    rows = []
    calls_per_move: dict[str, float] = {}
    for (path, line, name), (_cc, nc, tt, ct, callers) in stats.stats.items():
        area = _area(path, name)
        if area == OTHER and callers:
            # built-ins and unnamed stdlib helpers count for whoever called them (one level up)
            edge_total = sum(edge[2] for edge in callers.values()) or 1.0
            for (cpath, _cline, cname), edge in callers.items():
                carea = _area(cpath, cname)
                areas[carea] = areas.get(carea, 0.0) + tt * edge[2] / edge_total
        else:
            areas[area] = areas.get(area, 0.0) + tt
        label = f"{name} ({_short(path)}:{line})" if path != "~" else name
        rows.append((ct, tt, nc, label, path))
        if name in ("deepcopy", "from_dict", "to_dict", "dumps", "loads", "asdict"):
            key = f"{name} ({path.rsplit('/', 1)[-1]})" if path != "~" else name
            calls_per_move[key] = calls_per_move.get(key, 0) + nc / profiled

    def row(ct, tt, nc, label):
        return {"function": label, "cumulative_share": round(ct / total, 4), "self_share": round(tt / total, 4),
                "calls_per_move": round(nc / profiled, 1)}

    by_self = sorted(rows, key=lambda r: -r[1])[:top]
    service = sorted((r for r in rows if "/service/" in r[4]), key=lambda r: -r[0])[:top]
    return {
        "moves": done,
        "profiled_moves": profiled,
        "cpu_ms_per_move": 1000 * plain_cpu / (done - profiled),
        "cpu_ms_per_move_under_profiler": 1000 * total / profiled,
        "note": ("shares of the CPU self time (time.process_time) of the profiled moves, every other move; "
                 "cpu_ms_per_move is the CPU of this process for the other, unprofiled moves (the request "
                 "through Flask's test client: no gunicorn, no socket to the client)"),
        "areas": {k: round(v / total, 4) for k, v in sorted(areas.items(), key=lambda kv: -kv[1])},
        "top_self": [row(*r[:4]) for r in by_self],
        "top_service_cumulative": [row(*r[:4]) for r in service],
        "calls_per_move": {k: round(v, 1) for k, v in sorted(calls_per_move.items(), key=lambda kv: -kv[1]) if v >= 0.5},
    }


def main(argv: list[str] | None = None) -> int:
    import json

    from service.storage.embedded import start_server

    args = sys.argv[1:] if argv is None else argv
    moves = int(args[0]) if args else 400
    server = start_server()
    try:
        print(json.dumps(profile_moves(server.url, moves), indent=2))
    finally:
        server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Redis round trips, commands and memory per request, counted on a quiet server.

Round trips are counted by :class:`CountingProxy`, a TCP proxy between the app and Valkey: a
round trip is one request/reply exchange on one connection, i.e. each time the client starts
sending after it last received (a pipeline of 3 commands is 1; an EVALSHA is 1; two HMGETs one
after the other are 2). The proxy also reads the RESP commands the client sends (their names in
order). ``INFO commandstats`` deltas give what the *server* executed, including the commands a
Lua script runs inside one EVALSHA.

The apps run in this process (``create_app`` + Flask's test client), one request at a time,
against the same Valkey the load phases use; the counts do not depend on load or timing.
"""

from __future__ import annotations

import secrets
import socket
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import redis

HOST = "127.0.0.1"


class _Link:
    def __init__(self, client: socket.socket, upstream: socket.socket, proxy: CountingProxy) -> None:
        self.client, self.upstream, self.proxy = client, upstream, proxy
        self.last = "server"  # who sent last
        self.buf = b""

    def pump_client(self) -> None:
        try:
            while data := self.client.recv(65536):
                with self.proxy.lock:
                    if self.last != "client":
                        self.proxy.round_trips += 1
                        self.last = "client"
                    self.buf += data
                    self._parse()
                self.upstream.sendall(data)
        except OSError:
            pass
        finally:
            self._close()

    def pump_server(self) -> None:
        try:
            while data := self.upstream.recv(65536):
                with self.proxy.lock:
                    self.last = "server"
                self.client.sendall(data)
        except OSError:
            pass
        finally:
            self._close()

    def _parse(self) -> None:
        """Take whole RESP commands (arrays of bulk strings) off the buffer."""
        while self.buf:
            if not self.buf.startswith(b"*"):  # inline command
                line, sep, rest = self.buf.partition(b"\r\n")
                if not sep:
                    return
                self.proxy.commands.append([w.decode(errors="replace") for w in line.split()])
                self.buf = rest
                continue
            pos = self.buf.find(b"\r\n")
            if pos < 0:
                return
            n, pos, words = int(self.buf[1:pos]), pos + 2, []
            for _ in range(n):
                end = self.buf.find(b"\r\n", pos)
                if end < 0:
                    return
                size = int(self.buf[pos + 1:end])
                if len(self.buf) < end + 2 + size + 2:
                    return
                words.append(self.buf[end + 2:end + 2 + size].decode(errors="replace"))
                pos = end + 2 + size + 2
            self.proxy.commands.append(words)
            self.buf = self.buf[pos:]

    def _close(self) -> None:
        for sock in (self.client, self.upstream):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class CountingProxy:
    """``with CountingProxy(port) as proxy:`` – point the app at ``proxy.url``."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.lock = threading.Lock()
        self.round_trips = 0
        self.commands: list[list[str]] = []
        self._server = socket.socket()
        self._server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._server.bind((HOST, 0))
        self._server.listen(64)
        self.port = self._server.getsockname()[1]
        self._sockets: list[socket.socket] = []
        self._closed = False

    @property
    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.create_connection((HOST, self.upstream_port))
            for sock in (client, upstream):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._sockets += [client, upstream]
            link = _Link(client, upstream, self)
            threading.Thread(target=link.pump_client, daemon=True).start()
            threading.Thread(target=link.pump_server, daemon=True).start()

    def reset(self) -> None:
        with self.lock:
            self.round_trips = 0
            self.commands = []

    def __enter__(self) -> CountingProxy:
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._closed = True
        self._server.close()
        for sock in self._sockets:
            try:
                sock.close()
            except OSError:
                pass


def _commandstats(direct: redis.Redis) -> Counter:
    stats = direct.info("commandstats")
    return Counter({name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()})


class Counter_:
    """Counts one request: ``counter.measure(label, fn)`` runs fn() and records what it cost."""

    def __init__(self, proxy: CountingProxy, direct: redis.Redis, game_keys: Callable[[], set[str]] = set) -> None:
        self.proxy, self.direct = proxy, direct
        self.samples: dict[str, list[dict[str, Any]]] = {}

    def measure(self, label: str, fn: Callable[[], Any]) -> Any:
        before = _commandstats(self.direct)
        self.proxy.reset()
        result = fn()
        with self.proxy.lock:
            round_trips, client_commands = self.proxy.round_trips, list(self.proxy.commands)
        after = _commandstats(self.direct)
        server = after - before
        server.pop("info", None)  # our own INFO
        self.samples.setdefault(label, []).append({
            "round_trips": round_trips,
            "client_commands": [c[0].upper() for c in client_commands if c],
            "server_commands": dict(sorted(server.items())),
            "commands": sum(server.values()),
        })
        return result

    def summary(self) -> dict[str, Any]:
        out = {}
        for label, samples in self.samples.items():
            rts = sorted(s["round_trips"] for s in samples)
            cmds = sorted(s["commands"] for s in samples)
            typical = max(samples, key=lambda s: (sum(1 for t in samples if t["client_commands"] == s["client_commands"]),
                                                   -s["round_trips"]))
            out[label] = {
                "requests": len(samples),
                "round_trips": rts[len(rts) // 2], "round_trips_min": rts[0], "round_trips_max": rts[-1],
                "commands": cmds[len(cmds) // 2], "commands_min": cmds[0], "commands_max": cmds[-1],
                "typical_client_commands": typical["client_commands"],
                "typical_server_commands": typical["server_commands"],
            }
        return out


# --------------------------------------------------------------------------------- the apps

def quiet_service_logs() -> None:
    """The in-process apps log each request as the service does, but to /dev/null, not our stderr."""
    import logging
    import os

    from service.ops.logs import JsonFormatter

    logger = logging.getLogger("service")
    if not any(getattr(h, "_bench_null", False) for h in logger.handlers):
        handler = logging.StreamHandler(open(os.devnull, "w"))
        handler.setFormatter(JsonFormatter())
        handler._bench_null = True
        logger.addHandler(handler)
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.INFO)


def referee_app(redis_url: str, rate_limits: bool = True, latest: bool = True):
    """The referee as the load phases serve it: rate limits on but out of reach (``rate_limits``
    False: off, so the limiter's own round trip is not counted); ``latest`` False: the worker keeps
    no game's latest record (``LATEST_RECORDS=0``), so every move reads its game first, as a move
    does on a worker that neither made nor read the game's last change."""
    from service.web.app import create_app

    from .servers import REFEREE_ENV

    quiet_service_logs()
    timeout = float(REFEREE_ENV["REFEREE_REDIS_TIMEOUT"])
    config: dict[str, Any] = {"REDIS_URL": redis_url, "REDIS_TIMEOUT": timeout}
    if not latest:
        config["LATEST_RECORDS"] = 0
    if not rate_limits:
        return create_app({**config, "RATE_LIMIT_PER_MINUTE": 0, "CREATE_LIMIT_PER_HOUR": 0})
    return create_app({
        **config,
        "RATE_LIMIT_PER_MINUTE": int(REFEREE_ENV["REFEREE_RATE_LIMIT_PER_MINUTE"]),
        "CREATE_LIMIT_PER_HOUR": int(REFEREE_ENV["REFEREE_CREATE_LIMIT_PER_HOUR"]),
    })


def _ok(resp, expect: int = 200) -> Any:
    if resp.status_code != expect:
        raise RuntimeError(f"{resp.request.method} {resp.request.path} -> {resp.status_code}: {resp.get_data(as_text=True)[:300]}")
    return resp.get_json()


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_gops(client, rng, measure: Callable[[str, Callable[[], Any]], Any] = lambda _l, f: f(),
              rounds: int = 13) -> dict[str, Any]:
    """One whole classic game (or its first ``rounds``) through a Flask test client; every
    request through ``measure``."""
    from .http import bid_commitment

    created = _ok(measure("gops_create", lambda: client.post("/v1/gops/games", json={"profile": "classic"})), 201)
    gid, game_id, tokens = created["id"], created["game"]["game_id"], created["seat_tokens"]
    hands = [list(range(1, 14)), list(range(1, 14))]
    for rnd in range(1, rounds + 1):
        bids = [[hands[s].pop(rng.randrange(len(hands[s])))] for s in (0, 1)]
        salts = [secrets.token_hex(32), secrets.token_hex(32)]
        for s in (0, 1):
            body = {"round": rnd, "commitment": bid_commitment(game_id, rnd, s, bids[s], salts[s])}
            _ok(measure("gops_commit", lambda: client.post(f"/v1/gops/games/{gid}/seats/{s}/commit", json=body,
                                                              headers=_auth(tokens[s]))))
        if rnd == 7:
            _ok(measure("gops_public_view", lambda: client.get(f"/v1/gops/games/{gid}")))
            _ok(measure("gops_seat_view", lambda: client.get(f"/v1/gops/games/{gid}/seats/0", headers=_auth(tokens[0]))))
        for s in (0, 1):
            body = {"round": rnd, "cards": bids[s], "salt": salts[s]}
            state = _ok(measure("gops_reveal", lambda: client.post(f"/v1/gops/games/{gid}/seats/{s}/reveal", json=body,
                                                                      headers=_auth(tokens[s]))))
    assert rounds < 13 or state["phase"] == "over", state["phase"]
    return {"id": gid, "tokens": tokens}


def open_gofo(client, measure=lambda _l, f: f()) -> dict[str, Any]:
    from .http import GOFO_TABLE

    created = _ok(measure("gofo_create", lambda: client.post("/v1/gofo/tables", json=GOFO_TABLE)), 201)
    return {"id": created["id"], "tokens": created["seat_tokens"], "state": created["table"]}


def play_gofo_hand(client, table: dict[str, Any], rng, measure=lambda _l, f: f()) -> None:
    """Play the table's current hand to its end with :func:`bench.http.gofo_choice`."""
    from .http import GOFO_MAX_MOVES_PER_HAND, gofo_choice

    tid, tokens, state = table["id"], table["tokens"], table["state"]
    number = state["table"]["hand_number"]
    for _ in range(GOFO_MAX_MOVES_PER_HAND):
        seat = state["hand"]["to_act"]
        view = _ok(measure("gofo_seat_view", lambda: client.get(f"/v1/gofo/tables/{tid}/seats/{seat}",
                                                                headers=_auth(tokens[seat]))))
        kind, body = gofo_choice(view["hand"]["legal_actions"], rng)
        state = _ok(measure("gofo_move", lambda: client.post(f"/v1/gofo/tables/{tid}/seats/{seat}/{kind.replace('_', '-')}",
                                                             json=body, headers=_auth(tokens[seat]))))
        if state["table"]["hand_number"] != number:
            table["state"] = state
            return
    raise RuntimeError(f"gofo hand {number} did not end")


def count_requests(valkey_port: int, rng, games: int = 2, hands: int = 2) -> dict[str, Any]:
    """Round trips and commands per request kind (median over every request of ``games`` Gops
    games and ``hands`` Gofo hands), with the rate limiter on (as served) and off; and the bare
    handler's, which checks the method (it must count 1 round trip and 3 commands)."""
    on = _count(valkey_port, rng, games, hands, rate_limits=True)
    off = _count(valkey_port, rng, 1, 1, rate_limits=False, bare=False)
    # A move on a worker that did not make or read the game's last change: the read, then the save.
    unknown = _count(valkey_port, rng, 1, 1, rate_limits=True, bare=False, latest=False)
    fields = ("round_trips", "commands", "typical_client_commands", "typical_server_commands")
    for label, entry in on.items():
        if label in off:
            entry["without_rate_limit"] = {k: off[label][k] for k in fields}
        if label in unknown:
            entry["without_latest_record"] = {k: unknown[label][k] for k in fields}
    return on


def _count(valkey_port: int, rng, games: int, hands: int, rate_limits: bool, bare: bool = True,
           latest: bool = True) -> dict[str, Any]:
    from .bare import blob_key
    from .bare import create_app as bare_app

    direct = redis.Redis(host=HOST, port=valkey_port)
    with CountingProxy(valkey_port) as proxy:
        app = referee_app(proxy.url, rate_limits, latest)
        client = app.test_client()
        # warm up: connections, script loading (SCRIPT LOAD / NOSCRIPT retries happen once per process)
        play_gops(client, rng, rounds=1)
        table = open_gofo(client)
        play_gofo_hand(client, table, rng)
        _ok(client.get(f"/v1/gofo/tables/{table['id']}"))
        counter = Counter_(proxy, direct)
        for _ in range(games):
            play_gops(client, rng, counter.measure)
        table = open_gofo(client, counter.measure)
        for _ in range(hands):
            play_gofo_hand(client, table, rng, counter.measure)
        counter.measure("gofo_public_view", lambda: _ok(client.get(f"/v1/gofo/tables/{table['id']}")))
        if not bare:
            return counter.summary()

        bare = bare_app(proxy.url).test_client()
        direct.set(blob_key("count"), b"{}")
        for _ in range(3):
            _ok(bare.post("/bare/warm/move", json={"round": 1}))
            counter.measure("bare_post", lambda: _ok(bare.post("/bare/count/move", json={"round": 1, "commitment": "0" * 64})))
            counter.measure("bare_get", lambda: bare.get("/bare/blob/count"))
    direct.close()
    return counter.summary()


# ----------------------------------------------------------------------------------- memory

def _game_keys(direct: redis.Redis, store, kind: str, id: str) -> list[str]:
    """The game's keys, named by the store (``Store.key``/``log_key``), plus any other key
    carrying the same ``{id}`` hash tag the store may have added since."""
    keys = {store.key(kind, id), store.log_key(kind, id)}
    for key in direct.scan_iter(match=f"{store.key(kind, id)}*", count=1000):
        keys.add(key.decode() if isinstance(key, bytes) else key)
    return sorted(k for k in keys if direct.exists(k))


def _usage(direct: redis.Redis, store, kind: str, id: str) -> dict[str, Any]:
    keys = _game_keys(direct, store, kind, id)
    per_key = {k: int(direct.memory_usage(k, samples=0) or 0) for k in keys}
    total = sum(per_key.values())
    return {"bytes": total, "kib": round(total / 1024, 2), "keys": len(keys),
            "key_bytes": {k.replace(id, "<id>"): v for k, v in per_key.items()}}


def measure_memory(valkey_port: int, rng, samples: int = 3, hands: int = 3) -> dict[str, Any]:
    """``MEMORY USAGE`` (SAMPLES 0: every element) summed over a game's keys; medians over ``samples``."""
    direct = redis.Redis(host=HOST, port=valkey_port)
    app = referee_app(f"redis://{HOST}:{valkey_port}/0")
    store = app.extensions["referee_store"]
    client = app.test_client()

    def median(results):
        results = sorted(results, key=lambda r: r["bytes"])
        return results[len(results) // 2]

    games = [_usage(direct, store, "gops", play_gops(client, rng)["id"]) for _ in range(samples)]
    idle, one, many = [], [], []
    for _ in range(samples):
        table = open_gofo(client)
        idle.append(_usage(direct, store, "gofo", table["id"]))
        play_gofo_hand(client, table, rng)
        one.append(_usage(direct, store, "gofo", table["id"]))
        for _ in range(hands - 1):
            play_gofo_hand(client, table, rng)
        many.append(_usage(direct, store, "gofo", table["id"]))
    idle_m, one_m, many_m = median(idle), median(one), median(many)
    per_hand = [(m["bytes"] - i["bytes"]) / hands for i, m in zip(idle, many)]
    per_hand.sort()
    direct.close()
    return {
        "gops_finished_game": median(games),
        "gofo_idle_table": idle_m,
        "gofo_table_after_1_hand": one_m,
        f"gofo_table_after_{hands}_hands": many_m,
        "gofo_per_hand": {"bytes": round(per_hand[len(per_hand) // 2]), "kib": round(per_hand[len(per_hand) // 2] / 1024, 2),
                          "how": f"(table after {hands} hands - idle table) / {hands}"},
    }

"""Engine-only random playouts: the rules engines called directly, no HTTP, no Redis.

* Gops (service/games/gops/): 2-player classic games of 13 ranks; the prize order is shuffled
  (chance), each seat commits to a random card from its hand (``legal_actions``) and reveals it.
  The commitments are real SHA-256 hashes, as the engine checks them (:func:`gops_playout`; the
  headline figure, ``gops_vs_openspiel``).
* The Gops *rules* alone (:func:`gops_rules_playout`, ``gops_rules_vs_openspiel``): the same games
  with plain simultaneous bids through :meth:`service.games.gops.Gops.play_bids` (the same resolution
  code, no commit–reveal): the simulated playouts strategy bots need, i.e. OpenSpiel's workload.
* The crypto floor (:func:`crypto_floor_playout`): only the hashing a protocol game cannot do
  without — per bid a salt and the client's SHA-256 commitment, the referee's SHA-256 check of
  the reveal; per game the prize order's salt and commitment — no engine at all.
* OpenSpiel's goofspiel, ``pyspiel.load_game("goofspiel", {"num_cards": 13, "players": 2})``:
  random prize order (chance nodes), random simultaneous bids from ``legal_actions``. The
  ``open-spiel`` wheel is installed into this interpreter on first use if it is missing.
* Gofo (service/gofo): dealt 5-seat hands with the HTTP clients' policy
  (:func:`bench.http.gofo_choice`) over the engine's ``legal_actions``; chance through
  ``chance_action`` with a seeded ``random.Random``.
"""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

OPENSPIEL_REQUIREMENT = "open-spiel>=2.0,<3"  # the `bench` extra in pyproject.toml says the same


def ensure_pyspiel():
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        pass
    print(f"bench: installing {OPENSPIEL_REQUIREMENT} into {sys.prefix} ...", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q",
                    OPENSPIEL_REQUIREMENT], check=True)
    importlib.invalidate_caches()
    return importlib.import_module("pyspiel")


def gops_playout(rng: random.Random) -> int:
    """One game through the commit–reveal protocol, as a client plays it; returns the number of
    actions applied (chance included).

    Each round the seats the phase awaits are asked once; each reads its hand and round from its
    ``legal_actions``, commits to a random card with a fresh salt (a real SHA-256 commitment), and
    once all have committed each reveals.
    """
    from service.games import gops
    from service.games.commitments import bid_commitment

    state = gops.Gops.new("bench", gops.make_rules("classic"))
    game_id = state.current_game_id()
    actions = 0
    while not state.over:
        if state.needs_chance:
            order = list(range(1, state.rules.ranks + 1))
            rng.shuffle(order)
            state.apply(gops.DealPrizes(tuple(order), f"{rng.getrandbits(256):064x}"))
            actions += 1
            continue
        reveals = []
        for seat in state.awaiting():
            legal = state.legal_actions(seat)[0]
            if legal["type"] != "commit":
                raise RuntimeError(f"unexpected Gops action {legal}")
            card = (rng.choice(legal["hand"]),)
            salt = f"{rng.getrandbits(256):064x}"
            round_ = legal["round"]
            reveals.append(gops.Reveal(seat, round_, card, salt))
            state.apply(gops.Commit(seat, round_, bid_commitment(game_id, round_, seat, card, salt)))
            actions += 1
        for reveal in reveals:  # every seat that committed: the phase awaits exactly these
            state.apply(reveal)
            actions += 1
    return actions


_ZERO_SALT = "0" * 64


def gops_rules_playout(rng: random.Random) -> int:
    """One game of the rules alone: the prize order shuffled (chance, ``DealPrizes``), then each
    round the seats' random cards as plain simultaneous bids (:meth:`Gops.play_bids`, no
    commitments).  Nothing is hidden in a simulation, so the deal's salt is a constant."""
    from service.games import gops

    state = gops.Gops.new("bench", gops.make_rules("classic"))
    order = list(range(1, state.rules.ranks + 1))
    rng.shuffle(order)
    state.apply(gops.DealPrizes(tuple(order), _ZERO_SALT))
    hands = state.game.hands
    actions = 1
    choice = rng.choice
    while not state.over:
        state.play_bids({seat: (choice(hands[seat]),) for seat in state.awaiting()})
        actions += 1
    return actions


def crypto_floor_playout(rng: random.Random) -> int:
    """The hashing one 13-round 2-player protocol game cannot do without, and nothing else: the
    prize order's salt and commitment; per bid a fresh salt, the client's SHA-256 commitment and
    the referee's SHA-256 check of the reveal (same messages as the protocol's)."""
    import hashlib
    import hmac

    order = list(range(1, 14))
    rng.shuffle(order)
    salt = f"{rng.getrandbits(256):064x}"
    hashlib.sha256(f"gops-prizes-v1|bench|{','.join(map(str, order))}|{salt}".encode()).hexdigest()
    hashes = 1
    for round_ in range(1, 14):
        for seat in (0, 1):
            card = order[round_ - 1]
            salt = f"{rng.getrandbits(256):064x}"
            message = f"gops-bid-v1|bench|{round_}|{seat}|{card}|{salt}".encode()
            commitment = hashlib.sha256(message).hexdigest()
            if not hmac.compare_digest(hashlib.sha256(message).hexdigest(), commitment):
                raise AssertionError
            hashes += 2
    return hashes


def openspiel_playout(rng: random.Random, game) -> int:
    state = game.new_initial_state()
    actions = 0
    players = game.num_players()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        elif state.is_simultaneous_node():
            state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(players)])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
        actions += 1
    return actions


def gofo_playout(rng: random.Random) -> int:
    """One dealt 5-seat hand at a new table (the dealer draw included)."""
    from service.games.gofo.actions import action_from_dict
    from service.games.gofo.chance import chance_action
    from service.games.gofo.table import Table

    from .http import GOFO_MAX_MOVES_PER_HAND, GOFO_TABLE, gofo_choice

    table = Table.new(dict(GOFO_TABLE))
    actions = 0

    while table.hand_number < 2:
        request = table.chance_request()
        if request is not None:
            table.apply(chance_action(request, rng))
        else:
            seat = table.to_act()
            kind, body = gofo_choice([a.to_dict() for a in table.legal_actions(seat)], rng)
            table.apply(action_from_dict({"type": kind, **body}), seat=seat)
        actions += 1
        if actions > GOFO_MAX_MOVES_PER_HAND:
            raise RuntimeError("gofo hand did not end")
    return actions


def rate(playout: Callable[[random.Random], int], seconds: float, seed: int) -> dict[str, Any]:
    """Playouts for ``seconds`` (at least one); rates per CPU second of this process."""
    rng = random.Random(seed)
    n = actions = 0
    t0, c0 = time.perf_counter(), time.process_time()
    while True:
        actions += playout(rng)
        n += 1
        if time.perf_counter() - t0 >= seconds:
            break
    cpu = time.process_time() - c0
    wall = time.perf_counter() - t0
    return {"playouts": n, "actions": actions, "cpu_s": cpu, "wall_s": wall,
            "playouts_per_cpu_s": n / cpu if cpu else float("nan"),
            "actions_per_cpu_s": actions / cpu if cpu else float("nan")}


def run(rounds: int, seconds: float) -> dict[str, Any]:
    """Interleaved A B A B: Gops engine, OpenSpiel goofspiel, Gofo engine, ``rounds`` times."""
    pyspiel = ensure_pyspiel()
    goofspiel = pyspiel.load_game("goofspiel", {"num_cards": 13, "players": 2})
    runs: dict[str, list[dict[str, Any]]] = {"gops": [], "openspiel_goofspiel": [], "gops_rules": [],
                                             "crypto_floor": [], "gofo": []}
    gops_playout(random.Random(0)), gofo_playout(random.Random(0)), openspiel_playout(random.Random(0), goofspiel)
    gops_rules_playout(random.Random(0)), crypto_floor_playout(random.Random(0))
    for r in range(rounds):
        runs["gops"].append(rate(gops_playout, seconds, seed=r))
        runs["openspiel_goofspiel"].append(rate(lambda rng: openspiel_playout(rng, goofspiel), seconds, seed=r))
        runs["gops_rules"].append(rate(gops_rules_playout, seconds, seed=r))
        runs["crypto_floor"].append(rate(crypto_floor_playout, seconds / 2, seed=r))
        runs["gofo"].append(rate(gofo_playout, seconds, seed=r))
    ratios = [g["playouts_per_cpu_s"] / o["playouts_per_cpu_s"] for g, o in zip(runs["gops"], runs["openspiel_goofspiel"])]
    rules_ratios = [g["playouts_per_cpu_s"] / o["playouts_per_cpu_s"]
                    for g, o in zip(runs["gops_rules"], runs["openspiel_goofspiel"])]
    floor_ratios = [f["playouts_per_cpu_s"] / o["playouts_per_cpu_s"]
                    for f, o in zip(runs["crypto_floor"], runs["openspiel_goofspiel"])]
    gofo_vs = [g["actions_per_cpu_s"] / o["actions_per_cpu_s"] for g, o in zip(runs["gofo"], runs["openspiel_goofspiel"])]

    def med(xs):
        xs = sorted(xs)
        return xs[len(xs) // 2]

    return {
        "gops_vs_openspiel": {
            "ratio": med(ratios), "ratios": ratios,
            "gops_games_per_cpu_s": med([g["playouts_per_cpu_s"] for g in runs["gops"]]),
            "openspiel_games_per_cpu_s": med([o["playouts_per_cpu_s"] for o in runs["openspiel_goofspiel"]]),
            "openspiel_version": getattr(pyspiel, "__version__", None) or _dist_version("open-spiel"),
        },
        "gops_rules_vs_openspiel": {
            "ratio": med(rules_ratios), "ratios": rules_ratios,
            "gops_games_per_cpu_s": med([g["playouts_per_cpu_s"] for g in runs["gops_rules"]]),
            "note": "the rules alone: plain simultaneous bids (Gops.play_bids), no commit-reveal; "
                    "OpenSpiel's workload (simulated playouts for bots)",
        },
        "crypto_floor": {
            "us_per_game": med([1e6 / f["playouts_per_cpu_s"] for f in runs["crypto_floor"]]),
            "games_per_cpu_s": med([f["playouts_per_cpu_s"] for f in runs["crypto_floor"]]),
            "vs_openspiel": med(floor_ratios), "ratios": floor_ratios,
            "note": "per protocol game: 27 salts and 53 SHA-256 (the prize order's commitment, 26 "
                    "commitments, 26 reveal checks) and nothing else; the ceiling of gops_vs_openspiel",
        },
        "gofo": {
            "hands_per_cpu_s": med([g["playouts_per_cpu_s"] for g in runs["gofo"]]),
            "actions_per_hand": med([g["actions"] / g["playouts"] for g in runs["gofo"]]),
            "actions_vs_openspiel_actions": med(gofo_vs),
            "note": "actions/s of the Gofo engine / actions/s of goofspiel (no OpenSpiel Gofo exists): a yardstick, not a target",
        },
        "runs": runs,
    }


def _dist_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None

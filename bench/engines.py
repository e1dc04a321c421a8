"""Engine-only random playouts: the rules engines called directly, no HTTP, no Redis.

* Gops (service/gops/): 2-player classic games of 13 ranks; the prize order is shuffled
  (chance), each seat commits to a random card from its hand (``legal_actions``) and reveals it.
  The commitments are real SHA-256 hashes, as the engine checks them.
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
    """One game; returns the number of actions applied (chance included)."""
    from service import gops
    from service.commitments import bid_commitment

    state = gops.Gops.new("bench", gops.make_rules("classic"))
    actions = 0
    while not state.over:
        if state.needs_chance:
            order = list(range(1, state.rules.ranks + 1))
            rng.shuffle(order)
            state.apply(gops.DealPrizes(tuple(order), f"{rng.getrandbits(256):064x}"))
            actions += 1
            continue
        bids: dict[int, tuple[tuple[int, ...], str, int]] = {}
        for seat in state.awaiting():
            legal = state.legal_actions(seat)[0]
            if legal["type"] != "commit":
                raise RuntimeError(f"unexpected Gops action {legal}")
            card = (rng.choice(legal["hand"]),)
            salt = f"{rng.getrandbits(256):064x}"
            bids[seat] = (card, salt, legal["round"])
            state.apply(gops.Commit(seat, legal["round"], bid_commitment(state.current_game_id(), legal["round"], seat, card, salt)))
            actions += 1
        for seat in state.awaiting():
            card, salt, round_ = bids[seat]
            state.apply(gops.Reveal(seat, round_, card, salt))
            actions += 1
    return actions


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
    from service.gofo import table as T

    from .http import GOFO_MAX_MOVES_PER_HAND, GOFO_TABLE, gofo_choice

    table = T.Table.new(dict(GOFO_TABLE))
    actions = 0

    def next_table(result):  # (new table, events) today; an engine applying in place may return events only
        return result[0] if isinstance(result, tuple) and isinstance(result[0], T.Table) else table

    while table.hand_number < 2:
        request = table.chance_request()
        if request is not None:
            table = next_table(table.apply(None, T.chance_action(request, rng)))
        else:
            seat = table.to_act()
            kind, body = gofo_choice([a.to_dict() if hasattr(a, "to_dict") else a for a in table.legal_actions(seat)], rng)
            table = next_table(table.apply_dict(seat, {"type": kind, **body}))
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
    runs: dict[str, list[dict[str, Any]]] = {"gops": [], "openspiel_goofspiel": [], "gofo": []}
    gops_playout(random.Random(0)), gofo_playout(random.Random(0)), openspiel_playout(random.Random(0), goofspiel)
    for r in range(rounds):
        runs["gops"].append(rate(gops_playout, seconds, seed=r))
        runs["openspiel_goofspiel"].append(rate(lambda rng: openspiel_playout(rng, goofspiel), seconds, seed=r))
        runs["gofo"].append(rate(gofo_playout, seconds, seed=r))
    ratios = [g["playouts_per_cpu_s"] / o["playouts_per_cpu_s"] for g, o in zip(runs["gops"], runs["openspiel_goofspiel"])]
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

"""``python -m bench.bots_gops [--games N] [--skip-exploitability]`` – how strong the Gops bots are.

Engine only, no server. Writes ``bench/results/bots_gops.json`` (``--out`` to change):

* **exploitability** of level 8 over whole two-seat games, prizes shuffled, of 6, 7 and 8 cards
  under ``standard`` (a tie sets the prize aside) and of 4, 5 and 6 under ``classic`` (a tie carries it): the points a
  best responder gains per game against level 8's mix beyond the game's value (0: both seats hold
  the same cards, so the game is worth nothing to either). The best response is this file's own
  recursion over the public tree (every prize turned up, every bid pair), asking the bot for its
  mix in each position from a seat view, and scoring rounds itself; it shares no code with the
  solver.
* **head to head** at 13 cards (``standard``, prizes shuffled), ``--games`` games a pairing (default
  2000): each level against the one below, against a uniformly random seat and against "bid the
  prize's rank"; level 8 against every lower level and every fixed rule of :data:`RULES`. Games come in pairs with the same prize order and the seats swapped; the mean
  point difference (the level's points minus its opponent's) a game, with a 95 % interval from
  the pairs' spread.
* **solver time**: CPU time of a level-8 decision by cards left.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import re
import statistics
import time
from pathlib import Path

from service.games import gops as G
from service.games.gops import bot

RESULTS = Path(__file__).resolve().parent / "results"
SALT = "5a" * 32


# ---------------------------------------------------------------- exploitability


def _seat_view(rules: dict, hand, rival, rest, prize, pot) -> dict:
    """Seat 0's view in the commit phase of a two-seat, one-card game (the keys a seat view has that
    a bot reads): ``prize`` up, ``rest`` still face down, ``pot`` carried."""
    turned = [r for r in range(1, rules["ranks"] + 1) if r not in rest]
    return {"rules": rules, "seat": 0, "phase": "commit", "hands": [list(hand), list(rival)], "row": [prize],
            "turned": turned, "carry": [pot] if pot else [], "carried_rounds": 0, "forfeited": {},
            "legal_actions": [{"type": "commit", "round": rules["ranks"] - len(hand) + 1, "cards": 1,
                               "hand": list(hand)}]}


def _sign(a: int, b: int) -> int:
    return (a > b) - (a < b)


def exploitability(cards: int, profile: str) -> dict:
    """How much a best responder wins per game against level 8 in the whole game of ``cards`` cards."""
    rules = G.make_rules(profile, ranks=cards).to_dict()
    carryover = profile == "classic"
    positions = 0

    @functools.cache
    def before_prize(hand, rival, left, pot) -> float:
        """Level 8's points minus the responder's from here, before the next prize is turned up."""
        if not hand:
            return 0.0
        return sum(decide(hand, rival, tuple(x for x in left if x != p), p, pot) for p in left) / len(left)

    def decide(hand, rival, rest, prize, pot) -> float:
        nonlocal positions
        positions += 1
        mix = dict(bot.policy(_seat_view(rules, hand, rival, rest, prize, pot), 8))
        last = len(hand) == 1
        stake = prize + pot
        answers = []
        for b in rival:
            outcome = 0.0
            for (a,), weight in mix.items():
                s = _sign(a, b)
                next_pot = stake if (s == 0 and carryover and not last) else 0
                outcome += weight * (s * stake + before_prize(tuple(x for x in hand if x != a),
                                                              tuple(x for x in rival if x != b), rest, next_pot))
            answers.append(outcome)
        return min(answers)

    # the synthetic view is the engine's: level 8 mixes alike on both at the start of a real game
    state = G.Gops.new("x1", G.make_rules(profile, ranks=cards))
    state.apply(G.DealPrizes(tuple(range(cards, 0, -1)), SALT))
    real = G.view(state, 0)
    assert bot.policy(real, 8) == bot.policy(
        _seat_view(rules, tuple(range(1, cards + 1)), tuple(range(1, cards + 1)), tuple(range(1, cards)), cards, 0), 8)

    started = time.perf_counter()
    hand = tuple(range(1, cards + 1))
    value = before_prize(hand, hand, hand, 0)
    return {"cards": cards, "profile": profile, "game_value": 0.0, "best_response_gain": -value,
            "positions": positions, "seconds": round(time.perf_counter() - started, 1)}


# ---------------------------------------------------------------- head to head


def _rank_bidder(view: dict, rng: random.Random) -> tuple[int, ...]:
    """Bid the card equal to the prize's rank (always in hand in a standard two-seat game)."""
    return (view["row"][0],)


def _random_bidder(view: dict, rng: random.Random) -> tuple[int, ...]:
    hand = next(a for a in view["legal_actions"] if a["type"] == "commit")["hand"]
    return (rng.choice(hand),)


def _hand(view: dict) -> list[int]:
    return sorted(next(a for a in view["legal_actions"] if a["type"] == "commit")["hand"])


def _shifted_bidder(shift: int):
    """Bid the prize's rank plus ``shift``, or the nearest card in hand (above it first)."""
    def decide(view: dict, rng: random.Random) -> tuple[int, ...]:
        hand, target = _hand(view), view["row"][0] + shift
        return (min(hand, key=lambda c: (abs(c - target), c < target)),)
    return decide


def _highest_bidder(view: dict, rng: random.Random) -> tuple[int, ...]:
    return (_hand(view)[-1],)


def _lowest_bidder(view: dict, rng: random.Random) -> tuple[int, ...]:
    return (_hand(view)[0],)


def _same_rank_of_rank_bidder(view: dict, rng: random.Random) -> tuple[int, ...]:
    """Bid the card whose place in the hand is the prize's place among the prizes left."""
    hand = _hand(view)
    left = sorted([view["row"][0]] + [r for r in range(1, 14) if r not in view["turned"]])
    return (hand[left.index(view["row"][0])],)


def _hint_follower(view: dict, rng: random.Random) -> tuple[int, ...]:
    """Bid the card level 8 bids most often (what a player reading the hint's top bid does)."""
    return max(bot.policy(view, 8), key=lambda bid_p: bid_p[1])[0]


#: The fixed rules level 8 meets at 13 cards, beside the levels.
RULES = {
    "random": _random_bidder,
    "prize's rank": _rank_bidder,
    "prize's rank + 1": _shifted_bidder(1),
    "prize's rank - 1": _shifted_bidder(-1),
    "prize's rank + 2": _shifted_bidder(2),
    "the same place in the hand": _same_rank_of_rank_bidder,
    "highest card": _highest_bidder,
    "lowest card": _lowest_bidder,
    "level 8's most likely bid": _hint_follower,
}


def _level(level: int):
    def decide(view: dict, rng: random.Random) -> tuple[int, ...]:
        return bot.bid(view, level, rng)
    return decide


def play_game(players, order, rng: random.Random, game_id: str) -> int:
    """One 13-card standard game between two deciders; seat 0's points minus seat 1's."""
    state = G.Gops.new(game_id, G.make_rules("standard"))
    state.apply(G.DealPrizes(tuple(order), SALT))
    while not state.over:
        state.play_bids({seat: players[seat](G.view(state, seat), rng) for seat in (0, 1)})
    scores = state.game.scores
    return int(scores[0] - scores[1])


def head_to_head(name: str, first, second, games: int, seed: int) -> dict:
    """``games`` games (pairs with one prize order, the seats swapped): ``first``'s point difference."""
    rng = random.Random(seed)
    pairs = []
    started = time.perf_counter()
    for k in range(max(1, games // 2)):
        order = list(range(1, 14))
        rng.shuffle(order)
        a = play_game((first, second), order, rng, f"h{k}a")
        b = -play_game((second, first), order, rng, f"h{k}b")
        pairs.append((a + b) / 2)
    mean = statistics.fmean(pairs)
    half = 1.96 * statistics.stdev(pairs) / math.sqrt(len(pairs)) if len(pairs) > 1 else float("nan")
    return {"pairing": name, "games": 2 * len(pairs), "mean_point_difference": round(mean, 3),
            "ci95": [round(mean - half, 3), round(mean + half, 3)], "seconds": round(time.perf_counter() - started, 1)}


def pairings(games: int, only: str | None = None):
    """Every pairing's result, one after the other: the ladder, every level against random and
    "the prize's rank", and level 8 against every level and every fixed rule."""
    planned = [(f"level {level} vs level {level - 1}", _level(level), _level(level - 1), level) for level in range(2, 9)]
    planned += [(f"level {level} vs random", _level(level), _random_bidder, 100 + level) for level in range(1, 9)]
    planned += [(f"level {level} vs prize's rank", _level(level), _rank_bidder, 200 + level) for level in range(1, 9)]
    planned += [(f"level 8 vs level {level}", _level(8), _level(level), 300 + level) for level in range(1, 7)]
    planned += [(f"level 8 vs {name}", _level(8), rule, 400 + k) for k, (name, rule) in enumerate(RULES.items())
                if name not in ("random", "prize's rank")]
    for name, first, second, seed in planned:
        if only is None or re.search(only, name):
            yield head_to_head(name, first, second, games, seed)


# ---------------------------------------------------------------- solver time


def solver_times(samples: int = 20) -> list[dict]:
    """CPU time of one level-8 decision by cards left (open prize, random hands and prizes), the
    shipped values already mapped (as a worker maps them at its start): median and largest."""
    from service.games.gops import solver, values

    values.table(), values.estimates()
    rng = random.Random(2026)
    out = []
    for n in range(1, 14):
        spent = []
        for _ in range(samples):
            hand, rival = sorted(rng.sample(range(1, 14), n)), sorted(rng.sample(range(1, 14), n))
            prizes = rng.sample(range(1, 14), n)
            solver.clear_memo()
            started = time.process_time()
            decision = solver.solve(solver.Position(tuple(hand), tuple(rival), tuple(prizes[1:]), prizes[0]))
            spent.append(time.process_time() - started)
        out.append({"cards_left": n, "exact": decision.exact, "cpu_median_ms": round(statistics.median(spent) * 1e3, 2),
                    "cpu_max_ms": round(max(spent) * 1e3, 2)})
    return out


def _cell(row: dict | None) -> str:
    if row is None:
        return "—"
    low, high = row["ci95"]
    return f"{row['mean_point_difference']:+.1f} [{low:+.1f}, {high:+.1f}]"


def tables(report: dict) -> str:
    """docs/bots.md's Gops tables, from a report this bench wrote (``--table``)."""
    rows = {row["pairing"]: row for row in report.get("head_to_head", [])}
    out = ["| level | what it does | against the level below | against random | against \"bid the prize's rank\" |",
           "|---|---|---|---|---|"]
    for spec in report["levels"]:
        n = spec["level"]
        out.append(f"| {n} | {spec['summary']} | {_cell(rows.get(f'level {n} vs level {n - 1}'))} | "
                   f"{_cell(rows.get(f'level {n} vs random'))} | {_cell(rows.get(f'level {n} vs prize' + chr(39) + 's rank'))} |")
    out += ["", "| level 8 against | points a game, 95 % |", "|---|---|"]
    for name, row in rows.items():
        if name.startswith("level 8 vs "):
            out.append(f"| {name[len('level 8 vs '):]} | {_cell(row)} |")
    if "exploitability" in report:
        out += ["", "| cards | rules | a best responder's gain a game |", "|---|---|---|"]
        out += [f"| {row['cards']} | `{row['profile']}` | {row['best_response_gain']:.4f} |" for row in report["exploitability"]]
    out += ["", "| cards left | exact | CPU median ms | CPU max ms |", "|---|---|---|---|"]
    out += [f"| {row['cards_left']} | {'yes' if row['exact'] else 'no'} | {row.get('cpu_median_ms', '')} | "
            f"{row.get('cpu_max_ms', '')} |" for row in report.get("solver_times", [])]
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games a pairing (default 2000)")
    parser.add_argument("--skip-exploitability", action="store_true")
    parser.add_argument("--skip-head-to-head", action="store_true")
    parser.add_argument("--only", metavar="REGEX", help="play only the pairings whose name matches")
    parser.add_argument("--table", nargs="+", type=Path, metavar="REPORT",
                        help="print docs/bots.md's tables from reports this bench wrote, and stop")
    parser.add_argument("--out", type=Path, default=RESULTS / "bots_gops.json")
    args = parser.parse_args()
    if args.table:
        merged: dict = {"head_to_head": []}
        for path in args.table:
            report = json.loads(path.read_text())
            merged["head_to_head"] += report.pop("head_to_head", [])
            merged.update(report)
        print(tables(merged))
        return
    report: dict = {"games_per_pairing": args.games, "levels": [vars(spec) for spec in bot.LEVELS]}
    if not args.skip_exploitability:
        report["exploitability"] = []
        for profile in ("standard", "classic"):
            for cards in ((6, 7, 8) if profile == "standard" else (4, 5, 6)):
                row = exploitability(cards, profile)
                print(json.dumps(row), flush=True)
                report["exploitability"].append(row)
    report["solver_times"] = solver_times()
    for row in report["solver_times"]:
        print(json.dumps(row), flush=True)
    if not args.skip_head_to_head:
        report["head_to_head"] = []
        for row in pairings(args.games, args.only):
            print(json.dumps(row), flush=True)
            report["head_to_head"].append(row)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

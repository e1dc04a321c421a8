"""``python -m bench.bots_gofo [--deals N] [--jobs 2] [--seats 4] [--front 30] [--levels 1 2 …] [--fields …]`` – how strong each Gofo bot level is.

Engine only (no service, no store): one hand at a time on :class:`service.games.gofo.hand.HandState`,
every seat starting with ``--front`` chips, the dealer at seat 0.  Two kinds of seat share a table,
alternating (A, B, A, B…): a bot level against the next lower level measured (``--levels``), and each level against a seat
that always calls (enters seen, answers every bet with ver, never raises or cuts, opens the
minimum, keeps its best suit at a discard).

**Duplicate deals.**  Each deal (a deck order, and the orders of any reshuffles, all from the
deal's seed) is played once per rotation of the seats, so every seat position holds every card
for both sides; a deal's figure is side A's mean chips won per seat per hand over its rotations.
The figure reported is the mean over deals with a 95 % interval (1.96 standard errors); Gofo is
zero-sum, so side B's is its negation.  The bots decide from the seat's view
(:func:`service.games.gofo.observer.hand_view`) and their own seeded ``random.Random``.

**Fields** (``--fields caller folder tight loose-aggressive maniac 2 3 … 7``): one seat of level
``--hero`` (default 8) at a table of ``--field-seats`` (default 5) whose other seats all play one
field (:mod:`bench.gofo_fields`, or a bot level); each deal is played once with the hero in each seat,
and again with a caller in the hero's place (same deals, same field seeds).  Reported per field:
the hero's chips per hand, the caller's, and the hero's minus the caller's (paired by deal), each
with a 95 % interval over deals.  Writes ``bench/results/bots_gofo_fields.json``.

``--jobs N`` plays the deals in N processes: each deal's figures come from its own seeds alone, so
the results are the same for any N (only the time taken changes).

Also the CPU time of one bot decision (:func:`service.games.gofo.bot.act`, the thread's CPU clock),
median and p99 by level, over every decision made in the run; with ``--hints``, of the hint too
(:func:`service.games.gofo.hint.hint` on every level-8 seat's view where it decides; row ``hint``).  Writes ``bench/results/bots_gofo.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

from service.errors import IllegalAction
from service.games.gofo import bot, hint, observer
from bench.gofo_fields import FIELDS, caller
from service.games.gofo.actions import Action
from service.games.gofo.cards import DECK
from service.games.gofo.chance import chance_action
from service.games.gofo.hand import HandState, Shuffle

RESULTS = Path(__file__).resolve().parent / "results"
Policy = Callable[[dict[str, Any], random.Random], Action]
TIMES: dict[str, list[float]] = {}


#: ``--hints``: also time the seat's hint (:func:`service.games.gofo.hint.hint`) wherever a level-8
#: seat decides and a hint is given, as ``"hint"`` in :data:`TIMES` (its own seeded samples: the play
#: does not change).
HINTS = False


def level_policy(level: int) -> Policy:
    def decide(view: dict[str, Any], rng: random.Random) -> Action:
        start = time.thread_time()  # CPU time: what the decision costs, whatever else the machine runs
        action = bot.act(view, level, rng)
        TIMES.setdefault(str(level), []).append(time.thread_time() - start)
        if HINTS and level == max(bot.LEVELS):
            _time_hint(view)
        return action
    return decide


def _time_hint(view: dict[str, Any]) -> None:
    start = time.thread_time()
    try:
        hint.hint(view)
    except IllegalAction:
        return  # no hint here (a look, a canto)
    TIMES.setdefault("hint", []).append(time.thread_time() - start)


def play_hand(seed: int, policies: list[Policy], front: int, rngs: list[random.Random]) -> list[int]:
    """One hand dealt from ``seed``; each seat's net chips."""
    n = len(policies)
    hand = HandState.new("dealt", 0, [front] * n)
    hand.apply(Shuffle(tuple(random.Random(seed).sample(DECK, len(DECK)))))
    reshuffles = 0
    while not hand.is_over():
        seat = hand.to_act()
        if seat is None:
            reshuffles += 1
            hand.apply(chance_action(hand.chance_request(), random.Random(seed * 100 + reshuffles)))
            continue
        view = {"hand": observer.hand_view(hand, seat), "table": {}}
        hand.apply(policies[seat](view, rngs[seat]), seat=seat)
    return list(hand.result.net)


def _interval(figures: list[float]) -> dict[str, Any]:
    mean = statistics.fmean(figures)
    half = 1.96 * statistics.stdev(figures) / math.sqrt(len(figures)) if len(figures) > 1 else float("nan")
    return {"chips_per_hand": round(mean, 3), "ci95": [round(mean - half, 3), round(mean + half, 3)]}


def field_policy(name: str) -> Policy:
    """A field by name (:data:`bench.gofo_fields.FIELDS`) or a bot level ("2" … "8")."""
    return level_policy(int(name)) if name.isdigit() else FIELDS[name]


def _field_deal(task: tuple[str, str, int, int, int, int]) -> tuple[float, float, dict[str, list[float]]]:
    """One duplicate deal of :func:`in_field`: the hero's and the caller's chips a hand over the
    seat rotations, and the decisions' CPU times.  Everything random comes from the deal's seeds, so
    the figures do not depend on which process plays the deal, or when."""
    hero_name, field_name, deal, seats, front, seed = task
    TIMES.clear()
    hero, field = field_policy(hero_name), field_policy(field_name)
    totals = []
    for seat_policy in (hero, caller):
        total = 0.0
        for seat in range(seats):
            policies = [seat_policy if s == seat else field for s in range(seats)]
            rngs = [random.Random(seed * 7919 + deal * 31 + s) for s in range(seats)]
            total += play_hand(seed * 100_003 + deal, policies, front, rngs)[seat]
        totals.append(total / seats)
    return totals[0], totals[1], {level: list(t) for level, t in TIMES.items()}


def _duplicate_deal(task: tuple[str, str, int, int, int, int]) -> tuple[float, dict[str, list[float]]]:
    """One duplicate deal of :func:`duplicate`: side A's chips per seat per hand over the rotations."""
    a_name, b_name, deal, seats, front, seed = task
    TIMES.clear()
    a, b = field_policy(a_name), field_policy(b_name)
    total = 0.0
    for shift in range(seats):
        policies = [a if (s + shift) % 2 == 0 else b for s in range(seats)]
        rngs = [random.Random(seed * 7919 + deal * 31 + s) for s in range(seats)]
        net = play_hand(seed * 100_003 + deal, policies, front, rngs)
        mine = [net[s] for s in range(seats) if (s + shift) % 2 == 0]
        total += sum(mine) / len(mine)
    return total / seats, {level: list(t) for level, t in TIMES.items()}


#: Processes the deals are spread over (``--jobs``); 1 plays them here.
JOBS = 1


def _run(work: Callable[[Any], Any], tasks: list[Any]) -> list[Any]:
    """``work`` over ``tasks``, in :data:`JOBS` processes, the answers in the tasks' order; each
    answer's decision times (its last item) are added to :data:`TIMES` here."""
    if JOBS > 1:
        with multiprocessing.get_context("fork").Pool(JOBS) as pool:
            answers = pool.map(work, tasks, chunksize=max(1, len(tasks) // (8 * JOBS)))
    else:
        kept = {level: list(t) for level, t in TIMES.items()}
        answers = [work(task) for task in tasks]  # each clears TIMES: put back what came before
        TIMES.clear()
        TIMES.update(kept)
    for answer in answers:
        for level, times in answer[-1].items():
            TIMES.setdefault(level, []).extend(times)
    return answers


def in_field(hero: str, field: str, deals: int, seats: int, front: int, seed: int) -> dict[str, Any]:
    """One ``hero`` seat (a level, "8") against ``seats - 1`` seats of ``field`` (:func:`field_policy`),
    and a caller in its place, over ``deals`` duplicate deals (each deal once with the hero in every seat)."""
    answers = _run(_field_deal, [(hero, field, deal, seats, front, seed) for deal in range(deals)])
    mine = [a[0] for a in answers]
    called = [a[1] for a in answers]
    edge = [a[0] - a[1] for a in answers]
    return {"hero": _interval(mine), "caller": _interval(called), "hero_minus_caller": _interval(edge),
            "deals": deals, "hands": deals * seats}


def duplicate(a: str, b: str, deals: int, seats: int, front: int, seed: int) -> dict[str, Any]:
    """Side A's chips per seat per hand against side B (each a level or a field's name), over
    ``deals`` duplicate deals."""
    figures = [answer[0] for answer in _run(_duplicate_deal, [(a, b, deal, seats, front, seed) for deal in range(deals)])]
    return {**_interval(figures), "deals": deals, "hands": deals * seats}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=150, help="duplicate deals per pairing (each played once per seat rotation)")
    parser.add_argument("--seats", type=int, default=4, help="seats at the table (even: the two sides alternate)")
    parser.add_argument("--front", type=int, default=30, help="every seat's chips in front at the start of a hand")
    parser.add_argument("--levels", type=int, nargs="*", default=list(range(1, 9)),
                        help="the levels measured; each plays the next lower one listed (1 2 4 6 8: 2 vs 1, 4 vs 2…)")
    parser.add_argument("--fields", nargs="*", default=None,
                        help="measure one --hero seat against each field instead: "
                             f"{', '.join(FIELDS)} or a bot level 1-8")
    parser.add_argument("--hero", type=int, default=8, help="the level measured against the fields")
    parser.add_argument("--field-seats", type=int, default=5, help="seats at a field's table (the hero's included)")
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--out", type=Path, default=None,
                        help="default bench/results/bots_gofo.json, with --fields bots_gofo_fields.json")
    parser.add_argument("--table", type=Path, nargs="*", default=None,
                        help="print the markdown tables of docs/bots.md from these result files (several --fields "
                             "results as one table), and run nothing")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes to play the deals in (the figures do not depend on it)")
    parser.add_argument("--hints", action="store_true",
                        help="also time the hint wherever a level-8 seat decides (the CPU table's row 'hint')")
    args = parser.parse_args(argv)
    global JOBS, HINTS
    JOBS = max(1, args.jobs)
    HINTS = args.hints
    started = time.perf_counter()
    given = sys.argv[1:] if argv is None else argv
    if args.table is not None:
        results = [json.loads(path.read_text()) for path in args.table]
        fields = [r for r in results if "fields" in r]
        if len(fields) > 1:
            print(fields_markdown(fields))
        for result in results if len(fields) < 2 else [r for r in results if "fields" not in r]:
            print(markdown(result))
        return {}
    if args.fields is not None:
        return _fields(args, given, started)
    pairs, against_caller = {}, {}
    levels = sorted(set(args.levels))
    for below, level in zip([None, *levels], levels):
        if below is not None:
            name = f"{level} vs {below}"
            pairs[name] = duplicate(str(level), str(below), args.deals, args.seats, args.front, args.seed + level)
            print(f"{name}: {pairs[name]}", flush=True)
        against_caller[str(level)] = duplicate(str(level), "caller", args.deals, args.seats, args.front,
                                               args.seed + 100 + level)
        print(f"{level} vs caller: {against_caller[str(level)]}", flush=True)
    speed = _speed()
    result = {"command": " ".join(["python -m bench.bots_gofo", *given]),
              "seats": args.seats, "front": args.front, "deals": args.deals, "seed": args.seed,
              "level_vs_level_below": pairs, "level_vs_caller": against_caller,
              "decision_time": speed, "seconds": round(time.perf_counter() - started, 1)}
    _write(args.out or RESULTS / "bots_gofo.json", result)
    return result


def _fields(args: argparse.Namespace, given: list[str], started: float) -> dict[str, Any]:
    fields = args.fields or [*FIELDS, *map(str, range(1, args.hero))]
    table = {}
    for k, name in enumerate(fields):
        table[name] = in_field(str(args.hero), name, args.deals, args.field_seats,
                               args.front, args.seed + 1000 + k)
        row = table[name]
        print(f"{args.hero} in a field of {name}: hero {row['hero']}, caller {row['caller']}, "
              f"hero - caller {row['hero_minus_caller']}", flush=True)
    result = {"command": " ".join(["python -m bench.bots_gofo", *given]), "hero": args.hero,
              "seats": args.field_seats, "front": args.front, "deals": args.deals, "seed": args.seed,
              "fields": table, "decision_time": _speed(), "seconds": round(time.perf_counter() - started, 1)}
    _write(args.out or RESULTS / "bots_gofo_fields.json", result)
    return result


def _speed() -> dict[str, Any]:
    """Median and p99 of one bot decision by level, over every decision of the run."""
    return {level: {"decisions": len(t), "median_ms": round(1000 * statistics.median(t), 3),
                    "p99_ms": round(1000 * sorted(t)[min(len(t) - 1, int(0.99 * len(t)))], 3)}
            for level, t in sorted(TIMES.items(), key=lambda kv: (not kv[0].isdigit(), kv[0].zfill(2)))}


def _write(path: Path, result: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(markdown(result))


def _figure(row: dict[str, Any]) -> str:
    low, high = row["ci95"]
    return f"{row['chips_per_hand']:+.2f} [{low:+.2f}, {high:+.2f}]"


def markdown(result: dict[str, Any]) -> str:
    """The result's tables as docs/bots.md shows them (chips a hand with 95 % intervals; CPU time)."""
    lines = [f"`{result['command']}`: {result['seats']} seats, {result['front']} chips in front, "
             f"{result['deals']} duplicate deals ({result['seconds']} s)", ""]
    if "fields" in result:
        lines += [f"| field (the other seats) | level {result['hero']} | a caller in its place | level {result['hero']} − caller | hands |",
                  "|---|---|---|---|---|"]
        for name, row in result["fields"].items():
            label = f"level {name}" if name.isdigit() else name
            lines.append(f"| {label} | {_figure(row['hero'])} | {_figure(row['caller'])} | "
                         f"{_figure(row['hero_minus_caller'])} | {row['hands']:,} |")
    else:
        lines += ["| level | vs the level below | vs a caller | hands a pairing |", "|---|---|---|---|"]
        below = {name.split(" vs ")[0]: (name.split(" vs ")[1], row) for name, row in result["level_vs_level_below"].items()}
        for level, row in result["level_vs_caller"].items():
            versus = f"{below[level][0]}: {_figure(below[level][1])}" if level in below else "–"
            lines.append(f"| {level} | {versus} | {_figure(row)} | {row['hands']:,} |")
    lines += ["", "| level | decisions | CPU p50 (ms) | CPU p99 (ms) |", "|---|---|---|---|"]
    for level, t in result["decision_time"].items():
        lines.append(f"| {level} | {t['decisions']:,} | {t['median_ms']:.2f} | {t['p99_ms']:.2f} |")
    return "\n".join(lines) + "\n"


def fields_markdown(results: list[dict[str, Any]]) -> str:
    """Several ``--fields`` results as one table, the fields in :data:`FIELDS`' order and then by
    level, each with its hands; below it, each run's command and the CPU time of its decisions."""
    rows = {name: row for result in results for name, row in result["fields"].items()}
    order = sorted(rows, key=lambda n: (n.isdigit(), int(n) if n.isdigit() else list(FIELDS).index(n)))
    hero = results[0]["hero"]
    lines = [f"| field (the other four seats) | level {hero} | a caller in its place | level {hero} − caller | hands |",
             "|---|---|---|---|---|"]
    for name in order:
        row = rows[name]
        label = f"level {name}" if name.isdigit() else name
        lines.append(f"| {label} | {_figure(row['hero'])} | {_figure(row['caller'])} | "
                     f"{_figure(row['hero_minus_caller'])} | {row['hands']:,} |")
    lines += ["", "| run | level | decisions | CPU p50 (ms) | CPU p99 (ms) |", "|---|---|---|---|---|"]
    for result in results:
        for level, t in result["decision_time"].items():
            run = result["command"].removeprefix("python -m bench.bots_gofo ").split(" --out")[0]
            lines.append(f"| `{run}` ({result['seconds']} s) | "
                         f"{level} | {t['decisions']:,} | {t['median_ms']:.2f} | {t['p99_ms']:.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

"""Seeded random Gops playouts that record everything a caller can observe of the engine.

Used by ``tests/gops/test_engine_equivalence.py``: a playout (rules, match and moves all drawn from
one seed) applies valid and invalid actions interleaved — deals, commits (legal and illegal bids),
reveals (good, wrong salt, typo'd cards), exact repeats, reports, choices, resignations, deadlines,
wrong rounds/games/seats, malformed fields — and records at every step the action, whether it
changed the state (``apply``'s answer) or its refusal (class, code, detail, extra), ``to_dict()``, ``awaiting()``, ``legal_actions`` and the
views of the public and every seat; sometimes it goes on from ``Gops.from_dict(to_dict())``.  At
the end it records the transcripts (public and per seat) of the log.  Each step is reduced to a
short digest of its canonical JSON, so the golden file stays small.

Only the engine's public API is used, so the same code runs against any tree (on a tree whose
``apply`` returned typed events, ``changed`` is whether it returned any). The golden file
``tests/gops/engine_golden.json`` was written from ``main`` at 356f9b8, the last engine with typed
events, run from a directory without a ``service`` of its own, so that the reference tree's is the
one imported::

    git archive 356f9b8 service | tar -x -C /tmp/main_ref
    cd /tmp && PYTHONPATH=/tmp/main_ref:<this tree>/tests python -m support.gops_trace --write golden.json

356f9b8 itself had matched, step for step, the goldens written from the engine before the hot-path
work and the sealed round records (through a translation of its round records into their earlier
form: ``git log -p tests/support/gops_trace.py`` has it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from typing import Any

import orjson

from service.errors import RefereeError
from service.games import gops as G
from service.games.gops import observer, referee

SEEDS = range(200)
MAX_STEPS = 260


def _salt(rng: random.Random) -> str:
    return f"{rng.getrandbits(256):064x}"


def _commitment(game_id: str, rnd: int, seat: int, cards: tuple[int, ...], salt: str) -> str:
    msg = f"gops-bid-v1|{game_id}|{rnd}|{seat}|{','.join(str(c) for c in cards)}|{salt}"
    return hashlib.sha256(msg.encode("utf-8")).hexdigest()


def _options(rng: random.Random) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A random (profile, options, match options) that make_rules accepts."""
    if rng.random() < 0.25:
        profile, opts = "classic", {}
        if rng.random() < 0.5:
            opts["ranks"] = rng.randint(3, 13)
        players = 2
    else:
        profile = "standard"
        players = rng.randint(2, 7)
        opts = {"players": players, "ranks": rng.choice([1, 2, 4, 6, 7, 9, 13]),
                "resolution": rng.choice(["none", "split", "highest_unique"]),
                "unclaimed": rng.choice(["carryover", "discard"])}
    ranks = opts.get("ranks", 13)
    order = rng.choice(["shuffled"] * 3 + ["ascending", "descending", "explicit", "reported", "reported"])
    opts["prize_order"] = order
    if order == "explicit":
        explicit = list(range(1, ranks + 1))
        rng.shuffle(explicit)
        opts["explicit_order"] = explicit
    if rng.random() < 0.3 and ranks >= 2:
        opts["bid_cards"] = rng.randint(2, min(3, ranks))
    if rng.random() < 0.3 and ranks >= 2:
        opts["open_prizes"] = rng.randint(2, min(3, ranks))
    else:
        vis = rng.choice(["open", "open", "blind", "dealer_sees_prize"])
        opts["visibility"] = vis
        if vis == "dealer_sees_prize":
            opts["dealer_seat"] = rng.randrange(players)
    if rng.random() < 0.3:
        opts["deadline_seconds"] = rng.choice([5, 60])
    match = rng.choice([{}, {}, {"format": "cumulative", "games": 2}, {"format": "best_of", "games": 3},
                        {"format": "target", "target": rng.choice([10, 30])}])
    return profile, opts, match


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _without_bots(view: dict[str, Any]) -> dict[str, Any]:
    """A view without ``bots`` and ``names`` (the record's seats the referee plays and players'
    names, which the goldens predate): empty in every playout here, which has no record."""
    if view.pop("bots", []) != [] or any(view.pop("names", [])):
        raise AssertionError("an engine playout has no bots and no names")
    return view


def _observation(state: G.Gops, now: float) -> dict[str, Any]:
    players = state.rules.players
    return {
        "state": state.to_dict(),
        "over": state.over, "phase": str(state.phase), "needs_chance": state.needs_chance,
        "awaiting": state.awaiting(),
        "active": state.active_seats(),
        "out": [state.seat_out(s) for s in range(players)],
        "legal": {str(s): [a.to_dict() for a in state.legal_actions(s, now)] for s in [None, *range(players)]},
        "legal_untimed": [a.to_dict() for a in state.legal_actions(0)],
        "views": {str(s): _without_bots(observer.view(state, s, now)) for s in [None, *range(players)]},
        "deadline_passed": state.deadline_passed(now),
    }


def _digest(record: Any) -> str:
    """The first 10 hex digits of the SHA-256 of ``record``'s JSON, keys in their order (stored
    documents keep it), integer keys as strings; what JSON has no form for (a fraction, a dataclass)
    by its ``str``. orjson, not json: the digests were a third of the playouts' time."""
    text = orjson.dumps(record, default=str, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS)
    return hashlib.sha256(text).hexdigest()[:10]


class _Player:
    """One playout: picks the next action (valid most of the time) from the seed's generator."""

    def __init__(self, seed: int) -> None:
        self.rng = rng = random.Random(seed)
        profile, opts, match = _options(rng)
        self.rules = G.make_rules(profile, **opts)
        self.match = G.make_match_rules(**match)
        self.now = 1000.0
        self.state = G.Gops.new(f"eq{seed}", self.rules, self.match, now=self.now)
        self.secrets: dict[tuple[int, int, int], tuple[tuple[int, ...], str]] = {}
        self.last: list[Any] = []  # commits / reveals applied (for exact repeats)
        self.log: list[dict[str, Any]] = [referee.entry(1, self.now, "host", {
            "type": "create", "rules": self.rules.to_dict(), "match": self.match.to_dict()}, 1)]

    def _bid(self, seat: int) -> tuple[int, ...]:
        rng, g, k = self.rng, self.state.game, self.rules.bid_cards
        hand = list(g.hands[seat])
        roll = rng.random()
        if roll < 0.06:  # an illegal bid, committed and opened: forfeited to the lowest cards
            spent = [c for c in range(1, self.rules.ranks + 1) if c not in hand]
            if spent:
                return tuple([rng.choice(spent)] + hand[: k - 1])
            return tuple([hand[0]] * k)
        if roll < 0.08:
            return tuple(hand[: k + 1])  # wrong count (when the hand has more)
        return tuple(rng.sample(hand, k))

    def next_action(self) -> Any:
        rng, st = self.rng, self.state
        g = st.game
        players = self.rules.players
        r = rng.random()
        if r < 0.007:
            return G.Resign(rng.randrange(players))
        if r < 0.03:
            self.now += rng.choice([1, 10, 100])
            return G.EnforceDeadline()
        if r < 0.06 and self.last:
            return rng.choice(self.last)  # an exact repeat (or a late one)
        if r < 0.09:
            return self._junk()
        if st.needs_chance:
            order = list(range(1, self.rules.ranks + 1))
            rng.shuffle(order)
            if rng.random() < 0.1:
                order[0] = order[-1]
            return G.DealPrizes(tuple(order), _salt(rng))
        phase = str(st.phase)
        waiting = st.awaiting()
        if phase == "commit" and waiting:
            seat = rng.choice(waiting)
            cards = self._bid(seat)
            salt = _salt(rng)
            self.secrets[(g.number, g.round, seat)] = (cards, salt)
            game = rng.choice([None, None, g.number])
            return G.Commit(seat, g.round, _commitment(g.game_id, g.round, seat, cards, salt), game)
        if phase == "reveal" and waiting:
            seat = rng.choice(waiting)
            cards, salt = self.secrets.get((g.number, g.round, seat), ((1,), _salt(rng)))
            x = rng.random()
            if x < 0.05:
                salt = _salt(rng)  # wrong salt: a mismatch (or the bid's own error)
            elif x < 0.1:
                cards = tuple(reversed(cards)) if len(cards) > 1 else (cards[0] % self.rules.ranks + 1,)
            return G.Reveal(seat, g.round, cards, salt, rng.choice([None, g.number]))
        if phase == "prize":
            ranks = [x for x in range(1, self.rules.ranks + 1) if x not in g.turned]
            if rng.random() < 0.1 or not ranks:
                return G.ReportPrize(rng.choice([0, 1, self.rules.ranks, self.rules.ranks + 1]))
            return G.ReportPrize(rng.choice(ranks))
        if phase == "choose" and g.chooser is not None:
            if rng.random() < 0.1:
                return G.ChoosePrize(rng.randrange(players), rng.randint(0, self.rules.ranks + 1))
            return G.ChoosePrize(g.chooser, rng.choice(g.row) if g.row else 1)
        return self._junk()

    def _junk(self) -> Any:
        """A refused (or odd) action: wrong seat, round, game, phase, format; a non-Gops action."""
        rng, g, players = self.rng, self.state.game, self.rules.players
        seat = rng.choice([-1, players, rng.randrange(players), rng.randrange(players)])
        salt = rng.choice([_salt(rng), "ab", "AB" * 32, 7])
        kind = rng.randrange(9)
        if kind == 0:
            return G.Commit(seat, g.round + rng.choice([-1, 0, 1]), rng.choice([_salt(rng), "xyz", None]))
        if kind == 1:
            return G.Commit(rng.randrange(players), g.round, _salt(rng), rng.choice([0, 2, 9]))
        if kind == 2:
            return G.Reveal(seat, g.round + rng.choice([-1, 0, 1]), (rng.randint(0, 14),), salt)
        if kind == 3:
            return G.Reveal(rng.randrange(players), g.round, (True,) if rng.random() < 0.5 else ("3",), _salt(rng))
        if kind == 4:
            return G.ReportPrize(rng.randint(0, 14))
        if kind == 5:
            return G.ChoosePrize(seat, rng.randint(0, 14))
        if kind == 6:
            return G.DealPrizes(tuple(range(1, self.rules.ranks + 1)), salt)
        if kind == 7:
            return G.Resign(seat)
        return "not an action"

    def step(self) -> dict[str, Any]:
        """One action applied (:meth:`advance`), and what it did with everything it changed observed."""
        action_data, outcome = self.advance()
        return {"action": action_data, **outcome, **_observation(self.state, self.now)}

    def advance(self) -> tuple[Any, dict[str, Any]]:
        """The next action applied: the action (as data) and its events or refusal. The same playout
        as :meth:`step`'s, for what does not need the step observed (tests/gops/test_view_clock.py)."""
        action = self.next_action()
        st = self.state
        before = st.to_dict()
        game, rnd = st.game.number, st.game.round
        try:
            changed = bool(st.apply(action, now=self.now))  # (a list of events on trees that had them)
            outcome: dict[str, Any] = {"changed": changed}
            if isinstance(action, (G.Commit, G.Reveal)) and action not in self.last:
                self.last.append(action)
            if changed:
                self.log.append(referee.entry(len(self.log) + 1, self.now, "seat", action, game, rnd))
        except RefereeError as exc:
            outcome = {"error": type(exc).__name__, "code": exc.code, "detail": exc.detail, "extra": exc.extra}
            outcome["unchanged"] = st.to_dict() == before
        if self.rng.random() < 0.15:  # go on from the stored form
            self.state = G.Gops.from_dict(json.loads(json.dumps(self.state.to_dict())))
        return G.action_to_dict(action) if isinstance(action, G.Action) else repr(action), outcome

    def finish(self) -> dict[str, Any]:
        st = self.state
        return {str(s): observer.transcript(st, self.log, s) for s in [None, *range(self.rules.players)]}


def trace(seed: int) -> list[str]:
    """The step digests of one seeded playout (the last one: its transcripts)."""
    player = _Player(seed)
    digests = [_digest(_observation(player.state, player.now))]
    for _ in range(MAX_STEPS):
        if player.state.over:
            break
        digests.append(_digest(player.step()))
    digests.append(_digest(player.finish()))
    return digests


def trace_records(seed: int) -> list[Any]:
    """The same playout's full records (to diff a failing seed against the reference tree)."""
    player = _Player(seed)
    out = [_jsonable(_observation(player.state, player.now))]
    for _ in range(MAX_STEPS):
        if player.state.over:
            break
        out.append(_jsonable(player.step()))
    out.append(_jsonable(player.finish()))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--write", help="write the golden digests of every seed to this file")
    parser.add_argument("--dump", type=int, help="print the full records of one seed (JSON)")
    args = parser.parse_args()
    if args.dump is not None:
        print(json.dumps(trace_records(args.dump), indent=1, default=str))
        return
    golden = {str(seed): trace(seed) for seed in SEEDS}
    text = json.dumps(golden, separators=(",", ":"))
    if args.write:
        with open(args.write, "w") as f:
            f.write(text + "\n")
    steps = sum(len(v) for v in golden.values())
    print(f"{len(golden)} playouts, {steps} steps")


if __name__ == "__main__":
    main()

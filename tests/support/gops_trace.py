"""Seeded random Gops playouts that record everything a caller can observe of the engine.

Used by ``tests/gops/test_engine_equivalence.py``: a playout (rules, match and moves all drawn from
one seed) applies valid and invalid actions interleaved — deals, commits (legal and illegal bids),
reveals (good, wrong salt, typo'd cards), exact repeats, reports, choices, resignations, deadlines,
wrong rounds/games/seats, malformed fields — and records at every step the action, whether it
changed the state (``apply``'s answer) or its refusal (class, code, detail, extra), ``to_dict()``, ``awaiting()``, ``legal_actions`` and the
views of the public and every seat; sometimes it goes on from ``Gops.from_dict(to_dict())``.  At
the end it records the transcripts (public and per seat) of the log.  Each step is reduced to a
short digest of its canonical JSON, so the golden file stays small.

Round records no longer keep the round's commitments and reveals, only each seat's ``sealed``
fingerprint (the first 16 hex digits of its commitment; :mod:`service.games.gops.records`).  Before a
step is digested every such record is put back into the form ``main`` recorded — ``sealed``
replaced, in place, by the ``commitments`` and ``reveals`` the playout applied for that game, round
and seat — and only when every seal is that commitment's first 16 hex digits (otherwise the record
stays as it is and the digest differs).  Records of the old form are left alone, so the same code
still writes the goldens from ``main``.

Only the engine's public API is used, so the same code runs against any tree (on a tree whose
``apply`` returned typed events, ``changed`` is whether it returned any); the golden file
``tests/gops/engine_golden.json`` was written from ``main`` at 356f9b8, the last engine with typed
events, which matched the goldens written before the hot-path work step for step (run from a
directory without a ``service`` of its own, so that the reference tree's is the one imported)::

    git archive main service | tar -x -C /tmp/main_ref
    cd /tmp && PYTHONPATH=/tmp/main_ref:<this tree>/tests python -m support.gops_trace --write golden.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
from typing import Any

from service.games import gops as G
from service.errors import RefereeError
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


Opened = dict[tuple[int, int, int], dict[str, Any]]  # (game, round, seat) -> the applied commit / reveal


def _old_record(record: Any, game: int, opened: Opened) -> Any:
    """A ``sealed`` round record in the old form (see the module docstring), or it unchanged."""
    if not isinstance(record, dict) or list(record)[:2] != ["round", "sealed"]:
        return record
    commitments, reveals = {}, {}
    for seat, fingerprint in record["sealed"].items():
        moves = opened.get((game, record["round"], int(seat)), {})
        if "commit" not in moves or "reveal" not in moves or moves["commit"][:16] != fingerprint:
            return record
        commitments[seat] = moves["commit"]
        reveals[seat] = moves["reveal"]
    rest = {k: v for k, v in record.items() if k not in ("round", "sealed")}
    return {"round": record["round"], "commitments": commitments, "reveals": reveals, **rest}


def _old_records(value: Any, opened: Opened) -> Any:
    """``value`` with every round record in a ``history`` (of a game or a game's result) in the old form."""
    if isinstance(value, list):
        if not value or not isinstance(value[0], (dict, list)):  # hands, prizes, scores: no records in them
            return value
        return [_old_records(v, opened) for v in value]
    if not isinstance(value, dict):
        return value
    game = value.get("number", value.get("game"))
    out = {}
    for key, v in value.items():
        if key == "history" and isinstance(v, list) and isinstance(game, int):
            out[key] = [_old_record(r, game, opened) for r in v]
        else:
            out[key] = _old_records(v, opened)
    return out


def _stored_games(state: Any) -> list[dict[str, Any]] | None:
    """The state's games (``Gops.games``: the past ones and the current one once over) in their
    stored form (records on this tree, the stored dicts themselves on ``main``)."""
    games = getattr(state, "games", None)
    return None if games is None else [g if isinstance(g, dict) else g.to_dict() for g in games]


def _old_observation(observation: dict[str, Any], opened: Opened, games: Any = None) -> dict[str, Any]:
    """:func:`_old_records` of the parts of an observation that hold round records: the stored
    state (its game and past games) and each view's past games (:func:`_old_view_games`, checked
    against ``games``, the state's; a view's own history is public records: no seals in it, as
    there were no commitments in it before). Walking only those keeps the 200 playouts' time near
    what it was before the seals."""
    out = dict(observation)
    stored = games  # the state's games, stored form (:func:`_stored_games`)
    if "state" in out:
        out["state"] = _old_records(out["state"], opened)
    views = out.get("views")
    if isinstance(views, dict):
        public: list[str] = []  # the stored games as views show them, written once for every view
        out["views"] = {k: ({**v, "games": _old_view_games(v["games"], stored, opened, public)}
                            if isinstance(v, dict) and v.get("games") else v) for k, v in views.items()}
    return out


_SECRET_KEYS = ("sealed", "reveals", "commitments")


def _old_view_games(shown: Any, stored: Any, opened: Opened, public: list[str]) -> Any:
    """A view's past games in the form ``main``'s views showed them: the stored game records.

    A view now shows each past game's rounds as public records, without the seals (which the API
    never sent: its schema leaves them out, and views are now sent as built). They are put back
    (the stored records, in the old form as above) only when the view's games are exactly the
    stored ones with every round record's seals left out, key order included; otherwise the view
    stays as it is and the digest differs. ``main``'s views, which showed the records whole, stay
    as they were too, so the same code still writes the goldens from ``main``. ``public`` keeps the
    stored games' text as views show them, written by the first view that needs it."""
    if not isinstance(stored, list) or not isinstance(shown, list) or len(stored) != len(shown):
        return _old_records(shown, opened)
    if not public:
        public.append(json.dumps([
            {**g, "history": [{k: v for k, v in r.items() if k not in _SECRET_KEYS} for r in g["history"]]}
            if isinstance(g, dict) and isinstance(g.get("history"), list) else g for g in stored], default=str))
    if public[0] != json.dumps(shown, default=str):
        return _old_records(shown, opened)
    return _old_records(stored, opened)


def _without_bots(view: dict[str, Any]) -> dict[str, Any]:
    """A view without ``bots`` and ``names`` (the record's seats the referee plays and players'
    names, which the goldens predate): empty in every playout here, which has no record."""
    if view.pop("bots", []) != [] or any(view.pop("names", [])):
        raise AssertionError("an engine playout has no bots and no names")
    return view


def _observe(state: G.Gops, now: float, opened: Opened | None = None) -> dict[str, Any]:
    return _old_observation(_observation(state, now), opened or {}, _stored_games(state))


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
    text = json.dumps(record, default=str)  # key order matters: stored documents keep it
    return hashlib.sha256(text.encode()).hexdigest()[:10]


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
        self.opened: Opened = {}  # the commit and reveal each seat made, by game and round
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
        return _old_observation({"action": action_data, **outcome, **_observation(self.state, self.now)}, self.opened,
                                _stored_games(self.state))

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
                if isinstance(action, G.Commit):
                    self.opened.setdefault((game, action.round, action.seat), {})["commit"] = action.commitment
                elif isinstance(action, G.Reveal):
                    self.opened.setdefault((game, action.round, action.seat), {})["reveal"] = {
                        "cards": list(action.cards), "salt": action.salt}
        except RefereeError as exc:
            outcome = {"error": type(exc).__name__, "code": exc.code, "detail": exc.detail, "extra": exc.extra}
            outcome["unchanged"] = st.to_dict() == before
        if self.rng.random() < 0.15:  # go on from the stored form
            self.state = G.Gops.from_dict(json.loads(json.dumps(self.state.to_dict())))
        return G.action_to_dict(action) if isinstance(action, G.Action) else repr(action), outcome

    def finish(self) -> dict[str, Any]:
        st = self.state
        return _old_records({str(s): observer.transcript(st, self.log, s) for s in [None, *range(self.rules.players)]},
                            self.opened)


def trace(seed: int) -> list[str]:
    """The step digests of one seeded playout (the last one: its transcripts)."""
    player = _Player(seed)
    digests = [_digest(_observe(player.state, player.now))]
    for _ in range(MAX_STEPS):
        if player.state.over:
            break
        digests.append(_digest(player.step()))
    digests.append(_digest(player.finish()))
    return digests


def trace_records(seed: int) -> list[Any]:
    """The same playout's full records (to diff a failing seed against the reference tree)."""
    player = _Player(seed)
    out = [_jsonable(_observe(player.state, player.now))]
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

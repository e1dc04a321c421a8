"""Hypothesis property tests: random legal play of every profile and a spread of options.

Each example builds a random game, plays it to the end with random legal
moves (commit–reveal bids, reports, choices, the odd resignation or enforced
deadline) and checks after every action:

* conservation: points awarded + unclaimed/waiting prizes == prizes turned up;
* hands shrink by exactly the bid of each seat that bid in a resolved round;
* scores are non-negative and exact (ints, or Fractions once a prize is split; never floats);
* ``Gops.from_dict(state.to_dict())`` round-trips;
* a random (usually illegal) action never half-applies: it either raises a
  typed error with the state unchanged, or it is applied as a whole;

and at the end: ``replay`` of the recorded (action dict, time) pairs
reproduces the identical ``to_dict()``, and a game without forfeits lasts
exactly ``rules.rounds`` rounds.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.gops_helpers import det_salt
from support.sweep_size import sized
from service.games import commitments as C
from service.games import gops as G
from service.errors import RefereeError

SETTINGS = settings(
    max_examples=sized(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def rules_strategy(draw):
    profile = draw(st.sampled_from(["standard", "classic"]))
    opts: dict = {}
    players = 2 if profile == "classic" else draw(st.integers(2, 7))
    opts["players"] = players
    ranks = draw(st.integers(1, 13))
    opts["ranks"] = ranks
    if draw(st.booleans()):
        opts["resolution"] = draw(st.sampled_from(G.RESOLUTIONS))
    if draw(st.booleans()):
        opts["unclaimed"] = draw(st.sampled_from(G.UNCLAIMED))
    opts["bid_cards"] = draw(st.integers(1, min(2, ranks)))
    opts["open_prizes"] = draw(st.integers(1, min(3, ranks)))
    order = draw(st.sampled_from(G.PRIZE_ORDERS))
    opts["prize_order"] = order
    if order == "explicit":
        opts["explicit_order"] = draw(st.permutations(list(range(1, ranks + 1))))
    if opts["open_prizes"] == 1:
        vis = draw(st.sampled_from(G.VISIBILITIES))
        opts["visibility"] = vis
        if vis == "dealer_sees_prize":
            opts["dealer_seat"] = draw(st.integers(0, players - 1))
    if draw(st.integers(0, 3)) == 0:
        opts["deadline_seconds"] = 10
    return G.make_rules(profile, **opts)


class Player:
    """Plays random legal moves and records (action dict, time) for replay."""

    def __init__(self, data, state: G.Gops, fuzz: bool = True) -> None:
        self.data = data
        self.state = state
        self.now = 0.0
        self.log: list[tuple[dict, float]] = []
        self.pending: dict[int, tuple[tuple[int, ...], str]] = {}
        self.fuzz = fuzz
        self.forfeits = 0
        self.give_up_after: int | None = None

    def apply(self, action) -> bool:
        self.now += 1.0
        before_rounds = len(self.state.game.history)
        before_hands = [list(h) for h in self.state.game.hands]
        before_game = self.state.game.number
        leaving = ([action.seat] if isinstance(action, G.Resign)
                   else self.state.late_seats(self.now) if isinstance(action, G.EnforceDeadline) else [])
        changed = self.state.apply(action, now=self.now)
        self.log.append((G.action_to_dict(action), self.now))
        self.forfeits += len(leaving)  # (applied: each of them forfeited the game)
        g = self.state.game
        if g.number == before_game and len(g.history) > before_rounds:
            assert len(g.history) == before_rounds + 1
            bids = g.history[-1].to_dict()["bids"]
            k = self.state.rules.bid_cards
            for seat, hand in enumerate(before_hands):
                if str(seat) in bids:
                    cards = bids[str(seat)]
                    assert len(cards) == k and len(set(cards)) == k
                    assert set(cards) <= set(hand)
                    assert sorted(g.hands[seat]) == sorted(set(hand) - set(cards))
                    assert len(g.hands[seat]) == len(hand) - k
                else:
                    assert g.hands[seat] == hand
        elif g.number == before_game:
            assert g.hands == before_hands  # hands only change when a round resolves
        self.check_invariants()
        return changed

    def check_invariants(self) -> None:
        state = self.state
        g = state.game
        assert len(g.scores) == state.rules.players
        for s in g.scores:
            assert isinstance(s, (int, Fraction)) and s >= 0  # exact: never a float
        held = sum(g.scores, Fraction(0)) + sum(g.set_aside) + sum(g.carry) + sum(g.row)
        assert held == sum(g.turned)
        assert len(set(g.turned)) == len(g.turned) <= state.rules.ranks
        data = state.to_dict()
        assert G.Gops.from_dict(data).to_dict() == data
        if not state.over and g.phase != "deal":
            assert g.round <= state.rules.rounds
        # nobody but the committing seat sees a commitment before the round's are all in
        if not state.over and g.phase == "commit":
            assert G.view(state)["commitments"] == {}
            for seat in range(state.rules.players):
                assert set(G.view(state, seat)["commitments"]) <= {str(seat)}
        for record in g.history:
            if state.rules.open_prizes > 1:
                # a round nobody takes anything from names no winner; a winner takes what it is owed
                assert (record.picks is not None) == (len(record.winners) == 1)
                if record.picks is not None and record is not g.history[-1]:
                    assert (len(record.chosen or ()) == record.picks or len(g.turned) == state.rules.ranks
                            or record.winners[0] in g.forfeited)

    def maybe_fuzz(self) -> None:
        """Try one random action on a copy: an error must leave the copy untouched."""
        if not self.fuzz or not self.data.draw(st.integers(0, 4)) == 0:
            return
        rules = self.state.rules
        seat = self.data.draw(st.integers(-1, rules.players))
        rnd = self.data.draw(st.integers(0, rules.rounds + 1))
        cards = tuple(self.data.draw(st.lists(st.integers(0, rules.ranks + 1), max_size=3)))
        salt = self.data.draw(st.sampled_from(["00" * 32, "zz", det_salt("fuzz")]))
        action = self.data.draw(st.sampled_from([
            G.Commit(seat, rnd, C.bid_commitment(self.state.game.game_id, max(rnd, 1), max(seat, 0), cards, salt)
                     if salt != "zz" else "nope"),
            G.Reveal(seat, rnd, cards, salt),
            G.ReportPrize(cards[0] if cards else 0),
            G.ChoosePrize(seat, cards[0] if cards else 0),
            G.DealPrizes(cards, salt),
            G.EnforceDeadline(),
        ]))
        # An action the state refuses is tried on the state itself (no copy): the engine checks
        # everything before it changes anything, so a refusal must leave it exactly as it was.
        # One it would accept is tried on a copy, so the game goes on as drawn.
        trial = self.state.copy() if self.state.is_legal(action, now=self.now) else self.state
        before = trial.to_dict()
        try:
            trial.apply(action, now=self.now)
        except RefereeError as exc:
            assert isinstance(exc.code, str) and exc.code
            assert trial.to_dict() == before
        else:
            if trial is self.state:  # refused by verify() but accepted: only an exact repeat, a no-op
                assert trial.to_dict() == before

    def step(self) -> None:
        state, data = self.state, self.data
        g = state.game
        rules = state.rules
        self.maybe_fuzz()
        # rare disruptions: a resignation, or an enforced deadline
        roll = data.draw(st.integers(0, 60))
        if self.give_up_after is not None and g.number > self.give_up_after and g.phase != "deal":
            roll = 0  # a match of endless draws: seats resign until one is left
        if roll == 0 and g.phase in ("commit", "reveal", "choose", "prize"):
            active = state.active_seats()
            self.apply(G.Resign(data.draw(st.sampled_from(active))))
            return
        if roll == 1 and g.deadline_at is not None and state.awaiting():
            assert G.EnforceDeadline().type in {a["type"] for a in state.legal_actions(None, g.deadline_at)}
            self.now = max(self.now, g.deadline_at - 1.0)  # apply() adds one second
            self.apply(G.EnforceDeadline())
            return
        if g.phase == "deal":
            order = data.draw(st.permutations(list(range(1, rules.ranks + 1))))
            self.apply(G.DealPrizes(tuple(order), det_salt("deal", g.game_id)))
        elif g.phase == "prize":
            (la,) = [a for a in state.legal_actions(None) if a["type"] == "report_prize"]
            self.apply(G.ReportPrize(data.draw(st.sampled_from(la["ranks"]))))
        elif g.phase == "commit":
            seat = data.draw(st.sampled_from(state.awaiting()))
            (la,) = [a for a in state.legal_actions(seat) if a["type"] == "commit"]
            assert la["hand"] == tuple(g.hands[seat]) and la["cards"] == rules.bid_cards
            cards = tuple(data.draw(st.permutations(g.hands[seat]))[: rules.bid_cards])
            salt = det_salt(g.game_id, g.round, seat, self.now)
            self.pending[seat] = (cards, salt)
            self.apply(G.Commit(seat, g.round, C.bid_commitment(g.game_id, g.round, seat, cards, salt)))
        elif g.phase == "reveal":
            seat = data.draw(st.sampled_from(state.awaiting()))
            assert {"type": "reveal", "round": g.round} in state.legal_actions(seat)
            cards, salt = self.pending.pop(seat)
            self.apply(G.Reveal(seat, g.round, cards, salt))
        elif g.phase == "choose":
            seat = g.chooser
            assert state.awaiting() == [seat]
            (la,) = [a for a in state.legal_actions(seat) if a["type"] == "choose_prize"]
            assert la["ranks"] == tuple(sorted(g.row))
            self.apply(G.ChoosePrize(seat, data.draw(st.sampled_from(la["ranks"]))))
        else:  # pragma: no cover
            raise AssertionError(f"stuck in phase {g.phase}")


def play_to_end(player: Player, limit: int = 2000) -> None:
    for _ in range(limit):
        if player.state.over:
            return
        player.step()
    raise AssertionError("the game did not end")


@SETTINGS
@given(rules=rules_strategy(), data=st.data())
def test_random_single_games(rules, data):
    state = G.Gops.new("prop", rules)
    player = Player(data, state)
    player.check_invariants()
    play_to_end(player)
    g = state.game
    res = g.result.to_dict()
    assert state.phase == "over" and state.legal_actions(0) == []
    # points awarded + unclaimed == the prizes turned up
    assert sum((Fraction(s) for s in res["scores"]), Fraction(0)) + res["unclaimed"] == sum(g.turned)
    assert res["unclaimed"] >= 0
    if rules.resolution == "split" and rules.open_prizes == 1 and not player.forfeits:
        assert res["unclaimed"] == 0
    if not player.forfeits:
        assert res["termination"] == "completed"
        assert len(g.history) == rules.rounds
        if rules.open_prizes == 1:
            assert len(g.turned) == rules.rounds
        assert all(len(h) == rules.ranks - rules.rounds * rules.bid_cards for h in g.hands)
        best = max(g.scores)
        assert res["winners"] == [s for s in range(rules.players) if g.scores[s] == best]
    else:
        assert len(g.history) <= rules.rounds
        assert set(res["winners"]) <= set(state.active_seats())
    if rules.prize_order == "shuffled":
        assert C.prize_order_commitment(g.game_id, res["prize_order"], res["prize_salt"]) == res["prize_commitment"]
        v = G.view(state)
        assert v["prize_order"] == res["prize_order"] and v["prize_salt"] == res["prize_salt"]
    rebuilt = G.replay("prop", rules, state.match, player.log)
    assert rebuilt.to_dict() == state.to_dict()


@st.composite
def match_strategy(draw):
    fmt = draw(st.sampled_from(["cumulative", "best_of", "target"]))
    if fmt == "cumulative":
        return G.make_match_rules("cumulative", games=draw(st.integers(1, 3)))
    if fmt == "best_of":
        return G.make_match_rules("best_of", games=draw(st.sampled_from([3, 5])),
                                  tiebreak=draw(st.sampled_from(G.TIEBREAKS)))
    return G.make_match_rules("target", target=draw(st.integers(1, 15)))


@settings(max_examples=sized(60), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(match=match_strategy(), players=st.integers(2, 4), ranks=st.integers(1, 4),
       resolution=st.sampled_from(G.RESOLUTIONS), order=st.sampled_from(["shuffled", "ascending", "reported"]),
       data=st.data())
def test_random_matches(match, players, ranks, resolution, order, data):
    rules = G.make_rules("standard", players=players, ranks=ranks, resolution=resolution, prize_order=order)
    state = G.Gops.new("match", rules, match)
    player = Player(data, state, fuzz=False)
    player.give_up_after = 8
    play_to_end(player, limit=5000)
    result = state.result.to_dict()
    games = [p.to_dict() for p in state.games]
    assert result["games_played"] == len(games)
    assert [r["game"] for r in games] == list(range(1, len(games) + 1))
    assert len({r["game_id"] for r in games}) == len(games)
    totals = [sum((Fraction(r["scores"][s]) for r in games), Fraction(0)) for s in range(players)]
    assert [Fraction(t) for t in result["totals"]] == totals
    wins = [sum(1 for r in games if r["winners"] == [s]) for s in range(players)]
    assert result["wins"] == wins
    eligible = [s for s in range(players) if s not in state.resigned]
    assert set(result["winners"]) <= set(eligible)
    if len(eligible) >= 2:
        if match.format == "cumulative":
            assert len(games) == match.games
            best = max(totals[s] for s in eligible)
            assert result["winners"] == [s for s in eligible if totals[s] == best]
        elif match.format == "target":
            assert max(totals[s] for s in eligible) >= match.target
            assert len(result["winners"]) == 1
            (w,) = result["winners"]
            assert all(totals[w] > totals[s] for s in eligible if s != w)
        else:
            assert len(games) >= (match.games + 1) // 2
            (w,) = result["winners"] if match.tiebreak == "extra_game" else (result["winners"][0],)
            assert wins[w] == max(wins[s] for s in eligible)
    rebuilt = G.replay("match", rules, match, player.log)
    assert rebuilt.to_dict() == state.to_dict()

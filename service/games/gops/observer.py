"""Everything any caller may see of a Gops game: the views, the commitments, the transcript.

Nothing leaves the service without passing through here.  Secrets and when they open:

* a seat's **bid** (its reveal) — its own seat at once; everyone once the round is resolved (in the
  round record: ``bids``; the opening itself in the transcript);
* a **commitment** — its own seat at once; everyone once every seat of the round has committed
  (:func:`commitments_public`), then it is locked and reveals can be checked;
* a **hidden prize** (``blind``; ``dealer_sees_prize`` for every seat but the dealer) — once the
  round resolves (views) and once the round is over (a reported prize in the transcript);
* a **shuffled prize order** and its salt — when the game is over; its commitment from the start.
  Fixed orders (ascending, descending, explicit) are public from the start.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from service.games.contract import bot_list
from service.games.gops.records import Phase, frac_str
from service.games.gops.rules import Visibility
from service.games.gops.state import Gops


def prize_hidden(state: Gops, seat: int | None) -> bool:
    """Is the prize in the middle hidden from ``seat`` (``None``: the public) now?"""
    rules = state.rules
    hidden = rules.visibility == Visibility.BLIND or (
        rules.visibility == Visibility.DEALER_SEES_PRIZE and seat != rules.dealer_seat)
    return hidden and state.game.phase is not Phase.OVER


def view_clock(state: Gops, seat: int | None, now: float | None) -> bool:
    """All that :func:`view` takes from the clock: whether a seat's legal actions offer
    ``enforce_deadline`` (the public view takes nothing from it).  Two views of one state for a seat
    with the same answer here are the same (tests/gops/test_view_clock.py), so a view once made
    serves every read until this changes (:func:`service.api.views.shared_view`)."""
    return seat is not None and now is not None and state.deadline_passed(now)


def view(state: Gops, seat: int | None = None, now: float | None = None,
         bots: Mapping[str, int] | None = None, names: list[str | None] | None = None) -> dict[str, Any]:
    """What ``seat`` may see (``None``: the public, anyone with the game id; what opens when: the
    module's docstring); ``bots``: the seats the referee plays and their levels, ``names``: the
    players' names (the record's), shown to everyone.  A seat also sees its own commitment and
    unresolved reveal and what it may do next."""
    g = state.game
    rules = state.rules
    hidden = prize_hidden(state, seat)
    game_over = g.phase is Phase.OVER
    row = [None] * len(g.row) if hidden else list(g.row)
    order = g.prize_order if game_over or rules.prize_order.fixed else None
    pot_value = None if hidden else sum(g.carry) + (sum(g.row) if rules.open_prizes == 1 else 0)
    data: dict[str, Any] = {
        "id": state.id,
        "game_id": g.game_id,
        "game_number": g.number,
        "phase": str(state.phase),
        "round": min(g.round, rules.rounds),
        "rounds": rules.rounds,
        "rules": rules.to_dict(),
        "match": state.match.to_dict(),
        "hands": [list(h) for h in g.hands],
        "row": row,
        "carry": list(g.carry),
        "carried_rounds": g.carried_rounds,
        "pot_value": pot_value,
        "prizes_left": rules.ranks - len(g.turned),
        "turned": [None if (hidden and r in g.row) else r for r in g.turned],
        "scores": [frac_str(s) for s in g.scores],
        "won": [list(w) for w in g.won],
        "set_aside": list(g.set_aside),
        "committed": sorted(g.commitments),
        "commitments": visible_commitments(state, seat),
        "revealed": sorted(g.reveals),
        "awaiting": state.awaiting(),
        "forfeited": {str(s): str(r) for s, r in sorted(g.forfeited.items())},
        "chooser": g.chooser,
        "picks_owed": g.picks_owed,
        "deadline_at": g.deadline_at,
        "history": [r.to_dict(public=True) for r in g.history],
        "prize_commitment": g.prize_commitment,
        "prize_order": None if order is None else list(order),
        "prize_salt": g.prize_salt if game_over else None,
        "game_result": None if g.result is None else g.result.to_dict(),
        "games": [p.to_dict(public=True) for p in state.games],
        "resigned": list(state.resigned),
        "result": None if state.result is None else state.result.to_dict(),
        "bots": bot_list(bots or {}),
        "names": list(names) if names is not None else [None] * rules.players,
    }
    if seat is not None:
        data["seat"] = seat
        opening = g.reveals.get(seat)
        data["my_reveal"] = None if opening is None else opening.to_dict()
        data["legal_actions"] = [legal.to_dict() for legal in state.legal_actions(seat, now)]
    return data


def commitments_public(state: Gops) -> bool:
    """Are the current round's commitments public?  Only once every seat of the round has committed.

    Until then the others see only *that* a seat committed (``committed``): a
    commitment made with a reused or guessable salt could otherwise be read by a
    rival trying the 13 possible bids before committing its own.  Once all are in,
    every bid is locked and the commitments are published, so reveals can be checked.
    """
    return state.over or state.game.phase is not Phase.COMMIT


def visible_commitments(state: Gops, seat: int | None = None) -> dict[str, str]:
    """The current round's commitments ``seat`` may see (``None``: the public): its own, and the
    others' only once :func:`commitments_public`."""
    public = commitments_public(state)
    return {str(s): c for s, c in sorted(state.game.commitments.items()) if public or s == seat}


def transcript_entry(state: Gops, entry: dict[str, Any], seat: int | None = None) -> dict[str, Any]:
    """One recorded entry as ``seat`` (``None``: the public) may see it now.

    Withheld (null) until public: the shuffled prize order and salt of the game
    in progress; the round's commitments until every seat has committed; its
    reveals until the round is over; a reported hidden prize until it is shown.
    A seat sees its own commitment and reveal.  Once the game (or match) is
    over nothing is withheld and the transcript re-verifies offline.
    """
    action = dict(entry["action"])
    entry = {**entry, "action": action}
    g = state.game
    kind = action.get("type")
    current_game = not state.over and entry.get("game") == g.number
    this_round = current_game and entry.get("round") == g.round
    own = seat is not None and action.get("seat") == seat
    if kind == "deal_prizes" and current_game:
        action["order"] = None
        action["salt"] = None
    if kind == "commit" and this_round and not commitments_public(state) and not own:
        action["commitment"] = None
    if kind == "reveal" and this_round and not own:
        action["cards"] = None
        action["salt"] = None
    if kind == "report_prize" and this_round and state.rules.visibility != Visibility.OPEN:
        dealer = state.rules.visibility == Visibility.DEALER_SEES_PRIZE and seat == state.rules.dealer_seat
        if not dealer:
            action["rank"] = None
    return entry


def transcript(state: Gops, entries: Iterable[dict[str, Any]], seat: int | None = None) -> dict[str, Any]:
    """The transcript ``seat`` (``None``: the public) may read: every recorded entry as
    :func:`transcript_entry` shows it, and the result once over."""
    return {
        "complete": state.over,
        "rules": state.rules.to_dict(),
        "match": state.match.to_dict(),
        "entries": [transcript_entry(state, e, seat) for e in entries],
        "result": {**state.result.to_dict(), "games": [p.to_dict() for p in state.games]} if state.result else None,
    }

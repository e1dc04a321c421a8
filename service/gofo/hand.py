"""One hand of Gofo: the actions, the state machine, side pots and what each seat may see.

The hand runs through the steps of the rule book (``shared/rules/gofo.md``):

``shuffle`` (dealt mode: chance supplies the deck order) → ``opening`` (mano bets the apertura) →
``entering`` (each player enters seen or blind, or declines; with six at the table the sitting-out
dealer may then buy in) → ``raising`` (mano, then the blind entrants, may raise the opening) →
``betting`` (a raise or corte is answered with ver / no ver, then refiches) → 3-card completion →
``speaking`` (voy / corta, at most four rounds) ↔ ``discard`` → ``canto`` → ``over``.
``reshuffle`` interrupts a discard when the stock cannot cover a draw (dealt mode: chance supplies
the order of the pile).

States are values: :meth:`HandState.apply` returns a new state and the public events, and leaves
the old state untouched (an illegal action raises and changes nothing).

Seats are table seats ``0..n-1``; "next" is ``seat + 1 (mod n)``.
"""

from __future__ import annotations

import copy
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, Callable, ClassVar

from service.errors import (
    GameOver,
    IllegalAction,
    InvalidAction,
    NotYourTurn,
    WrongPhase,
)

from .cards import DECK, is_card, parse_cards, sort_cards
from .value import MAX_VALUE, MIN_VALUE, hand_value

DEALT = "dealt"
TABLETOP = "tabletop"
MODES = (DEALT, TABLETOP)

# seat status within a hand
OUT = "out"            # not dealt in (the sitting-out dealer with six at the table)
PENDING = "pending"    # dealt in, has not entered or declined yet
IN = "in"              # in the hand
DECLINED = "declined"  # did not put in the opening
FOLDED = "folded"      # entered, then folded to a raise or a bet

MAX_PLAYERS_IN_HAND = 5
SPEAKING_ROUNDS = 4
HAND_SIZE = 5


# ---------------------------------------------------------------------------------------------
# Actions
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Action:
    """Base of every action; ``TYPE`` is its ``"type"`` in JSON."""

    TYPE: ClassVar[str] = ""
    CHANCE: ClassVar[bool] = False


@dataclass(frozen=True)
class Shuffle(Action):
    """Chance (dealt mode): the order of the whole deck for this hand, top card first."""

    order: tuple[str, ...]
    TYPE: ClassVar[str] = "shuffle"
    CHANCE: ClassVar[bool] = True


@dataclass(frozen=True)
class Reshuffle(Action):
    """Dealt mode, chance: an order of the pile's cards (see :meth:`HandState.chance_request`).

    Tabletop mode: the dealer reports that the real pile was shuffled into a new stock
    (``order`` is ``None``); the referee then forgets which thrown discards are in the pile.
    """

    order: tuple[str, ...] | None = None
    TYPE: ClassVar[str] = "reshuffle"
    CHANCE: ClassVar[bool] = True


@dataclass(frozen=True)
class Open(Action):
    """Mano bets the opening (apertura, ante, dentre, alumbre)."""

    amount: int
    TYPE: ClassVar[str] = "open"


@dataclass(frozen=True)
class Look(Action):
    """Look at one's first two cards (entering blind is a promise not to have looked)."""

    TYPE: ClassVar[str] = "look"


@dataclass(frozen=True)
class Enter(Action):
    """Put in the opening, seen (``blind=False``, implies looking) or blind (de ciego)."""

    blind: bool
    TYPE: ClassVar[str] = "enter"


@dataclass(frozen=True)
class Decline(Action):
    """Do not put in the opening: out of the hand, losing nothing."""

    TYPE: ClassVar[str] = "decline"


@dataclass(frozen=True)
class Raise(Action):
    """Raise the opening by ``amount`` chips (before the completion of the hands)."""

    amount: int
    TYPE: ClassVar[str] = "raise"


@dataclass(frozen=True)
class Refiche(Action):
    """Raise a corte or a refiche by ``amount`` chips (after the completion)."""

    amount: int
    TYPE: ClassVar[str] = "refiche"


@dataclass(frozen=True)
class Pass(Action):
    """Decline to raise (opening raises or refiche turn)."""

    TYPE: ClassVar[str] = "pass"


@dataclass(frozen=True)
class Ver(Action):
    """Match the bet in force (all-in, jugado, if one's resto is short)."""

    TYPE: ClassVar[str] = "ver"


@dataclass(frozen=True)
class NoVer(Action):
    """Fold to the bet in force, losing what one has put in."""

    TYPE: ClassVar[str] = "no_ver"


@dataclass(frozen=True)
class Voy(Action):
    """Speaking round: pass without betting."""

    TYPE: ClassVar[str] = "voy"


@dataclass(frozen=True)
class Corta(Action):
    """Speaking round: bet ``amount`` chips (the corte)."""

    amount: int
    TYPE: ClassVar[str] = "corta"


@dataclass(frozen=True)
class Discard(Action):
    """Discard cards and receive as many new ones.

    Dealt mode: ``cards`` names the discarded cards (``count`` may be omitted).
    Tabletop mode: ``count`` alone, or the face-up ``cards`` when they are reported.
    """

    cards: tuple[str, ...] = ()
    count: int | None = None
    TYPE: ClassVar[str] = "discard"


@dataclass(frozen=True)
class Show(Action):
    """Tabletop canto: enter one's five cards."""

    cards: tuple[str, ...]
    TYPE: ClassVar[str] = "show"


@dataclass(frozen=True)
class Declare(Action):
    """Tabletop canto: declare one's points; if this wins a pot, the cards must be shown after.

    A seat that has declared may declare again to correct it, out of turn, as long as nobody has
    entered cards at the canto yet."""

    points: int
    TYPE: ClassVar[str] = "declare"


@dataclass(frozen=True)
class Muck(Action):
    """Tabletop canto: concede — give up one's claim to every pot, cards unseen (out of turn too)."""

    TYPE: ClassVar[str] = "muck"


ACTION_TYPES: dict[str, type[Action]] = {
    cls.TYPE: cls
    for cls in (Shuffle, Reshuffle, Open, Look, Enter, Decline, Raise, Refiche, Pass, Ver, NoVer,
                Voy, Corta, Discard, Show, Declare, Muck)
}


def action_to_dict(action: Action) -> dict[str, Any]:
    """``Corta(5)`` → ``{"type": "corta", "amount": 5}``; card tuples become lists."""
    out: dict[str, Any] = {"type": action.TYPE}
    for f in fields(action):
        value = getattr(action, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def _bad(detail: str) -> InvalidAction:
    return InvalidAction(detail, code="malformed_action")


def action_from_dict(data: Any, extra_types: dict[str, type[Action]] | None = None) -> Action:
    """Parse an action dict; refuse unknown types, missing or unexpected fields, wrong types."""
    types = dict(ACTION_TYPES, **(extra_types or {}))
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise _bad("an action is an object with a string 'type'")
    cls = types.get(data["type"])
    if cls is None:
        raise InvalidAction(f"unknown action type {data['type']!r}", code="unknown_action")
    names = {f.name for f in fields(cls)}
    unexpected = set(data) - names - {"type"}
    if unexpected:
        raise _bad(f"unexpected fields for {cls.TYPE}: {sorted(unexpected)}")
    kwargs: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data:
            if f.default is not MISSING:
                continue
            raise _bad(f"{cls.TYPE} needs {f.name!r}")
        value = data[f.name]
        kwargs[f.name] = _coerce(cls.TYPE, f.name, value)
    return cls(**kwargs)


def _coerce(kind: str, name: str, value: Any) -> Any:
    if name in ("amount", "points"):
        if not isinstance(value, int) or isinstance(value, bool):
            raise _bad(f"{kind}.{name} must be an integer")
        return value
    if name == "count":
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise _bad("discard.count must be an integer")
        return value
    if name == "blind":
        if not isinstance(value, bool):
            raise _bad("enter.blind must be true or false")
        return value
    if name in ("cards", "order"):
        if value is None and name == "order":
            return None
        if not isinstance(value, (list, tuple)) or not all(isinstance(c, str) for c in value):
            raise _bad(f"{kind}.{name} must be a list of card codes")
        return tuple(value)
    raise _bad(f"unknown field {name}")  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# Legal action descriptions
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class LegalAction:
    """A kind of action a seat may take now, with its allowed range where it has one.

    ``min``/``max``: the amount range (open, raise, corta, refiche, declare) or the number of
    cards (discard). ``blind`` distinguishes the two ways to enter. ``cards``: the cards one may
    discard (dealt mode).
    """

    type: str
    min: int | None = None
    max: int | None = None
    blind: bool | None = None
    cards: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for name in ("min", "max", "blind"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.cards is not None:
            out["cards"] = list(self.cards)
        return out


# ---------------------------------------------------------------------------------------------
# Side pots
# ---------------------------------------------------------------------------------------------

def side_pots(committed: list[int], live: list[bool]) -> list[dict[str, Any]]:
    """Split everything put in into pots, table-stakes style.

    ``committed[s]``: chips seat ``s`` has put in this hand; ``live[s]``: still in (not folded).
    Each pot lists the live seats that contributed fully to it. Chips of folded players stay in
    the pots they fed. Consecutive pots with the same eligible seats are merged; a pot whose only
    eligible seat is its bettor is simply returned to him when paid.

    >>> side_pots([10, 30, 30, 5], [True, True, True, False])
    [{'amount': 35, 'eligible': [0, 1, 2]}, {'amount': 40, 'eligible': [1, 2]}]
    """
    levels = sorted({c for c, alive in zip(committed, live) if alive and c > 0})
    pots: list[dict[str, Any]] = []
    prev = 0
    for level in levels:
        amount = sum(max(0, min(c, level) - prev) for c in committed)
        eligible = [s for s, c in enumerate(committed) if live[s] and c >= level]
        if pots and pots[-1]["eligible"] == eligible:
            pots[-1]["amount"] += amount
        else:
            pots.append({"amount": amount, "eligible": eligible})
        prev = level
    leftover = sum(max(0, c - prev) for c in committed)
    if leftover:
        if pots:
            pots[-1]["amount"] += leftover
        else:  # nobody live has put anything in: cannot happen in a real hand
            pots.append({"amount": leftover, "eligible": []})
    return pots


# ---------------------------------------------------------------------------------------------
# The hand
# ---------------------------------------------------------------------------------------------

def _illegal(detail: str, code: str) -> IllegalAction:
    return IllegalAction(detail, code=code)


@dataclass
class HandState:
    """The whole state of one hand; every field is JSON-ready (ints, strings, lists, dicts).

    Chips: ``stacks[s]`` is the seat's front (resto) when the hand began; ``committed[s]`` what
    it has put in since. Cards (dealt mode only): ``stock`` (top first), ``pile`` (thrown
    discards and folded hands), ``hands``, ``kept`` (cards kept face up to a player's right).
    ``restocks``: one public record per reshuffle, ``{"count", "clean", "drawers"}``: how many
    cards the pile held, whether it held no folded or declined hand (``clean``: every card in it
    was thrown face up), and the seats that drew from the new stock it made (what the table sees;
    :mod:`service.gofo.deal` decides from it which cards a finished hand may open).
    """

    mode: str
    n: int
    dealer: int
    mano: int
    stacks: list[int]
    committed: list[int]
    status: list[str]
    blind: list[bool]
    looked: list[bool]
    phase: str = "shuffle"
    queue: list[int] = field(default_factory=list)
    opening: int = 0
    bet: dict[str, Any] | None = None
    dealer_offered: bool = False
    round: int = 0
    after_corte: bool = False
    final_discard: bool = False
    keep_right: bool = False
    stock: list[str] = field(default_factory=list)
    pile: list[str] = field(default_factory=list)
    hands: list[list[str]] = field(default_factory=list)
    kept: list[list[str]] = field(default_factory=list)
    kept_count: list[int] = field(default_factory=list)
    round_discards: list[list[str]] = field(default_factory=list)
    pending_draw: dict[str, int] | None = None
    known_pile: list[str] = field(default_factory=list)
    discard_log: list[dict[str, Any]] = field(default_factory=list)
    restocks: list[dict[str, Any]] = field(default_factory=list)
    mucked_since_restock: bool = False
    canto: dict[str, Any] | None = None
    result: dict[str, Any] | None = None

    # --- construction and serialisation ------------------------------------------------------

    @classmethod
    def new(cls, mode: str, dealer: int, stacks: list[int]) -> "HandState":
        """A hand about to be dealt. ``stacks``: every table seat's front, all ≥ 1."""
        n = len(stacks)
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        if not 2 <= n <= 6 or not 0 <= dealer < n or min(stacks) < 1:
            raise ValueError("a hand needs 2–6 seats, a dealer among them and chips in every front")
        mano = (dealer + 1) % n
        status = [PENDING] * n
        if n > MAX_PLAYERS_IN_HAND:
            status[dealer] = OUT
        hand = cls(
            mode=mode, n=n, dealer=dealer, mano=mano, stacks=list(stacks), committed=[0] * n,
            status=status, blind=[False] * n, looked=[False] * n,
            hands=[[] for _ in range(n)], kept=[[] for _ in range(n)], kept_count=[0] * n,
            round_discards=[[] for _ in range(n)],
        )
        if mode == TABLETOP:
            hand.phase = "opening"
            hand.queue = [mano]
        return hand

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(asdict(self))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HandState":
        return cls(**copy.deepcopy(data))

    # --- questions -----------------------------------------------------------------------------

    def order_from(self, start: int) -> list[int]:
        """All seats, in order of play, starting with ``start``."""
        return [(start + i) % self.n for i in range(self.n)]

    def remaining(self, seat: int) -> int:
        """Chips the seat can still bet (its resto)."""
        return self.stacks[seat] - self.committed[seat]

    def live(self) -> list[int]:
        """Seats still in the hand, from mano."""
        return [s for s in self.order_from(self.mano) if self.status[s] == IN]

    def all_in(self, seat: int) -> bool:
        return self.status[seat] == IN and self.remaining(seat) == 0

    def can_bet(self) -> list[int]:
        """Live seats that are not all-in, from mano."""
        return [s for s in self.live() if self.remaining(s) > 0]

    def is_over(self) -> bool:
        return self.phase == "over"

    def to_act(self) -> int | None:
        """The seat whose turn it is; ``None`` when chance must move or the hand is over."""
        if self.phase in ("shuffle", "reshuffle", "over") or not self.queue:
            return None
        return self.queue[0]

    def chance_request(self) -> dict[str, Any] | None:
        """Which chance input is needed now, if any.

        ``{"kind": "shuffle", "cards": [...28]}`` – supply ``Shuffle(order)``, a permutation.
        ``{"kind": "reshuffle", "cards": [...]}`` – supply ``Reshuffle(order)``, a permutation
        of exactly those cards (the pile); the engine layers it as the rule book says.
        """
        if self.phase == "shuffle":
            return {"kind": "shuffle", "cards": list(DECK)}
        if self.phase == "reshuffle":
            return {"kind": "reshuffle", "cards": sort_cards(self.pile)}
        return None

    def distance(self, seat: int) -> int:
        """Distance from mano's seat (0 for mano), counted even if mano folded."""
        return (seat - self.mano) % self.n

    def pots(self) -> list[dict[str, Any]]:
        """The pots as they stand, each with its eligible live seats."""
        return side_pots(self.committed, [st == IN for st in self.status])

    def opening_range(self) -> tuple[int, int]:
        """Smallest and largest legal opening: below every front at the table, at least 1."""
        smallest = min(self.stacks)
        return 1, max(1, smallest - 1)

    def raise_range(self, seat: int) -> tuple[int, int]:
        """Allowed raise/refiche amounts: at least the previous bet or raise, or all-in."""
        last = self.bet["last_raise"] if self.bet else self.opening
        rem = self.remaining(seat) - self._deficit(seat)
        return min(last, rem), rem

    def max_discard(self, seat: int) -> int:
        """How many cards the seat may discard now."""
        if self.mode == DEALT and self.keep_right:
            return min(HAND_SIZE, len(self.stock) + len(self.pile))
        return HAND_SIZE

    def _deficit(self, seat: int) -> int:
        if self.bet is None:
            return 0
        return max(0, self.bet["level"] - self.committed[seat])

    def _can_look(self, seat: int) -> bool:
        if self.looked[seat] or self.status[seat] not in (PENDING, IN):
            return False
        if self.phase in ("shuffle", "over") or self.phase == "opening" and seat == self.mano:
            return False
        return self.mode == TABLETOP or bool(self.hands[seat])

    def legal_actions(self, seat: int) -> list[LegalAction]:
        """What ``seat`` may do now (empty when nothing)."""
        if self.phase == "over" or not isinstance(seat, int) or not 0 <= seat < self.n:
            return []
        acts: list[LegalAction] = []
        if self._can_look(seat):
            acts.append(LegalAction("look"))
        if self.mode == TABLETOP and self.phase == "discard" and seat == self.dealer:
            acts.append(LegalAction("reshuffle"))
        if self._may_muck(seat):
            acts.append(LegalAction("muck"))
        if self._may_correct(seat) and self.to_act() != seat:
            acts.append(LegalAction("declare", MIN_VALUE, MAX_VALUE))
        if self.to_act() != seat:
            return acts
        phase = self.phase
        if phase == "opening":
            lo, hi = self.opening_range()
            acts.append(LegalAction("open", lo, hi))
        elif phase == "entering":
            if not self.looked[seat]:
                acts.append(LegalAction("enter", blind=True))
            acts += [LegalAction("enter", blind=False), LegalAction("decline")]
        elif phase == "raising":
            lo, hi = self.raise_range(seat)
            acts += [LegalAction("raise", lo, hi), LegalAction("pass")]
        elif phase == "speaking":
            acts += [LegalAction("voy"), LegalAction("corta", 1, self.remaining(seat))]
        elif phase == "betting":
            assert self.bet is not None
            if self.bet["stage"] == "answer":
                acts += [LegalAction("ver"), LegalAction("no_ver")]
            else:
                lo, hi = self.raise_range(seat)
                kind = "raise" if self.bet["context"] == "opening" else "refiche"
                acts += [LegalAction(kind, lo, hi), LegalAction("pass")]
        elif phase == "discard":
            cards = tuple(self.hands[seat]) if self.mode == DEALT else None
            acts.append(LegalAction("discard", 0, self.max_discard(seat), cards=cards))
        elif phase == "canto":
            assert self.canto is not None
            acts.append(LegalAction("show"))
            if self.canto["stage"] == "declare" or self._may_correct(seat):
                acts.append(LegalAction("declare", MIN_VALUE, MAX_VALUE))
        return acts

    def default_action(self, seat: int) -> Action | None:
        """The move a silent player is taken to make when his time runs out (a table deadline).

        What a player who says nothing does at a real table: he does not see a bet (no ver), does
        not raise (pass), says voy, declines to enter, stands pat at a discard; a mano who does not
        open opens the minimum (1 chip), since the hand cannot start without an opening. At the
        tabletop canto there is no default (the cards are on the table): ``None``.
        """
        if self.to_act() != seat:
            return None
        legal = {a.type: a for a in self.legal_actions(seat)}
        for kind, make in (("no_ver", NoVer), ("pass", Pass), ("voy", Voy), ("decline", Decline)):
            if kind in legal:
                return make()
        if "discard" in legal:
            return Discard((), None if self.mode == DEALT else 0)
        if "open" in legal:
            return Open(legal["open"].min)
        return None

    def is_legal(self, seat: int | None, action: Action) -> bool:
        try:
            self.apply(seat, action)
        except IllegalAction:
            return False
        except InvalidAction:
            return False
        return True

    # --- applying actions ---------------------------------------------------------------------

    def apply(self, seat: int | None, action: Action) -> tuple["HandState", list[dict[str, Any]]]:
        """Apply ``action`` by ``seat`` (``None`` for chance); return the new state and events.

        Raises a :class:`service.errors.RefereeError` and leaves ``self`` unchanged when the
        action is malformed or illegal.
        """
        if not isinstance(action, Action):
            raise _bad("not a Gofo action")
        new = copy.deepcopy(self)
        events: list[dict[str, Any]] = []
        new._apply(seat, action, events)
        return new, events

    def _apply(self, seat: int | None, action: Action, ev: list[dict[str, Any]]) -> None:
        if self.phase == "over":
            raise GameOver("the hand is over", code="hand_over")
        if action.CHANCE and seat is None:
            return self._apply_chance(action, ev)
        if seat is None or isinstance(seat, bool) or not isinstance(seat, int) \
                or not 0 <= seat < self.n:
            raise InvalidAction(f"no seat {seat!r} at this table", code="bad_seat")
        if isinstance(action, Look):
            return self._look(seat, ev)
        if isinstance(action, Reshuffle):
            return self._tabletop_reshuffle(seat, action, ev)
        if isinstance(action, Muck):
            return self._muck_at_canto(seat, ev)
        if isinstance(action, Declare) and self._may_correct(seat):
            return self._correct_declaration(seat, action, ev)
        if isinstance(action, Declare) and self.phase == "canto" and self.canto is not None \
                and self.canto["declared"][seat] is not None:
            raise _illegal("a declaration can be corrected only until someone has shown cards",
                           "declaration_locked")
        if action.CHANCE:
            raise _illegal("chance actions are not made by a seat", "chance_action")
        if self.phase in ("shuffle", "reshuffle"):
            raise WrongPhase("waiting for the cards to be shuffled", code="waiting_for_chance")
        if self.to_act() != seat:
            raise NotYourTurn(f"it is seat {self.to_act()}'s turn, not seat {seat}'s")
        handlers: dict[type, tuple[str, Callable[[int, Any, list[dict[str, Any]]], None]]] = {
            Open: ("opening", self._open), Enter: ("entering", self._enter),
            Decline: ("entering", self._decline), Raise: ("raising", self._raise),
            Refiche: ("betting", self._raise), Pass: ("raising", self._pass),
            Ver: ("betting", self._ver), NoVer: ("betting", self._no_ver),
            Voy: ("speaking", self._voy), Corta: ("speaking", self._corta),
            Discard: ("discard", self._discard), Show: ("canto", self._show),
            Declare: ("canto", self._declare),
        }
        if type(action) not in handlers:
            raise _bad(f"{action.TYPE!r} is not a hand action")
        phase, fn = handlers[type(action)]
        if type(action) in (Raise, Pass) and self.phase == "betting":
            phase = "betting"
        if self.phase != phase:
            raise WrongPhase(f"{action.TYPE} is not possible in phase {self.phase}")
        fn(seat, action, ev)

    # chance --------------------------------------------------------------------------------

    def _apply_chance(self, action: Action, ev: list[dict[str, Any]]) -> None:
        if isinstance(action, Shuffle):
            if self.phase != "shuffle":
                raise WrongPhase("no shuffle is expected now", code="unexpected_chance")
            order = list(action.order)
            if sorted(order) != sorted(DECK) or not all(is_card(c) for c in order):
                raise InvalidAction("a deck order is a permutation of the 28 cards",
                                    code="bad_deck_order")
            self.stock = order
            ev.append({"type": "shuffled"})
            for s in self.order_from(self.mano):
                if self.status[s] == PENDING:
                    self.hands[s] = self._take(2)
                    ev.append({"type": "dealt", "seat": s, "count": 2})
            self.phase = "opening"
            self.queue = [self.mano]
            return None
        if isinstance(action, Reshuffle):
            if self.phase != "reshuffle" or action.order is None:
                raise WrongPhase("no reshuffle is expected now", code="unexpected_chance")
            order = list(action.order)
            if sorted(order) != sorted(self.pile) or len(set(order)) != len(order):
                raise InvalidAction("a reshuffle orders exactly the cards of the pile",
                                    code="bad_deck_order")
            assert self.pending_draw is not None
            seat = self.pending_draw["seat"]
            own = set(self.round_discards[seat])
            this_round = {c for s in range(self.n) if s != seat for c in self.round_discards[s]}
            older = [c for c in order if c not in own and c not in this_round]
            newer = [c for c in order if c in this_round]
            mine = [c for c in order if c in own]
            self.stock = self.stock + older + newer + mine
            self.pile = []
            self.restocks.append({"count": len(order), "clean": not self.mucked_since_restock,
                                  "drawers": []})
            self.mucked_since_restock = False
            ev.append({"type": "reshuffled", "count": len(order)})
            need = self.pending_draw["count"]
            self.pending_draw = None
            self.phase = "discard"
            self._draw(seat, need)
            return self._after_discard(ev)
        raise _illegal(f"{action.TYPE} is not a chance action", "chance_action")

    def _take(self, count: int) -> list[str]:
        assert len(self.stock) >= count, "stock exhausted"
        taken, self.stock = self.stock[:count], self.stock[count:]
        return taken

    # opening and entering ------------------------------------------------------------------

    def _look(self, seat: int, ev: list[dict[str, Any]]) -> None:
        if not self._can_look(seat):
            if self.looked[seat]:
                raise _illegal("you have already looked", "already_looked")
            raise _illegal("you have no unseen cards to look at now", "cannot_look")
        self.looked[seat] = True
        ev.append({"type": "looked", "seat": seat})

    def _open(self, seat: int, action: Open, ev: list[dict[str, Any]]) -> None:
        lo, hi = self.opening_range()
        if action.amount < lo:
            raise _illegal("the opening is at least 1 chip", "opening_too_small")
        if action.amount > hi:
            raise _illegal(f"the opening must be below every front at the table (≤ {hi})",
                           "opening_too_large")
        self.opening = action.amount
        self.committed[seat] = action.amount
        self.status[seat] = IN
        self.blind[seat] = True
        ev.append({"type": "opened", "seat": seat, "amount": action.amount,
                   "all_in": self.remaining(seat) == 0})
        self.phase = "entering"
        self.queue = [s for s in self.order_from(self.mano) if self.status[s] == PENDING]
        self._next_entering(ev)

    def _enter(self, seat: int, action: Enter, ev: list[dict[str, Any]]) -> None:
        if action.blind and self.looked[seat]:
            raise _illegal("you have looked at your cards: you cannot enter blind",
                           "already_looked")
        if not action.blind:
            self.looked[seat] = True
        put = min(self.opening, self.remaining(seat))
        self.committed[seat] += put
        self.status[seat] = IN
        self.blind[seat] = action.blind
        ev.append({"type": "entered", "seat": seat, "blind": action.blind, "amount": put,
                   "all_in": self.remaining(seat) == 0})
        self.queue.pop(0)
        self._next_entering(ev)

    def _decline(self, seat: int, action: Decline, ev: list[dict[str, Any]]) -> None:
        self.status[seat] = DECLINED
        self._muck(seat)
        ev.append({"type": "declined", "seat": seat})
        self.queue.pop(0)
        self._next_entering(ev)

    def _next_entering(self, ev: list[dict[str, Any]]) -> None:
        if self.queue:
            return
        if (self.status[self.dealer] == OUT and not self.dealer_offered
                and DECLINED in self.status):
            # six at the table and someone declined: the dealer may deal himself in
            self.dealer_offered = True
            self.status[self.dealer] = PENDING
            if self.mode == DEALT:
                self.hands[self.dealer] = self._take(2)
            ev.append({"type": "dealt", "seat": self.dealer, "count": 2, "dealer_buy_in": True})
            self.queue = [self.dealer]
            return
        if len(self.live()) < 2:
            return self._finish_uncontested(ev)
        self._start_raising(ev)

    def _muck(self, seat: int) -> None:
        """A declined or folded hand goes back to the pile, unseen."""
        if self.mode == DEALT:
            self.mucked_since_restock = self.mucked_since_restock or bool(self.hands[seat])
            self.pile += self.hands[seat]
            self.hands[seat] = []

    # raising the opening, cortes and refiches ------------------------------------------------

    def _start_raising(self, ev: list[dict[str, Any]]) -> None:
        self.phase = "raising"
        self.bet = None
        if len(self.can_bet()) < 2:
            self.queue = []
        else:
            self.queue = [s for s in self.can_bet() if self.blind[s]]
        if not self.queue:
            self._complete(ev)

    def _raise(self, seat: int, action: Raise | Refiche, ev: list[dict[str, Any]]) -> None:
        if self.phase == "betting":
            assert self.bet is not None
            if self.bet["stage"] != "refiche":
                raise WrongPhase("answer the bet first: ver or no ver", code="must_answer")
            want = Raise if self.bet["context"] == "opening" else Refiche
            if not isinstance(action, want):
                raise WrongPhase(f"use {want.TYPE} here")
        elif not isinstance(action, Raise):
            raise WrongPhase("refiche is only possible after a corte")
        self._place_bet(seat, action.amount, "opening" if isinstance(action, Raise) else "corte",
                        action.TYPE, ev)

    def _place_bet(self, seat: int, amount: int, context: str, kind: str,
                   ev: list[dict[str, Any]]) -> None:
        if self.phase == "speaking":
            lo, hi = 1, self.remaining(seat)
        else:
            lo, hi = self.raise_range(seat)
        if amount > hi:
            raise _illegal(f"you can bet at most your resto ({hi})", "bet_above_resto")
        if amount < max(1, lo):
            raise _illegal(f"the bet must be at least {max(1, lo)} (or all your resto)",
                           "bet_below_minimum")
        put = self._deficit(seat) + amount
        self.committed[seat] += put
        all_in = self.remaining(seat) == 0
        last = self.bet["last_raise"] if self.bet else (self.opening if context == "opening"
                                                        else 0)
        self.bet = {
            "context": context, "bettor": seat, "level": self.committed[seat],
            "last_raise": max(amount, last) if all_in else amount,
            "stage": "answer", "closed": all_in,
        }
        self.phase = "betting"
        ev.append({"type": kind, "seat": seat, "amount": amount, "level": self.committed[seat],
                   "all_in": all_in})
        self.queue = [s for s in self.order_from(seat)[1:]
                      if self.status[s] == IN and self.remaining(s) > 0
                      and self.committed[s] < self.committed[seat]]
        self._next_betting(ev)

    def _pass(self, seat: int, action: Pass, ev: list[dict[str, Any]]) -> None:
        if self.phase == "betting":
            assert self.bet is not None
            if self.bet["stage"] != "refiche":
                raise WrongPhase("answer the bet first: ver or no ver", code="must_answer")
        ev.append({"type": "pass", "seat": seat})
        self.queue.pop(0)
        if self.phase == "raising":
            if not self.queue:
                self._complete(ev)
            return
        self._next_betting(ev)

    def _ver(self, seat: int, action: Ver, ev: list[dict[str, Any]]) -> None:
        assert self.bet is not None
        if self.bet["stage"] != "answer":
            raise WrongPhase("nothing to answer: refiche or pass", code="nothing_to_answer")
        put = min(self._deficit(seat), self.remaining(seat))
        self.committed[seat] += put
        ev.append({"type": "ver", "seat": seat, "amount": put, "all_in": self.remaining(seat) == 0})
        self.queue.pop(0)
        self._next_betting(ev)

    def _no_ver(self, seat: int, action: NoVer, ev: list[dict[str, Any]]) -> None:
        assert self.bet is not None
        if self.bet["stage"] != "answer":
            raise WrongPhase("nothing to answer: refiche or pass", code="nothing_to_answer")
        self.status[seat] = FOLDED
        self._muck(seat)
        ev.append({"type": "no_ver", "seat": seat})
        self.queue.pop(0)
        if len(self.live()) < 2:
            return self._finish_uncontested(ev)
        self._next_betting(ev)

    def _next_betting(self, ev: list[dict[str, Any]]) -> None:
        assert self.bet is not None
        if self.queue:
            return
        if self.bet["stage"] == "answer" and not self.bet["closed"]:
            bettor = self.bet["bettor"]
            self.bet["stage"] = "refiche"
            self.queue = [s for s in self.order_from(bettor)[1:]
                          if self.status[s] == IN and self.remaining(s) > 0]
            if self.queue:
                return
        # matched by all the following with nobody raising: betting closes
        context = self.bet["context"]
        self.bet = None
        ev.append({"type": "betting_closed"})
        if context == "opening":
            self._complete(ev)
        else:
            self.after_corte = True
            self._start_discard(ev, final=True)

    # completion, speaking, discards ----------------------------------------------------------

    def _complete(self, ev: list[dict[str, Any]]) -> None:
        """Deal three more cards one at a time to each player still in (the abanico)."""
        self.bet = None
        players = self.live()
        if self.mode == DEALT:
            for _ in range(3):
                for s in players:
                    self.hands[s] += self._take(1)
        for s in players:
            self.looked[s] = True
        ev.append({"type": "completed", "seats": players})
        self._start_speaking(1, ev)

    def _start_speaking(self, rnd: int, ev: list[dict[str, Any]]) -> None:
        self.round = rnd
        self.phase = "speaking"
        self.queue = self.can_bet()
        ev.append({"type": "speaking_round", "round": rnd})
        if len(self.queue) < 2:  # nobody could answer a corte: the round is silent
            self.queue = []
            self._start_discard(ev, final=rnd >= SPEAKING_ROUNDS)

    def _voy(self, seat: int, action: Voy, ev: list[dict[str, Any]]) -> None:
        ev.append({"type": "voy", "seat": seat})
        self.queue.pop(0)
        if not self.queue:
            self._start_discard(ev, final=self.round >= SPEAKING_ROUNDS)

    def _corta(self, seat: int, action: Corta, ev: list[dict[str, Any]]) -> None:
        self.bet = None
        self._place_bet(seat, action.amount, "corte", "corta", ev)

    def _start_discard(self, ev: list[dict[str, Any]], *, final: bool) -> None:
        self.phase = "discard"
        self.final_discard = final
        players = self.live()
        self.keep_right = self.after_corte and len(players) in (2, 3)
        self.round_discards = [[] for _ in range(self.n)]
        self.queue = players
        ev.append({"type": "discard_round", "round": self.round, "final": final,
                   "kept_right": self.keep_right})

    def _discard(self, seat: int, action: Discard, ev: list[dict[str, Any]]) -> None:
        cards = parse_cards(action.cards)
        if self.mode == DEALT:
            if action.count is not None and action.count != len(cards):
                raise InvalidAction("count does not match the cards", code="count_mismatch")
            missing = [c for c in cards if c not in self.hands[seat]]
            if missing:
                raise _illegal(f"not in your hand: {missing}", "card_not_in_hand")
            count = len(cards)
        else:
            count = len(cards) if action.count is None else action.count
            if cards and count != len(cards):
                raise InvalidAction("count does not match the cards", code="count_mismatch")
            known = set(self.known_pile) | {c for k in self.kept for c in k}
            if known & set(cards):
                raise _illegal(f"already discarded: {sort_cards(known & set(cards))}",
                               "duplicate_card")
        if not 0 <= count <= self.max_discard(seat):
            raise _illegal(f"you may discard 0 to {self.max_discard(seat)} cards",
                           "bad_discard_count")
        kept = self.keep_right
        if self.mode == DEALT:
            self.hands[seat] = [c for c in self.hands[seat] if c not in cards]
            if kept:
                self.kept[seat] += cards
            else:
                self.pile += cards
                self.round_discards[seat] = list(cards)
        elif kept:
            self.kept[seat] += cards
        else:
            self.known_pile += cards
        if kept:
            self.kept_count[seat] += count
        shown = list(cards) if (self.mode == DEALT or cards) else None
        entry = {"round": self.round, "seat": seat, "count": count, "cards": shown, "kept": kept}
        self.discard_log.append(entry)
        ev.append({"type": "discarded", **entry})
        if self.mode == DEALT:
            if len(self.stock) < count:
                self.pending_draw = {"seat": seat, "count": count - len(self.stock)}
                self._draw(seat, len(self.stock))
                self.phase = "reshuffle"
                return None
            self._draw(seat, count)
        self._after_discard(ev)

    def _draw(self, seat: int, count: int) -> None:
        """Dealt mode: ``seat`` draws ``count`` cards from the top of the stock (recorded as a
        drawer of the last reshuffle's stock, when there was one)."""
        if count and self.restocks and seat not in self.restocks[-1]["drawers"]:
            self.restocks[-1]["drawers"].append(seat)
        self.hands[seat] += self._take(count)

    def _after_discard(self, ev: list[dict[str, Any]]) -> None:
        self.queue.pop(0)
        if self.queue:
            return
        if self.final_discard:
            self._start_canto(ev)
        else:
            self._start_speaking(self.round + 1, ev)

    def _tabletop_reshuffle(self, seat: int, action: Reshuffle, ev: list[dict[str, Any]]) -> None:
        if self.mode != TABLETOP or action.order is not None:
            raise _illegal("in dealt mode the referee reshuffles (a chance input)",
                           "chance_action")
        if self.phase != "discard" or seat != self.dealer:
            raise _illegal("only the dealer reports a reshuffle, during a discard",
                           "cannot_reshuffle")
        self.known_pile = []
        ev.append({"type": "reshuffled", "count": None})

    # canto and payment ---------------------------------------------------------------------

    def _start_canto(self, ev: list[dict[str, Any]]) -> None:
        players = self.live()
        if self.mode == DEALT:
            shown: list[list[str] | None] = [None] * self.n
            values: list[int | None] = [None] * self.n
            for s in players:
                shown[s] = sort_cards(self.hands[s])
                values[s] = hand_value(self.hands[s])
            ev.append({"type": "canto", "shown": shown, "values": values})
            return self._pay(values, shown, "canto", ev)
        self.phase = "canto"
        self.canto = {"stage": "declare", "cards": [None] * self.n,
                      "declared": [None] * self.n}
        self.queue = players
        ev.append({"type": "canto_started", "seats": players})

    def _show(self, seat: int, action: Show, ev: list[dict[str, Any]]) -> None:
        assert self.canto is not None
        cards = parse_cards(action.cards)
        if len(cards) != HAND_SIZE:
            raise InvalidAction("a hand has 5 cards", code="bad_hand_size")
        taken = set(self.known_pile) | {c for k in self.kept for c in k}
        for s, other in enumerate(self.canto["cards"]):
            if other is not None and s != seat:
                taken |= set(other)
        clash = taken & set(cards)
        if clash:
            raise _illegal(f"already elsewhere: {sort_cards(clash)}", "duplicate_card")
        value = hand_value(cards)
        declared = self.canto["declared"][seat]
        if declared is not None and declared != value:
            raise _illegal(f"these cards are worth {value}, not the {declared} declared",
                           "declared_value_mismatch")
        self.canto["cards"][seat] = sort_cards(cards)
        ev.append({"type": "shown", "seat": seat, "cards": sort_cards(cards), "value": value})
        self.queue.pop(0)
        self._next_canto(ev)

    def _declare(self, seat: int, action: Declare, ev: list[dict[str, Any]]) -> None:
        assert self.canto is not None
        if self.canto["stage"] != "declare":
            raise WrongPhase("show the cards of your declared points", code="must_show")
        if not MIN_VALUE <= action.points <= MAX_VALUE:
            raise InvalidAction(f"points are {MIN_VALUE}..{MAX_VALUE}", code="bad_points")
        self.canto["declared"][seat] = action.points
        ev.append({"type": "declared", "seat": seat, "points": action.points})
        self.queue.pop(0)
        self._next_canto(ev)

    def _nobody_shown(self) -> bool:
        assert self.canto is not None
        return all(cards is None for cards in self.canto["cards"])

    def _may_correct(self, seat: int) -> bool:
        """A declaration may be corrected (declared again) while nobody has entered cards."""
        return (self.phase == "canto" and self.canto is not None and 0 <= seat < self.n
                and self.status[seat] == IN and self.canto["declared"][seat] is not None
                and self._nobody_shown())

    def _may_muck(self, seat: int) -> bool:
        """A live player who has not entered cards may concede at the canto."""
        return (self.phase == "canto" and self.canto is not None and 0 <= seat < self.n
                and self.status[seat] == IN and self.canto["cards"][seat] is None)

    def _correct_declaration(self, seat: int, action: Declare, ev: list[dict[str, Any]]) -> None:
        assert self.canto is not None
        if not MIN_VALUE <= action.points <= MAX_VALUE:
            raise InvalidAction(f"points are {MIN_VALUE}..{MAX_VALUE}", code="bad_points")
        was = self.canto["declared"][seat]
        self.canto["declared"][seat] = action.points
        ev.append({"type": "declaration_corrected", "seat": seat, "points": action.points, "was": was})
        if self.canto["stage"] == "show":  # who must show depends on the declarations: judge again
            self.canto["stage"] = "declare"
            self.queue = []
            self._next_canto(ev)

    def _muck_at_canto(self, seat: int, ev: list[dict[str, Any]]) -> None:
        if self.phase != "canto" or self.canto is None:
            raise WrongPhase("mucking is conceding at the canto; fold to a bet with no ver",
                             code="wrong_phase")
        if self.status[seat] != IN:
            raise _illegal("you are not in the hand", "not_in_hand")
        if self.canto["cards"][seat] is not None:
            raise _illegal("you have shown your cards already", "already_shown")
        self.status[seat] = FOLDED
        self.canto["declared"][seat] = None
        self.queue = [s for s in self.queue if s != seat]
        ev.append({"type": "mucked", "seat": seat})
        if len(self.live()) < 2:  # the last claimant takes every pot, without showing
            return self._pay([None] * self.n, list(self.canto["cards"]), "uncontested", ev)
        if self.canto["stage"] == "show":
            self.canto["stage"] = "declare"
            self.queue = []
        self._next_canto(ev)

    def _canto_values(self) -> list[int | None]:
        assert self.canto is not None
        values: list[int | None] = [None] * self.n
        for s in self.live():
            cards = self.canto["cards"][s]
            values[s] = hand_value(cards) if cards is not None else self.canto["declared"][s]
        return values

    def _next_canto(self, ev: list[dict[str, Any]]) -> None:
        assert self.canto is not None
        if self.queue:
            return
        values = self._canto_values()
        if self.canto["stage"] == "declare":
            # a pot only one seat can win (its own uncovered bet, or everyone else conceded) needs no cards
            winners = {self._pot_winner(p["eligible"], values) for p in self.pots() if len(p["eligible"]) > 1}
            must_show = [s for s in self.live()
                         if s in winners and self.canto["cards"][s] is None]
            if must_show:
                self.canto["stage"] = "show"
                self.queue = must_show
                return
        self._pay(values, list(self.canto["cards"]), "canto", ev)

    def _pot_winner(self, eligible: list[int], values: list[int | None]) -> int:
        return max(eligible, key=lambda s: (values[s], -self.distance(s)))

    def _finish_uncontested(self, ev: list[dict[str, Any]]) -> None:
        self._pay([None] * self.n, [None] * self.n, "uncontested", ev)

    def _pay(self, values: list[int | None], shown: list[Any], reason: str,
             ev: list[dict[str, Any]]) -> None:
        payouts = [0] * self.n
        pots = self.pots()
        for i, pot in enumerate(pots):
            if reason == "uncontested" or len(pot["eligible"]) == 1:
                winner = pot["eligible"][0]
            else:
                winner = self._pot_winner(pot["eligible"], values)
            pot["winner"] = winner
            payouts[winner] += pot["amount"]
            ev.append({"type": "pot_won", "pot": i, "amount": pot["amount"], "winner": winner,
                       "eligible": pot["eligible"]})
        assert sum(payouts) == sum(self.committed)
        self.result = {"reason": reason, "pots": pots, "payouts": payouts,
                       "shown": shown, "values": values,
                       "net": [payouts[s] - self.committed[s] for s in range(self.n)]}
        self.phase = "over"
        self.queue = []
        self.bet = None
        ev.append({"type": "hand_over", "reason": reason, "payouts": payouts})

    # --- the observer ----------------------------------------------------------------------

    def view(self, seat: int | None = None) -> dict[str, Any]:
        """What ``seat`` may see (``None``: the public view). Cards appear only when allowed:
        one's own (the first two once looked at), face-up discards, cards kept to the right,
        and the hands shown at the canto."""
        public: dict[str, Any] = {
            "mode": self.mode, "phase": self.phase, "dealer": self.dealer, "mano": self.mano,
            "to_act": self.to_act(), "chance": (self.chance_request() or {}).get("kind"),
            "opening": self.opening, "round": self.round, "after_corte": self.after_corte,
            "final_discard": self.final_discard, "keep_right": self.keep_right,
            "status": list(self.status), "blind": list(self.blind), "looked": list(self.looked),
            "stacks": list(self.stacks), "committed": list(self.committed),
            "resto": [self.remaining(s) for s in range(self.n)],
            "pots": self.pots(), "bet": copy.deepcopy(self.bet),
            "discards": copy.deepcopy(self.discard_log),
            "kept": [list(k) for k in self.kept], "kept_count": list(self.kept_count),
            "result": copy.deepcopy(self.result),
        }
        if self.mode == DEALT:
            public["card_counts"] = [len(h) for h in self.hands]
            public["stock_count"] = len(self.stock)
            public["pile_count"] = len(self.pile)
        if self.canto is not None:
            public["canto"] = {"stage": self.canto["stage"],
                               "declared": list(self.canto["declared"]),
                               "cards": copy.deepcopy(self.canto["cards"])}
        if seat is not None:
            public["seat"] = seat
            public["legal_actions"] = [a.to_dict() for a in self.legal_actions(seat)]
            if self.mode == DEALT:
                public["my_cards"] = self.visible_cards(seat)
                mine = public["my_cards"]
                public["my_value"] = hand_value(mine) if len(mine) == HAND_SIZE else None
        return public

    def visible_cards(self, seat: int) -> list[str]:
        """The cards of its own hand that ``seat`` may see now (dealt mode)."""
        if self.mode != DEALT or self.status[seat] not in (PENDING, IN):
            return []
        cards = self.hands[seat]
        return list(cards) if self.looked[seat] else list(cards[2:])

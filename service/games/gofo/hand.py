"""One hand of Gofo: the state machine, through the steps of the rule book (``docs/rules/gofo.md``):

``shuffle`` → ``opening`` → ``entering`` (with six at the table the sitting-out dealer may then buy in)
→ ``raising`` → ``betting`` (ver / no ver, then refiches) → 3-card completion → ``speaking`` (at most
four rounds) ↔ ``discard`` → ``canto`` → ``over``; ``reshuffle`` interrupts a discard the stock cannot
cover.  Each phase: :class:`~service.games.gofo.rules.Phase`.

:meth:`HandState.apply` checks the whole move first, then applies it in place.  Seats are table
seats ``0..n-1``; "next" is ``seat + 1 (mod n)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from service.errors import GameOver, IllegalAction, InvalidAction, NotYourTurn, WrongPhase

from service.games.gofo.actions import (  # noqa: F401 - the action types are named here too, for callers of the hand
    Action, Corta, Declare, Decline, Discard, Enter, LegalAction, Look, Muck, NoVer, Open,
    Pass, Raise, Refiche, Reshuffle, Show, Shuffle, Ver, Voy,
)
from service.games.gofo.betting import Bet, Betting, side_pots  # noqa: F401
from service.games.gofo.canto import Canto, Showdown
from service.games.gofo.cards import DECK, sort_cards
from service.games.gofo.rules import (
    MAX_PLAYERS_IN_HAND, MODES, BetContext, BetStage, CantoStage, Mode, Phase, Status,
)
from service.games.gofo.records import DiscardRecord, HandResult, Restock
from service.games.gofo.stock import PendingDraw, Stock
from service.games.gofo.value import MAX_VALUE, MIN_VALUE

_CHANCE_PHASES = (Phase.SHUFFLE, Phase.RESHUFFLE, Phase.OVER)

# A seat's move on its turn: the phase it belongs to, then its check and its application.
_TURN_MOVES: dict[type, tuple[Phase, Callable[..., None], Callable[..., None]]] = {
    Open: (Phase.OPENING, Betting._check_open, Betting._do_open),
    Enter: (Phase.ENTERING, Betting._check_enter, Betting._do_enter),
    Decline: (Phase.ENTERING, Betting._check_decline, Betting._do_decline),
    Raise: (Phase.RAISING, Betting._check_raise, Betting._do_raise),
    Refiche: (Phase.BETTING, Betting._check_raise, Betting._do_raise),
    Pass: (Phase.RAISING, Betting._check_pass, Betting._do_pass),
    Ver: (Phase.BETTING, Betting._check_answer, Betting._do_ver),
    NoVer: (Phase.BETTING, Betting._check_answer, Betting._do_no_ver),
    Voy: (Phase.SPEAKING, Betting._check_voy, Betting._do_voy),
    Corta: (Phase.SPEAKING, Betting._check_corta, Betting._do_corta),
    Discard: (Phase.DISCARD, Stock._check_discard, Stock._do_discard),
    Show: (Phase.CANTO, Showdown._check_show, Showdown._do_show),
    Declare: (Phase.CANTO, Showdown._check_declare, Showdown._do_declare),
}


@dataclass
class HandState(Betting, Stock, Showdown):
    """The whole state of one hand.

    Chips: ``stacks[s]`` is the seat's front (resto) when the hand began; ``committed[s]`` what
    it has put in since. Cards (dealt mode only): ``stock`` (top first), ``pile`` (thrown
    discards and folded hands), ``hands``, ``kept`` (cards kept face up to a player's right).
    ``bet``: the :class:`Bet` in force; ``canto``: the tabletop :class:`Canto`; ``restocks``: one
    public :class:`Restock` per reshuffle; ``discard_log``: a :class:`DiscardRecord` per discard;
    ``result``: the :class:`HandResult`, once the hand is over.
    """

    mode: Mode
    n: int
    dealer: int
    mano: int
    stacks: list[int]
    committed: list[int]
    status: list[Status]
    blind: list[bool]
    looked: list[bool]
    phase: Phase = Phase.SHUFFLE
    queue: list[int] = field(default_factory=list)
    opening: int = 0
    bet: Bet | None = None
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
    pending_draw: PendingDraw | None = None
    known_pile: list[str] = field(default_factory=list)
    discard_log: list[DiscardRecord] = field(default_factory=list)
    restocks: list[Restock] = field(default_factory=list)
    mucked_since_restock: bool = False
    canto: Canto | None = None
    result: HandResult | None = None

    # --- construction and serialisation ------------------------------------------------------

    @classmethod
    def new(cls, mode: str, dealer: int, stacks: list[int]) -> "HandState":
        """A hand about to be dealt. ``stacks``: every table seat's front, all ≥ 1."""
        n = len(stacks)
        if mode not in MODES:
            raise ValueError(f"mode must be one of {[str(m) for m in MODES]}")
        if not 2 <= n <= 6 or not 0 <= dealer < n or min(stacks) < 1:
            raise ValueError("a hand needs 2–6 seats, a dealer among them and chips in every front")
        mano = (dealer + 1) % n
        status = [Status.PENDING] * n
        if n > MAX_PLAYERS_IN_HAND:
            status[dealer] = Status.OUT
        hand = cls(
            mode=Mode(mode), n=n, dealer=dealer, mano=mano, stacks=list(stacks), committed=[0] * n,
            status=status, blind=[False] * n, looked=[False] * n,
            hands=[[] for _ in range(n)], kept=[[] for _ in range(n)], kept_count=[0] * n,
            round_discards=[[] for _ in range(n)],
        )
        if hand.mode is Mode.TABLETOP:
            hand.phase = Phase.OPENING
            hand.queue = [mano]
        return hand

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready record of this hand (nothing in it is shared with the state)."""
        return {
            "mode": self.mode.value, "n": self.n, "dealer": self.dealer, "mano": self.mano,
            "stacks": list(self.stacks), "committed": list(self.committed), "status": [s.value for s in self.status],
            "blind": list(self.blind), "looked": list(self.looked), "phase": self.phase.value,
            "queue": list(self.queue), "opening": self.opening,
            "bet": self.bet.to_dict() if self.bet is not None else None,
            "dealer_offered": self.dealer_offered, "round": self.round, "after_corte": self.after_corte,
            "final_discard": self.final_discard, "keep_right": self.keep_right,
            "stock": list(self.stock), "pile": list(self.pile), "hands": [list(h) for h in self.hands],
            "kept": [list(k) for k in self.kept], "kept_count": list(self.kept_count),
            "round_discards": [list(d) for d in self.round_discards],
            "pending_draw": self.pending_draw.to_dict() if self.pending_draw is not None else None,
            "known_pile": list(self.known_pile), "discard_log": [d.to_dict() for d in self.discard_log],
            "restocks": [r.to_dict() for r in self.restocks],
            "mucked_since_restock": self.mucked_since_restock,
            "canto": self.canto.to_dict() if self.canto is not None else None,
            "result": self.result.to_dict() if self.result is not None else None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "HandState":
        """The hand :meth:`to_dict` recorded (``d`` is not kept: the state owns its lists).  A field a
        hand stored by an earlier version lacks takes its default."""
        bet, pending, canto, result = d.get("bet"), d.get("pending_draw"), d.get("canto"), d.get("result")
        return cls(
            mode=Mode(d["mode"]), n=d["n"], dealer=d["dealer"], mano=d["mano"],
            stacks=list(d["stacks"]), committed=list(d["committed"]),
            status=[Status(s) for s in d["status"]], blind=list(d["blind"]), looked=list(d["looked"]),
            phase=Phase(d.get("phase", "shuffle")), queue=list(d.get("queue", ())), opening=d.get("opening", 0),
            bet=Bet.from_dict(bet) if bet is not None else None,
            dealer_offered=d.get("dealer_offered", False), round=d.get("round", 0),
            after_corte=d.get("after_corte", False), final_discard=d.get("final_discard", False),
            keep_right=d.get("keep_right", False),
            stock=list(d.get("stock", ())), pile=list(d.get("pile", ())), hands=[list(h) for h in d.get("hands", ())],
            kept=[list(k) for k in d.get("kept", ())], kept_count=list(d.get("kept_count", ())),
            round_discards=[list(r) for r in d.get("round_discards", ())],
            pending_draw=PendingDraw(pending["seat"], pending["count"]) if pending is not None else None,
            known_pile=list(d.get("known_pile", ())),
            discard_log=[DiscardRecord.from_dict(r) for r in d.get("discard_log", ())],
            restocks=[Restock.from_dict(r) for r in d.get("restocks", ())],
            mucked_since_restock=d.get("mucked_since_restock", False),
            canto=Canto.from_dict(canto) if canto is not None else None,
            result=HandResult.from_dict(result) if result is not None else None,
        )

    def copy(self) -> "HandState":
        """An independent copy (``apply`` changes the state it is called on)."""
        return HandState.from_dict(self.to_dict())

    # --- questions -----------------------------------------------------------------------------

    def order_from(self, start: int) -> list[int]:
        """All seats, in order of play, starting with ``start``."""
        n = self.n
        return [(start + i) % n for i in range(n)]

    def remaining(self, seat: int) -> int:
        """Chips the seat can still bet (its resto)."""
        return self.stacks[seat] - self.committed[seat]

    def live(self) -> list[int]:
        """Seats still in the hand, from mano."""
        status = self.status
        return [s for s in self.order_from(self.mano) if status[s] is Status.IN]

    def all_in(self, seat: int) -> bool:
        return self.status[seat] is Status.IN and self.remaining(seat) == 0

    def can_bet(self) -> list[int]:
        """Live seats that are not all-in, from mano."""
        return [s for s in self.live() if self.remaining(s) > 0]

    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    def to_act(self) -> int | None:
        """The seat whose turn it is; ``None`` when chance must move or the hand is over."""
        if self.phase in _CHANCE_PHASES or not self.queue:
            return None
        return self.queue[0]

    def chance_request(self) -> dict[str, Any] | None:
        """Which chance input is needed now, if any.

        ``{"kind": "shuffle", "cards": [...28]}`` – supply ``Shuffle(order)``, a permutation.
        ``{"kind": "reshuffle", "cards": [...]}`` – supply ``Reshuffle(order)``, a permutation
        of exactly those cards (the pile); the engine layers it as the rule book says.
        """
        if self.phase is Phase.SHUFFLE:
            return {"kind": "shuffle", "cards": list(DECK)}
        if self.phase is Phase.RESHUFFLE:
            return {"kind": "reshuffle", "cards": sort_cards(self.pile)}
        return None

    def distance(self, seat: int) -> int:
        """Distance from mano's seat (0 for mano), counted even if mano folded."""
        return (seat - self.mano) % self.n

    def _can_look(self, seat: int) -> bool:
        if self.looked[seat] or self.status[seat] not in (Status.PENDING, Status.IN):
            return False
        if self.phase in (Phase.SHUFFLE, Phase.OVER) or self.phase is Phase.OPENING and seat == self.mano:
            return False
        return self.mode is Mode.TABLETOP or bool(self.hands[seat])

    def legal_actions(self, seat: int) -> list[LegalAction]:
        """What ``seat`` may do now (empty when nothing)."""
        if self.phase is Phase.OVER or not isinstance(seat, int) or not 0 <= seat < self.n:
            return []
        acts: list[LegalAction] = []
        if self._can_look(seat):
            acts.append(LegalAction("look"))
        if self.mode is Mode.TABLETOP and self.phase is Phase.DISCARD and seat == self.dealer:
            acts.append(LegalAction("reshuffle"))
        if self._may_muck(seat):
            acts.append(LegalAction("muck"))
        to_act = self.to_act()
        if self._may_correct(seat) and to_act != seat:
            acts.append(LegalAction("declare", min=MIN_VALUE, max=MAX_VALUE))
        if to_act != seat:
            return acts
        phase = self.phase
        if phase is Phase.OPENING:
            lo, hi = self.opening_range()
            acts.append(LegalAction("open", min=lo, max=hi))
        elif phase is Phase.ENTERING:
            if not self.looked[seat]:
                acts.append(LegalAction("enter", blind=True))
            acts += [LegalAction("enter", blind=False), LegalAction("decline")]
        elif phase is Phase.RAISING:
            lo, hi = self.raise_range(seat)
            acts += [LegalAction("raise", min=lo, max=hi), LegalAction("pass")]
        elif phase is Phase.SPEAKING:
            acts += [LegalAction("voy"), LegalAction("corta", min=1, max=self.remaining(seat))]
        elif phase is Phase.BETTING:
            assert self.bet is not None
            if self.bet.stage is BetStage.ANSWER:
                acts += [LegalAction("ver"), LegalAction("no_ver")]
            else:
                lo, hi = self.raise_range(seat)
                kind = "raise" if self.bet.context is BetContext.OPENING else "refiche"
                acts += [LegalAction(kind, min=lo, max=hi), LegalAction("pass")]
        elif phase is Phase.DISCARD:
            cards = tuple(self.hands[seat]) if self.mode is Mode.DEALT else None
            acts.append(LegalAction("discard", min=0, max=self.max_discard(seat), cards=cards))
        elif phase is Phase.CANTO:
            assert self.canto is not None
            acts.append(LegalAction("show"))
            if self.canto.stage is CantoStage.DECLARE or self._may_correct(seat):
                acts.append(LegalAction("declare", min=MIN_VALUE, max=MAX_VALUE))
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
            return Discard((), None if self.mode is Mode.DEALT else 0)
        if "open" in legal:
            opening = legal["open"].min
            assert opening is not None
            return Open(opening)
        return None

    # --- checking and applying actions --------------------------------------------------------

    def verify(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> None:
        """Raise the :class:`service.errors.RefereeError` that :meth:`apply` would raise for this
        move (malformed, out of turn, illegal here); return ``None`` if it is legal. Changes nothing."""
        self._checked(seat, action)

    def is_legal(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> bool:
        try:
            self._checked(seat, action)
        except (IllegalAction, InvalidAction):
            return False
        return True

    def apply(self, action: Action, *, seat: int | None = None, now: float = 0.0) -> bool:
        """Apply ``action`` by ``seat`` (``None`` for chance) to this hand; True (every move applied
        changes the hand).  Checked whole first: a refused move raises and leaves the hand as it was
        (``now`` is not read)."""
        self._checked(seat, action)()
        return True

    def _checked(self, seat: int | None, action: Action) -> Callable[[], None]:
        """Check the move; return what applies it."""
        if not isinstance(action, Action):
            raise InvalidAction("not a Gofo action", code="malformed_action")
        if self.phase is Phase.OVER:
            raise GameOver("the hand is over", code="hand_over")
        if action.CHANCE and seat is None:
            if isinstance(action, Shuffle):
                self._check_shuffle(action)
                return lambda: self._do_shuffle(action)
            if isinstance(action, Reshuffle):
                self._check_reshuffle(action)
                return lambda: self._do_reshuffle(action)
            raise IllegalAction(f"{action.TYPE} is not a chance action", code="chance_action")
        if seat is None or isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.n:
            raise InvalidAction(f"no seat {seat!r} at this table", code="bad_seat")
        # moves made out of turn
        if isinstance(action, Look):
            if not self._can_look(seat):
                if self.looked[seat]:
                    raise IllegalAction("you have already looked", code="already_looked")
                raise IllegalAction("you have no unseen cards to look at now", code="cannot_look")
            return lambda: self._do_look(seat)
        if isinstance(action, Reshuffle):
            self._check_reported_reshuffle(seat, action)
            return lambda: self._do_reported_reshuffle(seat, action)
        if isinstance(action, Muck):
            self._check_muck(seat)
            return lambda: self._do_muck(seat)
        if isinstance(action, Declare) and self._may_correct(seat):
            self._check_correction(seat, action)
            return lambda: self._do_correction(seat, action)
        if isinstance(action, Declare) and self.phase is Phase.CANTO and self.canto is not None \
                and self.canto.declared[seat] is not None:
            raise IllegalAction("a declaration can be corrected only until someone has shown cards",
                                code="declaration_locked")
        # moves made in turn
        if action.CHANCE:
            raise IllegalAction("chance actions are not made by a seat", code="chance_action")
        if self.phase in (Phase.SHUFFLE, Phase.RESHUFFLE):
            raise WrongPhase("waiting for the cards to be shuffled", code="waiting_for_chance")
        if self.to_act() != seat:
            raise NotYourTurn(f"it is seat {self.to_act()}'s turn, not seat {seat}'s")
        move = _TURN_MOVES.get(type(action))
        if move is None:
            raise InvalidAction(f"{action.TYPE!r} is not a hand action", code="malformed_action")
        phase, check, do = move
        if type(action) in (Raise, Pass) and self.phase is Phase.BETTING:
            phase = Phase.BETTING
        if self.phase is not phase:
            raise WrongPhase(f"{action.TYPE} is not possible in phase {self.phase}")
        check(self, seat, action)
        return lambda: do(self, seat, action)

    def _do_look(self, seat: int) -> None:
        self.looked[seat] = True

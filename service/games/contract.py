"""The contract every game provides, and what its parts share: :class:`Action` and its codec,
:class:`LegalAction`, :class:`Applied`.

A game lives in its own package, ``service/games/<name>/``, with the same parts under the same names:

=================  ====================================================================================
``rules``          the options a game or table is created with (validated dataclasses)
``actions``        its :class:`Action` types and their :class:`ActionCodec`, ``CODEC``
``state``          the pure state machine (below)
``observer``       everything a caller may see — the public, a seat, the host — during and after a game,
                   transcripts included: nothing leaves the service without passing through it
``chance``         shuffles, prize orders and deck commitments as data (the randomness comes from
                   :mod:`service.games.entropy`, the one source)
``clock``          its deadlines: when a seat is late and what enforcing them does
``referee``        the stored record of one game (state, secrets, clock) and the moves on it (below) —
                   what the HTTP layer calls.  Pure: no I/O.
``verifier``       the offline checker of an exported transcript (``python -m service.verify``)
=================  ====================================================================================

and a :class:`GameDefinition` named ``GAME`` in its ``__init__``; one line in
:mod:`service.games.registry` lists it. That is all a game needs: the app serves a game with no HTTP
module of its own from this contract (routes, spec, live updates, metrics:
:mod:`service.api.generic`), and ``python -m service.verify`` checks its transcripts with its
``verifier``. Gops and Gofo have HTTP
modules of their own (``service/api/gops.py``, ``gofo.py``) for their typed, documented schemas.

**The state** (Gops' ``Gops``, Gofo's ``Table``) answers, for a ``seat`` (``None``: the host, the
table or chance):

* ``apply(action, *, seat=None, now=0.0) -> bool`` — checks the whole move, then changes the state
  in place: True.  A refused move raises a typed :class:`~service.errors.RefereeError` and leaves
  the state exactly as it was; an exact repeat of a move already applied (a retried request) changes
  nothing: False.  ``now`` is the moment of the move (a game whose rules read the clock uses it).
  What happened is told once: the transcript entries the referee records for each move (the
  actions, which replay and verify), and the records a view carries of each round or hand.
* ``verify(action, *, seat=None, now=0.0)`` raises what ``apply`` would; ``is_legal`` says whether.
* ``legal_actions(seat) -> list[LegalAction]``;  ``to_dict()`` / ``from_dict()`` its stored form.

**The referee module** (the stored record of one game and the moves on it) provides ``create``,
``load``, ``seat_count``, ``play``, ``enforce``, ``view``, ``etag_tag`` and ``transcript``: their
parameters and answers are :class:`service.games.protocol.Referee`'s, the state's
:class:`~service.games.protocol.GameState`'s, and the type checker holds every game to both
(tests/test_game_protocol.py).
"""

from __future__ import annotations

import importlib
import time
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from service.errors import InvalidAction, InvalidOptions

# The parts of a game package, in the order the table above gives them.
PARTS = ("rules", "actions", "state", "observer", "chance", "clock", "referee", "verifier")


@dataclass(frozen=True)
class Action:
    """Base of every action of every game: a frozen dataclass whose ``TYPE`` is its JSON ``"type"``.

    ``CHANCE`` marks the outcomes the referee supplies (a shuffle, a prize order), never a seat.
    Fields are typed with ``int``, ``bool``, ``str``, ``tuple[int, ...]``, ``tuple[str, ...]`` or an
    optional (``X | None``) of those: :class:`ActionCodec` reads and writes exactly these.
    """

    TYPE: ClassVar[str] = ""
    CHANCE: ClassVar[bool] = False


def _malformed(detail: str) -> InvalidAction:
    return InvalidAction(detail, code="malformed_action")


class ActionCodec:
    """One game's actions to and from JSON-ready dicts: ``Corta(5)`` ⇄ ``{"type": "corta", "amount": 5}``.

    Decoding refuses an unknown ``type`` (``unknown_action``), missing or unexpected fields and wrong
    types (``malformed_action``); tuples are written as lists.  Booleans are never integers.
    """

    def __init__(self, action_types: Iterable[type[Action]]) -> None:
        self.types: dict[str, type[Action]] = {}
        self._fields: dict[str, list[tuple[str, Any, bool]]] = {}
        for cls in action_types:
            if not cls.TYPE or cls.TYPE in self.types:
                raise ValueError(f"{cls.__name__}: every action needs its own TYPE")
            self.types[cls.TYPE] = cls
            hints = typing.get_type_hints(cls)
            self._fields[cls.TYPE] = [
                (f.name, hints[f.name], f.default is not MISSING or f.default_factory is not MISSING)
                for f in fields(cls)
            ]

    def __contains__(self, kind: str) -> bool:
        return kind in self.types

    def to_dict(self, action: Action) -> dict[str, Any]:
        out: dict[str, Any] = {"type": action.TYPE}
        for name, _, _ in self._fields[action.TYPE]:
            value = getattr(action, name)
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    def from_dict(self, data: Any) -> Action:
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise _malformed("an action is an object with a string 'type'")
        kind = data["type"]
        cls = self.types.get(kind)
        if cls is None:
            raise InvalidAction(f"unknown action type {kind!r}", code="unknown_action")
        spec = self._fields[kind]
        unexpected = set(data) - {name for name, _, _ in spec} - {"type"}
        if unexpected:
            raise _malformed(f"unexpected fields for {kind}: {sorted(unexpected)}")
        kwargs: dict[str, Any] = {}
        for name, hint, optional in spec:
            if name not in data:
                if optional:
                    continue
                raise _malformed(f"{kind} needs {name!r}")
            kwargs[name] = _coerce(f"{kind}.{name}", hint, data[name])
        return cls(**kwargs)


_SCALARS = {int: "an integer", bool: "true or false", str: "a string"}


def _coerce(where: str, hint: Any, value: Any) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _coerce(where, inner, value)
    if origin is tuple:
        item = args[0]
        if not isinstance(value, (list, tuple)) or not all(_is(item, v) for v in value):
            raise _malformed(f"{where} must be a list of {_SCALARS[item].split(' ', 1)[1]}s"
                             if item is not bool else f"{where} must be a list of booleans")
        return tuple(value)
    if not _is(hint, value):
        raise _malformed(f"{where} must be {_SCALARS[hint]}")
    return value


def _is(kind: type, value: Any) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


@dataclass
class Applied:
    """A move a referee applied to a stored record: the new document, its transcript entries,
    whether the game is over (a Gofo table never is), and the state the document was written
    from (the move's answer is viewed from it, not from a second parse)."""

    doc: dict[str, Any]
    entries: list[dict[str, Any]]
    finished: bool
    state: Any


def check_bots(bots: list[dict[str, int]], seats: int) -> dict[str, int]:
    """A create request's ``bots`` (``[{"seat", "level"}]``) as a referee's document keeps them,
    ``{"<seat>": level}`` in seat order; ``invalid_bots`` for a seat the game lacks or one named twice."""
    named = [b["seat"] for b in bots]
    if any(seat >= seats for seat in named):
        raise InvalidOptions(f"a bot on seat {max(named)}, but the game has seats 0 to {seats - 1}",
                             code="invalid_bots")
    if len(set(named)) != len(named):
        raise InvalidOptions("a seat is named twice in bots", code="invalid_bots")
    return {str(b["seat"]): b["level"] for b in sorted(bots, key=lambda b: b["seat"])}


def pause() -> None:
    """Let the worker serve its other requests before a bot decides.  A request in which bots play
    (a whole game of bots, or a hand) makes dozens of decisions of a millisecond or two each; under
    gunicorn's gevent worker ``time.sleep`` is patched to yield to the event loop, so another
    request waits for one decision at most, not for the whole game.  Elsewhere it returns at once.
    (``bench/thinking.py`` measures what it buys.)"""
    time.sleep(0)


def bot_list(bots: Mapping[str, int]) -> list[dict[str, int]]:
    """A document's ``bots`` as create entries and views list them, ``[{"seat", "level"}]`` (in seat
    order: :func:`check_bots` stores them so)."""
    return [{"seat": int(seat), "level": level} for seat, level in bots.items()]


class LegalAction(Mapping[str, Any]):
    """A kind of move a seat may make now: the action's ``type`` and what bounds it.

    The bounds are the game's own words, given as keywords: Gops' ``commit`` says the ``round``, how
    many ``cards`` and the ``hand`` to bid from; Gofo's ``raise`` its ``min`` and ``max``.  A bound
    given as ``None`` is left out.  Read a bound as an item (``legal["ranks"]``) or an attribute
    (``legal.min``, ``None`` when the action has no such bound); :meth:`to_dict` is its JSON form
    (sequences as lists), and it equals any mapping with that form.  Immutable: sequences are
    kept as tuples.
    """

    __slots__ = ("type", "_bounds")

    def __init__(self, type: str, **bounds: Any) -> None:
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "_bounds", {name: tuple(value) if isinstance(value, list) else value
                                             for name, value in bounds.items() if value is not None})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a LegalAction is immutable")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._bounds.get(name)

    def __getitem__(self, key: str) -> Any:
        return self.type if key == "type" else self._bounds[key]

    def __iter__(self) -> Iterator[str]:
        yield "type"
        yield from self._bounds

    def __len__(self) -> int:
        return 1 + len(self._bounds)

    def to_dict(self) -> dict[str, Any]:
        """``{"type": ..., **bounds}``, sequences as lists."""
        out: dict[str, Any] = {"type": self.type}
        for name, value in self._bounds.items():
            out[name] = list(value) if isinstance(value, tuple) else value
        return out

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalAction):
            return self.to_dict() == other.to_dict()
        if isinstance(other, Mapping):
            return self.to_dict() == {k: list(v) if isinstance(v, tuple) else v for k, v in other.items()}
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.type, tuple(self._bounds.items())))

    def __repr__(self) -> str:
        bounds = "".join(f", {name}={value!r}" for name, value in self._bounds.items())
        return f"LegalAction({self.type!r}{bounds})"


@dataclass(frozen=True)
class GameDefinition:
    """What the registry knows of a game: its name (the transcript ``kind`` and the URL segment
    ``/v1/<name>/<collection>``), its package, and its HTTP module if it has one of its own.

    The verifier's command-line option (``--prize-commitment``, ``--deck-commitment``) names the
    commitments the players saw before the shuffle, numbered by ``commitment_unit`` (game, hand).
    """

    name: str
    title: str
    package: str
    thing: str = "game"  # what one transcript records: "game", "table"
    collection: str = "games"  # its URL segment: /v1/<name>/<collection>
    #: "module:attribute" of a flask-smorest Blueprint written for the game (imported only by the app);
    #: None: the app serves it from its contract alone (service.api.generic)
    blueprint: str | None = None
    commitment_option: str = ""
    commitment_unit: str = ""
    commitment_help: str = ""

    def part(self, name: str) -> types.ModuleType:
        """One of the game's :data:`PARTS` (``definition.part("verifier")``)."""
        if name not in PARTS:
            raise KeyError(f"a game has no part {name!r}; parts: {', '.join(PARTS)}")
        return importlib.import_module(f"{self.package}.{name}")

    def load_blueprint(self) -> Any:
        """The blueprint written for the game (``blueprint``); None when it has none."""
        if self.blueprint is None:
            return None
        module, _, attribute = self.blueprint.partition(":")
        return getattr(importlib.import_module(module), attribute)

    @property
    def verify(self) -> Callable[..., Any]:
        """``verify(transcript, commitments) -> service.games.verification.Report``."""
        return self.part("verifier").verify

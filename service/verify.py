"""Offline verifier of an exported transcript (a Gops game or a Gofo table): docs/verify.md.

    python -m service.verify TRANSCRIPT.json [--prize-commitment [GAME=]HEX ...]   # Gops
    python -m service.verify TRANSCRIPT.json [--deck-commitment [HAND=]HEX ...]    # Gofo

Nothing here talks to the service: the transcript's ``kind`` picks its game in
:mod:`service.games.registry`, whose ``verifier`` part re-checks it. Exit status ``0`` valid,
``1`` invalid (one ``FAIL:`` line per problem), ``2`` unreadable or a wrong command line.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from service.games import commitments
from service.games.contract import GameDefinition
from service.games.registry import GAMES
from service.games.verification import EXIT_INVALID, EXIT_OK, EXIT_UNREADABLE, Report, Unreadable

__all__ = ["Report", "Unreadable", "main", "verify"]


def verify(transcript: Any, given_commitments: dict[int, str] | None = None) -> Report:
    """Verify a parsed transcript; raises :class:`Unreadable` when it cannot be checked at all.

    ``given_commitments``: the commitments the players saw, by game (Gops prize orders) or by hand
    (Gofo decks)."""
    return _game_of(transcript).verify(transcript, given_commitments)


def _game_of(transcript: Any) -> GameDefinition:
    """The registered game whose transcript this is; :class:`Unreadable` when there is none."""
    if not isinstance(transcript, dict):
        raise Unreadable(f"a transcript is a JSON object, not {type(transcript).__name__}")
    kind = transcript.get("kind")
    game = GAMES.get(kind) if isinstance(kind, str) else None
    if game is None:
        raise Unreadable(f"unknown transcript kind {kind!r}; this verifier checks: {', '.join(GAMES)}")
    return game


def _load(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except OSError as exc:
        raise Unreadable(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Unreadable(f"{path} is not JSON: {exc}") from None


def _commitment_parser(unit: str) -> Callable[[str], tuple[int, str]]:
    """``[N=]HEX`` -> (N, HEX); N (a game or hand number, from 1) defaults to 1."""
    label = unit.upper()

    def parse(text: str) -> tuple[int, str]:
        head, sep, value = text.rpartition("=")
        number = 1
        if sep:
            try:
                number = int(head)
            except ValueError:
                raise argparse.ArgumentTypeError(f"{text!r}: expected {label}=HEX, {label} a {unit} number") from None
            if number < 1:
                raise argparse.ArgumentTypeError(f"{text!r}: {unit} numbers start at 1")
        if not commitments.COMMITMENT_PATTERN.match(value):
            raise argparse.ArgumentTypeError(f"{text!r}: a commitment is 64 lowercase hex characters")
        return number, value

    return parse


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.verify",
        description="Re-check an exported transcript offline (exit 0 valid, 1 invalid, 2 unreadable).",
    )
    parser.add_argument("transcript", help="the JSON body of " + " or ".join(
        f"GET /v1/{name}/{game.collection}/{{id}}/transcript" for name, game in GAMES.items()))
    for game in GAMES.values():  # one commitment option per game that has one, from the registry
        if not game.commitment_option:
            continue
        unit = game.commitment_unit
        parser.add_argument(game.commitment_option, action="append", default=[], dest=game.name,
                            type=_commitment_parser(unit), metavar=f"[{unit.upper()}=]HEX",
                            help=f"{game.title}: {game.commitment_help}")
    args = parser.parse_args(argv)
    given: dict[str, dict[int, str]] = {}
    for game in GAMES.values():
        mine = given.setdefault(game.name, {})
        for number, value in getattr(args, game.name, ()):
            if mine.get(number, value) != value:
                parser.error(f"two different {game.commitment_option} values for {game.commitment_unit} {number}")
            mine[number] = value
    try:
        data = _load(args.transcript)
        game = _game_of(data)
        for other, values in given.items():
            if values and other != game.name:
                raise Unreadable(f"{GAMES[other].commitment_option} does not apply to a {game.name} "
                                 f"transcript; use {game.commitment_option}")
        report = game.verify(data, given[game.name])
    except Unreadable as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return EXIT_UNREADABLE
    if report.ok:
        print(f"OK: {report.summary}")
        return EXIT_OK
    for problem in report.problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    print(f"FAIL: {report.kind} transcript {report.id}: {len(report.problems)} problem"
          f"{'s' if len(report.problems) != 1 else ''}; it is not a valid record of the {game.thing}",
          file=sys.stderr)
    return EXIT_INVALID


if __name__ == "__main__":
    sys.exit(main())

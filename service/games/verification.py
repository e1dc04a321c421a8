"""What every game's offline verifier shares: the :class:`Report`, :class:`Unreadable` and the
comparison helpers (each game's checks live in its own package: ``service.<game>.verifier``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.errors import RefereeError
from service.games.levels import TOP_BOT_LEVEL

EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE = 0, 1, 2


class Unreadable(Exception):
    """The input is not something this verifier can check at all (exit 2)."""


@dataclass
class Report:
    """The outcome of verifying one transcript."""

    kind: str
    id: str
    problems: list[str] = field(default_factory=list)
    summary: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems

    def problem(self, message: str) -> None:
        self.problems.append(message)


def _short(value: Any, width: int = 16) -> str:
    text = str(value)
    return text if len(text) <= width else text[:width] + "…"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value))


def _diff(path: str, recorded: Any, replayed: Any, out: list[str]) -> None:
    """Every place where ``recorded`` differs from ``replayed``, as readable lines."""
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for key in sorted(set(recorded) | set(replayed), key=str):
            if key not in replayed:
                out.append(f"{path}.{key}: the transcript has {recorded[key]!r}, the replay has no such field")
            elif key not in recorded:
                out.append(f"{path}.{key}: missing from the transcript; the replay gives {replayed[key]!r}")
            else:
                _diff(f"{path}.{key}", recorded[key], replayed[key], out)
    elif isinstance(recorded, list) and isinstance(replayed, list) and len(recorded) == len(replayed) \
            and any(isinstance(x, (dict, list)) for x in recorded + replayed):
        for i, (a, b) in enumerate(zip(recorded, replayed)):
            _diff(f"{path}[{i}]", a, b, out)
    elif recorded != replayed or type(recorded) is not type(replayed):
        out.append(f"{path}: the transcript says {recorded!r}, replaying the actions gives {replayed!r}")


def listed_bots(report: Report, where: str, listed: Any, seats: int, thing: str) -> set[int]:
    """The seats a create entry's ``bots`` (``[{"seat", "level"}]``) names; a problem and none when it
    is not a list of distinct seats ``0..seats-1``, each with a level 1 to :data:`TOP_BOT_LEVEL`."""
    shaped = isinstance(listed, list) and all(
        isinstance(b, dict) and _is_int(b.get("seat")) and 0 <= b["seat"] < seats
        and _is_int(b.get("level")) and 1 <= b["level"] <= TOP_BOT_LEVEL for b in listed)
    if not shaped or len({b["seat"] for b in listed}) != len(listed):
        report.problem(f"{where}: bots {listed!r} is not a list of distinct seats of this {thing}, "
                       f"each with a level 1 to {TOP_BOT_LEVEL}")
        return set()
    return {b["seat"] for b in listed}


def check_entry_order(report: Report, entries: list[dict[str, Any]], top_version: int,
                      name: Callable[[int, Any], str],
                      version_rule: Callable[[int, str, dict[str, Any], int], str | None],
                      then: Callable[[int, str, dict[str, Any]], None] | None = None,
                      ) -> list[tuple[int, dict[str, Any]]]:
    """Every entry's action type, version order and time order, the entries loaded through their
    game's transcript schema (each field there, of its type); returns the entries whose action names
    its type, with their 1-based index, for the replay.
    ``version_rule(index, where, entry, previous_version)``: the game's problem with a version not
    below the one before (who may share a version), or ``None``; ``then``: its own checks after."""
    shaped: list[tuple[int, dict[str, Any]]] = []
    previous_version, previous_at = 0, None
    for index, entry in enumerate(entries, 1):
        where = name(index, entry)
        if not isinstance(entry["action"].get("type"), str):
            report.problem(f"{where}: not an entry object with an action and its type")
            continue
        version, at = entry["version"], entry["at"]
        if index == 1 and version != 1:
            report.problem(f"{where}: the first entry must be version 1")
        if version < previous_version:
            report.problem(f"{where}: version {version} comes after version {previous_version} "
                           "(entries are out of order)")
        elif (problem := version_rule(index, where, entry, previous_version)) is not None:
            report.problem(problem)
        if previous_at is not None and at < previous_at:
            report.problem(f"{where}: at {at} is earlier than the previous entry's {previous_at} "
                           "(time goes backwards)")
        if then is not None:
            then(index, where, entry)
        previous_version, previous_at = version, at
        shaped.append((index, entry))
    present = {e["version"] for _, e in shaped}  # no version from 1 to the last missing, the last the top one
    positive = sorted(v for v in present if v >= 1)
    # The gaps between them, never listed one by one (a forged version 10**30 is one gap, not 10**30 numbers).
    gaps = [(a + 1, b - 1) for a, b in zip([0, *positive], positive) if b - a > 1]
    if gaps:
        report.problem(f"entries: {_ranges(gaps)} missing (an entry was dropped)")
    if shaped and max(present) != top_version:
        report.problem(f"version: the transcript says {top_version} but its last entry is version "
                       f"{max(present)} (entries missing at the end, or added)")
    return shaped


def engine_applies(report: Report, where: str, apply: Callable[[], Any]) -> tuple[bool, Any]:
    """``(True, what apply() returns)``, or ``(False, None)`` and a problem when the engine refuses the
    entry's action (a malformed field it did not expect is a refusal too)."""
    try:
        return True, apply()
    except RefereeError as exc:
        report.problem(f"{where}: the rules engine refuses this action: {exc} ({exc.code})")
    except Exception as exc:  # noqa: BLE001
        report.problem(f"{where}: the rules engine cannot apply this action: {type(exc).__name__}: {exc}")
    return False, None


def check_copied(report: Report, transcript: dict[str, Any], create: dict[str, Any], *keys: str) -> None:
    """The transcript repeats these fields of the create entry's action as they are."""
    for key in keys:
        if create.get(key) != transcript.get(key):
            report.problem(f"{key}: the transcript's {key} differ from those of the create entry "
                           f"({_differing_keys(transcript.get(key), create.get(key))})")


def _differing_keys(a: Any, b: Any) -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(k for k in set(a) | set(b) if a.get(k, object()) != b.get(k, object()))
        return "differing: " + ", ".join(f"{k} {a.get(k)!r} vs {b.get(k)!r}" for k in keys)
    return f"{a!r} vs {b!r}"


def _first_difference(a: list[Any], b: list[Any]) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"first difference at position {i}: {x!r} vs {y!r}"
    return f"{len(a)} vs {len(b)} cards"


def _ranges(gaps: list[tuple[int, int]]) -> str:
    """``[(3, 5), (9, 9)]`` -> ``'versions 3..5, 9'``."""
    count = sum(last - first + 1 for first, last in gaps)
    parts = [str(first) if first == last else f"{first}..{last}" for first, last in gaps]
    return ("version " if count == 1 else "versions ") + ", ".join(parts)
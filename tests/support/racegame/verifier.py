"""Re-play an exported race transcript and check the total each entry records."""

from __future__ import annotations

from typing import Any

from service.errors import RefereeError
from service.games.verification import Report, Unreadable

from .actions import CODEC
from .rules import Options
from .state import Race


def verify(transcript: dict[str, Any], commitments: dict[int, str] | None = None) -> Report:
    report = Report("race", str(transcript.get("id")))
    entries = transcript.get("entries")
    if not isinstance(entries, list) or not entries or entries[0].get("action", {}).get("type") != "create":
        raise Unreadable("a race transcript starts with its create entry")
    state = Race(Options.from_dict(entries[0]["action"]["options"]))
    for entry in entries[1:]:
        action = {k: v for k, v in entry["action"].items() if k != "seat"}
        try:
            state.apply(CODEC.from_dict(action), seat=entry["action"]["seat"])
        except RefereeError as error:
            report.problem(f"version {entry['version']}: {error}")
            break
        if entry.get("total") != state.total:
            report.problem(f"version {entry['version']}: recorded total {entry.get('total')}, replayed {state.total}")
    report.summary = f"race {report.id}: {len(entries)} entries, total {state.total}, winner {state.winner}"
    return report

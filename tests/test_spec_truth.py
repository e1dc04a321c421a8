"""A create request the published spec allows is accepted: schemathesis's positive-data check.

schemathesis draws request bodies from the served spec (its examples, its coverage of every boundary
and optional field, then Hypothesis fuzzing from a fixed seed) for the two create operations, sends
them to the app (on the session's real Valkey) and fails on any schema-valid body the API refuses.

Some rules relate one option to another (``explicit_order`` is a permutation of ``1..ranks``, the
chips of a resumed Gofo session add up to its cajas...). The spec states those in words, in the
descriptions of the fields; a refusal for one of them (:data:`RULES_ACROSS_FIELDS`) is the API telling
the truth, and is not a failure. Everything the schema can say it must say: the match formats are a
``oneOf`` with a discriminator, so a ``single`` match with ``games`` is not schema-valid; and an empty
Gofo resume array means "not given", so ``"fronts": []`` is accepted.

The ``Idempotency-Key`` header is left out: the fuzzer would send one key with several bodies, which
the API rightly refuses (``idempotency_key_reused``); tests/test_fuzz.py drives the keys.
"""

from __future__ import annotations

import collections
import json
import re

import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import Status, events
from support.sweep_size import sized

SEED = 20260601
EXAMPLES = sized(150)  # per operation in the fuzzing phase (tests/support/sweep_size.py); coverage adds its own

CREATES = r"^/v1/(gops/games|gofo/tables)$"
RESUME_LEDGER = ("fronts", "behinds", "cajas")


# An empty resume array means "not given", like null or leaving it out.
def _some_ledger_given(body) -> bool:
    return isinstance(body, dict) and any(body.get(name) for name in RESUME_LEDGER)


def _whole_ledger_given(body) -> bool:
    return isinstance(body, dict) and all(body.get(name) for name in RESUME_LEDGER)


# (problem code, detail pattern, what makes the refusal stand) of the rules between fields that the
# spec can only state in words.
RULES_ACROSS_FIELDS = [
    # Gops options: against ranks, players, prize_order, visibility or the profile.
    ("invalid_options", r"explicit_order must list every rank 1\.\.\d+ exactly once", None),
    ("invalid_options", r"explicit_order is only allowed with prize_order 'explicit'", None),
    ("invalid_options", r"dealer_sees_prize needs dealer_seat, a seat of this game", None),
    ("invalid_options", r"dealer_seat is only allowed with visibility 'dealer_sees_prize'", None),
    ("invalid_options", r"bid_cards must be between 1 and ranks", None),
    ("invalid_options", r"open_prizes must be between 1 and ranks", None),
    ("invalid_options", r"open prizes are face up: they cannot be combined with a hidden prize", None),
    ("invalid_options", r"the classic profile is a 2-player game", None),
    # Gofo table: fronts against the caja, first_dealer against seats and mode, the resumed ledger.
    ("bad_option", r"fronts and refill must fit in a caja", None),
    ("first_dealer_not_tabletop", r"only a tabletop table reports its first dealer", None),
    ("bad_first_dealer", r"first_dealer is a seat of this table", None),
    ("bad_resumed_ledger", r"a resumed session gives fronts, behinds and cajas together", _some_ledger_given),
    ("bad_resumed_ledger", r"fronts, behinds and cajas have one entry per seat", _whole_ledger_given),
    ("bad_resumed_ledger", r"every front is at least 1, every behind 0 up to below a caja", None),
    ("bad_resumed_ledger", r"a resumed session names its next dealer", None),
    ("chips_not_conserved", r"chips are not conserved", None),
    # Names and bots of both games: against the seats the game has.
    ("invalid_names", r"\d+ names for \d+ seats", None),
    # Bots of both games: against the seats the game has, and each seat once.
    ("invalid_bots", r"a bot on seat \d+, but the game has seats", None),
    ("invalid_bots", r"a seat is named twice in bots", None),
    ("invalid_bots", r"a bot sits only at a dealt table", None),
]


def _across_fields(problem: dict, body) -> bool:
    code, detail = problem.get("code"), problem.get("detail")
    if not isinstance(detail, str):
        return False
    return any(code == rule_code and re.search(pattern, detail) and (stands is None or stands(body))
               for rule_code, pattern, stands in RULES_ACROSS_FIELDS)


def _without_idempotency_keys(app):
    """``app`` as a WSGI callable that never sees an ``Idempotency-Key`` header (module docstring)."""
    def call(environ, start_response):
        environ.pop("HTTP_IDEMPOTENCY_KEY", None)
        return app(environ, start_response)
    return call


def test_every_schema_valid_create_is_accepted(app, redis_client):
    config = SchemathesisConfig.from_dict({
        "seed": SEED,
        "generation": {"mode": "positive", "max-examples": EXAMPLES, "database": "none"},
        "phases": {"examples": {"enabled": True}, "coverage": {"enabled": True}, "fuzzing": {"enabled": True},
                   "stateful": {"enabled": False}},
        "checks": {"enabled": False, "positive_data_acceptance": {"enabled": True},
                   "not_a_server_error": {"enabled": True}},
        "suppress-health-check": ["too_slow", "filter_too_much"],
    })
    schema = schemathesis.openapi.from_wsgi("/openapi.json", _without_idempotency_keys(app), config=config).include(
        method="POST", path_regex=CREATES)
    statuses: collections.Counter[tuple[str, int]] = collections.Counter()
    across: collections.Counter[tuple[str, str]] = collections.Counter()

    @schema.hook
    def filter_failure(context, failure, case, response):
        if response.status_code != 422:
            return True
        try:
            problem = json.loads(response.content)
        except ValueError:
            return True
        if isinstance(problem, dict) and _across_fields(problem, case.body):
            across[(case.path, problem["code"])] += 1
            return False
        return True

    found = []
    for event in schemathesis.engine.from_schema(schema).execute():
        if isinstance(event, (events.FatalError, events.NonFatalError)):
            found.append(f"{type(event).__name__}: {getattr(event, 'info', event)}")
        if not isinstance(event, events.ScenarioFinished):
            continue
        for case_id, interaction in event.recorder.interactions.items():
            statuses[(event.recorder.cases[case_id].value.path, interaction.response.status_code)] += 1
        for case_id, checks in event.recorder.checks.items():
            for check in checks:
                if check.status == Status.FAILURE:
                    case = event.recorder.cases[case_id].value
                    response = event.recorder.interactions[case_id].response
                    found.append(f"{check.name}: POST {case.path} {json.dumps(case.body)} -> "
                                 f"{response.status_code} {response.content.decode(errors='replace')}")
    print(dict(statuses), dict(across))
    assert not found, "\n".join(found)
    # Both operations really created games, from bodies of every kind the spec allows.
    assert statuses[("/v1/gops/games", 201)] >= 50 and statuses[("/v1/gofo/tables", 201)] >= 50, statuses


def test_each_match_format_takes_exactly_its_fields(client):
    def create(match):
        return client.post("/v1/gops/games", json={"profile": "classic", "match": match})

    for match in ({"format": "single", "games": 1}, {"format": "single", "tiebreak": "total_points"},
                  {"format": "cumulative", "target": 92}, {"format": "cumulative"},
                  {"format": "target", "games": 3}, {"format": "best_of", "games": 7},
                  {"format": "best_of", "games": None}, {}, {"games": 3}):
        answer = create(match)
        assert answer.status_code == 422 and answer.get_json()["code"] == "invalid_request", (match, answer.get_json())
    for match, rules in (({"format": "single"}, {"format": "single", "games": None, "target": None}),
                         ({"format": "best_of"}, {"format": "best_of", "games": 3, "target": None}),
                         ({"format": "best_of", "games": 5, "tiebreak": "total_points"},
                          {"format": "best_of", "games": 5, "target": None, "tiebreak": "total_points"}),
                         ({"format": "cumulative", "games": 2}, {"format": "cumulative", "games": 2, "target": None}),
                         ({"format": "target", "target": None}, {"format": "target", "games": None, "target": 92})):
        answer = create(match)
        assert answer.status_code == 201, (match, answer.get_json())
        assert answer.get_json()["game"]["match"] == {"tiebreak": "extra_game", **rules}


def test_an_empty_resume_array_is_not_given(client):
    answer = client.post("/v1/gofo/tables", json={"seats": 3, "fronts": [], "behinds": [], "cajas": []})
    assert answer.status_code == 201, answer.get_json()
    options = answer.get_json()["table"]["table"]["options"]
    assert "fronts" not in options and "behinds" not in options and "cajas" not in options
    # Given with an empty one, the other two are a resumed ledger without it: refused as such.
    answer = client.post("/v1/gofo/tables", json={"seats": 2, "fronts": [30, 30], "behinds": [], "cajas": [1, 1],
                                                  "first_dealer": 0})
    assert answer.status_code == 422 and answer.get_json()["code"] == "bad_resumed_ledger", answer.get_json()
    assert "together" in answer.get_json()["detail"]

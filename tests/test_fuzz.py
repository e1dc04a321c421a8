"""API fuzzing with schemathesis against the live service (gunicorn, 2 workers, real Valkey).

``test_schemathesis`` starts its own gunicorn (a key prefix of its own, and rate limits no run
reaches: the fuzzer creates hundreds of games and tables, the default allows 120 an hour) and runs
the schemathesis CLI on it in a subprocess, with every check (``--checks all``) and every phase:

* examples, coverage and fuzzing: every operation of the served spec on its own (ids the fuzzer
  makes up get 404; ids it picked up from earlier responses get 401 without the right token);
* stateful: sequences that create a Gops game or a Gofo table and follow the OpenAPI ``links`` of
  the 201 response to the operations on that id, with that id's tokens (below).

It fails on any server error, any response that disagrees with the spec (status, content type,
headers, body schema), any request the spec allows but the server refuses (or the reverse), an
operation with ``security`` that answers without a valid token, a 405 without ``Allow``...  The
CLI's report (with an exact ``curl`` reproduction of each failure) is the assertion message.

This file is also the schemathesis hooks module: ``python tests/test_fuzz.py run URL [options]``
is ``schemathesis run URL [options]`` with these hooks registered (docs/fuzzing.md):

* tokens: the create responses' ``host_token`` / ``seat_tokens`` are recorded by id, and an auth
  provider (``@schemathesis.auth()``) sends, on every operation with ``security``, the token of the
  seat in the path (the host's when the path has no seat, or a seat the game does not have) of the
  game or table in the path.  Links give the new id, the provider its token: the stateful phase
  really plays moves.  Ids the fuzzer did not create get no token from us;
* ``Idempotency-Key``: every key the server would use (16-255 printable ASCII characters) gets a
  unique suffix (same characters otherwise).  The spec shows no example key, but the few keys
  Hypothesis favours (``0000000000000000``...) would else be reused with other bodies: ``422
  idempotency_key_reused``, as documented, and the request never reaches the game.  Keys the server
  refuses are left alone (the negative tests check the refusal);
* links: each create's 201 response also gets a link to every operation on the new id that no
  link of the spec reaches (today: all Gofo moves and ``POST .../tables/{table_id}/deadline``;
  ``createGofoTable`` links only to the reads), naming the seat whose turn it is for Gofo, and a
  second link to every move whose body has ``version``, filled with the new game's version;
* one false positive dropped (``filter_failure``; the CLI prints how many): ``positive_data_acceptance``
  on a ``422`` whose problem ``code`` is a game rule, e.g. ``invalid_options`` ("explicit_order must
  list every rank 1..ranks exactly once", "best_of is best of 3 or best of 5 games"), ``bad_option``
  ("fronts and refill must fit in a caja") or ``bad_seat``.  OpenAPI 3.0's JSON Schema cannot state
  rules across fields or against the game's state, and 422 is documented for these operations.  A
  422 ``invalid_request`` (marshmallow refusing what the spec allows) or ``invalid_idempotency_key``
  is not dropped, but for one: a name holding an invisible character past U+FFFF, which the published
  pattern cannot name (it names only characters below U+FFFF, so every regex engine reads it alike)
  and the field's description lists.

Environment (all optional):

* ``REFEREE_FUZZ_EXAMPLES``: max examples per operation in the fuzzing phase (default 50);
* ``REFEREE_FUZZ_SCENARIOS``: max stateful scenarios (default 300);
* ``REFEREE_FUZZ_SEED``: Hypothesis seed (default 20260601);
* ``REFEREE_FUZZ_WORKERS``: schemathesis workers (default 1: reproducible; also, CPython 3.11.7's
  ``ast`` is not thread-safe, and with several workers Hypothesis now and then dies describing a
  strategy with ``SystemError: AST constructor recursion depth mismatch``, an error, not a finding);
* ``REFEREE_FUZZ_ARGS``: more CLI arguments, e.g. ``--max-failures 5``;
* ``REFEREE_FUZZ_TIMEOUT``: seconds the CLI run may take (default 1500: a fixed count of
  examples, so its time follows the load: it took over 540 s at load 10; the test's timeout follows).

The test also counts the seat moves (``POST .../seats/{seat}/...``: Gops commit, reveal, choose,
resign; every Gofo move) that reached the game's rules: sent with the seat's token and answered 2xx,
or refused by a rule of the game (a 409/422 whose ``code`` is not a schema, version or idempotency
refusal).  It prints them per operation and fails below ``MIN_SEAT_MOVES``: a run that only ever
gets 401/404 on moves says nothing about the games.

Defaults take about 90 CPU-seconds (more when there are failures to shrink). The run goes on a
Valkey and a gunicorn of its own (``BackgroundFuzz``), started with the session's first test by the
first process to get there (one, or either pytest-xdist worker of ``make test``), and goes on beside
all the other tests; ``test_schemathesis`` is handed out last, waits for what is left of the run in
whichever process draws it, and checks what it found (tests/conftest.py, tests/support/fuzz_run.py).
"""

from __future__ import annotations

import atexit
import collections
import itertools
import json
import os
import shlex
import sys
import threading
import uuid
from pathlib import Path
from typing import Any

import pytest
from support.fuzz_run import STATS_ENV, TIMEOUT, BackgroundFuzz

# Lines of the gunicorn log (access log off) that mean the server failed: gunicorn's own levels,
# Flask's "ERROR in app" (the app logs every unhandled exception), a traceback.
SERVER_ERROR_MARKS = ("[ERROR]", "[CRITICAL]", "ERROR in ", "Traceback (most recent call last)")

CREATE_PATHS = {"/v1/gops/games": "game_id", "/v1/gofo/tables": "table_id"}

# 422 problem codes that mean "the request does not match the schema" (or a rule the spec should
# state, such as the Idempotency-Key's alphabet): a schema-valid request refused with one of these is
# a real disagreement between spec and server.  Any other 422 code is a game rule.
SCHEMA_LEVEL_422_CODES = frozenset({"invalid_request", "invalid_idempotency_key"})


def _only_hidden_astral(errors: Any) -> bool:
    """Whether every field error is a name's invisible character past U+FFFF: the published pattern
    names only characters below U+FFFF (so every regex engine reads it alike) and the field's
    description lists the ones above it, so a fuzzer generating from the pattern can send one."""
    from service.api.schemas import HIDDEN_ASTRAL_MESSAGE

    if isinstance(errors, dict):
        return bool(errors) and all(_only_hidden_astral(value) for value in errors.values())
    if isinstance(errors, list):
        return bool(errors) and all(_only_hidden_astral(value) for value in errors)
    return errors == HIDDEN_ASTRAL_MESSAGE

# Refusals that are not the game's rules: a move refused with one of these never reached them.
NOT_GAME_LOGIC_CODES = SCHEMA_LEVEL_422_CODES | {"idempotency_key_reused", "idempotency_key_in_progress",
                                                 "stale_version", "malformed_json", "unsupported_media_type",
                                                 "body_too_large", "rate_limited"}
# Idempotency-Key lengths the server accepts (service.api.idempotency.MIN_LENGTH / MAX_LENGTH).
KEY_LENGTHS = range(16, 256)
# Fewest seat moves that must reach the games' rules in a default run (a default run makes about 650).
MIN_SEAT_MOVES = int(os.environ.get("REFEREE_FUZZ_MIN_SEAT_MOVES") or 200)

# The seat a hook-added link names (see _add_links): Gops seat 0 (as the spec's own links), Gofo the
# seat whose turn it is, so that some of the linked moves are legal.
LINK_SEAT = {"/v1/gops/games": 0, "/v1/gofo/tables": "$response.body#/table/hand/to_act"}
# The new game's (table's) version in the create response.
LINK_VERSION = {"/v1/gops/games": "$response.body#/game/version", "/v1/gofo/tables": "$response.body#/table/version"}


# ----------------------------------------------------------------- hooks (CLI process)


class _Tokens:
    """host and seat tokens of every game/table the fuzzer created, by id (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_id: dict[str, tuple[str, list[str]]] = {}

    def record(self, body: Any) -> bool:
        try:
            ident, host, seats = body["id"], body["host_token"], list(body["seat_tokens"])
        except (TypeError, KeyError):
            return False
        if not (isinstance(ident, str) and isinstance(host, str) and all(isinstance(t, str) for t in seats)):
            return False
        with self._lock:
            self._by_id[ident] = (host, seats)
        return True

    def for_path(self, path_parameters: dict[str, Any]) -> str | None:
        ident = path_parameters.get("game_id", path_parameters.get("table_id"))
        if not isinstance(ident, str):
            return None
        with self._lock:
            entry = self._by_id.get(ident)
        if entry is None:
            return None
        host, seats = entry
        seat = path_parameters.get("seat")
        if isinstance(seat, str) and seat.isascii() and seat.isdigit() and (seat == "0" or seat[0] != "0"):
            seat = int(seat)  # a link's value may come as text; the server reads "3" as seat 3 too
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(seats):
            return seats[seat]
        return host  # host-or-seat operations, or a seat the game does not have


class _Stats:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.responses: collections.Counter[str] = collections.Counter()
        self.created: collections.Counter[str] = collections.Counter()
        self.authorized: collections.Counter[str] = collections.Counter()
        self.dropped: collections.Counter[str] = collections.Counter()
        self.dropped_examples: dict[str, list[str]] = {}
        self.seat_moves: collections.Counter[str] = collections.Counter()

    def add(self, label: str, status: int, created: bool, authorized: bool, code: str | None = None) -> None:
        with self._lock:
            self.responses[f"{label} {status}"] += 1
            if created:
                self.created[label] += 1
            if authorized and 200 <= status < 300:
                self.authorized[label] += 1
            if authorized and label.startswith("POST ") and "/seats/{seat}/" in label and (
                    200 <= status < 300 or (status in (409, 422) and code not in NOT_GAME_LOGIC_CODES)):
                self.seat_moves[label] += 1  # a seat move that reached the game's rules

    def drop(self, what: str, detail: str) -> None:
        with self._lock:
            self.dropped[what] += 1
            examples = self.dropped_examples.setdefault(what, [])
            if len(examples) < 5:
                examples.append(detail)

    def dump(self, path: str) -> None:
        with self._lock:
            data = {"responses": dict(self.responses), "created": dict(self.created),
                    "authorized_2xx": dict(self.authorized), "dropped_failures": dict(self.dropped),
                    "seat_moves_reaching_rules": dict(self.seat_moves),
                    "dropped_examples": self.dropped_examples}
        Path(path).write_text(json.dumps(data, indent=1, sort_keys=True))


def _body_properties(raw_schema: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any]:
    """The JSON request body's top-level properties (one ``$ref`` deep, as flask-smorest writes them)."""
    schema = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {})
    ref = schema.get("$ref", "") if isinstance(schema, dict) else ""
    if ref.startswith("#/components/schemas/"):
        schema = raw_schema.get("components", {}).get("schemas", {}).get(ref.rsplit("/", 1)[1], {})
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return properties if isinstance(properties, dict) else {}


def _add_links(raw_schema: dict[str, Any]) -> None:
    """More links from each create's 201 response to the operations on the new id.

    * to every operation no link of the spec reaches (none today: the spec links each create to every
      operation on its new id, tests/test_openapi.py checks it; this keeps a new one reached);
    * a second link to every move whose body has ``version``, filling it with the new game's version:
      a random version is always stale (409), so without these the fuzzer never makes a move that
      pins the version it acted on, and never checks what happens around that check.
    """
    paths = raw_schema.get("paths", {})
    for create_path, id_name in CREATE_PATHS.items():
        create = paths.get(create_path, {}).get("post", {})
        response = create.get("responses", {}).get("201")
        if not isinstance(response, dict):
            continue
        links = response.setdefault("links", {})
        linked = {link.get("operationId"): link for link in links.values() if isinstance(link, dict)}
        prefix = f"{create_path}/{{{id_name}}}"
        for path, item in paths.items():
            if not (path == prefix or path.startswith(prefix + "/")) or not isinstance(item, dict):
                continue
            for method, operation in item.items():
                operation_id = operation.get("operationId") if isinstance(operation, dict) else None
                if method == "parameters" or not operation_id:
                    continue
                link = linked.get(operation_id)
                if link is None:
                    parameters: dict[str, Any] = {id_name: "$response.body#/id"}
                    if "{seat}" in path:
                        parameters["seat"] = LINK_SEAT[create_path]
                    link = links[f"Fuzz_{operation_id}"] = {"operationId": operation_id, "parameters": parameters}
                if method == "post" and "version" in _body_properties(raw_schema, operation):
                    links[f"FuzzPinned_{operation_id}"] = {
                        "operationId": operation_id,
                        "parameters": dict(link.get("parameters", {})),
                        "requestBody": {"version": LINK_VERSION[create_path]},  # merged into the generated body
                    }


def register_hooks() -> None:
    """Register the hooks and the auth provider with schemathesis (global: call once per process)."""
    import schemathesis

    tokens = _Tokens()
    stats = _Stats()
    # Unique per process too, so a long run against a persistent `make run` server never meets a key
    # an earlier run stored.
    run_id = uuid.uuid4().hex[:8]
    serial = itertools.count(1)

    stats_path = os.environ.get(STATS_ENV)
    if stats_path:
        atexit.register(stats.dump, stats_path)

    @schemathesis.hook
    def before_load_schema(context, raw_schema):
        _add_links(raw_schema)

    @schemathesis.hook
    def before_call(context, case, kwargs):
        headers = case.headers
        if not headers:
            return
        for name in list(headers):
            key = headers[name]
            if name.lower() != "idempotency-key" or not isinstance(key, str):
                continue
            # Only keys the server would use (it refuses the others before looking anything up);
            # the suffix keeps them valid, and keeps the characters schemathesis chose.
            if len(key) in KEY_LENGTHS and key.isascii() and key.isprintable() and key == key.strip():
                suffix = f"~{run_id}.{next(serial)}"
                headers[name] = key[: 255 - len(suffix)] + suffix

    @schemathesis.hook
    def after_call(context, case, response):
        created = False
        if case.method.upper() == "POST" and case.path in CREATE_PATHS and response.status_code == 201:
            try:
                created = tokens.record(response.json())
            except ValueError:
                pass
        ours = tokens.for_path(case.path_parameters or {})
        sent = (case.headers or {}).get("Authorization")
        code = None
        if response.status_code >= 400:
            try:
                problem = response.json()
                code = problem.get("code") if isinstance(problem, dict) else None
            except ValueError:
                pass
        stats.add(f"{case.method.upper()} {case.path}", response.status_code, created,
                  # the operation itself, not a probe with another method (unsupported_method)
                  authorized=ours is not None and sent == f"Bearer {ours}"
                  and case.method.upper() == case.operation.method.upper(), code=code)

    @schemathesis.hook
    def filter_failure(context, failure, case, response):
        # Keep every failure but positive_data_acceptance's on a 422 for a game rule (module docstring).
        if getattr(failure, "code", None) != "ST202" or response.status_code != 422:
            return True
        try:
            problem = json.loads(response.content)
        except (ValueError, TypeError):
            return True
        code = problem.get("code") if isinstance(problem, dict) else None
        if code == "invalid_request" and _only_hidden_astral(problem.get("errors")):
            code = "invalid_request (a name's invisible character past U+FFFF)"
        elif not isinstance(code, str) or code in SCHEMA_LEVEL_422_CODES:
            return True
        stats.drop(f"{case.method.upper()} {case.path} 422 {code}",
                   f"{case.formatted_path} {json.dumps(case.body, default=str)[:300]} -> {problem.get('detail')}")
        return False

    @schemathesis.auth(refresh_interval=None)
    class SeatOrHostToken:
        """The token of the seat (or host) of the game/table in the path, if the fuzzer created it."""

        def get(self, case, context):
            if not context.operation.definition.raw.get("security"):
                return None  # public operation: send no token
            return tokens.for_path(case.path_parameters or {})

        def set(self, case, data, context):
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


def main(argv: list[str]) -> int:
    """``python tests/test_fuzz.py run URL [options]``: the schemathesis CLI with these hooks."""
    register_hooks()
    from schemathesis.cli import schemathesis as cli

    try:
        cli.main(args=argv, prog_name="schemathesis", standalone_mode=True)
    except SystemExit as exit:
        return exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    return 0


# ----------------------------------------------------------------- the test (pytest process)


@pytest.mark.slow
@pytest.mark.timeout(TIMEOUT + 60)
def test_schemathesis(fuzz_run: BackgroundFuzz):
    try:
        code, output = fuzz_run.wait()
    except RuntimeError as error:
        pytest.fail(str(error))
    command, log_path = fuzz_run.command, fuzz_run.log_path
    if code is None:
        pytest.fail(f"schemathesis did not finish in {TIMEOUT} s (REFEREE_FUZZ_TIMEOUT); "
                    f"command:\n  {shlex.join(command)}\n\n{output[-5000:]}")
    print(output)  # shown by pytest on failure (and with -s)
    server_errors = [line for line in log_path.read_text(errors="replace").splitlines()
                     if any(mark in line for mark in SERVER_ERROR_MARKS)]
    assert code == 0, (
        f"schemathesis found problems (exit {code}); command:\n  {shlex.join(command)}\n\n"
        f"{_report_for_humans(output)}\n\ngunicorn log ({log_path}) error lines: {server_errors[:20]}"
    )
    assert not server_errors, f"gunicorn logged errors ({log_path}): {server_errors[:20]}"
    stats_path = fuzz_run.stats_path

    # The run must have exercised what it is meant to: creates, and tokens carried into the ids.
    stats = json.loads(stats_path.read_text())
    assert stats["created"].get("POST /v1/gops/games", 0) > 0, stats["created"]
    assert stats["created"].get("POST /v1/gofo/tables", 0) > 0, stats["created"]
    authorized = stats["authorized_2xx"]
    for prefix in ("/v1/gops/games/{game_id}/", "/v1/gofo/tables/{table_id}/"):
        assert any(prefix in label for label in authorized), (
            f"no authorized 2xx on {prefix}...: the stateful phase did not carry tokens", authorized)
    assert "Stateful" in output and "API Links:" in output, "the stateful phase did not run"
    # ...and moves reached the games' rules, in both games (not only 401/404 on made-up ids).
    moves = stats["seat_moves_reaching_rules"]
    print(f"seat moves that reached the games' rules: {sum(moves.values())}")
    for label, count in sorted(moves.items()):
        print(f"  {count:5d}  {label}")
    assert sum(moves.values()) >= MIN_SEAT_MOVES, (f"only {sum(moves.values())} seat moves reached the "
                                                   f"games' rules (minimum {MIN_SEAT_MOVES})", moves)
    for game in ("/v1/gops/", "/v1/gofo/"):
        assert any(label.startswith(f"POST {game}") for label in moves), (f"no {game} seat move reached the rules", moves)


def _report_for_humans(output: str) -> str:
    """The CLI output from its FAILURES/ERRORS section on (the progress lines say little)."""
    for marker in ("= ERRORS =", "= FAILURES ="):
        index = output.find(marker)
        if index >= 0:
            return output[output.rfind("\n", 0, index) + 1:]
    return output[-20000:]


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

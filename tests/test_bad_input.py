"""Hypothesis sweep of bad input at every Gops operation (Flask test client, real Valkey).

The operations come from the generated spec (``service.openapi.generate()``),
so a new endpoint is swept as soon as it exists.  Each request gets a random
or adversarial body (any JSON, wrong types per field, huge / negative /
fractional numbers, unicode, long strings, NUL bytes, deep nesting, non-JSON,
empty), random path parameters (unicode, ``..``, ``%00``, very long), random
headers (garbage Authorization, huge headers, wrong Content-Type, bad
Idempotency-Key / If-None-Match) and sometimes a method the path does not
have.  Between fuzzed requests, plausible moves keep the game progressing so
the fuzz reaches every phase.

The only acceptable outcomes:

* a 2xx whose JSON body matches the operation's response schema in the spec,
  and only for a body that matches the operation's request schema;
* 304 for a GET with a matching ``If-None-Match``;
* a 4xx ``application/problem+json`` with ``type/title/status/detail/code``,
  ``status`` equal to the HTTP status, after which every stored key (hash,
  log list, idempotency records) is byte-identical to before.

Never a 5xx.  After any request the stored game is consistent (the hash's
version equals the log's distinct versions 1..N).

Bugs the sweep found once (a 500 on absurdly nested JSON or a 5000-digit
number, non-integers accepted as integers, a trailing newline accepted in a hex
field, an HTML redirect for an empty path segment) keep an exact reproduction
at the end of this file.
"""

from __future__ import annotations

import copy
import json
import re
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import jsonschema
import pytest
import redis
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from service import commitments
from service.openapi import generate
from support.chance import seeded_referee

PROBLEM = "application/problem+json"
MAX_BODY = 16 * 1024  # REFEREE_MAX_BODY_BYTES default

SPEC = generate()
COMPONENTS = SPEC["components"]


# --------------------------------------------------------------- the spec


def _resolve(node: Any, ecma: bool) -> Any:
    """Inline $refs; OpenAPI 3.0 ``nullable`` to JSON Schema; patterns with ECMA-262 ``$``."""
    if isinstance(node, list):
        return [_resolve(n, ecma) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        _, _, kind, name = node["$ref"].split("/")
        return _resolve(COMPONENTS[kind][name], ecma)
    out = {k: _resolve(v, ecma) for k, v in node.items() if k not in ("example", "examples", "description")}
    if out.pop("nullable", False):
        if "type" in out:
            out["type"] = [out["type"], "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:  # e.g. {"allOf": [{"$ref": ...}], "nullable": true}
            out = {"anyOf": [out, {"type": "null"}]}
    if ecma and isinstance(out.get("pattern"), str) and out["pattern"].endswith("$"):
        # In JSON Schema (ECMA-262) "$" is the end of the string; in Python it also
        # matches before a trailing newline.
        out["pattern"] = out["pattern"][:-1] + r"\Z"
    return out


@dataclass
class Operation:
    method: str
    template: str
    op: dict[str, Any]
    body_schema: dict[str, Any] | None  # ECMA semantics (what the spec means)
    body_required: bool
    responses: dict[str, Any]

    @property
    def name(self) -> str:
        return self.op.get("operationId", f"{self.method} {self.template}")

    def response_schema(self, status: int) -> dict[str, Any] | None:
        response = self.responses.get(str(status))
        if response is None:
            return None
        content = _resolve(response, True).get("content", {})
        schema = content.get("application/json", {}).get("schema")
        return schema


def operations_under(prefix: str) -> list[Operation]:
    """Every operation of the spec whose path starts with ``prefix`` (new endpoints join by themselves)."""
    ops = []
    for template, item in SPEC["paths"].items():
        if not template.startswith(prefix):
            continue
        for method, op in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            body = op.get("requestBody")
            schema = body["content"]["application/json"]["schema"] if body else None
            ops.append(Operation(
                method.upper(), template, op,
                _resolve(schema, True) if schema else None,
                bool(body and body.get("required")),
                op.get("responses", {}),
            ))
    return ops


OPERATIONS = operations_under("/v1/gops/")
POST_OPS = [o for o in OPERATIONS if o.method == "POST"]


def test_the_sweep_covers_every_operation():
    names = {o.name for o in OPERATIONS}
    assert {"createGopsGame", "commitGopsBid", "revealGopsBid", "getGopsTranscript"} <= names
    assert all(o.body_schema is not None for o in POST_OPS)


# ----------------------------------------------------- body conformance


def conformance(op: Operation, body: Any) -> str:
    """``valid`` or ``invalid`` by the spec's request schema."""
    if op.body_schema is None:
        return "valid"
    validator = jsonschema.Draft7Validator
    if validator(op.body_schema).is_valid(body):
        return "valid"
    return "invalid"


# ------------------------------------------------------------ the world


@dataclass
class World:
    client: Any
    raw: redis.Redis
    id: str
    host: str
    tokens: list[str]
    bids: dict[tuple[int, int], tuple[list[int], str]] = field(default_factory=dict)
    poisoned: set[tuple[int, int, str]] = field(default_factory=set)

    @property
    def base(self) -> str:
        return f"/v1/gops/games/{self.id}"

    def public(self) -> dict[str, Any]:
        r = self.client.get(self.base)
        assert r.status_code == 200, r.get_data()
        return r.get_json()


# Deterministic prize orders: the sequences' draws depend on the game's course, and hypothesis
# needs the same draws to give the same game when it replays or shrinks an example.
GAME_SETUPS = [
    {"profile": "classic", "options": {"ranks": 4, "prize_order": "descending"}},
    {"profile": "standard", "options": {"players": 3, "ranks": 3, "resolution": "split", "prize_order": "ascending"}},
    {"profile": "standard", "options": {"ranks": 4, "open_prizes": 2, "prize_order": "explicit", "explicit_order": [2, 4, 1, 3]}},
    {"profile": "standard", "options": {"ranks": 3, "prize_order": "reported"}},
    {"profile": "standard", "options": {"ranks": 3, "prize_order": "reported", "visibility": "blind"}},
    {"profile": "standard", "options": {"ranks": 4, "bid_cards": 2, "prize_order": "ascending"}},
    {"profile": "classic", "options": {"ranks": 3, "deadline_seconds": 600, "prize_order": "descending"},
     "match": {"format": "best_of", "games": 3}},
]
# One request at a fresh game does not depend on the game's course: shuffled orders are fine there.
SINGLE_SETUPS = [*GAME_SETUPS, {"profile": "classic"}, {"profile": "standard", "options": {"players": 7}}]


def new_world(client, raw, setup: dict[str, Any]) -> World:
    raw.flushdb()
    r = client.post("/v1/gops/games", json=setup)
    assert r.status_code == 201, r.get_data()
    data = r.get_json()
    return World(client, raw, data["id"], data["host_token"], data["seat_tokens"])


# Keys that count every request by design (service.ratelimit), so they are not "state a refusal changed".
BOOKKEEPING_PREFIXES = (b"referee:rl:",)


def snapshot(raw: redis.Redis) -> dict[bytes, Any]:
    """Every stored key (games, logs, idempotency records...) with its type and value, as raw
    bytes; TTLs and rate-limit counters excluded."""
    out: dict[bytes, Any] = {}
    for key in raw.scan_iter(count=1000):
        if key.startswith(BOOKKEEPING_PREFIXES):
            continue
        kind = raw.type(key)
        if kind == b"hash":
            value: Any = sorted(raw.hgetall(key).items())
        elif kind == b"list":
            value = raw.lrange(key, 0, -1)
        elif kind == b"string":
            value = raw.get(key)
        else:
            value = None
        out[key] = (kind, value)
    return out


def assert_store_consistent(world: World) -> None:
    key = f"referee:gops:{{{world.id}}}".encode()
    version = world.raw.hget(key, "version")
    if version is None:
        return
    versions = [json.loads(e)["version"] for e in world.raw.lrange(key + b":log", 0, -1)]
    assert versions == sorted(versions)
    assert sorted(set(versions)) == list(range(1, int(version) + 1)), (version, versions)


# ------------------------------------------------------------ strategies

huge_ints = st.sampled_from([2**31, 2**53 + 1, 2**63, 2**64, 10**30, -(2**63), -1, 0, 10**400])
weird_numbers = st.one_of(
    st.integers(), huge_ints,
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.5, 1.5, 1.0, 2.0, -0.0, 1e308, 1e-308, 13.999]),
)
weird_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["", " ", "\x00", "a\x00b", "..", "../../etc/passwd", "%00", "\u202e", "\ud800", "\udfff\ud800",
                     "classic", "standard", "1", "٣", "1_0", " 2 ", "0x10", "1e3", "a" * 64, "A" * 64, "a" * 64 + "\n", "\n" + "a" * 64,
                     "g" * 64, "a" * 63, "a" * 65, "é" * 64, "🂡" * 10]),
    st.integers(1, 20_000).map(lambda n: "x" * n),
)
json_scalars = st.one_of(st.none(), st.booleans(), weird_numbers, weird_text)
any_json = st.recursive(
    json_scalars,
    lambda children: st.one_of(st.lists(children, max_size=5),
                               st.dictionaries(st.one_of(weird_text, st.sampled_from(["round", "commitment", "cards", "salt", "rank", "version", "profile", "options", "match", "players"])), children, max_size=5)),
    max_leaves=20,
)


@st.composite
def from_schema(draw, schema: dict[str, Any]) -> Any:
    """A value that (mostly) conforms to ``schema``; domain rules may still refuse it."""
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(part)
        return draw(from_schema(merged))
    types = schema.get("type", "object")
    kind = types[0] if isinstance(types, list) else types
    if "enum" in schema:
        return draw(st.sampled_from([v for v in schema["enum"] if v is not None] or [None]))
    if kind == "integer":
        lo, hi = schema.get("minimum", -5), schema.get("maximum", max(schema.get("minimum", 0) + 20, 20))
        return draw(st.integers(lo, hi))
    if kind == "number":
        return draw(st.floats(allow_nan=False))
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "string":
        if schema.get("pattern", "").startswith("^[0-9a-f]{64}"):
            return draw(st.text("0123456789abcdef", min_size=64, max_size=64))
        return draw(st.text(min_size=schema.get("minLength", 0), max_size=10))
    if kind == "array":
        return draw(st.lists(from_schema(schema.get("items", {})), min_size=schema.get("minItems", 0),
                             max_size=min(schema.get("maxItems", 4), 4)))
    props = schema.get("properties", {})
    required = set(schema.get("required", []))
    out = {}
    for name, sub in props.items():
        if name in required or draw(st.booleans()):
            out[name] = draw(from_schema(sub))
    return out


@st.composite
def mutated(draw, schema: dict[str, Any]) -> Any:
    """A conforming body with one thing wrong: a field's type or value, an extra or missing field."""
    body = draw(from_schema(schema))
    if not isinstance(body, dict):
        return body
    props = list(schema.get("properties", {}))
    how = draw(st.sampled_from(["retype", "retype", "extra", "drop", "nest"]))
    if how == "retype" and props:
        body[draw(st.sampled_from(props))] = draw(json_scalars | st.lists(json_scalars, max_size=3) | st.just({}))
    elif how == "extra":
        body[draw(weird_text)] = draw(json_scalars)
    elif how == "drop" and body:
        body.pop(draw(st.sampled_from(sorted(body))))
    elif how == "nest" and props:
        # A nested object field gets a mutated body of its own.
        name = draw(st.sampled_from(props))
        sub = schema["properties"][name]
        if "allOf" in sub or sub.get("type") == "object":
            body[name] = draw(mutated(sub["allOf"][0] if "allOf" in sub else sub))
        elif sub.get("type") == "array":
            body[name] = [draw(weird_numbers) for _ in range(draw(st.integers(0, 15)))]
    return body


NOT_JSON = object()


@dataclass
class Body:
    raw: bytes | None
    content_type: str | None
    parsed: Any = None  # the JSON the server should see, or NOT_JSON
    label: str = ""
    alternative: Any = NOT_JSON  # what a charset-aware decoder sees


@st.composite
def bodies(draw, op: Operation | None) -> Body:
    schema = op.body_schema if op is not None else None
    choices = ["any_json", "deep", "bytes", "empty", "text", "huge"]
    if schema:
        choices += ["valid", "mutated", "mutated", "mutated"]
    label = draw(st.sampled_from(choices))
    if label in ("valid", "mutated", "any_json"):
        value = draw(from_schema(schema) if label == "valid" else mutated(schema) if label == "mutated" else any_json)
        try:
            raw = json.dumps(value, ensure_ascii=draw(st.booleans())).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: only expressible as a \u escape
            raw = json.dumps(value).encode("utf-8")
        parsed = value
    elif label == "deep":
        depth = draw(st.integers(1, 8000))
        opener, closer = draw(st.sampled_from([("[", "]"), ('{"a":', "}")]))
        inner = draw(st.sampled_from(["", "1", "null"])) if opener == "[" else "1"
        raw = (opener * depth + inner + closer * depth).encode()
        parsed = NOT_JSON if depth > 200 else json.loads(raw)
    elif label == "bytes":
        raw = draw(st.binary(max_size=200))
        parsed = NOT_JSON
    elif label == "text":
        raw = draw(st.sampled_from([b"{", b"}", b"[1,", b"nul", b'{"round": 1,}', b"{'round': 1}", b"NaN", b"1" * 5000,
                                    b'{"round": ' + b"9" * 5000 + b"}", b"\xef\xbb\xbf{}", b"{}\x00", b'"\\ud800"', b"{}{}"]))
        parsed = NOT_JSON
    elif label == "huge":
        raw = b'{"x": "' + b"a" * draw(st.integers(MAX_BODY - 20, MAX_BODY * 2)) + b'"}'
        parsed = NOT_JSON
    else:
        raw, parsed = b"", None
    if parsed is not NOT_JSON and raw:
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = NOT_JSON
    if draw(st.integers(0, 3)):
        content_type = "application/json"
    else:
        content_type = draw(st.sampled_from([
            None, "text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-8",
            "application/problem+json", "multipart/form-data; boundary=x", "application/json; charset=latin-1",
            "garbage", "application/xml", "APPLICATION/JSON", "application/json;charset=utf-16",
        ]))
    body = Body(raw, content_type, parsed, label)
    charset = re.search(r"charset=([\w-]+)", content_type or "")
    if charset and raw:
        # The server may decode with the declared charset: what it then sees is another candidate.
        try:
            body.alternative = json.loads(raw.decode(charset.group(1)))
        except (ValueError, LookupError, RecursionError):
            pass
    return body


ID_NASTIES = ["..", ".", "%00", "%2e%2e", "%2F", "a/b", "%", "%zz", "x" * 5000, "Xk3_9fQa2LmZ", "{id}", "*",
              "referee:gops:{x}", "\u00e9\U0001F600", " ", "null", "-1", "a?b=c", "a#b"]
SEAT_NASTIES = ["-1", "99999999999999999999999999", "abc", "0x1", "１", "0.5", "", "%00", "1e3", "00", "+1", "7"]


@st.composite
def paths(draw, world: World, op: Operation, players: int) -> tuple[str, bool, int | None]:
    """The request path; whether it targets ``op`` as routed; the seat if any."""
    routed = True
    game_id = urllib.parse.quote(world.id, safe="")
    if "{game_id}" in op.template and draw(st.integers(0, 4)) == 0:
        routed = False
        choice = draw(st.one_of(st.sampled_from(ID_NASTIES), st.text(min_size=1, max_size=30)))
        game_id = choice if draw(st.booleans()) and choice in ID_NASTIES else urllib.parse.quote(choice, safe="")
    seat: int | None = draw(st.integers(0, players - 1))
    seat_text = str(seat)
    if "{seat}" in op.template and draw(st.integers(0, 4)) == 0:
        seat_text = draw(st.one_of(st.sampled_from(SEAT_NASTIES), st.integers().map(str)))
        # werkzeug's int converter takes any run of decimal digits ("00", "１"): still this route.
        seat = int(seat_text) if seat_text.isdecimal() else None
        routed = routed and seat is not None
    path = op.template.replace("{game_id}", game_id).replace("{seat}", seat_text)
    return path, routed, seat


header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, blacklist_characters="\x7f"), max_size=60)


@st.composite
def headers(draw, world: World, seat: int | None) -> dict[str, str]:
    out: dict[str, str] = {}
    auth = draw(st.sampled_from(["own", "own", "own", "other", "host", "none", "garbage", "huge", "basic", "bare", "lower"]))
    own = world.tokens[seat] if seat is not None and seat < len(world.tokens) else world.tokens[0]
    if auth == "own":
        out["Authorization"] = f"Bearer {own}"
    elif auth == "other":
        out["Authorization"] = f"Bearer {world.tokens[(world.tokens.index(own) + 1) % len(world.tokens)]}"
    elif auth == "host":
        out["Authorization"] = f"Bearer {world.host}"
    elif auth == "garbage":
        out["Authorization"] = draw(header_text)
    elif auth == "huge":
        out["Authorization"] = "Bearer " + "A" * draw(st.integers(200, 20_000))
    elif auth == "basic":
        out["Authorization"] = "Basic " + own
    elif auth == "bare":
        out["Authorization"] = "Bearer"
    elif auth == "lower":
        out["Authorization"] = f"bearer   {own}  "
    if draw(st.integers(0, 3)) == 0:
        out["If-None-Match"] = draw(st.one_of(header_text, st.integers(0, 60).map(lambda v: f'"v{v}"'), st.just("*")))
    if draw(st.integers(0, 3)) == 0:
        out["Idempotency-Key"] = draw(st.one_of(header_text, st.integers(0, 300).map(lambda n: "k" * n)))
    if draw(st.integers(0, 5)) == 0:
        out["X-Junk"] = "j" * draw(st.integers(0, 30_000))
    if draw(st.integers(0, 8)) == 0:
        out["Accept"] = draw(st.sampled_from(["text/html", "application/xml", "*/*", "garbage"]))
    return out


# ----------------------------------------------------------- the oracle


def send(world: World, method: str, path: str, body: Body, hdrs: dict[str, str]):
    kwargs: dict[str, Any] = {"method": method, "headers": hdrs}
    if body.raw is not None and method != "GET":
        kwargs["data"] = body.raw
        if body.content_type is not None:
            kwargs["content_type"] = body.content_type
    return world.client.open(path, **kwargs)


def check(world: World, op: Operation, method: str, path: str, routed: bool, body: Body,
          hdrs: dict[str, str], before: dict[bytes, Any]) -> Any:
    response = send(world, method, path, body, hdrs)
    status = response.status_code
    note(f"{method} {path[:120]} [{body.label}, {body.content_type}] {body.raw[:200] if body.raw else body.raw!r} "
         f"headers={ {k: v[:80] for k, v in hdrs.items()} } -> {status} {response.get_data()[:300]!r}")
    event(f"{op.name if routed and method == op.method else 'other'} -> {status}")
    after = snapshot(world.raw)
    assert_store_consistent(world)
    assert status < 500, f"{status} on {method} {path}: {response.get_data()[:500]!r}"
    if 200 <= status < 300:
        assert routed and method == op.method, f"{status} for {method} {path}"
        assert response.mimetype == "application/json"
        schema = op.response_schema(status)
        assert schema is not None, f"undocumented {status} for {op.name}"
        jsonschema.Draft7Validator(schema).validate(response.get_json())
        if method != "GET":
            # No body: every field takes its default.
            candidates = [{}] if body.raw in (None, b"") else [c for c in (body.parsed, body.alternative) if c is not NOT_JSON]
            assert candidates, f"{status} for a body that is not JSON: {body.raw[:100]!r}"
            verdicts = [conformance(op, c) for c in candidates]
            assert "valid" in verdicts, f"{status} for a body the spec forbids: {candidates!r}"
        return response
    if status == 304:
        assert method == "GET" and "If-None-Match" in hdrs, f"304 on {method} {path}"
        assert after == before
        return response
    assert 400 <= status < 500, f"unexpected status {status}"
    assert response.mimetype == PROBLEM, (status, response.mimetype, response.get_data()[:300])
    problem = response.get_json()
    assert isinstance(problem, dict), problem
    for key, kind in (("type", str), ("title", str), ("status", int), ("detail", str), ("code", str)):
        assert isinstance(problem.get(key), kind), (key, problem)
    assert problem["status"] == status, problem
    assert problem["type"].endswith("/" + problem["code"]), problem
    assert after == before, f"a {status} {problem['code']} changed stored state"
    return response


# ------------------------------------------------------- plausible moves


def plausible_move(world: World, state: dict[str, Any], draw) -> tuple[str, dict[str, Any], str] | None:
    """A legal-looking move for the current phase (so the fuzz sees every phase)."""
    phase, round_ = state["phase"], state["round"]
    awaiting = state["awaiting"]
    if phase == "commit" and awaiting:
        seat = draw(st.sampled_from(awaiting))
        hand = state["hands"][seat]
        k = state["rules"]["bid_cards"]
        cards = draw(st.permutations(hand))[:k]
        salt = draw(st.text("0123456789abcdef", min_size=64, max_size=64))
        world.bids[(state["game_number"], round_, seat)] = (cards, salt)
        commitment = commitments.bid_commitment(state["game_id"], round_, seat, cards, salt)
        return f"{world.base}/seats/{seat}/commit", {"round": round_, "commitment": commitment}, world.tokens[seat]
    if phase == "reveal" and awaiting:
        seat = draw(st.sampled_from(awaiting))
        bid = world.bids.get((state["game_number"], round_, seat))
        if bid is None:
            return None
        cards, salt = bid
        return f"{world.base}/seats/{seat}/reveal", {"round": round_, "cards": cards, "salt": salt}, world.tokens[seat]
    if phase == "choose" and state["chooser"] is not None:
        seat = state["chooser"]
        return f"{world.base}/seats/{seat}/choose", {"rank": draw(st.sampled_from(state["row"]))}, world.tokens[seat]
    if phase == "prize":
        left = [r for r in range(1, state["rules"]["ranks"] + 1) if r not in state["turned"]]
        if left:
            return f"{world.base}/prize", {"rank": draw(st.sampled_from(left))}, world.host
    return None


@st.composite
def near_miss(draw, payload: dict[str, Any], version: int) -> dict[str, Any]:
    """A plausible move with one small thing wrong (or, sometimes, right: a matching version)."""
    body = copy.deepcopy(payload)
    how = draw(st.sampled_from(["field", "field", "field", "extra", "drop", "version"]))
    if how == "extra":
        body[draw(st.sampled_from(["extra", "seat", "Round", "round ", "type", "__proto__"]))] = draw(json_scalars)
    elif how == "drop":
        body.pop(draw(st.sampled_from(sorted(body))))
    elif how == "version":
        body["version"] = draw(st.sampled_from([version, version - 1, version + 1, 0, float(version), str(version),
                                                version + 0.5, -version, 2**64, None, True]))
    else:
        name = draw(st.sampled_from(sorted(body)))
        v = body[name]
        if isinstance(v, bool) or v is None:
            pass
        elif isinstance(v, int):
            body[name] = draw(st.sampled_from([float(v), v + 0.5, v - 0.5, str(v), f" {v} ", True, None, -v, 0,
                                               v + 1, v + 10**20, [v], {"v": v}]))
        elif isinstance(v, str):
            body[name] = draw(st.sampled_from([v + "\n", "\n" + v, v.upper(), v[:-1], v + "0", " " + v, v + " ",
                                               v[:-1] + "\x00", v.replace("a", "\u0430"), None, 1, [v]]))
        elif isinstance(v, list):
            body[name] = draw(st.sampled_from([[float(c) for c in v], [str(c) for c in v], v + v, [], v[::-1],
                                               [c + 13 for c in v], [-c for c in v], None, [v], v + [0]]))
    return body


# ---------------------------------------------------------------- sweeps

def sweep(max_examples: int) -> settings:
    return settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                               HealthCheck.data_too_large, HealthCheck.large_base_example],
    )


@pytest.fixture
def raw(redis_url):
    client = redis.Redis.from_url(redis_url)
    try:
        yield client
    finally:
        client.close()


def fuzz_one(world: World, draw, players: int) -> None:
    op = draw(st.sampled_from(OPERATIONS))
    method = op.method if draw(st.integers(0, 9)) else draw(st.sampled_from(["GET", "POST", "PUT", "PATCH", "DELETE"]))
    path, routed, seat = draw(paths(world, op, players))
    body = draw(bodies(op if method == "POST" else None)) if method != "GET" else Body(None, None, None, "none")
    hdrs = draw(headers(world, seat))
    check(world, op, method, path, routed, body, hdrs, snapshot(world.raw))


@sweep(700)
@given(data=st.data())
def test_every_operation_refuses_garbage_cleanly(client, raw, redis_client, data):
    """One adversarial request at any operation of a fresh game (any setup)."""
    with seeded_referee():
        setup = data.draw(st.sampled_from(SINGLE_SETUPS))
        world = new_world(client, raw, setup)
        fuzz_one(world, data.draw, len(world.tokens))


@sweep(120)
@given(data=st.data())
def test_random_action_sequences(client, raw, redis_client, data):
    """Plausible moves interleaved with garbage: every phase of every setup gets fuzzed."""
    with seeded_referee():
        _gops_action_sequence(client, raw, data)


def _gops_action_sequence(client, raw, data) -> None:
    setup = data.draw(st.sampled_from(GAME_SETUPS))
    world = new_world(client, raw, setup)
    players = len(world.tokens)
    for _ in range(data.draw(st.integers(5, 40))):
        kind = data.draw(st.sampled_from(["move", "move", "near", "near", "fuzz", "fuzz", "resign", "deadline"]))
        state = world.public()
        if kind in ("move", "near"):
            move = plausible_move(world, state, data.draw)
            if move is None:
                continue
            path, payload, token = move
            op = next(o for o in POST_OPS if path.endswith(o.template.rsplit("/", 1)[1]))
            if kind == "near":
                payload = data.draw(near_miss(payload, state["version"]))
            body = Body(json.dumps(payload).encode(), "application/json", payload, kind)
            response = check(world, op, "POST", path, True, body, {"Authorization": f"Bearer {token}"},
                             snapshot(world.raw))
            seat_round = (state["game_number"], state["round"], path.split("/seats/")[-1].split("/")[0])
            if kind == "near" and response.status_code == 200 and path.endswith("/commit"):
                world.poisoned.add(seat_round)  # a near-miss commitment may be unrevealable
            if kind == "move" and state["phase"] != "over" and seat_round not in world.poisoned:
                assert response.status_code == 200, response.get_data()
        elif kind in ("resign", "deadline") and data.draw(st.integers(0, 5)) == 0:
            seat = data.draw(st.integers(0, players - 1))
            suffix = f"/seats/{seat}/resign" if kind == "resign" else "/deadline"
            op = next(o for o in POST_OPS if o.template.endswith(suffix.rsplit("/", 1)[1]))
            token = world.tokens[seat] if kind == "resign" else world.host
            body = Body(b"{}", "application/json", {}, kind)
            check(world, op, "POST", world.base + suffix, True, body, {"Authorization": f"Bearer {token}"},
                  snapshot(world.raw))
        else:
            fuzz_one(world, data.draw, players)


# ------------------------------------------- bugs the sweep found once: exact reproductions


def _game(client) -> tuple[str, list[str]]:
    data = client.post("/v1/gops/games", json={"profile": "classic"}).get_json()
    return data["id"], data["seat_tokens"]


def _stored(raw, game_id):
    key = f"referee:gops:{{{game_id}}}"
    return raw.hgetall(key), raw.lrange(key + ":log", 0, -1)


@pytest.mark.parametrize("path", ["/v1/gops/games", "/seats/0/commit"])
def test_kb1_deeply_nested_body_is_400_not_500(client, raw, redis_client, path):
    game_id, tokens = _game(client)
    url = path if path.startswith("/v1") else f"/v1/gops/games/{game_id}{path}"
    before = _stored(raw, game_id)
    r = client.post(url, data="[" * 5000 + "]" * 5000, content_type="application/json",
                    headers={"Authorization": f"Bearer {tokens[0]}"})
    assert _stored(raw, game_id) == before
    assert r.status_code == 400 and r.get_json()["code"] == "malformed_json", r.get_data()


def test_kb2_integer_with_5000_digits_is_4xx_not_500(client, raw, redis_client):
    game_id, tokens = _game(client)
    body = '{"round": 1' + "0" * 5000 + ', "commitment": "' + "a" * 64 + '"}'
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", data=body, content_type="application/json",
                    headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code in (400, 422), r.get_data()


@pytest.mark.parametrize("body", [
    {"round": 1.5}, {"round": "1"}, {"round": 1, "version": 2.9},
])
def test_kb3_non_integers_are_refused(client, raw, redis_client, body):
    game_id, tokens = _game(client)
    salt = "ab" * 32
    commitment = commitments.bid_commitment(game_id, 1, 0, [5], salt)
    before = _stored(raw, game_id)
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", json={"commitment": commitment, **body},
                    headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 422, r.get_data()[:200]
    assert _stored(raw, game_id) == before


def test_kb4_commitment_with_trailing_newline_is_refused(client, raw, redis_client):
    game_id, tokens = _game(client)
    salt = "ab" * 32
    commitment = commitments.bid_commitment(game_id, 1, 0, [5], salt)
    before = _stored(raw, game_id)
    r = client.post(f"/v1/gops/games/{game_id}/seats/0/commit", json={"round": 1, "commitment": commitment + "\n"},
                    headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 422, r.get_data()[:200]
    assert _stored(raw, game_id) == before


def test_kb5_empty_path_segment_is_a_problem_404(client, redis_client):
    r = client.get("/v1/gops/games//transcript")
    assert r.status_code == 404 and r.mimetype == PROBLEM, (r.status_code, r.headers.get("Location"))

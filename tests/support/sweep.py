"""The spec-driven bad-input sweep shared by the Gops and Gofo sweeps (tests/test_bad_input.py).

The operations come from the generated spec (``service.openapi.generate()``),
so a new endpoint is swept as soon as it exists.  This module holds what does
not depend on the game: reading the spec, request bodies and headers drawn from
(or against) its schemas, and the oracle :func:`check`, which accepts only

* a 2xx whose JSON body matches the operation's response schema, and only for a
  body that matches the operation's request schema;
* 304 for a GET with a matching ``If-None-Match``;
* a 4xx ``application/problem+json`` after which every stored key is
  byte-identical to before;

and after any request the stored record is consistent (its version equals the
log's distinct versions 1..N).  A *world* is any object with ``client``,
``raw`` (a redis client without decoding), ``kind`` (``gops``/``gofo``), ``id``,
``host`` and ``tokens``.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass
from typing import Any

import jsonschema
from hypothesis import HealthCheck, event, note, settings
from hypothesis import strategies as st

from service.openapi import generate
from support.client import bearer
from support.store import logged_versions, snapshot, stored_version
from support.sweep_size import sized


def assert_store_consistent(world: Any) -> None:
    """The stored version equals the log's distinct versions 1..N, in order."""
    version = stored_version(world.raw, world.kind, world.id)
    if version is None:
        return
    versions = logged_versions(world.raw, world.kind, world.id)
    assert versions == sorted(versions)
    assert sorted(set(versions)) == list(range(1, version + 1)), (version, versions)


PROBLEM = "application/problem+json"


MAX_BODY = 16 * 1024  # REFEREE_MAX_BODY_BYTES default


SPEC = generate()


COMPONENTS = SPEC["components"]


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

    def response_schema(self, status: int, media_type: str = "application/json") -> dict[str, Any] | None:
        response = self.responses.get(str(status))
        if response is None:
            return None
        content = _resolve(response, True).get("content", {})
        schema = content.get(media_type, {}).get("schema")
        return schema

    def documents(self, status: int, media_type: str | None = None) -> bool:
        """The spec documents this status (with this media type, when one is given)."""
        response = self.responses.get(str(status))
        if response is None:
            return False
        return media_type is None or media_type in _resolve(response, True).get("content", {})


def sse_events(text: str) -> list[dict[str, str]]:
    """The events of a ``text/event-stream`` body (comments and a bare ``retry:`` block skipped)."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = fields.get(name, "") + value[1:] if value.startswith(" ") else value
        if "event" in fields or "data" in fields:
            events.append(fields)
    return events


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


def conformance(op: Operation, body: Any) -> str:
    """``valid`` or ``invalid`` by the spec's request schema."""
    if op.body_schema is None:
        return "valid"
    validator = jsonschema.Draft7Validator
    if validator(op.body_schema).is_valid(body):
        return "valid"
    return "invalid"


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


header_text = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF, blacklist_characters="\x7f"), max_size=60)


@st.composite
def headers(draw, world: Any, seat: int | None) -> dict[str, str]:
    out: dict[str, str] = {}
    auth = draw(st.sampled_from(["own", "own", "own", "other", "host", "none", "garbage", "huge", "basic", "bare", "lower"]))
    own = world.tokens[seat] if seat is not None and seat < len(world.tokens) else world.tokens[0]
    if auth == "own":
        out.update(bearer(own))
    elif auth == "other":
        out.update(bearer(world.tokens[(world.tokens.index(own) + 1) % len(world.tokens)]))
    elif auth == "host":
        out.update(bearer(world.host))
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


def send(world: Any, method: str, path: str, body: Body, hdrs: dict[str, str]):
    kwargs: dict[str, Any] = {"method": method, "headers": hdrs}
    if body.raw is not None and method != "GET":
        kwargs["data"] = body.raw
        if body.content_type is not None:
            kwargs["content_type"] = body.content_type
    return world.client.open(path, **kwargs)


def check(world: Any, op: Operation, method: str, path: str, routed: bool, body: Body,
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
        if status == 204:
            assert op.documents(204) and response.get_data() == b"", f"undocumented 204 for {op.name}"
            return response
        if response.mimetype == "text/event-stream":  # a stream: every event's data is a documented view
            assert op.documents(status, "text/event-stream"), f"undocumented stream for {op.name}"
            view = op.response_schema(status)
            events = sse_events(response.get_data(as_text=True))
            assert events, f"a stream without an event for {op.name}"
            for sse in events:
                assert sse.get("event") == "state" and sse.get("id", "").isdigit(), sse
                jsonschema.Draft7Validator(view).validate(json.loads(sse["data"]))
            return response
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


def sweep(max_examples: int) -> settings:
    """Hypothesis settings for a sweep of ``max_examples`` at full size (its share in the edit loop)."""
    return settings(
        max_examples=sized(max_examples),
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                               HealthCheck.data_too_large, HealthCheck.large_base_example],
    )

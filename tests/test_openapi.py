"""The published spec is generated from the code, valid, and its examples are real."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from openapi_spec_validator import validate

from service import openapi

COMMITTED = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


@pytest.fixture(scope="module")
def spec():
    return openapi.generate()


def operations(spec):
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield path, method, op


def test_committed_spec_matches_the_code(spec):
    committed = COMMITTED.read_text(encoding="utf-8")
    assert committed == openapi.render(spec), (
        "openapi/openapi.json is out of date: run `make spec` (python -m service.openapi) and commit it"
    )


def test_spec_is_valid_openapi(spec):
    validate(spec)


def test_served_spec_is_the_generated_one(client, spec):
    served = client.get("/openapi.json").get_json()
    generated = json.loads(openapi.render(spec))
    assert served.pop("servers") == [{"url": "http://localhost", "description": "this server"}]
    assert generated.pop("servers") == [{"url": "/", "description": "the server this document was fetched from"}]
    assert served == generated
    assert client.get("/docs").status_code == 200


def test_served_spec_names_the_server_it_was_fetched_from(live_server, client):
    import requests

    served = requests.get(f"{live_server}/openapi.json", timeout=30).json()
    assert [s["url"] for s in served["servers"]] == [live_server]  # its random port, not 8000
    # Any host name and port it is reached by (e.g. behind a reverse proxy that keeps Host).
    named = client.get("/openapi.json", headers={"Host": "referee.example:8443"}).get_json()
    assert [s["url"] for s in named["servers"]] == ["http://referee.example:8443"]


def test_every_operation_has_a_meaningful_operation_id(spec):
    seen = set()
    for path, method, op in operations(spec):
        op_id = op.get("operationId")
        assert op_id and re.fullmatch(r"[a-z][A-Za-z]+", op_id), (path, method)
        assert op_id not in seen
        seen.add(op_id)
        assert op.get("summary"), op_id


def test_every_request_body_has_examples_that_validate(spec, app):
    """Each documented request example loads through the very schema that validates requests."""
    from marshmallow import class_registry

    checked = 0
    for path, method, op in operations(spec):
        body = op.get("requestBody")
        if not body:
            continue
        media = body["content"]["application/json"]
        examples = [media["example"]] if "example" in media else [e["value"] for e in media.get("examples", {}).values()]
        assert examples, f"{op['operationId']} has no request example"
        name = media["schema"]["$ref"].rsplit("/", 1)[1]
        schema_cls = class_registry.get_class(name + "Schema")
        for example in examples:
            schema_cls().load(example)
            checked += 1
    assert checked >= 8


def test_errors_are_documented_as_problem_json(spec):
    for name, response in spec["components"]["responses"].items():
        if "content" in response:
            assert list(response["content"]) == ["application/problem+json"], name


def test_every_pattern_reads_alike_in_every_regex_engine(spec):
    """A pattern naming a character past U+FFFF compiles in Python but not in an ECMA-262 engine
    without the u flag (two UTF-16 halves make a range out of order): schemathesis and some SDK
    generators then cannot use the operation. Every published pattern stays below U+FFFF."""
    patterns = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("pattern"), str):
                patterns.append(node["pattern"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(spec)
    assert patterns, "the spec has patterns (a name's, a commitment's)"
    for pattern in patterns:
        assert all(ord(c) <= 0xFFFF for c in pattern), pattern
        re.compile(pattern)


def test_served_spec_loads_in_yaml_based_tools(client):
    """YAML tools read JSON as YAML, which refuses raw control characters (U+007F-U+009F and others)
    inside a string: the spec's text is ASCII, every other character a JSON escape, so it loads
    as YAML and validates as it is served; the committed file too."""
    import yaml

    text = client.get("/openapi.json").get_data(as_text=True)
    assert text.isascii()
    loaded = yaml.safe_load(text)
    assert loaded == json.loads(text)
    validate(loaded)
    committed = COMMITTED.read_text(encoding="utf-8")
    assert committed.isascii()
    assert yaml.safe_load(committed) == json.loads(committed)


def test_every_operation_is_reachable_by_links_from_the_creates(spec):
    """A stateful fuzzer (schemathesis) and an SDK's docs only reach an operation by a link from one it
    has called: from the creates, every operation is linked, and each link names the target's own
    path parameters."""
    from support import links

    every = {op["operationId"] for _, _, op in operations(spec)}
    assert links.creates(spec) == {"createGopsGame", "createGofoTable"}
    assert every - links.reachable(spec) == set()
    where = {op["operationId"]: (path, op) for path, _, op in operations(spec)}
    for path, _, op in operations(spec):
        for name, link in links.links_of(op):
            target_path, _ = where[link["operationId"]]
            path_parameters = set(re.findall(r"\{(\w+)\}", target_path))
            assert set(link["parameters"]) == path_parameters, (op["operationId"], name)

"""The OpenAPI links graph of a spec: which operations a client (or a stateful fuzzer such as
schemathesis) reaches from the creates by following links alone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

METHODS = ("get", "post", "put", "patch", "delete")


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield path, method, op


def creates(spec: dict[str, Any]) -> set[str]:
    """The operations that make a game: those answering 201."""
    return {op["operationId"] for _, _, op in operations(spec) if "201" in op.get("responses", {})}


def links_of(op: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for response in op.get("responses", {}).values():
        yield from response.get("links", {}).items()


def reachable(spec: dict[str, Any]) -> set[str]:
    """Every operation reached from the creates by following links, the creates included."""
    by_id = {op["operationId"]: op for _, _, op in operations(spec)}
    seen, todo = set(), sorted(creates(spec))
    while todo:
        op_id = todo.pop()
        if op_id in seen:
            continue
        seen.add(op_id)
        todo.extend(link["operationId"] for _, link in links_of(by_id[op_id]))
    return seen


def parameter_names(spec: dict[str, Any], path: str, op: dict[str, Any]) -> set[str]:
    item = spec["paths"][path]
    return {p["name"] for p in [*item.get("parameters", []), *op.get("parameters", [])] if "name" in p}

"""A request's JSON body, parsed once for the whole request (``service.web.app``'s ``_json_only``;
webargs takes the parse from there, ``service.api.common``).

Parsed as webargs parses it (UTF-8 text, the json module), with two refusals the json module does
not make on its own: a lone surrogate (``"\\ud800"`` is JSON but not text) and an object holding the
same key twice. The json module keeps a repeated key's last value, where a proxy, a log or a WAF in
front of the referee may read its first: ``{"amount": 300, "amount": 3}`` would be one move to them
and another to the referee. No object of a body holds a key twice, at any depth.
"""

from __future__ import annotations

import json
from typing import Any


class MalformedJSON(ValueError):
    """Not JSON text, or nested past what the parser can follow."""


class DuplicateKey(ValueError):
    """An object of the body holds ``key`` more than once."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):  # rare: only then find which key came twice
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return obj


#: One decoder for every body (``json.loads`` with a hook would build a new one each time: 3x the cost).
DECODER = json.JSONDecoder(object_pairs_hook=_object)


def parse(body: bytes) -> Any:
    """The JSON value of ``body``; raises :class:`DuplicateKey` or :class:`MalformedJSON`."""
    try:
        parsed = DECODER.decode(body.decode("utf-8"))  # a leading BOM is not JSON text: refused
        if b"\\ud" in body or b"\\uD" in body:  # an escaped surrogate: it must be half of a pair
            json.dumps(parsed, ensure_ascii=False).encode("utf-8")  # a lone one is not text
    except DuplicateKey:
        raise
    except (ValueError, RecursionError):  # UnicodeDecodeError and UnicodeEncodeError are ValueErrors
        raise MalformedJSON() from None
    return parsed

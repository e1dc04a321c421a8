"""Views as responses: the JSON a game's observer built, with its ETag, serialized once per stored
bytes for every reader of the same view.

Each observer builds its views in exactly their schema's shape, so a view is sent as built, not
dumped again. With ``REFEREE_CHECK_VIEWS`` (on in every app and gunicorn the tests start) that is checked:
a view that differs, as JSON bytes, from its schema's dump is a :class:`ViewDrift` (a 500).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Hashable

from flask import Response, current_app, make_response, request

from service import config
from service.storage.records import Record


def etag_for(version: int, tag: str = "") -> str:
    return f'"v{version}{tag}"'


def not_modified(version: int, tag: str = "") -> bool:
    """True when the client's If-None-Match already names this version (poll without a body)."""
    return etag_for(version, tag) in request.headers.get("If-None-Match", "")


def documented_schema() -> Any:
    """The schema the current operation's ``@blp.response`` documents (its success response);
    looked up once per app, endpoint and method (``app.extensions["referee_documented"]``)."""
    req = request._get_current_object()
    app = current_app._get_current_object()
    known = app.extensions.setdefault("referee_documented", {})
    key = (req.endpoint, req.method)
    schema = known.get(key)
    if schema is None:
        view = app.view_functions[req.endpoint]
        handler = getattr(view.view_class, req.method.lower())
        apidoc = handler._apidoc
        status = apidoc["success_status_codes"][0]
        schema = known[key] = apidoc["response"]["responses"][status][0]["schema"]
    return schema


def view_response(data: dict[str, Any], schema=None) -> Response:
    """A view as a JSON response, as its observer built it (:func:`dumped`), in the shape of
    ``schema`` (default: the one the operation documents). flask-smorest passes a Response on as is."""
    if schema is None:
        schema = documented_schema()
    return current_app.json.response(dumped(data, schema))


class ViewDrift(AssertionError):
    """A view is not in its schema's shape: it would send what the spec does not say (a 500; it
    is only looked for with ``REFEREE_CHECK_VIEWS``)."""


def dumped(data: dict[str, Any], schema) -> Any:
    """What every view and move answer sends for ``data``: ``data`` itself, which is already what
    ``schema`` dumps it to. With ``REFEREE_CHECK_VIEWS`` that is checked first (else :class:`ViewDrift`)."""
    if config.settings(current_app).check_views:
        check_view(data, schema)
    return data


@functools.cache
def _default(schema: type) -> Any:
    """A schema class's one instance (building one deep-copies every field)."""
    return schema()


def schema_dump(schema, data: dict[str, Any]) -> Any:
    """marshmallow's own dump of ``data`` by ``schema`` (a class: its one instance) — what an event
    sends, built once per version and viewer (service.api.events), outside any request."""
    return (_default(schema) if isinstance(schema, type) else schema).dump(data)


def check_view(data: dict[str, Any], schema) -> None:
    """Raise :class:`ViewDrift` unless ``schema``'s dump of ``data`` is ``data``, as JSON bytes
    (so 1, 1.0 and true differ, and so does an undeclared field the dump would drop)."""
    encode = current_app.json
    expected = schema_dump(schema, data)
    sent, wanted = encode.body(data), encode.body(expected)
    if sent is None or wanted is None:  # what orjson does not write: Flask's own encoder
        sent, wanted = encode.dumps(data), encode.dumps(expected)
    if sent != wanted:
        name = schema.__name__ if isinstance(schema, type) else type(schema).__name__
        raise ViewDrift(f"a view is not in the shape of {name}: {_first_difference(data, expected)}")


def _first_difference(sent: Any, dumped_: Any, path: str = "") -> str:
    if type(sent) is not type(dumped_):
        return f"{path or '/'}: {type(sent).__name__} {sent!r:.80} where the schema gives {type(dumped_).__name__} {dumped_!r:.80}"
    if isinstance(sent, dict):
        for key in [*sent, *(k for k in dumped_ if k not in sent)]:
            if key not in dumped_:
                return f"{path}/{key}: not declared by the schema"
            if key not in sent:
                return f"{path}/{key}: missing (the schema's dump has it)"
            found = _first_difference(sent[key], dumped_[key], f"{path}/{key}")
            if found:
                return found
        return ""
    if isinstance(sent, list):
        if len(sent) != len(dumped_):
            return f"{path}: {len(sent)} items where the dump has {len(dumped_)}"
        for i, (a, b) in enumerate(zip(sent, dumped_)):
            found = _first_difference(a, b, f"{path}/{i}")
            if found:
                return found
        return ""
    return "" if sent == dumped_ else f"{path or '/'}: {sent!r:.80} where the schema gives {dumped_!r:.80}"


def conditional(data: dict[str, Any], version: int, schema, tag: str = "") -> Any:
    """A view as a response with its ETag; 304 without a body when the client already has it.

    ``tag`` distinguishes views of one version that differ with time (a deadline that passed
    makes ``enforce_deadline`` legal without any new version)."""
    if not_modified(version, tag):
        response = make_response("", 304)
    else:
        response = view_response(data, schema)
    response.headers["ETag"] = etag_for(version, tag)
    return response


def shared_view(record: Record, key: Hashable, build: Callable[[], dict[str, Any]], schema,
                tag_of: Callable[[dict[str, Any]], str] | None = None) -> Response:
    """:func:`conditional` of the view ``build()`` makes of ``record``, serialized once per key.

    A shared record (:meth:`Store.read`) is the same object for every read of the same stored
    bytes, and a view of it is a function of those bytes and ``key``: the seat it is made for and
    whatever of the clock it shows (each game's observer says what: ``view_clock``). So its body and
    ETag tag are kept on the record (:attr:`Record.views`) and every later read with the same key
    sends those bytes: every phone at a table polls between two moves. The key is looked up only
    after the caller is authorized for it, so a seat's kept view goes to nobody but that seat's
    token holder.
    """
    views = record.views
    kept = None if views is None else views.get(key)
    if kept is None:
        data = build()
        tag = "" if tag_of is None else tag_of(data)
        # Not kept: a record that is not shared, or a body Flask's own encoder must write
        body = None if views is None else current_app.json.body(dumped(data, schema))
        if body is None:
            return conditional(data, record.version, schema, tag)
        kept = views[key] = (tag, body)
    tag, body = kept
    if not_modified(record.version, tag):
        response = make_response("", 304)
    else:
        response = current_app.response_class(body, mimetype=current_app.json.mimetype)
    response.headers["ETag"] = etag_for(record.version, tag)
    return response

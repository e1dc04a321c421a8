"""The one place where errors become HTTP: RFC 9457 ``application/problem+json``
(the shape and every ``code``: docs/client-guide.md#errors).

``type`` is the code as a URI (RFC 9457 requires a URI; it is a name, not a page to fetch).
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

import marshmallow as ma
from flask import Response, g, has_request_context, json
from werkzeug.exceptions import HTTPException

from service.error_codes import ErrorCode
from service.errors import (
    Busy,
    Forbidden,
    IllegalAction,
    InvalidAction,
    InvalidOptions,
    NotFound,
    RefereeError,
    StaleVersion,
    Unauthorized,
)

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_TYPE_BASE = "https://referee.example/problems/"

# Status for each error family; a subclass inherits its family's status.
STATUS_BY_CLASS: list[tuple[type[RefereeError], int]] = [
    (Unauthorized, 401),
    (Forbidden, 403),
    (NotFound, 404),
    (StaleVersion, 409),
    (Busy, 503),
    (InvalidOptions, 422),
    (InvalidAction, 422),
    (IllegalAction, 409),
]

# Codes whose status differs from their family's; consulted before STATUS_BY_CLASS.
# ``seat_out`` (a resigned or forfeited seat trying to move) is an IllegalAction in
# the engine, but over HTTP that token no longer authorizes moves: 403.
STATUS_BY_CODE: dict[str, int] = {
    "seat_out": 403,
}

# Codes for errors raised by the web stack itself.
CODE_BY_STATUS = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_request",
    429: "rate_limited",
    500: "internal_error",
    503: "unavailable",
}


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details, with a stable ``code``."""

    type = ma.fields.String(metadata={"description": "URI naming the problem type (ends with the code)"})
    title = ma.fields.String(metadata={"description": "Short summary of the problem type"})
    status = ma.fields.Integer(metadata={"description": "HTTP status code"})
    detail = ma.fields.String(metadata={"description": "What went wrong in this request"})
    code = ma.fields.String(
        validate=ma.validate.OneOf([c.value for c in ErrorCode]),
        metadata={"description": "Stable machine-readable error code (service.error_codes; the table in docs/client-guide.md)"},
    )
    errors = ma.fields.Dict(
        keys=ma.fields.String(),
        metadata={"description": "Field-by-field validation messages (code invalid_request)"},
    )
    current_version = ma.fields.Integer(metadata={"description": "With stale_version: the current version"})
    phase = ma.fields.String(metadata={"description": "With wrong_phase: the current phase"})
    round = ma.fields.Integer(metadata={"description": "With wrong_round: the current round"})
    game_id = ma.fields.String(metadata={"description": "With wrong_game: the game being played now"})
    deadline_at = ma.fields.Float(metadata={"description": "With deadline_not_passed: Unix time the deadline passes"})
    retry_after = ma.fields.Integer(metadata={"description": "With rate_limited, store_busy, too_many_streams: seconds until the client may retry (also sent as Retry-After)"})


def problem(status: int, code: str, detail: str, **extra: Any) -> Response:
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_BASE + code,
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }
    body.update({k: v for k, v in extra.items() if v is not None})
    if has_request_context():
        g.referee_problem_code = code  # per-app refusals by code (service.api.apps)
    headers = {}
    if status == 401:
        headers["WWW-Authenticate"] = 'Bearer realm="referee"'
    if extra.get("retry_after") is not None:
        headers["Retry-After"] = str(extra["retry_after"])
    return Response(json.dumps(body), status=status, mimetype=PROBLEM_CONTENT_TYPE, headers=headers)


def status_for(error: RefereeError) -> int:
    if error.code in STATUS_BY_CODE:
        return STATUS_BY_CODE[error.code]
    for cls, status in STATUS_BY_CLASS:
        if isinstance(error, cls):
            return status
    return 400


def from_referee_error(error: RefereeError) -> Response:
    return problem(status_for(error), error.code, error.detail, **error.extra)


def from_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    if status == 422 and "messages" in data:
        messages = data["messages"]
        # webargs nests by location ({"json": {...}}); the body is the only location we read.
        if isinstance(messages, dict) and set(messages) <= {"json", "query", "headers", "view_args"}:
            flat: dict[str, Any] = {}
            for location, errs in messages.items():
                if isinstance(errs, dict):
                    flat.update(errs)
                else:
                    flat[location] = errs
            messages = flat
        return problem(422, "invalid_request", "the request does not match the operation's schema", errors=messages)
    if status == 400 and "messages" in data:
        return problem(400, "malformed_json", "the request body is not valid JSON")
    detail = data.get("message") or error.description or HTTPStatus(status).phrase
    if status == 413:
        detail = "the request body is larger than this server accepts"
    response = problem(status, CODE_BY_STATUS.get(status, "http_error"), str(detail))
    for name, value in error.get_headers():
        if name.lower() not in ("content-type", "content-length"):
            response.headers[name] = value  # e.g. Allow on 405
    return response

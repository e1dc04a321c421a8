"""Structured logs: one JSON object per line (:class:`JsonFormatter`, gunicorn's lines too), each
carrying the request id: a sane incoming ``X-Request-Id`` is kept, anything else replaced by a
random one, and it is sent back on every response. One ``request`` line per answered request
(logger ``service.access``) names the path, never the query string or a header: no credentials.
"""

from __future__ import annotations

import datetime
import json
import logging
import os
import re
import sys
import time

import orjson
from flask import Flask, g, has_request_context, request

from service import config

HEADER = "X-Request-Id"
_ENVIRON_KEY = "HTTP_X_REQUEST_ID"  # how WSGI names it (PEP 3333)
_SANE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:=+/-]{0,127}")
access_log = logging.getLogger("service.access")


def request_id() -> str:
    """This request's id (kept from a sane ``X-Request-Id`` header, else generated: 32 random hex
    digits), once per request."""
    ctx_g = g._get_current_object()  # one context lookup, not three
    rid = ctx_g.get("request_id")
    if rid is None:
        incoming = request.environ.get(_ENVIRON_KEY)  # the header as the server passed it
        rid = incoming if incoming and _SANE_ID.fullmatch(incoming) else os.urandom(16).hex()
        ctx_g.request_id = rid
    return rid


class JsonFormatter(logging.Formatter):
    """``{"ts", "level", "logger", "msg", "request_id"?, ...fields, "exc"?}`` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": datetime.datetime.fromtimestamp(record.created, datetime.timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
            "pid": record.process,
        }
        rid = getattr(record, "request_id", None)
        if rid is None and has_request_context():
            rid = g.get("request_id")
        if rid is not None:
            entry["request_id"] = rid
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update(fields)
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        try:  # orjson: a request's line is formatted ~5x faster (non-ASCII stays UTF-8)
            return orjson.dumps(entry, default=str, option=orjson.OPT_NON_STR_KEYS).decode()
        except TypeError:  # what orjson refuses (an integer past 64 bits): the json module
            return json.dumps(entry, default=str, separators=(",", ":"))


def configure() -> None:
    """Send the ``service.*`` loggers to stderr as JSON, unless someone (gunicorn, pytest) set up logging."""
    logger = logging.getLogger("service")
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.INFO)
    if not logger.hasHandlers():
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        logger.addHandler(handler)


def init_app(app: Flask, on_response=None) -> None:
    """Request ids and the per-request log line; ``on_response(response, seconds)`` is called too (metrics)."""
    configure()

    @app.before_request
    def _start():
        g.request_started = time.perf_counter()
        request_id()

    @app.after_request
    def _finish(response):
        rid = request_id()
        response.headers.add(HEADER, rid)  # nothing else sets it: appended, no search for it first
        req = request._get_current_object()
        started = g.get("request_started")
        seconds = time.perf_counter() - started if started is not None else 0.0
        if on_response is not None:
            on_response(response, seconds)
        if config.settings(app).access_log and access_log.isEnabledFor(logging.INFO):
            # The record made directly (what Logger.info does, less findCaller: a walk up the
            # ~30 frames of a Flask request to name this line, which no JSON line shows).
            access_log.handle(access_log.makeRecord(
                access_log.name, logging.INFO, __file__, 0, "request", (), None,
                extra={
                    "request_id": rid,
                    "fields": {
                        "method": req.method,
                        "path": req.path,
                        "operation": req.endpoint or "unmatched",
                        "status": response.status_code,
                        "duration_ms": round(seconds * 1000, 3),
                        "remote": req.remote_addr,
                    },
                },
            ))
        return response

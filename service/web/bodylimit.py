"""Request bodies over ``MAX_CONTENT_LENGTH`` (``REFEREE_MAX_BODY_BYTES``) are refused, however framed.

Werkzeug refuses a ``Content-Length`` over the limit, but a chunked body is only *read up to* the
limit, the rest silently dropped: a body that begins with a valid request and goes on past the limit
was accepted as its first 16 KB. This WSGI middleware reads such a body first, never more than
``limit + 1`` bytes, and hands the application a ``Content-Length`` like any other (over the limit:
``limit + 1``, refused as a declared one is, 413 ``body_too_large``).
"""

from __future__ import annotations

import io
from typing import Any, Callable, Iterable

READ_SIZE = 64 * 1024


class BodyLimit:
    def __init__(self, wsgi_app: Callable, limit: Callable[[], int | None]) -> None:
        self.wsgi_app = wsgi_app
        self.limit = limit

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        limit = self.limit()
        if limit is not None and _unframed(environ):
            body = _read_at_most(environ["wsgi.input"], limit + 1)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
            environ.pop("HTTP_TRANSFER_ENCODING", None)
        return self.wsgi_app(environ, start_response)


def _unframed(environ: dict[str, Any]) -> bool:
    """A body the server streams without a Content-Length (chunked)."""
    if environ.get("CONTENT_LENGTH"):
        return False
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    return chunked or bool(environ.get("wsgi.input_terminated"))


def _read_at_most(stream: Any, size: int) -> bytes:
    parts: list[bytes] = []
    left = size
    while left > 0:
        part = stream.read(min(READ_SIZE, left))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)

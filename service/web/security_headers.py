"""The security headers every response carries, added where the response leaves the application.

* ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer``, ``X-Frame-Options: DENY``
  on every response (success, problem, 304, 404, 405, 413, 429, the docs and the web client);
* ``Cache-Control: no-store`` on every response under ``/v1/`` (game state is never for a shared
  cache), unless the response says otherwise.

A header the application set itself is left as it is (the docs pages and the web client send their
own ``Content-Security-Policy``; a response may send its own ``Cache-Control``).

This is WSGI middleware, not a Flask ``after_request`` hook: it sees the final status and header
list of every response, whatever produced it, and it costs a few list operations instead of a hook
call and a werkzeug ``Headers.add`` per header (the hook was ~4 % of a read's instructions).
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
                    ("X-Frame-Options", "DENY"))
_LOWER = tuple((name.lower(), (name, value)) for name, value in SECURITY_HEADERS)
NO_STORE = ("Cache-Control", "no-store")
API_PREFIX = "/v1/"


class SecurityHeaders:
    def __init__(self, wsgi_app: Callable) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Callable) -> Iterable[bytes]:
        api = environ.get("PATH_INFO", "").startswith(API_PREFIX)

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None):
            present = {name.lower() for name, _ in headers}
            for lower, header in _LOWER:
                if lower not in present:
                    headers.append(header)
            if api and "cache-control" not in present:
                headers.append(NO_STORE)
            return start_response(status, headers, exc_info)  # None is what PEP 3333 passes when there is none

        return self.wsgi_app(environ, start)

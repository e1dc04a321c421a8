"""The security headers every response carries (docs/security.md#limits): ``nosniff``,
``no-referrer`` and ``DENY`` on every response, ``Cache-Control: no-store`` under ``/v1/`` (game
state is never for a shared cache). A header the application set itself is left as it is.

WSGI middleware, not an ``after_request`` hook: it sees the final headers of every response,
whatever produced it, at the cost of a few list operations (the hook was ~4 % of a read's instructions).
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

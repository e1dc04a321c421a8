"""The docs UIs, served by the service itself: no CDN, works with no network.

* ``/docs`` (Swagger UI) and ``/redoc``: flask-smorest's pages, with their scripts from here and a
  Content-Security-Policy that allows nothing but this server, so a page cannot reach a CDN even by
  mistake. The assets are the npm registry's bundles, committed unmodified under
  ``service/web/docs_ui/`` (its README: versions, how to update), served at
  ``/docs/assets/<package>@<version>/<file>`` and cached for a year.
* ``/favicon.ico``: the icon of ``/play`` (browsers ask for it on every page).
* ``/openapi.json`` names the server it was fetched from (``served_spec``), so "Try it out" and a
  generated client point at the right place; the committed ``openapi/openapi.json`` says ``/``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, Response, abort, request, send_from_directory

from service.web.play import STATIC_DIR as PLAY_STATIC_DIR

ASSETS_DIR = Path(__file__).resolve().parent / "docs_ui"
ASSETS_PREFIX = "/docs/assets"

# The one server the committed spec names: relative, so it resolves against wherever the
# document was loaded from. The served document replaces it with the request's origin.
COMMITTED_SERVERS = [{"url": "/", "description": "the server this document was fetched from"}]


def _package(directory: str) -> tuple[str, str, Path]:
    path = ASSETS_DIR / directory
    meta = json.loads((path / "package.json").read_text(encoding="utf-8"))
    return meta["name"], meta["version"], path


# package name -> (version, directory); the files served are exactly the ones committed there.
PACKAGES: dict[str, tuple[str, Path]] = {
    name: (version, path) for name, version, path in (_package("swagger-ui-dist"), _package("redoc"))
}
SWAGGER_UI_VERSION = PACKAGES["swagger-ui-dist"][0]
REDOC_VERSION = PACKAGES["redoc"][0]
SWAGGER_UI_URL = f"{ASSETS_PREFIX}/swagger-ui-dist@{SWAGGER_UI_VERSION}/"  # flask-smorest appends file names
REDOC_URL = f"{ASSETS_PREFIX}/redoc@{REDOC_VERSION}/redoc.standalone.js"

# Everything the pages load comes from this server. Swagger UI's page has an inline
# bootstrap script and both UIs set inline styles; ReDoc runs its search in a blob: worker.
DOCS_CSP = "; ".join([
    "default-src 'none'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
])
DOCS_PAGES = ("/docs", "/redoc")

# ReDoc's one off-site address (its vendor's logo, in the menu's footer): emptied as served (an image
# with no source fails at once and ReDoc leaves it out); the committed file stays as shipped.
REDOC_BUNDLE = "redoc.standalone.js"
REDOC_LOGO = b'"https://cdn.redoc.ly/redoc/logo-mini.svg"'


@lru_cache(maxsize=1)
def redoc_bundle() -> bytes:
    """ReDoc's bundle as served: its vendor's logo address emptied."""
    source = (PACKAGES["redoc"][1] / REDOC_BUNDLE).read_bytes()
    if source.count(REDOC_LOGO) != 1:
        raise RuntimeError(f"ReDoc {REDOC_VERSION}: its logo address is not where it was (update REDOC_LOGO)")
    return source.replace(REDOC_LOGO, b'""')


blp = Blueprint("docs_assets", __name__)


@blp.get(f"{ASSETS_PREFIX}/<string:package>@<string:version>/<path:filename>")
def asset(package: str, version: str, filename: str):
    known = PACKAGES.get(package)
    if known is None or known[0] != version:
        abort(404)
    if package == "redoc" and filename == REDOC_BUNDLE:
        response = Response(redoc_bundle(), mimetype="text/javascript")
        response.cache_control.max_age = 365 * 24 * 3600
        response.cache_control.public = True
    else:
        # send_from_directory refuses paths that leave the directory (404).
        response = send_from_directory(known[1], filename, max_age=365 * 24 * 3600)
    response.cache_control.immutable = True
    return response


@blp.get("/favicon.ico")
def favicon():
    """The referee's icon (the card of ``/play``): what browsers ask for by this name."""
    return send_from_directory(PLAY_STATIC_DIR, "icon.svg", mimetype="image/svg+xml", max_age=24 * 3600)


def served_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """The spec as served: its only server is the origin this request reached
    (``request.host_url``: scheme and Host as werkzeug sees them, after any ProxyFix)."""
    origin = request.host_url.rstrip("/")
    return {**spec, "servers": [{"url": origin, "description": "this server"}]}


def init_app(app: Flask) -> None:
    app.register_blueprint(blp)

    @app.after_request
    def _docs_csp(response):
        if request.path in DOCS_PAGES and response.mimetype == "text/html":
            response.headers["Content-Security-Policy"] = DOCS_CSP
        return response

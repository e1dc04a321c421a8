"""``/play``: the mobile web client, served by the service itself (a plain Flask blueprint; docs/play.md).

A phone creates a game or table and hands every other player a join link whose fragment ``#…``
carries that seat's token (and, for Gops, the secret its bids' salts derive from): a fragment never
reaches a server, a log or a ``Referer``. The page uses only the public API, from the same origin,
and loads nothing but the committed files of ``static/`` (the Content-Security-Policy below allows
nothing else). Join links name ``REFEREE_PUBLIC_URL`` when set, else this page's origin. Not part of
the OpenAPI document: a page, not an operation.
"""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path
from urllib.parse import urlsplit

from flask import Blueprint, Flask, abort, current_app, redirect, request, send_from_directory

from service import config
from service.games.levels import TOP_BOT_LEVEL

STATIC_DIR = Path(__file__).resolve().parent / "static"
PREFIX = "/play"

# The page and its scripts come from this server only; scripts and styles from files, never inline.
CSP = "; ".join([
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
])

# Vendored files, unmodified from their npm tarballs (static/vendor/README.md): SHA-256 of each.
VENDORED = {
    "vendor/js-sha256@1.0.0/index.mjs": "1a7269630133d0a3c3d5010d3a4f6b8571bc9e6f49a80e2a111a412f934afba1",
    "vendor/js-sha256@1.0.0/core.mjs": "90b245475d95570135d4eba2b92717ac90350944e9ee7a5e6d595e275ebd5299",
    "vendor/js-sha256@1.0.0/shared.mjs": "7399a7fe440c202f1d645230654aa86c035ac4adf072452ac718cc44efb44d9d",
    "vendor/js-sha256@1.0.0/LICENSE.txt": "2153bd2978793748fbe0eb8f838ae2ae19f03f9d4ee5473dd1628a0c0790e4ab",
    "vendor/qrcode-generator@2.0.4/qrcode.mjs": "ea91d7118a5395289170da848b7c6758b996163bfbccf312591ab65a4911b7c0",
}

MIMETYPES = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
             ".svg": "image/svg+xml", ".png": "image/png", ".txt": "text/plain", ".md": "text/plain",
             ".webmanifest": "application/manifest+json"}

blp = Blueprint("play", __name__)


def public_url() -> str | None:
    """``REFEREE_PUBLIC_URL`` / ``PUBLIC_URL``: the origin other phones reach this server at, or None."""
    value = (config.settings(current_app).public_url or "").strip()
    if not value:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        current_app.logger.warning("REFEREE_PUBLIC_URL is not an http(s) origin; using the request's host")
        return None
    return value.rstrip("/")


def join_base() -> str:
    """Where join links point: the public URL if set, else the origin of this request."""
    return public_url() or request.host_url.rstrip("/")


@blp.get(PREFIX)
def index():
    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    page = page.replace("{{JOIN_BASE}}", html.escape(join_base(), quote=True))
    # The seconds between an event stream's keep-alive comments: a stream silent much longer is dead.
    heartbeat = config.settings(current_app).stream_heartbeat_seconds
    page = page.replace("{{STREAM_HEARTBEAT}}", f"{float(heartbeat):g}")
    page = page.replace("{{TOP_BOT_LEVEL}}", str(TOP_BOT_LEVEL))  # the level pickers offer 1 to it
    response = current_app.response_class(page, mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    return response


@blp.get(f"{PREFIX}/")
def index_slash():
    return index()


@blp.get("/")
def root():
    """``/``: a browser is sent to ``/play`` (whose home page names ``/docs``); any other client gets
    where things are, as JSON."""
    best = request.accept_mimetypes.best_match(["application/json", "text/html"], default="application/json")
    if best == "text/html" and request.accept_mimetypes["text/html"] > request.accept_mimetypes["application/json"]:
        return redirect(PREFIX, code=302)
    return {"service": "referee", "play": PREFIX, "docs": "/docs", "redoc": "/redoc", "openapi": "/openapi.json"}


def page_files() -> list[str]:
    """The URLs of the page and every file it may load (what its service worker keeps)."""
    files = sorted(
        path.relative_to(STATIC_DIR).as_posix() for path in STATIC_DIR.rglob("*")
        if path.is_file() and path.suffix in MIMETYPES and path.name not in ("index.html", "sw.js"))
    return [PREFIX] + [f"{PREFIX}/assets/{name}" for name in files]


@blp.get(f"{PREFIX}/sw.js")
def service_worker():
    """The page's service worker, at /play/sw.js so that its scope may be /play (the page itself): the
    files to keep and a digest of their contents filled in, so a changed file is a new worker."""
    digest = hashlib.sha256()
    for url in page_files()[1:]:
        digest.update(url.encode())
        digest.update((STATIC_DIR / url.removeprefix(f"{PREFIX}/assets/")).read_bytes())
    digest.update((STATIC_DIR / "index.html").read_bytes())
    script = (STATIC_DIR / "sw.js").read_text(encoding="utf-8")
    script = script.replace("{{VERSION}}", digest.hexdigest()[:16]).replace("{{FILES}}", json.dumps(page_files()))
    response = current_app.response_class(script, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = PREFIX
    return response


@blp.get(f"{PREFIX}/assets/<path:filename>")
def asset(filename: str):
    suffix = Path(filename).suffix
    if suffix not in MIMETYPES or filename in ("index.html", "sw.js"):
        abort(404)
    # send_from_directory refuses paths that leave the directory (404); ETag + no-cache: a phone
    # revalidates (304) instead of running yesterday's script.
    response = send_from_directory(STATIC_DIR, filename, mimetype=MIMETYPES[suffix], max_age=0)
    response.headers["Cache-Control"] = "no-cache"
    return response


def vendored_digests() -> dict[str, str]:
    """The SHA-256 of each vendored file as committed (tests compare it with ``VENDORED``)."""
    return {name: hashlib.sha256((STATIC_DIR / name).read_bytes()).hexdigest() for name in VENDORED}


def init_app(app: Flask) -> None:
    app.register_blueprint(blp)

    @app.after_request
    def _play_headers(response):
        path = request.path
        if path == PREFIX or path.startswith(PREFIX + "/"):
            response.headers["Content-Security-Policy"] = CSP
            response.headers.setdefault("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
        return response

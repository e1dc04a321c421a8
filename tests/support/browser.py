"""Browser tests: headless Debian ``chromium`` driven by Playwright for Python.

Fixtures (made available to every test by ``tests/conftest.py``):

browser  (session)   a Playwright ``Browser``: ``/usr/bin/chromium`` (``$REFEREE_CHROMIUM``
                     to use another binary), headless, no sandbox, no background
                     networking, ``table.local`` resolved to 127.0.0.1 (``TABLE_HOST``).
                     Never ``playwright install``: the browser is Debian's (``.ci/run``
                     installs it). A missing chromium FAILS the test, it is not skipped.
offline_page (function) ``offline_page(origin)`` opens a fresh context and page that may
                     reach ``origin`` only: every other request is aborted and recorded
                     in ``page.blocked`` (a test asserts it stays empty), console errors
                     and page errors land in ``page.errors``. When the test ends each
                     page's screenshot is saved as ``tests/artifacts/<test>-<n>.png``
                     (gitignored).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("REFEREE_CHROMIUM", "/usr/bin/chromium")
#: A LAN-like name for this machine: an insecure origin that is not loopback, as a phone at the table
#: sees the server (the /play tests' ``origin``); Chromium resolves it to 127.0.0.1, nothing else does.
TABLE_HOST = "table.local"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    f"--host-resolver-rules=MAP {TABLE_HOST} 127.0.0.1",
]
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


@pytest.fixture(scope="session")
def browser():
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(f"no chromium at {CHROMIUM}: apt-get install -y chromium (.ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("playwright is not installed: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def offline_page(browser, request):
    """``offline_page(origin)``: a page that can reach nothing but ``origin``."""
    contexts = []

    def open_page(origin: str, **context_options):
        origin = origin.rstrip("/")
        context = browser.new_context(**context_options)
        context.set_default_timeout(30_000)
        page = context.new_page()
        page.blocked = []
        page.errors = []

        def block(route_):
            page.blocked.append(route_.request.url)
            route_.abort("blockedbyclient")

        # Only what is not the origin's is routed (to Python, to be blocked): the browser checks the
        # pattern, so the page's own requests never wait for a handler in this process.
        context.route(re.compile(rf"^(?!{re.escape(origin)}(?:[/?#]|$)|data:|blob:)"), block)
        page.on("console", lambda msg: msg.type == "error" and page.errors.append(f"console: {msg.text}"))
        page.on("pageerror", lambda exc: page.errors.append(f"pageerror: {exc}"))
        contexts.append((context, page))
        return page

    yield open_page
    ARTIFACTS.mkdir(exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    for n, (context, page) in enumerate(contexts):
        try:
            page.screenshot(path=str(ARTIFACTS / f"{name}-{n}.png"), full_page=True)
        except Exception:  # noqa: BLE001 - a screenshot must not hide the test's own result
            pass
        context.close()

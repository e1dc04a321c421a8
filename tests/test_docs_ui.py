"""The docs UIs work with no network: Swagger UI at /docs and ReDoc at /redoc render every
operation in headless Chromium, loading nothing but the service's own pinned assets."""

from __future__ import annotations

import json
import re

import pytest
import requests

from service.web import docs

pytestmark = pytest.mark.slow

METHODS = ("get", "post", "put", "patch", "delete")


@pytest.fixture(scope="module")
def served(live_server):
    return requests.get(f"{live_server}/openapi.json", timeout=30).json()


def operations(spec):
    return [
        (method, path, op)
        for path, item in spec["paths"].items()
        for method, op in item.items()
        if method in METHODS
    ]


def test_docs_pages_name_no_other_host(client):
    for path in ("/docs", "/redoc"):
        r = client.get(path)
        assert r.status_code == 200 and r.mimetype == "text/html"
        html = r.get_data(as_text=True)
        urls = re.findall(r'(?:src|href)="([^"]*)"', html)
        assert urls, path
        assert all(u.startswith(docs.ASSETS_PREFIX + "/") for u in urls), urls
        assert "//" not in "".join(urls)
        csp = r.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "connect-src 'self'" in csp and "http" not in csp


def test_assets_are_the_pinned_versions_only(client):
    css = client.get(f"{docs.SWAGGER_UI_URL}swagger-ui.css")
    assert css.status_code == 200 and css.mimetype == "text/css"
    assert "immutable" in css.headers["Cache-Control"]
    js = client.get(docs.REDOC_URL)
    assert js.status_code == 200 and "javascript" in js.mimetype
    version = docs.REDOC_VERSION
    assert f"redoc@{version}/" in docs.REDOC_URL and re.fullmatch(r"\d+\.\d+\.\d+", version)
    for bad in (
        "/docs/assets/swagger-ui-dist@5/swagger-ui.css",  # a range is not a version
        "/docs/assets/swagger-ui-dist@0.0.1/swagger-ui.css",
        "/docs/assets/left-pad@1.0.0/index.js",
        f"{docs.SWAGGER_UI_URL}../redoc/package.json",
        f"{docs.SWAGGER_UI_URL}nothing.js",
    ):
        r = client.get(bad)
        assert r.status_code == 404 and r.mimetype == "application/problem+json", bad


def test_swagger_ui_renders_every_operation_offline(live_server, served, offline_page):
    page = offline_page(live_server)
    page.goto(f"{live_server}/docs")
    ops = operations(served)
    page.wait_for_selector(".opblock-summary")
    # a function, not a string: a string would be eval()ed, which the page's CSP forbids
    page.wait_for_function("n => document.querySelectorAll('.opblock').length >= n", arg=len(ops))
    shown = page.eval_on_selector_all(
        ".opblock",
        "els => els.map(e => [e.querySelector('.opblock-summary-method').textContent,"
        " e.querySelector('.opblock-summary-path').getAttribute('data-path'),"
        " e.querySelector('.opblock-summary-description').textContent])",
    )
    assert sorted(map(tuple, shown)) == sorted((m.upper(), p, op["summary"]) for m, p, op in ops)
    # "Try it out" sends requests to the server the spec was fetched from.
    servers = page.eval_on_selector_all(".servers select option", "els => els.map(e => e.value)")
    assert servers == [live_server]
    assert page.blocked == [] and page.errors == []


def test_swagger_ui_try_it_out_reaches_this_server(live_server, offline_page):
    page = offline_page(live_server)
    page.goto(f"{live_server}/docs")
    block = page.locator(".opblock", has=page.locator('[data-path="/v1/gops/games"]')).filter(
        has=page.locator(".opblock-summary-method", has_text="POST")
    )
    block.locator(".opblock-summary").click()
    block.locator(".try-out__btn").click()
    with page.expect_response(lambda r: r.url == f"{live_server}/v1/gops/games") as answer:
        block.locator(".execute").click()
    assert answer.value.status == 201
    body = json.loads(answer.value.text())
    assert body["game"]["phase"] == "commit" and len(body["seat_tokens"]) == 2
    assert page.blocked == [] and page.errors == []


def test_redoc_renders_every_operation_offline(live_server, served, offline_page):
    page = offline_page(live_server)
    requested = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(f"{live_server}/redoc")
    ops = operations(served)
    page.locator("h2", has_text=ops[0][2]["summary"]).wait_for()  # the first operation, rendered
    # The side menu lists every operation by its summary (lazy rendering fills the rest later).
    menu = page.locator(".menu-content").text_content()  # collapsed groups too
    missing = [op["summary"] for _, _, op in ops if op["summary"] not in menu]
    assert not missing, missing
    # The menu's footer (where ReDoc's bundle names its vendor's logo on a CDN) is drawn, and
    # nothing asked for another host: no request, no request refused by the page's policy.
    page.locator("a[href='https://redocly.com/redoc/']").wait_for(state="attached")
    page.wait_for_load_state("networkidle")
    assert page.locator("a[href='https://redocly.com/redoc/'] img").count() == 0  # no broken image
    assert [u for u in requested if not u.startswith(live_server + "/") and not u.startswith(("data:", "blob:"))] == []
    assert page.blocked == [] and page.errors == []


def test_the_offline_page_reaches_its_origin_only(live_server, offline_page):
    """What the tests above rely on: ``offline_page`` blocks and records every request to another
    origin (the same server by another name, another port of the same host, a CDN) and lets the
    origin's through."""
    page = offline_page(live_server)
    page.goto(f"{live_server}/healthz")  # a page with no Content-Security-Policy to refuse them first
    port = int(live_server.rsplit(":", 1)[1])
    elsewhere = [f"http://localhost:{port}/healthz", f"http://127.0.0.1:{port + 1}/healthz",
                 "https://cdn.jsdelivr.net/npm/swagger-ui-dist/swagger-ui.css"]
    fetched = page.evaluate("""async (urls) => Promise.all(urls.map((u) =>
        fetch(u).then((r) => r.status, () => 'refused')))""", [f"{live_server}/healthz", *elsewhere])
    assert fetched == [200, "refused", "refused", "refused"]
    assert sorted(page.blocked) == sorted(elsewhere), page.blocked
    page.errors.clear()  # the refused fetches' console lines

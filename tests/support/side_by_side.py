"""Put 360 x 780 phone screenshots side by side into one PNG (how docs/play.png is made), in Chromium.

    python tests/support/side_by_side.py docs/play.png tests/artifacts/play-screen-a.png ...

Each screen gets a thin grey frame and 12 px of white either side: 384 px a screen, 816 px high.
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

from support.browser import CHROMIUM, CHROMIUM_ARGS


def side_by_side(out: str, screens: list[str]) -> None:
    from playwright.sync_api import sync_playwright

    images = "".join(f'<img src="data:image/png;base64,{base64.b64encode(Path(f).read_bytes()).decode()}">' for f in screens)
    html = ('<html><body style="margin:0;background:#fff;display:flex">'
            '<style>img{width:360px;height:780px;margin:18px 12px;box-shadow:0 0 0 1px #999}</style>'
            f"{images}</body></html>")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 384 * len(screens), "height": 816})
            page.set_content(html)
            page.screenshot(path=out)
        finally:
            browser.close()


if __name__ == "__main__":
    side_by_side(sys.argv[1], sys.argv[2:])

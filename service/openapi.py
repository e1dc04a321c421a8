"""Write the OpenAPI document generated from the code: ``python -m service.openapi [PATH]``.

The committed ``openapi/openapi.json`` is produced by this command and never
edited by hand; a test fails when it differs from what the code generates.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "openapi" / "openapi.json"


def generate() -> dict[str, Any]:
    from service.web.app import create_app

    app = create_app({"REDIS_URL": "redis://127.0.0.1:1/0"})  # never connected: spec only
    with app.app_context():
        return app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()


def render(spec: dict[str, Any]) -> str:
    """The spec as ASCII text, every other character a JSON escape: a YAML parser (which many
    OpenAPI tools read JSON with) refuses raw control characters in a string, such as those the
    players' names pattern excludes."""
    return json.dumps(spec, indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(generate()), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))

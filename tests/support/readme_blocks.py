"""The fenced code blocks of the README and the client guide, for the tests that run them as written."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
README = ROOT / "README.md"
CLIENT_GUIDE = ROOT / "docs" / "client-guide.md"


def fenced_block_after(marker: str, language: str, page: Path = README) -> str:
    """The first ```<language> block of ``page`` after the first occurrence of ``marker`` (a heading or a line)."""
    text = page.read_text(encoding="utf-8")
    start = text.index(marker)
    # Blocks may be indented (inside a list item): the fence and every line lose that indent.
    match = re.compile(rf"^( *)```{re.escape(language)}\n(.*?)^\1```", re.S | re.M).search(text, start)
    assert match, f"no ```{language} block after {marker!r} in {page.name}"
    indent = match.group(1)
    return "".join(line[len(indent):] if line.startswith(indent) else line
                   for line in match.group(2).splitlines(keepends=True))

"""The README's fenced code blocks, for the tests that run them as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent.parent / "README.md"


def fenced_block_after(marker: str, language: str) -> str:
    """The first ```<language> block after the first occurrence of ``marker`` (a heading or a line)."""
    text = README.read_text(encoding="utf-8")
    start = text.index(marker)
    # Blocks may be indented (inside a list item): the fence and every line lose that indent.
    match = re.compile(rf"^( *)```{re.escape(language)}\n(.*?)^\1```", re.S | re.M).search(text, start)
    assert match, f"no ```{language} block after {marker!r}"
    indent = match.group(1)
    return "".join(line[len(indent):] if line.startswith(indent) else line
                   for line in match.group(2).splitlines(keepends=True))

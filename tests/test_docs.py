"""The README's error table names every code the service can answer with."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def codes_in_source() -> set[str]:
    codes: set[str] = set()
    for path in (ROOT / "service").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'code\s*=\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'_illegal\([^;]*?,\s*"([a-z_]+)"\)', text, re.S))
        codes |= set(re.findall(r'problem\(\s*\d{3},\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'^\s+\d{3}: "([a-z_]+)",$', text, re.M))  # problems.CODE_BY_STATUS
    return codes


def test_every_error_code_is_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    errors = readme[readme.index("## Errors"):]
    errors = errors[: errors.index("\n## ", 1)]
    codes = codes_in_source()
    assert len(codes) > 40
    missing = sorted(code for code in codes if f"`{code}`" not in errors)
    assert not missing, f"add these codes to the README's Errors table: {missing}"

"""One enumerated set of error codes (service.error_codes): the source, the client guide and the spec agree."""

from __future__ import annotations

import json
import re
from pathlib import Path

from service.error_codes import ErrorCode, with_table

ROOT = Path(__file__).resolve().parent.parent
FIX = "add it to service/error_codes.py and run `python -m service.error_codes --write`"


def codes_in_source() -> set[str]:
    """Every code literal the service raises or answers with (typed errors, problem(), helpers)."""
    codes: set[str] = set()
    for path in (ROOT / "service").rglob("*.py"):
        if path.name == "error_codes.py":
            continue
        text = path.read_text(encoding="utf-8")
        codes |= set(re.findall(r'\bcode\s*=\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'_illegal\([^;]*?,\s*"([a-z_]+)"\)', text, re.S))
        codes |= set(re.findall(r'problem\(\s*\d{3},\s*"([a-z_]+)"', text))
        codes |= set(re.findall(r'^\s+\d{3}: "([a-z_]+)",$', text, re.M))  # problems.CODE_BY_STATUS
        codes |= {c.lower() for c in re.findall(r'ErrorCode\.([A-Z_]+)\b', text)}
    return codes


def test_every_code_in_the_source_is_enumerated():
    codes = codes_in_source()
    assert len(codes) > 40, "the scan found too few codes: it no longer reads the source's idiom"
    missing = sorted(codes - {c.value for c in ErrorCode})
    assert not missing, f"codes raised but not enumerated: {missing}; {FIX}"


def test_every_enumerated_code_is_used():
    unused = sorted({c.value for c in ErrorCode} - codes_in_source() - {"http_error"})
    assert not unused, f"enumerated codes nothing raises (remove them from service/error_codes.py): {unused}"


def test_the_client_guide_error_table_is_the_generated_one():
    guide = (ROOT / "docs" / "client-guide.md").read_text(encoding="utf-8")
    assert guide == with_table(guide), f"the error table of docs/client-guide.md is stale; {FIX}"


def test_the_spec_lists_exactly_the_enumerated_codes():
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text(encoding="utf-8"))
    assert spec["components"]["schemas"]["Problem"]["properties"]["code"]["enum"] == [c.value for c in ErrorCode]

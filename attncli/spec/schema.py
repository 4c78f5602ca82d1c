"""The JSON Schema of the spec format (attncli/spec/schema.json), for editors and other tools.

It describes every key that spec/parse.py accepts; parse.py stays the authority on what a valid
spec is (shapes that must agree, a causal mask on a square matrix ...), which a schema cannot say.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from attncli.i18n import DEFAULT_LANG
from attncli.i18n.comments import translated_schema

SCHEMA_PATH = Path(__file__).parent / "schema.json"


def schema_text(lang: str = DEFAULT_LANG) -> str:
    """The schema, its descriptions in `lang` (the keys and rules are the same in every one)."""
    return translated_schema(SCHEMA_PATH.read_text(encoding="utf-8"), lang)


def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(schema_text())
    return loaded

"""Annotation values that hold JSON as Go's `encoding/json` writes it.

Round-trip annotations are compared and copied by clients as strings, so their bytes follow Go:
fields in the order of the Go struct (the caller builds its dicts in that order), compact, and
`<`, `>`, `&`, U+2028 and U+2029 escaped as Go's HTML-safe encoder does.
"""

from __future__ import annotations

from typing import Any

import orjson

_HTML_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def go_json(value: Any) -> str:
    """`value` (dicts in struct order) encoded as `json.Marshal` would encode the Go value."""
    return orjson.dumps(value).decode().translate(_HTML_SAFE)

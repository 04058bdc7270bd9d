"""Conditional GETs of documents that change only when the server restarts (the OpenAPI documents).

As Go's `http.ServeContent` decides them for upstream: `If-None-Match` (a tag list or `*`; weak tags
compare by their opaque part) wins, and only without it is `If-Modified-Since` compared with the
document's time, to the second.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from email.utils import parsedate_to_datetime


def not_modified(headers: Mapping[str, str], etag: str, modified: datetime) -> bool:
    """Whether the client's copy is current, so the answer is a 304."""
    if "If-None-Match" in headers:
        return _etag_matches(headers["If-None-Match"], etag)
    return _not_modified_since(headers.get("If-Modified-Since", ""), modified)


def _etag_matches(header: str, etag: str) -> bool:
    """`If-None-Match`: `*` or any listed tag, weak ones compared by their opaque part."""
    tags = [candidate.strip().removeprefix("W/") for candidate in header.split(",")]
    return "*" in tags or etag in tags


def _not_modified_since(header: str, modified: datetime) -> bool:
    try:
        since = parsedate_to_datetime(header)
    except (TypeError, ValueError):
        return False
    return since.tzinfo is not None and modified.replace(microsecond=0) <= since

"""Who is writing: the user a request acts as, recorded with each revision it makes.

The revision log (`/testing/v1/revisions`) answers "who changed what". The storage interface stays
etcd's (keys, values, revisions: no users), so the name travels beside the call instead, in a
context variable the authorization filter sets for the handlers below it; a backend that keeps a
log (SQLite) reads it when a write is submitted. Writes outside any request (the server's own
loops) have no writer.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

_writer: contextvars.ContextVar[str | None] = contextvars.ContextVar("svc_storage_writer", default=None)


@contextlib.contextmanager
def writing_as(name: str) -> Iterator[None]:
    """Writes made inside the block (and in tasks started there) are recorded as `name`'s."""
    token = _writer.set(name)
    try:
        yield
    finally:
        _writer.reset(token)


def current_writer() -> str | None:
    return _writer.get()

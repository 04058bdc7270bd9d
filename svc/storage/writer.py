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
WriterToken = contextvars.Token[str | None]


def bind_writer(name: str) -> WriterToken:
    """Record later writes of this task (and of the tasks it starts) as `name`'s, until `unbind_writer`.
    A pair of calls rather than a context manager: this runs on every request, and costs a tenth."""
    return _writer.set(name)


def unbind_writer(token: WriterToken) -> None:
    _writer.reset(token)


@contextlib.contextmanager
def writing_as(name: str) -> Iterator[None]:
    """Writes made inside the block are recorded as `name`'s."""
    token = bind_writer(name)
    try:
        yield
    finally:
        unbind_writer(token)


def current_writer() -> str | None:
    return _writer.get()

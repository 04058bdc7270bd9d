"""The uid a create stamps: a random version 4 UUID in its canonical text form."""

from __future__ import annotations

import uuid

from svc.registry.create import new_uid


def test_a_uid_is_a_canonical_random_uuid() -> None:
    for _ in range(200):
        text = new_uid()
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant) == (4, uuid.RFC_4122)
        assert str(parsed) == text


def test_uids_differ() -> None:
    assert len({new_uid() for _ in range(1000)}) == 1000

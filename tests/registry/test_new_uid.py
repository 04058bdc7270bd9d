"""The uid a create stamps: a random version 4 UUID in its canonical text form, never repeated."""

from __future__ import annotations

import os
import uuid

from svc.registry.uid import new_uid


def test_a_uid_is_a_canonical_random_uuid() -> None:
    for _ in range(600):  # past the pool of random bytes at least once
        text = new_uid()
        parsed = uuid.UUID(text)
        assert (parsed.version, parsed.variant) == (4, uuid.RFC_4122)
        assert str(parsed) == text


def test_uids_differ() -> None:
    assert len({new_uid() for _ in range(1000)}) == 1000


def test_a_forked_child_does_not_repeat_its_parents_uids() -> None:
    new_uid()  # the pool now holds bytes the parent will hand out next
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        os.write(write, new_uid().encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        from_child = pipe.read().decode()
    os.waitpid(child, 0)
    assert from_child != new_uid()

"""Errors of the storage layer; the registry translates them into API `Status` errors."""

from __future__ import annotations

from typing import Any


class StorageError(Exception):
    """Base of every storage failure."""


class KeyNotFoundError(StorageError):
    def __init__(self, key: str) -> None:
        super().__init__(f"key not found: {key}")
        self.key = key


class KeyExistsError(StorageError):
    def __init__(self, key: str) -> None:
        super().__init__(f"key exists: {key}")
        self.key = key


class RevisionConflictError(StorageError):
    """A compare-and-swap lost: the key's mod revision was not the expected one. `current` is what the
    key holds, when the refusal read it anyway (etcd's failed transaction does), so a retry needs no read."""

    def __init__(self, key: str, expected: int, actual: int, current: Any = None) -> None:
        super().__init__(f"revision conflict on {key}: expected {expected}, found {actual}")
        self.key = key
        self.expected = expected
        self.actual = actual
        self.current = current


class CompactedError(StorageError):
    """The requested revision is older than the oldest one still held."""

    def __init__(self, requested: int, compacted: int) -> None:
        super().__init__(f"required revision {requested} has been compacted (oldest held: {compacted + 1})")
        self.requested = requested
        self.compacted = compacted


class FutureRevisionError(StorageError):
    """The requested revision is newer than the store's current revision."""

    def __init__(self, requested: int, current: int) -> None:
        super().__init__(f"required revision {requested} is a future revision (current: {current})")
        self.requested = requested
        self.current = current


class CorruptObjectError(StorageError):
    """A stored value cannot be decoded or transformed."""

    def __init__(self, key: str, why: str) -> None:
        super().__init__(
            f"StorageError: corrupt object, Code: 6, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: {why}"
        )
        self.key = key
        self.why = why


class DecodableObjectError(StorageError):
    """An unsafe delete (for corrupt objects) met an object that decodes fine."""

    def __init__(self, key: str) -> None:
        super().__init__(
            f"StorageError: invalid object, Code: 4, Key: {key}, ResourceVersion: 0, AdditionalErrorMsg: "
            "unsafe deletion is not allowed because the object is decodable from storage"
        )
        self.key = key


class BackendUnavailableError(StorageError):
    """The backend cannot serve (closed, disk failure, lost connection)."""


class StoreUnreachableError(BackendUnavailableError):
    """A remote store (etcd) does not answer; a retry may succeed once it is back, so the API says 503."""


class RequestTooLargeError(StorageError):
    """A write bigger than the backend takes in one request (etcd's `--max-request-bytes`)."""

    def __init__(self) -> None:
        super().__init__("etcdserver: request is too large")

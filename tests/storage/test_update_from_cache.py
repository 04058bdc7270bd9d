"""An update may start from the watch cache's copy instead of reading the key first (upstream's cached
existing object): a stale copy costs a retry on what is stored, never a write based on it."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from svc.machinery import status
from svc.storage.backend import KeyValue
from svc.storage.cached_object import CachedObject
from svc.storage.codec import JsonCodec
from svc.storage.objects import ObjectStore
from svc.storage.sqlite.backend import SqliteBackend

KEY = "/registry/configmaps/default/c"
Obj = dict


class CountingBackend(SqliteBackend):
    reads = 0

    async def get(self, key: str) -> KeyValue | None:
        self.reads += 1
        return await super().get(key)


def _run(path: Path, scenario: Callable[[ObjectStore, CountingBackend], Awaitable[None]]) -> None:
    async def main() -> None:
        backend = CountingBackend(path / "state.db")
        await backend.start()
        try:
            await scenario(ObjectStore(backend, JsonCodec()), backend)
        finally:
            await backend.close()

    asyncio.run(main())


def _configmap(value: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": value}}


async def _written(objects: ObjectStore, value: str) -> Obj:
    return await objects.create(KEY, _configmap(value))


async def _rewritten(objects: ObjectStore, value: str) -> Obj:
    async def replace(current: Obj | None) -> Obj:
        assert current is not None
        return {**current, "data": {"k": value}}

    return await objects.guaranteed_update(KEY, replace)


def _appending(seen: list[str]) -> Callable[[Obj | None], Awaitable[Obj]]:
    async def append(current: Obj | None) -> Obj:
        assert current is not None
        seen.append(current["data"]["k"])
        return {**current, "data": {"k": current["data"]["k"] + "+"}}

    return append


def test_a_current_copy_saves_the_read_before_the_write(tmp_path: Path) -> None:
    async def scenario(objects: ObjectStore, backend: CountingBackend) -> None:
        cached = CachedObject.of(await _written(objects, "a"))
        backend.reads = 0
        stored = await objects.guaranteed_update(KEY, _appending([]), suggestion=cached)
        assert stored["data"] == {"k": "a+"}
        assert backend.reads == 0

    _run(tmp_path, scenario)


def test_a_stale_copy_is_retried_on_what_is_stored(tmp_path: Path) -> None:
    async def scenario(objects: ObjectStore, backend: CountingBackend) -> None:
        stale = CachedObject.of(await _written(objects, "a"))
        await _rewritten(objects, "b")
        seen: list[str] = []
        stored = await objects.guaranteed_update(KEY, _appending(seen), suggestion=stale)
        assert seen == ["a", "b"]
        assert (await objects.get(KEY))["data"] == {"k": "b+"} == stored["data"]

    _run(tmp_path, scenario)


def test_a_refusal_of_a_stale_copy_is_retried_and_stands_when_storage_agrees(tmp_path: Path) -> None:
    async def refuse_a(current: Obj | None) -> Obj:
        assert current is not None
        if current["data"]["k"] == "a":
            raise status.bad_request("refused")
        return {**current, "data": {"k": "accepted"}}

    async def scenario(objects: ObjectStore, backend: CountingBackend) -> None:
        stale = CachedObject.of(await _written(objects, "a"))
        await _rewritten(objects, "b")
        assert (await objects.guaranteed_update(KEY, refuse_a, suggestion=stale))["data"] == {"k": "accepted"}
        current = CachedObject.of(await _rewritten(objects, "a"))
        with pytest.raises(status.StatusError):
            await objects.guaranteed_update(KEY, refuse_a, suggestion=current)

    _run(tmp_path, scenario)


def test_an_unchanged_outcome_from_a_copy_is_confirmed_on_storage(tmp_path: Path) -> None:
    async def unchanged(current: Obj | None) -> Obj | None:
        return None

    async def scenario(objects: ObjectStore, backend: CountingBackend) -> None:
        stale = CachedObject.of(await _written(objects, "a"))
        newer = await _rewritten(objects, "b")
        result = await objects.guaranteed_update(KEY, unchanged, suggestion=stale)
        assert result["metadata"]["resourceVersion"] == newer["metadata"]["resourceVersion"]

    _run(tmp_path, scenario)

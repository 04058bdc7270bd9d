"""The watch cache: objects kept as JSON, batched fan-out, slow watchers ended, shared encodings dropped."""

from __future__ import annotations

import asyncio
import tracemalloc
from pathlib import Path

import orjson
import pytest

from svc.storage import errors
from svc.storage.codec import JsonCodec
from svc.storage.objects import ObjectStore
from svc.storage.sqlite.backend import SqliteBackend
from svc.storage.watch_cache import WatchCache

PREFIX = "/registry/configmaps/"


def _configmap(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}, "data": {"k": name}}


async def _cache(path: Path, **options: float) -> tuple[ObjectStore, WatchCache]:
    backend = SqliteBackend(path / "state.db")
    await backend.start()
    objects = ObjectStore(backend, JsonCodec())
    cache = WatchCache(objects, PREFIX, **options)
    await cache.start()
    return objects, cache


async def _close(objects: ObjectStore, cache: WatchCache) -> None:
    await cache.stop()
    await objects.backend.close()


async def _settled(cache: WatchCache, objects: ObjectStore) -> None:
    assert await cache.fresh()


def test_cached_objects_are_json_with_their_resource_version(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _cache(tmp_path)
        stored = await objects.create(PREFIX + "a", _configmap("a", app="x"))
        await _settled(cache, objects)
        cached = cache.state[PREFIX + "a"]
        assert orjson.loads(cached.data) == stored
        assert cached.labels == {"app": "x"}
        assert cached.json_as("v1", "ConfigMap") is cached.data
        assert cached.json_as("v2", "ConfigMap") is None
        await _close(objects, cache)

    asyncio.run(scenario())


def test_a_restart_loads_every_object_across_pages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("svc.storage.watch_cache._LOAD_PAGE", 3)

    async def scenario() -> None:
        objects, cache = await _cache(tmp_path)
        for index in range(10):
            await objects.create(f"{PREFIX}{index:02}", _configmap(f"c{index}"))
        await _close(objects, cache)
        objects, cache = await _cache(tmp_path)
        assert sorted(cache.state) == [f"{PREFIX}{index:02}" for index in range(10)]
        await _close(objects, cache)

    asyncio.run(scenario())


def test_events_of_one_flush_interval_arrive_in_one_batch_in_order(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _cache(tmp_path, flush_interval=0.2)
        watcher = cache.watch(PREFIX, PREFIX + "\xff", cache.revision)
        await objects.create(PREFIX + "first", _configmap("first"))
        assert await watcher.next_batch(5.0)
        for name in ("a", "b", "c"):
            await objects.create(PREFIX + name, _configmap(name))
        await _settled(cache, objects)
        batch = await watcher.next_batch(5.0)
        assert [event.key for event in batch] == [PREFIX + "a", PREFIX + "b", PREFIX + "c"]
        await _close(objects, cache)

    asyncio.run(scenario())


def test_a_watcher_that_does_not_read_is_ended_with_an_error(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _cache(tmp_path, watcher_buffer=2)
        slow = cache.watch(PREFIX, PREFIX + "\xff", cache.revision)
        for name in ("a", "b", "c"):
            await objects.create(PREFIX + name, _configmap(name))
        await _settled(cache, objects)
        with pytest.raises(errors.StorageError, match="could not keep up"):
            await slow.next_batch(1.0)
        await _close(objects, cache)

    asyncio.run(scenario())


def test_bookmark_progress_never_passes_an_undelivered_event(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _cache(tmp_path, flush_interval=0.5)
        watcher = cache.watch(PREFIX, PREFIX + "\xff", cache.revision)
        assert await watcher.next_batch(0.01) == []
        before = watcher.progress
        created = await objects.create(PREFIX + "a", _configmap("a"))
        await _settled(cache, objects)
        assert watcher.progress == before
        batch = await watcher.next_batch(5.0)
        assert batch[0].revision == int(created["metadata"]["resourceVersion"]) == watcher.progress
        await _close(objects, cache)

    asyncio.run(scenario())


def test_shared_encodings_are_dropped_a_few_flushes_later(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _cache(tmp_path, flush_interval=0.0)
        watcher = cache.watch(PREFIX, PREFIX + "\xff", cache.revision)
        await objects.create(PREFIX + "a", _configmap("a"))
        (event,) = await watcher.next_batch(5.0)
        event.shared("json", lambda: b"{}")
        for name in ("b", "c", "d", "e"):
            await objects.create(PREFIX + name, _configmap(name))
            await watcher.next_batch(5.0)
        assert event.encoded is None
        await _close(objects, cache)

    asyncio.run(scenario())


def test_cached_json_holds_no_spare_capacity() -> None:
    from svc.storage.cached_object import CachedObject

    obj = {**_configmap("a"), "data": {"k": "x" * 1500}, "metadata": {"name": "a", "resourceVersion": "1"}}
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [CachedObject.of(obj).data for _ in range(100)]
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 1.2 * sum(len(data) for data in kept)


def test_a_pushed_watcher_whose_sink_fails_is_ended_and_the_others_still_receive(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _cache(tmp_path, flush_interval=0.0)
        broken = cache.watch(PREFIX, PREFIX + "\xff", cache.revision)
        received: list[str] = []
        healthy = cache.watch(PREFIX, PREFIX + "\xff", cache.revision)

        def explode(_: list) -> None:
            raise ValueError("cannot encode")

        broken.push(explode)
        healthy.push(lambda batch: received.extend(event.key for event in batch))
        await objects.create(PREFIX + "a", _configmap("a"))
        await _settled(cache, objects)
        await asyncio.sleep(0.05)
        assert received == [PREFIX + "a"]
        with pytest.raises(errors.StorageError, match="cannot encode"):
            await broken.next_batch(1.0)
        await _close(objects, cache)

    asyncio.run(scenario())


def test_readers_at_one_revision_share_one_snapshot_in_key_order(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _cache(tmp_path)
        for name in ("c", "a", "d", "b"):
            await objects.create(PREFIX + name, _configmap(name))
        await objects.delete(PREFIX + "d")
        await _settled(cache, objects)
        first, span = cache.shared_snapshot(PREFIX, PREFIX + "\xff")
        second, _ = cache.shared_snapshot(PREFIX + "b", PREFIX + "c")
        assert second is first
        assert first.keys[span.start : span.stop] == [PREFIX + name for name in ("a", "b", "c")]
        assert [orjson.loads(o.data)["metadata"]["name"] for o in first.objects] == ["a", "b", "c"]
        await objects.create(PREFIX + "0", _configmap("0"))
        await _settled(cache, objects)
        after, _ = cache.shared_snapshot(PREFIX, PREFIX + "\xff")
        assert after is not first
        assert after.keys == [PREFIX + name for name in ("0", "a", "b", "c")]
        assert first.keys == [PREFIX + name for name in ("a", "b", "c")]
        await _close(objects, cache)

    asyncio.run(scenario())


def test_a_quiet_cache_reaches_a_revision_written_under_another_prefix(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _cache(tmp_path)
        elsewhere = await objects.backend.create("/registry/secrets/default/s", b"{}")
        assert await cache.wait_for(elsewhere.mod_revision, 5.0)
        assert cache.revision >= elsewhere.mod_revision
        await _close(objects, cache)

    asyncio.run(scenario())


def test_a_quiet_cache_waiting_for_a_revision_not_yet_written_reaches_it_when_written(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _cache(tmp_path)
        future = await objects.backend.current_revision() + 2
        waiting = asyncio.create_task(cache.wait_for(future, 5.0))
        await asyncio.sleep(0.05)
        for name in ("a", "b"):
            await objects.backend.create(f"/registry/secrets/default/{name}", b"{}")
        assert await waiting
        assert cache.revision >= future
        await _close(objects, cache)

    asyncio.run(scenario())

"""Watch streams: unfiltered watchers share their batches; selections turn exits into DELETED."""

from __future__ import annotations

import asyncio
from pathlib import Path

from svc.api.strategy import default_field_labels
from svc.machinery.labels import parse_label_selector
from svc.registry.initial_events import InitialEvents
from svc.registry.options import ListOptions
from svc.registry.selection import Selection
from svc.registry.watch import WatchEvent, WatchStream, convert
from svc.storage.codec import JsonCodec
from svc.storage.errors import StorageError
from svc.storage.objects import ObjectStore
from svc.storage.sqlite.backend import SqliteBackend
from svc.storage.watch_cache import CacheEvent, WatchCache

PREFIX = "/registry/configmaps/"
IDENTITY = ("v1", "ConfigMap")


def _configmap(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": labels}}


def _failure(error: StorageError) -> dict:
    return {"kind": "Status", "message": str(error)}


async def _setup(path: Path) -> tuple[ObjectStore, WatchCache]:
    backend = SqliteBackend(path / "state.db")
    await backend.start()
    objects = ObjectStore(backend, JsonCodec())
    cache = WatchCache(objects, PREFIX, flush_interval=0.0)
    await cache.start()
    return objects, cache


def _stream(cache: WatchCache, selector: str = "") -> WatchStream:
    selection = Selection(ListOptions(label_selector=parse_label_selector(selector)), default_field_labels)
    source = cache.watch(PREFIX, PREFIX + "\xff", cache.revision)
    shared_as = IDENTITY if selection.everything else None

    def select(event: CacheEvent) -> WatchEvent | None:
        return convert(event, selection, IDENTITY)

    return WatchStream(InitialEvents.of([]), source, select, cache.revision, _failure, shared_as)


def test_caught_up_unfiltered_watchers_receive_the_same_batch(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _setup(tmp_path)
        first, second, filtered = _stream(cache), _stream(cache), _stream(cache, "app")
        await objects.create(PREFIX + "a", _configmap("a", app="x"))
        batches = [await stream.next_batch(5.0) for stream in (first, second, filtered)]
        assert batches[0] is batches[1]
        assert batches[2] is not batches[0]
        assert [event.type for event in batches[2]] == ["ADDED"]
        await cache.stop()
        await objects.backend.close()

    asyncio.run(scenario())


def test_an_object_leaving_the_selection_is_deleted_at_the_new_version(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _setup(tmp_path)
        await objects.create(PREFIX + "a", _configmap("a", app="x"))
        stream = _stream(cache, "app=x")

        async def relabel(current: dict) -> dict:
            current["metadata"]["labels"] = {"app": "y"}
            return current

        updated = await objects.guaranteed_update(PREFIX + "a", relabel)
        (event,) = await stream.next_batch(5.0)
        assert event.type == "DELETED"
        assert event.object["metadata"]["labels"] == {"app": "x"}
        assert event.object["metadata"]["resourceVersion"] == updated["metadata"]["resourceVersion"]
        await cache.stop()
        await objects.backend.close()

    asyncio.run(scenario())


def test_a_pushed_stream_hands_batches_to_its_sink_without_a_reader(tmp_path: Path) -> None:
    async def scenario() -> None:
        objects, cache = await _setup(tmp_path)
        stream = _stream(cache)
        received: list[list[str]] = []
        assert stream.push(lambda batch: received.append([event.object["metadata"]["name"] for event in batch]))
        await objects.create(PREFIX + "a", _configmap("a"))
        await objects.create(PREFIX + "b", _configmap("b"))
        assert await cache.fresh()
        await asyncio.sleep(0.05)
        assert [name for batch in received for name in batch] == ["a", "b"]
        assert await stream.next_batch(0.01) == []
        stream.fail("gone")
        assert [event.type for event in await stream.next_batch(0.01)] == ["ERROR"]
        await cache.stop()
        await objects.backend.close()

    asyncio.run(scenario())

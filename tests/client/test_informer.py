"""Shared informers over a scripted list/watch source: cache, handlers, bookmarks, 410, resync."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Mapping
from typing import Any

from svc.client.clock import FakeClock
from svc.client.informer import NAMESPACE_INDEX, Handler, Informer, trim_for_cache

Obj = dict[str, Any]


def pod(name: str, version: str, namespace: str = "ns") -> Obj:
    return {"metadata": {"name": name, "namespace": namespace, "resourceVersion": version}}


class Script:
    """Lists answer in turn; each watch yields its events then waits until the test releases it."""

    def __init__(self, lists: list[Obj], watches: list[list[Obj]]) -> None:
        self.lists = lists
        self.watches = watches
        self.list_calls = 0
        self.watch_params: list[Mapping[str, str]] = []
        self.release = asyncio.Event()

    async def list(self, params: Mapping[str, str]) -> Obj:
        self.list_calls += 1
        return self.lists[min(self.list_calls, len(self.lists)) - 1]

    async def watch(self, params: Mapping[str, str]) -> AsyncIterator[Obj]:
        self.watch_params.append(params)
        events = self.watches.pop(0) if self.watches else []
        for event in events:
            yield event
        await self.release.wait()


async def settle(rounds: int = 20) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0)


def listed(*items: Obj, version: str) -> Obj:
    return {"items": list(items), "metadata": {"resourceVersion": version}}


def test_list_fills_the_cache_then_watch_starts_from_the_lists_version_with_bookmarks() -> None:
    async def scenario() -> None:
        script = Script([listed(pod("a", "5"), version="7")], [[{"type": "ADDED", "object": pod("b", "8")}]])
        informer = Informer(script, clock=FakeClock())
        task = asyncio.create_task(informer.run())
        await settle()
        assert informer.synced.is_set()
        assert sorted(informer.keys()) == ["ns/a", "ns/b"]
        assert script.watch_params[0]["resourceVersion"] == "7"
        assert script.watch_params[0]["allowWatchBookmarks"] == "true"
        assert informer.resource_version == "8"
        task.cancel()

    asyncio.run(scenario())


def test_a_bookmark_advances_the_version_without_touching_the_cache() -> None:
    async def scenario() -> None:
        bookmark = {"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "40"}}}
        script = Script([listed(pod("a", "5"), version="7")], [[bookmark]])
        informer = Informer(script, clock=FakeClock())
        seen: list[str] = []
        informer.add_handler(Handler(on_update=lambda _old, new: seen.append(key(new))))
        task = asyncio.create_task(informer.run())
        await settle()
        assert informer.resource_version == "40"
        assert informer.keys() == ["ns/a"]
        assert seen == []
        task.cancel()

    asyncio.run(scenario())


def key(obj: Obj) -> str:
    return obj["metadata"]["name"]


def test_a_410_relists_and_reports_what_vanished_in_between() -> None:
    async def scenario() -> None:
        expired = {"type": "ERROR", "object": {"kind": "Status", "code": 410, "reason": "Expired"}}
        script = Script(
            [listed(pod("a", "5"), pod("b", "6"), version="7"), listed(pod("b", "9"), version="10")],
            [[expired]],
        )
        informer = Informer(script, clock=FakeClock())
        deleted: list[str] = []
        informer.add_handler(Handler(on_delete=lambda obj: deleted.append(key(obj))))
        task = asyncio.create_task(informer.run())
        await settle()
        assert script.list_calls == 2
        assert informer.keys() == ["ns/b"]
        assert deleted == ["a"]
        assert script.watch_params[-1]["resourceVersion"] == "10"
        task.cancel()

    asyncio.run(scenario())


def test_handlers_hear_adds_updates_and_deletes_and_the_namespace_index_follows() -> None:
    async def scenario() -> None:
        events = [
            {"type": "ADDED", "object": pod("b", "8", namespace="other")},
            {"type": "MODIFIED", "object": pod("a", "9")},
            {"type": "DELETED", "object": pod("b", "10", namespace="other")},
        ]
        script = Script([listed(pod("a", "5"), version="7")], [events])
        informer = Informer(script, clock=FakeClock())
        heard: list[str] = []
        informer.add_handler(
            Handler(
                on_add=lambda obj: heard.append(f"add {key(obj)}"),
                on_update=lambda _old, new: heard.append(f"update {key(new)}"),
                on_delete=lambda obj: heard.append(f"delete {key(obj)}"),
            )
        )
        task = asyncio.create_task(informer.run())
        await settle()
        assert heard == ["add a", "add b", "update a", "delete b"]
        assert [key(obj) for obj in informer.by_index(NAMESPACE_INDEX, "ns")] == ["a"]
        assert informer.by_index(NAMESPACE_INDEX, "other") == []
        task.cancel()

    asyncio.run(scenario())


def test_a_handler_that_raises_neither_stops_the_informer_nor_silences_the_other_handlers() -> None:
    async def scenario() -> None:
        events = [{"type": "ADDED", "object": {"metadata": {"name": "bad", "namespace": "ns"}}}]
        events.append({"type": "ADDED", "object": pod("b", "8")})
        script = Script([listed(pod("a", "5"), version="7")], [events])
        informer = Informer(script, clock=FakeClock())
        heard: list[str] = []
        informer.add_handler(Handler(on_add=lambda obj: heard.append(obj["metadata"]["resourceVersion"])))
        informer.add_handler(Handler(on_add=lambda obj: heard.append(f"add {key(obj)}")))
        task = asyncio.create_task(informer.run())
        await settle()
        assert heard == ["5", "add a", "add bad", "8", "add b"]
        assert not task.done()
        assert script.list_calls == 1
        task.cancel()

    asyncio.run(scenario())


def test_every_resync_period_handlers_hear_each_cached_object_again() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        script = Script([listed(pod("a", "5"), version="7")], [[]])
        informer = Informer(script, clock=clock, resync_period=30.0)
        resynced: list[str] = []
        informer.add_handler(Handler(on_update=lambda old, new: resynced.append(key(new)) if old is new else None))
        task = asyncio.create_task(informer.run())
        await settle()
        await clock.advance(29.0)
        assert resynced == []
        await clock.advance(1.0)
        assert resynced == ["a"]
        task.cancel()

    asyncio.run(scenario())


def test_a_failed_list_is_retried_after_a_backoff() -> None:
    async def scenario() -> None:
        clock = FakeClock()
        script = Script([listed(version="7")], [[]])
        calls = 0
        original = script.list

        async def flaky(params: Mapping[str, str]) -> Obj:
            nonlocal calls
            calls += 1
            if calls == 1:
                raise OSError("connection refused")
            return await original(params)

        script.list = flaky  # type: ignore[method-assign]
        informer = Informer(script, clock=clock)
        task = asyncio.create_task(informer.run())
        await settle()
        assert not informer.synced.is_set()
        await clock.advance(1.0)
        await settle()
        assert informer.synced.is_set()
        task.cancel()

    asyncio.run(scenario())


def test_the_transform_trims_listed_and_watched_objects_before_they_are_cached() -> None:
    async def scenario() -> None:
        managed = [{"manager": "kubectl", "operation": "Update", "fieldsV1": {"f:data": {}}}]
        listed_pod = {**pod("a", "5"), "kind": "Pod"}
        listed_pod["metadata"]["managedFields"] = managed
        watched_pod = pod("b", "8", namespace="".join(["n", "s"]))
        watched_pod["metadata"]["managedFields"] = managed
        script = Script([listed(listed_pod, version="7")], [[{"type": "ADDED", "object": watched_pod}]])
        informer = Informer(script, clock=FakeClock(), transform=trim_for_cache)
        task = asyncio.create_task(informer.run())
        await settle()
        cached = [informer.get("ns/a"), informer.get("ns/b")]
        assert all(obj is not None and "managedFields" not in obj["metadata"] for obj in cached)
        assert cached[1] is not None and cached[1]["metadata"]["namespace"] is sys.intern("ns")
        task.cancel()

    asyncio.run(scenario())

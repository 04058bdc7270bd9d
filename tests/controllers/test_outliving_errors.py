"""Controllers outlive the errors they can outlive (issue 18): a failed pass, discovery that is
down, a request that times out is logged and retried, never the end of the controller's task, which
would stop the whole daemon."""

from __future__ import annotations

import asyncio

from svc.client.aio import resource_path
from svc.controllers.csrcleaner import CSRCleanerController
from svc.controllers.ctbpublisher import ClusterTrustBundlePublisher
from svc.controllers.garbagecollector import RESYNC_MONITORS, GarbageCollector
from svc.controllers.legacytokencleaner import SYNC_INTERVAL, LegacyTokenCleaner
from svc.controllers.pcrcleaner import PCRCleanerController
from svc.controllers.podgc import QUARANTINE, PodGarbageCollector
from tests.controllers.fakes import make_context, seed_core_discovery, served, status_error
from tests.controllers.test_csr_approving_cleaning_sync import csr_at
from tests.controllers.test_nodelifecycle_sync import node, setup, writes
from tests.controllers.test_pcrcleaner_sync import request as pcr_request
from tests.controllers.test_podgc_sync import deleted, pod
from tests.controllers.test_pvrecycler_sync import binder

DAY = 24 * 3600.0


def test_discovery_failing_at_start_is_retried_a_period_later_and_the_collector_keeps_running() -> None:
    async def scenario() -> None:
        context, client = make_context()
        seed_core_discovery(client, served("configmaps", "ConfigMap"))
        context.informers.start = lambda: None  # type: ignore[method-assign]
        client.failures["get"] = ConnectionError("GET /api: connection refused")
        gc = GarbageCollector(context)
        running = asyncio.create_task(gc.run())
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert not running.done()
        assert not gc.monitors
        client.failures.clear()
        await context.clock.advance(RESYNC_MONITORS)  # type: ignore[attr-defined]
        await context.clock.advance(RESYNC_MONITORS)  # type: ignore[attr-defined]
        assert list(gc.monitors) == [("", "v1", "configmaps")]
        assert not running.done()
        running.cancel()

    asyncio.run(scenario())


def test_a_monitor_that_never_lists_holds_the_workers_back_one_period_only() -> None:
    async def scenario() -> None:
        context, client = make_context()
        seed_core_discovery(client, served("configmaps", "ConfigMap"))
        context.informers.start = lambda: None  # type: ignore[method-assign]
        gc = GarbageCollector(context)
        running = asyncio.create_task(gc.run())
        gc.attempt_to_delete.add("uid-unknown")
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert len(gc.attempt_to_delete) == 1
        await context.clock.advance(RESYNC_MONITORS)  # type: ignore[attr-defined]
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert len(gc.attempt_to_delete) == 0
        running.cancel()

    asyncio.run(scenario())


def test_a_pass_that_times_out_is_logged_and_the_next_day_runs_again() -> None:
    async def scenario() -> None:
        context, client = make_context()
        client.failures["get"] = TimeoutError()
        cleaner = LegacyTokenCleaner(context)
        running = asyncio.create_task(cleaner.run())
        await context.clock.advance(0)  # type: ignore[attr-defined]
        assert not running.done()
        await context.clock.advance(SYNC_INTERVAL)  # type: ignore[attr-defined]
        assert [verb for verb, *_ in client.calls] == ["get", "get"]
        running.cancel()

    asyncio.run(scenario())


def test_a_node_monitor_pass_that_times_out_is_logged_and_the_next_one_runs() -> None:
    async def scenario() -> None:
        controller, client = setup("n1")
        client.failures["update"] = TimeoutError()
        running = asyncio.create_task(controller.run())
        await controller.context.clock.advance(0)  # type: ignore[attr-defined]
        await controller.context.clock.advance(60)  # type: ignore[attr-defined]
        assert writes(client, "/status")
        assert not running.done()
        client.failures.clear()
        client.calls.clear()
        await controller.context.clock.advance(controller.monitor_period)  # type: ignore[attr-defined]
        assert writes(client, "/status")
        running.cancel()

    asyncio.run(scenario())


def test_a_legacy_token_whose_label_write_times_out_does_not_stop_the_pass_over_the_others() -> None:
    async def scenario() -> None:
        context, client = make_context()
        cleaner = LegacyTokenCleaner(context, clean_up_period=DAY)
        tracking = resource_path("", "v1", "configmaps", namespace=context.profile.system_namespace)
        client.objects[f"{tracking}/{cleaner.tracking}"] = {"data": {"since": "1970-01-01"}}
        names = ("first", "second")
        cleaner.accounts.replace(
            [{"metadata": {"name": "bot", "namespace": "ns"}, "secrets": [{"name": n} for n in names]}]
        )
        cleaner.secrets.replace(
            [
                {
                    "metadata": {
                        "name": name,
                        "namespace": "ns",
                        "creationTimestamp": "1970-01-01T00:00:00Z",
                        "annotations": {cleaner.name_key: "bot"},
                    },
                    "type": cleaner.token_type,
                }
                for name in names
            ]
        )
        client.failures["patch:merge"] = TimeoutError("timed out")
        await context.clock.advance(10 * DAY)  # type: ignore[attr-defined]
        await cleaner.evaluate()
        patched = [path.rsplit("/", 1)[1] for verb, path, _ in client.calls if verb == "patch:merge"]
        assert patched == ["first", "second"]

    asyncio.run(scenario())


def test_a_pod_the_server_fails_to_delete_does_not_stop_the_pass_over_the_others() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGarbageCollector(context)
        stamp = "2026-01-01T00:00:00Z"
        controller.pods.replace([pod(name, phase="Pending", deletionTimestamp=stamp) for name in ("a", "b")])
        client.failures["delete"] = status_error(500, "InternalError")
        await controller.gc()
        assert deleted(client) == ["a", "b"]

    asyncio.run(scenario())


def test_a_node_lookup_that_times_out_keeps_the_pods_bound_to_it() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PodGarbageCollector(context)
        controller.pods.replace([pod("bound", node="gone")])
        client.failures["get"] = TimeoutError("timed out")
        await controller.gc()
        await context.clock.advance(QUARANTINE)  # type: ignore[attr-defined]
        await controller.gc()
        assert deleted(client) == []
        assert set(controller.missing_since) == {"gone"}

    asyncio.run(scenario())


def test_a_request_whose_delete_times_out_does_not_stop_the_csr_cleaner_pass() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = CSRCleanerController(context)
        controller.requests.replace([csr_at(name, context.clock.wall() - 30 * 3600) for name in ("a", "b")])
        client.failures["delete"] = TimeoutError("timed out")
        await controller.clean()
        assert [path.rsplit("/", 1)[1] for verb, path, _ in client.calls if verb == "delete"] == ["a", "b"]

    asyncio.run(scenario())


def test_a_node_status_write_that_times_out_does_not_stop_the_monitor_pass_over_the_others() -> None:
    async def scenario() -> None:
        controller, client = setup("n1", "n2")
        await controller.monitor()
        await controller.context.clock.advance(60)  # type: ignore[attr-defined]
        client.failures["update"] = TimeoutError("timed out")
        await controller.monitor()
        assert writes(client, "/nodes/n1/status") and writes(client, "/nodes/n2/status")

    asyncio.run(scenario())


def test_a_taint_write_that_times_out_is_queued_again() -> None:
    async def scenario() -> None:
        controller, client = setup("n1", "n2", eviction_rate=0.1)
        await controller.monitor()
        controller.nodes.replace([node("n1"), node("n2", "Unknown")])
        await controller.monitor()
        client.failures["update"] = TimeoutError("timed out")
        await controller.taint_pass()
        client.failures.clear()
        client.calls.clear()
        await controller.context.clock.advance(10)  # type: ignore[attr-defined]
        await controller.taint_pass()
        assert len(writes(client, "/nodes/n2")) == 1

    asyncio.run(scenario())


def test_a_pod_certificate_request_whose_delete_times_out_does_not_stop_the_pass() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = PCRCleanerController(context)
        old = context.clock.wall() - 3600
        controller.requests.replace([pcr_request("a", old), pcr_request("b", old)])
        client.failures["delete"] = TimeoutError("timed out")
        await controller.clean()
        assert [path.rsplit("/", 1)[1] for verb, path, _ in client.calls if verb == "delete"] == ["a", "b"]

    asyncio.run(scenario())


def test_a_recycle_whose_volume_read_times_out_is_logged_not_raised() -> None:
    controller, client = binder([])
    client.failures["get"] = TimeoutError("timed out")
    asyncio.run(controller.recycle_operation("pv1", controller.recycler.plugins[1]))
    assert [verb for verb, _, _ in client.calls] == ["get"]


def test_discovery_of_trust_bundles_failing_is_asked_again_after_a_wait() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = ClusterTrustBundlePublisher(context)
        client.failures["get"] = ConnectionError("connection refused")
        found = asyncio.create_task(controller.discovered_version())
        for _ in range(10):
            await asyncio.sleep(0)
        assert not found.done()
        client.failures.clear()
        client.objects["/apis/certificates.svc/v1beta1"] = {"resources": [{"name": "clustertrustbundles"}]}
        await context.clock.advance(1.0)
        assert await asyncio.wait_for(found, 5) == "v1beta1"

    asyncio.run(scenario())

"""The serviceaccount controller's sync over seeded caches."""

from __future__ import annotations

import asyncio

from svc.controllers.serviceaccount import ServiceAccountController
from tests.controllers.fakes import make_context, namespace, status_error


def test_an_active_namespace_without_default_gets_one() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = ServiceAccountController(context)
        controller.namespaces.replace([namespace("team")])
        await controller.sync("team")
        assert client.calls == [
            (
                "create",
                "/api/v1/namespaces/team/serviceaccounts",
                {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "default"}},
            )
        ]

    asyncio.run(scenario())


def test_nothing_is_created_when_default_exists_or_the_namespace_terminates_or_is_gone() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = ServiceAccountController(context)
        controller.namespaces.replace([namespace("team"), namespace("leaving", "Terminating")])
        controller.accounts.replace([{"metadata": {"name": "default", "namespace": "team"}}])
        for key in ("team", "leaving", "gone"):
            await controller.sync(key)
        assert client.calls == []

    asyncio.run(scenario())


def test_already_exists_and_a_namespace_terminating_refusal_count_as_success() -> None:
    async def scenario() -> None:
        context, client = make_context()
        controller = ServiceAccountController(context)
        controller.namespaces.replace([namespace("team")])
        client.failures["create"] = status_error(409, "AlreadyExists")
        await controller.sync("team")
        client.failures["create"] = status_error(403, "Forbidden", ["NamespaceTerminating"])
        await controller.sync("team")
        assert len(client.calls) == 2

    asyncio.run(scenario())


def test_deleting_the_default_account_queues_its_namespace() -> None:
    async def scenario() -> None:
        context, _ = make_context()
        controller = ServiceAccountController(context)
        controller.accounts.replace([{"metadata": {"name": "default", "namespace": "team"}}])
        controller.accounts.replace([])
        assert await controller.queue.get() == "team"

    asyncio.run(scenario())

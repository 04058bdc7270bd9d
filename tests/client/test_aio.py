"""The asyncio client: Status refusals as ApiError, transport failures as ConnectionError."""

from __future__ import annotations

import asyncio

import pytest

from svc.client.aio import ApiError, AsyncRestClient, resource_path
from svc.client.kubeconfig import ClientConfig, load_kubeconfig
from svc.testing.harness import RunningServer, free_port


def test_paths_follow_upstreams_layout() -> None:
    assert resource_path("", "v1", "pods", namespace="ns", name="p", subresource="status") == (
        "/api/v1/namespaces/ns/pods/p/status"
    )
    assert resource_path("apps", "v1", "deployments") == "/apis/apps/v1/deployments"


def test_a_refusal_carries_the_servers_status(svc_server: RunningServer) -> None:
    async def scenario() -> None:
        client = AsyncRestClient(load_kubeconfig(svc_server.kubeconfig))
        try:
            with pytest.raises(ApiError) as error:
                await client.get("/api/v1/namespaces/default/configmaps/missing")
            assert (error.value.code, error.value.reason) == (404, "NotFound")
        finally:
            await client.close()

    asyncio.run(scenario())


def test_nothing_listening_is_a_connection_error() -> None:
    async def scenario() -> None:
        client = AsyncRestClient(ClientConfig(server=f"http://127.0.0.1:{free_port()}"))
        try:
            with pytest.raises(ConnectionError):
                await client.get("/api")
        finally:
            await client.close()

    asyncio.run(scenario())

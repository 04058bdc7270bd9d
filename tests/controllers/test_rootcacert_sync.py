"""The root-ca-certificate-publisher's sync over seeded caches, in both brand spellings."""

from __future__ import annotations

import asyncio

import pytest

from svc.controllers.rootcacert import DESCRIPTION, RootCACertPublisher
from tests.controllers.fakes import make_context, namespace

CA = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"


@pytest.mark.parametrize(
    ("profile", "name", "annotation"),
    [("svc", "svc-root-ca.crt", "svc.io/description"), ("kubernetes", "kube-root-ca.crt", "kubernetes.io/description")],
)
def test_a_namespace_without_the_configmap_gets_it(profile: str, name: str, annotation: str) -> None:
    async def scenario() -> None:
        context, client = make_context(profile, root_ca=CA)
        controller = RootCACertPublisher(context)
        controller.namespaces.replace([namespace("team")])
        await controller.sync("team")
        [(verb, path, body)] = client.calls
        assert (verb, path) == ("create", "/api/v1/namespaces/team/configmaps")
        assert body is not None
        assert body["metadata"] == {"name": name, "annotations": {annotation: DESCRIPTION}}
        assert body["data"] == {"ca.crt": CA.decode()}

    asyncio.run(scenario())


def test_an_edited_configmap_gets_its_data_back_and_keeps_other_annotations() -> None:
    async def scenario() -> None:
        context, client = make_context(root_ca=CA)
        controller = RootCACertPublisher(context)
        controller.namespaces.replace([namespace("team")])
        edited = {
            "metadata": {"name": "svc-root-ca.crt", "namespace": "team", "annotations": {"mine": "yes"}},
            "data": {"ca.crt": "tampered", "extra": "x"},
        }
        controller.configmaps.replace([edited])
        await controller.sync("team")
        [(verb, path, body)] = client.calls
        assert (verb, path) == ("update", "/api/v1/namespaces/team/configmaps/svc-root-ca.crt")
        assert body is not None
        assert body["data"] == {"ca.crt": CA.decode()}
        assert body["metadata"]["annotations"] == {"mine": "yes", "svc.io/description": DESCRIPTION}

    asyncio.run(scenario())


def test_an_up_to_date_configmap_or_a_terminating_namespace_is_left_alone() -> None:
    async def scenario() -> None:
        context, client = make_context(root_ca=CA)
        controller = RootCACertPublisher(context)
        controller.namespaces.replace([namespace("team"), namespace("leaving", "Terminating")])
        current = {
            "metadata": {
                "name": "svc-root-ca.crt",
                "namespace": "team",
                "annotations": {"svc.io/description": DESCRIPTION},
            },
            "data": {"ca.crt": CA.decode()},
        }
        controller.configmaps.replace([current])
        await controller.sync("team")
        await controller.sync("leaving")
        assert client.calls == []

    asyncio.run(scenario())


def test_changing_only_the_published_configmap_queues_its_namespace() -> None:
    async def scenario() -> None:
        context, _ = make_context(root_ca=CA)
        controller = RootCACertPublisher(context)
        other = {"metadata": {"name": "settings", "namespace": "a"}}
        ours = {"metadata": {"name": "svc-root-ca.crt", "namespace": "b"}}
        controller.configmaps.replace([other, ours])
        controller.configmaps.replace([])
        assert await controller.queue.get() == "b"
        assert len(controller.queue) == 0

    asyncio.run(scenario())

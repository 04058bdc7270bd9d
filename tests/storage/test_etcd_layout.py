"""What `etcdctl get --prefix /registry/` shows on our store is what it shows on upstream's: keys under
upstream's resource prefixes, built-in objects as `k8s\\x00`-enveloped Protobuf, custom resources as
JSON, as are CRDs. Read with aetcd directly, not through our backend."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import aetcd

from svc.testing.etcd import EtcdProcess
from svc.testing.harness import RunningServer
from svc.wire.protobuf.envelope import MAGIC
from tests.apiserver.crd.crds import install, widget

Factory = Callable[..., RunningServer]


def _stored(etcd: EtcdProcess) -> dict[str, bytes]:
    async def read() -> dict[str, bytes]:
        async with aetcd.Client("127.0.0.1", etcd.client_port) as client:
            found = await client.get_prefix(b"/registry/")
            return {kv.key.decode(): kv.value for kv in found}

    return asyncio.run(read())


def _pod(name: str) -> dict:
    return {"metadata": {"name": name}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}


def test_keys_and_values_are_upstreams(svc_server_factory: Factory, etcd_process: EtcdProcess) -> None:
    server = svc_server_factory("--brand-profile=kubernetes", *etcd_process.server_flags())
    client = server.client()
    assert client.request("POST", "/api/v1/namespaces/default/pods", body=_pod("x")).status == 201
    node = {"metadata": {"name": "n1"}}
    assert client.request("POST", "/api/v1/nodes", body=node).status == 201
    rc = {
        "metadata": {"name": "rc"},
        "spec": {"selector": {"a": "b"}, "template": {**_pod(""), "metadata": {"labels": {"a": "b"}}}},
    }
    assert client.request("POST", "/api/v1/namespaces/default/replicationcontrollers", body=rc).status == 201
    deployment = {
        "metadata": {"name": "d"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": rc["spec"]["template"]},
    }
    assert client.request("POST", "/apis/apps/v1/namespaces/default/deployments", body=deployment).status == 201
    event = {
        "metadata": {"name": "e"},
        "eventTime": "2026-01-01T00:00:00.000000Z",
        "reportingController": "a/b",
        "reportingInstance": "i",
        "action": "A",
        "reason": "R",
        "type": "Normal",
        "regarding": {"kind": "Pod"},
    }
    assert client.request("POST", "/apis/events.k8s.io/v1/namespaces/default/events", body=event).status == 201
    install(client)
    assert client.request("POST", "/apis/example.com/v1/namespaces/default/widgets", body=widget("w")).status == 201

    stored = _stored(etcd_process)

    for key in (
        "/registry/pods/default/x",
        "/registry/minions/n1",
        "/registry/controllers/default/rc",
        "/registry/deployments/default/d",
        "/registry/events/default/e",
        "/registry/services/specs/default/kubernetes",
        "/registry/namespaces/default",
    ):
        assert stored[key].startswith(MAGIC), key
    assert stored["/registry/pods/default/x"][len(MAGIC) :].startswith(b"\x0a\x09\x0a\x02v1\x12\x03Pod")
    # The API servers upstream chains in store as JSON (their legacy codec), as custom resources are.
    assert stored["/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com"].startswith(b"{")
    assert stored["/registry/example.com/widgets/default/w"].startswith(b"{")
    assert not [key for key in stored if key.startswith(("/registry/core/", "/registry/apps/"))]

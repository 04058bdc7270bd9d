"""An API server on an etcd that serves TLS and asks for client certificates (`--store-cafile`,
`--store-certfile`, `--store-keyfile`): its reads and writes and its watch caches' streams all go
through that connection, and without a certificate etcd accepts it cannot start."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from svc.storage.errors import StorageError
from svc.testing.etcd import EtcdProcess
from svc.testing.harness import RunningServer

CONFIGMAPS = "/api/v1/namespaces/default/configmaps"
Factory = Callable[..., RunningServer]


def test_a_server_on_a_tls_etcd_writes_reads_and_watches(
    svc_server_factory: Factory, etcd_tls_process: EtcdProcess
) -> None:
    client = svc_server_factory(*etcd_tls_process.server_flags()).client()
    version = client.request("GET", CONFIGMAPS).json()["metadata"]["resourceVersion"]
    body = {"metadata": {"name": "over-tls"}, "data": {"x": "1"}}
    assert client.request("POST", CONFIGMAPS, body=body).status == 201
    stream = client.stream(CONFIGMAPS, params={"watch": "1", "resourceVersion": version, "timeoutSeconds": 10})
    event = json.loads(next(iter(stream)))
    stream.close()
    assert (event["type"], event["object"]["metadata"]["name"]) == ("ADDED", "over-tls")
    cached = client.request("GET", f"{CONFIGMAPS}/over-tls", params={"resourceVersion": "0"})
    assert cached.json()["data"] == {"x": "1"}
    assert [item["metadata"]["name"] for item in client.request("GET", CONFIGMAPS).json()["items"]] == ["over-tls"]


def test_without_a_client_certificate_the_server_cannot_start(
    svc_server_factory: Factory, etcd_tls_process: EtcdProcess
) -> None:
    tls = etcd_tls_process.tls
    assert tls is not None
    flags = ("--storage-backend=store3", f"--store-servers={etcd_tls_process.url}", f"--store-cafile={tls.ca_file}")
    with pytest.raises(StorageError, match=f"cannot reach etcd at {etcd_tls_process.url} within 1s"):
        svc_server_factory(*flags, "--storage-initialization-timeout=1s")

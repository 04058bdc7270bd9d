"""Custom resources of two versions over a real server: a conversion webhook (HTTPS, on loopback, in
the test) converts what is read and written in another version than the stored one; objects stored
under an earlier storage version stay readable; failures of the webhook are 500s with its reason."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from svc.testing.webhook_server import issue_webhook_tls, threaded_https_webhook
from tests.conversion_webhook import ALPHA, GROUP, V1, Review, conversion_handler
from tests.e2e.kubectl_runner import Kubectl

CRD_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
CRD_NAME = f"crontabs.{GROUP}"


def _schema(field: str) -> dict[str, Any]:
    return {
        "openAPIV3Schema": {
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": {field: {"type": "integer"}}}},
        }
    }


def _crd(conversion: dict[str, Any], storage: str = "v1alpha1") -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": CRD_NAME},
        "spec": {
            "group": GROUP,
            "scope": "Namespaced",
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
            "versions": [
                {"name": "v1alpha1", "served": True, "storage": storage == "v1alpha1", "schema": _schema("size")},
                {"name": "v1", "served": True, "storage": storage == "v1", "schema": _schema("replicas")},
            ],
            "conversion": conversion,
        },
    }


def _path(api_version: str, name: str = "") -> str:
    return f"/apis/{api_version}/namespaces/default/crontabs" + (f"/{name}" if name else "")


def _crontab(name: str, api_version: str, **spec: int) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": "CronTab", "metadata": {"name": name}, "spec": spec}


def _install(client: RestClient, crd: dict[str, Any]) -> None:
    response = client.request("POST", CRD_PATH, body=crd)
    assert response.status == 201, response.body
    _wait_served(client)


def _wait_served(client: RestClient) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if all(client.request("GET", _path(v)).status == 200 for v in (ALPHA, V1)):
            return
        time.sleep(0.05)
    pytest.fail("the custom resource was not served within 10 s")


def _stored(server: RunningServer, name: str) -> dict[str, Any]:
    """The object as the storage holds it."""
    assert server.server is not None
    key = server.server.store_for(GROUP, "crontabs").key("default", name)
    return server.call(server.server.objects.get(key))


def _created(client: RestClient, obj: dict[str, Any]) -> dict[str, Any]:
    response = client.request("POST", _path(obj["apiVersion"]), body=obj)
    assert response.status == 201, response.body
    return response.json()


@pytest.fixture
def server(svc_server_factory) -> RunningServer:
    return svc_server_factory("--brand-profile=kubernetes")


@pytest.fixture
def webhook(tmp_path) -> Any:
    tls = issue_webhook_tls(tmp_path / "tls", ["127.0.0.1"])
    seen: list[Review] = []
    failing: list[str] = []

    def fail_when_asked(answer: Review) -> None:
        if failing:
            answer["response"]["result"] = {"status": "Failure", "message": failing[0]}

    with threaded_https_webhook(conversion_handler(seen, fail_when_asked), tls, "/convert") as base:
        yield {
            "conversion": {
                "strategy": "Webhook",
                "webhook": {
                    "clientConfig": {"url": f"{base}/convert", "caBundle": tls.ca_bundle},
                    "conversionReviewVersions": ["v1"],
                },
            },
            "seen": seen,
            "failing": failing,
        }


def test_read_in_another_version_is_converted_by_the_webhook(server: RunningServer, webhook) -> None:
    client = server.client()
    _install(client, _crd(webhook["conversion"]))
    _created(client, _crontab("nightly", ALPHA, size=3))
    got = client.request("GET", _path(V1, "nightly")).json()
    assert (got["apiVersion"], got["spec"]) == (V1, {"replicas": 3})
    assert webhook["seen"][-1]["request"]["desiredAPIVersion"] == V1


def test_list_converts_every_item_in_one_review(server: RunningServer, webhook) -> None:
    client = server.client()
    _install(client, _crd(webhook["conversion"]))
    for name in ("a", "b", "c"):
        _created(client, _crontab(name, ALPHA, size=1))
    before = len(webhook["seen"])
    listed = client.request("GET", _path(V1)).json()
    assert [(item["apiVersion"], item["spec"]) for item in listed["items"]] == [(V1, {"replicas": 1})] * 3
    assert len(webhook["seen"]) == before + 1
    assert len(webhook["seen"][-1]["request"]["objects"]) == 3


def test_write_in_another_version_is_stored_in_the_storage_version(server: RunningServer, webhook) -> None:
    client = server.client()
    _install(client, _crd(webhook["conversion"]))
    created = _created(client, _crontab("nightly", V1, replicas=2))
    assert (created["apiVersion"], created["spec"]) == (V1, {"replicas": 2})
    desired = [review["request"]["desiredAPIVersion"] for review in webhook["seen"]]
    assert desired == [ALPHA, V1]  # to the storage version, and back for the answer
    stored = _stored(server, "nightly")
    assert (stored["apiVersion"], stored["spec"]) == (ALPHA, {"size": 2})


def test_update_through_another_version_keeps_the_object(server: RunningServer, webhook) -> None:
    client = server.client()
    _install(client, _crd(webhook["conversion"]))
    _created(client, _crontab("nightly", ALPHA, size=1))
    current = client.request("GET", _path(V1, "nightly")).json()
    current["spec"]["replicas"] = 5
    response = client.request("PUT", _path(V1, "nightly"), body=current)
    assert response.status == 200, response.body
    assert client.request("GET", _path(ALPHA, "nightly")).json()["spec"] == {"size": 5}


def test_watch_in_another_version_sees_converted_objects(server: RunningServer, webhook) -> None:
    client = server.client()
    _install(client, _crd(webhook["conversion"]))
    _created(client, _crontab("nightly", ALPHA, size=4))
    stream = client.stream(_path(V1), params={"watch": "1", "resourceVersion": "0"})
    try:
        first = next(iter(stream))
    finally:
        stream.close()
    event = json.loads(first)
    assert event["type"] == "ADDED"
    assert (event["object"]["apiVersion"], event["object"]["spec"]) == (V1, {"replicas": 4})


def test_objects_of_an_earlier_storage_version_stay_readable(server: RunningServer, webhook) -> None:
    client = server.client()
    _install(client, _crd(webhook["conversion"]))
    _created(client, _crontab("old", ALPHA, size=1))
    crd = client.request("GET", f"{CRD_PATH}/{CRD_NAME}").json()
    for version in crd["spec"]["versions"]:
        version["storage"] = version["name"] == "v1"
    response = client.request("PUT", f"{CRD_PATH}/{CRD_NAME}", body=crd)
    assert response.status == 200, response.body
    assert response.json()["status"]["storedVersions"] == ["v1alpha1", "v1"]
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the new storage version is served once the CRD is synced again
        probe = _created(client, _crontab(f"probe-{time.monotonic_ns()}", ALPHA, size=0))
        if _stored(server, probe["metadata"]["name"])["apiVersion"] == V1:
            break
        time.sleep(0.05)
    _created(client, _crontab("new", V1, replicas=2))
    assert _stored(server, "old")["apiVersion"] == ALPHA
    for api_version, field in ((ALPHA, "size"), (V1, "replicas")):
        listed = client.request("GET", _path(api_version)).json()["items"]
        by_name = {item["metadata"]["name"]: item["spec"] for item in listed}
        assert by_name["old"] == {field: 1} and by_name["new"] == {field: 2}


def test_failing_webhook_is_a_500_with_its_message(server: RunningServer, webhook) -> None:
    client = server.client()
    _install(client, _crd(webhook["conversion"]))
    _created(client, _crontab("nightly", ALPHA, size=1))
    webhook["failing"].append("custom webhook conversion error")
    response = client.request("GET", _path(V1, "nightly"))
    assert response.status == 500
    body = response.json()
    assert body["message"] == (
        f"conversion for {ALPHA}, Kind=CronTab failed: conversion webhook for /, Kind= failed: "
        "custom webhook conversion error"
    )
    assert "reason" not in body
    assert client.request("GET", _path(ALPHA, "nightly")).status == 200  # the stored version needs no webhook


def test_none_strategy_stores_the_storage_version_and_serves_both(server: RunningServer) -> None:
    client = server.client()
    _install(client, _crd({"strategy": "None"}))
    created = _created(client, _crontab("plain", V1))
    assert created["apiVersion"] == V1
    assert _stored(server, "plain")["apiVersion"] == ALPHA
    got = client.request("GET", _path(ALPHA, "plain")).json()
    assert got["apiVersion"] == ALPHA and got["metadata"]["uid"] == created["metadata"]["uid"]


def test_service_reference_reaches_the_webhook_through_an_external_name_service(
    server: RunningServer, tmp_path
) -> None:
    client = server.client()
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "converter"},
        "spec": {"type": "ExternalName", "externalName": "localhost"},
    }
    assert client.request("POST", "/api/v1/namespaces/default/services", body=service).status == 201
    tls = issue_webhook_tls(tmp_path / "tls", ["converter.default.svc"])
    seen: list[Review] = []
    with threaded_https_webhook(conversion_handler(seen), tls, "/convert") as base:
        reference = {
            "namespace": "default",
            "name": "converter",
            "path": "/convert",
            "port": int(base.rsplit(":", 1)[1]),
        }
        conversion = {
            "strategy": "Webhook",
            "webhook": {
                "clientConfig": {"service": reference, "caBundle": tls.ca_bundle},
                "conversionReviewVersions": ["v1"],
            },
        }
        _install(client, _crd(conversion))
        _created(client, _crontab("nightly", ALPHA, size=3))
        got = client.request("GET", _path(V1, "nightly")).json()
    assert got["spec"] == {"replicas": 3} and len(seen) == 1


def test_service_reference_to_a_missing_service_is_a_500(server: RunningServer) -> None:
    client = server.client()
    reference = {"namespace": "default", "name": "absent", "path": "/convert"}
    conversion = {
        "strategy": "Webhook",
        "webhook": {"clientConfig": {"service": reference}, "conversionReviewVersions": ["v1"]},
    }
    _install(client, _crd(conversion))
    _created(client, _crontab("nightly", ALPHA, size=3))
    response = client.request("GET", _path(V1, "nightly"))
    assert response.status == 500
    assert response.json()["message"] == (
        f"conversion for {ALPHA}, Kind=CronTab failed: conversion webhook for /, Kind= failed: "
        'Post "https://absent.default.svc:443/convert?timeout=30s": service "absent" not found'
    )


def test_watch_ends_with_an_error_when_the_webhook_fails(server: RunningServer, webhook) -> None:
    client = server.client()
    _install(client, _crd(webhook["conversion"]))
    version = client.request("GET", _path(V1)).json()["metadata"]["resourceVersion"]
    stream = client.stream(_path(V1), params={"watch": "1", "resourceVersion": version})
    try:
        webhook["failing"].append("custom webhook conversion error")
        _created(client, _crontab("nightly", ALPHA, size=1))  # the storage version: no conversion to write
        event = json.loads(next(iter(stream)))
    finally:
        stream.close()
    assert event["type"] == "ERROR"
    assert event["object"]["code"] == 500
    assert event["object"]["message"].endswith("custom webhook conversion error")


def test_delete_answers_in_the_version_asked(server: RunningServer, webhook) -> None:
    client = server.client()
    _install(client, _crd(webhook["conversion"]))
    _created(client, _crontab("nightly", ALPHA, size=6))
    response = client.request("DELETE", _path(V1, "nightly"))
    assert response.status == 200, response.body
    assert (response.json()["apiVersion"], response.json()["spec"]) == (V1, {"replicas": 6})


@pytest.mark.kubectl
def test_kubectl_reads_each_version_through_the_webhook(server: RunningServer, webhook, kubectl_binary) -> None:
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    _install(server.client(), _crd(webhook["conversion"]))
    manifest = json.dumps(_crontab("nightly", ALPHA, size=3))
    assert (
        kubectl.run("apply", "-f", "-", stdin=manifest).stdout.strip() == "crontab.stable.example.com/nightly created"
    )
    as_v1 = kubectl.run("get", f"crontabs.v1.{GROUP}", "nightly", "-o", "jsonpath={.apiVersion} {.spec.replicas}")
    as_alpha = kubectl.run("get", f"crontabs.v1alpha1.{GROUP}", "nightly", "-o", "jsonpath={.apiVersion} {.spec.size}")
    assert (as_v1.stdout, as_alpha.stdout) == (f"{V1} 3", f"{ALPHA} 3")

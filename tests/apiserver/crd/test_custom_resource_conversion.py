"""A CRD converting by webhook: a real HTTPS webhook in the test converts between v1alpha1
(`spec.size`) and v1 (`spec.replicas`); objects are stored in the storage version and served in
each (issue 14, part 5)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from svc.testing.webhook_server import issue_webhook_tls, threaded_https_webhook
from tests.apiserver.crd.crds import install

ALPHA, V1 = "example.com/v1alpha1", "example.com/v1"
ALPHA_PATH = "/apis/example.com/v1alpha1/namespaces/default/widgets"
V1_PATH = "/apis/example.com/v1/namespaces/default/widgets"


def _convert(obj: dict[str, Any], desired: str) -> dict[str, Any]:
    spec = dict(obj.get("spec") or {})
    if obj["apiVersion"] == ALPHA and desired == V1 and "size" in spec:
        spec["replicas"] = spec.pop("size")
    elif obj["apiVersion"] == V1 and desired == ALPHA and "replicas" in spec:
        spec["size"] = spec.pop("replicas")
    return {**obj, "apiVersion": desired, "spec": spec}


def _handler(seen: list[dict[str, Any]]):
    async def handle(request: web.Request) -> web.Response:
        review = await request.json()
        seen.append(review)
        wanted = review["request"]["desiredAPIVersion"]
        response = {
            "uid": review["request"]["uid"],
            "convertedObjects": [_convert(obj, wanted) for obj in review["request"]["objects"]],
            "result": {"status": "Success"},
        }
        return web.json_response({"apiVersion": review["apiVersion"], "kind": "ConversionReview", "response": response})

    return handle


def _crd(url: str, ca_bundle: str) -> dict[str, Any]:
    schema = {
        "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [
                {"name": "v1alpha1", "served": True, "storage": False, "schema": schema},
                {"name": "v1", "served": True, "storage": True, "schema": schema},
            ],
            "conversion": {
                "strategy": "Webhook",
                "webhook": {
                    "conversionReviewVersions": ["v1"],
                    "clientConfig": {"url": url, "caBundle": ca_bundle},
                },
            },
        },
    }


@pytest.fixture
def converting(svc_server_factory, tmp_path: Path):
    tls = issue_webhook_tls(tmp_path / "tls", ["127.0.0.1"])
    seen: list[dict[str, Any]] = []
    with threaded_https_webhook(_handler(seen), tls, "/convert") as base:
        server = svc_server_factory("--brand-profile=kubernetes")
        client = server.client()
        install(client, _crd(f"{base}/convert", tls.ca_bundle))
        yield client, seen, server


def _widget(api_version: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": "Widget", "metadata": {"name": name}, "spec": spec}


def test_an_object_written_in_one_version_is_read_in_the_other(converting) -> None:
    client, seen, _ = converting
    created = client.request("POST", ALPHA_PATH, body=_widget(ALPHA, "a", {"size": 3}))
    assert created.status == 201, created.body
    assert created.json()["spec"] == {"size": 3}
    assert client.request("GET", f"{V1_PATH}/a").json()["spec"] == {"replicas": 3}
    assert client.request("GET", f"{ALPHA_PATH}/a").json()["apiVersion"] == ALPHA
    listed = client.request("GET", V1_PATH).json()
    assert [item["spec"] for item in listed["items"]] == [{"replicas": 3}]
    assert seen and seen[0]["request"]["desiredAPIVersion"] == V1


def test_objects_are_stored_in_the_storage_version(converting) -> None:
    client, _, server = converting
    client.request("POST", ALPHA_PATH, body=_widget(ALPHA, "a", {"size": 3}))
    key = server.server.options.store_prefix + "/example.com/widgets/default/a"
    stored = server.call(server.server.objects.get(key))
    assert stored["apiVersion"] == V1
    assert stored["spec"] == {"replicas": 3}


def test_a_patch_applies_in_the_version_it_is_sent_to(converting) -> None:
    client, _, _ = converting
    client.request("POST", V1_PATH, body=_widget(V1, "a", {"replicas": 1}))
    patched = client.request(
        "PATCH", f"{ALPHA_PATH}/a", body={"spec": {"size": 5}}, content_type="application/merge-patch+json"
    )
    assert patched.status == 200, patched.body
    assert patched.json()["spec"] == {"size": 5}
    assert client.request("GET", f"{V1_PATH}/a").json()["spec"] == {"replicas": 5}


def test_a_watch_sees_events_in_its_version(converting) -> None:
    client, _, _ = converting
    version = client.request("GET", ALPHA_PATH).json()["metadata"]["resourceVersion"]
    client.request("POST", V1_PATH, body=_widget(V1, "a", {"replicas": 2}))
    answer = client.request("GET", ALPHA_PATH, params={"watch": "1", "resourceVersion": version, "timeoutSeconds": "1"})
    events = [json.loads(line) for line in answer.body.splitlines() if line.strip()]
    assert [(e["type"], e["object"]["apiVersion"], e["object"]["spec"]) for e in events] == [
        ("ADDED", ALPHA, {"size": 2})
    ]


def test_an_unreachable_webhook_fails_the_write_with_a_500(svc_server_factory, tmp_path: Path) -> None:
    tls = issue_webhook_tls(tmp_path / "tls", ["127.0.0.1"])
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client, _crd("https://127.0.0.1:9/convert", tls.ca_bundle))
    answer = client.request("POST", ALPHA_PATH, body=_widget(ALPHA, "a", {"size": 3}))
    assert answer.status == 500
    assert answer.json()["message"].startswith("conversion for example.com/v1alpha1, Kind=Widget failed: ")
    assert client.request("GET", V1_PATH).json()["items"] == []

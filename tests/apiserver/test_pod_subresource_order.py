"""Writes through pods/ephemeralcontainers and pods/resize in upstream's order: decoding defaults the
request, mutating admission sees and changes the request's pod, and only then does the subresource's
strategy take from it what the subresource may change (PrepareForUpdate), bump the generation by
comparing defaulted specs, and validate."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from svc.testing.harness import RunningServer
from tests.apiserver.admission.webhook_fixtures import Webhook, hook, install, patch_response, scripted_webhook

PODS = "/api/v1/namespaces/default/pods"
MERGE = "application/strategic-merge-patch+json"


@pytest.fixture
def webhook(tmp_path) -> Iterator[Webhook]:
    with scripted_webhook(tmp_path / "webhook-tls") as running:
        yield running


def _pod(**spec) -> dict:
    resources = {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m", "memory": "64Mi"}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "app", "image": "i", "resources": resources}], **spec},
    }


def _create(server: RunningServer, pod: dict) -> None:
    assert server.client().request("POST", PODS, body=pod).status == 201


def _on_update_of(subresource: str, webhook: Webhook, path: str) -> dict:
    rule = {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["UPDATE"], "resources": [subresource]}
    return hook(f"{path}.example.com", webhook, path, rules=[rule])


def test_mutating_admission_sees_the_request_and_only_its_ephemeral_containers_are_kept(
    svc_server: RunningServer, webhook: Webhook
) -> None:
    webhook.answers["debug"] = lambda review: patch_response(
        [
            {"op": "replace", "path": "/spec/containers/0/image", "value": "from-webhook"},
            {"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}},
            {"op": "add", "path": "/spec/ephemeralContainers/0/env", "value": [{"name": "INJECTED", "value": "1"}]},
        ]
    )
    install(
        svc_server,
        "MutatingWebhookConfiguration",
        "debug",
        [_on_update_of("pods/ephemeralcontainers", webhook, "debug")],
    )
    _create(svc_server, _pod())
    api = svc_server.client()
    pod = api.request("GET", f"{PODS}/p").json()
    pod["spec"]["containers"][0]["image"] = "from-client"
    pod["spec"]["ephemeralContainers"] = [{"name": "debugger", "image": "busybox"}]
    answer = api.request("PUT", f"{PODS}/p/ephemeralcontainers", body=pod)
    assert answer.status == 200, answer.body
    (review,) = webhook.calls("debug")
    assert review["request"]["object"]["spec"]["containers"][0]["image"] == "from-client"
    stored = api.request("GET", f"{PODS}/p").json()
    assert stored["spec"]["containers"][0]["image"] == "i"
    assert "labels" not in stored["metadata"]
    assert stored["spec"]["ephemeralContainers"][0]["env"] == [{"name": "INJECTED", "value": "1"}]


def test_mutating_admission_on_a_resize_keeps_only_resources(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["resize"] = lambda review: patch_response(
        [
            {"op": "replace", "path": "/spec/containers/0/image", "value": "from-webhook"},
            {"op": "replace", "path": "/spec/containers/0/resources/requests/cpu", "value": "120m"},
        ]
    )
    install(svc_server, "MutatingWebhookConfiguration", "resize", [_on_update_of("pods/resize", webhook, "resize")])
    _create(svc_server, _pod())
    api = svc_server.client()
    patch = {"spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": "150m"}}}]}}
    answer = api.request("PATCH", f"{PODS}/p/resize", body=patch, content_type=MERGE)
    assert answer.status == 200, answer.body
    container = api.request("GET", f"{PODS}/p").json()["spec"]["containers"][0]
    assert (container["image"], container["resources"]["requests"]["cpu"]) == ("i", "120m")


def test_resending_undefaulted_ephemeral_containers_leaves_the_generation(svc_server: RunningServer) -> None:
    _create(svc_server, _pod())
    api = svc_server.client()
    debugger = {"name": "debugger", "image": "busybox"}
    pod = api.request("GET", f"{PODS}/p").json()
    pod["spec"]["ephemeralContainers"] = [debugger]
    assert api.request("PUT", f"{PODS}/p/ephemeralcontainers", body=pod).status == 200
    pod = api.request("GET", f"{PODS}/p").json()
    assert pod["metadata"]["generation"] == 2
    assert pod["spec"]["ephemeralContainers"][0] != debugger  # stored with its defaults
    pod["spec"]["ephemeralContainers"] = [debugger]
    answer = api.request("PUT", f"{PODS}/p/ephemeralcontainers", body=pod)
    assert answer.status == 200, answer.body
    assert api.request("GET", f"{PODS}/p").json()["metadata"]["generation"] == 2


_POD_LEVEL = {"requests": {"cpu": "300m", "memory": "128Mi"}, "limits": {"cpu": "400m", "memory": "128Mi"}}


def _resize_pod_level(api, resources: dict):
    return api.request("PATCH", f"{PODS}/p/resize", body={"spec": {"resources": resources}}, content_type=MERGE)


def test_a_resize_changes_pod_level_resources(svc_server: RunningServer) -> None:
    _create(svc_server, _pod(resources=_POD_LEVEL))
    api = svc_server.client()
    answer = _resize_pod_level(api, {"requests": {"cpu": "350m"}})
    assert answer.status == 200, answer.body
    pod = api.request("GET", f"{PODS}/p").json()
    assert pod["spec"]["resources"]["requests"] == {"cpu": "350m", "memory": "128Mi"}
    assert pod["metadata"]["generation"] == 2


def test_a_resize_cannot_remove_a_pod_level_limit(svc_server: RunningServer) -> None:
    _create(svc_server, _pod(resources=_POD_LEVEL))
    patch = [{"op": "remove", "path": "/spec/resources/limits/cpu"}]
    api = svc_server.client()
    answer = api.request("PATCH", f"{PODS}/p/resize", body=patch, content_type="application/json-patch+json")
    assert answer.status == 422
    causes = [(c["field"], c["message"]) for c in answer.json()["details"]["causes"]]
    assert ("spec.resources.limits", "Forbidden: pod-level resource limits cannot be removed") in causes


def test_a_resize_below_what_the_containers_request_is_refused(svc_server: RunningServer) -> None:
    _create(svc_server, _pod(resources=_POD_LEVEL))
    answer = _resize_pod_level(svc_server.client(), {"requests": {"cpu": "50m"}})
    assert answer.status == 422
    (cause,) = answer.json()["details"]["causes"]
    assert cause["field"] == "spec.resources.requests[cpu]"
    assert "must be greater than or equal to aggregate container requests of 100m" in cause["message"]


def test_without_the_gate_a_pod_with_pod_level_resources_cannot_be_resized(svc_server_factory) -> None:
    flags = ("--brand-profile=kubernetes", "--feature-gates=InPlacePodLevelResourcesVerticalScaling=false")
    server = svc_server_factory(*flags)
    _create(server, _pod(resources=_POD_LEVEL))
    api = server.client()
    answer = _resize_pod_level(api, {"requests": {"cpu": "350m"}})
    assert answer.status == 422
    assert answer.json()["message"] == (
        'Pod "p" is invalid: []: Forbidden: resize of pods with pod-level resources is forbidden when '
        "InPlacePodLevelResourcesVerticalScalingEnabled feature gate is disabled"
    )
    assert api.request("GET", f"{PODS}/p").json()["spec"]["resources"]["requests"]["cpu"] == "300m"


def test_pod_level_resources_decide_the_qos_class(svc_server: RunningServer) -> None:
    guaranteed = {"requests": {"cpu": "300m", "memory": "128Mi"}, "limits": {"cpu": "300m", "memory": "128Mi"}}
    pod = _pod(resources=guaranteed)
    pod["spec"]["containers"][0].pop("resources")
    _create(svc_server, pod)
    assert svc_server.client().request("GET", f"{PODS}/p").json()["status"]["qosClass"] == "Guaranteed"


def test_a_pod_level_resize_that_changes_the_qos_class_is_refused(svc_server: RunningServer) -> None:
    _create(svc_server, _pod(resources=_POD_LEVEL))
    answer = _resize_pod_level(svc_server.client(), {"requests": {"cpu": "400m"}})
    assert answer.status == 422
    assert answer.json()["message"] == (
        'Pod "p" is invalid: spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing'
    )


def test_a_webhook_change_to_the_spec_through_status_is_dropped(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["status"] = lambda review: patch_response(
        [
            {"op": "replace", "path": "/spec/containers/0/image", "value": "from-webhook"},
            {"op": "add", "path": "/status/message", "value": "from-webhook"},
        ]
    )
    install(svc_server, "MutatingWebhookConfiguration", "status", [_on_update_of("pods/status", webhook, "status")])
    _create(svc_server, _pod())
    api = svc_server.client()
    answer = api.request("PATCH", f"{PODS}/p/status", body={"status": {"reason": "r"}}, content_type=MERGE)
    assert answer.status == 200, answer.body
    pod = api.request("GET", f"{PODS}/p").json()
    assert pod["spec"]["containers"][0]["image"] == "i"
    assert (pod["status"]["reason"], pod["status"]["message"]) == ("r", "from-webhook")

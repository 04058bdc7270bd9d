"""pods/ephemeralcontainers and pods/resize change only their part of a pod (issue 12 part 5)."""

from __future__ import annotations

import pytest

PODS = "/api/v1/namespaces/default/pods"
MERGE = "application/merge-patch+json"


@pytest.fixture
def api(svc_server):
    client = svc_server.client()
    resources = {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m", "memory": "64Mi"}}
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "app", "image": "i", "resources": resources}]},
    }
    assert client.request("POST", PODS, body=body).status == 201
    return client


def _debugger(name: str = "debugger", **extra) -> dict:
    return {"name": name, "image": "busybox", **extra}


def _add_ephemeral(api, *containers):
    pod = api.request("GET", f"{PODS}/p/ephemeralcontainers").json()
    pod["spec"]["ephemeralContainers"] = list(containers)
    return api.request("PUT", f"{PODS}/p/ephemeralcontainers", body=pod)


def test_an_ephemeral_container_is_added_and_nothing_else_changes(api) -> None:
    pod = api.request("GET", f"{PODS}/p").json()
    pod["spec"]["ephemeralContainers"] = [_debugger()]
    pod["spec"]["containers"][0]["image"] = "changed"
    answer = api.request("PUT", f"{PODS}/p/ephemeralcontainers", body=pod)
    assert answer.status == 200, answer.body
    stored = api.request("GET", f"{PODS}/p").json()
    assert [c["name"] for c in stored["spec"]["ephemeralContainers"]] == ["debugger"]
    assert stored["spec"]["containers"][0]["image"] == "i"


def test_adding_an_ephemeral_container_bumps_the_generation_and_an_unchanged_write_does_not(api) -> None:
    assert api.request("GET", f"{PODS}/p").json()["metadata"]["generation"] == 1
    assert _add_ephemeral(api, _debugger()).status == 200
    pod = api.request("GET", f"{PODS}/p").json()
    assert pod["metadata"]["generation"] == 2
    assert api.request("PUT", f"{PODS}/p/ephemeralcontainers", body=pod).status == 200
    assert api.request("GET", f"{PODS}/p").json()["metadata"]["generation"] == 2


def test_an_ephemeral_container_cannot_be_removed(api) -> None:
    assert _add_ephemeral(api, _debugger()).status == 200
    answer = _add_ephemeral(api)
    assert answer.status == 422
    assert answer.json()["message"] == (
        'Pod "p" is invalid: spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" '
        "may not be removed\n"
    )


def test_an_ephemeral_container_cannot_be_changed(api) -> None:
    assert _add_ephemeral(api, _debugger()).status == 200
    answer = _add_ephemeral(api, _debugger(image="alpine"))
    assert answer.status == 422
    message = answer.json()["message"]
    assert 'existing ephemeral containers "debugger" may not be changed\n@@ -' in message
    assert '+ "Image": "alpine",' in message


@pytest.mark.parametrize(
    ("container", "field", "reason"),
    [
        (_debugger("app"), "spec.ephemeralContainers[0].name", "FieldValueDuplicate"),
        ({"name": "x"}, "spec.ephemeralContainers[0].image", "FieldValueRequired"),
        (_debugger(ports=[{"containerPort": 80}]), "spec.ephemeralContainers[0].ports", "FieldValueForbidden"),
        (
            _debugger(targetContainerName="nope"),
            "spec.ephemeralContainers[0].targetContainerName",
            "FieldValueNotFound",
        ),
    ],
)
def test_invalid_ephemeral_containers_are_refused(api, container, field, reason) -> None:
    answer = _add_ephemeral(api, container)
    assert answer.status == 422
    assert [(c["field"], c["reason"]) for c in answer.json()["details"]["causes"]] == [(field, reason)]
    assert "ephemeralContainers" not in api.request("GET", f"{PODS}/p").json()["spec"]


def test_a_disabled_feature_field_is_dropped_before_the_ephemeral_container_is_judged(api) -> None:
    # ContainerStopSignals is off by default: upstream drops `lifecycle.stopSignal` (and the emptied
    # `lifecycle`) before validation, so the container is not refused for setting `lifecycle`.
    answer = _add_ephemeral(api, _debugger(lifecycle={"stopSignal": "SIGTERM"}))
    assert answer.status == 200, answer.body
    (stored,) = api.request("GET", f"{PODS}/p").json()["spec"]["ephemeralContainers"]
    assert "lifecycle" not in stored


def _resize(api, resources: dict):
    patch = {"spec": {"containers": [{"name": "app", "resources": resources}]}}
    return api.request("PATCH", f"{PODS}/p/resize", body=patch, content_type="application/strategic-merge-patch+json")


def test_resize_changes_resources_only(api) -> None:
    answer = _resize(api, {"requests": {"cpu": "150m"}})
    assert answer.status == 200, answer.body
    container = api.request("GET", f"{PODS}/p").json()["spec"]["containers"][0]
    assert container["resources"]["requests"] == {"cpu": "150m", "memory": "64Mi"}
    assert container["resources"]["limits"] == {"cpu": "200m", "memory": "64Mi"}


def test_resize_that_changes_the_qos_class_is_refused(api) -> None:
    answer = _resize(api, {"requests": {"cpu": "200m", "memory": "64Mi"}})
    assert answer.status == 422
    assert answer.json()["message"] == (
        'Pod "p" is invalid: spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing'
    )


def test_resize_cannot_remove_a_limit(api) -> None:
    patch = [{"op": "remove", "path": "/spec/containers/0/resources/limits/memory"}]
    answer = api.request("PATCH", f"{PODS}/p/resize", body=patch, content_type="application/json-patch+json")
    assert answer.status == 422
    assert "resource limits cannot be removed" in answer.json()["message"]


def _entry(pod: dict, manager: str) -> dict:
    (entry,) = [e for e in pod["metadata"]["managedFields"] if e["manager"] == manager]
    return entry


def test_an_update_through_ephemeralcontainers_owns_only_the_ephemeral_containers(api) -> None:
    pod = api.request("GET", f"{PODS}/p").json()
    pod["spec"]["ephemeralContainers"] = [_debugger()]
    pod["spec"]["containers"][0]["image"] = "changed"
    pod["metadata"]["labels"] = {"debugged": "yes"}
    answer = api.request("PUT", f"{PODS}/p/ephemeralcontainers?fieldManager=debug", body=pod)
    assert answer.status == 200, answer.body
    stored = api.request("GET", f"{PODS}/p").json()
    assert "labels" not in stored["metadata"]
    entry = _entry(stored, "debug")
    assert (entry["operation"], entry["subresource"]) == ("Update", "ephemeralcontainers")
    assert list(entry["fieldsV1"]) == ["f:spec"]
    assert list(entry["fieldsV1"]["f:spec"]) == ["f:ephemeralContainers"]
    assert 'k:{"name":"debugger"}' in entry["fieldsV1"]["f:spec"]["f:ephemeralContainers"]


def test_an_apply_through_ephemeralcontainers_neither_conflicts_over_nor_changes_other_fields(api) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "labels": {"debugged": "yes"}},
        "spec": {"containers": [{"name": "app", "image": "changed"}], "ephemeralContainers": [_debugger()]},
    }
    answer = api.request(
        "PATCH",
        f"{PODS}/p/ephemeralcontainers?fieldManager=debug",
        body=config,
        content_type="application/apply-patch+yaml",
    )
    assert answer.status == 200, answer.body
    stored = api.request("GET", f"{PODS}/p").json()
    assert stored["spec"]["containers"][0]["image"] == "i"
    assert "labels" not in stored["metadata"]
    entry = _entry(stored, "debug")
    assert (entry["operation"], entry["subresource"]) == ("Apply", "ephemeralcontainers")
    assert entry["fieldsV1"] == {
        "f:spec": {"f:ephemeralContainers": {'k:{"name":"debugger"}': {".": {}, "f:image": {}, "f:name": {}}}}
    }


def test_a_resize_owns_only_the_resources_it_changed(api) -> None:
    patch = {
        "metadata": {"labels": {"resized": "yes"}},
        "spec": {"containers": [{"name": "app", "image": "changed", "resources": {"requests": {"cpu": "150m"}}}]},
    }
    answer = api.request(
        "PATCH",
        f"{PODS}/p/resize?fieldManager=resizer",
        body=patch,
        content_type="application/strategic-merge-patch+json",
    )
    assert answer.status == 200, answer.body
    stored = api.request("GET", f"{PODS}/p").json()
    assert stored["spec"]["containers"][0]["image"] == "i"
    assert "labels" not in stored["metadata"]
    entry = _entry(stored, "resizer")
    assert entry["subresource"] == "resize"
    assert entry["fieldsV1"] == {
        "f:spec": {"f:containers": {'k:{"name":"app"}': {"f:resources": {"f:requests": {"f:cpu": {}}}}}}
    }

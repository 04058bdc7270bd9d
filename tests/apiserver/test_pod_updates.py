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
        (
            # judged with the whole pod: the mount must name one of its volumes
            _debugger(volumeMounts=[{"name": "data", "mountPath": "/data"}]),
            "spec.ephemeralContainers[0].volumeMounts[0].name",
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


def _resize(api, resources: dict, pod: str = "p"):
    return _patch_resize(api, pod, {"spec": {"containers": [{"name": "app", "resources": resources}]}})


def _patch_resize(api, pod: str, patch: dict):
    return api.request(
        "PATCH", f"{PODS}/{pod}/resize", body=patch, content_type="application/strategic-merge-patch+json"
    )


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


def _pod(name: str, *, annotations: dict | None = None, **spec) -> dict:
    resources = {"requests": {"cpu": "100m"}, "limits": {"cpu": "200m", "memory": "64Mi"}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "annotations": annotations or {}},
        "spec": {"containers": [{"name": "app", "image": "i", "resources": resources}], **spec},
    }


# The svc profile spells upstream's `kubernetes.io/config.mirror` in its own label domain.
STATIC = {"svc.io/config.mirror": "hash"}


def _forbidden(answer) -> list[tuple[str, str]]:
    """The fields and details of the Forbidden causes of a 422."""
    assert answer.status == 422, answer.body
    causes = answer.json()["details"]["causes"]
    assert {c["reason"] for c in causes} == {"FieldValueForbidden"}
    return [(c["field"], c["message"].removeprefix("Forbidden: ")) for c in causes]


def test_a_static_pod_cannot_be_resized(api) -> None:
    assert api.request("POST", PODS, body=_pod("static", annotations=STATIC, nodeName="n1")).status == 201
    answer = _resize(api, {"requests": {"cpu": "150m"}}, pod="static")
    assert _forbidden(answer) == [("[]", "static pods cannot be resized")]
    assert answer.json()["message"] == 'Pod "static" is invalid: []: Forbidden: static pods cannot be resized'


def test_a_windows_pod_cannot_be_resized(api) -> None:
    assert api.request("POST", PODS, body=_pod("win", os={"name": "windows"})).status == 201
    answer = _resize(api, {"requests": {"cpu": "150m"}}, pod="win")
    assert _forbidden(answer) == [("[]", "windows pods cannot be resized")]


def test_a_resize_may_not_change_a_resource_other_than_cpu_and_memory(api) -> None:
    answer = _resize(api, {"limits": {"ephemeral-storage": "1Gi"}})
    assert _forbidden(answer) == [("spec", "only cpu and memory resources are mutable")]
    (container,) = api.request("GET", f"{PODS}/p").json()["spec"]["containers"]
    assert "ephemeral-storage" not in container["resources"]["limits"]


def test_a_resize_may_not_change_the_resize_policy(api) -> None:
    policy = [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]
    answer = _patch_resize(api, "p", {"spec": {"containers": [{"name": "app", "resizePolicy": policy}]}})
    assert _forbidden(answer) == [("spec", "only cpu and memory resources are mutable")]


def test_an_init_container_resize_may_not_change_a_resource_other_than_cpu_and_memory(api) -> None:
    sidecar = {"name": "side", "image": "i", "restartPolicy": "Always", "resources": {"limits": {"memory": "64Mi"}}}
    # InPlacePodVerticalScalingInitContainers (beta, on) resizes other init containers as sidecars.
    assert api.request("POST", PODS, body=_pod("sc", initContainers=[sidecar])).status == 201
    resources = {"limits": {"memory": "64Mi", "ephemeral-storage": "1Gi"}}
    patch = {"spec": {"initContainers": [{"name": "side", "resources": resources}]}}
    answer = _patch_resize(api, "sc", patch)
    message = "only cpu and memory resources for init or sidecar containers are mutable"
    assert _forbidden(answer) == [("spec.initContainers[0]", message)]


def test_a_memory_limit_may_be_decreased(api) -> None:
    # Upstream refused it under the NotRequired restart policy in 1.33 only (allowed again since 1.34).
    answer = _resize(api, {"requests": {"memory": "32Mi"}, "limits": {"cpu": "200m", "memory": "32Mi"}})
    assert answer.status == 200, answer.body
    assert api.request("GET", f"{PODS}/p").json()["spec"]["containers"][0]["resources"]["limits"]["memory"] == "32Mi"


def test_a_static_pod_takes_no_ephemeral_container(api) -> None:
    assert api.request("POST", PODS, body=_pod("static", annotations=STATIC, nodeName="n1")).status == 201
    pod = api.request("GET", f"{PODS}/static/ephemeralcontainers").json()
    pod["spec"]["ephemeralContainers"] = [_debugger(ports=[{"containerPort": 80}])]
    answer = api.request("PUT", f"{PODS}/static/ephemeralcontainers", body=pod)
    assert _forbidden(answer) == [("[]", "static pods do not support ephemeral containers")]
    assert "ephemeralContainers" not in api.request("GET", f"{PODS}/static").json()["spec"]


def test_a_non_sidecar_init_container_with_a_restart_policy_of_restart_container_cannot_be_resized(api) -> None:
    policy = [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]
    init = {"name": "setup", "image": "i", "resizePolicy": policy, "resources": {"limits": {"memory": "64Mi"}}}
    assert api.request("POST", PODS, body=_pod("ic", initContainers=[init])).status == 201
    patch = {"spec": {"initContainers": [{"name": "setup", "resources": {"limits": {"memory": "128Mi"}}}]}}
    detail = "non-sidecar init containers with a resize policy of RestartContainer cannot be resized"
    assert _forbidden(_patch_resize(api, "ic", patch)) == [("spec.initContainers[0]", detail)]


def test_a_resize_is_validated_as_the_whole_pod(api) -> None:
    answer = _resize(api, {"requests": {"cpu": "300m"}})
    assert answer.status == 422
    (cause,) = answer.json()["details"]["causes"]
    assert (cause["field"], cause["reason"]) == ("spec.containers[0].resources.requests", "FieldValueInvalid")
    assert cause["message"] == 'Invalid value: "300m": must be less than or equal to cpu limit of 200m'


def test_an_ephemeral_container_may_not_mount_a_subpath(api) -> None:
    mount = {"name": "data", "mountPath": "/data", "subPath": "x"}
    answer = _add_ephemeral(api, _debugger(volumeMounts=[mount]))
    assert answer.status == 422
    assert [(c["field"], c["reason"]) for c in answer.json()["details"]["causes"]] == [
        ("spec.ephemeralContainers[0].volumeMounts[0].name", "FieldValueNotFound"),
        ("spec.ephemeralContainers[0].volumeMounts[0].subPath", "FieldValueForbidden"),
    ]


def test_without_the_gate_a_non_sidecar_init_container_is_not_resized(svc_server_factory) -> None:
    server = svc_server_factory("--feature-gates=InPlacePodVerticalScalingInitContainers=false")
    api = server.client()
    init = {"name": "setup", "image": "i", "resources": {"limits": {"memory": "64Mi"}}}
    assert api.request("POST", PODS, body=_pod("ic", initContainers=[init])).status == 201
    patch = {"spec": {"initContainers": [{"name": "setup", "resources": {"limits": {"memory": "128Mi"}}}]}}
    detail = "resources for non-sidecar init containers are immutable"
    assert _forbidden(_patch_resize(api, "ic", patch)) == [("spec", detail)]


def _report_running(api, name: str, **reported) -> None:
    """The pod's kubelet reports its container running, with what else `reported` holds."""
    live = api.request("GET", f"{PODS}/{name}").json()
    live["status"] = {
        "phase": "Running",
        "containerStatuses": [
            {
                "name": "app",
                "image": "i",
                "imageID": "",
                "ready": True,
                "restartCount": 0,
                "state": {"running": {"startedAt": "2026-11-26T00:00:00Z"}},
                **reported,
            }
        ],
    }
    assert api.request("PUT", f"{PODS}/{name}/status", body=live).status == 200


def test_a_pod_whose_kubelet_reports_no_container_resources_cannot_be_resized(api) -> None:
    # Upstream's version-skew check: such a kubelet does not resize in place.
    assert api.request("POST", PODS, body=_pod("old-node", nodeName="n1")).status == 201
    _report_running(api, "old-node")
    answer = _resize(api, {"requests": {"cpu": "150m"}}, pod="old-node")
    assert _forbidden(answer) == [("spec", "Pod running on node without support for resize")]

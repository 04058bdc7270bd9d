"""pods/binding, bindings and pods/eviction: what the API server does itself (issue 12 part 5)."""

from __future__ import annotations

import pytest

PODS = "/api/v1/namespaces/default/pods"
BUDGETS = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def _pod(api, name: str, *, labels=None, phase: str = "", ready: bool = True) -> dict:
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels or {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    created = api.request("POST", PODS, body=body)
    assert created.status == 201, created.body
    if phase:
        conditions = [{"type": "Ready", "status": "True" if ready else "False"}]
        patch = {"status": {"phase": phase, "conditions": conditions}}
        api.request("PATCH", f"{PODS}/{name}/status", body=patch, content_type="application/merge-patch+json")
    return api.request("GET", f"{PODS}/{name}").json()


def _binding(name: str, node: str = "n1", **target) -> dict:
    return {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": name}, "target": {"name": node, **target}}


def test_binding_sets_the_node_and_the_scheduled_condition(api) -> None:
    _pod(api, "p")
    answer = api.request("POST", f"{PODS}/p/binding", body=_binding("p"))
    assert (answer.status, answer.json()) == (201, SUCCESS)
    pod = api.request("GET", f"{PODS}/p").json()
    assert pod["spec"]["nodeName"] == "n1"
    assert [(c["type"], c["status"]) for c in pod["status"]["conditions"]] == [("PodScheduled", "True")]


def test_the_bindings_collection_binds_by_the_body_name(api) -> None:
    _pod(api, "p")
    answer = api.request("POST", "/api/v1/namespaces/default/bindings", body=_binding("p", "n2"))
    assert answer.status == 201
    assert api.request("GET", f"{PODS}/p").json()["spec"]["nodeName"] == "n2"


def test_a_bound_pod_cannot_be_bound_again(api) -> None:
    _pod(api, "p")
    api.request("POST", f"{PODS}/p/binding", body=_binding("p"))
    again = api.request("POST", f"{PODS}/p/binding", body=_binding("p", "n2"))
    assert again.status == 409
    assert again.json()["message"] == (
        'Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"'
    )


def test_a_binding_with_a_stale_uid_is_a_conflict(api) -> None:
    _pod(api, "p")
    body = _binding("p")
    body["metadata"]["uid"] = "other"
    answer = api.request("POST", f"{PODS}/p/binding", body=body)
    assert answer.status == 409
    assert "Precondition failed: UID in precondition: other" in answer.json()["message"]


def test_an_invalid_binding_is_422_and_binds_nothing(api) -> None:
    _pod(api, "p")
    answer = api.request("POST", f"{PODS}/p/binding", body=_binding("p", "", kind="Pod"))
    assert answer.status == 422
    causes = {(c["field"], c["reason"]) for c in answer.json()["details"]["causes"]}
    assert causes == {("target.kind", "FieldValueNotSupported"), ("target.name", "FieldValueRequired")}
    assert "nodeName" not in api.request("GET", f"{PODS}/p").json()["spec"]


def test_a_binding_named_otherwise_than_the_url_is_a_bad_request(api) -> None:
    _pod(api, "p")
    answer = api.request("POST", f"{PODS}/p/binding", body=_binding("q"))
    assert answer.status == 400
    assert answer.json()["message"] == "name in URL does not match name in Binding object"


def test_a_dry_run_binding_binds_nothing(api) -> None:
    _pod(api, "p")
    answer = api.request("POST", f"{PODS}/p/binding", body=_binding("p"), params={"dryRun": "All"})
    assert answer.status == 201
    assert "nodeName" not in api.request("GET", f"{PODS}/p").json()["spec"]


def _eviction(name: str) -> dict:
    return {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}}


def _budget(api, name: str = "web", *, allowed: int | None = None, observed: bool = True) -> None:
    body = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": name},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
    }
    created = api.request("POST", BUDGETS, body=body)
    assert created.status == 201, created.body
    if allowed is not None:
        state = {
            "observedGeneration": 1 if observed else 0,
            "disruptionsAllowed": allowed,
            "currentHealthy": 1 + allowed,
            "desiredHealthy": 1,
            "expectedPods": 1 + allowed,
        }
        patch = {"status": state}
        answer = api.request(
            "PATCH", f"{BUDGETS}/{name}/status", body=patch, content_type="application/merge-patch+json"
        )
        assert answer.status == 200, answer.body


def test_eviction_without_a_budget_deletes_the_pod(api) -> None:
    _pod(api, "p", phase="Running")
    answer = api.request("POST", f"{PODS}/p/eviction", body=_eviction("p"))
    assert (answer.status, answer.json()) == (201, SUCCESS)
    assert api.request("GET", f"{PODS}/p").status == 404


def test_eviction_a_budget_forbids_is_429_with_the_budget_named(api) -> None:
    _pod(api, "p", phase="Running")
    _budget(api, allowed=0)
    answer = api.request("POST", f"{PODS}/p/eviction", body=_eviction("p"))
    assert answer.status == 429
    body = answer.json()
    assert body["reason"] == "TooManyRequests"
    assert body["message"] == "Cannot evict pod as it would violate the pod's disruption budget."
    assert body["details"]["causes"] == [
        {"reason": "DisruptionBudget", "message": "The disruption budget web needs 1 healthy pods and has 1 currently"}
    ]
    assert api.request("GET", f"{PODS}/p").status == 200


def test_eviction_waits_for_the_budget_to_be_observed(api) -> None:
    _pod(api, "p", phase="Running")
    _budget(api)
    answer = api.request("POST", f"{PODS}/p/eviction", body=_eviction("p"))
    assert answer.status == 429
    assert answer.json()["details"]["causes"][0]["message"] == (
        "The disruption budget web is still being processed by the server."
    )


def test_eviction_takes_one_disruption_from_the_budget(api) -> None:
    _pod(api, "p", phase="Running")
    _budget(api, allowed=1)
    assert api.request("POST", f"{PODS}/p/eviction", body=_eviction("p")).status == 201
    assert api.request("GET", f"{PODS}/p").status == 404
    state = api.request("GET", f"{BUDGETS}/web").json()["status"]
    assert state["disruptionsAllowed"] == 0
    assert list(state["disruptedPods"]) == ["p"]
    assert [(c["type"], c["status"], c["reason"]) for c in state["conditions"]] == [
        ("DisruptionAllowed", "False", "InsufficientPods")
    ]


def test_a_pending_pod_is_evicted_whatever_the_budget(api) -> None:
    _pod(api, "p")
    _budget(api, allowed=0)
    assert api.request("POST", f"{PODS}/p/eviction", body=_eviction("p")).status == 201
    assert api.request("GET", f"{PODS}/p").status == 404


def test_an_unready_pod_is_evicted_when_the_budget_is_healthy(api) -> None:
    _pod(api, "p", phase="Running", ready=False)
    _budget(api, allowed=0)
    assert api.request("POST", f"{PODS}/p/eviction", body=_eviction("p")).status == 201
    assert api.request("GET", f"{BUDGETS}/web").json()["status"]["disruptionsAllowed"] == 0


def test_two_budgets_over_one_pod_are_refused(api) -> None:
    _pod(api, "p", phase="Running")
    _budget(api, "one", allowed=1)
    _budget(api, "two", allowed=1)
    answer = api.request("POST", f"{PODS}/p/eviction", body=_eviction("p"))
    assert answer.status == 500
    assert answer.json()["message"] == (
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
    )
    assert api.request("GET", f"{PODS}/p").status == 200


def test_evicting_a_missing_pod_is_404(api) -> None:
    assert api.request("POST", f"{PODS}/nobody/eviction", body=_eviction("nobody")).status == 404


def test_a_dry_run_eviction_deletes_nothing(api) -> None:
    _pod(api, "p", phase="Running")
    _budget(api, allowed=1)
    answer = api.request("POST", f"{PODS}/p/eviction", body=_eviction("p"), params={"dryRun": "All"})
    assert answer.status == 201
    assert api.request("GET", f"{PODS}/p").status == 200
    assert api.request("GET", f"{BUDGETS}/web").json()["status"]["disruptionsAllowed"] == 1


def _held_pod(api, name: str) -> dict:
    """A running pod a finalizer keeps after its deletion, so what an eviction wrote can be read."""
    pod = _pod(api, name, phase="Running")
    patch = {"metadata": {"finalizers": ["example.com/hold"]}}
    answer = api.request("PATCH", f"{PODS}/{name}", body=patch, content_type="application/merge-patch+json")
    assert answer.status == 200, answer.body
    return {**pod, **answer.json()}


def _disruption_target(pod: dict) -> dict | None:
    return next((c for c in pod["status"].get("conditions") or [] if c["type"] == "DisruptionTarget"), None)


def test_an_evicted_pod_is_marked_as_a_disruption_target_before_it_is_deleted(api) -> None:
    _held_pod(api, "p")
    assert api.request("POST", f"{PODS}/p/eviction", body=_eviction("p")).status == 201
    pod = api.request("GET", f"{PODS}/p").json()
    assert pod["metadata"]["deletionTimestamp"]
    condition = _disruption_target(pod)
    assert condition is not None and condition["lastTransitionTime"]
    assert {k: condition[k] for k in ("status", "reason", "message")} == {
        "status": "True",
        "reason": "EvictionByEvictionAPI",
        "message": "Eviction API: evicting",
    }


def test_an_eviction_over_a_true_disruption_target_keeps_its_transition_time_and_clears_its_probe_time(api) -> None:
    """As upstream's UpdatePodCondition: the condition is replaced whole, its transition time kept
    while its status stays True."""
    _held_pod(api, "p")
    old = {
        "type": "DisruptionTarget",
        "status": "True",
        "reason": "PreemptionByScheduler",
        "lastTransitionTime": "2026-01-02T03:04:05Z",
        "lastProbeTime": "2026-01-02T03:04:06Z",
    }
    patch = {"status": {"conditions": [old]}}
    marked = api.request("PATCH", f"{PODS}/p/status", body=patch, content_type="application/strategic-merge-patch+json")
    assert marked.status == 200, marked.body
    assert api.request("POST", f"{PODS}/p/eviction", body=_eviction("p")).status == 201
    condition = _disruption_target(api.request("GET", f"{PODS}/p").json())
    assert condition is not None and condition["reason"] == "EvictionByEvictionAPI"
    assert condition["lastTransitionTime"] == "2026-01-02T03:04:05Z"
    assert condition.get("lastProbeTime") is None


def test_a_dry_run_eviction_marks_nothing(api) -> None:
    _held_pod(api, "p")
    assert api.request("POST", f"{PODS}/p/eviction", body=_eviction("p"), params={"dryRun": "All"}).status == 201
    assert _disruption_target(api.request("GET", f"{PODS}/p").json()) is None


def test_a_resource_version_precondition_that_held_still_deletes_the_pod_after_the_condition_is_written(api) -> None:
    version = _pod(api, "p", phase="Running")["metadata"]["resourceVersion"]
    body = {**_eviction("p"), "deleteOptions": {"preconditions": {"resourceVersion": version}}}
    assert api.request("POST", f"{PODS}/p/eviction", body=body).status == 201
    assert api.request("GET", f"{PODS}/p").status == 404


def test_a_stale_resource_version_precondition_is_a_conflict_and_marks_nothing(api) -> None:
    _held_pod(api, "p")
    body = {**_eviction("p"), "deleteOptions": {"preconditions": {"resourceVersion": "1"}}}
    answer = api.request("POST", f"{PODS}/p/eviction", body=body)
    assert answer.status == 409, answer.body
    pod = api.request("GET", f"{PODS}/p").json()
    assert _disruption_target(pod) is None and "deletionTimestamp" not in pod["metadata"]

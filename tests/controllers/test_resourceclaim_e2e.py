"""The resourceclaim controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

RESOURCE = "/apis/resource.svc/v1/namespaces/default"


def test_a_pods_claim_template_becomes_a_claim_named_in_the_pod_status(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    requests = [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]
    template = {"metadata": {"name": "one-gpu"}, "spec": {"spec": {"devices": {"requests": requests}}}}
    created = rest.request("POST", f"{RESOURCE}/resourceclaimtemplates", body=template)
    assert created.status == 201, created.json()
    spec = {
        "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu"}]}}],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one-gpu"}],
    }
    created = rest.request(
        "POST", "/api/v1/namespaces/default/pods", body={"metadata": {"name": "trainer"}, "spec": spec}
    )
    assert created.status == 201, created.json()
    svc_controller_manager(svc_server, "--controllers=resourceclaim")

    def statuses() -> list:
        return (
            rest.request("GET", "/api/v1/namespaces/default/pods/trainer").json()["status"].get("resourceClaimStatuses")
            or []
        )

    assert wait_for(statuses, timeout=15), statuses()
    (status,) = statuses()
    claim = rest.request("GET", f"{RESOURCE}/resourceclaims/{status['resourceClaimName']}").json()
    assert status["name"] == "gpu" and status["resourceClaimName"].startswith("trainer-gpu-")
    assert claim["metadata"]["annotations"]["resource.svc.io/pod-claim-name"] == "gpu"
    assert claim["metadata"]["ownerReferences"][0]["name"] == "trainer"
    assert claim["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "gpu.example.com"


def test_a_pod_whose_claim_template_is_missing_gets_an_event_and_its_claim_once_the_template_comes(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    spec = {
        "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu"}]}}],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "later"}],
    }
    pod = {"metadata": {"name": "trainer"}, "spec": spec}
    assert rest.request("POST", "/api/v1/namespaces/default/pods", body=pod).status == 201
    svc_controller_manager(svc_server, "--controllers=resourceclaim")

    def failures() -> list[tuple[str, str, str]]:
        items = rest.request("GET", "/api/v1/namespaces/default/events").json()["items"]
        return [
            (event["involvedObject"]["name"], event["type"], event["message"])
            for event in items
            if event["reason"] == "FailedResourceClaimCreation"
        ]

    missing = 'resource claim template "later": resourceclaimtemplate.resource.svc "later" not found'
    assert wait_for(lambda: failures() == [("trainer", "Warning", f"PodResourceClaim gpu: {missing}")], timeout=15), (
        failures()
    )
    requests = [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]
    template = {"metadata": {"name": "later"}, "spec": {"spec": {"devices": {"requests": requests}}}}
    assert rest.request("POST", f"{RESOURCE}/resourceclaimtemplates", body=template).status == 201

    def statuses() -> list:
        pod = rest.request("GET", "/api/v1/namespaces/default/pods/trainer").json()
        return pod["status"].get("resourceClaimStatuses") or []

    assert wait_for(statuses, timeout=15), statuses()

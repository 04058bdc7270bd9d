"""The validatingadmissionpolicy-status controller in the real daemon beside a real API server: a
policy's status says, per generation, which expressions do not type-check against the matched kinds."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

POLICIES = "/apis/admissionregistration.svc/v1/validatingadmissionpolicies"


def _policy(expression: str) -> dict:
    return {
        "apiVersion": "admissionregistration.svc/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "replicas"},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["apps"],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE"],
                        "resources": ["deployments"],
                    }
                ]
            },
            "validations": [{"expression": expression}],
        },
    }


def test_status_follows_each_generation_of_a_policy(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    assert rest.request("POST", POLICIES, body=_policy("object.replicas > 1")).status == 201
    svc_controller_manager(svc_server, "--controllers=validatingadmissionpolicy-status")

    def current() -> dict:
        return rest.request("GET", f"{POLICIES}/replicas").json()

    assert wait_for(lambda: current().get("status", {}).get("observedGeneration") == 1, timeout=10), current()
    (warning,) = current()["status"]["typeChecking"]["expressionWarnings"]
    assert warning["fieldRef"] == "spec.validations[0].expression"
    assert warning["warning"].startswith("apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'")
    managers = {(entry["manager"], entry.get("subresource")) for entry in current()["metadata"]["managedFields"]}
    assert ("validatingadmissionpolicy-status-controller", "status") in managers

    fixed = current()
    fixed["spec"]["validations"] = [{"expression": "object.spec.replicas <= 5"}]
    assert rest.request("PUT", f"{POLICIES}/replicas", body=fixed).status == 200
    assert wait_for(lambda: current()["status"].get("observedGeneration") == 2, timeout=10), current()
    # Applying `typeChecking: {}` after owning its warnings leaves it out, as upstream's merge does.
    assert not current()["status"].get("typeChecking")

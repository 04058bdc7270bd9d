"""The newer pod spec rules through the server: pods and the templates of workloads get a 422 and are not stored."""

from __future__ import annotations

import copy

import pytest

from tests.api.validation.test_pods import POD
from tests.api.validation.test_workloads import DEPLOYMENT

PODS = "/api/v1/namespaces/default/pods"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


def test_pod_with_an_env_var_without_a_source_is_refused(api) -> None:
    pod = copy.deepcopy(POD)
    pod["spec"]["containers"][0]["env"] = [{"name": "MODE", "valueFrom": {}}]
    response = api.request("POST", PODS, body=pod)
    assert response.status == 422
    assert response.json()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": 'Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, '
            "`configMapKeyRef` or `secretKeyRef`",
            "field": "spec.containers[0].env[0].valueFrom",
        }
    ]
    assert api.request("GET", PODS).json()["items"] == []


def test_deployment_template_with_a_zero_max_skew_is_refused(api) -> None:
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["template"]["spec"]["topologySpreadConstraints"] = [
        {"maxSkew": 0, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"}
    ]
    response = api.request("POST", DEPLOYMENTS, body=deployment)
    assert response.status == 422
    assert response.json()["message"].endswith(
        "spec.template.spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"
    )
    assert api.request("GET", DEPLOYMENTS).json()["items"] == []

"""An invalid CustomResourceDefinition is refused by the server with a 422 and upstream's causes."""

from __future__ import annotations

import copy

import pytest

from tests.api.validation.test_apiextensions import CRD
from tests.conftest import TOOLS
from tests.e2e.kubectl_runner import Kubectl

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


def test_a_non_structural_crd_with_a_bad_rule_is_422_and_not_stored(api) -> None:
    crd = copy.deepcopy(CRD)
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["properties"]["size"] = {}
    response = api.request("POST", CRDS, body=crd)
    assert response.status == 422
    status = response.json()
    assert status["reason"] == "Invalid"
    assert status["details"]["causes"] == [
        {
            "reason": "FieldValueRequired",
            "message": "Required value: must not be empty for specified object fields",
            "field": "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type",
        }
    ]
    assert api.request("GET", CRDS).json()["items"] == []


def test_a_rule_that_does_not_compile_is_422(api) -> None:
    crd = copy.deepcopy(CRD)
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["x-kubernetes-validations"] = [{"rule": "self.replicas >"}]
    status = api.request("POST", CRDS, body=crd).json()
    assert status["code"] == 422
    (cause,) = status["details"]["causes"]
    assert cause["field"] == "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
    assert cause["message"].startswith('Invalid value: {"Rule":"self.replicas \\u003e"')
    assert "compilation failed: ERROR: <input>:1:16: Syntax error" in cause["message"]


def test_a_valid_crd_is_created(api) -> None:
    assert api.request("POST", CRDS, body=copy.deepcopy(CRD)).status == 201


NON_STRUCTURAL_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {}
"""


def test_kubectl_prints_the_crd_validation_message(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(str(TOOLS / "kubectl"), server.kubeconfig)
    result = kubectl.run("create", "-f", "-", stdin=NON_STRUCTURAL_CRD, check=False)
    assert result.returncode == 1
    assert result.stderr.strip() == (
        'The CustomResourceDefinition "gadgets.example.com" is invalid: '
        "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[size].type: "
        "Required value: must not be empty for specified object fields"
    )

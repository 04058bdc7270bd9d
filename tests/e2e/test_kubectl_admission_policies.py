"""ValidatingAdmissionPolicy through kubectl 1.35: bindings deny, warn, take parameters from a
ConfigMap, honour matchConditions and variables; an expression that does not compile is refused; the
controller manager reports type-checking warnings in the policy's status."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import TOOLS
from tests.e2e.kubectl_runner import Kubectl

REPLICA_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: replica-limit.example.com}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  validations:
  - expression: object.spec.replicas <= 5
"""


def _binding(actions: str, extra: str = "", policy: str = "replica-limit.example.com") -> str:
    return f"""\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {{name: replica-limit-binding}}
spec:
  policyName: {policy}
  validationActions: [{actions}]
{extra}"""


@pytest.fixture
def kubectl(svc_server_factory) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    return Kubectl(str(TOOLS / "kubectl"), server.kubeconfig)


def _deploy(kubectl: Kubectl, name: str, replicas: int) -> object:
    return kubectl.run("create", "deployment", name, "--image=nginx", f"--replicas={replicas}", check=False)


def test_a_deny_binding_rejects_a_deployment_over_the_limit_with_the_policys_message(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=REPLICA_POLICY + "---\n" + _binding("Deny"))
    refused = _deploy(kubectl, "big", 6)
    assert refused.returncode == 1
    assert (
        "ValidatingAdmissionPolicy 'replica-limit.example.com' with binding 'replica-limit-binding' denied request: "
        "failed expression: object.spec.replicas <= 5"
    ) in refused.stderr
    assert _deploy(kubectl, "small", 3).returncode == 0


def test_a_warn_binding_admits_with_a_warning_line(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=REPLICA_POLICY + "---\n" + _binding("Warn"))
    created = _deploy(kubectl, "big", 6)
    assert created.returncode == 0, created.stderr
    assert (
        "Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit.example.com' with binding "
        "'replica-limit-binding': failed expression: object.spec.replicas <= 5"
    ) in created.stderr


PARAM_POLICY = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: param-limit}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE]
      resources: [deployments]
  matchConditions:
  - name: not-exempt
    expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)"
  variables:
  - name: limit
    expression: int(params.data.maxReplicas)
  validations:
  - expression: object.spec.replicas <= variables.limit
    messageExpression: "'replicas must be at most ' + string(variables.limit)"
    reason: Forbidden
"""
PARAM_BINDING = _binding(
    "Deny",
    "  paramRef: {name: limits, namespace: default, parameterNotFoundAction: Deny}\n",
    policy="param-limit",
)


def test_params_from_a_configmap_feed_variables_and_the_message(kubectl: Kubectl) -> None:
    kubectl.run("create", "configmap", "limits", "--from-literal=maxReplicas=2")
    kubectl.run("apply", "-f", "-", stdin=PARAM_POLICY + "---\n" + PARAM_BINDING)
    refused = _deploy(kubectl, "three", 3)
    assert "denied request: replicas must be at most 2" in refused.stderr
    assert "is forbidden" in refused.stderr
    assert _deploy(kubectl, "two", 2).returncode == 0


def test_a_missing_param_with_deny_rejects(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=PARAM_POLICY + "---\n" + PARAM_BINDING)
    refused = _deploy(kubectl, "one", 1)
    assert (
        "failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction"
        in refused.stderr
    )


def test_match_conditions_exempt_matching_objects(kubectl: Kubectl) -> None:
    kubectl.run("create", "configmap", "limits", "--from-literal=maxReplicas=2")
    kubectl.run("apply", "-f", "-", stdin=PARAM_POLICY + "---\n" + PARAM_BINDING)
    deployment = json.loads(
        kubectl.run(
            "create", "deployment", "exempt", "--image=nginx", "--replicas=4", "--dry-run=client", "-o", "json"
        ).stdout
    )
    deployment["metadata"]["labels"] = {"exempt": "yes"}
    created = kubectl.run("create", "-f", "-", stdin=json.dumps(deployment), check=False)
    assert created.returncode == 0, created.stderr


def test_an_expression_that_does_not_compile_is_refused_with_its_cause(kubectl: Kubectl) -> None:
    broken = REPLICA_POLICY.replace("object.spec.replicas <= 5", "object.spec.replicas <= ")
    refused = kubectl.run("apply", "-f", "-", stdin=broken, check=False)
    assert refused.returncode == 1
    assert refused.stderr.startswith(
        'The ValidatingAdmissionPolicy "replica-limit.example.com" is invalid: spec.validations[0].expression: '
        'Invalid value: "object.spec.replicas <=": compilation failed: ERROR: <input>:1:24: Syntax error: '
        "mismatched input '<EOF>'"
    )


def test_a_validation_that_is_not_boolean_is_refused(kubectl: Kubectl) -> None:
    policy = REPLICA_POLICY.replace("object.spec.replicas <= 5", "size(object.metadata.name)")
    refused = kubectl.run("apply", "-f", "-", stdin=policy, check=False)
    expected = 'spec.validations[0].expression: Invalid value: "size(object.metadata.name)": must evaluate to bool'
    assert expected in refused.stderr


def test_a_field_the_matched_kind_lacks_is_a_type_checking_warning_in_status(
    svc_server_factory, svc_controller_manager
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--controllers=validatingadmissionpolicy-status")
    kubectl = Kubectl(str(TOOLS / "kubectl"), server.kubeconfig)
    kubectl.run("apply", "-f", "-", stdin=REPLICA_POLICY.replace("object.spec.replicas <= 5", "object.replicas > 1"))
    expected = {
        "observedGeneration": 1,
        "typeChecking": {
            "expressionWarnings": [
                {
                    "fieldRef": "spec.validations[0].expression",
                    "warning": "apps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'replicas'\n"
                    " | object.replicas > 1\n"
                    " | ......^",
                }
            ]
        },
    }
    found = None
    for _ in range(100):
        policy = json.loads(
            kubectl.run("get", "validatingadmissionpolicy", "replica-limit.example.com", "-o", "json").stdout
        )
        found = policy.get("status")
        if found:
            break
        time.sleep(0.1)
    assert found == expected

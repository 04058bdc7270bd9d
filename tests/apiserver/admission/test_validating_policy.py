"""ValidatingAdmissionPolicy in the API server: failure policies, reasons, selected parameters,
the authorizer and namespace variables, audit annotations and live policy changes."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from svc.registry.admission import Attributes, Operation, UserInfo

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def server(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes")


def _policy(validations: list[dict], **spec: Any) -> dict:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "failurePolicy": spec.pop("failurePolicy", "Fail"),
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["configmaps"],
                    }
                ]
            },
            "validations": validations,
            **spec,
        },
    }


def _binding(actions: list[str], **spec: Any) -> dict:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": "b"},
        "spec": {"policyName": "p", "validationActions": actions, **spec},
    }


def _install(client, policy: dict, binding: dict) -> None:
    for path, body in (
        (f"{ADMISSION}/validatingadmissionpolicies", policy),
        (f"{ADMISSION}/validatingadmissionpolicybindings", binding),
    ):
        answer = client.request("POST", path, body=body)
        assert answer.status == 201, answer.body


def _configmap(name: str, data: dict | None = None, labels: dict | None = None) -> dict:
    meta: dict[str, Any] = {"name": name}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data or {}}


def test_a_validation_reason_chooses_the_status_code(server) -> None:
    client = server.client()
    _install(client, _policy([{"expression": "false", "message": "no", "reason": "Forbidden"}]), _binding(["Deny"]))
    answer = client.request("POST", CONFIGMAPS, body=_configmap("c"))
    assert (answer.status, answer.json()["reason"]) == (403, "Forbidden")
    message = "ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no"
    assert answer.json()["message"] == f'configmaps "c" is forbidden: {message}'
    assert answer.json()["details"]["causes"] == [{"message": message}]


def test_an_evaluation_error_denies_under_fail(server) -> None:
    client = server.client()
    _install(client, _policy([{"expression": "object.data.missing == 'x'"}]), _binding(["Deny"]))
    # a data key: an empty `data` is no field to the policy, as upstream's Go type leaves it out
    answer = client.request("POST", CONFIGMAPS, body=_configmap("c", {"k": "v"}))
    assert answer.status == 422
    assert answer.json()["message"].endswith(
        "denied request: expression 'object.data.missing == 'x'' resulted in error: no such key: missing"
    )


def test_an_evaluation_error_admits_under_ignore(server) -> None:
    client = server.client()
    policy = _policy([{"expression": "object.data.missing == 'x'"}], failurePolicy="Ignore")
    _install(client, policy, _binding(["Deny"]))
    assert client.request("POST", CONFIGMAPS, body=_configmap("c")).status == 201


def test_selected_params_are_each_evaluated(server) -> None:
    client = server.client()
    for name, banned in (("ban-a", "a"), ("ban-b", "b")):
        body = _configmap(name, {"banned": banned}, {"role": "ban"})
        assert client.request("POST", CONFIGMAPS, body=body).status == 201
    policy = _policy(
        [
            {
                "expression": "!(params.data.banned in object.data)",
                "messageExpression": "'banned: ' + params.data.banned",
            }
        ],
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConstraints={
            "resourceRules": [
                {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}
            ],
            "objectSelector": {"matchExpressions": [{"key": "role", "operator": "DoesNotExist"}]},
        },
    )
    ref = {"selector": {"matchLabels": {"role": "ban"}}, "parameterNotFoundAction": "Allow"}
    _install(client, policy, _binding(["Deny"], paramRef=ref))
    assert client.request("POST", CONFIGMAPS, body=_configmap("ok", {"c": "1"})).status == 201
    answer = client.request("POST", CONFIGMAPS, body=_configmap("bad", {"b": "1"}))
    assert answer.json()["message"].endswith("denied request: banned: b")


def test_the_authorizer_and_namespace_object_are_available(server) -> None:
    client = server.client()
    expression = (
        "authorizer.group('').resource('secrets').namespace('default').check('list').allowed()"
        " && authorizer.requestResource.check('create').allowed()"
        " && namespaceObject.metadata.name == 'default'"
        " && request.userInfo.groups.exists(g, g == 'system:masters')"
    )
    _install(client, _policy([{"expression": f"!({expression})", "message": "all visible"}]), _binding(["Deny"]))
    answer = client.request("POST", CONFIGMAPS, body=_configmap("c"))
    assert answer.json()["message"].endswith("denied request: all visible")


def test_a_binding_change_takes_effect_at_once(server) -> None:
    client = server.client()
    _install(client, _policy([{"expression": "false", "message": "no"}]), _binding(["Warn"]))
    warned = client.request("POST", CONFIGMAPS, body=_configmap("first"))
    assert warned.status == 201
    assert warned.warnings == ["299 - \"Validation failed for ValidatingAdmissionPolicy 'p' with binding 'b': no\""]
    binding = client.request("GET", f"{ADMISSION}/validatingadmissionpolicybindings/b").json()
    binding["spec"]["validationActions"] = ["Deny"]
    assert client.request("PUT", f"{ADMISSION}/validatingadmissionpolicybindings/b", body=binding).status == 200
    assert client.request("POST", CONFIGMAPS, body=_configmap("second")).status == 422
    assert client.request("DELETE", f"{ADMISSION}/validatingadmissionpolicybindings/b").status == 200
    assert client.request("POST", CONFIGMAPS, body=_configmap("third")).status == 201


def _admit_in_server(server, obj: dict) -> tuple[Attributes, Exception | None]:
    """Runs the validating chain on the server's loop for a ConfigMap create."""
    resource = server.server.resources.get("", "v1", "configmaps")
    attributes = Attributes(Operation.CREATE, resource, "default", obj["metadata"]["name"], UserInfo("alice"))
    attributes.object = obj

    async def run() -> Exception | None:
        try:
            await server.server.admission.validate(attributes)
        except Exception as error:
            return error
        return None

    error = asyncio.run_coroutine_threadsafe(run(), server.loop).result(10)
    return attributes, error


def test_audit_actions_and_audit_annotations_land_in_the_requests_audit_annotations(server) -> None:
    client = server.client()
    policy = _policy(
        [{"expression": "false", "message": "audited"}],
        auditAnnotations=[{"key": "size", "valueExpression": "string(size(object.data))"}],
    )
    _install(client, policy, _binding(["Audit"]))
    attributes, error = _admit_in_server(server, _configmap("c", {"a": "1"}))
    assert error is None
    failure = json.loads(attributes.annotations["validation.policy.admission.k8s.io/validation_failure"])
    assert failure == [
        {"message": "audited", "policy": "p", "binding": "b", "expressionIndex": 0, "validationActions": ["Audit"]}
    ]
    assert attributes.annotations["p/size"] == "1"


def test_policies_work_under_the_svc_profile(svc_server) -> None:
    client = svc_server.client()
    admission = "/apis/admissionregistration.svc/v1"
    policy, binding = _policy([{"expression": "false", "message": "no"}]), _binding(["Deny"])
    for kind, body in (("validatingadmissionpolicies", policy), ("validatingadmissionpolicybindings", binding)):
        body["apiVersion"] = "admissionregistration.svc/v1"
        assert client.request("POST", f"{admission}/{kind}", body=body).status == 201
    assert client.request("POST", CONFIGMAPS, body=_configmap("c")).status == 422


def test_without_watch_caches_a_new_policy_applies_within_a_second(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes", "--watch-cache=false").client()
    # Read the (empty) policy set first, so the next read waits out the one-second refresh.
    assert client.request("POST", CONFIGMAPS, body=_configmap("before")).status == 201
    _install(client, _policy([{"expression": "false", "message": "no"}]), _binding(["Deny"]))
    deadline, refused = time.monotonic() + 3, False
    for index in range(60):
        if refused or time.monotonic() > deadline:
            break
        refused = client.request("POST", CONFIGMAPS, body=_configmap(f"c{index}")).status == 422
        time.sleep(0.1)
    assert refused


def test_checks_are_counted_and_timed_by_the_action_taken(server) -> None:
    from prometheus_client.parser import text_string_to_metric_families

    client = server.client()
    _install(client, _policy([{"expression": "object.data.ok == 'yes'"}]), _binding(["Deny", "Audit"]))
    assert client.request("POST", CONFIGMAPS, body=_configmap("good", {"ok": "yes"})).status == 201
    assert client.request("POST", CONFIGMAPS, body=_configmap("bad", {"ok": "no"})).status == 422
    text = client.request("GET", "/metrics").body.decode()
    samples = [sample for family in text_string_to_metric_families(text) for sample in family.samples]

    def value(name: str, action: str) -> float:
        labels = {"policy": "p", "policy_binding": "b", "error_type": "no_error", "enforcement_action": action}
        return sum(s.value for s in samples if s.name == name and s.labels == labels)

    for action in ("allow", "deny", "audit"):
        assert value("apiserver_validating_admission_policy_check_total", action) == 1
        assert value("apiserver_validating_admission_policy_check_duration_seconds_count", action) == 1

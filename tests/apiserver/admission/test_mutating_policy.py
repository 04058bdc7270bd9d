"""MutatingAdmissionPolicy in the API server: mutations in order, params, reinvocation, failure."""

from __future__ import annotations

from typing import Any

import pytest

ADMISSION = "/apis/admissionregistration.k8s.io/v1"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def client(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


def _install(client, name: str, mutations: list[dict], binding: dict | None = None, **spec: Any) -> None:
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": name},
        "spec": {
            "failurePolicy": spec.pop("failurePolicy", "Fail"),
            "reinvocationPolicy": spec.pop("reinvocationPolicy", "Never"),
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}
                ]
            },
            "mutations": mutations,
            **spec,
        },
    }
    bound = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": name},
        "spec": {"policyName": name, **(binding or {})},
    }
    for path, body in (
        (f"{ADMISSION}/mutatingadmissionpolicies", policy),
        (f"{ADMISSION}/mutatingadmissionpolicybindings", bound),
    ):
        answer = client.request("POST", path, body=body)
        assert answer.status == 201, answer.body


def _apply(expression: str) -> dict:
    return {"patchType": "ApplyConfiguration", "applyConfiguration": {"expression": expression}}


def _create(client, name: str, data: dict | None = None) -> Any:
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data or {"a": "1"}}
    return client.request("POST", CONFIGMAPS, body=body)


def test_a_later_mutation_sees_the_earlier_ones_result(client) -> None:
    _install(
        client,
        "twice",
        [
            _apply('Object{data: {"b": "2"}}'),
            _apply('Object{data: {"count": string(size(object.data))}}'),
        ],
    )
    created = _create(client, "c")
    assert created.status == 201, created.body
    assert created.json()["data"] == {"a": "1", "b": "2", "count": "2"}


def test_params_feed_the_mutation(client) -> None:
    assert _create(client, "defaults", {"owner": "team-a"}).status == 201
    ref = {"paramRef": {"name": "defaults", "namespace": "default", "parameterNotFoundAction": "Deny"}}
    _install(
        client,
        "owner",
        [_apply("Object{metadata: Object.metadata{labels: {'owner': params.data.owner}}}")],
        ref,
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
        matchConditions=[{"name": "not-the-params", "expression": "object.metadata.name != 'defaults'"}],
    )
    assert _create(client, "c").json()["metadata"]["labels"] == {"owner": "team-a"}


def test_if_needed_reruns_after_a_later_policy_changed_the_object(client) -> None:
    # "a-copy" runs first (policies run by name) and copies a label "b-source" sets after it.
    copy = "Object{metadata: Object.metadata{labels: {'copy': object.metadata.?labels.source.orValue('none')}}}"
    _install(client, "a-copy", [_apply(copy)], reinvocationPolicy="IfNeeded")
    _install(client, "b-source", [_apply("Object{metadata: Object.metadata{labels: {'source': 'b'}}}")])
    assert _create(client, "c").json()["metadata"]["labels"] == {"copy": "b", "source": "b"}


def test_a_failing_mutation_rejects_under_fail_and_is_skipped_under_ignore(client) -> None:
    _install(client, "fails", [_apply("Object{data: {'x': object.data.missing}}")])
    refused = _create(client, "c")
    assert refused.status == 403
    message = (
        "policy 'fails' with binding 'fails' denied request: "
        "expression 'Object{data: {'x': object.data.missing}}' resulted in error: no such key: missing"
    )
    body = refused.json()
    assert (body["message"], body["reason"]) == (message, "Invalid")
    assert body["details"]["causes"] == [{"message": message}]
    _install(client, "ignored", [_apply("Object{data: {'y': object.data.missing}}")], failurePolicy="Ignore")
    assert client.request("DELETE", f"{ADMISSION}/mutatingadmissionpolicybindings/fails").status == 200
    assert _create(client, "d").status == 201


def test_every_failure_is_a_cause_and_the_first_configuration_error_is_the_message(client) -> None:
    deny = {"paramRef": {"name": "absent", "namespace": "default", "parameterNotFoundAction": "Deny"}}
    _install(client, "a-broken", [_apply("Object{data: {'x': object.data.missing}}")])
    _install(
        client, "b-params", [_apply("Object{}")], binding=deny, paramKind={"apiVersion": "v1", "kind": "ConfigMap"}
    )
    body = _create(client, "c").json()
    config = (
        "policy 'b-params' with binding 'b-params' denied request: failed to configure binding: "
        "no params found for policy binding with `Deny` parameterNotFoundAction"
    )
    assert (body["code"], body["reason"], body["message"]) == (403, "Forbidden", config)
    assert [cause["message"] for cause in body["details"]["causes"]] == [
        config,
        "policy 'a-broken' with binding 'a-broken' denied request: "
        "expression 'Object{data: {'x': object.data.missing}}' resulted in error: no such key: missing",
    ]


def test_a_policy_served_only_at_v1beta1_mutates(svc_server_factory) -> None:
    server = svc_server_factory(
        "--brand-profile=kubernetes",
        "--runtime-config=admissionregistration.k8s.io/v1=false",
        "--runtime-config=admissionregistration.k8s.io/v1beta1=true",
        # Webhook configurations exist only at v1: their plugins cannot run without it.
        "--disable-admission-plugins=MutatingAdmissionWebhook,ValidatingAdmissionWebhook",
    )
    client = server.client()
    beta = "/apis/admissionregistration.k8s.io/v1beta1"
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1beta1",
        "kind": "MutatingAdmissionPolicy",
        "metadata": {"name": "beta"},
        "spec": {
            "failurePolicy": "Fail",
            "reinvocationPolicy": "Never",
            "matchConstraints": {
                "resourceRules": [
                    {"apiGroups": [""], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["configmaps"]}
                ]
            },
            "mutations": [_apply("Object{data: {'beta': 'yes'}}")],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1beta1",
        "kind": "MutatingAdmissionPolicyBinding",
        "metadata": {"name": "beta"},
        "spec": {"policyName": "beta"},
    }
    for path, body in (
        (f"{beta}/mutatingadmissionpolicies", policy),
        (f"{beta}/mutatingadmissionpolicybindings", binding),
    ):
        answer = client.request("POST", path, body=body)
        assert answer.status == 201, answer.body
    created = _create(client, "c")
    assert created.json().get("data") == {"a": "1", "beta": "yes"}, created.body

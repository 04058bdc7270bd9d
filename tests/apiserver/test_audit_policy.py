"""The audit policy: first matching rule wins, upstream's resource/subresource/URL patterns, and
validation that names the bad field."""

from __future__ import annotations

import re

import pytest

from svc.apiserver.audit.policy import Level, Request, parse_policy
from svc.registry.admission import Attributes, request_audit_annotations


def _policy(*rules: dict, **top: object):
    return parse_policy({"apiVersion": "audit.k8s.io/v1", "kind": "Policy", "rules": list(rules), **top})


def _resource(resource: str, subresource: str = "", name: str = "", verb: str = "get", **kw: object) -> Request:
    fields = {"user": "alice", "groups": ("devs",), "verb": verb, "is_resource_request": True}
    return Request(**{**fields, **kw}, resource=resource, subresource=subresource, name=name)  # type: ignore[arg-type]


def test_the_first_matching_rule_decides() -> None:
    policy = _policy(
        {"level": "None", "users": ["alice"], "verbs": ["watch"]},
        {"level": "Request", "userGroups": ["devs"]},
        {"level": "RequestResponse"},
    )
    assert policy.decide(_resource("pods", verb="watch")).level is Level.NONE
    assert policy.decide(_resource("pods")).level is Level.REQUEST
    assert policy.decide(_resource("pods", user="bob", groups=())).level is Level.REQUEST_RESPONSE


def test_no_matching_rule_is_level_none() -> None:
    assert _policy({"level": "Metadata", "verbs": ["create"]}).decide(_resource("pods")).level is Level.NONE


@pytest.mark.parametrize(
    ("pattern", "resource", "subresource", "matches"),
    [
        ("pods", "pods", "", True),
        ("pods", "pods", "log", False),
        ("pods/log", "pods", "log", True),
        ("pods/*", "pods", "exec", True),
        ("*/status", "deployments", "status", True),
        ("*/status", "deployments", "", False),
        ("*", "pods", "log", True),
    ],
)
def test_resource_patterns(pattern: str, resource: str, subresource: str, matches: bool) -> None:
    policy = _policy({"level": "Metadata", "resources": [{"group": "", "resources": [pattern]}]})
    assert (policy.decide(_resource(resource, subresource)).level is Level.METADATA) is matches


def test_resource_names_and_namespaces_narrow_a_rule() -> None:
    policy = _policy(
        {
            "level": "Metadata",
            "namespaces": ["kube-system"],
            "resources": [{"group": "", "resources": ["configmaps"], "resourceNames": ["cfg"]}],
        }
    )
    assert policy.decide(_resource("configmaps", name="cfg", namespace="kube-system")).level is Level.METADATA
    assert policy.decide(_resource("configmaps", name="other", namespace="kube-system")).level is Level.NONE
    assert policy.decide(_resource("configmaps", name="cfg", namespace="default")).level is Level.NONE


def test_non_resource_urls_match_exactly_or_by_prefix() -> None:
    policy = _policy({"level": "Metadata", "nonResourceURLs": ["/healthz*", "/version"]})

    def path(p: str) -> Request:
        return Request("alice", (), "get", False, path=p)

    assert policy.decide(path("/healthz/etcd")).level is Level.METADATA
    assert policy.decide(path("/version")).level is Level.METADATA
    assert policy.decide(path("/metrics")).level is Level.NONE
    assert policy.decide(_resource("pods")).level is Level.NONE


def test_omit_stages_add_up_and_a_rule_overrides_omit_managed_fields() -> None:
    policy = _policy(
        {"level": "Metadata", "omitStages": ["ResponseStarted"], "omitManagedFields": False},
        omitStages=["RequestReceived"],
        omitManagedFields=True,
    )
    decision = policy.decide(_resource("pods"))
    assert decision.omit_stages == {"RequestReceived", "ResponseStarted"}
    assert decision.omit_managed_fields is False


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({}, "rules[0].level: Required value"),
        ({"level": "Metadata", "omitStages": ["Done"]}, 'rules[0].omitStages[0]: Unsupported value: "Done"'),
        ({"level": "Metadata", "nonResourceURLs": ["healthz"]}, "must begin with a '/' character"),
        ({"level": "Metadata", "nonResourceURLs": ["/a*b"]}, "must be the final character of the rule"),
        (
            {"level": "Metadata", "nonResourceURLs": ["/x"], "namespaces": ["a"]},
            "rules cannot apply to both regular resources and non-resource URLs",
        ),
    ],
)
def test_invalid_rules_are_rejected_with_the_field(rule: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        _policy(rule)


def test_a_policy_of_another_kind_or_without_rules_is_rejected() -> None:
    with pytest.raises(ValueError, match="no kind"):
        parse_policy({"apiVersion": "audit.k8s.io/v1beta9", "kind": "Policy", "rules": [{"level": "None"}]})
    with pytest.raises(ValueError, match="0 rules"):
        _policy()


def test_admission_annotations_land_in_the_request_audit_annotations() -> None:
    annotations: dict[str, str] = {}
    token = request_audit_annotations.set(annotations)
    try:
        attributes = Attributes(None, None, "", "", None)  # type: ignore[arg-type]
        attributes.annotations["hook.example.com/said"] = "yes"
    finally:
        request_audit_annotations.reset(token)
    assert annotations == {"hook.example.com/said": "yes"}


def test_requests_of_one_shape_share_a_decision() -> None:
    policy = _policy({"level": "Metadata", "resources": [{"group": "", "resources": ["configmaps"]}]})
    first = policy.decide(_resource("configmaps", name="a", namespace="default"))
    assert policy.decide(_resource("configmaps", name="b", namespace="default", path="/other")) is first
    assert policy.decide(_resource("configmaps", name="a", namespace="kube-system")) is not first

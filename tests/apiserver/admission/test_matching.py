"""The request matcher shared by webhooks and admission policies, against upstream's rules."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.api.brand import KUBERNETES
from svc.api.resources import ResourceSet
from svc.apiserver.admission.matching import (
    Equivalents,
    MatchCriteria,
    RequestMatcher,
    is_exempt_configuration,
    rule_matches,
)
from svc.machinery.status import StatusError
from svc.registry.admission import Attributes, Operation, UserInfo

RESOURCES = ResourceSet(KUBERNETES)
NAMESPACES = {"team": {"metadata": {"name": "team", "labels": {"env": "prod"}}}}


def attrs(
    group: str,
    version: str,
    resource: str,
    *,
    operation: Operation = Operation.CREATE,
    namespace: str = "team",
    name: str = "x",
    subresource: str = "",
    obj: dict[str, Any] | None = None,
    old: dict[str, Any] | None = None,
) -> Attributes:
    found = RESOURCES.get(group, version, resource)
    assert found is not None
    return Attributes(operation, found, namespace, name, UserInfo("alice"), subresource, object=obj, old_object=old)


def matcher() -> RequestMatcher:
    async def get_namespace(name: str) -> dict[str, Any] | None:
        return NAMESPACES.get(name)

    return RequestMatcher(equivalents=Equivalents(RESOURCES), get_namespace=get_namespace)


def match(criteria: MatchCriteria, attributes: Attributes):
    return asyncio.run(matcher().matches(criteria, attributes))


RULE = {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}


def test_operation_group_version_resource_must_all_match():
    assert rule_matches(RULE, attrs("", "v1", "configmaps"))
    assert not rule_matches(RULE, attrs("", "v1", "configmaps", operation=Operation.UPDATE))
    assert not rule_matches(RULE, attrs("", "v1", "secrets"))
    assert rule_matches({**RULE, "operations": ["*"], "resources": ["*"]}, attrs("", "v1", "secrets"))


def test_a_plain_resource_rule_does_not_match_its_subresources():
    rule = {"operations": ["*"], "apiGroups": ["apps"], "apiVersions": ["*"], "resources": ["deployments"]}
    assert not rule_matches(rule, attrs("apps", "v1", "deployments", subresource="scale"))
    assert rule_matches(
        {**rule, "resources": ["deployments/scale"]}, attrs("apps", "v1", "deployments", subresource="scale")
    )
    assert rule_matches({**rule, "resources": ["*/*"]}, attrs("apps", "v1", "deployments", subresource="status"))
    assert rule_matches({**rule, "resources": ["*/scale"]}, attrs("apps", "v1", "deployments", subresource="scale"))


def test_scope_cluster_matches_namespaces_themselves_and_namespaced_does_not():
    rule = {"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}
    namespace = attrs("", "v1", "namespaces", namespace="", name="team")
    assert rule_matches({**rule, "scope": "Cluster"}, namespace)
    assert not rule_matches({**rule, "scope": "Namespaced"}, namespace)
    assert rule_matches({**rule, "scope": "Namespaced"}, attrs("", "v1", "configmaps"))
    assert not rule_matches({**rule, "scope": "Cluster"}, attrs("", "v1", "configmaps"))


def test_equivalent_policy_matches_another_version_and_reports_it():
    rule = {"operations": ["*"], "apiGroups": ["autoscaling"], "apiVersions": ["v2"], "resources": ["*"]}
    request = attrs("autoscaling", "v1", "horizontalpodautoscalers")
    matched = match(MatchCriteria(rules=(rule,)), request)
    assert matched is not None and (matched.api_version, matched.kind) == ("autoscaling/v2", "HorizontalPodAutoscaler")
    assert match(MatchCriteria(rules=(rule,), match_policy="Exact"), request) is None


def test_equivalent_match_of_a_subresource_reports_the_subresource_kind():
    rule = {"operations": ["*"], "apiGroups": ["autoscaling"], "apiVersions": ["v2"], "resources": ["*/status"]}
    matched = match(
        MatchCriteria(rules=(rule,)), attrs("autoscaling", "v1", "horizontalpodautoscalers", subresource="status")
    )
    assert matched is not None and matched.version == "v2" and matched.subresource == "status"


def test_namespace_selector_reads_the_namespace_labels():
    prod = MatchCriteria.from_webhook({"rules": [RULE], "namespaceSelector": {"matchLabels": {"env": "prod"}}})
    dev = MatchCriteria.from_webhook({"rules": [RULE], "namespaceSelector": {"matchLabels": {"env": "dev"}}})
    assert match(prod, attrs("", "v1", "configmaps")) is not None
    assert match(dev, attrs("", "v1", "configmaps")) is None


def test_namespace_selector_of_a_namespace_create_uses_the_new_object_labels():
    rule = {"operations": ["CREATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["namespaces"]}
    criteria = MatchCriteria.from_webhook({"rules": [rule], "namespaceSelector": {"matchLabels": {"env": "dev"}}})
    labelled = {"metadata": {"name": "new", "labels": {"env": "dev"}}}
    assert match(criteria, attrs("", "v1", "namespaces", namespace="", name="new", obj=labelled)) is not None
    assert match(criteria, attrs("", "v1", "namespaces", namespace="", name="new", obj={"metadata": {}})) is None


def test_a_missing_namespace_fails_only_when_the_rules_match():
    criteria = MatchCriteria.from_webhook({"rules": [RULE], "namespaceSelector": {"matchLabels": {"env": "prod"}}})
    with pytest.raises(StatusError) as caught:
        match(criteria, attrs("", "v1", "configmaps", namespace="gone"))
    assert caught.value.code == 404 and caught.value.message == 'namespaces "gone" not found'
    assert match(criteria, attrs("", "v1", "secrets", namespace="gone")) is None


def test_object_selector_matches_new_or_old_labels():
    criteria = MatchCriteria.from_webhook(
        {"rules": [{**RULE, "operations": ["*"]}], "objectSelector": {"matchLabels": {"a": "b"}}}
    )
    labelled = {"metadata": {"labels": {"a": "b"}}}
    assert match(criteria, attrs("", "v1", "configmaps", obj=labelled)) is not None
    assert match(criteria, attrs("", "v1", "configmaps", operation=Operation.DELETE, old=labelled)) is not None
    assert match(criteria, attrs("", "v1", "configmaps", obj={"metadata": {}})) is None


def test_policy_constraints_exclude_rules_and_resource_names():
    criteria = MatchCriteria.from_match_resources(
        {
            "resourceRules": [{**RULE, "resourceNames": ["only"]}],
            "excludeResourceRules": [{**RULE, "resourceNames": ["skip"]}],
        }
    )
    assert match(criteria, attrs("", "v1", "configmaps", name="only")) is not None
    assert match(criteria, attrs("", "v1", "configmaps", name="other")) is None
    excluding = MatchCriteria.from_match_resources(
        {"resourceRules": [RULE], "excludeResourceRules": [{**RULE, "resourceNames": ["skip"]}]}
    )
    assert match(excluding, attrs("", "v1", "configmaps", name="skip")) is None
    assert match(MatchCriteria.from_match_resources({}), attrs("", "v1", "secrets")) is not None


def test_webhook_configurations_and_policies_are_exempt():
    assert is_exempt_configuration(
        attrs("admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", namespace="")
    )
    assert is_exempt_configuration(
        attrs("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies", namespace="")
    )
    assert not is_exempt_configuration(attrs("", "v1", "configmaps"))


def test_equivalents_following_stores_see_resources_served_later():
    class Store:
        def __init__(self, resource):
            self.resource = resource

    v1 = RESOURCES.get("autoscaling", "v1", "horizontalpodautoscalers")
    v2 = RESOURCES.get("autoscaling", "v2", "horizontalpodautoscalers")
    stores = {("autoscaling", "v1"): Store(v1)}
    equivalents = Equivalents.following(stores)
    assert equivalents.of(v1, "") == []
    stores[("autoscaling", "v2")] = Store(v2)
    assert equivalents.of(v1, "") == [v2]

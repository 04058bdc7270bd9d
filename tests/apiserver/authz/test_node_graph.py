"""The Node authorizer's decisions over its graph, without a server: one relationship per test."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from svc.api.brand import SVC
from svc.apiserver.authz.authorizer import Attributes, Decision
from svc.apiserver.authz.node.policy import NodePolicy
from svc.machinery.fields import parse_field_selector
from svc.registry.admission import UserInfo

NODE = UserInfo("system:node:n1", groups=("system:nodes", "system:authenticated"))


def pod(name: str, node: str = "n1", namespace: str = "ns", **spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": name, "namespace": namespace}, "spec": {"nodeName": node, **spec}}


def volume(name: str, claim: tuple[str, str] | None, **spec: Any) -> dict[str, Any]:
    claim_ref = {"claimRef": {"namespace": claim[0], "name": claim[1]}} if claim else {}
    return {"metadata": {"name": name}, "spec": {**claim_ref, **spec}}


@pytest.fixture
def policy() -> NodePolicy:
    return NodePolicy(SVC)


def decide(policy: NodePolicy, verb: str, resource: str, name: str = "", namespace: str = "ns", **extra: Any):
    attributes = Attributes(
        user=extra.pop("user", NODE),
        verb=verb,
        is_resource_request=True,
        namespace=namespace,
        api_group=extra.pop("group", ""),
        resource=resource,
        subresource=extra.pop("subresource", ""),
        name=name,
        field_requirements=tuple(parse_field_selector(extra.pop("fields", "")).requirements),
    )
    return asyncio.run(policy.authorizer.authorize(attributes))


def test_a_secret_of_a_pod_on_the_node_is_readable(policy):
    policy.graph.put("pods", pod("p", volumes=[{"name": "v", "secret": {"secretName": "s"}}]))
    assert decide(policy, "get", "secrets", "s") == (Decision.ALLOW, "")


def test_a_secret_of_a_pod_on_another_node_is_not(policy):
    policy.graph.put("pods", pod("p", node="n2", volumes=[{"name": "v", "secret": {"secretName": "s"}}]))
    assert decide(policy, "get", "secrets", "s") == (
        Decision.NO_OPINION,
        "no relationship found between node 'n1' and this object",
    )


def test_deleting_the_pod_removes_the_relationship(policy):
    bound = pod("p", imagePullSecrets=[{"name": "pull"}])
    policy.graph.put("pods", bound)
    policy.graph.remove("pods", bound)
    assert decide(policy, "get", "secrets", "pull")[0] is Decision.NO_OPINION


def test_a_reference_held_by_two_pods_survives_one_deletion(policy):
    first = pod("a", containers=[{"name": "c", "envFrom": [{"configMapRef": {"name": "cm"}}]}])
    variable = {"name": "X", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}}
    second = pod("b", containers=[{"name": "c", "env": [variable]}])
    policy.graph.reset("pods", [first, second])
    policy.graph.remove("pods", first)
    assert decide(policy, "get", "configmaps", "cm") == (Decision.ALLOW, "")


def test_moving_a_pod_to_another_node_moves_its_references(policy):
    policy.graph.put("pods", pod("p", serviceAccountName="sa"))
    policy.graph.put("pods", pod("p", node="n2", serviceAccountName="sa"))
    assert decide(policy, "create", "serviceaccounts", "sa", subresource="token")[0] is Decision.NO_OPINION


def test_a_service_account_token_of_a_pod_on_the_node_may_be_created(policy):
    policy.graph.put("pods", pod("p", serviceAccountName="sa"))
    assert decide(policy, "create", "serviceaccounts", "sa", subresource="token") == (Decision.ALLOW, "")


def test_a_service_account_itself_may_not_be_read_through_the_graph(policy):
    policy.graph.put("pods", pod("p", serviceAccountName="sa"))
    assert decide(policy, "get", "serviceaccounts", "sa") == (
        Decision.NO_OPINION,
        "can only create tokens for individual service accounts",
    )


def test_a_volume_bound_to_a_claim_of_a_pod_on_the_node_is_readable_with_its_secret(policy):
    policy.graph.put("pods", pod("p", volumes=[{"name": "v", "persistentVolumeClaim": {"claimName": "data"}}]))
    csi = {"driver": "d", "volumeHandle": "h", "nodePublishSecretRef": {"name": "csi-secret", "namespace": "ops"}}
    policy.graph.put("persistentvolumes", volume("pv1", ("ns", "data"), csi=csi))
    assert decide(policy, "get", "persistentvolumeclaims", "data") == (Decision.ALLOW, "")
    assert decide(policy, "get", "persistentvolumes", "pv1", namespace="") == (Decision.ALLOW, "")
    assert decide(policy, "get", "secrets", "csi-secret", namespace="ops") == (Decision.ALLOW, "")


def test_a_generic_ephemeral_volume_claim_is_named_after_pod_and_volume(policy):
    policy.graph.put("pods", pod("web", volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}}]))
    assert decide(policy, "get", "persistentvolumeclaims", "web-scratch") == (Decision.ALLOW, "")


def test_secrets_may_be_listed_only_by_name(policy):
    policy.graph.put("pods", pod("p", volumes=[{"name": "v", "secret": {"secretName": "s"}}]))
    assert decide(policy, "list", "secrets") == (Decision.NO_OPINION, "No Object name found")
    assert decide(policy, "list", "secrets", "s") == (Decision.ALLOW, "")
    assert decide(policy, "delete", "secrets", "s") == (Decision.NO_OPINION, "can only read resources of this type")


def test_pods_may_be_listed_with_the_node_field_selector_only(policy):
    assert decide(policy, "list", "pods", namespace="", fields="spec.nodeName=n1") == (Decision.ALLOW, "")
    assert decide(policy, "watch", "pods", namespace="", fields="spec.nodeName=n2") == (
        Decision.NO_OPINION,
        "can only list/watch pods with spec.nodeName field selector",
    )


def test_a_node_reads_only_its_own_node_object(policy):
    assert decide(policy, "get", "nodes", "n1", namespace="") == (Decision.ALLOW, "")
    assert decide(policy, "get", "nodes", "n2", namespace="") == (
        Decision.NO_OPINION,
        "node 'n1' cannot read 'n2', only its own Node object",
    )
    assert decide(policy, "list", "nodes", namespace="") == (
        Decision.NO_OPINION,
        "node 'n1' cannot read all nodes, only its own Node object",
    )


def test_a_node_lease_must_carry_the_node_name_in_the_lease_namespace(policy):
    group = SVC.group("coordination.k8s.io")
    lease_namespace = SVC.node_lease_namespace
    assert decide(policy, "update", "leases", "n1", namespace=lease_namespace, group=group) == (Decision.ALLOW, "")
    assert decide(policy, "update", "leases", "n2", namespace=lease_namespace, group=group) == (
        Decision.NO_OPINION,
        "can only access node lease with the same name as the requesting node",
    )
    assert decide(policy, "get", "leases", "n1", namespace="default", group=group) == (
        Decision.NO_OPINION,
        f'can only access leases in the "{lease_namespace}" system namespace',
    )


def test_a_volume_attachment_to_the_node_is_readable(policy):
    policy.graph.put("volumeattachments", {"metadata": {"name": "va"}, "spec": {"nodeName": "n1"}})
    group = SVC.group("storage.k8s.io")
    assert decide(policy, "get", "volumeattachments", "va", namespace="", group=group) == (Decision.ALLOW, "")


def test_other_resources_follow_the_system_node_role(policy):
    assert decide(policy, "create", "events", namespace="ns") == (Decision.ALLOW, "")
    assert decide(policy, "create", "deployments", namespace="ns", group="apps") == (Decision.NO_OPINION, "")


def test_users_that_are_not_nodes_get_no_opinion(policy):
    policy.graph.put("pods", pod("p", volumes=[{"name": "v", "secret": {"secretName": "s"}}]))
    outsider = UserInfo("system:node:n1", groups=("system:authenticated",))
    assert decide(policy, "get", "secrets", "s", user=outsider) == (Decision.NO_OPINION, "")
    nameless = UserInfo("system:node:", groups=("system:nodes",))
    assert decide(policy, "get", "secrets", "s", user=nameless) == (
        Decision.NO_OPINION,
        'unknown node for user "system:node:"',
    )

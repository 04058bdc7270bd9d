"""Plugins off by default: OwnerReferencesPermissionEnforcement, NamespaceAutoProvision,
LimitPodHardAntiAffinityTopology, ExtendedResourceToleration, PodNodeSelector, PodTolerationRestriction."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer
from tests.apiserver.admission.conftest import core_path, create, created, pod

Obj = dict[str, Any]
RBAC = "/apis/rbac.authorization.svc/v1"


def _client(factory: Callable[..., RunningServer], *plugins: str) -> RestClient:
    return factory(
        f"--enable-admission-plugins={','.join(plugins)}", "--disable-admission-plugins=ServiceAccount"
    ).client()


def _namespace(client: RestClient, name: str, annotations: dict[str, str]) -> None:
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "annotations": annotations}}
    created(client, "namespaces", body, "")


def test_owner_reference_needs_delete_permission(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text("bob-token,bob,u1\n")
    server = svc_server_factory(
        f"--token-auth-file={tokens}",
        "--authorization-mode=RBAC",
        "--enable-admission-plugins=OwnerReferencesPermissionEnforcement",
    )
    admin = server.client()
    rules = [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create", "get"]}]
    role = {
        "apiVersion": "rbac.authorization.svc/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "maker"},
        "rules": rules,
    }
    assert admin.request("POST", f"{RBAC}/clusterroles", body=role).status == 201
    binding = {
        "apiVersion": "rbac.authorization.svc/v1",
        "kind": "ClusterRoleBinding",
        "metadata": {"name": "bob"},
        "roleRef": {"apiGroup": "rbac.authorization.svc", "kind": "ClusterRole", "name": "maker"},
        "subjects": [{"kind": "User", "name": "bob"}],
    }
    assert admin.request("POST", f"{RBAC}/clusterrolebindings", body=binding).status == 201
    bob = RestClient(dataclasses.replace(server.anonymous_client().config, token="bob-token"))
    owner = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "1234"}
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owned", "ownerReferences": [owner]}}
    try:
        response = create(bob, "configmaps", body)
        plain = create(bob, "configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "plain"}})
    finally:
        bob.close()
    assert response.status == 403
    assert response.json()["message"].startswith(
        'configmaps "owned" is forbidden: cannot set an ownerRef on a resource you can\'t delete: '
    )
    assert plain.status == 201


def test_namespace_is_created_on_demand(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = _client(svc_server_factory, "NamespaceAutoProvision")
    created(client, "configmaps", {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}, "fresh")
    assert client.request("GET", core_path("namespaces", "", "fresh")).status == 200


def test_hard_anti_affinity_only_over_hosts(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = _client(svc_server_factory, "LimitPodHardAntiAffinityTopology")
    term = {"labelSelector": {"matchLabels": {"app": "x"}}, "topologyKey": "topology.svc.io/zone"}
    affinity = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    response = create(client, "pods", pod("p", affinity=affinity))
    assert response.json()["message"] == (
        'pods "p" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey '
        "topology.svc.io/zone but only key svc.io/hostname is allowed"
    )


def test_extended_resources_are_tolerated(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = _client(svc_server_factory, "ExtendedResourceToleration")
    container = {"name": "c", "image": "cuda", "resources": {"limits": {"example.com/gpu": "1"}}}
    tolerations = created(client, "pods", pod("p", container))["spec"]["tolerations"]
    assert {"key": "example.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in tolerations


def test_namespace_node_selector_is_merged_and_enforced(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = _client(svc_server_factory, "PodNodeSelector")
    _namespace(client, "edge", {"scheduler.alpha.kubernetes.io/node-selector": "site=edge"})
    assert created(client, "pods", pod("a"), "edge")["spec"]["nodeSelector"] == {"site": "edge"}
    response = create(client, "pods", pod("b", nodeSelector={"site": "core"}), "edge")
    assert response.json()["message"] == (
        'pods "b" is forbidden: pod node label selector conflicts with its namespace node label selector'
    )


def test_namespace_default_tolerations_and_whitelist(svc_server_factory: Callable[..., RunningServer]) -> None:
    client = _client(svc_server_factory, "PodTolerationRestriction")
    allowed = [{"key": "dedicated", "operator": "Equal", "value": "team"}]
    # what DefaultTolerationSeconds adds to every pod
    node_conditions = [{"key": f"node.svc.io/{c}", "operator": "Exists"} for c in ("not-ready", "unreachable")]
    _namespace(
        client,
        "team",
        {
            "scheduler.alpha.kubernetes.io/defaultTolerations": json.dumps(allowed),
            "scheduler.alpha.kubernetes.io/tolerationsWhitelist": json.dumps(allowed + node_conditions),
        },
    )
    tolerations = created(client, "pods", pod("a"), "team")["spec"]["tolerations"]
    assert {"key": "dedicated", "operator": "Equal", "value": "team"} in tolerations
    response = create(client, "pods", pod("b", tolerations=[{"key": "gpu", "operator": "Exists"}]), "team")
    assert response.json()["message"] == (
        'pods "b" is forbidden: pod tolerations (possibly merged with namespace default tolerations) conflict '
        "with its namespace whitelist"
    )


def test_event_rate_limit_answers_429_past_the_burst(
    svc_server_factory: Callable[..., RunningServer], tmp_path: Path
) -> None:
    (tmp_path / "events.yaml").write_text(
        "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\n"
        "limits:\n- type: Namespace\n  qps: 0.001\n  burst: 2\n"
    )
    config = tmp_path / "admission.yaml"
    config.write_text(
        "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n"
        "- name: EventRateLimit\n  path: events.yaml\n"
    )
    client = svc_server_factory(
        "--enable-admission-plugins=EventRateLimit", f"--admission-control-config-file={config}"
    ).client()

    def event(name: str) -> Obj:
        return {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"name": name},
            "involvedObject": {"kind": "Pod", "name": "p", "namespace": "default"},
            "reason": "Test",
            "message": "m",
        }

    statuses = [create(client, "events", event(f"e{i}")).status for i in range(3)]
    assert statuses == [201, 201, 429]
    rejected = create(client, "events", event("e4")).json()
    assert (rejected["reason"], rejected["message"]) == (
        "TooManyRequests",
        "Too many requests: limit reached on type Namespace for key default",
    )

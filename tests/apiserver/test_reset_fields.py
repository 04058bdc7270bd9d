"""The field manager leaves alone what a kind's strategy resets (upstream's `GetResetFields`): an apply
or update through `/status` neither changes nor owns `spec` (nor the metadata the kind resets), and one
through the main resource neither changes nor owns `status`."""

from __future__ import annotations

import copy

from tests.apiserver.crd.crds import WIDGETS, install, widget
from tests.e2e.kubectl_runner import Kubectl

APPLY = "application/apply-patch+yaml"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "web", "labels": {"tier": "front"}},
    "spec": {
        "replicas": 1,
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
    },
}
SERVICES = "/api/v1/namespaces/default/services"
PODS = "/api/v1/namespaces/default/pods"


def _entry(obj: dict, manager: str, subresource: str = "") -> dict | None:
    for entry in obj["metadata"].get("managedFields") or []:
        if entry["manager"] == manager and entry.get("subresource", "") == subresource:
            return entry
    return None


def _apply(client, path: str, body: dict, manager: str):
    return client.request(
        "PATCH", path, body=body, params={"fieldManager": manager, "force": "true"}, content_type=APPLY
    )


def test_an_apply_to_status_carrying_spec_neither_changes_nor_owns_it(svc_server) -> None:
    client = svc_server.client()
    assert client.request("POST", DEPLOYMENTS, body=DEPLOYMENT).status == 201
    config = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 5},
        "status": {"replicas": 2},
    }
    response = _apply(client, f"{DEPLOYMENTS}/web/status", config, "tracker")
    assert response.status == 200, response.json()
    stored = client.request("GET", f"{DEPLOYMENTS}/web").json()
    assert stored["spec"]["replicas"] == 1
    assert stored["status"]["replicas"] == 2
    assert _entry(stored, "tracker", "status")["fieldsV1"] == {"f:status": {"f:replicas": {}}}


def test_an_apply_to_the_main_resource_carrying_status_neither_changes_nor_owns_it(svc_server) -> None:
    client = svc_server.client()
    assert client.request("POST", DEPLOYMENTS, body=DEPLOYMENT).status == 201
    config = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"replicas": 3},
        "status": {"replicas": 7},
    }
    response = _apply(client, f"{DEPLOYMENTS}/web", config, "deployer")
    assert response.status == 200, response.json()
    assert response.json().get("status", {}).get("replicas") in (None, 0)
    assert _entry(response.json(), "deployer")["fieldsV1"] == {"f:spec": {"f:replicas": {}}}


def test_an_update_through_status_records_only_status(svc_server) -> None:
    """Deployment's status strategy also resets the labels, so a label changed through `/status`
    is neither stored nor owned."""
    client = svc_server.client()
    assert client.request("POST", DEPLOYMENTS, body=DEPLOYMENT).status == 201
    live = client.request("GET", f"{DEPLOYMENTS}/web").json()
    live["metadata"]["labels"]["tier"] = "back"
    live["spec"]["replicas"] = 9
    live["status"] = {"replicas": 4}
    response = client.request("PUT", f"{DEPLOYMENTS}/web/status", body=live, params={"fieldManager": "updater"})
    assert response.status == 200, response.json()
    updated = response.json()
    assert updated["metadata"]["labels"] == {"tier": "front"}
    assert updated["spec"]["replicas"] == 1
    assert _entry(updated, "updater", "status")["fieldsV1"] == {"f:status": {"f:replicas": {}}}


def test_a_kind_whose_status_keeps_labels_records_them(svc_server) -> None:
    """A Service's status strategy resets only the spec: a label written through `/status` is stored
    and owned by the writer, as upstream does."""
    client = svc_server.client()
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "db"}, "spec": {"ports": [{"port": 80}]}}
    assert client.request("POST", SERVICES, body=service).status == 201
    config = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "db", "labels": {"seen": "yes"}},
        "status": {"loadBalancer": {}},
    }
    response = _apply(client, f"{SERVICES}/db/status", config, "watcher")
    assert response.status == 200, response.json()
    assert response.json()["metadata"]["labels"] == {"seen": "yes"}
    fields = _entry(response.json(), "watcher", "status")["fieldsV1"]
    assert fields["f:metadata"] == {"f:labels": {"f:seen": {}}}


def test_a_pod_status_write_does_not_own_owner_references(svc_server) -> None:
    client = svc_server.client()
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    assert client.request("POST", PODS, body=pod).status == 201
    uid = "6b3b3b1e-0000-4000-8000-000000000001"
    reference = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": uid}
    config = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "ownerReferences": [reference]},
        "status": {"message": "hello"},
    }
    response = _apply(client, f"{PODS}/p/status", config, "kubelet")
    assert response.status == 200, response.json()
    assert "ownerReferences" not in response.json()["metadata"]
    assert _entry(response.json(), "kubelet", "status")["fieldsV1"] == {"f:status": {"f:message": {}}}


def test_a_custom_resource_status_apply_does_not_own_spec(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    assert client.request("POST", WIDGETS, body=widget("w", color="red", replicas=1)).status == 201
    config = copy.deepcopy(widget("w", color="blue"))
    config["status"] = {"replicas": 1}
    response = _apply(client, f"{WIDGETS}/w/status", config, "operator")
    assert response.status == 200, response.json()
    assert response.json()["spec"]["color"] == "red"
    assert _entry(response.json(), "operator", "status")["fieldsV1"] == {"f:status": {"f:replicas": {}}}

    main = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "status": {"replicas": 9}}
    response = _apply(client, f"{WIDGETS}/w", main, "operator")
    assert response.status == 200, response.json()
    assert response.json()["status"]["replicas"] == 1
    assert _entry(response.json(), "operator") is None


def test_kubectl_server_side_apply_to_status_leaves_spec(svc_server_factory, kubectl_binary, tmp_path) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    assert server.client().request("POST", DEPLOYMENTS, body=DEPLOYMENT).status == 201
    manifest = tmp_path / "status.yaml"
    manifest.write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        "spec: {replicas: 4}\nstatus: {replicas: 3}\n"
    )
    kubectl.run(
        "apply", "--server-side", "--subresource=status", "--field-manager=rollout", "--force-conflicts",
        "-f", str(manifest),
    )  # fmt: skip
    stored = server.client().request("GET", f"{DEPLOYMENTS}/web").json()
    assert stored["spec"]["replicas"] == 1
    assert stored["status"]["replicas"] == 3
    assert _entry(stored, "rollout", "status")["fieldsV1"] == {"f:status": {"f:replicas": {}}}

"""Discovery documents and OpenAPI under the svc profile."""

from __future__ import annotations

import pytest


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def test_api_versions(api) -> None:
    body = api.request("GET", "/api").json()
    assert body["kind"] == "APIVersions"
    assert body["versions"] == ["v1"]
    assert body["serverAddressByClientCIDRs"][0]["clientCIDR"] == "0.0.0.0/0"


def test_group_list_orders_groups_and_prefers_ga(api) -> None:
    groups = api.request("GET", "/apis").json()["groups"]
    names = [group["name"] for group in groups]
    assert names.index("apps") < names.index("rbac.authorization.svc")
    autoscaling = next(group for group in groups if group["name"] == "autoscaling")
    assert [v["version"] for v in autoscaling["versions"]] == ["v2", "v1"]
    assert autoscaling["preferredVersion"]["version"] == "v2"


def test_resource_list_has_subresources_and_short_names(api) -> None:
    body = api.request("GET", "/apis/apps/v1").json()
    entries = {entry["name"]: entry for entry in body["resources"]}
    assert entries["deployments"]["shortNames"] == ["deploy"]
    assert entries["deployments"]["categories"] == ["all"]
    assert entries["deployments"]["verbs"] == [
        "create",
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "update",
        "watch",
    ]
    assert entries["deployments/scale"]["group"] == "autoscaling"
    assert entries["deployments/status"]["kind"] == "Deployment"


def test_discovery_lists_exactly_the_subresources_served(api) -> None:
    names = {entry["name"] for entry in api.request("GET", "/api/v1").json()["resources"]}
    pods = {name for name in names if name.startswith("pods/")}
    assert pods == {
        "pods/attach",
        "pods/binding",
        "pods/ephemeralcontainers",
        "pods/eviction",
        "pods/exec",
        "pods/log",
        "pods/portforward",
        "pods/proxy",
        "pods/resize",
        "pods/status",
    }
    assert "bindings" in names
    csrs = api.request("GET", "/apis/certificates.svc/v1").json()["resources"]
    assert {entry["name"] for entry in csrs} == {
        "certificatesigningrequests",
        "certificatesigningrequests/approval",
        "certificatesigningrequests/status",
    }


def test_aggregated_discovery(api) -> None:
    accept = "application/json;g=apidiscovery.svc;v=v2;as=APIGroupDiscoveryList,application/json"
    response = api.request("GET", "/apis", accept=accept)
    assert response.headers["Content-Type"] == "application/json;g=apidiscovery.svc;v=v2;as=APIGroupDiscoveryList"
    body = response.json()
    assert body["kind"] == "APIGroupDiscoveryList"
    apps = next(item for item in body["items"] if item["metadata"]["name"] == "apps")
    deployments = next(r for r in apps["versions"][0]["resources"] if r["resource"] == "deployments")
    assert deployments["scope"] == "Namespaced"
    assert {s["subresource"] for s in deployments["subresources"]} == {"scale", "status"}


def test_beta_versions_are_off_unless_runtime_config_enables_them(svc_server_factory) -> None:
    default = svc_server_factory().client()
    assert default.request("GET", "/apis/networking.svc/v1beta1").status == 404
    enabled = svc_server_factory("--runtime-config=networking.svc/v1beta1=true").client()
    assert enabled.request("GET", "/apis/networking.svc/v1beta1").status == 200


def test_version(api) -> None:
    body = api.request("GET", "/version").json()
    assert (body["major"], body["minor"]) == ("1", "36")
    assert body["gitVersion"].startswith("v1.36.0")


def test_openapi_v3_document_per_group_version(api) -> None:
    root = api.request("GET", "/openapi/v3").json()
    url = root["paths"]["apis/apps/v1"]["serverRelativeURL"]
    document = api.request("GET", url).json()
    schema = document["components"]["schemas"]["io.k8s.api.apps.v1.Deployment"]
    assert schema["x-kubernetes-group-version-kind"] == [{"group": "apps", "kind": "Deployment", "version": "v1"}]
    post = document["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments"]["post"]
    assert "fieldValidation" in {parameter["name"] for parameter in post["parameters"]}
    rbac = api.request("GET", root["paths"]["apis/rbac.authorization.svc/v1"]["serverRelativeURL"]).json()
    role = rbac["components"]["schemas"]["io.k8s.api.rbac.v1.Role"]
    assert role["x-kubernetes-group-version-kind"][0]["group"] == "rbac.authorization.svc"


def test_openapi_v2(api) -> None:
    document = api.request("GET", "/openapi/v2").json()
    assert document["swagger"] == "2.0"
    assert "io.k8s.api.core.v1.Pod" in document["definitions"]


def _hash(api, group_version: str, resource: str) -> str:
    prefix = "/api" if group_version == "v1" else "/apis"
    resources = api.request("GET", f"{prefix}/{group_version}").json()["resources"]
    return next(r["storageVersionHash"] for r in resources if r["name"] == resource)


def test_versions_stored_together_share_the_storage_version_hash(svc_server_factory) -> None:
    """Upstream's hash names the storage version: both HPA versions hash autoscaling/v2, and
    events.k8s.io Events hash the core Event they are stored as."""
    api = svc_server_factory("--brand-profile=kubernetes").client()
    assert _hash(api, "autoscaling/v1", "horizontalpodautoscalers") == "qwQve8ut294="
    assert _hash(api, "autoscaling/v2", "horizontalpodautoscalers") == "qwQve8ut294="
    assert _hash(api, "v1", "events") == "r2yiGXH7wu8="
    assert _hash(api, "events.k8s.io/v1", "events") == "r2yiGXH7wu8="

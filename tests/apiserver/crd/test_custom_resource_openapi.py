"""OpenAPI v2 and v3 describe served custom resource versions, and stop when the CRD goes (issue 14)."""

from __future__ import annotations

from tests.apiserver.crd.crds import CRD_PATH, install, wait_for_status

DEFINITION = "com.example.v1.Widget"


def test_v3_has_a_document_for_the_group_version(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    paths = client.request("GET", "/openapi/v3").json()["paths"]
    assert "apis/example.com/v1" in paths
    document = client.request("GET", "/openapi/v3/apis/example.com/v1").json()
    schemas = document["components"]["schemas"]
    widget = schemas[DEFINITION]
    assert widget["x-kubernetes-group-version-kind"] == [{"group": "example.com", "version": "v1", "kind": "Widget"}]
    assert widget["properties"]["spec"]["properties"]["ports"]["x-kubernetes-list-map-keys"] == ["name"]
    assert "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" in schemas
    assert "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}/scale" in document["paths"]


def test_v2_has_the_definition(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    document = client.request("GET", "/openapi/v2").json()
    assert DEFINITION in document["definitions"]
    assert "/apis/example.com/v1/namespaces/{namespace}/widgets" in document["paths"]


def test_the_document_goes_with_the_crd(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    install(client)
    client.request("DELETE", f"{CRD_PATH}/widgets.example.com")
    assert wait_for_status(client, "/openapi/v3/apis/example.com/v1", 404) == 404
    assert DEFINITION not in client.request("GET", "/openapi/v2").json()["definitions"]

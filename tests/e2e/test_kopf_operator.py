"""A real operator framework (kopf) reacting to ConfigMap create, update and delete."""

from __future__ import annotations

import time

HANDLERS = """
    @kopf.on.startup()
    def configure(settings, **_):
        settings.persistence.finalizer = "example.com/kopf-finalizer"

    @kopf.on.create("v1", "configmaps", labels={"watched": "yes"})
    def created(name, body, **_):
        record("create", name, body.get("data", {}).get("v"))

    @kopf.on.update("v1", "configmaps", labels={"watched": "yes"})
    def updated(name, body, **_):
        record("update", name, body.get("data", {}).get("v"))

    @kopf.on.delete("v1", "configmaps", labels={"watched": "yes"})
    def deleted(name, **_):
        record("delete", name, None)
    """


def test_kopf_operator_reacts(svc_server_factory, kopf_operator) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    api = server.client()
    operator = kopf_operator(server, HANDLERS)
    body = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "op", "labels": {"watched": "yes"}},
        "data": {"v": "1"},
    }
    assert api.request("POST", "/api/v1/namespaces/default/configmaps", body=body).status == 201
    assert operator.wait_for(1)[:1] == [["create", "op", "1"]]
    patch = {"data": {"v": "2"}}
    api.request(
        "PATCH", "/api/v1/namespaces/default/configmaps/op", body=patch, content_type="application/merge-patch+json"
    )
    assert operator.wait_for(2)[1] == ["update", "op", "2"]
    api.request("DELETE", "/api/v1/namespaces/default/configmaps/op")
    assert operator.wait_for(3)[2] == ["delete", "op", None]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if api.request("GET", "/api/v1/namespaces/default/configmaps/op").status == 404:
            break
        time.sleep(0.2)
    assert api.request("GET", "/api/v1/namespaces/default/configmaps/op").status == 404

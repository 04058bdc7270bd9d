"""kopf runs an operator on a CRD: it reacts to create, update and delete of custom resources and
writes their status through the status subresource (issue 14)."""

from __future__ import annotations

import time

from tests.apiserver.crd.crds import WIDGETS, crd, install, widget

HANDLERS = """
    @kopf.on.create("example.com", "v1", "widgets")
    def created(name, spec, **_):
        record("create", name, spec.get("color"))
        return {"seen": spec.get("color")}

    @kopf.on.update("example.com", "v1", "widgets")
    def updated(name, spec, **_):
        record("update", name, spec.get("color"))

    @kopf.on.delete("example.com", "v1", "widgets")
    def deleted(name, **_):
        record("delete", name, None)
    """


def _crd_keeping_any_status() -> dict:
    """kopf writes handler results under status: the schema must keep them (as upstream prunes too)."""
    version = crd()["spec"]["versions"][0]
    version["schema"]["openAPIV3Schema"]["properties"]["status"]["x-kubernetes-preserve-unknown-fields"] = True
    return crd(versions=[version])


def test_kopf_operator_on_a_crd(svc_server_factory, kopf_operator) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    api = server.client()
    install(api, _crd_keeping_any_status())
    operator = kopf_operator(server, HANDLERS)
    assert api.request("POST", WIDGETS, body=widget("w", color="red")).status == 201
    assert operator.wait_for(1)[:1] == [["create", "w", "red"]]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        current = api.request("GET", f"{WIDGETS}/w").json()
        if (current.get("status") or {}).get("created"):
            break
        time.sleep(0.2)
    assert current["status"]["created"] == {"seen": "red"}
    api.request("PATCH", f"{WIDGETS}/w", body={"spec": {"color": "blue"}}, content_type="application/merge-patch+json")
    assert operator.wait_for(2)[1] == ["update", "w", "blue"]
    api.request("DELETE", f"{WIDGETS}/w")
    assert operator.wait_for(3)[2] == ["delete", "w", None]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and api.request("GET", f"{WIDGETS}/w").status != 404:
        time.sleep(0.2)
    assert api.request("GET", f"{WIDGETS}/w").status == 404

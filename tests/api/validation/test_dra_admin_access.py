"""Admin access to devices only in namespaces labelled `resource.kubernetes.io/admin-access: "true"`,
for claims, claim templates and allocations written through a claim's status (upstream's
AuthorizedForAdmin and AuthorizedForAdminStatus)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.api.validation.support import with_path
from tests.api.validation.test_dra_kinds import ALLOCATION, CLAIM, TEMPLATE

DETAIL = (
    "Forbidden: admin access to devices requires the `resource.kubernetes.io/admin-access: true` label "
    "on the containing namespace"
)


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


def _namespace(api, name: str, labels: dict[str, str] | None = None) -> None:
    body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels or {}}}
    assert api.request("POST", "/api/v1/namespaces", body=body).status == 201


def _in(obj: dict[str, Any], namespace: str) -> dict[str, Any]:
    return with_path(obj, "metadata.namespace", namespace)


def _collection(namespace: str, plural: str = "resourceclaims") -> str:
    return f"/apis/resource.k8s.io/v1/namespaces/{namespace}/{plural}"


ADMIN_CLAIM = with_path(CLAIM, "spec.devices.requests.0.exactly.adminAccess", True)


def test_admin_claim_outside_an_admin_namespace_is_refused(api) -> None:
    _namespace(api, "team")
    response = api.request("POST", _collection("team"), body=_in(ADMIN_CLAIM, "team"))
    assert response.status == 422, response.json()
    assert response.json()["details"]["causes"] == [
        {"reason": "FieldValueForbidden", "message": DETAIL, "field": "spec.devices.requests[0].adminAccess"}
    ]
    assert api.request("GET", _collection("team")).json()["items"] == []


def test_admin_claim_in_an_admin_namespace_is_created(api) -> None:
    _namespace(api, "ops", {"resource.kubernetes.io/admin-access": "true"})
    assert api.request("POST", _collection("ops"), body=_in(ADMIN_CLAIM, "ops")).status == 201


def test_admin_claim_template_outside_an_admin_namespace_is_refused(api) -> None:
    _namespace(api, "team")
    template = with_path(TEMPLATE, "spec.spec.devices.requests.0.exactly.adminAccess", True)
    response = api.request("POST", _collection("team", "resourceclaimtemplates"), body=_in(template, "team"))
    assert response.status == 422, response.json()
    assert [cause["field"] for cause in response.json()["details"]["causes"]] == [
        "spec.devices.requests[0].adminAccess"
    ]


def _allocate_with_admin_access(api, namespace: str) -> Any:
    created = api.request("POST", _collection(namespace), body=_in(CLAIM, namespace))
    assert created.status == 201, created.json()
    claim = created.json()
    allocation = copy.deepcopy(ALLOCATION)
    allocation["devices"]["results"][0]["adminAccess"] = True
    claim["status"] = {"allocation": allocation}
    return api.request("PUT", f"{_collection(namespace)}/gpu/status", body=claim)


def test_admin_allocation_outside_an_admin_namespace_is_refused(api) -> None:
    _namespace(api, "team")
    response = _allocate_with_admin_access(api, "team")
    assert response.status == 422, response.json()
    assert response.json()["details"]["causes"] == [
        {
            "reason": "FieldValueForbidden",
            "message": DETAIL,
            "field": "status.allocation.devices.results[0].adminAccess",
        }
    ]


def test_admin_allocation_in_an_admin_namespace_is_written(api) -> None:
    _namespace(api, "ops", {"resource.kubernetes.io/admin-access": "true"})
    response = _allocate_with_admin_access(api, "ops")
    assert response.status == 200, response.json()
    assert response.json()["status"]["allocation"]["devices"]["results"][0]["adminAccess"] is True

"""`status.extendedResourceClaimStatus` of a pod, as upstream validates it on status writes
(`validatePodExtendedResourceClaimStatus`), and dropped from status writes while `DRAExtendedResource` is off
unless already stored (`dropDisabledPodStatusFields`)."""

from __future__ import annotations

import copy

import pytest

from tests.api.validation.support import assert_causes

PODS = "/api/v1/namespaces/default/pods"
AT = "status.extendedResourceClaimStatus"
INVALID, REQUIRED, DUPLICATE = "FieldValueInvalid", "FieldValueRequired", "FieldValueDuplicate"
GPU = "example.com/gpu"
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p"},
    "spec": {
        "initContainers": [
            {"name": "setup", "image": "busybox", "resources": {"requests": {GPU: "1"}, "limits": {GPU: "1"}}}
        ],
        "containers": [{"name": "c", "image": "busybox", "resources": {"requests": {GPU: "2"}, "limits": {GPU: "2"}}}],
    },
}
GOOD = {
    "resourceClaimName": "p-extended-resources-x7k2p",
    "requestMappings": [
        {"containerName": "c", "resourceName": GPU, "requestName": "container-0-request-0"},
        {"containerName": "setup", "resourceName": GPU, "requestName": "container-1-request-0"},
    ],
}


@pytest.fixture
def api(svc_server_factory):
    client = svc_server_factory("--brand-profile=kubernetes").client()
    created = client.request("POST", PODS, body=POD)
    assert created.status == 201, created.body
    return client


def _write(client, claim_status):
    pod = client.request("GET", f"{PODS}/p").json()
    pod["status"]["extendedResourceClaimStatus"] = claim_status
    return client.request("PUT", f"{PODS}/p/status", body=pod)


def _causes(response) -> list[tuple[str, str, str]]:
    assert response.status == 422, response.body
    return [(c["field"], c["reason"], c["message"]) for c in response.json()["details"]["causes"]]


def test_a_valid_mapping_is_stored(api) -> None:
    response = _write(api, GOOD)
    assert response.status == 200, response.body
    assert api.request("GET", f"{PODS}/p").json()["status"]["extendedResourceClaimStatus"] == GOOD


def test_mappings_name_containers_and_their_requests(api) -> None:
    status = {
        "resourceClaimName": "Bad_Name",
        "requestMappings": [
            {"containerName": "ghost", "resourceName": GPU, "requestName": "r0"},
            {"containerName": "c", "resourceName": "example.com/fpga", "requestName": "Not_A_Label"},
            {"containerName": "c", "resourceName": GPU, "requestName": "r1"},
            {"containerName": "c", "resourceName": GPU, "requestName": "r1"},
        ],
    }
    mappings = f"{AT}.requestMappings"
    assert_causes(
        _causes(_write(api, status)),
        [
            (f"{mappings}[0].containerName", INVALID, "must match the name of an entry in spec.initContainers.name"),
            (f"{mappings}[1].resourceName", INVALID, "must match the extended resource name of an entry in"),
            (f"{AT}.requestName", INVALID, "a lowercase RFC 1123 label must consist of"),
            (f"{mappings}[3].containerName", DUPLICATE, 'Duplicate value: "c"'),
            (f"{mappings}[3].resourceName", DUPLICATE, f'Duplicate value: "{GPU}"'),
            (f"{mappings}[3].requestName", DUPLICATE, 'Duplicate value: "r1"'),
            (f"{AT}.resourceClaimName", INVALID, "a lowercase RFC 1123 subdomain must consist of"),
        ],
    )
    assert "extendedResourceClaimStatus" not in api.request("GET", f"{PODS}/p").json()["status"]


def test_at_least_one_mapping_and_a_claim_name_are_required(api) -> None:
    assert_causes(
        _causes(_write(api, {"requestMappings": []})),
        [
            (f"{AT}.requestMappings", REQUIRED, "at least one request mapping is required"),
            (f"{AT}.resourceClaimName", REQUIRED, "Required value"),
        ],
    )


def test_with_the_gate_off_a_status_write_drops_the_field(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes", "--feature-gates=DRAExtendedResource=false").client()
    assert client.request("POST", PODS, body=copy.deepcopy(POD)).status == 201
    response = _write(client, {"requestMappings": []})
    assert response.status == 200, response.body
    assert "extendedResourceClaimStatus" not in response.json()["status"]

"""Fields upstream's Go types always write come back in every answer, whatever the storage media type.

encoding/json never omits a struct value (only `omitzero` does) and writes a scalar without
`omitempty` even at its zero: a ResourceClaim created without `spec.devices` answers
`"devices": {"requests": null}`, a PodTemplate without template metadata `"metadata": {}`, a Service
`status.loadBalancer: {}`. The write's answer, GET, LIST and watch agree, and an object stored as JSON
(under `--storage-media-type=application/json`, or written before such a field was filled) reads back
as one stored as Protobuf does.
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

from svc.testing.harness import in_process_server

CLAIMS = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"
TEMPLATES = "/api/v1/namespaces/default/podtemplates"
ROLES = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
SERVICES = "/api/v1/namespaces/default/services"
MEDIA_TYPES = ["application/json", ""]  # "": the default, Protobuf


def _claim(name: str) -> dict[str, Any]:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name}, "spec": {}}


@pytest.fixture(params=MEDIA_TYPES, ids=["json", "protobuf"])
def server(request, tmp_path):
    args = ["--brand-profile=kubernetes"]
    if request.param:
        args.append(f"--storage-media-type={request.param}")
    with in_process_server(tmp_path / "data", *args) as running:
        yield running


def test_a_claim_without_devices_answers_the_empty_struct(server) -> None:
    api = server.client()
    created = api.request("POST", CLAIMS, body=_claim("c"))
    assert created.status == 201, created.body
    assert created.json()["spec"] == {"devices": {"requests": None}}
    assert api.request("GET", f"{CLAIMS}/c").json()["spec"] == {"devices": {"requests": None}}
    assert api.request("GET", CLAIMS).json()["items"][0]["spec"] == {"devices": {"requests": None}}


def test_a_watch_event_carries_the_empty_struct(server) -> None:
    api = server.client()
    api.request("POST", CLAIMS, body=_claim("c"))
    events = api.request("GET", f"{CLAIMS}?watch=1&timeoutSeconds=1").body.splitlines()
    assert json.loads(events[0])["object"]["spec"]["devices"] == {"requests": None}


def test_a_template_without_metadata_answers_an_empty_one(server) -> None:
    body = {
        "apiVersion": "v1",
        "kind": "PodTemplate",
        "metadata": {"name": "t"},
        "template": {"spec": {"containers": [{"name": "c", "image": "busybox"}]}},
    }
    created = server.client().request("POST", TEMPLATES, body=body)
    assert created.status == 201, created.body
    assert created.json()["template"]["metadata"] == {}  # creationTimestamp is omitzero: not null


def test_a_service_answers_its_load_balancer_status(server) -> None:
    body = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"}, "spec": {"ports": [{"port": 80}]}}
    created = server.client().request("POST", SERVICES, body=body)
    assert created.status == 201, created.body
    assert created.json()["status"] == {"loadBalancer": {}}


def _store_raw_json(server, store_key: tuple[str, str, str], name: str, obj: dict[str, Any]) -> None:
    """Writes a value straight into storage, as JSON written before these fields were filled."""
    store = server.server.stores[store_key]
    server.call(server.server.objects.backend.create(store.key("default", name), orjson.dumps(obj)))


def test_a_role_stored_as_json_without_rules_reads_them_null(server) -> None:
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "old"}}
    _store_raw_json(server, ("rbac.authorization.k8s.io", "v1", "roles"), "old", role)
    api = server.client()
    assert api.request("GET", f"{ROLES}/old").json()["rules"] is None
    assert b'"rules":null' in api.request("GET", f"{ROLES}/old").body
    assert api.request("GET", ROLES).json()["items"][0]["rules"] is None


def test_a_claim_stored_as_json_without_devices_reads_the_empty_struct(server) -> None:
    claim = {**_claim("old"), "metadata": {"name": "old", "namespace": "default"}}
    _store_raw_json(server, ("resource.k8s.io", "v1", "resourceclaims"), "old", claim)
    read = server.client().request("GET", f"{CLAIMS}/old").json()
    assert read["spec"] == {"devices": {"requests": None}}
    assert read["status"] == {}


def test_json_and_protobuf_storage_answer_alike(tmp_path) -> None:
    answers = []
    for index, media_type in enumerate(MEDIA_TYPES):
        args = ["--brand-profile=kubernetes"] + ([f"--storage-media-type={media_type}"] if media_type else [])
        with in_process_server(tmp_path / f"data{index}", *args) as running:
            api = running.client()
            role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"}}
            api.request("POST", ROLES, body={**role, "rules": []})
            api.request("POST", CLAIMS, body=_claim("c"))
            read = [api.request("GET", f"{path}/{name}").json() for path, name in ((ROLES, "r"), (CLAIMS, "c"))]
            for obj in read:
                for key in ("uid", "resourceVersion", "creationTimestamp", "managedFields"):
                    obj["metadata"].pop(key, None)
            answers.append(read)
    assert answers[0] == answers[1]

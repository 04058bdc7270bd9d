"""Lists and maps without `omitempty` in upstream's Go types come back as `null` when empty, as upstream
serves them from Protobuf storage: a Role created with `rules: []` (or without `rules`) answers, reads
and watches `rules: null`, and its Update entry still records `f:rules` (upstream's field manager
records a null field). The official Python client reads such objects."""

from __future__ import annotations

import json
from typing import Any

import pytest
from kubernetes import client, config

ROLES = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
SLICES = "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices"


def _role(name: str, **fields: Any) -> dict[str, Any]:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": name}, **fields}


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes").client()


@pytest.mark.parametrize("fields", [{"rules": []}, {}], ids=["empty", "absent"])
def test_empty_rules_are_answered_and_read_as_null(api, fields: dict[str, Any]) -> None:
    created = api.request("POST", ROLES, body=_role("reader", **fields))
    assert created.status == 201, created.body
    assert created.json()["rules"] is None
    assert api.request("GET", f"{ROLES}/reader").json()["rules"] is None


def test_a_null_list_is_in_the_raw_json(api) -> None:
    api.request("POST", ROLES, body=_role("reader", rules=[]))
    assert b'"rules":null' in api.request("GET", f"{ROLES}/reader").body


def test_a_watch_event_carries_the_null_list(api) -> None:
    api.request("POST", ROLES, body=_role("reader", rules=[]))
    events = api.request("GET", f"{ROLES}?watch=1&timeoutSeconds=1").body.splitlines()
    assert json.loads(events[0])["object"]["rules"] is None


def _owned(obj: dict[str, Any]) -> dict[str, Any]:
    return obj["metadata"]["managedFields"][0]["fieldsV1"]


def test_the_update_entry_records_a_list_sent_empty(api) -> None:
    """Decoded, `rules: []` is an empty slice, not the nil an empty Role has: upstream records it."""
    assert "f:rules" in _owned(api.request("POST", ROLES, body=_role("reader", rules=[])).json())


@pytest.mark.parametrize("fields", [{"rules": None}, {}], ids=["null", "absent"])
def test_the_update_entry_leaves_out_a_list_not_sent(api, fields: dict[str, Any]) -> None:
    """Nil on both sides of upstream's compare: nobody owns it."""
    role = _role("reader", **fields)
    role["metadata"]["labels"] = {"team": "a"}
    owned = _owned(api.request("POST", ROLES, body=role).json())
    assert "f:labels" in owned["f:metadata"]
    assert "f:rules" not in owned


def test_an_applier_takes_rules_nobody_set_without_conflict(api) -> None:
    api.request("POST", ROLES, body=_role("reader"))
    rules = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]
    applied = api.request(
        "PATCH",
        f"{ROLES}/reader?fieldManager=applier",
        body=_role("reader", rules=rules),
        content_type="application/apply-patch+yaml",
    )
    assert applied.status == 200, applied.body
    assert applied.json()["rules"] == rules


def test_an_update_sending_back_the_null_list_keeps_its_owner(api) -> None:
    role = api.request("POST", ROLES, body=_role("reader", rules=[])).json()
    role["metadata"]["labels"] = {"a": "b"}
    updated = api.request("PUT", f"{ROLES}/reader", body=role).json()
    assert "f:rules" in _owned(updated)


def test_rules_given_are_kept(api) -> None:
    rules = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]
    assert api.request("POST", ROLES, body=_role("reader", rules=rules)).json()["rules"] == rules


def test_an_update_emptying_the_rules_reads_null(api) -> None:
    rules = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}]
    role = api.request("POST", ROLES, body=_role("reader", rules=rules)).json()
    updated = api.request("PUT", f"{ROLES}/reader", body={**role, "rules": []})
    assert updated.status == 200, updated.body
    assert updated.json()["rules"] is None


def test_an_endpoint_slice_without_ports_reads_null_ports(api) -> None:
    body = {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": {"name": "web-1"},
        "addressType": "IPv4",
        "endpoints": [],
    }
    created = api.request("POST", SLICES, body=body)
    assert created.status == 201, created.body
    assert (created.json()["endpoints"], created.json()["ports"]) == (None, None)


def test_the_python_client_reads_objects_with_null_lists(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    api = server.client()
    api.request("POST", ROLES, body=_role("reader", rules=[]))
    body = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice", "metadata": {"name": "web-1"}}
    api.request("POST", SLICES, body={**body, "addressType": "IPv4"})
    python_api = config.new_client_from_config(config_file=str(server.kubeconfig))
    try:
        assert not client.RbacAuthorizationV1Api(python_api).read_namespaced_role("reader", "default").rules
        read = client.DiscoveryV1Api(python_api).read_namespaced_endpoint_slice("web-1", "default")
        assert not read.endpoints and not read.ports
    finally:
        python_api.close()

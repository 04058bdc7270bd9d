"""Answers the server builds itself rather than reads from storage, written as upstream's Go structs
are: a list without `omitempty` is null when nil and `[]` when made empty, a non-pointer struct is
always written, a pointer without `omitempty` is null when unset, an `omitempty` zero is left out."""

from __future__ import annotations

import datetime
import json
from typing import Any

from svc.client.rest import RestClient

AUTHN = "authentication.svc/v1"
AUTHZ = "authorization.svc/v1"
TABLE = "application/json;as=Table;g=meta.svc;v=v1"
PARTIAL_LIST = "application/json;as=PartialObjectMetadataList;g=meta.svc;v=v1"


def _create(client: RestClient, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = client.request("POST", path, body=body)
    assert response.status == 201, response.json()
    return response.json()


def test_a_self_subject_review_is_a_new_object_made_now(svc_server) -> None:
    """Upstream builds a new SelfSubjectReview whose only metadata is its creation time."""
    body = {"apiVersion": AUTHN, "kind": "SelfSubjectReview", "metadata": {"name": "mine", "labels": {"a": "b"}}}
    review = _create(svc_server.client(), "/apis/authentication.svc/v1/selfsubjectreviews", body)
    assert list(review["metadata"]) == ["creationTimestamp"]
    made = datetime.datetime.strptime(review["metadata"]["creationTimestamp"], "%Y-%m-%dT%H:%M:%SZ")
    assert abs(made.replace(tzinfo=datetime.UTC) - datetime.datetime.now(datetime.UTC)).total_seconds() < 300


def test_a_rules_review_answers_an_empty_spec(svc_server) -> None:
    """Upstream's rules review is a new object holding only the status: the spec (a non-pointer struct)
    is `{}`, the request's namespace and metadata are not given back."""
    body = {
        "apiVersion": AUTHZ,
        "kind": "SelfSubjectRulesReview",
        "metadata": {"name": "mine"},
        "spec": {"namespace": "default"},
    }
    review = _create(svc_server.client(), "/apis/authorization.svc/v1/selfsubjectrulesreviews", body)
    assert review["spec"] == {}
    assert review["metadata"] == {"creationTimestamp": None}
    assert review["status"]["incomplete"] is False


def test_a_rules_review_without_a_namespace_is_a_bad_request(svc_server) -> None:
    body = {"apiVersion": AUTHZ, "kind": "SelfSubjectRulesReview", "spec": {}}
    response = svc_server.client().request("POST", "/apis/authorization.svc/v1/selfsubjectrulesreviews", body=body)
    assert response.status == 400
    assert response.json()["message"] == "no namespace on request"


def test_an_unbound_token_request_writes_a_null_bound_object_reference(svc_server) -> None:
    """`TokenRequestSpec.boundObjectRef` is a pointer without `omitempty`: null when the token is unbound."""
    client = svc_server.client()
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}
    _create(client, "/api/v1/namespaces/default/serviceaccounts", account)
    request = {"apiVersion": AUTHN, "kind": "TokenRequest", "spec": {}}
    answer = _create(client, "/api/v1/namespaces/default/serviceaccounts/robot/token", request)
    assert "boundObjectRef" in answer["spec"]
    assert answer["spec"]["boundObjectRef"] is None


def test_a_scale_of_zero_replicas_leaves_its_spec_empty(svc_server) -> None:
    """`ScaleSpec.replicas` is `omitempty` while `ScaleStatus.replicas` is not."""
    client = svc_server.client()
    labels = {"app": "zero"}
    template = {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "c", "image": "i"}]}}
    spec = {"replicas": 0, "selector": {"matchLabels": labels}, "template": template}
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "zero"}, "spec": spec}
    _create(client, "/apis/apps/v1/namespaces/default/deployments", deployment)
    scale = client.request("GET", "/apis/apps/v1/namespaces/default/deployments/zero/scale").json()
    assert scale["spec"] == {}
    assert scale["status"]["replicas"] == 0


def test_a_table_row_without_its_object_writes_it_as_null(svc_server) -> None:
    """`TableRow.object` is a RawExtension (a struct, never left out by `omitempty`): null for `None`."""
    client = svc_server.client()
    _create(
        client,
        "/api/v1/namespaces/default/configmaps",
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
    )
    table = client.request(
        "GET", "/api/v1/namespaces/default/configmaps", params={"includeObject": "None"}, accept=TABLE
    ).json()
    assert table["rows"][0]["object"] is None


def test_an_empty_partial_metadata_list_has_null_items(svc_server) -> None:
    """Upstream appends the items to a nil slice: an empty PartialObjectMetadataList's `items` is null."""
    listed = svc_server.client().request("GET", "/api/v1/namespaces/default/secrets", accept=PARTIAL_LIST).json()
    assert listed["kind"] == "PartialObjectMetadataList"
    assert "items" in listed
    assert listed["items"] is None


def test_an_access_review_gives_its_spec_back_as_its_go_type_writes_it(svc_server) -> None:
    """Upstream answers the decoded request: `omitempty` fields sent empty do not come back."""
    spec = {
        "user": "bob",
        "uid": "",
        "groups": [],
        "extra": {},
        "resourceAttributes": {"namespace": "", "verb": "get", "resource": "pods"},
    }
    body = {"apiVersion": AUTHZ, "kind": "SubjectAccessReview", "spec": spec}
    review = _create(svc_server.client(), "/apis/authorization.svc/v1/subjectaccessreviews", body)
    assert review["spec"] == {"user": "bob", "resourceAttributes": {"verb": "get", "resource": "pods"}}
    assert review["metadata"] == {"creationTimestamp": None}
    assert isinstance(review["status"]["allowed"], bool)


def test_an_empty_default_table_has_null_rows_and_a_printed_one_an_empty_list(svc_server) -> None:
    """Upstream's default table (kinds without a printer, such as roles) appends rows to a nil slice;
    its printers make theirs, so an empty ConfigMap table has `rows: []`."""
    client = svc_server.client()
    roles = client.request("GET", "/apis/rbac.authorization.svc/v1/namespaces/default/roles", accept=TABLE).json()
    assert [column["name"] for column in roles["columnDefinitions"]] == ["Name", "Created At"]
    assert roles["rows"] is None
    maps = client.request("GET", "/api/v1/namespaces/empty/configmaps", accept=TABLE).json()
    assert maps["rows"] == []


def test_a_table_watch_writes_null_column_definitions_after_the_first_event(svc_server) -> None:
    """Upstream converts later watch events with `NoHeaders`, leaving the column list nil."""
    client = svc_server.client()
    for name in ("a", "b"):
        _create(
            client,
            "/api/v1/namespaces/default/configmaps",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}},
        )
    stream = client.stream(
        "/api/v1/namespaces/default/configmaps", params={"watch": "1", "resourceVersion": "0"}, accept=TABLE
    )
    try:
        frames = iter(stream)
        first, second = json.loads(next(frames)), json.loads(next(frames))
    finally:
        stream.close()
    assert [column["name"] for column in first["object"]["columnDefinitions"]][:1] == ["Name"]
    assert "columnDefinitions" in second["object"]
    assert second["object"]["columnDefinitions"] is None
    assert len(second["object"]["rows"]) == 1


def test_a_review_s_namespace_follows_the_request_as_every_create_does(svc_server) -> None:
    """Upstream's create handler sets a namespaced review's namespace from the URL, clears a
    cluster-scoped one's, and refuses a namespace that differs from the URL's."""
    client = svc_server.client()
    spec = {"user": "bob", "resourceAttributes": {"namespace": "default", "verb": "get", "resource": "pods"}}
    local = {"apiVersion": AUTHZ, "kind": "LocalSubjectAccessReview", "spec": spec}
    path = "/apis/authorization.svc/v1/namespaces/default/localsubjectaccessreviews"
    assert _create(client, path, local)["metadata"] == {"namespace": "default", "creationTimestamp": None}
    elsewhere = {**local, "metadata": {"namespace": "other"}}
    refused = client.request("POST", path, body=elsewhere)
    assert refused.status == 400
    assert refused.json()["message"] == (
        "the namespace of the provided object does not match the namespace sent on the request"
    )
    cluster = {"apiVersion": AUTHZ, "kind": "SubjectAccessReview", "metadata": {"namespace": "x"}, "spec": spec}
    review = _create(client, "/apis/authorization.svc/v1/subjectaccessreviews", cluster)
    assert review["metadata"] == {"creationTimestamp": None}


def test_a_token_request_or_binding_naming_another_namespace_is_a_bad_request(svc_server) -> None:
    """The create handler checks the namespace before the subresource's own code runs."""
    client = svc_server.client()
    _create(
        client,
        "/api/v1/namespaces/default/serviceaccounts",
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}},
    )
    token = {"apiVersion": AUTHN, "kind": "TokenRequest", "metadata": {"namespace": "other"}, "spec": {}}
    refused = client.request("POST", "/api/v1/namespaces/default/serviceaccounts/robot/token", body=token)
    assert (refused.status, refused.json()["reason"]) == (400, "BadRequest")
    answer = _create(client, "/api/v1/namespaces/default/serviceaccounts/robot/token", {**token, "metadata": {}})
    assert answer["metadata"]["namespace"] == "default"
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [{"name": "c", "image": "i"}]},
    }
    _create(client, "/api/v1/namespaces/default/pods", pod)
    binding = {
        "apiVersion": "v1",
        "kind": "Binding",
        "metadata": {"name": "p", "namespace": "other"},
        "target": {"kind": "Node", "name": "n1"},
    }
    refused = client.request("POST", "/api/v1/namespaces/default/pods/p/binding", body=binding)
    assert (refused.status, refused.json()["reason"]) == (400, "BadRequest")
    assert "nodeName" not in client.request("GET", "/api/v1/namespaces/default/pods/p").json()["spec"]

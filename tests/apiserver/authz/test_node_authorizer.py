"""`--authorization-mode=Node,RBAC` end to end: a kubelet's user reads what its pods use, no more."""

from __future__ import annotations

import dataclasses

import pytest

from svc.client.rest import RestClient
from tests.apiserver.rbac.conftest import eventually

TOKENS = 'node-token,system:node:n1,u1,"system:nodes"\n'
FORBIDDEN_SECRET = (
    'secrets "other" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" '
    "in the namespace \"ns\": no relationship found between node 'n1' and this object"
)


@dataclasses.dataclass
class Cluster:
    admin: RestClient
    node: RestClient


@pytest.fixture
def cluster(svc_server_factory, tmp_path):
    tokens = tmp_path / "tokens.csv"
    tokens.write_text(TOKENS)
    server = svc_server_factory(f"--token-auth-file={tokens}", "--authorization-mode=Node,RBAC")
    admin = server.client()
    node = RestClient(dataclasses.replace(server.anonymous_client().config, token="node-token"))
    assert admin.request("POST", "/api/v1/namespaces", body={"metadata": {"name": "ns"}}).status == 201
    for name in ("mounted", "other"):
        secret = {"metadata": {"name": name}, "data": {}}
        assert admin.request("POST", "/api/v1/namespaces/ns/secrets", body=secret).status == 201
    pod = {
        "metadata": {"name": "web"},
        "spec": {
            "nodeName": "n1",
            "containers": [{"name": "c", "image": "nginx"}],
            "volumes": [{"name": "v", "secret": {"secretName": "mounted"}}],
        },
    }
    assert admin.request("POST", "/api/v1/namespaces/ns/pods", body=pod).status == 201
    yield Cluster(admin, node)
    node.close()


def test_a_node_reads_the_secret_its_pod_mounts(cluster):
    assert eventually(lambda: cluster.node.request("GET", "/api/v1/namespaces/ns/secrets/mounted").status == 200)


def test_a_node_is_refused_a_secret_no_pod_of_it_uses(cluster):
    response = cluster.node.request("GET", "/api/v1/namespaces/ns/secrets/other")
    assert response.status == 403
    assert response.json()["message"] == FORBIDDEN_SECRET


def test_deleting_the_pod_takes_the_secret_away(cluster):
    assert eventually(lambda: cluster.node.request("GET", "/api/v1/namespaces/ns/secrets/mounted").status == 200)
    assert cluster.admin.request("DELETE", "/api/v1/namespaces/ns/pods/web?gracePeriodSeconds=0").status == 200
    assert eventually(lambda: cluster.node.request("GET", "/api/v1/namespaces/ns/secrets/mounted").status == 403)


def test_a_node_lists_pods_only_with_its_node_field_selector(cluster):
    mine = cluster.node.request("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3Dn1")
    assert mine.status == 200
    assert [item["metadata"]["name"] for item in mine.json()["items"]] == ["web"]
    assert cluster.node.request("GET", "/api/v1/pods").status == 403


def test_an_access_review_passes_the_field_selector_to_the_node_authorizer(cluster):
    review = {
        "apiVersion": "authorization.svc/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": "system:node:n1",
            "groups": ["system:nodes"],
            "resourceAttributes": {
                "verb": "list",
                "resource": "pods",
                "fieldSelector": {"requirements": [{"key": "spec.nodeName", "operator": "In", "values": ["n1"]}]},
            },
        },
    }
    response = cluster.admin.request("POST", "/apis/authorization.svc/v1/subjectaccessreviews", body=review)
    assert response.json()["status"]["allowed"] is True

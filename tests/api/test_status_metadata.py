"""A write through `/status` keeps or drops metadata changes as the kind's upstream status strategy does
(`svc.api.status_metadata`), and the metadata it keeps is validated."""

from __future__ import annotations

from typing import Any

import pytest

from svc.api.resources import _table
from svc.api.status_metadata import KEPT_BY_KIND

NS = "/api/v1/namespaces/default"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
OWNER = {"apiVersion": "v1", "kind": "ConfigMap", "name": "owner", "uid": "6f1c2f5e-0000-4000-8000-000000000001"}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "labels": {"app": "p"}, "ownerReferences": [OWNER]},
    "spec": {"containers": [{"name": "c", "image": "busybox"}]},
}
DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d", "labels": {"app": "d"}},
    "spec": {
        "selector": {"matchLabels": {"app": "d"}},
        "template": {"metadata": {"labels": {"app": "d"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}},
    },
}


@pytest.fixture
def server(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes")


def _created(client, collection: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = client.request("POST", collection, body=body)
    assert answer.status == 201, answer.body
    return answer.json()


def _put_status(client, collection: str, obj: dict[str, Any]):
    return client.request("PUT", f"{collection}/{obj['metadata']['name']}/status", body=obj)


def test_every_built_in_status_subresource_has_a_metadata_rule() -> None:
    with_status = {(row["group"], row["kind"]) for row in _table() if "status" in row["subresources"]}
    assert with_status <= KEPT_BY_KIND.keys()


def test_pod_status_write_keeps_labels_and_annotations_but_not_owner_references(server) -> None:
    client = server.client()
    pod = _created(client, f"{NS}/pods", POD)
    pod["metadata"]["labels"] = {"app": "p", "seen": "yes"}
    pod["metadata"]["annotations"] = {"note": "from-status"}
    pod["metadata"]["ownerReferences"] = []
    answer = _put_status(client, f"{NS}/pods", pod)
    assert answer.status == 200, answer.body
    stored = client.request("GET", f"{NS}/pods/p").json()["metadata"]
    assert (stored["labels"], stored["annotations"], stored["ownerReferences"]) == (
        {"app": "p", "seen": "yes"},
        {"note": "from-status"},
        [OWNER],
    )


def test_deployment_status_write_keeps_the_stored_labels_and_takes_annotations(server) -> None:
    client = server.client()
    deployment = _created(client, DEPLOYMENTS, DEPLOYMENT)
    deployment["metadata"]["labels"] = {"other": "x"}
    deployment["metadata"]["annotations"] = {"note": "from-status"}
    answer = _put_status(client, DEPLOYMENTS, deployment)
    assert answer.status == 200, answer.body
    stored = client.request("GET", f"{DEPLOYMENTS}/d").json()["metadata"]
    assert (stored["labels"], stored["annotations"], stored["generation"]) == ({"app": "d"}, {"note": "from-status"}, 1)


def test_volume_attachment_status_write_resets_labels_and_finalizers(server) -> None:
    client = server.client()
    collection = "/apis/storage.k8s.io/v1/volumeattachments"
    attachment = _created(
        client,
        collection,
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "VolumeAttachment",
            "metadata": {"name": "va", "labels": {"a": "b"}},
            "spec": {"attacher": "csi.example.com", "nodeName": "n1", "source": {"persistentVolumeName": "pv"}},
        },
    )
    attachment["metadata"]["labels"] = {"a": "changed"}
    attachment["metadata"]["finalizers"] = ["example.com/hold"]
    attachment["status"] = {"attached": True}
    answer = _put_status(client, collection, attachment)
    assert answer.status == 200, answer.body
    stored = client.request("GET", f"{collection}/va").json()
    assert (stored["metadata"]["labels"], stored["metadata"].get("finalizers"), stored["status"]["attached"]) == (
        {"a": "b"},
        None,
        True,
    )


def test_metadata_written_through_status_is_validated(server) -> None:
    client = server.client()
    pod = _created(client, f"{NS}/pods", {**POD, "metadata": {"name": "bad"}})
    pod["metadata"]["labels"] = {"bad key!": "v"}
    answer = _put_status(client, f"{NS}/pods", pod)
    assert answer.status == 422, answer.body
    assert {cause["field"] for cause in answer.json()["details"]["causes"]} == {"metadata.labels"}, answer.body
    assert "labels" not in client.request("GET", f"{NS}/pods/bad").json()["metadata"]


def test_status_write_with_another_namespace_is_refused(server) -> None:
    client = server.client()
    pod = _created(client, f"{NS}/pods", {**POD, "metadata": {"name": "elsewhere"}})
    pod["metadata"]["namespace"] = "kube-system"
    answer = client.request("PUT", f"{NS}/pods/elsewhere/status", body=pod)
    assert answer.status == 400, answer.body
    assert (
        answer.json()["message"]
        == "the namespace of the provided object does not match the namespace sent on the request"
    )


def test_pod_status_write_may_not_add_the_mirror_pod_annotation(server) -> None:
    client = server.client()
    pod = _created(client, f"{NS}/pods", {**POD, "metadata": {"name": "mirror"}})
    pod["metadata"]["annotations"] = {"kubernetes.io/config.mirror": "x"}
    answer = _put_status(client, f"{NS}/pods", pod)
    assert answer.status == 422, answer.body
    causes = [(cause["field"], cause["message"]) for cause in answer.json()["details"]["causes"]]
    assert causes == [
        ("metadata.annotations[kubernetes.io/config.mirror]", "Forbidden: may not add mirror pod annotation"),
        (
            "metadata.annotations[kubernetes.io/config.mirror]",
            'Invalid value: "x": must set spec.nodeName if mirror pod annotation is set',
        ),
    ]

"""A Job created without `manualSelector` gets upstream's generated selector and template labels."""

from __future__ import annotations


def test_the_server_generates_a_jobs_selector_from_its_uid(svc_server):
    body = {
        "metadata": {"name": "pi"},
        "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "perl"}]}}},
    }
    created = svc_server.client().request("POST", "/apis/batch/v1/namespaces/default/jobs", body=body).json()
    uid = created["metadata"]["uid"]
    assert created["spec"]["selector"] == {"matchLabels": {"batch.svc.io/controller-uid": uid}}
    assert created["spec"]["template"]["metadata"]["labels"] == {
        "job-name": "pi",
        "batch.svc.io/job-name": "pi",
        "controller-uid": uid,
        "batch.svc.io/controller-uid": uid,
    }


def test_a_manual_selector_is_left_as_given(svc_server):
    labels = {"app": "pi"}
    body = {
        "metadata": {"name": "manual"},
        "spec": {
            "manualSelector": True,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "perl"}]},
            },
        },
    }
    created = svc_server.client().request("POST", "/apis/batch/v1/namespaces/default/jobs", body=body).json()
    assert created["spec"]["selector"] == {"matchLabels": labels}
    assert created["spec"]["template"]["metadata"]["labels"] == labels

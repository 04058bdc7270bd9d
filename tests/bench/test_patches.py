"""The patch scenario's requests are what the server accepts and changes the object as intended."""

from __future__ import annotations

import json

from bench.patches import NAME, NAMESPACE, deployment, strategic_patch


def test_the_scenario_requests_change_the_deployment(svc_server) -> None:
    client = svc_server.client()
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}}
    client.request("POST", "/api/v1/namespaces", body=namespace)
    collection = f"/apis/apps/v1/namespaces/{NAMESPACE}/deployments"
    assert client.request("POST", collection, body=deployment("created")).status == 201
    patched = client.request(
        "PATCH",
        f"{collection}/{NAME}",
        body=strategic_patch(7),
        content_type="application/strategic-merge-patch+json",
    )
    containers = patched.json()["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 50
    assert containers[2]["image"] == "registry.example/patched-7:2"
    assert {"name": "SETTING_1", "value": "round-7"} in containers[0]["env"]
    applied = client.request(
        "PATCH",
        f"{collection}/{NAME}?fieldManager=bench&force=true",
        body=json.dumps(deployment("applied")).encode(),
        content_type="application/apply-patch+yaml",
    )
    assert applied.status == 200
    assert applied.json()["spec"]["template"]["spec"]["containers"][0]["image"] == "registry.example/applied:0"

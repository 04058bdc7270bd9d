"""The patch scenario: its requests change the object as intended, and a run reports every kind of request."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from pathlib import Path

from bench import patches
from bench.patches import NAME, NAMESPACE, deployment, strategic_patch
from bench.plan import QUICK
from bench.report import Facts, Section, targets_section
from bench.server import start_server


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


def test_the_scenario_reports_each_request_kind_over_http_and_in_process(tmp_path: Path) -> None:
    async def scenario() -> tuple[Section, Facts]:
        server = await start_server(tmp_path / "server")
        try:
            return await patches.run(server, dataclasses.replace(QUICK, patch_ops=2))
        finally:
            server.stop()

    section, facts = asyncio.run(scenario())
    titles = [request.title for request in patches.REQUESTS]
    assert [(row[0], row[1], row[2]) for row in section.rows] == [
        *((title, "1", "2") for title in titles),
        *((f"{title}: patch machinery", "in process", "2") for title in titles),
    ]
    for key in ("smp", "apply", "scale"):
        assert facts[f"{key} p50"] > 0 and facts[f"{key} server cpu"] > 0 and facts[f"{key} in process p50"] > 0
    met = {row[0]: row[3] for row in targets_section(facts).rows}
    assert met["server-side apply of a 50-container Deployment, server CPU per request"] in ("yes", "**no**")

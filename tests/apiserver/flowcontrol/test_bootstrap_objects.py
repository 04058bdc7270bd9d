"""The bootstrap configuration is created at start and kept (issue 20 part 3)."""

from __future__ import annotations

import asyncio
import subprocess
import time

from svc.api.brand import SVC
from svc.apiserver.flowcontrol import bootstrap
from svc.apiserver.flowcontrol.ensurer import ensure_all
from svc.registry.admission import UserInfo
from tests.conftest import TOOLS

GROUP = "/apis/flowcontrol.apiserver.svc/v1"
ANNOTATION = "apf.svc.io/autoupdate-spec"


def _names(api, resource: str) -> set[str]:
    response = api.request("GET", f"{GROUP}/{resource}")
    assert response.status == 200
    return {item["metadata"]["name"] for item in response.json()["items"]}


def _eventually(check, seconds: float = 10.0):
    deadline = time.monotonic() + seconds
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.1)


def test_mandatory_and_suggested_objects_exist_at_start(svc_server) -> None:
    api = svc_server.client()
    assert _names(api, "prioritylevelconfigurations") == {
        "exempt", "catch-all", "system", "node-high", "leader-election", "workload-high", "workload-low",
        "global-default",
    }  # fmt: skip
    assert _names(api, "flowschemas") == {obj["metadata"]["name"] for obj in bootstrap.flow_schemas(SVC)}
    catch_all = api.request("GET", f"{GROUP}/prioritylevelconfigurations/catch-all").json()
    assert catch_all["metadata"]["annotations"][ANNOTATION] == "true"
    assert catch_all["spec"]["limited"]["nominalConcurrencyShares"] == 5
    assert catch_all["spec"]["limited"]["limitResponse"] == {"type": "Reject"}


def test_flow_schemas_say_they_are_not_dangling(svc_server) -> None:
    api = svc_server.client()

    def condition():
        found = api.request("GET", f"{GROUP}/flowschemas/global-default").json()
        return next((c for c in (found.get("status") or {}).get("conditions") or [] if c["type"] == "Dangling"), None)

    found = _eventually(condition)
    assert found["status"] == "False" and found["reason"] == "Found"


def test_a_flow_schema_naming_a_missing_level_is_dangling(svc_server) -> None:
    api = svc_server.client()
    schema = {
        "apiVersion": "flowcontrol.apiserver.svc/v1",
        "kind": "FlowSchema",
        "metadata": {"name": "orphan"},
        "spec": {"priorityLevelConfiguration": {"name": "nowhere"}, "matchingPrecedence": 600},
    }
    assert api.request("POST", f"{GROUP}/flowschemas", body=schema).status == 201

    def condition():
        found = api.request("GET", f"{GROUP}/flowschemas/orphan").json()
        return next((c for c in (found.get("status") or {}).get("conditions") or [] if c["type"] == "Dangling"), None)

    found = _eventually(condition)
    assert found["status"] == "True" and found["reason"] == "NotFound"
    assert found["message"] == (
        'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object'
    )


def test_a_deleted_mandatory_object_comes_back(svc_server) -> None:
    api = svc_server.client()
    assert api.request("DELETE", f"{GROUP}/prioritylevelconfigurations/catch-all").status == 200
    assert _eventually(lambda: "catch-all" in _names(api, "prioritylevelconfigurations"))


def test_a_changed_mandatory_object_is_put_back(svc_server) -> None:
    api = svc_server.client()
    path = f"{GROUP}/flowschemas/exempt"
    patch = {"metadata": {"annotations": {ANNOTATION: "false"}}, "spec": {"matchingPrecedence": 5}}
    response = api.request("PATCH", path, body=patch, content_type="application/merge-patch+json")
    assert response.status == 200

    def restored():
        return api.request("GET", path).json()["spec"]["matchingPrecedence"] == 1

    assert _eventually(restored)


def test_a_suggested_object_set_not_to_auto_update_keeps_its_change(svc_server) -> None:
    api = svc_server.client()
    path = f"{GROUP}/flowschemas/global-default"
    patch = {"metadata": {"annotations": {ANNOTATION: "false"}}, "spec": {"matchingPrecedence": 9800}}
    api.request("PATCH", path, body=patch, content_type="application/merge-patch+json")
    server = svc_server.server
    assert server is not None and svc_server.loop is not None
    levels = server.store_for(bootstrap.GROUP, "prioritylevelconfigurations")
    schemas = server.store_for(bootstrap.GROUP, "flowschemas")
    user = UserInfo(server.profile.apiserver_name, groups=("system:masters",))
    asyncio.run_coroutine_threadsafe(ensure_all(levels, schemas, server.profile, user), svc_server.loop).result(10)
    assert api.request("GET", path).json()["spec"]["matchingPrecedence"] == 9800


def test_kubectl_lists_the_flow_schemas(svc_server_factory) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    result = subprocess.run(
        [str(TOOLS / "kubectl"), "--kubeconfig", str(server.kubeconfig), "get", "flowschemas"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    assert header.split()[:4] == ["NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD"]
    columns = {row.split()[0]: row.split()[1:4] for row in rows}
    assert columns["exempt"] == ["exempt", "1", "<none>"]
    assert columns["kube-controller-manager"] == ["workload-high", "800", "ByNamespace"]
    assert columns["catch-all"] == ["catch-all", "10000", "ByUser"]


def test_a_round_of_the_ensurer_over_unchanged_objects_writes_nothing(svc_server) -> None:
    api = svc_server.client()
    server = svc_server.server
    assert server is not None and svc_server.loop is not None
    before = api.request("GET", f"{GROUP}/prioritylevelconfigurations").json()["metadata"]["resourceVersion"]
    levels = server.store_for(bootstrap.GROUP, "prioritylevelconfigurations")
    schemas = server.store_for(bootstrap.GROUP, "flowschemas")
    user = UserInfo(server.profile.apiserver_name, groups=("system:masters",))
    asyncio.run_coroutine_threadsafe(ensure_all(levels, schemas, server.profile, user), svc_server.loop).result(10)
    listed = api.request("GET", f"{GROUP}/prioritylevelconfigurations").json()
    versions = {item["metadata"]["resourceVersion"] for item in listed["items"]}
    assert max(int(version) for version in versions) <= int(before)

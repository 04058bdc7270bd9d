"""The storage-version-migrator controller's sync over a seeded cache and recorded API calls."""

from __future__ import annotations

import asyncio
from typing import Any

from svc.client.aio import ApiError
from svc.client.discovery import ApiResource
from svc.controllers import storageversionmigrator
from svc.controllers.storageversionmigrator import StorageVersionMigrator
from tests.controllers.fakes import make_context

Obj = dict[str, Any]
STATUS = "/apis/storagemigration.svc/v1beta1/storageversionmigrations/m/status"
SECRETS = "/api/v1/secrets"
SECRET = ApiResource("", "v1", "secrets", "Secret", True, frozenset({"list", "patch"}), True)


def svm(**status: Any) -> Obj:
    return {"metadata": {"name": "m"}, "spec": {"resource": {"group": "", "resource": "secrets"}}, "status": status}


def migrator(monkeypatch: Any, resources: list[ApiResource]) -> tuple[StorageVersionMigrator, Any]:
    async def discovered(_client: Any, _group: str) -> list[ApiResource]:
        return resources

    monkeypatch.setattr(storageversionmigrator, "server_resources", discovered)
    context, client = make_context()
    return StorageVersionMigrator(context), client


def test_the_latest_resource_version_is_recorded_first(monkeypatch: Any) -> None:
    controller, client = migrator(monkeypatch, [SECRET])
    client.objects[SECRETS] = {"metadata": {"resourceVersion": "42"}, "items": []}
    controller.migrations.replace([svm()])
    asyncio.run(controller.sync("m"))
    assert client.calls[0] == ("get", SECRETS, {"limit": "1"})
    assert client.calls[1] == ("update", STATUS, svm(resourceVersion="42"))


def test_every_object_is_applied_back_with_its_uid_and_version_then_succeeded(monkeypatch: Any) -> None:
    controller, client = migrator(monkeypatch, [SECRET])
    items = [
        {"metadata": {"name": f"s{i}", "namespace": "ns", "uid": f"u{i}", "resourceVersion": str(i)}} for i in (1, 2)
    ]
    client.objects[SECRETS] = {"metadata": {"resourceVersion": "50"}, "items": items}
    controller.migrations.replace([svm(resourceVersion="42")])
    asyncio.run(controller.sync("m"))
    applies = [(verb, path, body) for verb, path, body in client.calls if verb.startswith("apply")]
    assert applies[0] == (
        "apply:storage-version-migrator-controller",
        "/api/v1/namespaces/ns/secrets/s1",
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"uid": "u1", "resourceVersion": "1"}},
    )
    assert len(applies) == 2
    listed = next(params for verb, path, params in client.calls if verb == "get")
    assert listed == {"limit": "500", "resourceVersion": "42", "resourceVersionMatch": "NotOlderThan"}
    final = client.calls[-1][2]["status"]["conditions"]
    assert [(c["type"], c["status"], c["reason"]) for c in final] == [
        ("Running", "False", "StorageVersionMigrationInProgress"),
        ("Succeeded", "True", "StorageVersionMigrationSucceeded"),
    ]


def test_an_unknown_resource_fails_the_migration(monkeypatch: Any) -> None:
    controller, client = migrator(monkeypatch, [])
    controller.migrations.replace([svm()])
    asyncio.run(controller.sync("m"))
    condition = client.calls[-1][2]["status"]["conditions"][0]
    assert (condition["type"], condition["message"]) == ("Failed", "resource does not exist in discovery")


def test_a_conflict_is_skipped_and_another_error_fails_the_migration(monkeypatch: Any) -> None:
    controller, client = migrator(monkeypatch, [SECRET])
    items = [{"metadata": {"name": "s1", "namespace": "ns", "uid": "u1", "resourceVersion": "1"}}]
    client.objects[SECRETS] = {"metadata": {}, "items": items}
    controller.migrations.replace([svm(resourceVersion="42")])
    client.failures["apply:storage-version-migrator-controller"] = ApiError(409, {"reason": "Conflict"})
    asyncio.run(controller.sync("m"))
    assert client.calls[-1][2]["status"]["conditions"][-1]["type"] == "Succeeded"
    client.failures["apply:storage-version-migrator-controller"] = ApiError(500, {"reason": "InternalError"})
    controller.migrations.replace([svm(resourceVersion="42")])
    asyncio.run(controller.sync("m"))
    failed = client.calls[-1][2]["status"]["conditions"][-1]
    assert (failed["type"], failed["message"]) == ("Failed", "migration encountered unhandled error")


def test_a_finished_migration_is_left_alone(monkeypatch: Any) -> None:
    controller, client = migrator(monkeypatch, [SECRET])
    controller.migrations.replace([svm(conditions=[{"type": "Succeeded", "status": "True"}])])
    asyncio.run(controller.sync("m"))
    assert client.calls == []

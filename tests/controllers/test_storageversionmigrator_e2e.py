"""The storage-version-migrator controller in the real daemon beside a real API server serving the
beta API (gate StorageVersionMigrator and storagemigration.k8s.io/v1beta1 on)."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

GATE = "--feature-gates=StorageVersionMigrator=true"
MIGRATIONS = "/apis/storagemigration.svc/v1beta1/storageversionmigrations"


def test_a_migration_of_secrets_records_the_version_and_succeeds(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory(GATE, "--runtime-config=storagemigration.k8s.io/v1beta1=true")
    rest = server.client()
    for name in ("a", "b"):
        body = {"metadata": {"name": name}, "stringData": {"k": name}}
        assert rest.request("POST", "/api/v1/namespaces/default/secrets", body=body).status == 201
    body = {"metadata": {"name": "secrets"}, "spec": {"resource": {"group": "", "resource": "secrets"}}}
    created = rest.request("POST", MIGRATIONS, body=body)
    assert created.status == 201, created.json()
    svc_controller_manager(server, GATE, "--controllers=storage-version-migrator-controller")

    def status() -> dict:
        return rest.request("GET", f"{MIGRATIONS}/secrets").json().get("status") or {}

    def succeeded() -> bool:
        return any(c["type"] == "Succeeded" and c["status"] == "True" for c in status().get("conditions") or [])

    assert wait_for(succeeded, timeout=20), status()
    assert int(status()["resourceVersion"]) > 0
    assert any(c["type"] == "Running" and c["status"] == "False" for c in status()["conditions"])

"""Leader migration: the LeaderMigrationConfiguration file read and validated with upstream's errors,
upstream's default without a file, and which controllers run under which Lease."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from svc.controllers import leader_migration
from svc.controllers.leader_migration import ControllerLeader, LeaderMigrationConfig
from svc.controllers.options import parse_options
from svc.testing.harness import RunningControllerManager, RunningServer

COMPONENT = "kube-controller-manager"


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "migration.yaml"
    path.write_text(text)
    return path


def test_migration_is_off_by_default_and_needs_leader_election() -> None:
    assert parse_options([]).leader_migration is None
    assert parse_options(["--enable-leader-migration", "--leader-elect=false"]).leader_migration is None


def test_without_a_file_upstreams_default_configuration_is_used() -> None:
    config = parse_options(["--enable-leader-migration"]).leader_migration
    assert config == leader_migration.DEFAULT
    assert config.leader_name == "cloud-provider-extraction-migration"


def test_a_v1_file_defaults_the_resource_lock(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        "apiVersion: controllermanager.config.k8s.io/v1\nkind: LeaderMigrationConfiguration\n"
        "leaderName: test-leader-migration\ncontrollerLeaders:\n  - name: route-controller\n    component: '*'\n",
    )
    config = parse_options(["--enable-leader-migration", f"--leader-migration-config={path}"]).leader_migration
    assert config == LeaderMigrationConfig(
        "test-leader-migration", "leases", (ControllerLeader("route-controller", "*"),)
    )


def test_an_invalid_file_is_refused_with_every_field_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _file(
        tmp_path,
        "apiVersion: controllermanager.config.k8s.io/v1alpha1\nkind: LeaderMigrationConfiguration\n"
        "resourceLock: configmaps\ncontrollerLeaders:\n  - name: route-controller\n",
    )
    with pytest.raises(SystemExit) as exit_info:
        parse_options(["--enable-leader-migration", f"--leader-migration-config={path}"])
    assert exit_info.value.code == 1
    assert (
        "failed to parse leader migration configuration: ["
        "leaderName: Required value: leaderName must be set for LeaderMigrationConfiguration "
        "resourceLock: Invalid value: \"configmaps\": resource Lock must be one of 'leases' or 'endpoints' "
        "controllerLeaders[0].component: Required value: component must be set]"
    ) in capsys.readouterr().err


def test_an_endpoints_lock_is_valid_but_cannot_be_built(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        "apiVersion: controllermanager.config.k8s.io/v1alpha1\nkind: LeaderMigrationConfiguration\n"
        "leaderName: m\nresourceLock: endpoints\ncontrollerLeaders: []\n",
    )
    with pytest.raises(ValueError, match="error creating lock: endpoints lock is removed, migrate to endpointsleases"):
        leader_migration.load(str(path))


def test_a_missing_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "absent.yaml"
    with pytest.raises(SystemExit):
        parse_options(["--enable-leader-migration", f"--leader-migration-config={path}"])
    assert f'unable to read leader migration configuration from "{path}"' in capsys.readouterr().err


def test_a_file_of_another_kind_is_refused(tmp_path: Path) -> None:
    path = _file(tmp_path, "apiVersion: v1\nkind: ConfigMap\n")
    with pytest.raises(ValueError, match='no kind "ConfigMap" is registered for version "v1"'):
        leader_migration.load(str(path))


def test_listed_controllers_move_to_the_migration_lease_unless_another_component_owns_them() -> None:
    config = LeaderMigrationConfig(
        "m",
        "leases",
        (
            ControllerLeader("route-controller", "*"),
            ControllerLeader("service-controller", "cloud-controller-manager"),
            ControllerLeader("node-ipam-controller", COMPONENT),
        ),
    )
    enabled = ["node-route-controller", "service-lb-controller", "node-ipam-controller", "ttl-controller"]
    main, migrated = leader_migration.split(config, enabled, COMPONENT)
    assert main == ["ttl-controller"]
    assert migrated == ["node-route-controller", "node-ipam-controller"]


def test_the_leading_daemon_also_holds_the_migration_lease(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    daemon = svc_controller_manager(svc_server, "--controllers=ttl", "--enable-leader-migration")
    path = "/apis/coordination.svc/v1/namespaces/svc-system/leases/cloud-provider-extraction-migration"
    deadline = time.monotonic() + 15
    holder = ""
    for _ in range(75):
        response = svc_server.client().request("GET", path)
        holder = response.json()["spec"].get("holderIdentity", "") if response.status == 200 else ""
        if holder or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert holder
    time.sleep(1)  # holding a migration Lease with no migrated controller to run is no reason to exit
    assert daemon.process.poll() is None

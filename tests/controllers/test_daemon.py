"""svc-controller-manager as a process beside a real API server: controllers, health, leader election."""

from __future__ import annotations

import datetime
import http.client
import ssl
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from kubernetes import client as k8s
from kubernetes import config
from kubernetes.client.rest import ApiException

from svc.testing.harness import RunningControllerManager, RunningServer, stop_controller_manager


def wait_for(check: Callable[[], object], *, timeout: float) -> object:
    """Poll `check` until it returns something truthy, at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.02)


def found(read: Callable[[], object]) -> Callable[[], object]:
    def attempt() -> object:
        try:
            return read()
        except ApiException as error:
            if error.status != 404:
                raise
            return None

    return attempt


def official_client(server: RunningServer, directory: Path) -> k8s.ApiClient:
    """The official client on the server's kubeconfig; it writes the inline credentials to files in `directory`."""
    configuration = k8s.Configuration()
    config.load_kube_config(str(server.kubeconfig), client_configuration=configuration, temp_file_path=str(directory))
    return k8s.ApiClient(configuration)


def get_health(daemon: RunningControllerManager, path: str) -> tuple[int, str]:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection("127.0.0.1", daemon.port, timeout=5, context=context)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def test_a_new_namespace_gets_its_default_service_account_and_root_ca(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--controllers=serviceaccount,root-ca-cert-publisher")
    api_client = official_client(server, tmp_path)
    api = k8s.CoreV1Api(api_client)
    api.create_namespace(k8s.V1Namespace(metadata=k8s.V1ObjectMeta(name="team")))
    # The one-second target is measured, not asserted here (a loaded machine must not fail it).
    account = wait_for(found(lambda: api.read_namespaced_service_account("default", "team")), timeout=10)
    configmap = wait_for(found(lambda: api.read_namespaced_config_map("kube-root-ca.crt", "team")), timeout=10)
    assert account is not None
    assert configmap is not None
    assert configmap.data["ca.crt"] == (server.data_dir / "pki" / "ca.crt").read_text()
    api_client.close()


def test_a_deleted_default_account_and_an_edited_root_ca_are_put_back(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server)
    rest = svc_server.client()
    assert rest.request("POST", "/api/v1/namespaces", body={"metadata": {"name": "team"}}).status == 201
    account = "/api/v1/namespaces/team/serviceaccounts/default"
    configmap = "/api/v1/namespaces/team/configmaps/svc-root-ca.crt"
    assert wait_for(lambda: rest.request("GET", account).status == 200, timeout=5)
    assert wait_for(lambda: rest.request("GET", configmap).status == 200, timeout=5)
    assert rest.request("DELETE", account).status == 200
    patch = {"data": {"ca.crt": "tampered"}}
    assert rest.request("PATCH", configmap, body=patch, content_type="application/merge-patch+json").status == 200
    assert wait_for(lambda: rest.request("GET", account).status == 200, timeout=5)
    assert wait_for(lambda: rest.request("GET", configmap).json()["data"]["ca.crt"] != "tampered", timeout=5)


def test_health_endpoints_list_one_check_per_controller(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    daemon = svc_controller_manager(svc_server, "--controllers=serviceaccount")
    for endpoint in ("healthz", "readyz", "livez"):
        assert get_health(daemon, f"/{endpoint}") == (200, "ok")
        status, body = get_health(daemon, f"/{endpoint}?verbose")
        assert status == 200
        assert body == f"[+]leaderElection ok\n[+]serviceaccount-controller ok\n{endpoint} check passed\n"
    # Only the three paths are always allowed (upstream's default); the rest needs delegated
    # authorization, which a daemon started without --authorization-kubeconfig cannot give anonymously.
    assert get_health(daemon, "/healthz/serviceaccount-controller")[0] == 403
    assert get_health(daemon, "/metrics")[0] == 403


def lease(server: RunningServer) -> dict:
    path = "/apis/coordination.svc/v1/namespaces/svc-system/leases/svc-controller-manager"
    response = server.client().request("GET", path)
    return response.json()["spec"] if response.status == 200 else {}


def test_a_standby_is_healthy_without_running_controllers(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server)
    standby = svc_controller_manager(svc_server, leading=False)
    assert get_health(standby, "/healthz?verbose") == (200, "[+]leaderElection ok\nhealthz check passed\n")


def test_only_the_leader_logs_about_controllers_that_do_not_run(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    leader = svc_controller_manager(svc_server, "--controllers=serviceaccount")
    standby = svc_controller_manager(svc_server, "--controllers=serviceaccount", leading=False)
    disabled = 'Warning: controller is disabled" controller="ttl-controller"'
    assert disabled in leader.log.read_text()
    # the standby is past its start once it tries for the Lease
    assert wait_for(lambda: "attempting to acquire leader lease" in standby.log.read_text(), timeout=10)
    assert "controller=" not in standby.log.read_text()


@pytest.mark.slow
def test_a_standby_takes_over_within_the_lease_duration_after_the_leader_is_killed(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    # One controller: the bound is about the election, not about how many informers the default set syncs.
    timing = [
        "--controllers=serviceaccount",
        "--leader-elect-lease-duration=3s",
        "--leader-elect-renew-deadline=2s",
        "--leader-elect-retry-period=250ms",
    ]
    leader = svc_controller_manager(svc_server, *timing)
    leader_identity = lease(svc_server)["holderIdentity"]
    standby = svc_controller_manager(svc_server, *timing, leading=False)
    time.sleep(1.0)
    assert lease(svc_server)["holderIdentity"] == leader_identity, "the standby must wait while the leader renews"
    stop_controller_manager(leader, kill=True)
    last_renewal = _micro_time(lease(svc_server)["renewTime"])
    took_over = wait_for(lambda: "-controller ok" in get_health(standby, "/healthz?verbose")[1], timeout=10)
    assert took_over
    spec = lease(svc_server)
    assert spec["holderIdentity"] not in ("", leader_identity)
    assert spec["leaseTransitions"] == 1
    # Measured on the lease's own clock (the leader's last renewal to the standby's acquisition), so the
    # bound is about the election, not about how fast this test polls a loaded machine. The standby
    # counts the lease duration from when it saw the last renewal (up to one jittered retry period after
    # it was written) and notices expiry on its next try (up to one more).
    elapsed = (_micro_time(spec["acquireTime"]) - last_renewal).total_seconds()
    bound = 3.0 + 2 * 1.2 * 0.25 + 0.5
    assert elapsed < bound, f"the standby took {elapsed:.2f}s to lead"


def _micro_time(value: str) -> datetime.datetime:
    return datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ")

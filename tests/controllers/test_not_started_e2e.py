"""The controllers upstream lists but does not start here, in the real daemon: the cloud ones without
a cloud provider and the storage-version garbage collector without its gates. Named in
`--controllers` (by their short aliases too), they are accepted, logged as skipped, and not run."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import get_health, wait_for

CLOUD = ("cloud-node-lifecycle-controller", "node-route-controller", "service-lb-controller")


def test_controllers_not_started_here_are_accepted_logged_as_skipped_and_not_run(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    daemon = svc_controller_manager(
        svc_server, "--controllers=cloud-node-lifecycle,route,service,storage-version-gc,ttl"
    )
    assert get_health(daemon, "/healthz?verbose") == (
        200,
        "[+]leaderElection ok\n[+]ttl-controller ok\nhealthz check passed\n",
    )
    lines = [f'"Skipping a cloud provider controller" controller="{name}"' for name in CLOUD]
    lines.append('"Warning: skipping controller" controller="storageversion-garbage-collector-controller"')
    assert wait_for(lambda: all(line in daemon.log.read_text() for line in lines), timeout=10), daemon.log.read_text()

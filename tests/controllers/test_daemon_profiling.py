"""`--profiling` (on by default, as upstream): the daemon serves /debug/pprof/ behind delegated
authorization, and not at all with --profiling=false."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon_metrics import _get


def test_the_profiles_are_served_to_an_authorized_user_unless_profiling_is_off(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
    tmp_path: Path,
) -> None:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text('admin-token,admin,u1,"system:masters"\nplain-token,plain,u2\n')
    server = svc_server_factory(f"--token-auth-file={tokens}", "--authorization-mode=RBAC")
    delegation = (f"--authentication-kubeconfig={server.kubeconfig}", f"--authorization-kubeconfig={server.kubeconfig}")
    daemon = svc_controller_manager(server, "--controllers=ttl", *delegation)
    code, body = _get(daemon, "/debug/pprof/goroutine", "admin-token")
    assert code == 200
    assert "controllers" in body  # the task running the controllers, with its stack
    assert _get(daemon, "/debug/pprof/", "plain-token")[0] == 403
    quiet = svc_controller_manager(server, "--controllers=ttl", "--profiling=false", *delegation, leading=False)
    assert _get(quiet, "/debug/pprof/goroutine", "admin-token")[0] == 404

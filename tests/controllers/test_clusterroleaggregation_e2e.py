"""The clusterrole-aggregation controller in the real daemon beside a real API server."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

ROLES = "/apis/rbac.authorization.svc/v1/clusterroles"
LABEL = {"rbac.example.com/aggregate-to-monitoring": "true"}
READ_PODS = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}
READ_NODES = {"apiGroups": [""], "resources": ["nodes"], "verbs": ["list"]}


def test_a_user_aggregating_role_follows_the_roles_its_selector_matches(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    svc_controller_manager(svc_server, "--controllers=clusterrole-aggregation")
    rest = svc_server.client()
    aggregating = {
        "metadata": {"name": "monitoring"},
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": LABEL}]},
        "rules": [],
    }
    assert rest.request("POST", ROLES, body=aggregating).status == 201
    pods = {"metadata": {"name": "monitoring-pods", "labels": LABEL}, "rules": [READ_PODS]}
    assert rest.request("POST", ROLES, body=pods).status == 201

    def rules() -> list:
        return rest.request("GET", f"{ROLES}/monitoring").json().get("rules") or []

    assert wait_for(lambda: rules() == [READ_PODS], timeout=10), rules()
    nodes = {"metadata": {"name": "monitoring-nodes", "labels": LABEL}, "rules": [READ_NODES]}
    assert rest.request("POST", ROLES, body=nodes).status == 201
    assert wait_for(lambda: rules() == [READ_NODES, READ_PODS], timeout=10), rules()
    assert rest.request("DELETE", f"{ROLES}/monitoring-pods").status == 200
    assert wait_for(lambda: rules() == [READ_NODES], timeout=10), rules()

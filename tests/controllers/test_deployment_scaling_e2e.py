"""A Deployment resized in the middle of a rollout, in the real daemon beside a real API server: the
change is spread over its active replica sets in proportion to their size, as upstream's `scale`."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
SETS = "/apis/apps/v1/namespaces/default/replicasets"


def test_a_resize_mid_rollout_is_spread_over_the_active_sets(
    svc_server: RunningServer, svc_controller_manager: Callable[..., RunningControllerManager]
) -> None:
    rest = svc_server.client()
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": 10,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 3, "maxUnavailable": 0}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "a"}]}},
        },
    }
    assert rest.request("POST", DEPLOYMENTS, body=deployment).status == 201
    svc_controller_manager(svc_server, "--controllers=deployment,replicaset")

    def sizes() -> dict[str, int]:
        items = rest.request("GET", SETS).json()["items"]
        return {rs["spec"]["template"]["spec"]["containers"][0]["image"]: rs["spec"]["replicas"] for rs in items}

    assert wait_for(lambda: sizes() == {"a": 10}, timeout=10), sizes()
    image = [{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value": "b"}]
    patched = rest.request("PATCH", f"{DEPLOYMENTS}/web", body=image, content_type="application/json-patch+json")
    assert patched.status == 200
    # No node runs the pods, so none becomes available: the rollout holds at the surge.
    assert wait_for(lambda: sizes() == {"a": 10, "b": 3}, timeout=10), sizes()
    resize = {"spec": {"replicas": 20}}
    patched = rest.request("PATCH", f"{DEPLOYMENTS}/web", body=resize, content_type="application/merge-patch+json")
    assert patched.status == 200
    # 10 more within replicas + maxSurge = 23: 10 * 23/13 -> 18 and 3 * 23/13 -> 5.
    assert wait_for(lambda: sizes() == {"a": 18, "b": 5}, timeout=10), sizes()

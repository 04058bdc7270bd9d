"""`--use-service-account-credentials` against a server authorizing with `Node,RBAC`."""

from __future__ import annotations

from collections.abc import Callable

from svc.testing.harness import RunningControllerManager, RunningServer
from tests.controllers.test_daemon import wait_for

SYSTEM_ACCOUNTS = "/api/v1/namespaces/svc-system/serviceaccounts"
BINDINGS = "/apis/rbac.authorization.svc/v1/clusterrolebindings"


def test_each_controller_acts_as_its_own_account_and_only_its_role_lets_it_work(
    svc_server_factory: Callable[..., RunningServer],
    svc_controller_manager: Callable[..., RunningControllerManager],
) -> None:
    server = svc_server_factory("--authorization-mode=Node,RBAC")
    rest = server.client()
    # Without its binding, the serviceaccount controller's account may not create accounts.
    assert rest.request("DELETE", f"{BINDINGS}/system:controller:service-account-controller").status == 200
    svc_controller_manager(
        server, "--controllers=serviceaccount,root-ca-cert-publisher", "--use-service-account-credentials"
    )

    def accounts() -> set:
        return {item["metadata"]["name"] for item in rest.request("GET", SYSTEM_ACCOUNTS).json()["items"]}

    assert wait_for(lambda: {"service-account-controller", "root-ca-cert-publisher"} <= accounts(), timeout=15)
    assert rest.request("POST", "/api/v1/namespaces", body={"metadata": {"name": "team"}}).status == 201

    def published() -> bool:
        return rest.request("GET", "/api/v1/namespaces/team/configmaps/svc-root-ca.crt").status == 200

    assert wait_for(published, timeout=15), "root-ca-cert-publisher (bound) works as its account"
    default = "/api/v1/namespaces/team/serviceaccounts/default"
    assert not wait_for(lambda: rest.request("GET", default).status == 200, timeout=2), (
        "the serviceaccount controller must not act with the daemon's credentials"
    )
    binding = {
        "metadata": {"name": "system:controller:service-account-controller"},
        "roleRef": {
            "apiGroup": "rbac.authorization.svc",
            "kind": "ClusterRole",
            "name": "system:controller:service-account-controller",
        },
        "subjects": [{"kind": "ServiceAccount", "name": "service-account-controller", "namespace": "svc-system"}],
    }
    assert rest.request("POST", BINDINGS, body=binding).status == 201
    assert wait_for(lambda: rest.request("GET", default).status == 200, timeout=20)

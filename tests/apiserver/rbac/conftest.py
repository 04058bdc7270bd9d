"""A server authorizing with RBAC, with static-token users of every kind the matrix needs."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import pytest

from svc.client.rest import RestClient
from svc.testing.harness import RunningServer

RBAC = "rbac.authorization.svc"
SERVICE_ACCOUNT = "system:serviceaccount:team:builder"
TOKENS = (
    'sa-token,system:serviceaccount:team:builder,u1,"system:serviceaccounts,system:serviceaccounts:team"\n'
    "alice-token,alice,u2\n"
    'carol-token,carol,u3,"devs"\n'
)


@dataclasses.dataclass
class Users:
    server: RunningServer
    clients: dict[str, RestClient]

    def as_user(self, name: str) -> RestClient:
        return self.clients[name]

    @property
    def admin(self) -> RestClient:
        return self.clients["admin"]

    def create(self, path: str, obj: dict[str, Any]) -> dict[str, Any]:
        response = self.admin.request("POST", path, body=obj)
        assert response.status == 201, response.json()
        return response.json()


def rbac_path(resource: str, namespace: str = "") -> str:
    where = f"/namespaces/{namespace}" if namespace else ""
    return f"/apis/{RBAC}/v1{where}/{resource}"


def role(name: str, rules: list[dict[str, Any]], namespace: str = "") -> dict[str, Any]:
    kind = "Role" if namespace else "ClusterRole"
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {"apiVersion": f"{RBAC}/v1", "kind": kind, "metadata": metadata, "rules": rules}


def binding(name: str, role_kind: str, role_name: str, subjects: list[dict[str, str]], namespace: str = "") -> dict:
    kind = "RoleBinding" if namespace else "ClusterRoleBinding"
    metadata = {"name": name, **({"namespace": namespace} if namespace else {})}
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": kind,
        "metadata": metadata,
        "roleRef": {"apiGroup": RBAC, "kind": role_kind, "name": role_name},
        "subjects": subjects,
    }


def eventually(check: Callable[[], bool], seconds: float = 2.0) -> bool:
    """Whether `check` comes true within `seconds` (polled a bounded number of times)."""
    deadline = time.monotonic() + seconds
    for _ in range(400):
        if check():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return False


@pytest.fixture
def users(svc_server_factory, tmp_path) -> Users:
    tokens = tmp_path / "tokens.csv"
    tokens.write_text(TOKENS)
    server = svc_server_factory(f"--token-auth-file={tokens}", "--authorization-mode=RBAC")
    config = server.anonymous_client().config
    clients = {
        "admin": server.client(),
        "anonymous": server.anonymous_client(),
        "dave": server.client(headers={"Impersonate-User": "dave"}),
    }
    for name, token in (("sa", "sa-token"), ("alice", "alice-token"), ("carol", "carol-token")):
        clients[name] = RestClient(dataclasses.replace(config, token=token))
    yield Users(server, clients)
    for name in ("sa", "alice", "carol"):
        clients[name].close()

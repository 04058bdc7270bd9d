"""What an admission webhook gets in `object` and `oldObject` is upstream's JSON of Go objects.

`oldObject` comes from storage: a list without `omitempty` stored empty is nil, written `null`.
`object` is the request decoded into its Go type: a list sent `[]` is an empty slice, written `[]`;
one left out is nil, written `null`; a struct left out is its zero value, written `{}`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from svc.testing.harness import RunningServer
from tests.apiserver.admission.webhook_fixtures import Webhook, hook, install, scripted_webhook

ROLES = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
CLAIMS = "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims"


@pytest.fixture
def server(svc_server_factory) -> RunningServer:
    return svc_server_factory("--brand-profile=kubernetes")


@pytest.fixture
def webhook(tmp_path) -> Iterator[Webhook]:
    with scripted_webhook(tmp_path / "webhook-tls") as running:
        yield running


def _watch(
    server: RunningServer, webhook: Webhook, group: str, resource: str, *operations: str, kind: str = "Validating"
) -> None:
    rule = {"operations": list(operations), "apiGroups": [group], "apiVersions": ["v1"], "resources": [resource]}
    install(server, f"{kind}WebhookConfiguration", "watcher", [hook("watch.example.com", webhook, "w", rules=[rule])])


def _role(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"}, **fields}


def test_a_list_sent_empty_reaches_the_webhook_empty(server: RunningServer, webhook: Webhook) -> None:
    _watch(server, webhook, "rbac.authorization.k8s.io", "roles", "CREATE")
    assert server.client().request("POST", ROLES, body=_role(rules=[])).status == 201
    (review,) = webhook.calls("w")
    assert review["request"]["object"]["rules"] == []


def test_a_list_left_out_reaches_the_webhook_null(server: RunningServer, webhook: Webhook) -> None:
    _watch(server, webhook, "rbac.authorization.k8s.io", "roles", "CREATE")
    assert server.client().request("POST", ROLES, body=_role()).status == 201
    (review,) = webhook.calls("w")
    assert "rules" in review["request"]["object"] and review["request"]["object"]["rules"] is None


def test_an_update_sends_the_request_list_as_sent_and_the_stored_one_null(
    server: RunningServer, webhook: Webhook
) -> None:
    """A mutating webhook: it runs before the update's checks, which see an empty list as absent."""
    api = server.client()
    created = api.request("POST", ROLES, body=_role(rules=[])).json()
    _watch(server, webhook, "rbac.authorization.k8s.io", "roles", "UPDATE", kind="Mutating")
    created["metadata"]["labels"] = {"a": "b"}
    created["rules"] = []
    assert api.request("PUT", f"{ROLES}/r", body=created).status == 200
    (review,) = webhook.calls("w")
    assert review["request"]["object"]["rules"] == []
    assert review["request"]["oldObject"]["rules"] is None


def test_a_struct_left_out_reaches_the_webhook_as_its_zero(server: RunningServer, webhook: Webhook) -> None:
    _watch(server, webhook, "resource.k8s.io", "resourceclaims", "CREATE")
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c"}, "spec": {}}
    assert server.client().request("POST", CLAIMS, body=claim).status == 201
    (review,) = webhook.calls("w")
    assert review["request"]["object"]["spec"] == {"devices": {"requests": None}}
    assert review["request"]["object"]["status"] == {}

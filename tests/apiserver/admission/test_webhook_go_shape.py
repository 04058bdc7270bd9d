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


PODS = "/api/v1/namespaces/default/pods"


def _updated_role(server: RunningServer, webhook: Webhook) -> dict[str, Any]:
    """A Role stored with `rules: []` (null once stored), a validating webhook watching its updates."""
    created = server.client().request("POST", ROLES, body=_role(rules=[])).json()
    _watch(server, webhook, "rbac.authorization.k8s.io", "roles", "UPDATE")
    return created


def test_a_validating_webhook_gets_a_put_list_as_sent(server: RunningServer, webhook: Webhook) -> None:
    """The update's checks see the list as null; the validating webhook after them gets it `[]`."""
    role = _updated_role(server, webhook)
    role["metadata"]["labels"], role["rules"] = {"a": "b"}, []
    answer = server.client().request("PUT", f"{ROLES}/r", body=role)
    assert answer.status == 200, answer.body
    (review,) = webhook.calls("w")
    assert review["request"]["object"]["rules"] == []
    assert review["request"]["oldObject"]["rules"] is None


def test_a_validating_webhook_on_update_gets_a_list_left_out_null(server: RunningServer, webhook: Webhook) -> None:
    role = _updated_role(server, webhook)
    role["metadata"]["labels"] = {"a": "b"}
    del role["rules"]
    assert server.client().request("PUT", f"{ROLES}/r", body=role).status == 200
    (review,) = webhook.calls("w")
    assert "rules" in review["request"]["object"] and review["request"]["object"]["rules"] is None


def test_a_validating_webhook_on_update_does_not_get_an_omitempty_list_sent_empty(
    server: RunningServer, webhook: Webhook
) -> None:
    """Go leaves an empty slice tagged `omitempty` out of what it writes, whether sent `[]` or not."""
    role = _updated_role(server, webhook)
    role["metadata"]["labels"], role["metadata"]["finalizers"] = {"a": "b"}, []
    assert server.client().request("PUT", f"{ROLES}/r", body=role).status == 200
    (review,) = webhook.calls("w")
    assert "finalizers" not in review["request"]["object"]["metadata"]


def test_a_validating_webhook_gets_a_merge_patched_list_as_sent(server: RunningServer, webhook: Webhook) -> None:
    _updated_role(server, webhook)
    patch = {"metadata": {"labels": {"a": "b"}}, "rules": []}
    answer = server.client().request("PATCH", f"{ROLES}/r", body=patch, content_type="application/merge-patch+json")
    assert answer.status == 200, answer.body
    (review,) = webhook.calls("w")
    assert review["request"]["object"]["rules"] == []
    assert review["request"]["oldObject"]["rules"] is None


def test_a_validating_webhook_gets_an_applied_list_as_sent(server: RunningServer, webhook: Webhook) -> None:
    _updated_role(server, webhook)
    applied = _role(rules=[])
    applied["metadata"]["labels"] = {"a": "b"}
    answer = server.client().request(
        "PATCH",
        f"{ROLES}/r?fieldManager=test&force=true",
        body=applied,
        content_type="application/apply-patch+yaml",
    )
    assert answer.status == 200, answer.body
    (review,) = webhook.calls("w")
    assert review["request"]["object"]["rules"] == []


def test_the_update_answer_and_storage_keep_the_list_null(server: RunningServer, webhook: Webhook) -> None:
    """Putting the list back for the webhook leaves what is written alone."""
    role = _updated_role(server, webhook)
    role["metadata"]["labels"], role["rules"] = {"a": "b"}, []
    api = server.client()
    assert api.request("PUT", f"{ROLES}/r", body=role).json()["rules"] is None
    assert api.request("GET", f"{ROLES}/r").json()["rules"] is None


def test_a_validating_webhook_gets_a_nested_list_of_a_pod_as_sent(server: RunningServer, webhook: Webhook) -> None:
    """A list inside a list item: a projected volume's `sources` sent `[]` on a label update."""
    volume = {"name": "v", "projected": {"sources": []}}
    container = {"name": "c", "image": "busybox", "volumeMounts": [{"name": "v", "mountPath": "/v"}]}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": [container], "volumes": [volume]},
    }
    api = server.client()
    created = api.request("POST", PODS, body=pod)
    assert created.status == 201, created.body
    _watch(server, webhook, "", "pods", "UPDATE")
    updated = created.json()
    assert updated["spec"]["volumes"][0]["projected"]["sources"] is None
    updated["metadata"]["labels"] = {"a": "b"}
    updated["spec"]["volumes"][0]["projected"]["sources"] = []
    answer = api.request("PUT", f"{PODS}/p", body=updated)
    assert answer.status == 200, answer.body
    (review,) = webhook.calls("w")
    assert review["request"]["object"]["spec"]["volumes"][0]["projected"]["sources"] == []
    assert review["request"]["oldObject"]["spec"]["volumes"][0]["projected"]["sources"] is None

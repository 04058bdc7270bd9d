"""Classification of requests to the bootstrap FlowSchemas (upstream's matching rules)."""

from __future__ import annotations

import pytest

from svc.api.brand import KUBERNETES
from svc.apiserver.flowcontrol import bootstrap
from svc.apiserver.flowcontrol.classifier import Schema, classify, ordered
from svc.apiserver.request_info import RequestInfo
from svc.registry.admission import UserInfo

SCHEMAS = ordered(Schema.of(obj) for obj in bootstrap.flow_schemas(KUBERNETES))
AUTHENTICATED = ("system:authenticated",)


def _resource(verb: str, resource: str, namespace: str = "", group: str = "", subresource: str = "") -> RequestInfo:
    return RequestInfo(
        path="/x", verb=verb, is_resource_request=True, api_group=group, api_version="v1",
        namespace=namespace, resource=resource, subresource=subresource,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("user", "info", "expected"),
    [
        (UserInfo("admin", groups=("system:masters", *AUTHENTICATED)), _resource("delete", "pods", "a"), "exempt"),
        (UserInfo("someone", groups=AUTHENTICATED), RequestInfo(path="/readyz", verb="get"), "probes"),
        (UserInfo("someone", groups=AUTHENTICATED), RequestInfo(path="/readyz", verb="post"), "global-default"),
        (
            UserInfo("system:kube-controller-manager", groups=AUTHENTICATED),
            _resource("update", "leases", "kube-system", "coordination.k8s.io"),
            "system-leader-election",
        ),
        (
            UserInfo("system:kube-controller-manager", groups=AUTHENTICATED),
            _resource("update", "endpoints", "default"),
            "endpoint-controller",
        ),
        (
            UserInfo("system:serviceaccount:kube-system:deployment-controller", groups=AUTHENTICATED),
            _resource("list", "deployments", "a", "apps"),
            "kube-system-service-accounts",
        ),
        (
            UserInfo("system:node:n1", groups=("system:nodes", *AUTHENTICATED)),
            _resource("patch", "nodes", subresource="status"),
            "system-node-high",
        ),
        (
            UserInfo("system:node:n1", groups=("system:nodes", *AUTHENTICATED)),
            _resource("get", "pods", "a"),
            "system-nodes",
        ),
        (
            UserInfo("system:serviceaccount:apps:builder", groups=("system:serviceaccounts", *AUTHENTICATED)),
            _resource("get", "pods", "apps"),
            "service-accounts",
        ),
        (UserInfo("alice", groups=AUTHENTICATED), _resource("get", "pods", "a"), "global-default"),
        (UserInfo("system:anonymous", groups=("system:unauthenticated",)), _resource("get", "pods"), "global-default"),
    ],
)
def test_bootstrap_schemas_classify_as_upstream(user: UserInfo, info: RequestInfo, expected: str) -> None:
    schema = classify(SCHEMAS, user, info)
    assert schema is not None and schema.name == expected


def test_flow_distinguishers() -> None:
    schemas = {schema.name: schema for schema in SCHEMAS}
    info = _resource("get", "pods", "team-a")
    user = UserInfo("system:kube-scheduler")
    assert schemas["kube-scheduler"].flow_distinguisher(user, info) == "team-a"
    assert schemas["global-default"].flow_distinguisher(user, info) == "system:kube-scheduler"
    assert schemas["exempt"].flow_distinguisher(user, info) == ""


def test_non_resource_wildcard_suffix_matches_the_stem_and_below() -> None:
    rules = {"subjects": [{"kind": "Group", "group": {"name": "*"}}], "nonResourceRules": [
        {"verbs": ["get"], "nonResourceURLs": ["/debug/*"]}
    ]}  # fmt: skip
    schema = Schema("debug", "", 5, "exempt", "", (rules,))
    user = UserInfo("alice")
    assert schema.matches(user, RequestInfo(path="/debug", verb="get"))
    assert schema.matches(user, RequestInfo(path="/debug/pprof/heap", verb="get"))
    assert not schema.matches(user, RequestInfo(path="/debugger", verb="get"))


def test_equal_precedence_is_ordered_by_name() -> None:
    names = [schema.name for schema in SCHEMAS if schema.precedence == 800]
    assert names == ["kube-controller-manager", "kube-scheduler"]

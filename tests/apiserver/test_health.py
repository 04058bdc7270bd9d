"""Health endpoints exactly as spec 1 §3.2/§4.10 and upstream print them."""

from __future__ import annotations

import pytest


@pytest.fixture
def api(svc_server):
    return svc_server.client()


def test_plain_ok(api) -> None:
    for path in ("/healthz", "/livez", "/readyz"):
        response = api.request("GET", path)
        assert response.status == 200
        assert response.body == b"ok"
        assert response.headers["Content-Type"] == "text/plain; charset=utf-8"


def test_verbose_lists_checks_and_ends_with_passed(api) -> None:
    body = api.request("GET", "/readyz", params={"verbose": ""}).body.decode()
    lines = body.splitlines()
    assert lines[:4] == ["[+]ping ok", "[+]log ok", "[+]store ok", "[+]store-readiness ok"]
    assert "[+]shutdown ok" in lines
    assert lines[-1] == "readyz check passed"
    assert api.request("GET", "/livez", params={"verbose": "1"}).body.decode().endswith("livez check passed\n")


def test_exclude_marks_check_excluded(api) -> None:
    body = api.request("GET", "/healthz", params={"verbose": "", "exclude": "log"}).body.decode()
    assert "[+]log excluded: ok" in body.splitlines()


def test_exclude_of_unknown_check_warns(api) -> None:
    body = api.request("GET", "/healthz", params={"verbose": "", "exclude": ["nope", "log"]}).body.decode()
    assert 'warn: some health checks cannot be excluded: no matches for "nope"' in body.splitlines()


def test_individual_check(api) -> None:
    response = api.request("GET", "/livez/ping")
    assert (response.status, response.body) == (200, b"ok")
    assert api.request("GET", "/readyz/store").body == b"ok"
    assert api.request("GET", "/readyz/nope").status == 404


def test_storage_failure_fails_readyz_with_reason_withheld(svc_server) -> None:
    server = svc_server.server
    original = server.backend.get

    async def broken(key):
        raise OSError("disk on fire")

    server.backend.get = broken
    try:
        response = svc_server.client().request("GET", "/readyz", params={"verbose": ""})
        assert response.status == 500
        lines = response.body.decode().splitlines()
        assert "[-]store failed: reason withheld" in lines
        assert lines[-1] == "readyz check failed"
        single = svc_server.client().request("GET", "/readyz/store")
        assert single.body == b"internal server error: disk on fire\n"
    finally:
        server.backend.get = original


# What upstream's kube-apiserver 1.36 on etcd lists, in its order.
UPSTREAM_READYZ = [
    "ping",
    "log",
    "etcd",
    "etcd-readiness",
    "informer-sync",
    "poststarthook/start-apiserver-admission-initializer",
    "poststarthook/generic-apiserver-start-informers",
    "poststarthook/priority-and-fairness-config-consumer",
    "poststarthook/priority-and-fairness-filter",
    "poststarthook/storage-object-count-tracker-hook",
    "poststarthook/start-apiextensions-informers",
    "poststarthook/start-apiextensions-controllers",
    "poststarthook/crd-informer-synced",
    "poststarthook/start-system-namespaces-controller",
    "poststarthook/start-cluster-authentication-info-controller",
    "poststarthook/start-kube-apiserver-identity-lease-controller",
    "poststarthook/start-kube-apiserver-identity-lease-garbage-collector",
    "poststarthook/start-legacy-token-tracking-controller",
    "poststarthook/start-service-ip-repair-controllers",
    "poststarthook/rbac/bootstrap-roles",
    "poststarthook/scheduling/bootstrap-system-priority-classes",
    "poststarthook/priority-and-fairness-config-producer",
    "poststarthook/bootstrap-controller",
    "poststarthook/start-kubernetes-service-cidr-controller",
    "poststarthook/start-kube-aggregator-informers",
    "poststarthook/apiservice-status-local-available-controller",
    "poststarthook/apiservice-status-remote-available-controller",
    "poststarthook/apiservice-registration-controller",
    "poststarthook/apiservice-discovery-controller",
    "poststarthook/kube-apiserver-autoregistration",
    "autoregister-completion",
    "poststarthook/apiservice-openapi-controller",
    "poststarthook/apiservice-openapiv3-controller",
    "shutdown",
]


def _verbose_names(client, endpoint: str, **params) -> list[str]:
    body = client.request("GET", endpoint, params={"verbose": "1", **params}).body.decode()
    return [line[3:].removesuffix(" ok") for line in body.splitlines() if line.startswith("[+]")]


def test_verbose_readyz_lists_upstreams_checks_in_its_order(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    assert _verbose_names(client, "/readyz") == UPSTREAM_READYZ


def test_verbose_livez_lists_the_post_start_hooks_but_not_readiness_only_checks(svc_server_factory) -> None:
    client = svc_server_factory("--brand-profile=kubernetes").client()
    readiness_only = {"etcd-readiness", "informer-sync", "shutdown"}
    expected = [name for name in UPSTREAM_READYZ if name not in readiness_only]
    assert _verbose_names(client, "/livez") == expected
    assert _verbose_names(client, "/healthz") == expected


def test_identity_lease_hooks_follow_the_gate_and_the_brand(svc_server_factory) -> None:
    names = _verbose_names(svc_server_factory().client(), "/readyz")
    assert "poststarthook/start-svc-apiserver-identity-lease-controller" in names
    assert "poststarthook/start-svc-apiserver-identity-lease-garbage-collector" in names
    gated = _verbose_names(svc_server_factory("--feature-gates=APIServerIdentity=false").client(), "/readyz")
    assert not [name for name in gated if "identity-lease" in name]


def test_flow_control_hooks_only_while_priority_and_fairness_is_on(svc_server_factory) -> None:
    names = _verbose_names(svc_server_factory("--enable-priority-and-fairness=false").client(), "/readyz")
    assert not [name for name in names if "priority-and-fairness" in name]

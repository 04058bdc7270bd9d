"""Updates of objects stored with values later checks refuse: upstream derives validation options from
the old object, so an update may keep (or repeat) invalid values of a kind the stored object has."""

from __future__ import annotations

from typing import Any

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_more_kinds import INGRESS
from tests.api.validation.test_pods import POD
from tests.api.validation.test_workloads import DEPLOYMENT

INVALID = "FieldValueInvalid"
ANTI_AFFINITY = "spec.template.spec.affinity"
TERM = {
    "topologyKey": "kubernetes.io/hostname",
    "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["-bad-"]}]},
}


def _with_bad_selector(obj: dict[str, Any]) -> dict[str, Any]:
    return with_path(
        obj, ANTI_AFFINITY, {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [TERM]}}
    )


def test_new_object_with_invalid_selector_value_is_refused() -> None:
    assert [cause[:2] for cause in causes("apps", "Deployment", _with_bad_selector(DEPLOYMENT))] == [
        (
            f"{ANTI_AFFINITY}.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector"
            ".matchExpressions[0].values[0]",
            INVALID,
        )
    ]


def test_stored_invalid_selector_value_may_stay() -> None:
    stored = _with_bad_selector(DEPLOYMENT)
    assert causes("apps", "Deployment", with_path(stored, "spec.replicas", 5), old=stored) == []


def test_valid_object_may_not_gain_an_invalid_selector_value() -> None:
    updated = _with_bad_selector(DEPLOYMENT)
    assert len(causes("apps", "Deployment", updated, old=DEPLOYMENT)) == 1


def test_stored_invalid_deletion_cost_may_stay_on_a_pod() -> None:
    key = "controller.kubernetes.io/pod-deletion-cost"
    stored = with_path(POD, "metadata.annotations", {key: "lots"})
    assert_causes(causes("", "Pod", stored), [(f"metadata.annotations[{key}]", INVALID, "must be a 32bit integer")])
    relabeled = with_path(stored, "metadata.labels", {"tier": "web"})
    assert causes("", "Pod", relabeled, old=stored) == []
    assert len(causes("", "Pod", relabeled, old=POD)) == 1


def test_stored_invalid_ingress_secret_name_may_stay() -> None:
    stored = with_path(INGRESS, "spec.tls", [{"hosts": ["a.example.com"], "secretName": "Bad_Name"}])
    assert [cause[0] for cause in causes("networking.k8s.io", "Ingress", stored)] == ["spec.tls[0].secretName"]
    relabeled = with_path(stored, "metadata.labels", {"tier": "edge"})
    assert causes("networking.k8s.io", "Ingress", relabeled, old=stored) == []
    assert len(causes("networking.k8s.io", "Ingress", relabeled, old=INGRESS)) == 1


HUGEPAGES = {"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}, "requests": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}}


def test_indivisible_hugepages_are_refused_on_create() -> None:
    stored = with_path(POD, "spec.containers.0.resources", HUGEPAGES)
    detail = "3Mi is not positive integer multiple of hugepages-2Mi"
    assert_causes(
        causes("", "Pod", stored),
        [
            ("spec.containers[0].resources.limits[hugepages-2Mi]", INVALID, detail),
            ("spec.containers[0].resources.requests[hugepages-2Mi]", INVALID, detail),
        ],
    )


def test_stored_indivisible_hugepages_may_stay() -> None:
    stored = with_path(POD, "spec.containers.0.resources", HUGEPAGES)
    relabeled = with_path(stored, "metadata.labels", {"tier": "web"})
    assert causes("", "Pod", relabeled, old=stored) == []
    fields = [cause[0] for cause in causes("", "Pod", relabeled, old=POD)]
    assert "spec.containers[0].resources.limits[hugepages-2Mi]" in fields


def test_hugepages_alone_are_forbidden() -> None:
    pod = with_path(POD, "spec.containers.0.resources", {"limits": {"hugepages-2Mi": "4Mi"}})
    assert_causes(
        causes("", "Pod", pod),
        [("spec.containers[0].resources", "FieldValueForbidden", "HugePages require cpu or memory")],
    )


def _host_network_sysctl(pod: dict[str, Any]) -> dict[str, Any]:
    pod = with_path(pod, "spec.hostNetwork", True)
    return with_path(pod, "spec.securityContext", {"sysctls": [{"name": "net.core.somaxconn", "value": "1024"}]})


def test_namespaced_sysctl_with_host_network_is_refused_on_create() -> None:
    assert_causes(
        causes("", "Pod", _host_network_sysctl(POD)),
        [("spec.securityContext.sysctls[0].name", INVALID, "may not be specified when 'hostNetwork' is true")],
    )


def test_stored_namespaced_sysctl_with_host_network_may_stay() -> None:
    stored = _host_network_sysctl(POD)
    relabeled = with_path(stored, "metadata.labels", {"tier": "web"})
    assert causes("", "Pod", relabeled, old=stored) == []
    assert "spec.securityContext.sysctls[0].name" in [cause[0] for cause in causes("", "Pod", relabeled, old=POD)]


BAD_PATH = {"path": "api", "pathType": "Prefix", "backend": {"service": {"name": "api", "port": {"number": 80}}}}


def test_invalid_wildcard_rule_is_refused_on_create() -> None:
    stored = with_path(INGRESS, "spec.rules.0.http.paths.0", BAD_PATH)
    assert_causes(
        causes("networking.k8s.io", "Ingress", stored),
        [("spec.rules[0].http.paths[0].path", INVALID, "must be an absolute path")],
    )


def test_stored_invalid_wildcard_rule_may_stay() -> None:
    stored = with_path(INGRESS, "spec.rules.0.http.paths.0", BAD_PATH)
    relabeled = with_path(stored, "metadata.labels", {"tier": "edge"})
    assert causes("networking.k8s.io", "Ingress", relabeled, old=stored) == []
    assert len(causes("networking.k8s.io", "Ingress", relabeled, old=INGRESS)) == 1


def test_a_stored_invalid_wildcard_rule_does_not_excuse_a_plain_host_rule() -> None:
    stored = with_path(INGRESS, "spec.rules.0.http.paths.0", BAD_PATH)
    plain = with_path(stored, "spec.rules.0.host", "www.example.com")
    assert len(causes("networking.k8s.io", "Ingress", plain, old=stored)) == 1


SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {"ports": [{"port": 80}], "externalIPs": ["10.1.2.3"]},
}


def test_external_ip_with_leading_zeros_is_refused_on_create() -> None:
    stored = with_path(SERVICE, "spec.externalIPs", ["10.01.2.3"])
    assert_causes(causes("", "Service", stored), [("spec.externalIPs[0]", INVALID, "must not have leading 0s")])


def test_stored_address_with_leading_zeros_may_stay_but_not_spread() -> None:
    stored = with_path(SERVICE, "spec.externalIPs", ["10.01.2.3"])
    kept = with_path(stored, "spec.externalIPs", ["10.9.9.9", "10.01.2.3"])
    assert causes("", "Service", kept, old=stored) == []
    another = with_path(stored, "spec.externalIPs", ["10.01.2.3", "10.02.2.3"])
    assert [cause[0] for cause in causes("", "Service", another, old=stored)] == ["spec.externalIPs[1]"]

"""Service IP families and their policy, settled on create and update as upstream's Service REST does,
and the linked address fields validated as upstream's `ValidateServiceClusterIPsRelatedFields`."""

from __future__ import annotations

import ipaddress

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

SERVICES = "/api/v1/namespaces/default/services"
INVALID, FORBIDDEN, DUPLICATE, NOT_SUPPORTED = (
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueDuplicate",
    "FieldValueNotSupported",
)
SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "type": "ClusterIP",
        "selector": {"app": "web"},
        "ports": [{"port": 80}],
        "clusterIP": "10.0.0.10",
        "clusterIPs": ["10.0.0.10"],
        "ipFamilies": ["IPv4"],
        "ipFamilyPolicy": "SingleStack",
    },
}


def _service(name: str, **spec) -> dict:
    body = {"type": "ClusterIP", "selector": {"app": name}, "ports": [{"port": 80}], **spec}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name}, "spec": body}


@pytest.fixture
def single(svc_server):
    return svc_server.client()


@pytest.fixture
def dual(svc_server_factory):
    return svc_server_factory("--service-cluster-ip-range=10.0.0.0/24,fd00:10::/108").client()


def test_single_stack_cluster_gives_ipv4_single_stack(single) -> None:
    spec = single.request("POST", SERVICES, body=_service("a")).json()["spec"]
    assert (spec["ipFamilies"], spec["ipFamilyPolicy"]) == (["IPv4"], "SingleStack")
    prefer = single.request("POST", SERVICES, body=_service("b", ipFamilyPolicy="PreferDualStack")).json()["spec"]
    assert (prefer["ipFamilies"], len(prefer["clusterIPs"])) == (["IPv4"], 1)


def test_require_dual_stack_is_refused_on_a_single_stack_cluster(single) -> None:
    answer = single.request("POST", SERVICES, body=_service("a", ipFamilyPolicy="RequireDualStack"))
    assert answer.status == 422
    assert answer.json()["details"]["causes"] == [
        {
            "reason": INVALID,
            "message": 'Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
            "field": "spec.ipFamilyPolicy",
        }
    ]
    unknown = single.request("POST", SERVICES, body=_service("b", ipFamilies=["IPv6"]))
    assert [c["message"] for c in unknown.json()["details"]["causes"]] == [
        'Invalid value: "IPv6": not configured on this cluster'
    ]


def test_single_stack_with_two_families_is_refused(dual) -> None:
    body = _service("a", ipFamilyPolicy="SingleStack", ipFamilies=["IPv4", "IPv6"])
    answer = dual.request("POST", SERVICES, body=body)
    assert answer.status == 422
    assert answer.json()["details"]["causes"] == [
        {
            "reason": INVALID,
            "message": "Invalid value: \"SingleStack\": must be 'RequireDualStack' or 'PreferDualStack' when "
            "multiple IP families are specified",
            "field": "spec.ipFamilyPolicy",
        }
    ]
    assert dual.request("GET", f"{SERVICES}/a").status == 404


def test_dual_stack_cluster_allocates_both_families_in_the_asked_order(dual) -> None:
    body = _service("a", ipFamilyPolicy="RequireDualStack", ipFamilies=["IPv6"])
    spec = dual.request("POST", SERVICES, body=body).json()["spec"]
    assert spec["ipFamilies"] == ["IPv6", "IPv4"]
    first, second = (ipaddress.ip_address(ip) for ip in spec["clusterIPs"])
    assert (first.version, second.version) == (6, 4)
    assert spec["clusterIP"] == spec["clusterIPs"][0]


def test_releasing_the_secondary_address_needs_single_stack(dual) -> None:
    created = dual.request("POST", SERVICES, body=_service("a", ipFamilyPolicy="PreferDualStack")).json()
    created["spec"]["clusterIPs"] = created["spec"]["clusterIPs"][:1]
    created["spec"]["ipFamilies"] = created["spec"]["ipFamilies"][:1]
    refused = dual.request("PUT", f"{SERVICES}/a", body=created)
    assert refused.status == 422
    assert [c["message"] for c in refused.json()["details"]["causes"]] == [
        "Invalid value: \"PreferDualStack\": must be 'SingleStack' to release the secondary cluster IP",
        "Invalid value: \"PreferDualStack\": must be 'SingleStack' to release the secondary IP family",
    ]
    created["spec"]["ipFamilyPolicy"] = "SingleStack"
    downgraded = dual.request("PUT", f"{SERVICES}/a", body=created)
    assert downgraded.status == 200, downgraded.json()
    assert downgraded.json()["spec"]["ipFamilies"] == ["IPv4"]


def test_headless_selectorless_service_defaults_to_require_dual_stack(single) -> None:
    body = _service("a", clusterIP="None")
    del body["spec"]["selector"]
    spec = single.request("POST", SERVICES, body=body).json()["spec"]
    assert (spec["ipFamilyPolicy"], spec["ipFamilies"], spec["clusterIPs"]) == (
        "RequireDualStack",
        ["IPv4", "IPv6"],
        ["None"],
    )


def test_external_name_service_may_not_set_a_family_policy(single) -> None:
    body = _service("a", type="ExternalName", externalName="example.com", ipFamilyPolicy="SingleStack")
    answer = single.request("POST", SERVICES, body=body)
    assert answer.status == 422
    assert answer.json()["details"]["causes"] == [
        {
            "reason": FORBIDDEN,
            "message": "Forbidden: may not be set for ExternalName services",
            "field": "spec.ipFamilyPolicy",
        }
    ]


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        ("spec.ipFamilies", ["IPv4", "IPv4"], [("spec.ipFamilies[1]", DUPLICATE, '"IPv4"')]),
        ("spec.ipFamilies", ["IPv5"], [("spec.ipFamilies[0]", NOT_SUPPORTED, '"IPv4", "IPv6"')]),
        ("spec.ipFamilyPolicy", "Dual", [("spec.ipFamilyPolicy", NOT_SUPPORTED, '"PreferDualStack"')]),
        ("spec.clusterIPs", ["10.0.0.11"], [("spec.clusterIPs", INVALID, "first value must match `clusterIP`")]),
        ("spec.ipFamilies", ["IPv6"], [("spec.clusterIPs[0]", INVALID, "expected an IPv6 value as indicated by")]),
        (
            "spec.clusterIPs",
            ["10.0.0.10", "10.0.0.11"],
            [("spec.clusterIPs", INVALID, "may specify no more than one IP for each IP family")],
        ),
        (
            "spec.clusterIPs",
            ["10.0.0.10", "fd00::1", "10.0.0.12"],
            [
                ("spec.clusterIPs", INVALID, "may only hold up to 2 values"),
                ("spec.clusterIPs", INVALID, "may specify no more than one IP for each IP family"),
            ],
        ),
    ],
)
def test_linked_address_fields(path: str, value, expected) -> None:
    assert_causes(causes("", "Service", with_path(SERVICE, path, value)), expected)


def test_primary_family_may_not_change() -> None:
    changed = with_path(with_path(SERVICE, "spec.ipFamilies", ["IPv6"]), "spec.clusterIPs", ["fd00::10"])
    changed = with_path(changed, "spec.clusterIP", "fd00::10")
    assert_causes(
        causes("", "Service", changed, old=SERVICE),
        [
            ("spec.clusterIPs[0]", INVALID, "may not change once set"),
            ("spec.ipFamilies[0]", INVALID, "may not change once set"),
        ],
    )


def test_turning_external_name_drops_the_address_fields_it_kept(single) -> None:
    created = single.request("POST", SERVICES, body=_service("a")).json()
    created["spec"].update(type="ExternalName", externalName="example.com")
    turned = single.request("PUT", f"{SERVICES}/a", body=created)
    assert turned.status == 200, turned.json()
    assert not {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"} & set(turned.json()["spec"])
    moved = turned.json()
    moved["spec"]["ipFamilies"] = ["IPv4"]
    refused = single.request("PUT", f"{SERVICES}/a", body=moved)
    assert [c["field"] for c in refused.json()["details"]["causes"]] == ["spec.ipFamilies"]

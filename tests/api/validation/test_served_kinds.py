"""ServiceCIDR, IPAddress, ClusterTrustBundle, CSINode, CSIStorageCapacity, VolumeAttributesClass and
RuntimeClass: upstream's causes for invalid objects, valid fixtures pass."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.api.validation.support import assert_causes, causes, with_path

REQUIRED, INVALID, FORBIDDEN, DUPLICATE = (
    "FieldValueRequired",
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueDuplicate",
)
NET, CERTS, STORAGE, NODE = "networking.k8s.io", "certificates.k8s.io", "storage.k8s.io", "node.k8s.io"


def _certificate_pem(*, ca: bool) -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test-ca")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return certificate.public_bytes(serialization.Encoding.PEM).decode()


CA_PEM = _certificate_pem(ca=True)
SERVICE_CIDR = {"metadata": {"name": "extra"}, "spec": {"cidrs": ["10.96.0.0/16"]}}
IP_ADDRESS = {
    "metadata": {"name": "10.96.0.10"},
    "spec": {"parentRef": {"group": "", "resource": "services", "namespace": "default", "name": "web"}},
}
BUNDLE = {"metadata": {"name": "example.com:foo:v1"}, "spec": {"signerName": "example.com/foo", "trustBundle": CA_PEM}}
CSI_NODE = {
    "metadata": {"name": "node-1"},
    "spec": {"drivers": [{"name": "disk.example.com", "nodeID": "n1", "topologyKeys": ["topology.example.com/zone"]}]},
}
CAPACITY = {"metadata": {"name": "c1", "namespace": "default"}, "storageClassName": "fast", "capacity": "10Gi"}
ATTRIBUTES_CLASS = {"metadata": {"name": "gold"}, "driverName": "disk.example.com", "parameters": {"iops": "100"}}
RUNTIME_CLASS = {
    "metadata": {"name": "gvisor"},
    "handler": "runsc",
    "overhead": {"podFixed": {"cpu": "100m"}},
    "scheduling": {"nodeSelector": {"sandbox": "true"}, "tolerations": [{"key": "sandbox", "operator": "Exists"}]},
}

VALID = [
    (NET, "ServiceCIDR", SERVICE_CIDR),
    (NET, "ServiceCIDR", with_path(SERVICE_CIDR, "spec.cidrs", ["10.96.0.0/16", "fd00::/108"])),
    (NET, "IPAddress", IP_ADDRESS),
    (CERTS, "ClusterTrustBundle", BUNDLE),
    (CERTS, "ClusterTrustBundle", {"metadata": {"name": "plain"}, "spec": {"trustBundle": CA_PEM}}),
    (STORAGE, "CSINode", CSI_NODE),
    (STORAGE, "CSIStorageCapacity", CAPACITY),
    (STORAGE, "VolumeAttributesClass", ATTRIBUTES_CLASS),
    (NODE, "RuntimeClass", RUNTIME_CLASS),
]


@pytest.mark.parametrize(("group", "kind", "obj"), VALID)
def test_valid_objects_pass(group: str, kind: str, obj: dict[str, Any]) -> None:
    assert causes(group, kind, obj) == []


INVALID_CASES = [
    (NET, "ServiceCIDR", with_path(SERVICE_CIDR, "spec.cidrs", []), [("spec.cidrs", REQUIRED, "at least one CIDR")]),
    (
        NET,
        "ServiceCIDR",
        with_path(SERVICE_CIDR, "spec.cidrs", ["10.96.0.0/16", "10.97.0.0/16"]),
        [("spec.cidrs", INVALID, "no more than one IP for each IP family")],
    ),
    (
        NET,
        "ServiceCIDR",
        with_path(SERVICE_CIDR, "spec.cidrs", ["10.96.0.1/16"]),
        [("spec.cidrs[0]", INVALID, "must not have bits set beyond the prefix length")],
    ),
    (
        NET,
        "ServiceCIDR",
        with_path(SERVICE_CIDR, "spec.cidrs", ["10.0.0.0/8", "fd00::/64", "10.1.0.0/16"]),
        [("spec.cidrs", INVALID, "may only hold up to 2 values")],
    ),
    (NET, "IPAddress", with_path(IP_ADDRESS, "spec.parentRef", ...), [("spec.parentRef", REQUIRED, "")]),
    (
        NET,
        "IPAddress",
        with_path(with_path(IP_ADDRESS, "spec.parentRef.resource", ""), "spec.parentRef.name", "a/b"),
        [("spec.parentRef.resource", REQUIRED, ""), ("spec.parentRef.name", INVALID, "may not contain '/'")],
    ),
    (
        CERTS,
        "ClusterTrustBundle",
        with_path(BUNDLE, "metadata.name", "other:v1"),
        [("metadata.name", INVALID, "must be named with prefix example.com:foo:")],
    ),
    (
        CERTS,
        "ClusterTrustBundle",
        with_path(with_path(BUNDLE, "spec.signerName", ...), "metadata.name", "a:b"),
        [("metadata.name", INVALID, 'without signer name must not have ":" in its name')],
    ),
    (
        CERTS,
        "ClusterTrustBundle",
        with_path(BUNDLE, "spec.trustBundle", ""),
        [("spec.trustBundle", INVALID, "at least one trust anchor must be provided")],
    ),
    (
        CERTS,
        "ClusterTrustBundle",
        with_path(BUNDLE, "spec.trustBundle", _certificate_pem(ca=False)),
        [("spec.trustBundle", INVALID, "entry 0 does not have the CA bit set")],
    ),
    (
        CERTS,
        "ClusterTrustBundle",
        with_path(BUNDLE, "spec.trustBundle", CA_PEM + CA_PEM + "junk"),
        [
            ("spec.trustBundle", INVALID, "contains trailing data"),
            ("spec.trustBundle", INVALID, "duplicate trust anchor (indices [0 1])"),
        ],
    ),
    (
        STORAGE,
        "CSINode",
        with_path(CSI_NODE, "spec.drivers.1", {"name": "disk.example.com", "nodeID": ""}),
        [("spec.drivers[1].nodeID", REQUIRED, ""), ("spec.drivers[1].name", DUPLICATE, "")],
    ),
    (
        STORAGE,
        "CSIStorageCapacity",
        with_path(CAPACITY, "capacity", "-1"),
        [("capacity", INVALID, "must be greater than or equal to 0")],
    ),
    (
        STORAGE,
        "CSIStorageCapacity",
        with_path(CAPACITY, "storageClassName", "Fast"),
        [("storageClassName", INVALID, "RFC 1123 subdomain")],
    ),
    (
        STORAGE,
        "VolumeAttributesClass",
        with_path(with_path(ATTRIBUTES_CLASS, "driverName", ""), "parameters", {}),
        [("driverName", REQUIRED, ""), ("parameters", REQUIRED, "must contain at least one key/value pair")],
    ),
    (NODE, "RuntimeClass", with_path(RUNTIME_CLASS, "handler", "Run_SC"), [("handler", INVALID, "RFC 1123 label")]),
    (
        NODE,
        "RuntimeClass",
        with_path(RUNTIME_CLASS, "overhead.podFixed.cpu", "-1"),
        [("overhead.limits[cpu]", INVALID, "must be greater than or equal to 0")],
    ),
]


@pytest.mark.parametrize(("group", "kind", "obj", "expected"), INVALID_CASES)
def test_invalid_objects_get_upstream_causes(
    group: str, kind: str, obj: dict[str, Any], expected: list[tuple[str, str, str]]
) -> None:
    assert_causes(causes(group, kind, obj), expected)


def test_service_cidr_may_grow_to_dual_stack_but_not_change() -> None:
    dual = with_path(SERVICE_CIDR, "spec.cidrs", ["10.96.0.0/16", "fd00::/108"])
    assert causes(NET, "ServiceCIDR", dual, old=SERVICE_CIDR) == []
    changed = with_path(SERVICE_CIDR, "spec.cidrs", ["10.97.0.0/16"])
    assert_causes(causes(NET, "ServiceCIDR", changed, old=SERVICE_CIDR), [("spec.cidrs[0]", INVALID, "immutable")])
    assert_causes(causes(NET, "ServiceCIDR", SERVICE_CIDR, old=dual), [("spec.cidrs", INVALID, "immutable")])


@pytest.mark.parametrize(
    ("group", "kind", "obj", "path", "value", "expected"),
    [
        (NET, "IPAddress", IP_ADDRESS, "spec.parentRef.name", "db", ("spec.parentRef", INVALID, "field is immutable")),
        (CERTS, "ClusterTrustBundle", BUNDLE, "spec.signerName", "example.com/bar", ("spec.signerName", INVALID, "")),
        (STORAGE, "CSIStorageCapacity", CAPACITY, "storageClassName", "slow", ("storageClassName", INVALID, "")),
        (STORAGE, "VolumeAttributesClass", ATTRIBUTES_CLASS, "parameters.iops", "5", ("parameters", FORBIDDEN, "")),
        (NODE, "RuntimeClass", RUNTIME_CLASS, "handler", "kata", ("handler", INVALID, "field is immutable")),
    ],
)
def test_fixed_fields_refuse_updates(
    group: str, kind: str, obj: dict[str, Any], path: str, value: Any, expected: tuple[str, str, str]
) -> None:
    found = causes(group, kind, with_path(obj, path, value), old=obj)
    assert expected[:2] in [cause[:2] for cause in found], found


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory(
        "--brand-profile=kubernetes", "--runtime-config=certificates.k8s.io/v1beta1=true"
    ).client()


def test_names_of_addresses_and_signer_bundles_over_http(api) -> None:
    addresses = "/apis/networking.k8s.io/v1/ipaddresses"
    assert api.request("POST", addresses, body={**IP_ADDRESS, "metadata": {"name": "fd00::10"}}).status == 201
    refused = api.request("POST", addresses, body={**IP_ADDRESS, "metadata": {"name": "fd00:0::11"}})
    assert refused.status == 422
    assert refused.json()["details"]["causes"][0]["message"].endswith("must be a canonical format IP address")
    bundles = "/apis/certificates.k8s.io/v1beta1/clustertrustbundles"
    created = api.request("POST", bundles, body={"apiVersion": "certificates.k8s.io/v1beta1", **BUNDLE})
    assert created.status == 201, created.json()
    misnamed = {"apiVersion": "certificates.k8s.io/v1beta1", **with_path(BUNDLE, "metadata.name", "example.com:bar:v1")}
    assert api.request("POST", bundles, body=misnamed).status == 422


def test_csi_node_driver_entries_are_immutable_except_their_count() -> None:
    recounted = with_path(CSI_NODE, "spec.drivers.0.allocatable", {"count": 8})
    assert causes(STORAGE, "CSINode", recounted, old=CSI_NODE) == []
    moved = with_path(CSI_NODE, "spec.drivers.0.nodeID", "n2")
    [(field, reason, message)] = causes(STORAGE, "CSINode", moved, old=CSI_NODE)
    assert (field, reason) == ("spec.drivers", INVALID)
    assert message == (
        'Invalid value: {"Name":"disk.example.com","NodeID":"n2","TopologyKeys":["topology.example.com/zone"],'
        '"Allocatable":null}: field is immutable'
    )
    added = with_path(CSI_NODE, "spec.drivers.1", {"name": "nfs.example.com", "nodeID": "n1"})
    assert causes(STORAGE, "CSINode", added, old=CSI_NODE) == []

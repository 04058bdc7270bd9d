"""Real kubectl reading the server's Tables for the kinds of issue 12 item 7 the other printing tests
leave out (storage attachment, revisions, templates, certificate requests, admission policies, flow
schemas, resource.k8s.io): the headers are upstream's printers' columns."""

from __future__ import annotations

import orjson

from tests.builtin_objects import manifest
from tests.e2e.kubectl_runner import Kubectl

KINDS = [
    ("storage.k8s.io/v1", "CSIDriver"),
    ("storage.k8s.io/v1", "CSINode"),
    ("storage.k8s.io/v1", "VolumeAttachment"),
    ("apps/v1", "ControllerRevision"),
    ("v1", "PodTemplate"),
    ("certificates.k8s.io/v1", "CertificateSigningRequest"),
    ("admissionregistration.k8s.io/v1", "MutatingAdmissionPolicy"),
    ("admissionregistration.k8s.io/v1", "MutatingAdmissionPolicyBinding"),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"),
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding"),
    ("flowcontrol.apiserver.k8s.io/v1", "FlowSchema"),
    ("resource.k8s.io/v1", "DeviceClass"),
    ("resource.k8s.io/v1", "ResourceClaim"),
    ("resource.k8s.io/v1", "ResourceClaimTemplate"),
    ("resource.k8s.io/v1", "ResourceSlice"),
]

HEADERS = {
    "csidrivers": [
        "NAME", "ATTACHREQUIRED", "PODINFOONMOUNT", "STORAGECAPACITY", "TOKENREQUESTS", "REQUIRESREPUBLISH", "MODES",
        "AGE",
    ],
    "csinodes": ["NAME", "DRIVERS", "AGE"],
    "volumeattachments": ["NAME", "ATTACHER", "PV", "NODE", "ATTACHED", "AGE"],
    "controllerrevisions": ["NAME", "CONTROLLER", "REVISION", "AGE"],
    "podtemplates": ["NAME", "CONTAINERS", "IMAGES", "POD", "LABELS"],
    "certificatesigningrequests": ["NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION"],
    "mutatingadmissionpolicies": ["NAME", "MUTATIONS", "PARAMKIND", "AGE"],
    "mutatingadmissionpolicybindings": ["NAME", "POLICYNAME", "PARAMREF", "AGE"],
    "validatingadmissionpolicies": ["NAME", "VALIDATIONS", "PARAMKIND", "AGE"],
    "validatingadmissionpolicybindings": ["NAME", "POLICYNAME", "PARAMREF", "AGE"],
    "flowschemas": ["NAME", "PRIORITYLEVEL", "MATCHINGPRECEDENCE", "DISTINGUISHERMETHOD", "AGE", "MISSINGPL"],
    "deviceclasses": ["NAME", "AGE"],
    "resourceclaims": ["NAME", "STATE", "AGE"],
    "resourceclaimtemplates": ["NAME", "AGE"],
    "resourceslices": ["NAME", "NODE", "DRIVER", "POOL", "AGE"],
}  # fmt: skip


def test_get_prints_upstream_headers_for_the_remaining_kinds(svc_server_factory, kubectl_binary) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    objects = [manifest(api_version, kind) for api_version, kind in KINDS]
    names = {obj["metadata"]["name"] for obj in objects}
    items = orjson.dumps({"apiVersion": "v1", "kind": "List", "items": objects}).decode()
    kubectl.run("create", "-f", "-", stdin=items)
    for resource, header in HEADERS.items():
        lines = kubectl.run("get", resource, "-n", "default").stdout.splitlines()
        assert lines[0].split() == header, resource
        # The server's own objects (bootstrap flow schemas) may be listed beside the test's.
        assert any(line.split()[0] in names for line in lines[1:]), (resource, lines)

"""The serving ClusterTrustBundle publisher's sync over a seeded cache."""

from __future__ import annotations

import asyncio
import hashlib

from svc.controllers.ctbpublisher import ClusterTrustBundlePublisher, bundle_name
from tests.controllers.fakes import make_context

CA = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
SIGNER = "svc.io/svc-apiserver-serving"
PATH = "/apis/certificates.svc/v1beta1/clustertrustbundles"
NAME = "svc.io:svc-apiserver-serving:" + hashlib.sha256(CA).hexdigest()[:24]


def bundle(name: str, content: str, signer: str = SIGNER) -> dict:
    return {"metadata": {"name": name}, "spec": {"signerName": signer, "trustBundle": content}}


def publisher(profile: str = "svc") -> ClusterTrustBundlePublisher:
    context, _ = make_context(profile, root_ca=CA)
    controller = ClusterTrustBundlePublisher(context)
    controller.watch("v1beta1")
    return controller


def test_the_bundle_is_named_by_signer_and_content_hash() -> None:
    assert bundle_name(SIGNER, CA) == NAME


def test_a_missing_bundle_is_created() -> None:
    controller = publisher()
    asyncio.run(controller.sync())
    assert controller.context.client.calls == [("create", PATH, bundle(NAME, CA.decode()))]  # type: ignore[attr-defined]


def test_a_changed_bundle_is_rewritten_and_the_signers_other_bundles_deleted() -> None:
    controller = publisher()
    assert controller.bundles is not None
    controller.bundles.replace(
        [bundle(NAME, "stale"), bundle("svc.io:svc-apiserver-serving:old", "old"), bundle("x:y", "z", "example.com/x")]
    )
    asyncio.run(controller.sync())
    assert controller.context.client.calls == [  # type: ignore[attr-defined]
        ("update", f"{PATH}/{NAME.replace(':', '%3A')}", bundle(NAME, CA.decode())),
        ("delete", f"{PATH}/svc.io%3Asvc-apiserver-serving%3Aold", None),
    ]


def test_the_kubernetes_profile_publishes_upstreams_signer() -> None:
    controller = publisher("kubernetes")
    assert controller.signer == "kubernetes.io/kube-apiserver-serving"
    assert controller.name == "kube-apiserver-serving-clustertrustbundle-publisher-controller"


def test_discovery_picks_v1beta1_then_v1alpha1_and_nothing_when_neither_serves_bundles() -> None:
    context, client = make_context(root_ca=CA)
    controller = ClusterTrustBundlePublisher(context)
    assert asyncio.run(controller.served_version()) == ""
    client.objects["/apis/certificates.svc/v1alpha1"] = {"resources": [{"name": "clustertrustbundles"}]}
    assert asyncio.run(controller.served_version()) == "v1alpha1"
    client.objects["/apis/certificates.svc/v1beta1"] = {"resources": [{"name": "podcertificaterequests"}]}
    assert asyncio.run(controller.served_version()) == "v1alpha1"

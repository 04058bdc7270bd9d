"""Converting custom resources: the `None` strategy, and a real HTTPS conversion webhook on loopback
converting between v1alpha1 (`spec.size`) and v1 (`spec.replicas`), with upstream's checks and texts."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from svc.api.brand import KUBERNETES, SVC, Profile
from svc.apiserver.apiextensions.conversion import build_converter
from svc.apiserver.webhook_client import WebhookClient
from svc.apiserver.webhook_service_resolver import endpoints_resolver
from svc.machinery.status import StatusError
from svc.testing.harness import free_port
from svc.testing.webhook_server import WebhookTls, https_webhook, issue_webhook_tls
from tests.conversion_webhook import ALPHA, GROUP, V1, Review, conversion_handler

PREFIX = "conversion for stable.example.com/v1alpha1, Kind=CronTab"
WEBHOOK_FAILED = f"{PREFIX} failed: conversion webhook for /, Kind= failed: "


def _crd(conversion: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"crontabs.{GROUP}"},
        "spec": {
            "group": GROUP,
            "names": {"plural": "crontabs", "singular": "crontab", "kind": "CronTab"},
            "scope": "Namespaced",
            "versions": [
                {"name": "v1alpha1", "served": True, "storage": False},
                {"name": "v1", "served": True, "storage": True},
            ],
            "conversion": conversion or {"strategy": "None"},
        },
    }


def _webhook_crd(client_config: dict[str, Any], review_versions: tuple[str, ...] = ("v1",)) -> dict[str, Any]:
    return _crd(
        {
            "strategy": "Webhook",
            "webhook": {"clientConfig": client_config, "conversionReviewVersions": list(review_versions)},
        }
    )


def _crontab(name: str, api_version: str = ALPHA, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": "CronTab",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": f"uid-{name}",
            "resourceVersion": "7",
            "generation": 1,
            "labels": {"app": "cron"},
        },
        "spec": spec or {"size": 3},
    }


def _run_webhook(
    tmp_path: Path,
    objects: list[dict[str, Any]],
    to: str,
    *,
    tamper: Callable[[Review], None] | None = None,
    review_versions: tuple[str, ...] = ("v1",),
    profile: Profile = KUBERNETES,
    delay: float = 0.0,
    timeout_seconds: float = 5.0,
    ca_of: Callable[[WebhookTls], str] = lambda tls: tls.ca_bundle,
) -> tuple[list[dict[str, Any]], list[Review]]:
    tls = issue_webhook_tls(tmp_path / "tls", ["127.0.0.1"])
    seen: list[Review] = []

    async def run() -> list[dict[str, Any]]:
        async with https_webhook(conversion_handler(seen, tamper, delay), tls, "/convert") as base:
            crd = _webhook_crd({"url": f"{base}/convert", "caBundle": ca_of(tls)}, review_versions)
            client = WebhookClient()
            try:
                converter = build_converter(crd, webhooks=client, profile=profile, timeout_seconds=timeout_seconds)
                return await converter.convert(objects, to)
            finally:
                await client.close()

    return asyncio.run(run()), seen


def _failure(tmp_path: Path, **kwargs: Any) -> StatusError:
    with pytest.raises(StatusError) as caught:
        _run_webhook(tmp_path, [_crontab("a")], V1, **kwargs)
    assert caught.value.code == 500
    assert "reason" not in caught.value.status()
    return caught.value


# -- the None strategy -----------------------------------------------------------------------------


def _none(objects: list[dict[str, Any]], to: str) -> list[dict[str, Any]]:
    converter = build_converter(_crd(), webhooks=WebhookClient(), profile=KUBERNETES)
    return asyncio.run(converter.convert(objects, to))


def test_none_strategy_round_trip_changes_only_the_api_version() -> None:
    original = _crontab("a")
    there = _none([original], V1)
    back = _none(there, ALPHA)
    assert there == [{**original, "apiVersion": V1}]
    assert back == [original]
    assert original["apiVersion"] == ALPHA  # the input is left alone


@pytest.mark.parametrize(
    ("objects", "to", "message"),
    [
        ([_crontab("a")], f"{GROUP}/v2", "request to convert CR to an invalid group/version: stable.example.com/v2"),
        (
            [_crontab("a", "other.example.com/v1")],
            V1,
            "request to convert CR from an invalid group/version: other.example.com/v1",
        ),
        (
            [_crontab("a"), _crontab("b", f"{GROUP}/v9")],
            V1,
            "request to convert CR list failed, list index 1 has invalid group/version: stable.example.com/v9",
        ),
    ],
)
def test_versions_outside_the_crd_are_refused(objects, to: str, message: str) -> None:
    with pytest.raises(StatusError) as caught:
        _none(objects, to)
    assert (caught.value.code, caught.value.message) == (500, message)


# -- the Webhook strategy --------------------------------------------------------------------------


def test_webhook_round_trip_renames_the_field_and_keeps_metadata(tmp_path: Path) -> None:
    original = _crontab("a", size=5)
    (there,), _ = _run_webhook(tmp_path / "there", [original], V1)
    (back,), _ = _run_webhook(tmp_path / "back", [there], ALPHA)
    assert there["apiVersion"] == V1 and there["spec"] == {"replicas": 5}
    assert there["metadata"] == original["metadata"]
    assert back == original


def test_review_is_v1_in_the_profiles_group_with_a_fresh_uid(tmp_path: Path) -> None:
    _, seen = _run_webhook(tmp_path / "k", [_crontab("a")], V1)
    _, seen_svc = _run_webhook(tmp_path / "s", [_crontab("a")], V1, profile=SVC)
    request = seen[0]["request"]
    assert seen[0]["apiVersion"] == "apiextensions.k8s.io/v1" and seen[0]["kind"] == "ConversionReview"
    assert request["desiredAPIVersion"] == V1 and request["objects"] == [_crontab("a")] and request["uid"]
    assert seen_svc[0]["apiVersion"] == "apiextensions.svc/v1"


def test_a_batch_sends_only_objects_not_yet_at_the_target_and_keeps_order(tmp_path: Path) -> None:
    objects = [_crontab("a", size=1), _crontab("b", V1, replicas=2), _crontab("c", size=3)]
    converted, seen = _run_webhook(tmp_path, objects, V1)
    assert [obj["metadata"]["name"] for obj in seen[0]["request"]["objects"]] == ["a", "c"]
    assert [(obj["metadata"]["name"], obj["spec"]) for obj in converted] == [
        ("a", {"replicas": 1}),
        ("b", {"replicas": 2}),
        ("c", {"replicas": 3}),
    ]


def test_nothing_to_convert_calls_no_webhook(tmp_path: Path) -> None:
    converted, seen = _run_webhook(tmp_path, [_crontab("b", V1, replicas=2)], V1)
    assert seen == [] and converted == [_crontab("b", V1, replicas=2)]


def test_first_supported_review_version_is_used_and_v1beta1_answers_need_no_uid(tmp_path: Path) -> None:
    def drop_uid(answer: Review) -> None:
        answer["response"]["uid"] = ""

    converted, seen = _run_webhook(
        tmp_path, [_crontab("a")], V1, review_versions=("v2", "v1beta1", "v1"), tamper=drop_uid
    )
    assert seen[0]["apiVersion"] == "apiextensions.k8s.io/v1beta1"
    assert converted[0]["spec"] == {"replicas": 3}


def test_no_supported_review_version_fails_before_calling(tmp_path: Path) -> None:
    error = _failure(tmp_path, review_versions=("v2",))
    assert error.message == f"{PREFIX} failed: no supported conversion review versions"


def test_wrong_uid_is_refused(tmp_path: Path) -> None:
    def wrong_uid(answer: Review) -> None:
        answer["response"]["uid"] = "wrong"

    error = _failure(tmp_path, tamper=wrong_uid)
    assert error.message.startswith(WEBHOOK_FAILED + 'expected response.uid="')
    assert error.message.endswith('", got "wrong"')


def test_v1_answer_of_another_kind_is_refused(tmp_path: Path) -> None:
    def other_kind(answer: Review) -> None:
        answer["kind"] = "AdmissionReview"

    error = _failure(tmp_path, tamper=other_kind)
    assert error.message == WEBHOOK_FAILED + (
        "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, "
        "got apiextensions.k8s.io/v1, Kind=AdmissionReview"
    )


def test_failed_result_carries_the_webhooks_message(tmp_path: Path) -> None:
    def fail(answer: Review) -> None:
        answer["response"]["result"] = {"status": "Failure", "message": "custom webhook conversion error"}

    assert _failure(tmp_path, tamper=fail).message == WEBHOOK_FAILED + "custom webhook conversion error"


def test_failed_result_without_message_names_the_status(tmp_path: Path) -> None:
    def fail(answer: Review) -> None:
        answer["response"]["result"] = {"status": "Failure"}

    error = _failure(tmp_path, tamper=fail)
    assert error.message == WEBHOOK_FAILED + "response.result.status was 'Failure', not 'Success'"


def test_missing_objects_are_counted(tmp_path: Path) -> None:
    def empty(answer: Review) -> None:
        answer["response"]["convertedObjects"] = []

    assert _failure(tmp_path, tamper=empty).message == f"{PREFIX} returned 0 objects, expected 1"


def test_converted_object_of_the_wrong_version_is_refused(tmp_path: Path) -> None:
    def unconverted(answer: Review) -> None:
        answer["response"]["convertedObjects"][0]["apiVersion"] = ALPHA

    assert _failure(tmp_path, tamper=unconverted).message == (
        f"{PREFIX} returned invalid converted object at index 1: invalid groupVersion "
        "(expected stable.example.com/v1, received stable.example.com/v1alpha1)"
    )


def test_converted_object_of_another_kind_is_refused(tmp_path: Path) -> None:
    def rekind(answer: Review) -> None:
        answer["response"]["convertedObjects"][0]["kind"] = "Other"

    assert _failure(tmp_path, tamper=rekind).message == (
        f"{PREFIX} returned invalid converted object at index 1: invalid kind (expected CronTab, received Other)"
    )


@pytest.mark.parametrize(("field", "label"), [("name", "name"), ("namespace", "namespace"), ("uid", "UID")])
def test_renamed_object_is_refused(tmp_path: Path, field: str, label: str) -> None:
    def rename(answer: Review) -> None:
        meta = answer["response"]["convertedObjects"][0]["metadata"]
        meta[field] = "changed"

    before = _crontab("a")["metadata"][field]
    assert _failure(tmp_path, tamper=rename).message == (
        f"{PREFIX} returned invalid converted object at index 1: must have the same {label}: {before} != changed"
    )


def test_only_labels_and_annotations_of_the_webhook_are_kept(tmp_path: Path) -> None:
    def mutate(answer: Review) -> None:
        meta = answer["response"]["convertedObjects"][0]["metadata"]
        meta.update(
            labels={"app": "cron", "to": "v1"},
            annotations={"from": "v1alpha1"},
            generation=42,
            resourceVersion="42",
            finalizers=["foo"],
            garbage="foo",
        )

    (converted,), _ = _run_webhook(tmp_path, [_crontab("a")], V1, tamper=mutate)
    assert converted["metadata"] == {
        **_crontab("a")["metadata"],
        "labels": {"app": "cron", "to": "v1"},
        "annotations": {"from": "v1alpha1"},
    }


def test_labels_dropped_by_the_webhook_are_dropped(tmp_path: Path) -> None:
    def drop(answer: Review) -> None:
        del answer["response"]["convertedObjects"][0]["metadata"]["labels"]

    (converted,), _ = _run_webhook(tmp_path, [_crontab("a")], V1, tamper=drop)
    assert "labels" not in converted["metadata"]


def test_invalid_label_from_the_webhook_is_refused(tmp_path: Path) -> None:
    def bad_label(answer: Review) -> None:
        answer["response"]["convertedObjects"][0]["metadata"]["labels"] = {"app": "no/slash"}

    message = _failure(tmp_path, tamper=bad_label).message
    assert message.startswith(
        f'{PREFIX} returned invalid metadata in object at index 1: metadata.labels: Invalid value: "no/slash": '
    )


def test_non_string_annotation_is_refused(tmp_path: Path) -> None:
    def number(answer: Review) -> None:
        answer["response"]["convertedObjects"][0]["metadata"]["annotations"] = {"n": 1}

    assert _failure(tmp_path, tamper=number).message == (
        f"{PREFIX} returned invalid metadata in object at index 1: "
        "metadata.annotations[n] must be a string, but is int64 in converted object"
    )


def test_slow_webhook_times_out(tmp_path: Path) -> None:
    error = _failure(tmp_path, delay=3.0, timeout_seconds=1.0)
    assert error.message.startswith(WEBHOOK_FAILED + 'Post "https://127.0.0.1:')
    assert error.message.endswith('/convert?timeout=1s": context deadline exceeded')


def test_certificate_not_from_the_ca_bundle_is_refused(tmp_path: Path) -> None:
    other = issue_webhook_tls(tmp_path / "other", ["127.0.0.1"])
    error = _failure(tmp_path, ca_of=lambda tls: other.ca_bundle)
    assert error.message.endswith(
        '/convert?timeout=5s": tls: failed to verify certificate: x509: certificate signed by unknown authority'
    )


def test_unreachable_url_is_refused() -> None:
    port = free_port()
    crd = _webhook_crd({"url": f"https://127.0.0.1:{port}/convert"})

    async def run() -> None:
        await build_converter(crd, webhooks=WebhookClient(), profile=KUBERNETES).convert([_crontab("a")], V1)

    with pytest.raises(StatusError) as caught:
        asyncio.run(run())
    assert caught.value.message == WEBHOOK_FAILED + (
        f'Post "https://127.0.0.1:{port}/convert?timeout=30s": dial tcp 127.0.0.1:{port}: connect: connection refused'
    )


def test_service_reference_reaches_a_loopback_webhook_through_its_endpoints(tmp_path: Path) -> None:
    tls = issue_webhook_tls(tmp_path / "tls", ["converter.hooks.svc"])
    seen: list[Review] = []

    async def run() -> list[dict[str, Any]]:
        async with https_webhook(conversion_handler(seen), tls, "/convert") as base:
            port = int(base.rsplit(":", 1)[1])
            objects = {
                ("services", "converter"): {"spec": {"ports": [{"port": 443}]}},
                ("endpoints", "converter"): {
                    "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": port}]}]
                },
            }

            async def get(resource: str, namespace: str, name: str) -> dict[str, Any] | None:
                return objects.get((resource, name)) if namespace == "hooks" else None

            client = WebhookClient(endpoints_resolver(get))
            crd = _webhook_crd(
                {"service": {"namespace": "hooks", "name": "converter", "path": "/convert"}, "caBundle": tls.ca_bundle}
            )
            try:
                return await build_converter(crd, webhooks=client, profile=KUBERNETES).convert([_crontab("a")], V1)
            finally:
                await client.close()

    (converted,) = asyncio.run(run())
    assert converted["spec"] == {"replicas": 3} and len(seen) == 1

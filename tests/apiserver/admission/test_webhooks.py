"""Admission webhooks end to end: a real server calls real HTTPS webhooks on loopback."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from svc.testing.harness import RunningServer
from tests.apiserver.admission.webhook_fixtures import (
    Webhook,
    configmap,
    hook,
    install,
    patch_response,
    scripted_webhook,
    store_unvalidated,
)

MUTATING = "MutatingWebhookConfiguration"
VALIDATING = "ValidatingWebhookConfiguration"
CONFIGMAPS = "/api/v1/namespaces/default/configmaps"


@pytest.fixture
def webhook(tmp_path) -> Iterator[Webhook]:
    with scripted_webhook(tmp_path / "webhook-tls") as running:
        yield running


def create(server: RunningServer, obj: dict, **params):
    return server.client().request("POST", CONFIGMAPS, body=obj, params=params or None)


def test_a_mutating_webhook_adds_a_label(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["label"] = lambda review: patch_response(
        [{"op": "add", "path": "/metadata/labels", "value": {"mutated": "yes"}}]
    )
    install(svc_server, MUTATING, "labeller", [hook("label.example.com", webhook, "label")])
    created = create(svc_server, configmap("one"))
    assert created.status == 201, created.body
    assert created.json()["metadata"]["labels"] == {"mutated": "yes"}
    stored = svc_server.client().request("GET", f"{CONFIGMAPS}/one").json()
    assert stored["metadata"]["labels"] == {"mutated": "yes"}


def test_the_review_request_is_filled_as_upstream_fills_it(svc_server: RunningServer, webhook: Webhook) -> None:
    install(svc_server, VALIDATING, "watcher", [hook("watch.example.com", webhook, "watch")])
    assert create(svc_server, configmap("seen"), fieldManager="tester").status == 201
    (review,) = webhook.calls("watch")
    assert review["apiVersion"] == f"{svc_server.server.profile.group('admission.k8s.io')}/v1"
    request = review["request"]
    assert request["uid"]
    assert request["kind"] == request["requestKind"] == {"group": "", "version": "v1", "kind": "ConfigMap"}
    assert request["resource"] == {"group": "", "version": "v1", "resource": "configmaps"}
    assert (request["name"], request["namespace"], request["operation"]) == ("seen", "default", "CREATE")
    assert request["userInfo"]["groups"][0] == "system:masters"
    assert request["object"]["metadata"]["name"] == "seen" and request["oldObject"] is None
    assert request["dryRun"] is False
    assert request["options"]["kind"] == "CreateOptions" and request["options"]["fieldManager"] == "tester"


def test_the_review_options_carry_the_requests_field_validation(svc_server: RunningServer, webhook: Webhook) -> None:
    install(svc_server, VALIDATING, "watcher", [hook("watch.example.com", webhook, "watch")])
    assert create(svc_server, configmap("strict"), fieldValidation="Strict").status == 201
    (review,) = webhook.calls("watch")
    assert review["request"]["options"] == {
        "kind": "CreateOptions",
        "apiVersion": f"{svc_server.server.profile.meta_group}/v1",
        "fieldValidation": "Strict",
    }


def test_a_validating_webhook_denies_with_its_message_and_code(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["deny"] = lambda review: {"allowed": False, "status": {"message": "no thanks", "code": 422}}
    install(svc_server, VALIDATING, "denier", [hook("deny.example.com", webhook, "deny")])
    refused = create(svc_server, configmap("two"))
    assert refused.status == 422
    assert refused.json()["message"] == 'admission webhook "deny.example.com" denied the request: no thanks'
    assert svc_server.client().request("GET", f"{CONFIGMAPS}/two").status == 404


def test_a_denial_without_a_code_is_forbidden(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["deny"] = lambda review: {"allowed": False}
    install(svc_server, VALIDATING, "denier", [hook("deny.example.com", webhook, "deny")])
    refused = create(svc_server, configmap("three"))
    assert refused.status == 403
    assert refused.json()["message"] == 'admission webhook "deny.example.com" denied the request without explanation'


def _dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"https://127.0.0.1:{port}/dead"


def test_a_dead_webhook_with_fail_rejects(svc_server: RunningServer, webhook: Webhook) -> None:
    url = _dead_url()
    dead = hook("dead.example.com", webhook, "x", clientConfig={"url": url, "caBundle": webhook.tls.ca_bundle})
    install(svc_server, VALIDATING, "dead", [{**dead, "failurePolicy": "Fail"}])
    refused = create(svc_server, configmap("four"))
    assert refused.status == 500
    port = url.split(":")[2].split("/")[0]
    assert refused.json()["message"] == (
        'Internal error occurred: failed calling webhook "dead.example.com": failed to call webhook: '
        f'Post "{url}?timeout=10s": dial tcp 127.0.0.1:{port}: connect: connection refused'
    )


def test_a_dead_webhook_with_ignore_admits(svc_server: RunningServer, webhook: Webhook) -> None:
    dead = hook("dead.example.com", webhook, "x", clientConfig={"url": _dead_url(), "caBundle": webhook.tls.ca_bundle})
    install(svc_server, MUTATING, "dead", [{**dead, "failurePolicy": "Ignore"}])
    assert create(svc_server, configmap("five")).status == 201


def test_a_slow_webhook_times_out(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.delays["slow"] = 3.0
    install(svc_server, VALIDATING, "slow", [hook("slow.example.com", webhook, "slow", timeoutSeconds=1)])
    refused = create(svc_server, configmap("six"))
    assert refused.status == 500
    assert refused.json()["message"].endswith('?timeout=1s": context deadline exceeded')


def test_an_if_needed_webhook_is_reinvoked_after_a_later_mutation(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["first"] = lambda review: patch_response(
        [{"op": "add", "path": "/metadata/annotations", "value": {"first": "x"}}]
        if "first" not in ((review["request"]["object"]["metadata"].get("annotations")) or {})
        else []
    )
    webhook.answers["second"] = lambda review: patch_response(
        [{"op": "add", "path": "/metadata/labels", "value": {"second": "y"}}]
    )
    install(
        svc_server,
        MUTATING,
        "a-reinvoked",
        [hook("first.example.com", webhook, "first", reinvocationPolicy="IfNeeded")],
    )
    install(svc_server, MUTATING, "b-later", [hook("second.example.com", webhook, "second")])
    created = create(svc_server, configmap("seven"))
    assert created.status == 201, created.body
    first_calls = webhook.calls("first")
    assert len(first_calls) == 2
    assert first_calls[1]["request"]["object"]["metadata"]["labels"] == {"second": "y"}
    assert len(webhook.calls("second")) == 1


def test_dry_run_fails_on_a_webhook_with_side_effects(svc_server: RunningServer, webhook: Webhook) -> None:
    store_unvalidated(
        svc_server, VALIDATING, "effects", [hook("effects.example.com", webhook, "fx", sideEffects="Some")]
    )
    refused = create(svc_server, configmap("eight"), dryRun="All")
    assert refused.status == 400
    assert refused.json()["message"] == 'admission webhook "effects.example.com" does not support dry run'
    assert webhook.calls("fx") == []


def test_dry_run_reaches_a_webhook_without_side_effects(svc_server: RunningServer, webhook: Webhook) -> None:
    install(svc_server, VALIDATING, "clean", [hook("clean.example.com", webhook, "clean", sideEffects="None")])
    assert create(svc_server, configmap("nine"), dryRun="All").status == 201
    (review,) = webhook.calls("clean")
    assert review["request"]["dryRun"] is True
    assert svc_server.client().request("GET", f"{CONFIGMAPS}/nine").status == 404


def test_namespace_selector_skips_other_namespaces(svc_server: RunningServer, webhook: Webhook) -> None:
    selector = {"matchLabels": {"kubernetes.io/metadata.name": "elsewhere"}}
    install(svc_server, VALIDATING, "scoped", [hook("scoped.example.com", webhook, "ns", namespaceSelector=selector)])
    assert create(svc_server, configmap("ten")).status == 201
    assert webhook.calls("ns") == []


def test_object_selector_picks_labelled_objects(svc_server: RunningServer, webhook: Webhook) -> None:
    selector = {"matchLabels": {"check": "me"}}
    install(svc_server, VALIDATING, "objects", [hook("objects.example.com", webhook, "obj", objectSelector=selector)])
    assert create(svc_server, configmap("plain")).status == 201
    assert create(svc_server, configmap("labelled", labels={"check": "me"})).status == 201
    assert [r["request"]["name"] for r in webhook.calls("obj")] == ["labelled"]


def test_match_conditions_skip_the_webhook_when_false(svc_server: RunningServer, webhook: Webhook) -> None:
    conditions = [{"name": "only-x", "expression": "object.metadata.name.startsWith('x')"}]
    install(svc_server, VALIDATING, "cel", [hook("cel.example.com", webhook, "cel", matchConditions=conditions)])
    assert create(svc_server, configmap("y-one")).status == 201
    assert create(svc_server, configmap("x-one")).status == 201
    assert [r["request"]["name"] for r in webhook.calls("cel")] == ["x-one"]


def test_match_condition_errors_with_fail_are_forbidden(svc_server: RunningServer, webhook: Webhook) -> None:
    conditions = [{"name": "broken", "expression": "object.nothere == 'x'"}]
    install(svc_server, VALIDATING, "cel", [hook("cel.example.com", webhook, "cel", matchConditions=conditions)])
    refused = create(svc_server, configmap("z-one"))
    assert refused.status == 403
    assert refused.json()["message"].startswith(
        "configmaps \"z-one\" is forbidden: expression 'object.nothere == 'x'' resulted in error: "
    )


def test_warnings_become_warning_headers(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["warn"] = lambda review: {"allowed": True, "warnings": ["mind the gap"]}
    install(svc_server, VALIDATING, "warner", [hook("warn.example.com", webhook, "warn")])
    created = create(svc_server, configmap("eleven"))
    assert created.status == 201
    assert created.warnings == ['299 - "mind the gap"']


def test_configurations_are_followed_live_and_exempt_from_webhooks(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["all"] = lambda review: {"allowed": False, "status": {"message": "frozen"}}
    everything = {"operations": ["*"], "apiGroups": ["*"], "apiVersions": ["*"], "resources": ["*"]}
    install(svc_server, VALIDATING, "freeze", [hook("freeze.example.com", webhook, "all", rules=[everything])])
    assert create(svc_server, configmap("twelve")).status == 403
    group = svc_server.server.profile.group("admissionregistration.k8s.io")
    removed = svc_server.client().request("DELETE", f"/apis/{group}/v1/validatingwebhookconfigurations/freeze")
    assert removed.status == 200
    assert create(svc_server, configmap("twelve")).status == 201


def test_equivalent_match_sends_the_object_in_the_rule_version(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["hpa"] = lambda review: patch_response(
        [{"op": "add", "path": "/metadata/labels", "value": {"seen-as": review["request"]["kind"]["version"]}}]
    )
    rule = {"operations": ["CREATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v2"], "resources": ["*"]}
    install(svc_server, MUTATING, "hpa", [hook("hpa.example.com", webhook, "hpa", rules=[rule])])
    hpa = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "maxReplicas": 3,
            "targetCPUUtilizationPercentage": 50,
        },
    }
    path = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
    created = svc_server.client().request("POST", path, body=hpa)
    assert created.status == 201, created.body
    assert created.json()["metadata"]["labels"] == {"seen-as": "v2"}
    assert created.json()["spec"]["targetCPUUtilizationPercentage"] == 50
    (review,) = webhook.calls("hpa")
    request = review["request"]
    assert request["kind"]["version"] == "v2" and request["requestKind"]["version"] == "v1"
    assert request["resource"]["version"] == "v2" and request["requestResource"]["version"] == "v1"
    assert request["object"]["apiVersion"] == "autoscaling/v2"
    assert request["object"]["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"] == 50


def test_exact_match_policy_does_not_call_for_another_version(svc_server: RunningServer, webhook: Webhook) -> None:
    rule = {"operations": ["CREATE"], "apiGroups": ["autoscaling"], "apiVersions": ["v2"], "resources": ["*"]}
    install(svc_server, VALIDATING, "hpa", [hook("hpa.example.com", webhook, "hpa", rules=[rule], matchPolicy="Exact")])
    hpa = {
        "apiVersion": "autoscaling/v1",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
        "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 3},
    }
    path = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
    assert svc_server.client().request("POST", path, body=hpa).status == 201
    assert webhook.calls("hpa") == []


def test_a_v1beta1_only_webhook_gets_a_v1beta1_review(svc_server: RunningServer, webhook: Webhook) -> None:
    install(
        svc_server, VALIDATING, "old", [hook("old.example.com", webhook, "old", admissionReviewVersions=["v1beta1"])]
    )
    assert create(svc_server, configmap("beta")).status == 201
    (review,) = webhook.calls("old")
    assert review["apiVersion"].endswith("/v1beta1")


def test_a_v1_answer_with_another_uid_is_a_call_failure(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["liar"] = lambda review: {"allowed": True, "uid": "not-it"}
    install(svc_server, VALIDATING, "liar", [hook("liar.example.com", webhook, "liar")])
    refused = create(svc_server, configmap("lied"))
    assert refused.status == 500
    assert refused.json()["message"] == (
        'Internal error occurred: failed calling webhook "liar.example.com": received invalid webhook response: '
        'expected response.uid="' + webhook.calls("liar")[0]["request"]["uid"] + '", got "not-it"'
    )


def test_invalid_match_conditions_are_refused_with_causes(svc_server: RunningServer, webhook: Webhook) -> None:
    conditions = [
        {"name": "bad", "expression": "nothing == 1"},
        {"name": "bad", "expression": "true"},
        {"name": "", "expression": " "},
    ]
    group = svc_server.server.profile.group("admissionregistration.k8s.io")
    body = {
        "apiVersion": f"{group}/v1",
        "kind": VALIDATING,
        "metadata": {"name": "broken"},
        "webhooks": [hook("cel.example.com", webhook, "cel", matchConditions=conditions)],
    }
    refused = svc_server.client().request("POST", f"/apis/{group}/v1/validatingwebhookconfigurations", body=body)
    assert refused.status == 422
    causes = {(c["field"], c["reason"]) for c in refused.json()["details"]["causes"]}
    assert causes == {
        ("webhooks[0].matchConditions[0].expression", "FieldValueInvalid"),
        ("webhooks[0].matchConditions[1].name", "FieldValueDuplicate"),
        ("webhooks[0].matchConditions[2].expression", "FieldValueRequired"),
        ("webhooks[0].matchConditions[2].name", "FieldValueRequired"),
    }
    message = next(c["message"] for c in refused.json()["details"]["causes"] if c["field"].endswith("[0].expression"))
    assert message.startswith(
        "Invalid value: \"nothing == 1\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nothing'"
    )


def test_a_service_reference_reaches_the_webhook_through_its_endpoints(svc_server: RunningServer, tmp_path) -> None:
    with scripted_webhook(tmp_path / "svc-tls", hosts=("hook.default.svc",)) as running:
        port = int(running.url.rsplit(":", 1)[1])
        client = svc_server.client()
        service = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "hook"},
            "spec": {"ports": [{"port": 443, "targetPort": port}]},
        }
        assert client.request("POST", "/api/v1/namespaces/default/services", body=service).status == 201
        endpoints = {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": {"name": "hook"},
            "subsets": [{"addresses": [{"ip": "127.0.0.1"}], "ports": [{"port": port}]}],
        }
        # Endpoints validation refuses loopback addresses (as upstream's does): written to storage directly.
        store = svc_server.server.store_for("", "endpoints")
        endpoints["metadata"].update(namespace="default", uid="00000000-0000-0000-0000-000000000002")
        svc_server.call(store.objects.create(store.key("default", "hook"), endpoints))
        config = {
            "service": {"namespace": "default", "name": "hook", "path": "/svc"},
            "caBundle": running.tls.ca_bundle,
        }
        running.answers["svc"] = lambda review: {"allowed": False, "status": {"message": "via service"}}
        install(svc_server, VALIDATING, "svc", [hook("svc.example.com", running, "svc", clientConfig=config)])
        refused = create(svc_server, configmap("by-service"))
        assert refused.json()["message"] == 'admission webhook "svc.example.com" denied the request: via service'


def test_a_patch_that_breaks_the_object_is_refused_by_validation(svc_server: RunningServer, webhook: Webhook) -> None:
    webhook.answers["break"] = lambda review: patch_response(
        [{"op": "add", "path": "/metadata/labels", "value": {"bad label!": "x"}}]
    )
    install(svc_server, MUTATING, "breaker", [hook("break.example.com", webhook, "break")])
    refused = create(svc_server, configmap("broken"))
    assert refused.status == 422
    assert refused.json()["details"]["causes"][0]["field"] == "metadata.labels"
    assert svc_server.client().request("GET", f"{CONFIGMAPS}/broken").status == 404


def test_a_patch_on_a_delete_is_an_internal_error(svc_server: RunningServer, webhook: Webhook) -> None:
    assert create(svc_server, configmap("doomed")).status == 201
    webhook.answers["del"] = lambda review: patch_response([{"op": "add", "path": "/x", "value": 1}])
    rule = {"operations": ["DELETE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["configmaps"]}
    install(svc_server, MUTATING, "deleter", [hook("del.example.com", webhook, "del", rules=[rule])])
    refused = svc_server.client().request("DELETE", f"{CONFIGMAPS}/doomed")
    assert refused.status == 500
    assert refused.json()["message"] == (
        'Internal error occurred: admission webhook "del.example.com" attempted to modify the object, '
        "which is not supported for this operation"
    )
    (review,) = webhook.calls("del")
    assert review["request"]["object"] is None and review["request"]["oldObject"]["metadata"]["name"] == "doomed"
    assert review["request"]["options"]["kind"] == "DeleteOptions"


def test_match_conditions_can_ask_the_authorizer(svc_server: RunningServer, webhook: Webhook) -> None:
    expression = "authorizer.group('').resource('secrets').namespace('default').check('get').allowed()"
    conditions = [{"name": "can-read-secrets", "expression": expression}]
    install(svc_server, VALIDATING, "authz", [hook("authz.example.com", webhook, "authz", matchConditions=conditions)])
    assert create(svc_server, configmap("asked")).status == 201
    assert [r["request"]["name"] for r in webhook.calls("authz")] == ["asked"]


def test_a_namespace_update_names_the_namespace_itself(svc_server: RunningServer, webhook: Webhook) -> None:
    rule = {"operations": ["UPDATE"], "apiGroups": [""], "apiVersions": ["v1"], "resources": ["namespaces"]}
    install(svc_server, VALIDATING, "ns", [hook("ns.example.com", webhook, "ns", rules=[rule])])
    client = svc_server.client()
    namespace = client.request("GET", "/api/v1/namespaces/default").json()
    namespace["metadata"]["labels"]["touched"] = "yes"
    assert client.request("PUT", "/api/v1/namespaces/default", body=namespace).status == 200
    (review,) = webhook.calls("ns")
    assert (review["request"]["name"], review["request"]["namespace"]) == ("default", "default")
    assert review["request"]["oldObject"]["metadata"]["name"] == "default"


def test_a_disabled_webhook_plugin_calls_nothing(svc_server_factory, webhook: Webhook) -> None:
    server = svc_server_factory("--disable-admission-plugins=ValidatingAdmissionWebhook")
    webhook.answers["deny"] = lambda review: {"allowed": False}
    install(server, VALIDATING, "denier", [hook("deny.example.com", webhook, "deny")])
    assert create(server, configmap("free")).status == 201
    assert webhook.calls("deny") == []

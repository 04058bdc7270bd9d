"""The deprecated tolerations annotation of pods and pod templates (`scheduler.alpha.kubernetes.io/tolerations`)
is decoded as upstream decodes it and its tolerations validated (upstream's
`ValidateTolerationsInPodAnnotations`): a value that is not a list of tolerations gets encoding/json's text,
a bad toleration the causes `ValidateTolerations` gives, below the annotation's key."""

from __future__ import annotations

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import POD
from tests.api.validation.test_workloads import DEPLOYMENT
from tests.e2e.kubectl_runner import Kubectl

INVALID, NOT_SUPPORTED = "FieldValueInvalid", "FieldValueNotSupported"
KEY = "scheduler.alpha.kubernetes.io/tolerations"
AT = "metadata.annotations"


def _pod(value: str) -> dict:
    return with_path(POD, "metadata.annotations", {KEY: value})


@pytest.mark.parametrize(
    "value",
    [
        '[{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]',
        '[{"Key": "node.kubernetes.io/unreachable", "Operator": "Exists", "Effect": "NoExecute", '
        '"TolerationSeconds": 30}]',
        "null",
        "[]",
        "",
    ],
)
def test_valid_tolerations_pass(value: str) -> None:
    assert causes("", "Pod", _pod(value)) == []


@pytest.mark.parametrize(
    ("value", "detail"),
    [
        ("not json", "invalid character 'o' in literal null (expecting 'u')"),
        ('{"key": "a"}', "json: cannot unmarshal object into Go value of type []core.Toleration"),
        ('["a"]', "json: cannot unmarshal string into Go value of type core.Toleration"),
        ('[{"key": 7}]', "json: cannot unmarshal number into Go struct field Toleration.Key of type string"),
        (
            '[{"key": "a", "tolerationSeconds": 1.5}]',
            "json: cannot unmarshal number 1.5 into Go struct field Toleration.TolerationSeconds of type int64",
        ),
        ("[{}", "unexpected end of JSON input"),
    ],
)
def test_a_value_that_does_not_decode_is_invalid_with_the_decoder_text(value: str, detail: str) -> None:
    assert_causes(causes("", "Pod", _pod(value)), [(AT, INVALID, detail)])


def test_decoded_tolerations_are_validated_below_the_annotation_key() -> None:
    value = '[{"operator": "Equal", "value": "x"}, {"key": "a", "operator": "Within"}, {"key": "b", "effect": "Soon"}]'
    where = f"{AT}.{KEY}"
    assert_causes(
        causes("", "Pod", _pod(value)),
        [
            (f"{where}[0].operator", INVALID, "operator must be Exists when `key` is empty"),
            (f"{where}[1].operator", NOT_SUPPORTED, 'supported values: "Equal", "Exists"'),
            (f"{where}[2].effect", NOT_SUPPORTED, 'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'),
        ],
    )


def test_a_template_annotation_is_checked_under_the_template() -> None:
    deployment = with_path(DEPLOYMENT, "spec.template.metadata.annotations", {KEY: "[1]"})
    detail = "json: cannot unmarshal number into Go value of type core.Toleration"
    assert_causes(causes("apps", "Deployment", deployment), [("spec.template.annotations", INVALID, detail)])


def test_kubectl_create_of_a_pod_with_a_bad_tolerations_annotation_is_refused(
    svc_server_factory, kubectl_binary
) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
        f'    {KEY}: \'[{{"key": "a", "operator": "Within"}}]\'\n'
        "spec:\n  containers: [{name: c, image: busybox}]\n"
    )
    result = kubectl.run("create", "-f", "-", stdin=manifest, check=False)
    assert result.returncode != 0
    assert f'{AT}.{KEY}[0].operator: Unsupported value: "Within"' in result.stderr
    assert server.client().request("GET", "/api/v1/namespaces/default/pods/p").status == 404

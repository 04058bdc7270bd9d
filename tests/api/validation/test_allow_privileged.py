"""`--allow-privileged` (default false, as kube-apiserver's): privileged containers in pods and pod
templates are a 422 with upstream's cause unless the flag is true."""

from __future__ import annotations

import copy

import pytest

from svc.apiserver.options import parse_options
from tests.api.validation.test_pods import POD
from tests.api.validation.test_workloads import DEPLOYMENT

PODS = "/api/v1/namespaces/default/pods"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
DISALLOWED = {"reason": "FieldValueForbidden", "message": "Forbidden: disallowed by cluster policy"}


def _privileged_pod() -> dict:
    pod = copy.deepcopy(POD)
    pod["spec"]["containers"][0]["securityContext"] = {"privileged": True}
    return pod


def test_flag_defaults_to_false_and_takes_go_booleans() -> None:
    assert parse_options([]).capabilities.allow_privileged is False
    assert parse_options(["--allow-privileged"]).capabilities.allow_privileged is True
    assert parse_options(["--allow-privileged=false"]).capabilities.allow_privileged is False
    with pytest.raises(SystemExit):
        parse_options(["--allow-privileged=maybe"])


def test_privileged_pods_and_templates_are_refused_by_default(svc_server_factory) -> None:
    api = svc_server_factory().client()
    response = api.request("POST", PODS, body=_privileged_pod())
    assert response.status == 422
    assert response.json()["details"]["causes"] == [
        {**DISALLOWED, "field": "spec.containers[0].securityContext.privileged"}
    ]
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["template"]["spec"]["initContainers"] = [
        {"name": "init", "image": "busybox", "securityContext": {"privileged": True}}
    ]
    response = api.request("POST", DEPLOYMENTS, body=deployment)
    assert response.status == 422
    assert response.json()["details"]["causes"] == [
        {**DISALLOWED, "field": "spec.template.spec.initContainers[0].securityContext.privileged"}
    ]


def test_privileged_pods_are_created_when_allowed(svc_server_factory) -> None:
    api = svc_server_factory("--allow-privileged=true").client()
    assert api.request("POST", PODS, body=_privileged_pod()).status == 201

"""matchLabelKeys/mismatchLabelKeys of pod affinity terms are merged into the selector on create, with the
pod's label values; a key the selector already names is then refused."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.api.validation.test_pods import POD

PODS = "/api/v1/namespaces/default/pods"


def _pod(name: str, match_keys: list[str], mismatch_keys: list[str] | None = None) -> dict[str, Any]:
    pod = copy.deepcopy(POD)
    pod["metadata"] = {"name": name, "namespace": "default", "labels": {"app": "web", "version": "v1"}}
    term = {
        "labelSelector": {"matchLabels": {"app": "web"}},
        "topologyKey": "kubernetes.io/hostname",
        "matchLabelKeys": match_keys,
    }
    if mismatch_keys:
        term["mismatchLabelKeys"] = mismatch_keys
    pod["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
    return pod


@pytest.fixture
def api(svc_server_factory):
    return svc_server_factory().client()


def test_label_keys_become_requirements_on_the_pods_values(api) -> None:
    response = api.request("POST", PODS, body=_pod("merged", ["version", "missing"], ["app"]))
    assert response.status == 201, response.json()
    term = response.json()["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert term["labelSelector"]["matchExpressions"] == [
        {"key": "version", "operator": "In", "values": ["v1"]},
        {"key": "app", "operator": "NotIn", "values": ["web"]},
    ]


def test_a_key_the_selector_names_is_refused(api) -> None:
    response = api.request("POST", PODS, body=_pod("twice", ["app"]))
    assert response.status == 422
    (cause,) = response.json()["details"]["causes"]
    assert cause["message"].endswith("exists in both matchLabelKeys and labelSelector")

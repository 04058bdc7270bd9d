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

"""Kinds of the other GA groups, after upstream's pkg/apis/<group>/v1/defaults.go (rbac, networking,
autoscaling v1 and v2, storage, admissionregistration, flowcontrol, discovery, scheduling, resource),
k8s.io/apiextensions-apiserver and k8s.io/kube-aggregator's defaults.go (release 1.36)."""

from __future__ import annotations

from typing import Any

import pytest

from svc.api.brand import SVC
from tests.api.defaults.support import defaulted

_BINDING = {
    "roleRef": {"kind": "ClusterRole", "name": "view"},
    "subjects": [
        {"kind": "User", "name": "u"},
        {"kind": "Group", "name": "g"},
        {"kind": "ServiceAccount", "name": "s"},
    ],
}


@pytest.mark.parametrize("kind", ["RoleBinding", "ClusterRoleBinding"])
def test_binding_groups_default_to_rbac(kind: str) -> None:
    binding = defaulted("rbac.authorization.k8s.io", kind, _BINDING)
    groups = [binding["roleRef"]["apiGroup"], *(subject.get("apiGroup") for subject in binding["subjects"])]
    assert groups == ["rbac.authorization.k8s.io"] * 3 + [None]


def test_binding_groups_are_spelled_as_the_profile_serves_them() -> None:
    binding = defaulted("rbac.authorization.k8s.io", "RoleBinding", _BINDING, profile=SVC)
    assert binding["roleRef"]["apiGroup"] == "rbac.authorization.svc"


def test_network_policy_types_follow_its_rules() -> None:
    ingress_only = defaulted("networking.k8s.io", "NetworkPolicy", {"spec": {"podSelector": {}}})
    both = defaulted("networking.k8s.io", "NetworkPolicy", {"spec": {"egress": [{"ports": [{"port": 53}]}]}})
    assert ingress_only["spec"]["policyTypes"] == ["Ingress"]
    assert both["spec"] == {
        "egress": [{"ports": [{"port": 53, "protocol": "TCP"}]}],
        "policyTypes": ["Ingress", "Egress"],
    }


def test_ingress_class_parameters_are_cluster_scoped() -> None:
    parameters = {"kind": "K", "name": "n"}
    ingress_class = defaulted("networking.k8s.io", "IngressClass", {"spec": {"parameters": parameters}})
    assert ingress_class["spec"]["parameters"]["scope"] == "Cluster"


def test_autoscaling_v1_defaults_only_the_minimum() -> None:
    autoscaler = {"apiVersion": "autoscaling/v1", "spec": {"maxReplicas": 3}}
    assert defaulted("autoscaling", "HorizontalPodAutoscaler", autoscaler)["spec"] == {
        "maxReplicas": 3,
        "minReplicas": 1,
    }


def test_autoscaling_v2_targets_80_percent_cpu() -> None:
    spec = defaulted("autoscaling", "HorizontalPodAutoscaler", {"apiVersion": "autoscaling/v2", "spec": {}})["spec"]
    target = {"type": "Utilization", "averageUtilization": 80}
    assert spec == {"minReplicas": 1, "metrics": [{"type": "Resource", "resource": {"name": "cpu", "target": target}}]}


def test_autoscaling_v2_behavior_is_completed_in_both_directions() -> None:
    behavior = {"scaleUp": {"stabilizationWindowSeconds": 60}}
    spec = defaulted("autoscaling", "HorizontalPodAutoscaler", {"spec": {"metrics": [{}], "behavior": behavior}})[
        "spec"
    ]
    assert spec["behavior"] == {
        "scaleUp": {
            "stabilizationWindowSeconds": 60,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15},
            ],
        },
        "scaleDown": {"selectPolicy": "Max", "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]},
    }


def test_storage_class() -> None:
    storage_class = defaulted("storage.k8s.io", "StorageClass", {"provisioner": "p"})
    assert (storage_class["reclaimPolicy"], storage_class["volumeBindingMode"]) == ("Delete", "Immediate")


def test_csi_driver() -> None:
    assert defaulted("storage.k8s.io", "CSIDriver", {"spec": {}})["spec"] == {
        "attachRequired": True,
        "podInfoOnMount": False,
        "storageCapacity": False,
        "fsGroupPolicy": "ReadWriteOnceWithFSType",
        "volumeLifecycleModes": ["Persistent"],
        "requiresRepublish": False,
        "seLinuxMount": False,
    }


def test_volume_attachment_inline_spec_takes_the_source_defaults_only() -> None:
    attachment = {"spec": {"source": {"inlineVolumeSpec": {"iscsi": {"targetPortal": "t"}}}}}
    inline = defaulted("storage.k8s.io", "VolumeAttachment", attachment)["spec"]["source"]["inlineVolumeSpec"]
    assert inline == {"iscsi": {"targetPortal": "t", "iscsiInterface": "default"}}


_WEBHOOK_DEFAULTS = {
    "failurePolicy": "Fail",
    "matchPolicy": "Equivalent",
    "namespaceSelector": {},
    "objectSelector": {},
    "timeoutSeconds": 10,
}


def _webhook() -> dict[str, Any]:
    return {"name": "w", "clientConfig": {"service": {"name": "s", "namespace": "n"}}, "rules": [{"operations": ["*"]}]}


def test_validating_webhook() -> None:
    webhook = defaulted("admissionregistration.k8s.io", "ValidatingWebhookConfiguration", {"webhooks": [_webhook()]})
    assert webhook["webhooks"][0] == {
        **_webhook(),
        **_WEBHOOK_DEFAULTS,
        "clientConfig": {"service": {"name": "s", "namespace": "n", "port": 443}},
        "rules": [{"operations": ["*"], "scope": "*"}],
    }


def test_mutating_webhooks_are_not_reinvoked() -> None:
    webhook = defaulted("admissionregistration.k8s.io", "MutatingWebhookConfiguration", {"webhooks": [_webhook()]})
    assert webhook["webhooks"][0]["reinvocationPolicy"] == "Never"


@pytest.mark.parametrize("kind", ["ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"])
def test_admission_policy(kind: str) -> None:
    spec = {"matchConstraints": {"resourceRules": [{"apiGroups": [""]}]}}
    assert defaulted("admissionregistration.k8s.io", kind, {"spec": spec})["spec"] == {
        "failurePolicy": "Fail",
        "matchConstraints": {
            "resourceRules": [{"apiGroups": [""], "scope": "*"}],
            "matchPolicy": "Equivalent",
            "namespaceSelector": {},
            "objectSelector": {},
        },
    }


@pytest.mark.parametrize("kind", ["ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBinding"])
def test_admission_policy_binding_match_resources(kind: str) -> None:
    binding = defaulted("admissionregistration.k8s.io", kind, {"spec": {"policyName": "p", "matchResources": {}}})
    assert binding["spec"]["matchResources"] == {
        "matchPolicy": "Equivalent",
        "namespaceSelector": {},
        "objectSelector": {},
    }


def test_custom_resource_definition_names_and_conversion() -> None:
    spec = {"names": {"kind": "CronTab", "plural": "crontabs"}}
    assert defaulted("apiextensions.k8s.io", "CustomResourceDefinition", {"spec": spec})["spec"] == {
        "names": {"kind": "CronTab", "plural": "crontabs", "singular": "crontab", "listKind": "CronTabList"},
        "conversion": {"strategy": "None"},
    }


def test_custom_resource_conversion_webhook_port() -> None:
    conversion = {"strategy": "Webhook", "webhook": {"clientConfig": {"service": {"name": "s", "namespace": "n"}}}}
    crd = defaulted("apiextensions.k8s.io", "CustomResourceDefinition", {"spec": {"conversion": conversion}})
    assert crd["spec"]["conversion"]["webhook"]["clientConfig"]["service"]["port"] == 443


def test_api_service_port() -> None:
    service = defaulted("apiregistration.k8s.io", "APIService", {"spec": {"service": {"name": "s", "namespace": "n"}}})
    assert service["spec"]["service"]["port"] == 443


def test_flow_schema_precedence() -> None:
    assert defaulted("flowcontrol.apiserver.k8s.io", "FlowSchema", {"spec": {}})["spec"] == {"matchingPrecedence": 1000}


def test_limited_priority_level() -> None:
    limited = {"limitResponse": {"type": "Queue", "queuing": {}}}
    level = defaulted("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", {"spec": {"limited": limited}})
    assert level["spec"]["limited"] == {
        "limitResponse": {"type": "Queue", "queuing": {"handSize": 8, "queues": 64, "queueLengthLimit": 50}},
        "nominalConcurrencyShares": 30,
        "lendablePercent": 0,
    }


def test_limited_priority_level_keeps_zero_shares() -> None:
    limited = {"nominalConcurrencyShares": 0}
    level = defaulted("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", {"spec": {"limited": limited}})
    assert level["spec"]["limited"]["nominalConcurrencyShares"] == 0


def test_exempt_priority_level() -> None:
    level = defaulted("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", {"spec": {"exempt": {}}})
    assert level["spec"]["exempt"] == {"nominalConcurrencyShares": 0, "lendablePercent": 0}


def test_endpoint_slice_ports() -> None:
    slice_ = defaulted("discovery.k8s.io", "EndpointSlice", {"addressType": "IPv4", "ports": [{"port": 80}]})
    assert slice_["ports"] == [{"port": 80, "name": "", "protocol": "TCP"}]


def test_priority_class_preempts_lower_priorities() -> None:
    assert defaulted("scheduling.k8s.io", "PriorityClass", {"value": 10})["preemptionPolicy"] == "PreemptLowerPriority"


def test_resource_claim_requests_one_device() -> None:
    requests = [
        {"name": "a", "exactly": {"deviceClassName": "gpu", "tolerations": [{"key": "k"}]}},
        {
            "name": "b",
            "firstAvailable": [{"name": "x", "deviceClassName": "gpu"}, {"name": "y", "allocationMode": "All"}],
        },
    ]
    spec = defaulted("resource.k8s.io", "ResourceClaim", {"spec": {"devices": {"requests": requests}}})["spec"]
    assert spec["devices"]["requests"] == [
        {
            "name": "a",
            "exactly": {
                "deviceClassName": "gpu",
                "tolerations": [{"key": "k", "operator": "Equal"}],
                "allocationMode": "ExactCount",
                "count": 1,
            },
        },
        {
            "name": "b",
            "firstAvailable": [
                {"name": "x", "deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1},
                {"name": "y", "allocationMode": "All"},
            ],
        },
    ]


def test_resource_claim_template_requests_one_device() -> None:
    template = {"spec": {"spec": {"devices": {"requests": [{"name": "a", "exactly": {"deviceClassName": "gpu"}}]}}}}
    claim = defaulted("resource.k8s.io", "ResourceClaimTemplate", template)
    assert claim["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] == 1


@pytest.mark.parametrize(
    ("group", "kind"),
    [("", "ConfigMap"), ("", "ServiceAccount"), ("policy", "PodDisruptionBudget"), ("example.com", "Widget")],
)
def test_kinds_without_defaults_are_untouched(group: str, kind: str) -> None:
    obj = {"spec": {"selector": {}}, "data": {"a": "b"}}
    assert defaulted(group, kind, obj) == obj

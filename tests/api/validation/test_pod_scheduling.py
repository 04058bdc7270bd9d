"""Pod placement validation (affinity, topology spread): each invalid case gives upstream's causes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path
from tests.api.validation.test_pods import DUPLICATE, FORBIDDEN, INVALID, NOT_SUPPORTED, POD, REQUIRED

NODE = "spec.affinity.nodeAffinity"
REQ = f"{NODE}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
PREF = f"{NODE}.preferredDuringSchedulingIgnoredDuringExecution"
POD_REQ = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution"
ANTI_PREF = "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution"
TSC = "spec.topologySpreadConstraints"
ZONE = "topology.kubernetes.io/zone"
APP = {"matchLabels": {"app": "web"}}


def node_terms(*expressions: dict[str, Any], fields: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    term: dict[str, Any] = {"matchExpressions": list(expressions)}
    if fields:
        term["matchFields"] = list(fields)
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def spread(**members: Any) -> dict[str, Any]:
    return {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule", "labelSelector": APP, **members}


VALID_AFFINITY = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {
                    "matchExpressions": [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}],
                    "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}],
                }
            ]
        },
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10, "preference": {"matchExpressions": [{"key": "disk", "operator": "Exists"}]}}
        ],
    },
    "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": APP, "topologyKey": ZONE}]},
    "podAntiAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": {"labelSelector": APP, "topologyKey": "kubernetes.io/hostname"}}
        ]
    },
}

INVALID_PLACEMENTS = [
    (
        "required node affinity without terms",
        "spec.affinity",
        {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": []}}},
        [(REQ, REQUIRED, "must have at least one node selector term")],
    ),
    (
        "node requirement In without values",
        "spec.affinity",
        node_terms({"key": "disk", "operator": "In"}),
        [(f"{REQ}[0].matchExpressions[0].values", REQUIRED, "must be specified when `operator` is 'In' or 'NotIn'")],
    ),
    (
        "node requirement Exists with values",
        "spec.affinity",
        node_terms({"key": "disk", "operator": "Exists", "values": ["ssd"]}),
        [(f"{REQ}[0].matchExpressions[0].values", FORBIDDEN, "may not be specified when `operator` is 'Exists'")],
    ),
    (
        "node requirement Gt with two values",
        "spec.affinity",
        node_terms({"key": "cores", "operator": "Gt", "values": ["1", "2"]}),
        [(f"{REQ}[0].matchExpressions[0].values", REQUIRED, "must be specified single value when `operator` is 'Lt'")],
    ),
    (
        "node requirement with an unknown operator and a bad key",
        "spec.affinity",
        node_terms({"key": "bad key", "operator": "Near", "values": ["x"]}),
        [
            (f"{REQ}[0].matchExpressions[0].operator", INVALID, 'Invalid value: "Near": not a valid selector operator'),
            (f"{REQ}[0].matchExpressions[0].key", INVALID, "name part must consist of alphanumeric characters"),
        ],
    ),
    (
        "node requirement value not a label value",
        "spec.affinity",
        node_terms({"key": "disk", "operator": "In", "values": ["not ok"]}),
        [(f"{REQ}[0].matchExpressions[0].values[0]", INVALID, "a valid label must be an empty string or consist")],
    ),
    (
        "node field requirement on another field",
        "spec.affinity",
        node_terms(fields=({"key": "metadata.uid", "operator": "In", "values": ["x"]},)),
        [(f"{REQ}[0].matchFields[0].key", INVALID, 'Invalid value: "metadata.uid": not a valid field selector key')],
    ),
    (
        "node field requirement with two values",
        "spec.affinity",
        node_terms(fields=({"key": "metadata.name", "operator": "In", "values": ["a", "b"]},)),
        [(f"{REQ}[0].matchFields[0].values", REQUIRED, "must be only one value when `operator` is 'In' or 'NotIn'")],
    ),
    (
        "preferred node term weight of zero",
        f"{NODE}.preferredDuringSchedulingIgnoredDuringExecution",
        [{"weight": 0, "preference": {}}],
        [(f"{PREF}[0].weight", INVALID, "Invalid value: 0: must be in the range 1-100")],
    ),
    (
        "pod affinity term without a topology key",
        "spec.affinity",
        {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": APP}]}},
        [
            (f"{POD_REQ}[0].topologyKey", REQUIRED, "Required value: can not be empty"),
            (f"{POD_REQ}[0].topologyKey", INVALID, "name part must be non-empty"),
            (f"{POD_REQ}[0].topologyKey", INVALID, "name part must consist of alphanumeric characters"),
        ],
    ),
    (
        "pod affinity term with a bad selector and namespace",
        "spec.affinity",
        {
            "podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In"}]},
                        "namespaces": ["Not_A_Namespace"],
                        "topologyKey": ZONE,
                    }
                ]
            }
        },
        [
            (f"{POD_REQ}[0].labelSelector.matchExpressions[0].values", REQUIRED, "must be specified when `operator`"),
            (f"{POD_REQ}[0].namespace", INVALID, "a lowercase RFC 1123 label must consist of"),
        ],
    ),
    (
        "pod anti-affinity weight above 100",
        "spec.affinity",
        {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {"weight": 101, "podAffinityTerm": {"labelSelector": APP, "topologyKey": ZONE}}
                ]
            }
        },
        [(f"{ANTI_PREF}[0].weight", INVALID, "Invalid value: 101: must be in the range 1-100")],
    ),
    (
        "spread with a max skew of zero",
        TSC,
        [spread(maxSkew=0)],
        [(f"{TSC}[0].maxSkew", INVALID, "Invalid value: 0: must be greater than zero")],
    ),
    (
        "spread without a topology key",
        TSC,
        [spread(topologyKey="")],
        [(f"{TSC}[0].topologyKey", REQUIRED, "Required value: can not be empty")],
    ),
    (
        "spread with an unknown action",
        TSC,
        [spread(whenUnsatisfiable="Sometimes")],
        [(f"{TSC}[0].whenUnsatisfiable", NOT_SUPPORTED, 'supported values: "DoNotSchedule", "ScheduleAnyway"')],
    ),
    (
        "two spreads on one key and action",
        TSC,
        [spread(), spread(maxSkew=2)],
        [
            (
                f"{TSC}[0].{{topologyKey, whenUnsatisfiable}}",
                DUPLICATE,
                'Duplicate value: "{topology.kubernetes.io/zone, DoNotSchedule}"',
            )
        ],
    ),
    (
        "spread with minDomains of zero",
        TSC,
        [spread(minDomains=0)],
        [(f"{TSC}[0].minDomains", INVALID, "Invalid value: 0: must be greater than zero")],
    ),
    (
        "spread with minDomains and ScheduleAnyway",
        TSC,
        [spread(minDomains=2, whenUnsatisfiable="ScheduleAnyway")],
        [
            (
                f"{TSC}[0].minDomains",
                INVALID,
                "Invalid value: 2: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
            )
        ],
    ),
    (
        "spread with an unknown node taints policy",
        TSC,
        [spread(nodeTaintsPolicy="Maybe")],
        [(f"{TSC}[0].nodeTaintsPolicy", NOT_SUPPORTED, 'supported values: "Honor", "Ignore"')],
    ),
    (
        "spread matchLabelKeys without a selector",
        TSC,
        [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule", "matchLabelKeys": ["app"]}],
        [(f"{TSC}[0].matchLabelKeys", FORBIDDEN, "must not be specified when labelSelector is not set")],
    ),
    (
        "spread matchLabelKeys repeating a selector key",
        TSC,
        [spread(matchLabelKeys=["app"])],
        [
            (
                f"{TSC}[0].matchLabelKeys[0]",
                INVALID,
                'Invalid value: "app": exists in both matchLabelKeys and labelSelector',
            )
        ],
    ),
    (
        "pod affinity key both matched and mismatched",
        "spec.affinity",
        {
            "podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "labelSelector": APP,
                        "topologyKey": ZONE,
                        "matchLabelKeys": ["tier"],
                        "mismatchLabelKeys": ["tier"],
                    }
                ]
            }
        },
        [(f"{POD_REQ}[0].matchLabelKeys[0]", INVALID, "exists in both matchLabelKeys and mismatchLabelKeys")],
    ),
    (
        "pod affinity label keys without a selector",
        "spec.affinity",
        {
            "podAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": ZONE, "mismatchLabelKeys": ["tier"]}]
            }
        },
        [(f"{POD_REQ}[0].mismatchLabelKeys", FORBIDDEN, "must not be specified when labelSelector is not set")],
    ),
    (
        "spread with a bad label selector",
        TSC,
        [spread(labelSelector={"matchLabels": {"app": "not ok"}})],
        [(f"{TSC}[0].labelSelector.matchLabels", INVALID, "a valid label must be an empty string or consist")],
    ),
]


def test_valid_placement_passes() -> None:
    pod = with_path(POD, "spec.affinity", VALID_AFFINITY)
    pod = with_path(pod, TSC, [spread(), spread(whenUnsatisfiable="ScheduleAnyway", nodeAffinityPolicy="Honor")])
    assert causes("", "Pod", pod) == []


@pytest.mark.parametrize(
    ("path", "value", "expected"), [c[1:] for c in INVALID_PLACEMENTS], ids=[c[0] for c in INVALID_PLACEMENTS]
)
def test_invalid_placement(path: str, value: Any, expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes("", "Pod", with_path(POD, path, value)), expected)


def test_pod_template_placement_is_validated() -> None:
    template = {"metadata": {"name": "t", "namespace": "default"}, "template": {"spec": POD["spec"]}}
    invalid = with_path(template, "template.spec.topologySpreadConstraints", [spread(maxSkew=0)])
    expected = [("template.spec.topologySpreadConstraints[0].maxSkew", INVALID, "must be greater than zero")]
    assert_causes(causes("", "PodTemplate", invalid), expected)

"""Pod and PodTemplate validation: each invalid case gives upstream's causes; the valid fixture passes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.validation.support import assert_causes, causes, with_path

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "default"},
    "spec": {
        "containers": [
            {
                "name": "nginx",
                "image": "nginx:1.27",
                "ports": [{"name": "http", "containerPort": 80}],
                "resources": {"requests": {"cpu": "250m"}, "limits": {"cpu": "500m"}},
                "volumeMounts": [{"name": "data", "mountPath": "/data"}],
            }
        ],
        "initContainers": [{"name": "setup", "image": "busybox:1.36"}],
        "volumes": [{"name": "data", "emptyDir": {}}],
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}],
    },
}

C0 = "spec.containers[0]"
REQUIRED, INVALID, DUPLICATE = "FieldValueRequired", "FieldValueInvalid", "FieldValueDuplicate"
NOT_SUPPORTED, NOT_FOUND, FORBIDDEN = "FieldValueNotSupported", "FieldValueNotFound", "FieldValueForbidden"
SECOND_CONTAINER = {"name": "nginx", "image": "nginx:1.27"}

INVALID_PODS = [
    ("no containers", "spec.containers", [], [("spec.containers", REQUIRED, "Required value")]),
    (
        "container name not a DNS label",
        "spec.containers.0.name",
        "Web_1",
        [(f"{C0}.name", INVALID, "a lowercase RFC 1123 label must consist of")],
    ),
    ("container name missing", "spec.containers.0.name", "", [(f"{C0}.name", REQUIRED, "Required value")]),
    (
        "two containers with one name",
        "spec.containers.1",
        SECOND_CONTAINER,
        [("spec.containers[1].name", DUPLICATE, 'Duplicate value: "nginx"')],
    ),
    (
        "init container named like a container",
        "spec.initContainers.0.name",
        "nginx",
        [("spec.initContainers[0].name", DUPLICATE, 'Duplicate value: "nginx"')],
    ),
    (
        "ephemeral container named like a container",
        "spec.ephemeralContainers",
        [{"name": "setup", "image": "busybox:1.36"}],
        [("spec.ephemeralContainers[0].name", DUPLICATE, 'Duplicate value: "setup"')],
    ),
    ("image missing", "spec.containers.0.image", ..., [(f"{C0}.image", REQUIRED, "Required value")]),
    (
        "image with surrounding spaces",
        "spec.containers.0.image",
        " nginx:1.27",
        [(f"{C0}.image", INVALID, "must not have leading or trailing whitespace")],
    ),
    (
        "container port zero",
        "spec.containers.0.ports.0.containerPort",
        0,
        [(f"{C0}.ports[0].containerPort", REQUIRED, "Required value")],
    ),
    (
        "container port out of range",
        "spec.containers.0.ports.0.containerPort",
        70000,
        [(f"{C0}.ports[0].containerPort", INVALID, "Invalid value: 70000: must be between 1 and 65535, inclusive")],
    ),
    (
        "host port out of range",
        "spec.containers.0.ports.0.hostPort",
        65536,
        [(f"{C0}.ports[0].hostPort", INVALID, "must be between 1 and 65535, inclusive")],
    ),
    (
        "unknown protocol",
        "spec.containers.0.ports.0.protocol",
        "QUIC",
        [
            (
                f"{C0}.ports[0].protocol",
                NOT_SUPPORTED,
                'Unsupported value: "QUIC": supported values: "SCTP", "TCP", "UDP"',
            )
        ],
    ),
    (
        "port name with a double hyphen",
        "spec.containers.0.ports.0.name",
        "web--http",
        [(f"{C0}.ports[0].name", INVALID, "must not contain consecutive hyphens (--)")],
    ),
    (
        "two ports with one name",
        "spec.containers.0.ports.1",
        {"name": "http", "containerPort": 81},
        [(f"{C0}.ports[1].name", DUPLICATE, 'Duplicate value: "http"')],
    ),
    (
        "request above limit",
        "spec.containers.0.resources.requests.cpu",
        "1",
        [(f"{C0}.resources.requests", INVALID, 'Invalid value: "1": must be less than or equal to cpu limit of 500m')],
    ),
    (
        "negative limit (requests default to limits)",
        "spec.containers.0.resources.limits.memory",
        "-1Gi",
        [
            (f"{C0}.resources.limits[memory]", INVALID, 'Invalid value: "-1Gi": must be greater than or equal to 0'),
            (f"{C0}.resources.requests[memory]", INVALID, "must be greater than or equal to 0"),
        ],
    ),
    (
        "unknown resource without a domain",
        "spec.containers.0.resources.limits.gpu",
        "1",
        [
            (f"{C0}.resources.limits[gpu]", INVALID, "must be a standard resource type or fully qualified"),
            (f"{C0}.resources.limits[gpu]", INVALID, "must be a standard resource for containers"),
            (f"{C0}.resources.requests[gpu]", INVALID, "must be a standard resource type or fully qualified"),
            (f"{C0}.resources.requests[gpu]", INVALID, "must be a standard resource for containers"),
        ],
    ),
    (
        "unknown restart policy",
        "spec.restartPolicy",
        "Sometimes",
        [("spec.restartPolicy", NOT_SUPPORTED, 'supported values: "Always", "OnFailure", "Never"')],
    ),
    (
        "unknown DNS policy",
        "spec.dnsPolicy",
        "Maybe",
        [("spec.dnsPolicy", NOT_SUPPORTED, '"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"')],
    ),
    (
        "unknown init container restart policy",
        "spec.initContainers.0.restartPolicy",
        "Sometimes",
        [("spec.initContainers[0].restartPolicy", NOT_SUPPORTED, 'supported values: "Always", "Never", "OnFailure"')],
    ),
    (
        "two volumes with one name",
        "spec.volumes.1",
        {"name": "data", "emptyDir": {}},
        [("spec.volumes[1].name", DUPLICATE, 'Duplicate value: "data"')],
    ),
    (
        "volume with two sources",
        "spec.volumes.0.hostPath",
        {"path": "/srv"},
        [
            ("spec.volumes[0].hostPath", FORBIDDEN, "may not specify more than 1 volume type"),
            (f"{C0}.volumeMounts[0].name", NOT_FOUND, 'Not found: "data"'),
        ],
    ),
    (
        "mount of an undeclared volume",
        "spec.containers.0.volumeMounts.0.name",
        "cache",
        [(f"{C0}.volumeMounts[0].name", NOT_FOUND, 'Not found: "cache"')],
    ),
    (
        "two mounts at one path",
        "spec.containers.0.volumeMounts.1",
        {"name": "data", "mountPath": "/data"},
        [(f"{C0}.volumeMounts[1].mountPath", INVALID, 'Invalid value: "/data": must be unique')],
    ),
    (
        "active deadline of zero",
        "spec.activeDeadlineSeconds",
        0,
        [("spec.activeDeadlineSeconds", INVALID, "must be between 1 and 2147483647, inclusive")],
    ),
    (
        "toleration with Exists and a value",
        "spec.tolerations.0.operator",
        "Exists",
        [("spec.tolerations[0].operator", INVALID, "value must be empty when `operator` is 'Exists'")],
    ),
    (
        "probe without a handler",
        "spec.containers.0.readinessProbe",
        {"periodSeconds": 5},
        [(f"{C0}.readinessProbe", REQUIRED, "must specify a handler type")],
    ),
    (
        "probe with two handlers",
        "spec.containers.0.livenessProbe",
        {"exec": {"command": ["true"]}, "tcpSocket": {"port": 80}},
        [(f"{C0}.livenessProbe.tcpSocket", FORBIDDEN, "may not specify more than 1 handler type")],
    ),
    (
        "liveness probe needing two successes",
        "spec.containers.0.livenessProbe",
        {"tcpSocket": {"port": "http"}, "successThreshold": 2},
        [(f"{C0}.livenessProbe.successThreshold", INVALID, "Invalid value: 2: must be 1")],
    ),
    (
        "probe port out of range",
        "spec.containers.0.startupProbe",
        {"httpGet": {"port": 0}},
        [(f"{C0}.startupProbe.httpGet.port", INVALID, "must be between 1 and 65535, inclusive")],
    ),
    (
        "pre-stop sleep longer than the grace period",
        "spec.containers.0.lifecycle",
        {"preStop": {"sleep": {"seconds": 100}}},
        [(f"{C0}.lifecycle.preStop.sleep", INVALID, "less than terminationGracePeriodSeconds (30)")],
    ),
    (
        "probe on an init container",
        "spec.initContainers.0.livenessProbe",
        {"exec": {"command": ["true"]}},
        [
            (
                "spec.initContainers[0].livenessProbe",
                FORBIDDEN,
                "may not be set for init containers without restartPolicy=Always",
            )
        ],
    ),
    (
        "negative user id",
        "spec.securityContext",
        {"runAsUser": -1},
        [("spec.securityContext.runAsUser", INVALID, "Invalid value: -1: must be between 0 and 2147483647, inclusive")],
    ),
    (
        "privileged container without privilege escalation",
        "spec.containers.0.securityContext",
        {"privileged": True, "allowPrivilegeEscalation": False},
        [(f"{C0}.securityContext", INVALID, "cannot set `allowPrivilegeEscalation` to false and `privileged` to true")],
    ),
    (
        "hostname not a DNS label",
        "spec.hostname",
        "web.example",
        [("spec.hostname", INVALID, "must not contain dots")],
    ),
]


def test_valid_pod_passes() -> None:
    assert causes("", "Pod", POD) == []


@pytest.mark.parametrize(
    ("path", "value", "expected"), [case[1:] for case in INVALID_PODS], ids=[c[0] for c in INVALID_PODS]
)
def test_invalid_pod(path: str, value: Any, expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes("", "Pod", with_path(POD, path, value)), expected)


ALLOWED_UPDATES = [
    ("container image", "spec.containers.0.image", "nginx:1.28"),
    ("init container image", "spec.initContainers.0.image", "busybox:1.37"),
    ("active deadline set", "spec.activeDeadlineSeconds", 600),
    ("toleration added", "spec.tolerations.1", {"key": "spot", "operator": "Exists"}),
    ("labels", "metadata.labels", {"tier": "front"}),
]


@pytest.mark.parametrize(("path", "value"), [case[1:] for case in ALLOWED_UPDATES], ids=[c[0] for c in ALLOWED_UPDATES])
def test_allowed_pod_update(path: str, value: Any) -> None:
    assert causes("", "Pod", with_path(POD, path, value), old=POD) == []


SPEC_FROZEN = "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`"

REFUSED_UPDATES = [
    ("restart policy", "spec.restartPolicy", "Never", [("spec", FORBIDDEN, SPEC_FROZEN)]),
    (
        "container command",
        "spec.containers.0.command",
        ["sleep"],
        [("spec", FORBIDDEN, '-   "Command": null,\n+   "Command": [\n+    "sleep"\n+   ],')],
    ),
    (
        "container added",
        "spec.containers.1",
        {"name": "sidecar", "image": "busybox:1.36"},
        [("spec.containers", FORBIDDEN, "pod updates may not add or remove containers")],
    ),
    (
        "toleration changed",
        "spec.tolerations.0.value",
        "api",
        [("spec.tolerations", FORBIDDEN, "existing toleration can not be modified except its tolerationSeconds")],
    ),
]


@pytest.mark.parametrize(
    ("path", "value", "expected"), [c[1:] for c in REFUSED_UPDATES], ids=[c[0] for c in REFUSED_UPDATES]
)
def test_refused_pod_update(path: str, value: Any, expected: list[tuple[str, str, str]]) -> None:
    assert_causes(causes("", "Pod", with_path(POD, path, value), old=POD), expected)


GATED = with_path(POD, "spec.schedulingGates", [{"name": "example.com/quota"}])


def test_scheduling_gates_may_be_removed() -> None:
    assert causes("", "Pod", with_path(GATED, "spec.schedulingGates", []), old=GATED) == []


def test_scheduling_gates_may_not_be_added() -> None:
    gated = GATED
    added = with_path(gated, "spec.schedulingGates.1", {"name": "example.com/review"})
    detail = "only deletion is allowed, but found new scheduling gate 'example.com/review'"
    assert_causes(causes("", "Pod", added, old=gated), [("spec.schedulingGates[1].name", FORBIDDEN, detail)])


def test_active_deadline_may_only_shrink() -> None:
    old = with_path(POD, "spec.activeDeadlineSeconds", 60)
    expected = [("spec.activeDeadlineSeconds", INVALID, "must be less than or equal to previous value")]
    assert_causes(causes("", "Pod", with_path(old, "spec.activeDeadlineSeconds", 120), old=old), expected)


TEMPLATE = {"metadata": {"name": "t", "namespace": "default"}, "template": {"spec": POD["spec"]}}


def test_valid_pod_template_passes() -> None:
    assert causes("", "PodTemplate", TEMPLATE) == []


def test_pod_template_spec_is_validated_as_a_pod_spec() -> None:
    invalid = with_path(TEMPLATE, "template.spec.containers", [])
    assert_causes(causes("", "PodTemplate", invalid), [("template.spec.containers", REQUIRED, "Required value")])


def test_pod_template_refuses_ephemeral_containers() -> None:
    invalid = with_path(TEMPLATE, "template.spec.ephemeralContainers", [{"name": "debug", "image": "busybox:1.36"}])
    expected = [("template.spec.ephemeralContainers", FORBIDDEN, "ephemeral containers not allowed in pod template")]
    assert_causes(causes("", "PodTemplate", invalid), expected)


def _required_terms(*expressions: dict[str, Any]) -> dict[str, Any]:
    terms = [{"matchExpressions": list(expressions)}]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}}


ZONE_A = {"key": "zone", "operator": "In", "values": ["a"]}


def test_a_gated_pod_may_gain_node_selector_entries_and_affinity_requirements() -> None:
    old = with_path(with_path(GATED, "spec.nodeSelector", {"disk": "ssd"}), "spec.affinity", _required_terms(ZONE_A))
    narrowed = with_path(old, "spec.nodeSelector.gpu", "a100")
    narrowed = with_path(narrowed, "spec.affinity", _required_terms(ZONE_A, {"key": "rack", "operator": "Exists"}))
    assert causes("", "Pod", narrowed, old=old) == []


def test_a_gated_pod_may_not_change_or_drop_node_selector_entries() -> None:
    old = with_path(GATED, "spec.nodeSelector", {"disk": "ssd"})
    changed = with_path(old, "spec.nodeSelector.disk", "hdd")
    detail = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
    [cause] = causes("", "Pod", changed, old=old)
    assert cause == ("spec.nodeSelector", INVALID, f'Invalid value: map[string]string{{"disk":"hdd"}}: {detail}')


def test_a_gated_pod_may_not_change_its_required_node_affinity_terms() -> None:
    old = with_path(GATED, "spec.affinity", _required_terms(ZONE_A))
    changed = with_path(old, "spec.affinity", _required_terms({**ZONE_A, "values": ["b"]}))
    terms = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    assert_causes(
        causes("", "Pod", changed, old=old),
        [
            (
                f"{terms}[0]",
                INVALID,
                "core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement{core.NodeSelectorRequirement"
                '{Key:"zone", Operator:"In", Values:[]string{"b"}}}, MatchFields:[]core.NodeSelectorRequirement(nil)}: '
                "only additions are allowed (no mutations or deletions)",
            )
        ],
    )


def test_a_gated_pod_may_not_add_or_drop_required_terms_printed_as_go_prints_the_list() -> None:
    """Upstream's `%#v` of the new terms: nil once the affinity is gone, an empty literal for `[]`."""
    old = with_path(GATED, "spec.affinity", _required_terms(ZONE_A))
    terms = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
    detail = "no additions/deletions to non-empty NodeSelectorTerms list are allowed"
    [cause] = causes("", "Pod", with_path(old, "spec.affinity", ...), old=old)
    assert cause == (terms, INVALID, f"Invalid value: []core.NodeSelectorTerm(nil): {detail}")
    added = with_path(
        old, f"{terms}.1", {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
    )
    [cause] = causes("", "Pod", added, old=old)
    second = (
        "core.NodeSelectorTerm{MatchExpressions:[]core.NodeSelectorRequirement(nil), MatchFields:"
        '[]core.NodeSelectorRequirement{core.NodeSelectorRequirement{Key:"metadata.name", Operator:"In", '
        'Values:[]string{"n1"}}}}'
    )
    assert cause[2].startswith("Invalid value: []core.NodeSelectorTerm{core.NodeSelectorTerm{MatchExpressions:")
    assert cause[2].endswith(f", {second}}}: {detail}")


def test_a_gated_pod_dropping_its_node_selector_shows_a_nil_map() -> None:
    old = with_path(GATED, "spec.nodeSelector", {"disk": "ssd"})
    detail = "only additions to spec.nodeSelector are allowed (no mutations or deletions)"
    [cause] = causes("", "Pod", with_path(old, "spec.nodeSelector", ...), old=old)
    assert cause == ("spec.nodeSelector", INVALID, f"Invalid value: map[string]string(nil): {detail}")


def test_an_ungated_pod_keeps_its_node_selector() -> None:
    old = with_path(POD, "spec.nodeSelector", {"disk": "ssd"})
    added = with_path(old, "spec.nodeSelector.gpu", "a100")
    assert_causes(causes("", "Pod", added, old=old), [("spec", FORBIDDEN, SPEC_FROZEN)])

"""The simple scheduler's filters and choice, one rule per test."""

from __future__ import annotations

from typing import Any

from svc.nodes.scheduler import NodeUsage, place, pod_requests


def node(name: str, *, cpu: str = "4", pods: str = "110", labels: dict | None = None, **spec: Any) -> dict:
    return {
        "metadata": {"name": name, "labels": labels or {}},
        "spec": spec,
        "status": {
            "allocatable": {"cpu": cpu, "memory": "16Gi", "pods": pods},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    }


def pod(cpu: str = "", **spec: Any) -> dict:
    resources = {"requests": {"cpu": cpu}} if cpu else {}
    return {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "resources": resources}], **spec}}


def test_the_least_requested_node_wins():
    usage = {"a": NodeUsage(), "b": NodeUsage()}
    usage["a"].add(pod_requests(pod("2")))
    assert place(pod("1"), [node("a"), node("b")], usage).node == "b"


def test_an_untolerated_taint_keeps_a_pod_off():
    tainted = node("a", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    placement = place(pod(), [tainted], {})
    assert placement.message == "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}."


def test_a_toleration_lets_a_pod_on_a_tainted_node():
    tainted = node("a", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])
    tolerating = pod(tolerations=[{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}])
    assert place(tolerating, [tainted], {}).node == "a"


def test_required_node_affinity_filters_by_expression():
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z2"]}]}]
            }
        }
    }
    nodes = [node("a", labels={"zone": "z1"}), node("b", labels={"zone": "z2"})]
    assert place(pod(affinity=affinity), nodes, {}).node == "b"


def test_a_full_node_reports_too_many_pods():
    usage = {"a": NodeUsage()}
    usage["a"].add(pod_requests(pod()))
    assert place(pod(), [node("a", pods="1")], usage).message == "0/1 nodes are available: 1 Too many pods."


def test_an_unschedulable_node_is_skipped():
    placement = place(pod(), [node("a", unschedulable=True), node("b")], {})
    assert placement.node == "b"


def test_init_containers_count_by_their_largest_request():
    spec = {
        "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "3"}}}],
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
    }
    assert pod_requests({"spec": spec})["cpu"] == 3

"""Real kubectl reading the server's Tables for kinds beyond the workloads (networking, discovery, policy,
autoscaling, scheduling, storage, admission, aggregation, flow control): the headers are upstream's,
`-o wide` included."""

from __future__ import annotations

import pytest

from tests.e2e.kubectl_runner import Kubectl

OBJECTS = """
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: default}
spec:
  ingressClassName: nginx
  rules:
  - host: web.example
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: db, namespace: default}
spec: {podSelector: {matchLabels: {role: db}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: Never
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: example.com/fast
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: checks}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.example.com}
spec: {group: example.com, version: v1, groupPriorityMinimum: 1000, versionPriority: 15}
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-1, namespace: default}
addressType: IPv4
ports: [{name: http, port: 80, protocol: TCP}]
endpoints: [{addresses: [10.1.0.5]}]
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: batch}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 10
    limitResponse: {type: Queue, queuing: {queues: 16, handSize: 4, queueLengthLimit: 50}}
"""

CASES = {
    "ingressclasses": (["NAME", "CONTROLLER", "PARAMETERS", "AGE"], ["nginx", "k8s.io/ingress-nginx", "<none>"]),
    "ingresses": (["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"], ["web", "nginx", "web.example", "80"]),
    "networkpolicies": (["NAME", "POD-SELECTOR", "AGE"], ["db", "role=db"]),
    "poddisruptionbudgets": (
        ["NAME", "MIN", "AVAILABLE", "MAX", "UNAVAILABLE", "ALLOWED", "DISRUPTIONS", "AGE"],
        ["web", "1", "N/A", "0"],
    ),
    "horizontalpodautoscalers": (
        ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"],
        ["web", "Deployment/web", "cpu:", "<unknown>/70%", "2", "5", "0"],
    ),
    "priorityclasses.scheduling.k8s.io/high": (
        ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"],
        ["high", "1000", "false"],
    ),
    "storageclasses": (
        ["NAME", "PROVISIONER", "RECLAIMPOLICY", "VOLUMEBINDINGMODE", "ALLOWVOLUMEEXPANSION", "AGE"],
        ["fast", "example.com/fast", "Delete", "Immediate", "false"],
    ),
    "validatingwebhookconfigurations": (["NAME", "WEBHOOKS", "AGE"], ["checks", "0"]),
    "apiservices": (["NAME", "SERVICE", "AVAILABLE", "AGE"], ["v1.example.com", "Local", "True"]),
    "runtimeclasses": (["NAME", "HANDLER", "AGE"], ["gvisor", "runsc"]),
    "endpointslices": (["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"], ["web-1", "IPv4", "80", "10.1.0.5"]),
    "prioritylevelconfigurations": (
        ["NAME", "TYPE", "NOMINALCONCURRENCYSHARES", "QUEUES", "HANDSIZE", "QUEUELENGTHLIMIT", "AGE"],
        ["batch", "Limited", "10", "16", "4", "50"],
    ),
}  # fmt: skip


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    k = Kubectl(kubectl_binary, server.kubeconfig)
    k.run("apply", "-f", "-", stdin=OBJECTS)
    # the availability controller marks a local APIService Available within a second
    k.run("wait", "--for=condition=Available", "apiservice/v1.example.com", "--timeout=30s")
    return k


def test_get_prints_upstream_headers_and_cells(kubectl: Kubectl) -> None:
    for resource, (header, row_start) in CASES.items():
        lines = kubectl.run("get", resource, "-n", "default").stdout.splitlines()
        assert lines[0].split() == header, resource
        # The server's own objects (the default service's EndpointSlice, ServiceCIDR, IPAddress) may be
        # listed beside the test's; the row checked is the test's.
        (row,) = [line.split() for line in lines[1:] if line.split()[0] == row_start[0]]
        assert row[: len(row_start)] == row_start, resource


def test_wide_prints_the_same_columns_where_upstream_has_no_priority_ones(kubectl: Kubectl) -> None:
    """PreemptionPolicy is a priority-0 column upstream (its printer fills it for wide output, and the
    server always prints wide), so plain `get` shows it too; ingresses and autoscalers have no wide columns."""
    wide = kubectl.run("get", "priorityclass", "high", "-o", "wide").stdout.splitlines()
    assert wide[0].split() == ["NAME", "VALUE", "GLOBAL-DEFAULT", "AGE", "PREEMPTIONPOLICY"]
    assert wide[1].split()[-1] == "Never"
    for resource, (header, _) in CASES.items():
        if resource in ("ingresses", "horizontalpodautoscalers"):
            lines = kubectl.run("get", resource, "-n", "default", "-o", "wide").stdout.splitlines()
            assert lines[0].split() == header, resource


def test_kinds_upstream_prints_with_the_default_table(kubectl: Kubectl) -> None:
    kubectl.run("create", "role", "reader", "-n", "default", "--verb=get", "--resource=pods")
    lines = kubectl.run("get", "roles", "-n", "default").stdout.splitlines()
    assert lines[0].split() == ["NAME", "CREATED", "AT"]

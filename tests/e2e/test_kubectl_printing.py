"""Server-side printing and raw Accept forms with real kubectl (issue: wire formats)."""

from __future__ import annotations

import json

import pytest

from tests.e2e.kubectl_runner import Kubectl
from tests.e2e.manifests import APP

NODE = '{"apiVersion":"v1","kind":"Node","metadata":{"name":"node-1","labels":{"kubernetes.io/hostname":"node-1"}}}'


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    k = Kubectl(kubectl_binary, server.kubeconfig)
    k.run("apply", "-f", "-", stdin=APP)
    k.run("run", "web-pod", "--image=nginx")
    k.run("create", "-f", "-", stdin=NODE)
    return k


def test_get_prints_upstream_columns(kubectl: Kubectl) -> None:
    output = kubectl.run("get", "pods,deployments,services,nodes").stdout.splitlines()
    headers = [line.split() for line in output if line.startswith("NAME")]
    assert headers == [
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
        ["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
    ]
    pod_row = next(line for line in output if line.startswith("pod/web-pod"))
    assert pod_row.split()[1:4] == ["0/1", "Pending", "0"]


def test_wide_adds_priority_columns(kubectl: Kubectl) -> None:
    header = kubectl.run("get", "pods", "-o", "wide").stdout.splitlines()[0].split()
    assert header == [
        "NAME",
        "READY",
        "STATUS",
        "RESTARTS",
        "AGE",
        "IP",
        "NODE",
        "NOMINATED",
        "NODE",
        "READINESS",
        "GATES",
    ]


@pytest.mark.parametrize(
    ("accept", "kind"),
    [
        ("application/json", "ConfigMapList"),
        ("application/json;as=Table;g=meta.k8s.io;v=v1", "Table"),
        ("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1", "PartialObjectMetadataList"),
    ],
)
def test_raw_accept_forms(svc_server_factory, kubectl_binary, accept: str, kind: str) -> None:
    server = svc_server_factory("--brand-profile=kubernetes")
    client = server.client()
    response = client.request("GET", "/api/v1/namespaces/default/configmaps", accept=accept)
    assert response.json()["kind"] == kind
    raw = Kubectl(kubectl_binary, server.kubeconfig).run("get", "--raw", "/api/v1/namespaces/default/configmaps")
    assert json.loads(raw.stdout)["kind"] == "ConfigMapList"

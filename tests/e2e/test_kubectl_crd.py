"""kubectl 1.35 over custom resources: a CRD applied, waited for, its objects applied, printed with
their printer columns, explained, scaled, and removed with the CRD."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from tests.e2e.kubectl_runner import Kubectl

CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: crontabs
    singular: crontab
    kind: CronTab
    shortNames: [ct]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
    additionalPrinterColumns:
    - name: Spec
      type: string
      jsonPath: .spec.cronSpec
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    schema:
      openAPIV3Schema:
        type: object
        description: CronTab runs a command on a schedule.
        properties:
          spec:
            type: object
            description: What to run and when.
            properties:
              cronSpec:
                type: string
                description: The schedule in cron format.
              image:
                type: string
              replicas:
                type: integer
          status:
            type: object
            properties:
              replicas:
                type: integer
"""

CRONTAB = """
apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: nightly
spec:
  cronSpec: "0 3 * * *"
  image: backup:1
  replicas: 1
"""


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    return Kubectl(kubectl_binary, server.kubeconfig)


def _install(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=CRD)
    kubectl.run("wait", "--for=condition=Established", "crd/crontabs.stable.example.com", "--timeout=30s")


def test_wait_for_established_then_apply_and_get_with_printer_columns(kubectl: Kubectl) -> None:
    _install(kubectl)
    assert kubectl.run("apply", "-f", "-", stdin=CRONTAB).stdout.strip() == "crontab.stable.example.com/nightly created"
    lines = kubectl.run("get", "ct").stdout.splitlines()
    assert lines[0].split() == ["NAME", "SPEC", "REPLICAS"]
    assert lines[1].split() == ["nightly", "0", "3", "*", "*", "*", "1"]


def test_explain_reads_the_schema(kubectl: Kubectl) -> None:
    _install(kubectl)
    out = kubectl.run("explain", "crontabs.spec").stdout
    assert "What to run and when." in out
    assert "cronSpec" in out and "The schedule in cron format." in out


def test_scale_writes_the_spec_replicas_path(kubectl: Kubectl) -> None:
    _install(kubectl)
    kubectl.run("apply", "-f", "-", stdin=CRONTAB)
    assert kubectl.run("scale", "crontab", "nightly", "--replicas=4").stdout.strip() == (
        "crontab.stable.example.com/nightly scaled"
    )
    replicas = kubectl.run("get", "crontab", "nightly", "-o", "jsonpath={.spec.replicas}").stdout
    assert replicas == "4"


def test_deleting_the_crd_deletes_its_custom_resources(kubectl: Kubectl) -> None:
    _install(kubectl)
    kubectl.run("apply", "-f", "-", stdin=CRONTAB)
    kubectl.run("delete", "crd", "crontabs.stable.example.com", "--timeout=30s")
    assert kubectl.run("get", "crd", "-o", "name").stdout.strip() == ""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        groups = json.loads(kubectl.run("get", "--raw", "/apis").stdout)["groups"]
        if all(group["name"] != "stable.example.com" for group in groups):
            break
        time.sleep(0.1)
    assert all(group["name"] != "stable.example.com" for group in groups)


def test_strict_validation_refuses_a_field_the_schema_lacks(kubectl: Kubectl) -> None:
    _install(kubectl)
    result = kubectl.run("apply", "--validate=strict", "-f", "-", stdin=CRONTAB + "  color: red\n", check=False)
    assert result.returncode != 0
    assert 'unknown field "spec.color"' in result.stderr


def test_get_by_category_and_short_name(kubectl: Kubectl) -> None:
    _install(kubectl)
    kubectl.run("apply", "-f", "-", stdin=CRONTAB)
    assert "crontab.stable.example.com/nightly" in kubectl.run("get", "all", "-o", "name").stdout
    assert kubectl.run("get", "ct", "-o", "name").stdout.strip() == "crontab.stable.example.com/nightly"


def test_edit_changes_a_custom_resource(kubectl: Kubectl) -> None:
    _install(kubectl)
    kubectl.run("apply", "-f", "-", stdin=CRONTAB)
    editor = "sed -i -e 's/backup:1/backup:2/'"
    result = subprocess.run(
        [kubectl.binary, "--kubeconfig", str(kubectl.kubeconfig), "edit", "crontab", "nightly"],
        env={**os.environ, "KUBE_EDITOR": editor},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "crontab.stable.example.com/nightly edited"
    assert kubectl.run("get", "crontab", "nightly", "-o", "jsonpath={.spec.image}").stdout == "backup:2"


def test_a_cel_rule_refuses_an_invalid_custom_resource(kubectl: Kubectl) -> None:
    ruled = CRD.replace(
        "            description: What to run and when.\n",
        "            description: What to run and when.\n"
        "            x-kubernetes-validations:\n"
        "            - rule: self.replicas <= 5\n"
        "              message: at most five replicas\n",
    )
    kubectl.run("apply", "-f", "-", stdin=ruled)
    kubectl.run("wait", "--for=condition=Established", "crd/crontabs.stable.example.com", "--timeout=30s")
    result = kubectl.run("apply", "-f", "-", stdin=CRONTAB.replace("replicas: 1", "replicas: 9"), check=False)
    assert result.returncode != 0
    assert 'The CronTab "nightly" is invalid: spec: Invalid value: at most five replicas' in result.stderr

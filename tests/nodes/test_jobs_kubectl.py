"""Jobs run for real: kubectl 1.35, the controller daemon and simulated nodes (a Job's pods exit 0
after the simulator's run time; an exit-code annotation on the template fails them)."""

from __future__ import annotations

import time

import pytest

from tests.e2e.kubectl_runner import Kubectl

JOB = """
apiVersion: batch/v1
kind: Job
metadata:
  name: {name}
spec:
  completions: {completions}
  parallelism: 2
  backoffLimit: {backoff}
  completionMode: {mode}
  template:
    metadata:
      annotations: {annotations}
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox
"""


@pytest.fixture
def kubectl(svc_server_factory, svc_controller_manager, svc_nodes, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--brand-profile=kubernetes", "--controllers=job,cronjob,garbagecollector")
    svc_nodes(server, "--brand-profile=kubernetes", "--run-time=200ms", count=2)
    return Kubectl(kubectl_binary, server.kubeconfig)


@pytest.fixture
def slow_kubectl(svc_server_factory, svc_controller_manager, svc_nodes, kubectl_binary) -> Kubectl:
    """Pods that run for a minute, so a Job can be deleted while they run."""
    server = svc_server_factory("--brand-profile=kubernetes")
    svc_controller_manager(server, "--brand-profile=kubernetes", "--controllers=job,garbagecollector")
    svc_nodes(server, "--brand-profile=kubernetes", "--run-time=60s", count=2)
    return Kubectl(kubectl_binary, server.kubeconfig)


def job(name: str, *, completions: int = 3, backoff: int = 6, mode: str = "NonIndexed", annotations: str = "{}") -> str:
    return JOB.format(name=name, completions=completions, backoff=backoff, mode=mode, annotations=annotations)


def test_a_job_completes_after_its_completions_succeed(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=job("batch"))
    kubectl.run("wait", "--for=condition=Complete", "job/batch", "--timeout=60s")
    status = kubectl.run("get", "job", "batch", "-o", "jsonpath={.status.succeeded} {.status.failed}").stdout
    assert status == "3 "
    finalizers = kubectl.run("get", "pods", "-l", "job-name=batch", "-o", "jsonpath={.items[*].metadata.finalizers}")
    assert finalizers.stdout == ""


def test_an_indexed_job_records_its_completed_indexes(kubectl: Kubectl) -> None:
    kubectl.run("apply", "-f", "-", stdin=job("indexed", mode="Indexed"))
    kubectl.run("wait", "--for=condition=Complete", "job/indexed", "--timeout=60s")
    indexes = kubectl.run("get", "job", "indexed", "-o", "jsonpath={.status.completedIndexes}").stdout
    assert indexes == "0-2"
    hostnames = kubectl.run("get", "pods", "-l", "job-name=indexed", "-o", "jsonpath={.items[*].spec.hostname}")
    assert sorted(hostnames.stdout.split()) == ["indexed-0", "indexed-1", "indexed-2"]


def test_a_job_whose_pods_fail_reaches_its_backoff_limit(kubectl: Kubectl) -> None:
    failing = job("doomed", completions=1, backoff=0, annotations='{"simulator.svc.io/exit-code": "2"}')
    kubectl.run("apply", "-f", "-", stdin=failing)
    kubectl.run("wait", "--for=condition=Failed", "job/doomed", "--timeout=60s")
    reason = kubectl.run(
        "get", "job", "doomed", "-o", 'jsonpath={.status.conditions[?(@.type=="Failed")].reason}'
    ).stdout
    assert reason == "BackoffLimitExceeded"


def test_a_cronjob_creates_a_job_that_completes(kubectl: Kubectl) -> None:
    kubectl.run("create", "cronjob", "tick", "--image=busybox", "--schedule=@every 2s")
    name = ""
    for _ in range(60):
        name = kubectl.run("get", "jobs", "-o", "jsonpath={.items[0].metadata.name}", check=False).stdout
        if name:
            break
        time.sleep(0.5)
    assert name.startswith("tick-")
    kubectl.run("wait", "--for=condition=Complete", f"job/{name}", "--timeout=60s")
    last = kubectl.run("get", "cronjob", "tick", "-o", "jsonpath={.status.lastScheduleTime}").stdout
    assert last.endswith("Z")


def test_the_pods_of_a_deleted_job_go_away(slow_kubectl: Kubectl) -> None:
    """The garbage collector deletes the pods; the job controller releases their tracking finalizer
    though their Job is gone, so they do not stay terminating forever."""
    slow_kubectl.run("apply", "-f", "-", stdin=job("slow", completions=2))
    slow_kubectl.run("wait", "--for=jsonpath={.status.active}=2", "job/slow", "--timeout=60s")
    slow_kubectl.run("wait", "--for=jsonpath={.status.phase}=Running", "pod", "-l", "job-name=slow", "--timeout=60s")
    slow_kubectl.run("delete", "job", "slow")
    slow_kubectl.run("wait", "--for=delete", "pod", "-l", "job-name=slow", "--timeout=60s")

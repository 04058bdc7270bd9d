"""kubectl's watch (`get -w`) and paged lists (`--chunk-size`)."""

from __future__ import annotations

import subprocess
import time

import pytest

from tests.e2e.kubectl_runner import Kubectl


@pytest.fixture
def kubectl(svc_server_factory, kubectl_binary) -> Kubectl:
    server = svc_server_factory("--brand-profile=kubernetes")
    return Kubectl(kubectl_binary, server.kubeconfig)


def test_get_watch_prints_changes(kubectl: Kubectl) -> None:
    process = subprocess.Popen(
        [kubectl.binary, "--kubeconfig", str(kubectl.kubeconfig), "get", "configmaps", "-w", "--request-timeout=20s"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        time.sleep(1.0)
        kubectl.run("create", "configmap", "watched", "--from-literal=a=b")
        kubectl.run("label", "configmap", "watched", "x=y")
        deadline = time.monotonic() + 15
        lines: list[str] = []
        assert process.stdout is not None
        while time.monotonic() < deadline and sum("watched" in line for line in lines) < 2:
            lines.append(process.stdout.readline())
    finally:
        process.kill()
        process.wait()
    assert sum(line.startswith("watched") for line in lines) >= 2


def test_chunked_list_pages_through_all_pods(kubectl: Kubectl) -> None:
    for index in range(10):
        kubectl.run("run", f"pod-{index}", "--image=busybox", "--restart=Never")
    result = kubectl.run("get", "pods", "--chunk-size=3", "-o", "name", "-v=6")
    assert sorted(result.stdout.split()) == sorted(f"pod/pod-{index}" for index in range(10))
    assert result.stderr.count("limit=3") >= 4

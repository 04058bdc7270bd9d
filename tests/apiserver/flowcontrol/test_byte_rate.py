"""`--max-connection-bytes-per-sec` throttles what exec and attach relay."""

from __future__ import annotations

import time

from svc.apiserver.flowcontrol.byte_rate import ByteRate
from tests.e2e.kubectl_runner import Kubectl


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_second_of_bytes_passes_at_once_then_the_rate_holds() -> None:
    clock = Clock()
    rate = ByteRate(1000, clock)
    assert rate.delay_for(1000) == 0
    assert rate.delay_for(500) == 0.5
    clock.now = 1.5
    assert rate.delay_for(1000) == 0


def test_attach_relays_stdin_no_faster_than_the_limit(svc_server_factory, svc_nodes, kubectl_binary) -> None:
    server = svc_server_factory("--brand-profile=kubernetes", "--max-connection-bytes-per-sec=2000")
    svc_nodes(server, "--brand-profile=kubernetes", count=1)
    kubectl = Kubectl(kubectl_binary, server.kubeconfig)
    kubectl.run("run", "web", "--image=nginx")
    kubectl.run("wait", "--for=condition=Ready", "pod/web", "--timeout=30s")
    text = "".join(f"line {n:04}\n" for n in range(600))  # 6,000 bytes: a burst of 2,000, then 2 s
    started = time.monotonic()
    result = kubectl.run("attach", "-i", "web", stdin=text)
    assert result.stdout == text
    assert time.monotonic() - started >= 1.5

"""A container's `lifecycle.stopSignal` through the server, as upstream 1.36 judges it with the
ContainerStopSignals gate on: the pod must name its OS, and the signal must be one that OS supports.
With the gate off the field is dropped from a new pod before validation."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.api.validation.test_pods import POD
from tests.api.validation.test_workloads import DEPLOYMENT

PODS = "/api/v1/namespaces/default/pods"
DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments"
C0 = "spec.containers[0].lifecycle.stopSignal"
NO_OS = "may not be set for containers with empty `spec.os.name`"
WINDOWS = 'supported values: "SIGKILL", "SIGTERM"'


@pytest.fixture
def gated(svc_server_factory):
    return svc_server_factory("--brand-profile=kubernetes", "--feature-gates=ContainerStopSignals=true").client()


def _pod(signal: Any, os: str | None = None, *, init: bool = False) -> dict[str, Any]:
    pod = copy.deepcopy(POD)
    container = pod["spec"]["initContainers"][0] if init else pod["spec"]["containers"][0]
    if init:
        container["restartPolicy"] = "Always"
    container["lifecycle"] = {"stopSignal": signal}
    if os is not None:
        pod["spec"]["os"] = {"name": os}
    return pod


# upstream's supportedStopSignalsLinux, sorted as Go's sets.List gives them
LINUX = (
    'supported values: "SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCLD", "SIGCONT", "SIGFPE", '
    '"SIGHUP", "SIGILL", "SIGINT", "SIGIO", "SIGIOT", "SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", '
    '"SIGPWR", "SIGQUIT", "SIGRTMAX", "SIGRTMAX-1", "SIGRTMAX-10", "SIGRTMAX-11", "SIGRTMAX-12", '
    '"SIGRTMAX-13", "SIGRTMAX-14", "SIGRTMAX-2", "SIGRTMAX-3", "SIGRTMAX-4", "SIGRTMAX-5", "SIGRTMAX-6", '
    '"SIGRTMAX-7", "SIGRTMAX-8", "SIGRTMAX-9", "SIGRTMIN", "SIGRTMIN+1", "SIGRTMIN+10", "SIGRTMIN+11", '
    '"SIGRTMIN+12", "SIGRTMIN+13", "SIGRTMIN+14", "SIGRTMIN+15", "SIGRTMIN+2", "SIGRTMIN+3", '
    '"SIGRTMIN+4", "SIGRTMIN+5", "SIGRTMIN+6", "SIGRTMIN+7", "SIGRTMIN+8", "SIGRTMIN+9", "SIGSEGV", '
    '"SIGSTKFLT", "SIGSTOP", "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", '
    '"SIGUSR1", "SIGUSR2", "SIGVTALRM", "SIGWINCH", "SIGXCPU", "SIGXFSZ"'
)


INVALID = [
    ("no os", _pod("SIGTERM"), C0, "FieldValueForbidden", f"Forbidden: {NO_OS}"),
    ("linux unknown", _pod("SIGFOO", "linux"), C0, "FieldValueNotSupported", f'Unsupported value: "SIGFOO": {LINUX}'),
    (
        "linux lower case",
        _pod("sigterm", "linux"),
        C0,
        "FieldValueNotSupported",
        f'Unsupported value: "sigterm": {LINUX}',
    ),
    ("linux without SIG", _pod("TERM", "linux"), C0, "FieldValueNotSupported", f'Unsupported value: "TERM": {LINUX}'),
    (
        "windows usr1",
        _pod("SIGUSR1", "windows"),
        C0,
        "FieldValueNotSupported",
        f'Unsupported value: "SIGUSR1": {WINDOWS}',
    ),
    (
        "sidecar without os",
        _pod("SIGTERM", init=True),
        "spec.initContainers[0].lifecycle.stopSignal",
        "FieldValueForbidden",
        f"Forbidden: {NO_OS}",
    ),
]


@pytest.mark.parametrize(
    ("pod", "field", "reason", "message"), [case[1:] for case in INVALID], ids=[c[0] for c in INVALID]
)
def test_an_invalid_stop_signal_is_refused(gated, pod, field: str, reason: str, message: str) -> None:
    response = gated.request("POST", PODS, body=pod)
    assert response.status == 422, response.body
    assert response.json()["details"]["causes"] == [{"reason": reason, "message": message, "field": field}]
    assert response.json()["message"] == f'Pod "web" is invalid: {field}: {message}'
    assert gated.request("GET", PODS).json()["items"] == []


@pytest.mark.parametrize(("signal", "os"), [("SIGRTMIN+15", "linux"), ("SIGRTMAX-14", "linux"), ("SIGKILL", "windows")])
def test_a_signal_the_os_supports_is_stored(gated, signal: str, os: str) -> None:
    response = gated.request("POST", PODS, body=_pod(signal, os))
    assert response.status == 201, response.body
    assert response.json()["spec"]["containers"][0]["lifecycle"] == {"stopSignal": signal}


def test_a_workload_template_is_judged_too(gated) -> None:
    deployment = copy.deepcopy(DEPLOYMENT)
    deployment["spec"]["template"]["spec"]["containers"][0]["lifecycle"] = {"stopSignal": "SIGTERM"}
    response = gated.request("POST", DEPLOYMENTS, body=deployment)
    assert response.status == 422, response.body
    assert response.json()["message"].endswith(
        f"spec.template.spec.containers[0].lifecycle.stopSignal: Forbidden: {NO_OS}"
    )


def test_with_the_gate_off_the_signal_is_dropped_not_judged(svc_server_factory) -> None:
    api = svc_server_factory("--brand-profile=kubernetes").client()
    response = api.request("POST", PODS, body=_pod("SIGFOO"))
    assert response.status == 201, response.body
    assert "lifecycle" not in response.json()["spec"]["containers"][0]

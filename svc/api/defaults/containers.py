"""Containers (regular, init and ephemeral alike): pull policy, termination message, ports, env,
resources, probes and lifecycle hooks, as upstream defaults them wherever a pod spec appears."""

from __future__ import annotations

from typing import Final

from svc.api.defaults.image import pull_policy
from svc.api.defaults.quantities import round_requirements
from svc.api.defaults.volumes import field_selector
from svc.api.defaults.walk import Obj, child, entries, fill, fill_nil

TERMINATION_MESSAGE_PATH: Final = "/dev/termination-log"
PROBES: Final = ("livenessProbe", "readinessProbe", "startupProbe")
HOOKS: Final = ("postStart", "preStop")


def http_get(action: Obj | None) -> None:
    if action is not None:
        fill(action, "path", "/")
        fill(action, "scheme", "HTTP")


def probe(spec: Obj) -> None:
    fill(spec, "timeoutSeconds", 1)
    fill(spec, "periodSeconds", 10)
    fill(spec, "successThreshold", 1)
    fill(spec, "failureThreshold", 3)
    http_get(child(spec, "httpGet"))
    grpc = child(spec, "grpc")
    if grpc is not None:
        fill_nil(grpc, "service", "")


def _env(variable: Obj) -> None:
    source = child(variable, "valueFrom")
    field_selector(source)
    file_key = child(source, "fileKeyRef")
    if file_key is not None:
        fill_nil(file_key, "optional", False)


def container(spec: Obj) -> None:
    image = spec.get("image")
    fill(spec, "imagePullPolicy", pull_policy(image if isinstance(image, str) else ""))
    fill(spec, "terminationMessagePath", TERMINATION_MESSAGE_PATH)
    fill(spec, "terminationMessagePolicy", "File")
    for port in entries(spec, "ports"):
        fill(port, "protocol", "TCP")
    for variable in entries(spec, "env"):
        _env(variable)
    round_requirements(spec)
    for name in PROBES:
        check = child(spec, name)
        if check is not None:
            probe(check)
    lifecycle = child(spec, "lifecycle")
    for name in HOOKS:
        http_get(child(child(lifecycle, name), "httpGet"))

"""Containers, as upstream's `validateContainerCommon` and its helpers check each container of a pod
spec: name and image, ports, environment, resources, security context, probes and lifecycle hooks
(and the user and group ids of the pod's own security context, checked the same way).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from svc.api.validation.engine import (
    Check,
    Each,
    Format,
    OneOf,
    Range,
    Required,
    Table,
    compile_table,
    go_struct,
    inclusive_range,
    integer,
    items,
    join,
    lookup,
)
from svc.api.validation.env import env_from_errors, is_relaxed_env_var_name, value_from_errors
from svc.api.validation.known_valid import KnownValid
from svc.api.validation.resources import requirements_errors
from svc.api.validation.security import app_armor_profile_errors, proc_mount_errors, seccomp_profile_errors
from svc.api.validation.stop_signals import stop_signal_errors
from svc.machinery.field_errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_supported,
    required,
)
from svc.machinery.validation import (
    is_dns1123_label,
)

PORT_RANGE: Final = inclusive_range(1, 65535)
MAX_INT32: Final = 2147483647
PROTOCOLS: Final = ("SCTP", "TCP", "UDP")

_PORT_NAME_CHARS: Final = re.compile(r"[-a-z0-9]+")
_LOWER_LETTER: Final = re.compile("[a-z]")


def is_valid_port_name(name: str) -> list[str]:
    """Upstream's `IsValidPortName` (an IANA service name)."""
    errors = ["must be no more than 15 characters"] if len(name) > 15 else []
    if not _PORT_NAME_CHARS.fullmatch(name):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _LOWER_LETTER.search(name):
        errors.append("must contain at least one letter (a-z)")
    if "--" in name:
        errors.append("must not contain consecutive hyphens (--)")
    if name.startswith("-") or name.endswith("-"):
        errors.append("must not begin or end with a hyphen (-)")
    return errors


def port_number(path: str, *, required_value: bool) -> Check:
    """A port number: zero means unset (Required when `required_value`), anything else within 1-65535."""

    def check(node: Any, base: str) -> list[FieldError]:
        value = lookup(node, path)
        where = join(base, path)
        if not value:
            return [required(where)] if required_value else []
        if isinstance(value, int) and not 1 <= value <= 65535:
            return [invalid(where, value, PORT_RANGE)]
        return []

    return Check(check)


def _unique_names(node: Any, base: str, key: str = "name") -> list[FieldError]:
    """Duplicate of a non-empty, valid name among a list's items (names checked by the item table)."""
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, item in enumerate(items(node)):
        name = item.get(key) if isinstance(item, Mapping) else None
        if not isinstance(name, str) or not name:
            continue
        if name in seen:
            errors.append(duplicate(f"{base}[{index}].{key}", name))
        seen.add(name)
    return errors


CONTAINER_PORT: Table = (
    Format("name", is_valid_port_name),
    port_number("containerPort", required_value=True),
    port_number("hostPort", required_value=False),
    OneOf("protocol", PROTOCOLS),
)

ENV_VAR: Table = (Format("name", is_relaxed_env_var_name, required=True), Check(value_from_errors))

ID_RANGE: Final = inclusive_range(0, MAX_INT32)
_SECURITY_CONTEXT_MEMBERS: Final = (
    "capabilities",
    "privileged",
    "seLinuxOptions=SELinuxOptions",
    "windowsOptions",
    "runAsUser",
    "runAsGroup",
    "runAsNonRoot",
    "readOnlyRootFilesystem",
    "allowPrivilegeEscalation",
    "procMount",
    "seccompProfile",
    "appArmorProfile",
)


_RUN_AS_IDS: Final = compile_table(
    (Range("runAsUser", 0, MAX_INT32, ID_RANGE), Range("runAsGroup", 0, MAX_INT32, ID_RANGE))
)


def _container_security_context(context: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidateSecurityContext` (user and group ids, escalation against privilege)."""
    if type(context) is not dict:
        return []
    errors = _RUN_AS_IDS(context, path)
    errors += proc_mount_errors(context, path)
    errors += seccomp_profile_errors(context, path)
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged") is True:
            detail = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            errors.append(invalid(path, _security_context_value(context), detail))
        if "CAP_SYS_ADMIN" in items(lookup(context, "capabilities.add")):
            detail = "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
            errors.append(invalid(path, _security_context_value(context), detail))
    return errors + app_armor_profile_errors(context, path)


def _security_context_value(context: dict[str, Any]) -> Any:
    capabilities = context.get("capabilities")
    shown = {**context, "capabilities": go_struct(capabilities, ("add", "drop")) if capabilities is not None else None}
    return go_struct(shown, _SECURITY_CONTEXT_MEMBERS)


POD_SECURITY_CONTEXT: Table = (
    Range("fsGroup", 0, MAX_INT32, ID_RANGE),
    Range("runAsUser", 0, MAX_INT32, ID_RANGE),
    Range("runAsGroup", 0, MAX_INT32, ID_RANGE),
    Check(
        lambda context, base: [
            invalid(f"{join(base, 'supplementalGroups')}[{index}]", group, ID_RANGE)
            for index, group in enumerate(items(lookup(context, "supplementalGroups")))
            if type(group) is int and not 0 <= group <= MAX_INT32
        ]
    ),
)

CONTAINER: Table = (
    Format("name", is_dns1123_label, required=True),
    Required("image"),
    OneOf("terminationMessagePolicy", ("File", "FallbackToLogsOnError")),
    Each("ports", CONTAINER_PORT),
    Check(lambda node, base: _unique_names(lookup(node, "ports"), join(base, "ports"))),
    Each("env", ENV_VAR),
    Check(env_from_errors),
    OneOf("imagePullPolicy", ("Always", "IfNotPresent", "Never")),
    Check(lambda node, base: requirements_errors(lookup(node, "resources"), join(base, "resources"))),
    Check(
        lambda node, base: _container_security_context(lookup(node, "securityContext"), join(base, "securityContext"))
    ),
)


INIT_ONLY_WITH_ALWAYS: Final = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
_PROBE_HANDLERS: Final = ("exec", "httpGet", "tcpSocket", "grpc")
_LIFECYCLE_HANDLERS: Final = ("exec", "httpGet", "tcpSocket", "sleep")
_PROBE_COUNTERS: Final = (
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
)
_PROBE_COUNTER_RULES: Final = compile_table(tuple(Range(counter) for counter in _PROBE_COUNTERS))


def _port_num_or_name(port: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidatePortNumOrName` for an IntOrString port."""
    if isinstance(port, str):
        return [invalid(path, port, message) for message in is_valid_port_name(port)]
    number = port if isinstance(port, int) else 0
    return [] if 1 <= number <= 65535 else [invalid(path, number, PORT_RANGE)]


def _handler(handler: Any, path: str, kinds: tuple[str, ...], grace: Any) -> list[FieldError]:
    """Upstream's `validateHandler`: exactly one action, each checked."""
    present = [kind for kind in kinds if lookup(handler, kind) is not None]
    if not present:
        return [required(path, "must specify a handler type")]
    errors = [forbidden(f"{path}.{kind}", "may not specify more than 1 handler type") for kind in present[1:]]
    kind, where = present[0], f"{path}.{present[0]}"
    action = lookup(handler, kind)
    if kind == "exec" and not lookup(action, "command"):
        errors.append(required(f"{where}.command"))
    elif kind == "httpGet":
        if not lookup(action, "path"):
            errors.append(required(f"{where}.path"))
        errors += _port_num_or_name(lookup(action, "port"), f"{where}.port")
        scheme = lookup(action, "scheme") or ""
        if scheme not in ("HTTP", "HTTPS"):
            errors.append(not_supported(f"{where}.scheme", scheme, ("HTTP", "HTTPS")))
    elif kind in ("tcpSocket", "grpc"):
        errors += _port_num_or_name(lookup(action, "port"), f"{where}.port")
    elif kind == "sleep":
        seconds = integer(action, "seconds") or 0
        if isinstance(grace, int) and not 0 <= seconds <= grace:
            detail = f"must be non-negative and less than terminationGracePeriodSeconds ({grace})"
            errors.append(invalid(where, seconds, detail))
    return errors


def _probe(probe: Any, path: str, grace: Any, *, readiness: bool) -> list[FieldError]:
    if probe is None:
        return []
    errors = _handler(probe, path, _PROBE_HANDLERS, grace)
    errors += _PROBE_COUNTER_RULES(probe, path)
    probe_grace = lookup(probe, "terminationGracePeriodSeconds")
    if isinstance(probe_grace, int) and probe_grace <= 0:
        errors.append(invalid(f"{path}.terminationGracePeriodSeconds", probe_grace, "must be greater than 0"))
    if readiness and probe_grace is not None:
        detail = "must not be set for readinessProbes"
        errors.append(invalid(f"{path}.terminationGracePeriodSeconds", probe_grace, detail))
    threshold = lookup(probe, "successThreshold")
    if not readiness and threshold is not None and threshold != 1:
        errors.append(invalid(f"{path}.successThreshold", threshold, "must be 1"))
    return errors


_PROBED: Final = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
_VALID_PROBES: Final = KnownValid()


def lifecycle_and_probes(container: Any, path: str, grace: Any, pod_os: Any) -> list[FieldError]:
    """Hooks, stop signal and probes of containers that keep running (regular and restartable init
    containers); those found valid before with the same grace period and pod OS are not checked again
    (`KnownValid`)."""
    part = (grace, pod_os, *(lookup(container, member) for member in _PROBED))
    return _VALID_PROBES.errors(part, lambda: _lifecycle_and_probe_errors(container, path, grace, pod_os))


def _lifecycle_and_probe_errors(container: Any, path: str, grace: Any, pod_os: Any) -> list[FieldError]:
    errors: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        handler = lookup(container, f"lifecycle.{hook}")
        if handler is not None:
            errors += _handler(handler, f"{path}.lifecycle.{hook}", _LIFECYCLE_HANDLERS, grace)
    errors += stop_signal_errors(container, path, pod_os)
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        errors += _probe(lookup(container, key), f"{path}.{key}", grace, readiness=key == "readinessProbe")
    return errors

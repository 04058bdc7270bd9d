"""Pod specs, pod templates and pods, as upstream's `ValidatePodSpec`, `ValidatePodTemplateSpec` and
`ValidatePodCreate`/`ValidatePodUpdate` check them (release 1.36, default feature gates).

Per-field rules are tables; what spans fields is code: container names unique across regular, init
and ephemeral containers, volume mounts naming declared volumes, and the pod update rule that only a
few spec fields may change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from svc.api.validation.engine import (
    At,
    Check,
    Each,
    Format,
    KindRules,
    OneOf,
    Range,
    Required,
    Table,
    UpdateCheck,
    go_struct,
    inclusive_range,
    integer,
    items,
    join,
    lookup,
    mapping,
    run,
    string_map,
    text,
)
from svc.api.validation.resources import requirements_errors
from svc.machinery.field_errors import (
    FieldError,
    duplicate,
    forbidden,
    invalid,
    not_found,
    not_supported,
    required,
)
from svc.machinery.gotext import json_marshal
from svc.machinery.validation import (
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    validate_annotations,
    validate_label_name,
    validate_labels,
)

PORT_RANGE: Final = inclusive_range(1, 65535)
MAX_INT32: Final = 2147483647
PROTOCOLS: Final = ("SCTP", "TCP", "UDP")
RESTART_POLICIES: Final = ("Always", "OnFailure", "Never")
DNS_POLICIES: Final = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")

# Volume sources in the order upstream's `validateVolumeSource` tests them.
_VOLUME_SOURCES: Final = (
    "emptyDir",
    "hostPath",
    "gitRepo",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "secret",
    "nfs",
    "iscsi",
    "glusterfs",
    "flocker",
    "persistentVolumeClaim",
    "rbd",
    "cinder",
    "cephfs",
    "quobyte",
    "downwardAPI",
    "fc",
    "flexVolume",
    "configMap",
    "azureFile",
    "vsphereVolume",
    "photonPersistentDisk",
    "portworxVolume",
    "azureDisk",
    "storageos",
    "projected",
    "scaleIO",
    "csi",
    "ephemeral",
    "image",
)

_PORT_NAME_CHARS: Final = re.compile(r"[-a-z0-9]+")


def is_valid_port_name(name: str) -> list[str]:
    """Upstream's `IsValidPortName` (an IANA service name)."""
    errors = ["must be no more than 15 characters"] if len(name) > 15 else []
    if not _PORT_NAME_CHARS.fullmatch(name):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search("[a-z]", name):
        errors.append("must contain at least one letter (a-z)")
    if "--" in name:
        errors.append("must not contain consecutive hyphens (--)")
    if name.startswith("-") or name.endswith("-"):
        errors.append("must not begin or end with a hyphen (-)")
    return errors


def is_relaxed_env_var_name(name: str) -> list[str]:
    if any(char == "=" or not (" " <= char <= "~") for char in name):
        return ["a valid environment variable name must consist only of printable ASCII characters other than '='"]
    return []


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

ENV_VAR: Table = (Format("name", is_relaxed_env_var_name, required=True),)

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


def _container_security_context(context: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidateSecurityContext` (user and group ids, escalation against privilege)."""
    if type(context) is not dict:
        return []
    errors = run(
        (Range("runAsUser", 0, MAX_INT32, ID_RANGE), Range("runAsGroup", 0, MAX_INT32, ID_RANGE)), context, path
    )
    if context.get("allowPrivilegeEscalation") is False:
        if context.get("privileged") is True:
            detail = "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"
            errors.append(invalid(path, _security_context_value(context), detail))
        if "CAP_SYS_ADMIN" in items(lookup(context, "capabilities.add")):
            detail = "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"
            errors.append(invalid(path, _security_context_value(context), detail))
    return errors


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
    OneOf("imagePullPolicy", ("Always", "IfNotPresent", "Never")),
    Check(lambda node, base: requirements_errors(lookup(node, "resources"), join(base, "resources"))),
    Check(
        lambda node, base: _container_security_context(lookup(node, "securityContext"), join(base, "securityContext"))
    ),
)


def _volume(volume: Any, path: str) -> list[FieldError]:
    if not isinstance(volume, Mapping):
        return []
    errors: list[FieldError] = []
    sources = [key for key in _VOLUME_SOURCES if volume.get(key) is not None]
    errors += [forbidden(f"{path}.{key}", "may not specify more than 1 volume type") for key in sources[1:]]
    if not sources:
        errors.append(required(path, "must specify a volume type"))
    else:
        errors += run(_VOLUME_SOURCE_RULES.get(sources[0], ()), volume, path)
    name = volume.get("name")
    if not name:
        errors.append(required(f"{path}.name"))
    elif isinstance(name, str):
        errors += [invalid(f"{path}.name", name, message) for message in is_dns1123_label(name)]
    return errors


_VOLUME_SOURCE_RULES: Final[dict[str, Table]] = {
    "hostPath": (Required("hostPath.path"),),
    "secret": (Required("secret.secretName"),),
    "configMap": (Required("configMap.name"),),
    "persistentVolumeClaim": (Required("persistentVolumeClaim.claimName"),),
    "nfs": (Required("nfs.server"), Required("nfs.path")),
}


def _volumes(spec: Any, base: str) -> tuple[set[str], list[FieldError]]:
    """Upstream's `ValidateVolumes`: errors, and the names of the volumes that passed (for mounts)."""
    names: set[str] = set()
    errors: list[FieldError] = []
    path = join(base, "volumes")
    for index, volume in enumerate(items(lookup(spec, "volumes"))):
        where = f"{path}[{index}]"
        found = _volume(volume, where)
        name = text(volume, "name")
        if name and name in names:
            found.append(duplicate(f"{where}.name", name))
        if found:
            errors += found
        elif name:
            names.add(name)
    return names, errors


def _volume_mounts(container: Any, base: str, volumes: set[str]) -> list[FieldError]:
    errors: list[FieldError] = []
    mount_paths: set[str] = set()
    path = join(base, "volumeMounts")
    for index, mount in enumerate(items(lookup(container, "volumeMounts"))):
        if not isinstance(mount, Mapping):
            continue
        where = f"{path}[{index}]"
        name, mount_path = text(mount, "name"), text(mount, "mountPath")
        if not name:
            errors.append(required(f"{where}.name"))
        if name not in volumes:
            errors.append(not_found(f"{where}.name", name))
        if not mount_path:
            errors.append(required(f"{where}.mountPath"))
        if mount_path in mount_paths:
            errors.append(invalid(f"{where}.mountPath", mount_path, "must be unique"))
        mount_paths.add(mount_path)
    return errors


def _container_common(container: Any, path: str, volumes: set[str]) -> list[FieldError]:
    return run(CONTAINER, container, path) + _volume_mounts(container, path, volumes)


_INIT_ONLY_WITH_ALWAYS: Final = ("lifecycle", "livenessProbe", "readinessProbe", "startupProbe")
_PROBE_HANDLERS: Final = ("exec", "httpGet", "tcpSocket", "grpc")
_LIFECYCLE_HANDLERS: Final = ("exec", "httpGet", "tcpSocket", "sleep")
_PROBE_COUNTERS: Final = (
    "initialDelaySeconds",
    "timeoutSeconds",
    "periodSeconds",
    "successThreshold",
    "failureThreshold",
)


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
    errors += run(tuple(Range(counter) for counter in _PROBE_COUNTERS), probe, path)
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


def _lifecycle_and_probes(container: Any, path: str, grace: Any) -> list[FieldError]:
    """Hooks and probes of containers that keep running (regular and restartable init containers)."""
    errors: list[FieldError] = []
    for hook in ("postStart", "preStop"):
        handler = lookup(container, f"lifecycle.{hook}")
        if handler is not None:
            errors += _handler(handler, f"{path}.lifecycle.{hook}", _LIFECYCLE_HANDLERS, grace)
    for key in ("livenessProbe", "readinessProbe", "startupProbe"):
        errors += _probe(lookup(container, key), f"{path}.{key}", grace, readiness=key == "readinessProbe")
    return errors


def _containers(spec: Any, base: str, volumes: set[str]) -> list[FieldError]:
    path = join(base, "containers")
    containers = items(lookup(spec, "containers"))
    if not containers:
        return [required(path)]
    errors: list[FieldError] = []
    seen: set[Any] = set()
    for index, container in enumerate(containers):
        where = f"{path}[{index}]"
        errors += _container_common(container, where, volumes)
        name = text(container, "name")
        if name in seen:
            errors.append(duplicate(f"{where}.name", name))
        seen.add(name)
        errors += _lifecycle_and_probes(container, where, lookup(spec, "terminationGracePeriodSeconds"))
        if lookup(container, "restartPolicy") is not None:
            errors.append(forbidden(f"{where}.restartPolicy", "may not be set for non-init containers"))
    return errors


def _init_containers(spec: Any, base: str, volumes: set[str]) -> list[FieldError]:
    path = join(base, "initContainers")
    errors: list[FieldError] = []
    names = {text(container, "name") for container in items(lookup(spec, "containers"))}
    for index, container in enumerate(items(lookup(spec, "initContainers"))):
        where = f"{path}[{index}]"
        errors += _container_common(container, where, volumes)
        policy = lookup(container, "restartPolicy")
        if policy is not None and policy != "Always":
            errors.append(not_supported(f"{where}.restartPolicy", policy, ("Always",)))
        name = text(container, "name")
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        elif name:
            names.add(name)
        if policy == "Always":
            errors += _lifecycle_and_probes(container, where, lookup(spec, "terminationGracePeriodSeconds"))
        else:
            errors += [
                forbidden(f"{where}.{key}", "may not be set for init containers without restartPolicy=Always")
                for key in _INIT_ONLY_WITH_ALWAYS
                if lookup(container, key) is not None
            ]
    return errors


def _ephemeral_containers(spec: Any, base: str, volumes: set[str]) -> list[FieldError]:
    path = join(base, "ephemeralContainers")
    others = {
        text(container, "name") for key in ("containers", "initContainers") for container in items(lookup(spec, key))
    }
    names = set(others)
    errors: list[FieldError] = []
    for index, container in enumerate(items(lookup(spec, "ephemeralContainers"))):
        where = f"{path}[{index}]"
        errors += _container_common(container, where, volumes)
        name = text(container, "name")
        if name in names:
            errors.append(duplicate(f"{where}.name", name))
        else:
            names.add(name)
        target = text(container, "targetContainerName")
        if target and target not in others:
            errors.append(not_found(f"{where}.targetContainerName", target))
    return errors


def _volumes_and_containers(spec: Any, base: str) -> list[FieldError]:
    volumes, errors = _volumes(spec, base)
    errors += _containers(spec, base, volumes)
    errors += _init_containers(spec, base, volumes)
    errors += _ephemeral_containers(spec, base, volumes)
    return errors


def _node_selector(spec: Any, base: str) -> list[FieldError]:
    return validate_labels(string_map(spec, "nodeSelector"), join(base, "nodeSelector"))


def _dns_config(spec: Any, base: str) -> list[FieldError]:
    if lookup(spec, "dnsPolicy") != "None":
        return []
    path = join(base, "dnsConfig")
    if lookup(spec, "dnsConfig") is None:
        return [required(path, "must provide `dnsConfig` when `dnsPolicy` is None")]
    if not lookup(spec, "dnsConfig.nameservers"):
        return [required(f"{path}.nameservers", "must provide at least one DNS nameserver when `dnsPolicy` is None")]
    return []


def toleration_errors(tolerations: Any, path: str) -> list[FieldError]:
    """Upstream's `ValidateTolerations`."""
    errors: list[FieldError] = []
    for index, toleration in enumerate(items(tolerations)):
        if not isinstance(toleration, Mapping):
            continue
        where = f"{path}[{index}]"
        key, operator = text(toleration, "key"), text(toleration, "operator")
        value, effect = text(toleration, "value"), text(toleration, "effect")
        if key:
            errors += validate_label_name(key, f"{where}.key")
        if not key and operator != "Exists":
            detail = 'operator must be Exists when `key` is empty, which means "match all values and all keys"'
            errors.append(invalid(f"{where}.operator", operator, detail))
        if toleration.get("tolerationSeconds") is not None and effect != "NoExecute":
            errors.append(
                invalid(f"{where}.effect", effect, "effect must be 'NoExecute' when `tolerationSeconds` is set")
            )
        if operator in ("Equal", ""):
            messages = is_valid_label_value(value)
            if messages:
                errors.append(invalid(f"{where}.operator", value, ";".join(messages)))
        elif operator == "Exists":
            if value:
                errors.append(invalid(f"{where}.operator", value, "value must be empty when `operator` is 'Exists'"))
        else:
            errors.append(not_supported(f"{where}.operator", operator, ("Equal", "Exists")))
        if effect and effect not in ("NoSchedule", "PreferNoSchedule", "NoExecute"):
            errors.append(not_supported(f"{where}.effect", effect, ("NoSchedule", "PreferNoSchedule", "NoExecute")))
    return errors


def _scheduling_gates(spec: Any, base: str) -> list[FieldError]:
    path = join(base, "schedulingGates")
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, gate in enumerate(items(lookup(spec, "schedulingGates"))):
        name = str(lookup(gate, "name") or "")
        errors += [invalid(f"{path}[{index}]", name, message) for message in is_qualified_name(name)]
        if name in seen:
            errors.append(duplicate(f"{path}[{index}]", name))
        seen.add(name)
    return errors


POD_SPEC: Table = (
    Required("terminationGracePeriodSeconds"),
    Check(_volumes_and_containers),
    OneOf("restartPolicy", RESTART_POLICIES),
    OneOf("dnsPolicy", DNS_POLICIES),
    Check(_node_selector),
    At("securityContext", POD_SECURITY_CONTEXT, optional=True),
    Check(_dns_config),
    Check(_scheduling_gates),
    Format("serviceAccountName", is_dns1123_subdomain),
    Format("nodeName", is_dns1123_subdomain),
    Range("activeDeadlineSeconds", 1, MAX_INT32, inclusive_range(1, MAX_INT32)),
    Format("hostname", is_dns1123_label),
    Format("subdomain", is_dns1123_label),
    Check(lambda spec, base: toleration_errors(lookup(spec, "tolerations"), join(base, "tolerations"))),
    Format("priorityClassName", is_dns1123_subdomain),
    OneOf("preemptionPolicy", ("PreemptLowerPriority", "Never"), optional=True),
)


def _metadata_maps(node: Any, base: str) -> list[FieldError]:
    """A template's labels and annotations; upstream names their paths after the template, not `metadata`."""
    errors: list[FieldError] = []
    errors += validate_labels(string_map(node, "metadata.labels"), join(base, "labels"))
    errors += validate_annotations(string_map(node, "metadata.annotations"), join(base, "annotations"))
    return errors


def _no_ephemeral_containers(node: Any, base: str) -> list[FieldError]:
    if items(lookup(node, "spec.ephemeralContainers")):
        return [forbidden(join(base, "spec.ephemeralContainers"), "ephemeral containers not allowed in pod template")]
    return []


POD_TEMPLATE_SPEC: Table = (
    Check(_metadata_maps),
    At("spec", POD_SPEC),
    Check(_no_ephemeral_containers),
)


def _image_whitespace(spec: Any, base: str) -> list[FieldError]:
    """Pods (not templates) may not have images with surrounding whitespace."""
    errors: list[FieldError] = []
    for key in ("containers", "initContainers"):
        for index, container in enumerate(items(lookup(spec, key))):
            image = lookup(container, "image")
            if isinstance(image, str) and image != image.strip():
                path = f"{join(base, key)}[{index}].image"
                errors.append(invalid(path, image, "must not have leading or trailing whitespace"))
    return errors


UPDATABLE_POD_SPEC_FIELDS: Final = (
    "`spec.containers[*].image`",
    "`spec.initContainers[*].image`",
    "`spec.activeDeadlineSeconds`",
    "`spec.tolerations` (only additions to existing tolerations)",
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
)


def _container_updates(new: list[Any], old: list[Any], path: str) -> tuple[list[FieldError], bool]:
    if len(new) != len(old):
        return [forbidden(path, "pod updates may not add or remove containers")], True
    errors: list[FieldError] = []
    for index, container in enumerate(new):
        image = lookup(container, "image")
        if not image:
            errors.append(required(f"{path}[{index}].image"))
        elif isinstance(image, str) and image != image.strip():
            errors.append(invalid(f"{path}[{index}].image", image, "must not have leading or trailing whitespace"))
    return errors, False


def _only_added_tolerations(new: list[Any], old: list[Any], path: str) -> list[FieldError]:
    def without_seconds(toleration: Any) -> Any:
        return (
            {k: v for k, v in toleration.items() if k != "tolerationSeconds"}
            if isinstance(toleration, Mapping)
            else toleration
        )

    remaining = [without_seconds(toleration) for toleration in new]
    for toleration in old:
        if without_seconds(toleration) not in remaining:
            return [forbidden(path, "existing toleration can not be modified except its tolerationSeconds")]
    return toleration_errors(new, path)


def _only_deleted_gates(new: list[Any], old: list[Any], path: str) -> list[FieldError]:
    """Scheduling gates may be removed from a pod, never added."""
    known = {text(gate, "name") for gate in old}
    return [
        forbidden(
            f"{path}.schedulingGates[{index}].name", f"only deletion is allowed, but found new scheduling gate '{name}'"
        )
        for index, gate in enumerate(new)
        if (name := text(gate, "name")) not in known
    ]


def _spec_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """A short account of the spec fields that differ, in the spirit of upstream's `cmp.Diff` text."""
    lines = ["  core.PodSpec{"]
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            field = key[:1].upper() + key[1:]
            if key in old:
                lines.append(f"- \t{field}: {json_marshal(old[key])},")
            if key in new:
                lines.append(f"+ \t{field}: {json_marshal(new[key])},")
    lines.append("  }")
    return "\n".join(lines) + "\n"


def pod_spec_update_errors(new_pod: Any, old_pod: Any, base: str) -> list[FieldError]:
    """Upstream's `ValidatePodUpdate` after metadata and the full spec check: what may change in a spec."""
    new, old = mapping(new_pod, "spec"), mapping(old_pod, "spec")
    path = join(base, "spec")
    errors: list[FieldError] = []
    for key in ("containers", "initContainers"):
        found, stop = _container_updates(items(new.get(key)), items(old.get(key)), f"{path}.{key}")
        errors += found
        if stop:
            return errors
    deadline, old_deadline = new.get("activeDeadlineSeconds"), old.get("activeDeadlineSeconds")
    deadline_path = f"{path}.activeDeadlineSeconds"
    if deadline is not None:
        if not 0 <= deadline <= MAX_INT32:
            return [*errors, invalid(deadline_path, deadline, inclusive_range(0, MAX_INT32))]
        if old_deadline is not None and old_deadline < deadline:
            return [*errors, invalid(deadline_path, deadline, "must be less than or equal to previous value")]
    elif old_deadline is not None:
        errors.append(invalid(deadline_path, None, "must not update from a positive integer to nil value"))
    errors += _only_added_tolerations(
        items(new.get("tolerations")), items(old.get("tolerations")), f"{path}.tolerations"
    )
    errors += _only_deleted_gates(items(new.get("schedulingGates")), items(old.get("schedulingGates")), path)
    if new == old:
        return errors
    munged = _munged(new, old)
    if munged != old:
        detail = "pod updates may not change fields other than " + ",".join(UPDATABLE_POD_SPEC_FIELDS)
        errors.append(forbidden(path, f"{detail}\n{_spec_diff(old, munged)}"))
    return errors


def _with_image_of(container: Any, previous: Any) -> Any:
    if not isinstance(container, Mapping) or not isinstance(previous, Mapping):
        return container
    munged = {key: value for key, value in container.items() if key != "image"}
    if "image" in previous:
        munged["image"] = previous["image"]
    return munged


def _munged(new: Mapping[str, Any], old: Mapping[str, Any]) -> dict[str, Any]:
    """The new spec with every field a pod update may change taken from the old spec."""
    munged = dict(new)
    for key in ("containers", "initContainers"):
        if key in munged:
            munged[key] = [
                _with_image_of(container, previous)
                for container, previous in zip(munged[key], items(old.get(key)), strict=False)
            ]
    for key in ("activeDeadlineSeconds", "schedulingGates", "tolerations"):
        if key in old:
            munged[key] = old[key]
        else:
            munged.pop(key, None)
    grace, old_grace = munged.get("terminationGracePeriodSeconds"), old.get("terminationGracePeriodSeconds")
    if isinstance(old_grace, int) and old_grace < 0 and grace == 1:
        munged["terminationGracePeriodSeconds"] = old_grace
    return munged


POD = KindRules(
    create=(At("spec", POD_SPEC), Check(lambda obj, base: _image_whitespace(lookup(obj, "spec"), "spec"))),
    update=(UpdateCheck(pod_spec_update_errors),),
)

POD_TEMPLATE = KindRules(create=(At("template", POD_TEMPLATE_SPEC),))

"""A container's environment sources, as upstream's `validateEnvVarValueFrom` and `ValidateEnvFrom` check
them: exactly one source per variable, downward API field paths and resources upstream can expose,
key selectors naming a valid object and key.
"""

from __future__ import annotations

from typing import Any, Final

from svc.api.validation.engine import items, lookup, text
from svc.api.validation.resources import quantity
from svc.machinery.field_errors import FieldError, invalid, not_supported, required
from svc.machinery.validation import (
    is_config_map_key,
    is_qualified_name,
    name_is_dns_subdomain,
)

ENV_FIELD_PATHS: Final = (
    "metadata.name",
    "metadata.namespace",
    "metadata.uid",
    "spec.nodeName",
    "spec.serviceAccountName",
    "status.hostIP",
    "status.hostIPs",
    "status.podIP",
    "status.podIPs",
)
# Every field label a pod's downward API converts (`ConvertDownwardAPIFieldLabel`); env vars allow fewer.
_POD_FIELD_LABELS: Final = frozenset(
    {
        *ENV_FIELD_PATHS,
        "metadata.annotations",
        "metadata.labels",
        "spec.restartPolicy",
        "spec.schedulerName",
        "status.phase",
    }
)
RESOURCE_FIELD_PATHS: Final = (
    "limits.cpu",
    "limits.ephemeral-storage",
    "limits.memory",
    "requests.cpu",
    "requests.ephemeral-storage",
    "requests.memory",
)
_HUGEPAGES_PREFIXES: Final = ("limits.hugepages-", "requests.hugepages-")
_CPU_DIVISORS: Final = frozenset({"1m", "1"})
_BYTE_DIVISORS: Final = frozenset({"1", "1k", "1M", "1G", "1T", "1P", "1E", "1Ki", "1Mi", "1Gi", "1Ti", "1Pi", "1Ei"})
_BYTE_DIVISOR_LIST: Final = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"
_VALUE_SOURCES: Final = ("fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef")


def is_relaxed_env_var_name(name: str) -> list[str]:
    if "=" in name or not (name.isascii() and name.isprintable()):
        return ["a valid environment variable name must consist only of printable ASCII characters other than '='"]
    return []


def split_subscripted_path(path: str) -> tuple[str, str] | None:
    """Upstream's `SplitMaybeSubscriptedPath`: `metadata.labels['key']` as (path, key), or None."""
    if not path.endswith("']"):
        return None
    head, found, subscript = path[:-2].partition("['")
    return (head, subscript) if found and head else None


def _field_ref(selector: Any, path: str) -> list[FieldError]:
    """Upstream's `validateObjectFieldSelector` with the env var field paths."""
    api_version, field_path = text(selector, "apiVersion"), text(selector, "fieldPath")
    if not api_version:
        return [required(f"{path}.apiVersion")]
    if not field_path:
        return [required(f"{path}.fieldPath")]
    subscripted = split_subscripted_path(field_path)
    if api_version != "v1":
        reason = f"unsupported pod version: {api_version}"
    elif subscripted is not None and subscripted[0] not in ("metadata.annotations", "metadata.labels"):
        reason = f"field label does not support subscript: {field_path}"
    elif subscripted is None and field_path not in _POD_FIELD_LABELS and field_path != "spec.host":
        reason = f"field label not supported: {field_path}"
    else:
        reason = ""
    if reason:
        return [invalid(f"{path}.fieldPath", field_path, f"error converting fieldPath: {reason}")]
    if subscripted is not None:
        name, key = subscripted
        key = key.lower() if name == "metadata.annotations" else key
        return [invalid(path, key, message) for message in is_qualified_name(key)]
    internal = "spec.nodeName" if field_path == "spec.host" else field_path
    if internal not in ENV_FIELD_PATHS:
        return [not_supported(f"{path}.fieldPath", internal, ENV_FIELD_PATHS)]
    return []


def _divisor(resource: str, divisor: Any, path: str) -> list[FieldError]:
    """Upstream's `validateContainerResourceDivisor`: units that make sense for the resource."""
    parsed = quantity(divisor) if divisor is not None else None
    if parsed is None or parsed.value == 0:
        return []
    shown = str(parsed)
    where = f"{path}.divisor"
    if resource in ("limits.cpu", "requests.cpu") and shown not in _CPU_DIVISORS:
        return [invalid(where, resource, "only divisor's values 1m and 1 are supported with the cpu resource")]
    kinds = {
        "limits.memory": "memory",
        "requests.memory": "memory",
        "limits.ephemeral-storage": "local ephemeral storage",
        "requests.ephemeral-storage": "local ephemeral storage",
    }
    kind = kinds.get(resource) or ("hugepages" if resource.startswith(_HUGEPAGES_PREFIXES) else "")
    if kind and shown not in _BYTE_DIVISORS:
        detail = f"only divisor's values {_BYTE_DIVISOR_LIST} are supported with the {kind} resource"
        return [invalid(where, resource, detail)]
    return []


def _resource_field_ref(selector: Any, path: str) -> list[FieldError]:
    """Upstream's `validateContainerResourceFieldSelector` for an env var (no container name needed)."""
    resource = text(selector, "resource")
    errors: list[FieldError] = []
    if not resource:
        errors.append(required(f"{path}.resource"))
    elif resource not in RESOURCE_FIELD_PATHS and not resource.startswith(_HUGEPAGES_PREFIXES):
        errors.append(not_supported(f"{path}.resource", resource, RESOURCE_FIELD_PATHS))
    return errors + _divisor(resource, lookup(selector, "divisor"), path)


def _key_selector(selector: Any, path: str) -> list[FieldError]:
    """Upstream's `validateConfigMapKeySelector` and `validateSecretKeySelector` (the same rules)."""
    name, key = text(selector, "name"), text(selector, "key")
    errors = [invalid(f"{path}.name", name, message) for message in name_is_dns_subdomain(name, False)]
    if not key:
        return [*errors, required(f"{path}.key")]
    return errors + [invalid(f"{path}.key", key, message) for message in is_config_map_key(key)]


_SOURCE_CHECKS: Final = {
    "fieldRef": _field_ref,
    "resourceFieldRef": _resource_field_ref,
    "configMapKeyRef": _key_selector,
    "secretKeyRef": _key_selector,
}


def value_from_errors(variable: Any, base: str) -> list[FieldError]:
    """One env var's `valueFrom`: each source checked, then exactly one source and no `value` beside it."""
    source = lookup(variable, "valueFrom")
    if type(source) is not dict:
        return []
    path = f"{base}.valueFrom"
    present = [key for key in _VALUE_SOURCES if source.get(key) is not None]
    errors: list[FieldError] = []
    for key in present:
        errors += _SOURCE_CHECKS[key](source[key], f"{path}.{key}")
    if not present:
        detail = "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"
        errors.append(invalid(path, "", detail))
    elif text(variable, "value"):
        errors.append(invalid(path, "", "may not be specified when `value` is not empty"))
    elif len(present) > 1:
        errors.append(invalid(path, "", "may not have more than one field specified at a time"))
    return errors


def _env_source_name(reference: Any, path: str) -> list[FieldError]:
    """A ConfigMap or Secret named by `envFrom`: required, and a valid name (prefix form)."""
    name = text(reference, "name")
    if not name:
        return [required(f"{path}.name")]
    return [invalid(f"{path}.name", name, message) for message in name_is_dns_subdomain(name, True)]


def env_from_errors(container: Any, base: str) -> list[FieldError]:
    """Upstream's `ValidateEnvFrom`; its one-source errors name the list, not the item, as upstream's do."""
    sources = items(lookup(container, "envFrom"))
    if not sources:
        return []
    path = f"{base}.envFrom" if base else "envFrom"
    errors: list[FieldError] = []
    for index, source in enumerate(sources):
        where = f"{path}[{index}]"
        prefix = text(source, "prefix")
        if prefix:
            errors += [invalid(f"{where}.prefix", prefix, message) for message in is_relaxed_env_var_name(prefix)]
        present = [key for key in ("configMapRef", "secretRef") if lookup(source, key) is not None]
        for key in present:
            errors += _env_source_name(source[key], f"{where}.{key}")
        if not present:
            errors.append(invalid(path, "", "must specify one of: `configMapRef` or `secretRef`"))
        elif len(present) > 1:
            errors.append(invalid(path, "", "may not have more than one field specified at a time"))
    return errors

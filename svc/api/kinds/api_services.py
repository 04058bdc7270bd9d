"""APIServices (apiregistration): the name is `<version>.<group>` (the core one is `v1.`), so it is
checked as a path segment and against the spec, with upstream's other rules on priorities and TLS."""

from __future__ import annotations

import dataclasses
from typing import Any

from svc.api.strategy import Strategy
from svc.machinery.field_errors import FieldError, invalid, required
from svc.machinery.validation import is_dns1035_label, is_dns1123_subdomain, name_is_path_segment

Obj = dict[str, Any]


def validate(obj: Obj) -> list[FieldError]:
    spec = obj.get("spec") or {}
    group, version = spec.get("group") or "", spec.get("version") or ""
    name = (obj.get("metadata") or {}).get("name") or ""
    errors: list[FieldError] = []
    wanted = f"{version}.{group}"
    if name and name != wanted:
        errors.append(invalid("metadata.name", name, f'must be `spec.version+"."+spec.group`: "{wanted}"'))
    if not group and version != "v1":
        errors.append(required("spec.group", "only v1 may have an empty group and it better be legacy kube"))
    if group:
        errors += [invalid("spec.group", group, message) for message in is_dns1123_subdomain(group)]
    errors += [invalid("spec.version", version, message) for message in is_dns1035_label(version)]
    group_priority = spec.get("groupPriorityMinimum") or 0
    if not 0 < group_priority <= 20000:
        errors.append(invalid("spec.groupPriorityMinimum", group_priority, "must be positive and less than 20000"))
    version_priority = spec.get("versionPriority") or 0
    if not 0 < version_priority <= 1000:
        errors.append(invalid("spec.versionPriority", version_priority, "must be positive and less than 1000"))
    ca_bundle, insecure = spec.get("caBundle") or "", bool(spec.get("insecureSkipTLSVerify"))
    service = spec.get("service")
    if not service:
        if ca_bundle:
            size = f"{len(ca_bundle) * 3 // 4} bytes"
            errors.append(invalid("spec.caBundle", size, "local APIServices may not have a caBundle"))
        if insecure:
            errors.append(
                invalid("spec.insecureSkipTLSVerify", True, "local APIServices may not have insecureSkipTLSVerify")
            )
        return errors
    if not service.get("namespace"):
        errors.append(required("spec.service.namespace"))
    if not service.get("name"):
        errors.append(required("spec.service.name"))
    port = service.get("port")
    if port is not None and not 0 < port < 65536:
        errors.append(invalid("spec.service.port", port, "port is not valid: must be between 1 and 65535, inclusive"))
    if insecure and ca_bundle:
        errors.append(invalid("spec.insecureSkipTLSVerify", True, "may not be true if caBundle is present"))
    return errors


def strategy(base: Strategy) -> Strategy:
    return dataclasses.replace(
        base, name_validator=name_is_path_segment, validate=validate, validate_update=lambda new, old: validate(new)
    )

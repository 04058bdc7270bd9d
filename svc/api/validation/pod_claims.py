"""A pod's resource claims (`spec.resourceClaims`) and the containers' references to them
(`resources.claims`), as upstream's `validatePodResourceClaims` and `validateResourceClaimNames`."""

from __future__ import annotations

import dataclasses
from typing import Any, Final

from svc.api.validation.engine import go_struct, items, join, lookup, text
from svc.machinery.field_errors import FieldError, duplicate, invalid, not_found, required
from svc.machinery.validation import is_dns1123_label, is_dns1123_subdomain

_CLAIM_MEMBERS: Final = ("name", "resourceClaimName", "resourceClaimTemplateName")
_CONTAINER_KINDS: Final = ("containers", "initContainers", "ephemeralContainers")


def _pod_claim(claim: Any, path: str, names: set[str]) -> list[FieldError]:
    name = text(claim, "name")
    errors: list[FieldError] = []
    if not name:
        errors.append(required(f"{path}.name"))
    elif name in names:
        errors.append(duplicate(f"{path}.name", name))
    else:
        errors += [invalid(f"{path}.name", name, message) for message in is_dns1123_label(name)]
        names.add(name)
    claim_name, template_name = lookup(claim, "resourceClaimName"), lookup(claim, "resourceClaimTemplateName")
    shown = go_struct(claim, _CLAIM_MEMBERS, zero={"name": ""})
    if claim_name is not None and template_name is not None:
        detail = "at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified"
        errors.append(invalid(path, shown, detail))
    if claim_name is None and template_name is None:
        errors.append(invalid(path, shown, "must specify one of: `resourceClaimName`, `resourceClaimTemplateName`"))
    for key, value in (("resourceClaimName", claim_name), ("resourceClaimTemplateName", template_name)):
        if isinstance(value, str):
            errors += [invalid(f"{path}.{key}", value, message) for message in is_dns1123_subdomain(value)]
    return errors


def _claim_references(claims: list[Any], path: str, names: set[str]) -> list[FieldError]:
    errors: list[FieldError] = []
    seen: set[str] = set()
    for index, claim in enumerate(claims):
        name, request = text(claim, "name"), text(claim, "request")
        where = f"{path}[{index}]"
        if not name:
            errors.append(required(where))
            continue
        key = f"{name}/{request}" if request else name
        if key in seen:
            errors.append(duplicate(where, name))
        seen.add(key)
        if name not in names:
            listed = ": " + ", ".join(sorted(names)) if names else " which is empty"
            detail = f"must be one of the names in pod.spec.resourceClaims{listed}"
            errors.append(dataclasses.replace(not_found(where, name), detail=detail))
    return errors


def pod_claim_errors(spec: Any, base: str) -> list[FieldError]:
    """The pod's claims, then every container's references to them."""
    names: set[str] = set()
    errors: list[FieldError] = []
    for index, claim in enumerate(items(lookup(spec, "resourceClaims"))):
        errors += _pod_claim(claim, f"{join(base, 'resourceClaims')}[{index}]", names)
    for kind in _CONTAINER_KINDS:
        for index, container in enumerate(items(lookup(spec, kind))):
            claims = items(lookup(container, "resources.claims"))
            errors += _claim_references(claims, f"{join(base, kind)}[{index}].resources.claims", names)
    return errors

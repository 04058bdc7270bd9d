"""The `request` variable of policy expressions: upstream's AdmissionRequest as a CEL value.

Every field is present (empty strings, empty lists) as on upstream's typed request, so an
expression reads `request.subResource` or `request.userInfo.groups` without `has()`.
"""

from __future__ import annotations

from typing import Any

from svc.registry.admission import Attributes


def request_kind(attributes: Attributes) -> dict[str, str]:
    """The group/version/kind of the object the request carries (a subresource's own kind)."""
    resource = attributes.resource
    sub = resource.subresources.get(attributes.subresource) if attributes.subresource else None
    if sub is not None and sub.kind:
        return {"group": sub.group, "version": sub.version, "kind": sub.kind}
    return {"group": resource.group, "version": resource.version, "kind": resource.kind}


def admission_request(attributes: Attributes) -> dict[str, Any]:
    resource = attributes.resource
    kind = request_kind(attributes)
    gvr = {"group": resource.group, "version": resource.version, "resource": resource.name}
    user = attributes.user
    return {
        "uid": "",
        "kind": kind,
        "resource": gvr,
        "subResource": attributes.subresource,
        "requestKind": kind,
        "requestResource": gvr,
        "requestSubResource": attributes.subresource,
        "name": attributes.name,
        "namespace": attributes.namespace,
        "operation": attributes.operation.value,
        "userInfo": {
            "username": user.name,
            "uid": user.uid,
            "groups": list(user.groups),
            "extra": {key: list(values) for key, values in user.extra.items()},
        },
        "dryRun": attributes.dry_run,
    }

"""AdmissionReview: the request upstream sends a webhook, and the checks it applies to the answer.

The request is filled as upstream's `CreateAdmissionObjects` fills it: `kind`/`resource`/`subResource`
name what the matched rule asked for (an equivalent version when matchPolicy Equivalent matched
another version), `requestKind`/`requestResource`/`requestSubResource` what the client asked for;
`object` and `oldObject` are always present (null when the operation has none); `dryRun` always.
Version v1 answers must echo the request's uid and kind; v1beta1 answers are not checked for either,
as upstream does not.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from svc.apiserver.admission.matching import Matched, is_namespace_request, kind_at
from svc.machinery import status
from svc.registry.admission import Attributes, Operation
from svc.registry.options import DeleteOptions, WriteOptions

UPSTREAM_GROUP = "admission.k8s.io"
"""AdmissionReview's group upstream; a brand profile names it (`Profile.group`)."""
SUPPORTED_VERSIONS = ("v1", "v1beta1")


class InvalidResponse(Exception):
    """An answer that breaks the protocol; `str()` is upstream's reason."""


def review_version(accepted: Sequence[str]) -> str | None:
    """The first of the webhook's admissionReviewVersions this server speaks."""
    return next((version for version in accepted if version in SUPPORTED_VERSIONS), None)


def _user_info(attributes: Attributes) -> dict[str, Any]:
    user = attributes.user
    info: dict[str, Any] = {"username": user.name}
    if user.uid:
        info["uid"] = user.uid
    if user.groups:
        info["groups"] = list(user.groups)
    if user.extra:
        info["extra"] = {key: list(values) for key, values in user.extra.items()}
    return info


def request_fields(attributes: Attributes, matched: Matched, meta_group: str) -> dict[str, Any]:
    """The request without uid and objects: what match conditions see as `request` too."""
    request_group, request_version, request_kind = kind_at(attributes.resource, attributes.subresource)
    fields: dict[str, Any] = {
        "kind": {"group": matched.group, "version": matched.version, "kind": matched.kind},
        "resource": {
            "group": matched.resource.group,
            "version": matched.resource.version,
            "resource": matched.resource.name,
        },
    }
    if matched.subresource:
        fields["subResource"] = matched.subresource
    fields["requestKind"] = {"group": request_group, "version": request_version, "kind": request_kind}
    fields["requestResource"] = {
        "group": attributes.resource.group,
        "version": attributes.resource.version,
        "resource": attributes.resource.name,
    }
    if attributes.subresource:
        fields["requestSubResource"] = attributes.subresource
    if attributes.name:
        fields["name"] = attributes.name
    # upstream's request info names a Namespace's own requests by it (`/api/v1/namespaces/<name>`)
    namespace = attributes.name if is_namespace_request(attributes) else attributes.namespace
    if namespace:
        fields["namespace"] = namespace
    fields["operation"] = attributes.operation.value
    fields["userInfo"] = _user_info(attributes)
    fields["dryRun"] = attributes.dry_run
    options = options_object(attributes, meta_group)
    if options is not None:
        fields["options"] = options
    return fields


_OPTIONS_KIND = {
    Operation.CREATE: "CreateOptions",
    Operation.UPDATE: "UpdateOptions",
    Operation.DELETE: "DeleteOptions",
}


def options_object(attributes: Attributes, meta_group: str) -> dict[str, Any] | None:
    """The request's options as upstream sends them (a patch arrives as the create or update it
    became): from the store's WriteOptions or DeleteOptions."""
    kind = _OPTIONS_KIND.get(attributes.operation)
    if kind is None:
        return None
    options: dict[str, Any] = {"kind": kind, "apiVersion": f"{meta_group}/v1"}
    given = attributes.options
    if isinstance(given, DeleteOptions):
        if given.grace_period_seconds is not None:
            options["gracePeriodSeconds"] = given.grace_period_seconds
        wanted = given.preconditions
        pairs = (("uid", wanted.uid), ("resourceVersion", wanted.resource_version))
        preconditions = {key: value for key, value in pairs if value is not None}
        if preconditions:
            options["preconditions"] = preconditions
        if given.orphan_dependents is not None:
            options["orphanDependents"] = given.orphan_dependents
        if given.propagation_policy is not None:
            options["propagationPolicy"] = given.propagation_policy
    if attributes.dry_run:
        options["dryRun"] = ["All"]
    if isinstance(given, WriteOptions):
        if given.field_manager:
            options["fieldManager"] = given.field_manager
        if given.field_validation:
            options["fieldValidation"] = given.field_validation
    return options


def review(group: str, version: str, uid: str, fields: Mapping[str, Any], obj: Any, old_object: Any) -> dict[str, Any]:
    request = {"uid": uid, **fields, "object": obj, "oldObject": old_object}
    # upstream's field order: objects before dryRun and options
    for key in ("dryRun", "options"):
        if key in request:
            request[key] = request.pop(key)
    return {"kind": "AdmissionReview", "apiVersion": f"{group}/{version}", "request": request}


@dataclass(frozen=True)
class Answer:
    allowed: bool
    result: Mapping[str, Any] | None = None
    patch: bytes = b""
    patch_type: str = ""
    warnings: tuple[str, ...] = ()
    audit_annotations: Mapping[str, str] = field(default_factory=dict)


def _bytes(value: Any, what: str) -> bytes:
    if value is None:
        return b""
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError, TypeError):
        raise InvalidResponse(f"illegal base64 data in {what}") from None


def read_answer(body: Any, *, group: str, uid: str, version: str, mutating: bool) -> Answer:
    """The webhook's answer, or InvalidResponse with upstream's wording."""
    if not isinstance(body, Mapping):
        raise InvalidResponse("webhook response was absent")
    response = body.get("response")
    if not isinstance(response, Mapping):
        raise InvalidResponse("webhook response was absent")
    if version == "v1":
        if response.get("uid") != uid:
            raise InvalidResponse(f'expected response.uid="{uid}", got "{response.get("uid") or ""}"')
        got = f"{body.get('apiVersion') or ''}, Kind={body.get('kind') or ''}"
        if got != f"{group}/v1, Kind=AdmissionReview":
            raise InvalidResponse(f"expected webhook response of {group}/v1, Kind=AdmissionReview, got {got}")
    patch = _bytes(response.get("patch"), "response.patch")
    patch_type = response.get("patchType")
    if mutating and version == "v1":
        if patch and patch_type is None:
            raise InvalidResponse("webhook returned response.patch but not response.patchType")
        if not patch and patch_type is not None:
            raise InvalidResponse("webhook returned response.patchType but not response.patch")
        if patch_type is not None and not patch_type:
            raise InvalidResponse(f'webhook returned invalid response.patchType of "{patch_type}"')
    elif not mutating:
        if patch:
            raise InvalidResponse("validating webhook may not return response.patch")
        if patch_type is not None:
            raise InvalidResponse("validating webhook may not return response.patchType")
    result = response.get("status")
    warnings = response.get("warnings") or ()
    annotations = response.get("auditAnnotations") or {}
    return Answer(
        allowed=response.get("allowed") is True,
        result=result if isinstance(result, Mapping) else None,
        patch=patch,
        patch_type=str(patch_type or ""),
        warnings=tuple(str(w) for w in warnings) if isinstance(warnings, list) else (),
        audit_annotations={str(k): str(v) for k, v in annotations.items()} if isinstance(annotations, Mapping) else {},
    )


def denial(webhook: str, result: Mapping[str, Any] | None) -> status.StatusError:
    """The webhook's own Status, made a failure with at least code 403 and a message naming it
    (upstream's `ToStatusErr`)."""
    result = dict(result or {})
    code = result.get("code") if isinstance(result.get("code"), int) else 0
    denied = f'admission webhook "{webhook}" denied the request'
    if result.get("message"):
        message = f"{denied}: {result['message']}"
    elif result.get("reason"):
        message = f"{denied}: {result['reason']}"
    else:
        message = f"{denied} without explanation"
    details = result.get("details") if isinstance(result.get("details"), dict) else None
    return status.StatusError(code if code >= 400 else 403, str(result.get("reason") or ""), message, details)

"""PATCH of one object: JSON patch, merge patch, strategic merge patch, or server-side apply.

The patch becomes a transform of the current object that the store's guaranteed-update loop runs
again after every lost compare-and-swap, so a patch always applies to what is stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonpatch
from aiohttp import web

from svc.api.schemas import schema_for
from svc.apiserver.handlers.managed_fields import SCALE_DEFINITION, apply_configuration, track, track_scale
from svc.apiserver.handlers.scale_writes import write_scale
from svc.apiserver.handlers.scope import Scope
from svc.machinery import status
from svc.machinery.field_errors import aggregate_message, invalid
from svc.machinery.field_validation import check_fields
from svc.machinery.patch.errors import PatchError
from svc.machinery.patch.merge import apply_merge_patch
from svc.machinery.patch.strategic import apply_strategic_merge_patch
from svc.wire.cbor_format import APPLY_PATCH_MEDIA_TYPE, CBOR
from svc.wire.formats import YAML, DecodeError
from svc.wire.strict import decode_json_strict

Obj = dict[str, Any]

JSON_PATCH = "application/json-patch+json"
MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_MERGE_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"
PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, APPLY_PATCH, STRATEGIC_MERGE_PATCH)
APPLY_CBOR_PATCH = APPLY_PATCH_MEDIA_TYPE
_MAX_JSON_PATCH_OPERATIONS = 10000


def _rejected(why: str) -> status.StatusError:
    """Upstream's answer to a patch that cannot be applied: 422 with its generic message."""
    return status.StatusError(
        422,
        "Invalid",
        "the server rejected our request due to an error in our request",
        {"causes": [{"message": why}]},
    )


def _patch_failure(error: PatchError) -> status.StatusError:
    """Upstream's answer to a strategic merge patch that cannot apply: 400 for a malformed patch, its
    generic 422 for lists of lists, 500 for everything else."""
    if error.code == 400:
        return status.bad_request(str(error))
    if error.code == 422:
        return _rejected(str(error))
    return status.internal_error(str(error))


def _patch_type(scope: Scope) -> str:
    supported = (*PATCH_TYPES, APPLY_CBOR_PATCH) if scope.server.cbor_enabled else PATCH_TYPES
    if scope.custom_prune() is not None:
        # Custom resources have no Go struct to carry patch strategies: upstream does not offer it.
        supported = tuple(kind for kind in supported if kind != STRATEGIC_MERGE_PATCH)
    content_type = scope.ctx.request.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if content_type not in supported:
        raise status.unsupported_media_type(supported)
    return content_type


def _decode(body: bytes) -> tuple[Any, list[str]]:
    try:
        return decode_json_strict(body)
    except DecodeError as error:
        raise status.bad_request(f"error decoding patch: {error}") from None


@dataclass(frozen=True)
class _Patch:
    """A patch as a transform of the current object, with what field validation needs of it."""

    transform: Callable[[Obj], Obj]
    duplicates: list[str]
    sorted_result: bool


def _transform_for(scope: Scope, patch_type: str, body: bytes) -> _Patch:
    if patch_type == JSON_PATCH:
        operations, duplicates = _decode(body)
        try:
            patch = jsonpatch.JsonPatch(operations)
            if not isinstance(operations, list):
                raise jsonpatch.InvalidJsonPatch("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
        except (jsonpatch.InvalidJsonPatch, TypeError) as error:
            raise status.bad_request(str(error)) from None
        except jsonpatch.JsonPointerException as error:
            # A path that is no JSON pointer: the Python library refuses it here, upstream's when it
            # applies the operation, with the 422 of any operation that does not apply.
            raise _rejected(str(error)) from None
        if len(operations) > _MAX_JSON_PATCH_OPERATIONS:
            raise status.request_entity_too_large(
                f"The allowed maximum operations in a JSON patch is {_MAX_JSON_PATCH_OPERATIONS}, got {len(operations)}"
            )

        def json_patch(current: Obj) -> Obj:
            try:
                return patch.apply(current)
            except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError) as error:
                raise _rejected(str(error)) from None

        return _Patch(json_patch, [f"json patch {message}" for message in duplicates], False)
    patch_doc, duplicates = _decode(body)
    if not isinstance(patch_doc, dict):
        raise status.bad_request("error decoding patch: the patch must be a JSON object")
    if patch_type == MERGE_PATCH:
        return _Patch(lambda current: apply_merge_patch(current, patch_doc), duplicates, True)
    schema = schema_for(scope.resource.definition)

    def strategic(current: Obj) -> Obj:
        try:
            return apply_strategic_merge_patch(current, patch_doc, schema)
        except PatchError as error:
            raise _patch_failure(error) from None

    return _Patch(strategic, duplicates, True)


def _validate_patched(scope: Scope, patch: _Patch, patched: Obj, level: str, definition: str) -> None:
    """Upstream decodes the patched object strictly: type errors and unknown fields are reported against
    `patch`, with the patched document as the invalid value (422)."""

    def reject(cause: str) -> status.StatusError:
        error = invalid("patch", json.dumps(patched, separators=(",", ":")), cause)
        return status.invalid("", "", [error], aggregate_message([error]))

    custom = definition == scope.resource.definition and scope.custom_prune() is not None
    schema = None if custom else schema_for(definition)
    check = check_fields(patched, schema, duplicates=patch.duplicates, sort_keys=patch.sorted_result)
    if check.fatal:
        raise reject(check.fatal)
    scope.report_field_problems(check.problems + (scope.pruned(patched) if custom else []), level, reject)
    check.retype()


def _check_result(scope: Scope, patched: Any, expected_kind: str, expected_api_version: str) -> Obj:
    if not isinstance(patched, dict) or not isinstance(patched.get("metadata", {}), dict):
        raise _rejected("the patched document is not an object")
    if (
        patched.get("kind", expected_kind) != expected_kind
        or patched.get("apiVersion", expected_api_version) != expected_api_version
    ):
        raise status.bad_request(
            f"the API version in the data ({patched.get('apiVersion')}) does not match the expected API version "
            f"({expected_api_version})"
        )
    name = patched.get("metadata", {}).get("name", scope.name)
    if name != scope.name:
        raise status.bad_request(f"the name of the object ({name}) does not match the name on the URL ({scope.name})")
    return patched


def _force(scope: Scope, patch_type: str) -> bool:
    if "force" not in scope.query:
        return False
    if patch_type not in (APPLY_PATCH, APPLY_CBOR_PATCH):
        raise _invalid_options("force", "Forbidden: may not be specified for non-apply patch")
    return scope.query["force"].lower() in ("true", "1", "t")


def _invalid_options(field: str, why: str) -> status.StatusError:
    return status.StatusError(
        422,
        "Invalid",
        f'PatchOptions.meta.k8s.io "" is invalid: {field}: {why}',
        {
            "group": "meta.k8s.io",
            "kind": "PatchOptions",
            "causes": [{"reason": "FieldValueInvalid", "message": why, "field": field}],
        },
    )


def _scale_version(scope: Scope) -> str:
    sub = scope.resource.subresources["scale"]
    return f"{sub.group}/{sub.version}"


def _apply_transform(scope: Scope, patch_type: str, body: bytes, force: bool) -> Callable[[Obj | None], Obj]:
    """The apply as a transform of the current object, or of the current Scale for `/scale`."""
    manager = scope.query.get("fieldManager", "")
    if not manager:
        raise _invalid_options("fieldManager", "Required value: is required for apply patch")
    try:
        config = (CBOR if patch_type == APPLY_CBOR_PATCH else YAML).decode(body)
    except DecodeError as error:
        raise status.bad_request(f"error decoding patch: {error}") from None
    if not isinstance(config, dict):
        raise status.bad_request("error decoding patch: the apply configuration must be an object")
    resource = scope.resource
    if scope.subresource == "scale":
        kind, api_version, definition = "Scale", _scale_version(scope), SCALE_DEFINITION
    else:
        kind, api_version, definition = resource.kind, resource.api_version, resource.definition
    if config.get("kind") != kind or config.get("apiVersion") != api_version:
        raise status.bad_request(f"invalid object type: {config.get('apiVersion', '')}, Kind={config.get('kind', '')}")
    typed = definition != resource.definition or scope.custom_prune() is None

    def apply_config(current: Obj | None) -> Obj:
        applied = apply_configuration(scope, current, config, manager=manager, force=force, definition=definition)
        result = _check_result(scope, applied, kind, api_version)
        # Upstream converts the merged result into the kind's struct: a null is left unset (or its
        # type's zero value in a list or map), as for any other write.
        if typed:
            check_fields(result, schema_for(definition)).retype()
        return result

    return apply_config


async def patch(scope: Scope) -> web.StreamResponse:
    negotiated = scope.negotiate()
    patch_type = _patch_type(scope)
    force = _force(scope, patch_type)
    body = await scope.read_body()
    options = scope.write_options()
    admission, user = scope.server.admission, scope.ctx.user
    if patch_type in (APPLY_PATCH, APPLY_CBOR_PATCH):
        applied = _apply_transform(scope, patch_type, body, force)
        if scope.subresource == "scale":
            return await write_scale(scope, applied, negotiated)

        async def apply_update(current: Obj | None) -> Obj:
            return applied(current)

        stored, created = await scope.store.update(
            scope.namespace,
            scope.name,
            apply_update,
            admission=admission,
            user=user,
            options=options,
            allow_create=not scope.subresource,
        )
        return scope.respond(201 if created else 200, stored, negotiated)
    level = scope.field_validation()
    patch_ = _transform_for(scope, patch_type, body)

    if scope.subresource == "scale":

        def rescaled(current: Obj) -> Obj:
            patched = _check_result(scope, patch_.transform(current), "Scale", _scale_version(scope))
            _validate_patched(scope, patch_, patched, level, SCALE_DEFINITION)
            return track_scale(scope, current, patched)

        return await write_scale(scope, rescaled, negotiated)

    async def updated(current: Obj | None) -> Obj:
        if current is None:
            raise status.not_found(scope.resource.group_resource, scope.name)
        patched = _check_result(scope, patch_.transform(current), scope.resource.kind, scope.resource.api_version)
        _validate_patched(scope, patch_, patched, level, scope.resource.definition)
        return track(scope, current, patched)

    stored, _ = await scope.store.update(
        scope.namespace,
        scope.name,
        updated,
        admission=admission,
        user=user,
        options=options,
        allow_create=False,
    )
    return scope.respond(200, stored, negotiated)

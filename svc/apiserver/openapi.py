"""OpenAPI documents (`/openapi/v2`, `/openapi/v3` and one v3 document per group version).

Built from the same two sources as everything else: the schemas of `kubernetes-validate` (JSON
Schema with upstream's `x-kubernetes-*` extensions, rewritten into OpenAPI form) and the served
resource table (paths and operations). kubectl reads them for `explain`, for client-side apply's
patch strategies, and to learn that the server validates fields itself (`fieldValidation`).
Documents are built on first request and kept as bytes.
"""

from __future__ import annotations

import functools
import hashlib
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

import orjson
from aiohttp import web

from svc.api.brand import Profile
from svc.api.resources import Resource, ResourceSet
from svc.api.schemas import definitions
from svc.apiserver import openapi_protobuf
from svc.apiserver.conditional import not_modified
from svc.apiserver.responses import respond
from svc.machinery import status
from svc.version import GIT_VERSION
from svc.wire.negotiation import parse_accept

_V3_REF = "#/components/schemas/"
_V2_REF = "#/definitions/"
_SOURCE_REF = "#/$defs/"
_INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"

_LIST_PARAMS = (
    ("allowWatchBookmarks", "boolean"),
    ("continue", "string"),
    ("fieldSelector", "string"),
    ("labelSelector", "string"),
    ("limit", "integer"),
    ("resourceVersion", "string"),
    ("resourceVersionMatch", "string"),
    ("sendInitialEvents", "boolean"),
    ("timeoutSeconds", "integer"),
    ("watch", "boolean"),
)
_WRITE_PARAMS = (("dryRun", "string"), ("fieldManager", "string"), ("fieldValidation", "string"))
_PATCH_TYPES = (
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
)


def _convert(node: Any, ref_prefix: str, profile: Profile, wrap_refs: bool) -> Any:
    """JSON Schema as kubernetes-validate writes it, in OpenAPI form."""
    if isinstance(node, list):
        return [_convert(item, ref_prefix, profile, wrap_refs) for item in node]
    if not isinstance(node, dict):
        return node
    result: dict[str, Any] = {}
    for key, value in node.items():
        if key == "$ref" and isinstance(value, str):
            continue
        if key == "type" and isinstance(value, list):
            types = [t for t in value if t != "null"]
            if len(types) == 1:
                result["type"] = types[0]
            continue
        if key == "enum" and isinstance(value, list) and len(value) == 1:
            continue
        if key == "x-kubernetes-group-version-kind":
            result[key] = [{**gvk, "group": profile.group(gvk["group"])} for gvk in value]
            continue
        if key == "properties":
            result[key] = {name: _convert(prop, ref_prefix, profile, wrap_refs) for name, prop in value.items()}
            continue
        result[key] = _convert(value, ref_prefix, profile, wrap_refs)
    ref = node.get("$ref")
    if isinstance(ref, str):
        target = {"$ref": ref_prefix + ref.removeprefix(_SOURCE_REF)}
        if wrap_refs and result:
            result["allOf"] = [target]
        else:
            result = target if not result else {**target, **result}
    return result


def _referenced(names: list[str]) -> list[str]:
    """The transitive closure of definitions reachable from `names`."""
    found: dict[str, None] = {}
    pending = list(names)
    every = definitions()
    while pending:
        name = pending.pop()
        if name in found or name not in every:
            continue
        found[name] = None
        pending.extend(_refs(every[name]))
    return sorted(found)


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        refs = [ref.removeprefix(_SOURCE_REF)] if isinstance(ref, str) else []
        for value in node.values():
            refs.extend(_refs(value))
        return refs
    if isinstance(node, list):
        return [ref for item in node for ref in _refs(item)]
    return []


def _schema(name: str, ref_prefix: str, profile: Profile, wrap_refs: bool) -> dict[str, Any]:
    raw = definitions()[name]
    if name == _INT_OR_STRING:
        return {"description": raw.get("description", ""), "format": "int-or-string", "type": "string"}
    if name == _QUANTITY:
        return {"description": raw.get("description", ""), "type": "string"}
    return _convert(raw, ref_prefix, profile, wrap_refs)


def _operation_group(resource: Resource) -> str:
    group = resource.upstream_group.removesuffix(".k8s.io") or "core"
    return "".join(part[:1].upper() + part[1:] for part in group.replace("-", ".").split("."))


# The media types `/openapi/v2` is served in, in upstream's order of preference for wildcards: the
# (sub)type a client asks for, and the content type of the answer.
_V2_FORMATS = (
    ("json", "application/json"),
    (openapi_protobuf.DEPRECATED_MEDIA_TYPE.removeprefix("application/"), openapi_protobuf.MEDIA_TYPE),
    (openapi_protobuf.MEDIA_TYPE.removeprefix("application/"), openapi_protobuf.MEDIA_TYPE),
)


def _v2_content_type(accept: str) -> str | None:
    """The content type for the first acceptable range (JSON for wildcards), or None: a 406."""
    for media_range in parse_accept(accept or "*/*"):
        if media_range.type not in ("application", "*"):
            continue
        for subtype, content_type in _V2_FORMATS:
            if media_range.subtype in (subtype, "*"):
                return content_type
    return None


class OpenAPI:
    def __init__(self, resources: ResourceSet, profile: Profile) -> None:
        self.resources = resources
        self.profile = profile
        self.last_modified = datetime.now(UTC)
        """When the documents were built (they are fixed for the server's life): `Last-Modified`."""

    # -- paths -------------------------------------------------------------------------------
    def _gvk(self, resource: Resource, kind: str = "") -> dict[str, str]:
        return {"group": resource.group, "version": resource.version, "kind": kind or resource.kind}

    def _operation(
        self,
        resource: Resource,
        action: str,
        op_id: str,
        params: tuple[tuple[str, str], ...],
        *,
        v3: bool,
        body: str = "",
        response: str = "",
        body_types: tuple[str, ...] = ("application/json",),
    ) -> dict[str, Any]:
        ref_prefix = _V3_REF if v3 else _V2_REF
        parameters: list[dict[str, Any]] = []
        for name, kind in (*params, ("pretty", "string")):
            parameter: dict[str, Any] = {"name": name, "in": "query", "uniqueItems": True}
            if v3:
                parameter["schema"] = {"type": kind, "uniqueItems": True}
            else:
                parameter["type"] = kind
            parameters.append(parameter)
        operation: dict[str, Any] = {
            "operationId": op_id,
            "tags": [f"{_operation_group(resource)[:1].lower()}{_operation_group(resource)[1:]}_{resource.version}"],
            "parameters": parameters,
            "x-kubernetes-action": action,
            "x-kubernetes-group-version-kind": self._gvk(resource),
            "responses": {"200": {"description": "OK"}, "401": {"description": "Unauthorized"}},
        }
        if response:
            if v3:
                operation["responses"]["200"]["content"] = {
                    "application/json": {"schema": {"$ref": ref_prefix + response}}
                }
            else:
                operation["responses"]["200"]["schema"] = {"$ref": ref_prefix + response}
        if body:
            if v3:
                operation["requestBody"] = {
                    "content": {t: {"schema": {"$ref": ref_prefix + body}} for t in body_types},
                    "required": True,
                }
            else:
                operation["parameters"].append(
                    {"name": "body", "in": "body", "required": True, "schema": {"$ref": ref_prefix + body}}
                )
                if body_types != ("application/json",):
                    operation["consumes"] = list(body_types)
        return operation

    def _paths(self, resources: list[Resource], *, v3: bool) -> dict[str, Any]:
        paths: dict[str, Any] = {}
        delete_options = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
        status_def = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
        for resource in resources:
            base = f"/api/{resource.version}" if not resource.group else f"/apis/{resource.group}/{resource.version}"
            namespaced = "Namespaced" if resource.namespaced else ""
            scope = f"{base}/namespaces/{{namespace}}" if resource.namespaced else base
            group = _operation_group(resource) + resource.version.capitalize()
            kind = resource.kind
            definition = resource.definition
            list_definition = definition + "List" if definition else ""
            verbs = resource.verbs
            collection: dict[str, Any] = {}
            item: dict[str, Any] = {}
            write = (*_WRITE_PARAMS,)
            if "list" in verbs:
                collection["get"] = self._operation(
                    resource,
                    "list",
                    f"list{group}{namespaced}{kind}",
                    _LIST_PARAMS,
                    v3=v3,
                    response=list_definition,
                )
            if "create" in verbs:
                collection["post"] = self._operation(
                    resource,
                    "post",
                    f"create{group}{namespaced}{kind}",
                    write,
                    v3=v3,
                    body=definition,
                    response=definition,
                )
            if "deletecollection" in verbs:
                collection["delete"] = self._operation(
                    resource,
                    "deletecollection",
                    f"deletecollection{group}{namespaced}{kind}",
                    (
                        *_LIST_PARAMS,
                        ("dryRun", "string"),
                        ("gracePeriodSeconds", "integer"),
                        ("propagationPolicy", "string"),
                    ),
                    v3=v3,
                    body=delete_options,
                    response=status_def,
                )
            if "get" in verbs:
                item["get"] = self._operation(
                    resource, "get", f"read{group}{namespaced}{kind}", (), v3=v3, response=definition
                )
            if "update" in verbs:
                item["put"] = self._operation(
                    resource,
                    "put",
                    f"replace{group}{namespaced}{kind}",
                    write,
                    v3=v3,
                    body=definition,
                    response=definition,
                )
            if "patch" in verbs:
                item["patch"] = self._operation(
                    resource,
                    "patch",
                    f"patch{group}{namespaced}{kind}",
                    (*write, ("force", "boolean")),
                    v3=v3,
                    body="io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
                    response=definition,
                    body_types=_PATCH_TYPES,
                )
            if "delete" in verbs:
                item["delete"] = self._operation(
                    resource,
                    "delete",
                    f"delete{group}{namespaced}{kind}",
                    (
                        ("dryRun", "string"),
                        ("gracePeriodSeconds", "integer"),
                        ("propagationPolicy", "string"),
                    ),
                    v3=v3,
                    body=delete_options,
                    response=definition,
                )
            if collection:
                paths[f"{scope}/{resource.name}"] = collection
            if resource.namespaced and "list" in verbs:
                paths[f"{base}/{resource.name}"] = {
                    "get": self._operation(
                        resource,
                        "list",
                        f"list{group}{kind}ForAllNamespaces",
                        _LIST_PARAMS,
                        v3=v3,
                        response=list_definition,
                    )
                }
            if item:
                paths[f"{scope}/{resource.name}/{{name}}"] = item
            for name, sub in resource.subresources.items():
                if name not in ("status", "scale"):
                    continue
                sub_definition = definition if sub.kind == kind else "io.k8s.api.autoscaling.v1.Scale"
                suffix = name.capitalize()
                paths[f"{scope}/{resource.name}/{{name}}/{name}"] = {
                    "get": self._operation(
                        resource,
                        "get",
                        f"read{group}{namespaced}{kind}{suffix}",
                        (),
                        v3=v3,
                        response=sub_definition,
                    ),
                    "put": self._operation(
                        resource,
                        "put",
                        f"replace{group}{namespaced}{kind}{suffix}",
                        write,
                        v3=v3,
                        body=sub_definition,
                        response=sub_definition,
                    ),
                    "patch": self._operation(
                        resource,
                        "patch",
                        f"patch{group}{namespaced}{kind}{suffix}",
                        (*write, ("force", "boolean")),
                        v3=v3,
                        body="io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
                        response=sub_definition,
                        body_types=_PATCH_TYPES,
                    ),
                }
        return paths

    def _definitions_for(self, resources: list[Resource]) -> list[str]:
        roots = [r.definition for r in resources if r.definition]
        roots += [r.definition + "List" for r in resources if r.definition]
        roots += [
            "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions",
            "io.k8s.apimachinery.pkg.apis.meta.v1.Status",
            "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
        ]
        if any("scale" in r.subresources for r in resources):
            roots.append("io.k8s.api.autoscaling.v1.Scale")
        return _referenced(roots)

    # -- documents ---------------------------------------------------------------------------
    @functools.cache  # noqa: B019 - one document per served group version
    def v3_document(self, group: str, version: str) -> bytes | None:
        resources = self.resources.in_group_version(group, version)
        if not resources:
            return None
        schemas = {name: _schema(name, _V3_REF, self.profile, True) for name in self._definitions_for(resources)}
        return orjson.dumps(
            {
                "openapi": "3.0.0",
                "info": {"title": "Kubernetes", "version": GIT_VERSION},
                "paths": self._paths(resources, v3=True),
                "components": {"schemas": schemas},
            }
        )

    @functools.cached_property
    def v3_root(self) -> bytes:
        paths = {}
        for group in self.resources.groups:
            for version in group.versions:
                key = f"apis/{group.name}/{version}" if group.name else f"api/{version}"
                fingerprint = f"{GIT_VERSION}/{self.profile.name}/{key}".encode()
                digest = hashlib.sha512(fingerprint).hexdigest().upper()
                paths[key] = {"serverRelativeURL": f"/openapi/v3/{key}?hash={digest}"}
        return orjson.dumps({"paths": paths})

    @functools.cached_property
    def v2_document(self) -> bytes:
        resources = list(self.resources)
        return orjson.dumps(
            {
                "swagger": "2.0",
                "info": {"title": "Kubernetes", "version": GIT_VERSION},
                "paths": self._paths(resources, v3=False),
                "definitions": {
                    name: _schema(name, _V2_REF, self.profile, False) for name in self._definitions_for(resources)
                },
            }
        )

    @functools.cached_property
    def v2_protobuf(self) -> bytes:
        return openapi_protobuf.document(orjson.loads(self.v2_document))

    @functools.cached_property
    def v2_etag(self) -> str:
        """Upstream's tag for both encodings: the SHA-512 of the JSON document, in upper-case hex, quoted."""
        return '"' + hashlib.sha512(self.v2_document).hexdigest().upper() + '"'

    def serve_v2(self, ctx: Any, merged: tuple[bytes, str, bytes] | None = None) -> web.StreamResponse:
        """JSON or Protobuf by `Accept`, with upstream's caching headers and conditional answers
        (`If-None-Match`, else `If-Modified-Since`, give a 304); a bare 406 when neither is acceptable.
        `merged` is (document, ETag, Protobuf) of the document merged with extension servers' specs."""
        headers = ctx.request.headers
        content_type = _v2_content_type(headers.get("Accept", ""))
        if content_type is None:
            return web.Response(status=406, headers={"Vary": "Accept"})
        document, etag, protobuf = merged or (self.v2_document, self.v2_etag, b"")
        if not_modified(headers, etag, self.last_modified):
            return web.Response(status=304, headers={"ETag": etag, "Vary": "Accept"})
        body = document if content_type == "application/json" else (protobuf or self.v2_protobuf)
        response = respond(ctx, 200, body, content_type)
        response.headers["ETag"] = etag
        response.headers["Last-Modified"] = format_datetime(self.last_modified, usegmt=True)
        response.headers.add("Vary", "Accept")
        return response

    async def serve(self, ctx: Any, path: str, merge: Any = None) -> web.StreamResponse:
        """`merge` (the aggregator's `MergedOpenAPI`) adds the extension servers' documents."""
        if path == "/openapi/v2":
            return self.serve_v2(ctx, merge.v2(self.v2_document) if merge is not None else None)
        accept = ctx.request.headers.get("Accept", "")
        if accept and "json" not in accept and "*/*" not in accept:
            raise status.not_acceptable("only the following media types are accepted: application/json")
        if path == "/openapi/v3":
            root = merge.v3_root(self.v3_root) if merge is not None else self.v3_root
            return respond(ctx, 200, root, "application/json")
        parts = path.removeprefix("/openapi/v3/").split("/")
        body = None
        if parts[0] == "api" and len(parts) == 2:
            body = self.v3_document("", parts[1])
        elif parts[0] == "apis" and len(parts) == 3:
            body = self.v3_document(parts[1], parts[2])
        if body is None:
            raise status.not_found_path()
        response = respond(ctx, 200, body, "application/json")
        if "hash" in ctx.request.query:
            response.headers["Cache-Control"] = "public, immutable"
        return response

"""What every verb handler needs about its request: the resource, its store, names, and helpers
to read the body and shape the response the way the client negotiated."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from svc.api.resources import Resource
from svc.api.schemas import schema_for
from svc.apiserver.context import RequestContext
from svc.apiserver.request_body import read_limited
from svc.apiserver.responses import object_response
from svc.machinery import status
from svc.machinery.collector import collector_paused
from svc.machinery.field_validation import check_fields, decode_failure_message, strict_error_message, type_meta_error
from svc.machinery.gotext.values import type_name
from svc.registry.options import WriteOptions
from svc.registry.store import GenericStore
from svc.wire import views
from svc.wire.formats import DecodeError, Format
from svc.wire.negotiation import Negotiated, View, input_format, negotiate
from svc.wire.strict import STRICT_DECODERS

Obj = dict[str, Any]


@dataclass
class Scope:
    ctx: RequestContext
    resource: Resource
    store: GenericStore | None
    namespace: str
    name: str
    subresource: str

    @property
    def query(self) -> Any:
        return self.ctx.request.query

    @property
    def server(self) -> Any:
        return self.ctx.server

    # -- request -----------------------------------------------------------------------------
    def formats(self) -> tuple[Format, ...]:
        return self.server.formats_for(self.resource)

    def dry_run(self) -> bool:
        values = self.query.getall("dryRun", [])
        for value in values:
            if value not in ("All", ""):
                raise status.bad_request(f'dryRun: Unsupported value: "{value}": supported values: "All"')
        return bool(values) or "dryRun" in self.query

    def write_options(self) -> WriteOptions:
        return WriteOptions(
            dry_run=self.dry_run(),
            field_manager=self.query.get("fieldManager", ""),
            subresource=self.subresource,
            field_validation=self.query.get("fieldValidation", ""),
        )

    async def read_body(self) -> bytes:
        return await read_limited(self.ctx.request)

    def field_validation(self) -> str:
        """The `fieldValidation` level (default Warn); anything else is upstream's 422."""
        level = self.query.get("fieldValidation", "")
        if level not in ("", "Ignore", "Warn", "Strict"):
            why = f'Unsupported value: "{level}": supported values: "", "Ignore", "Strict", "Warn"'
            raise status.StatusError(
                422,
                "Invalid",
                f'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: {why}',
                {
                    "group": "meta.k8s.io",
                    "kind": "CreateOptions",
                    "causes": [{"reason": "FieldValueNotSupported", "message": why, "field": "fieldValidation"}],
                },
            )
        return level or "Warn"

    def report_field_problems(
        self, problems: list[str], level: str, reject: Callable[[str], status.StatusError]
    ) -> None:
        """Unknown and duplicate fields: warnings, a rejection, or nothing, per the validation level."""
        if not problems or level == "Ignore":
            return
        if level == "Strict":
            raise reject(strict_error_message(problems))
        for problem in problems:
            self.ctx.warn(problem)

    async def read_object(self, expected_kind: str = "", expected_api_version: str = "", definition: str = "") -> Obj:
        """The request body as an object of the expected kind, with upstream's decode checks, type checks and
        field validation (spec 1 §2.3, §2.9)."""
        kind = expected_kind or self.resource.kind
        api_version = expected_api_version or self.resource.api_version
        level = self.field_validation()
        fmt = input_format(self.ctx.request.headers.get("Content-Type", ""), self.formats())
        body = await self.read_body()
        try:
            obj, duplicates = (
                STRICT_DECODERS[fmt.media_type](body) if fmt.media_type in STRICT_DECODERS else (fmt.decode(body), [])
            )
        except DecodeError as error:
            cause = f"couldn't get version/kind; {error}"
            raise status.bad_request(decode_failure_message(cause, target_kind=kind, body=body)) from None
        problem = type_meta_error(obj)
        if problem is not None:
            raise status.bad_request(decode_failure_message(problem, target_kind=kind, body=body))
        if not isinstance(obj, dict):
            cause = "couldn't get version/kind; json parse error: the body is not an object"
            raise status.bad_request(decode_failure_message(cause, target_kind=kind, body=body))
        given_kind = obj.get("kind") or kind
        given_version = obj.get("apiVersion") or api_version
        version = given_version.rsplit("/", 1)[-1]
        if given_kind != kind:
            cause = f'the kind "{given_kind}" does not match the expected kind "{kind}"'
            raise status.bad_request(
                decode_failure_message(cause, target_kind=kind, data_kind=given_kind, data_version=version)
            )
        if given_version != api_version:
            raise status.bad_request(
                f"the API version in the data ({given_version}) does not match the expected API version ({api_version})"
            )
        custom = not definition and self.custom_prune() is not None
        schema = None if custom else schema_for(definition or self.resource.definition)
        check = check_fields(obj, schema, duplicates=duplicates)

        def reject(cause: str) -> status.StatusError:
            return status.bad_request(
                decode_failure_message(cause, target_kind=kind, data_kind=kind, data_version=version)
            )

        if check.fatal:
            raise reject(check.fatal)
        if custom and not isinstance(obj.get("metadata", {}), dict | None):
            # Upstream reads a custom resource's metadata field by field; one not an object at all stops it.
            raise reject(f"invalid metadata: expected object, got {type_name(obj['metadata'])}")
        self.report_field_problems(check.problems + (self.pruned(obj) if custom else []), level, reject)
        check.retype()
        obj["kind"], obj["apiVersion"] = kind, api_version
        if obj.get("metadata") is None:
            obj["metadata"] = {}
        return obj

    def custom_prune(self) -> Callable[[Obj], list[str]] | None:
        """A custom resource's pruning (its schema decides which fields are unknown), else None."""
        return self.store.strategy.prune if self.store is not None else None

    def pruned(self, obj: Obj) -> list[str]:
        """Drop the fields a custom resource's schema does not know; upstream's field validation
        reports each as an unknown field."""
        prune = self.custom_prune()
        return [f'unknown field "{path}"' for path in prune(obj)] if prune is not None else []

    # -- response ----------------------------------------------------------------------------
    def negotiate(self, *, allow_views: bool = True) -> Negotiated:
        request = self.ctx.request
        pretty_param = request.query.get("pretty")
        if pretty_param is not None:
            pretty = pretty_param.lower() in ("1", "true", "t")
        else:
            agent = request.headers.get("User-Agent", "")
            pretty = agent.startswith(("curl", "Wget", "Mozilla/5.0"))
        return negotiate(
            request.headers.get("Accept", ""),
            self.formats(),
            meta_group=self.server.profile.meta_group,
            allow_views=allow_views,
            pretty=pretty,
        )

    def render(self, obj: Obj, negotiated: Negotiated, *, is_list: bool) -> Obj:
        """Apply the negotiated view (Table, metadata-only) to an object or a list."""
        view = negotiated.view
        if view is View.FULL:
            return obj
        api_version = f"{negotiated.view_group}/{negotiated.view_version}"
        if view is View.PARTIAL:
            if is_list:
                raise status.not_acceptable(
                    "you requested PartialObjectMetadata, but the requested object is a list "
                    f"({self.resource.list_kind})"
                )
            return views.partial(obj, api_version)
        if view is View.PARTIAL_LIST:
            if not is_list:
                raise status.not_acceptable(
                    "you requested PartialObjectMetadataList, but the requested object is not a list "
                    f"({self.resource.kind})"
                )
            return views.partial_list(obj, api_version)
        include = views.check_include_object(self.query.get("includeObject", ""))
        columns = self.server.columns_for(self.resource)
        conditions = self.server.row_conditions_for(self.resource)
        if is_list:
            objects, metadata = obj["items"], obj["metadata"]
        else:
            objects, metadata = [obj], {"resourceVersion": (obj.get("metadata") or {}).get("resourceVersion", "")}
        return views.table(
            objects,
            columns,
            api_version=api_version,
            include_object=include,
            metadata=metadata,
            conditions=conditions,
        )

    def respond(self, code: int, obj: Obj, negotiated: Negotiated, *, is_list: bool = False) -> web.StreamResponse:
        if not is_list:
            return object_response(self.ctx, code, self.render(obj, negotiated, is_list=False), negotiated)
        # A list's items may be decoded while it is rendered and encoded: thousands of objects, which
        # (for a Table) stay alive until the end, so collections during the block would rescan them.
        with collector_paused():
            return object_response(self.ctx, code, self.render(obj, negotiated, is_list=True), negotiated)

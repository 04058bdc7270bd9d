"""GET of a collection: list (or watch, when asked), with selectors and paging."""

from __future__ import annotations

from aiohttp import web

from svc.apiserver.handlers.scope import Scope
from svc.machinery import status
from svc.machinery.fields import parse_field_selector
from svc.machinery.labels import SelectorError, parse_label_selector
from svc.machinery.shards import ShardSelectorError, parse_shard_selector
from svc.registry.list_items import ItemForm
from svc.registry.options import ListOptions

_MATCHES = ("", "Exact", "NotOlderThan")


def invalid_list_options(problems: list[str]) -> status.StatusError:
    joined = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
    return status.bad_request(f'ListOptions.meta.k8s.io "" is invalid: {joined}')


def _validate_for_list(options: ListOptions) -> None:
    """The Invalid cells of spec 4.6's list table (upstream's messages; answered 400)."""
    match, version = options.resource_version_match, options.resource_version
    problems = []
    if match:
        if not version:
            problems.append(
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
            )
        if options.continue_token:
            problems.append(
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"
            )
        if match == "Exact" and version == "0":
            problems.append(
                'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'
            )
    if problems:
        raise invalid_list_options(problems)
    if options.continue_token and version not in ("", "0"):
        raise status.bad_request("specifying resource version is not allowed when using continue")


def list_options(scope: Scope) -> ListOptions:
    query = scope.query
    try:
        label_selector = parse_label_selector(query.get("labelSelector", ""))
        field_selector = parse_field_selector(query.get("fieldSelector", ""))
    except SelectorError as error:
        raise status.bad_request(str(error)) from None
    supported = scope.store.strategy.field_label_names
    for requirement in field_selector.requirements:
        if requirement.field not in supported:
            raise status.bad_request(f"field label not supported: {requirement.field}")
    limit_text = query.get("limit", "")
    try:
        limit = int(limit_text) if limit_text else 0
    except ValueError:
        raise status.bad_request(f'limit: Invalid value: "{limit_text}": must be an integer') from None
    match = query.get("resourceVersionMatch", "")
    if match not in _MATCHES:
        raise invalid_list_options(
            [f'resourceVersionMatch: Unsupported value: "{match}": supported values: "Exact", "NotOlderThan", ""']
        )
    version = query.get("resourceVersion", "")
    if version and version != "0" and (not version.isdigit() or version.startswith("0")):
        raise status.bad_request(f'invalid resource version "{version}"')
    shard_selector = None
    if "shardSelector" in query and scope.server.options.feature_gates.enabled("ShardedListAndWatch"):
        try:
            shard_selector = parse_shard_selector(query["shardSelector"])
        except ShardSelectorError as error:
            raise status.bad_request(f"invalid shard selector: {error}") from None
    return ListOptions(
        shard_selector=shard_selector,
        label_selector=label_selector,
        field_selector=field_selector,
        limit=max(limit, 0),
        continue_token=query.get("continue", ""),
        resource_version=version,
        resource_version_match=match,
    )


async def list_(scope: Scope) -> web.StreamResponse:
    negotiated = scope.negotiate()
    options = list_options(scope)
    _validate_for_list(options)
    if negotiated.plain_json:
        form = ItemForm.JSON
    else:
        form = ItemForm.ONE_PASS if negotiated.one_pass_items else ItemForm.DECODED
    listed = await scope.store.list(scope.namespace, options, form=form)
    return scope.respond(200, listed, negotiated, is_list=True)

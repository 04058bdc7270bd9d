"""The innermost handler: route a request to a verb handler, discovery, OpenAPI, version or health.

Which verbs a resource (or subresource) accepts comes from the resource table and from what its
store implements, decided here once per request; a verb the resource does not serve is a 405, a
path that names nothing is a 404, both as upstream Status bodies.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import orjson
from aiohttp import web

from svc.apiserver import admin_endpoints, logs_handler, profiling
from svc.apiserver.authn import issuer_discovery
from svc.apiserver.context import RequestContext
from svc.apiserver.flowcontrol import debug as flowcontrol_debug
from svc.apiserver.handlers.action import act, action_for
from svc.apiserver.handlers.create import create
from svc.apiserver.handlers.delete import delete, delete_collection
from svc.apiserver.handlers.get import get
from svc.apiserver.handlers.list import list_
from svc.apiserver.handlers.patch import patch
from svc.apiserver.handlers.pod_exec import pod_stream
from svc.apiserver.handlers.pod_log import pod_log
from svc.apiserver.handlers.pod_portforward import pod_port_forward
from svc.apiserver.handlers.review import REVIEWS, review
from svc.apiserver.handlers.scope import Scope
from svc.apiserver.handlers.token_request import token_request
from svc.apiserver.handlers.update import update
from svc.apiserver.handlers.watch import watch
from svc.apiserver.metrics import CONTENT_TYPE
from svc.apiserver.proxy.handler import LOCATORS, serve_proxy
from svc.apiserver.responses import respond
from svc.machinery import status

VerbHandler = Callable[[Scope], Awaitable[web.StreamResponse]]

HANDLERS: dict[str, VerbHandler] = {
    "get": get,
    "list": list_,
    "watch": watch,
    "create": create,
    "update": update,
    "patch": patch,
    "delete": delete,
    "deletecollection": delete_collection,
}

_SUBRESOURCE_METHOD_VERBS = {"GET": "get", "HEAD": "get", "PUT": "update", "PATCH": "patch", "POST": "create"}


def _method_not_allowed() -> status.StatusError:
    return status.StatusError(
        405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {}
    )


async def endpoint(ctx: RequestContext) -> web.StreamResponse:
    info = ctx.info
    assert info is not None
    path = ctx.request.path
    if path.startswith(("/apis/", "/openapi/v3/apis/")):
        proxied = await ctx.server.aggregator.route(ctx, path)
        if proxied is not None:
            return proxied
    if info.is_resource_request:
        return await _resource(ctx)
    return await _non_resource(ctx)


async def _resource(ctx: RequestContext) -> web.StreamResponse:
    info = ctx.info
    assert info is not None
    server = ctx.server
    resource = server.resources.get(info.api_group, info.api_version, info.resource)
    if resource is None or (len(info.parts) > 3 and info.subresource != "proxy"):
        raise status.not_found_path()
    cluster_path_for_namespaced = resource.namespaced and not info.namespace
    if info.resource == "namespaces" and not info.api_group:
        namespace = ""
    elif not resource.namespaced and info.namespace:
        raise status.not_found_path()
    else:
        namespace = info.namespace
    verb = info.verb
    if info.subresource:
        sub = resource.subresources.get(info.subresource)
        if sub is None or info.subresource not in server.served_subresources:
            raise status.not_found_path()
        verb = _SUBRESOURCE_METHOD_VERBS.get(ctx.request.method, "")
        # connect subresources (exec, attach, proxy ...) list HTTP methods rather than verbs
        if verb not in sub.verbs and ctx.request.method.lower() not in sub.verbs:
            raise _method_not_allowed()
    elif verb not in resource.verbs or (cluster_path_for_namespaced and verb not in ("list", "watch")):
        raise _method_not_allowed()
    store = server.stores.get((resource.group, resource.version, resource.name))
    scope = Scope(ctx, resource, store, namespace, info.path_name, info.subresource)
    if info.subresource == "log" and resource.name == "pods" and not resource.group:
        return await pod_log(scope)
    if info.subresource in ("exec", "attach") and resource.name == "pods" and not resource.group:
        return await pod_stream(scope)
    if info.subresource == "portforward" and resource.name == "pods" and not resource.group:
        return await pod_port_forward(scope)
    if info.subresource == "proxy" and resource.name in LOCATORS and not resource.group:
        return await serve_proxy(scope)
    if info.subresource == "token" and resource.upstream_group == "" and resource.name == "serviceaccounts":
        return await token_request(scope)
    action = action_for(scope)
    if action is not None:
        return await act(scope, action)
    if store is None:
        if verb != "create" or resource.name not in REVIEWS or info.subresource:
            raise _method_not_allowed()
        return await review(scope)
    return await HANDLERS[verb](scope)


def _json(ctx: RequestContext, body: bytes, content_type: str = "application/json") -> web.StreamResponse:
    return respond(ctx, 200, body, content_type)


def _issuer_discovery(ctx: RequestContext, path: str) -> web.StreamResponse:
    server = ctx.server
    tokens = server.tokens
    if tokens is None or not issuer_discovery.serves_discovery(tokens.issuers[0]):
        raise status.not_found_path()
    if path == issuer_discovery.JWKS_PATH:
        body, content_type = issuer_discovery.key_set(tokens.keys), issuer_discovery.JWKS_CONTENT_TYPE
    else:
        address = server.options.external_hostname or server.discovery.server_address
        jwks_uri = tokens.options.service_account_jwks_uri
        body = issuer_discovery.discovery_document(tokens.issuers[0], jwks_uri, address, tokens.keys)
        content_type = issuer_discovery.DISCOVERY_CONTENT_TYPE
    response = respond(ctx, 200, body, content_type)
    response.headers["Cache-Control"] = issuer_discovery.CACHE_CONTROL
    return response


async def _non_resource(ctx: RequestContext) -> web.StreamResponse:
    server = ctx.server
    request = ctx.request
    path = request.path.rstrip("/") or "/"
    if path.startswith(admin_endpoints.PREFIX):
        return await admin_endpoints.serve(ctx, path)
    if path == profiling.VERBOSITY_FLAG and server.options.serving.profiling:
        response, server.options.logging = await profiling.set_verbosity(request, server.options.logging)
        return response
    if request.method not in ("GET", "HEAD"):
        raise _method_not_allowed()
    health = await server.health(path, request)
    if health is not None:
        return health
    if path == "/metrics":
        return respond(ctx, 200, server.metrics.render(), CONTENT_TYPE)
    serving = server.options.serving
    if serving.profiling and (path == profiling.PREFIX or path.startswith(profiling.PREFIX + "/")):
        return await profiling.serve(path, request)
    if serving.enable_logs_handler and (path == logs_handler.PREFIX or path.startswith(logs_handler.PREFIX + "/")):
        return await logs_handler.serve(path, server.logs_directory)
    if path == "/metrics/slis":
        return respond(ctx, 200, server.metrics.slis.render(), CONTENT_TYPE)
    if path.startswith(flowcontrol_debug.PREFIX) and server.flowcontrol.controller is not None:
        details = request.query.get("includeRequestDetails") == "1"
        text = flowcontrol_debug.dump(server.flowcontrol.controller, path, details)
        if text is not None:
            return respond(ctx, 200, text.encode(), "text/plain; charset=utf-8")
    if path in (issuer_discovery.DISCOVERY_PATH, issuer_discovery.JWKS_PATH):
        return _issuer_discovery(ctx, path)
    if path == "/version":
        return _json(ctx, orjson.dumps(server.version_info, option=orjson.OPT_INDENT_2))
    if path.startswith("/openapi/"):
        return await server.openapi.serve(ctx, path, server.aggregator.openapi)
    discovery = server.discovery
    if path in ("/api", "/apis"):
        aggregated = server.aggregated_discovery_request(request.headers.get("Accept", ""))
        if aggregated is not None:
            version, content_type = aggregated
            body, etag = discovery.aggregated(path == "/api", version, server.profile.discovery_group)
            if path == "/apis":
                body, etag = server.aggregator.discovery.aggregated(body, etag)
            response = _json(ctx, body, content_type)
            response.headers["ETag"] = etag
            response.headers["Vary"] = "Accept"
            return response
        if path == "/api":
            return _json(ctx, discovery.api_versions)
        return _json(ctx, server.aggregator.discovery.group_list(discovery.api_group_list))
    parts = path.strip("/").split("/")
    body = None
    if parts[0] == "api" and len(parts) == 2:
        body = discovery.resource_list("", parts[1])
    elif parts[0] == "apis" and len(parts) == 2:
        body = discovery.api_group(parts[1]) or server.aggregator.discovery.api_group(parts[1])
    elif parts[0] == "apis" and len(parts) == 3:
        body = discovery.resource_list(parts[1], parts[2])
    if body is None:
        raise status.not_found_path()
    return _json(ctx, body)

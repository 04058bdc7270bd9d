"""`/testing/v1/faults`: read (GET), replace (PUT, the `--fault-config` document as JSON or YAML)
or clear (DELETE) the fault rules of a running server. Access is checked by the caller
(`svc.apiserver.admin_endpoints`: test endpoints on, system:masters only)."""

from __future__ import annotations

import orjson
import yaml
from aiohttp import web

from svc.apiserver.context import RequestContext
from svc.apiserver.faults.rules import FaultSet, parse_fault_set
from svc.apiserver.request_body import read_limited
from svc.apiserver.responses import respond
from svc.machinery import status


async def serve_faults(ctx: RequestContext) -> web.StreamResponse:
    faults = ctx.server.faults
    method = ctx.request.method
    if method == "PUT":
        faults.replace(await _read(ctx))
    elif method == "DELETE":
        faults.replace(FaultSet())
    elif method not in ("GET", "HEAD"):
        raise status.StatusError(405, "MethodNotAllowed", f"{method} is not supported on /testing/v1/faults")
    return respond(ctx, 200, orjson.dumps(faults.describe()), "application/json")


async def _read(ctx: RequestContext) -> FaultSet:
    body = await read_limited(ctx.request)
    try:
        document = yaml.safe_load(body)
    except yaml.YAMLError as error:
        raise status.bad_request(f"fault configuration: {error}") from None
    try:
        return parse_fault_set(document)
    except ValueError as error:
        raise status.bad_request(str(error)) from None

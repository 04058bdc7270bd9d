"""GET `pods/{name}/log`: the container's log, streamed from the kubelet of the pod's node.

As upstream's `LogREST`: the options are validated (PodLogOptions), the container is chosen (the only
one, or the named one), a pod not yet on a node has an empty log, and the kubelet's refusals come back
with its status code and its text as the message.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import aiohttp
from aiohttp import web

from svc.apiserver.handlers.scope import Scope
from svc.apiserver.kubelet_client import kubelet_base_url
from svc.machinery import field_errors, status

Obj = dict[str, Any]
_PASSED_ON = ("follow", "previous", "sinceSeconds", "sinceTime", "timestamps", "tailLines", "limitBytes")
_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 500: "InternalError"}


def _integer(query: Any, name: str) -> int | None:
    text = query.get(name)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise status.bad_request(f'strconv.ParseInt: parsing "{text}": invalid syntax') from None


def _validate(query: Any, name: str) -> None:
    """PodLogOptions validation, upstream's messages."""
    errors = []
    tail = _integer(query, "tailLines")
    if tail is not None and tail < 0:
        errors.append(field_errors.invalid("tailLines", tail, "must be greater than or equal to 0"))
    limit = _integer(query, "limitBytes")
    if limit is not None and limit < 1:
        errors.append(field_errors.invalid("limitBytes", limit, "must be greater than 0"))
    since = _integer(query, "sinceSeconds")
    if since is not None and query.get("sinceTime"):
        errors.append(field_errors.forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
    elif since is not None and since < 1:
        errors.append(field_errors.invalid("sinceSeconds", since, "must be greater than 0"))
    if query.get("sinceTime"):
        try:
            datetime.fromisoformat(query["sinceTime"].replace("Z", "+00:00"))
        except ValueError:
            raise status.bad_request(f'parsing time "{query["sinceTime"]}" as RFC3339: cannot parse') from None
    if errors:
        raise status.invalid("PodLogOptions", name, errors, field_errors.aggregate_message(errors))


def choose_container(pod: Obj, name: str, wanted: str) -> str:
    spec = pod.get("spec") or {}
    containers = [c["name"] for c in spec.get("containers") or []]
    inits = [c["name"] for c in spec.get("initContainers") or []]
    ephemeral = [c["name"] for c in spec.get("ephemeralContainers") or []]
    if wanted:
        if wanted not in (*containers, *inits, *ephemeral):
            raise status.bad_request(f"container {wanted} is not valid for pod {name}")
        return wanted
    if len(containers) == 1:
        return containers[0]
    message = f"a container name must be specified for pod {name}"
    if containers:
        message += f", choose one of: [{' '.join(containers)}]"
        if inits:
            message += f" or one of the init containers: [{' '.join(inits)}]"
    raise status.bad_request(message)


async def pod_log(scope: Scope) -> web.StreamResponse:
    query = scope.query
    _validate(query, scope.name)
    pod = await scope.store.get(scope.namespace, scope.name)
    container = choose_container(pod, scope.name, query.get("container", ""))
    request = scope.ctx.request
    node_name = (pod.get("spec") or {}).get("nodeName")
    response = web.StreamResponse(status=200, headers={"Content-Type": "text/plain"})
    if not node_name:
        scope.ctx.response_started(response)
        await response.prepare(request)
        await response.write_eof()
        return response
    node = await scope.server.store_for("", "nodes").get("", node_name)
    url = f"{kubelet_base_url(node)}/containerLogs/{scope.namespace}/{scope.name}/{container}"
    params = {key: query[key] for key in _PASSED_ON if key in query}
    session = scope.server.kubelet_client.session
    try:
        async with session.get(url, params=params, timeout=aiohttp.ClientTimeout(sock_connect=10)) as upstream:
            if upstream.status != 200:
                text = (await upstream.text()).strip()
                raise status.StatusError(upstream.status, _REASONS.get(upstream.status, ""), text)
            scope.ctx.response_started(response)
            await response.prepare(request)
            async for chunk in upstream.content.iter_any():
                await response.write(chunk)
    except aiohttp.ClientError as error:
        if response.prepared:
            return response
        raise status.internal_error(f'Get "{url}": {error}') from None
    await response.write_eof()
    return response
